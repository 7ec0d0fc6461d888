/*
 * signif.h - is a gain real?  The statistics of repeated runs: medians,
 * Student's t distribution, Welch's t interval, and the verdict on a gain.
 *
 * A gain compares the runs of an old step with those of a new one.  Its
 * point estimate is the gain of the medians (as `compare` shows it); its 95 %
 * confidence interval is Welch's t interval for the difference of the mean
 * logarithms of the two samples, turned back into a ratio (a ratio of
 * geometric means) and then into the gain.  Logarithms because a gain is a
 * ratio, and because they keep the interval of a positive figure positive.
 * Welch's interval does not assume equal variances; with 2 runs a step it is
 * wide (t at about 1 to 2 degrees of freedom is 12.7 to 4.3), which is the
 * honest answer to two runs.
 *
 * The verdict: a significant gain when the whole interval lies on the
 * better side of no change, a significant loss when it lies on the worse
 * side, else within noise; none when either step has fewer than 2 runs (or
 * a figure that is not positive), as one run has no spread to judge by.
 *
 * Pure functions: no I/O, no allocation beyond the stack.  Unit-tested in
 * tests/unit/test_signif.c against values from python3's mpmath.
 */
#ifndef TPCC_SIGNIF_H
#define TPCC_SIGNIF_H

/* Most runs of one step a comparison takes. */
#define SIG_MAX_N 1000

/* How a figure gains. */
enum sig_kind {
    SIG_UP = 0,   /* throughput: gain = new / old - 1, better when positive */
    SIG_DOWN,     /* a time that gains when it shrinks (load): gain = old / new - 1 */
    SIG_CHANGE,   /* latency: change = new / old - 1, better when negative */
};

enum sig_verdict {
    SIG_NONE = 0, /* too few runs to judge (or figures missing) */
    SIG_NOISE,    /* the interval holds no change */
    SIG_GAIN,     /* significant gain (better) */
    SIG_LOSS,     /* significant loss (worse) */
};

struct sig_result {
    double gain;  /* gain (or change) of the medians as a fraction; NAN when undefined */
    double lo;    /* 95 % confidence interval of the gain, as fractions; NAN when none */
    double hi;
    double df;    /* Welch-Satterthwaite degrees of freedom; NAN when none */
    int n_old;    /* runs used on each side */
    int n_new;
    int verdict;  /* enum sig_verdict */
};

/* Median of v[0..n-1] (NAN values skipped); NAN when none.  v is not changed. */
double sig_median(const double *v, int n);

/* Student's t distribution with df > 0 degrees of freedom: P(T <= t). */
double sig_t_cdf(double t, double df);
/* Its quantile: the t with P(T <= t) = p, for 0 < p < 1. */
double sig_t_quantile(double p, double df);

/*
 * Welch's two-sided interval at confidence level (0.95) for mean(b) -
 * mean(a).  Needs na, nb >= 2.  *diff the difference of means, *lo, *hi
 * the interval, *df the degrees of freedom (infinite when both variances
 * are 0: the interval is then the point).  0, or -1 when the samples are
 * too small.
 */
int sig_welch(const double *a, int na, const double *b, int nb, double level, double *diff,
              double *lo, double *hi, double *df);

/*
 * The gain of new over old (n runs each; NAN values are left out) for a
 * figure of kind, with its 95 % interval and verdict.
 */
void sig_compare(const double *old_v, int n_old, const double *new_v, int n_new, int kind,
                 struct sig_result *r);

/* "significant gain", "significant loss", "within noise", "one run" */
const char *sig_verdict_name(int verdict);

#endif
