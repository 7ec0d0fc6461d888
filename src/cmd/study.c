/*
 * study.c - `tpccbench study FILE`: a whole tuning study in one command.
 *
 * The study file (study/plan.h) names a baseline and steps, each with the
 * PostgreSQL settings it sets and the shell commands around it.  Before
 * anything runs, every setting is looked up in pg_settings and its value
 * checked (study/pgset.h), the commands are printed (and need --yes), and a
 * study that needs a restart of a server it cannot restart is refused.  Then
 * every run of the schedule (rounds of all steps, or each step's repeats
 * together) gets its step's settings (ALTER SYSTEM, a reload, a restart when
 * one is pending), fresh data (a copy of a template database, a new load,
 * or none), and is one normal run record (one_record in run.c) in the
 * study's folder.  study.json is rewritten after every run, so a Ctrl-C
 * leaves it marked interrupted and --resume continues from the first run
 * that did not complete.  At the end: the step table with each gain's
 * confidence interval and verdict (results/signif.h), report.html, the
 * settings reset on the private server (or listed on an existing one), and
 * the --fail-if gate on the last step against the baseline.  The table, the
 * verdicts, the gate and the report are compare's (results/compare.h), on
 * the complete runs read once into its struct cmp; nothing here computes a
 * figure of its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/durcheck.h"
#include "cmd/load.h"
#include "core/clock.h"
#include "core/signals.h"
#include "results/compare.h"
#include "results/record.h"
#include "results/runrec.h"
#include "results/report.h"
#include "results/signif.h"
#include "results/waitdiff.h"
#include "study/pgset.h"
#include "study/plan.h"

#define MAX_RULES 16
#define MAX_NAMES (STUDY_MAX_STEPS * STUDY_MAX_SET)

static const struct cmd_opt study_opts[] = {
    { "yes", 'y', 0, NULL, "run the before/after commands of the study file" },
    { "resume", 0, 0, NULL, "continue the last interrupted study of this file" },
    { "fail-if", 0, 1, NULL, "exit 1 when the last step breaks RULE significantly" },
    { "no-load", 0, 0, NULL, "reset template/none: use the data already loaded" },
    { "durability", 0, 1, "acid.durability",
      "after each run: crash kill|power in a short mix, count what is lost (column durable)" },
    { NULL, 0, 0, NULL, NULL },
};

/* One run of the schedule, as study.json keeps it. */
struct run_state {
    int step, repeat;
    char dir[4096];  /* its record's folder, "" before it ran */
    char status[16]; /* "" not run, complete, interrupted, failed, aborted */
    int restarted;   /* the server was restarted before it */
};

/* The study while it runs. */
struct study {
    struct study_plan plan;
    struct config cfg;    /* the config with the workload applied */
    struct cmd_args args; /* as parsed; one_record reads no-load from runs_args */
    struct cmd_args runs_args;
    struct session s;      /* the study's own: starts (and stops) the private server */
    struct dialect d;      /* the study_* statements */
    int leave_running;     /* the private server ran before the study: leave it so */
    char dir[4096];        /* the study's folder */
    char datadir[CFG_STR]; /* the private server's data directory */
    FILE *log;             /* study.log */
    struct run_state runs[STUDY_MAX_RUNS];
    int nruns;
    char names[MAX_NAMES][STUDY_NAME]; /* every setting the study sets */
    int nnames;
    char applied[MAX_NAMES][STUDY_VALUE]; /* what we last wrote per name ("" = reset) */
    int applied_known;                    /* 0: nothing written yet */
    int needs_restart_ctx;                /* a setting of context postmaster is set */
    int restarts;
    int has_template;
    char dbname[128], template_db[160];
    char status[16]; /* running, complete, interrupted, failed */
    char stop_reason[512];
    int yes;
    int needs_pg;                     /* settings or reset: template: driver postgres */
    struct cmp_rule rules[MAX_RULES]; /* --fail-if, judged on the last step */
    int n_rules;
};

/* The string at key of object o, or "". */
static const char *jstr(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));

    return v ? v : "";
}

/* ---- the log and shell commands ---- */

/* One line of the study's log (study.log in its results directory), stamped
 * with the local time; nothing when the study keeps no log. */
