/*
 * driver.c - virtual users, deferred delivery workers and the monitor.
 *
 * Threads and what they share:
 *  - each VU owns its connection, RNG, deck of transaction types and
 *    struct vu_stats; it publishes a copy of its stats when the monitor asks
 *    (req/ack counters, one relaxed load per transaction; two buffers so the
 *    monitor never reads the one being written);
 *  - deferred deliveries go through a bounded queue (a mutex: 4 % of the
 *    transactions, never on the other four's path);
 *  - phase changes go through one mutex + condition variable.
 * The monitor (the calling thread) keeps time, takes the New-Order counts at
 * the window edges while every VU is idle, and builds the series.  It reads a
 * VU's own struct vu_stats only while that VU waits at the barrier (seen
 * under the lock), after it finished, or after it was joined; otherwise only
 * the published copies.
 */
#include "run/driver.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/signals.h"
#include "db/dialect.h"
#include "run/metrics.h"
#include "run/sched.h"
#include "run/terminal.h"
#include "tpcc/admin.h"
#include "tpcc/deck.h"
#include "tpcc/txn.h"

enum { PH_CONNECT, PH_WARMUP, PH_PAUSE, PH_MEASURE, PH_STOP };

struct dl_item {
    struct dl_input in;
    uint64_t queued_us;      /* monotonic */
    uint64_t queued_wall_us; /* for delivery.log */
    int measured;            /* queued inside the measured window */
};

struct dlq {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    struct dl_item *ring;
    int cap, head, n;
    int closed; /* no more items will come */
};

struct shared {
    const struct run_opts *o;
    const struct config *cfg;
    struct dialect d;
    struct txn_ctx ctx;
    int iso_stmt;
    int mode;                /* enum run_mode, resolved (never auto) */
    int phase;               /* PH_*, atomic */
    int stopping;            /* atomic: 1 once the phase is PH_STOP (ends retries) */
    pthread_mutex_t lock;    /* guards the counters below and phase changes */
    pthread_cond_t cond;
    int n_ready;             /* VUs connected (or failed) */
    int n_failed;
    int n_paused;
    int n_finished;          /* atomic: VUs that ran their run.transactions */
    int go;                  /* 1: connected VUs may start */
    struct err conn_err;     /* first connect failure */
    uint64_t t0_us;          /* start of ramp-up */
    struct dlq q;
    FILE *dlog;              /* delivery.log */
    pthread_mutex_t dlog_lock;
    struct terminal *terms;  /* the terminals (data, not threads) */
    int n_terms;
    struct sched sched;      /* the terminals not being served, by intended time */
    struct term_pace pace;   /* how they offer load */
    int n_retired;           /* atomic: terminals that ran their run.transactions */
};

struct vu {
    struct shared *sh;
    int id;
    int worker;              /* 1: a deferred delivery worker */
    pthread_t thread;
    int started;             /* the thread was created */
    int joined;              /* ... and has been joined */
    pthread_mutex_t conn_lock; /* guards c against a cancel from the monitor */
    struct db_conn *c;
    uint64_t jitter;         /* state of the retry back-off's jitter */
    uint64_t connect_us;
    struct vu_stats st;      /* owned by the thread */
    struct vu_stats snap[2]; /* published copies */
    unsigned req, ack;       /* snapshot request/served, atomics */
    int in_tx;               /* atomic: inside a transaction now */
    uint64_t down_since_us;  /* atomic: when the connection was lost, 0 = connected */
    int at_barrier;          /* under sh->lock: waiting in vu_pause_point(), st at rest */
    int finished;            /* under sh->lock: ran its run.transactions, st final */
};

static int phase_get(struct shared *sh)
{
    return __atomic_load_n(&sh->phase, __ATOMIC_ACQUIRE);
}

