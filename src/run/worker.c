/*
 * worker.c - the workers: one thread and one connection each, serving
 * whichever terminal is due (vu_main), and the deferred-delivery workers
 * (worker_main); connecting, reconnecting after a lost connection, the
 * window-edge barrier, the deferred-delivery queue and delivery.log.  See
 * run_int.h for what is shared, and for the states a connection passes
 * through (enum conn_state), which these workers set as they go.
 */
#include "run/run_int.h"
#include "run/driver.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/signals.h"
#include "tpcc/admin.h"
#include "tpcc/deck.h"

int phase_get(struct shared *sh)
{
    return __atomic_load_n(&sh->phase, __ATOMIC_ACQUIRE);
}

void bell_ring(int fd)
{
    uint64_t one = 1;

    /* A full counter (EAGAIN) is rung already. */
    if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
        return;
}

void bells_ring(struct shared *sh)
{
    for (int i = 0; i < sh->n_bells; i++)
        bell_ring(sh->bells[i]);
}

void phase_set(struct shared *sh, int ph)
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
    bells_ring(sh);
}

/* The calling thread's CPU so far into v's stats, when v is its thread's
 * own (a worker of several connections counts it on its first), and never
 * while the monitor may read them (v finished, or at the barrier). */
void vu_cpu_mark(struct vu *v)
{
    struct timespec ts;
    struct rusage ru;

    if (v->lead != v || v->finished || v->at_barrier)
        return;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        v->st.cpu_us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    /* The thread's own context switches: the counters /proc/self/task/N/status shows. */
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        v->st.csw_vol = (uint64_t)ru.ru_nvcsw;
        v->st.csw_invol = (uint64_t)ru.ru_nivcsw;
    }
}

/* Serve a pending snapshot request: copy stats into the buffer the monitor is not reading. */
void vu_publish(struct vu *v)
{
    /* Acquire: the monitor finished reading this buffer before asking again. */
    unsigned req = __atomic_load_n(&v->req, __ATOMIC_ACQUIRE);

    if (req == v->ack)
        return;
    vu_cpu_mark(v);
    /* Each buffer holds zeros or an earlier snapshot of these counts, which
     * only grow (v->st is set up once). */
    stats_copy_grown(&v->snap[req & 1], &v->st);
    __atomic_store_n(&v->ack, req, __ATOMIC_RELEASE);
}

/* Set v's connection (the monitor may be cancelling through the old one). */
void vu_set_conn(struct vu *v, struct db_conn *c)
{
    struct db_conn *old;

    pthread_mutex_lock(&v->conn_lock);
    old = v->c;
    v->c = c;
    pthread_mutex_unlock(&v->conn_lock);
    db_close(old);
}

int64_t backend_of(struct db_conn *c, const char *sql)
{
    struct err e;
    int64_t id = -1;

    if (!c || !sql[0])
        return -1;
    if (db_query(c, sql, NULL, 0, &e) == 0 && db_next(c) == 1 && !db_col_isnull(c, 0))
        id = db_col_int(c, 0);
    db_end_reads(c, &e);
    return id;
}

