/*
 * load.c - `tpccbench load`: create the schema, load it, record how long it
 * took; with run.metrics_listen, serve the load's progress and the OS and
 * database figures live while it runs (a sampling thread of its own, once a
 * second, reading the loader's atomics: nothing on the loader's path).  As
 * one part of several (--part K/N, a launcher), it loads its warehouse range
 * and meets the other parts in the database (tpcc/loadpart.h); its record
 * says its range and whether it built the indexes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/load.h"
#include "core/clock.h"
#include "core/signals.h"
#include "results/runrec.h"
#include "run/metrics.h"
#include "run/mserve.h"
#include "tpcc/loader.h"

static const struct cmd_opt load_opts[] = {
    { "jobs", 'j', 1, "load.jobs", "parallel loader connections (default 2)" },
    { "seed", 0, 1, "load.seed", "data seed: the same seed gives the same rows (default 1)" },
    { "drop", 0, 0, "load.drop", "drop an existing TPC-C schema first" },
    { "copy", 0, 1, "load.copy", "fast (binary COPY, FREEZE where it can) or text (default fast)" },
    { "resume", 0, 0, NULL, "continue a load that failed or was interrupted" },
    { "metrics-listen", 0, 1, "run.metrics_listen", "serve live metrics on HOST:PORT (/metrics)" },
    { "metrics-devices", 0, 1, "run.metrics_devices", "more block devices to sample: sdb,nvme0n1" },
    { "part", 0, 1, "run.part", "K/N: this process loads part K of N of the warehouses" },
    { "parts", 0, 1, "run.parts", "N parts (a Kubernetes Indexed Job's completions)" },
    { "part-timeout", 0, 1, "run.part_timeout", "how long a part waits for part 1's plan (5m)" },
    { "run-id", 0, 1, "run.run_id", "the name the parts of one run share (default: launcher's)" },
    { NULL, 0, 0, NULL, NULL },
};

/* A part's own figures: its range, the wait for the plan, who builds the
 * indexes: "indexes" is "built" (this part, the last to finish its copy,
 * built them, ran ANALYZE and marked the load complete), "building" (it
 * claimed them and stopped before the end), "left to the last part" (parts
 * were still copying when this one ended) or "left to part J". */
static json_t *load_part_json(const struct load_opts *o, const struct load_stats *st)
{
    json_t *still = json_array();
    char indexes[48];

    if (st->indexer == st->part_k)
        snprintf(indexes, sizeof(indexes), "%s",
                 strcmp(st->phase, "done") == 0 ? "built" : "building");
    else if (st->indexer)
        snprintf(indexes, sizeof(indexes), "left to part %d", st->indexer);
    else
        snprintf(indexes, sizeof(indexes), "left to the last part");
    /* "1,3" as [1, 3]. */
    for (const char *p = st->parts_missing; *p;) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p)
            break;
        json_array_append_new(still, json_integer(k));
        p = *end == ',' ? end + 1 : end;
    }
    return json_pack("{s:i, s:i, s:s, s:i, s:i, s:i, s:b, s:b, s:f, s:s, s:o, s:i, s:o}", "k",
                     st->part_k, "n", st->parts, "run_id", o->run_id ? o->run_id : "", "first",
                     st->w_first, "last", st->w_last, "warehouses",
                     st->w_last >= st->w_first ? st->w_last - st->w_first + 1 : 0, "item",
                     st->part_k == 1, "joined", st->joined, "wait_seconds", st->wait_s, "indexes",
                     indexes, "indexes_by", st->indexer ? json_integer(st->indexer) : json_null(),
                     "parts_copied", st->parts_copied, "parts_still_copying", still);
}

