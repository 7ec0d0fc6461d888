/*
 * driver.c - a run's phases: set-up (the load's facts, terminals, connections
 * and delivery workers sized, the RTT probe), connect, ramp-up and warm-up,
 * the measured window (opened with every worker idle, closed on time), stop
 * and the figures' raw counts.  The workers are in worker.c, the monitor's
 * work in monitor.c, the terminals and their timer queue in terminal.c and
 * sched.c; run_int.h says what they share.
 */
#include "run/run_int.h"
#include "run/driver.h"

#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/part.h"
#include "core/signals.h"
#include "run/meet.h"
#include "run/metrics.h"
#include "run/runseries.h"
#include "tpcc/admin.h"
#include "tpcc/deck.h"

/* Freed heap the process keeps before giving pages back (mallopt). */
#define RUN_TRIM_THRESHOLD (64 * 1024 * 1024)

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
    double offered_tps, cycle_s;

    deck_init(&d, cfg->run.mix);
    cycle_s = term_mean_cycle_s(&d);
    sh->pace.load = cfg->run.rate > 0 ? TERM_OPEN : cfg->run.think_time ? TERM_THINK : TERM_CLOSED;
    sh->pace.time_scale = cfg->run.time_scale > 0 ? cfg->run.time_scale : 1.0;
    sh->pace.rate_per_s = cfg->run.rate;
    sh->n_terms = cfg->run.terminals            ? cfg->run.terminals
                  : sh->pace.load == TERM_THINK ? 10 * range_w
                                                : cfg->run.virtual_users;
    sh->pace.n_terminals = sh->n_terms;
    offered_tps = sh->pace.load == TERM_OPEN ? cfg->run.rate
                  : sh->pace.load == TERM_THINK
                      ? sh->n_terms / (cycle_s * sh->pace.time_scale)
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
    /* Terminals with think time may be taken a little late so that one wake
     * serves several: at most 1/10,000 of a mean cycle, at most 1 ms (the
     * lag it adds is measured as lag).  Closed and open loads keep the
     * kernel's 50 us. */
    if (sh->pace.load == TERM_THINK) {
        double s = 1e-4 * cycle_s * sh->pace.time_scale;
        sh->timer_slack_ns = s > 1e-3 ? 1000000 : (uint64_t)(s * 1e9);
        r->timer_slack_us = (double)sh->timer_slack_ns / 1000.0;
    }
}

/*
 * The threads that serve the nvu connections: run.workers, else (0, auto)
 * one per core where a worker of several connections can run (group.c:
 * procedure mode on a driver with pipelines), one per connection where it
 * cannot; never more than connections, each serving at most RUN_GROUP_MAX.
 */
static int plan_workers(const struct config *cfg, const struct db_conn *mc, int mode, int nvu,
                        int *out, struct err *e)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int g = cfg->run.workers > 0           ? cfg->run.workers
            : txn_batch_possible(mc, mode) ? (int)(cores > 0 ? cores : 1)
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

/*
 * What the phases of one run share, in the order they fill it in.  The
 * threads share sh (run_int.h); this is the calling thread's own.
 */
struct run {
    const struct run_opts *o;    /* the caller's options */
    const struct config *cfg;    /* o->cfg */
    struct run_result *r;        /* the result, filled in phase by phase */
    struct shared *sh;           /* what the worker threads share */
    struct dialect ad;           /* admin statements (meta, backend id, counts) */
    struct db_conn *mc;          /* the monitor's own connection */
    int synthetic;               /* the null driver: no tpcc_meta, no counts to compare */
    int tty;                     /* progress goes to a terminal: a live line each second */
    int nvu, nw, ngroups;        /* connections, delivery workers, terminal worker threads */
    struct vu *vus;              /* the nvu connections (vus[i].lead serves them) */
    struct vu *workers;          /* the nw delivery workers */
    struct monitor *m;           /* the series' state */
    struct vu_stats *base;       /* the counts at the window's opening */
    struct vu_stats *fin;        /* ... at its close, once taken (NULL before) */
    uint64_t *conn_us;           /* connect times, sorted for their median */
    struct backend_probe *probe; /* pooler detection, once a second */
    int64_t no_start, no_end;    /* the database's New-Order count at the edges */
    uint64_t t_meas, t_end;      /* the window opened (0: not yet) and closed */
    double cpu0;                 /* the process's CPU at the opening */
    uint64_t last_tick;          /* end of the last series row: when its counts were taken */
    uint64_t next_tick;          /* when the next one is due */
    int said_window;             /* the window's first live line was printed (not a tty) */
    int edge_wait;               /* the next row waits for every VU's snapshot from after the
                                  * window's opening (await_snapshots) */
    int total_s;                 /* ramp-up, warm-up and window, for the live line */
    int sec;                     /* series rows so far */
    int ended;                   /* the loop ended before its time (signal, done, failure) */
    int aborted;                 /* a connection was down for run.max_outage */
    int on_time;                 /* the window reached its end (or every terminal finished) */
    int stuck;                   /* threads did not stop: leave what they use */
    struct runseries live;       /* the run's counters on the live endpoint (o->metrics) */
};

