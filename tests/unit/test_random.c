/*
 * test_random.c - unit tests for the TPC-C random values (src/tpcc/random.c).
 *
 * The generator itself is checked against known answers of the reference
 * xoshiro256** seeded through splitmix64.  Everything else is checked for its
 * range, its edge values and its distribution over a fixed-seed stream, so
 * each run sees the same numbers.  Statistical bounds are honest ones: a
 * binomial count must lie within 5 standard deviations of its mean, and a
 * chi-square statistic below the 5-sigma point of its distribution (the
 * Wilson-Hilferty approximation).  NURand is compared with its exact
 * distribution, enumerated over every pair of inner draws.  Each failure
 * prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit.h"

#include "tpcc/random.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The seed of every stream drawn here (cases add their index). */
#define TEST_SEED UINT64_C(0x5eed0f7063630001)

/* Chi-square of counts[0..n-1] against a uniform distribution. */
static double test_chi2_uniform(const int64_t *counts, int n)
{
    int64_t total = 0;
    double chi2 = 0, want;

    for (int i = 0; i < n; i++)
        total += counts[i];
    want = (double)total / n;
    for (int i = 0; i < n; i++)
        chi2 += ((double)counts[i] - want) * ((double)counts[i] - want) / want;
    return chi2;
}

/* ---- the generator ---- */

/* First outputs of the reference xoshiro256** whose state is the first four
 * outputs of splitmix64 started at the seed (computed independently). */
static void test_rng_known_answers(void **state)
{
    static const struct {
        uint64_t seed;
        uint64_t want[4];
    } cases[] = {
        { 0,
          { UINT64_C(0x99ec5f36cb75f2b4), UINT64_C(0xbf6e1f784956452a),
            UINT64_C(0x1a5f849d4933e6e0), UINT64_C(0x6aa594f1262d2d2c) } },
        { 1,
          { UINT64_C(0xb3f2af6d0fc710c5), UINT64_C(0x853b559647364cea),
            UINT64_C(0x92f89756082a4514), UINT64_C(0x642e1c7bc266a3a7) } },
        { 0xdeadbeef,
          { UINT64_C(0xc5555444a74d7e83), UINT64_C(0x65c30d37b4b16e38),
            UINT64_C(0x54f773200a4efa23), UINT64_C(0x429aed75fb958af7) } },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct rng r;

        rng_init(&r, cases[i].seed);
        /* The state is splitmix64's output; its first value is well known. */
        if (cases[i].seed == 0)
            CHECK(r.s[0] == UINT64_C(0xe220a8397b1dcdaf), "seed 0: s[0] = 0x%016" PRIx64, r.s[0]);
        for (int k = 0; k < 4; k++) {
            uint64_t got = rng_next(&r);
            CHECK(got == cases[i].want[k],
                  "seed 0x%" PRIx64 " output %d: got 0x%016" PRIx64 ", want 0x%016" PRIx64,
                  cases[i].seed, k, got, cases[i].want[k]);
        }
    }
}

/* Streams: the same identifiers give the same stream, any change gives
 * another one (identifiers are ordered, not a set). */
static void test_rng_streams(void **state)
{
    static const uint64_t ids[][4] = {
        { 42, 1, 2, 3 }, { 42, 1, 2, 4 }, { 42, 2, 1, 3 }, { 42, 3, 2, 1 },
        { 43, 1, 2, 3 }, { 42, 0, 0, 0 }, { 42, 1, 0, 0 }, { 42, 0, 1, 0 },
    };
    enum { NIDS = sizeof(ids) / sizeof(ids[0]), NOUT = 8 };
    uint64_t first[NIDS][NOUT];
    (void)state;

    for (int i = 0; i < NIDS; i++) {
        struct rng a, b;

        rng_init_stream(&a, ids[i][0], ids[i][1], ids[i][2], ids[i][3]);
        rng_init_stream(&b, ids[i][0], ids[i][1], ids[i][2], ids[i][3]);
        for (int k = 0; k < NOUT; k++) {
            first[i][k] = rng_next(&a);
            uint64_t again = rng_next(&b);
            CHECK(first[i][k] == again, "stream %d output %d: 0x%016" PRIx64 " then 0x%016" PRIx64,
                  i, k, first[i][k], again);
        }
    }
    for (int i = 0; i < NIDS; i++)
        for (int j = i + 1; j < NIDS; j++)
            CHECK(memcmp(first[i], first[j], sizeof(first[i])) != 0,
                  "streams (%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ") and (%" PRIu64
                  ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ") start alike",
                  ids[i][0], ids[i][1], ids[i][2], ids[i][3], ids[j][0], ids[j][1], ids[j][2],
                  ids[j][3]);
}

