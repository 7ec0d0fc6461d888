/*
 * acid.c - `tpccbench acid`: TPC-C's atomicity and isolation tests
 * (clause 3.2, 3.4; tpcc/acid.c runs them), one line per test, and the
 * durability test (3.5; tpcc/durab.c, on the private server crashed as
 * cmd/acidcrash.c does it), its counts and verdict; a record (kind
 * "acid", run.json "acid.tests" and "acid.durability").
 */
#include <stdio.h>
#include <string.h>

#include "cmd/acidcrash.h"
#include "cmd/check.h"
#include "cmd/cmd.h"
#include "cmd/durcheck.h"
#include "cmd/load.h"
#include "core/clock.h"
#include "core/signals.h"
#include "results/runrec.h"
#include "tpcc/acid.h"
#include "tpcc/durab.h"
#include "tpcc/txn.h"

static const struct cmd_opt acid_opts[] = {
    { "tests", 0, 1, NULL,
      "which: atomicity, isolation, durability (default: all three)" },
    { "crash", 0, 1, NULL, "durability: kill (the server's processes) or power (default kill)" },
    { "crash-at", 0, 1, NULL,
      "durability: the crash this long into the mix (default: a random instant in the middle "
      "half of --duration)" },
    { "duration", 'd', 1, "run.duration", "durability: the mix's window (default 60s)" },
    { "vus", 'u', 1, "run.virtual_users", "durability: the mix's terminals (default 4)" },
    { "isolation", 0, 1, "run.isolation", "read committed | repeatable read | serializable" },
    { "mode", 0, 1, "run.mode", "client | pipeline | procedure (default: procedure)" },
    { "seed", 0, 1, "run.seed", "RNG seed of the rows the tests pick (default: from the clock)" },
    { NULL, 0, 0, NULL, NULL },
};

/* --tests LIST into *which; E_USAGE naming what is wrong. */
static int acid_parse_tests(const char *list, unsigned *which, struct err *e)
{
    char buf[128], *save = NULL, *t;

    *which = 0;
    snprintf(buf, sizeof(buf), "%s", list);
    for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (strcmp(t, "atomicity") == 0)
            *which |= ACID_ATOMICITY;
        else if (strcmp(t, "isolation") == 0)
            *which |= ACID_ISOLATION;
        else if (strcmp(t, "durability") == 0)
            *which |= ACID_DURABILITY;
        else
            return err_set(e, E_USAGE,
                           "--tests: '%s' is not a test group: give atomicity, isolation, "
                           "durability or a list of them (atomicity,isolation)",
                           t);
    }
    if (!*which)
        return err_set(e, E_USAGE, "--tests: give atomicity, isolation, durability or a list");
    return 0;
}

/* --crash and --crash-at into k and *at_us, checked against the window. */
static int acid_parse_crash(const struct cmd_args *a, const struct config *cfg, unsigned which,
                            int *kind, int64_t *at_us, struct err *e)
{
    const char *v = cmd_extra(a, "crash"), *at = cmd_extra(a, "crash-at");

    *kind = ACID_CRASH_KILL;
    *at_us = 0;
    if ((v || at) && !(which & ACID_DURABILITY))
        return err_set(e, E_USAGE, "--%s is for the durability test: add --tests durability",
                       v ? "crash" : "crash-at");
    if (v && strcmp(v, "power") == 0)
        *kind = ACID_CRASH_POWER;
    else if (v && strcmp(v, "kill") != 0)
        return err_set(e, E_USAGE, "--crash: '%s' is not a crash: give kill or power", v);
    if (at && (parse_duration_us(at, at_us) < 0 || *at_us <= 0))
        return err_set(e, E_USAGE, "--crash-at: '%s' is not a time after the start: give 1s, "
                                   "2500ms, ...",
                       at);
    if (!cfg->database.managed && cfg->acid.crash_command[0]) {
        /* A user's server: its own commands crash and restart it. */
        if (*kind == ACID_CRASH_POWER)
            return err_set(e, E_USAGE, "--crash power is for the private server (database.managed):"
                                       " on this server acid.crash_command is the crash (for a "
                                       "power loss, its data directory on tpccbench-lazyfs and "
                                       "the command writing crash to the mount's .lazyfs-ctl: "
                                       "docs/acid.md)");
        *kind = ACID_CRASH_COMMAND;
    }
    if (at && *at_us >= cfg->run.duration_us)
        return err_set(e, E_USAGE, "--crash-at %s is not inside the mix's window (--duration "
                                   "%.1f s): give a shorter time or a longer --duration",
                       at, (double)cfg->run.duration_us / 1e6);
    return 0;
}

