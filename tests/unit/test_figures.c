/*
 * test_figures.c - unit tests for series.csv (figures_series_csv in
 * src/run/figures.c): the header and one line per series row, and a row far
 * longer than the 200 bytes a row is given up front (absurd values) is
 * written whole into a grown buffer, never cut and never past the end (the
 * ASan build checks the latter).
 *
 * Input validity (figures_compute) on constructed counts: shares at the
 * spec's targets are valid; a share outside its bounds but within 3
 * standard errors of its target is "too few to judge" and the run
 * "undetermined: run longer", the same share from 100 times the counts is
 * out of bounds and the run NOT valid; the four mix-share lines are there
 * with their minimums, a deck under a minimum (order_status 3) fails however
 * short the run, a deck's share cut short by the window's edges is too few
 * to judge; a 90th percentile under the mean fails; run.json keeps n, the
 * target and the standard error of each line.  Each failure prints both
 * sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "results/histjson.h"
#include "run/figures.h"
#include "run/terminal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char test_header[] =
    "second,phase,new_order_tps,payment_tps,order_status_tps,delivery_tps,"
    "stock_level_tps,total_tps,new_order_p50_ms,new_order_p90_ms,"
    "new_order_p99_ms,all_p99_ms,errors,vus_in_tx,vus_down,connections_lost,all_service_p99_ms,"
    "schedule_lag_p99_ms\n";

/* Count the lines of text (each ends with '\n'). */
static int test_lines(const char *text)
{
    int n = 0;

    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static void test_series_rows(void **state)
{
    struct series_row rows[2];
    struct run_result r;
    char *csv;
    size_t len = 0;
    const char *want1 = "1,warmup,10.0,9.0,1.0,1.0,1.0,22.0,1.500,2.500,3.500,4.500,0,3,0,0,0.000,0.000\n";
    const char *want2 = "2,measure,20.0,18.0,2.0,2.0,2.0,44.0,1.000,2.000,3.000,4.000,7,4,1,2,3.250,0.500\n";

    (void)state;
    memset(&r, 0, sizeof(r));
    memset(rows, 0, sizeof(rows));
    rows[0] = (struct series_row){ .second = 1, .phase = 'r', .tps = { 10, 9, 1, 1, 1 },
                                   .no_p50_ms = 1.5, .no_p90_ms = 2.5, .no_p99_ms = 3.5,
                                   .all_p99_ms = 4.5, .errors = 0, .vus_in_tx = 3 };
    rows[1] = (struct series_row){ .second = 2, .phase = 'm', .tps = { 20, 18, 2, 2, 2 },
                                   .no_p50_ms = 1, .no_p90_ms = 2, .no_p99_ms = 3,
                                   .all_p99_ms = 4, .errors = 7, .vus_in_tx = 4, .vus_down = 1,
                                   .lost = 2, .all_svc_p99_ms = 3.25, .lag_p99_ms = 0.5 };
    r.series = rows;
    r.n_series = 2;
    csv = figures_series_csv(&r, &len);
    assert_non_null(csv);
    assert_int_equal(len, strlen(csv));
    assert_int_equal(strncmp(csv, test_header, strlen(test_header)), 0);
    if (!strstr(csv, want1) || !strstr(csv, want2))
        fail_msg("got:\n%s\nexpected the lines:\n%s%s", csv, want1, want2);
    assert_int_equal(test_lines(csv), 3);
    free(csv);
}

/* Ten values printed with %.1f or %.3f at 1e300 make a row of over 3000
 * bytes, 15 times its share: the whole row must be there. */
static void test_series_long_row(void **state)
{
    struct series_row rows[3];
    struct run_result r;
    char *csv, *p;
    size_t len = 0;

    (void)state;
    memset(&r, 0, sizeof(r));
    memset(rows, 0, sizeof(rows));
    for (int i = 0; i < 3; i++) {
        rows[i].second = i + 1;
        rows[i].phase = 'm';
    }
    for (int t = 0; t < TX_NTYPES; t++)
        rows[1].tps[t] = 1e300;
    rows[1].no_p50_ms = rows[1].no_p90_ms = rows[1].no_p99_ms = rows[1].all_p99_ms = 1e300;
    rows[1].errors = UINT64_MAX;
    rows[1].vus_in_tx = 123456789;
    r.series = rows;
    r.n_series = 3;
    csv = figures_series_csv(&r, &len);
    assert_non_null(csv);
    assert_int_equal(len, strlen(csv));
    assert_true(len > 3000);
    assert_int_equal(test_lines(csv), 4);
    /* The long row ends with its last two fields, and the row after it is whole. */
    p = strstr(csv, ",18446744073709551615,123456789,0,0,0.000,0.000\n3,measure,0.0,");
    if (!p)
        fail_msg("the long row or the one after it is cut: got %zu bytes ending '%s'", len,
                 len > 80 ? csv + len - 80 : csv);
    assert_int_equal(strcmp(csv + len - 2, "0\n"), 0); /* ...,0.000\n */
    free(csv);
}

/* ---- input validity ---- */

/* Counts of k x 2300 measured transactions exactly at the spec's targets and
 * in the default deck's proportions (10/10/1/1/1): 1000 k New-Orders with 1 %
 * rolled back, 10 lines each, 1 % remote; 1000 k Payments, 15 % remote, 60 %
 * by name; 100 k each of the other three; 4 VUs on 2 warehouses. */
static void test_counts(struct run_result *r, uint64_t k)
{
    struct vu_stats *m = &r->measured;

    memset(r, 0, sizeof(*r));
    stats_init(&r->measured);
    stats_init(&r->delivery);
    snprintf(r->status, sizeof(r->status), "complete");
    r->measured_s = 60;
    r->warehouses = 2;
    r->virtual_users = 4;
    r->terminals = 4; /* one deck each */
    r->mode = RUN_MODE_CLIENT;
    m->no_orders = 1000 * k;
    m->tx[TX_NEW_ORDER].rolled_back = 10 * k;
    m->tx[TX_NEW_ORDER].committed = 990 * k;
    m->no_lines = 10000 * k;
    m->no_remote_lines = 100 * k;
    m->tx[TX_PAYMENT].committed = m->pay_total = 1000 * k;
    m->pay_remote = 150 * k;
    m->pay_by_name = 600 * k;
    m->tx[TX_ORDER_STATUS].committed = m->os_total = 100 * k;
    m->os_by_name = 60 * k;
    m->tx[TX_DELIVERY].committed = 100 * k;
    m->tx[TX_STOCK_LEVEL].committed = 100 * k;
    r->delivery.dl_districts = 1000 * k;
}

static const struct validity_item *test_item(const struct figures *f, const char *name)
{
    for (int i = 0; i < f->n_validity; i++)
        if (strcmp(f->validity[i].name, name) == 0)
            return &f->validity[i];
    fail_msg("no validity item '%s'", name);
    return NULL;
}

/* The verdicts of every item that is not ok, for messages. */
static const char *test_not_ok(const struct figures *f)
{
    static char buf[1024];
    size_t n = 0;

    buf[0] = '\0';
    for (int i = 0; i < f->n_validity && n < sizeof(buf) - 80; i++)
        if (f->validity[i].verdict != VV_OK && f->validity[i].verdict != VV_NA)
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %s=%.4f(v%d)",
                                  f->validity[i].name, f->validity[i].value,
                                  f->validity[i].verdict);
    return buf;
}

