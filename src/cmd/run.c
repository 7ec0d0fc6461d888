/*
 * run.c - `tpccbench run` (timed workload) and `tpccbench bench` (load + run
 * + check, one record).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/check.h"
#include "cmd/durcheck.h"
#include "cmd/load.h"
#include "cmd/merge.h"
#include "core/signals.h"
#include "results/record.h"
#include "results/runrec.h"
#include "run/driver.h"
#include "run/figures.h"
#include "run/meet.h"
#include "run/metrics.h"
#include "run/mserve.h"
#include "run/partsum.h"
#include "tools/iobench.h"
#include "tpcc/deck.h"

static const struct cmd_opt run_opts[] = {
    { "duration", 'd', 1, "run.duration", "measured time: 500ms, 30s, 5m, 1h (default 60s)" },
    { "warmup", 0, 1, "run.warmup", "time before measuring, not counted (default 5s)" },
    { "rampup", 0, 1, "run.rampup", "VUs start staggered over this time (default 0)" },
    { "vus", 'u', 1, "run.virtual_users",
      "virtual users: terminals and connections (closed loop)" },
    { "terminals", 0, 1, "run.terminals", "terminals (default: VUs; 10 x W with think time)" },
    { "connections", 0, 1, "run.connections",
      "database connections (default: see README)" },
    { "batch", 0, 1, "run.batch", "most transactions per round trip per connection (1)" },
    { "workers", 0, 1, "run.workers", "worker threads (0: 1 per core in procedure mode, else 1 each)" },
    { "think-time", 0, 1, "run.think_time", "true: TPC-C keying and think times" },
    { "rate", 0, 1, "run.rate", "open loop: N/s Poisson arrivals over all terminals" },
    { "time-scale", 0, 1, "run.time_scale", "keying and think times x this (a deviation)" },
    { "isolation", 0, 1, "run.isolation", "read committed | repeatable read | serializable" },
    { "delivery", 0, 1, "run.delivery", "deferred (TPC-C) | inline (a labelled deviation)" },
    { "mix", 0, 1, "run.mix", "NO,P,OS,D,SL percent, sum 100 (default: the 23-card deck)" },
    { "seed", 0, 1, "run.seed", "run RNG seed (default: from the clock)" },
    { "mode", 0, 1, "run.mode", "client | pipeline | procedure (default: procedure)" },
    { "statements", 0, 1, "run.statements", "prepared | unnamed (unnamed: through a pooler)" },
    { "transactions", 0, 1, "run.transactions", "per terminal: stop after N transactions" },
    { "max-outage", 0, 1, "run.max_outage", "abort when the database is gone this long (60s)" },
    { "metrics", 0, 1, "run.metrics", "false: no OS and database metrics (metrics.csv)" },
    { "metrics-listen", 0, 1, "run.metrics_listen", "serve live metrics on HOST:PORT (/metrics)" },
    { "metrics-devices", 0, 1, "run.metrics_devices", "more block devices to sample: sdb,nvme0n1" },
    { "wait-sampling", 0, 1, "run.wait_sampling", "wait samples a second (pg_stat_activity; 0: off)" },
    { "db-host-metrics", 0, 1, "run.db_host_metrics",
      "the database host's node_exporter: http://db1:9100/metrics" },
    { "db-host-device", 0, 1, "run.db_host_device",
      "the data disk there when its filesystem does not say (dm-0)" },
    { "repeat", 0, 1, NULL, "N runs, one record each, under one label (compare: median)" },
    { "part", 0, 1, "run.part", "K/N: this process is part K of N of a scale-out run" },
    { "parts", 0, 1, "run.parts", "N parts (a Kubernetes Indexed Job's completions)" },
    { "part-timeout", 0, 1, "run.part_timeout", "how long a part waits for the others (5m)" },
    { "run-id", 0, 1, "run.run_id", "the name the parts of one run share (default: launcher's)" },
    { "meet-conninfo", 0, 1, "run.meet_conninfo", "a PostgreSQL the parts meet in (default: the database)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct cmd_opt bench_opts[] = {
    { "duration", 'd', 1, "run.duration", "measured time: 500ms, 30s, 5m, 1h (default 60s)" },
    { "warmup", 0, 1, "run.warmup", "time before measuring, not counted (default 5s)" },
    { "rampup", 0, 1, "run.rampup", "VUs start staggered over this time (default 0)" },
    { "vus", 'u', 1, "run.virtual_users",
      "virtual users: terminals and connections (closed loop)" },
    { "terminals", 0, 1, "run.terminals", "terminals (default: VUs; 10 x W with think time)" },
    { "connections", 0, 1, "run.connections",
      "database connections (default: see README)" },
    { "batch", 0, 1, "run.batch", "most transactions per round trip per connection (1)" },
    { "workers", 0, 1, "run.workers", "worker threads (0: 1 per core in procedure mode, else 1 each)" },
    { "think-time", 0, 1, "run.think_time", "true: TPC-C keying and think times" },
    { "rate", 0, 1, "run.rate", "open loop: N/s Poisson arrivals over all terminals" },
    { "time-scale", 0, 1, "run.time_scale", "keying and think times x this (a deviation)" },
    { "isolation", 0, 1, "run.isolation", "read committed | repeatable read | serializable" },
    { "delivery", 0, 1, "run.delivery", "deferred (TPC-C) | inline (a labelled deviation)" },
    { "mix", 0, 1, "run.mix", "NO,P,OS,D,SL percent, sum 100 (default: the 23-card deck)" },
    { "jobs", 'j', 1, "load.jobs", "parallel loader connections (default 2)" },
    { "seed", 0, 1, "load.seed", "data seed (default 1)" },
    { "mode", 0, 1, "run.mode", "client | pipeline | procedure (default: procedure)" },
    { "statements", 0, 1, "run.statements", "prepared | unnamed (unnamed: through a pooler)" },
    { "max-outage", 0, 1, "run.max_outage", "abort when the database is gone this long (60s)" },
    { "no-load", 0, 0, NULL, "use the data already loaded (no load step)" },
    { "durability", 0, 1, "acid.durability",
      "after the run and check: crash kill|power in a short mix, count what is lost" },
    { "iobench", 0, 1, NULL, "first measure the data directory's disk: \"-i ALL -s 256M\"" },
    { "metrics", 0, 1, "run.metrics", "false: no OS and database metrics (metrics.csv)" },
    { "metrics-listen", 0, 1, "run.metrics_listen", "serve live metrics on HOST:PORT (/metrics)" },
    { "metrics-devices", 0, 1, "run.metrics_devices", "more block devices to sample: sdb,nvme0n1" },
    { "wait-sampling", 0, 1, "run.wait_sampling", "wait samples a second (pg_stat_activity; 0: off)" },
    { "db-host-metrics", 0, 1, "run.db_host_metrics",
      "the database host's node_exporter: http://db1:9100/metrics" },
    { "db-host-device", 0, 1, "run.db_host_device",
      "the data disk there when its filesystem does not say (dm-0)" },
    { "repeat", 0, 1, NULL, "N steps, one record each, under one label (compare: median)" },
    { "part", 0, 1, "run.part", "K/N: this process is part K of N of a scale-out run" },
    { "parts", 0, 1, "run.parts", "N parts (a Kubernetes Indexed Job's completions)" },
    { "part-timeout", 0, 1, "run.part_timeout", "how long a part waits for the others (5m)" },
    { "run-id", 0, 1, "run.run_id", "the name the parts of one run share (default: launcher's)" },
    { "meet-conninfo", 0, 1, "run.meet_conninfo", "a PostgreSQL the parts meet in (default: the database)" },
    { NULL, 0, 0, NULL, NULL },
};

/* Warn about a deck whose shares are under the spec minimums (allowed,
 * recorded; the run's validity then fails on that share). */
