/*
 * histjson.h - a latency histogram (core/hist.h) as JSON in run.json, in a
 * compact form that merges exactly, and back.
 *
 * The form: {"sub_bits": 7, "range_bits": 32, "n": N, "sum_us": S,
 * "min_us": MIN, "max_us": MAX, "overflow": O, "buckets": [i, c, i, c, ...]}
 * where the buckets are the non-zero ones only, as pairs of bucket index (of
 * hist_bucket_of, ascending) and count, flat.  min_us and max_us are 0 when
 * n is 0.  A value above 2^63 - 1 (a sum after years of microseconds) is
 * written as a decimal string; the reader takes both.  Decoding two parts'
 * histograms and hist_merge'ing them gives, bucket by bucket, the
 * histogram of all their samples, so percentiles of a merged run come from
 * its counts, never from averaged percentiles.
 */
#ifndef TPCC_HISTJSON_H
#define TPCC_HISTJSON_H

#include <jansson.h>

#include "core/err.h"
#include "core/hist.h"

/* h as a new JSON object; NULL when memory runs out. */
json_t *histjson_encode(const struct hist *h);

/*
 * Rebuild *h from what histjson_encode wrote.  Refused (E_USAGE, a message
 * naming the field; *h is then left empty): another bucket layout, missing
 * or negative numbers, bucket indexes out of range or not ascending, zero
 * counts, counts that do not add up to n, more overflowed values than the
 * last bucket holds, min or max outside the first or last non-empty bucket.
 */
int histjson_decode(const json_t *j, struct hist *h, struct err *e);

/*
 * The histogram at the dotted path of a run record ("run.transactions.
 * new_order.service.hist", "run.terminals.schedule_lag.hist") into *h:
 * histjson_decode's errors prefixed with the path, and E_USAGE naming the
 * path when the record has none there (a record from before mergeable
 * histograms, or of a run that measured nothing).
 */
int histjson_read(const json_t *doc, const char *path, struct hist *h, struct err *e);

#endif