static void test_expect(const struct figures *f, int verdict)
{
    if (f->verdict != verdict)
        fail_msg("verdict '%s', want '%s'; items not ok:%s", figures_verdict_text(f->verdict),
                 figures_verdict_text(verdict), test_not_ok(f));
}

static void test_expect_item(const struct figures *f, const char *name, int verdict)
{
    const struct validity_item *it = test_item(f, name);

    if (it->verdict != verdict)
        fail_msg("%s: %.4f (n %llu, se %.4g, target %g): verdict %d, want %d", name, it->value,
                 (unsigned long long)it->n, it->se, it->target, it->verdict, verdict);
}

/* figures_print() into a string (heap; free()). */
static char *test_print(const struct config *cfg, const struct run_result *r,
                        const struct figures *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    assert_non_null(out);
    figures_print(out, cfg, r, f);
    fclose(out);
    return text;
}

static void test_validity_at_target(void **state)
{
    struct config cfg;
    struct run_result r;
    struct figures f;
    static const char *const shares[] = { "payment_share_pct", "order_status_share_pct",
                                          "delivery_share_pct", "stock_level_share_pct" };

    (void)state;
    cfg_defaults(&cfg);
    test_counts(&r, 10);
    figures_compute(&cfg, &r, &f);
    test_expect(&f, VO_VALID);
    assert_true(f.valid);
    /* The four mix-share lines, with their minimums. */
    for (int i = 0; i < 4; i++) {
        const struct validity_item *it = test_item(&f, shares[i]);
        double want = i == 0 ? 100.0 * 10 / 23 : 100.0 / 23;
        if (it->bound != VB_MIN || it->min != (i == 0 ? 43.0 : 4.0) ||
            fabs(it->value - want) > 1e-9)
            fail_msg("%s: %.4f >= %.1f (bound %d), want %.4f >= %.1f", shares[i], it->value,
                     it->min, it->bound, want, i == 0 ? 43.0 : 4.0);
    }
    {
        char *text = test_print(&cfg, &r, &f);
        const char *want = "payment_share_pct                  43.478  >= 43.0          ok";
        if (!strstr(text, want) || !strstr(text, "input validity (TPC-C 5.5.1.5, 5.2.3): valid"))
            fail_msg("summary lacks '%s' or the verdict valid:\n%s", want, text);
        free(text);
    }
}

