/*
 * test_hist.c - unit tests for the latency histogram (src/run/hist.c).
 *
 * Bucket maths are checked against their invariants (every value lies inside
 * its bucket, buckets are contiguous, no bucket is wider than 1/128 of its
 * low bound).  Percentiles are checked against the exact nearest-rank value
 * of the same samples, sorted, for uniform, exponential and spiky latencies
 * drawn from a seeded PRNG, so every run sees the same numbers.  Merge and
 * snapshot deltas are checked bucket by bucket against a histogram built
 * directly from the expected samples.  Each failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/hist.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The documented percentile error bound (half a bucket of relative width
 * 1/128) and the required one. */
#define TEST_HIST_PCT_BOUND (1.0 / 256.0)
#define TEST_HIST_REQUIRED  0.01

/* Sample counts per distribution. */
#define TEST_N_SAMPLES 200000

/* Percentiles checked, in tenths of a percent, so the exact rank can be
 * computed in integers independently of hist.c's floating point. */
static const unsigned test_pct_tenths[] = { 500, 900, 950, 990, 995, 999 };

/* splitmix64: a small seeded PRNG, good enough to draw test latencies. */
struct test_rng {
    uint64_t state; /* advanced by a fixed odd constant per draw */
};

static uint64_t test_rng_next(struct test_rng *r)
{
    uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1) from the top 53 bits. */
static double test_rng_unit(struct test_rng *r)
{
    return (double)(test_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in lo .. hi (the modulo bias is far below what matters). */
static uint64_t test_rng_between(struct test_rng *r, uint64_t lo, uint64_t hi)
{
    return lo + test_rng_next(r) % (hi - lo + 1);
}

/* Exponentially distributed latency with the given mean, rounded to 1 us. */
static uint64_t test_rng_exp_us(struct test_rng *r, double mean_us)
{
    return (uint64_t)llround(-mean_us * log(1.0 - test_rng_unit(r)));
}

static int test_cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

    return (a > b) - (a < b);
}

static double test_rel_err(uint64_t got, uint64_t want)
{
    double diff = got > want ? (double)(got - want) : (double)(want - got);

    if (want == 0)
        return got == 0 ? 0.0 : INFINITY;
    return diff / (double)want;
}

/* Fail, printing both sides, unless got == want. */
static void test_expect_u64(const char *what, uint64_t got, uint64_t want)
{
    if (got == want)
        return;
    print_error("%s: got %" PRIu64 ", want %" PRIu64 "\n", what, got, want);
    fail();
}

/* Fail, printing both sides, unless got is within bound (relative) of want. */
static void test_expect_near(const char *what, uint64_t got, uint64_t want, double bound)
{
    double err = test_rel_err(got, want);

    if (err <= bound)
        return;
    print_error("%s: got %" PRIu64 ", want %" PRIu64 " (error %.4f %% > %.4f %%)\n", what, got,
                want, 100.0 * err, 100.0 * bound);
    fail();
}

/* Fail unless got and want are the same histogram, field by field. */
static void test_expect_same_hist(const char *what, const struct hist *got, const struct hist *want)
{
    char label[128];
    int b;

    snprintf(label, sizeof(label), "%s: n_samples", what);
    test_expect_u64(label, got->n_samples, want->n_samples);
    snprintf(label, sizeof(label), "%s: n_overflow", what);
    test_expect_u64(label, got->n_overflow, want->n_overflow);
    snprintf(label, sizeof(label), "%s: sum_us", what);
    test_expect_u64(label, got->sum_us, want->sum_us);
    snprintf(label, sizeof(label), "%s: min_us", what);
    test_expect_u64(label, got->min_us, want->min_us);
    snprintf(label, sizeof(label), "%s: max_us", what);
    test_expect_u64(label, got->max_us, want->max_us);
    for (b = 0; b < HIST_N_BUCKETS; b++) {
        if (got->counts[b] == want->counts[b])
            continue;
        snprintf(label, sizeof(label), "%s: counts[%d] (%" PRIu64 " .. %" PRIu64 " us)", what, b,
                 hist_bucket_low(b), hist_bucket_high(b));
        test_expect_u64(label, got->counts[b], want->counts[b]);
    }
}

/* Record samples into h, then sort them in place; returns the exact sum. */
static uint64_t test_record_and_sort(struct hist *h, uint64_t *samples, size_t n)
{
    uint64_t sum_us = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        hist_record(h, samples[i]);
        sum_us += samples[i];
    }
    qsort(samples, n, sizeof(samples[0]), test_cmp_u64);
    return sum_us;
}