static json_t *mix_warnings(const struct config *cfg)
{
    static const double min_pct[TX_NTYPES] = { 0, 43, 4, 4, 4 };
    json_t *w = json_array();
    struct deck d;

    if (deck_init(&d, cfg->run.mix) < 0)
        return w;
    for (int t = 1; t < TX_NTYPES; t++)
        if (deck_share_pct(&d, t) < min_pct[t]) {
            char msg[160];
            snprintf(msg, sizeof(msg), "mix: %s %.1f%% is under the TPC-C minimum of %.0f%%",
                     tx_name((enum tx_type)t), deck_share_pct(&d, t), min_pct[t]);
            fprintf(stderr, "warning: %s\n", msg);
            json_array_append_new(w, json_string(msg));
        }
    if (deck_share_pct(&d, TX_NEW_ORDER) > 45) {
        fprintf(stderr, "warning: mix: new_order %.1f%% is over the TPC-C maximum of 45%%\n",
                deck_share_pct(&d, TX_NEW_ORDER));
        json_array_append_new(w, json_string("mix: new_order over 45%"));
    }
    if (cfg->run.delivery_inline) {
        fprintf(stderr, "warning: delivery: inline is a deviation from TPC-C (deferred)\n");
        json_array_append_new(w, json_string("delivery inline: deviation from TPC-C"));
    }
    return w;
}