/* 8,000 New-Orders with 1.1375 % rolled back: 1.24 standard errors (0.111)
 * over the target, outside [0.9, 1.1] by chance alone.  100 times as many at
 * the same share: 12 standard errors, out of bounds. */
static void test_validity_too_few_then_out(void **state)
{
    struct config cfg;
    struct run_result r;
    struct figures f;
    const struct validity_item *it;
    json_t *j, *v;
    char *text;

    (void)state;
    cfg_defaults(&cfg);
    test_counts(&r, 8);
    r.measured.tx[TX_NEW_ORDER].rolled_back = 91;
    r.measured.tx[TX_NEW_ORDER].committed = 8000 - 91;
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "new_order_rollback_pct", VV_TOO_FEW);
    test_expect(&f, VO_UNDETERMINED);
    assert_false(f.valid);
    it = test_item(&f, "new_order_rollback_pct");
    if (it->n != 8000 || fabs(it->se - 0.11124) > 1e-4 || it->target != 1.0)
        fail_msg("rollbacks: n %llu se %.5f target %g, want 8000, 0.11124, 1",
                 (unsigned long long)it->n, it->se, it->target);
    text = test_print(&cfg, &r, &f);
    if (!strstr(text, "too few to judge (8000, +-0.111)") ||
        !strstr(text, "): undetermined: run longer"))
        fail_msg("summary lacks 'too few to judge (8000, +-0.111)' or the verdict:\n%s", text);
    free(text);
    /* The record keeps n and the standard error of each line. */
    j = figures_json(&cfg, &r, &f);
    v = json_object_get(json_object_get(j, "validity"), "new_order_rollback_pct");
    if (json_integer_value(json_object_get(v, "n")) != 8000 ||
        fabs(json_real_value(json_object_get(v, "se")) - 0.11124) > 1e-4 ||
        strcmp(json_string_value(json_object_get(v, "verdict")), "too few to judge") != 0)
        fail_msg("run.json rollback line: %s", json_dumps(v, JSON_COMPACT));
    if (!json_is_null(json_object_get(json_object_get(json_object_get(j, "validity"),
                                                      "new_order_p90_s"),
                                      "se")) ||
        strcmp(json_string_value(json_object_get(json_object_get(j, "validity"), "verdict")),
               "undetermined: run longer") != 0)
        fail_msg("run.json: an absolute bound has se null, the verdict is undetermined: %s",
                 json_dumps(json_object_get(j, "validity"), JSON_COMPACT));
    json_decref(j);

    test_counts(&r, 800);
    r.measured.tx[TX_NEW_ORDER].rolled_back = 9100;
    r.measured.tx[TX_NEW_ORDER].committed = 800000 - 9100;
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "new_order_rollback_pct", VV_OUT);
    test_expect(&f, VO_NOT_VALID);
}