/* The threads are told to stop, with sh->lock held by the caller (released). */
static void stop_locked(struct shared *sh)
{
    __atomic_store_n(&sh->stopping, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&sh->phase, PH_STOP, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
}

/* The first usage error a worker met, into e; its code. */
static int fatal_err(struct shared *sh, struct err *e)
{
    pthread_mutex_lock(&sh->lock);
    *e = sh->fatal_err;
    pthread_mutex_unlock(&sh->lock);
    return e->code;
}

/* The main thread's bell (struct shared main_bell), emptied; -1 without
 * one.  One for the process, never closed: a stop signal's handler may
 * write to it at any time, and a closed number could be another file's. */
static int main_bell(void)
{
    static int fd = -1;
    uint64_t drain;

    if (fd < 0 && (fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) >= 0)
        sig_set_wake_fd(fd);
    if (fd >= 0 && read(fd, &drain, sizeof(drain)) < 0)
        drain = 0; /* empty already */
    return fd;
}

/* Takes the options; leaves x and sh set up, nothing connected or started. */
static int run_init(struct run *x, const struct run_opts *o, struct run_result *r, struct err *e)
{
    const struct config *cfg = o->cfg;
    struct shared *sh;

#ifdef M_TRIM_THRESHOLD
    /* Keep freed heap: a group thread's results come and go every round
     * trip, and glibc's default (trim above 128 KiB) gave pages back with
     * madvise and faulted them in again, a few times a second, ~0.2 ms each. */
    mallopt(M_TRIM_THRESHOLD, RUN_TRIM_THRESHOLD);
#endif
    memset(x, 0, sizeof(*x));
    memset(r, 0, sizeof(*r));
    x->o = o;
    x->cfg = cfg;
    x->r = r;
    x->tty = o->progress && isatty(fileno(o->progress));
    x->ngroups = 1;
    x->nvu = cfg->run.virtual_users;
    x->nw = cfg->run.delivery_inline ? 0 : cfg->run.delivery_workers;
    r->part_count_open = r->part_count_close = -1;
    snprintf(r->status, sizeof(r->status), "failed");
    if (!(sh = x->sh = calloc(1, sizeof(*sh))))
        return err_set(e, E_FAIL, "out of memory");
    sh->o = o;
    sh->cfg = cfg;
    pthread_mutex_init(&sh->lock, NULL);
    pthread_cond_init(&sh->cond, NULL);
    pthread_mutex_init(&sh->q.lock, NULL);
    pthread_cond_init(&sh->q.not_empty, NULL);
    pthread_cond_init(&sh->q.not_full, NULL);
    pthread_mutex_init(&sh->dlog_lock, NULL);
    sh->main_bell = main_bell();
    err_clear(&sh->conn_err);
    /* Until pick_isolation knows the DBMS: the config's. */
    sh->iso_name = cfg->run.isolation;
    sh->iso_stmt = txn_isolation_stmt(cfg->run.isolation);
    sh->mode = txn_mode_resolve(cfg->run.mode, o->dialect);
    r->mode = sh->mode;
    r->virtual_users = x->nvu;
    runseries_init(&x->live, o->metrics);
    return 0;
}

/*
 * The level every connection sets: run.isolation where it was set (a level
 * the DBMS lacks is then refused at connect, naming the ones it has), else
 * the weakest the DBMS offers from read committed up, and why, so that a
 * config that says nothing still runs on SQLite (serializable only).
 */
static int pick_isolation(struct run *x, struct err *e)
{
    struct run_result *r = x->r;
    const char *name = x->cfg->run.isolation;
    int rc;

    if (!x->cfg->run.isolation_set &&
        (rc = db_isolation_default(&x->mc->caps, x->mc->server_name, &name, r->isolation_why,
                                   sizeof(r->isolation_why), e)) < 0)
        return rc;
    snprintf(r->isolation, sizeof(r->isolation), "%s", name);
    x->sh->iso_name = r->isolation;
    x->sh->iso_stmt = txn_isolation_stmt(r->isolation);
    if (r->isolation_why[0] && x->o->progress)
        fprintf(x->o->progress, "note: isolation %s: run.isolation is not set, and %s\n",
                r->isolation, r->isolation_why);
    return 0;
}

/*
 * Prepare: the statements, the monitor's connection, the load's facts,
 * procedure mode's functions and the batch checked, the run's seed.  Leaves
 * x->mc connected and r's warehouses, seed and NURand constants.
 */
static int phase_prepare(struct run *x, struct err *e)
{
    const struct config *cfg = x->cfg;
    struct shared *sh = x->sh;
    struct run_result *r = x->r;
    struct rng seed_rng;
    int rc;

    if ((rc = txn_dialect_load(&sh->d, x->o->dialect, e)) < 0 ||
        (rc = admin_dialect_load(&x->ad, x->o->dialect, e)) < 0)
        return rc;
    /* A dialect that cannot ask has none: no pooler is ever seen. */
    if (x->ad.sql[A_BACKEND_ID] && strlen(x->ad.sql[A_BACKEND_ID]) < sizeof(sh->backend_sql))
        snprintf(sh->backend_sql, sizeof(sh->backend_sql), "%s", x->ad.sql[A_BACKEND_ID]);
    else if (!x->ad.sql[A_BACKEND_ID])
        snprintf(r->backend_unavailable, sizeof(r->backend_unavailable), "%s",
                 x->ad.absent[A_BACKEND_ID]);
    /* The monitor's own connection: load facts, RTT probe, New-Order counts. */
    if ((rc = db_connect(x->o->ops, &sh->d, x->o->args, &x->mc, e)) < 0)
        return rc;
    snprintf(r->server_name, sizeof(r->server_name), "%s", x->mc->server_name);
    snprintf(r->server_version, sizeof(r->server_version), "%s", x->mc->server_version);
    x->synthetic = (x->mc->ops->flags & DB_F_SYNTHETIC) != 0;
    if ((rc = pick_isolation(x, e)) < 0 ||
        (rc = load_facts(cfg, x->mc, &x->ad, x->synthetic, r, e)) < 0)
        return rc;
    /* Fails early, with what to do, when procedure mode lacks its functions. */
    if ((rc = txn_prepare(x->mc, sh->mode, e)) < 0)
        return rc;
    if (cfg->run.batch > 1 && !txn_batch_possible(x->mc, sh->mode))
        return err_set(e, E_USAGE,
                       "'run.batch' is %d, but batches of transactions need run.mode procedure "
                       "on a driver with pipelines, postgres or null (this run: mode %s, driver "
                       "%s): set run.batch to 1",
                       cfg->run.batch, run_mode_name(sh->mode), x->mc->ops->name);
    r->seed = cfg->run.seed ? (uint64_t)cfg->run.seed : clock_wall_us();
    rng_init_stream(&seed_rng, r->seed, 0xC0, 0, 0);
    nurand_c_run(&seed_rng, &r->c_load, &r->c_run);
    sh->ctx.warehouses = r->warehouses;
    sh->ctx.c_run = r->c_run;
    if (cfg->schema.warehouses != r->warehouses && x->o->progress)
        fprintf(x->o->progress,
                "note: the database holds %d warehouses; running on those "
                "(config says %d)\n",
                r->warehouses, cfg->schema.warehouses);
    return 0;
}

/*
 * Meet (a part of several only): this part's warehouses, and its row in the
 * meeting place.  Leaves o->first_w .. o->last_w and the meeting open.
 */
static int phase_meet(struct run *x, struct err *e)
{
    const struct run_opts *o = x->o;
    struct run_opts *wo = (struct run_opts *)o; /* the caller's, to say the range back */
    const struct db_ops *mops = o->ops;
    struct db_connect_args margs;
    const char *mdialect = o->dialect;
    int rc;

    if (!o->meet)
        return 0;
    margs = *o->args;
    if (x->cfg->run.meet_conninfo[0]) {
        /* A PostgreSQL of its own for the meeting (the null driver, another DBMS). */
        mops = db_find("postgres");
        margs.conninfo = x->cfg->run.meet_conninfo;
        margs.dsn = NULL;
        margs.statements = 0;
        mdialect = "postgresql";
    } else if (x->synthetic || strcmp(o->dialect, "postgresql") != 0) {
        return err_set(e, E_USAGE,
                       "the parts of a run meet in the database, and this one (driver %s, "
                       "dialect %s) cannot host the meeting: give run.meet_conninfo, a "
                       "PostgreSQL the parts meet in, or run one part",
                       x->mc->ops->name, o->dialect);
    }
    if (part_range(o->part_k, o->part_n, x->r->warehouses, &wo->first_w, &wo->last_w) < 1)
        return err_set(e, E_USAGE,
                       "part %d/%d has no warehouse: the database holds %d, and a run has at "
                       "most as many parts as warehouses",
                       o->part_k, o->part_n, x->r->warehouses);
    if ((rc = meet_open(o->meet, mops, &margs, mdialect, o->run_id, o->part_k, o->part_n,
                        o->first_w, o->last_w, (uint64_t)x->cfg->run.part_timeout_us, e)) < 0)
        return rc;
    if (o->progress)
        fprintf(o->progress,
                "part %d/%d of run '%s' (attempt %d): warehouses %d to %d; waiting for the "
                "other parts\n",
                o->part_k, o->part_n, o->run_id, o->meet->gen, o->first_w, o->last_w);
    return 0;
}

/* The terminals dealt their identity, stream and deck; the workers' state. */
static int init_terminals(struct run *x, struct err *e)
{
    const struct run_opts *o = x->o;
    struct shared *sh = x->sh;

    for (int i = 0; i < sh->n_terms; i++) {
        if ((o->meet
                 ? term_init_part(&sh->terms[i], i, o->first_w, o->last_w - o->first_w + 1,
                                  x->r->warehouses, x->r->seed, x->cfg->run.mix)
                 : term_init(&sh->terms[i], i, x->r->warehouses, x->r->seed, x->cfg->run.mix)) < 0)
            return err_set(e, E_USAGE, "'run.mix' cannot be dealt as a deck");
    }
    for (int i = 0; i < x->nvu; i++) {
        struct vu *v = &x->vus[i];
        v->sh = sh;
        v->id = i;
        v->bell = -1;
        stats_init(&v->st);
        pthread_mutex_init(&v->conn_lock, NULL);
    }
    for (int i = 0; i < x->nw; i++) {
        struct vu *w = &x->workers[i];
        w->lead = w;
        w->n_group = 1;
        w->sh = sh;
        w->id = i;
        w->worker = 1;
        w->bell = -1;
        stats_init(&w->st);
        pthread_mutex_init(&w->conn_lock, NULL);
    }
    return 0;
}

/*
 * Size: terminals, connections, worker threads and delivery workers (see
 * size_run, plan_workers), the RTT probe, and what they need allocated.
 * Leaves the terminals dealt and every struct vu set up, no thread started.
 */
static int phase_size(struct run *x, struct err *e)
{
    const struct config *cfg = x->cfg;
    const struct run_opts *o = x->o;
    struct shared *sh = x->sh;
    int rc;

    size_run(sh, cfg, o->meet ? o->last_w - o->first_w + 1 : x->r->warehouses, x->r, &x->nvu,
             &x->nw);
    if ((rc = plan_workers(cfg, x->mc, sh->mode, x->nvu, &x->ngroups, e)) < 0)
        return rc;
    x->r->workers = x->ngroups;
    /* Group mode: the group threads serve the delivery workers' connections
     * too (group.c); no delivery worker thread is started. */
    sh->dl_group = x->ngroups < x->nvu && x->nw > 0;
    x->r->delivery_on = sh->dl_group ? DL_ON_GROUPS : x->nw > 0 ? DL_ON_THREADS : 0;
    if ((rc = rtt_probe(x->mc, x->r, e)) < 0)
        return rc;
    if (o->dir) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/delivery.log", o->dir);
        sh->dlog = fopen(path, "w");
    }
    sh->q.cap = cfg->run.delivery_queue;
    sh->q.ring = calloc((size_t)sh->q.cap, sizeof(*sh->q.ring));
    sh->terms = calloc((size_t)sh->n_terms, sizeof(*sh->terms));
    if (!sh->terms || sched_init(&sh->sched, sh->n_terms) < 0)
        return err_set(e, E_FAIL, "out of memory for %d terminals", sh->n_terms);
    x->vus = calloc((size_t)x->nvu, sizeof(*x->vus));
    x->workers = x->nw ? calloc((size_t)x->nw, sizeof(*x->workers)) : NULL;
    if ((x->m = calloc(1, sizeof(*x->m))) != NULL) {
        x->m->prev = &x->m->st[0];
        x->m->cur = &x->m->st[1];
    }
    x->base = calloc(1, sizeof(*x->base));
    x->conn_us = calloc((size_t)x->nvu, sizeof(*x->conn_us));
    if (!sh->q.ring || !x->vus || (x->nw && !x->workers) || !x->m || !x->base || !x->conn_us)
        return err_set(e, E_FAIL, "out of memory for %d virtual users", x->nvu);
    return init_terminals(x, e);
}

