/*
 * test_gen.c - unit tests for the initial population (src/tpcc/gen.c).
 *
 * Every table of warehouse 1 is generated once into a sink whose put()
 * appends to a growable buffer, then parsed back line by line and checked
 * against TPC-C clause 4.3.3.1 (see TPCC.md): row counts, column counts,
 * every field's format and range, the fixed values, the order shape shared
 * by orders, new_order and order_line, and the 10 % shares (binomial counts
 * within 5 standard deviations).  Columns are found by name in
 * tpcc_table_columns(), so a value written under the wrong column fails.
 * Reproducibility is checked byte for byte.  Each failure prints both sides
 * and the offending line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tpcc/gen.h"
#include "tpcc/random.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define TEST_SEED UINT64_C(0x67656e7465737431)
#define TEST_NOW  "2026-01-01 00:00:00"

/* The sink buffer: the generator needs at least 64 KiB. */
#define TEST_SINK_CAP (64 * 1024)

/* The most columns of any table (customer: 21). */
#define TEST_MAXF 24

/* The line being checked, printed with any failure. */
static const char *test_cur_table;
static int64_t test_cur_rowno;
static const char *test_cur_line;
static int test_cur_len;

/* Fail the test, naming what was checked with both sides, and the line. */
#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            print_error(__VA_ARGS__);                                                     \
            print_error("\n");                                                            \
            if (test_cur_line)                                                            \
                print_error("%s row %" PRId64 ": %.*s\n", test_cur_table, test_cur_rowno, \
                            test_cur_len, test_cur_line);                                 \
            fail_msg("check failed: %s", #cond);                                          \
        }                                                                                 \
    } while (0)

/* After CHECK: the shared statistical checks report through it, with the row. */
#include "unit.h"

/* ---- the sink ---- */

/* What put() received: all chunks appended, and how they looked. */
struct test_out {
    char *data;       /* every byte put, in order */
    size_t len;       /* bytes in data */
    size_t cap;       /* bytes allocated for data */
    int64_t nput;     /* calls of put() */
    int64_t nbad;     /* chunks that were empty or did not end a row */
    size_t max_chunk; /* largest chunk */
    int fail_rc;      /* when not 0, put() returns it and keeps nothing */
};

static int test_put(void *arg, const char *buf, size_t len)
{
    struct test_out *o = arg;

    o->nput++;
    if (o->fail_rc)
        return o->fail_rc;
    if (len == 0 || buf[len - 1] != '\n')
        o->nbad++;
    if (len > o->max_chunk)
        o->max_chunk = len;
    if (o->len + len > o->cap) {
        size_t cap = o->cap ? o->cap : 1 << 20;
        while (cap < o->len + len)
            cap *= 2;
        char *p = realloc(o->data, cap);
        assert_non_null(p);
        o->data = p;
        o->cap = cap;
    }
    memcpy(o->data + o->len, buf, len);
    o->len += len;
    return 0;
}

static void test_out_free(struct test_out *o)
{
    free(o->data);
    memset(o, 0, sizeof(*o));
}

static int64_t test_count_lines(const struct test_out *o)
{
    int64_t n = 0;

    for (size_t i = 0; i < o->len; i++)
        n += o->data[i] == '\n';
    return n;
}

/* Generate table for warehouse w, appending to o, and check what the sink
 * saw: whole rows only, no chunk above the buffer, counters that add up. */
static void test_gen_into(const struct gen_ctx *g, int table, int w, struct test_out *o)
{
    struct gen_sink s = { .put = test_put, .arg = o, .cap = TEST_SINK_CAP };
    size_t before = o->len;
    int64_t lines_before = test_count_lines(o);
    int rc;

    s.buf = malloc(TEST_SINK_CAP);
    assert_non_null(s.buf);
    rc = gen_table(g, table, w, &s);
    free(s.buf);
    CHECK(rc == 0, "gen_table(%s, w=%d) returned %d", tpcc_table_name(table), w, rc);
    CHECK(s.len == 0, "gen_table(%s): %zu bytes left unflushed", tpcc_table_name(table), s.len);
    CHECK(o->nbad == 0, "gen_table(%s): %" PRId64 " chunks did not end a row",
          tpcc_table_name(table), o->nbad);
    CHECK(o->max_chunk <= TEST_SINK_CAP, "gen_table(%s): a chunk of %zu bytes, buffer %d",
          tpcc_table_name(table), o->max_chunk, TEST_SINK_CAP);
    CHECK(s.bytes == (int64_t)(o->len - before),
          "gen_table(%s): sink counts %" PRId64 " bytes, put() got %zu", tpcc_table_name(table),
          s.bytes, o->len - before);
    int64_t lines = test_count_lines(o) - lines_before;
    CHECK(s.rows == lines, "gen_table(%s): sink counts %" PRId64 " rows, output has %" PRId64,
          tpcc_table_name(table), s.rows, lines);
}

/* ---- parsing ---- */

/* One line split at tabs. */
struct test_row {
    int nf;                   /* fields on the line (may exceed TEST_MAXF) */
    const char *f[TEST_MAXF]; /* start of each field */
    int len[TEST_MAXF];       /* and its length */
};

/* Walks the lines of one table's output. */
struct test_iter {
    const char *pos, *end;
    int64_t rowno; /* 0-based index of the row last returned */
};

static void test_iter_init(struct test_iter *it, const struct test_out *o, int table)
{
    it->pos = o->data;
    it->end = o->data + o->len;
    it->rowno = -1;
    test_cur_table = tpcc_table_name(table);
    test_cur_line = NULL;
}

/* Split the next line into row; 0 at the end. */
static int test_next(struct test_iter *it, struct test_row *row)
{
    const char *p = it->pos, *eol;

    if (p >= it->end) {
        test_cur_line = NULL;
        return 0;
    }
    eol = memchr(p, '\n', (size_t)(it->end - p));
    CHECK(eol != NULL, "the output does not end with a newline");
    it->rowno++;
    test_cur_rowno = it->rowno;
    test_cur_line = p;
    test_cur_len = (int)(eol - p);
    row->nf = 0;
    for (;;) {
        const char *tab = memchr(p, '\t', (size_t)(eol - p));
        const char *fend = tab ? tab : eol;
        if (row->nf < TEST_MAXF) {
            row->f[row->nf] = p;
            row->len[row->nf] = (int)(fend - p);
        }
        row->nf++;
        if (!tab)
            break;
        p = tab + 1;
    }
    it->pos = eol + 1;
    return 1;
}

/* Number of columns of table: commas in the column list + 1. */
static int test_ncols(int table)
{
    int n = 1;

    for (const char *p = tpcc_table_columns(table); *p; p++)
        n += *p == ',';
    return n;
}