static json_t *load_stats_json(const struct load_opts *o, const struct load_stats *st)
{
    json_t *phases = json_pack("{s:f, s:f, s:f, s:f}", "schema", st->schema_s, "copy", st->copy_s,
                               "index", st->index_s, "analyze", st->analyze_s);
    json_t *rows = json_object(), *tables = json_object();
    int64_t total_rows = 0;

    /* The private server's restarts for the load's settings, when it had them. */
    if (st->restart_s > 0)
        json_object_set_new(phases, "restart", json_real(st->restart_s));
    for (int t = 0; t < T_NTABLES; t++) {
        json_object_set_new(rows, tpcc_table_name(t), json_integer(st->rows[t]));
        json_object_set_new(tables, tpcc_table_name(t),
                            json_pack("{s:I, s:f}", "rows", (json_int_t)st->rows[t], "busy_seconds",
                                      st->table_s[t]));
        total_rows += st->rows[t];
    }
    return json_pack(
        "{s:f, s:s, s:o, s:o, s:o, s:I, s:I, s:f, s:i, s:i, s:I, s:{s:i, s:i, s:i}, "
        "s:b, s:i}",
        "seconds", st->total_s, "phase_reached", st->phase, "phases", phases, "rows", rows,
        "tables", tables, "total_rows", (json_int_t)total_rows, "bytes", (json_int_t)st->bytes,
        "mb_per_s", st->copy_s > 0 ? (double)st->bytes / 1e6 / st->copy_s : 0.0, "jobs", o->jobs,
        "warehouses", st->warehouses, "seed", (json_int_t)st->seed, "nurand_c_load", "c_last",
        st->c_load.c_last, "c_id", st->c_load.c_id, "ol_i_id", st->c_load.ol_i_id, "resumed",
        st->resumed, "steps_skipped", st->steps_skipped);
}

/* The record's "load.paths": how the rows went (libpq: "text COPY", or the
 * fast paths the copy took; a driver with a path of its own: load.path). */
static json_t *load_paths_json(const struct load_stats *st)
{
    json_t *a = json_array();

    if (st->paths & LOAD_PATH_TEXT)
        json_array_append_new(a, json_string("text COPY"));
    if (st->paths & LOAD_PATH_BINARY)
        json_array_append_new(a, json_string("binary COPY"));
    if (st->paths & LOAD_PATH_WHOLE)
        json_array_append_new(a, json_string("table per transaction: TRUNCATE, COPY FREEZE"));
    if (st->paths & LOAD_PATH_WAL_MINIMAL)
        json_array_append_new(a, json_string("wal_level minimal"));
    return a;
}

/* The record's "load", with "part" for a part of several; settings and
 * after (taken): the private server's during and after the load, or NULL. */
static json_t *load_json(const struct load_opts *o, struct load_stats *st, json_t *settings,
                         json_t *after)
{
    const char *wal = settings ? json_string_value(json_object_get(settings, "wal_level")) : NULL;
    json_t *j;

    if (wal && strcmp(wal, "minimal") == 0)
        st->paths |= LOAD_PATH_WAL_MINIMAL;
    j = load_stats_json(o, st);
    /* The private server's settings during the load and after it (the run's). */
    if (settings)
        json_object_set_new(j, "settings", settings);
    if (after)
        json_object_set_new(j, "settings_after", after);

    if (st->path[0])
        json_object_set_new(j, "path", json_string(st->path));
    if (st->path_why[0])
        json_object_set_new(j, "path_why", json_string(st->path_why));
    if (st->paths) {
        int64_t total = 0;
        for (int t = 0; t < T_NTABLES; t++)
            total += st->rows[t];
        json_object_set_new(j, "paths", load_paths_json(st));
        /* The rows this load sent by each path (a resume: only its own). */
        json_object_set_new(j, "path_rows",
                            json_pack("{s:I, s:I, s:I}", "text", (json_int_t)(total - st->rows_binary),
                                      "binary", (json_int_t)st->rows_binary, "table_per_transaction",
                                      (json_int_t)st->rows_whole));
    }

    if (st->parts > 1)
        json_object_set_new(j, "part", load_part_json(o, st));
    return j;
}

