/*
 * signif.c - medians, Student's t, Welch's interval and the verdict on a
 * gain (see signif.h).  The t distribution comes from the regularized
 * incomplete beta function, evaluated by its continued fraction (modified
 * Lentz), and is inverted by bisection: slow next to a table, but exact to
 * about 1e-12 at any fractional degrees of freedom, which Welch needs.
 */
#include "results/signif.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double sig_median(const double *v, int n)
{
    double s[SIG_MAX_N];
    int k = 0;

    for (int i = 0; i < n && k < SIG_MAX_N; i++)
        if (!isnan(v[i]))
            s[k++] = v[i];
    if (k == 0)
        return NAN;
    qsort(s, (size_t)k, sizeof(s[0]), cmp_double);
    return k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2.0;
}

/* The continued fraction of the incomplete beta function (Numerical Recipes 6.4). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double qab = a + b, qap = a + 1.0, qam = a - 1.0, c = 1.0, d = 1.0 - qab * x / qap, h;

    if (fabs(d) < tiny)
        d = tiny;
    d = 1.0 / d;
    h = d;
    for (int m = 1; m <= 1000; m++) {
        double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2)), del;
        d = 1.0 + aa * d;
        if (fabs(d) < tiny)
            d = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < tiny)
            d = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1.0 / d;
        del = d * c;
        h *= del;
        if (fabs(del - 1.0) < eps)
            break;
    }
    return h;
}

/* I_x(a, b), the regularized incomplete beta function, 0 <= x <= 1. */
static double beta_inc(double a, double b, double x)
{
    double front;

    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    /* The fraction converges fast only below the mean; use the symmetry above it. */
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_cf(a, b, x) / a;
    return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double sig_t_cdf(double t, double df)
{
    double tail;

    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return t > 0 ? 1.0 : 0.0;
    tail = 0.5 * beta_inc(df / 2.0, 0.5, df / (df + t * t)); /* P(T > |t|) */
    return t >= 0 ? 1.0 - tail : tail;
}

double sig_t_quantile(double p, double df)
{
    double lo = 0.0, hi = 1.0;

    if (!(p > 0.0 && p < 1.0) || !(df > 0))
        return NAN;
    if (p == 0.5)
        return 0.0;
    if (p < 0.5)
        return -sig_t_quantile(1.0 - p, df);
    while (sig_t_cdf(hi, df) < p && hi < 1e300)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
        double mid = (lo + hi) / 2.0;
        if (sig_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2.0;
}

/* Mean and sample variance (n - 1) of v[0..n-1]. */
static void mean_var(const double *v, int n, double *mean, double *var)
{
    double m = 0.0, ss = 0.0;

    for (int i = 0; i < n; i++)
        m += v[i];
    m /= n;
    for (int i = 0; i < n; i++)
        ss += (v[i] - m) * (v[i] - m);
    *mean = m;
    *var = n > 1 ? ss / (n - 1) : 0.0;
}

int sig_welch(const double *a, int na, const double *b, int nb, double level, double *diff,
              double *lo, double *hi, double *df)
{
    double ma, va, mb, vb, sa, sb, se2, t;

    if (na < 2 || nb < 2 || !(level > 0.0 && level < 1.0))
        return -1;
    mean_var(a, na, &ma, &va);
    mean_var(b, nb, &mb, &vb);
    sa = va / na;
    sb = vb / nb;
    se2 = sa + sb;
    *diff = mb - ma;
    if (se2 == 0.0) {
        *lo = *hi = *diff;
        *df = INFINITY;
        return 0;
    }
    *df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
    t = sig_t_quantile(1.0 - (1.0 - level) / 2.0, *df);
    *lo = *diff - t * sqrt(se2);
    *hi = *diff + t * sqrt(se2);
    return 0;
}

/* The gain of kind for the ratio new / old. */
static double gain_of(int kind, double ratio)
{
    return kind == SIG_DOWN ? 1.0 / ratio - 1.0 : ratio - 1.0;
}

/* Copy the logarithms of the usable values of v into out; -1 when one is not positive. */
static int logs(const double *v, int n, double *out, int *k)
{
    *k = 0;
    for (int i = 0; i < n && *k < SIG_MAX_N; i++) {
        if (isnan(v[i]))
            continue;
        if (!(v[i] > 0.0) || isinf(v[i]))
            return -1;
        out[(*k)++] = log(v[i]);
    }
    return 0;
}

void sig_compare(const double *old_v, int n_old, const double *new_v, int n_new, int kind,
                 struct sig_result *r)
{
    double lo_l[SIG_MAX_N], ln_l[SIG_MAX_N], mo = sig_median(old_v, n_old),
                                             mn = sig_median(new_v, n_new);
    double d, dl, dh, df;
    int ko, kn;

    memset(r, 0, sizeof(*r));
    r->gain = r->lo = r->hi = r->df = NAN;
    r->verdict = SIG_NONE;
    if (!isnan(mo) && !isnan(mn) && mo > 0 && mn > 0)
        r->gain = gain_of(kind, mn / mo);
    if (logs(old_v, n_old, lo_l, &ko) < 0 || logs(new_v, n_new, ln_l, &kn) < 0)
        return;
    r->n_old = ko;
    r->n_new = kn;
    if (sig_welch(lo_l, ko, ln_l, kn, 0.95, &d, &dl, &dh, &df) < 0)
        return;
    r->df = df;
    if (kind == SIG_DOWN) {
        r->lo = gain_of(kind, exp(dh));
        r->hi = gain_of(kind, exp(dl));
    } else {
        r->lo = gain_of(kind, exp(dl));
        r->hi = gain_of(kind, exp(dh));
    }
    if (r->lo > 0.0)
        r->verdict = kind == SIG_CHANGE ? SIG_LOSS : SIG_GAIN;
    else if (r->hi < 0.0)
        r->verdict = kind == SIG_CHANGE ? SIG_GAIN : SIG_LOSS;
    else
        r->verdict = SIG_NOISE;
}

const char *sig_verdict_name(int verdict)
{
    switch (verdict) {
    case SIG_NOISE:
        return "within noise";
    case SIG_GAIN:
        return "significant gain";
    case SIG_LOSS:
        return "significant loss";
    default:
        return "too few runs";
    }
}