/* Every share the spec bounds, from the counts of 2300 transactions: 2.5
 * standard errors over the target is out of its bounds but too few to
 * judge, 4 over is out of bounds (each share on its own). */
static void test_validity_each_share(void **state)
{
    static const struct {
        const char *name;
        double p, n_per_k; /* target (fraction) and draws per k */
    } shares[] = {
        { "remote_order_line_pct", 0.01, 10000 },
        { "remote_payment_pct", 0.15, 1000 },
        { "payment_by_last_name_pct", 0.60, 1000 },
        { "order_status_by_last_name_pct", 0.60, 100 },
    };
    struct config cfg;
    struct run_result r;
    struct figures f;

    (void)state;
    cfg_defaults(&cfg);
    for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
        for (int sig = 0; sig < 2; sig++) {
            double sd, n = shares[i].n_per_k;
            uint64_t part;
            test_counts(&r, 1);
            sd = sqrt(n * shares[i].p * (1 - shares[i].p));
            part = (uint64_t)llround(n * shares[i].p + (sig ? 4.0 : 2.5) * sd);
            if (i == 0)
                r.measured.no_remote_lines = part;
            else if (i == 1)
                r.measured.pay_remote = part;
            else if (i == 2)
                r.measured.pay_by_name = part;
            else
                r.measured.os_by_name = part;
            figures_compute(&cfg, &r, &f);
            if (test_item(&f, shares[i].name)->value <=
                test_item(&f, shares[i].name)->max)
                fail_msg("%s: %.4f is not over its bound: a bad test", shares[i].name,
                         test_item(&f, shares[i].name)->value);
            test_expect_item(&f, shares[i].name, sig ? VV_OUT : VV_TOO_FEW);
            test_expect(&f, sig ? VO_NOT_VALID : VO_UNDETERMINED);
        }
    }
}

/* A deck with order_status 3 of 100 cards fails however short the run; the
 * default deck's share cut short by the window's edges is too few to judge,
 * and far under its minimum out of bounds. */
static void test_validity_mix(void **state)
{
    static const int mix[TX_NTYPES] = { 45, 44, 3, 4, 4 };
    struct config cfg;
    struct run_result r;
    struct figures f;
    char *text;

    (void)state;
    cfg_defaults(&cfg);
    memcpy(cfg.run.mix, mix, sizeof(mix));
    cfg.run.mix_set = 1;
    test_counts(&r, 1);
    /* 100 transactions dealt exactly as the deck: 3 Order-Status. */
    r.measured.tx[TX_NEW_ORDER].committed = 45;
    r.measured.tx[TX_NEW_ORDER].rolled_back = 0;
    r.measured.tx[TX_PAYMENT].committed = 44;
    r.measured.tx[TX_ORDER_STATUS].committed = 3;
    r.measured.tx[TX_DELIVERY].committed = 4;
    r.measured.tx[TX_STOCK_LEVEL].committed = 4;
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "order_status_share_pct", VV_OUT);
    test_expect_item(&f, "payment_share_pct", VV_OK);
    test_expect(&f, VO_NOT_VALID);
    text = test_print(&cfg, &r, &f);
    if (!strstr(text, "order_status_share_pct              3.000  >= 4.0           OUT OF BOUNDS"))
        fail_msg("summary lacks the order-status share out of bounds:\n%s", text);
    free(text);

    /* The default deck, 2300 transactions of 4 VUs with 91 Order-Status
     * (3.96 %): the cut decks explain 0.04 points (se 0.050). */
    cfg_defaults(&cfg);
    test_counts(&r, 1);
    r.measured.tx[TX_ORDER_STATUS].committed = 91;
    r.measured.tx[TX_STOCK_LEVEL].committed = 109;
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "order_status_share_pct", VV_TOO_FEW);
    /* 230,000 of them with 3.5 % Order-Status: 170 standard errors under. */
    test_counts(&r, 100);
    r.measured.tx[TX_ORDER_STATUS].committed = 8050;
    r.measured.tx[TX_STOCK_LEVEL].committed = 11950;
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "order_status_share_pct", VV_OUT);
    test_expect(&f, VO_NOT_VALID);
}