/* rng_range on small ranges: never outside, both ends hit, and the counts of
 * the values pass a chi-square test for uniformity. */
static void test_rng_range_small(void **state)
{
    static const struct {
        int64_t lo, hi;
    } cases[] = {
        { 0, 0 }, { 0, 1 }, { 1, 10 }, { -5, 5 }, { -3, -1 }, { 100, 199 }, { 1, 255 },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t lo = cases[i].lo, hi = cases[i].hi;
        int n = (int)(hi - lo + 1);
        int64_t draws = 2000 * (int64_t)n;
        int64_t *counts = calloc((size_t)n, sizeof(*counts));
        struct rng r;

        assert_non_null(counts);
        rng_init(&r, TEST_SEED + i);
        for (int64_t k = 0; k < draws; k++) {
            int64_t v = rng_range(&r, lo, hi);
            CHECK(v >= lo && v <= hi, "rng_range(%" PRId64 ", %" PRId64 ") gave %" PRId64, lo, hi,
                  v);
            counts[v - lo]++;
        }
        CHECK(counts[0] > 0 && counts[n - 1] > 0,
              "rng_range(%" PRId64 ", %" PRId64 "): low end %" PRId64 " times, high end %" PRId64
              " times in %" PRId64 " draws",
              lo, hi, counts[0], counts[n - 1], draws);
        if (n > 1) {
            double chi2 = test_chi2_uniform(counts, n), bound = unit_chi2_bound(n - 1);
            CHECK(chi2 < bound, "rng_range(%" PRId64 ", %" PRId64 "): chi-square %.1f, bound %.1f",
                  lo, hi, chi2, bound);
        }
        free(counts);
    }
}

/* rng_range on ranges up to the full 64 bits: never outside, and the draws
 * spread over the range (both halves of it are seen). */
static void test_rng_range_wide(void **state)
{
    static const struct {
        int64_t lo, hi;
    } cases[] = {
        { INT64_MIN, INT64_MAX },
        { INT64_MIN, 0 },
        { -1, INT64_MAX },
        { INT64_MIN, INT64_MIN + 1 },
        { INT64_MAX - 1, INT64_MAX },
        { 0, UINT32_MAX },
        { -(INT64_C(1) << 62), INT64_C(3) << 61 },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t lo = cases[i].lo, hi = cases[i].hi;
        /* The midpoint, computed without overflow. */
        int64_t mid = (int64_t)((uint64_t)lo + ((uint64_t)hi - (uint64_t)lo) / 2);
        int64_t nlow = 0, nhigh = 0, draws = 10000;
        struct rng r;

        rng_init(&r, TEST_SEED + i);
        for (int64_t k = 0; k < draws; k++) {
            int64_t v = rng_range(&r, lo, hi);
            CHECK(v >= lo && v <= hi, "rng_range(%" PRId64 ", %" PRId64 ") gave %" PRId64, lo, hi,
                  v);
            if (v <= mid)
                nlow++;
            else
                nhigh++;
        }
        unit_check_binomial("draws in the low half of a wide range", nlow, draws, 0.5);
        CHECK(nlow + nhigh == draws, "%" PRId64 " + %" PRId64 " != %" PRId64, nlow, nhigh, draws);
    }
}

/* The full 64-bit range is one raw draw of the generator. */
static void test_rng_range_full_is_raw(void **state)
{
    struct rng a, b;
    (void)state;

    rng_init(&a, TEST_SEED);
    rng_init(&b, TEST_SEED);
    for (int k = 0; k < 100; k++) {
        int64_t got = rng_range(&a, INT64_MIN, INT64_MAX);
        uint64_t raw = rng_next(&b);
        CHECK((uint64_t)got == raw, "draw %d: rng_range 0x%016" PRIx64 ", rng_next 0x%016" PRIx64,
              k, (uint64_t)got, raw);
    }
}