/*
 * Check h, built from the n sorted samples, against them: count, exact sum,
 * min, max and mean, and every percentile in test_pct_tenths within the
 * documented bound of the exact nearest-rank value.  Returns the largest
 * relative error seen.
 */
static double test_check_percentiles(const char *name, const struct hist *h, const uint64_t *sorted,
                                     size_t n, uint64_t sum_us)
{
    char label[128];
    double max_err = 0.0, mean_want = (double)sum_us / (double)n;
    size_t i;

    snprintf(label, sizeof(label), "%s: n_samples", name);
    test_expect_u64(label, h->n_samples, n);
    snprintf(label, sizeof(label), "%s: sum_us", name);
    test_expect_u64(label, h->sum_us, sum_us);
    snprintf(label, sizeof(label), "%s: p0 (exact min)", name);
    test_expect_u64(label, hist_percentile(h, 0.0), sorted[0]);
    snprintf(label, sizeof(label), "%s: p100 (exact max)", name);
    test_expect_u64(label, hist_percentile(h, 100.0), sorted[n - 1]);
    if (fabs(hist_mean(h) - mean_want) > 1e-9 * mean_want) {
        print_error("%s: mean: got %.6f, want %.6f\n", name, hist_mean(h), mean_want);
        fail();
    }

    for (i = 0; i < sizeof(test_pct_tenths) / sizeof(test_pct_tenths[0]); i++) {
        unsigned tenths = test_pct_tenths[i];
        size_t rank = ((size_t)tenths * n + 999) / 1000;
        uint64_t want = sorted[rank - 1];
        uint64_t got = hist_percentile(h, tenths / 10.0);
        double err = test_rel_err(got, want);

        snprintf(label, sizeof(label), "%s: p%.1f", name, tenths / 10.0);
        test_expect_near(label, got, want, TEST_HIST_PCT_BOUND);
        if (err > max_err)
            max_err = err;
    }
    print_message("%s: max percentile error %.4f %% (bound %.4f %%, required %.1f %%)\n", name,
                  100.0 * max_err, 100.0 * TEST_HIST_PCT_BOUND, 100.0 * TEST_HIST_REQUIRED);
    return max_err;
}

static uint64_t *test_alloc_samples(size_t n)
{
    uint64_t *samples = calloc(n, sizeof(*samples));

    assert_non_null(samples);
    return samples;
}

/* Every value lies in [low, high] of its bucket, buckets tile 0 .. HIST_MAX_US
 * without gaps, and none is wider than 1/128 of its low bound. */
