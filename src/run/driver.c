/*
 * driver.c - a run's phases: set-up (the load's facts, terminals, connections
 * and delivery workers sized, the RTT probe), connect, ramp-up and warm-up,
 * the measured window (opened with every worker idle, closed on time), stop
 * and the figures' raw counts.  The workers are in worker.c, the monitor's
 * work in monitor.c, the terminals and their timer queue in terminal.c and
 * sched.c; run_int.h says what they share.
 */
#include "run/run_int.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/part.h"
#include "core/signals.h"
#include "run/meet.h"
#include "run/metrics.h"
#include "tpcc/admin.h"
#include "tpcc/deck.h"

/* What the load left in tpcc_meta (warehouses, the load's NURand constants),
 * or for a driver with no database (null) the config's warehouses and the
 * constants a load with its seed would draw. */
static int load_facts(const struct config *cfg, struct db_conn *mc, const struct dialect *ad,
                      int synthetic, struct run_result *r, struct err *e)
{
    int rc;

    if (synthetic) {
        struct rng lr;
        rng_init_stream(&lr, (uint64_t)cfg->load.seed, 0xC0FFEE, 0, 0);
        nurand_c_load(&lr, &r->c_load);
        r->warehouses = cfg->schema.warehouses;
        snprintf(r->db_count_note, sizeof(r->db_count_note),
                 "driver %s: no database behind it, results are synthetic", mc->ops->name);
        return 0;
    }
    if ((rc = db_query(mc, ad->sql[A_META_GET], NULL, 0, e)) < 0)
        return err_prefix(e, "reading tpcc_meta (run 'tpccbench load' first)");
    if (db_next(mc) != 1)
        return err_set(e, E_USAGE,
                       "the database is not loaded (tpcc_meta is empty): "
                       "run 'tpccbench load' first");
    r->warehouses = (int)db_col_int(mc, 0);
    r->c_load.c_last = (int)db_col_int(mc, 2);
    r->c_load.c_id = (int)db_col_int(mc, 3);
    r->c_load.ol_i_id = (int)db_col_int(mc, 4);
    return 0;
}

/*
 * The terminals, connections (one worker thread each) and delivery workers
 * of this run, and how the terminals offer load.  Closed loop: one
 * connection per virtual user, as before.  Otherwise a budget of 10 ms of
 * connection time per transaction of the offered load, plus 2.  Delivery
 * workers: one per 4 connections.
 */
static void size_run(struct shared *sh, const struct config *cfg, int range_w, struct run_result *r,
                     int *nvu, int *nw)
{
    struct deck d;
    double offered_tps;

    deck_init(&d, cfg->run.mix);
    sh->pace.load = cfg->run.rate > 0 ? TERM_OPEN : cfg->run.think_time ? TERM_THINK : TERM_CLOSED;
    sh->pace.time_scale = cfg->run.time_scale > 0 ? cfg->run.time_scale : 1.0;
    sh->pace.rate_per_s = cfg->run.rate;
    sh->n_terms = cfg->run.terminals            ? cfg->run.terminals
                  : sh->pace.load == TERM_THINK ? 10 * range_w
                                                : cfg->run.virtual_users;
    sh->pace.n_terminals = sh->n_terms;
    offered_tps = sh->pace.load == TERM_OPEN ? cfg->run.rate
                  : sh->pace.load == TERM_THINK
                      ? sh->n_terms / (term_mean_cycle_s(&d) * sh->pace.time_scale)
                      : 0;
    *nvu = cfg->run.connections           ? cfg->run.connections
           : sh->pace.load == TERM_CLOSED ? cfg->run.virtual_users
                                          : (int)ceil(offered_tps * 0.010) + 2;
    if (*nvu > sh->n_terms)
        *nvu = sh->n_terms;
    if (*nvu < 1)
        *nvu = 1;
    *nw = cfg->run.delivery_inline    ? 0
          : cfg->run.delivery_workers ? cfg->run.delivery_workers
                                      : (*nvu + 3) / 4;
    r->virtual_users = *nvu;
    r->terminals = sh->n_terms;
    r->connections = *nvu;
    r->delivery_workers = *nw;
    r->load = sh->pace.load;
    r->offered_tps = offered_tps;
    r->time_scale = sh->pace.time_scale;
}