/* rng_unit lies in [0, 1) and its mean is 1/2 within 5 sigma. */
static void test_rng_unit(void **state)
{
    enum { DRAWS = 1000000 };
    struct rng r;
    double sum = 0, lo = 1, hi = 0;
    (void)state;

    rng_init(&r, TEST_SEED);
    for (int k = 0; k < DRAWS; k++) {
        double u = rng_unit(&r);
        CHECK(u >= 0.0 && u < 1.0, "rng_unit gave %.17g", u);
        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    /* The variance of U(0,1) is 1/12. */
    double mean = sum / DRAWS, slack = UNIT_SIGMAS * sqrt(1.0 / 12.0 / DRAWS);
    CHECK(fabs(mean - 0.5) <= slack, "mean %.6f, want 0.5 +- %.6f", mean, slack);
    CHECK(lo < 1e-4 && hi > 1 - 1e-4, "min %.6g, max %.6g over %d draws", lo, hi, DRAWS);
}

/* ---- NURand ---- */

/* Exact probabilities (as counts out of (a+1)(y-x+1) pairs) of every value
 * of NURand(a, x, y) with constant c, by enumerating both inner draws. */
static int64_t *test_nurand_exact(int a, int64_t x, int64_t y, int c)
{
    int64_t n = y - x + 1;
    int64_t *want = calloc((size_t)n, sizeof(*want));

    assert_non_null(want);
    for (int64_t r1 = 0; r1 <= a; r1++)
        for (int64_t r2 = x; r2 <= y; r2++)
            want[((r1 | r2) + c) % n]++;
    return want;
}

/* Chi-square of observed counts against exact expected pair counts; values
 * expected fewer than 5 times are pooled into one cell.  Returns the
 * statistic and sets *dof. */
static double test_chi2_exact(const int64_t *got, const int64_t *pairs, int64_t n, int64_t npairs,
                              int64_t draws, int *dof)
{
    double chi2 = 0, pool_want = 0, pool_got = 0;
    int cells = 0;

    for (int64_t v = 0; v < n; v++) {
        double want = (double)draws * (double)pairs[v] / (double)npairs;
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

/* NURand stays in [x, y], follows its exact distribution where that is cheap
 * to enumerate, and is far from uniform.  The concentration is measured as the
 * most frequent value's count over the uniform mean count.  For A = 2^k - 1,
 * r1 | r2 = v with the low k bits of v all set happens for 3^k of the
 * (A+1)(y-x+1) pairs (r2 with the high bits of v, and each low bit set by r1,
 * r2 or both; one fewer when r2 = 0 is out of range).  Those are the most
 * likely values, with probability 3^k / (2^k (y-x+1)) against 1 / (y-x+1)
 * for a uniform draw: the ratio is (3/2)^k = 25.6 for A = 255, 57.7 for
 * A = 1023, 194.6 for A = 8191.  Over 1e6 draws the peak counts are about
 * 25600, 19200 and 1950, so a few sigma of noise (and the maximum over 3, 2
 * and 12 equal peaks) stays well inside the bounds below. */
static void test_nurand(void **state)
{
    static const struct {
        int a;
        int64_t x, y;
        int c;
        int exact;        /* compare with the enumerated distribution */
        double min_ratio; /* max count / uniform mean count, at least */
        double max_ratio; /* and at most */
    } cases[] = {
        /* c_last: 3^8/2^8 = 25.6 */
        { 255, 0, 999, 0, 1, 22, 29 },
        { 255, 0, 999, 173, 1, 22, 29 },
        /* c_id: 3^10/2^10 = 57.7 */
        { 1023, 1, 3000, 0, 1, 50, 65 },
        { 1023, 1, 3000, 987, 1, 50, 65 },
        /* ol_i_id: 3^13/2^13 = 194.6 (max count ~1946 of 1e6, 10 per value if uniform) */
        { 8191, 1, 100000, 4321, 0, 170, 220 },
    };
    enum { DRAWS = 1000000 };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int a = cases[i].a, c = cases[i].c;
        int64_t x = cases[i].x, y = cases[i].y, n = y - x + 1;
        int64_t *got = calloc((size_t)n, sizeof(*got));
        int64_t max = 0, argmax = 0;
        struct rng r;

        assert_non_null(got);
        rng_init(&r, TEST_SEED + i);
        for (int k = 0; k < DRAWS; k++) {
            int64_t v = nurand(&r, a, x, y, c);
            CHECK(v >= x && v <= y, "NURand(%d, %" PRId64 ", %" PRId64 ") with C=%d gave %" PRId64,
                  a, x, y, c, v);
            got[v - x]++;
        }
        for (int64_t v = 0; v < n; v++)
            if (got[v] > max) {
                max = got[v];
                argmax = v + x;
            }

        double ratio = (double)max / ((double)DRAWS / (double)n);
        CHECK(ratio >= cases[i].min_ratio && ratio <= cases[i].max_ratio,
              "NURand(%d, %" PRId64 ", %" PRId64 "): value %" PRId64 " drawn %" PRId64
              " times, %.1f x the uniform mean, want %.0f..%.0f",
              a, x, y, argmax, max, ratio, cases[i].min_ratio, cases[i].max_ratio);
        /* The peak is at an r1 | r2 whose low k bits are all set, moved by
         * C and wrapped into [x, y]. */
        int64_t u = ((argmax - x - c) % n + n) % n;
        CHECK((u & a) == a || ((u + n) & a) == a,
              "NURand(%d, %" PRId64 ", %" PRId64 ") C=%d: peak at %" PRId64 " (r1 | r2 = %" PRId64
              "), want the low bits of r1 | r2 all set",
              a, x, y, c, argmax, u);

        double chi2u = test_chi2_uniform(got, (int)n), boundu = unit_chi2_bound((int)n - 1);
        CHECK(chi2u > 100 * boundu,
              "NURand(%d, %" PRId64 ", %" PRId64 "): chi-square against uniform %.0f, want far "
              "above the uniform bound %.0f",
              a, x, y, chi2u, boundu);

        if (cases[i].exact) {
            int64_t *pairs = test_nurand_exact(a, x, y, c);
            int dof;
            double chi2 = test_chi2_exact(got, pairs, n, (int64_t)(a + 1) * n, DRAWS, &dof);
            double bound = unit_chi2_bound(dof);
            CHECK(chi2 < bound,
                  "NURand(%d, %" PRId64 ", %" PRId64 ") C=%d: chi-square against the exact "
                  "distribution %.1f with %d dof, bound %.1f",
                  a, x, y, c, chi2, dof, bound);
            free(pairs);
        }
        free(got);
    }
}

/* The load-time constants lie in 0..A and reach both ends. */
static void test_nurand_c_load(void **state)
{
    enum { DRAWS = 200000 };
    struct rng r;
    int min[3] = { 1 << 20, 1 << 20, 1 << 20 }, max[3] = { -1, -1, -1 };
    static const int a[3] = { 255, 1023, 8191 };
    (void)state;

    rng_init(&r, TEST_SEED);
    for (int k = 0; k < DRAWS; k++) {
        struct nurand_c c;
        nurand_c_load(&r, &c);
        int v[3] = { c.c_last, c.c_id, c.ol_i_id };
        for (int f = 0; f < 3; f++) {
            CHECK(v[f] >= 0 && v[f] <= a[f], "field %d: C = %d outside 0..%d", f, v[f], a[f]);
            min[f] = v[f] < min[f] ? v[f] : min[f];
            max[f] = v[f] > max[f] ? v[f] : max[f];
        }
    }
    for (int f = 0; f < 3; f++)
        CHECK(min[f] == 0 && max[f] == a[f], "field %d: C seen in %d..%d, want 0..%d", f, min[f],
              max[f], a[f]);
}

/* |C_run - C_load| must be in 65..119 and not 96 or 112 (2.1.6.1), either way. */
static void test_nurand_c_last_ok(void **state)
{
    static const struct {
        int delta;
        int ok;
    } cases[] = {
        { 0, 0 },   { 1, 0 },   { 64, 0 },  { 65, 1 },  { 66, 1 },  { 95, 1 },
        { 96, 0 },  { 97, 1 },  { 111, 1 }, { 112, 0 }, { 113, 1 }, { 118, 1 },
        { 119, 1 }, { 120, 0 }, { 200, 0 }, { 255, 0 },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int d = cases[i].delta;
        /* Bases that keep both constants in 0..255. */
        int bases[3] = { 0, (255 - d) / 2, 255 - d };
        for (int b = 0; b < 3; b++) {
            int lo = bases[b], hi = bases[b] + d;
            int up = nurand_c_last_ok(lo, hi), down = nurand_c_last_ok(hi, lo);
            CHECK(up == cases[i].ok, "nurand_c_last_ok(%d, %d) = %d, want %d (delta %d)", lo, hi,
                  up, cases[i].ok, d);
            CHECK(down == cases[i].ok, "nurand_c_last_ok(%d, %d) = %d, want %d (delta -%d)", hi, lo,
                  down, cases[i].ok, d);
        }
    }
}

/* For every load-time c_last the run-time one is valid, and the other
 * run-time constants lie in 0..A. */
static void test_nurand_c_run_all(void **state)
{
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED);
    for (int load_c = 0; load_c <= 255; load_c++) {
        struct nurand_c load = { load_c, 500, 4000 }, run;
        for (int k = 0; k < 20; k++) {
            nurand_c_run(&r, &load, &run);
            CHECK(run.c_last >= 0 && run.c_last <= 255 && nurand_c_last_ok(load_c, run.c_last),
                  "c_load %d: c_run %d (delta %d)", load_c, run.c_last, run.c_last - load_c);
            CHECK(run.c_id >= 0 && run.c_id <= 1023, "c_load %d: run c_id %d", load_c, run.c_id);
            CHECK(run.ol_i_id >= 0 && run.ol_i_id <= 8191, "c_load %d: run ol_i_id %d", load_c,
                  run.ol_i_id);
        }
    }
}

/* The run-time c_last is uniform over the valid values: every valid one is
 * drawn, equally often within the chi-square bound. */
static void test_nurand_c_run_uniform(void **state)
{
    static const struct {
        int load;
        int nvalid; /* 53 on a side that fits all 55 deltas less 96 and 112 */
    } cases[] = { { 0, 53 }, { 128, 106 }, { 255, 53 }, { 100, 88 }, { 150, 93 } };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t counts[256] = { 0 }, valid[106];
        int nvalid = 0, draws = 1000 * cases[i].nvalid;
        struct nurand_c load = { cases[i].load, 0, 0 }, run;
        struct rng r;

        rng_init(&r, TEST_SEED + i);
        for (int k = 0; k < draws; k++) {
            nurand_c_run(&r, &load, &run);
            counts[run.c_last]++;
        }
        for (int v = 0; v < 256; v++) {
            int d = abs(v - cases[i].load);
            int ok = d >= 65 && d <= 119 && d != 96 && d != 112;
            if (ok) {
                CHECK(nvalid < 106, "c_load %d: more than 106 valid values", cases[i].load);
                valid[nvalid++] = counts[v];
                CHECK(counts[v] > 0, "c_load %d: valid c_run %d never drawn", cases[i].load, v);
            } else {
                CHECK(counts[v] == 0, "c_load %d: invalid c_run %d drawn %" PRId64 " times",
                      cases[i].load, v, counts[v]);
            }
        }
        CHECK(nvalid == cases[i].nvalid, "c_load %d: %d valid values, want %d", cases[i].load,
              nvalid, cases[i].nvalid);
        double chi2 = test_chi2_uniform(valid, nvalid), bound = unit_chi2_bound(nvalid - 1);
        CHECK(chi2 < bound, "c_load %d: chi-square %.1f, bound %.1f", cases[i].load, chi2, bound);
    }
}

