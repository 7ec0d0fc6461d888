/*
 * monitor.c - what the monitor (the run's calling thread) does besides
 * keeping time: merge the workers' published counts, the New-Order counts at
 * the window's edges (bounded at the close), workers without a connection,
 * the window-edge barrier, the per-second series and live line, and the
 * bounded joins at the end.  See run_int.h.
 */
#include "run/run_int.h"
#include "run/driver.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/signals.h"
#include "tpcc/admin.h"
#include "tpcc/deck.h"

void monitor_collect(struct vu *vus, int n, struct vu_stats *out, int *in_tx)
{
    stats_clear(out);
    *in_tx = 0;
    for (int i = 0; i < n; i++) {
        struct vu *v = &vus[i];
        unsigned ack = __atomic_load_n(&v->ack, __ATOMIC_ACQUIRE);
        if (ack)
            stats_merge(out, &v->snap[ack & 1]);
        *in_tx += vu_state(v) == CS_WAITING;
    }
}

/* The counts at the window's opening, after monitor_pause_all(): a VU at the barrier
 * or finished gives its own stats (exact); one that did not reach the
 * barrier in time is still writing them and gives its last published
 * snapshot instead.  Returns the number of those late VUs. */
int monitor_collect_base(struct shared *sh, struct vu *vus, int n, struct vu_stats *out)
{
    int late = 0;

    stats_init(out);
    pthread_mutex_lock(&sh->lock);
    for (int i = 0; i < n; i++) {
        struct vu *v = &vus[i];
        if (v->at_barrier || v->finished) {
            stats_merge(out, &v->st);
        } else {
            unsigned ack = __atomic_load_n(&v->ack, __ATOMIC_ACQUIRE);
            if (ack)
                stats_merge(out, &v->snap[ack & 1]);
            late++;
        }
    }
    pthread_mutex_unlock(&sh->lock);
    return late;
}

/* Ask every VU whose last request was served for a fresh snapshot. */
void monitor_request_snapshots(struct vu *vus, int n)
{
    for (int i = 0; i < n; i++) {
        struct vu *v = &vus[i];
        unsigned req = v->req;
        if (__atomic_load_n(&v->ack, __ATOMIC_ACQUIRE) == req)
            __atomic_store_n(&v->req, req + 1, __ATOMIC_RELEASE);
    }
    /* A group thread serves them when it wakes: now. */
    for (int i = 0; i < n; i++)
        if (vus[i].lead == &vus[i])
            bell_ring(vus[i].bell);
}

/*
 * Wait up to wait_us until every VU not finished has served its snapshot
 * request, so that the counts monitor_collect() reads are from after the window's
 * opening edge: a VU that the machine did not schedule within the tick's
 * 20 ms would otherwise still show its snapshot from before the edge, counts
 * below the edge's base (a negative row).  1 when all had.
 */
int monitor_await_snapshots(struct shared *sh, struct vu *vus, int n, uint64_t wait_us)
{
    uint64_t until = clock_us() + wait_us;

    for (;;) {
        int pending = 0;
        pthread_mutex_lock(&sh->lock);
        for (int i = 0; i < n; i++)
            if (!vus[i].finished && __atomic_load_n(&vus[i].ack, __ATOMIC_ACQUIRE) !=
                                        __atomic_load_n(&vus[i].req, __ATOMIC_RELAXED))
                pending++;
        pthread_mutex_unlock(&sh->lock);
        if (!pending)
            return 1;
        if (clock_us() >= until)
            return 0;
        clock_sleep_us(1000);
    }
}

