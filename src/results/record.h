/*
 * record.h - the run record's pieces: results/<YYYYmmdd-HHMMSS>-<label>/run.json.
 *
 * Builds the parts of run.json every command shares (tool, config with
 * secrets redacted, environment), judges a record's liveness, and writes
 * files atomically: a temp file in the same folder, fsync, rename.  A reader
 * never sees half a file.  The record being written, and its one writer,
 * are results/runrec.h.
 */
#ifndef TPCC_RECORD_H
#define TPCC_RECORD_H

#include <jansson.h>
#include <stddef.h>

#include "core/config.h"
#include "core/err.h"

#define RECORD_VERSION 1

/* Create results_dir/<stamp>-<label>/ (and results_dir); path into out.
 * Commands call runrec_make_dir (results/runrec.h), which first marks the
 * crashed records already there. */
int record_make_dir(const char *results_dir, const char *label, char *out, size_t len,
                    struct err *e);

/* Write data (len bytes) to dir/name atomically. */
int record_write_file(const char *dir, const char *name, const char *data, size_t len,
                      struct err *e);
/* Write a JSON document to dir/name atomically (pretty-printed).  A run.json
 * is written by runrec_save (results/runrec.h), which also keeps the history
 * index; this knows no file name. */
int record_write_json(const char *dir, const char *name, json_t *doc, struct err *e);

/* {"name": "tpccbench", "version": ..., "commit": ..., "record_version": 1} */
json_t *record_tool(void);
/* The configuration with every secret-bearing value redacted. */
json_t *record_config(const struct config *c);
/* The host's environment: kernel, CPU, memory, host name, and the host part
 * of the fingerprint (sysctls, transparent huge pages; results/fingerprint.h). */
json_t *record_environment(void);

/*
 * {"pid": N, "start_ticks": N, "boot_id": "...", "hostname": "..."}: who
 * writes this record (core/proc.h), so that a reader can later tell a run
 * that still runs from one whose command died.  runrec_begin() puts it in
 * run.json's "process".
 */
json_t *record_process(void);

/* What became of the command that wrote a record (record_liveness). */
enum record_life {
    RECORD_ENDED = 0,   /* its status is not "running" (nor "crashed"): it finished */
    RECORD_RUNNING = 1, /* "running", and its command still runs */
    RECORD_CRASHED = 2, /* "running" and its command is gone (or ran before the last
                         * boot), or already marked "crashed" */
    RECORD_UNKNOWN = 3, /* "running", and nothing says which (no "process", or
                         * written on another host) */
};

/*
 * Is the run of record rec (a parsed run.json) still going?  The one place
 * that judges a record's "status": "running" - compare, report, history and
 * the marking of crashed records (runrec_mark_crashed) all ask it.  Returns
 * enum record_life and puts into why (len bytes; may be NULL) what to show for the status:
 * "complete" (the status as it is) for RECORD_ENDED, "running (pid N)",
 * "crashed (pid N gone)" (or "crashed (pid N, before the last boot)"), or
 * "running (pid N on host H: cannot tell from here)" / "running (no pid
 * recorded: it crashed, or still runs)".  Reads /proc; never writes.
 * Thread-safe; rec is not kept.
 */
int record_liveness(const json_t *rec, char *why, size_t len);

/* 1 when the start of the file at path (its first 4 KB: "status" comes near
 * the top) says "running": the cheap look before a record is parsed. */
int record_says_running(const char *path);

/* Copy a libpq conninfo, URI or ODBC connection string into out with every
 * password replaced by "***" (secret_redact() in core/secret.h). */
void record_redact_conninfo(const char *in, char *out, size_t len);

#endif
