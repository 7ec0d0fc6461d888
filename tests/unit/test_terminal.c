/*
 * test_terminal.c - unit tests for the terminal model (src/run/terminal.c)
 * and the scheduler's timer queue (src/run/sched.c).
 *
 *  - identity: 10 x W terminals cover every (w, d) exactly once; fewer
 *    spread over the warehouses first;
 *  - keying times are the spec's; think times are negative exponential with
 *    the spec's means (the sample mean within 4 standard errors over 200,000
 *    draws, the truncation at 10 x the mean accounted for) and never above
 *    10 x the mean;
 *  - pacing: closed loop submits at the end, think time adds think + keying
 *    (scaled), open loop keeps its own Poisson schedule (mean gap within 4
 *    standard errors of terminals / rate) whatever the completions;
 *  - the timer queue gives terminals back in due order, only once due, and
 *    a stop ends a wait;
 *  - the run's reconnect back-off (run_int.h conn_backoff_us): 50 ms
 *    doubling to 1 s, each jittered wait in its upper half.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "run/run_int.h"
#include "run/sched.h"
#include "run/terminal.h"
#include "tpcc/deck.h"

static void test_identity(void **state)
{
    const int W = 7;
    int seen[7][10];
    struct terminal t;

    (void)state;
    memset(seen, 0, sizeof(seen));
    for (int id = 0; id < 10 * W; id++) {
        assert_int_equal(term_init(&t, id, W, 42, deck_spec_weights), 0);
        assert_true(t.w_id >= 1 && t.w_id <= W);
        assert_true(t.d_id >= 1 && t.d_id <= 10);
        seen[t.w_id - 1][t.d_id - 1]++;
    }
    for (int w = 0; w < W; w++)
        for (int d = 0; d < 10; d++)
            if (seen[w][d] != 1) {
                print_error("(w %d, d %d) taken %d times, want 1\n", w + 1, d + 1, seen[w][d]);
                fail();
            }
    /* Fewer than W: one per warehouse, district 1. */
    for (int id = 0; id < W; id++) {
        term_init(&t, id, W, 42, deck_spec_weights);
        assert_int_equal(t.w_id, id + 1);
        assert_int_equal(t.d_id, 1);
    }
    /* Different terminals, different streams. */
    {
        struct terminal a, b;
        term_init(&a, 0, W, 42, deck_spec_weights);
        term_init(&b, 1, W, 42, deck_spec_weights);
        assert_true(memcmp(&a.rng, &b.rng, sizeof(a.rng)) != 0);
    }
}

static void test_keying_think(void **state)
{
    static const double keying[TX_NTYPES] = { 18, 3, 2, 2, 2 };
    static const double mean[TX_NTYPES] = { 12, 12, 10, 5, 5 };
    struct rng r;

    (void)state;
    rng_init_stream(&r, 7, 3, 0, 0);
    for (int ty = 0; ty < TX_NTYPES; ty++) {
        const int n = 200000;
        double sum = 0, max = 0;
        /* min(X, 10 m) for X negative exponential of mean m: mean m (1 - e^-10),
         * standard deviation below m. */
        double m = mean[ty] * (1 - exp(-10.0));
        assert_true(fabs(term_keying_s(ty) - keying[ty]) < 1e-12);
        assert_true(fabs(term_think_mean_s(ty) - mean[ty]) < 1e-12);
        for (int i = 0; i < n; i++) {
            double t = term_think_s(ty, rng_unit(&r));
            sum += t;
            if (t > max)
                max = t;
        }
        if (fabs(sum / n - m) > 4 * mean[ty] / sqrt(n)) {
            print_error("type %d: mean think %.4f s, want %.4f +- %.4f\n", ty, sum / n, m,
                        4 * mean[ty] / sqrt(n));
            fail();
        }
        assert_true(max <= 10 * mean[ty] + 1e-9);
    }
    /* The cap itself: u close to 1 gives exactly 10 x the mean. */
    assert_true(fabs(term_think_s(TX_NEW_ORDER, 1.0 - 1e-12) - 120.0) < 1e-9);
    assert_true(term_think_s(TX_PAYMENT, 0.0) == 0.0);
}