static void load_print_summary(FILE *out, const struct load_opts *o, const struct load_stats *st)
{
    if (st->parts > 1) {
        char range[64];
        if (st->w_last < st->w_first)
            snprintf(range, sizeof(range), "no warehouse");
        else if (st->w_last == st->w_first)
            snprintf(range, sizeof(range), "warehouse %d", st->w_first);
        else
            snprintf(range, sizeof(range), "warehouses %d-%d", st->w_first, st->w_last);
        fprintf(out, "\nload: part %d/%d of run '%s': %s of %d%s, %d job%s, seed %llu: %.2f s%s\n",
                st->part_k, st->parts, o->run_id, range, st->warehouses,
                st->part_k == 1 ? " and the item table" : "", o->jobs, o->jobs == 1 ? "" : "s",
                (unsigned long long)st->seed, st->total_s,
                st->resumed ? " (resumed: only the steps not committed before)" : "");
        if (st->indexer == st->part_k)
            fprintf(out,
                    "  the last of %d parts to finish its copy: built the keys and indexes, "
                    "ran ANALYZE, marked the load complete\n",
                    st->parts);
        else if (st->indexer)
            fprintf(out,
                    "  keys, indexes and ANALYZE are part %d's (the last to finish its copy)\n",
                    st->indexer);
        else
            fprintf(out,
                    "  keys, indexes and ANALYZE are left to the last part to finish its copy "
                    "(%d of %d parts done; still copying: %s)\n",
                    st->parts_copied, st->parts, st->parts_missing);
    } else {
        fprintf(out, "\nload: %d warehouse%s, %d job%s, seed %llu: %.2f s total%s\n",
                st->warehouses, st->warehouses == 1 ? "" : "s", o->jobs, o->jobs == 1 ? "" : "s",
                (unsigned long long)st->seed, st->total_s,
                st->resumed ? " (resumed: only the steps not committed before)" : "");
    }
    fprintf(out, "  %-10s %10s\n", "phase", "seconds");
    fprintf(out, "  %-10s %10.2f\n", "schema", st->schema_s);
    fprintf(out, "  %-10s %10.2f   %.1f MB/s\n", "copy", st->copy_s,
            st->copy_s > 0 ? (double)st->bytes / 1e6 / st->copy_s : 0.0);
    fprintf(out, "  %-10s %10.2f\n", "index", st->index_s);
    fprintf(out, "  %-10s %10.2f\n", "analyze", st->analyze_s);
    fprintf(out, "  %-10s %10s %10s\n", "table", "rows", "busy s");
    for (int t = 0; t < T_NTABLES; t++)
        fprintf(out, "  %-10s %10lld %10.2f\n", tpcc_table_name(t), (long long)st->rows[t],
                st->table_s[t]);
}

/* The live endpoint's sampler during a load: a tick a second until done. */
struct load_watch {
    struct metrics *m;
    struct load_live *live;
    uint64_t t0_us;   /* the load's start */
    double elapsed_s; /* since then, at the last tick (served) */
    const char *tables[T_NTABLES];    /* the label values of the families below */
    const char *phases[LOAD_NPHASES];
    struct metrics_series series[8]; /* what the endpoint serves of the load */
    int done;       /* atomic: 1 asks the thread to end */
    pthread_t thread;
    int started;
};

static double watch_elapsed_s(const struct load_watch *w)
{
    return (double)(clock_us() - w->t0_us) / 1e6;
}

/* A tick of the endpoint's sampler, with the load's time so far. */
static void watch_tick(struct load_watch *w)
{
    w->elapsed_s = watch_elapsed_s(w);
    metrics_serve_tick(w->m, w->elapsed_s);
}

