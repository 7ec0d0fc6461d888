/*
 * test_txn.c - unit tests for the transaction inputs and the retry logic
 * (src/tpcc/txn.c).
 *
 * Inputs: txn_gen() is drawn many times from a fixed seed and every rule of
 * clause 2 that a single input must obey is checked on each one (ranges,
 * sort order, where the unused item goes, remote means another warehouse);
 * the shares (rollbacks, remote lines and payments, selection by last name)
 * must lie within UNIT_SIGMAS binomial standard deviations of the spec's
 * percentage.  (The mix is dealt from a deck: tests/unit/test_deck.c.)  That the run's NURand
 * constants are used is shown by drawing the same stream under two contexts:
 * only the constant C differs, so every NURand value moves by exactly the
 * difference of the constants (mod the range).
 *
 * Retries: the null driver (no rows, every call succeeds) with injected
 * faults; a Delivery finds no new order in any district and commits, so it
 * is the one transaction that runs to its end there.  Each failure prints
 * both sides.
 *
 * The null driver's synthetic answers (src/db/null.c): the procedure
 * version it gives is TXN_PROC_VERSION (the literal is written there too, as
 * db/ may not include tpcc/), so procedure mode prepares; Order-Status gets
 * its one synthetic row, the same output in every mode and in a batch; and
 * every other statement answers no rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* Standard deviations allowed for a binomial count. */
#define UNIT_SIGMAS 4.0
#include "unit.h"

#include "db/db.h"
#include "db/dialect.h"
#include "tpcc/random.h"
#include "tpcc/txn.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The seed of every stream drawn here (tests add their own number). */
#define TEST_SEED UINT64_C(0x5eed0f7063630002)

/* The number 0..999 whose last name is name, or -1. */
static int test_lastname_num(const char *name)
{
    static char names[1000][16];
    static int ready;

    if (!ready) {
        for (int i = 0; i < 1000; i++)
            tpcc_lastname(i, names[i]);
        ready = 1;
    }
    for (int i = 0; i < 1000; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

static const struct txn_ctx test_ctx_w10 = { .warehouses = 10,
                                             .c_run = { .c_last = 200, .c_id = 300,
                                                        .ol_i_id = 4000 } };

/* ---- txn_gen: New-Order ---- */

static void test_gen_new_order(void **state)
{
    enum { DRAWS = 200000, W = 10 };
    int64_t rollbacks = 0, lines = 0, remote_lines = 0, orders_remote = 0;
    int64_t cnt_seen[16] = { 0 }, remote_to[W + 1] = { 0 };
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED + 10);
    for (int i = 0; i < DRAWS; i++) {
        int w = 1 + i % W, has_remote = 0, has_unused = 0;
        struct txn_input in;
        const struct no_input *no = &in.u.no;

        memset(&in, 0xa5, sizeof(in));
        txn_gen(&r, &test_ctx_w10, TX_NEW_ORDER, w, 1, &in);
        CHECK(in.type == TX_NEW_ORDER, "draw %d: type %d", i, in.type);
        CHECK(no->w_id == w, "draw %d: w_id %d, home %d", i, no->w_id, w);
        CHECK(no->d_id >= 1 && no->d_id <= 10, "draw %d: d_id %d", i, no->d_id);
        CHECK(no->c_id >= 1 && no->c_id <= 3000, "draw %d: c_id %d", i, no->c_id);
        CHECK(no->ol_cnt >= 5 && no->ol_cnt <= 15, "draw %d: ol_cnt %d", i, no->ol_cnt);
        CHECK(no->rollback == 0 || no->rollback == 1, "draw %d: rollback %d", i, no->rollback);
        cnt_seen[no->ol_cnt]++;
        lines += no->ol_cnt;
        rollbacks += no->rollback;
        for (int k = 0; k < no->ol_cnt; k++) {
            const struct no_item *it = &no->items[k];
            CHECK(it->quantity >= 1 && it->quantity <= 10, "draw %d line %d: quantity %d", i, k,
                  it->quantity);
            CHECK(it->supply_w_id >= 1 && it->supply_w_id <= W,
                  "draw %d line %d: supply_w_id %d", i, k, it->supply_w_id);
            if (it->i_id == TXN_UNUSED_ITEM) {
                has_unused = 1;
                CHECK(k == no->ol_cnt - 1,
                      "draw %d: the unused item on line %d of %d (must be the last)", i, k + 1,
                      no->ol_cnt);
            } else {
                CHECK(it->i_id >= 1 && it->i_id <= TPCC_ITEMS_MAX, "draw %d line %d: i_id %d", i,
                      k, it->i_id);
            }
            if (it->supply_w_id != w) {
                has_remote = 1;
                remote_lines++;
                remote_to[it->supply_w_id]++;
            }
            if (k > 0) {
                const struct no_item *p = &no->items[k - 1];
                CHECK(p->i_id < it->i_id ||
                          (p->i_id == it->i_id && p->supply_w_id <= it->supply_w_id),
                      "draw %d: line %d (%d,%d) before line %d (%d,%d): not sorted", i, k,
                      p->i_id, p->supply_w_id, k + 1, it->i_id, it->supply_w_id);
            }
        }
        CHECK(has_unused == no->rollback, "draw %d: rollback %d but unused item %s", i,
              no->rollback, has_unused ? "present" : "absent");
        CHECK(no->all_local == !has_remote, "draw %d: all_local %d but %s remote line", i,
              no->all_local, has_remote ? "a" : "no");
        orders_remote += has_remote;
    }
    unit_check_binomial("New-Order rollbacks", rollbacks, DRAWS, 0.01);
    unit_check_binomial("remote order lines", remote_lines, lines, 0.01);
    {
        double mean = (double)lines / DRAWS;
        CHECK(fabs(mean - 10.0) < 0.05, "mean lines per order %.4f, want 10 +- 0.05", mean);
    }
    for (int n = 5; n <= 15; n++)
        unit_check_binomial("orders with a given ol_cnt", cnt_seen[n], DRAWS, 1.0 / 11);
    CHECK(orders_remote > 0 && orders_remote < DRAWS, "orders with a remote line: %" PRId64,
          orders_remote);
    /* Remote supply warehouses are spread over all of 1..W (none is home). */
    for (int w = 1; w <= W; w++)
        unit_check_binomial("remote lines to one warehouse", remote_to[w], remote_lines, 0.1);
}

/* With two warehouses a remote line or payment can only go to the other one. */
static void test_gen_two_warehouses(void **state)
{
    enum { DRAWS = 50000 };
    const struct txn_ctx ctx = { .warehouses = 2, .c_run = { 100, 100, 100 } };
    int64_t remote_lines = 0, remote_pay = 0;
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED + 11);
    for (int i = 0; i < DRAWS; i++) {
        int w = 1 + i % 2;
        struct txn_input in;

        txn_gen(&r, &ctx, TX_NEW_ORDER, w, 1, &in);
        for (int k = 0; k < in.u.no.ol_cnt; k++) {
            int s = in.u.no.items[k].supply_w_id;
            CHECK(s == 1 || s == 2, "draw %d line %d: supply_w_id %d with W=2", i, k, s);
            remote_lines += s != w;
        }
        txn_gen(&r, &ctx, TX_PAYMENT, w, 1, &in);
        CHECK(in.u.pay.c_w_id == 1 || in.u.pay.c_w_id == 2, "draw %d: c_w_id %d with W=2", i,
              in.u.pay.c_w_id);
        remote_pay += in.u.pay.c_w_id != w;
    }
    CHECK(remote_lines > 0 && remote_pay > 0, "W=2: %" PRId64 " remote lines, %" PRId64
          " remote payments", remote_lines, remote_pay);
    unit_check_binomial("W=2 remote payments", remote_pay, DRAWS, 0.15);
}

