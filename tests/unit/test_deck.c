/*
 * test_deck.c - unit tests for the mix deck (src/tpcc/deck.c): the default
 * is the spec's 23 cards; a mix in percent is reduced by its gcd; over every
 * whole deck the shares are exact (each block of n draws is one deck, a
 * permutation of its cards); the shuffle moves cards (each position holds
 * the single Order-Status card some time); the same seed deals the same
 * cards; weights that cannot make a deck are refused.  Each failure prints
 * both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tpcc/deck.h"

#include <stdio.h>
#include <string.h>

#define TEST_SEED UINT64_C(0x5eed0f7063630d3c)

/* Fail with both sides when got differs from want. */
#define CHECK_INT(what, got, want)                               \
    do {                                                         \
        long long g_ = (long long)(got), w_ = (long long)(want); \
        if (g_ != w_)                                            \
            fail_msg("%s: got %lld, want %lld", (what), g_, w_); \
    } while (0)

static void test_spec_deck(void **state)
{
    struct deck d;

    (void)state;
    assert_int_equal(deck_init(&d, deck_spec_weights), 0);
    CHECK_INT("cards", d.n, 23);
    CHECK_INT("new_order", d.count[TX_NEW_ORDER], 10);
    CHECK_INT("payment", d.count[TX_PAYMENT], 10);
    CHECK_INT("order_status", d.count[TX_ORDER_STATUS], 1);
    CHECK_INT("delivery", d.count[TX_DELIVERY], 1);
    CHECK_INT("stock_level", d.count[TX_STOCK_LEVEL], 1);
    if (deck_share_pct(&d, TX_PAYMENT) < 43.0 || deck_share_pct(&d, TX_ORDER_STATUS) < 4.0)
        fail_msg("spec deck shares %.3f %% payment, %.3f %% order-status: under a minimum",
                 deck_share_pct(&d, TX_PAYMENT), deck_share_pct(&d, TX_ORDER_STATUS));
}

/* Percentages reduced by their gcd, and the cards that makes. */
static void test_reduce(void **state)
{
    static const struct {
        int w[TX_NTYPES];
        int n;
        int count[TX_NTYPES];
    } cases[] = {
        { { 45, 43, 4, 4, 4 }, 100, { 45, 43, 4, 4, 4 } },
        { { 40, 40, 10, 5, 5 }, 20, { 8, 8, 2, 1, 1 } },
        { { 20, 20, 20, 20, 20 }, 5, { 1, 1, 1, 1, 1 } },
        { { 0, 0, 0, 0, 100 }, 1, { 0, 0, 0, 0, 1 } },
        { { 44, 44, 4, 4, 4 }, 25, { 11, 11, 1, 1, 1 } },
        { { 10, 10, 1, 1, 1 }, 23, { 10, 10, 1, 1, 1 } },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct deck d;
        char what[64];
        assert_int_equal(deck_init(&d, cases[i].w), 0);
        snprintf(what, sizeof(what), "case %zu: cards", i);
        CHECK_INT(what, d.n, cases[i].n);
        for (int t = 0; t < TX_NTYPES; t++) {
            snprintf(what, sizeof(what), "case %zu: cards of %s", i, tx_name((enum tx_type)t));
            CHECK_INT(what, d.count[t], cases[i].count[t]);
        }
    }
}

/* Every block of n draws is one whole deck: its counts are the deck's. */
static void test_exact_over_decks(void **state)
{
    static const int mixes[][TX_NTYPES] = {
        { 10, 10, 1, 1, 1 },
        { 45, 43, 4, 4, 4 },
        { 40, 40, 10, 5, 5 },
        { 0, 0, 0, 0, 100 },
    };
    (void)state;

    for (size_t m = 0; m < sizeof(mixes) / sizeof(mixes[0]); m++) {
        struct deck d;
        struct rng r;
        long total[TX_NTYPES] = { 0 };
        int decks = 1000;

        assert_int_equal(deck_init(&d, mixes[m]), 0);
        rng_init(&r, TEST_SEED + m);
        for (int k = 0; k < decks; k++) {
            int block[TX_NTYPES] = { 0 };
            for (int i = 0; i < d.n; i++) {
                int t = deck_draw(&d, &r);
                if (t < 0 || t >= TX_NTYPES)
                    fail_msg("mix %zu, deck %d, card %d: type %d out of range", m, k, i, t);
                block[t]++;
                total[t]++;
            }
            for (int t = 0; t < TX_NTYPES; t++)
                if (block[t] != d.count[t])
                    fail_msg("mix %zu, deck %d: %d cards of %s, the deck has %d", m, k, block[t],
                             tx_name((enum tx_type)t), d.count[t]);
        }
        for (int t = 0; t < TX_NTYPES; t++) {
            double share = 100.0 * (double)total[t] / (double)(decks * d.n);
            if (share != deck_share_pct(&d, t))
                fail_msg("mix %zu: %s share %.6f %% over %d decks, want exactly %.6f %%", m,
                         tx_name((enum tx_type)t), share, decks, deck_share_pct(&d, t));
        }
    }
}

/* The shuffle moves the single Order-Status card to every position, and two
 * streams from the same seed deal the same cards. */
static void test_shuffle(void **state)
{
    struct deck a, b;
    struct rng ra, rb;
    int seen[23] = { 0 }, differ = 0;
    unsigned char first[23];

    (void)state;
    assert_int_equal(deck_init(&a, deck_spec_weights), 0);
    assert_int_equal(deck_init(&b, deck_spec_weights), 0);
    rng_init(&ra, TEST_SEED);
    rng_init(&rb, TEST_SEED);
    for (int k = 0; k < 2300; k++) {
        for (int i = 0; i < 23; i++) {
            int t = deck_draw(&a, &ra), u = deck_draw(&b, &rb);
            if (t != u)
                fail_msg("deck %d, card %d: %d and %d from the same seed", k, i, t, u);
            if (t == TX_ORDER_STATUS)
                seen[i]++;
            if (k == 0)
                first[i] = (unsigned char)t;
            else if (k == 1 && first[i] != t)
                differ = 1;
        }
    }
    for (int i = 0; i < 23; i++)
        if (seen[i] == 0)
            fail_msg("the order-status card was never at position %d in 2300 decks", i);
    if (!differ)
        fail_msg("the second deck was dealt in the same order as the first");
}

static void test_refused(void **state)
{
    static const int zero[TX_NTYPES] = { 0, 0, 0, 0, 0 };
    static const int negative[TX_NTYPES] = { 50, 50, -1, 1, 0 };
    static const int too_many[TX_NTYPES] = { 51, 50, 0, 0, 0 };
    struct deck d;

    (void)state;
    CHECK_INT("all zero", deck_init(&d, zero), -1);
    CHECK_INT("a negative weight", deck_init(&d, negative), -1);
    CHECK_INT("101 cards", deck_init(&d, too_many), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_deck),        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_exact_over_decks), cmocka_unit_test(test_shuffle),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