/* 95 responses of 1 ms and 5 of 1 s: the 90th percentile (1 ms) is under
 * the mean (51 ms).  All of 1 ms: equal, ok. */
static void test_validity_p90_vs_mean(void **state)
{
    struct config cfg;
    struct run_result r;
    struct figures f;

    (void)state;
    cfg_defaults(&cfg);
    test_counts(&r, 10);
    for (int i = 0; i < 100; i++)
        hist_record(&r.measured.tx[TX_PAYMENT].lat, i < 95 ? 1000 : 1000000);
    for (int i = 0; i < 100; i++)
        hist_record(&r.measured.tx[TX_NEW_ORDER].lat, 1000);
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "payment_p90_vs_mean_ms", VV_OUT);
    test_expect_item(&f, "new_order_p90_vs_mean_ms", VV_OK);
    test_expect(&f, VO_NOT_VALID);
    if (test_item(&f, "payment_p90_vs_mean_ms")->n != 100 ||
        fabs(test_item(&f, "payment_p90_vs_mean_ms")->min - 50.95) > 1e-6)
        fail_msg("payment p90 vs mean: n %llu, mean %.4f ms, want 100, 50.95",
                 (unsigned long long)test_item(&f, "payment_p90_vs_mean_ms")->n,
                 test_item(&f, "payment_p90_vs_mean_ms")->min);
}

/*
 * The driver's own limits: a stretch of 5 measured seconds with no commit is
 * a stall (a window in run.json, NOT valid), 4 are not; a schedule lag p99
 * over 10 ms or a full deferred-delivery queue fails too, whatever the run's
 * length; a think-time run is judged on its efficiency.
 */
static void test_validity_driver_limits(void **state)
{
    struct config cfg;
    struct run_result r;
    struct series_row rows[12];
    struct figures f;

    (void)state;
    cfg_defaults(&cfg);
    for (int stall = 4; stall <= 5; stall++) {
        test_counts(&r, 10);
        memset(rows, 0, sizeof(rows));
        for (int i = 0; i < 12; i++) {
            rows[i].second = i + 1;
            rows[i].phase = i < 2 ? 'r' : 'm';
            /* seconds 4 .. 3 + stall commit nothing */
            if (!(i >= 3 && i < 3 + stall))
                rows[i].tps[TX_PAYMENT] = 100;
        }
        r.series = rows;
        r.n_series = 12;
        figures_compute(&cfg, &r, &f);
        assert_int_equal(f.longest_stall_s, stall);
        if (stall == 4) {
            test_expect(&f, VO_VALID);
            assert_int_equal(f.n_stalls, 0);
        } else {
            test_expect(&f, VO_NOT_VALID);
            test_expect_item(&f, "longest_stall_s", VV_OUT);
            assert_int_equal(f.n_stalls, 1);
            assert_int_equal(f.stalls[0][0], 4);
            assert_int_equal(f.stalls[0][1], 8);
        }
    }
    /* Lag: 1 % of dispatches 50 ms late puts p99 over 10 ms. */
    test_counts(&r, 10);
    for (int i = 0; i < 980; i++)
        hist_record(&r.measured.lag, 100);
    for (int i = 0; i < 20; i++)
        hist_record(&r.measured.lag, 50000);
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "schedule_lag_p99_ms", VV_OUT);
    test_expect(&f, VO_NOT_VALID);
    /* A full queue. */
    test_counts(&r, 10);
    r.measured.dl_queue_full = 1;
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "deferred_queue_full", VV_OUT);
    /* Efficiency of a think-time run: 10 terminals per warehouse, W = 2, 60 s. */
    test_counts(&r, 10);
    r.load = TERM_THINK;
    r.terminals = 20;
    r.time_scale = 1.0;
    r.measured.tx[TX_NEW_ORDER].committed = 25; /* 25 NOTPM of at most 25.72 */
    figures_compute(&cfg, &r, &f);
    assert_true(fabs(f.efficiency_pct - 100.0 * 25 / 25.72) < 1e-6);
    test_expect_item(&f, "efficiency_pct", VV_OK);
    r.measured.tx[TX_NEW_ORDER].committed = 15; /* 58 % */
    figures_compute(&cfg, &r, &f);
    test_expect_item(&f, "efficiency_pct", VV_OUT);
}

