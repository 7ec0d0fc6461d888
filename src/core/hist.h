/*
 * hist.h - a fixed-size log-linear latency histogram over microseconds, in the
 * spirit of HdrHistogram.
 *
 * Each power of two is split into HIST_N_SUB (128) equal sub-buckets, so a
 * bucket is never wider than 1/128 of its lower bound and a reported
 * percentile is within 0.4 % of the recorded value it stands for.  Values
 * below 2 * HIST_N_SUB (256 us) get one bucket each and are exact.  The range
 * is 0 .. HIST_MAX_US (2^32 - 1 us, about 71.6 minutes); larger values are
 * counted in the last bucket and in n_overflow, but still enter min, max and
 * sum with their real value.
 *
 * The bucket maths (hist_bucket_of/low/high) are pure functions, separate
 * from the storage, so they can be tested on their own.  struct hist holds
 * its counts inline (no allocation): 26,664 bytes on LP64, so a virtual user
 * can embed one.  Nothing here locks: each thread records into its own
 * histogram and the main thread merges them (hist_merge) or takes per-second
 * deltas of snapshots (hist_sub).  Nothing here prints or allocates.
 */
#ifndef TPCC_HIST_H
#define TPCC_HIST_H

#include <stdint.h>

/* log2 of the number of sub-buckets per power of two. */
#define HIST_SUB_BITS 7
/* Sub-buckets per power of two; bucket width / bucket low <= 1 / HIST_N_SUB. */
#define HIST_N_SUB (1 << HIST_SUB_BITS)
/* Values up to 2^HIST_RANGE_BITS - 1 us are tracked; the rest overflow. */
#define HIST_RANGE_BITS 32
/* The largest value that does not overflow: 4,294,967,295 us (~71.6 min). */
#define HIST_MAX_US ((UINT64_C(1) << HIST_RANGE_BITS) - 1)
/* Buckets: 2 * HIST_N_SUB exact ones, then HIST_N_SUB per further power of two. */
#define HIST_N_BUCKETS ((HIST_RANGE_BITS - HIST_SUB_BITS + 1) * HIST_N_SUB)

struct hist {
    uint64_t n_samples;              /* values recorded, overflowed ones included */
    uint64_t n_overflow;             /* values above HIST_MAX_US (counted in the last bucket) */
    uint64_t sum_us;                 /* exact sum of the values, for the mean (wraps past 2^64) */
    uint64_t min_us;                 /* exact smallest value; UINT64_MAX while empty */
    uint64_t max_us;                 /* exact largest value; 0 while empty */
    uint64_t counts[HIST_N_BUCKETS]; /* samples per bucket, see hist_bucket_of() */
};

/* The bucket value_us falls into: value_us itself below 2 * HIST_N_SUB, then
 * log-linear; values above HIST_MAX_US give the last bucket.  No division. */
int hist_bucket_of(uint64_t value_us);

/* Smallest value in bucket b (b is clamped to 0 .. HIST_N_BUCKETS - 1). */
uint64_t hist_bucket_low(int b);

/* Largest value in bucket b (b is clamped to 0 .. HIST_N_BUCKETS - 1).  For
 * the last bucket this is HIST_MAX_US, although overflowed values land there
 * too. */
uint64_t hist_bucket_high(int b);

/* Make h empty.  Cheap enough to call on an uninitialised struct. */
void hist_init(struct hist *h);

/* Make h empty again; the same as hist_init(). */
void hist_reset(struct hist *h);
/* hist_init() for an h that holds a histogram (or zeros): clears only the
 * buckets its min and max say may be in use. */
void hist_clear(struct hist *h);

/* Count one value.  The per-transaction hot path: no locks, atomics or
 * division, so h must be owned by the calling thread. */
void hist_record(struct hist *h, uint64_t value_us);

/* dst += src: counts, n_samples, n_overflow and sum add, min and max combine,
 * so the result equals the histogram of both sample sets.  dst == src is
 * allowed (it doubles every count). */
void hist_merge(struct hist *dst, const struct hist *src);

/*
 * dst = a - b, where b is an earlier snapshot (a copy) of the same cumulative
 * histogram a; the result is the histogram of the values recorded in between,
 * e.g. during the last second.  Counts, n_samples, n_overflow and sum are
 * exact.  min and max of the delta are exact when the interval moved a's
 * extreme (a->min_us < b->min_us, a->max_us > b->max_us, or b is empty);
 * otherwise they are approximated from the buckets: min_us is the low bound of
 * the first non-empty bucket, max_us the high bound of the last one, each
 * clamped to a's exact min and max.  The error is then at most one bucket
 * width (<= 1/128), except in the last bucket, which overflowed values share.
 * Should b not be a snapshot of a, counts that would go negative are taken as
 * 0.  dst may be the same struct as a or b.
 */
void hist_sub(struct hist *dst, const struct hist *a, const struct hist *b);

/* dst = src, where dst is empty or an earlier copy of src (src only grew
 * since): only src's used buckets are copied, the others being zero in
 * both.  For per-second snapshots of a histogram that only grows. */
void hist_copy_grown(struct hist *dst, const struct hist *src);

/*
 * The pct percentile (pct in 0 .. 100) by nearest rank: the bucket holding
 * the ceil(pct / 100 * n_samples)-th smallest value, reported as that bucket's
 * midpoint clamped to [min_us, max_us], so within 1/256 (0.39 %) of the
 * recorded value.  pct <= 0 returns the exact min, pct >= 100 the exact max; a
 * percentile that falls in the last bucket while values overflowed returns the
 * exact max.  An empty histogram returns 0.
 */
uint64_t hist_percentile(const struct hist *h, double pct);

/* The exact mean in microseconds (sum / count); 0.0 when empty. */
double hist_mean(const struct hist *h);

#endif