/* The isolation level is a session setting (SET SESSION CHARACTERISTICS
 * when a VU connects); a pooler in transaction mode does not carry it from
 * one transaction to the next, so a level other than the server's usual
 * default is not assured there.  Warn, and say so in the record. */
static void pooler_warning(const struct config *cfg, const struct run_result *r, json_t *w)
{
    int declared = cfg->database.pooler[0] && strcmp(cfg->database.pooler, "none") != 0;
    char msg[CFG_STR + 256];

    const char *iso = figures_isolation(cfg, r);

    if (strcmp(iso, "read committed") == 0 || !(declared || figures_pooler_seen(r)))
        return;
    snprintf(msg, sizeof(msg),
             "isolation %s is set per session when a VU connects; a pooler in transaction mode "
             "does not keep it: set default_transaction_isolation on the server, or use the "
             "pooler's session mode",
             iso);
    fprintf(stderr, "warning: %s\n", msg);
    json_array_append_new(w, json_string(msg));
}

/* The live endpoint of this command (run.metrics_listen), started before the
 * first record and stopped after the last, so that every --repeat (and a
 * port in use, exit 2) is decided once, before anything runs. */
static struct mserve *run_serve;

/* The last sample, metrics.csv and run.json's "metrics" (returned, borrowed from rec). */
static json_t *metrics_end(struct metrics *m, struct runrec *rec)
{
    size_t len;
    char *csv;
    struct err we;
    json_t *mj;

    metrics_finish(m);
    if ((csv = metrics_csv(m, &len)) &&
        record_write_file(rec->dir, "metrics.csv", csv, len, &we) < 0)
        fprintf(stderr, "tpccbench: %s\n", we.msg);
    free(csv);
    mj = metrics_json(m);
    /* The wait sampler's and the top statements' figures are the run's own
     * members (issue 41). */
    for (const char *const *k = (const char *const[]){ "waits", "statements", NULL }; *k; k++) {
        if (json_object_get(mj, *k)) {
            runrec_set(rec, *k, json_incref(json_object_get(mj, *k)));
            json_object_del(mj, *k);
        }
    }
    /* ... and the checkpoints and autovacuums it saw (the report's marks). */
    if (json_object_get(mj, "events")) {
        runrec_set(rec, "events", json_incref(json_object_get(mj, "events")));
        json_object_del(mj, "events");
    }
    runrec_set(rec, "metrics", mj);
    return mj;
}

