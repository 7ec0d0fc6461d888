/*
 * merge.h - the parts of a scale-out run merged into one record (cmd/merge.c).
 */
#ifndef TPCC_CMD_MERGE_H
#define TPCC_CMD_MERGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct merge_in {
    const char *run_id;
    int gen, n; /* the attempt, and its number of parts */
    /* n rows in part order: {"state", "host", "first_w", "last_w",
     * "summary" (a part summary, or null when the part left none)} */
    const json_t *rows;
    int64_t count_open, count_close; /* the database's counts at the edges, -1: not taken */
    const json_t *base;              /* a part's record to start from (tool, config, environment) */
    const char *results_dir, *label;
    const char *by; /* "the last part (3)", "tpccbench merge" */
};

/* Write the merged record into a new RESULTS/<time>-<label>/ (its name into
 * dir_out) and print its summary.  E_FAIL when no part left a summary. */
int merge_write(const struct merge_in *in, char *dir_out, size_t dir_len, struct err *e);

#endif