static void test_bucket_consistency(void **state)
{
    struct test_rng rng = { 1 };
    char label[160];
    double max_width = 0.0;
    uint64_t v;
    int b, k, i;

    (void)state;
    test_expect_u64("hist_bucket_low(0)", hist_bucket_low(0), 0);
    test_expect_u64("hist_bucket_high(last)", hist_bucket_high(HIST_N_BUCKETS - 1), HIST_MAX_US);
    test_expect_u64("hist_bucket_low(-1) clamps", hist_bucket_low(-1), 0);
    test_expect_u64("hist_bucket_high(HIST_N_BUCKETS) clamps", hist_bucket_high(HIST_N_BUCKETS),
                    HIST_MAX_US);
    for (b = 0; b < HIST_N_BUCKETS; b++) {
        uint64_t low = hist_bucket_low(b), high = hist_bucket_high(b);
        double width = low == 0 ? 0.0 : (double)(high - low) / (double)low;

        snprintf(label, sizeof(label), "bucket %d: hist_bucket_of(low %" PRIu64 ")", b, low);
        test_expect_u64(label, (uint64_t)hist_bucket_of(low), (uint64_t)b);
        snprintf(label, sizeof(label), "bucket %d: hist_bucket_of(high %" PRIu64 ")", b, high);
        test_expect_u64(label, (uint64_t)hist_bucket_of(high), (uint64_t)b);
        if (b > 0) {
            snprintf(label, sizeof(label), "bucket %d: low follows previous high", b);
            test_expect_u64(label, low, hist_bucket_high(b - 1) + 1);
        }
        if (high < low || width > 1.0 / HIST_N_SUB) {
            print_error("bucket %d: low %" PRIu64 ", high %" PRIu64 ", relative width %.4f %%\n", b,
                        low, high, 100.0 * width);
            fail();
        }
        if (width > max_width)
            max_width = width;
    }
    print_message("buckets: %d, max relative width %.4f %%, struct hist %zu bytes\n",
                  HIST_N_BUCKETS, 100.0 * max_width, sizeof(struct hist));

    /* One hour must be inside the range, not an overflow. */
    if (hist_bucket_of(UINT64_C(3600000000)) >= HIST_N_BUCKETS - 1) {
        print_error("1 hour lands in the overflow bucket %d\n",
                    hist_bucket_of(UINT64_C(3600000000)));
        fail();
    }

    /* Every value below 2^20, powers of two and their neighbours, and random
     * values spread over 40 bits (some past the range). */
    for (i = 0; i < (1 << 20) + 3 * 64 + 1000000; i++) {
        uint64_t low, high;

        if (i < (1 << 20)) {
            v = (uint64_t)i;
        } else if (i < (1 << 20) + 3 * 64) {
            k = (i - (1 << 20)) / 3;
            v = (UINT64_C(1) << k) + (uint64_t)((i - (1 << 20)) % 3) - 1;
        } else {
            v = test_rng_next(&rng) >> (24 + test_rng_next(&rng) % 40);
        }
        b = hist_bucket_of(v);
        if (v > HIST_MAX_US) {
            snprintf(label, sizeof(label), "hist_bucket_of(%" PRIu64 ") past the range", v);
            test_expect_u64(label, (uint64_t)b, HIST_N_BUCKETS - 1);
            continue;
        }
        low = hist_bucket_low(b);
        high = hist_bucket_high(b);
        if (b < 0 || b >= HIST_N_BUCKETS || v < low || v > high ||
            (double)(high - low) > (double)(v == 0 ? 1 : v) / HIST_N_SUB) {
            print_error("value %" PRIu64 ": bucket %d holds %" PRIu64 " .. %" PRIu64 "\n", v, b,
                        low, high);
            fail();
        }
    }
}

static void test_uniform(void **state)
{
    struct test_rng rng = { 42 };
    struct hist h;
    uint64_t *samples = test_alloc_samples(TEST_N_SAMPLES);
    uint64_t sum_us;
    size_t i;

    (void)state;
    hist_init(&h);
    for (i = 0; i < TEST_N_SAMPLES; i++)
        samples[i] = test_rng_between(&rng, 1, 100000);
    sum_us = test_record_and_sort(&h, samples, TEST_N_SAMPLES);
    test_check_percentiles("uniform 1..100000 us", &h, samples, TEST_N_SAMPLES, sum_us);
    free(samples);
}

static void test_exponential(void **state)
{
    struct test_rng rng = { 7 };
    struct hist h;
    uint64_t *samples = test_alloc_samples(TEST_N_SAMPLES);
    uint64_t sum_us;
    double mean_us;
    size_t i;

    (void)state;
    hist_init(&h);
    for (i = 0; i < TEST_N_SAMPLES; i++)
        samples[i] = test_rng_exp_us(&rng, 5000.0);
    sum_us = test_record_and_sort(&h, samples, TEST_N_SAMPLES);
    test_check_percentiles("exponential mean 5000 us", &h, samples, TEST_N_SAMPLES, sum_us);

    /* The generator itself: the sample mean of 200000 draws is within 2 %. */
    mean_us = hist_mean(&h);
    if (fabs(mean_us - 5000.0) > 100.0) {
        print_error("exponential: sample mean %.1f us, want 5000 +- 100\n", mean_us);
        fail();
    }
    free(samples);
}

/* 99 % of the samples at 1 ms, 1 % at 500 ms: p99 must stay at the spike's
 * foot and p99.5 must reach its top. */