static void study_log(struct study *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void study_log(struct study *x, const char *fmt, ...)
{
    va_list ap;
    char when[32];
    time_t t = time(NULL);
    struct tm tm;

    if (!x->log)
        return;
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
    fprintf(x->log, "%s ", when);
    va_start(ap, fmt);
    vfprintf(x->log, fmt, ap);
    va_end(ap);
    fputc('\n', x->log);
    fflush(x->log);
}

/* Run cmd through /bin/sh with its output appended to the study log; its exit status. */
static int shell(struct study *x, const char *what, const char *cmd, struct err *e)
{
    pid_t pid;
    int st, fd = x->log ? fileno(x->log) : -1;

    study_log(x, "%s: %s", what, cmd);
    fflush(stdout);
    fflush(stderr);
    if ((pid = fork()) < 0)
        return err_set(e, E_FAIL, "%s: cannot fork", what);
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return err_set(e, E_FAIL, "%s: cannot wait for the command", what);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    study_log(x, "%s: exit %d", what, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return err_set(e, E_FAIL, "%s command '%.200s' failed (exit %d): see %s/study.log", what, cmd,
                   WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), x->dir);
}

/* ---- connections ---- */

/* A connection to the study's database, or (admin) to database postgres of the same server. */
static int connect_db(struct study *x, int admin, struct db_conn **c, struct err *e)
{
    struct db_connect_args a = x->s.args;
    char ci[1200];

    if (admin) {
        snprintf(ci, sizeof(ci), "%s dbname=postgres", x->s.conninfo);
        a.conninfo = ci;
    }
    return db_connect(x->s.ops, NULL, &a, c, e);
}

/*
 * Server settings are the server's: any database serves to write and read
 * them.  With reset: template the run database is missing between the
 * rename of the loaded database into the template and the first run's copy,
 * so settings go through database postgres, which the copies need anyway.
 */
static int settings_admin(const struct study *x)
{
    return x->plan.reset == STUDY_RESET_TEMPLATE;
}

/* Wait until the server takes connections again (after a restart command): up to 120 s. */
static int wait_server(struct study *x, struct err *e)
{
    for (int i = 0; i < 1200 && !sig_stop_requested(); i++) {
        struct db_conn *c;
        if (connect_db(x, settings_admin(x), &c, e) == 0) {
            db_close(c);
            return 0;
        }
        clock_sleep_us(100000);
    }
    return err_prefix(e, "the server did not come back after the restart command");
}

static int restart_server(struct study *x, struct err *e)
{
    int rc;

    x->restarts++;
    fprintf(stderr, "study: restarting the server\n");
    study_log(x, "restart");
    if (!x->s.managed)
        return (rc = shell(x, "restart_command", x->plan.restart_command, e)) < 0
                   ? rc
                   : wait_server(x, e);
    x->s.mpg.started = 1;
    if ((rc = managed_stop(&x->s.mpg, e)) < 0)
        return rc;
    if ((rc = managed_start(&x->s.mpg, x->datadir, x->cfg.database.port,
                            x->cfg.database.password_env, e)) < 0)
        return rc;
    managed_conninfo(&x->s.mpg, x->s.conninfo, sizeof(x->s.conninfo));
    return 0;
}

/*
 * pg_reload_conf(), then the settings it left pending a restart ("" = none).
 * The reload is asynchronous: new backends are asked until one has read the
 * new configuration (up to 5 s).
 */
static int reload_pending(struct study *x, char *pending, size_t len, struct err *e)
{
    struct db_conn *c;
    double t0 = 0, t1 = 0;
    int rc;

    pending[0] = '\0';
    if ((rc = connect_db(x, settings_admin(x), &c, e)) < 0)
        return rc;
    rc = pgset_reload(c, &x->d, &t0, e);
    db_close(c);
    for (int i = 0; rc == 0 && i < 100; i++) {
        if ((rc = connect_db(x, settings_admin(x), &c, e)) < 0)
            return rc;
        rc = pgset_conf_state(c, &x->d, &t1, pending, len, e);
        db_close(c);
        if (rc < 0 || t1 > t0)
            break;
        clock_sleep_us(50000);
    }
    return rc;
}

/*
 * Write the settings of step (only those that differ from what we last
 * wrote), reload, and restart when the reload left a setting pending.
 * *restarted says whether it did.
 */
static int apply_settings(struct study *x, int step, int *restarted, struct err *e)
{
    struct study_setting want[MAX_NAMES];
    int n = study_settings_at(&x->plan, step, want, MAX_NAMES), changed = 0, rc = 0;
    struct db_conn *c = NULL;
    char pending[1024] = "";

    *restarted = 0;
    if (!x->nnames)
        return 0;
    if ((rc = connect_db(x, settings_admin(x), &c, e)) < 0)
        return rc;
    for (int i = 0; i < x->nnames && rc == 0; i++) {
        const char *v = NULL;
        for (int k = 0; k < n; k++)
            if (!strcmp(want[k].name, x->names[i]))
                v = want[k].value;
        if (x->applied_known && !strcmp(x->applied[i], v ? v : ""))
            continue;
        study_log(x, "ALTER SYSTEM %s %s%s%s", v ? "SET" : "RESET", x->names[i], v ? " = " : "",
              v ? v : "");
        if ((rc = pgset_alter(c, &x->d, x->names[i], v, e)) == 0) {
            snprintf(x->applied[i], sizeof(x->applied[i]), "%s", v ? v : "");
            changed = 1;
        }
    }
    x->applied_known = 1;
    db_close(c);
    if (rc < 0 || !changed)
        return rc;
    if ((rc = reload_pending(x, pending, sizeof(pending), e)) < 0)
        return rc;
    if (pending[0]) {
        study_log(x, "pending a restart: %s", pending);
        if ((rc = restart_server(x, e)) < 0)
            return rc;
        *restarted = 1;
    }
    return 0;
}

/* ---- data ---- */

static int exec_built(struct db_conn *c, const struct dialect *d, int id, const char *a,
                      const char *b, struct err *e)
{
    struct db_param p[2] = { DBP_TEXT(a), DBP_TEXT(b ? b : "") };
    char text[512];
    const char *t;
    int rc, len = 0;

    if ((rc = db_query(c, d->sql[id], p, b ? 2 : 1, e)) < 0)
        return rc;
    if (db_next(c) <= 0 || !(t = db_col_text(c, 0, &len)))
        return err_set(e, E_FAIL, "the server built no statement");
    snprintf(text, sizeof(text), "%.*s", len, t);
    while (db_next(c) > 0)
        ;
    return db_exec_sql(c, text, e);
}

/* Name of the run database and whether the template exists. */
static int db_names(struct study *x, struct err *e)
{
    struct db_conn *c;
    struct db_param p[1];
    int rc, len = 0;
    const char *t;

    if ((rc = connect_db(x, 0, &c, e)) < 0)
        return rc;
    /* The template's name follows the database's; asked first with a placeholder. */
    p[0] = DBP_TEXT("");
    if ((rc = db_query(c, x->d.sql[PGS_DB], p, 1, e)) == 0 && db_next(c) > 0 &&
        (t = db_col_text(c, 0, &len))) {
        snprintf(x->dbname, sizeof(x->dbname), "%.*s", len, t);
        while (db_next(c) > 0)
            ;
        snprintf(x->template_db, sizeof(x->template_db), "%.100s_study_template", x->dbname);
        p[0] = DBP_TEXT(x->template_db);
        if ((rc = db_query(c, x->d.sql[PGS_DB], p, 1, e)) == 0 && db_next(c) > 0) {
            x->has_template = db_col_int(c, 2) > 0;
            while (db_next(c) > 0)
                ;
        }
    }
    db_close(c);
    return rc;
}

/* The run database becomes a copy of the template (or the template a copy of it: make). */
static int template_copy(struct study *x, int make, struct err *e)
{
    struct db_conn *c;
    const char *to = make ? x->template_db : x->dbname, *from = make ? x->dbname : x->template_db;
    int64_t t0 = (int64_t)clock_us();
    int rc;

    if ((rc = connect_db(x, 1, &c, e)) < 0)
        return rc;
    rc = exec_built(c, &x->d, PGS_DROP_DB, to, NULL, e);
    if (rc == 0)
        rc = exec_built(c, &x->d, PGS_CREATE_DB, to, from, e);
    db_close(c);
    if (rc == 0)
        study_log(x, "database %s copied from %s in %.2f s", to, from,
              (double)((int64_t)clock_us() - t0) / 1e6);
    return rc < 0 ? err_prefix(e, "copying database '%s' to '%s'", from, to) : 0;
}

/*
 * The database just loaded becomes the template by a rename: the copy it
 * saves is a checkpoint and all its files written and synced again (1 to 2
 * s at W=4).  The first run then starts from a copy like every other run.
 */
static int template_from_load(struct study *x, struct err *e)
{
    struct db_conn *c;
    int64_t t0 = (int64_t)clock_us();
    int rc;

    if ((rc = connect_db(x, 1, &c, e)) < 0)
        return rc;
    rc = exec_built(c, &x->d, PGS_DROP_DB, x->template_db, NULL, e);
    if (rc == 0)
        rc = exec_built(c, &x->d, PGS_RENAME_DB, x->dbname, x->template_db, e);
    db_close(c);
    if (rc == 0)
        study_log(x, "database %s renamed to %s in %.2f s", x->dbname, x->template_db,
              (double)((int64_t)clock_us() - t0) / 1e6);
    return rc < 0 ? err_prefix(e, "making the loaded database '%s' the template '%s'", x->dbname,
                               x->template_db)
                  : 0;
}

static int drop_template(struct study *x, struct err *e)
{
    struct db_conn *c;
    int rc;

    if (!x->has_template)
        return 0;
    if ((rc = connect_db(x, 1, &c, e)) < 0)
        return rc;
    rc = exec_built(c, &x->d, PGS_DROP_DB, x->template_db, NULL, e);
    db_close(c);
    return rc;
}

/* Load once (reset template and none), into a record of its own in the study folder. */
static int initial_load(struct study *x, struct err *e)
{
    struct runrec rec;
    char ldir[4096];
    struct config c = x->cfg;
    int rc;

    snprintf(c.results.label, sizeof(c.results.label), "study-load");
    c.load.drop = 1;
    x->s.cfg = &c;
    if ((rc = runrec_make_dir(x->dir, "study-load", ldir, sizeof(ldir), e)) == 0) {
        runrec_begin(&rec, &c, "load", ldir);
        rc = load_with_session(&x->s, &rec, 0, NULL, e);
        runrec_status(&rec, rc == 0 ? "complete" : "failed");
        runrec_save(&rec, e);
        runrec_release(&rec);
    }
    x->s.cfg = &x->cfg;
    study_log(x, "initial load: %s", rc == 0 ? "complete" : e->msg);
    return rc;
}

/* ---- study.json ---- */

static json_t *settings_json(const struct study *x, int step)
{
    struct study_setting st[MAX_NAMES];
    int n = study_settings_at(&x->plan, step, st, MAX_NAMES);
    json_t *o = json_object();

    for (int i = 0; i < n; i++)
        json_object_set_new(o, st[i].name, json_string(st[i].value));
    return o;
}

/*
 * study.json: the plan's steps with their runs' count and status (and, from
 * finish, each step's largest wait change: waits[s] or NULL), the runs, the
 * verdicts and what extra holds.
 */
static json_t *study_json(const struct study *x, json_t *verdicts, json_t *extra,
                          json_t *const *waits)
{
    json_t *steps = json_array(), *runs = json_array(), *doc;

    for (int i = 0; i < x->plan.nsteps; i++) {
        const struct study_step *st = &x->plan.steps[i];
        json_t *own = json_object();
        int ok = 0, failed = 0;
        for (int k = 0; k < st->nset; k++)
            json_object_set_new(own, st->set[k].name, json_string(st->set[k].value));
        for (int r = 0; r < x->nruns; r++)
            if (x->runs[r].step == i) {
                ok += !strcmp(x->runs[r].status, "complete");
                failed +=
                    !strcmp(x->runs[r].status, "failed") || !strcmp(x->runs[r].status, "aborted");
            }
        json_array_append_new(steps, json_pack("{s:i, s:s, s:o, s:o, s:s, s:s, s:b, s:i, s:s}",
                                               "step", i + 1, "label", st->label, "set", own,
                                               "settings", settings_json(x, i), "before",
                                               st->before, "after", st->after, "control",
                                               st->control, "runs_complete", ok, "status",
                                               failed                 ? "failed"
                                               : ok == x->plan.repeat ? "complete"
                                                                      : "incomplete"));
        if (waits && waits[i])
            json_object_set(json_array_get(steps, i), "waits", waits[i]);
    }
    for (int r = 0; r < x->nruns; r++) {
        const struct run_state *rs = &x->runs[r];
        json_array_append_new(runs, json_pack("{s:i, s:s, s:i, s:s, s:s, s:b}", "step",
                                              rs->step + 1, "label", x->plan.steps[rs->step].label,
                                              "repeat", rs->repeat, "dir", rs->dir, "status",
                                              rs->status[0] ? rs->status : "pending", "restarted",
                                              rs->restarted));
    }
    doc = json_pack("{s:o, s:s, s:s, s:s, s:s, s:{s:i, s:s, s:s, s:b, s:b, s:s}, s:o, s:o, s:i}",
                    "tool", record_tool(), "kind", "study", "name", x->plan.name, "file",
                    x->plan.path, "status", x->status, "options", "repeat", x->plan.repeat, "order",
                    x->plan.interleaved ? "interleaved" : "sequential", "reset",
                    study_reset_name(x->plan.reset), "cumulative", x->plan.cumulative, "control",
                    x->plan.control, "on_failure", x->plan.on_failure_stop ? "stop" : "continue",
                    "steps", steps, "runs", runs, "restarts", x->restarts);
    if (x->stop_reason[0])
        json_object_set_new(doc, "stopped", json_string(x->stop_reason));
    if (verdicts)
        json_object_set_new(doc, "significance", verdicts);
    if (extra)
        json_object_update(doc, extra);
    return doc;
}

static void save(struct study *x, json_t *verdicts, json_t *extra, json_t *const *waits)
{
    struct err e;
    json_t *doc = study_json(x, verdicts, extra, waits);

    if (record_write_json(x->dir, "study.json", doc, &e) < 0)
        fprintf(stderr, "tpccbench study: %s\n", e.msg);
    json_decref(doc);
}

/* --resume: the last folder of this study under the results directory, and its runs. */
static int resume_from(struct study *x, struct err *e)
{
    char suffix[160], best[512] = "", path[4200];
    struct dirent *de;
    DIR *d = opendir(x->cfg.results.dir);
    json_t *doc, *runs, *r;
    size_t i;

    snprintf(suffix, sizeof(suffix), "-study-%s", x->plan.name);
    if (!d)
        return err_set(e, E_USAGE, "--resume: no results directory '%s'", x->cfg.results.dir);
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name), k = strlen(suffix);
        if (n > k && !strcmp(de->d_name + n - k, suffix) && strcmp(de->d_name, best) > 0)
            snprintf(best, sizeof(best), "%s", de->d_name);
    }
    closedir(d);
    if (!best[0])
        return err_set(e, E_USAGE, "--resume: no study '%s' under '%s' to resume", x->plan.name,
                       x->cfg.results.dir);
    snprintf(x->dir, sizeof(x->dir), "%s/%s", x->cfg.results.dir, best);
    snprintf(path, sizeof(path), "%s/study.json", x->dir);
    if (!(doc = json_load_file(path, 0, NULL)))
        return err_set(e, E_USAGE, "--resume: cannot read '%s'", path);
    if (!strcmp(jstr(doc, "status"), "complete")) {
        json_decref(doc);
        return err_set(e, E_USAGE, "--resume: the study in '%s' is complete already", x->dir);
    }
    runs = json_object_get(doc, "runs");
    if (json_array_size(runs) != (size_t)x->nruns) {
        json_decref(doc);
        return err_set(e, E_USAGE,
                       "--resume: '%s' holds %zu runs, the study file now makes %d: the file "
                       "changed; start a new study",
                       path, json_array_size(runs), x->nruns);
    }
    json_array_foreach(runs, i, r)
    {
        const char *st = json_string_value(json_object_get(r, "status"));
        const char *dir = json_string_value(json_object_get(r, "dir"));
        if (st && !strcmp(st, "complete") && dir) {
            snprintf(x->runs[i].status, sizeof(x->runs[i].status), "complete");
            snprintf(x->runs[i].dir, sizeof(x->runs[i].dir), "%s", dir);
        }
    }
    x->restarts = (int)json_integer_value(json_object_get(doc, "restarts"));
    json_decref(doc);
    return 0;
}