/* Index of column name in table's column list. */
static int test_col(int table, const char *name)
{
    const char *p = tpcc_table_columns(table);
    size_t n = strlen(name);

    for (int i = 0;; i++) {
        while (*p == ' ')
            p++;
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return i;
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    fail_msg("column '%s' not in the columns of %s: %s", name, tpcc_table_name(table),
             tpcc_table_columns(table));
    return -1;
}

static int test_is(const struct test_row *r, int i, const char *want)
{
    return r->len[i] == (int)strlen(want) && memcmp(r->f[i], want, (size_t)r->len[i]) == 0;
}

static int test_is_null(const struct test_row *r, int i)
{
    return test_is(r, i, "\\N");
}

/* A decimal integer, strictly: optional '-', digits, no leading zeros. */
static int64_t test_int(const struct test_row *r, int i)
{
    const char *p = r->f[i];
    int n = r->len[i], k = 0, neg = 0;
    int64_t v = 0;

    if (n > 0 && p[0] == '-') {
        neg = 1;
        k = 1;
    }
    CHECK(n > k && n - k <= 18 && !(p[k] == '0' && n - k > 1),
          "field %d \"%.*s\" is not an integer", i, n, p);
    for (; k < n; k++) {
        CHECK(p[k] >= '0' && p[k] <= '9', "field %d \"%.*s\" is not an integer", i, n, p);
        v = v * 10 + (p[k] - '0');
    }
    return neg ? -v : v;
}

/* A decimal with exactly scale digits after the point, as an integer scaled
 * by 10^scale ("12.34" -> 1234). */
static int64_t test_scaled(const struct test_row *r, int i, int scale)
{
    const char *p = r->f[i];
    int n = r->len[i], k = 0, neg = 0, point;
    int64_t v = 0;

    if (n > 0 && p[0] == '-') {
        neg = 1;
        k = 1;
    }
    point = n - scale - 1;
    CHECK(point > k && point - k <= 12 && p[point] == '.' && !(p[k] == '0' && point - k > 1),
          "field %d \"%.*s\" is not a decimal with %d places", i, n, p, scale);
    for (; k < n; k++) {
        if (k == point)
            continue;
        CHECK(p[k] >= '0' && p[k] <= '9', "field %d \"%.*s\" is not a decimal with %d places", i, n,
              p, scale);
        v = v * 10 + (p[k] - '0');
    }
    return neg ? -v : v;
}

/* The a-string alphabet of random.c: letters, digits, '-' and '_'. */
static int test_astring_ok(const struct test_row *r, int i, int lo, int hi)
{
    if (r->len[i] < lo || r->len[i] > hi)
        return 0;
    for (int k = 0; k < r->len[i]; k++) {
        char ch = r->f[i][k];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_'))
            return 0;
    }
    return 1;
}

static int test_digits_ok(const struct test_row *r, int i, int n)
{
    if (r->len[i] != n)
        return 0;
    for (int k = 0; k < n; k++)
        if (r->f[i][k] < '0' || r->f[i][k] > '9')
            return 0;
    return 1;
}

static int test_zip_ok(const struct test_row *r, int i)
{
    return r->len[i] == 9 && memcmp(r->f[i] + 4, "11111", 5) == 0 && r->f[i][0] >= '0' &&
           r->f[i][0] <= '9' && r->f[i][1] >= '0' && r->f[i][1] <= '9' && r->f[i][2] >= '0' &&
           r->f[i][2] <= '9' && r->f[i][3] >= '0' && r->f[i][3] <= '9';
}

static int test_state_ok(const struct test_row *r, int i)
{
    return r->len[i] == 2 && r->f[i][0] >= 'A' && r->f[i][0] <= 'Z' && r->f[i][1] >= 'A' &&
           r->f[i][1] <= 'Z';
}

static int test_has_original(const struct test_row *r, int i)
{
    for (int k = 0; k + 8 <= r->len[i]; k++)
        if (memcmp(r->f[i] + k, "ORIGINAL", 8) == 0)
            return 1;
    return 0;
}

/* The shortest and longest value of a field seen so far. */
struct test_span {
    int lo, hi;
};

static void test_span_add(struct test_span *sp, int len)
{
    sp->lo = len < sp->lo ? len : sp->lo;
    sp->hi = len > sp->hi ? len : sp->hi;
}

/* Every length in lo..hi is equally likely, and there are thousands of
 * rows: both ends must have been seen. */
static void test_span_check(const char *what, const struct test_span *sp, int lo, int hi)
{
    CHECK(sp->lo == lo && sp->hi == hi, "%s: lengths seen %d..%d, want %d..%d", what, sp->lo,
          sp->hi, lo, hi);
}

#define TEST_SPAN_INIT \
    {                  \
        1 << 30, -1    \
    }

/* ---- the population of warehouse 1, generated once ---- */

static struct gen_ctx test_ctx;
static struct test_out test_w1[T_NTABLES];

static void test_ctx_init(struct gen_ctx *g, uint64_t seed)
{
    struct rng r;

    memset(g, 0, sizeof(*g));
    g->seed = seed;
    rng_init(&r, seed);
    nurand_c_load(&r, &g->c_load);
    memcpy(g->now, TEST_NOW, sizeof(TEST_NOW));
}

static int test_setup(void **state)
{
    (void)state;
    test_ctx_init(&test_ctx, TEST_SEED);
    for (int t = 0; t < T_NTABLES; t++)
        test_gen_into(&test_ctx, t, 1, &test_w1[t]);
    return 0;
}

static int test_teardown(void **state)
{
    (void)state;
    for (int t = 0; t < T_NTABLES; t++)
        test_out_free(&test_w1[t]);
    return 0;
}

/* ---- counts and shape ---- */

/* Rows per table for one warehouse; order_line = sum(o_ol_cnt), within 1 %
 * of 300000 (the sum of 30000 uniform 5..15 has sd 548, so 1 % is 5.5 sd). */
static void test_row_counts(void **state)
{
    static const struct {
        int table;
        int64_t rows;
    } cases[] = {
        { T_WAREHOUSE, 1 },  { T_DISTRICT, 10 },    { T_CUSTOMER, 30000 }, { T_HISTORY, 30000 },
        { T_ORDERS, 30000 }, { T_NEW_ORDER, 9000 }, { T_ITEM, 100000 },    { T_STOCK, 100000 },
    };
    struct test_iter it;
    struct test_row row;
    int64_t sum_ol = 0, nol;
    int c_ol_cnt = test_col(T_ORDERS, "o_ol_cnt");
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int t = cases[i].table;
        int64_t got = test_count_lines(&test_w1[t]);
        CHECK(got == cases[i].rows, "%s: %" PRId64 " rows, want %" PRId64, tpcc_table_name(t), got,
              cases[i].rows);
        CHECK(tpcc_table_rows(t, 1) == cases[i].rows,
              "tpcc_table_rows(%s, 1) = %" PRId64 ", want %" PRId64, tpcc_table_name(t),
              tpcc_table_rows(t, 1), cases[i].rows);
    }
    test_iter_init(&it, &test_w1[T_ORDERS], T_ORDERS);
    while (test_next(&it, &row))
        sum_ol += test_int(&row, c_ol_cnt);
    nol = test_count_lines(&test_w1[T_ORDER_LINE]);
    CHECK(nol == sum_ol, "order_line: %" PRId64 " rows, sum of o_ol_cnt %" PRId64, nol, sum_ol);
    CHECK(nol >= 297000 && nol <= 303000, "order_line: %" PRId64 " rows, want 300000 +- 1 %%", nol);
    CHECK(tpcc_table_rows(T_ORDER_LINE, 1) == 300000, "tpcc_table_rows(order_line, 1) = %" PRId64,
          tpcc_table_rows(T_ORDER_LINE, 1));
    /* Per warehouse, except item. */
    CHECK(tpcc_table_rows(T_STOCK, 3) == 300000 && tpcc_table_rows(T_ITEM, 3) == 100000,
          "for 3 warehouses: stock %" PRId64 ", item %" PRId64, tpcc_table_rows(T_STOCK, 3),
          tpcc_table_rows(T_ITEM, 3));
}

/* Every line has as many fields as the table has columns; no field is empty;
 * bytes are printable ASCII; a backslash only ever starts a NULL (\N). */
static void test_columns(void **state)
{
    (void)state;

    for (int t = 0; t < T_NTABLES; t++) {
        int want = test_ncols(t);
        struct test_iter it;
        struct test_row row;

        CHECK(want <= TEST_MAXF, "%s has %d columns", tpcc_table_name(t), want);
        test_iter_init(&it, &test_w1[t], t);
        while (test_next(&it, &row)) {
            CHECK(row.nf == want, "%s: %d fields, want %d (%s)", tpcc_table_name(t), row.nf, want,
                  tpcc_table_columns(t));
            for (int i = 0; i < row.nf; i++) {
                CHECK(row.len[i] > 0, "%s: field %d is empty", tpcc_table_name(t), i);
                for (int k = 0; k < row.len[i]; k++) {
                    unsigned char ch = (unsigned char)row.f[i][k];
                    CHECK(ch >= 0x20 && ch < 0x7f, "%s: field %d has byte 0x%02x",
                          tpcc_table_name(t), i, ch);
                    CHECK(ch != '\\' || test_is_null(&row, i),
                          "%s: field %d has a backslash but is not \\N", tpcc_table_name(t), i);
                }
            }
        }
    }
}

