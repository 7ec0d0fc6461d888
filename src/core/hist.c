/*
 * hist.c - the log-linear latency histogram: bucket maths, recording, merging,
 * snapshot deltas and percentiles.
 *
 * Bucket layout, with S = HIST_N_SUB = 2^HIST_SUB_BITS: values 0 .. 2S - 1
 * have a bucket each (bucket = value).  A larger value v with its top bit at
 * position e is shifted right by shift = e - HIST_SUB_BITS, which leaves a
 * mantissa in S .. 2S - 1, and its bucket is shift * S + mantissa.  The two
 * rules agree at shift 0, so buckets are contiguous: 0 .. 2S - 1, then S per
 * power of two.  The width of a bucket is 2^shift and its low bound at least
 * S * 2^shift, hence the 1/S relative width.
 *
 * hist_record() is the per-transaction path and must stay free of locks,
 * atomics, division and allocation.  Nothing here prints.
 */
#include "core/hist.h"

#include <math.h>
#include <string.h>

_Static_assert(sizeof(struct hist) <= 32 * 1024, "struct hist should stay a few tens of KB");
_Static_assert(HIST_RANGE_BITS > HIST_SUB_BITS && HIST_RANGE_BITS < 64, "bad histogram range");

/* Index of the highest set bit of v, which must be non-zero. */
static int hist_top_bit(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(v);
#else
    int e = 0;

    while (v >>= 1)
        e++;
    return e;
#endif
}

int hist_bucket_of(uint64_t value_us)
{
    int shift;

    if (value_us > HIST_MAX_US)
        return HIST_N_BUCKETS - 1;
    if (value_us < 2 * HIST_N_SUB)
        return (int)value_us;
    shift = hist_top_bit(value_us) - HIST_SUB_BITS;
    return (shift << HIST_SUB_BITS) + (int)(value_us >> shift);
}

/* Clamp a bucket index into the valid range. */
static int hist_clamp_bucket(int b)
{
    if (b < 0)
        return 0;
    if (b >= HIST_N_BUCKETS)
        return HIST_N_BUCKETS - 1;
    return b;
}

uint64_t hist_bucket_low(int b)
{
    int shift;
    uint64_t mantissa;

    b = hist_clamp_bucket(b);
    if (b < 2 * HIST_N_SUB)
        return (uint64_t)b;
    /* Invert hist_bucket_of(): b = shift * S + mantissa, mantissa in S .. 2S - 1. */
    shift = (b >> HIST_SUB_BITS) - 1;
    mantissa = (uint64_t)(b & (HIST_N_SUB - 1)) + HIST_N_SUB;
    return mantissa << shift;
}

uint64_t hist_bucket_high(int b)
{
    int shift;

    b = hist_clamp_bucket(b);
    if (b < 2 * HIST_N_SUB)
        return (uint64_t)b;
    shift = (b >> HIST_SUB_BITS) - 1;
    return hist_bucket_low(b) + (UINT64_C(1) << shift) - 1;
}

void hist_init(struct hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min_us = UINT64_MAX;
}

void hist_reset(struct hist *h)
{
    hist_init(h);
}

void hist_record(struct hist *h, uint64_t value_us)
{
    if (value_us > HIST_MAX_US)
        h->n_overflow++;
    h->counts[hist_bucket_of(value_us)]++;
    h->n_samples++;
    h->sum_us += value_us;
    if (value_us < h->min_us)
        h->min_us = value_us;
    if (value_us > h->max_us)
        h->max_us = value_us;
}

/* The buckets that may hold counts: those of h's min and max and between
 * (every histogram here keeps its counts there: hist_record, hist_merge,
 * hist_sub and the JSON reader keep min and max in the first and last
 * non-empty buckets).  An empty one has none: *lo > *hi. */
static void hist_used(const struct hist *h, int *lo, int *hi)
{
    if (h->n_samples == 0) {
        *lo = 1;
        *hi = 0;
        return;
    }
    *lo = hist_bucket_of(h->min_us);
    *hi = hist_bucket_of(h->max_us);
}

void hist_clear(struct hist *h)
{
    int lo, hi;

    hist_used(h, &lo, &hi);
    if (lo <= hi)
        memset(h->counts + lo, 0, (size_t)(hi - lo + 1) * sizeof(h->counts[0]));
    h->n_samples = h->n_overflow = h->sum_us = h->max_us = 0;
    h->min_us = UINT64_MAX;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    int b, hi;

    /* Only src's used buckets: the rest add nothing (a monitor merges a
     * dozen histograms per connection each second). */
    for (hist_used(src, &b, &hi); b <= hi; b++)
        dst->counts[b] += src->counts[b];
    dst->n_samples += src->n_samples;
    dst->n_overflow += src->n_overflow;
    dst->sum_us += src->sum_us;
    /* An empty src has min UINT64_MAX and max 0, so it changes neither. */
    if (src->min_us < dst->min_us)
        dst->min_us = src->min_us;
    if (src->max_us > dst->max_us)
        dst->max_us = src->max_us;
}

