/*
 * edivisive.c - E-Divisive with means and the Welch-tested split search
 * (see edivisive.h).  The sums of distances behind q(tau) for every tau of
 * a segment come from one pass: the sum of |x_t - x_k| over all k from the
 * sorted values and their prefix sums, over the k before t from a Fenwick
 * tree of counts and sums indexed by rank.  No I/O.
 */
#include "results/edivisive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/signif.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double ed_median(const double *v, int n)
{
    double *s, m;

    if (n <= 0 || !(s = malloc(sizeof(*s) * (size_t)n)))
        return NAN;
    memcpy(s, v, sizeof(*s) * (size_t)n);
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    free(s);
    return m;
}

/* q from the three sums of a split into m and k runs (see edivisive.h). */
static double q_of(double cross, double left, double right, int m, int k)
{
    double e = 2.0 * cross / ((double)m * k);

    if (m > 1)
        e -= 2.0 * left / ((double)m * (m - 1));
    if (k > 1)
        e -= 2.0 * right / ((double)k * (k - 1));
    return (double)m * k / (m + k) * e;
}

double ed_qhat(const double *x, int n, int tau)
{
    double cross = 0, left = 0, right = 0;

    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d = fabs(x[i] - x[j]);
            if (j < tau)
                left += d;
            else if (i >= tau)
                right += d;
            else
                cross += d;
        }
    return q_of(cross, left, right, tau, n - tau);
}