/* ---- table by table ---- */

static void test_warehouse(void **state)
{
    struct test_iter it;
    struct test_row row;
    int c_id = test_col(T_WAREHOUSE, "w_id"), c_name = test_col(T_WAREHOUSE, "w_name");
    int c_s1 = test_col(T_WAREHOUSE, "w_street_1"), c_s2 = test_col(T_WAREHOUSE, "w_street_2");
    int c_city = test_col(T_WAREHOUSE, "w_city"), c_state = test_col(T_WAREHOUSE, "w_state");
    int c_zip = test_col(T_WAREHOUSE, "w_zip"), c_tax = test_col(T_WAREHOUSE, "w_tax");
    int c_ytd = test_col(T_WAREHOUSE, "w_ytd");
    (void)state;

    test_iter_init(&it, &test_w1[T_WAREHOUSE], T_WAREHOUSE);
    CHECK(test_next(&it, &row), "warehouse: no row");
    CHECK(test_int(&row, c_id) == 1, "w_id %" PRId64 ", want 1", test_int(&row, c_id));
    CHECK(test_astring_ok(&row, c_name, 6, 10), "w_name \"%.*s\", want a-string 6..10",
          row.len[c_name], row.f[c_name]);
    CHECK(test_astring_ok(&row, c_s1, 10, 20) && test_astring_ok(&row, c_s2, 10, 20) &&
              test_astring_ok(&row, c_city, 10, 20),
          "street_1, street_2, city: want a-strings 10..20");
    CHECK(test_state_ok(&row, c_state), "w_state \"%.*s\", want 2 letters", row.len[c_state],
          row.f[c_state]);
    CHECK(test_zip_ok(&row, c_zip), "w_zip \"%.*s\", want 4 digits + 11111", row.len[c_zip],
          row.f[c_zip]);
    int64_t tax = test_scaled(&row, c_tax, 4);
    CHECK(tax >= 0 && tax <= 2000, "w_tax %" PRId64 "e-4, want 0.0000..0.2000", tax);
    CHECK(test_scaled(&row, c_ytd, 2) == 30000000, "w_ytd %" PRId64 "e-2, want 300000.00",
          test_scaled(&row, c_ytd, 2));
    CHECK(!test_next(&it, &row), "warehouse: more than one row");
}

static void test_district(void **state)
{
    struct test_iter it;
    struct test_row row;
    int c_id = test_col(T_DISTRICT, "d_id"), c_w = test_col(T_DISTRICT, "d_w_id");
    int c_name = test_col(T_DISTRICT, "d_name"), c_s1 = test_col(T_DISTRICT, "d_street_1");
    int c_s2 = test_col(T_DISTRICT, "d_street_2"), c_city = test_col(T_DISTRICT, "d_city");
    int c_state = test_col(T_DISTRICT, "d_state"), c_zip = test_col(T_DISTRICT, "d_zip");
    int c_tax = test_col(T_DISTRICT, "d_tax"), c_ytd = test_col(T_DISTRICT, "d_ytd");
    int c_next = test_col(T_DISTRICT, "d_next_o_id");
    int d = 0;
    (void)state;

    test_iter_init(&it, &test_w1[T_DISTRICT], T_DISTRICT);
    while (test_next(&it, &row)) {
        d++;
        CHECK(test_int(&row, c_id) == d && test_int(&row, c_w) == 1,
              "d_id %" PRId64 ", d_w_id %" PRId64 ", want %d, 1", test_int(&row, c_id),
              test_int(&row, c_w), d);
        CHECK(test_astring_ok(&row, c_name, 6, 10), "d_name: want a-string 6..10");
        CHECK(test_astring_ok(&row, c_s1, 10, 20) && test_astring_ok(&row, c_s2, 10, 20) &&
                  test_astring_ok(&row, c_city, 10, 20),
              "street_1, street_2, city: want a-strings 10..20");
        CHECK(test_state_ok(&row, c_state), "d_state: want 2 letters");
        CHECK(test_zip_ok(&row, c_zip), "d_zip: want 4 digits + 11111");
        int64_t tax = test_scaled(&row, c_tax, 4);
        CHECK(tax >= 0 && tax <= 2000, "d_tax %" PRId64 "e-4, want 0.0000..0.2000", tax);
        CHECK(test_scaled(&row, c_ytd, 2) == 3000000, "d_ytd %" PRId64 "e-2, want 30000.00",
              test_scaled(&row, c_ytd, 2));
        CHECK(test_int(&row, c_next) == 3001, "d_next_o_id %" PRId64 ", want 3001",
              test_int(&row, c_next));
    }
    CHECK(d == 10, "%d districts, want 10", d);
}

/* Exact pair counts of NURand(255, 0, 999) with constant c, by enumeration. */
static void test_nurand255_exact(int c, int64_t pairs[1000])
{
    memset(pairs, 0, 1000 * sizeof(pairs[0]));
    for (int r1 = 0; r1 <= 255; r1++)
        for (int r2 = 0; r2 <= 999; r2++)
            pairs[((r1 | r2) + c) % 1000]++;
}

/* Chi-square of name-number counts against NURand(255, 0, 999) with c;
 * numbers expected fewer than 5 times are pooled.  Sets *dof. */
static double test_chi2_nurand255(const int64_t got[1000], int64_t n, int c, int *dof)
{
    int64_t pairs[1000];
    double chi2 = 0, pool_want = 0, pool_got = 0;
    int cells = 0;

    test_nurand255_exact(c, pairs);
    for (int v = 0; v < 1000; v++) {
        double want = (double)n * (double)pairs[v] / (256.0 * 1000.0);
        if (want < 5) {
            pool_want += want;
            pool_got += (double)got[v];
            continue;
        }
        chi2 += ((double)got[v] - want) * ((double)got[v] - want) / want;
        cells++;
    }
    if (pool_want > 0) {
        chi2 += (pool_got - pool_want) * (pool_got - pool_want) / pool_want;
        cells++;
    }
    *dof = cells - 1;
    return chi2;
}

