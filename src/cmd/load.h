/*
 * load.h - the load command's pieces that bench reuses.
 */
#ifndef TPCC_CMD_LOAD_H
#define TPCC_CMD_LOAD_H

#include <jansson.h>

#include "cmd/cmd.h"

struct mserve;
struct runrec;

/* Load through session s, filling rec's "load" (and status and error on
 * failure; rec is not written).  With serve (not NULL): the live endpoint
 * shows the load's rows by table, steps and phase, and the OS and database
 * figures, once a second. */
int load_with_session(struct session *s, struct runrec *rec, int resume, struct mserve *serve,
                      struct err *e);
/* The same as part (not NULL, n > 1) of a load of several, whose parts share
 * run_id (kept for the call only): loads part's warehouse range and meets
 * the other parts in the database (tpcc/loadpart.h). */
int load_part_with_session(struct session *s, struct runrec *rec, int resume,
                           struct mserve *serve, const struct part *part, const char *run_id,
                           struct err *e);

#endif