/* ---- strings ---- */

/* Last names, computed by hand from BAR OUGHT ABLE PRI PRES ESE ANTI CALLY
 * ATION EING (digits 0..9). */
static void test_lastname(void **state)
{
    static const struct {
        int num;
        const char *want;
    } cases[] = {
        { 0, "BARBARBAR" },         { 371, "PRICALLYOUGHT" },   { 999, "EINGEINGEING" },
        { 123, "OUGHTABLEPRI" },    { 456, "PRESESEANTI" },     { 789, "CALLYATIONEING" },
        { 50, "BARESEBAR" },        { 908, "EINGBARATION" },    { 605, "ANTIBARESE" },
        { 214, "ABLEOUGHTPRES" },   { 1, "BARBAROUGHT" },       { 10, "BAROUGHTBAR" },
        { 100, "OUGHTBARBAR" },     { 777, "CALLYCALLYCALLY" }, /* 15 letters, the longest */
        { 888, "ATIONATIONATION" },                             /* 15 */
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[32];
        memset(buf, '#', sizeof(buf));
        int n = tpcc_lastname(cases[i].num, buf);
        CHECK(strcmp(buf, cases[i].want) == 0, "lastname(%d) = \"%s\", want \"%s\"", cases[i].num,
              buf, cases[i].want);
        CHECK(n == (int)strlen(cases[i].want), "lastname(%d) returned %d, want %zu", cases[i].num,
              n, strlen(cases[i].want));
    }
}