/*
 * The threads that serve the nvu connections: run.workers, else (0, auto)
 * two per core where a worker of several connections can run (group.c:
 * procedure mode on a driver with pipelines), one per connection where it
 * cannot; never more than connections, each serving at most RUN_GROUP_MAX.
 */
static int plan_workers(const struct config *cfg, const struct db_conn *mc, int mode, int nvu,
                        int *out, struct err *e)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int g = cfg->run.workers > 0           ? cfg->run.workers
            : txn_batch_possible(mc, mode) ? 2 * (int)(cores > 0 ? cores : 1)
                                           : nvu;

    if (g > nvu)
        g = nvu;

    if (g < nvu && !txn_batch_possible(mc, mode))
        return err_set(e, E_USAGE,
                       "'run.workers' is %d, fewer than the %d connections, but a worker of "
                       "several connections needs run.mode procedure on a driver with "
                       "pipelines, postgres or null (this run: mode %s, driver %s): set "
                       "run.workers to 0 (one per connection)",
                       cfg->run.workers, nvu, run_mode_name(mode), mc->ops->name);
    if ((nvu + g - 1) / g > RUN_GROUP_MAX)
        g = (nvu + RUN_GROUP_MAX - 1) / RUN_GROUP_MAX;
    *out = g;
    return 0;
}

/* The database's New-Order count, for a part of several at the window's edges. */
struct edge_count {
    struct shared *sh;
    struct db_conn **mc;
};

static int edge_count_fn(void *ctx, int64_t *out, struct err *e)
{
    struct edge_count *c = ctx;

    if ((*c->mc)->ops->flags & DB_F_SYNTHETIC) {
        *out = 0;
        return err_set(e, E_FAIL, "driver %s: no database behind it, no count to compare",
                       (*c->mc)->ops->name);
    }
    return monitor_count(c->sh, c->mc, out, e);
}

/*
 * A window edge of a part of several: every part paused, part 1's count.
 * The part's own record does not compare it (it covers every part): the
 * merged record does.  A missing count is a note, not a failure.
 */
static void part_edge(struct shared *sh, struct db_conn **mc, enum meet_edge edge, int64_t *out,
                      struct run_result *r)
{
    struct edge_count c = { sh, mc };
    struct err e;

    err_clear(&e);
    if (meet_edge(sh->o->meet, edge, edge_count_fn, &c, out, &e) < 0) {
        if (!r->db_count_note[0])
            snprintf(r->db_count_note, sizeof(r->db_count_note), "%s", e.msg);
        return;
    }
    if (edge == MEET_OPEN)
        r->part_count_open = *out;
    else
        r->part_count_close = *out;
}

/* RTT probe: the median of 100 trivial queries on the monitor's connection. */
static int rtt_probe(struct db_conn *mc, struct run_result *r, struct err *e)
{
    uint64_t s[100];
    int rc;

    for (int i = 0; i < 100; i++) {
        uint64_t t = clock_us();
        if (sig_stop_requested())
            return err_set(e, E_INTR, "interrupted while connecting");
        if ((rc = db_exec(mc, S_RUN_PING, NULL, 0, e)) < 0)
            return rc;
        s[i] = clock_us() - t;
    }
    qsort(s, 100, sizeof(s[0]), cmp_u64);
    r->rtt_median_us = (double)(s[49] + s[50]) / 2.0;
    return db_end_reads(mc, e);
}