/* The worker threads: ngroups serving the connections (in group mode the
 * delivery workers' too, a share each), and the delivery workers. */
static void start_threads(struct run *x)
{
    struct shared *sh = x->sh;
    struct vu *vus = x->vus;

    /* Group mode: each thread's bell (without one, it wakes on its tick). */
    if (x->ngroups < x->nvu && (sh->bells = calloc((size_t)x->ngroups, sizeof(int))) != NULL)
        sh->n_bells = x->ngroups;

    for (int g = 0; g < x->ngroups; g++) {
        /* Worker g serves connections first .. last - 1 (one each when there
         * are as many workers as connections), and in group mode delivery
         * connections dfirst .. dlast - 1. */
        int first = (int)((int64_t)g * x->nvu / x->ngroups),
            last = (int)((int64_t)(g + 1) * x->nvu / x->ngroups);
        int dfirst = sh->dl_group ? (int)((int64_t)g * x->nw / x->ngroups) : 0,
            dlast = sh->dl_group ? (int)((int64_t)(g + 1) * x->nw / x->ngroups) : 0;
        int prc;
        vus[first].n_group = last - first;
        for (int i = first; i < last; i++)
            vus[i].lead = &vus[first];
        vus[first].dl_vus = sh->dl_group ? &x->workers[dfirst] : NULL;
        vus[first].n_dl = dlast - dfirst;
        if (g < sh->n_bells)
            sh->bells[g] = vus[first].bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        for (int i = dfirst; i < dlast; i++)
            x->workers[i].lead = &vus[first];
        prc = pthread_create(&vus[first].thread, NULL, x->ngroups < x->nvu ? group_main : vu_main,
                             &vus[first]);
        if (prc == 0) {
            vus[first].started = 1;
        } else {
            for (int i = first; i < last + dlast - dfirst; i++)
                thread_not_started(sh, prc);
        }
    }
    for (int i = 0; i < x->nw && !sh->dl_group; i++) {
        int prc = pthread_create(&x->workers[i].thread, NULL, worker_main, &x->workers[i]);
        if (prc == 0)
            x->workers[i].started = 1;
        else
            thread_not_started(sh, prc);
    }
}

