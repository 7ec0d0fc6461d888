/*
 * test_waitdiff.c - unit tests for src/results/waitdiff.c, the waits whose
 * share changed most between two records: a record without waits and why;
 * shares pooled over repeats; the waits ranked by the size of their change
 * (one gone counts as much as one new), CPU last whatever its change; the
 * sampling error's mark; the text; the largest change across types, and
 * none when every change is within the sampling error.  Each failure
 * prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "results/waitdiff.h"
#include "unit.h"

/* A record whose new_order and payment samples are given as JSON objects of events. */
static json_t *rec(const char *new_order, const char *payment)
{
    json_error_t je;
    char buf[1024];

    snprintf(buf, sizeof(buf),
             "{\"waits\": {\"available\": true, \"rate_hz\": 10, \"samples\": 100, "
             "\"by_type\": {\"new_order\": {\"samples\": 0, \"events\": %s}, "
             "\"payment\": {\"samples\": 0, \"events\": %s}}}}",
             new_order, payment);
    return json_loads(buf, 0, &je);
}

static void test_has(void **state)
{
    char why[320];
    json_t *none = json_loads("{\"run\": {}}", 0, NULL);
    json_t *off = json_loads("{\"waits\": {\"available\": false, \"why\": \"run.wait_sampling is "
                             "0: off\"}}",
                             0, NULL);
    json_t *on = rec("{\"CPU\": 1}", "{}");

    (void)state;
    assert_int_equal(wdiff_has(none, why, sizeof(why)), 0);
    assert_string_equal(why, "the record has no waits (written before the wait sampler)");
    assert_int_equal(wdiff_has(off, why, sizeof(why)), 0);
    assert_string_equal(why, "run.wait_sampling is 0: off");
    assert_int_equal(wdiff_has(on, why, sizeof(why)), 1);
    assert_string_equal(why, "");
    json_decref(none);
    json_decref(off);
    json_decref(on);
}

static void test_rank(void **state)
{
    /* The example: WALSync 31 -> 4, WALWrite 12 -> 2, CPU 40 -> 77. */
    json_t *a = rec("{\"IO:WALSync\": 310, \"LWLock:WALWrite\": 120, \"CPU\": 400, "
                    "\"Lock:transactionid\": 170}",
                    "{}");
    json_t *b = rec("{\"IO:WALSync\": 40, \"LWLock:WALWrite\": 20, \"CPU\": 770, "
                    "\"Lock:transactionid\": 140, \"Lock:tuple\": 30}",
                    "{}");
    struct wdiff_side sa, sb;
    struct wdiff_change c[4];
    char why[320], line[512];
    int n;

    (void)state;
    assert_int_equal(wdiff_pool(&a, 1, "new_order", &sa, why, sizeof(why)), 1);
    assert_int_equal(wdiff_pool(&b, 1, "new_order", &sb, why, sizeof(why)), 1);
    CHECK(sa.samples == 1000 && sb.samples == 1000, "samples %llu %llu",
          (unsigned long long)sa.samples, (unsigned long long)sb.samples);
    n = wdiff_type(&sa, &sb, "new_order", c, 4);
    assert_int_equal(n, 4);
    assert_string_equal(c[0].key, "IO:WALSync");
    assert_string_equal(c[1].key, "LWLock:WALWrite");
    /* Lock:tuple (0 -> 3 %, new in b) and Lock:transactionid (17 -> 14 %) tie at 3
     * points: the name decides. */
    assert_string_equal(c[2].key, "Lock:transactionid");
    assert_string_equal(c[3].key, "CPU");
    assert_string_equal(c[0].type, "new_order");
    CHECK(fabs(c[0].old_share - 0.31) < 1e-12 && fabs(c[0].new_share - 0.04) < 1e-12,
          "%g -> %g", c[0].old_share, c[0].new_share);
    assert_int_equal(c[0].beyond_noise, 1);
    wdiff_fmt(line, sizeof(line), c, n);
    /* 17 -> 14 % of 1000 samples a side is under twice its error (3.2 points). */
    assert_string_equal(line, "IO:WALSync 31 % -> 4 %, LWLock:WALWrite 12 % -> 2 %, "
                              "Lock:transactionid 17 % -> 14 % (~), CPU 40 % -> 77 %");
    c[0].new_share = 0.004;
    wdiff_fmt(line, sizeof(line), c, 1);
    assert_string_equal(line, "IO:WALSync 31 % -> 0.4 %");
    /* k = 2: one wait, then CPU. */
    assert_int_equal(wdiff_type(&sa, &sb, "new_order", c, 2), 2);
    assert_string_equal(c[0].key, "IO:WALSync");
    assert_string_equal(c[1].key, "CPU");
    /* A type without samples on a side: nothing. */
    assert_int_equal(wdiff_pool(&a, 1, "payment", &sa, why, sizeof(why)), 1);
    assert_int_equal(wdiff_type(&sa, &sb, "payment", c, 4), 0);
    json_decref(a);
    json_decref(b);
}