/*
 * What a part's summary carries of its metrics (m, as metrics_end put them
 * into rec): the means of its own host's columns, each part its own; part
 * 1, which scrapes the database host, also its db_host_* columns and what
 * it found of the host.
 */
static void part_metrics(json_t *sum, const json_t *m, const struct runrec *rec, int k)
{
    json_t *cols = json_object_get(m, "columns");
    json_t *means, *dbh, *out, *c;
    const char *name;

    if (!sum || !json_is_object(cols))
        return;
    means = json_object();
    dbh = json_object();
    json_object_foreach(cols, name, c)
    {
        const char *host = json_string_value(json_object_get(c, "host"));
        if (host && strcmp(host, "db") == 0) {
            if (strncmp(name, "db_host_", 8) == 0)
                json_object_set(dbh, name, c);
            continue; /* the database's statistics: the merged record's own */
        }
        json_object_set(means, name, json_object_get(c, "mean"));
    }
    out = json_pack("{s:s?, s:o}", "hostname", rec->hostname[0] ? rec->hostname : NULL,
                    "driver_means", means);
    if (out && k == 1)
        json_object_set_new(out, "db_host",
                            json_pack("{s:O?, s:O?, s:o}", "metrics", json_object_get(m, "db_host"),
                                      "environment", rec->db_host, "columns", dbh));
    else
        json_decref(dbh);
    json_object_set_new(sum, "metrics", out);
}

/*
 * A part of several, its run over: its summary into its record and into
 * tpcc_run_part; the part that finds every part ended merges them into a
 * record of its own.  A failure here is reported, never the part's run's.
 */
static void part_end(struct meet *mt, const struct config *cfg, const struct cmd_args *a,
                     const struct run_opts *o, const struct run_result *r, struct runrec *rec,
                     const json_t *metrics)
{
    json_t *sum = partsum_encode(r, cfg), *p = rec->part, *rows = NULL;
    char *text;
    int merger = 0;
    int64_t c_open = -1, c_close = -1;
    struct err e;

    err_clear(&e);
    part_metrics(sum, metrics, rec, mt->k);
    text = sum ? json_dumps(sum, JSON_COMPACT) : NULL;
    if (p) {
        json_t *mj = meet_json(mt);
        json_object_update(p, mj);
        json_decref(mj);
        json_object_set_new(p, "run_id_source", json_string(a->run_id_source));
        json_object_set_new(p, "warehouses", json_pack("[i, i]", o->first_w, o->last_w));
        json_object_set_new(p, "db_count_open", json_integer(r->part_count_open));
        json_object_set_new(p, "db_count_close", json_integer(r->part_count_close));
        if (sum)
            json_object_set(p, "summary", sum);
        if (fabs(mt->offset_ms) > 50)
            fprintf(stderr, "warning: this part's clock is %.0f ms off the database's\n",
                    mt->offset_ms);
    }
    if (!text) {
        fprintf(stderr, "tpccbench run: out of memory for this part's summary\n");
    } else if (meet_finish(mt, strcmp(r->status, "complete") == 0 ? "done" : "failed", text,
                           &merger, &rows, &c_open, &c_close, &e) < 0) {
        fprintf(stderr, "tpccbench run: leaving this part's summary: %s\n", e.msg);
    } else if (merger) {
        char by[64];
        struct merge_in in = {
            .run_id = mt->run_id,
            .gen = mt->gen,
            .n = mt->n,
            .rows = rows,
            .count_open = c_open,
            .count_close = c_close,
            .base = rec->doc,
            .results_dir = cfg->results.dir,
            .label = a->merged_label,
            .by = by,
        };
        snprintf(by, sizeof(by), "the last part to finish (%d/%d)", mt->k, mt->n);
        if (merge_write(&in, NULL, 0, &e) < 0)
            fprintf(stderr, "tpccbench run: merging the parts: %s\n", e.msg);
    }
    json_decref(rows);
    free(text);
    json_decref(sum);
}