/* ---- before anything runs ---- */

/* Every setting exists and every value is valid; restarts are possible. */
static int preflight(struct study *x, struct err *e)
{
    struct db_conn *c;
    int rc;

    if ((rc = connect_db(x, 0, &c, e)) < 0)
        return rc;
    for (int i = 0; i < x->plan.nsteps && rc == 0; i++) {
        const struct study_step *st = &x->plan.steps[i];
        for (int k = 0; k < st->nset && rc == 0; k++) {
            struct pgset_info in;
            const struct study_setting *ss = &st->set[k];
            if (st->control)
                break;
            rc = pgset_lookup(c, &x->d, ss->name, &in, e);
            if (rc == 1) {
                rc = err_set(e, E_USAGE,
                             "%s: unknown server setting '%s' (not in pg_settings of this "
                             "server): check its spelling",
                             ss->where, ss->name);
                break;
            }
            if (rc < 0)
                break;
            if ((rc = pgset_check(c, &x->d, &in, ss->value, e)) < 0) {
                char msg[sizeof(e->msg)];
                snprintf(msg, sizeof(msg), "%s", e->msg);
                if (e->code == E_USAGE)
                    rc = err_set(e, E_USAGE, "%s: '%s' %s", ss->where, ss->name, msg);
                break;
            }
            if (!strcmp(in.context, "postmaster")) {
                x->needs_restart_ctx = 1;
                if (!x->s.managed && !x->plan.restart_command[0])
                    rc = err_set(e, E_USAGE,
                                 "%s: '%s' needs a restart of the server (pg_settings.context "
                                 "is postmaster), and the study cannot restart a server it "
                                 "did not start: give study.restart_command, or leave the "
                                 "setting out",
                                 ss->where, ss->name);
            }
        }
    }
    db_close(c);
    return rc;
}