/* Every number 0..999 gives a NUL-terminated name of 9..15 letters, the
 * length returned, nothing written past the 16 bytes promised, and the 1000
 * names are distinct. */
static void test_lastname_all(void **state)
{
    static char names[1000][16];
    (void)state;

    for (int num = 0; num < 1000; num++) {
        char buf[24];
        memset(buf, '#', sizeof(buf));
        int n = tpcc_lastname(num, buf);
        CHECK(n >= 9 && n <= 15, "lastname(%d): length %d", num, n);
        CHECK(buf[n] == '\0' && n == (int)strlen(buf), "lastname(%d): returned %d, strlen %zu", num,
              n, strnlen(buf, sizeof(buf)));
        for (int k = 16; k < (int)sizeof(buf); k++)
            CHECK(buf[k] == '#', "lastname(%d) wrote byte %d", num, k);
        for (int k = 0; k < n; k++)
            CHECK(buf[k] >= 'A' && buf[k] <= 'Z', "lastname(%d) = \"%s\"", num, buf);
        memcpy(names[num], buf, (size_t)n + 1);
    }
    for (int i = 0; i < 1000; i++)
        for (int j = i + 1; j < 1000; j++)
            CHECK(strcmp(names[i], names[j]) != 0, "lastname(%d) = lastname(%d) = \"%s\"", i, j,
                  names[i]);
}