/* The load's families on the endpoint: rows by table, steps, phase, scale. */
static void watch_series(struct load_watch *w)
{
    const struct load_live *l = w->live;
    const struct metrics_series s[8] = {
        { "tpccbench_load_rows_total",
          "rows committed per table since the load started (at each step's commit)", 1, "table",
          w->tables, T_NTABLES, l->rows, NULL, NULL, NULL, NULL },
        { "tpccbench_load_rows_sent_total",
          "rows sent to the server per table, committed or not (per 256 kB buffer)", 1, "table",
          w->tables, T_NTABLES, l->rows_sent, NULL, NULL, NULL, NULL },
        { "tpccbench_load_steps_total",
          "load steps committed (the plan, one table's rows for one warehouse, one index)", 1,
          NULL, NULL, 1, &l->steps, NULL, NULL, NULL, NULL },
        { "tpccbench_load_phase", "1 for the phase the load is in (done: finished), 0 for the others",
          0, "phase", w->phases, LOAD_NPHASES, NULL, NULL, NULL, &l->phase, NULL },
        { "tpccbench_load_phase_done",
          "work done in the current phase: rows (copy), indexes (index), tables (analyze)", 0,
          NULL, NULL, 1, &l->phase_done, NULL, NULL, NULL, NULL },
        { "tpccbench_load_phase_planned",
          "the current phase's work, in the units of tpccbench_load_phase_done", 0, NULL, NULL, 1,
          &l->phase_total, NULL, NULL, NULL, NULL },
        { "tpccbench_load_warehouses", "warehouses being loaded", 0, NULL, NULL, 1, NULL,
          &l->warehouses, NULL, NULL, NULL },
        { "tpccbench_load_elapsed_seconds", "time since the load started", 0, NULL, NULL, 1, NULL,
          NULL, &w->elapsed_s, NULL, NULL },
    };

    for (int t = 0; t < T_NTABLES; t++)
        w->tables[t] = tpcc_table_name(t);
    for (int p = 0; p < LOAD_NPHASES; p++)
        w->phases[p] = load_phase_name(p);
    memcpy(w->series, s, sizeof(s));
    metrics_serve_series(w->m, w->series, 8);
}

static void *load_watch_main(void *arg)
{
    struct load_watch *w = arg;
    uint64_t next = w->t0_us + 1000000;

    while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
        if (clock_us() < next) {
            clock_sleep_us(50000);
            continue;
        }
        watch_tick(w);
        next += 1000000;
        if (next < clock_us()) /* a slow sample: the next tick a second from now */
            next = clock_us() + 1000000;
    }
    return NULL;
}

int load_with_session(struct session *s, struct runrec *rec, int resume, struct mserve *serve,
                      struct err *e)
{
    return load_part_with_session(s, rec, resume, serve, NULL, NULL, e);
}

/* "minimal|0" as {"wal_level": "minimal", "max_wal_senders": "0"}. */
static json_t *settings_json(char *got)
{
    char *bar = strchr(got, '|');

    if (bar)
        *bar++ = '\0';
    return json_pack("{s:s, s:s}", "wal_level", got, "max_wal_senders", bar ? bar : "");
}

/*
 * The private server's load settings: restarted with wal_level minimal and
 * max_wal_senders 0 (its tables written in the transaction that truncated
 * them skip the WAL, and so do the index builds) when it is this command's
 * (started or adopted), the load is of one process and load.copy is fast;
 * load.settings in the record says what the restarted server showed.  A
 * user's server is never restarted.  Returns 1 when restarted (restore it
 * with load_settings_off), 0 when not, or the failure.
 */
static int load_settings_on(struct session *s, const struct load_opts *o, json_t **settings,
                            struct err *e)
{
    char got[128];

    if (!s->managed || !s->mpg.started || o->parts > 1 || o->copy_text)
        return 0;
    if (managed_load_settings(&s->mpg, 1, got, sizeof(got), e) < 0)
        return err_prefix(e, "restarting the private server with the load's settings");
    *settings = settings_json(got);
    return 1;
}