/* ---- significance and the table ---- */

/* One line: "NOTPM +12.3 % [+4.0, +20.1] significant gain". */
static void fig_line(char *buf, size_t len, const char *name, const struct sig_result *r)
{
    char g[32], lo[32], hi[32];

    cmp_fmt_pct(g, sizeof(g), r->gain);
    if (isnan(r->lo)) {
        snprintf(buf, len, "%s %s (%s)", name, g, sig_verdict_name(r->verdict));
        return;
    }
    snprintf(lo, sizeof(lo), "%+.1f", r->lo * 100.0);
    snprintf(hi, sizeof(hi), "%+.1f", r->hi * 100.0);
    snprintf(buf, len, "%s %s [%s, %s] %s", name, g, lo, hi, sig_verdict_name(r->verdict));
}

static json_t *sig_json(int step, int against, const char *metric, const struct sig_result *r)
{
    return json_pack("{s:i, s:i, s:s, s:o, s:o, s:o, s:o, s:i, s:i, s:s}", "step", step + 1,
                     "against", against + 1, "metric", metric, "gain", cmp_jnum(r->gain), "ci_low",
                     cmp_jnum(r->lo), "ci_high", cmp_jnum(r->hi), "df", cmp_jnum(r->df), "n_old",
                     r->n_old, "n_new", r->n_new, "verdict", sig_verdict_name(r->verdict));
}

static void change_text(const struct study *x, int s, char *buf, size_t len)
{
    const struct study_step *st = &x->plan.steps[s];
    size_t o = 0;

    buf[0] = '\0';
    if (st->control) {
        snprintf(buf, len, "A/A control (the baseline again)");
        return;
    }
    for (int k = 0; k < st->nset && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s = %s", k ? ", " : "", st->set[k].name,
                              st->set[k].value);
    if (st->before[0] && o < len)
        o += (size_t)snprintf(buf + o, len - o, "%sbefore: %s", o ? "; " : "", st->before);
    if (!buf[0])
        snprintf(buf, len, "%s", s == 0 ? "baseline" : "(nothing tpccbench sets)");
}

/* The study's complete runs as compare holds them, and which step is which. */
struct study_cmp {
    struct cmp c;                     /* valid when ok */
    int ok;                           /* 0: no complete run could be read */
    int step_no[STUDY_MAX_STEPS + 1]; /* the study's number (from 1) of compare's step k */
    int of_step[STUDY_MAX_STEPS];     /* compare's step of the study's step s; -1: none */
};

/*
 * Read the study's complete runs step by step, once, into compare's struct
 * cmp (cmp_build, forced): a step without a complete run is not among
 * compare's.  A record that cannot be read is left out, and said.
 */
static void load_cmp(const struct study *x, struct study_cmp *sc)
{
    struct cmp_run *runs = calloc((size_t)(x->nruns > 0 ? x->nruns : 1), sizeof(*runs));
    struct err e;
    int n = 0;

    memset(sc, 0, sizeof(*sc));
    for (int s = 0; s < STUDY_MAX_STEPS; s++)
        sc->of_step[s] = -1;
    for (int s = 0; runs && s < x->plan.nsteps; s++)
        for (int r = 0; r < x->nruns; r++) {
            if (x->runs[r].step != s || strcmp(x->runs[r].status, "complete") != 0)
                continue;
            if (cmp_run_load(&runs[n], x->runs[r].dir, &e) == 0)
                n++;
            else
                fprintf(stderr, "tpccbench study: leaving run '%s' out of the tables: %s\n",
                        x->runs[r].dir, e.msg);
        }
    if (n < 1) {
        free(runs);
        return;
    }
    if (cmp_build(&sc->c, runs, n, 1, &e) < 0) {
        fprintf(stderr, "tpccbench study: the step table: %s\n", e.msg);
        cmp_release(&sc->c);
        return;
    }
    sc->ok = 1;
    /* Labels are unique in a study: compare's step of runs labelled L is the study's step L. */
    for (int k = 0; k < sc->c.n_steps; k++) {
        sc->step_no[k] = k + 1;
        for (int s = 0; s < x->plan.nsteps; s++)
            if (!strcmp(x->plan.steps[s].label, sc->c.runs[sc->c.steps[k].first].label)) {
                sc->step_no[k] = s + 1;
                sc->of_step[s] = k;
            }
    }
}

static void release_cmp(struct study_cmp *sc)
{
    if (sc->ok)
        cmp_release(&sc->c);
    sc->ok = 0;
}

/*
 * The step table, compare's (cmp_print_steps): each step's medians, its
 * runs out of the repeats, its gains and what it changes; then the steps
 * without a complete run.
 */
static void step_table(const struct study *x, const struct study_cmp *sc, FILE *out)
{
    struct cmp_table_opts o = { .runs_of = x->plan.repeat,
                                .full_notes = 1,
                                .step_no = sc->step_no };

    if (sc->ok) {
        cmp_print_steps(out, &sc->c, &o);
        fputc('\n', out);
    }
    for (int s = 0; s < x->plan.nsteps; s++)
        if (sc->of_step[s] < 0)
            fprintf(out, "step %d '%s': no complete run (of %d)\n", s + 1, x->plan.steps[s].label,
                    x->plan.repeat);
}

/*
 * Each step's largest wait change against the step before it in the table
 * (cmp_step_wait_change) into waits[s] (the study's step s; NULL for the
 * first and for a step without a complete run): {"against", "largest"
 * (null when none), "why" (then)}.
 */
static void step_waits(const struct study *x, const struct study_cmp *sc, json_t **waits)
{
    for (int s = 0; s < x->plan.nsteps; s++) {
        struct wdiff_change ch;
        char why[320];
        int k = sc->ok ? sc->of_step[s] : -1;
        waits[s] = NULL;
        if (k < 1)
            continue;
        if (cmp_step_wait_change(&sc->c, k, &ch, why, sizeof(why)))
            waits[s] = json_pack("{s:i, s:o}", "against", sc->step_no[k - 1], "largest",
                                 wdiff_json(&ch));
        else
            waits[s] = json_pack("{s:i, s:n, s:s}", "against", sc->step_no[k - 1], "largest",
                                 "why", why);
    }
}