static void test_customer(void **state)
{
    static char names[1000][16];
    int64_t num_counts[1000] = { 0 }, nbc = 0, nrandom = 0, first_lens[17] = { 0 };
    struct test_iter it;
    struct test_row row;
    int c_id = test_col(T_CUSTOMER, "c_id"), c_d = test_col(T_CUSTOMER, "c_d_id");
    int c_w = test_col(T_CUSTOMER, "c_w_id"), c_first = test_col(T_CUSTOMER, "c_first");
    int c_middle = test_col(T_CUSTOMER, "c_middle"), c_last = test_col(T_CUSTOMER, "c_last");
    int c_s1 = test_col(T_CUSTOMER, "c_street_1"), c_s2 = test_col(T_CUSTOMER, "c_street_2");
    int c_city = test_col(T_CUSTOMER, "c_city"), c_state = test_col(T_CUSTOMER, "c_state");
    int c_zip = test_col(T_CUSTOMER, "c_zip"), c_phone = test_col(T_CUSTOMER, "c_phone");
    int c_since = test_col(T_CUSTOMER, "c_since"), c_credit = test_col(T_CUSTOMER, "c_credit");
    int c_lim = test_col(T_CUSTOMER, "c_credit_lim");
    int c_disc = test_col(T_CUSTOMER, "c_discount");
    int c_bal = test_col(T_CUSTOMER, "c_balance");
    int c_ytd = test_col(T_CUSTOMER, "c_ytd_payment");
    int c_pay = test_col(T_CUSTOMER, "c_payment_cnt");
    int c_del = test_col(T_CUSTOMER, "c_delivery_cnt"), c_data = test_col(T_CUSTOMER, "c_data");
    int64_t min_disc = 1 << 30, max_disc = -1;
    struct test_span sp_street = TEST_SPAN_INIT, sp_data = TEST_SPAN_INIT;
    (void)state;

    for (int n = 0; n < 1000; n++)
        tpcc_lastname(n, names[n]);

    test_iter_init(&it, &test_w1[T_CUSTOMER], T_CUSTOMER);
    while (test_next(&it, &row)) {
        int c = (int)(it.rowno % 3000) + 1, d = (int)(it.rowno / 3000) + 1;

        CHECK(test_int(&row, c_id) == c && test_int(&row, c_d) == d && test_int(&row, c_w) == 1,
              "(c_id, c_d_id, c_w_id) = (%" PRId64 ", %" PRId64 ", %" PRId64 "), want (%d, %d, 1)",
              test_int(&row, c_id), test_int(&row, c_d), test_int(&row, c_w), c, d);
        CHECK(test_astring_ok(&row, c_first, 8, 16), "c_first \"%.*s\", want a-string 8..16",
              row.len[c_first], row.f[c_first]);
        first_lens[row.len[c_first]]++;
        CHECK(test_is(&row, c_middle, "OE"), "c_middle \"%.*s\", want \"OE\"", row.len[c_middle],
              row.f[c_middle]);

        /* c_last: number c_id - 1 for the first 1000, else NURand(255, 0, 999). */
        int num = -1;
        for (int n = 0; n < 1000 && num < 0; n++)
            if (test_is(&row, c_last, names[n]))
                num = n;
        CHECK(num >= 0, "c_last \"%.*s\" is not a TPC-C last name", row.len[c_last], row.f[c_last]);
        if (c <= 1000) {
            CHECK(num == c - 1, "c_id %d: c_last \"%.*s\" (number %d), want \"%s\" (number %d)", c,
                  row.len[c_last], row.f[c_last], num, names[c - 1], c - 1);
        } else {
            num_counts[num]++;
            nrandom++;
        }

        CHECK(test_astring_ok(&row, c_s1, 10, 20) && test_astring_ok(&row, c_s2, 10, 20) &&
                  test_astring_ok(&row, c_city, 10, 20),
              "street_1, street_2, city: want a-strings 10..20");
        CHECK(test_state_ok(&row, c_state), "c_state \"%.*s\", want 2 letters", row.len[c_state],
              row.f[c_state]);
        CHECK(test_zip_ok(&row, c_zip), "c_zip \"%.*s\", want 4 digits + 11111", row.len[c_zip],
              row.f[c_zip]);
        CHECK(test_digits_ok(&row, c_phone, 16), "c_phone \"%.*s\", want 16 digits",
              row.len[c_phone], row.f[c_phone]);
        CHECK(test_is(&row, c_since, TEST_NOW), "c_since \"%.*s\", want \"%s\"", row.len[c_since],
              row.f[c_since], TEST_NOW);
        CHECK(test_is(&row, c_credit, "BC") || test_is(&row, c_credit, "GC"),
              "c_credit \"%.*s\", want BC or GC", row.len[c_credit], row.f[c_credit]);
        nbc += test_is(&row, c_credit, "BC");
        CHECK(test_scaled(&row, c_lim, 2) == 5000000, "c_credit_lim %" PRId64 "e-2, want 50000.00",
              test_scaled(&row, c_lim, 2));
        int64_t disc = test_scaled(&row, c_disc, 4);
        CHECK(disc >= 0 && disc <= 5000, "c_discount %" PRId64 "e-4, want 0.0000..0.5000", disc);
        min_disc = disc < min_disc ? disc : min_disc;
        max_disc = disc > max_disc ? disc : max_disc;
        CHECK(test_scaled(&row, c_bal, 2) == -1000, "c_balance %" PRId64 "e-2, want -10.00",
              test_scaled(&row, c_bal, 2));
        CHECK(test_scaled(&row, c_ytd, 2) == 1000, "c_ytd_payment %" PRId64 "e-2, want 10.00",
              test_scaled(&row, c_ytd, 2));
        CHECK(test_int(&row, c_pay) == 1 && test_int(&row, c_del) == 0,
              "c_payment_cnt %" PRId64 ", c_delivery_cnt %" PRId64 ", want 1, 0",
              test_int(&row, c_pay), test_int(&row, c_del));
        test_span_add(&sp_street, row.len[c_s1]);
        test_span_add(&sp_data, row.len[c_data]);
        CHECK(test_astring_ok(&row, c_data, 300, 500),
              "c_data of length %d, want a-string 300..500", row.len[c_data]);
    }
    CHECK(it.rowno + 1 == 30000, "%" PRId64 " customers", it.rowno + 1);
    unit_check_binomial("customers with c_credit BC", nbc, 30000, 0.10);
    for (int l = 8; l <= 16; l++)
        CHECK(first_lens[l] > 0, "c_first never of length %d", l);
    test_span_check("c_street_1", &sp_street, 10, 20);
    test_span_check("c_data", &sp_data, 300, 500);
    CHECK(min_disc < 10 && max_disc > 4990, "c_discount seen in %" PRId64 "..%" PRId64 "e-4",
          min_disc, max_disc);

    /* The 20000 random last names follow NURand(255, 0, 999) with the load's
     * C, and the test can tell: C shifted by 100 is far out of bounds. */
    int dof, dof_wrong;
    int cl = test_ctx.c_load.c_last, wrong = (cl + 100) % 256;
    double chi2 = test_chi2_nurand255(num_counts, nrandom, cl, &dof);
    double chi2_wrong = test_chi2_nurand255(num_counts, nrandom, wrong, &dof_wrong);
    CHECK(chi2 < unit_chi2_bound(dof),
          "c_last numbers against NURand(255, 0, 999) with C=%d: chi-square %.1f with %d dof, "
          "bound %.1f",
          cl, chi2, dof, unit_chi2_bound(dof));
    CHECK(chi2_wrong > 10 * unit_chi2_bound(dof_wrong),
          "c_last numbers against C=%d instead of %d: chi-square %.1f, want far above %.1f", wrong,
          cl, chi2_wrong, unit_chi2_bound(dof_wrong));
}

static void test_history(void **state)
{
    struct test_iter it;
    struct test_row row;
    int c_c = test_col(T_HISTORY, "h_c_id"), c_cd = test_col(T_HISTORY, "h_c_d_id");
    int c_cw = test_col(T_HISTORY, "h_c_w_id"), c_d = test_col(T_HISTORY, "h_d_id");
    int c_w = test_col(T_HISTORY, "h_w_id"), c_date = test_col(T_HISTORY, "h_date");
    int c_amount = test_col(T_HISTORY, "h_amount"), c_data = test_col(T_HISTORY, "h_data");
    struct test_span sp_data = TEST_SPAN_INIT;
    (void)state;

    test_iter_init(&it, &test_w1[T_HISTORY], T_HISTORY);
    while (test_next(&it, &row)) {
        int c = (int)(it.rowno % 3000) + 1, d = (int)(it.rowno / 3000) + 1;
        CHECK(test_int(&row, c_c) == c && test_int(&row, c_cd) == d && test_int(&row, c_cw) == 1 &&
                  test_int(&row, c_d) == d && test_int(&row, c_w) == 1,
              "(h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id) = (%" PRId64 ", %" PRId64 ", %" PRId64
              ", %" PRId64 ", %" PRId64 "), want (%d, %d, 1, %d, 1)",
              test_int(&row, c_c), test_int(&row, c_cd), test_int(&row, c_cw), test_int(&row, c_d),
              test_int(&row, c_w), c, d, d);
        CHECK(test_is(&row, c_date, TEST_NOW), "h_date \"%.*s\", want \"%s\"", row.len[c_date],
              row.f[c_date], TEST_NOW);
        CHECK(test_scaled(&row, c_amount, 2) == 1000, "h_amount %" PRId64 "e-2, want 10.00",
              test_scaled(&row, c_amount, 2));
        CHECK(test_astring_ok(&row, c_data, 12, 24), "h_data of length %d, want a-string 12..24",
              row.len[c_data]);
        test_span_add(&sp_data, row.len[c_data]);
    }
    CHECK(it.rowno + 1 == 30000, "%" PRId64 " history rows", it.rowno + 1);
    test_span_check("h_data", &sp_data, 12, 24);
}