static void test_pacing(void **state)
{
    struct terminal t;
    struct term_pace closed = { TERM_CLOSED, 1.0, 0, 1 };
    struct term_pace think = { TERM_THINK, 0.01, 0, 1 };
    struct term_pace open = { TERM_OPEN, 1.0, 1000, 10 };

    (void)state;
    term_init(&t, 0, 1, 9, deck_spec_weights);
    term_first(&t, &closed, 1000);
    assert_int_equal(t.due_us, 1000);
    assert_int_equal(t.intended_us, 1000);
    term_next(&t, &closed, 5000);
    assert_int_equal(t.due_us, 5000);

    /* Think: keying of the first type (scaled), then think of the ended type + keying. */
    term_init(&t, 0, 1, 9, deck_spec_weights);
    term_first(&t, &think, 0);
    assert_int_equal(t.due_us, (uint64_t)(term_keying_s(t.type) * 0.01 * 1e6));
    {
        uint64_t lo, hi;
        int ended = t.type;
        term_next(&t, &think, 1000000);
        lo = 1000000 + (uint64_t)(term_keying_s(t.type) * 0.01 * 1e6);
        hi = lo + (uint64_t)(10 * term_think_mean_s(ended) * 0.01 * 1e6) + 1;
        if (t.due_us < lo || t.due_us > hi) {
            print_error("due %llu not in [%llu, %llu]\n", (unsigned long long)t.due_us,
                        (unsigned long long)lo, (unsigned long long)hi);
            fail();
        }
        assert_int_equal(t.gap_us, t.due_us - 1000000);
    }

    /* Open: 1000/s over 10 terminals = 100/s each, a mean gap of 10 ms; the
     * schedule does not move when completions come late. */
    term_init(&t, 3, 1, 9, deck_spec_weights);
    term_first(&t, &open, 0);
    {
        const int n = 50000;
        uint64_t first = t.due_us, prev = t.due_us;
        for (int i = 0; i < n; i++) {
            term_next(&t, &open, prev + 1000000); /* every completion a second late */
            assert_true(t.due_us >= prev);
            prev = t.due_us;
        }
        {
            double mean_gap = (double)(prev - first) / n;
            if (fabs(mean_gap - 10000.0) > 4 * 10000.0 / sqrt(n)) {
                print_error("mean arrival gap %.1f us, want 10000 +- %.1f\n", mean_gap,
                            4 * 10000.0 / sqrt(n));
                fail();
            }
        }
    }
}

static void test_mean_cycle(void **state)
{
    struct deck d;

    (void)state;
    assert_int_equal(deck_init(&d, deck_spec_weights), 0);
    /* (10 x 30 + 10 x 15 + 12 + 7 + 7) / 23 */
    assert_true(fabs(term_mean_cycle_s(&d) - 476.0 / 23.0) < 1e-9);
}

static void test_sched_order(void **state)
{
    enum { N = 500 };
    static struct terminal t[N];
    struct sched s;
    uint64_t now = clock_us(), got, prev = 0;
    int stop = 0;

    (void)state;
    assert_int_equal(sched_init(&s, N), 0);
    /* Due in a scrambled order, all in the past. */
    for (int i = 0; i < N; i++) {
        memset(&t[i], 0, sizeof(t[i]));
        t[i].id = i;
        t[i].due_us = now - 1000000 + (uint64_t)((i * 7919) % N) * 10;
        sched_put(&s, &t[i]);
    }
    assert_int_equal(sched_count(&s), N);
    for (int i = 0; i < N; i++) {
        struct terminal *x = sched_take(&s, &stop, 1000, &got);
        assert_non_null(x);
        assert_true(x->due_us >= prev);
        assert_int_equal(x->queued, 0);
        prev = x->due_us;
    }
    assert_int_equal(sched_count(&s), 0);
    /* Not due yet: not given before its time (10 s away, however late this
     * process is scheduled on a loaded machine). */
    t[0].due_us = clock_us() + 10000000;
    sched_put(&s, &t[0]);
    assert_null(sched_take(&s, &stop, 5000, &got));
    /* One due soon comes first, once due: the take waits for it. */
    t[1].due_us = clock_us() + 30000;
    sched_put(&s, &t[1]);
    {
        struct terminal *x = sched_take(&s, &stop, 5000000, &got);
        assert_ptr_equal(x, &t[1]);
        assert_true(got >= t[1].due_us);
    }
    /* A stop ends the wait (t[0] is still 10 s away). */
    stop = 1;
    assert_null(sched_take(&s, &stop, 10000000, &got));
    sched_close(&s);
    stop = 0;
    assert_null(sched_take(&s, &stop, 10000000, &got));
    sched_release(&s);
}