/* Run the workload through session s; fills rec's "run" and writes series.csv. */
static int run_with_session(struct session *s, const struct cmd_args *a, struct runrec *rec,
                            int *valid, struct err *e)
{
    const char *dir = rec->dir;
    struct run_opts o = {
        .cfg = s->cfg,
        .ops = s->ops,
        .args = &s->args,
        .dialect = s->dialect,
        .dir = dir,
        .progress = stderr,
    };
    struct run_result *r = calloc(1, sizeof(*r));
    struct figures f;
    struct metrics *m;
    struct meet mt;
    json_t *warnings, *mj = NULL;
    int rc;

    if (!r)
        return err_set(e, E_FAIL, "out of memory");
    memset(&mt, 0, sizeof(mt));
    if (a->part_set && a->part.n > 1) {
        o.meet = &mt;
        o.part_k = a->part.k;
        o.part_n = a->part.n;
        o.run_id = a->run_id;
    }
    warnings = mix_warnings(s->cfg);
    runrec_set(rec, "warnings", warnings);
    o.metrics = m = session_metrics(s, rec, run_serve);
    rc = run_run(&o, r, e);
    if (r->left_behind || r->cancel_unanswered)
        cmd_abandoned();
    pooler_warning(s->cfg, r, warnings);
    if (r->isolation[0])
        runrec_isolation(rec, r->isolation);
    if (m)
        mj = metrics_end(m, rec);
    figures_compute(s->cfg, r, &f);
    /* A run that failed before its measured window opened measured nothing: no figures. */
    if (r->window_opened)
        runrec_set(rec, "run", figures_json(s->cfg, r, &f));
    else
        runrec_set(rec, "run",
                   json_pack("{s:b, s:s}", "measured", 0, "why",
                             "the run ended before its measured window "
                             "opened: no figures were measured"));
    runrec_set(rec, "dbms",
               json_pack("{s:s, s:s}", "name", r->server_name, "version", r->server_version));
    runrec_status(rec, r->status);
    if (r->n_series) {
        size_t len;
        char *csv = figures_series_csv(r, &len);
        struct err we;
        if (csv && record_write_file(dir, "series.csv", csv, len, &we) < 0)
            fprintf(stderr, "tpccbench: %s\n", we.msg);
        free(csv);
    }
    if (r->window_opened && (rc == 0 || rc == E_INTR || strcmp(r->status, "aborted") == 0)) {
        figures_print(stdout, s->cfg, r, &f);
        if (m)
            metrics_print(stdout, m);
        if (r->db_counted && !f.counts_agree)
            fprintf(stderr, "warning: the client counted %llu New-Orders, the database %lld\n",
                    (unsigned long long)r->measured.tx[TX_NEW_ORDER].committed,
                    (long long)r->db_new_orders);
    }
    if (rc < 0)
        runrec_error(rec, e->msg);
    if (o.meet) {
        if (mt.joined)
            part_end(&mt, s->cfg, a, &o, r, rec, mj);
        meet_close(&mt);
    }
    *valid = f.valid;
    metrics_free(m);
    run_result_release(r);
    free(r);
    return rc;
}

static int finish(const char *cmd, struct runrec *rec, int rc, struct err *e)
{
    struct err we;
    const char *status = NULL;

    /* Stopped before the run said how it ended (a signal while starting the
     * server, between load and run, ...): the record still says so. */
    if (strcmp(rec->status, "running") == 0) {
        status = sig_stop_requested() ? "interrupted" : rc < 0 ? "failed" : "complete";
        if (rc < 0 && !rec->has_error)
            runrec_error(rec, e->msg);
    }
    if (runrec_end(rec, status, &we) < 0)
        fprintf(stderr, "tpccbench %s: %s\n", cmd, we.msg);
    printf("record: %s/run.json\n", rec->dir);
    runrec_release(rec);
    if (rc < 0)
        return cmd_fail(cmd, e);
    if (sig_stop_requested())
        return sig_exit_code();
    return 0;
}

