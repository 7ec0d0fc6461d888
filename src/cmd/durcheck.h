/*
 * durcheck.h - the durability verdict as tpccbench says and records it
 * (the summary line, the counts printed, run.json's acid.durability), for
 * `acid --tests durability` and for the check a tuning step runs after
 * its measured run (bench, study: --durability, acid.durability).  The
 * test itself is tpcc/durab.c's, the crash cmd/acidcrash.c's.
 */
#ifndef CMD_DURCHECK_H
#define CMD_DURCHECK_H

#include <jansson.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "tpcc/durab.h"

/* The verdict's line: "durable: ..." or "NOT DURABLE: ...". */
void durcheck_summary(const struct acid_dur *r, char *buf, size_t cap);

/* run.json's acid.durability for r, crashed as kind, with its summary. */
json_t *durcheck_json(const struct acid_dur *r, int kind, const char *summary);

/* The counts per type, the first lost, the recovery, the summary. */
void durcheck_print(FILE *out, const struct acid_dur *r, int kind, const char *summary);

/*
 * A tuning step's durability check (acid.durability: kill or power),
 * after its measured run: on s's server, which this process must have
 * started (else E_USAGE saying so), the mix for acid.durability_window
 * on run.virtual_users terminals, the crash in its middle half, the
 * restart, the look-ups.  A power check moves the server onto
 * tpccbench-lazyfs and, after it, starts it again on its own data
 * directory.  A user's server is crashed by acid.crash_command; without
 * one the check is "not run".  Prints the verdict; *out gets run.json's
 * acid.durability (also "not run").  0, or negative with e.
 */
int durcheck_after_run(struct session *s, const struct config *cfg, const char *dir,
                       json_t **out, struct err *e);

/* E_USAGE when acid.durability cannot be asked of this config (power on a
 * user's server; what power needs on this machine), before anything runs. */
int durcheck_usable(const struct config *cfg, struct err *e);

#endif