/* ---- txn_gen: Payment, Order-Status, Delivery, Stock-Level ---- */

static void test_gen_payment(void **state)
{
    enum { DRAWS = 200000, W = 10 };
    int64_t remote = 0, by_name = 0, same_district = 0;
    int64_t amount_min = INT64_MAX, amount_max = INT64_MIN;
    double amount_sum = 0;
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED + 20);
    for (int i = 0; i < DRAWS; i++) {
        int w = 1 + i % W;
        struct txn_input in;
        const struct pay_input *p = &in.u.pay;

        memset(&in, 0, sizeof(in));
        txn_gen(&r, &test_ctx_w10, TX_PAYMENT, w, 1, &in);
        CHECK(in.type == TX_PAYMENT, "draw %d: type %d", i, in.type);
        CHECK(p->w_id == w, "draw %d: w_id %d, home %d", i, p->w_id, w);
        CHECK(p->d_id >= 1 && p->d_id <= 10, "draw %d: d_id %d", i, p->d_id);
        CHECK(p->c_w_id >= 1 && p->c_w_id <= W, "draw %d: c_w_id %d", i, p->c_w_id);
        CHECK(p->c_d_id >= 1 && p->c_d_id <= 10, "draw %d: c_d_id %d", i, p->c_d_id);
        if (p->c_w_id != p->w_id) {
            remote++;
            same_district += p->c_d_id == p->d_id;
        } else {
            CHECK(p->c_d_id == p->d_id, "draw %d: home customer in district %d, payment in %d",
                  i, p->c_d_id, p->d_id);
        }
        CHECK(p->amount_cents >= 100 && p->amount_cents <= 500000,
              "draw %d: amount %" PRId64 " cents", i, p->amount_cents);
        amount_min = p->amount_cents < amount_min ? p->amount_cents : amount_min;
        amount_max = p->amount_cents > amount_max ? p->amount_cents : amount_max;
        amount_sum += (double)p->amount_cents;
        CHECK(p->by_name == 0 || p->by_name == 1, "draw %d: by_name %d", i, p->by_name);
        if (p->by_name) {
            by_name++;
            CHECK(test_lastname_num(p->c_last) >= 0, "draw %d: c_last '%.16s' is no TPC-C name",
                  i, p->c_last);
        } else {
            CHECK(p->c_id >= 1 && p->c_id <= 3000, "draw %d: c_id %d", i, p->c_id);
        }
    }
    unit_check_binomial("remote payments", remote, DRAWS, 0.15);
    unit_check_binomial("payments by last name", by_name, DRAWS, 0.60);
    /* A remote customer's district is random: it equals d_id 1 time in 10. */
    unit_check_binomial("remote customer in the payment's district", same_district, remote, 0.1);
    /* Uniform over 100..500000: the extremes come close to the bounds. */
    CHECK(amount_min < 100 + 50 && amount_max > 500000 - 50,
          "amounts seen %" PRId64 "..%" PRId64 ", want close to 100..500000", amount_min,
          amount_max);
    CHECK(fabs(amount_sum / DRAWS - 250050.0) < 2000, "mean amount %.0f cents, want 250050",
          amount_sum / DRAWS);
}

static void test_gen_order_status(void **state)
{
    enum { DRAWS = 100000 };
    int64_t by_name = 0;
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED + 30);
    for (int i = 0; i < DRAWS; i++) {
        int w = 1 + i % 10;
        struct txn_input in;
        const struct os_input *o = &in.u.os;

        memset(&in, 0, sizeof(in));
        txn_gen(&r, &test_ctx_w10, TX_ORDER_STATUS, w, 1, &in);
        CHECK(in.type == TX_ORDER_STATUS, "draw %d: type %d", i, in.type);
        CHECK(o->w_id == w, "draw %d: w_id %d, home %d", i, o->w_id, w);
        CHECK(o->d_id >= 1 && o->d_id <= 10, "draw %d: d_id %d", i, o->d_id);
        if (o->by_name) {
            by_name++;
            CHECK(test_lastname_num(o->c_last) >= 0, "draw %d: c_last '%.16s' is no TPC-C name",
                  i, o->c_last);
        } else {
            CHECK(o->c_id >= 1 && o->c_id <= 3000, "draw %d: c_id %d", i, o->c_id);
        }
    }
    unit_check_binomial("order-status by last name", by_name, DRAWS, 0.60);
}