static void test_item(void **state)
{
    struct test_iter it;
    struct test_row row;
    int c_id = test_col(T_ITEM, "i_id"), c_im = test_col(T_ITEM, "i_im_id");
    int c_name = test_col(T_ITEM, "i_name"), c_price = test_col(T_ITEM, "i_price");
    int c_data = test_col(T_ITEM, "i_data");
    int64_t norig = 0, min_price = INT64_MAX, max_price = 0, min_im = INT64_MAX, max_im = 0;
    struct test_span sp_name = TEST_SPAN_INIT, sp_data = TEST_SPAN_INIT;
    (void)state;

    test_iter_init(&it, &test_w1[T_ITEM], T_ITEM);
    while (test_next(&it, &row)) {
        CHECK(test_int(&row, c_id) == it.rowno + 1, "i_id %" PRId64 ", want %" PRId64,
              test_int(&row, c_id), it.rowno + 1);
        int64_t im = test_int(&row, c_im), price = test_scaled(&row, c_price, 2);
        CHECK(im >= 1 && im <= 10000, "i_im_id %" PRId64 ", want 1..10000", im);
        CHECK(price >= 100 && price <= 10000, "i_price %" PRId64 "e-2, want 1.00..100.00", price);
        min_im = im < min_im ? im : min_im;
        max_im = im > max_im ? im : max_im;
        min_price = price < min_price ? price : min_price;
        max_price = price > max_price ? price : max_price;
        CHECK(test_astring_ok(&row, c_name, 14, 24), "i_name \"%.*s\", want a-string 14..24",
              row.len[c_name], row.f[c_name]);
        CHECK(test_astring_ok(&row, c_data, 26, 50), "i_data \"%.*s\", want a-string 26..50",
              row.len[c_data], row.f[c_data]);
        norig += test_has_original(&row, c_data);
        test_span_add(&sp_name, row.len[c_name]);
        test_span_add(&sp_data, row.len[c_data]);
    }
    CHECK(it.rowno + 1 == 100000, "%" PRId64 " items", it.rowno + 1);
    test_span_check("i_name", &sp_name, 14, 24);
    test_span_check("i_data", &sp_data, 26, 50);
    unit_check_binomial("i_data with ORIGINAL", norig, 100000, 0.10);
    /* Each end has probability 1e-4 per row: about 10 of 100000. */
    CHECK(min_price == 100 && max_price == 10000, "i_price seen in %" PRId64 "..%" PRId64 "e-2",
          min_price, max_price);
    CHECK(min_im == 1 && max_im == 10000, "i_im_id seen in %" PRId64 "..%" PRId64, min_im, max_im);
}

static void test_stock(void **state)
{
    static const char *const dist[10] = {
        "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05",
        "s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10",
    };
    struct test_iter it;
    struct test_row row;
    int c_i = test_col(T_STOCK, "s_i_id"), c_w = test_col(T_STOCK, "s_w_id");
    int c_q = test_col(T_STOCK, "s_quantity"), c_ytd = test_col(T_STOCK, "s_ytd");
    int c_ocnt = test_col(T_STOCK, "s_order_cnt"), c_rcnt = test_col(T_STOCK, "s_remote_cnt");
    int c_data = test_col(T_STOCK, "s_data"), c_dist[10];
    int64_t norig = 0, qcount[101] = { 0 };
    struct test_span sp_data = TEST_SPAN_INIT;
    (void)state;

    for (int k = 0; k < 10; k++)
        c_dist[k] = test_col(T_STOCK, dist[k]);
    test_iter_init(&it, &test_w1[T_STOCK], T_STOCK);
    while (test_next(&it, &row)) {
        CHECK(test_int(&row, c_i) == it.rowno + 1 && test_int(&row, c_w) == 1,
              "(s_i_id, s_w_id) = (%" PRId64 ", %" PRId64 "), want (%" PRId64 ", 1)",
              test_int(&row, c_i), test_int(&row, c_w), it.rowno + 1);
        int64_t q = test_int(&row, c_q);
        CHECK(q >= 10 && q <= 100, "s_quantity %" PRId64 ", want 10..100", q);
        qcount[q]++;
        for (int k = 0; k < 10; k++)
            CHECK(test_astring_ok(&row, c_dist[k], 24, 24), "%s \"%.*s\", want a-string of 24",
                  dist[k], row.len[c_dist[k]], row.f[c_dist[k]]);
        CHECK(test_int(&row, c_ytd) == 0 && test_int(&row, c_ocnt) == 0 &&
                  test_int(&row, c_rcnt) == 0,
              "s_ytd, s_order_cnt, s_remote_cnt = %" PRId64 ", %" PRId64 ", %" PRId64
              ", want 0, 0, 0",
              test_int(&row, c_ytd), test_int(&row, c_ocnt), test_int(&row, c_rcnt));
        CHECK(test_astring_ok(&row, c_data, 26, 50), "s_data \"%.*s\", want a-string 26..50",
              row.len[c_data], row.f[c_data]);
        norig += test_has_original(&row, c_data);
        test_span_add(&sp_data, row.len[c_data]);
    }
    CHECK(it.rowno + 1 == 100000, "%" PRId64 " stock rows", it.rowno + 1);
    test_span_check("s_data", &sp_data, 26, 50);
    unit_check_binomial("s_data with ORIGINAL", norig, 100000, 0.10);
    for (int q = 10; q <= 100; q++)
        CHECK(qcount[q] > 0, "s_quantity %d never drawn", q);
}

/* The order shape: o_c_id a permutation per district, carriers exactly on
 * the delivered orders, 5..15 lines, and the same values as gen_orders_of(). */
