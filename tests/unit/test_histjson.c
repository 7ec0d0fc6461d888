/*
 * test_histjson.c - unit tests for results/histjson.c, the mergeable
 * histograms of run.json.
 *
 * hist -> JSON text -> hist is exact (the whole struct, every bucket) for
 * empty, tiny, uniform, heavy-tailed and overflowing samples and for a
 * snapshot delta (hist_sub); two decoded histograms merged equal the
 * histogram of the union of their samples, bucket by bucket, with the same
 * percentiles; and malformed documents are refused with the field named.
 * Samples come from a seeded PRNG, so every run sees the same numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/histjson.h"

/* splitmix64, seeded per case. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A latency in microseconds: mostly 0.2 .. 20 ms, a heavy tail, now and then seconds. */
static uint64_t draw_us(uint64_t *s, int kind)
{
    uint64_t r = rng_next(s);
    double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);

    switch (kind) {
    case 0:
        return 200 + r % 20000;
    case 1:
        return (uint64_t)(-log(1.0 - u) * 5000.0);
    default:
        return r % 100 == 0 ? 1000000 + r % 9000000 : 50 + r % 400;
    }
}

/* Compare two histograms field by field and bucket by bucket, naming the first difference. */
static void assert_hist_equal(const struct hist *a, const struct hist *b, const char *what)
{
    if (a->n_samples != b->n_samples || a->n_overflow != b->n_overflow || a->sum_us != b->sum_us ||
        a->min_us != b->min_us || a->max_us != b->max_us)
        fail_msg("%s: n %" PRIu64 "/%" PRIu64 " overflow %" PRIu64 "/%" PRIu64 " sum %" PRIu64
                 "/%" PRIu64 " min %" PRIu64 "/%" PRIu64 " max %" PRIu64 "/%" PRIu64,
                 what, a->n_samples, b->n_samples, a->n_overflow, b->n_overflow, a->sum_us,
                 b->sum_us, a->min_us, b->min_us, a->max_us, b->max_us);
    for (int i = 0; i < HIST_N_BUCKETS; i++)
        if (a->counts[i] != b->counts[i])
            fail_msg("%s: bucket %d: %" PRIu64 " vs %" PRIu64, what, i, a->counts[i], b->counts[i]);
    assert_memory_equal(a, b, sizeof(*a));
}

/* Through JSON text, as a record on disk is. */
static void round_trip(const struct hist *h, struct hist *out)
{
    json_t *j = histjson_encode(h), *back;
    json_error_t je;
    struct err e;
    char *text;

    assert_non_null(j);
    text = json_dumps(j, JSON_COMPACT);
    assert_non_null(text);
    back = json_loads(text, 0, &je);
    assert_non_null(back);
    err_clear(&e);
    if (histjson_decode(back, out, &e) != 0)
        fail_msg("decode of our own output failed: %s\n%s", e.msg, text);
    free(text);
    json_decref(back);
    json_decref(j);
}

static struct hist *hist_new(void)
{
    struct hist *h = malloc(sizeof(*h));

    assert_non_null(h);
    hist_init(h);
    return h;
}

static void test_round_trip(void **state)
{
    struct hist *h = hist_new(), *back = hist_new(), *snap = hist_new(), *delta = hist_new();
    uint64_t s = 42;

    (void)state;
    /* Empty. */
    round_trip(h, back);
    assert_hist_equal(h, back, "empty");
    assert_int_equal(back->min_us, UINT64_MAX);

    /* One value, and the edges of the range. */
    hist_record(h, 0);
    round_trip(h, back);
    assert_hist_equal(h, back, "one zero");
    hist_record(h, HIST_MAX_US);
    hist_record(h, 255);
    hist_record(h, 256);
    round_trip(h, back);
    assert_hist_equal(h, back, "edges");

    /* Each distribution, then all together with overflowed values. */
    for (int kind = 0; kind < 3; kind++) {
        hist_init(h);
        for (int i = 0; i < 50000; i++)
            hist_record(h, draw_us(&s, kind));
        round_trip(h, back);
        assert_hist_equal(h, back, kind == 0 ? "uniform" : kind == 1 ? "exponential" : "spiky");
    }
    hist_record(h, HIST_MAX_US + 1);
    hist_record(h, UINT64_C(1) << 40);
    round_trip(h, back);
    assert_hist_equal(h, back, "overflow");
    assert_int_equal(back->n_overflow, 2);
    assert_int_equal(back->max_us, UINT64_C(1) << 40);

    /* A sum past 2^63 goes as a string and comes back exact. */
    hist_init(h);
    hist_record(h, UINT64_MAX - 5);
    hist_record(h, 3);
    round_trip(h, back);
    assert_hist_equal(h, back, "huge sum");

    /* A snapshot delta (min and max approximated from buckets) survives as well. */
    hist_init(h);
    for (int i = 0; i < 20000; i++)
        hist_record(h, draw_us(&s, 1));
    *snap = *h;
    for (int i = 0; i < 20000; i++)
        hist_record(h, 1000 + draw_us(&s, 0));
    hist_sub(delta, h, snap);
    round_trip(delta, back);
    assert_hist_equal(delta, back, "delta");
    free(h);
    free(back);
    free(snap);
    free(delta);
}

/* Known JSON for a small histogram: the format is what histjson.h says. */
static void test_format(void **state)
{
    struct hist *h = hist_new();
    json_t *j;
    char *text;

    (void)state;
    hist_record(h, 3);
    hist_record(h, 3);
    hist_record(h, 1000); /* bucket (2 << 7) + (1000 >> 2) = 506 */
    j = histjson_encode(h);
    text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(text, "{\"buckets\":[3,2,506,1],\"max_us\":1000,\"min_us\":3,\"n\":3,"
                              "\"overflow\":0,\"range_bits\":32,\"sub_bits\":7,\"sum_us\":1006}");
    free(text);
    json_decref(j);
    free(h);
}