/* The index of the first sorted value not below v (the rank of v). */
static int lower_bound(const double *s, int n, double v)
{
    int lo = 0, hi = n;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The sum of |v - s_k| over the sorted values s[0..n) with prefix sums pre. */
static double dist_all(const double *s, const double *pre, int n, double v)
{
    int r = lower_bound(s, n, v);

    return v * r - pre[r] + (pre[n] - pre[r]) - v * (n - r);
}

/* A Fenwick tree of counts and sums over ranks 0..n-1. */
struct fenwick {
    double *cnt, *sum;
    int n;
};

static void fw_add(struct fenwick *f, int rank, double v)
{
    for (int i = rank + 1; i <= f->n; i += i & -i) {
        f->cnt[i] += 1.0;
        f->sum[i] += v;
    }
}

/* Count and sum of the values of rank below rank. */
static void fw_below(const struct fenwick *f, int rank, double *cnt, double *sum)
{
    *cnt = *sum = 0.0;
    for (int i = rank; i > 0; i -= i & -i) {
        *cnt += f->cnt[i];
        *sum += f->sum[i];
    }
}

double ed_best_split(const double *x, int n, int min_runs, int *tau)
{
    double *s = NULL, *pre = NULL, total = 0, left = 0, right, best = NAN, pfx = 0;
    struct fenwick f = { NULL, NULL, n };

    *tau = -1;
    if (min_runs < 1)
        min_runs = 1;
    if (n < 2 * min_runs)
        return NAN;
    s = malloc(sizeof(*s) * (size_t)n);
    pre = malloc(sizeof(*pre) * (size_t)(n + 1));
    f.cnt = calloc((size_t)n + 1, sizeof(double));
    f.sum = calloc((size_t)n + 1, sizeof(double));
    if (!s || !pre || !f.cnt || !f.sum)
        goto out;
    memcpy(s, x, sizeof(*s) * (size_t)n);
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    pre[0] = 0;
    for (int i = 0; i < n; i++)
        pre[i + 1] = pre[i] + s[i];
    for (int t = 0; t < n; t++)
        total += dist_all(s, pre, n, x[t]);
    total /= 2.0; /* each pair counted from both ends */
    right = total;
    for (int t = 0; t < n; t++) {
        int r = lower_bound(s, n, x[t]);
        double all = dist_all(s, pre, n, x[t]), cl, sl, before;
        if (t >= min_runs && n - t >= min_runs) {
            double q = q_of(total - left - right, left, right, t, n - t);
            if (isnan(best) || q > best) {
                best = q;
                *tau = t;
            }
        }
        fw_below(&f, r, &cl, &sl);
        /* |x_i - x_t| over i < t: those below, then the rest (equal ones add 0). */
        before = x[t] * cl - sl + (pfx - sl) - x[t] * (t - cl);
        left += before;
        right -= all - before;
        fw_add(&f, r, x[t]);
        pfx += x[t];
    }
out:
    free(s);
    free(pre);
    free(f.cnt);
    free(f.sum);
    return best;
}

/* Mean (less ref) and variance of v[0..n).  The values are taken less ref, a value of the
 * series: runs that all hold one value then give exactly that mean and a variance of exactly 0,
 * where summing them as they are leaves a rounding error that Welch's t divides by (a constant
 * figure came out "changed" with p 1e-17). */
static void mean_var(const double *v, int n, double ref, double *mean, double *var)
{
    double m = 0, ss = 0;

    for (int i = 0; i < n; i++)
        m += v[i] - ref;
    m /= n;
    for (int i = 0; i < n; i++)
        ss += (v[i] - ref - m) * (v[i] - ref - m);
    *mean = m;
    *var = n > 1 ? ss / (n - 1) : 0;
}

double ed_welch_p(const double *a, int na, const double *b, int nb)
{
    double ma, va, mb, vb, sa, sb, se2, t, df;

    if (na < 2 || nb < 2)
        return NAN;
    mean_var(a, na, a[0], &ma, &va);
    mean_var(b, nb, a[0], &mb, &vb);
    sa = va / na;
    sb = vb / nb;
    se2 = sa + sb;
    /* No spread on either side: the means differ or they do not. */
    if (se2 == 0)
        return ma == mb ? 1.0 : 0.0;
    t = (mb - ma) / sqrt(se2);
    df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
    return 2.0 * sig_t_cdf(-fabs(t), df);
}

/* The 95 % interval of after / before - 1 from the logarithms (as signif.h). */
static void log_interval(const double *a, int na, const double *b, int nb, double *lo, double *hi)
{
    double *la = malloc(sizeof(*la) * (size_t)(na + nb)), d, dl, dh, df;

    *lo = *hi = NAN;
    if (!la)
        return;
    for (int i = 0; i < na + nb; i++) {
        double v = i < na ? a[i] : b[i - na];
        if (!(v > 0) || isinf(v)) {
            free(la);
            return;
        }
        la[i] = log(v);
    }
    if (sig_welch(la, na, la + na, nb, 0.95, &d, &dl, &dh, &df) == 0) {
        *lo = exp(dl) - 1.0;
        *hi = exp(dh) - 1.0;
    }
    free(la);
}

void ed_judge(const double *x, struct ed_point *p)
{
    const double *a = x + p->from, *b = x + p->at;
    int na = p->at - p->from, nb = p->to - p->at;

    p->med_before = ed_median(a, na);
    p->med_after = ed_median(b, nb);
    p->change = p->med_before != 0 ? p->med_after / p->med_before - 1.0 : NAN;
    p->p = ed_welch_p(a, na, b, nb);
    log_interval(a, na, b, nb, &p->ci_lo, &p->ci_hi);
}

double ed_resolution(const double *x, int n)
{
    double *s, res = 0;

    if (n < 2 || !(s = malloc(sizeof(*s) * (size_t)n)))
        return 0;
    memcpy(s, x, sizeof(*s) * (size_t)n);
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    for (int i = 1; i < n; i++)
        if (s[i] > s[i - 1] && (res == 0 || s[i] - s[i - 1] < res))
            res = s[i] - s[i - 1];
    free(s);
    return res;
}

/* Whether the sides of p differ by more than the rounding of the values: their means by more
 * than half the resolution res (a whole step in every run is a change; less than half a step
 * is what a value between two recorded ones would round away). */
static int differs(const double *x, const struct ed_point *p, double res)
{
    double ma, mb, va, vb;

    mean_var(x + p->from, p->at - p->from, x[p->from], &ma, &va);
    mean_var(x + p->at, p->to - p->at, x[p->from], &mb, &vb);
    return fabs(mb - ma) > res / 2;
}

/* Whether p passes: its sides differ (differs), it is significant, and the change is big enough
 * (an undefined change passes only 0). */
static int kept(const double *x, const struct ed_point *p, const struct ed_opts *o, double res)
{
    if (!(p->p < o->alpha) || !differs(x, p, res))
        return 0;
    if (isnan(p->change))
        return o->min_change <= 0;
    return fabs(p->change) >= o->min_change - 1e-12;
}

static int by_at(const void *a, const void *b)
{
    return ((const struct ed_point *)a)->at - ((const struct ed_point *)b)->at;
}

/* Judge the points against their final neighbours, dropping the weakest failing one until all
 * pass; the count left. */
static int prune(const double *x, int n, const struct ed_opts *o, double res, struct ed_point *pts,
                 int k)
{
    for (;;) {
        int worst = -1;
        qsort(pts, (size_t)k, sizeof(*pts), by_at);
        for (int i = 0; i < k; i++) {
            pts[i].from = i ? pts[i - 1].at : 0;
            pts[i].to = i + 1 < k ? pts[i + 1].at : n;
            ed_judge(x, &pts[i]);
            if (!kept(x, &pts[i], o, res) && (worst < 0 || !(pts[i].p <= pts[worst].p)))
                worst = i;
        }
        if (worst < 0)
            return k;
        memmove(pts + worst, pts + worst + 1, sizeof(*pts) * (size_t)(k - worst - 1));
        k--;
    }
}

int ed_change_points(const double *x, int n, const struct ed_opts *o, struct ed_point *out, int max)
{
    /* Segments still to search: at most one per kept point plus one. */
    int *seg = malloc(sizeof(*seg) * 2 * (size_t)(max + 1)), nseg = 0, k = 0;
    int min_runs = o->min_runs < 2 ? 2 : o->min_runs;
    /* No spread (every run the same value): nothing can have changed. */
    double res = ed_resolution(x, n);

    if (!seg)
        return -1;
    if (!(res > 0)) {
        free(seg);
        return 0;
    }
    seg[nseg++] = 0;
    seg[nseg++] = n;
    while (nseg > 0) {
        int to = seg[--nseg], from = seg[--nseg], tau;
        struct ed_point p;
        memset(&p, 0, sizeof(p));
        p.q = ed_best_split(x + from, to - from, min_runs, &tau);
        if (isnan(p.q) || k >= max)
            continue;
        p.at = from + tau;
        p.from = from;
        p.to = to;
        ed_judge(x, &p);
        if (!kept(x, &p, o, res))
            continue;
        out[k++] = p;
        seg[nseg++] = from;
        seg[nseg++] = p.at;
        seg[nseg++] = p.at;
        seg[nseg++] = to;
    }
    free(seg);
    return prune(x, n, o, res, out, k);
}