static void test_orders(void **state)
{
    static struct gen_orders shape;
    struct test_iter it;
    struct test_row row;
    int c_id = test_col(T_ORDERS, "o_id"), c_d = test_col(T_ORDERS, "o_d_id");
    int c_w = test_col(T_ORDERS, "o_w_id"), c_c = test_col(T_ORDERS, "o_c_id");
    int c_entry = test_col(T_ORDERS, "o_entry_d"), c_car = test_col(T_ORDERS, "o_carrier_id");
    int c_cnt = test_col(T_ORDERS, "o_ol_cnt"), c_local = test_col(T_ORDERS, "o_all_local");
    int64_t carriers[11] = { 0 }, cnts[16] = { 0 };
    char seen[3001];
    (void)state;

    test_iter_init(&it, &test_w1[T_ORDERS], T_ORDERS);
    for (int d = 1; d <= 10; d++) {
        gen_orders_of(&test_ctx, 1, d, &shape);
        memset(seen, 0, sizeof(seen));
        for (int o = 1; o <= 3000; o++) {
            CHECK(test_next(&it, &row), "orders: district %d ends before o_id %d", d, o);
            CHECK(test_int(&row, c_id) == o && test_int(&row, c_d) == d && test_int(&row, c_w) == 1,
                  "(o_id, o_d_id, o_w_id) = (%" PRId64 ", %" PRId64 ", %" PRId64
                  "), want (%d, %d, 1)",
                  test_int(&row, c_id), test_int(&row, c_d), test_int(&row, c_w), o, d);
            int64_t c = test_int(&row, c_c);
            CHECK(c >= 1 && c <= 3000 && !seen[c], "o_c_id %" PRId64 " outside 1..3000 or repeated",
                  c);
            seen[c] = 1;
            CHECK(c == shape.c_id[o - 1], "o_c_id %" PRId64 ", gen_orders_of says %d", c,
                  shape.c_id[o - 1]);
            CHECK(test_is(&row, c_entry, TEST_NOW), "o_entry_d \"%.*s\", want \"%s\"",
                  row.len[c_entry], row.f[c_entry], TEST_NOW);
            if (o >= 2101) {
                CHECK(test_is_null(&row, c_car), "o_id %d: o_carrier_id \"%.*s\", want \\N", o,
                      row.len[c_car], row.f[c_car]);
                CHECK(shape.carrier[o - 1] == 0, "o_id %d: gen_orders_of carrier %d, want 0", o,
                      shape.carrier[o - 1]);
            } else {
                CHECK(!test_is_null(&row, c_car), "o_id %d: o_carrier_id NULL, want 1..10", o);
                int64_t car = test_int(&row, c_car);
                CHECK(car >= 1 && car <= 10, "o_id %d: o_carrier_id %" PRId64 ", want 1..10", o,
                      car);
                CHECK(car == shape.carrier[o - 1], "o_carrier_id %" PRId64 ", gen_orders_of %d",
                      car, shape.carrier[o - 1]);
                carriers[car]++;
            }
            int64_t cnt = test_int(&row, c_cnt);
            CHECK(cnt >= 5 && cnt <= 15, "o_ol_cnt %" PRId64 ", want 5..15", cnt);
            CHECK(cnt == shape.ol_cnt[o - 1], "o_ol_cnt %" PRId64 ", gen_orders_of %d", cnt,
                  shape.ol_cnt[o - 1]);
            cnts[cnt]++;
            CHECK(test_int(&row, c_local) == 1, "o_all_local %" PRId64 ", want 1",
                  test_int(&row, c_local));
        }
    }
    CHECK(!test_next(&it, &row), "orders: more than 30000 rows");
    for (int k = 1; k <= 10; k++)
        CHECK(carriers[k] > 0, "o_carrier_id %d never drawn", k);
    for (int k = 5; k <= 15; k++)
        CHECK(cnts[k] > 0, "o_ol_cnt %d never drawn", k);
}

/* new_order: exactly o_id 2101..3000 of every district, once each. */
static void test_new_order(void **state)
{
    static char seen[11][3001];
    struct test_iter it;
    struct test_row row;
    int c_o = test_col(T_NEW_ORDER, "no_o_id"), c_d = test_col(T_NEW_ORDER, "no_d_id");
    int c_w = test_col(T_NEW_ORDER, "no_w_id");
    (void)state;

    memset(seen, 0, sizeof(seen));
    test_iter_init(&it, &test_w1[T_NEW_ORDER], T_NEW_ORDER);
    while (test_next(&it, &row)) {
        int64_t o = test_int(&row, c_o), d = test_int(&row, c_d);
        CHECK(o >= 2101 && o <= 3000 && d >= 1 && d <= 10 && test_int(&row, c_w) == 1,
              "(no_o_id, no_d_id, no_w_id) = (%" PRId64 ", %" PRId64 ", %" PRId64
              "), want (2101..3000, 1..10, 1)",
              o, d, test_int(&row, c_w));
        CHECK(!seen[d][o], "new_order (%" PRId64 ", %" PRId64 ") twice", o, d);
        seen[d][o] = 1;
    }
    for (int d = 1; d <= 10; d++)
        for (int o = 2101; o <= 3000; o++)
            CHECK(seen[d][o], "new_order (%d, %d) missing", o, d);
}

/* order_line: the lines of each order in order, as many as its o_ol_cnt;
 * delivered orders (o_id < 2101) have amount 0.00 and a delivery date, the
 * others a random amount and no date. */
static void test_order_line(void **state)
{
    static unsigned char ol_cnt[11][3001];
    struct test_iter it;
    struct test_row row;
    int c_oo = test_col(T_ORDERS, "o_id"), c_od = test_col(T_ORDERS, "o_d_id");
    int c_ocnt = test_col(T_ORDERS, "o_ol_cnt");
    int c_o = test_col(T_ORDER_LINE, "ol_o_id"), c_d = test_col(T_ORDER_LINE, "ol_d_id");
    int c_w = test_col(T_ORDER_LINE, "ol_w_id"), c_n = test_col(T_ORDER_LINE, "ol_number");
    int c_i = test_col(T_ORDER_LINE, "ol_i_id");
    int c_sw = test_col(T_ORDER_LINE, "ol_supply_w_id");
    int c_dd = test_col(T_ORDER_LINE, "ol_delivery_d");
    int c_q = test_col(T_ORDER_LINE, "ol_quantity"), c_a = test_col(T_ORDER_LINE, "ol_amount");
    int c_info = test_col(T_ORDER_LINE, "ol_dist_info");
    int64_t min_amount = INT64_MAX, max_amount = 0;
    (void)state;

    test_iter_init(&it, &test_w1[T_ORDERS], T_ORDERS);
    while (test_next(&it, &row))
        ol_cnt[test_int(&row, c_od)][test_int(&row, c_oo)] = (unsigned char)test_int(&row, c_ocnt);

    test_iter_init(&it, &test_w1[T_ORDER_LINE], T_ORDER_LINE);
    for (int d = 1; d <= 10; d++)
        for (int o = 1; o <= 3000; o++)
            for (int n = 1; n <= ol_cnt[d][o]; n++) {
                CHECK(test_next(&it, &row), "order_line ends before line %d of order (%d, %d)", n,
                      o, d);
                CHECK(test_int(&row, c_o) == o && test_int(&row, c_d) == d &&
                          test_int(&row, c_w) == 1 && test_int(&row, c_n) == n,
                      "(ol_o_id, ol_d_id, ol_w_id, ol_number) = (%" PRId64 ", %" PRId64 ", %" PRId64
                      ", %" PRId64 "), want (%d, %d, 1, %d) of %d lines",
                      test_int(&row, c_o), test_int(&row, c_d), test_int(&row, c_w),
                      test_int(&row, c_n), o, d, n, ol_cnt[d][o]);
                int64_t i = test_int(&row, c_i);
                CHECK(i >= 1 && i <= 100000, "ol_i_id %" PRId64 ", want 1..100000", i);
                CHECK(test_int(&row, c_sw) == 1, "ol_supply_w_id %" PRId64 ", want 1",
                      test_int(&row, c_sw));
                CHECK(test_int(&row, c_q) == 5, "ol_quantity %" PRId64 ", want 5",
                      test_int(&row, c_q));
                CHECK(test_astring_ok(&row, c_info, 24, 24),
                      "ol_dist_info \"%.*s\", want a-string of 24", row.len[c_info], row.f[c_info]);
                int64_t amount = test_scaled(&row, c_a, 2);
                if (o < 2101) {
                    CHECK(amount == 0, "o_id %d: ol_amount %" PRId64 "e-2, want 0.00", o, amount);
                    CHECK(test_is(&row, c_dd, TEST_NOW), "o_id %d: ol_delivery_d \"%.*s\", want %s",
                          o, row.len[c_dd], row.f[c_dd], TEST_NOW);
                } else {
                    CHECK(amount >= 1 && amount <= 999999,
                          "o_id %d: ol_amount %" PRId64 "e-2, want 0.01..9999.99", o, amount);
                    CHECK(test_is_null(&row, c_dd), "o_id %d: ol_delivery_d \"%.*s\", want \\N", o,
                          row.len[c_dd], row.f[c_dd]);
                    min_amount = amount < min_amount ? amount : min_amount;
                    max_amount = amount > max_amount ? amount : max_amount;
                }
            }
    CHECK(!test_next(&it, &row), "order_line has rows after the last order's lines");
    /* About 90000 random amounts over 999999 values: the extremes come
     * within 0.1 % of the ends. */
    CHECK(min_amount < 1000 && max_amount > 999000, "ol_amount seen in %" PRId64 "..%" PRId64 "e-2",
          min_amount, max_amount);
}