/* The server processes of the connections, for the wait sampler: read
 * here once they are made (a reconnect's new process is not followed). */
static void hand_backends(struct run *x)
{
    int64_t *pids;

    if (!x->o->metrics || x->synthetic || !(pids = calloc((size_t)(x->nvu + x->nw) + 1, sizeof(*pids))))
        return;
    for (int i = 0; i < x->nvu; i++)
        pids[i] = x->vus[i].backend;
    for (int i = 0; i < x->nw; i++)
        pids[x->nvu + i] = x->workers[i].backend;
    metrics_backends(x->o->metrics, pids, x->nvu + x->nw);
    free(pids);
}

/* Every connection made (or failed): the servers behind them and their times. */
static void connect_figures(struct run *x)
{
    struct run_result *r = x->r;
    int nvu = x->nvu;

    backends_shared(x->vus, nvu, x->workers, x->nw,
                    x->synthetic ? -1 : backend_of(x->mc, x->sh->backend_sql), r);
    if (!x->synthetic)
        x->probe = backend_probe_start(x->sh);
    hand_backends(x);
    r->connect_ms = calloc((size_t)nvu, sizeof(double));
    for (int i = 0; i < nvu; i++) {
        x->conn_us[i] = x->vus[i].connect_us;
        if (r->connect_ms)
            r->connect_ms[i] = (double)x->vus[i].connect_us / 1e3;
    }
    qsort(x->conn_us, (size_t)nvu, sizeof(*x->conn_us), cmp_u64);
    r->connect_min_ms = (double)x->conn_us[0] / 1e3;
    r->connect_median_ms = (double)x->conn_us[nvu / 2] / 1e3;
    r->connect_max_ms = (double)x->conn_us[nvu - 1] / 1e3;
}