static void test_spike(void **state)
{
    struct test_rng rng = { 99 };
    struct hist h;
    uint64_t *samples = test_alloc_samples(TEST_N_SAMPLES);
    uint64_t sum_us;
    size_t i;

    (void)state;
    hist_init(&h);
    for (i = 0; i < TEST_N_SAMPLES; i++)
        samples[i] = i % 100 == 0 ? 500000 : 1000;
    /* Shuffle, so the order of recording is not the sorted order. */
    for (i = TEST_N_SAMPLES - 1; i > 0; i--) {
        size_t j = (size_t)test_rng_between(&rng, 0, i);
        uint64_t t = samples[i];

        samples[i] = samples[j];
        samples[j] = t;
    }
    sum_us = test_record_and_sort(&h, samples, TEST_N_SAMPLES);
    test_check_percentiles("spike 99 % 1000 us, 1 % 500000 us", &h, samples, TEST_N_SAMPLES,
                           sum_us);
    test_expect_near("spike: p50", hist_percentile(&h, 50.0), 1000, TEST_HIST_REQUIRED);
    test_expect_near("spike: p99", hist_percentile(&h, 99.0), 1000, TEST_HIST_REQUIRED);
    test_expect_near("spike: p99.5", hist_percentile(&h, 99.5), 500000, TEST_HIST_REQUIRED);
    test_expect_near("spike: p99.9", hist_percentile(&h, 99.9), 500000, TEST_HIST_REQUIRED);
    test_expect_u64("spike: min", h.min_us, 1000);
    test_expect_u64("spike: max", h.max_us, 500000);
    free(samples);
}

/* Nearest rank on a small set, where the rank arithmetic shows. */
static void test_small_ranks(void **state)
{
    struct hist h;
    uint64_t v;

    (void)state;
    hist_init(&h);
    for (v = 1; v <= 100; v++)
        hist_record(&h, v);
    /* Values below 256 have exact buckets, so percentiles are exact. */
    test_expect_u64("1..100: p1", hist_percentile(&h, 1.0), 1);
    test_expect_u64("1..100: p50", hist_percentile(&h, 50.0), 50);
    test_expect_u64("1..100: p50.5", hist_percentile(&h, 50.5), 51);
    test_expect_u64("1..100: p99", hist_percentile(&h, 99.0), 99);
    test_expect_u64("1..100: p99.9", hist_percentile(&h, 99.9), 100);
    test_expect_u64("1..100: p0.001", hist_percentile(&h, 0.001), 1);

    /* 64.4 * 250 / 100 comes out as 161.00000000000003 in doubles; the rank
     * is still 161. */
    hist_init(&h);
    for (v = 1; v <= 250; v++)
        hist_record(&h, v);
    test_expect_u64("1..250: p64.4", hist_percentile(&h, 64.4), 161);
    test_expect_u64("1..250: p64.5", hist_percentile(&h, 64.5), 162);

    hist_init(&h);
    hist_record(&h, 123456);
    test_expect_u64("one value: p50 is the exact value", hist_percentile(&h, 50.0), 123456);
}

static void test_merge(void **state)
{
    struct test_rng rng = { 3 };
    struct hist a, b, all, merged, empty, copy;
    int i;

    (void)state;
    hist_init(&a);
    hist_init(&b);
    hist_init(&all);
    hist_init(&empty);
    for (i = 0; i < 50000; i++) {
        uint64_t v = test_rng_between(&rng, 1, 100000);

        hist_record(&a, v);
        hist_record(&all, v);
    }
    for (i = 0; i < 50000; i++) {
        uint64_t v = test_rng_exp_us(&rng, 20000.0);

        hist_record(&b, v);
        hist_record(&all, v);
    }
    /* b also holds the smallest, the largest and an overflowed value. */
    hist_record(&b, 0);
    hist_record(&all, 0);
    hist_record(&b, HIST_MAX_US + 5);
    hist_record(&all, HIST_MAX_US + 5);

    merged = a;
    hist_merge(&merged, &b);
    test_expect_same_hist("a + b vs union", &merged, &all);
    test_expect_u64("a + b: min", merged.min_us, 0);
    test_expect_u64("a + b: max", merged.max_us, HIST_MAX_US + 5);
    test_expect_u64("a + b: n_overflow", merged.n_overflow, 1);

    merged = b;
    hist_merge(&merged, &a);
    test_expect_same_hist("b + a vs union", &merged, &all);

    copy = a;
    hist_merge(&copy, &empty);
    test_expect_same_hist("a + empty vs a", &copy, &a);
    copy = empty;
    hist_merge(&copy, &a);
    test_expect_same_hist("empty + a vs a", &copy, &a);

    /* Merging into itself doubles everything but min and max. */
    copy = a;
    hist_merge(&copy, &copy);
    merged = a;
    hist_merge(&merged, &a);
    test_expect_same_hist("a + a (aliased) vs a + a", &copy, &merged);
    test_expect_u64("a + a: n_samples", copy.n_samples, 2 * a.n_samples);
}