static json_t *acid_json(const struct acid_result *r, int n, const char *isolation,
                         const char *mode)
{
    json_t *arr = json_array();
    int failed = 0, passed = 0;

    for (int i = 0; i < n; i++) {
        char kase[2] = { r[i].kase, 0 };
        failed += r[i].verdict == ACID_FAIL;
        passed += r[i].verdict == ACID_PASS;
        json_array_append_new(
            arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "name", r[i].name,
                           "clause", r[i].clause, "verdict", acid_verdict_name(r[i].verdict),
                           "case", kase, "case_text", acid_case_text(r[i].kase), "mode",
                           r[i].mode, "why", r[i].why, "rows", r[i].rows, "values",
                           r[i].values));
    }
    return json_pack("{s:s, s:s, s:i, s:i, s:o}", "isolation", isolation, "mode", mode, "passed",
                     passed, "failed", failed, "tests", arr);
}

static void acid_print(FILE *out, const struct acid_result *r, int n)
{
    int failed = 0, run = 0;

    for (int i = 0; i < n; i++) {
        const struct acid_result *t = &r[i];
        failed += t->verdict == ACID_FAIL;
        run += t->verdict != ACID_NOT_RUN;
        fprintf(out, "  %-7s %-8s %s", acid_verdict_name(t->verdict), t->clause, t->name);
        if (t->kase)
            fprintf(out, ": case %c", t->kase);
        if (t->why[0])
            fprintf(out, " (%s)", t->why);
        if (t->mode[0])
            fprintf(out, "; mode %s", t->mode);
        if (t->rows[0])
            fprintf(out, "; rows: %s", t->rows);
        if (t->values[0])
            fprintf(out, "; values: %s", t->values);
        fprintf(out, "\n");
    }
    if (failed) {
        fprintf(out, "acid: %d of %d tests run FAILED:\n", failed, run);
        for (int i = 0; i < n; i++)
            if (r[i].verdict == ACID_FAIL)
                fprintf(out, "  %s %s: %s\n", r[i].clause, r[i].name, r[i].why);
    } else {
        fprintf(out, "acid: all %d tests run passed\n", run);
    }
}

/* The durability test on the private server; *ran 0 when it cannot be
 * crashed here (not a private server), with why. */
static int acid_durability_run(struct session *s, const struct acid_setup *set, int kind,
                               const char *dir, struct acid_dur *r, int *ran, struct err *e)
{
    struct acid_crasher cr;
    struct acid_crash k;
    int rc;

    *ran = 0;
    if (!s->managed && kind != ACID_CRASH_COMMAND)
        return 0;
    if ((rc = acid_crasher_begin(&cr, s, kind, dir, &k, e)) == 0) {
        *ran = 1;
        rc = acid_durability(set, &k, r, e);
    }
    acid_crasher_end(&cr);
    return rc;
}

/* What the tests found, and how they were asked. */
struct acid_out {
    unsigned which;                 /* ACID_* */
    struct acid_result r[ACID_NTESTS];
    int kind;                       /* --crash */
    int64_t at_us;                  /* --crash-at, 0 random */
    struct acid_dur dur;
    int dur_ran;                    /* 1: the durability test ran (a private server) */
    char level[ACID_LEVEL_LEN], level_why[ACID_LEVEL_LEN];
    char summary[1400];             /* the durability verdict's line */
};

/* The tests on the open session; the results into o. */
static int acid_with_session(struct session *s, const struct config *cfg, const char *dir,
                             struct acid_out *o, struct err *e)
{
    struct acid_setup set = {
        .ops = s->ops,
        .args = &s->args,
        .dialect = s->dialect,
        .isolation = cfg->run.isolation,
        .isolation_set = cfg->run.isolation_set,
        .level = o->level,
        .level_why = o->level_why,
        .mode = txn_mode_resolve(cfg->run.mode, s->dialect),
        .warehouses = cfg->schema.warehouses,
        .seed = cfg->run.seed ? (uint64_t)cfg->run.seed : clock_wall_us(),
        .terminals = cfg->run.virtual_users,
        .window_us = cfg->run.duration_us,
        .crash_at_us = o->at_us,
        .back_bound_us = cfg->acid.restart_timeout_us,
    };
    int rc = 0;

    if (o->which & (ACID_ATOMICITY | ACID_ISOLATION))
        rc = acid_run(&set, o->which, o->r, e);
    if (rc == 0 && (o->which & ACID_DURABILITY)) {
        rc = acid_durability_run(s, &set, o->kind, dir, &o->dur, &o->dur_ran, e);
        if (rc == 0 && o->dur_ran)
            durcheck_summary(&o->dur, o->summary, sizeof(o->summary));
    }
    return rc;
}

static int acid_usage(void)
{
    cmd_usage(stdout, "acid",
              "[-c FILE] [--tests atomicity,isolation,durability] [--isolation LEVEL] "
              "[--mode MODE] [--crash kill|power] [--crash-at TIME] [--duration TIME] [--vus N]",
              "Run TPC-C's atomicity tests (clause 3.2.2: Payment, and New-Order as our\n"
              "extension, each committed and rolled back) and isolation tests 1-9 (clause\n"
              "3.4.2) on the real transactions, stalled between two of their statements,\n"
              "at run.isolation in run.mode.  One line per test: verdict, clause, name, the\n"
              "case the database followed (A-D), the rows used and the values compared.\n"
              "The durability test (3.5) runs the mix on --vus terminals, crashes the\n"
              "server at --crash-at (the private one: kill, SIGKILL to all its processes;\n"
              "power, its data directory on tpccbench-lazyfs, whose unsynced writes the\n"
              "crash drops; root, /dev/fuse; another: acid.crash_command, then\n"
              "acid.restart_command), restarts it, and looks up every transaction it\n"
              "acknowledged: present or LOST; then the 12 conditions.\n"
              "The tests change the database as their transactions do.  Writes\n"
              "RESULTS/<time>-<label>/run.json (kind acid).  Exit 0 when every test run\n"
              "passed and nothing acknowledged was lost, 1 when a test failed or the\n"
              "server was not durable, 2 on bad input.  See docs/acid.md.",
              acid_opts);
    return 0;
}