/* ---- the sink contract ---- */

/* A put() error stops the table at once and is returned. */
static void test_put_error(void **state)
{
    (void)state;

    for (int t = 0; t < T_NTABLES; t++) {
        struct test_out o = { .fail_rc = -7 };
        struct gen_sink s = { .put = test_put, .arg = &o, .cap = TEST_SINK_CAP };
        int rc;

        s.buf = malloc(TEST_SINK_CAP);
        assert_non_null(s.buf);
        rc = gen_table(&test_ctx, t, 1, &s);
        free(s.buf);
        CHECK(rc == -7 && o.nput == 1,
              "%s: gen_table returned %d after %" PRId64 " calls of put(), want -7 after 1",
              tpcc_table_name(t), rc, o.nput);
    }
}

/* Large tables are flushed in many chunks, each a run of whole rows no
 * larger than the buffer (checked for every table by test_gen_into). */
static void test_chunks(void **state)
{
    (void)state;

    for (int t = 0; t < T_NTABLES; t++) {
        int64_t min_calls = (int64_t)(test_w1[t].len / TEST_SINK_CAP) + 1;
        CHECK(test_w1[t].nput >= min_calls && test_w1[t].nput <= 2 * min_calls + 1,
              "%s: %zu bytes in %" PRId64 " calls of put(), want %" PRId64 "..%" PRId64,
              tpcc_table_name(t), test_w1[t].len, test_w1[t].nput, min_calls, 2 * min_calls + 1);
    }
}

/* ---- reproducibility ---- */

