/*
 * meet.h - the parts of a scale-out run meeting in the database under test
 * (table tpcc_run_part, statements in schema/<dialect>/meet.sql).
 *
 * Each part registers under the run id, waits until all N have (bounded by
 * run.part_timeout, then it fails naming the missing parts), and all start
 * at one instant agreed there, converted to each part's clock through the
 * offset measured against the database's.  At both edges of the measured
 * window every part pauses its terminals and says so; part 1 then takes the
 * database's New-Order count once for all, so the merged record compares
 * the count of every part's New-Orders with the database's over one window.
 * A part that stops beating for MEET_STALE_S (killed, cut off) is not waited
 * for.  At the end each part leaves its summary; the last one to finish (or
 * the first after the others are gone) merges.
 *
 * One connection of its own, opened by meet_open.  Not thread-safe: the
 * monitor (driver.c) and the command (cmd/run.c) call it in turn.
 */
#ifndef TPCC_MEET_H
#define TPCC_MEET_H

#include <jansson.h>
#include <stdint.h>

#include "core/err.h"
#include "core/part.h"
#include "db/db.h"
#include "db/dialect.h"

/* A part whose row has not beaten for this long is gone. */
#define MEET_STALE_S 10.0

enum meet_edge { MEET_OPEN, MEET_CLOSE };

struct meet {
    struct db_conn *c;
    struct dialect d;
    char run_id[PART_RUN_ID_MAX + 1];
    int gen;             /* the attempt of the run this part joined */
    int joined;          /* 1: registered in it */
    int k, n;            /* this part, of n */
    int first_w, last_w; /* its warehouses (first > last: none) */
    char host[256];
    uint64_t timeout_us;  /* run.part_timeout */
    double offset_ms;     /* the database's clock minus ours, at the start */
    double offset_rtt_ms; /* the round trip of the sample it came from */
    int64_t start_at_us;  /* the agreed start, database clock (us since the epoch) */
    uint64_t last_beat_us;
    char gone[256]; /* parts found gone at the last wait: "3" or "2, 4" */
};

/*
 * Connect through ops/args (dialect's meet.sql), create tpcc_run_part when
 * missing, and register part k of n of run_id with its warehouses.  An
 * attempt of the run that has not started and lacks this part is joined,
 * else a new one begins.  E_USAGE when the attempt being joined has another
 * number of parts, or when the dialect has no meeting statements.
 */
int meet_open(struct meet *m, const struct db_ops *ops, const struct db_connect_args *args,
              const char *dialect, const char *run_id, int k, int n, int first_w, int last_w,
              uint64_t timeout_us, struct err *e);

/*
 * Wait until all n parts have registered (E_FAIL naming the missing ones
 * after the timeout, E_INTR on a stop request), measure the clock offset,
 * agree on the start and sleep until it.
 */
int meet_start(struct meet *m, struct err *e);

/*
 * An edge of the window, with this part's terminals paused: say so, then
 * part 1 waits for every live part to pause, calls count (the database's
 * New-Order count) and publishes it; the others wait for it.  0 with *out,
 * or E_FAIL with e saying why there is no count (a part gone, part 1 gone,
 * the timeout): the run goes on, the merged record says so.
 */
int meet_edge(struct meet *m, enum meet_edge edge,
              int (*count)(void *ctx, int64_t *out, struct err *e), void *ctx, int64_t *out,
              struct err *e);

/* This part is alive (at most one write a second); failures are ignored. */
void meet_beat(struct meet *m);

/*
 * Leave this part's state ("done" or "failed") and summary (JSON text).
 * Then wait, bounded by the timeout, until every part has ended or is gone;
 * the one that finds that first is the merger (*merger = 1) and gets
 * *rows: [{"part", "state", "host", "first_w", "last_w", "gone",
 * "summary" (decoded, or null)}] and *count_open / *count_close (-1 when
 * not taken).
 */
int meet_finish(struct meet *m, const char *state, const char *summary, int *merger, json_t **rows,
                int64_t *count_open, int64_t *count_close, struct err *e);

/* {"run_id", "gen", "clock_offset_ms", "clock_offset_rtt_ms"} for the record. */
json_t *meet_json(const struct meet *m);

void meet_close(struct meet *m);

#endif