/* The private server restarted with the run's settings after the load. */
static int load_settings_off(struct session *s, json_t **after, struct err *e)
{
    char got[128];

    if (managed_load_settings(&s->mpg, 0, got, sizeof(got), e) < 0)
        return err_prefix(e, "restarting the private server with the run's settings after the "
                             "load");
    *after = settings_json(got);
    return 0;
}

/* Load with the session's database; fills the record's "load" and "status". */
int load_part_with_session(struct session *s, struct runrec *rec, int resume,
                           struct mserve *serve, const struct part *part, const char *run_id,
                           struct err *e)
{
    const struct config *cfg = s->cfg;
    struct load_opts o = {
        .ops = s->ops,
        .args = &s->args,
        .dialect = s->dialect,
        .warehouses = cfg->schema.warehouses,
        .jobs = cfg->load.jobs,
        .drop = cfg->load.drop,
        .copy_text = cfg->load.copy_text,
        .resume = resume,
        .seed = (uint64_t)cfg->load.seed,
        .progress = stderr,
        .part_k = part && part->n > 1 ? part->k : 1,
        .parts = part && part->n > 1 ? part->n : 1,
        .run_id = run_id,
        .part_timeout_us = cfg->run.part_timeout_us,
    };
    struct load_stats st;
    struct load_live live;
    struct load_watch w;
    json_t *settings = NULL, *after = NULL;
    uint64_t t_restart = clock_us();
    double restart_s;
    int rc, restarted;

    /* Before the sampler connects: the restart would cut its connection. */
    if ((restarted = load_settings_on(s, &o, &settings, e)) < 0) {
        runrec_status(rec, "failed");
        runrec_error(rec, e->msg);
        return e->code;
    }
    restart_s = (double)(clock_us() - t_restart) / 1e6;
    memset(&live, 0, sizeof(live));
    memset(&w, 0, sizeof(w));
    w.live = &live;
    w.t0_us = clock_us();
    /* Sampled only for the endpoint: a load writes no metrics.csv. */
    if (serve && (w.m = session_metrics(s, rec, serve)) != NULL) {
        o.live = &live;
        watch_series(&w);
        metrics_serve_tick(w.m, 0); /* served from the start */
        w.started = pthread_create(&w.thread, NULL, load_watch_main, &w) == 0;
    }
    rc = load_run(&o, &st, e);
    if (w.started) {
        __atomic_store_n(&w.done, 1, __ATOMIC_RELEASE);
        pthread_join(w.thread, NULL);
    }
    /* The end as it was: served until the run's first tick (bench) or the exit. */
    watch_tick(&w);
    metrics_free(w.m);
    if (restarted) {
        struct err e2;
        t_restart = clock_us();
        if (load_settings_off(s, &after, &e2) < 0 && rc == 0)
            rc = (*e = e2).code;
        /* The restarts are the load's time too. */
        st.restart_s = restart_s + (double)(clock_us() - t_restart) / 1e6;
        st.total_s += st.restart_s;
    }
    runrec_set(rec, "load", load_json(&o, &st, settings, after));
    if (rc == 0) {
        load_print_summary(stdout, &o, &st);
        return 0;
    }
    if ((rc == E_INTR || sig_stop_requested()) && o.parts > 1 && !st.joined) {
        runrec_status(rec, "interrupted");
        err_set(e, E_INTR,
                "interrupted while waiting for part 1 of run '%s': this part loaded "
                "nothing",
                o.run_id);
    } else if ((rc == E_INTR || sig_stop_requested()) && o.parts > 1) {
        runrec_status(rec, "interrupted");
        err_set(e, E_INTR,
                "part %d/%d interrupted during the %s phase: the database holds a partial load; "
                "start this part again with --resume (the same --part and --run-id '%s') to "
                "continue it, or every part with --drop to start again",
                o.part_k, o.parts, st.phase, o.run_id);
    } else if (rc == E_INTR || sig_stop_requested()) {
        runrec_status(rec, "interrupted");
        err_set(e, E_INTR,
                "interrupted during the %s phase: the database holds a partial load; "
                "run 'tpccbench load --resume' to continue it, or 'tpccbench load "
                "--drop' to start again",
                st.phase);
    } else if (o.parts > 1 && st.joined &&
               (strcmp(st.phase, "copy") == 0 || strcmp(st.phase, "index") == 0 ||
                strcmp(st.phase, "analyze") == 0)) {
        runrec_status(rec, "failed");
        err_prefix(e,
                   "part %d/%d failed in the %s phase (the steps committed so far are kept: start "
                   "this part again with --resume, the same --part and --run-id '%s', to "
                   "continue it, or every part with --drop to start again)",
                   o.part_k, o.parts, st.phase, o.run_id);
    } else {
        runrec_status(rec, "failed");
        /* Past the schema, what committed stays: say how to go on. */
        if (strcmp(st.phase, "copy") == 0 || strcmp(st.phase, "index") == 0 ||
            strcmp(st.phase, "analyze") == 0)
            err_prefix(e,
                       "load failed in the %s phase (the steps committed so far are kept: "
                       "run 'tpccbench load --resume' to continue, or 'tpccbench load --drop' "
                       "to start again)",
                       st.phase);
    }
    runrec_error(rec, e->msg);
    return e->code;
}