/* run.json's "acid". */
static json_t *acid_out_json(const struct acid_out *o, const char *mode)
{
    json_t *j = o->which & (ACID_ATOMICITY | ACID_ISOLATION)
                    ? acid_json(o->r, ACID_NTESTS, o->level, mode)
                    : json_pack("{s:s, s:s}", "isolation", o->level, "mode", mode);

    if (!(o->which & ACID_DURABILITY))
        return j;
    if (o->dur_ran)
        json_object_set_new(j, "durability", durcheck_json(&o->dur, o->kind, o->summary));
    else
        json_object_set_new(j, "durability",
                            json_pack("{s:s, s:s}", "verdict", "not run", "why",
                                      "needs acid.crash_command: only the private server "
                                      "(database.managed) is crashed by tpccbench itself"));
    return j;
}

/* The results on stdout; the exit code. */
static int acid_report(const struct acid_out *o, const char *mode, const char *dir)
{
    int failed = 0;

    if (o->level_why[0])
        fprintf(stderr, "note: isolation %s: run.isolation is not set, and %s\n", o->level,
                o->level_why);
    printf("acid tests (TPC-C clause 3), isolation %s, mode %s:\n", o->level, mode);
    if (o->which & (ACID_ATOMICITY | ACID_ISOLATION)) {
        acid_print(stdout, o->r, ACID_NTESTS);
        for (int i = 0; i < ACID_NTESTS; i++)
            failed |= o->r[i].verdict == ACID_FAIL;
    }
    if ((o->which & ACID_DURABILITY) && o->dur_ran) {
        durcheck_print(stdout, &o->dur, o->kind, o->summary);
        failed |= !o->dur.durable;
    } else if (o->which & ACID_DURABILITY) {
        printf("durability: not run: needs acid.crash_command (only the private server, "
               "database.managed, is crashed by tpccbench itself)\n");
    }
    printf("record: %s/run.json\n", dir);
    return failed ? 1 : 0;
}

int cmd_acid(int argc, char **argv)
{
    struct config cfg;
    struct cmd_args a;
    struct session s;
    static struct acid_out o;
    const char *list;
    char dir[4096];
    struct runrec rec;
    struct err e, we;
    int rc;

    err_clear(&e);
    memset(&o, 0, sizeof(o));
    o.which = ACID_ATOMICITY | ACID_ISOLATION | ACID_DURABILITY;
    if (cmd_parse("acid", argc - 1, argv + 1, acid_opts, &cfg, &a, &e) < 0)
        return cmd_fail("acid", &e);
    if (a.help)
        return acid_usage();
    if (a.npos)
        return err_set(&e, E_USAGE, "unexpected argument '%s'", a.pos[0]), cmd_fail("acid", &e);
    if (((list = cmd_extra(&a, "tests")) && acid_parse_tests(list, &o.which, &e) < 0) ||
        acid_parse_crash(&a, &cfg, o.which, &o.kind, &o.at_us, &e) < 0 ||
        ((o.which & ACID_DURABILITY) && acid_crash_check(o.kind, &e) < 0))
        return cmd_fail("acid", &e);
    sig_install();
    if (runrec_make_dir(cfg.results.dir, cfg.results.label, dir, sizeof(dir), &e) < 0)
        return cmd_fail("acid", &e);
    runrec_begin(&rec, &cfg, "acid", dir);
    runrec_save(&rec, &we);
    if ((rc = session_open(&s, &cfg, &e)) == 0) {
        runrec_dbms(&rec, s.ops, &s.args, s.dialect);
        rc = acid_with_session(&s, &cfg, dir, &o, &e);
    }
    session_close(&s);
    if (rc == 0) {
        runrec_set(&rec, "acid",
                   acid_out_json(&o, run_mode_name(txn_mode_resolve(cfg.run.mode, s.dialect))));
        runrec_status(&rec, "complete");
    } else {
        runrec_status(&rec, "failed");
        runrec_error(&rec, e.msg);
    }
    if (runrec_save(&rec, &we) < 0)
        fprintf(stderr, "tpccbench acid: %s\n", we.msg);
    runrec_release(&rec);
    if (rc < 0) {
        fprintf(stderr, "record: %s/run.json\n", dir);
        return cmd_fail("acid", &e);
    }
    return acid_report(&o, run_mode_name(txn_mode_resolve(cfg.run.mode, s.dialect)), dir);
}