/* Snapshots of a cumulative histogram: the delta equals the histogram of the
 * values recorded in between. */
static void test_sub(void **state)
{
    struct test_rng rng = { 11 };
    struct hist cum, snap1, snap2, snap3, snap4, between, delta, empty, copy;
    char label[128];
    int i;

    (void)state;
    hist_init(&cum);
    hist_init(&empty);
    for (i = 0; i < 30000; i++)
        hist_record(&cum, 1000 + test_rng_exp_us(&rng, 5000.0));
    hist_record(&cum, 1000);
    hist_record(&cum, 2000000);
    snap1 = cum;

    /* Second 2: values strictly inside cum's range, so min and max of the
     * delta must come from the buckets. */
    hist_init(&between);
    for (i = 0; i < 20000; i++) {
        uint64_t v = test_rng_between(&rng, 2001, 900001);

        hist_record(&cum, v);
        hist_record(&between, v);
    }
    snap2 = cum;
    hist_sub(&delta, &snap2, &snap1);
    test_expect_u64("delta 2: n_samples", delta.n_samples, between.n_samples);
    test_expect_u64("delta 2: sum_us", delta.sum_us, between.sum_us);
    test_expect_u64("delta 2: n_overflow", delta.n_overflow, 0);
    for (i = 0; i < HIST_N_BUCKETS; i++) {
        if (delta.counts[i] == between.counts[i])
            continue;
        snprintf(label, sizeof(label), "delta 2: counts[%d]", i);
        test_expect_u64(label, delta.counts[i], between.counts[i]);
    }
    /* Approximate min and max: never inside the true range, same bucket. */
    if (delta.min_us > between.min_us ||
        hist_bucket_of(delta.min_us) != hist_bucket_of(between.min_us) ||
        delta.max_us < between.max_us ||
        hist_bucket_of(delta.max_us) != hist_bucket_of(between.max_us)) {
        print_error("delta 2: min %" PRIu64 " max %" PRIu64 ", want min %" PRIu64 " max %" PRIu64
                    " within a bucket, outside the range\n",
                    delta.min_us, delta.max_us, between.min_us, between.max_us);
        fail();
    }
    test_expect_near("delta 2: p50 vs direct", hist_percentile(&delta, 50.0),
                     hist_percentile(&between, 50.0), 1.0 / HIST_N_SUB);
    test_expect_near("delta 2: p99 vs direct", hist_percentile(&delta, 99.0),
                     hist_percentile(&between, 99.0), 1.0 / HIST_N_SUB);

    /* Second 3: a new min and a new max, neither on a bucket bound, so the
     * delta must take them from a's exact min and max. */
    hist_init(&between);
    for (i = 0; i < 1000; i++) {
        uint64_t v = test_rng_between(&rng, 1000, 10000);

        hist_record(&cum, v);
        hist_record(&between, v);
    }
    hist_record(&cum, 777);
    hist_record(&between, 777);
    hist_record(&cum, 3000001);
    hist_record(&between, 3000001);
    snap3 = cum;
    hist_sub(&delta, &snap3, &snap2);
    test_expect_same_hist("delta 3 vs direct", &delta, &between);

    /* dst aliasing a or b. */
    copy = snap3;
    hist_sub(&copy, &copy, &snap2);
    test_expect_same_hist("delta 3 into a", &copy, &between);
    copy = snap2;
    hist_sub(&copy, &snap3, &copy);
    test_expect_same_hist("delta 3 into b", &copy, &between);

    /* Second 4: a new min, and an overflowed value as the new max. */
    hist_init(&between);
    hist_record(&cum, 500);
    hist_record(&between, 500);
    hist_record(&cum, HIST_MAX_US * 3);
    hist_record(&between, HIST_MAX_US * 3);
    snap4 = cum;
    hist_sub(&delta, &snap4, &snap3);
    test_expect_same_hist("delta 4 vs direct", &delta, &between);
    test_expect_u64("delta 4: n_overflow", delta.n_overflow, 1);

    /* Second 5: one value that moves neither min nor max: the delta's min
     * and max are the bounds of its bucket. */
    hist_init(&between);
    hist_record(&cum, 6000);
    hist_record(&between, 6000);
    hist_sub(&delta, &cum, &snap4);
    test_expect_u64("delta 5: n_overflow", delta.n_overflow, 0);
    test_expect_u64("delta 5: n_samples", delta.n_samples, 1);
    test_expect_u64("delta 5: min", delta.min_us, 5984);
    test_expect_u64("delta 5: max", delta.max_us, 6015);

    /* From an empty snapshot: the whole histogram. */
    hist_sub(&delta, &snap1, &empty);
    test_expect_same_hist("snap1 - empty vs snap1", &delta, &snap1);

    /* Nothing in between: an empty histogram. */
    hist_sub(&delta, &snap2, &snap2);
    test_expect_same_hist("snap2 - snap2 vs empty", &delta, &empty);
    test_expect_u64("empty delta: p99", hist_percentile(&delta, 99.0), 0);

    /* Snapshots swapped (b is not earlier than a): counts do not wrap. */
    hist_sub(&delta, &snap1, &snap2);
    test_expect_same_hist("snap1 - snap2 (swapped) vs empty", &delta, &empty);
}