/* One record: run (or bench) once; repeat is {index, of} for --repeat. */
/*
 * Split bench --iobench "ARGS" on blanks into argv (pointing into buf, of
 * size bytes) and parse them as tbiobench options into o.  Called once
 * before anything starts, so a bad option costs no server start, and again
 * when the bench runs.
 */
static int iobench_opts_from(const char *args, char *buf, size_t size, char **argv, int max,
                             struct iobench_opts *o, struct err *e)
{
    int argc = 0;

    if (strlen(args) >= size)
        return err_set(e, E_USAGE, "--iobench: the options are longer than %zu characters",
                       size - 1);
    snprintf(buf, size, "%s", args);
    for (char *p = buf; *p;) {
        while (*p == ' ')
            *p++ = '\0';
        if (!*p)
            break;
        if (argc == max - 1)
            return err_set(e, E_USAGE, "--iobench: more than %d options", max - 1);
        argv[argc++] = p;
        p += strcspn(p, " ");
    }
    argv[argc] = NULL;
    iobench_opts_init(o);
    if (iobench_parse_args(o, argc, argv, e) < 0)
        return err_prefix(e, "--iobench");
    if (o->help)
        return err_set(e, E_USAGE,
                       "--iobench: give the options of the disk bench, not --help "
                       "(see 'tpccbench iobench --help')");
    return 0;
}

/* bench --iobench "ARGS": tbiobench options; the target is a file in the
 * database's data directory (the managed cluster, or the fingerprint's data
 * directory when the server is local).  The result goes into run.json. */
static int attach_iobench(struct session *s, struct runrec *rec, const char *args,
                          struct err *e)
{
    char buf[512], *argv[32], target[4200];
    const char *datadir = NULL;
    struct iobench_opts o;
    struct iobench_result r;
    int rc;

    if ((rc = iobench_opts_from(args, buf, sizeof(buf), argv, 32, &o, e)) < 0)
        return rc;
    if (s->managed)
        datadir = s->mpg.datadir;
    else if (rec->datadir[0])
        datadir = rec->datadir;
    if (!o.target) {
        if (!datadir)
            return err_set(e, E_USAGE,
                           "--iobench: the database's data directory is not visible "
                           "from here (a remote server?): run 'tpccbench iobench' on "
                           "the database host, or give -t FILE");
        snprintf(target, sizeof(target), "%s/tpccbench-iobench.tmp", datadir);
        o.target = target;
    }
    fprintf(stderr, "iobench on %s\n", o.target);
    if ((rc = iobench_run(&o, &r, e)) < 0)
        return err_prefix(e, "--iobench");
    iobench_print(stdout, &o, &r);
    runrec_set(rec, "iobench", iobench_json(&o, &r));
    iobench_result_release(&r);
    return 0;
}