static void phase_set(struct shared *sh, int ph)
{
    if (ph == PH_STOP)
        __atomic_store_n(&sh->stopping, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&sh->lock);
    __atomic_store_n(&sh->phase, ph, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
    pthread_mutex_lock(&sh->q.lock);
    pthread_cond_broadcast(&sh->q.not_full);
    pthread_cond_broadcast(&sh->q.not_empty);
    pthread_mutex_unlock(&sh->q.lock);
}

/* Serve a pending snapshot request: copy stats into the buffer the monitor is not reading. */
static void vu_publish(struct vu *v)
{
    /* Acquire: the monitor finished reading this buffer before asking again. */
    unsigned req = __atomic_load_n(&v->req, __ATOMIC_ACQUIRE);

    if (req == v->ack)
        return;
    memcpy(&v->snap[req & 1], &v->st, sizeof(v->st));
    __atomic_store_n(&v->ack, req, __ATOMIC_RELEASE);
}

/* Set v's connection (the monitor may be cancelling through the old one). */
static void vu_set_conn(struct vu *v, struct db_conn *c)
{
    struct db_conn *old;

    pthread_mutex_lock(&v->conn_lock);
    old = v->c;
    v->c = c;
    pthread_mutex_unlock(&v->conn_lock);
    db_close(old);
}

static int vu_connect(struct vu *v, struct err *e)
{
    struct shared *sh = v->sh;
    struct db_conn *c = NULL;
    int rc;

    if ((rc = db_connect(sh->o->ops, &sh->d, sh->o->args, &c, e)) < 0)
        return rc;
    if ((rc = db_exec(c, sh->iso_stmt, NULL, 0, e)) < 0 || (rc = txn_prepare(c, sh->mode, e)) < 0) {
        db_close(c);
        return rc;
    }
    vu_set_conn(v, c);
    return 0;
}

/* Monitor: cancel what v is waiting for (a stop that must not wait on it). */
static void vu_cancel(struct vu *v)
{
    pthread_mutex_lock(&v->conn_lock);
    db_cancel(v->c);
    pthread_mutex_unlock(&v->conn_lock);
}

static void vu_pause_point(struct vu *v);

/* After a lost connection: reconnect with jittered, bounded back-off (50 ms
 * doubling to 1 s) until it works or the run stops.  A VU waiting here is
 * idle, so it takes part in the window-edge barrier; the monitor aborts the
 * run when one waits longer than run.max_outage. */
static void vu_reconnect(struct vu *v)
{
    struct shared *sh = v->sh;
    uint64_t t0 = clock_us(), backoff_us = 50000, jitter = t0 ^ (uint64_t)(uintptr_t)v;
    struct err e;

    if (v->c)
        v->st.lost_connections++;
    vu_set_conn(v, NULL);
    __atomic_store_n(&v->down_since_us, t0, __ATOMIC_RELAXED);
    for (;;) {
        /* Sleep backoff/2 .. backoff, in slices that see a stop or a barrier. */
        uint64_t end = clock_us() + backoff_us / 2 + clock_jitter_us(&jitter, backoff_us / 2);
        for (;;) {
            int ph = phase_get(sh);
            uint64_t now = clock_us();
            if (ph == PH_STOP || now >= end)
                break;
            vu_publish(v);
            if (ph == PH_PAUSE && !v->worker) {
                vu_pause_point(v);
                continue;
            }
            clock_sleep_us(end - now > 20000 ? 20000 : end - now);
        }
        if (phase_get(sh) == PH_STOP)
            break;
        if (vu_connect(v, &e) == 0) {
            v->st.reconnects++;
            break;
        }
        backoff_us = backoff_us * 2 > 1000000 ? 1000000 : backoff_us * 2;
        vu_publish(v);
    }
    v->st.down_us += clock_us() - t0;
    __atomic_store_n(&v->down_since_us, 0, __ATOMIC_RELAXED);
}

/* Run one transaction with retries of retryable failures (same input). */
static int vu_exec(struct vu *v, const struct txn_input *in, struct txn_output *out,
                   int max_retries, int *retries, struct err *e)
{
    int rc;

    *retries = 0;
    if (!v->c)
        return err_set(e, E_CONN, "not connected");
    __atomic_store_n(&v->in_tx, 1, __ATOMIC_RELAXED);
    {
        uint64_t rt0 = v->c->n_roundtrips;
        rc = txn_exec_retry(v->c, v->sh->mode, in, out, max_retries, &v->sh->stopping, retries,
                            e);
        /* Count on the same connection even after a failure (v->c stays). */
        v->st.tx[in->type].roundtrips += v->c->n_roundtrips - rt0;
    }
    __atomic_store_n(&v->in_tx, 0, __ATOMIC_RELAXED);
    return rc;
}

static void vu_record(struct vu *v, const struct txn_input *in, const struct txn_output *out,
                      int rc, int retries, uint64_t lat_us, const struct err *e)
{
    struct vu_stats *s = &v->st;
    struct tx_stats *t = &s->tx[in->type];

    t->retries += (uint64_t)retries;
    if (rc == 0) {
        hist_record(&t->lat, lat_us);
        t->in_tx_us += out->in_tx_us;
        if (out->rolled_back)
            t->rolled_back++;
        else
            t->committed++;
        switch (in->type) {
        case TX_NEW_ORDER:
            s->no_orders++;
            s->no_lines += (uint64_t)in->u.no.ol_cnt;
            for (int i = 0; i < in->u.no.ol_cnt; i++)
                s->no_remote_lines += in->u.no.items[i].supply_w_id != in->u.no.w_id;
            break;
        case TX_PAYMENT:
            s->pay_total++;
            s->pay_remote += in->u.pay.c_w_id != in->u.pay.w_id;
            s->pay_by_name += (uint64_t)in->u.pay.by_name;
            break;
        case TX_ORDER_STATUS:
            s->os_total++;
            s->os_by_name += (uint64_t)in->u.os.by_name;
            break;
        case TX_DELIVERY:
            s->dl_districts += 10;
            s->dl_skipped += (uint64_t)out->n_skipped;
            break;
        default:
            break;
        }
        return;
    }
    if (rc == E_RETRY)
        t->err_retry++;
    else if (rc == E_CONN)
        t->err_conn++;
    else
        t->err_other++;
    if (rc == E_CONN && out->commit_sent)
        t->unknown++;
    stats_sqlstate(s, e->sqlstate);
}

static void dlog_write(struct shared *sh, const struct dl_item *it, const struct txn_output *out,
                       uint64_t done_wall_us)
{
    char line[512], qt[32], dt[32];
    int n;

    if (!sh->dlog)
        return;
    clock_format(qt, sizeof(qt), "%Y-%m-%dT%H:%M:%S", (int64_t)(it->queued_wall_us / 1000000));
    clock_format(dt, sizeof(dt), "%Y-%m-%dT%H:%M:%S", (int64_t)(done_wall_us / 1000000));
    n = snprintf(line, sizeof(line), "queued=%s.%06llu w_id=%d carrier=%d delivered=", qt,
                 (unsigned long long)(it->queued_wall_us % 1000000), it->in.w_id,
                 it->in.carrier_id);
    for (int d = 0; d < 10 && n < (int)sizeof(line) - 40; d++)
        n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%d:%d", d ? "," : "", d + 1,
                      out->delivered[d]);
    snprintf(line + n, sizeof(line) - (size_t)n, " skipped=%d completed=%s.%06llu\n",
             out->n_skipped, dt, (unsigned long long)(done_wall_us % 1000000));
    pthread_mutex_lock(&sh->dlog_lock);
    fputs(line, sh->dlog);
    pthread_mutex_unlock(&sh->dlog_lock);
}