static void test_gen_delivery_stock_level(void **state)
{
    enum { DRAWS = 50000 };
    int64_t carrier[11] = { 0 }, threshold[21] = { 0 };
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED + 40);
    for (int i = 0; i < DRAWS; i++) {
        int w = 1 + i % 10, d = 1 + (i / 10) % 10;
        struct txn_input in;

        txn_gen(&r, &test_ctx_w10, TX_DELIVERY, w, d, &in);
        CHECK(in.type == TX_DELIVERY && in.u.dl.w_id == w,
              "draw %d: delivery type %d w_id %d, home %d", i, in.type, in.u.dl.w_id, w);
        CHECK(in.u.dl.carrier_id >= 1 && in.u.dl.carrier_id <= 10, "draw %d: carrier %d", i,
              in.u.dl.carrier_id);
        carrier[in.u.dl.carrier_id]++;

        txn_gen(&r, &test_ctx_w10, TX_STOCK_LEVEL, w, d, &in);
        CHECK(in.type == TX_STOCK_LEVEL, "draw %d: type %d", i, in.type);
        CHECK(in.u.sl.w_id == w && in.u.sl.d_id == d,
              "draw %d: stock-level (w %d, d %d), terminal's (%d, %d)", i, in.u.sl.w_id,
              in.u.sl.d_id, w, d);
        CHECK(in.u.sl.threshold >= 10 && in.u.sl.threshold <= 20, "draw %d: threshold %d", i,
              in.u.sl.threshold);
        threshold[in.u.sl.threshold]++;
    }
    for (int c = 1; c <= 10; c++)
        unit_check_binomial("one carrier", carrier[c], DRAWS, 0.1);
    for (int t = 10; t <= 20; t++)
        unit_check_binomial("one threshold", threshold[t], DRAWS, 1.0 / 11);
}

/* One warehouse: every line is home, every order all local, every customer home. */
static void test_gen_one_warehouse(void **state)
{
    enum { DRAWS = 100000 };
    const struct txn_ctx ctx = { .warehouses = 1, .c_run = { 10, 20, 30 } };
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED + 50);
    for (int i = 0; i < DRAWS; i++) {
        struct txn_input in;

        txn_gen(&r, &ctx, TX_NEW_ORDER, 1, 1, &in);
        CHECK(in.u.no.all_local == 1, "draw %d: all_local %d with W=1", i, in.u.no.all_local);
        for (int k = 0; k < in.u.no.ol_cnt; k++)
            CHECK(in.u.no.items[k].supply_w_id == 1, "draw %d line %d: supply_w_id %d with W=1",
                  i, k, in.u.no.items[k].supply_w_id);
        txn_gen(&r, &ctx, TX_PAYMENT, 1, 1, &in);
        CHECK(in.u.pay.c_w_id == 1 && in.u.pay.c_d_id == in.u.pay.d_id,
              "draw %d: W=1 payment in d %d for customer (w %d, d %d)", i, in.u.pay.d_id,
              in.u.pay.c_w_id, in.u.pay.c_d_id);
    }
}

/* The same stream under two contexts that differ only in the NURand
 * constants: each NURand value moves by the difference of the constants. */
static void test_gen_nurand_constants(void **state)
{
    enum { DRAWS = 20000 };
    const struct txn_ctx a = { .warehouses = 10, .c_run = { .c_last = 0, .c_id = 0,
                                                            .ol_i_id = 0 } };
    const struct txn_ctx b = { .warehouses = 10, .c_run = { .c_last = 173, .c_id = 911,
                                                            .ol_i_id = 7777 } };
    int64_t named = 0, by_id = 0, items = 0;
    struct rng ra, rb;
    (void)state;

    rng_init(&ra, TEST_SEED + 60);
    rng_init(&rb, TEST_SEED + 60);
    for (int i = 0; i < DRAWS; i++) {
        int type = i % 3 == 0 ? TX_NEW_ORDER : i % 3 == 1 ? TX_PAYMENT : TX_ORDER_STATUS;
        struct txn_input x, y;

        txn_gen(&ra, &a, type, 3, 1, &x);
        txn_gen(&rb, &b, type, 3, 1, &y);
        if (type == TX_NEW_ORDER) {
            int shifted[NO_MAX_ITEMS], got[NO_MAX_ITEMS], n = x.u.no.ol_cnt - x.u.no.rollback;

            CHECK(y.u.no.c_id >= 1 && y.u.no.c_id <= 3000, "draw %d: c_id %d", i, y.u.no.c_id);
            CHECK((x.u.no.c_id - 1 + b.c_run.c_id) % 3000 + 1 == y.u.no.c_id,
                  "draw %d: New-Order c_id %d with C=0 but %d with C=%d", i, x.u.no.c_id,
                  y.u.no.c_id, b.c_run.c_id);
            by_id++;
            /* The item ids as multisets (the lines are sorted after the draw). */
            CHECK(x.u.no.ol_cnt == y.u.no.ol_cnt && x.u.no.rollback == y.u.no.rollback,
                  "draw %d: ol_cnt/rollback %d/%d vs %d/%d", i, x.u.no.ol_cnt, x.u.no.rollback,
                  y.u.no.ol_cnt, y.u.no.rollback);
            for (int k = 0; k < n; k++) {
                shifted[k] = (x.u.no.items[k].i_id - 1 + b.c_run.ol_i_id) % TPCC_ITEMS_MAX + 1;
                got[k] = y.u.no.items[k].i_id;
            }
            for (int k = 1; k < n; k++)
                for (int j = k; j > 0 && shifted[j - 1] > shifted[j]; j--) {
                    int t = shifted[j];
                    shifted[j] = shifted[j - 1];
                    shifted[j - 1] = t;
                }
            for (int k = 0; k < n; k++)
                CHECK(shifted[k] == got[k],
                      "draw %d line %d: i_id %d with C=%d, want %d (the C=0 item moved)", i, k,
                      got[k], b.c_run.ol_i_id, shifted[k]);
            items += n;
        } else {
            int bn = type == TX_PAYMENT ? x.u.pay.by_name : x.u.os.by_name;
            int bn2 = type == TX_PAYMENT ? y.u.pay.by_name : y.u.os.by_name;
            CHECK(bn == bn2, "draw %d: by_name %d vs %d", i, bn, bn2);
            if (bn) {
                int nx = test_lastname_num(type == TX_PAYMENT ? x.u.pay.c_last : x.u.os.c_last);
                int ny = test_lastname_num(type == TX_PAYMENT ? y.u.pay.c_last : y.u.os.c_last);
                CHECK(nx >= 0 && ny >= 0 && (nx + b.c_run.c_last) % 1000 == ny,
                      "draw %d: last name number %d with C=0 but %d with C=%d", i, nx, ny,
                      b.c_run.c_last);
                named++;
            } else {
                int cx = type == TX_PAYMENT ? x.u.pay.c_id : x.u.os.c_id;
                int cy = type == TX_PAYMENT ? y.u.pay.c_id : y.u.os.c_id;
                CHECK(cy >= 1 && cy <= 3000 && (cx - 1 + b.c_run.c_id) % 3000 + 1 == cy,
                      "draw %d: c_id %d with C=0 but %d with C=%d", i, cx, cy, b.c_run.c_id);
                by_id++;
            }
        }
    }
    CHECK(named > 1000 && by_id > 1000 && items > 10000,
          "compared %" PRId64 " names, %" PRId64 " c_ids, %" PRId64 " items", named, by_id,
          items);
}