int run_run(const struct run_opts *o, struct run_result *r, struct err *e)
{
    const struct config *cfg = o->cfg;
    struct shared *sh = calloc(1, sizeof(*sh));
    struct vu *vus = NULL, *workers = NULL;
    struct db_conn *mc = NULL;
    struct dialect ad;
    struct monitor *m = NULL;
    struct vu_stats *base = NULL;
    int ngroups = 1, nvu = cfg->run.virtual_users,
        nw = cfg->run.delivery_inline ? 0 : cfg->run.delivery_workers;
    int rc = 0, tty = o->progress && isatty(fileno(o->progress));
    int64_t no_start = 0, no_end = 0;
    uint64_t t_meas = 0, t_end = 0, t_connect0;
    double cpu0 = 0;
    struct rng seed_rng;
    uint64_t *conn_us = NULL;
    uint64_t last_tick = 0; /* end of the last series row */
    int sec = 0;            /* series rows so far */
    int aborted = 0;        /* a VU was without a connection for run.max_outage */
    int on_time = 0;        /* the window reached its end (or every terminal finished) */
    struct backend_probe *probe = NULL; /* pooler detection, once a second */
    int synthetic = 0;                  /* the null driver: no tpcc_meta, no counts to compare */
    struct vu_stats *fin = NULL;        /* the counts at the window's close */
    int stuck = 0;                      /* threads did not stop: leave what they use */
    int jr;

    memset(r, 0, sizeof(*r));
    memset(&ad, 0, sizeof(ad));
    r->part_count_open = r->part_count_close = -1;
    if (!sh) {
        snprintf(r->status, sizeof(r->status), "failed");
        return err_set(e, E_FAIL, "out of memory");
    }
    snprintf(r->status, sizeof(r->status), "failed");
    sh->o = o;
    sh->cfg = cfg;
    pthread_mutex_init(&sh->lock, NULL);
    pthread_cond_init(&sh->cond, NULL);
    pthread_mutex_init(&sh->q.lock, NULL);
    pthread_cond_init(&sh->q.not_empty, NULL);
    pthread_cond_init(&sh->q.not_full, NULL);
    pthread_mutex_init(&sh->dlog_lock, NULL);
    err_clear(&sh->conn_err);
    sh->iso_stmt = txn_isolation_stmt(cfg->run.isolation);
    sh->mode = txn_mode_resolve(cfg->run.mode, o->dialect);
    r->mode = sh->mode;
    r->virtual_users = nvu;

    if ((rc = txn_dialect_load(&sh->d, o->dialect, e)) < 0 ||
        (rc = admin_dialect_load(&ad, o->dialect, e)) < 0)
        goto out;
    if (strlen(ad.sql[A_BACKEND_ID]) < sizeof(sh->backend_sql))
        snprintf(sh->backend_sql, sizeof(sh->backend_sql), "%s", ad.sql[A_BACKEND_ID]);
    /* The monitor's own connection: load facts, RTT probe, New-Order counts. */
    if ((rc = db_connect(o->ops, &sh->d, o->args, &mc, e)) < 0)
        goto out;
    snprintf(r->server_name, sizeof(r->server_name), "%s", mc->server_name);
    snprintf(r->server_version, sizeof(r->server_version), "%s", mc->server_version);
    synthetic = (mc->ops->flags & DB_F_SYNTHETIC) != 0;
    if ((rc = load_facts(cfg, mc, &ad, synthetic, r, e)) < 0)
        goto out;
    /* Fails early, with what to do, when procedure mode lacks its functions. */
    if ((rc = txn_prepare(mc, sh->mode, e)) < 0)
        goto out;
    if (cfg->run.batch > 1 && !txn_batch_possible(mc, sh->mode)) {
        rc = err_set(e, E_USAGE,
                     "'run.batch' is %d, but batches of transactions need run.mode procedure "
                     "on a driver with pipelines, postgres or null (this run: mode %s, driver "
                     "%s): set run.batch to 1",
                     cfg->run.batch, run_mode_name(sh->mode), mc->ops->name);
        goto out;
    }
    r->seed = cfg->run.seed ? (uint64_t)cfg->run.seed : clock_wall_us();
    rng_init_stream(&seed_rng, r->seed, 0xC0, 0, 0);
    nurand_c_run(&seed_rng, &r->c_load, &r->c_run);
    sh->ctx.warehouses = r->warehouses;
    sh->ctx.c_run = r->c_run;
    if (cfg->schema.warehouses != r->warehouses && o->progress)
        fprintf(o->progress,
                "note: the database holds %d warehouses; running on those "
                "(config says %d)\n",
                r->warehouses, cfg->schema.warehouses);

    if (o->meet) {
        struct run_opts *wo = (struct run_opts *)o; /* the caller's, to say the range back */
        const struct db_ops *mops = o->ops;
        struct db_connect_args margs = *o->args;
        const char *mdialect = o->dialect;
        if (cfg->run.meet_conninfo[0]) {
            /* A PostgreSQL of its own for the meeting (the null driver, another DBMS). */
            mops = db_find("postgres");
            margs.conninfo = cfg->run.meet_conninfo;
            margs.dsn = NULL;
            margs.statements = 0;
            mdialect = "postgresql";
        } else if (synthetic || strcmp(o->dialect, "postgresql") != 0) {
            rc = err_set(e, E_USAGE,
                         "the parts of a run meet in the database, and this one (driver %s, "
                         "dialect %s) cannot host the meeting: give run.meet_conninfo, a "
                         "PostgreSQL the parts meet in, or run one part",
                         mc->ops->name, o->dialect);
            goto out;
        }
        if (part_range(o->part_k, o->part_n, r->warehouses, &wo->first_w, &wo->last_w) < 1) {
            rc = err_set(e, E_USAGE,
                         "part %d/%d has no warehouse: the database holds %d, and a run has at "
                         "most as many parts as warehouses",
                         o->part_k, o->part_n, r->warehouses);
            goto out;
        }
        if ((rc = meet_open(o->meet, mops, &margs, mdialect, o->run_id, o->part_k, o->part_n,
                            o->first_w, o->last_w, (uint64_t)cfg->run.part_timeout_us, e)) < 0)
            goto out;
        if (o->progress)
            fprintf(o->progress,
                    "part %d/%d of run '%s' (attempt %d): warehouses %d to %d; waiting for the "
                    "other parts\n",
                    o->part_k, o->part_n, o->run_id, o->meet->gen, o->first_w, o->last_w);
    }
    size_run(sh, cfg, o->meet ? o->last_w - o->first_w + 1 : r->warehouses, r, &nvu, &nw);
    if ((rc = plan_workers(cfg, mc, sh->mode, nvu, &ngroups, e)) < 0)
        goto out;
    r->workers = ngroups;

    if ((rc = rtt_probe(mc, r, e)) < 0)
        goto out;

    if (o->dir) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/delivery.log", o->dir);
        sh->dlog = fopen(path, "w");
    }
    sh->q.cap = cfg->run.delivery_queue;
    sh->q.ring = calloc((size_t)sh->q.cap, sizeof(*sh->q.ring));
    sh->terms = calloc((size_t)sh->n_terms, sizeof(*sh->terms));
    if (!sh->terms || sched_init(&sh->sched, sh->n_terms) < 0) {
        rc = err_set(e, E_FAIL, "out of memory for %d terminals", sh->n_terms);
        goto out;
    }
    vus = calloc((size_t)nvu, sizeof(*vus));
    workers = nw ? calloc((size_t)nw, sizeof(*workers)) : NULL;
    m = calloc(1, sizeof(*m));
    base = calloc(1, sizeof(*base));
    conn_us = calloc((size_t)nvu, sizeof(*conn_us));
    if (!sh->q.ring || !vus || (nw && !workers) || !m || !base || !conn_us) {
        rc = err_set(e, E_FAIL, "out of memory for %d virtual users", nvu);
        goto out;
    }
    /* The terminals: data, dealt their identity, stream and deck. */
    for (int i = 0; i < sh->n_terms; i++) {
        if ((o->meet ? term_init_part(&sh->terms[i], i, o->first_w, o->last_w - o->first_w + 1,
                                      r->warehouses, r->seed, cfg->run.mix)
                     : term_init(&sh->terms[i], i, r->warehouses, r->seed, cfg->run.mix)) < 0) {
            rc = err_set(e, E_USAGE, "'run.mix' cannot be dealt as a deck");
            goto out;
        }
    }
    for (int i = 0; i < nvu; i++) {
        struct vu *v = &vus[i];
        v->sh = sh;
        v->id = i;
        stats_init(&v->st);
        pthread_mutex_init(&v->conn_lock, NULL);
    }
    for (int i = 0; i < nw; i++) {
        workers[i].lead = &workers[i];
        workers[i].n_group = 1;
        workers[i].sh = sh;
        workers[i].id = i;
        workers[i].worker = 1;
        stats_init(&workers[i].st);
        pthread_mutex_init(&workers[i].conn_lock, NULL);
    }

    /* Phase: connect. */
    t_connect0 = clock_us();
    for (int g = 0; g < ngroups; g++) {
        /* Worker g serves connections first .. last - 1 (one each when there
         * are as many workers as connections). */
        int first = (int)((int64_t)g * nvu / ngroups),
            last = (int)((int64_t)(g + 1) * nvu / ngroups);
        int prc;
        vus[first].n_group = last - first;
        for (int i = first; i < last; i++)
            vus[i].lead = &vus[first];
        prc = pthread_create(&vus[first].thread, NULL, ngroups < nvu ? group_main : vu_main,
                             &vus[first]);
        if (prc == 0) {
            vus[first].started = 1;
        } else {
            for (int i = first; i < last; i++)
                thread_not_started(sh, prc);
        }
    }
    for (int i = 0; i < nw; i++) {
        int prc = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
        if (prc == 0)
            workers[i].started = 1;
        else
            thread_not_started(sh, prc);
    }
    pthread_mutex_lock(&sh->lock);
    while (sh->n_ready < nvu + nw && !sig_stop_requested()) {
        pthread_mutex_unlock(&sh->lock);
        clock_sleep_us(10000);
        pthread_mutex_lock(&sh->lock);
    }
    r->connect_total_s = (double)(clock_us() - t_connect0) / 1e6;
    if (sh->n_failed || sig_stop_requested()) {
        __atomic_store_n(&sh->stopping, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&sh->phase, PH_STOP, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&sh->cond);
        pthread_mutex_unlock(&sh->lock);
        if (sh->n_failed) {
            *e = sh->conn_err;
            err_prefix(e, "%d of %d connections failed", sh->n_failed, nvu + nw);
            rc = e->code;
        } else {
            rc = err_set(e, E_INTR, "interrupted while connecting");
        }
        goto join;
    }
    backends_shared(vus, nvu, workers, nw, synthetic ? -1 : backend_of(mc, sh->backend_sql), r);
    if (!synthetic)
        probe = backend_probe_start(sh);
    r->connect_ms = calloc((size_t)nvu, sizeof(double));
    for (int i = 0; i < nvu; i++) {
        conn_us[i] = vus[i].connect_us;
        if (r->connect_ms)
            r->connect_ms[i] = (double)vus[i].connect_us / 1e3;
    }
    qsort(conn_us, (size_t)nvu, sizeof(*conn_us), cmp_u64);
    r->connect_min_ms = (double)conn_us[0] / 1e3;
    r->connect_median_ms = (double)conn_us[nvu / 2] / 1e3;
    r->connect_max_ms = (double)conn_us[nvu - 1] / 1e3;
    stats_init(base);
    /* A part of several: every part connected, all start at the agreed instant. */
    if (o->meet && (rc = meet_start(o->meet, e)) < 0) {
        __atomic_store_n(&sh->stopping, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&sh->phase, PH_STOP, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&sh->cond);
        pthread_mutex_unlock(&sh->lock);
        goto join;
    }
    /* No ramp-up and no warm-up: the window opens before any VU starts, so
     * not even the first transaction falls outside it. */
    if (cfg->run.rampup_us + cfg->run.warmup_us == 0) {
        if (o->meet)
            part_edge(sh, &mc, MEET_OPEN, &no_start, r);
        else if (!synthetic && (rc = monitor_count(sh, &mc, &no_start, e)) < 0) {
            __atomic_store_n(&sh->stopping, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&sh->phase, PH_STOP, __ATOMIC_RELEASE);
            pthread_cond_broadcast(&sh->cond);
            pthread_mutex_unlock(&sh->lock);
            goto join;
        }
        cpu0 = cpu_now_s();
        t_meas = clock_us();
    }
    sh->t0_us = clock_us();
    /* Every terminal into the timer queue; ramp-up: terminal i starts at rampup * i / n. */
    for (int i = 0; i < sh->n_terms; i++) {
        struct terminal *t = &sh->terms[i];
        term_first(t, &sh->pace,
                   sh->t0_us + (uint64_t)((double)cfg->run.rampup_us * i / sh->n_terms));
        sched_put(&sh->sched, t);
    }
    sh->go = 1;
    __atomic_store_n(&sh->phase, t_meas ? PH_MEASURE : PH_WARMUP, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);

    {
        uint64_t warm_end = sh->t0_us + (uint64_t)cfg->run.rampup_us + (uint64_t)cfg->run.warmup_us;
        uint64_t meas_end = t_meas ? t_meas + (uint64_t)cfg->run.duration_us : 0;
        uint64_t next_tick = sh->t0_us + 1000000;
        int total_s =
            (int)((cfg->run.rampup_us + cfg->run.warmup_us + cfg->run.duration_us) / 1000000);
        int measuring = t_meas != 0;

        stats_init(&m->prev);
        last_tick = sh->t0_us;
        for (;;) {
            uint64_t now = clock_us();
            if (sig_stop_requested())
                break;
            if (!measuring && now >= warm_end) {
                /* The window opens with every VU idle: the counts then agree exactly. */
                pause_all(sh, nvu, OPEN_WAIT_US);
                if (sig_stop_requested())
                    break;
                {
                    int late = collect_base(sh, vus, nvu, base);
                    r->unfinished_open = late;
                    if (late && o->progress)
                        fprintf(o->progress,
                                "note: %d virtual users were still in a transaction "
                                "30 s after the barrier; their counts at the window's "
                                "opening are from their last snapshot\n",
                                late);
                }
                if (o->meet)
                    part_edge(sh, &mc, MEET_OPEN, &no_start, r);
                else if (!synthetic && (rc = monitor_count(sh, &mc, &no_start, e)) < 0)
                    break;
                cpu0 = cpu_now_s();
                t_meas = clock_us();
                meas_end = t_meas + (uint64_t)cfg->run.duration_us;
                measuring = 1;
                /* Close the warm-up's last (partial) second with the exact counts,
                 * and count measured seconds from the window's start. */
                if (t_meas - last_tick > 1000) {
                    m->cur = *base;
                    series_add(r, m, ++sec, 'r', 0, 0, (double)(t_meas - last_tick) / 1e6);
                }
                m->prev = *base;
                last_tick = t_meas;
                next_tick = t_meas + 1000000;
                phase_set(sh, PH_MEASURE);
                now = clock_us();
            }
            if (measuring && now >= meas_end) {
                on_time = 1;
                break;
            }
            if (__atomic_load_n(&sh->n_finished, __ATOMIC_ACQUIRE) == nvu) {
                on_time = 1;
                break; /* every terminal ran its run.transactions */
            }
            if (__atomic_load_n(&sh->fatal, __ATOMIC_ACQUIRE)) {
                pthread_mutex_lock(&sh->lock);
                *e = sh->fatal_err;
                pthread_mutex_unlock(&sh->lock);
                rc = e->code;
                break;
            }
            if (now >= next_tick) {
                int in_tx, down;
                uint64_t longest_us;
                double interval = (double)(now - last_tick) / 1e6;
                request_snapshots(vus, nvu);
                /* Give VUs a moment to publish (they do after each transaction). */
                clock_sleep_us(20000);
                collect(vus, nvu, &m->cur, &in_tx);
                down = count_down(vus, nvu, workers, nw, clock_us(), &longest_us);
                sec++;
                meet_beat(o->meet);
                series_add(r, m, sec, measuring ? 'm' : 'r', in_tx, down, interval);
                metrics_tick(o->metrics, r->n_series ? &r->series[r->n_series - 1] : NULL, &m->cur,
                             in_tx, down);
                if (longest_us > (uint64_t)cfg->run.max_outage_us) {
                    rc = err_set(e, E_FAIL,
                                 "the database was unreachable for more than %.0f s "
                                 "(run.max_outage): run aborted",
                                 (double)cfg->run.max_outage_us / 1e6);
                    aborted = 1;
                    break;
                }
                if (measuring) {
                    m->in_tx_sum += in_tx;
                    m->in_tx_samples++;
                }
                if (o->progress && r->n_series && (tty || sec % 10 == 0))
                    live_line(o, &r->series[r->n_series - 1], sec, total_s, tty);
                last_tick = next_tick;
                next_tick += 1000000;
                continue;
            }
            {
                uint64_t until = next_tick < (measuring ? meas_end : warm_end)
                                     ? next_tick
                                     : (measuring ? meas_end : warm_end);
                if (until > now)
                    clock_sleep_us(until - now > 100000 ? 100000 : until - now);
            }
        }
        if (o->progress && tty)
            fputc('\n', o->progress);
        /* The window closes on time: every worker idle at a barrier bounded by
         * CLOSE_WAIT_US; one still in a transaction then is counted unfinished,
         * with its last published counts.  The database's count is taken while
         * they wait, so the two agree up to the unfinished ones. */
        if (on_time && t_meas && rc == 0 && !aborted && !sig_stop_requested() &&
            (fin = calloc(1, sizeof(*fin))) != NULL) {
            int rc2;
            pause_all(sh, nvu, CLOSE_WAIT_US);
            r->unfinished_close = collect_base(sh, vus, nvu, fin);
            t_end = clock_us();
            r->cpu_s = cpu_now_s() - cpu0;
            if (o->meet)
                part_edge(sh, &mc, MEET_CLOSE, &no_end, r);
            rc2 = synthetic || o->meet ? E_FAIL : monitor_count_bounded(sh, &mc, &no_end, e);
            if (o->meet) {
                /* The merged record compares the count of every part. */
                if (!r->db_count_note[0])
                    snprintf(r->db_count_note, sizeof(r->db_count_note),
                             "the database's count covers every part of the run: the merged "
                             "record compares it");
            } else if (synthetic) {
                /* db_count_note says why. */
            } else if (rc2 == 0) {
                r->db_counted = 1;
                r->db_new_orders = no_end - no_start;
            } else {
                snprintf(r->db_count_note, sizeof(r->db_count_note), "%s", e->msg);
                err_clear(e);
            }
        }
        phase_set(sh, PH_STOP);
        sched_close(&sh->sched);
    join:
        backend_probe_stop(probe, r);
        probe = NULL;
        if ((jr = join_bounded(vus, nvu, !sh->go)) < 0) {
            stuck = 1;
            r->cancel_unanswered |= jr == JOIN_CANCEL_BLOCKED;
            for (int i = 0; i < nvu; i++)
                r->left_behind += vu_unjoined(&vus[i]);
        }
        /* A usage error met after the monitor's last look. */
        if (rc == 0 && __atomic_load_n(&sh->fatal, __ATOMIC_ACQUIRE)) {
            pthread_mutex_lock(&sh->lock);
            *e = sh->fatal_err;
            pthread_mutex_unlock(&sh->lock);
            rc = e->code;
        }
        if (!fin) {
            t_end = clock_us();
            r->cpu_s = cpu_now_s() - cpu0;
        }
        if (t_meas) {
            int from_barrier = fin != NULL;
            r->window_opened = 1;
            r->measured_s = (double)(t_end - t_meas) / 1e6;
            if (!fin && (fin = calloc(1, sizeof(*fin))) != NULL) {
                stats_init(fin);
                /* A VU left behind: its last published counts. */
                for (int i = 0; i < nvu; i++)
                    stats_merge(
                        fin,
                        vus[i].joined
                            ? &vus[i].st
                            : &vus[i].snap[__atomic_load_n(&vus[i].ack, __ATOMIC_ACQUIRE) & 1]);
            }
            if (fin) {
                stats_sub(&r->measured, fin, base);
                /* The last second (with the in-flight transactions that finished
                 * after the stop) from the exact final counts. */
                if (t_end > last_tick + 1000) {
                    m->cur = *fin;
                    series_add(r, m, ++sec, 'm', 0, 0, (double)(t_end - last_tick) / 1e6);
                }
                free(fin);
                fin = NULL;
            }
            /* Stopped early (a signal): every VU joined, the count is exact. */
            if (!from_barrier && rc == 0 && !aborted && !synthetic && !o->meet) {
                int rc2 = monitor_count(sh, &mc, &no_end, e);
                if (rc2 < 0) {
                    rc = rc2;
                } else {
                    r->db_counted = 1;
                    r->db_new_orders = no_end - no_start;
                }
            }
            r->vus_in_tx_mean = m->in_tx_samples ? m->in_tx_sum / m->in_tx_samples : 0;
        } else {
            stats_init(&r->measured);
        }
        /* Let the workers finish what is queued (bounded), then stop them. */
        {
            uint64_t deadline = clock_us() + 60000000;
            pthread_mutex_lock(&sh->q.lock);
            while (sh->q.n > 0 && clock_us() < deadline && !sig_stop_requested() && !aborted) {
                pthread_mutex_unlock(&sh->q.lock);
                meet_beat(o->meet);
                clock_sleep_us(10000);
                pthread_mutex_lock(&sh->q.lock);
            }
            r->deliveries_pending = (uint64_t)sh->q.n;
            sh->q.n = 0;
            sh->q.closed = 1;
            pthread_cond_broadcast(&sh->q.not_empty);
            pthread_mutex_unlock(&sh->q.lock);
        }
        if ((jr = join_bounded(workers, nw, !sh->go || stuck)) < 0) {
            stuck = 1;
            r->cancel_unanswered |= jr == JOIN_CANCEL_BLOCKED;
            for (int i = 0; i < nw; i++)
                r->left_behind += vu_unjoined(&workers[i]);
        }
        stats_init(&r->delivery);
        for (int i = 0; i < nw; i++)
            stats_merge(
                &r->delivery,
                workers[i].joined
                    ? &workers[i].st
                    : &workers[i].snap[__atomic_load_n(&workers[i].ack, __ATOMIC_ACQUIRE) & 1]);
        if (cfg->run.delivery_inline) {
            r->delivery.dl_districts = r->measured.dl_districts;
            r->delivery.dl_skipped = r->measured.dl_skipped;
        }
        /* Queue-full waits are counted by the VUs. */
        r->delivery.dl_queue_full = r->measured.dl_queue_full;
        r->delivery.dl_queue_wait_us = r->measured.dl_queue_wait_us;
    }
    /* Which (w, d) each terminal ran Stock-Level for, when few enough to list. */
    if (!stuck && sh->terms && sh->n_terms <= 1000 &&
        (r->stock_level_pairs = calloc((size_t)sh->n_terms, sizeof(*r->stock_level_pairs)))) {
        for (int i = 0; i < sh->n_terms; i++) {
            r->stock_level_pairs[i].w = sh->terms[i].w_id;
            r->stock_level_pairs[i].d = sh->terms[i].d_id;
            r->stock_level_pairs[i].n = sh->terms[i].n_stock_level;
        }
        r->n_stock_level_pairs = sh->n_terms;
    }
    if (aborted)
        snprintf(r->status, sizeof(r->status), "aborted");
    else if (rc == 0 && sig_stop_requested())
        snprintf(r->status, sizeof(r->status), "interrupted");
    else if (rc == 0)
        snprintf(r->status, sizeof(r->status), "complete");
    else if (rc == E_INTR)
        snprintf(r->status, sizeof(r->status), "interrupted");