/* The a-string alphabet: letters, digits, '-' and '_' (64 symbols, so one
 * draw gives ten characters without bias).  TPC-C 4.3.2.2 requires at least
 * the letters and digits; none of these needs escaping in COPY text. */
static int test_in_astring_set(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '_';
}

static int test_in_nstring_set(char ch)
{
    return ch >= '0' && ch <= '9';
}

typedef int (*test_string_fn)(struct rng *r, char *buf, int lo, int hi);
typedef int (*test_charset_fn)(char ch);

/* a-strings and n-strings: every length in [lo, hi] drawn, uniformly (chi-
 * square), none outside; every byte from the alphabet, every symbol of it
 * drawn, uniformly; nothing written past the returned length. */
static void test_strings(void **state)
{
    static const struct {
        const char *name;
        test_string_fn fn;
        test_charset_fn in_set;
        int nsymbols;
        int lo, hi;
    } cases[] = {
        { "a-string", rand_astring, test_in_astring_set, 64, 8, 16 },
        { "a-string", rand_astring, test_in_astring_set, 64, 300, 500 },
        { "a-string", rand_astring, test_in_astring_set, 64, 24, 24 },
        { "a-string", rand_astring, test_in_astring_set, 64, 0, 3 },
        { "a-string", rand_astring, test_in_astring_set, 64, 1, 11 },
        { "n-string", rand_nstring, test_in_nstring_set, 10, 16, 16 },
        { "n-string", rand_nstring, test_in_nstring_set, 10, 4, 4 },
        { "n-string", rand_nstring, test_in_nstring_set, 10, 1, 9 },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int lo = cases[i].lo, hi = cases[i].hi, nlen = hi - lo + 1;
        int draws = nlen * 400 > 20000 ? nlen * 400 : 20000;
        int64_t *lens = calloc((size_t)nlen, sizeof(*lens));
        int64_t chars[256] = { 0 }, sym[64];
        char buf[600];
        struct rng r;
        int nsym = 0;

        assert_non_null(lens);
        rng_init(&r, TEST_SEED + i);
        for (int k = 0; k < draws; k++) {
            memset(buf, '\t', sizeof(buf));
            int n = cases[i].fn(&r, buf, lo, hi);
            CHECK(n >= lo && n <= hi, "%s [%d, %d]: length %d", cases[i].name, lo, hi, n);
            lens[n - lo]++;
            for (int j = 0; j < n; j++) {
                CHECK(cases[i].in_set(buf[j]), "%s [%d, %d]: byte %d is 0x%02x", cases[i].name, lo,
                      hi, j, (unsigned char)buf[j]);
                chars[(unsigned char)buf[j]]++;
            }
            for (int j = n; j < (int)sizeof(buf); j++)
                CHECK(buf[j] == '\t', "%s [%d, %d]: length %d but byte %d written", cases[i].name,
                      lo, hi, n, j);
        }
        for (int l = 0; l < nlen; l++)
            CHECK(lens[l] > 0, "%s [%d, %d]: length %d never drawn in %d", cases[i].name, lo, hi,
                  lo + l, draws);
        if (nlen > 1) {
            double chi2 = test_chi2_uniform(lens, nlen), bound = unit_chi2_bound(nlen - 1);
            CHECK(chi2 < bound, "%s [%d, %d]: lengths chi-square %.1f, bound %.1f", cases[i].name,
                  lo, hi, chi2, bound);
        }
        for (int ch = 0; ch < 256; ch++)
            if (cases[i].in_set((char)ch)) {
                CHECK(chars[ch] > 0, "%s [%d, %d]: '%c' never drawn", cases[i].name, lo, hi, ch);
                sym[nsym++] = chars[ch];
            }
        CHECK(nsym == cases[i].nsymbols, "%s: %d symbols, want %d", cases[i].name, nsym,
              cases[i].nsymbols);
        double chi2 = test_chi2_uniform(sym, nsym), bound = unit_chi2_bound(nsym - 1);
        CHECK(chi2 < bound, "%s [%d, %d]: characters chi-square %.1f, bound %.1f", cases[i].name,
              lo, hi, chi2, bound);
        free(lens);
    }
}

