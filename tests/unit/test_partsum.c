/*
 * test_partsum.c - unit tests for run/partsum.c: a part's summary comes back
 * exactly as it was written, and the merge of parts equals the counts and
 * histograms of all their samples taken together.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/config.h"
#include "core/rng.h"
#include "run/partsum.h"

/* A part with every counter and histogram filled from the stream r. */
static void fill(struct run_result *p, struct rng *r, int part, struct vu_stats *all)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->status, sizeof(p->status), "complete");
    stats_init(&p->measured);
    stats_init(&p->delivery);
    p->window_opened = 1;
    p->measured_s = 10.0 + part * 0.25;
#define SET(f) p->measured.f = rng_next(r) % 100000;
    STATS_FIELDS(SET)
#undef SET
    for (int t = 0; t < TX_NTYPES; t++) {
#define TSET(f) p->measured.tx[t].f = rng_next(r) % 100000;
        STATS_TX_FIELDS(TSET)
#undef TSET
        for (int i = 0; i < 2000; i++) {
            /* Wide values: some past the histogram's range, into its overflow. */
            uint64_t v = rng_next(r) % (i % 97 == 0 ? UINT64_C(1) << 36 : 500000);
            hist_record(&p->measured.tx[t].lat, v);
            hist_record(&p->measured.tx[t].svc, v / 2);
            hist_record(&all->tx[t].lat, v);
            hist_record(&all->tx[t].svc, v / 2);
        }
    }
    for (int i = 0; i < 500; i++) {
        uint64_t v = rng_next(r) % 20000;
        hist_record(&p->measured.lag, v);
        hist_record(&all->lag, v);
    }
    stats_sqlstate(&p->measured, "40001");
    stats_sqlstate(&p->measured, part == 1 ? "40P01" : "40001");
    hist_record(&p->delivery.tx[TX_DELIVERY].lat, 1234 + (uint64_t)part);
    p->delivery.dl_districts = 10 * (uint64_t)part;
    p->terminals = 10 * part;
    p->connections = 2;
    p->virtual_users = 2;
    p->warehouses = 4;
    p->cpu_s = 0.5 * part;
    p->time_scale = 1.0;
    p->seed = 42;
    p->c_run.c_last = 100 + part;
    snprintf(p->server_name, sizeof(p->server_name), "PostgreSQL");
    p->n_series = 3;
    p->series = calloc(3, sizeof(*p->series));
    for (int s = 0; s < 3; s++) {
        p->series[s].second = s + part; /* parts' seconds overlap in part */
        p->series[s].phase = 'm';
        p->series[s].tps[TX_NEW_ORDER] = 10.0 * part + s;
        p->series[s].no_p99_ms = part + s * 0.5;
        p->series[s].errors = (uint64_t)part;
    }
    p->n_stock_level_pairs = 2;
    p->stock_level_pairs = calloc(2, sizeof(*p->stock_level_pairs));
    p->stock_level_pairs[0] = (struct sl_pair){ part, 1, 5 };
    p->stock_level_pairs[1] = (struct sl_pair){ part, 2, 6 };
}