/*
 * Step s against step against (the baseline, or the step before): a line
 * of each figure's gain, interval and verdict (compare's cmp_sig; none
 * when no figure has a gain).  Every verdict goes into all; the control
 * step's NOTPM and TPS against the baseline into *ctl_json, the noise floor.
 */
static void sig_line(const struct study *x, const struct study_cmp *sc, int s, int against,
                     FILE *out, json_t *all, json_t **ctl_json)
{
    static const char *const shown[CMP_NSIG] = { "NOTPM", "TPS", "load", "NO p90" };
    char line[1024];
    size_t o = 0;
    int n = 0;

    if (sc->of_step[s] < 0 || sc->of_step[against] < 0)
        return;
    o += (size_t)snprintf(line, sizeof(line), "%4d  %s vs %s:", s + 1, x->plan.steps[s].label,
                          against == 0 ? "baseline" : "step before");
    for (int f = 0; f < CMP_NSIG && o < sizeof(line); f++) {
        struct sig_result r;
        char fl[200], name[32];
        cmp_sig(&sc->c, sc->of_step[s], sc->of_step[against], cmp_sig_metrics[f], &r);
        if (isnan(r.gain))
            continue;
        cmp_metric_name(cmp_sig_metrics[f], name, sizeof(name));
        fig_line(fl, sizeof(fl), shown[f], &r);
        o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s", f ? ";" : "", fl);
        n++;
        json_array_append_new(all, sig_json(s, against, name, &r));
        if (x->plan.steps[s].control && f < 2) {
            if (!*ctl_json)
                *ctl_json = json_object();
            json_object_set_new(*ctl_json, name,
                                json_pack("{s:o, s:o, s:s}", "ci_low", cmp_jnum(r.lo), "ci_high",
                                          cmp_jnum(r.hi), "verdict", sig_verdict_name(r.verdict)));
        }
    }
    if (n)
        fprintf(out, "%s\n", line);
}

/* Print the step table and collect every verdict; *ctl_json gets the noise floor. */
static json_t *significance(const struct study *x, const struct study_cmp *sc, FILE *out,
                            json_t **ctl_json)
{
    json_t *all = json_array();

    *ctl_json = NULL;
    fprintf(out,
            "\nstudy %s: %d steps x %d, %s, reset %s%s (NOTPM: TPC-C derived, not "
            "audited)\n",
            x->plan.name, x->plan.nsteps, x->plan.repeat,
            x->plan.interleaved ? "interleaved" : "sequential", study_reset_name(x->plan.reset),
            x->plan.cumulative ? ", cumulative" : ", each step against the baseline");
    fprintf(out, "gains: medians of the runs; [95 %% confidence interval] from Welch's t on the "
                 "log figures\n\n");
    step_table(x, sc, out);
    /* Each step against the step before (from the third; not the control), then the baseline. */
    for (int s = 1; s < x->plan.nsteps; s++) {
        if (s > 1 && !x->plan.steps[s].control)
            sig_line(x, sc, s, s - 1, out, all, ctl_json);
        sig_line(x, sc, s, 0, out, all, ctl_json);
    }
    if (*ctl_json) {
        json_t *nf = json_object_get(*ctl_json, "notpm");
        double lo = json_real_value(json_object_get(nf, "ci_low")),
               hi = json_real_value(json_object_get(nf, "ci_high"));
        if (nf && json_is_real(json_object_get(nf, "ci_low")))
            fprintf(out,
                    "\nnoise floor (A/A control against the baseline): NOTPM %+.1f %% .. "
                    "%+.1f %%: gains inside it are not distinguishable from noise\n",
                    lo * 100.0, hi * 100.0);
    }
    return all;
}

/*
 * Rule r on the last step (not the control) against the baseline, by
 * compare's cmp_rule_eval_steps; what it did is said on stderr.  1 when it
 * tripped, 0 when not, -1 when it cannot be judged (e in the entry).
 */
static int gate_rule(const struct study *x, const struct study_cmp *sc, const struct cmp_rule *r,
                     json_t *out)
{
    int last = x->plan.nsteps - 1 - x->plan.control, rc;
    struct cmp_verdict v = { .change_pct = NAN, .ci_lo_pct = NAN, .ci_hi_pct = NAN };
    struct err e;
    char msg[768];

    err_clear(&e);
    if (sc->of_step[0] < 0 || sc->of_step[last] < 0)
        rc = err_set(&e, E_USAGE, "--fail-if '%s': step %d '%s' has no complete run", r->text,
                     sc->of_step[0] < 0 ? 1 : last + 1,
                     x->plan.steps[sc->of_step[0] < 0 ? 0 : last].label);
    else
        rc = cmp_rule_eval_steps(&sc->c, r, sc->of_step[0], sc->of_step[last], &v, &e);
    /* The lost rule names a step of compare's; the study's plan numbers it. */
    for (int i = 0; rc == 0 && r->lost && v.tripped && i < x->plan.nsteps; i++)
        if (sc->of_step[i] == v.lost_step) {
            v.lost_step = i;
            break;
        }
    if (rc < 0)
        fprintf(stderr, "tpccbench study: %s: not judged\n", e.msg);
    else if (cmp_verdict_text(msg, sizeof(msg), r, &v) >= 0)
        fprintf(stderr, "tpccbench study: step %d against the baseline: %s\n", last + 1, msg);
    json_array_append_new(out, json_pack("{s:s, s:o, s:o, s:o, s:b}", "rule", r->text, "change",
                                         cmp_jnum(v.change_pct / 100.0), "ci_low",
                                         cmp_jnum(v.ci_lo_pct / 100.0), "ci_high",
                                         cmp_jnum(v.ci_hi_pct / 100.0), "tripped", v.tripped));
    if (rc < 0)
        json_object_set_new(json_array_get(out, json_array_size(out) - 1), "error",
                            json_string(e.msg));
    return rc < 0 ? -1 : v.tripped;
}

/*
 * The gate: each rule on the last step against the baseline.  1 when one
 * tripped, else 2 when one cannot be judged (compare exits 2 then too),
 * else 0; *out gets each rule's entry.
 */
static int gate(const struct study *x, const struct study_cmp *sc, json_t **out)
{
    int tripped = 0, unjudged = 0;

    *out = json_array();
    for (int i = 0; i < x->n_rules; i++) {
        int rc = gate_rule(x, sc, &x->rules[i], *out);
        tripped |= rc > 0;
        unjudged |= rc < 0;
    }
    return tripped ? 1 : unjudged ? 2 : 0;
}

/* report.html over the complete runs, in step order (so repeats are grouped). */
static void write_report(const struct study *x, const struct study_cmp *sc)
{
    struct report_opts o = { 0 };
    struct err e;
    char title[200], *html = NULL;
    size_t len = 0;

    if (!sc->ok || sc->c.n_runs < 2)
        return;
    snprintf(title, sizeof(title), "tpccbench study %s", x->plan.name);
    o.title = title;
    if (report_html(&sc->c, &o, &html, &len, &e) == 0 &&
        record_write_file(x->dir, "report.html", html, len, &e) == 0)
        printf("report: %s/report.html\n", x->dir);
    else
        fprintf(stderr, "tpccbench study: report: %s\n", e.msg);
    free(html);
}