/* A batch's extra terminals: only those due, first due first, never while
 * a worker waits for work (it would start them at once), never once closed. */
static void test_sched_take_due(void **state)
{
    static struct terminal t[3];
    struct sched s;
    uint64_t now = clock_us();

    (void)state;
    assert_int_equal(sched_init(&s, 3), 0);
    for (int i = 0; i < 3; i++) {
        memset(&t[i], 0, sizeof(t[i]));
        t[i].id = i;
    }
    t[0].due_us = now - 200;
    t[1].due_us = now - 100;
    t[2].due_us = now + 1000000;
    for (int i = 2; i >= 0; i--)
        sched_put(&s, &t[i]);
    s.n_waiting = 1; /* as if a worker waited in sched_take() */
    assert_null(sched_take_due(&s, now));
    s.n_waiting = 0;
    assert_ptr_equal(sched_take_due(&s, now), &t[0]);
    assert_int_equal(t[0].queued, 0);
    assert_ptr_equal(sched_take_due(&s, now), &t[1]);
    /* t[2] is not due until a second from now. */
    assert_null(sched_take_due(&s, now));
    assert_int_equal(sched_count(&s), 1);
    assert_ptr_equal(sched_take_due(&s, now + 1000000), &t[2]);
    sched_put(&s, &t[0]);
    sched_close(&s);
    assert_null(sched_take_due(&s, now));
    sched_release(&s);
}

/* 1 when fd is readable now. */
static int readable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };

    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* A worker of several connections: sched_take_now takes what is due even
 * while others wait; the bell rings only for a put that becomes the first
 * while a worker polls, and for a close; sched_poll_begin says when the
 * first is due and counts the poller as a waiter (batches leave it work). */
static void test_sched_poll(void **state)
{
    static struct terminal t[3];
    struct sched s;
    uint64_t now = clock_us();

    (void)state;
    assert_int_equal(sched_init(&s, 3), 0);
    for (int i = 0; i < 3; i++) {
        memset(&t[i], 0, sizeof(t[i]));
        t[i].id = i;
    }
    t[0].due_us = now + 500000;
    t[1].due_us = now + 300000;
    t[2].due_us = now - 10;
    sched_put(&s, &t[0]);
    assert_false(readable(s.bell)); /* nobody polls: no ring */
    assert_int_equal(sched_poll_begin(&s), now + 500000);
    sched_put(&s, &t[1]);           /* the new first, while one polls */
    assert_true(readable(s.bell));
    sched_poll_end(&s, 1);
    assert_false(readable(s.bell)); /* drained */
    assert_int_equal(sched_poll_begin(&s), now + 300000);
    assert_int_equal(s.n_waiting, 1);
    sched_put(&s, &t[2]);
    assert_true(readable(s.bell));
    assert_null(sched_take_due(&s, now)); /* a poller waits: batches leave it */
    assert_ptr_equal(sched_take_now(&s, now), &t[2]); /* ... it takes it */
    sched_poll_end(&s, 1);
    assert_int_equal(s.n_waiting, 0);
    assert_null(sched_take_now(&s, now)); /* the others are not due */
    assert_ptr_equal(sched_take_now(&s, now + 300000), &t[1]);
    sched_poll_begin(&s);
    t[2].due_us = now + 900000;
    sched_put(&s, &t[2]);           /* not the first: no ring */
    assert_false(readable(s.bell));
    sched_close(&s);
    assert_true(readable(s.bell));
    assert_int_equal(sched_poll_begin(&s), UINT64_MAX); /* closed */
    assert_null(sched_take_now(&s, now + 1000000));
    sched_poll_end(&s, 1);
    sched_poll_end(&s, 1);
    sched_release(&s);
}

