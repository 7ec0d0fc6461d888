/*
 * edivisive.h - change points in a series of runs: E-Divisive with means
 * (Matteson and James, "A nonparametric approach for multiple change point
 * analysis of multivariate data", JASA 2014, with alpha = 1), each split
 * kept only when Welch's t test between the segments it separates is
 * significant, as Apache Otava (formerly DataStax Hunter) keeps its splits.
 *
 * The statistic.  For a segment x[0..n) and a split tau (left x[0..tau),
 * m = tau runs; right x[tau..n), k = n - tau runs):
 *
 *     E(tau) = 2/(m k) sum_{i<tau<=j} |x_i - x_j|
 *              - 1/C(m,2) sum_{i<i'<tau} |x_i - x_i'|
 *              - 1/C(k,2) sum_{tau<=j<j'} |x_j - x_j'|
 *     q(tau) = m k / n * E(tau)
 *
 * (a within sum over fewer than 2 runs is 0).  The best split of a segment
 * is the tau with the largest q among those leaving at least min_runs runs
 * on each side.
 *
 * The search: recursive bisection.  The whole series is a segment; its best
 * split is a candidate, kept when Welch's two-sided t test between the left
 * and right parts gives p < alpha and the change of the medians
 * (after / before - 1) is at least min_change in size, and the means of the
 * two parts differ by more than half the series' resolution (the smallest
 * step between its distinct values: a series with no spread has no change
 * point at all, and two parts whose means differ by rounding are one
 * level); a kept split makes
 * two segments, searched the same way; a candidate that fails ends its
 * segment.  Then every kept point is judged again against its final
 * neighbouring segments (the runs between it and the change points either
 * side): while one fails, the weakest (largest p) is dropped and the rest
 * judged again, so each point reported is significant against the runs it
 * actually separates.
 *
 * Pure functions: no I/O; the best split takes O(n log n) (sums of
 * distances through a Fenwick tree over the ranks), so a series of 10,000
 * runs is searched in milliseconds.  Unit-tested in
 * tests/unit/test_history.c against values computed by hand (python3).
 */
#ifndef TPCC_EDIVISIVE_H
#define TPCC_EDIVISIVE_H

/* How the search keeps a split. */
struct ed_opts {
    double alpha;      /* Welch's p must be below this (0.001) */
    double min_change; /* |after / before - 1| at least this, as a fraction (0) */
    int min_runs;      /* runs on each side of a split, at least (4; 2 or more) */
};

/* One change point. */
struct ed_point {
    int at;            /* the first run of the new segment (x[at] is after the change) */
    int from, to;      /* its neighbouring segments: x[from..at) and x[at..to) */
    double q;          /* the statistic at the split when it was found */
    double med_before; /* medians of the two segments */
    double med_after;
    double change; /* med_after / med_before - 1 (NAN when med_before is 0) */
    double ci_lo;  /* 95 % interval of the change (Welch on the logarithms, as
                    * results/signif.h); NAN when a value is not positive */
    double ci_hi;
    double p; /* Welch's two-sided p between the segments */
};

/* q(tau) of x[0..n) by the definition: O(n^2), for the tests. */
double ed_qhat(const double *x, int n, int tau);

/*
 * The best split of x[0..n) with at least min_runs (>= 1) on each side:
 * its index into *tau and q as the result; NAN (and *tau -1) when n <
 * 2 * min_runs.  Ties go to the earliest tau.  O(n log n), heap memory
 * only (returns NAN when out of memory too).
 */
double ed_best_split(const double *x, int n, int min_runs, int *tau);

/* Welch's two-sided t test of the means of a and b (na, nb >= 2): p. */
double ed_welch_p(const double *a, int na, const double *b, int nb);

/* The median of v[0..n) (any n); NAN when n is 0.  v is not changed. */
double ed_median(const double *v, int n);

/*
 * The resolution of x[0..n): the smallest step between two of its distinct
 * values, 0 when there are none (no spread: every value the same, or n < 2).
 */
double ed_resolution(const double *x, int n);

/* Fill p's medians, change, interval and p-value from x[p->from .. p->to). */
void ed_judge(const double *x, struct ed_point *p);

/*
 * The change points of x[0..n) (no NAN in it), in order of at, into out
 * (at most max); their count, or -1 when out of memory.
 */
int ed_change_points(const double *x, int n, const struct ed_opts *o, struct ed_point *out,
                     int max);

#endif