/* ---- the end ---- */

/* Reset what the study set (private server), or say what it left set (existing server). */
static json_t *finish_settings(struct study *x)
{
    json_t *left = json_object();
    struct err e;
    struct db_conn *c;
    int any = 0;

    if (!x->nnames || !x->applied_known)
        return left;
    for (int i = 0; i < x->nnames; i++)
        any |= x->applied[i][0] != '\0';
    if (!x->s.managed) {
        for (int i = 0; i < x->nnames; i++)
            if (x->applied[i][0]) {
                json_object_set_new(left, x->names[i], json_string(x->applied[i]));
                fprintf(stderr, "study: left set on the server (ALTER SYSTEM): %s = %s\n",
                        x->names[i], x->applied[i]);
            }
        if (any)
            fprintf(stderr, "study: undo with ALTER SYSTEM RESET name (and a reload, or a "
                            "restart for a setting of context postmaster)\n");
        return left;
    }
    if (!any)
        return left;
    if (connect_db(x, settings_admin(x), &c, &e) == 0) {
        char pending[1024];
        int restarted = 0;
        for (int i = 0; i < x->nnames; i++)
            if (x->applied[i][0] && pgset_alter(c, &x->d, x->names[i], NULL, &e) == 0)
                x->applied[i][0] = '\0';
        db_close(c);
        if (reload_pending(x, pending, sizeof(pending), &e) == 0 && pending[0] &&
            restart_server(x, &e) == 0)
            restarted = 1;
        fprintf(stderr, "study: the study's settings are reset on the private server%s\n",
                restarted ? " (restarted)" : "");
        study_log(x, "settings reset%s", restarted ? ", restarted" : "");
    } else {
        fprintf(stderr, "tpccbench study: resetting the settings: %s\n", e.msg);
    }
    for (int i = 0; i < x->nnames; i++)
        if (x->applied[i][0])
            json_object_set_new(left, x->names[i], json_string(x->applied[i]));
    return left;
}

/* ---- the command ---- */

static void study_usage(void)
{
    cmd_usage(stdout, "study",
              "FILE [-c CONFIG] [--yes] [--resume] [--fail-if RULE]... [--durability kill|power]",
              "Run a whole tuning study: a baseline, then one change at a time (server\n"
              "settings through ALTER SYSTEM, with a restart where the setting needs it,\n"
              "or before/after shell commands), each step repeated, the repeats\n"
              "interleaved, every run a normal record.  Prints the step table with each\n"
              "gain's 95 % confidence interval and verdict; writes study.json, study.log\n"
              "and report.html into RESULTS/<time>-study-NAME/.  --durability: after each\n"
              "run, a crash in a short mix (acid.durability_window) and the column durable\n"
              "(yes, LOST n); --fail-if 'lost > 0' fails a step that lost one.  See tpccbench(1).\n"
              "exit: 0 ok, 1 a run, command or --fail-if rule failed, 2 usage, study file or a\n"
              "--fail-if rule the runs cannot judge (no complete run, or no such figure)",
              study_opts);
}

/* The status a run's record ends with ("" when unreadable). */
static void record_status(const char *dir, char *out, size_t len)
{
    char path[4200];
    json_t *doc;

    out[0] = '\0';
    snprintf(path, sizeof(path), "%s/run.json", dir);
    if (!(doc = json_load_file(path, 0, NULL)))
        return;
    snprintf(out, len, "%s", jstr(doc, "status"));
    json_decref(doc);
}

/* Mark a run's record as part of the study (name, step, repeat). */
static void tag_record(const struct study *x, const struct run_state *rs)
{
    char path[4200];
    struct runrec rec;
    struct err e;
    json_t *doc;

    snprintf(path, sizeof(path), "%s/run.json", rs->dir);
    if (!(doc = json_load_file(path, 0, NULL)))
        return;
    runrec_adopt(&rec, doc, rs->dir);
    runrec_set(&rec, "study",
               json_pack("{s:s, s:i, s:i, s:o, s:b}", "name", x->plan.name, "step", rs->step + 1,
                         "repeat", rs->repeat, "settings", settings_json(x, rs->step),
                         "restarted_before", rs->restarted));
    runrec_save(&rec, &e);
    runrec_release(&rec);
}

/*
 * A complete run's durability check (acid.durability) on the study's own
 * server, into its record as acid.durability; one that cannot run is said
 * and logged, and the step table shows "no check" for it.
 */
static void durability_step(struct study *x, const struct run_state *rs)
{
    char path[4200];
    struct runrec rec;
    struct err e;
    json_t *doc, *dj = NULL;

    err_clear(&e);
    if (durcheck_after_run(&x->s, &x->cfg, rs->dir, &dj, &e) < 0) {
        fprintf(stderr, "study: %s\n", e.msg);
        study_log(x, "durability check: %s", e.msg);
        return;
    }
    study_log(x, "durability check: %s", jstr(dj, "summary"));
    snprintf(path, sizeof(path), "%s/run.json", rs->dir);
    if (!(doc = json_load_file(path, 0, NULL))) {
        json_decref(dj);
        return;
    }
    runrec_adopt(&rec, doc, rs->dir);
    runrec_set(&rec, "acid", json_pack("{s:o}", "durability", dj));
    runrec_save(&rec, &e);
    runrec_release(&rec);
}

static int stop(struct study *x, const struct err *e)
{
    snprintf(x->stop_reason, sizeof(x->stop_reason), "%s", e->msg);
    fprintf(stderr, "tpccbench study: %s\n", e->msg);
    study_log(x, "stopped: %s", e->msg);
    return 1;
}