/* ---- retries against the null driver ---- */

struct test_conn {
    struct dialect d;
    struct db_conn *c;
};

static int setup_conn(void **state)
{
    struct test_conn *t = calloc(1, sizeof(*t));
    struct db_connect_args args = { .conninfo = "", .app_name = "test_txn" };
    struct err e;

    if (!t)
        return -1;
    err_clear(&e);
    if (txn_dialect_load(&t->d, "postgresql", &e) < 0 ||
        db_connect(&db_null_ops, &t->d, &args, &t->c, &e) < 0) {
        print_error("setup: %s\n", e.msg);
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int teardown_conn(void **state)
{
    struct test_conn *t = *state;

    db_close(t->c);
    dialect_release(&t->d);
    free(t);
    return 0;
}

static void delivery_input(struct txn_input *in)
{
    memset(in, 0, sizeof(*in));
    in->type = TX_DELIVERY;
    in->u.dl.w_id = 1;
    in->u.dl.carrier_id = 7;
}

/* Arm a fault, run a Delivery with retries; report rc, retries and output. */
static int run_retry(struct db_conn *c, unsigned ops, int n, int code, const char *state,
                     int max_retries, int *retries, struct txn_output *out, struct err *e)
{
    struct txn_input in;

    delivery_input(&in);
    memset(out, 0xa5, sizeof(*out));
    err_clear(e);
    *retries = -1;
    if (n)
        db_fault(c, ops, n, code, state);
    return txn_exec_retry(c, RUN_MODE_CLIENT, &in, out, max_retries, NULL, retries, e);
}

/* The default mode: procedure where the dialect ships functions, else client. */
/* Parameters as text, by hand: the same as printf would write them. */
static void test_format_scaled(void **state)
{
    static const int64_t vals[] = { 0, 1, 5, 9, 10, 99, 100, 12345, -1, -5, -12345, 3000000,
                                    INT64_MAX, INT64_MIN, INT64_MIN + 1 };
    char got[40], want[48], small[4];

    (void)state;
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        for (int scale = 0; scale <= 6; scale++) {
            int64_t v = vals[i], p = 1;
            uint64_t a = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
            for (int k = 0; k < scale; k++)
                p *= 10;
            if (scale)
                snprintf(want, sizeof(want), "%s%" PRIu64 ".%0*" PRIu64, v < 0 ? "-" : "",
                         a / (uint64_t)p, scale, a % (uint64_t)p);
            else
                snprintf(want, sizeof(want), "%s%" PRIu64, v < 0 ? "-" : "", a);
            assert_int_equal(db_format_scaled(got, sizeof(got), v, scale), (int)strlen(want));
            assert_string_equal(got, want);
        }
    }
    /* Too small: the length it needs, and nothing half-written. */
    assert_int_equal(db_format_scaled(small, sizeof(small), -12345, 2), 7);
    assert_string_equal(small, "");
}

/* Integer lists as MySQL's procedures read them: "{a,b,c}", the longest
 * fitting DB_INTS_TEXT, one too long refused whole. */
static void test_format_ints(void **state)
{
    const int32_t v[DB_INTS_MAX + 1] = { 7, 100000, -3, 0, INT32_MIN, INT32_MAX, 42, 42,
                                         1, 2, 3, 4, 5, 6, 7, 8, 9 };
    char got[DB_INTS_TEXT], want[DB_INTS_TEXT + 16];
    size_t k = 0;

    (void)state;
    assert_int_equal(db_format_ints(got, sizeof(got), v, 0), 2);
    assert_string_equal(got, "{}");
    assert_int_equal(db_format_ints(got, sizeof(got), v, 3), 13);
    assert_string_equal(got, "{7,100000,-3}");
    want[k++] = '{';
    for (int i = 0; i < DB_INTS_MAX; i++)
        k += (size_t)snprintf(want + k, sizeof(want) - k, "%s%" PRId32, i ? "," : "", v[i]);
    want[k++] = '}';
    want[k] = '\0';
    assert_int_equal(db_format_ints(got, sizeof(got), v, DB_INTS_MAX), (int)k);
    assert_string_equal(got, want);
    /* The closing brace does not fit: -1 and "", not a list cut short. */
    assert_int_equal(db_format_ints(got, 13, v, 3), -1);
    assert_string_equal(got, "");
    assert_int_equal(db_format_ints(got, 14, v, 3), 13);
}

/* Integer columns read by hand: strtoll's value for every form. */
static void test_parse_int(void **state)
{
    static const char *const texts[] = { "0", "7", "-7", "42", "100000", "-2147483648",
                                         "999999999999999999", "-999999999999999999",
                                         "9223372036854775807", "-9223372036854775808",
                                         "99999999999999999999", "+5", " 12", "12abc", "",
                                         "-", "abc", "0012" };

    (void)state;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        assert_int_equal(db_parse_int(texts[i]), strtoll(texts[i], NULL, 10));
}

static void test_mode_resolve(void **state)
{
    (void)state;
    assert_int_equal(txn_mode_resolve(RUN_MODE_AUTO, "postgresql"), RUN_MODE_PROCEDURE);
    assert_int_equal(txn_mode_resolve(RUN_MODE_AUTO, "mysql"), RUN_MODE_PROCEDURE);
    assert_int_equal(txn_mode_resolve(RUN_MODE_AUTO, "ansi"), RUN_MODE_CLIENT);
    assert_int_equal(txn_mode_resolve(RUN_MODE_CLIENT, "postgresql"), RUN_MODE_CLIENT);
    assert_int_equal(txn_mode_resolve(RUN_MODE_PIPELINE, "mysql"), RUN_MODE_PIPELINE);
}

static void test_retry_none(void **state)
{
    struct test_conn *t = *state;
    struct txn_output out;
    struct err e;
    int retries, rc;

    rc = run_retry(t->c, 0, 0, 0, NULL, 3, &retries, &out, &e);
    CHECK(rc == 0, "no fault: rc %d (%s), want 0", rc, e.msg);
    CHECK(retries == 0, "no fault: retries %d, want 0", retries);
    CHECK(out.n_skipped == 10 && out.commit_sent == 0 && out.rolled_back == 0,
          "no fault: n_skipped %d commit_sent %d rolled_back %d, want 10 0 0", out.n_skipped,
          out.commit_sent, out.rolled_back);
    for (int d = 0; d < 10; d++)
        CHECK(out.delivered[d] == 0, "no fault: district %d delivered o_id %d with no rows",
              d + 1, out.delivered[d]);
}

static void test_retry_once(void **state)
{
    struct test_conn *t = *state;
    struct txn_output out;
    struct err e;
    int retries, rc;

    rc = run_retry(t->c, DB_OP_EXEC, 1, E_RETRY, "40001", 3, &retries, &out, &e);
    CHECK(rc == 0, "one serialization failure: rc %d (%s), want 0", rc, e.msg);
    CHECK(retries == 1, "one serialization failure: retries %d, want 1", retries);
    CHECK(out.n_skipped == 10, "after the retry: n_skipped %d, want 10", out.n_skipped);
    CHECK(t->c->fault_n == 0, "fault left armed: %d", t->c->fault_n);

    /* A deadlock at COMMIT is retried the same way. */
    rc = run_retry(t->c, DB_OP_COMMIT, 1, E_RETRY, "40P01", 3, &retries, &out, &e);
    CHECK(rc == 0 && retries == 1, "deadlock at commit: rc %d retries %d, want 0 1", rc,
          retries);
    CHECK(out.commit_sent == 0, "deadlock at commit: commit_sent %d, want 0", out.commit_sent);
}

static void test_retry_gives_up(void **state)
{
    struct test_conn *t = *state;
    struct txn_output out;
    struct err e;
    int retries, rc;

    rc = run_retry(t->c, DB_OP_EXEC, 3, E_RETRY, "40001", 2, &retries, &out, &e);
    CHECK(rc == E_RETRY, "3 failures, max_retries 2: rc %d, want E_RETRY (%d)", rc, E_RETRY);
    CHECK(retries == 2, "3 failures, max_retries 2: retries %d, want 2", retries);
    CHECK(e.code == E_RETRY && strcmp(e.sqlstate, "40001") == 0,
          "the error kept: code %d sqlstate '%s', want %d '40001'", e.code, e.sqlstate, E_RETRY);
    CHECK(t->c->fault_n == 0, "3 attempts consume 3 faults: %d left", t->c->fault_n);

    /* max_retries 0: no retry at all. */
    rc = run_retry(t->c, DB_OP_EXEC, 2, E_RETRY, "40001", 0, &retries, &out, &e);
    CHECK(rc == E_RETRY && retries == 0, "max_retries 0: rc %d retries %d, want %d 0", rc,
          retries, E_RETRY);
    CHECK(t->c->fault_n == 1, "max_retries 0: one attempt, %d faults left (want 1)",
          t->c->fault_n);
    db_fault(t->c, 0, 0, 0, NULL);

    /* Exactly max_retries failures: the last retry succeeds. */
    rc = run_retry(t->c, DB_OP_EXEC, 2, E_RETRY, "40001", 2, &retries, &out, &e);
    CHECK(rc == 0 && retries == 2, "2 failures, max_retries 2: rc %d retries %d, want 0 2", rc,
          retries);
}

/* The run's one retry decision (txn_retry_again): the class, the count, the
 * stop flag; txn_exec_retry, worker.c and group.c all ask it. */
static void test_retry_decision(void **state)
{
    static const struct {
        int rc, retries, max, stop, want;
    } cases[] = {
        { E_RETRY, 0, 10, 0, 1 }, { E_RETRY, 9, 10, 0, 1 }, { E_RETRY, 10, 10, 0, 0 },
        { E_RETRY, 0, 0, 0, 0 },  { E_RETRY, 0, 10, 1, 0 }, { E_CONN, 0, 10, 0, 0 },
        { E_FAIL, 0, 10, 0, 0 },  { E_USAGE, 0, 10, 0, 0 }, { 0, 0, 10, 0, 0 },
        { TXN_SKIPPED, 0, 10, 0, 0 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int stop = cases[i].stop;
        int got = txn_retry_again(cases[i].rc, cases[i].retries, cases[i].max, &stop);
        CHECK(got == cases[i].want, "case %zu: rc %d after %d of %d retries, stop %d: %d, want %d",
              i, cases[i].rc, cases[i].retries, cases[i].max, stop, got, cases[i].want);
        if (!stop) {
            got = txn_retry_again(cases[i].rc, cases[i].retries, cases[i].max, NULL);
            CHECK(got == cases[i].want, "case %zu without a stop flag: %d, want %d", i, got,
                  cases[i].want);
        }
    }
}

/* The back-off before retry k: random in 0 .. 2^(k-1) x 250 us, 16 ms at
 * most, spread over that range (colliding terminals part). */
static void test_retry_backoff(void **state)
{
    static const uint64_t cap_us[] = { 250, 500, 1000, 2000, 4000, 8000, 16000, 16000, 16000 };
    uint64_t jitter = 12345;

    (void)state;
    for (int k = 1; k <= 9; k++) {
        uint64_t cap = cap_us[k - 1], lo = UINT64_MAX, hi = 0;
        for (int i = 0; i < 2000; i++) {
            uint64_t w = txn_retry_backoff_us(&jitter, k);
            lo = w < lo ? w : lo;
            hi = w > hi ? w : hi;
        }
        CHECK(hi <= cap && hi >= cap * 9 / 10 && lo <= cap / 10,
              "retry %d: back-offs %" PRIu64 " .. %" PRIu64 " us, want spread over 0 .. %" PRIu64,
              k, lo, hi, cap);
    }
}

static void test_retry_not_for_other_classes(void **state)
{
    struct test_conn *t = *state;
    struct txn_output out;
    struct err e;
    int retries, rc;

    rc = run_retry(t->c, DB_OP_EXEC, 2, E_CONN, "08006", 5, &retries, &out, &e);
    CHECK(rc == E_CONN, "connection lost: rc %d, want E_CONN (%d)", rc, E_CONN);
    CHECK(retries == 0, "connection lost: retries %d, want 0", retries);
    CHECK(t->c->fault_n == 1, "connection lost: %d faults left, want 1 (one attempt)",
          t->c->fault_n);
    CHECK(out.commit_sent == 0, "connection lost in a statement: commit_sent %d, want 0",
          out.commit_sent);
    db_fault(t->c, 0, 0, 0, NULL);

    rc = run_retry(t->c, DB_OP_EXEC, 2, E_FAIL, "23505", 5, &retries, &out, &e);
    CHECK(rc == E_FAIL && retries == 0, "other error: rc %d retries %d, want %d 0", rc, retries,
          E_FAIL);
    CHECK(strcmp(e.sqlstate, "23505") == 0, "other error: sqlstate '%s'", e.sqlstate);
    db_fault(t->c, 0, 0, 0, NULL);

    /* A lost connection at BEGIN: nothing was sent. */
    rc = run_retry(t->c, DB_OP_BEGIN, 1, E_CONN, "08006", 5, &retries, &out, &e);
    CHECK(rc == E_CONN && retries == 0 && out.commit_sent == 0,
          "lost at begin: rc %d retries %d commit_sent %d, want %d 0 0", rc, retries,
          out.commit_sent, E_CONN);
}

static void test_retry_commit_lost(void **state)
{
    struct test_conn *t = *state;
    struct txn_output out;
    struct err e;
    int retries, rc;

    rc = run_retry(t->c, DB_OP_COMMIT, 1, E_CONN, "08006", 5, &retries, &out, &e);
    CHECK(rc == E_CONN, "lost at commit: rc %d, want E_CONN (%d)", rc, E_CONN);
    CHECK(retries == 0, "lost at commit: retries %d, want 0", retries);
    CHECK(out.commit_sent == 1, "lost at commit: commit_sent %d, want 1", out.commit_sent);

    /* And the flag does not stick to the next, successful, transaction. */
    rc = run_retry(t->c, 0, 0, 0, NULL, 5, &retries, &out, &e);
    CHECK(rc == 0 && out.commit_sent == 0, "next transaction: rc %d commit_sent %d, want 0 0",
          rc, out.commit_sent);
}

/* ---- the null driver's synthetic answers ---- */

/* The version the null driver answers is the one txn.c asks for, in every
 * dialect with server-side functions, and procedure mode prepares on it. */
static void test_null_proc_version(void **state)
{
    static const char *const dialects[] = { "postgresql", "mysql" };
    struct db_connect_args args = { .conninfo = "", .app_name = "test_txn" };

    (void)state;
    for (size_t i = 0; i < sizeof(dialects) / sizeof(dialects[0]); i++) {
        struct dialect d;
        struct db_conn *c;
        struct err e;
        int rc, row;
        int64_t v;

        err_clear(&e);
        rc = txn_dialect_load(&d, dialects[i], &e);
        CHECK(rc == 0, "%s: dialect: rc %d (%s)", dialects[i], rc, e.msg);
        CHECK(d.names[S_PROC_VERSION] && strcmp(d.names[S_PROC_VERSION], "proc_version") == 0,
              "%s: the block name of S_PROC_VERSION is '%s', want 'proc_version'", dialects[i],
              d.names[S_PROC_VERSION] ? d.names[S_PROC_VERSION] : "(null)");
        rc = db_connect(&db_null_ops, &d, &args, &c, &e);
        CHECK(rc == 0, "%s: connect: rc %d (%s)", dialects[i], rc, e.msg);
        rc = db_exec(c, S_PROC_VERSION, NULL, 0, &e);
        row = rc == 0 ? db_next(c) : -1;
        v = row == 1 ? db_col_int(c, 0) : -1;
        CHECK(rc == 0 && row == 1 && v == TXN_PROC_VERSION,
              "%s: the null driver's proc_version: rc %d, row %d, version %" PRId64
              ", want 0 1 %d (TXN_PROC_VERSION; src/db/null.c's literal differs)",
              dialects[i], rc, row, v, TXN_PROC_VERSION);
        CHECK(db_next(c) == 0, "%s: proc_version: a second row", dialects[i]);
        rc = txn_prepare(c, RUN_MODE_PROCEDURE, &e);
        CHECK(rc == 0, "%s: procedure mode on the null driver: rc %d (%s), want 0", dialects[i],
              rc, e.msg);
        db_close(c);
        dialect_release(&d);
    }
}

/* The synthetic Order-Status of src/db/null.c, as each mode must read it. */
static void check_null_os(const char *what, int rc, const struct err *e,
                          const struct os_output *os)
{
    const struct os_line *l = &os->lines[0];

    CHECK(rc == 0, "%s: rc %d (%s), want 0", what, rc, e->msg);
    CHECK(os->ol_cnt == 1, "%s: %d lines, want 1", what, os->ol_cnt);
    CHECK(os->c_id == 1 && os->c_balance_cents == -1000 && strcmp(os->c_first, "synthetic") == 0 &&
              strcmp(os->c_middle, "OE") == 0 && strcmp(os->c_last, "BARBARBAR") == 0,
          "%s: customer %d %" PRId64 " '%s' '%s' '%s', want 1 -1000 'synthetic' 'OE' "
          "'BARBARBAR'",
          what, os->c_id, os->c_balance_cents, os->c_first, os->c_middle, os->c_last);
    CHECK(os->o_id == 1 && strcmp(os->o_entry_d, "2000-01-01 00:00:00") == 0 &&
              os->o_carrier_id == 0,
          "%s: order %d '%s' carrier %d, want 1 '2000-01-01 00:00:00' 0", what, os->o_id,
          os->o_entry_d, os->o_carrier_id);
    CHECK(l->i_id == 1 && l->supply_w_id == 1 && l->quantity == 5 && l->amount_cents == 1000 &&
              !l->delivered && l->delivery_d[0] == '\0',
          "%s: line %d %d %d %" PRId64 " delivered %d '%s', want 1 1 5 1000 0 ''", what, l->i_id,
          l->supply_w_id, l->quantity, l->amount_cents, l->delivered, l->delivery_d);
}

/* Order-Status by id and by name in client, pipeline and procedure mode,
 * and in a batch with a Delivery, reads one synthetic order line. */
static void test_null_order_status(void **state)
{
    static const int modes[] = { RUN_MODE_CLIENT, RUN_MODE_PIPELINE, RUN_MODE_PROCEDURE };
    static const char *const mode_names[] = { "client", "pipeline", "procedure" };
    struct test_conn *t = *state;
    struct txn_input in, dl;
    struct txn_output out, dout;
    struct txn_batch_item b[2];
    char what[64];
    struct err e;
    int rc;

    for (int m = 0; m < 3; m++) {
        err_clear(&e);
        rc = txn_prepare(t->c, modes[m], &e);
        CHECK(rc == 0, "%s: prepare: rc %d (%s)", mode_names[m], rc, e.msg);
        for (int by_name = 0; by_name <= 1; by_name++) {
            memset(&in, 0, sizeof(in));
            in.type = TX_ORDER_STATUS;
            in.u.os.w_id = 3;
            in.u.os.d_id = 4;
            in.u.os.by_name = by_name;
            in.u.os.c_id = 17;
            snprintf(in.u.os.c_last, sizeof(in.u.os.c_last), "%s", "OUGHTABLEPRI");
            memset(&out, 0xa5, sizeof(out));
            err_clear(&e);
            rc = txn_exec(t->c, modes[m], &in, &out, &e);
            snprintf(what, sizeof(what), "%s mode, by %s", mode_names[m], by_name ? "name" : "id");
            check_null_os(what, rc, &e, &out.os);
            CHECK(out.commit_sent == 0, "%s: commit_sent %d", what, out.commit_sent);
        }
    }
    /* A batch (procedure mode): the Order-Status's result is its call's. */
    delivery_input(&dl);
    memset(b, 0, sizeof(b));
    b[0].in = &in;
    b[0].out = &out;
    b[1].in = &dl;
    b[1].out = &dout;
    rc = txn_exec_batch(t->c, b, 2);
    CHECK(rc == 0 && b[1].rc == 0, "batch: rc %d, delivery rc %d (%s), want 0 0", rc, b[1].rc,
          b[1].e.msg);
    check_null_os("batch of Order-Status and Delivery", b[0].rc, &b[0].e, &out.os);
}

/* A batch's pipeline: the ordinary ones first in their order, Order-Status
 * next with its own BEGIN, a New-Order that will roll back last and alone;
 * with COMMIT AND CHAIN one statement between two ordinary ones, without
 * it a BEGIN and a COMMIT each. */
static void test_batch_plan(void **state)
{
    static const int types[] = { TX_PAYMENT, TX_NEW_ORDER, TX_ORDER_STATUS, TX_NEW_ORDER,
                                 TX_DELIVERY, TX_STOCK_LEVEL };
    static const int want_order[] = { 0, 3, 4, 5, 2, 1 };
    /* By item, in order 0 .. 5: first statement, call, statements. */
    static const int chain_first[] = { 0, 12, 9, 3, 5, 7 }, chain_call[] = { 1, 12, 10, 3, 5, 7 },
                     chain_len[] = { 3, 1, 3, 2, 2, 2 };
    static const int plain_first[] = { 0, 15, 12, 3, 6, 9 },
                     plain_call[] = { 1, 15, 13, 4, 7, 10 }, plain_len[] = { 3, 1, 3, 3, 3, 3 };
    struct txn_input in[6];
    struct txn_batch_item b[6];
    struct txn_batch_state s;
    struct txn_batch_plan p;

    (void)state;
    memset(in, 0, sizeof(in));
    memset(b, 0, sizeof(b));
    for (int i = 0; i < 6; i++) {
        in[i].type = types[i];
        b[i].in = &in[i];
    }
    in[1].u.no.rollback = 1;
    for (int chain = 1; chain >= 0; chain--) {
        const int *first = chain ? chain_first : plain_first, *call = chain ? chain_call : plain_call,
                  *len = chain ? chain_len : plain_len;
        memset(&s, 0, sizeof(s));
        txn_batch_plan(chain, b, 6, &s, &p);
        for (int j = 0; j < 6; j++)
            CHECK(p.order[j] == want_order[j], "chain %d: place %d holds item %d, want %d", chain,
                  j, p.order[j], want_order[j]);
        for (int i = 0; i < 6; i++)
            CHECK(s.first[i] == first[i] && s.call[i] == call[i] && s.len[i] == len[i],
                  "chain %d: item %d: first %d call %d len %d, want %d %d %d", chain, i, s.first[i],
                  s.call[i], s.len[i], first[i], call[i], len[i]);
        CHECK(s.last == 1, "chain %d: last item %d, want 1", chain, s.last);
        CHECK(p.begin[2] == S_OS_BEGIN && p.end[2] == DB_PIPE_COMMIT,
              "chain %d: Order-Status in its own read-only block", chain);
        CHECK(p.begin[1] == TXN_BATCH_NONE && p.end[1] == TXN_BATCH_NONE,
              "chain %d: the rolled-back New-Order alone", chain);
        CHECK(p.begin[0] == DB_PIPE_BEGIN && p.end[5] == DB_PIPE_COMMIT,
              "chain %d: the first opens, the one before Order-Status closes", chain);
        CHECK(p.end[0] == (chain ? DB_PIPE_COMMIT_CHAIN : DB_PIPE_COMMIT) &&
                  p.begin[3] == (chain ? TXN_BATCH_NONE : DB_PIPE_BEGIN),
              "chain %d: Payment then New-Order: end %d, begin %d", chain, p.end[0], p.begin[3]);
    }
}

/* Every other statement answers no rows, as before the synthetic answers. */
static void test_null_no_other_rows(void **state)
{
    static const int synthetic[] = { S_OS_CUSTOMERS_BY_NAME, S_OS_GET_CUSTOMER, S_OS_LAST_ORDER,
                                     S_OS_ORDER_LINES,       S_OS_ALL_BY_ID,    S_OS_ALL_BY_NAME,
                                     S_PROC_ORDER_STATUS,    S_PROC_VERSION };
    struct test_conn *t = *state;
    struct db_param p[DB_MAX_PARAMS];
    struct err e;

    for (int j = 0; j < DB_MAX_PARAMS; j++)
        p[j] = DBP_INT(1);
    for (int id = 0; id < S_NSTMTS; id++) {
        int want = 0, rc, row;
        for (size_t k = 0; k < sizeof(synthetic) / sizeof(synthetic[0]); k++)
            want |= synthetic[k] == id;
        err_clear(&e);
        rc = db_exec(t->c, id, p, DB_MAX_PARAMS, &e);
        row = rc == 0 ? db_next(t->c) : -1;
        CHECK(rc == 0 && row == want, "statement %d '%s': rc %d (%s), next %d, want 0 %d", id,
              t->d.names[id], rc, e.msg, row, want);
    }
    /* Text sent without a statement id (checks, admin): no rows. */
    CHECK(db_query(t->c, "SELECT 1", NULL, 0, &e) == 0 && db_next(t->c) == 0,
          "a query's text: a row");
}

/* ---- New-Order's total in exact cents ---- */

/* The total against exact rational arithmetic: sum x (10^4 - disc) x (10^4 +
 * taxes) / 10^8 cents, rounded half up once (two truncations, as before,
 * would give 151 and 998 cents where marked). */
static void test_no_total_cents(void **state)
{
    static const struct {
        int64_t sum, disc, w_tax, d_tax, want;
    } cases[] = {
        { 100000, 5000, 2000, 2000, 70000 },    /* 1000.00 x 0.5 x 1.4 = 700.00 */
        { 150, 0, 100, 0, 152 },                /* 151.5 cents -> 152 (half up, not 151) */
        { 1, 0, 50, 0, 1 },                     /* 1.005 cents -> 1 */
        { 999, 1, 0, 1, 999 },                  /* 998.99999 cents -> 999 (truncated twice: 998) */
        { 12345, 1234, 567, 890, 12398 },       /* 12398.338 cents */
        { 1500000, 5000, 2000, 2000, 1050000 }, /* the largest order: 15 x 10 x 100.00 */
        { 0, 1234, 567, 890, 0 },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t got = txn_no_total_cents(cases[i].sum, cases[i].disc, cases[i].w_tax,
                                         cases[i].d_tax);
        CHECK(got == cases[i].want,
              "total of %" PRId64 " cents, discount %" PRId64 ", taxes %" PRId64 " + %" PRId64
              " (10^-4): %" PRId64 " cents, want %" PRId64,
              cases[i].sum, cases[i].disc, cases[i].w_tax, cases[i].d_tax, got, cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_resolve),
        cmocka_unit_test(test_format_scaled),
        cmocka_unit_test(test_format_ints),
        cmocka_unit_test(test_parse_int),
        cmocka_unit_test(test_no_total_cents),
        cmocka_unit_test(test_gen_new_order),
        cmocka_unit_test(test_gen_two_warehouses),
        cmocka_unit_test(test_gen_payment),
        cmocka_unit_test(test_gen_order_status),
        cmocka_unit_test(test_gen_delivery_stock_level),
        cmocka_unit_test(test_gen_one_warehouse),
        cmocka_unit_test(test_gen_nurand_constants),
        cmocka_unit_test_setup_teardown(test_retry_none, setup_conn, teardown_conn),
        cmocka_unit_test_setup_teardown(test_retry_once, setup_conn, teardown_conn),
        cmocka_unit_test_setup_teardown(test_retry_gives_up, setup_conn, teardown_conn),
        cmocka_unit_test_setup_teardown(test_retry_not_for_other_classes, setup_conn,
                                        teardown_conn),
        cmocka_unit_test_setup_teardown(test_retry_commit_lost, setup_conn, teardown_conn),
        cmocka_unit_test(test_retry_decision),
        cmocka_unit_test(test_retry_backoff),
        cmocka_unit_test(test_null_proc_version),
        cmocka_unit_test(test_batch_plan),
        cmocka_unit_test_setup_teardown(test_null_order_status, setup_conn, teardown_conn),
        cmocka_unit_test_setup_teardown(test_null_no_other_rows, setup_conn, teardown_conn),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