/*
 * Every latency histogram run.json shows is also there in mergeable form,
 * and reads back exactly: response and service time per type, the
 * schedule lag, the deferred Deliveries' queue-to-completion.  The
 * percentile fields beside them stay as they were.
 */
static void test_json_histograms(void **state)
{
    static const char *const paths[] = { "run.terminals.schedule_lag.hist",
                                          "run.delivery.queue_to_completion.hist" };
    struct config cfg;
    struct run_result r;
    struct figures f;
    struct hist *back = malloc(sizeof(*back));
    char path[128];
    struct err e;
    json_t *doc;

    (void)state;
    assert_non_null(back);
    cfg_defaults(&cfg);
    test_counts(&r, 10);
    for (int t = 0; t < TX_NTYPES; t++)
        for (int i = 0; i < 1000; i++) {
            hist_record(&r.measured.tx[t].lat, (uint64_t)(t + 1) * 1000 + (uint64_t)i * 37);
            hist_record(&r.measured.tx[t].svc, (uint64_t)(t + 1) * 500 + (uint64_t)i * 11);
        }
    for (int i = 0; i < 300; i++) {
        hist_record(&r.measured.lag, (uint64_t)i * i);
        hist_record(&r.delivery.tx[TX_DELIVERY].lat, 20000 + (uint64_t)i * 101);
    }
    figures_compute(&cfg, &r, &f);
    doc = json_pack("{s:o}", "run", figures_json(&cfg, &r, &f));
    assert_non_null(doc);
    for (int t = 0; t < TX_NTYPES; t++) {
        for (int svc = 0; svc < 2; svc++) {
            const struct hist *want = svc ? &r.measured.tx[t].svc : &r.measured.tx[t].lat;
            snprintf(path, sizeof(path), "run.transactions.%s%s.hist", tx_name((enum tx_type)t),
                     svc ? ".service" : "");
            err_clear(&e);
            if (histjson_read(doc, path, back, &e) != 0)
                fail_msg("%s: %s", path, e.msg);
            assert_memory_equal(back, want, sizeof(*back));
            assert_int_equal(back->n_samples, 1000);
        }
        /* The old fields are still there, from the same histogram. */
        snprintf(path, sizeof(path), "%s", tx_name((enum tx_type)t));
        {
            json_t *o = json_object_get(
                json_object_get(json_object_get(doc, "run"), "transactions"), path);
            double p90 = json_real_value(json_object_get(o, "p90_ms"));
            if (fabs(p90 - (double)hist_percentile(&r.measured.tx[t].lat, 90) / 1000.0) > 1e-9)
                fail_msg("%s p90_ms %.3f, the histogram says %.3f", path, p90,
                         (double)hist_percentile(&r.measured.tx[t].lat, 90) / 1000.0);
        }
    }
    for (int i = 0; i < 2; i++) {
        const struct hist *want = i == 0 ? &r.measured.lag : &r.delivery.tx[TX_DELIVERY].lat;
        err_clear(&e);
        if (histjson_read(doc, paths[i], back, &e) != 0)
            fail_msg("%s: %s", paths[i], e.msg);
        assert_memory_equal(back, want, sizeof(*back));
        assert_int_equal(back->n_samples, 300);
    }
    /* A path with no histogram is named. */
    assert_int_equal(histjson_read(doc, "run.transactions.bogus.hist", back, &e), E_USAGE);
    assert_string_equal(e.msg, "the record has no histogram at 'run.transactions.bogus.hist' "
                               "(written by a version without mergeable histograms, or the run "
                               "measured nothing)");
    json_decref(doc);
    free(back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_rows),
        cmocka_unit_test(test_series_long_row),
        cmocka_unit_test(test_validity_at_target),
        cmocka_unit_test(test_validity_too_few_then_out),
        cmocka_unit_test(test_validity_each_share),
        cmocka_unit_test(test_validity_mix),
        cmocka_unit_test(test_validity_p90_vs_mean),
        cmocka_unit_test(test_validity_driver_limits),
        cmocka_unit_test(test_json_histograms),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