int conn_open(struct shared *sh, const int *abandon, struct db_conn **out, struct err *e)
{
    struct db_conn *c = NULL;
    struct db_connect_args a = *sh->o->args;
    int rc;

    *out = NULL;
    a.abandon = abandon;
    if ((rc = db_connect(sh->o->ops, &sh->d, &a, &c, e)) < 0)
        return rc;
    /* Without autocommit (ODBC) the SET opened a transaction: end it, so an
     * idle worker holds no server connection of a pooler in transaction mode. */
    if ((rc = db_set_isolation(c, sh->iso_name, sh->iso_stmt, e)) < 0 ||
        (rc = txn_prepare(c, sh->mode, e)) < 0 ||
        (rc = db_end_reads(c, e)) < 0) {
        db_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

int vu_connect(struct vu *v, struct err *e)
{
    struct db_conn *c;
    /* A connect still waiting for the server gives up at the stop. */
    int rc = conn_open(v->sh, &v->sh->stopping, &c, e);

    if (rc == 0)
        vu_set_conn(v, c);
    return rc;
}

/* Monitor: cancel what v is waiting for (a stop that must not wait on it). */
void vu_cancel(struct vu *v)
{
    pthread_mutex_lock(&v->conn_lock);
    db_cancel(v->c);
    pthread_mutex_unlock(&v->conn_lock);
}

static void vu_pause_point(struct vu *v);

uint64_t conn_backoff_us(int k, uint64_t *jitter)
{
    uint64_t backoff_us = k > 5 ? 1000000 : (uint64_t)50000 << (k < 1 ? 0 : k - 1);

    return jitter ? backoff_us / 2 + clock_jitter_us(jitter, backoff_us / 2) : backoff_us;
}

/* v's connection was lost: closed, down from now, CS_BACKOFF (the first
 * reconnect attempt waits for its back-off). */
void vu_lost(struct vu *v, uint64_t now)
{
    if (v->c)
        v->st.lost_connections++;
    vu_set_conn(v, NULL);
    vu_state_set(v, CS_BACKOFF);
    __atomic_store_n(&v->down_since_us, now, __ATOMIC_RELAXED);
}

/* After a lost connection: CS_BACKOFF for the run's back-off
 * (conn_backoff_us), CS_RECONNECTING for an attempt, until one works
 * (CS_IDLE) or the run stops.  A VU waiting here is idle, so it takes part
 * in the window-edge barrier; the monitor aborts the run when one waits
 * longer than run.max_outage.  A usage error (the server refuses us as
 * configured: a password, a database gone) ends the run, as at the start
 * (CS_ABORTED): returns E_USAGE then, else 0. */
static int vu_reconnect(struct vu *v)
{
    int rc = 0, attempt = 0;
    struct shared *sh = v->sh;
    uint64_t t0 = clock_us(), jitter = t0 ^ (uint64_t)(uintptr_t)v;
    struct err e;

    vu_lost(v, t0);
    for (;;) {
        /* Sleep out the back-off, in slices that see a stop or a barrier. */
        uint64_t end = clock_us() + conn_backoff_us(++attempt, &jitter);
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
        vu_state_set(v, CS_RECONNECTING);
        if ((rc = vu_connect(v, &e)) == 0) {
            vu_state_set(v, CS_IDLE);
            v->st.reconnects++;
            break;
        }
        if (rc == E_USAGE) {
            vu_state_set(v, CS_ABORTED);
            vu_fatal(v, &e);
            break;
        }
        rc = 0;
        vu_state_set(v, CS_BACKOFF);
        vu_publish(v);
    }
    v->st.down_us += clock_us() - t0;
    __atomic_store_n(&v->down_since_us, 0, __ATOMIC_RELAXED);
    return rc;
}

/* A usage error in the middle of the run (E_USAGE: the connection cannot
 * work as configured, e.g. prepared statements through a pooler in
 * transaction mode): no transaction would succeed, so the run stops and
 * the command exits 2 with this message.  The worker ends after calling this. */
void vu_fatal(struct vu *v, const struct err *e)
{
    struct shared *sh = v->sh;

    pthread_mutex_lock(&sh->lock);
    if (!sh->fatal)
        sh->fatal_err = *e;
    __atomic_store_n(&sh->fatal, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
    bells_ring(sh);
    bell_ring(sh->main_bell);
}

/* Run one transaction with retries of retryable failures (same input). */
static int vu_exec(struct vu *v, const struct txn_input *in, struct txn_output *out,
                   int max_retries, int *retries, struct err *e)
{
    int rc;

    *retries = 0;
    if (!v->c)
        return err_set(e, E_CONN, "not connected");
    vu_state_set(v, CS_WAITING);
    {
        uint64_t rt0 = v->c->n_roundtrips;
        rc = txn_exec_retry(v->c, v->sh->mode, in, out, max_retries, &v->sh->stopping, retries,
                            e);
        /* Count on the same connection even after a failure (v->c stays). */
        v->st.tx[in->type].roundtrips += v->c->n_roundtrips - rt0;
    }
    vu_state_set(v, CS_IDLE);
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
            if (!out->rolled_back) {
                s->no_total_cents += (uint64_t)out->no_total_cents;
                for (int i = 0; out->no_brand[i]; i++)
                    s->no_brand_b += out->no_brand[i] == 'B';
            }
            break;
        case TX_PAYMENT:
            s->pay_total++;
            s->pay_remote += in->u.pay.c_w_id != in->u.pay.w_id;
            s->pay_by_name += (uint64_t)in->u.pay.by_name;
            break;
        case TX_ORDER_STATUS:
            s->os_total++;
            s->os_by_name += (uint64_t)in->u.os.by_name;
            s->os_lines += (uint64_t)out->os.ol_cnt;
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

/* Append "YYYY-MM-DDTHH:MM:SS.uuuuuu" (local time) of wall_us at p; the
 * seconds' text is kept per thread, made anew only when they change. */
static char *dlog_stamp(char *p, uint64_t wall_us)
{
    static _Thread_local struct {
        int64_t sec;
        char text[32];
        size_t len;
    } last = { -1, "", 0 };
    int64_t sec = (int64_t)(wall_us / 1000000);
    unsigned frac = (unsigned)(wall_us % 1000000);

    if (sec != last.sec) {
        clock_format(last.text, sizeof(last.text), "%Y-%m-%dT%H:%M:%S", sec);
        last.len = strlen(last.text);
        last.sec = sec;
    }
    memcpy(p, last.text, last.len);
    p += last.len;
    *p++ = '.';
    for (int k = 5; k >= 0; k--, frac /= 10)
        p[k] = (char)('0' + frac % 10);
    return p + 6;
}

/* Append s, then v in decimal, at p. */
static char *dlog_put(char *p, const char *s, int64_t v)
{
    size_t n = strlen(s);

    memcpy(p, s, n);
    p += n;
    return p + db_format_scaled(p, 24, v, 0);
}

/* One line of delivery.log, by hand (a Delivery's line was a dozen
 * snprintf and two localtime_r): "queued=TIME w_id=W carrier=C
 * delivered=1:O,...,10:O skipped=N completed=TIME". */
static void dlog_write(struct shared *sh, const struct dl_item *it, const struct txn_output *out,
                       uint64_t done_wall_us)
{
    char line[512], *p = line;

    if (!sh->dlog)
        return;
    p = dlog_stamp(p + 7, it->queued_wall_us);
    memcpy(line, "queued=", 7);
    p = dlog_put(p, " w_id=", it->in.w_id);
    p = dlog_put(p, " carrier=", it->in.carrier_id);
    for (int d = 0; d < 10; d++) {
        p = dlog_put(p, d ? "," : " delivered=", d + 1);
        p = dlog_put(p, ":", out->delivered[d]);
    }
    p = dlog_put(p, " skipped=", out->n_skipped);
    memcpy(p, " completed=", 11);
    p = dlog_stamp(p + 11, done_wall_us);
    *p++ = '\n';
    pthread_mutex_lock(&sh->dlog_lock);
    fwrite(line, 1, (size_t)(p - line), sh->dlog);
    pthread_mutex_unlock(&sh->dlog_lock);
}

/* A deferred Delivery of the queue ran on w: its completion into w's stats
 * (the measured ones: latency from its queueing) and delivery.log. */
static void dl_record(struct vu *w, const struct dl_item *it, int rc, int retries,
                      const struct txn_output *out, const struct err *e)
{
    struct txn_input in = { .type = TX_DELIVERY };

    in.u.dl = it->in;
    if (it->measured)
        vu_record(w, &in, out, rc, retries, clock_us() - it->queued_us, e);
    if (rc == 0)
        dlog_write(w->sh, it, out, clock_wall_us());
}

void dl_settle(struct vu *w, const struct dl_item *it, int rc, int retries, uint64_t rt,
               const struct txn_output *out, const struct err *e)
{
    /* Its round trips, of the measured ones only (as worker_main counts). */
    if (it->measured)
        w->st.tx[TX_DELIVERY].roundtrips += rt;
    dl_record(w, it, rc, retries, out, e);
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
    __atomic_store_n(&q->n, q->n + 1, __ATOMIC_RELAXED);
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
    __atomic_store_n(&q->n, q->n - 1, __ATOMIC_RELAXED);
    pthread_cond_signal(&q->not_full);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

/* Group mode: queue it if there is room, never waiting (the group threads
 * are the queue's consumers).  0 queued, 1 full, -1 closed. */
static int dlq_try_push(struct shared *sh, const struct dl_item *it)
{
    struct dlq *q = &sh->q;
    int rc = 0;

    pthread_mutex_lock(&q->lock);
    if (q->closed) {
        rc = -1;
    } else if (q->n == q->cap) {
        rc = 1;
    } else {
        q->ring[(q->head + q->n) % q->cap] = *it;
        __atomic_store_n(&q->n, q->n + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

int dlq_take(struct shared *sh, struct dl_item *it)
{
    struct dlq *q = &sh->q;
    int got = 0;

    /* Most looks find it empty: no lock for those. */
    if (__atomic_load_n(&q->n, __ATOMIC_RELAXED) == 0)
        return -1;
    pthread_mutex_lock(&q->lock);
    if (q->n > 0 && !q->closed) {
        *it = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        __atomic_store_n(&q->n, q->n - 1, __ATOMIC_RELAXED);
        got = 1;
    }
    pthread_mutex_unlock(&q->lock);
    return got ? 0 : -1;
}

int dlq_waiting(struct shared *sh)
{
    return __atomic_load_n(&sh->q.n, __ATOMIC_RELAXED) > 0 &&
           !__atomic_load_n(&sh->q.closed, __ATOMIC_RELAXED);
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
void thread_not_started(struct shared *sh, int rc)
{
    char eb[128];

    pthread_mutex_lock(&sh->lock);
    sh->n_ready++;
    sh->n_failed++;
    if (sh->conn_err.code == E_OK)
        err_set(&sh->conn_err, E_FAIL, "cannot start a thread: %s", err_errno(rc, eb, sizeof(eb)));
    pthread_mutex_unlock(&sh->lock);
}

void *worker_main(void *arg)
{
    struct vu *v = arg;
    struct shared *sh = v->sh;
    struct dl_item it;
    struct txn_input in;
    struct txn_output out;
    struct err e;

    int connected;

    err_clear(&e);
    connected = vu_connect(v, &e) == 0;
    if (connected)
        vu_state_set(v, CS_IDLE);
    v->backend = connected ? backend_of(v->c, sh->backend_sql) : -1;
    if (vu_wait_go(v, connected) < 0)
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
            if (rc == E_USAGE) {
                vu_fatal(v, &e);
                break;
            }
            if (!it.measured)
                v->st.tx[TX_DELIVERY].roundtrips = rt;
        }
        dl_record(v, &it, rc, retries, &out, &e);
        if (rc == E_CONN && vu_reconnect(v) == E_USAGE)
            break;
    }
    return NULL;
}

/* The window-edge barrier: wait here, idle, while the monitor reads the
 * counts (v->st: the monitor sees at_barrier under the lock, and the VU
 * leaves only once the phase has changed). */
static void vu_pause_point(struct vu *v)
{
    struct shared *sh = v->sh;

    vu_cpu_mark(v);
    pthread_mutex_lock(&sh->lock);
    sh->n_paused++;
    v->at_barrier = 1;
    pthread_cond_broadcast(&sh->cond);
    while (phase_get(sh) == PH_PAUSE)
        pthread_cond_wait(&sh->cond, &sh->lock);
    v->at_barrier = 0;
    pthread_mutex_unlock(&sh->lock);
}

/* A terminal's transaction ended at end_us: deal its next one and put it
 * back, or retire it after its run.transactions. */
static void term_done(struct vu *v, struct terminal *t, uint64_t end_us)
{
    struct shared *sh = v->sh;

    t->n_done++;
    if (sh->cfg->run.transactions && t->n_done >= sh->cfg->run.transactions) {
        /* The last one: the threads that sleep see that they are done. */
        if (__atomic_add_fetch(&sh->n_retired, 1, __ATOMIC_RELEASE) == sh->n_terms)
            bells_ring(sh);
        return;
    }
    term_next(t, &sh->pace, end_us);
    sched_put(&sh->sched, t);
}

/* A terminal taken at now: its schedule lag (once per input) and its input. */
void term_start(struct vu *v, struct terminal *t, uint64_t now)
{
    struct shared *sh = v->sh;

    if (t->retries == 0 && !t->again) {
        uint64_t lag = now > t->due_us ? now - t->due_us : 0;
        hist_record(&v->st.lag, lag);
        /* Waited for a connection longer than the think + keying it was given. */
        if (sh->pace.load == TERM_THINK && t->gap_us && lag > t->gap_us)
            v->st.waits_over_think++;
    }
    t->again = 0;
    if (!t->has_input) {
        txn_gen(&t->rng, &sh->ctx, t->type, t->w_id, t->d_id, &t->in);
        t->has_input = 1;
    }
}

/* 1 when t's transaction is a deferred Delivery (queued, not run here). */
int term_deferred(const struct vu *v, const struct terminal *t)
{
    return t->in.type == TX_DELIVERY && !v->sh->cfg->run.delivery_inline;
}

/* Group mode: the queue was full, so t waits in the scheduler (not on the
 * thread, which serves the queue's consumers) and tries again a little
 * later; the wait is counted once per Delivery, as dlq_push counts its own. */
static void term_defer_later(struct vu *v, struct terminal *t, uint64_t now)
{
    if (!t->dl_full_since_us) {
        t->dl_full_since_us = now;
        v->st.dl_queue_full++;
    }
    t->again = 1;
    t->due_us = now + DL_FULL_AGAIN_US;
    sched_put(&v->sh->sched, t);
}

/* Queue t's deferred Delivery: its response time ends when it is queued. */
int term_defer(struct vu *v, struct terminal *t, int measured, struct err *e)
{
    uint64_t start = clock_us(), end;
    struct dl_item it = { .in = t->in.u.dl, .queued_us = start, .queued_wall_us = clock_wall_us(),
                          .measured = measured };
    int rc;

    if (v->sh->dl_group) {
        int q = dlq_try_push(v->sh, &it);
        if (q == 1) {
            term_defer_later(v, t, start);
            return 1;
        }
        rc = q == 0 ? 0 : err_set(e, E_FAIL, "delivery queue closed");
    } else {
        /* A worker of one connection waits here while the queue is full. */
        vu_state_set(v, CS_DELIVERY);
        rc = dlq_push(v, &it) == 0 ? 0 : err_set(e, E_FAIL, "delivery queue closed");
        vu_state_set(v, CS_IDLE);
    }
    end = clock_us();
    if (t->dl_full_since_us) {
        /* It waited for room since then (group mode). */
        v->st.dl_queue_wait_us += end - t->dl_full_since_us;
        start = t->dl_full_since_us;
        t->dl_full_since_us = 0;
    }
    if (rc == 0) {
        /* Deliveries are counted when queued; districts by the workers. */
        hist_record(&v->st.tx[TX_DELIVERY].lat, end - t->intended_us);
        hist_record(&v->st.tx[TX_DELIVERY].svc, end - start);
        v->st.tx[TX_DELIVERY].committed++;
    }
    term_done(v, t, end);
    return rc;
}

/* t's transaction ran once (sent at start, ended at end) with rc: back off
 * a retryable failure in the scheduler, or record it and move on. */
void term_result(struct vu *v, struct terminal *t, int rc, const struct txn_output *out,
                 uint64_t start, uint64_t end, const struct err *e)
{
    struct shared *sh = v->sh;

    if (txn_retry_again(rc, t->retries, sh->cfg->run.max_retries, &sh->stopping)) {
        /* Back off in the scheduler, not on this connection (CS_IDLE). */
        t->retries++;
        v->st.tx[t->in.type].retries++;
        t->due_us = end + txn_retry_backoff_us(&v->jitter, t->retries);
        sched_put(&sh->sched, t);
        return;
    }
    vu_record(v, &t->in, out, rc, t->retries, end - t->intended_us, e);
    if (rc == 0)
        hist_record(&v->st.tx[t->in.type].svc, end - start);
    if (rc == 0 && t->in.type == TX_STOCK_LEVEL)
        t->n_stock_level++;
    term_done(v, t, end);
}

/*
 * More due terminals for t's round trip (run.batch > 1): while no other
 * worker waits for work, take those already due, up to the batch; a
 * deferred Delivery among them is queued at once.  Returns how many
 * terminals bt[] holds (t first).
 */
static int batch_fill(struct vu *v, struct terminal **bt, int measured, struct err *e)
{
    struct shared *sh = v->sh;
    int n = 1, max = sh->cfg->run.batch;
    struct terminal *t;

    uint64_t now;

    while (n < max && (t = sched_take_due(&sh->sched, now = clock_us())) != NULL) {
        term_start(v, t, now);
        if (term_deferred(v, t))
            term_defer(v, t, measured, e);
        else
            bt[n++] = t;
    }
    return n;
}

/* Run the n terminals' transactions in one round trip and settle each. */
static int batch_run(struct vu *v, struct terminal **bt, int n)
{
    struct txn_batch_item b[TXN_BATCH_MAX];
    struct txn_output outs[TXN_BATCH_MAX];
    uint64_t start = clock_us(), end;
    int rc;

    for (int i = 0; i < n; i++) {
        b[i].in = &bt[i]->in;
        b[i].out = &outs[i];
    }
    vu_state_set(v, CS_WAITING);
    rc = txn_exec_batch(v->c, b, n);
    vu_state_set(v, CS_IDLE);
    end = clock_us();
    return batch_settle_terms(v, bt, b, outs, n, start, end, rc);
}

int batch_settle_terms(struct vu *v, struct terminal **bt, const struct txn_batch_item *b,
                       const struct txn_output *outs, int n, uint64_t start, uint64_t end, int rc)
{
    /* One round trip carried them (a ROLLBACK after a failure is not the batch's). */
    v->st.batches++;
    v->st.batched_tx += (uint64_t)n;
    for (int i = 0; i < n; i++) {
        struct terminal *t = bt[i];
        /* Each took part in the round trip (run.terminals.pipelining says how many shared it). */
        v->st.tx[t->in.type].roundtrips++;
        if (b[i].rc == TXN_SKIPPED) {
            /* It never ran: it goes again as it is, now. */
            v->st.batch_skipped++;
            t->again = 1;
            t->due_us = end;
            sched_put(&v->sh->sched, t);
            continue;
        }
        if (b[i].rc == E_USAGE) {
            vu_fatal(v, &b[i].e);
            rc = E_USAGE;
        }
        term_result(v, t, b[i].rc, &outs[i], start, end, &b[i].e);
    }
    return rc;
}

/*
 * A worker: one connection, serving whichever terminal is due.  Each pass
 * takes the terminal due first from the scheduler (the lag: how late), runs
 * its transaction once, records response time (from the terminal's
 * intended submit time) and service time (from the send), and puts the
 * terminal back with its next time.  With run.batch > 1 it first adds other
 * due terminals while no worker is idle, and sends their transactions in
 * one round trip (txn_exec_batch).  A retryable failure puts the terminal
 * back with the time of its retry (same input) and the worker serves
 * others meanwhile; a lost connection loses that transaction, the terminal
 * moves on, and only this worker reconnects.  Its connection's states:
 * CS_CONNECTING, then CS_IDLE between transactions, CS_WAITING during one,
 * CS_DELIVERY while queuing a deferred Delivery, CS_BACKOFF and
 * CS_RECONNECTING while down (vu_reconnect).
 */
void *vu_main(void *arg)
{
    struct vu *v = arg;
    struct shared *sh = v->sh;
    struct txn_output out;
    struct err e;
    uint64_t t0 = clock_us();
    int connected, batch;

    err_clear(&e);
    v->jitter = t0 ^ ((uint64_t)(uintptr_t)v << 16) ^ (uint64_t)v->id;
    connected = vu_connect(v, &e) == 0;
    if (connected)
        vu_state_set(v, CS_IDLE);
    v->connect_us = clock_us() - t0;
    /* One query at connect, not on the transaction path: see backends_shared(). */
    v->backend = connected ? backend_of(v->c, sh->backend_sql) : -1;
    if (!connected) {
        pthread_mutex_lock(&sh->lock);
        if (sh->conn_err.code == E_OK)
            sh->conn_err = e;
        pthread_mutex_unlock(&sh->lock);
    }
    if (vu_wait_go(v, connected) < 0)
        return NULL;
    /* driver.c refused run.batch where batches cannot run. */
    batch = sh->cfg->run.batch > 1;
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
                vu_cpu_mark(v);
                vu_publish(v);
                pthread_mutex_lock(&sh->lock);
                v->finished = 1;
                __atomic_add_fetch(&sh->n_finished, 1, __ATOMIC_RELEASE);
                pthread_cond_broadcast(&sh->cond);
                pthread_mutex_unlock(&sh->lock);
                bell_ring(sh->main_bell);
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
        term_start(v, t, now);
        if (term_deferred(v, t)) {
            term_defer(v, t, measured, &e);
            continue;
        }
        if (batch && v->c) {
            struct terminal *bt[TXN_BATCH_MAX];
            int n;
            bt[0] = t;
            n = batch_fill(v, bt, measured, &e);
            rc = batch_run(v, bt, n);
            if (rc == E_USAGE)
                break;
        } else {
            int retries = 0;
            memset(&out, 0, sizeof(out));
            start = clock_us();
            /* One attempt: a retry goes back through the scheduler. */
            rc = vu_exec(v, &t->in, &out, 0, &retries, &e);
            end = clock_us();
            if (rc == E_USAGE) {
                vu_fatal(v, &e);
                break;
            }
            term_result(v, t, rc, &out, start, end, &e);
        }
        if (rc == E_CONN && vu_reconnect(v) == E_USAGE)
            break;
    }
    vu_cpu_mark(v);
    return NULL;
}

/* Merge the published snapshots of every VU into out; count VUs inside a transaction. */
