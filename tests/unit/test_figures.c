/*
 * test_figures.c - unit tests for series.csv (figures_series_csv in
 * src/run/figures.c): the header and one line per series row, and a row far
 * longer than the 200 bytes a row is given up front (absurd values) is
 * written whole into a grown buffer, never cut and never past the end (the
 * ASan build checks the latter).  Each failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "run/figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char test_header[] =
    "second,phase,new_order_tps,payment_tps,order_status_tps,delivery_tps,"
    "stock_level_tps,total_tps,new_order_p50_ms,new_order_p90_ms,"
    "new_order_p99_ms,all_p99_ms,errors,vus_in_tx,vus_down,connections_lost\n";

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
    const char *want1 = "1,warmup,10.0,9.0,1.0,1.0,1.0,22.0,1.500,2.500,3.500,4.500,0,3,0,0\n";
    const char *want2 = "2,measure,20.0,18.0,2.0,2.0,2.0,44.0,1.000,2.000,3.000,4.000,7,4,1,2\n";

    (void)state;
    memset(&r, 0, sizeof(r));
    memset(rows, 0, sizeof(rows));
    rows[0] = (struct series_row){ .second = 1, .phase = 'r', .tps = { 10, 9, 1, 1, 1 },
                                   .no_p50_ms = 1.5, .no_p90_ms = 2.5, .no_p99_ms = 3.5,
                                   .all_p99_ms = 4.5, .errors = 0, .vus_in_tx = 3 };
    rows[1] = (struct series_row){ .second = 2, .phase = 'm', .tps = { 20, 18, 2, 2, 2 },
                                   .no_p50_ms = 1, .no_p90_ms = 2, .no_p99_ms = 3,
                                   .all_p99_ms = 4, .errors = 7, .vus_in_tx = 4, .vus_down = 1,
                                   .lost = 2 };
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
    p = strstr(csv, ",18446744073709551615,123456789,0,0\n3,measure,0.0,");
    if (!p)
        fail_msg("the long row or the one after it is cut: got %zu bytes ending '%s'", len,
                 len > 80 ? csv + len - 80 : csv);
    assert_int_equal(strcmp(csv + len - 2, "0\n"), 0);
    free(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_rows),
        cmocka_unit_test(test_series_long_row),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
