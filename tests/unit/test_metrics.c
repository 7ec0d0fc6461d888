/*
 * test_metrics.c - unit tests for the database side of src/run/metrics.c
 * that need no server: which checkpoint statement a server version gets
 * (PostgreSQL 17 moved the checkpoint counters from pg_stat_bgwriter to
 * pg_stat_checkpointer and dropped buffers_backend), and that the dialects'
 * admin.sql hold what that choice assumes.  No PostgreSQL 17 is installed
 * where these were written (Debian 12 has PostgreSQL 15 only), so the
 * choice is tested here and the statement's text against a stand-in view
 * in tests/t/0038-metrics.sh.  And the run's counters as the endpoint's
 * series (src/run/runseries.c): the label sets, the histograms' cumulative
 * counts by bound, the last second's gauges.  Each failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/hist.h"
#include "db/dialect.h"
#include "run/metrics.h"
#include "run/runseries.h"

#define CHECK_STMT(version, have_17, want)                                                    \
    do {                                                                                      \
        const char *g_ = metrics_checkpoints_stmt((version), (have_17));                      \
        if (strcmp(g_, (want)) != 0)                                                          \
            fail_msg("server_version_num %ld, have_17 %d: got %s, want %s", (long)(version), \
                     (have_17), g_, (want));                                                  \
    } while (0)

static void test_checkpoint_statement_by_version(void **state)
{
    (void)state;
    CHECK_STMT(150018, 1, "metrics_checkpoints");
    CHECK_STMT(160004, 1, "metrics_checkpoints");
    CHECK_STMT(169999, 1, "metrics_checkpoints");
    CHECK_STMT(170000, 1, "metrics_checkpoints_17"); /* 17beta1 reports 170000 */
    CHECK_STMT(170002, 1, "metrics_checkpoints_17");
    CHECK_STMT(180001, 1, "metrics_checkpoints_17");
    /* Unknown version (the version statement failed): the older statement,
     * whose own failure then names itself in the columns' notes. */
    CHECK_STMT(0, 1, "metrics_checkpoints");
    /* A dialect without the PostgreSQL 17 statement (mysql, ansi). */
    CHECK_STMT(170002, 0, "metrics_checkpoints");
}

/* The text of statement name in dialect's admin.sql, or NULL (into d). */
static const char *admin_stmt(struct dialect *d, const char *dialect, const char *name)
{
    const char *names[1] = { name };
    struct err e;

    err_clear(&e);
    if (dialect_load(d, dialect, "admin", names, 1, &e) < 0)
        return NULL;
    return d->sql[0];
}

static void test_admin_sql(void **state)
{
    struct dialect d;
    const char *sql;

    (void)state;
    sql = admin_stmt(&d, "postgresql", "metrics_checkpoints");
    assert_non_null(sql);
    assert_non_null(strstr(sql, "pg_stat_bgwriter"));
    assert_non_null(strstr(sql, "'buffers_backend'"));
    dialect_release(&d);
    sql = admin_stmt(&d, "postgresql", "metrics_checkpoints_17");
    assert_non_null(sql);
    if (!strstr(sql, "FROM pg_stat_checkpointer") || !strstr(sql, "num_timed") ||
        !strstr(sql, "num_requested") || !strstr(sql, "buffers_written"))
        fail_msg("metrics_checkpoints_17 must read pg_stat_checkpointer's num_timed, "
                 "num_requested and buffers_written; got:\n%s",
                 sql);
    /* No buffers_backend row at all: never a silent zero. */
    if (strstr(sql, "('buffers_backend'"))
        fail_msg("metrics_checkpoints_17 returns buffers_backend:\n%s", sql);
    assert_non_null(strstr(sql, "('checkpoints'"));
    assert_non_null(strstr(sql, "('buffers_checkpoint'"));
    dialect_release(&d);
    sql = admin_stmt(&d, "postgresql", "metrics_server_version");
    assert_non_null(sql);
    assert_non_null(strstr(sql, "'server_version_num'"));
    dialect_release(&d);
    /* The other dialects have neither; mysql's InnoDB counts no
     * checkpoints: the statement is absent, and loading it says why. */
    assert_null(admin_stmt(&d, "mysql", "metrics_checkpoints_17"));
    assert_null(admin_stmt(&d, "ansi", "metrics_checkpoints_17"));
    assert_null(admin_stmt(&d, "mysql", "metrics_checkpoints"));
    {
        static const char *const opt[] = { "?metrics_checkpoints" };
        struct err e;
        assert_int_equal(dialect_load(&d, "mysql", "admin", opt, 1, &e), 0);
        assert_null(d.sql[0]);
        assert_string_equal(d.absent[0], "InnoDB counts no checkpoints (it checkpoints "
                                         "continuously; the redo log's bytes are "
                                         "db_wal_bytes_per_s)");
        assert_int_equal(dialect_absent(&d, 0, &e), E_USAGE);
        assert_string_equal(e.msg, "'metrics_checkpoints' is not available in the mysql dialect: "
                                   "InnoDB counts no checkpoints (it checkpoints continuously; "
                                   "the redo log's bytes are db_wal_bytes_per_s)");
        dialect_release(&d);
    }
}