/* Queue a deferred delivery; waits (counted) while the queue is full. */
static int dlq_push(struct vu *v, const struct dl_item *it)
{
    struct dlq *q = &v->sh->q;
    uint64_t t0 = 0;

    pthread_mutex_lock(&q->lock);
    while (q->n == q->cap && phase_get(v->sh) != PH_STOP) {
        if (!t0) {
            t0 = clock_us();
            v->st.dl_queue_full++;
        }
        pthread_cond_wait(&q->not_full, &q->lock);
    }
    if (q->n == q->cap) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    q->ring[(q->head + q->n) % q->cap] = *it;
    q->n++;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
    if (t0)
        v->st.dl_queue_wait_us += clock_us() - t0;
    return 0;
}

static int dlq_pop(struct shared *sh, struct dl_item *it)
{
    struct dlq *q = &sh->q;

    pthread_mutex_lock(&q->lock);
    while (q->n == 0 && !q->closed)
        pthread_cond_wait(&q->not_empty, &q->lock);
    if (q->n == 0) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    *it = q->ring[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    pthread_cond_signal(&q->not_full);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

/* Wait for the start signal after connecting; 0 = go, -1 = abandon. */
static int vu_wait_go(struct vu *v, int connected)
{
    struct shared *sh = v->sh;
    int go;

    pthread_mutex_lock(&sh->lock);
    sh->n_ready++;
    if (!connected)
        sh->n_failed++;
    pthread_cond_broadcast(&sh->cond);
    while (!sh->go && phase_get(sh) != PH_STOP)
        pthread_cond_wait(&sh->cond, &sh->lock);
    go = sh->go && connected;
    pthread_mutex_unlock(&sh->lock);
    return go ? 0 : -1;
}

/* A thread that could not be created counts as a failed connection, so the
 * connect phase still ends (it waits for every thread to say it is ready). */
static void thread_not_started(struct shared *sh, int rc)
{
    char eb[128];

    pthread_mutex_lock(&sh->lock);
    sh->n_ready++;
    sh->n_failed++;
    if (sh->conn_err.code == E_OK)
        err_set(&sh->conn_err, E_FAIL, "cannot start a thread: %s", err_errno(rc, eb, sizeof(eb)));
    pthread_mutex_unlock(&sh->lock);
}

static void *worker_main(void *arg)
{
    struct vu *v = arg;
    struct shared *sh = v->sh;
    struct dl_item it;
    struct txn_input in;
    struct txn_output out;
    struct err e;

    err_clear(&e);
    if (vu_wait_go(v, vu_connect(v, &e) == 0) < 0)
        return NULL;
    while (dlq_pop(sh, &it) == 0) {
        int rc, retries;
        memset(&out, 0, sizeof(out));
        in.type = TX_DELIVERY;
        in.u.dl = it.in;
        {
            /* The workers' own round trips, of the measured deliveries only (their
             * stats are not a difference of snapshots as the VUs' are). */
            uint64_t rt = v->st.tx[TX_DELIVERY].roundtrips;
            rc = vu_exec(v, &in, &out, sh->cfg->run.max_retries, &retries, &e);
            if (!it.measured)
                v->st.tx[TX_DELIVERY].roundtrips = rt;
        }
        if (it.measured)
            vu_record(v, &in, &out, rc, retries, clock_us() - it.queued_us, &e);
        if (rc == 0)
            dlog_write(sh, &it, &out, clock_wall_us());
        if (rc == E_CONN)
            vu_reconnect(v);
    }
    return NULL;
}

/* The window-edge barrier: wait here, idle, while the monitor reads the
 * counts (v->st: the monitor sees at_barrier under the lock, and the VU
 * leaves only once the phase has changed). */
static void vu_pause_point(struct vu *v)
{
    struct shared *sh = v->sh;

    pthread_mutex_lock(&sh->lock);
    sh->n_paused++;
    v->at_barrier = 1;
    pthread_cond_broadcast(&sh->cond);
    while (phase_get(sh) == PH_PAUSE)
        pthread_cond_wait(&sh->cond, &sh->lock);
    v->at_barrier = 0;
    pthread_mutex_unlock(&sh->lock);
}

/* The back-off before retry k (1-based) of a retryable failure: random in
 * 0 .. 2^(k-1) x 250 us, capped at 16 ms, so colliding terminals part. */
static uint64_t retry_backoff_us(struct vu *v, int k)
{
    uint64_t cap_us = 250u << (k - 1 < 6 ? k - 1 : 6);

    return clock_jitter_us(&v->jitter, cap_us);
}

/* A terminal's transaction ended at end_us: deal its next one and put it
 * back, or retire it after its run.transactions. */
static void term_done(struct vu *v, struct terminal *t, uint64_t end_us)
{
    struct shared *sh = v->sh;

    t->n_done++;
    if (sh->cfg->run.transactions && t->n_done >= sh->cfg->run.transactions) {
        __atomic_add_fetch(&sh->n_retired, 1, __ATOMIC_RELEASE);
        return;
    }
    term_next(t, &sh->pace, end_us);
    sched_put(&sh->sched, t);
}

/*
 * A worker: one connection, serving whichever terminal is due.  Each pass
 * takes the terminal due first from the scheduler (the lag: how late), runs
 * its transaction once, records response time (from the terminal's
 * intended submit time) and service time (from the send), and puts the
 * terminal back with its next time.  A retryable failure puts the terminal
 * back with the time of its retry (same input) and the worker serves
 * others meanwhile; a lost connection loses that transaction, the terminal
 * moves on, and only this worker reconnects.
 */
static void *vu_main(void *arg)
{
    struct vu *v = arg;
    struct shared *sh = v->sh;
    const struct config *cfg = sh->cfg;
    struct txn_output out;
    struct err e;
    uint64_t t0 = clock_us();
    int connected;

    err_clear(&e);
    v->jitter = t0 ^ ((uint64_t)(uintptr_t)v << 16) ^ (uint64_t)v->id;
    connected = vu_connect(v, &e) == 0;
    v->connect_us = clock_us() - t0;
    if (!connected) {
        pthread_mutex_lock(&sh->lock);
        if (sh->conn_err.code == E_OK)
            sh->conn_err = e;
        pthread_mutex_unlock(&sh->lock);
    }
    if (vu_wait_go(v, connected) < 0)
        return NULL;
    for (;;) {
        int ph = phase_get(sh), rc, measured;
        uint64_t start, end, now;
        struct terminal *t;

        vu_publish(v);
        if (ph == PH_STOP)
            break;
        if (ph == PH_PAUSE) {
            vu_pause_point(v);
            continue;
        }
        t = sched_take(&sh->sched, &sh->stopping, 20000, &now);
        if (!t) {
            if (__atomic_load_n(&sh->n_retired, __ATOMIC_ACQUIRE) == sh->n_terms) {
                /* Every terminal ran its run.transactions: this worker is done. */
                vu_publish(v);
                pthread_mutex_lock(&sh->lock);
                v->finished = 1;
                __atomic_add_fetch(&sh->n_finished, 1, __ATOMIC_RELEASE);
                pthread_cond_broadcast(&sh->cond);
                pthread_mutex_unlock(&sh->lock);
                break;
            }
            continue;
        }
        if (phase_get(sh) == PH_PAUSE) {
            /* Taken just as the barrier went up: give it back untouched. */
            sched_put(&sh->sched, t);
            continue;
        }
        measured = phase_get(sh) == PH_MEASURE;
        if (t->retries == 0) {
            uint64_t lag = now > t->due_us ? now - t->due_us : 0;
            hist_record(&v->st.lag, lag);
            /* Waited for a connection longer than the think + keying it was given. */
            if (sh->pace.load == TERM_THINK && t->gap_us && lag > t->gap_us)
                v->st.waits_over_think++;
        }
        if (!t->has_input) {
            txn_gen(&t->rng, &sh->ctx, t->type, t->w_id, t->d_id, &t->in);
            t->has_input = 1;
        }
        memset(&out, 0, sizeof(out));
        start = clock_us();
        if (t->in.type == TX_DELIVERY && !cfg->run.delivery_inline) {
            /* Deferred: the response time ends when the request is queued. */
            struct dl_item it = { .in = t->in.u.dl, .queued_us = start,
                                  .queued_wall_us = clock_wall_us(), .measured = measured };
            rc = dlq_push(v, &it) == 0 ? 0 : err_set(&e, E_FAIL, "delivery queue closed");
            end = clock_us();
            if (rc == 0) {
                /* Deliveries are counted when queued; districts by the workers. */
                hist_record(&v->st.tx[TX_DELIVERY].lat, end - t->intended_us);
                hist_record(&v->st.tx[TX_DELIVERY].svc, end - start);
                v->st.tx[TX_DELIVERY].committed++;
            }
        } else {
            int retries = 0;
            /* One attempt: a retry goes back through the scheduler. */
            rc = vu_exec(v, &t->in, &out, 0, &retries, &e);
            end = clock_us();
            if (rc == E_RETRY && t->retries < cfg->run.max_retries &&
                !__atomic_load_n(&sh->stopping, __ATOMIC_RELAXED)) {
                /* Back off in the scheduler, not on this connection. */
                t->retries++;
                v->st.tx[t->in.type].retries++;
                t->due_us = end + retry_backoff_us(v, t->retries);
                sched_put(&sh->sched, t);
                continue;
            }
            vu_record(v, &t->in, &out, rc, t->retries, end - t->intended_us, &e);
            if (rc == 0)
                hist_record(&v->st.tx[t->in.type].svc, end - start);
            if (rc == 0 && t->in.type == TX_STOCK_LEVEL)
                t->n_stock_level++;
        }
        term_done(v, t, end);
        if (rc == E_CONN)
            vu_reconnect(v);
    }
    return NULL;
}

/* Merge the published snapshots of every VU into out; count VUs inside a transaction. */
static void collect(struct vu *vus, int n, struct vu_stats *out, int *in_tx)
{
    stats_init(out);
    *in_tx = 0;
    for (int i = 0; i < n; i++) {
        struct vu *v = &vus[i];
        unsigned ack = __atomic_load_n(&v->ack, __ATOMIC_ACQUIRE);
        if (ack)
            stats_merge(out, &v->snap[ack & 1]);
        *in_tx += __atomic_load_n(&v->in_tx, __ATOMIC_RELAXED);
    }
}

/* The counts at the window's opening, after pause_all(): a VU at the barrier
 * or finished gives its own stats (exact); one that did not reach the
 * barrier in time is still writing them and gives its last published
 * snapshot instead.  Returns the number of those late VUs. */
static int collect_base(struct shared *sh, struct vu *vus, int n, struct vu_stats *out)
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
static void request_snapshots(struct vu *vus, int n)
{
    for (int i = 0; i < n; i++) {
        struct vu *v = &vus[i];
        unsigned req = v->req;
        if (__atomic_load_n(&v->ack, __ATOMIC_ACQUIRE) == req)
            __atomic_store_n(&v->req, req + 1, __ATOMIC_RELEASE);
    }
}

static double cpu_now_s(void)
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
static int monitor_count(struct shared *sh, struct db_conn **mc, int64_t *out, struct err *e)
{
    uint64_t deadline = clock_us() + (uint64_t)sh->cfg->run.max_outage_us, backoff_us = 50000;
    int rc;

    for (;;) {
        if (*mc && (rc = count_new_orders(*mc, out, e)) != E_CONN)
            return rc;
        if (clock_us() >= deadline || sig_stop_requested())
            return *mc ? E_CONN : err_prefix(e, "the monitor's connection is lost");
        db_close(*mc);
        *mc = NULL;
        clock_sleep_us(backoff_us);
        backoff_us = backoff_us * 2 > 1000000 ? 1000000 : backoff_us * 2;
        if (db_connect(sh->o->ops, &sh->d, sh->o->args, mc, e) < 0)
            *mc = NULL;
    }
}

/* The count at the window's close, bounded in time: a server that does not
 * answer (a frozen network) must not hold the run past its end. */
struct count_job {
    struct shared *sh;
    struct db_conn **mc;
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
    rc = count_new_orders(*j->mc, &n, &e);
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
static int monitor_count_bounded(struct shared *sh, struct db_conn **mc, int64_t *out,
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
    j->mc = mc;
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
static int count_down(struct vu *vus, int n, struct vu *workers, int nw, uint64_t now,
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

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Put every VU into the barrier and wait until all are idle, at most wait_us. */
#define OPEN_WAIT_US 30000000 /* the window's opening may wait for the last transactions */
#define CLOSE_WAIT_US 500000 /* its close may not: it closes on time (within 1 s) */
static void pause_all(struct shared *sh, int nvu_running, uint64_t wait_us)
{
    uint64_t deadline = clock_us() + wait_us;

    pthread_mutex_lock(&sh->lock);
    sh->n_paused = 0;
    __atomic_store_n(&sh->phase, PH_PAUSE, __ATOMIC_RELEASE);
    while (sh->n_paused + __atomic_load_n(&sh->n_finished, __ATOMIC_ACQUIRE) < nvu_running &&
           clock_us() < deadline && !sig_stop_requested()) {
        struct timespec ts;
        clock_deadline(&ts, 50000);
        pthread_cond_timedwait(&sh->cond, &sh->lock, &ts);
    }
    pthread_mutex_unlock(&sh->lock);
}

struct monitor {
    struct vu_stats prev, cur, delta;
    int n_cap;
    double in_tx_sum;
    int in_tx_samples;
};

static void series_add(struct run_result *r, struct monitor *m, int second, char phase,
                       int in_tx, int down, double interval_s)
{
    struct series_row *row;
    struct hist all, svc;

    if (r->n_series == m->n_cap) {
        int cap = m->n_cap ? m->n_cap * 2 : 256;
        struct series_row *ns = realloc(r->series, (size_t)cap * sizeof(*ns));
        if (!ns)
            return;
        r->series = ns;
        m->n_cap = cap;
    }
    stats_sub(&m->delta, &m->cur, &m->prev);
    row = &r->series[r->n_series++];
    memset(row, 0, sizeof(*row));
    row->second = second;
    row->phase = phase;
    hist_init(&all);
    hist_init(&svc);
    for (int t = 0; t < TX_NTYPES; t++) {
        row->tps[t] = (double)m->delta.tx[t].committed / interval_s;
        hist_merge(&all, &m->delta.tx[t].lat);
        hist_merge(&svc, &m->delta.tx[t].svc);
    }
    row->all_svc_p99_ms = (double)hist_percentile(&svc, 99) / 1000.0;
    row->lag_p99_ms = (double)hist_percentile(&m->delta.lag, 99) / 1000.0;
    row->no_p50_ms = (double)hist_percentile(&m->delta.tx[TX_NEW_ORDER].lat, 50) / 1000.0;
    row->no_p90_ms = (double)hist_percentile(&m->delta.tx[TX_NEW_ORDER].lat, 90) / 1000.0;
    row->no_p99_ms = (double)hist_percentile(&m->delta.tx[TX_NEW_ORDER].lat, 99) / 1000.0;
    row->all_p99_ms = (double)hist_percentile(&all, 99) / 1000.0;
    row->errors = stats_errors(&m->delta);
    row->vus_in_tx = in_tx;
    row->vus_down = down;
    row->lost = m->delta.lost_connections;
    m->prev = m->cur;
}

static void live_line(const struct run_opts *o, const struct series_row *row, int elapsed_s,
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
        if (pthread_timedjoin_np(vs[i].thread, NULL, &ts) == 0)
            vs[i].joined = 1;
        else
            all = 0;
    }
    return all;
}

/* Join at stop, bounded: in-flight work gets JOIN_GRACE_US to end, then the
 * server is asked to cancel it and JOIN_CANCEL_US more.  0 when every thread
 * ended; -1 when some are still blocked (in a connect, or a server that does
 * not answer): they are left behind, and so is what they use. */
#define JOIN_GRACE_US 3000000
#define JOIN_CANCEL_US 2000000
static int join_bounded(struct vu *vs, int n, int quick)
{
    /* Stopped while connecting: nothing in flight is worth waiting for. */
    if (join_until(vs, n, quick ? JOIN_GRACE_US / 6 : JOIN_GRACE_US))
        return 0;
    for (int i = 0; i < n; i++)
        if (vs[i].started && !vs[i].joined)
            vu_cancel(&vs[i]);
    return join_until(vs, n, quick ? JOIN_CANCEL_US / 4 : JOIN_CANCEL_US) ? 0 : -1;
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
    int nvu = cfg->run.virtual_users, nw = cfg->run.delivery_inline ? 0 : cfg->run.delivery_workers;
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
    int synthetic = 0;      /* the null driver: no tpcc_meta, no counts to compare */
    struct vu_stats *fin = NULL; /* the counts at the window's close */
    int stuck = 0;          /* threads did not stop: leave what they use */

    memset(r, 0, sizeof(*r));
    memset(&ad, 0, sizeof(ad));
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
    /* The monitor's own connection: load facts, RTT probe, New-Order counts. */
    if ((rc = db_connect(o->ops, &sh->d, o->args, &mc, e)) < 0)
        goto out;
    snprintf(r->server_name, sizeof(r->server_name), "%s", mc->server_name);
    snprintf(r->server_version, sizeof(r->server_version), "%s", mc->server_version);
    synthetic = (mc->ops->flags & DB_F_SYNTHETIC) != 0;
    if (synthetic) {
        /* No database (the null driver): the config's warehouses, the load's
         * constants as a load with this seed would draw them, no counts. */
        struct rng lr;
        rng_init_stream(&lr, (uint64_t)cfg->load.seed, 0xC0FFEE, 0, 0);
        nurand_c_load(&lr, &r->c_load);
        r->warehouses = cfg->schema.warehouses;
        snprintf(r->db_count_note, sizeof(r->db_count_note),
                 "driver %s: no database behind it, results are synthetic", mc->ops->name);
    } else {
        if ((rc = db_query(mc, ad.sql[A_META_GET], NULL, 0, e)) < 0) {
            err_prefix(e, "reading tpcc_meta (run 'tpccbench load' first)");
            goto out;
        }
        if (db_next(mc) != 1) {
            rc = err_set(e, E_USAGE, "the database is not loaded (tpcc_meta is empty): "
                                     "run 'tpccbench load' first");
            goto out;
        }
        r->warehouses = (int)db_col_int(mc, 0);
        r->c_load.c_last = (int)db_col_int(mc, 2);
        r->c_load.c_id = (int)db_col_int(mc, 3);
        r->c_load.ol_i_id = (int)db_col_int(mc, 4);
    }
    /* Fails early, with what to do, when procedure mode lacks its functions. */
    if ((rc = txn_prepare(mc, sh->mode, e)) < 0)
        goto out;
    r->seed = cfg->run.seed ? (uint64_t)cfg->run.seed : clock_wall_us();
    rng_init_stream(&seed_rng, r->seed, 0xC0, 0, 0);
    nurand_c_run(&seed_rng, &r->c_load, &r->c_run);
    sh->ctx.warehouses = r->warehouses;
    sh->ctx.c_run = r->c_run;
    if (cfg->schema.warehouses != r->warehouses && o->progress)
        fprintf(o->progress, "note: the database holds %d warehouses; running on those "
                             "(config says %d)\n", r->warehouses, cfg->schema.warehouses);

    /* Terminals, connections (one worker thread each), delivery workers. */
    {
        struct deck d;
        double offered_tps;
        deck_init(&d, cfg->run.mix);
        sh->pace.load = cfg->run.rate > 0 ? TERM_OPEN : cfg->run.think_time ? TERM_THINK
                                                                              : TERM_CLOSED;
        sh->pace.time_scale = cfg->run.time_scale > 0 ? cfg->run.time_scale : 1.0;
        sh->pace.rate_per_s = cfg->run.rate;
        sh->n_terms = cfg->run.terminals ? cfg->run.terminals
                      : sh->pace.load == TERM_THINK ? 10 * r->warehouses
                                                    : cfg->run.virtual_users;
        sh->pace.n_terminals = sh->n_terms;
        offered_tps = sh->pace.load == TERM_OPEN ? cfg->run.rate
                      : sh->pace.load == TERM_THINK
                          ? sh->n_terms / (term_mean_cycle_s(&d) * sh->pace.time_scale)
                          : 0;
        /* Closed loop: one connection per virtual user, as before.  Otherwise a
         * budget of 10 ms per transaction of the offered load, plus 2. */
        nvu = cfg->run.connections ? cfg->run.connections
              : sh->pace.load == TERM_CLOSED ? cfg->run.virtual_users
                                             : (int)ceil(offered_tps * 0.010) + 2;
        if (nvu > sh->n_terms)
            nvu = sh->n_terms;
        if (nvu < 1)
            nvu = 1;
        nw = cfg->run.delivery_inline ? 0
             : cfg->run.delivery_workers ? cfg->run.delivery_workers
                                         : (nvu + 3) / 4;
        r->virtual_users = nvu;
        r->terminals = sh->n_terms;
        r->connections = nvu;
        r->delivery_workers = nw;
        r->load = sh->pace.load;
        r->offered_tps = offered_tps;
        r->time_scale = sh->pace.time_scale;
    }

    /* RTT probe: median of 100 trivial queries. */
    {
        uint64_t s[100];
        for (int i = 0; i < 100; i++) {
            uint64_t t = clock_us();
            if (sig_stop_requested()) {
                rc = err_set(e, E_INTR, "interrupted while connecting");
                goto out;
            }
            if ((rc = db_exec(mc, S_RUN_PING, NULL, 0, e)) < 0)
                goto out;
            s[i] = clock_us() - t;
        }
        qsort(s, 100, sizeof(s[0]), cmp_u64);
        r->rtt_median_us = (double)(s[49] + s[50]) / 2.0;
        if ((rc = db_end_reads(mc, e)) < 0)
            goto out;
    }

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
        if (term_init(&sh->terms[i], i, r->warehouses, r->seed, cfg->run.mix) < 0) {
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
        workers[i].sh = sh;
        workers[i].id = i;
        workers[i].worker = 1;
        stats_init(&workers[i].st);
        pthread_mutex_init(&workers[i].conn_lock, NULL);
    }

    /* Phase: connect. */
    t_connect0 = clock_us();
    for (int i = 0; i < nvu; i++) {
        int prc = pthread_create(&vus[i].thread, NULL, vu_main, &vus[i]);
        if (prc == 0)
            vus[i].started = 1;
        else
            thread_not_started(sh, prc);
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
    /* No ramp-up and no warm-up: the window opens before any VU starts, so
     * not even the first transaction falls outside it. */
    if (cfg->run.rampup_us + cfg->run.warmup_us == 0) {
        if (!synthetic && (rc = monitor_count(sh, &mc, &no_start, e)) < 0) {
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
        int total_s = (int)((cfg->run.rampup_us + cfg->run.warmup_us + cfg->run.duration_us) /
                            1000000);
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
                        fprintf(o->progress, "note: %d virtual users were still in a transaction "
                                             "30 s after the barrier; their counts at the window's "
                                             "opening are from their last snapshot\n", late);
                }
                if (!synthetic && (rc = monitor_count(sh, &mc, &no_start, e)) < 0)
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
                if (o->progress && r->n_series &&
                    (tty || sec % 10 == 0))
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
            rc2 = synthetic ? E_FAIL : monitor_count_bounded(sh, &mc, &no_end, e);
            if (synthetic) {
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
        if (join_bounded(vus, nvu, !sh->go) < 0)
            stuck = 1;
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
                    stats_merge(fin, vus[i].joined ? &vus[i].st
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
            if (!from_barrier && rc == 0 && !aborted && !synthetic) {
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
                clock_sleep_us(10000);
                pthread_mutex_lock(&sh->q.lock);
            }
            r->deliveries_pending = (uint64_t)sh->q.n;
            sh->q.n = 0;
            sh->q.closed = 1;
            pthread_cond_broadcast(&sh->q.not_empty);
            pthread_mutex_unlock(&sh->q.lock);
        }
        if (join_bounded(workers, nw, !sh->go || stuck) < 0)
            stuck = 1;
        stats_init(&r->delivery);
        for (int i = 0; i < nw; i++)
            stats_merge(&r->delivery,
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
        if (o->progress)
            fprintf(o->progress, "warning: some virtual users did not stop within %d s "
                                 "(blocked in the database): left behind\n",
                    (JOIN_GRACE_US + JOIN_CANCEL_US) / 1000000);
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