/* All that is due in one hold: sched_take_many takes, due first first, at
 * most max of those due at now; with leave, none while a worker waits; none
 * once closed. */
static void test_sched_take_many(void **state)
{
    static struct terminal t[5];
    struct terminal *got[5];
    struct sched s;
    uint64_t now = clock_us();
    const int64_t due[5] = { -30, 400000, -10, -20, 0 };

    (void)state;
    assert_int_equal(sched_init(&s, 5), 0);
    for (int i = 0; i < 5; i++) {
        memset(&t[i], 0, sizeof(t[i]));
        t[i].id = i;
        t[i].due_us = (uint64_t)((int64_t)now + due[i]);
        sched_put(&s, &t[i]);
    }
    assert_int_equal(sched_take_many(&s, now, got, 2, 0), 2);
    assert_ptr_equal(got[0], &t[0]);
    assert_ptr_equal(got[1], &t[3]);
    assert_false(t[0].queued);
    s.n_waiting = 1; /* as if a worker waited in sched_take() */
    assert_int_equal(sched_take_many(&s, now, got, 5, 1), 0);
    assert_int_equal(sched_take_many(&s, now, got, 5, 0), 2); /* t[2], t[4]: not t[1] */
    assert_ptr_equal(got[0], &t[2]);
    assert_ptr_equal(got[1], &t[4]);
    s.n_waiting = 0;
    assert_int_equal(sched_count(&s), 1);
    assert_int_equal(sched_take_many(&s, now + 400000, got, 5, 1), 1);
    assert_ptr_equal(got[0], &t[1]);
    sched_put(&s, &t[1]);
    sched_close(&s);
    assert_int_equal(sched_take_many(&s, now + 1000000, got, 5, 0), 0);
    sched_release(&s);
}

/* The run's one reconnect back-off (worker.c, group.c, the monitor): 50 ms
 * doubling to 1 s; jittered, each wait drawn over back-off/2 .. back-off. */
static void test_conn_backoff(void **state)
{
    static const uint64_t want_us[] = { 50000,  100000,  200000,  400000,
                                        800000, 1000000, 1000000, 1000000 };
    uint64_t jitter = 777;

    (void)state;
    for (int k = 1; k <= 8; k++) {
        uint64_t b = want_us[k - 1], lo = UINT64_MAX, hi = 0;
        if (conn_backoff_us(k, NULL) != b)
            fail_msg("attempt %d: back-off %llu us without jitter, want %llu", k,
                     (unsigned long long)conn_backoff_us(k, NULL), (unsigned long long)b);
        for (int i = 0; i < 2000; i++) {
            uint64_t w = conn_backoff_us(k, &jitter);
            lo = w < lo ? w : lo;
            hi = w > hi ? w : hi;
        }
        if (lo < b / 2 || hi > b || lo > b / 2 + b / 20 || hi < b - b / 20)
            fail_msg("attempt %d: waits %llu .. %llu us, want spread over %llu .. %llu", k,
                     (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)(b / 2),
                     (unsigned long long)b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),   cmocka_unit_test(test_keying_think),
        cmocka_unit_test(test_pacing),     cmocka_unit_test(test_mean_cycle),
        cmocka_unit_test(test_sched_order), cmocka_unit_test(test_sched_take_due),
        cmocka_unit_test(test_sched_poll), cmocka_unit_test(test_sched_take_many),
        cmocka_unit_test(test_conn_backoff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