/* Two parts' decoded histograms merged equal the histogram of all samples. */
static void test_merge_is_union(void **state)
{
    static const double pcts[] = { 0, 1, 10, 50, 75, 90, 95, 99, 99.9, 99.99, 100 };
    struct hist *a = hist_new(), *b = hist_new(), *u = hist_new();
    struct hist *da = hist_new(), *db = hist_new();
    uint64_t s = 7;

    (void)state;
    for (int i = 0; i < 60000; i++) {
        uint64_t v = draw_us(&s, i % 3);
        hist_record(a, v);
        hist_record(u, v);
    }
    /* The other part: other latencies, and one overflowed value. */
    for (int i = 0; i < 40000; i++) {
        uint64_t v = 3 * draw_us(&s, 1) + 100;
        hist_record(b, v);
        hist_record(u, v);
    }
    hist_record(b, HIST_MAX_US + 77);
    hist_record(u, HIST_MAX_US + 77);

    round_trip(a, da);
    round_trip(b, db);
    hist_merge(da, db);
    assert_hist_equal(da, u, "merged vs union");
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        if (hist_percentile(da, pcts[i]) != hist_percentile(u, pcts[i]))
            fail_msg("p%g: merged %" PRIu64 ", union %" PRIu64, pcts[i],
                     hist_percentile(da, pcts[i]), hist_percentile(u, pcts[i]));
    assert_true(hist_mean(da) == hist_mean(u));
    assert_int_equal(da->n_samples, 100001);

    /* Merging with an empty part changes nothing. */
    hist_init(db);
    round_trip(db, db);
    hist_merge(da, db);
    assert_hist_equal(da, u, "merged with an empty part");
    free(a);
    free(b);
    free(u);
    free(da);
    free(db);
}

/* Malformed documents: refused, the field named, the histogram left empty. */
static void test_refused(void **state)
{
    static const struct {
        const char *doc;
        const char *msg;
    } t[] = {
        { "[]", "histogram: must be an object" },
        { "{\"sub_bits\":6,\"range_bits\":32,\"n\":0,\"sum_us\":0,\"min_us\":0,\"max_us\":0,"
          "\"overflow\":0,\"buckets\":[]}",
          "histogram: bucket layout sub_bits 6, range_bits 32 is not this build's (7, 32): it "
          "cannot be merged bucket by bucket" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"sum_us\":0,\"min_us\":0,\"max_us\":0,"
          "\"overflow\":0,\"buckets\":[]}",
          "histogram: 'n' must be a non-negative integer" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":1,\"sum_us\":-3,\"min_us\":3,\"max_us\":3,"
          "\"overflow\":0,\"buckets\":[3,1]}",
          "histogram: 'sum_us' must be a non-negative integer" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":1,\"sum_us\":3,\"min_us\":3,\"max_us\":3,"
          "\"overflow\":0,\"buckets\":[3]}",
          "histogram: 'buckets' must be an array of index, count pairs" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":2,\"sum_us\":7,\"min_us\":3,\"max_us\":4,"
          "\"overflow\":0,\"buckets\":[4,1,3,1]}",
          "histogram: bucket index 1 must be an integer from 0 to 3327, above the one before" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":1,\"sum_us\":3,\"min_us\":3,\"max_us\":3,"
          "\"overflow\":0,\"buckets\":[3328,1]}",
          "histogram: bucket index 0 must be an integer from 0 to 3327, above the one before" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":0,\"sum_us\":0,\"min_us\":0,\"max_us\":0,"
          "\"overflow\":0,\"buckets\":[3,0]}",
          "histogram: the count of bucket 3 must be an integer >= 1" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":5,\"sum_us\":3,\"min_us\":3,\"max_us\":3,"
          "\"overflow\":0,\"buckets\":[3,1]}",
          "histogram: the bucket counts add up to 1, not n = 5" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":1,\"sum_us\":3,\"min_us\":2,\"max_us\":3,"
          "\"overflow\":0,\"buckets\":[3,1]}",
          "histogram: min_us 2 and max_us 3 must lie in the first and last non-empty buckets "
          "(3, 3)" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":1,\"sum_us\":3,\"min_us\":3,\"max_us\":3,"
          "\"overflow\":1,\"buckets\":[3,1]}",
          "histogram: 'overflow' 1 does not match the last bucket and max_us" },
        { "{\"sub_bits\":7,\"range_bits\":32,\"n\":0,\"sum_us\":9,\"min_us\":0,\"max_us\":0,"
          "\"overflow\":0,\"buckets\":[]}",
          "histogram: an empty histogram must have zero sum, min, max and overflow" },
    };
    struct hist *h = hist_new();

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        json_error_t je;
        json_t *j = json_loads(t[i].doc, 0, &je);
        struct err e;
        int rc;

        assert_non_null(j);
        err_clear(&e);
        rc = histjson_decode(j, h, &e);
        if (rc != E_USAGE || strcmp(e.msg, t[i].msg) != 0)
            fail_msg("case %zu: want E_USAGE\n  \"%s\"\ngot rc %d\n  \"%s\"", i, t[i].msg, rc,
                     e.msg);
        assert_int_equal(h->n_samples, 0);
        assert_int_equal(h->counts[3], 0);
        json_decref(j);
    }
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_merge_is_union),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