out:
    if (rc < 0 && !aborted && (rc == E_INTR || sig_stop_requested()))
        snprintf(r->status, sizeof(r->status), "interrupted");
    if (stuck) {
        /* Threads blocked in the database still use these: leave them to
         * the process's exit. */
        if (o->progress && r->left_behind)
            fprintf(o->progress,
                    "warning: %d connection%s did not stop within %d s (blocked in the "
                    "database, which answered neither them nor a cancel request): left "
                    "behind (run.json run.left_behind)\n",
                    r->left_behind, r->left_behind == 1 ? "" : "s",
                    (JOIN_GRACE_US + JOIN_CANCEL_US) / 1000000);
        else if (o->progress)
            fprintf(o->progress,
                    "warning: the database did not answer a cancel request within %d s: "
                    "left behind (run.json run.cancel_unanswered)\n",
                    JOIN_CANCEL_US / 1000000);
        free(m);
        free(base);
        free(conn_us);
        db_close(mc);
        dialect_release(&ad);
        return rc;
    }
    if (vus)
        for (int i = 0; i < nvu; i++)
            db_close(vus[i].c);
    if (workers)
        for (int i = 0; i < nw; i++)
            db_close(workers[i].c);
    free(vus);
    free(workers);
    free(m);
    free(base);
    free(conn_us);
    free(sh->q.ring);
    sched_release(&sh->sched);
    free(sh->terms);
    if (sh->dlog)
        fclose(sh->dlog);
    db_close(mc);
    dialect_release(&sh->d);
    dialect_release(&ad);
    pthread_mutex_destroy(&sh->lock);
    pthread_cond_destroy(&sh->cond);
    pthread_mutex_destroy(&sh->q.lock);
    pthread_cond_destroy(&sh->q.not_empty);
    pthread_cond_destroy(&sh->q.not_full);
    pthread_mutex_destroy(&sh->dlog_lock);
    free(sh);
    return rc;
}

void run_result_release(struct run_result *r)
{
    free(r->stock_level_pairs);
    r->stock_level_pairs = NULL;
    r->n_stock_level_pairs = 0;
    free(r->series);
    free(r->connect_ms);
    r->connect_ms = NULL;
    r->series = NULL;
    r->n_series = 0;
}