/* A snapshot taken by copying only the used buckets, into zeros and then
 * into the previous snapshot, equals a whole copy each time; merging only
 * the used buckets gives the same as every bucket would. */
static void test_copy_grown(void **state)
{
    struct test_rng rng = { 29 };
    struct hist cum, snap, sum, want;
    int i;

    (void)state;
    hist_init(&cum);
    memset(&snap, 0, sizeof(snap));
    for (i = 0; i < 5000; i++)
        hist_record(&cum, test_rng_between(&rng, 3000, 9000));
    hist_copy_grown(&snap, &cum);
    test_expect_same_hist("first snapshot", &snap, &cum);
    assert_memory_equal(snap.counts, cum.counts, sizeof(cum.counts));
    /* Grown on both sides, an overflowed value among them. */
    hist_record(&cum, 12);
    hist_record(&cum, HIST_MAX_US + 5);
    for (i = 0; i < 5000; i++)
        hist_record(&cum, test_rng_between(&rng, 100, 900000));
    hist_copy_grown(&snap, &cum);
    test_expect_same_hist("second snapshot", &snap, &cum);
    assert_memory_equal(snap.counts, cum.counts, sizeof(cum.counts));
    /* Merged twice from empty: every count doubled, nothing else touched. */
    hist_init(&sum);
    hist_merge(&sum, &cum);
    hist_merge(&sum, &snap);
    want = cum;
    for (i = 0; i < HIST_N_BUCKETS; i++)
        want.counts[i] *= 2;
    want.n_samples *= 2;
    want.n_overflow *= 2;
    want.sum_us *= 2;
    assert_memory_equal(sum.counts, want.counts, sizeof(want.counts));
    test_expect_u64("merged n_samples", sum.n_samples, want.n_samples);
    test_expect_u64("merged n_overflow", sum.n_overflow, want.n_overflow);
    test_expect_u64("merged min", sum.min_us, cum.min_us);
    test_expect_u64("merged max", sum.max_us, cum.max_us);
}

static void test_empty(void **state)
{
    struct hist h;
    int b;

    (void)state;
    hist_init(&h);
    test_expect_u64("empty: n_samples", h.n_samples, 0);
    test_expect_u64("empty: n_overflow", h.n_overflow, 0);
    test_expect_u64("empty: p0", hist_percentile(&h, 0.0), 0);
    test_expect_u64("empty: p50", hist_percentile(&h, 50.0), 0);
    test_expect_u64("empty: p100", hist_percentile(&h, 100.0), 0);
    if (hist_mean(&h) != 0.0) {
        print_error("empty: mean %f, want 0\n", hist_mean(&h));
        fail();
    }
    for (b = 0; b < HIST_N_BUCKETS; b++)
        test_expect_u64("empty: a bucket count", h.counts[b], 0);
}

static void test_reset(void **state)
{
    struct hist h, fresh;
    int i;

    (void)state;
    hist_init(&fresh);
    hist_init(&h);
    for (i = 0; i < 1000; i++)
        hist_record(&h, (uint64_t)i * 977);
    hist_record(&h, HIST_MAX_US + 1);
    hist_reset(&h);
    test_expect_same_hist("reset vs init", &h, &fresh);
    hist_record(&h, 5);
    test_expect_u64("after reset: min", h.min_us, 5);
    test_expect_u64("after reset: max", h.max_us, 5);
}