int one_record(const char *cmd, int bench, struct config *cfg, const struct cmd_args *a, int index,
               int of, char *dir_out, size_t dir_len)
{
    struct session s;
    struct err e;
    char dir[4096];
    struct runrec rec;
    int rc, valid = 0;

    err_clear(&e);
    /* Also for study and sweep, which come here with a config of their own. */
    if (cmd_db_host_check(cfg, &e) < 0 ||
        runrec_make_dir(cfg->results.dir, cfg->results.label, dir, sizeof(dir), &e) < 0)
        return cmd_fail(cmd, &e);
    if (dir_out)
        snprintf(dir_out, dir_len, "%s", dir);
    runrec_begin(&rec, cfg, cmd, dir);
    if (of > 1)
        runrec_set(&rec, "repeat", json_pack("{s:i, s:i}", "index", index, "of", of));
    runrec_part(&rec, a->part.k, cmd_part_json(a));
    runrec_save(&rec, &e);
    err_clear(&e);
    if ((rc = session_open(&s, cfg, &e)) < 0) {
        runrec_status(&rec, "failed");
        runrec_error(&rec, e.msg);
        session_close(&s);
        return finish(cmd, &rec, rc, &e);
    }
    runrec_dbms(&rec, s.ops, &s.args, s.dialect);
    cmd_db_host_fingerprint(&rec, cfg);
    if (bench && cmd_extra(a, "iobench"))
        rc = attach_iobench(&s, &rec, cmd_extra(a, "iobench"), &e);
    if (rc == 0 && bench && !cmd_extra(a, "no-load")) {
        cfg->load.drop = 1; /* a bench step always starts from fresh data */
        rc = load_with_session(&s, &rec, 0, run_serve, &e);
    }
    if (rc == 0 && !sig_stop_requested())
        rc = run_with_session(&s, a, &rec, &valid, &e);
    if (bench && rc == 0 && !sig_stop_requested()) {
        struct check_result cr;
        if ((rc = check_with_session(&s, CHECK_ALL, &cr, &e)) == 0) {
            check_print(stdout, &cr);
            runrec_set(&rec, "check", check_json(&cr));
            if (cr.n_failed) {
                runrec_status(&rec, "failed");
                rc = err_set(&e, E_FAIL, "consistency check failed after the run");
            }
        }
    }
    /* The study runs its own check, on the server it started. */
    if (bench && rc == 0 && cfg->acid.durability && !a->durability_by_caller &&
        !sig_stop_requested()) {
        json_t *dj;
        if ((rc = durcheck_after_run(&s, cfg, dir, &dj, &e)) == 0)
            runrec_set(&rec, "acid", json_pack("{s:o}", "durability", dj));
    }
    session_close(&s);
    return finish(cmd, &rec, rc, &e);
}

/* The parts of a run drive one database and meet in a PostgreSQL: a part of
 * several is refused before anything starts where that cannot be. */
static int run_part_allowed(const struct config *cfg, const struct cmd_args *a, struct err *e)
{
    if (a->part.n <= 1)
        return 0;
    if (strcmp(cfg->database.driver, "null") == 0 && !cfg->run.meet_conninfo[0])
        return err_set(e, E_USAGE,
                       "this is part %d/%d (from %s), but the parts of a run meet in the "
                       "database, and driver null has none: give run.meet_conninfo, a "
                       "PostgreSQL the parts meet in, or run one part (no --part, or --part 1/1)",
                       a->part.k, a->part.n, a->part.source);
    if (cfg->database.managed)
        return err_set(e, E_USAGE,
                       "this is part %d/%d (from %s), but the parts of a run drive one "
                       "database, and a private PostgreSQL (database.managed) is this "
                       "process's own: give database.conninfo of a server every part reaches",
                       a->part.k, a->part.n, a->part.source);
    return 0;
}