/* Find "ORIGINAL" in buf[0..n-1]; -1 when absent. */
static int test_find_original(const char *buf, int n)
{
    for (int k = 0; k + 8 <= n; k++)
        if (memcmp(buf + k, "ORIGINAL", 8) == 0)
            return k;
    return -1;
}

/* rand_data_original: a-string of [lo, hi]; "ORIGINAL" in 10 % of them
 * (binomial, 5 sigma), anywhere from the first byte to the last eight. */
static void test_data_original(void **state)
{
    enum { DRAWS = 200000 };
    static const struct {
        int lo, hi;
    } cases[] = { { 26, 50 }, { 8, 8 }, { 10, 12 } };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int lo = cases[i].lo, hi = cases[i].hi;
        int64_t lens[64] = { 0 }, noriginal = 0;
        int at_start = 0, at_end = 0;
        char buf[64];
        struct rng r;

        rng_init(&r, TEST_SEED + i);
        for (int k = 0; k < DRAWS; k++) {
            memset(buf, '\t', sizeof(buf));
            int n = rand_data_original(&r, buf, lo, hi);
            CHECK(n >= lo && n <= hi, "data [%d, %d]: length %d", lo, hi, n);
            lens[n - lo]++;
            for (int j = 0; j < n; j++)
                CHECK(test_in_astring_set(buf[j]), "data [%d, %d]: byte %d is 0x%02x", lo, hi, j,
                      (unsigned char)buf[j]);
            CHECK(buf[n] == '\t', "data [%d, %d]: byte %d past the length written", lo, hi, n);
            int pos = test_find_original(buf, n);
            if (pos >= 0) {
                noriginal++;
                at_start += pos == 0;
                at_end += pos == n - 8;
            }
        }
        unit_check_binomial("strings with ORIGINAL", noriginal, DRAWS, 0.10);
        CHECK(at_start > 0 && at_end > 0, "data [%d, %d]: ORIGINAL at the start %d, end %d times",
              lo, hi, at_start, at_end);
        for (int l = 0; l <= hi - lo; l++)
            CHECK(lens[l] > 0, "data [%d, %d]: length %d never drawn", lo, hi, lo + l);
    }
}

/* Zip: four random digits then "11111", 9 bytes and no more. */
static void test_zip(void **state)
{
    int seen[4][10] = { { 0 } };
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED);
    for (int k = 0; k < 10000; k++) {
        char buf[16];
        memset(buf, '#', sizeof(buf));
        rand_zip(&r, buf);
        CHECK(memcmp(buf + 4, "11111", 5) == 0 && buf[9] == '#', "zip \"%.10s\"", buf);
        for (int j = 0; j < 4; j++) {
            CHECK(buf[j] >= '0' && buf[j] <= '9', "zip \"%.9s\": byte %d", buf, j);
            seen[j][buf[j] - '0']++;
        }
    }
    for (int j = 0; j < 4; j++)
        for (int d = 0; d < 10; d++)
            CHECK(seen[j][d] > 0, "zip digit %d never %d", j, d);
}

