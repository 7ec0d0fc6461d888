/*
 * runrec.h - a run record being written: run.json of one load, run, bench
 * step or acid test, and its one writer.
 *
 * A command fills a struct runrec with C values; its JSON (doc) is output
 * only: runrec_save() writes it atomically (record_write_json) and then
 * appends its line to the history index of the results folder, where that
 * index exists (history_index_append).  What a command needs to know later
 * (the data directory, its device and filesystem, the part, the status) is
 * a field here, set when it is learnt, never read back out of doc.  The
 * rewrites of records already written (the crashed ones, a study's tag, a
 * merged record) go through runrec_save too, so every run.json keeps its
 * index line.  Nothing here prints or exits.
 */
#ifndef TPCC_RUNREC_H
#define TPCC_RUNREC_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "core/config.h"
#include "core/err.h"
#include "db/db.h"

struct runrec {
    json_t *doc;                   /* run.json as runrec_save() writes it; owned */
    json_t *env;                   /* doc's "environment" (borrowed): the fingerprints go in */
    json_t *config;                /* doc's "config" (borrowed) */
    json_t *db_host;               /* env's "db_host" once cmd_db_host_fingerprint set it
                                    * (borrowed), else NULL */
    json_t *part;                  /* doc's "part" (borrowed), NULL when none */
    char dir[PATH_MAX];            /* the record's folder: dir/run.json */
    char hostname[256];            /* this host's name, as the environment has it */
    char datadir[PATH_MAX];        /* the database's data directory as recorded ("unknown"),
                                    * "" before runrec_dbms() */
    char device[256];              /* its block device ("none": no block device, "unknown") */
    char fstype[64];               /* its filesystem type, "unknown" */
    char db_connection[128];       /* how the server was reached ("unix socket", an address) */
    int db_local;                  /* the server's data directory is here: 1, 0, -1 unknown */
    int part_k;                    /* the part of a scale-out run this record is, 0 none */
    char status[16];               /* "running", "complete", "failed", "interrupted", ... */
    int has_error;                 /* doc has an "error" */
};

/* Create results_dir/<stamp>-<label>/ (and results_dir); path into out.  First
 * marks the crashed records already there (runrec_mark_crashed). */
int runrec_make_dir(const char *results_dir, const char *label, char *out, size_t len,
                    struct err *e);

/*
 * A new record in folder dir (made by runrec_make_dir) with status
 * "running": tool, kind ("load", "run", "bench", "acid"), status, start time,
 * process, label, change, the redacted config and the host's environment
 * with the config's hash.  Not written yet.  Release with runrec_release.
 * -1 only when out of memory (doc NULL).
 */
int runrec_begin(struct runrec *r, const struct config *cfg, const char *kind, const char *dir);

/* Take doc (a record read or built elsewhere; the reference is taken over)
 * as r's, to be written into dir by runrec_save. */
void runrec_adopt(struct runrec *r, json_t *doc, const char *dir);

/* Free doc. */
void runrec_release(struct runrec *r);

/* Write dir/run.json atomically, then append its line to the history index
 * of dir's parent folder when that index exists (a failure there only
 * leaves the index stale, which history notices and mends). */
int runrec_save(struct runrec *r, struct err *e);

/* Set doc's member key to v (the reference is taken over): the command's
 * results ("load", "run", "check", ...). */
void runrec_set(struct runrec *r, const char *key, json_t *v);
/* The status ("complete", "failed", ...), in r->status and doc. */
void runrec_status(struct runrec *r, const char *status);
/* The error that ended it (doc's "error"). */
void runrec_error(struct runrec *r, const char *msg);
/* The part of a scale-out run this record is: k, and doc's "part" (the
 * reference is taken over; NULL: none, and k is not kept). */
void runrec_part(struct runrec *r, int k, json_t *part);

/* The isolation level the run set (config.run.isolation), where the config
 * left it to the DBMS: compare and history group records by it. */
void runrec_isolation(struct runrec *r, const char *level);

/* The DBMS and its storage (fingerprint_dbms) into the environment, and
 * what commands need of them into r's fields. */
void runrec_dbms(struct runrec *r, const struct db_ops *ops, const struct db_connect_args *a,
                 const char *dialect);
/* r->datadir when it names a folder, NULL when unknown. */
const char *runrec_datadir(const struct runrec *r);

/* The end: the status (when not NULL) and doc's "ended" (UTC), then
 * runrec_save. */
int runrec_end(struct runrec *r, const char *status, struct err *e);

/*
 * Mark as "crashed" every record directly under results_dir whose run.json
 * says "running" while record_liveness() says its command is gone: status
 * "crashed", and "crashed": {"found": UTC time, "why": "pid N gone",
 * "by_pid": this process}, rewritten by runrec_save.  Records that do not
 * say "running" are only read as far as their status.  Returns how many it
 * marked (0 when the folder does not exist); failures are skipped.
 * runrec_make_dir() calls it, so the next command that writes into a
 * results directory marks what it finds there.
 */
int runrec_mark_crashed(const char *results_dir);

#endif