/* hist_clear writes only the used buckets, yet leaves what hist_init does:
 * after records at both ends, an overflow, a merge and a difference, and
 * on the zeros of a fresh allocation. */
static void test_clear(void **state)
{
    struct test_rng rng = { 31 };
    struct hist h, other, delta, fresh;
    int i;

    (void)state;
    hist_init(&fresh);
    hist_init(&h);
    for (i = 0; i < 3000; i++)
        hist_record(&h, test_rng_between(&rng, 0, 2000000));
    hist_record(&h, HIST_MAX_US + 9);
    hist_clear(&h);
    test_expect_same_hist("clear vs init", &h, &fresh);
    assert_memory_equal(h.counts, fresh.counts, sizeof(fresh.counts));
    /* A merge's and a difference's result: their min and max bound the counts. */
    hist_init(&other);
    for (i = 0; i < 500; i++)
        hist_record(&other, test_rng_between(&rng, 40, 70000));
    hist_merge(&h, &other);
    hist_record(&h, 3);
    memset(&delta, 0, sizeof(delta));
    hist_sub(&delta, &h, &other);
    hist_clear(&h);
    hist_clear(&delta);
    assert_memory_equal(h.counts, fresh.counts, sizeof(fresh.counts));
    assert_memory_equal(delta.counts, fresh.counts, sizeof(fresh.counts));
    test_expect_same_hist("merged, cleared", &h, &fresh);
    test_expect_same_hist("a difference, cleared", &delta, &fresh);
    /* Zeros (calloc) clear to an empty histogram, and record as one. */
    memset(&h, 0, sizeof(h));
    hist_clear(&h);
    test_expect_same_hist("zeros, cleared", &h, &fresh);
    hist_record(&h, 77);
    test_expect_u64("after clear: min", h.min_us, 77);
    test_expect_u64("after clear: max", h.max_us, 77);
}

static void test_overflow(void **state)
{
    struct hist h;
    uint64_t ten_hours_us = UINT64_C(36000000000);

    (void)state;
    hist_init(&h);
    hist_record(&h, 0);
    hist_record(&h, 1000);
    hist_record(&h, HIST_MAX_US); /* the last value still in range */
    hist_record(&h, HIST_MAX_US + 1);
    hist_record(&h, ten_hours_us);
    test_expect_u64("overflow: n_overflow", h.n_overflow, 2);
    test_expect_u64("overflow: n_samples", h.n_samples, 5);
    test_expect_u64("overflow: last bucket", h.counts[HIST_N_BUCKETS - 1], 3);
    test_expect_u64("overflow: bucket 0 (value 0)", h.counts[0], 1);
    test_expect_u64("overflow: min", h.min_us, 0);
    test_expect_u64("overflow: exact max", h.max_us, ten_hours_us);
    test_expect_u64("overflow: sum", h.sum_us, 1000 + HIST_MAX_US + HIST_MAX_US + 1 + ten_hours_us);
    test_expect_u64("overflow: p100", hist_percentile(&h, 100.0), ten_hours_us);
    /* p90 is the 5th value, overflowed: reported as the exact max. */
    test_expect_u64("overflow: p90", hist_percentile(&h, 90.0), ten_hours_us);
    test_expect_u64("overflow: p20", hist_percentile(&h, 20.0), 0);
    test_expect_near("overflow: p40", hist_percentile(&h, 40.0), 1000, TEST_HIST_PCT_BOUND);

    /* Without overflow, the last bucket reports its midpoint, within range. */
    hist_init(&h);
    hist_record(&h, HIST_MAX_US - 1000);
    hist_record(&h, HIST_MAX_US);
    test_expect_u64("in range: n_overflow", h.n_overflow, 0);
    test_expect_near("in range: p50", hist_percentile(&h, 50.0), HIST_MAX_US - 1000,
                     TEST_HIST_PCT_BOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_consistency),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_exponential),
        cmocka_unit_test(test_spike),
        cmocka_unit_test(test_small_ranks),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_sub),
        cmocka_unit_test(test_copy_grown),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_clear),
        cmocka_unit_test(test_overflow),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
