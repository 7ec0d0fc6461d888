/*
 * acid.c - `tpccbench acid`: TPC-C's atomicity and isolation tests
 * (clause 3.2, 3.4; tpcc/acid.c runs them), one line per test, and a
 * record (kind "acid", run.json "acid.tests").
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/load.h"
#include "core/clock.h"
#include "core/signals.h"
#include "results/runrec.h"
#include "tpcc/acid.h"
#include "tpcc/txn.h"

static const struct cmd_opt acid_opts[] = {
    { "tests", 0, 1, NULL, "which: atomicity, isolation, or both (default: atomicity,isolation)" },
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
            return err_set(e, E_USAGE,
                           "--tests: durability is not built yet: give atomicity, isolation "
                           "or both");
        else
            return err_set(e, E_USAGE,
                           "--tests: '%s' is not a test group: give atomicity, isolation or "
                           "both (atomicity,isolation)",
                           t);
    }
    if (!*which)
        return err_set(e, E_USAGE, "--tests: give atomicity, isolation or both");
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

/* The tests on the open session; the results into r. */
static int acid_with_session(struct session *s, const struct config *cfg, unsigned which,
                             struct acid_result *r, char *level, char *level_why, struct err *e)
{
    struct acid_setup set = {
        .ops = s->ops,
        .args = &s->args,
        .dialect = s->dialect,
        .isolation = cfg->run.isolation,
        .isolation_set = cfg->run.isolation_set,
        .level = level,
        .level_why = level_why,
        .mode = txn_mode_resolve(cfg->run.mode, s->dialect),
        .warehouses = cfg->schema.warehouses,
        .seed = cfg->run.seed ? (uint64_t)cfg->run.seed : clock_wall_us(),
    };

    return acid_run(&set, which, r, e);
}

static int acid_usage(void)
{
    cmd_usage(stdout, "acid",
              "[-c FILE] [--tests atomicity,isolation] [--isolation LEVEL] [--mode MODE]",
              "Run TPC-C's atomicity tests (clause 3.2.2: Payment, and New-Order as our\n"
              "extension, each committed and rolled back) and isolation tests 1-9 (clause\n"
              "3.4.2) on the real transactions, stalled between two of their statements,\n"
              "at run.isolation in run.mode.  One line per test: verdict, clause, name, the\n"
              "case the database followed (A-D), the rows used and the values compared.\n"
              "The tests change the database as their transactions do.  Writes\n"
              "RESULTS/<time>-<label>/run.json (kind acid).  Exit 0 when every test run\n"
              "passed, 1 when one failed, 2 on bad input.  See docs/acid.md.",
              acid_opts);
    return 0;
}

int cmd_acid(int argc, char **argv)
{
    struct config cfg;
    struct cmd_args a;
    struct session s;
    struct acid_result r[ACID_NTESTS];
    unsigned which = ACID_ATOMICITY | ACID_ISOLATION;
    const char *list;
    char dir[4096];
    struct runrec rec;
    struct err e, we;
    char level[ACID_LEVEL_LEN], level_why[ACID_LEVEL_LEN];
    int rc, failed = 0;

    err_clear(&e);
    snprintf(level, sizeof(level), "%s", "");
    level_why[0] = '\0';
    if (cmd_parse("acid", argc - 1, argv + 1, acid_opts, &cfg, &a, &e) < 0)
        return cmd_fail("acid", &e);
    if (a.help)
        return acid_usage();
    if (a.npos)
        return err_set(&e, E_USAGE, "unexpected argument '%s'", a.pos[0]), cmd_fail("acid", &e);
    if ((list = cmd_extra(&a, "tests")) && acid_parse_tests(list, &which, &e) < 0)
        return cmd_fail("acid", &e);
    sig_install();
    if (runrec_make_dir(cfg.results.dir, cfg.results.label, dir, sizeof(dir), &e) < 0)
        return cmd_fail("acid", &e);
    runrec_begin(&rec, &cfg, "acid", dir);
    runrec_save(&rec, &we);
    if ((rc = session_open(&s, &cfg, &e)) == 0) {
        runrec_dbms(&rec, s.ops, &s.args, s.dialect);
        rc = acid_with_session(&s, &cfg, which, r, level, level_why, &e);
    }
    session_close(&s);
    if (rc == 0) {
        runrec_set(&rec, "acid",
                   acid_json(r, ACID_NTESTS, level,
                             run_mode_name(txn_mode_resolve(cfg.run.mode, s.dialect))));
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
    if (level_why[0])
        fprintf(stderr, "note: isolation %s: run.isolation is not set, and %s\n", level, level_why);
    printf("acid tests (TPC-C clause 3), isolation %s, mode %s:\n", level,
           run_mode_name(txn_mode_resolve(cfg.run.mode, s.dialect)));
    acid_print(stdout, r, ACID_NTESTS);
    printf("record: %s/run.json\n", dir);
    for (int i = 0; i < ACID_NTESTS; i++)
        failed |= r[i].verdict == ACID_FAIL;
    return failed ? 1 : 0;
}