/* ---- permutations ---- */

static int test_is_permutation(const int *perm, int n)
{
    char *seen = calloc((size_t)n + 1, 1);
    int ok = 1;

    assert_non_null(seen);
    for (int i = 0; i < n && ok; i++) {
        if (perm[i] < 1 || perm[i] > n || seen[perm[i]]) {
            print_error("perm[%d] = %d: outside 1..%d or repeated\n", i, perm[i], n);
            ok = 0;
        } else {
            seen[perm[i]] = 1;
        }
    }
    free(seen);
    return ok;
}

/* A permutation of 1..n for the sizes used; two seeds give different orders,
 * the same seed the same one. */
static void test_permutation(void **state)
{
    static const int sizes[] = { 1, 2, 10, 3000 };
    static int a[3000], b[3000], c[3000];
    (void)state;

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        int n = sizes[i];
        struct rng r;

        rng_init(&r, TEST_SEED);
        rand_permutation(&r, a, n);
        CHECK(test_is_permutation(a, n), "n = %d: not a permutation of 1..n", n);
    }

    struct rng r1, r2, r3;
    int same12 = 0, same13 = 0, fixed = 0;
    rng_init(&r1, 1);
    rng_init(&r2, 2);
    rng_init(&r3, 1);
    rand_permutation(&r1, a, 3000);
    rand_permutation(&r2, b, 3000);
    rand_permutation(&r3, c, 3000);
    CHECK(test_is_permutation(b, 3000), "seed 2: not a permutation of 1..3000");
    for (int i = 0; i < 3000; i++) {
        same12 += a[i] == b[i];
        same13 += a[i] == c[i];
        fixed += a[i] == i + 1;
    }
    /* Two independent permutations agree in about one place (Poisson(1)). */
    CHECK(same12 < 10, "seeds 1 and 2 agree in %d of 3000 places", same12);
    CHECK(same13 == 3000, "seed 1 twice agrees in %d of 3000 places", same13);
    CHECK(fixed < 10, "seed 1 leaves %d of 3000 values in place", fixed);
}

/* All n! orders of a small n are drawn, equally often (chi-square): a
 * Fisher-Yates off by one (e.g. Sattolo's cycles) would still give
 * permutations but miss some orders. */
static void test_permutation_uniform(void **state)
{
    enum { N = 5, NPERM = 120, DRAWS = NPERM * 1000 };
    int64_t counts[NPERM] = { 0 };
    struct rng r;
    (void)state;

    rng_init(&r, TEST_SEED);
    for (int k = 0; k < DRAWS; k++) {
        int perm[N], rank = 0;
        rand_permutation(&r, perm, N);
        /* Lehmer code: rank in 0..n!-1. */
        for (int i = 0; i < N; i++) {
            int smaller = 0;
            for (int j = i + 1; j < N; j++)
                smaller += perm[j] < perm[i];
            rank = rank * (N - i) + smaller;
        }
        CHECK(rank >= 0 && rank < NPERM, "rank %d", rank);
        counts[rank]++;
    }
    for (int p = 0; p < NPERM; p++)
        CHECK(counts[p] > 0, "order with rank %d never drawn in %d", p, DRAWS);
    double chi2 = test_chi2_uniform(counts, NPERM), bound = unit_chi2_bound(NPERM - 1);
    CHECK(chi2 < bound, "orders of 5: chi-square %.1f, bound %.1f", chi2, bound);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_known_answers),
        cmocka_unit_test(test_rng_streams),
        cmocka_unit_test(test_rng_range_small),
        cmocka_unit_test(test_rng_range_wide),
        cmocka_unit_test(test_rng_range_full_is_raw),
        cmocka_unit_test(test_rng_unit),
        cmocka_unit_test(test_nurand),
        cmocka_unit_test(test_nurand_c_load),
        cmocka_unit_test(test_nurand_c_last_ok),
        cmocka_unit_test(test_nurand_c_run_all),
        cmocka_unit_test(test_nurand_c_run_uniform),
        cmocka_unit_test(test_lastname),
        cmocka_unit_test(test_lastname_all),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_data_original),
        cmocka_unit_test(test_zip),
        cmocka_unit_test(test_permutation),
        cmocka_unit_test(test_permutation_uniform),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
