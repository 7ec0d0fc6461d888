/*
 * record.h - the run record: results/<YYYYmmdd-HHMMSS>-<label>/run.json.
 *
 * Builds the parts of run.json every command shares (tool, config with
 * secrets redacted, environment) and writes files atomically: a temp file
 * in the same folder, fsync, rename.  A reader never sees half a file.
 */
#ifndef TPCC_RECORD_H
#define TPCC_RECORD_H

#include <jansson.h>
#include <stddef.h>

#include "core/config.h"
#include "core/err.h"

#define RECORD_VERSION 1

/* Create results_dir/<stamp>-<label>/ (and results_dir); path into out. */
int record_make_dir(const char *results_dir, const char *label, char *out, size_t len,
                    struct err *e);

/* Write data (len bytes) to dir/name atomically. */
int record_write_file(const char *dir, const char *name, const char *data, size_t len,
                      struct err *e);
/* Write a JSON document to dir/name atomically (pretty-printed).  A run.json
 * also appends its line to the history index of dir's parent folder when
 * that index exists (hist_index_append, results/history.h). */
int record_write_json(const char *dir, const char *name, json_t *doc, struct err *e);

/* {"name": "tpccbench", "version": ..., "commit": ..., "record_version": 1} */
json_t *record_tool(void);
/* The configuration with every secret-bearing value redacted. */
json_t *record_config(const struct config *c);
/* The host's environment: kernel, CPU, memory, host name, and the host part
 * of the fingerprint (sysctls, transparent huge pages; results/fingerprint.h). */
json_t *record_environment(void);

/* Copy a libpq conninfo, URI or ODBC connection string into out with every
 * password replaced by "***" (secret_redact() in core/secret.h). */
void record_redact_conninfo(const char *in, char *out, size_t len);

#endif