/* Counts by type and outcome, response times under and over the bounds. */
static void test_runseries(void **state)
{
    static struct runseries rs;
    static struct vu_stats cum;
    struct series_row row;
    const struct tx_stats *no = &cum.tx[TX_NEW_ORDER];
    (void)state;

    memset(&cum, 0, sizeof(cum));
    memset(&row, 0, sizeof(row));
    for (int t = 0; t < TX_NTYPES; t++) {
        hist_init(&cum.tx[t].lat);
        hist_init(&cum.tx[t].svc);
    }
    cum.tx[TX_NEW_ORDER].committed = 7;
    cum.tx[TX_NEW_ORDER].rolled_back = 1;
    cum.tx[TX_NEW_ORDER].err_retry = 1;
    cum.tx[TX_NEW_ORDER].err_conn = 2;
    cum.tx[TX_NEW_ORDER].retries = 4;
    hist_record(&cum.tx[TX_NEW_ORDER].lat, 500);      /* under 1 ms */
    hist_record(&cum.tx[TX_NEW_ORDER].lat, 1500);     /* under 2 ms, over 1 ms */
    hist_record(&cum.tx[TX_NEW_ORDER].lat, 40000000); /* over 30 s: +Inf only */
    row.second = 12;
    row.phase = 'm';
    row.tps[TX_NEW_ORDER] = 2.5;
    row.tps[TX_PAYMENT] = 3;
    runseries_init(&rs, NULL);
    runseries_update(&rs, &row, &cum, 3, 1);

    assert_string_equal(rs.fam[0].family, "tpccbench_transactions_total");
    assert_null(rs.fam[0].label);
    assert_string_equal(rs.fam[0].label_values[0], "type=\"new_order\",outcome=\"committed\"");
    assert_string_equal(rs.fam[0].label_values[2], "type=\"new_order\",outcome=\"error\"");
    assert_int_equal(rs.fam[0].n, TX_NTYPES * RUNSERIES_OUTCOMES);
    assert_int_equal(rs.tx[0], 7);
    assert_int_equal(rs.tx[1], 1);
    assert_int_equal(rs.tx[2], 3); /* given up, lost and other errors */
    assert_int_equal(rs.tx[4], 4);
    assert_int_equal(rs.tx[RUNSERIES_OUTCOMES], 0); /* payment committed */

    assert_string_equal(rs.fam[1].family, "tpccbench_response_seconds");
    assert_string_equal(rs.fam[1].label_values[TX_NEW_ORDER], "type=\"new_order\"");
    assert_ptr_equal(rs.fam[1].hist, rs.hist[0]);
    assert_int_equal(rs.hist[0][0].nle, RUNSERIES_NLE);
    assert_true(rs.hist[0][0].le[0] == 0.001 && rs.hist[0][0].le[RUNSERIES_NLE - 1] == 30);
    assert_int_equal(rs.cum[0][TX_NEW_ORDER][0], 1);                 /* le 0.001 */
    assert_int_equal(rs.cum[0][TX_NEW_ORDER][1], 2);                 /* le 0.002 */
    assert_int_equal(rs.cum[0][TX_NEW_ORDER][RUNSERIES_NLE - 1], 2); /* le 30 */
    assert_int_equal(rs.cum[0][TX_NEW_ORDER][RUNSERIES_NLE], no->lat.n_samples);
    assert_int_equal(rs.cum[0][TX_NEW_ORDER][RUNSERIES_NLE], 3);
    assert_true(rs.sum_s[0][TX_NEW_ORDER] == (double)no->lat.sum_us / 1e6);
    assert_int_equal(rs.cum[1][TX_NEW_ORDER][RUNSERIES_NLE], 0); /* no service times */

    assert_true(rs.notpm == 150.0);
    assert_true(rs.tps == 5.5);
    assert_int_equal(rs.measuring, 1);
    assert_int_equal(rs.second, 12);
    assert_int_equal(rs.in_tx, 3);
    assert_int_equal(rs.down, 1);
    assert_string_equal(rs.fam[RUNSERIES_NFAM - 1].family, "tpccbench_connections_down");
    assert_ptr_equal(rs.fam[RUNSERIES_NFAM - 1].v_int, &rs.down);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checkpoint_statement_by_version),
        cmocka_unit_test(test_admin_sql),
        cmocka_unit_test(test_runseries),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