/* Every run of the schedule that is not complete yet.  Returns 1 when the study stopped. */
static int run_all(struct study *x)
{
    struct err e;
    int stopped = 0;

    for (int r = 0; r < x->nruns && !stopped && !sig_stop_requested(); r++) {
        struct run_state *rs = &x->runs[r];
        const struct study_step *st = &x->plan.steps[rs->step];
        struct config rc = x->cfg;
        char change[CFG_STR];
        int64_t t0;
        int set_rc;

        if (!strcmp(rs->status, "complete"))
            continue;
        err_clear(&e);
        fprintf(stderr, "\n== study %s: run %d of %d: step %d '%s', repeat %d of %d ==\n",
                x->plan.name, r + 1, x->nruns, rs->step + 1, st->label, rs->repeat, x->plan.repeat);
        study_log(x, "run %d: step %d %s repeat %d", r + 1, rs->step + 1, st->label, rs->repeat);
        t0 = (int64_t)clock_us();
        set_rc = apply_settings(x, rs->step, &rs->restarted, &e);
        if (set_rc == 0)
            study_log(x, "settings in %.2f s%s", (double)((int64_t)clock_us() - t0) / 1e6,
                  rs->restarted ? " (restarted)" : "");
        if (set_rc < 0 || (x->plan.reset == STUDY_RESET_TEMPLATE && template_copy(x, 0, &e) < 0)) {
            if (sig_stop_requested())
                break;
            stopped = stop(x, &e);
            break;
        }
        if (st->before[0] && shell(x, "before", st->before, &e) < 0) {
            stopped = stop(x, &e);
            break;
        }
        snprintf(rc.results.label, sizeof(rc.results.label), "%s", st->label);
        change_text(x, rs->step, change, sizeof(change));
        snprintf(rc.results.change, sizeof(rc.results.change), "%s", change);
        /* prepare() checked that the folder fits. */
        snprintf(rc.results.dir, sizeof(rc.results.dir), "%.*s", (int)sizeof(rc.results.dir) - 1,
                 x->dir);
        t0 = (int64_t)clock_us();
        x->runs_args.durability_by_caller = 1;
        one_record(x->plan.reset == STUDY_RESET_LOAD ? "bench" : "run",
                   x->plan.reset == STUDY_RESET_LOAD, &rc, &x->runs_args, rs->repeat,
                   x->plan.repeat, rs->dir, sizeof(rs->dir));
        record_status(rs->dir, rs->status, sizeof(rs->status));
        if (!rs->status[0])
            snprintf(rs->status, sizeof(rs->status), "failed");
        tag_record(x, rs);
        if (x->cfg.acid.durability && !strcmp(rs->status, "complete") && !sig_stop_requested())
            durability_step(x, rs);
        study_log(x, "run %d: %s in %.2f s (%s)", r + 1, rs->status,
              (double)((int64_t)clock_us() - t0) / 1e6, rs->dir);
        if (st->after[0] && shell(x, "after", st->after, &e) < 0)
            stopped = stop(x, &e);
        if (!stopped && strcmp(rs->status, "complete") != 0 && !sig_stop_requested()) {
            fprintf(stderr, "study: step %d '%s' failed (run %s)%s\n", rs->step + 1, st->label,
                    rs->status, x->plan.on_failure_stop ? "" : "; the study goes on");
            if (x->plan.on_failure_stop) {
                err_set(&e, E_FAIL, "step %d '%s': a run ended %s (on_failure: stop)", rs->step + 1,
                        st->label, rs->status);
                stopped = stop(x, &e);
            }
        }
        save(x, NULL, NULL, NULL);
    }
    return stopped;
}

/* Print the commands the study would run; 0 when none or --yes. */
static int commands_ok(const struct study *x, struct err *e)
{
    int n = 0;

    for (int i = 0; i < x->plan.nsteps; i++) {
        const struct study_step *st = &x->plan.steps[i];
        if (st->control)
            continue;
        if (st->before[0] || st->after[0]) {
            if (!n++)
                fprintf(stderr, "study: commands this study runs through /bin/sh:\n");
            if (st->before[0])
                fprintf(stderr, "  step %d %s, before each run: %s\n", i + 1, st->label,
                        st->before);
            if (st->after[0])
                fprintf(stderr, "  step %d %s, after each run:  %s\n", i + 1, st->label, st->after);
        }
    }
    if (x->plan.restart_command[0]) {
        if (!n++)
            fprintf(stderr, "study: commands this study runs through /bin/sh:\n");
        fprintf(stderr, "  to restart the server: %s\n", x->plan.restart_command);
    }
    if (n && !x->yes)
        return err_set(e, E_USAGE,
                       "%s: the study runs the shell commands above: read them, then give --yes "
                       "to run them",
                       x->plan.path);
    return 0;
}

/* The --fail-if rules into x->rules; -1 to go on, else the exit code (the message printed). */
static int parse_rules(struct study *x, struct err *e)
{
    for (int i = 0; i < x->args.nextra; i++) {
        int col;
        if (strcmp(x->args.extra_name[i], "fail-if") != 0)
            continue;
        if (x->n_rules == MAX_RULES) {
            err_set(e, E_USAGE, "too many --fail-if rules (at most %d)", MAX_RULES);
            return cmd_fail("study", e);
        }
        if (cmp_rule_parse(x->args.extra_val[i], &x->rules[x->n_rules], &col, e) < 0) {
            fprintf(stderr, "tpccbench study: --fail-if '%s': column %d: %s\n",
                    x->args.extra_val[i], col, e->msg);
            return 2;
        }
        x->n_rules++;
    }
    return -1;
}

/* The command line: -1 to go on, else the exit code (usage printed, or the error). */
static int parse_command(struct study *x, int argc, char **argv, struct err *e)
{
    int rc;

    if (cmd_parse("study", argc - 1, argv + 1, study_opts, &x->cfg, &x->args, e) < 0)
        return cmd_fail("study", e);
    if (x->args.help) {
        study_usage();
        return 0;
    }
    if (x->args.npos != 1) {
        err_set(e, E_USAGE,
                x->args.npos ? "give one study file (got %d arguments)"
                             : "give the study file (tpccbench study FILE)",
                x->args.npos);
        return cmd_fail("study", e);
    }
    if ((rc = parse_rules(x, e)) >= 0)
        return rc;
    x->yes = cmd_extra(&x->args, "yes") != NULL;
    return -1;
}

/*
 * The study file and what it needs, all checked before anything runs: its
 * schedule, the settings it sets, the driver, the commands (--yes), the
 * private server's data directory.
 */
static int plan_study(struct study *x, struct err *e)
{
    static struct study_run sched[STUDY_MAX_RUNS];
    int rc;

    if ((rc = study_plan_load(&x->plan, &x->cfg, x->args.pos[0], e)) < 0 ||
        (rc = cfg_validate(&x->cfg, e)) < 0)
        return rc;
    /* Not served here: refused rather than ignored. */
    if (x->cfg.run.metrics_listen[0])
        return err_set(e, E_USAGE,
                       "'run.metrics_listen': study does not serve the live endpoint (run, bench "
                       "and load do): remove it from the config, or watch one step with "
                       "'tpccbench bench --metrics-listen'");
    x->nruns = study_schedule(&x->plan, sched, STUDY_MAX_RUNS);
    for (int r = 0; r < x->nruns; r++) {
        x->runs[r].step = sched[r].step;
        x->runs[r].repeat = sched[r].repeat;
    }
    x->nnames = study_all_names(&x->plan, x->names, MAX_NAMES);
    x->needs_pg = x->nnames > 0 || x->plan.reset == STUDY_RESET_TEMPLATE;
    if (x->needs_pg && strcmp(x->cfg.database.driver, "postgres") != 0)
        return err_set(e, E_USAGE,
                       "%s: server settings (set:) and reset: template need driver postgres (got "
                       "%s); use reset: load or none and before/after commands for another DBMS",
                       x->plan.path, x->cfg.database.driver);
    if ((rc = commands_ok(x, e)) < 0)
        return rc;
    if (x->cfg.database.managed) {
        if (!x->cfg.database.datadir[0])
            snprintf(x->cfg.database.datadir, sizeof(x->cfg.database.datadir), "%.240s/pgdata",
                     x->cfg.results.dir);
        snprintf(x->datadir, sizeof(x->datadir), "%s", x->cfg.database.datadir);
    }
    return 0;
}

