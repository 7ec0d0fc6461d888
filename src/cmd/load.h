/*
 * load.h - the load command's pieces that bench reuses.
 */
#ifndef TPCC_CMD_LOAD_H
#define TPCC_CMD_LOAD_H

#include <jansson.h>

#include "cmd/cmd.h"

/* A new run record with status "running" (tool, label, config, environment). */
json_t *record_begin(const struct config *cfg, const char *kind);
struct mserve;

/* Load through session s, filling rec's "load" (and "status"/"error" on
 * failure).  With serve (not NULL): the live endpoint shows the load's rows
 * by table, steps and phase, and the OS and database figures, once a second. */
int load_with_session(struct session *s, json_t *rec, const char *dir, int resume,
                      struct mserve *serve, struct err *e);
/* The same as part (not NULL, n > 1) of a load of several, whose parts share
 * run_id (kept for the call only): loads part's warehouse range and meets
 * the other parts in the database (tpcc/loadpart.h). */
int load_part_with_session(struct session *s, json_t *rec, const char *dir, int resume,
                           struct mserve *serve, const struct part *part, const char *run_id,
                           struct err *e);

#endif
