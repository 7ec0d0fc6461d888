/*
 * unit.h - what the cmocka unit tests share: CHECK (fail naming both sides),
 * and the statistical checks of the generators' tests (a binomial count
 * within UNIT_SIGMAS standard deviations, the chi-square bound at
 * UNIT_SIGMAS).  Include it after <cmocka.h>.  Header only: each unit test
 * is a program of its own; a test that uses none of the functions is fine
 * (they are static inline).
 */
#ifndef TPCC_TESTS_UNIT_H
#define TPCC_TESTS_UNIT_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>

/* Standard deviations allowed for binomial counts and chi-square statistics
 * (a test may define its own before including this header). */
#ifndef UNIT_SIGMAS
#define UNIT_SIGMAS 5.0
#endif

/* Fail the test, naming what was checked with both sides (a test whose
 * failures need more context defines its own CHECK first). */
#ifndef CHECK
#define CHECK(cond, ...)                         \
    do {                                         \
        if (!(cond)) {                           \
            print_error(__VA_ARGS__);            \
            print_error("\n");                   \
            fail_msg("check failed: %s", #cond); \
        }                                        \
    } while (0)
#endif

/* A binomial count of n draws with probability p lies within UNIT_SIGMAS
 * standard deviations of its mean. */
static inline void unit_check_binomial(const char *what, int64_t got, int64_t n, double p)
{
    double mean = (double)n * p, slack = UNIT_SIGMAS * sqrt((double)n * p * (1.0 - p));

    CHECK(fabs((double)got - mean) <= slack,
          "%s: %" PRId64 " of %" PRId64 " draws, want %.1f +- %.1f (%.0f sigma)", what, got, n,
          mean, slack, UNIT_SIGMAS);
}

/* The UNIT_SIGMAS point of a chi-square distribution of dof degrees of
 * freedom (Wilson-Hilferty). */
static inline double unit_chi2_bound(int dof)
{
    double k = dof, t = 1.0 - 2.0 / (9.0 * k) + UNIT_SIGMAS * sqrt(2.0 / (9.0 * k));

    return k * t * t * t;
}

#endif