double monitor_cpu_now_s(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int count_new_orders(struct db_conn *c, int64_t *out, struct err *e)
{
    int rc = db_exec(c, S_RUN_NEW_ORDERS, NULL, 0, e);

    if (rc < 0)
        return rc;
    if (db_next(c) != 1)
        return err_set(e, E_FAIL, "cannot read sum(d_next_o_id)");
    *out = db_col_int(c, 0);
    /* Never leave the monitor inside a transaction (a snapshot held open). */
    return db_end_reads(c, e);
}

/* The count through the monitor's connection, reconnecting it after a lost
 * connection (a server restart) for up to run.max_outage. */
int monitor_count(struct shared *sh, struct db_conn **mc, int64_t *out, struct err *e)
{
    uint64_t deadline = clock_us() + (uint64_t)sh->cfg->run.max_outage_us;
    int rc, attempt = 0;

    for (;;) {
        if (*mc && (rc = count_new_orders(*mc, out, e)) != E_CONN)
            return rc;
        if (sig_stop_requested())
            return *mc ? E_CONN : err_prefix(e, "the monitor's connection is lost");
        if (clock_us() >= deadline) {
            /* The same outage, seen by the monitor first (at a window's
             * edge, before a worker's outage reached the limit). */
            sh->monitor_outage = 1;
            return err_prefix(e, "the database was unreachable for more than %.0f s "
                                 "(run.max_outage): run aborted: the monitor's connection is lost",
                              (double)sh->cfg->run.max_outage_us / 1e6);
        }
        db_close(*mc);
        *mc = NULL;
        clock_sleep_us(conn_backoff_us(++attempt, NULL));
        if (db_connect(sh->o->ops, &sh->d, sh->o->args, mc, e) < 0)
            *mc = NULL;
    }
}

/* The count at the window's close, bounded in time: a server that does not
 * answer (a frozen network) must not hold the run past its end. */
struct count_job {
    struct shared *sh;
    struct db_conn *c; /* the monitor's connection, taken at the start (the
                        * caller's pointer to it changes if the job is abandoned) */
    int64_t out;
    int rc, done;
    struct err e;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

static void *count_job_main(void *arg)
{
    struct count_job *j = arg;
    int64_t n = 0;
    struct err e;
    int rc;

    err_clear(&e);
    rc = count_new_orders(j->c, &n, &e);
    pthread_mutex_lock(&j->lock);
    j->out = n;
    j->rc = rc;
    j->e = e;
    j->done = 1;
    pthread_cond_signal(&j->cond);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

#define CLOSE_COUNT_WAIT_US 5000000
/* 0 with *out, or <0 with e: E_FAIL "no answer within 5 s" when the server
 * did not answer (the connection is then abandoned: *mc = NULL, the job
 * keeps it and its memory until the process ends). */
int monitor_count_bounded(struct shared *sh, struct db_conn **mc, int64_t *out,
                                 struct err *e)
{
    struct count_job *j;
    pthread_t th;
    struct timespec ts;
    int rc;

    if (!*mc)
        return monitor_count(sh, mc, out, e);
    if (!(j = calloc(1, sizeof(*j))))
        return err_set(e, E_FAIL, "out of memory");
    j->sh = sh;
    j->c = *mc;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cond, NULL);
    if (pthread_create(&th, NULL, count_job_main, j) != 0) {
        free(j);
        return monitor_count(sh, mc, out, e);
    }
    clock_deadline(&ts, CLOSE_COUNT_WAIT_US);
    pthread_mutex_lock(&j->lock);
    while (!j->done && pthread_cond_timedwait(&j->cond, &j->lock, &ts) == 0)
        ;
    if (!j->done) {
        pthread_mutex_unlock(&j->lock);
        pthread_detach(th);
        *mc = NULL; /* the job owns it now: it may still be blocked in it */
        return err_set(e, E_FAIL, "the database did not answer the New-Order count within %d s",
                       CLOSE_COUNT_WAIT_US / 1000000);
    }
    pthread_mutex_unlock(&j->lock);
    pthread_join(th, NULL);
    rc = j->rc;
    if (rc == 0)
        *out = j->out;
    else
        *e = j->e;
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cond);
    free(j);
    /* A lost connection: the reconnecting count, as at the window's opening. */
    return rc == E_CONN ? monitor_count(sh, mc, out, e) : rc;
}

/* VUs and workers without a connection now, and the longest such outage. */
int monitor_count_down(struct vu *vus, int n, struct vu *workers, int nw, uint64_t now,
                      uint64_t *longest_us)
{
    int down = 0;

    *longest_us = 0;
    for (int i = 0; i < n + nw; i++) {
        struct vu *v = i < n ? &vus[i] : &workers[i - n];
        uint64_t since = __atomic_load_n(&v->down_since_us, __ATOMIC_RELAXED);
        if (since) {
            down++;
            if (now > since && now - since > *longest_us)
                *longest_us = now - since;
        }
    }
    return down;
}


/* Put every VU into the barrier and wait until all are idle, at most wait_us. */
void monitor_pause_all(struct shared *sh, int nvu_running, uint64_t wait_us)
{
    uint64_t deadline = clock_us() + wait_us;

    pthread_mutex_lock(&sh->lock);
    sh->n_paused = 0;
    __atomic_store_n(&sh->phase, PH_PAUSE, __ATOMIC_RELEASE);
    while (sh->n_paused + __atomic_load_n(&sh->n_finished, __ATOMIC_ACQUIRE) < nvu_running &&
           clock_us() < deadline && !sig_stop_requested() &&
           !__atomic_load_n(&sh->fatal, __ATOMIC_ACQUIRE)) {
        struct timespec ts;
        clock_deadline(&ts, 50000);
        pthread_cond_timedwait(&sh->cond, &sh->lock, &ts);
    }
    pthread_mutex_unlock(&sh->lock);
}


/* This second's New-Orders by latency band (series.h), from its histogram. */
static void series_heat(struct series_row *row, const struct hist *h)
{
    static const double upper_ms[SERIES_HEAT_N - 1] = SERIES_HEAT_UPPER_MS;
    int k = 0;

    if (!h->n_samples)
        return;
    for (int b = hist_bucket_of(h->min_us); b <= hist_bucket_of(h->max_us); b++) {
        if (!h->counts[b])
            continue;
        while (k < SERIES_HEAT_N - 1 && (double)hist_bucket_low(b) >= upper_ms[k] * 1000)
            k++;
        row->no_heat[k] += (uint32_t)h->counts[b];
    }
}

void monitor_series_add(struct run_result *r, struct monitor *m, int second, char phase,
                       int in_tx, int down, double interval_s)
{
    struct series_row *row;
    struct vu_stats *was;

    if (r->n_series == m->n_cap) {
        int cap = m->n_cap ? m->n_cap * 2 : 256;
        struct series_row *ns = realloc(r->series, (size_t)cap * sizeof(*ns));
        if (!ns)
            return;
        r->series = ns;
        m->n_cap = cap;
    }
    stats_sub(&m->delta, m->cur, m->prev);
    row = &r->series[r->n_series++];
    memset(row, 0, sizeof(*row));
    row->second = second;
    row->phase = phase;
    hist_clear(&m->all);
    hist_clear(&m->svc);
    for (int t = 0; t < TX_NTYPES; t++) {
        row->tps[t] = (double)m->delta.tx[t].committed / interval_s;
        hist_merge(&m->all, &m->delta.tx[t].lat);
        hist_merge(&m->svc, &m->delta.tx[t].svc);
    }
    row->all_svc_p99_ms = (double)hist_percentile(&m->svc, 99) / 1000.0;
    row->lag_p99_ms = (double)hist_percentile(&m->delta.lag, 99) / 1000.0;
    row->no_p50_ms = (double)hist_percentile(&m->delta.tx[TX_NEW_ORDER].lat, 50) / 1000.0;
    row->no_p90_ms = (double)hist_percentile(&m->delta.tx[TX_NEW_ORDER].lat, 90) / 1000.0;
    row->no_p99_ms = (double)hist_percentile(&m->delta.tx[TX_NEW_ORDER].lat, 99) / 1000.0;
    row->all_p99_ms = (double)hist_percentile(&m->all, 99) / 1000.0;
    series_heat(row, &m->delta.tx[TX_NEW_ORDER].lat);
    row->errors = stats_errors(&m->delta);
    row->vus_in_tx = in_tx;
    row->vus_down = down;
    row->lost = m->delta.lost_connections;
    was = m->prev;
    m->prev = m->cur;
    m->cur = was;
}

void monitor_live_line(const struct run_opts *o, const struct series_row *row, int elapsed_s,
                      int total_s, int tty)
{
    double tps = 0;

    for (int t = 0; t < TX_NTYPES; t++)
        tps += row->tps[t];
    fprintf(o->progress, "%s[%4ds/%ds %-7s] TPS %7.1f  NOTPM %8.0f  NO p90 %7.2f ms  errors %llu%s",
            tty ? "\r" : "", elapsed_s, total_s,
            row->phase == 'm' ? "measure" : row->phase == 's' ? "stop" : "warmup", tps,
            row->tps[TX_NEW_ORDER] * 60, row->no_p90_ms, (unsigned long long)row->errors,
            tty ? "   " : "\n");
    fflush(o->progress);
}

/* Join the threads of vs, waiting at most wait_us; 1 when all are joined. */
static int join_until(struct vu *vs, int n, uint64_t wait_us)
{
    struct timespec ts;
    int all = 1;

    clock_deadline(&ts, wait_us);
    for (int i = 0; i < n; i++) {
        if (!vs[i].started || vs[i].joined)
            continue;
        if (pthread_timedjoin_np(vs[i].thread, NULL, &ts) == 0) {
            /* ... and so are the other connections its thread served. */
            for (int g = 0; g < vs[i].n_group; g++)
                vs[i + g].joined = 1;
            for (int d = 0; d < vs[i].n_dl; d++)
                vs[i].dl_vus[d].joined = 1;
        } else
            all = 0;
    }
    return all;
}

/* The connections whose threads did not end are asked to cancel from
 * threads of their own, CANCEL_THREADS at most, each a share of them: a
 * cancel request is a new connection to the server, and libpq waits for its
 * answer without a bound (a server that takes connections and never
 * answers them would hold the stop for ever). */
#define CANCEL_THREADS 4
struct cancel_job {
    int n;
    struct vu *v[];
};

static void *cancel_main(void *arg)
{
    struct cancel_job *j = arg;

    for (int i = 0; i < j->n; i++) {
        vu_cancel(j->v[i]);
        /* A group thread's delivery connections (group mode) too. */
        for (int d = 0; d < j->v[i]->n_dl; d++)
            vu_cancel(&j->v[i]->dl_vus[d]);
    }
    free(j);
    return NULL;
}

/* Join at stop, bounded: in-flight work gets JOIN_GRACE_US to end, then the
 * server is asked to cancel it and JOIN_CANCEL_US more.  0 when every thread
 * ended; JOIN_BLOCKED when some are still blocked (in a connect, or a server
 * that does not answer); JOIN_CANCEL_BLOCKED when all ended but a cancel
 * request was not answered.  Either way what they use is left behind. */
int vu_unjoined(const struct vu *v)
{
    return v->lead && v->lead->started && !v->joined;
}

int join_bounded(struct vu *vs, int n, int quick)
{
    uint64_t cancel_us = quick ? JOIN_CANCEL_US / 4 : JOIN_CANCEL_US;
    pthread_t th[CANCEL_THREADS];
    int nt = 0, nc = 0, all, blocked = 0;
    struct timespec ts;

    /* Stopped while connecting: nothing in flight is worth waiting for. */
    if (join_until(vs, n, quick ? JOIN_GRACE_US / 6 : JOIN_GRACE_US))
        return 0;
    for (int i = 0; i < n; i++)
        nc += vu_unjoined(&vs[i]);
    clock_deadline(&ts, cancel_us);
    /* Share k: the k-th, (k + CANCEL_THREADS)-th, ... connection due. */
    for (int k = 0; k < CANCEL_THREADS && k < nc; k++) {
        int share = (nc - k + CANCEL_THREADS - 1) / CANCEL_THREADS, m = 0, got = 0;
        struct cancel_job *j = malloc(sizeof(*j) + (size_t)share * sizeof(j->v[0]));
        for (int i = 0; i < n; i++)
            if (vu_unjoined(&vs[i]) && m++ % CANCEL_THREADS == k) {
                if (j)
                    j->v[got++] = &vs[i];
                else
                    vu_cancel(&vs[i]); /* no memory: from this thread, as before (its
                                        * delivery connections are not asked) */
            }
        if (!j)
            continue;
        j->n = got;
        if (pthread_create(&th[nt], NULL, cancel_main, j) == 0)
            nt++;
        else
            cancel_main(j); /* no thread: from this one */
    }
    all = join_until(vs, n, cancel_us);
    for (int k = 0; k < nt; k++)
        if (pthread_timedjoin_np(th[k], NULL, &ts) != 0) {
            pthread_detach(th[k]); /* it still uses the connections */
            blocked = 1;
        }
    return !all ? JOIN_BLOCKED : blocked ? JOIN_CANCEL_BLOCKED : 0;
}

/*
 * Right after the connect phase, while every connection is open: how many
 * distinct server processes the workers', the delivery workers' and the
 * monitor's connections reported at connect.  Directly (or through a pooler
 * in session mode) each open connection has a process of its own; fewer
 * processes than connections means something in between shares them, as a
 * pooler in transaction mode does with a pool smaller than our connections.
 * Sets r->backend_connections (connections that answered) and
 * r->backend_distinct.
 */
int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

void backends_shared(struct vu *vus, int n, struct vu *workers, int nw, int64_t mon,
                     struct run_result *r)
{
    uint64_t *ids = calloc((size_t)(n + nw + 1), sizeof(*ids));
    int k = 0;

    if (!ids)
        return;
    for (int i = 0; i < n + nw; i++) {
        int64_t b = i < n ? vus[i].backend : workers[i - n].backend;
        if (b >= 0)
            ids[k++] = (uint64_t)b;
    }
    if (mon >= 0)
        ids[k++] = (uint64_t)mon;
    qsort(ids, (size_t)k, sizeof(*ids), cmp_u64);
    r->backend_connections = k;
    r->backend_distinct = 0;
    for (int i = 0; i < k; i++)
        r->backend_distinct += i == 0 || ids[i] != ids[i - 1];
    free(ids);
}

/*
 * Once a second, which server process serves a connection of the probe's own
 * (admin statement backend_id, an unnamed query).  Directly, or through a
 * pooler in session mode, it never changes on one connection; a pooler in
 * transaction mode hands the connection's transactions to whichever server
 * connection is free, so it changes.  The probe has its own thread and
 * connection, so a server that stops answering holds neither the monitor nor
 * the window's close; a lost connection is made anew and starts a new
 * baseline, so a server restart is not mistaken for a pooler.
 */
struct backend_probe {
    struct shared *sh;
    pthread_t thread;
    int started, stop;        /* stop: atomic, and signalled on cond */
    pthread_mutex_t lock;     /* guards the counts and stop's signal */
    pthread_cond_t cond;      /* the probe's second between samples: it wakes once a second */
    int samples, changes;     /* pairs of successive samples, and those that differed */
};

static void *probe_main(void *arg)
{
    struct backend_probe *p = arg;
    struct shared *sh = p->sh;
    struct db_conn *c = NULL;
    int64_t last = -1;
    struct timespec ts;
    struct err e;

    while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
        int64_t id;
        if (!c && db_connect(sh->o->ops, &sh->d, sh->o->args, &c, &e) < 0)
            c = NULL;
        id = backend_of(c, sh->backend_sql);
        if (id < 0) {
            db_close(c); /* lost, or a dialect that cannot tell: a new baseline */
            c = NULL;
            last = -1;
        }
        clock_deadline(&ts, 1000000);
        pthread_mutex_lock(&p->lock);
        if (id >= 0) {
            if (last >= 0) {
                p->samples++;
                p->changes += id != last;
            }
            last = id;
        }
        /* A second's sleep that stop cuts short (not 20 wakes a second to look). */
        while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE) &&
               pthread_cond_timedwait(&p->cond, &p->lock, &ts) == 0)
            ;
        pthread_mutex_unlock(&p->lock);
    }
    db_close(c);
    return NULL;
}

struct backend_probe *backend_probe_start(struct shared *sh)
{
    struct backend_probe *p;

    if (!sh->backend_sql[0] || !(p = calloc(1, sizeof(*p))))
        return NULL;
    p->sh = sh;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    if (pthread_create(&p->thread, NULL, probe_main, p) != 0) {
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    p->started = 1;
    return p;
}

void backend_probe_stop(struct backend_probe *p, struct run_result *r)
{
    struct timespec ts;

    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->cond);
    r->backend_samples = p->samples;
    r->backend_changes = p->changes;
    pthread_mutex_unlock(&p->lock);
    clock_deadline(&ts, 2000000);
    if (pthread_timedjoin_np(p->thread, NULL, &ts) != 0) {
        /* Blocked in a server that does not answer: left to the process's exit. */
        pthread_detach(p->thread);
        return;
    }
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