static int test_same(const struct test_out *a, const struct test_out *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* The same context gives byte-identical tables, whatever the order the
 * tables are generated in. */
static void test_same_seed(void **state)
{
    struct gen_ctx g;
    (void)state;

    test_ctx_init(&g, TEST_SEED);
    for (int t = T_NTABLES - 1; t >= 0; t--) {
        struct test_out o = { 0 };
        test_gen_into(&g, t, 1, &o);
        CHECK(test_same(&o, &test_w1[t]),
              "%s: %zu bytes the second time, %zu the first, or "
              "they differ",
              tpcc_table_name(t), o.len, test_w1[t].len);
        test_out_free(&o);
    }
}

/* Another seed gives other rows in every table with random values (all but
 * new_order); another C for c_last gives other customers. */
static void test_other_seed(void **state)
{
    struct gen_ctx g = test_ctx;
    struct test_out o = { 0 };
    (void)state;

    g.seed = TEST_SEED + 1;
    for (int t = 0; t < T_NTABLES; t++) {
        test_gen_into(&g, t, 1, &o);
        if (t == T_NEW_ORDER)
            CHECK(test_same(&o, &test_w1[t]), "new_order depends on the seed");
        else
            CHECK(!test_same(&o, &test_w1[t]), "%s: the same with seeds %" PRIu64 " and %" PRIu64,
                  tpcc_table_name(t), TEST_SEED, TEST_SEED + 1);
        test_out_free(&o);
    }

    g = test_ctx;
    g.c_load.c_last = (g.c_load.c_last + 100) % 256;
    test_gen_into(&g, T_CUSTOMER, 1, &o);
    CHECK(!test_same(&o, &test_w1[T_CUSTOMER]), "customer: the same with c_last C %d and %d",
          test_ctx.c_load.c_last, g.c_load.c_last);
    test_out_free(&o);
}

/* Rows of a and b (same table) that are equal in every column but the
 * warehouse ones, compared line by line; *nrows gets the rows compared. */
static int64_t test_alike_rows(const struct test_out *a, const struct test_out *b, int t,
                               const char *const *wcols, int64_t *nrows)
{
    const char *pa = a->data, *pb = b->data;
    const char *ea = a->data + a->len, *eb = b->data + b->len;
    int skip[TEST_MAXF] = { 0 };
    int64_t alike = 0;

    for (int k = 0; wcols[k]; k++)
        skip[test_col(t, wcols[k])] = 1;
    *nrows = 0;
    while (pa < ea && pb < eb) {
        const char *la = memchr(pa, '\n', (size_t)(ea - pa)),
                   *lb = memchr(pb, '\n', (size_t)(eb - pb));
        int same = 1, f = 0;

        assert_non_null(la);
        assert_non_null(lb);
        while (same) {
            const char *ta = memchr(pa, '\t', (size_t)(la - pa)),
                       *tb = memchr(pb, '\t', (size_t)(lb - pb));
            const char *fa = ta ? ta : la, *fb = tb ? tb : lb;
            if (f >= TEST_MAXF ||
                (!skip[f] && (fa - pa != fb - pb || memcmp(pa, pb, (size_t)(fa - pa)) != 0)))
                same = 0;
            if (!ta || !tb) {
                same = same && !ta && !tb;
                break;
            }
            pa = ta + 1;
            pb = tb + 1;
            f++;
        }
        alike += same;
        (*nrows)++;
        pa = la + 1;
        pb = lb + 1;
    }
    return alike;
}

/* Warehouse 2 is the same alone as after warehouse 1, and item ignores w.
 * Its warehouse columns say 2 and, those aside, its rows are other rows than
 * warehouse 1's (a stream per warehouse), except new_order, which has no
 * random values. */
static void test_warehouse_independent(void **state)
{
    static const char *const wcols[T_NTABLES][3] = {
        [T_WAREHOUSE] = { "w_id", NULL },
        [T_DISTRICT] = { "d_w_id", NULL },
        [T_CUSTOMER] = { "c_w_id", NULL },
        [T_HISTORY] = { "h_c_w_id", "h_w_id", NULL },
        [T_NEW_ORDER] = { "no_w_id", NULL },
        [T_ORDERS] = { "o_w_id", NULL },
        [T_ORDER_LINE] = { "ol_w_id", "ol_supply_w_id", NULL },
        [T_ITEM] = { NULL },
        [T_STOCK] = { "s_w_id", NULL },
    };
    (void)state;

    for (int t = 0; t < T_NTABLES; t++) {
        struct test_out alone = { 0 }, both = { 0 }, after = { 0 };
        struct test_iter it;
        struct test_row row;
        int64_t alike, nrows;

        test_gen_into(&test_ctx, t, 2, &alone);
        test_gen_into(&test_ctx, t, 1, &both);
        size_t w1_len = both.len;
        test_gen_into(&test_ctx, t, 2, &both);
        after.data = both.data + w1_len;
        after.len = both.len - w1_len;
        CHECK(test_same(&alone, &after),
              "%s: warehouse 2 alone (%zu bytes) differs from after warehouse 1 (%zu bytes)",
              tpcc_table_name(t), alone.len, after.len);
        if (t == T_ITEM) {
            CHECK(test_same(&alone, &test_w1[t]), "item depends on the warehouse");
            test_out_free(&alone);
            test_out_free(&both);
            continue;
        }
        for (int k = 0; wcols[t][k]; k++) {
            int c = test_col(t, wcols[t][k]);
            test_iter_init(&it, &alone, t);
            while (test_next(&it, &row))
                CHECK(test_int(&row, c) == 2, "%s: %s %" PRId64 ", want 2", tpcc_table_name(t),
                      wcols[t][k], test_int(&row, c));
        }
        alike = test_alike_rows(&alone, &test_w1[t], t, wcols[t], &nrows);
        if (t == T_NEW_ORDER)
            CHECK(alike == nrows && nrows == 9000,
                  "new_order: %" PRId64 " of %" PRId64 " rows alike in warehouses 1 and 2", alike,
                  nrows);
        else
            CHECK(alike * 100 <= nrows && nrows > 0,
                  "%s: %" PRId64 " of %" PRId64
                  " rows alike in warehouses 1 and 2 (warehouse columns aside), want at most 1 %%",
                  tpcc_table_name(t), alike, nrows);
        test_out_free(&alone);
        test_out_free(&both);
    }
}

/* ---- the binary COPY format ---- */

/* Each table's column types in the binary format: 2 int2, 4 int4, n
 * numeric, s timestamp, t text (schema/postgresql/tables.sql). */
static const char *const test_bin_types[T_NTABLES] = {
    "4ttttttnn", "24ttttttnn4", "424tttttttttstnnnn44t", "42424snt", "424",
    "4244s222",  "424244s2nt",  "44tnt",                 "442tttttttttt444t",
};

static uint32_t test_be(const unsigned char *p, int n)
{
    uint32_t v = 0;

    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* One binary field of type as the text format writes it, appended at *at. */
static void test_bin_field(char type, const unsigned char *p, int32_t len, char *out, size_t *at)
{
    if (type == '2' || type == '4') {
        CHECK(len == (type == '2' ? 2 : 4), "int%c field of %d bytes", type, (int)len);
        int32_t v = type == '2' ? (int16_t)test_be(p, 2) : (int32_t)test_be(p, 4);
        *at += (size_t)snprintf(out + *at, 64, "%d", (int)v);
    } else if (type == 'n') {
        int nd = (int)test_be(p, 2), weight = (int16_t)test_be(p + 2, 2);
        int sign = (int)test_be(p + 4, 2), dscale = (int)test_be(p + 6, 2);
        int64_t scaled = 0, pow10 = 1;
        CHECK(len == 8 + 2 * nd && (sign == 0 || sign == 0x4000) && dscale >= 0 && dscale <= 4,
              "numeric field: %d bytes, %d digits, sign 0x%x, dscale %d", (int)len, nd, sign,
              dscale);
        CHECK(nd == 0 || (test_be(p + 8, 2) != 0 && test_be(p + 8 + 2 * (nd - 1), 2) != 0),
              "numeric field: %d digits with a leading or trailing zero digit", nd);
        for (int i = 0; i < dscale; i++)
            pow10 *= 10;
        for (int i = 0; i < nd; i++) {
            int e = 4 * (weight - i) + dscale; /* the digit's power of ten, x 10^dscale */
            int64_t d = test_be(p + 8 + 2 * i, 2), m = 1;
            for (int k = 0; k < (e < 0 ? -e : e); k++)
                m *= 10;
            CHECK(e >= 0 || d % m == 0, "numeric field: digit %d beyond dscale %d", (int)d,
                  dscale);
            scaled += e >= 0 ? d * m : d / m;
        }
        *at += (size_t)snprintf(out + *at, 64, "%s%" PRId64 ".%0*" PRId64, sign ? "-" : "",
                               scaled / pow10, dscale, scaled % pow10);
    } else if (type == 's') {
        int64_t us = (int64_t)((uint64_t)test_be(p, 4) << 32 | test_be(p + 4, 4));
        int64_t secs = us / 1000000, days = secs / 86400 + 10957, sod = secs % 86400;
        /* civil_from_days (Howard Hinnant's algorithm). */
        int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097;
        int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
        int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
        CHECK(len == 8 && us % 1000000 == 0, "timestamp field: %d bytes, %" PRId64 " us",
              (int)len, us);
        *at += (size_t)snprintf(out + *at, 64, "%04d-%02d-%02d %02d:%02d:%02d",
                               (int)(yoe + era * 400 + (m <= 2)), (int)m, (int)d,
                               (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
    } else {
        memcpy(out + *at, p, (size_t)len);
        *at += (size_t)len;
    }
}

/* Binary output decoded into the text format: header, each row's field
 * count, fields of the table's types, the trailer; returns the text. */
static char *test_bin_to_text(int table, const struct test_out *b, size_t *text_len)
{
    static const char sig[11] = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0' };
    const char *types = test_bin_types[table];
    const unsigned char *p = (const unsigned char *)b->data, *end = p + b->len;
    int nf = (int)strlen(types);
    char *out = malloc(b->len * 2 + 64);
    size_t at = 0;

    assert_non_null(out);
    CHECK(b->len >= 21 && memcmp(p, sig, 11) == 0 && test_be(p + 11, 4) == 0 &&
              test_be(p + 15, 4) == 0,
          "%s: binary output does not open with the PGCOPY header", tpcc_table_name(table));
    for (p += 19; p + 2 <= end && (int16_t)test_be(p, 2) != -1;) {
        CHECK((int)test_be(p, 2) == nf, "%s: a row of %d fields, want %d", tpcc_table_name(table),
              (int)test_be(p, 2), nf);
        p += 2;
        for (int f = 0; f < nf; f++) {
            int32_t len = (int32_t)test_be(p, 4);
            p += 4;
            if (len == -1)
                at += (size_t)snprintf(out + at, 4, "\\N");
            else
                test_bin_field(types[f], p, len, out, &at);
            p += len > 0 ? len : 0;
            out[at++] = f + 1 < nf ? '\t' : '\n';
        }
    }
    CHECK(p + 2 == end, "%s: %td bytes after the rows, want the 2-byte trailer",
          tpcc_table_name(table), end - p);
    *text_len = at;
    return out;
}

/* The binary format holds the text format's rows, field by field. */
static void test_binary_as_text(void **state)
{
    (void)state;

    for (int t = 0; t < T_NTABLES; t++) {
        struct test_out text = { 0 }, bin = { 0 };
        struct gen_sink s = { .put = test_put, .arg = &bin, .cap = TEST_SINK_CAP, .binary = 1 };
        size_t len = 0;
        char *decoded;

        test_gen_into(&test_ctx, t, 1, &text);
        s.buf = malloc(TEST_SINK_CAP);
        assert_non_null(s.buf);
        gen_copy_begin(&s);
        assert_int_equal(gen_table(&test_ctx, t, 1, &s), 0);
        assert_int_equal(gen_copy_end(&s), 0);
        free(s.buf);
        CHECK(s.rows == tpcc_table_rows(t, 1) || t == T_ORDER_LINE,
              "%s: %" PRId64 " binary rows", tpcc_table_name(t), s.rows);
        CHECK(s.bytes == (int64_t)bin.len, "%s: sink counts %" PRId64 " bytes, put() got %zu",
              tpcc_table_name(t), s.bytes, bin.len);
        decoded = test_bin_to_text(t, &bin, &len);
        CHECK(len == text.len && memcmp(decoded, text.data, len) == 0,
              "%s: binary rows decoded (%zu bytes) differ from the text rows (%zu bytes)",
              tpcc_table_name(t), len, text.len);
        free(decoded);
        test_out_free(&text);
        test_out_free(&bin);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_counts), cmocka_unit_test(test_columns),
        cmocka_unit_test(test_warehouse),  cmocka_unit_test(test_district),
        cmocka_unit_test(test_customer),   cmocka_unit_test(test_history),
        cmocka_unit_test(test_item),       cmocka_unit_test(test_stock),
        cmocka_unit_test(test_orders),     cmocka_unit_test(test_new_order),
        cmocka_unit_test(test_order_line), cmocka_unit_test(test_put_error),
        cmocka_unit_test(test_chunks),     cmocka_unit_test(test_same_seed),
        cmocka_unit_test(test_other_seed), cmocka_unit_test(test_warehouse_independent),
        cmocka_unit_test(test_binary_as_text),
    };

    return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