static int run_or_bench(int argc, char **argv, int bench)
{
    const char *cmd = bench ? "bench" : "run";
    const char *rep;
    struct config cfg;
    struct cmd_args a;
    struct err e;
    int64_t repeat = 1;
    int rc = 0;

    err_clear(&e);
    if (cmd_parse(cmd, argc - 1, argv + 1, bench ? bench_opts : run_opts, &cfg, &a, &e) < 0)
        return cmd_fail(cmd, &e);
    if (a.help) {
        if (bench)
            cmd_usage(stdout, "bench",
                      "[-c FILE] [--label L] [--change TEXT] [--no-load] [run options]",
                      "One tuning step: load (unless --no-load), run, then check consistency,\n"
                      "all in one record RESULTS/<time>-<label>/run.json.  Compare steps with\n"
                      "'tpccbench compare'.  --durability kill|power (acid.durability) then\n"
                      "crashes the server in a short mix (acid.durability_window, 5s) and\n"
                      "records what it lost as acid.durability (docs/acid.md); the verdict\n"
                      "is for compare's and study's --fail-if 'lost > 0', not the exit code.",
                      bench_opts);
        else
            cmd_usage(stdout, "run", "[-c FILE] [--duration D] [--vus N] [--label L]",
                      "Drive the five TPC-C transactions from virtual-user threads for the\n"
                      "measured duration and record NOTPM, TPS and latency per type in\n"
                      "RESULTS/<time>-<label>/run.json and series.csv (one row a second).\n"
                      "Deliveries are deferred to delivery worker threads as TPC-C requires;\n"
                      "their result lines go to delivery.log.  Figures are TPC-C derived,\n"
                      "not audited TPC-C results.",
                      run_opts);
        return 0;
    }
    if (a.npos) {
        err_set(&e, E_USAGE, "unexpected argument '%s'", a.pos[0]);
        return cmd_fail(cmd, &e);
    }
    if ((rep = cmd_extra(&a, "repeat")) != NULL && parse_int64(rep, 1, 1000, &repeat) != 0) {
        err_set(&e, E_USAGE, "'--repeat' must be an integer from 1 to 1000 (got \"%s\")", rep);
        return cmd_fail(cmd, &e);
    }
    /* A part of a scale-out run: decided now, refused (not built yet) before anything starts. */
    if (cmd_part(&cfg, &a, &e) < 0)
        return cmd_fail(cmd, &e);
    if (a.part.n > 1 && bench)
        return err_set(&e, E_NOTYET,
                       "this is part %d/%d (from %s): bench as several parts is not built yet "
                       "(load with 'tpccbench load --part', then 'tpccbench run --part')",
                       a.part.k, a.part.n, a.part.source),
               cmd_fail(cmd, &e);
    if (a.part.n > 1 && repeat > 1)
        return err_set(&e, E_USAGE,
                       "--repeat runs one part of several only once: give one "
                       "--repeat or run the parts again"),
               cmd_fail(cmd, &e);
    if (run_part_allowed(&cfg, &a, &e) < 0)
        return cmd_fail(cmd, &e);
    /* A part's own record is labelled as one: compare must not take it for the run. */
    if (a.part.n > 1) {
        snprintf(a.merged_label, sizeof(a.merged_label), "%s", cfg.results.label);
        if (snprintf(cfg.results.label, CFG_STR, "%s-part%dof%d", a.merged_label, a.part.k,
                     a.part.n) >= CFG_STR)
            return err_set(&e, E_USAGE, "'results.label' is too long for a part's label"),
                   cmd_fail(cmd, &e);
    }
    /* Check the disk bench's options now: a mistake must not cost a server start. */
    if (bench && cmd_extra(&a, "iobench")) {
        char buf[512], *iargv[32];
        struct iobench_opts o;
        if (iobench_opts_from(cmd_extra(&a, "iobench"), buf, sizeof(buf), iargv, 32, &o, &e) < 0)
            return cmd_fail(cmd, &e);
    }
    if (cmd_db_host_check(&cfg, &e) < 0 || (bench && durcheck_usable(&cfg, &e) < 0))
        return cmd_fail(cmd, &e);
    /* The live endpoint: a port in use is a usage error, before anything starts. */
    if (cmd_serve_start(&cfg, &run_serve, &e) < 0)
        return cmd_fail(cmd, &e);
    sig_install();
    /* Each repeat is a record of its own; compare groups them by label. */
    for (int i = 1; i <= repeat && rc == 0 && !sig_stop_requested(); i++) {
        if (repeat > 1)
            fprintf(stderr, "%s: repeat %d of %lld\n", cmd, i, (long long)repeat);
        rc = one_record(cmd, bench, &cfg, &a, i, (int)repeat, NULL, 0);
    }
    /* The last record is written: the process ends within a bound from here. */
    rc = cmd_exit_bound(rc);
    mserve_stop(run_serve);
    run_serve = NULL;
    return rc;
}

int cmd_run(int argc, char **argv)
{
    return run_or_bench(argc, argv, 0);
}

int cmd_bench(int argc, char **argv)
{
    return run_or_bench(argc, argv, 1);
}