static void test_roundtrip(void **state)
{
    struct run_result p, back;
    struct vu_stats all;
    struct config cfg, cback;
    struct rng r;
    struct err e;
    json_t *j;
    char *text;

    (void)state;
    rng_init_stream(&r, 7, 1, 0, 0);
    stats_init(&all);
    fill(&p, &r, 1, &all);
    cfg_defaults(&cfg);
    cfg.run.batch = 4;
    cfg.run.mix[TX_PAYMENT] = 44;
    snprintf(cfg.run.isolation, CFG_STR, "repeatable read");
    /* Through text, as it goes through tpcc_run_part. */
    j = partsum_encode(&p, &cfg);
    assert_non_null(j);
    text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    j = json_loads(text, 0, NULL);
    assert_non_null(j);
    err_clear(&e);
    assert_int_equal(partsum_decode(j, &back, &cback, &e), 0);
    assert_memory_equal(&back.measured, &p.measured, sizeof(p.measured));
    assert_memory_equal(&back.delivery, &p.delivery, sizeof(p.delivery));
    assert_true(back.measured_s == p.measured_s);
    assert_int_equal(back.terminals, 10);
    assert_int_equal(back.c_run.c_last, 101);
    assert_string_equal(back.status, "complete");
    assert_int_equal(back.n_series, 3);
    assert_memory_equal(back.series, p.series, 3 * sizeof(*p.series));
    assert_int_equal(back.n_stock_level_pairs, 2);
    assert_int_equal(back.stock_level_pairs[1].d, 2);
    assert_int_equal(cback.run.batch, 4);
    assert_int_equal(cback.run.mix[TX_PAYMENT], 44);
    assert_string_equal(cback.run.isolation, "repeatable read");
    /* A counter missing is named. */
    json_object_del(json_object_get(j, "measured"), "pay_remote");
    run_result_release(&back);
    assert_int_equal(partsum_decode(j, &back, NULL, &e), E_USAGE);
    assert_string_equal(e.msg, "measured: 'pay_remote' is missing or not a non-negative integer");
    run_result_release(&back);
    json_decref(j);
    free(text);
    run_result_release(&p);
}

static void test_merge_is_union(void **state)
{
    struct run_result p[3], m;
    struct vu_stats all, sum;
    struct rng r;
    struct err e;

    (void)state;
    rng_init_stream(&r, 9, 1, 0, 0);
    stats_init(&all);
    stats_init(&sum);
    for (int i = 0; i < 3; i++) {
        fill(&p[i], &r, i + 1, &all);
        stats_merge(&sum, &p[i].measured);
    }
    err_clear(&e);
    assert_int_equal(partsum_merge(p, 3, &m, &e), 0);
    /* Counts: the sum; histograms: exactly those of every sample at once. */
    assert_memory_equal(&m.measured, &sum, sizeof(sum));
    for (int t = 0; t < TX_NTYPES; t++) {
        assert_memory_equal(&m.measured.tx[t].lat, &all.tx[t].lat, sizeof(all.tx[t].lat));
        assert_memory_equal(&m.measured.tx[t].svc, &all.tx[t].svc, sizeof(all.tx[t].svc));
    }
    assert_memory_equal(&m.measured.lag, &all.lag, sizeof(all.lag));
    assert_int_equal(m.measured.sqlstates[0].n, 5); /* 40001: 1 + 2 + 2 */
    assert_string_equal(m.measured.sqlstates[1].state, "40P01");
    assert_int_equal(m.delivery.dl_districts, 60);
    assert_int_equal(m.terminals, 60);
    assert_int_equal(m.connections, 6);
    assert_true(m.cpu_s == 3.0);
    assert_true(m.measured_s == 10.75);
    assert_string_equal(m.status, "complete");
    /* Seconds 1..5: second 3 has all three parts (1's third, 2's second, 3's first). */
    assert_int_equal(m.n_series, 5);
    assert_int_equal(m.series[2].second, 3);
    assert_true(m.series[2].tps[TX_NEW_ORDER] == 12.0 + 21.0 + 30.0);
    assert_true(m.series[2].no_p99_ms == 3.0); /* the largest part's */
    assert_int_equal(m.series[2].errors, 6);
    assert_int_equal(m.n_stock_level_pairs, 6);
    assert_int_equal(m.stock_level_pairs[5].w, 3);
    run_result_release(&m);
    /* A part not complete makes the whole say so. */
    snprintf(p[1].status, sizeof(p[1].status), "interrupted");
    assert_int_equal(partsum_merge(p, 3, &m, &e), 0);
    assert_string_equal(m.status, "interrupted");
    run_result_release(&m);
    for (int i = 0; i < 3; i++)
        run_result_release(&p[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_merge_is_union),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
