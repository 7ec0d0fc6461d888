/*
 * partsum.h - one part's run as JSON that merges exactly (its counts, its
 * histograms in results/histjson.h's form, its series), and the merge of
 * several parts into one struct run_result that figures.c then judges as
 * if one driver had run them all.
 *
 * The summary is what each part leaves in tpcc_run_part and in its own
 * run.json ("part": {..., "summary": ...}), so the last part and
 * `tpccbench merge` merge the same thing.
 */
#ifndef TPCC_PARTSUM_H
#define TPCC_PARTSUM_H

#include <jansson.h>

#include "core/err.h"
#include "run/driver.h"

/* r, and what figures.c reads of cfg, as a new JSON object (NULL when
 * memory runs out). */
json_t *partsum_encode(const struct run_result *r, const struct config *cfg);

/* Rebuild *r (zeroed first; release with run_result_release) from what
 * partsum_encode wrote, and when cfg is not NULL what it kept of the config
 * over cfg (defaults first).  E_USAGE naming the field when it does not fit. */
int partsum_decode(const json_t *j, struct run_result *r, struct config *cfg, struct err *e);

/*
 * *out = the n parts as one run: counts and histograms added, terminals,
 * connections and CPU summed, the measured window the longest of them,
 * series rows of the same second added (their percentiles: the largest of
 * the parts'), Stock-Level pairs listed together.  status is "complete"
 * only when every part's is; the database count is left to the caller.
 */
int partsum_merge(const struct run_result *parts, int n, struct run_result *out, struct err *e);

#endif