static void test_noise_and_pool(void **state)
{
    /* 10 samples a side: 3 -> 2 of 10 is within the sampling error. */
    json_t *a = rec("{\"Lock:tuple\": 3, \"CPU\": 7}", "{}");
    json_t *b = rec("{\"Lock:tuple\": 2, \"CPU\": 8}", "{}");
    json_t *olds[2], *off = json_loads("{\"waits\": {\"available\": false, \"why\": \"x\"}}", 0,
                                       NULL);
    struct wdiff_side s;
    struct wdiff_change c[3], big;
    char why[320], line[256];
    int n;

    (void)state;
    olds[0] = a;
    olds[1] = a;
    assert_int_equal(wdiff_pool(olds, 2, "new_order", &s, why, sizeof(why)), 2);
    assert_int_equal((int)s.samples, 20);
    {
        struct wdiff_side sb;
        wdiff_pool(&b, 1, "new_order", &sb, why, sizeof(why));
        n = wdiff_type(&s, &sb, "new_order", c, 3);
    }
    assert_int_equal(n, 2);
    assert_int_equal(c[0].beyond_noise, 0);
    wdiff_fmt(line, sizeof(line), c, 1);
    assert_string_equal(line, "Lock:tuple 30 % -> 20 % (~)");
    /* 1 sample of 1 against 0 of 2: no change beyond the error, though both shares are
     * exact (0 and 1). */
    {
        json_t *x = rec("{\"IO:DataFileRead\": 1}", "{}"), *y = rec("{\"CPU\": 2}", "{}");
        assert_int_equal(wdiff_largest(x, y, &big, why, sizeof(why)), 0);
        json_decref(x);
        json_decref(y);
    }
    /* Nothing beyond the sampling error: no largest change, and why. */
    assert_int_equal(wdiff_largest(a, b, &big, why, sizeof(why)), 0);
    assert_string_equal(why, "no wait's share changed beyond the sampling error");
    /* A record without waits: its reason. */
    assert_int_equal(wdiff_largest(a, off, &big, why, sizeof(why)), 0);
    assert_string_equal(why, "x");
    olds[1] = off;
    assert_int_equal(wdiff_pool(olds, 2, "new_order", &s, why, sizeof(why)), 1);
    assert_string_equal(why, "");
    json_decref(a);
    json_decref(b);
    json_decref(off);
}

static void test_largest(void **state)
{
    /* New-Order's WALSync falls 40 points; Payment's Lock rises 50: Payment's is larger. */
    json_t *a = rec("{\"IO:WALSync\": 400, \"CPU\": 600}",
                    "{\"Lock:transactionid\": 200, \"CPU\": 800}");
    json_t *b = rec("{\"CPU\": 1000}", "{\"Lock:transactionid\": 700, \"CPU\": 300}");
    struct wdiff_change big;
    char why[320];

    (void)state;
    assert_int_equal(wdiff_largest(a, b, &big, why, sizeof(why)), 1);
    assert_string_equal(big.type, "payment");
    assert_string_equal(big.key, "Lock:transactionid");
    CHECK(fabs(big.old_share - 0.2) < 1e-12 && fabs(big.new_share - 0.7) < 1e-12, "%g -> %g",
          big.old_share, big.new_share);
    {
        json_t *j = wdiff_json(&big);
        assert_string_equal(json_string_value(json_object_get(j, "event")),
                            "Lock:transactionid");
        assert_true(json_is_true(json_object_get(j, "beyond_noise")));
        json_decref(j);
    }
    json_decref(a);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_has),
        cmocka_unit_test(test_rank),
        cmocka_unit_test(test_noise_and_pool),
        cmocka_unit_test(test_largest),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