/* The window's opening count (a part's edge, else the database's New-Orders). */
static int open_count(struct run *x, struct err *e)
{
    if (x->o->meet) {
        part_edge(x->sh, &x->mc, MEET_OPEN, &x->no_start, x->r);
        return 0;
    }
    return x->synthetic ? 0 : monitor_count(x->sh, &x->mc, &x->no_start, e);
}

/*
 * Start: the threads, each connection made, the other parts met; with no
 * ramp-up and no warm-up the window opens here, before any terminal starts
 * (so not even the first transaction falls outside it); then every terminal
 * into the timer queue (ramp-up: terminal i at rampup * i / n) and go.
 * Leaves the workers serving terminals; on failure the threads told to stop.
 */
static int phase_start(struct run *x, struct err *e)
{
    const struct config *cfg = x->cfg;
    struct shared *sh = x->sh;
    uint64_t t_connect0 = clock_us();
    int rc;

    start_threads(x);
    pthread_mutex_lock(&sh->lock);
    while (sh->n_ready < x->nvu + x->nw && !sig_stop_requested()) {
        pthread_mutex_unlock(&sh->lock);
        clock_sleep_us(10000);
        pthread_mutex_lock(&sh->lock);
    }
    x->r->connect_total_s = (double)(clock_us() - t_connect0) / 1e6;
    if (sh->n_failed || sig_stop_requested()) {
        stop_locked(sh);
        if (!sh->n_failed)
            return err_set(e, E_INTR, "interrupted while connecting");
        *e = sh->conn_err;
        err_prefix(e, "%d of %d connections failed", sh->n_failed, x->nvu + x->nw);
        return e->code;
    }
    connect_figures(x);
    stats_init(x->base);
    /* A part of several: every part connected, all start at the agreed instant. */
    if ((x->o->meet && (rc = meet_start(x->o->meet, e)) < 0) ||
        (cfg->run.rampup_us + cfg->run.warmup_us == 0 && (rc = open_count(x, e)) < 0)) {
        stop_locked(sh);
        return rc;
    }
    if (cfg->run.rampup_us + cfg->run.warmup_us == 0) {
        x->cpu0 = monitor_cpu_now_s();
        x->t_meas = clock_us();
    }
    sh->t0_us = clock_us();
    for (int i = 0; i < sh->n_terms; i++) {
        struct terminal *t = &sh->terms[i];
        term_first(t, &sh->pace,
                   sh->t0_us + (uint64_t)((double)cfg->run.rampup_us * i / sh->n_terms));
        sched_put(&sh->sched, t);
    }
    sh->go = 1;
    __atomic_store_n(&sh->phase, x->t_meas ? PH_MEASURE : PH_WARMUP, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
    stats_init(x->m->prev);
    x->last_tick = sh->t0_us;
    x->next_tick = sh->t0_us + 1000000;
    x->total_s = (int)((cfg->run.rampup_us + cfg->run.warmup_us + cfg->run.duration_us) / 1000000);
    return 0;
}

/*
 * One second of the loop: every worker's published counts, the connections
 * down, the series row and the metrics beside it, the meeting's beat, the
 * live line.  An outage longer than run.max_outage aborts the run.
 */
static int run_second(struct run *x, struct err *e)
{
    const struct run_opts *o = x->o;
    struct run_result *r = x->r;
    struct vu_stats *now = x->m->cur; /* this second's counts (series_add makes them prev) */
    int measuring = x->t_meas != 0;
    int in_tx, down;
    uint64_t longest_us, at;
    double interval;

    monitor_request_snapshots(x->vus, x->nvu);
    /* Give VUs a moment to publish (they do after each transaction). */
    clock_sleep_us(20000);
    if (x->edge_wait) {
        (void)monitor_await_snapshots(x->sh, x->vus, x->nvu, 1000000);
        x->edge_wait = 0;
    }
    monitor_collect(x->vus, x->nvu, now, &in_tx);
    /* The row's rates are over the time its counts cover: from the last
     * row's counts to these, however late this loop woke (a loaded machine
     * wakes it late; the next row is then shorter, never counted twice). */
    at = clock_us();
    interval = (double)(at - x->last_tick) / 1e6;
    down = monitor_count_down(x->vus, x->nvu, x->workers, x->nw, at, &longest_us);
    x->sec++;
    meet_beat(o->meet);
    monitor_series_add(r, x->m, x->sec, measuring ? 'm' : 'r', in_tx, down, interval);
    if (o->metrics) {
        const struct series_row *row = r->n_series ? &r->series[r->n_series - 1] : NULL;
        runseries_update(&x->live, row, now, in_tx, down);
        metrics_tick(o->metrics, row ? row->second : x->sec, row ? row->phase : 'r');
    }
    if (longest_us > (uint64_t)x->cfg->run.max_outage_us) {
        x->aborted = 1;
        return err_set(e, E_FAIL,
                       "the database was unreachable for more than %.0f s "
                       "(run.max_outage): run aborted",
                       (double)x->cfg->run.max_outage_us / 1e6);
    }
    if (measuring) {
        x->m->in_tx_sum += in_tx;
        x->m->in_tx_samples++;
    }
    /* Not on a terminal: every 10 s, and the window's first second (a log
     * shows where the measurement began). */
    if (o->progress && r->n_series &&
        (x->tty || x->sec % 10 == 0 || (measuring && !x->said_window)))
        monitor_live_line(o, &r->series[r->n_series - 1], x->sec, x->total_s, x->tty);
    if (measuring)
        x->said_window = 1;
    x->last_tick = at;
    x->next_tick += 1000000;
    return 0;
}

/* Sleep us, or until the main bell rings (a stop signal, a fatal error, a
 * terminal finished); without a bell, in slices of 100 ms that a signal to
 * another thread cannot cut short. */
static void main_sleep(struct shared *sh, uint64_t us)
{
    struct pollfd pfd = { .fd = sh->main_bell, .events = POLLIN };
    uint64_t drain;

    if (pfd.fd < 0) {
        clock_sleep_us(us > 100000 ? 100000 : us);
        return;
    }
    if (poll(&pfd, 1, (int)((us + 999) / 1000)) > 0 && read(pfd.fd, &drain, sizeof(drain)) < 0)
        return; /* read empty by another look */
}

/*
 * The per-second loop until end (monotonic): a row each second, and a look
 * for a signal, the last terminal done and a worker's usage error.  Returns
 * 0 at end; otherwise sets x->ended (and x->on_time when every terminal
 * finished) and returns 0, or the failure.
 */
static int run_loop(struct run *x, uint64_t end, struct err *e)
{
    int rc;

    for (;;) {
        uint64_t now = clock_us(), until;
        if (sig_stop_requested())
            break;
        if (now >= end)
            return 0;
        if (__atomic_load_n(&x->sh->n_finished, __ATOMIC_ACQUIRE) == x->nvu) {
            x->on_time = 1; /* every terminal ran its run.transactions */
            break;
        }
        if (__atomic_load_n(&x->sh->fatal, __ATOMIC_ACQUIRE)) {
            x->ended = 1;
            return fatal_err(x->sh, e);
        }
        if (now >= x->next_tick) {
            if ((rc = run_second(x, e)) < 0) {
                x->ended = 1;
                return rc;
            }
            continue;
        }
        until = x->next_tick < end ? x->next_tick : end;
        if (until > now)
            main_sleep(x->sh, until - now);
    }
    x->ended = 1;
    return 0;
}

/*
 * Warm-up: ramp-up and warm-up seconds (series rows 'r'), then the window
 * opens with every worker idle at a barrier, so the counts agree exactly,
 * and the warm-up's last (partial) second is closed with them.  Leaves the
 * window open (x->t_meas), or x->ended.
 */
static int phase_warmup(struct run *x, struct err *e)
{
    const struct config *cfg = x->cfg;
    struct shared *sh = x->sh;
    struct run_result *r = x->r;
    int rc, late;

    if (x->t_meas) /* no ramp-up or warm-up: opened at the start */
        return 0;
    if ((rc = run_loop(x, sh->t0_us + (uint64_t)cfg->run.rampup_us + (uint64_t)cfg->run.warmup_us,
                       e)) < 0 ||
        x->ended)
        return rc;
    monitor_pause_all(sh, x->nvu, OPEN_WAIT_US);
    if (sig_stop_requested()) {
        x->ended = 1;
        return 0;
    }
    late = monitor_collect_base(sh, x->vus, x->nvu, x->base);
    r->unfinished_open = late;
    if (late && x->o->progress)
        fprintf(x->o->progress,
                "note: %d virtual users were still in a transaction "
                "30 s after the barrier; their counts at the window's "
                "opening are from their last snapshot\n",
                late);
    if ((rc = open_count(x, e)) < 0) {
        x->ended = 1;
        return rc;
    }
    x->cpu0 = monitor_cpu_now_s();
    x->t_meas = clock_us();
    if (x->t_meas - x->last_tick > 1000) {
        *x->m->cur = *x->base;
        monitor_series_add(r, x->m, ++x->sec, 'r', 0, 0, (double)(x->t_meas - x->last_tick) / 1e6);
    }
    *x->m->prev = *x->base;
    x->edge_wait = 1;
    x->last_tick = x->t_meas;
    x->next_tick = x->t_meas + 1000000;
    phase_set(sh, PH_MEASURE);
    return 0;
}

/* Window: the measured seconds (rows 'm') until run.duration has passed. */
static int phase_window(struct run *x, struct err *e)
{
    int rc = run_loop(x, x->t_meas + (uint64_t)x->cfg->run.duration_us, e);

    if (rc == 0 && !x->ended)
        x->on_time = 1;
    return rc;
}

/*
 * Close: when the window reached its end, every worker idle at a barrier
 * bounded by CLOSE_WAIT_US (one still in a transaction then is counted
 * unfinished, with its last published counts) and the database's count
 * taken while they wait, so the two agree up to the unfinished ones.  Then
 * the workers are told to stop.  Leaves x->fin and x->t_end when closed so.
 */
static void phase_close(struct run *x, int rc, struct err *e)
{
    const struct run_opts *o = x->o;
    struct run_result *r = x->r;
    int rc2;

    if (o->progress && x->tty)
        fputc('\n', o->progress);
    if (x->on_time && x->t_meas && rc == 0 && !x->aborted && !sig_stop_requested() &&
        (x->fin = calloc(1, sizeof(*x->fin))) != NULL) {
        monitor_pause_all(x->sh, x->nvu, CLOSE_WAIT_US);
        r->unfinished_close = monitor_collect_base(x->sh, x->vus, x->nvu, x->fin);
        x->t_end = clock_us();
        r->cpu_s = monitor_cpu_now_s() - x->cpu0;
        if (o->meet)
            part_edge(x->sh, &x->mc, MEET_CLOSE, &x->no_end, r);
        rc2 =
            x->synthetic || o->meet ? E_FAIL : monitor_count_bounded(x->sh, &x->mc, &x->no_end, e);
        if (o->meet) {
            /* The merged record compares the count of every part. */
            if (!r->db_count_note[0])
                snprintf(r->db_count_note, sizeof(r->db_count_note),
                         "the database's count covers every part of the run: the merged "
                         "record compares it");
        } else if (x->synthetic) {
            /* db_count_note says why. */
        } else if (rc2 == 0) {
            r->db_counted = 1;
            r->db_new_orders = x->no_end - x->no_start;
        } else {
            snprintf(r->db_count_note, sizeof(r->db_count_note), "%s", e->msg);
            err_clear(e);
        }
    }
    phase_set(x->sh, PH_STOP);
    sched_close(&x->sh->sched);
}

static void drain_queue(struct run *x);

/*
 * Stop: the pooler probe, in group mode the queued Deliveries drained (the
 * terminals' threads serve the delivery connections), then the terminal
 * workers joined, bounded (those still blocked in the database are left
 * behind: x->stuck, r->left_behind).  A usage error a worker met after the
 * monitor's last look becomes rc.
 */
static int phase_stop(struct run *x, int rc, struct err *e)
{
    int jr;

    backend_probe_stop(x->probe, x->r);
    x->probe = NULL;
    if (x->sh->dl_group)
        drain_queue(x); /* the terminals' threads run the queued Deliveries */
    if ((jr = join_bounded(x->vus, x->nvu, !x->sh->go)) < 0) {
        x->stuck = 1;
        x->r->cancel_unanswered |= jr == JOIN_CANCEL_BLOCKED;
        for (int i = 0; i < x->nvu; i++)
            x->r->left_behind += vu_unjoined(&x->vus[i]);
    }
    if (rc == 0 && __atomic_load_n(&x->sh->fatal, __ATOMIC_ACQUIRE))
        rc = fatal_err(x->sh, e);
    return rc;
}

/* A worker's final counts: its own once joined, else its last published copy. */
static const struct vu_stats *vu_final(const struct vu *v)
{
    return v->joined ? &v->st : &v->snap[__atomic_load_n(&v->ack, __ATOMIC_ACQUIRE) & 1];
}

/*
 * Tally: the window's counts (r->measured, from the close's barrier, else
 * from every worker's final counts), its last series row, and when the run
 * was stopped early with every worker joined, the database's exact count.
 */
static int phase_tally(struct run *x, int rc, struct err *e)
{
    struct run_result *r = x->r;
    int from_barrier = x->fin != NULL;

    if (!x->fin) {
        x->t_end = clock_us();
        r->cpu_s = monitor_cpu_now_s() - x->cpu0;
    }
    if (!x->t_meas) {
        stats_init(&r->measured);
        return rc;
    }
    r->window_opened = 1;
    r->measured_s = (double)(x->t_end - x->t_meas) / 1e6;
    if (!x->fin && (x->fin = calloc(1, sizeof(*x->fin))) != NULL) {
        stats_init(x->fin);
        for (int i = 0; i < x->nvu; i++)
            stats_merge(x->fin, vu_final(&x->vus[i]));
    }
    if (x->fin) {
        stats_sub(&r->measured, x->fin, x->base);
        /* The last second (with the in-flight transactions that finished
         * after the stop) from the exact final counts. */
        if (x->t_end > x->last_tick + 1000) {
            *x->m->cur = *x->fin;
            monitor_series_add(r, x->m, ++x->sec, 'm', 0, 0,
                               (double)(x->t_end - x->last_tick) / 1e6);
        }
        free(x->fin);
        x->fin = NULL;
    }
    if (!from_barrier && rc == 0 && !x->aborted && !x->synthetic && !x->o->meet) {
        int rc2 = monitor_count(x->sh, &x->mc, &x->no_end, e);
        if (rc2 < 0) {
            rc = rc2;
        } else {
            r->db_counted = 1;
            r->db_new_orders = x->no_end - x->no_start;
        }
    }
    r->vus_in_tx_mean = x->m->in_tx_samples ? x->m->in_tx_sum / x->m->in_tx_samples : 0;
    return rc;
}

/*
 * What is queued is run (bounded: 60 s, a signal, an abort; in group mode
 * while a group thread with a delivery connection is left to run it), then
 * the queue is closed: what is left is r->deliveries_pending.  Once: later
 * calls do nothing.
 */
static void drain_queue(struct run *x)
{
    struct shared *sh = x->sh;
    uint64_t deadline = clock_us() + 60000000;

    pthread_mutex_lock(&sh->q.lock);
    if (sh->q.closed) {
        pthread_mutex_unlock(&sh->q.lock);
        return;
    }
    while (sh->q.n > 0 && clock_us() < deadline && !sig_stop_requested() && !x->aborted &&
           (!sh->dl_group || __atomic_load_n(&sh->dl_consumers, __ATOMIC_ACQUIRE) > 0)) {
        pthread_mutex_unlock(&sh->q.lock);
        meet_beat(x->o->meet);
        clock_sleep_us(10000);
        pthread_mutex_lock(&sh->q.lock);
    }
    x->r->deliveries_pending = (uint64_t)sh->q.n;
    __atomic_store_n(&sh->q.n, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&sh->q.closed, 1, __ATOMIC_RELAXED);
    bells_ring(sh); /* the group threads draining it see it closed */
    pthread_cond_broadcast(&sh->q.not_empty);
    pthread_mutex_unlock(&sh->q.lock);
}

/*
 * Drain: the delivery workers finish what is queued (drain_queue), then
 * stop and are joined, bounded; their counts go into r->delivery.  In group
 * mode the queue was drained before the terminals' threads were joined, and
 * the delivery connections' counts are final where their thread was joined.
 */
static void phase_drain(struct run *x)
{
    struct shared *sh = x->sh;
    struct run_result *r = x->r;
    int jr;

    drain_queue(x);
    if ((jr = join_bounded(x->workers, x->nw, !sh->go || x->stuck)) < 0 ||
        (sh->dl_group && x->stuck)) {
        x->stuck = 1;
        r->cancel_unanswered |= jr == JOIN_CANCEL_BLOCKED;
        for (int i = 0; i < x->nw; i++)
            r->left_behind += vu_unjoined(&x->workers[i]);
    }
    stats_init(&r->delivery);
    for (int i = 0; i < x->nw; i++)
        stats_merge(&r->delivery, vu_final(&x->workers[i]));
    if (x->cfg->run.delivery_inline) {
        r->delivery.dl_districts = r->measured.dl_districts;
        r->delivery.dl_skipped = r->measured.dl_skipped;
    }
    /* Queue-full waits are counted by the VUs. */
    r->delivery.dl_queue_full = r->measured.dl_queue_full;
    r->delivery.dl_queue_wait_us = r->measured.dl_queue_wait_us;
}

/* Record: which (w, d) each terminal ran Stock-Level for, when few enough to list. */
static void phase_record(struct run *x)
{
    struct shared *sh = x->sh;
    struct run_result *r = x->r;

    if (x->stuck || !sh->terms || sh->n_terms > 1000 ||
        !(r->stock_level_pairs = calloc((size_t)sh->n_terms, sizeof(*r->stock_level_pairs))))
        return;
    for (int i = 0; i < sh->n_terms; i++) {
        r->stock_level_pairs[i].w = sh->terms[i].w_id;
        r->stock_level_pairs[i].d = sh->terms[i].d_id;
        r->stock_level_pairs[i].n = sh->terms[i].n_stock_level;
    }
    r->n_stock_level_pairs = sh->n_terms;
}

/* The run's status from how it ended. */
static void run_status(const struct run *x, int rc)
{
    struct run_result *r = x->r;
    const char *s = "failed";

    if (x->aborted || (x->sh && x->sh->monitor_outage))
        s = "aborted";
    else if (rc == 0)
        s = sig_stop_requested() ? "interrupted" : "complete";
    else if (rc == E_INTR || sig_stop_requested())
        s = "interrupted";
    snprintf(r->status, sizeof(r->status), "%s", s);
}

/*
 * Teardown, whatever phase failed: everything that was made is released,
 * except what threads left behind (still blocked in the database) may use,
 * which is left to the process's exit with a warning.
 */
static int run_teardown(struct run *x, int rc)
{
    struct shared *sh = x->sh;
    const struct run_opts *o = x->o;

    if (x->stuck) {
        if (o->progress && x->r->left_behind)
            fprintf(o->progress,
                    "warning: %d connection%s did not stop within %d s (blocked in the "
                    "database, which answered neither them nor a cancel request): left "
                    "behind (run.json run.left_behind)\n",
                    x->r->left_behind, x->r->left_behind == 1 ? "" : "s",
                    (JOIN_GRACE_US + JOIN_CANCEL_US) / 1000000);
        else if (o->progress)
            fprintf(o->progress,
                    "warning: the database did not answer a cancel request within %d s: "
                    "left behind (run.json run.cancel_unanswered)\n",
                    JOIN_CANCEL_US / 1000000);
    } else {
        for (int i = 0; x->vus && i < x->nvu; i++)
            db_close(x->vus[i].c);
        for (int i = 0; x->workers && i < x->nw; i++)
            db_close(x->workers[i].c);
        free(x->vus);
        free(x->workers);
    }
    metrics_serve_series(o->metrics, NULL, 0); /* x->live goes with x */
    free(x->m);
    free(x->base);
    free(x->conn_us);
    db_close(x->mc);
    dialect_release(&x->ad);
    if (x->stuck || !sh)
        return rc;
    free(sh->q.ring);
    for (int i = 0; i < sh->n_bells; i++)
        if (sh->bells[i] >= 0)
            close(sh->bells[i]);
    free(sh->bells);
    sched_release(&sh->sched);
    free(sh->terms);
    if (sh->dlog)
        fclose(sh->dlog);
    dialect_release(&sh->d);
    pthread_mutex_destroy(&sh->lock);
    pthread_cond_destroy(&sh->cond);
    pthread_mutex_destroy(&sh->q.lock);
    pthread_cond_destroy(&sh->q.not_empty);
    pthread_cond_destroy(&sh->q.not_full);
    pthread_mutex_destroy(&sh->dlog_lock);
    free(sh);
    return rc;
}

/*
 * A run, phase by phase.  From the start on, threads may be running, so
 * every path after it goes through the stop, the tally and the drain; any
 * failure ends in the one teardown.
 */
int run_run(const struct run_opts *o, struct run_result *r, struct err *e)
{
    struct run x;
    int rc;

    if ((rc = run_init(&x, o, r, e)) == 0 && (rc = phase_prepare(&x, e)) == 0 &&
        (rc = phase_meet(&x, e)) == 0 && (rc = phase_size(&x, e)) == 0) {
        if ((rc = phase_start(&x, e)) == 0) {
            if ((rc = phase_warmup(&x, e)) == 0 && !x.ended)
                rc = phase_window(&x, e);
            phase_close(&x, rc, e);
        }
        rc = phase_stop(&x, rc, e);
        rc = phase_tally(&x, rc, e);
        phase_drain(&x);
        phase_record(&x);
    }
    run_status(&x, rc);
    return run_teardown(&x, rc);
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