/* With the server up: the settings checked on it, and the study's folder (new, or resumed). */
static int prepare(struct study *x, struct err *e)
{
    int rc;

    if (x->needs_pg && ((rc = pgset_dialect_load(&x->d, x->s.dialect, e)) < 0 ||
                        (x->nnames && (rc = preflight(x, e)) < 0)))
        return rc;
    if (cmd_extra(&x->args, "resume")) {
        if ((rc = resume_from(x, e)) < 0)
            return rc;
    } else {
        char label[160];
        snprintf(label, sizeof(label), "study-%s", x->plan.name);
        if ((rc = runrec_make_dir(x->cfg.results.dir, label, x->dir, sizeof(x->dir), e)) < 0)
            return rc;
    }
    if (strlen(x->dir) >= CFG_STR - 40)
        return err_set(e, E_USAGE,
                       "the study's folder '%s' is too long a path: choose a shorter "
                       "--results-dir",
                       x->dir);
    return 0;
}

/* Open study.log, say where the study goes, and write study.json as running. */
static void start_log(struct study *x)
{
    char logpath[4200];

    snprintf(logpath, sizeof(logpath), "%s/study.log", x->dir);
    x->log = fopen(logpath, "ae");
    study_log(x, "study %s from %s%s", x->plan.name, x->plan.path,
          cmd_extra(&x->args, "resume") ? " (resumed)" : "");
    fprintf(stderr, "study: %s, %d runs; folder %s\n", x->plan.name, x->nruns, x->dir);
    snprintf(x->status, sizeof(x->status), "running");
    save(x, NULL, NULL, NULL);
}

/* Data to start from: the template (loaded, or copied from the user's data), or one load. */
static int starting_data(struct study *x, struct err *e)
{
    int rc = 0;

    if (x->plan.reset == STUDY_RESET_TEMPLATE) {
        if ((rc = db_names(x, e)) == 0 && !(x->has_template && cmd_extra(&x->args, "resume"))) {
            /* Data loaded here is renamed into the template; the user's own (--no-load) copied. */
            int loaded = !cmd_extra(&x->args, "no-load");
            if (loaded)
                rc = initial_load(x, e);
            if (rc == 0 && (rc = loaded ? template_from_load(x, e) : template_copy(x, 1, e)) == 0)
                x->has_template = 1;
        }
    } else if (x->plan.reset == STUDY_RESET_NONE && !cmd_extra(&x->args, "resume") &&
               !cmd_extra(&x->args, "no-load")) {
        rc = initial_load(x, e);
    }
    return rc;
}

/*
 * After the runs, unless interrupted: the settings reset (or listed) into
 * extra, and the template dropped when the study is complete.  Interrupted:
 * say that the settings stay.
 */
static void leave_server(struct study *x, json_t *extra)
{
    struct err e;

    if (sig_stop_requested()) {
        fprintf(stderr,
                "study: interrupted; the settings of the last step stay written "
                "(ALTER SYSTEM) until 'tpccbench study %s --resume' ends the study\n",
                x->plan.path);
        return;
    }
    json_object_set_new(extra, x->s.managed ? "settings_not_reset" : "left_set",
                        finish_settings(x));
    if (!strcmp(x->status, "complete") && x->plan.reset == STUDY_RESET_TEMPLATE &&
        drop_template(x, &e) < 0)
        fprintf(stderr, "tpccbench study: dropping the template: %s\n", e.msg);
}

/* Stop the study's server (unless it ran before the study) and release the statements. */
static void close_study(struct study *x)
{
    struct err e;

    /* Restarted by the study, it is the study's now: kept again as it was found. */
    if (x->leave_running && managed_keep(&x->s.mpg, &e) < 0)
        fprintf(stderr, "tpccbench study: marking the private PostgreSQL kept: %s\n", e.msg);
    x->s.mpg.started = x->leave_running ? 0 : x->s.mpg.started;
    session_close(&x->s);
    dialect_release(&x->d);
}

/*
 * The end: the step table, the gate, study.json, report.html, all from the
 * study's runs read once into compare's struct cmp; the exit code: a stop
 * or a tripped rule 1, a rule that cannot be judged 2.
 */
static int finish(struct study *x, int stopped)
{
    json_t *verdicts, *ctl = NULL, *extra = json_object(), *g = NULL;
    json_t *waits[STUDY_MAX_STEPS] = { NULL };
    struct study_cmp *sc = calloc(1, sizeof(*sc));
    int gated = 0;

    snprintf(x->status, sizeof(x->status), "%s",
             sig_stop_requested() ? "interrupted"
             : stopped            ? "failed"
                                  : "complete");
    leave_server(x, extra);
    fflush(stderr);
    if (sc)
        load_cmp(x, sc);
    else
        fprintf(stderr, "tpccbench study: out of memory for the step table\n");
    verdicts = sc ? significance(x, sc, stdout, &ctl) : NULL;
    if (ctl)
        json_object_set_new(extra, "noise_floor", ctl);
    if (x->n_rules && sc) {
        gated = gate(x, sc, &g);
        json_object_set_new(extra, "gate", g);
    }
    if (sc)
        step_waits(x, sc, waits);
    save(x, verdicts, extra, waits);
    json_decref(extra);
    for (int s = 0; s < x->plan.nsteps; s++)
        json_decref(waits[s]);
    if (sc)
        write_report(x, sc);
    printf("study: %s/study.json (%s)\n", x->dir, x->status);
    study_log(x, "study %s", x->status);
    if (x->log)
        fclose(x->log);
    close_study(x);
    if (sc)
        release_cmp(sc);
    free(sc);
    if (sig_stop_requested())
        return sig_exit_code();
    return stopped ? 1 : gated;
}

/* The phases: parse, plan, the server and folder, the data, every run, the end. */
static int study_main(struct study *x, int argc, char **argv)
{
    struct err e;
    int rc, stopped = 0;

    err_clear(&e);
    if ((rc = parse_command(x, argc, argv, &e)) >= 0)
        return rc;
    if (plan_study(x, &e) < 0 || durcheck_usable(&x->cfg, &e) < 0)
        return cmd_fail("study", &e);
    sig_install();
    if (session_open(&x->s, &x->cfg, &e) < 0) {
        session_close(&x->s);
        return cmd_fail("study", &e);
    }
    x->leave_running = x->s.managed && !x->s.mpg.started;
    if (x->cfg.acid.durability && x->leave_running) {
        err_set(&e, E_USAGE,
                "--durability crashes the private PostgreSQL on '%s', which runs for another "
                "command or was kept: stop it first ('tpccbench server stop')",
                x->s.mpg.datadir);
        close_study(x);
        return cmd_fail("study", &e);
    }
    if (prepare(x, &e) < 0) {
        close_study(x);
        return cmd_fail("study", &e);
    }
    start_log(x);
    if (starting_data(x, &e) < 0) {
        if (!sig_stop_requested())
            stopped = stop(x, &e);
    } else {
        stopped = run_all(x);
    }
    return finish(x, stopped);
}

int cmd_study(int argc, char **argv)
{
    struct study *x = calloc(1, sizeof(*x));
    int rc;

    if (!x) {
        fprintf(stderr, "tpccbench study: out of memory\n");
        return 1;
    }
    rc = study_main(x, argc, argv);
    free(x);
    return rc;
}