/* a - b, or 0 where b is larger (b was not an earlier snapshot of a). */
static uint64_t hist_sat_sub(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

void hist_sub(struct hist *dst, const struct hist *a, const struct hist *b)
{
    /* Read a's extremes first: dst may alias a. */
    uint64_t a_min_us = a->min_us, a_max_us = a->max_us;
    uint64_t n_overflow = hist_sat_sub(a->n_overflow, b->n_overflow);
    uint64_t sum_us = hist_sat_sub(a->sum_us, b->sum_us);
    uint64_t n_samples = 0;
    int first = -1, last = -1;
    int i, lo, hi;

    /* Only a's used buckets can hold a difference; zero the rest of dst
     * (where dst is a, they are zero already). */
    hist_used(a, &lo, &hi);
    if (dst != a) {
        if (lo > hi) {
            memset(dst->counts, 0, sizeof(dst->counts));
        } else {
            memset(dst->counts, 0, (size_t)lo * sizeof(dst->counts[0]));
            memset(dst->counts + hi + 1, 0,
                   (size_t)(HIST_N_BUCKETS - 1 - hi) * sizeof(dst->counts[0]));
        }
    }
    /* Element by element, so aliasing is harmless here too. */
    for (i = lo; i <= hi; i++) {
        uint64_t c = hist_sat_sub(a->counts[i], b->counts[i]);

        dst->counts[i] = c;
        if (c == 0)
            continue;
        n_samples += c;
        if (first < 0)
            first = i;
        last = i;
    }
    dst->n_samples = n_samples;
    dst->n_overflow = n_overflow;
    dst->sum_us = sum_us;
    if (n_samples == 0) {
        dst->min_us = UINT64_MAX;
        dst->max_us = 0;
        return;
    }

    /*
     * The bucket bounds bracket the delta's true min and max, and so do a's
     * exact min and max; take the tighter of each.  When the interval moved
     * a's min, that value sits in the first non-empty bucket and the clamp
     * returns it exactly; likewise for the max.  The last bucket also holds
     * overflowed values, so only a's max bounds it.
     */
    dst->min_us = hist_bucket_low(first);
    if (dst->min_us < a_min_us)
        dst->min_us = a_min_us;
    dst->max_us = last == HIST_N_BUCKETS - 1 ? a_max_us : hist_bucket_high(last);
    if (dst->max_us > a_max_us)
        dst->max_us = a_max_us;
}

void hist_copy_grown(struct hist *dst, const struct hist *src)
{
    int lo, hi;

    hist_used(src, &lo, &hi);
    dst->n_samples = src->n_samples;
    dst->n_overflow = src->n_overflow;
    dst->sum_us = src->sum_us;
    dst->min_us = src->min_us;
    dst->max_us = src->max_us;
    if (lo <= hi)
        memcpy(dst->counts + lo, src->counts + lo, (size_t)(hi - lo + 1) * sizeof(src->counts[0]));
}

/*
 * The 1-based nearest rank for pct: ceil(pct / 100 * n), clamped to 1 .. n.
 * Products that miss an integer by floating-point noise (99.9 * 1000 / 100 is
 * 999.0000000000001) are taken as that integer, so p99 of 100 values is the
 * 99th and not the 100th.
 */
static uint64_t hist_rank(double pct, uint64_t n)
{
    double x = pct * (double)n / 100.0;
    double whole = floor(x);
    uint64_t rank = (uint64_t)whole;

    if (x - whole > 1e-9 * (x > 1.0 ? x : 1.0))
        rank++;
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return rank;
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
    uint64_t rank, seen = 0, value_us, low, high;
    int b;

    if (h->n_samples == 0)
        return 0;
    if (pct <= 0.0)
        return h->min_us;
    if (pct >= 100.0)
        return h->max_us;

    rank = hist_rank(pct, h->n_samples);
    for (b = 0; b < HIST_N_BUCKETS - 1; b++) {
        seen += h->counts[b];
        if (seen >= rank)
            break;
    }
    if (b == HIST_N_BUCKETS - 1 && h->n_overflow > 0)
        return h->max_us;

    low = hist_bucket_low(b);
    high = hist_bucket_high(b);
    value_us = low + (high - low) / 2;
    if (value_us < h->min_us)
        value_us = h->min_us;
    if (value_us > h->max_us)
        value_us = h->max_us;
    return value_us;
}

double hist_mean(const struct hist *h)
{
    if (h->n_samples == 0)
        return 0.0;
    return (double)h->sum_us / (double)h->n_samples;
}