/* The parts of a load meet in one PostgreSQL database (loadpart.h): a part
 * of several is refused before anything starts where that cannot be. */
static int load_part_allowed(const struct config *cfg, const struct cmd_args *a, struct err *e)
{
    if (a->part.n <= 1)
        return 0;
    if (strcmp(cfg->database.driver, "postgres") != 0)
        return err_set(e, E_USAGE,
                       "this is part %d/%d (from %s), but the parts of a load meet in one "
                       "PostgreSQL database, and work with database.driver postgres only (not "
                       "'%s'): use driver postgres, or load with one process (no --part, or "
                       "--part 1/1)",
                       a->part.k, a->part.n, a->part.source, cfg->database.driver);
    if (cfg->database.managed)
        return err_set(e, E_USAGE,
                       "this is part %d/%d (from %s), but the parts of a load meet in one "
                       "database, and a private PostgreSQL (database.managed) is this process's "
                       "own: give database.conninfo of a server every part reaches",
                       a->part.k, a->part.n, a->part.source);
    return 0;
}

int cmd_load(int argc, char **argv)
{
    struct config cfg;
    struct cmd_args a;
    struct session s;
    struct mserve *serve = NULL;
    struct err e;
    char dir[4096];
    struct runrec rec;
    int rc;

    err_clear(&e);
    if (cmd_parse("load", argc - 1, argv + 1, load_opts, &cfg, &a, &e) < 0)
        return cmd_fail("load", &e);
    if (a.help) {
        cmd_usage(stdout, "load",
                  "[-c FILE] [--warehouses N] [--jobs N] [--seed N] [--drop | --resume]\n"
                  "       [--copy fast|text]\n"
                  "       [--metrics-listen HOST:PORT] [--part K/N [--run-id NAME]]",
                  "Create the nine TPC-C tables, generate every row per TPC-C clause 4.3, stream\n"
                  "it in with parallel bulk loads, then build keys and indexes and ANALYZE.\n"
                  "Each table's rows for one warehouse (on PostgreSQL's fast path: each table)\n"
                  "commit as one step; after a failure, --resume loads only the steps not\n"
                  "committed (same warehouses and seed).  --copy text: text COPY only.\n"
                  "Writes RESULTS/<time>-<label>/run.json with the load time per phase.\n"
                  "With --metrics-listen, serves the rows loaded by table, the phase and the\n"
                  "OS and database figures for Prometheus while it loads.\n"
                  "With --part K/N (or a launcher's environment), this process is one of N\n"
                  "loading one database: part 1 creates the schema, each part loads its\n"
                  "range of the warehouses (part 1 also the items), and the last part to\n"
                  "finish builds the keys and indexes; the parts share --run-id and wait for\n"
                  "part 1 at most --part-timeout.",
                  load_opts);
        return 0;
    }
    if (a.npos)
        return err_set(&e, E_USAGE, "unexpected argument '%s'", a.pos[0]), cmd_fail("load", &e);
    if (cmd_extra(&a, "resume") && cfg.load.drop)
        return err_set(&e, E_USAGE,
                       "--resume continues a load and --drop starts a new one: "
                       "give one of them"),
               cmd_fail("load", &e);
    if (cmd_part(&cfg, &a, &e) < 0 || load_part_allowed(&cfg, &a, &e) < 0 ||
        cmd_db_host_check(&cfg, &e) < 0)
        return cmd_fail("load", &e);
    /* The live endpoint: a port in use is a usage error, before anything starts. */
    if (cmd_serve_start(&cfg, &serve, &e) < 0)
        return cmd_fail("load", &e);
    sig_install();
    if ((rc = runrec_make_dir(cfg.results.dir, cfg.results.label, dir, sizeof(dir), &e)) < 0) {
        mserve_stop(serve);
        return cmd_fail("load", &e);
    }
    runrec_begin(&rec, &cfg, "load", dir);
    runrec_part(&rec, a.part.k, cmd_part_json(&a));
    runrec_save(&rec, &e);
    if ((rc = session_open(&s, &cfg, &e)) < 0) {
        runrec_status(&rec, "failed");
        runrec_error(&rec, e.msg);
        runrec_save(&rec, &e);
        runrec_release(&rec);
        session_close(&s);
        mserve_stop(serve);
        return cmd_fail("load", &e);
    }
    runrec_dbms(&rec, s.ops, &s.args, s.dialect);
    cmd_db_host_fingerprint(&rec, &cfg);
    rc = load_part_with_session(&s, &rec, cmd_extra(&a, "resume") != NULL, serve, &a.part,
                                a.run_id, &e);
    if (rc == 0)
        runrec_status(&rec, "complete");
    session_close(&s);
    mserve_stop(serve);
    {
        struct err we;
        if (runrec_save(&rec, &we) < 0)
            fprintf(stderr, "tpccbench load: %s\n", we.msg);
    }
    runrec_release(&rec);
    if (rc < 0) {
        fprintf(stderr, "record: %s/run.json\n", dir);
        return cmd_fail("load", &e);
    }
    printf("record: %s/run.json\n", dir);
    return 0;
}

int cmd_install_procedures(int argc, char **argv)
{
    struct config cfg;
    struct cmd_args a;
    struct session s;
    struct db_conn *c = NULL;
    struct err e;
    int rc;

    err_clear(&e);
    if (cmd_parse("install-procedures", argc - 1, argv + 1, NULL, &cfg, &a, &e) < 0)
        return cmd_fail("install-procedures", &e);
    if (a.help) {
        cmd_usage(stdout, "install-procedures", "[-c FILE]",
                  "Create or replace the server-side functions of run.mode procedure\n"
                  "(schema/postgresql/procedures.sql) in an already loaded database.\n"
                  "`load` installs them too.",
                  NULL);
        return 0;
    }
    sig_install();
    if ((rc = session_open(&s, &cfg, &e)) == 0 &&
        (rc = db_connect(s.ops, NULL, &s.args, &c, &e)) == 0) {
        rc = load_install_procedures(c, s.dialect, &e);
        db_close(c);
    }
    session_close(&s);
    if (rc < 0)
        return cmd_fail("install-procedures", &e);
    printf("installed the server-side functions of run.mode procedure\n");
    return 0;
}
