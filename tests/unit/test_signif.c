/*
 * test_signif.c - unit tests of src/results/signif.c against values
 * computed independently with python3 (statistics for means and variances,
 * mpmath's regularized incomplete beta for Student's t):
 *
 *   t quantile 0.975 at df 1, 2, 3.5, 10, 30; the t CDF at 1.5 with df 4.2;
 *   Welch's interval of two small samples; the gain's interval and verdict
 *   for throughput, load time and latency samples.
 *
 * A failing check prints both values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "results/signif.h"

#define near(got, want, tol)                                                                       \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!(fabs(g_ - w_) <= (tol))) {                                                           \
            print_error("%s = %.12g, want %.12g (+-%g)\n", #got, g_, w_, (double)(tol));          \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

static void t_quantiles(void **state)
{
    (void)state;
    near(sig_t_quantile(0.975, 1), 12.7062047361747, 1e-9);
    near(sig_t_quantile(0.975, 2), 4.30265272974946, 1e-9);
    near(sig_t_quantile(0.975, 3.5), 2.94008863798273, 1e-9);
    near(sig_t_quantile(0.975, 10), 2.22813885198627, 1e-9);
    near(sig_t_quantile(0.975, 30), 2.04227245630124, 1e-9);
    near(sig_t_quantile(0.025, 10), -2.22813885198627, 1e-9);
    near(sig_t_quantile(0.5, 7), 0.0, 0);
    near(sig_t_cdf(1.5, 4.2), 0.897659607937164, 1e-10);
    near(sig_t_cdf(0, 3), 0.5, 1e-15);
    assert_true(isnan(sig_t_quantile(1.0, 3)));
}

static void medians(void **state)
{
    const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, gaps[] = { NAN, 5, NAN };

    (void)state;
    near(sig_median(odd, 3), 2, 0);
    near(sig_median(even, 4), 2.5, 0);
    near(sig_median(gaps, 3), 5, 0);
    assert_true(isnan(sig_median(gaps, 1)));
}

static void welch_interval(void **state)
{
    const double a[] = { 10, 12, 11, 13 }, b[] = { 14, 15, 13.5 }, same[] = { 5, 5 };
    double d, lo, hi, df;

    (void)state;
    assert_int_equal(sig_welch(a, 4, b, 3, 0.95, &d, &lo, &hi, &df), 0);
    near(d, 2.666666666666666, 1e-12);
    near(lo, 0.640174074584948, 1e-9);
    near(hi, 4.693159258748384, 1e-9);
    near(df, 4.864321608040201, 1e-9);
    assert_int_equal(sig_welch(a, 1, b, 3, 0.95, &d, &lo, &hi, &df), -1);
    /* No spread at all: the interval is the point. */
    assert_int_equal(sig_welch(same, 2, same, 2, 0.95, &d, &lo, &hi, &df), 0);
    near(lo, 0, 0);
    near(hi, 0, 0);
}

static void gains_and_verdicts(void **state)
{
    const double old3[] = { 1000, 1010, 990 }, new3[] = { 1100, 1090, 1110 };
    const double old2[] = { 1000, 1200 }, new2[] = { 1100, 1050 };
    struct sig_result r;

    (void)state;
    /* Throughput up 10 %, tight: a significant gain. */
    sig_compare(old3, 3, new3, 3, SIG_UP, &r);
    near(r.gain, 0.1, 1e-12);
    near(r.lo, 0.07634837414483564, 1e-9);
    near(r.hi, 0.1241843537144749, 1e-9);
    near(r.df, 3.9642011821770056, 1e-9);
    assert_int_equal(r.verdict, SIG_GAIN);
    /* The same numbers as a load time: it grew, so a significant loss; bounds swap. */
    sig_compare(old3, 3, new3, 3, SIG_DOWN, &r);
    near(r.gain, 1000.0 / 1100.0 - 1, 1e-12);
    near(r.lo, 1 / 1.1241843537144749 - 1, 1e-9);
    near(r.hi, 1 / 1.07634837414483564 - 1, 1e-9);
    assert_int_equal(r.verdict, SIG_LOSS);
    /* As a latency: slower, a significant loss; and the other way round a gain. */
    sig_compare(old3, 3, new3, 3, SIG_CHANGE, &r);
    assert_int_equal(r.verdict, SIG_LOSS);
    sig_compare(new3, 3, old3, 3, SIG_CHANGE, &r);
    assert_int_equal(r.verdict, SIG_GAIN);
    /* Two noisy runs each: within noise. */
    sig_compare(old2, 2, new2, 2, SIG_UP, &r);
    near(r.gain, 1075.0 / 1100.0 - 1, 1e-12);
    near(r.lo, -0.607186539514179, 1e-9);
    near(r.hi, 1.4502724494461234, 1e-9);
    assert_int_equal(r.verdict, SIG_NOISE);
    /* One run: no interval, no verdict; the gain of the medians is still there. */
    sig_compare(old3, 1, new3, 3, SIG_UP, &r);
    near(r.gain, 0.1, 1e-12);
    assert_true(isnan(r.lo));
    assert_int_equal(r.verdict, SIG_NONE);
    /* A figure that is not positive has no log: no verdict. */
    {
        const double zero[] = { 0, 1 };
        sig_compare(zero, 2, new3, 3, SIG_UP, &r);
        assert_int_equal(r.verdict, SIG_NONE);
    }
    assert_string_equal(sig_verdict_name(SIG_GAIN), "significant gain");
    assert_string_equal(sig_verdict_name(SIG_NOISE), "within noise");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_quantiles),
        cmocka_unit_test(medians),
        cmocka_unit_test(welch_interval),
        cmocka_unit_test(gains_and_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
