/*
 * group.c - a worker thread that owns several connections (run.workers
 * fewer than run.connections; procedure mode on a driver with pipelines).
 *
 * Each connection carries at most one round trip at a time: the
 * transactions of one or more terminals (run.batch), each its own
 * transaction, sent as one pipeline (txn_batch_send) and read back, without
 * waiting, when its socket is readable (txn_batch_recv).  The thread keeps
 * every connection busy while terminals are due: it takes them from the
 * scheduler without waiting, all that is due in one hold of its lock
 * (sched_take_many), and sleeps in one ppoll() on its busy connections, the
 * scheduler's bell (rung when a terminal put back is due first) and its own
 * bell (lead->bell: rung on a phase change, a snapshot request, a reconnect
 * attempt's end, the last terminal's retirement) until a result comes, the
 * next terminal is due, a bell rings, or its tick passed (100 ms; 20 ms
 * over TLS).  It wakes for work, not for a clock: at 8 connections on 2
 * threads a 20 ms tick had doubled the wakes per transaction at 600 TPS.
 * Each connection's state (v->state, enum conn_state in run_int.h) says
 * what it does: idle, sending (terminals taken), waiting for its round
 * trip, holding Deliveries for their retry, down.  A lost connection is
 * reconnected with the run's back-off (conn_backoff_us, as worker.c's);
 * each attempt runs on a thread
 * of its own (a connect may wait up to the driver's timeout on a server
 * that does not answer), so the other connections keep working meanwhile
 * and the thread takes the new connection once it is there.  Each connection
 * keeps its struct vu: stats, snapshots, barrier and down time are per
 * connection, exactly as for a worker of one.
 *
 * Deferred Deliveries (sh->dl_group): the delivery workers' connections are
 * shared out over the group threads (lead->dl_vus), and no delivery worker
 * thread is started.  A terminal queues its Delivery as a worker of one
 * does (its response time ends there) but never waits for room: a full
 * queue puts it back in the scheduler a little later (the threads that
 * would wait are the queue's consumers).  A thread's free delivery
 * connection takes the oldest queued Deliveries, up to run.batch
 * (dlq_take, without waiting), whenever the thread wakes, and sends them as
 * one round trip of their own, each its own transaction as in a terminal
 * batch; the terminals' connections never carry one, so a closed loop's
 * terminals keep every one of theirs.  A retryable failure waits on its
 * connection for the back-off and goes again (txn_retry_again,
 * txn_retry_backoff_us: the run's one retry decision and back-off); the
 * completion (from its queueing) goes into that connection's stats as a
 * delivery worker's would, and into delivery.log.  The delivery connections take no
 * part in the window-edge barrier (their stats are read once joined).  At
 * the stop, and once every terminal is done, the thread keeps taking from
 * the queue until it is empty or closed (the drain), while a delivery
 * connection of its own is up.
 */
#include "run/run_int.h"

#include <errno.h>
#include <poll.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

/* Longest sleep.  What the run needs a thread awake for rings its bell (a
 * phase change, a snapshot request, a reconnect ended, the last terminal
 * retired); the tick is a bound on what does not: a Delivery another thread
 * queued for this one's free delivery connection.  Over TLS it is shorter:
 * data the TLS layer holds back leaves the socket quiet. */
#define GROUP_TICK_US 100000
#define GROUP_TICK_TLS_US 20000
#define GROUP_SLOTS_MAX (2 * RUN_GROUP_MAX) /* its connections and its delivery connections */

/* What group_wait waits for besides the round trips in flight. */
#define GW_TERMS 1 /* the next terminal due, a terminal connection's next reconnect */
#define GW_DLS 2   /* a Delivery's retry, a delivery connection's next reconnect */

/* One connection of the group and its round trip in flight.  Its state is
 * its struct vu's (v->state, enum conn_state), which the thread sets and
 * decides by; the fields below are each state's data. */
struct gslot {
    struct vu *v;
    int n;                /* CS_SENDING, CS_WAITING: terminals in bt[] */
    uint64_t start;       /* CS_WAITING: when it was sent */
    uint64_t retry_at_us; /* CS_BACKOFF: next reconnect attempt */
    int attempt;          /* CS_BACKOFF, CS_RECONNECTING: that attempt's number, from 1 */
    int cdone;            /* CS_RECONNECTING: set (release) by cth when its attempt ended
                           * (cth never sets the state: the thread does, once joined) */
    int abandon;          /* set (release) to make cth give up waiting */
    int crc;              /* cth's result, its connection and error */
    struct db_conn *cnew;
    struct err cerr;
    pthread_t cth;
    struct terminal *bt[TXN_BATCH_MAX];
    struct txn_batch_item b[TXN_BATCH_MAX];
    struct txn_output outs[TXN_BATCH_MAX];
    struct txn_batch_state bs;
    int dl;               /* 1: a delivery worker's connection (sh->dl_group), no terminals */
    uint64_t dl_at_us;    /* CS_RETRY: when dli[] go again */
    int dl_n;             /* CS_RETRY, CS_WAITING: Deliveries held, dli[0 .. dl_n - 1] */
    uint64_t dl_rt0;      /* c's round trips when sent */
    struct dl_item dli[TXN_BATCH_MAX];      /* each as queued */
    struct txn_input dl_in[TXN_BATCH_MAX];  /* ... as a transaction's input */
    int dl_retries[TXN_BATCH_MAX];          /* its retries so far */
    uint64_t dl_rt[TXN_BATCH_MAX];          /* its round trips so far */
};

/* s's connection was lost: closed, its first reconnect attempt scheduled. */
static void slot_lost(struct gslot *s)
{
    uint64_t now = clock_us();

    vu_lost(s->v, now);
    s->attempt = 1;
    s->retry_at_us = now + conn_backoff_us(s->attempt, &s->v->jitter);
}

/* The round trip of s ended with rc: settle its terminals. */
static void slot_settle(struct gslot *s, int rc)
{
    struct vu *v = s->v;

    vu_state_set(v, CS_IDLE);
    rc = batch_settle_terms(v, s->bt, s->b, s->outs, s->n, s->start, clock_us(), rc);
    s->n = 0;
    if (rc == E_CONN)
        slot_lost(s);
}

/* s's Deliveries ended with their round trip's rc: each retryable failure
 * (or one that never ran) stays on s for its back-off, the others are
 * completions; a usage error ends the run (not recorded, as worker_main). */
static void dl_done(struct gslot *s, int rc)
{
    struct vu *v = s->v;
    struct shared *sh = v->sh;
    uint64_t rt = v->c->n_roundtrips - s->dl_rt0, wait_us = 0;
    int keep = 0;

    for (int i = 0; i < s->dl_n; i++) {
        int r = s->b[i].rc;
        s->dl_rt[i] += rt;
        if (rc != E_CONN && (r == TXN_SKIPPED || txn_retry_again(r, s->dl_retries[i],
                                                                 sh->cfg->run.max_retries,
                                                                 &sh->stopping))) {
            /* Kept (moved down: keep <= i, and b[], outs[] are not moved). */
            s->dl_retries[i] += r == E_RETRY;
            if (r == E_RETRY) {
                uint64_t w = txn_retry_backoff_us(&v->jitter, s->dl_retries[i]);
                wait_us = w > wait_us ? w : wait_us;
            }
            s->dli[keep] = s->dli[i];
            s->dl_in[keep] = s->dl_in[i];
            s->dl_retries[keep] = s->dl_retries[i];
            s->dl_rt[keep] = s->dl_rt[i];
            keep++;
        } else if (r == E_USAGE) {
            vu_fatal(v, &s->b[i].e);
        } else {
            dl_settle(v, &s->dli[i], r, s->dl_retries[i], s->dl_rt[i], &s->outs[i], &s->b[i].e);
        }
    }
    s->dl_n = keep;
    vu_state_set(v, keep ? CS_RETRY : CS_IDLE);
    s->dl_at_us = clock_us() + wait_us;
    if (rc == E_CONN)
        slot_lost(s);
}

/* Send s's Deliveries (just taken, or due for their retry) as one round trip. */
static void dl_send(struct gslot *s)
{
    int rc = 0, m = 0;

    for (int i = 0; i < s->dl_n; i++) {
        s->b[i].in = &s->dl_in[i];
        s->b[i].out = &s->outs[i];
        /* The round trips of measured ones, as dl_settle counts them. */
        s->v->st.batched_tx += s->dli[i].measured;
        m += s->dli[i].measured;
    }
    s->v->st.batches += m > 0;
    s->dl_rt0 = s->v->c->n_roundtrips;
    vu_state_set(s->v, CS_WAITING);
    s->start = clock_us();
    if (txn_batch_send(s->v->c, s->b, s->dl_n, &s->bs, &rc))
        dl_done(s, rc); /* nothing went out */
}

/* Fill s up to run.batch Deliveries with the oldest ones queued (take). */
static void dl_fill(struct shared *sh, struct gslot *s, int take)
{
    while (take && s->dl_n < sh->cfg->run.batch && dlq_take(sh, &s->dli[s->dl_n]) == 0) {
        int i = s->dl_n++;
        s->dl_retries[i] = 0;
        s->dl_rt[i] = 0;
        s->dl_in[i].type = TX_DELIVERY;
        s->dl_in[i].u.dl = s->dli[i].in;
    }
}

/* On each of the m free delivery connections: its Deliveries once due for
 * their retry, else (take) the oldest ones queued, up to run.batch in one
 * round trip (each its own transaction, as a terminal batch's are). */
static void dl_dispatch(struct shared *sh, struct gslot *dl, int m, int take)
{
    uint64_t now = clock_us();

    for (int i = 0; i < m; i++) {
        struct gslot *s = &dl[i];
        enum conn_state st = vu_state(s->v);
        /* Free, or its Deliveries due again (not in flight, not down). */
        if (st != CS_IDLE && (st != CS_RETRY || now < s->dl_at_us))
            continue;
        dl_fill(sh, s, take);
        if (s->dl_n)
            dl_send(s);
    }
}

/* Send the terminals gathered in s as one round trip. */
static void slot_send(struct gslot *s)
{
    int rc = 0;

    for (int i = 0; i < s->n; i++) {
        s->b[i].in = &s->bt[i]->in;
        s->b[i].out = &s->outs[i];
    }
    vu_state_set(s->v, CS_WAITING);
    s->start = clock_us();
    if (txn_batch_send(s->v->c, s->b, s->n, &s->bs, &rc))
        slot_settle(s, rc); /* nothing went out */
}

/* Read what arrived for s; settle it once complete. */
static void slot_recv(struct gslot *s)
{
    int rc = 0;

    if (!txn_batch_recv(s->v->c, s->b, s->dl ? s->dl_n : s->n, &s->bs, &rc))
        return;
    if (s->dl)
        dl_done(s, rc);
    else
        slot_settle(s, rc);
}

/* A reconnect attempt's thread: touches only s's c* fields (never the
 * state: the group thread sets it once the attempt is joined). */
static void *slot_connector(void *arg)
{
    struct gslot *s = arg;

    s->crc = conn_open(s->v->sh, &s->abandon, &s->cnew, &s->cerr);
    __atomic_store_n(&s->cdone, 1, __ATOMIC_RELEASE);
    bell_ring(s->v->lead->bell);
    return NULL;
}

/* The attempt of s ended (its thread joined): take the connection, or
 * schedule the next attempt.  A usage error (the server refuses us as
 * configured: a password, a database gone) ends the run, as at the start. */
static void slot_connected(struct gslot *s)
{
    struct vu *v = s->v;

    if (s->crc == E_USAGE) {
        vu_state_set(v, CS_ABORTED);
        vu_fatal(v, &s->cerr);
        return;
    }
    if (s->crc == 0) {
        uint64_t since = __atomic_load_n(&v->down_since_us, __ATOMIC_RELAXED);
        vu_set_conn(v, s->cnew);
        vu_state_set(v, CS_IDLE);
        s->cnew = NULL;
        v->st.reconnects++;
        v->st.down_us += clock_us() - since;
        __atomic_store_n(&v->down_since_us, 0, __ATOMIC_RELAXED);
        return;
    }
    vu_state_set(v, CS_BACKOFF);
    s->retry_at_us = clock_us() + conn_backoff_us(++s->attempt, &v->jitter);
}

/* Join s's attempt, if one runs: only when it ended (wait 0), or now, told
 * to give up waiting for the server (wait 1: the run stops or these
 * connections are done; bounded by 100 ms, or by the round trip of a
 * set-up statement in flight).  1 when none runs any more. */
static int slot_join(struct gslot *s, int wait)
{
    if (vu_state(s->v) != CS_RECONNECTING)
        return 1;
    if (!wait && !__atomic_load_n(&s->cdone, __ATOMIC_ACQUIRE))
        return 0;
    if (wait)
        __atomic_store_n(&s->abandon, 1, __ATOMIC_RELEASE);
    pthread_join(s->cth, NULL);
    slot_connected(s);
    return 1;
}

/* A down connection: when its attempt ended (CS_RECONNECTING), take the
 * result; when its back-off ended (CS_BACKOFF), start the next attempt on a
 * thread of its own (on this one when no thread can be had). */
static void slot_reconnect(struct gslot *s, uint64_t now)
{
    if (!slot_join(s, 0) || vu_state(s->v) != CS_BACKOFF || now < s->retry_at_us)
        return;
    s->cdone = 0;
    s->abandon = 0;
    s->cnew = NULL;
    err_clear(&s->cerr);
    vu_state_set(s->v, CS_RECONNECTING);
    if (pthread_create(&s->cth, NULL, slot_connector, s) == 0)
        return;
    slot_connector(s);
    slot_connected(s);
}

/* Put back the terminals gathered in s but not sent (their lag is counted). */
static void slot_unsend(struct shared *sh, struct gslot *s)
{
    if (vu_state(s->v) != CS_SENDING)
        return;
    for (int i = 0; i < s->n; i++) {
        s->bt[i]->again = 1;
        sched_put(&sh->sched, s->bt[i]);
    }
    s->n = 0;
    vu_state_set(s->v, CS_IDLE);
}

/* Start t (taken at now) on s: 1 when it joined s's round trip, 0 when it
 * was a deferred Delivery, queued at once without using the connection. */
static int slot_give(struct gslot *s, struct terminal *t, uint64_t now, int measured)
{
    struct err e;

    term_start(s->v, t, now);
    if (term_deferred(s->v, t)) {
        term_defer(s->v, t, measured, &e);
        return 0;
    }
    s->bt[s->n++] = t;
    vu_state_set(s->v, CS_SENDING);
    return 1;
}

/* Room on the group's free connections: one terminal on each empty one
 * (first), or up to run.batch on each gathering one (fill). */
static int slot_room(const struct gslot *s, int first, int batch)
{
    enum conn_state st = vu_state(s->v);

    if (first)
        return st == CS_IDLE;
    return st == CS_SENDING && s->n < batch ? batch - s->n : 0;
}

/*
 * Hand the terminals due now to the free connections, all of them taken in
 * one hold of the scheduler's lock (again only when a deferred Delivery
 * among them left room): first one to each empty connection (first), then
 * (fill, run.batch > 1) more to each while no other worker waits for work.
 * 1 when the barrier went up meanwhile: what was taken is put back.
 */
static int dispatch_round(struct shared *sh, struct gslot *sl, int k, int first, int measured)
{
    struct terminal *got[RUN_GROUP_MAX * TXN_BATCH_MAX];
    int batch = sh->cfg->run.batch;

    for (;;) {
        int want = 0, n, placed = 0, j = 0;
        uint64_t now;
        for (int i = 0; i < k; i++)
            want += slot_room(&sl[i], first, batch);
        if (want == 0)
            return 0;
        n = sched_take_many(&sh->sched, now = clock_us(), got, want, !first);
        if (first && n > 0 && phase_get(sh) == PH_PAUSE) {
            /* Taken just as the barrier went up: give them back untouched. */
            for (int i = 0; i < n; i++)
                sched_put(&sh->sched, got[i]);
            return 1;
        }
        for (int i = 0; i < n; i++) {
            while (slot_room(&sl[j], first, batch) == 0)
                j++;
            placed += slot_give(&sl[j], got[i], now, measured);
        }
        if (n < want || placed == n)
            return 0; /* nothing more is due, or no room is left */
    }
}

/* Give free connections the terminals due now, and send each one's round trip. */
static void dispatch(struct shared *sh, struct gslot *sl, int k)
{
    int measured = phase_get(sh) == PH_MEASURE;

    if (dispatch_round(sh, sl, k, 1, measured)) {
        /* The barrier: what was gathered but not sent goes back too. */
        for (int j = 0; j < k; j++)
            slot_unsend(sh, &sl[j]);
        return;
    }
    if (sh->cfg->run.batch > 1)
        dispatch_round(sh, sl, k, 0, measured);
    for (int i = 0; i < k; i++)
        if (vu_state(sl[i].v) == CS_SENDING)
            slot_send(&sl[i]);
}

/*
 * Sleep until a busy connection (of the k terminal ones and the n - k
 * delivery ones) has something to read, the first terminal is due (when a
 * terminal connection is free), a down one's back-off ends or a Delivery's
 * retry is due (as want says: GW_TERMS not while pausing or stopping, when
 * no terminal is taken), the thread's bell rings, or its tick passed; then
 * read what arrived.
 */
static void group_wait(struct shared *sh, struct gslot *sl, int k, int n, int want)
{
    struct pollfd pf[GROUP_SLOTS_MAX + 2];
    int idx[GROUP_SLOTS_MAX];
    int np = 0, nf, free_conn = 0, polling = 0, tls = 0, tick, bell = sl[0].v->lead->bell;
    uint64_t now = clock_us(), until = now + GROUP_TICK_US, tick_us;
    struct timespec ts;

    for (int i = 0; i < n; i++) {
        struct vu *v = sl[i].v;
        int w = i < k ? GW_TERMS : GW_DLS;
        if (vu_state(v) == CS_WAITING && db_fd(v->c) < 0) {
            /* No socket (the connection broke): reading says so at once
             * (every transaction not known to have ended is lost). */
            slot_recv(&sl[i]);
        }
        switch (vu_state(v)) {
        case CS_WAITING:
            tls |= v->c->tls;
            pf[np].fd = db_fd(v->c);
            pf[np].events = POLLIN;
            idx[np++] = i;
            break;
        case CS_IDLE:
        case CS_SENDING:
        case CS_RETRY:
            tls |= v->c->tls;
            free_conn |= i < k;
            if ((want & GW_DLS) && vu_state(v) == CS_RETRY && sl[i].dl_at_us < until)
                until = sl[i].dl_at_us > now ? sl[i].dl_at_us : now;
            break;
        case CS_BACKOFF:
            if ((want & w) && sl[i].retry_at_us < until)
                until = sl[i].retry_at_us > now ? sl[i].retry_at_us : now;
            break;
        default:
            /* CS_RECONNECTING: the attempt rings the bell when it ends;
             * CS_ABORTED: never again (CS_CONNECTING and CS_DELIVERY are
             * not a group thread's). */
            break;
        }
    }
    tick_us = tls ? GROUP_TICK_TLS_US : GROUP_TICK_US;
    if (until > now + tick_us)
        until = now + tick_us;
    nf = np;
    if ((want & GW_TERMS) && free_conn) {
        uint64_t due = sched_poll_begin(&sh->sched);
        polling = 1;
        if (due < until)
            until = due > now ? due : now;
        pf[nf].fd = sh->sched.bell;
        pf[nf++].events = POLLIN;
    }
    if (bell >= 0) {
        pf[nf].fd = bell;
        pf[nf++].events = POLLIN;
    }
    for (int j = 0; j < nf; j++)
        pf[j].revents = 0;
    if (until > now) {
        uint64_t us = until - now;
        ts.tv_sec = (time_t)(us / 1000000);
        ts.tv_nsec = (long)(us % 1000000) * 1000;
        if (ppoll(pf, (nfds_t)nf, &ts, NULL) < 0)
            for (int j = 0; j < nf; j++)
                pf[j].revents = 0;
    }
    if (polling)
        sched_poll_end(&sh->sched, pf[np].revents != 0);
    if (bell >= 0 && pf[nf - 1].revents) {
        uint64_t v;
        /* Read empty (what rang is looked at by the caller's loop). */
        if (read(bell, &v, sizeof(v)) < 0)
            v = 0;
    }
    tick = clock_us() >= now + tick_us;
    /* A readable socket has news; on a tick every busy one is looked at
     * too, so data a TLS layer holds back (its socket quiet) waits at most
     * GROUP_TICK_TLS_US. */
    for (int j = 0; j < np; j++)
        if (pf[j].revents || tick)
            slot_recv(&sl[idx[j]]);
}

/* The window-edge barrier, connection by connection: each one with nothing
 * in flight is at the barrier (its stats at rest for the monitor) while the
 * others finish theirs.  Returns 1 when every one is, and no Delivery is in
 * flight on the n - k delivery connections (read meanwhile, none sent): it
 * waited for the phase to change. */
static int group_barrier(struct shared *sh, struct gslot *sl, int k, int n)
{
    int marked = 0, all = 1;

    for (int i = k; i < n; i++)
        all = all && vu_state(sl[i].v) != CS_WAITING;
    pthread_mutex_lock(&sh->lock);
    for (int i = 0; i < k; i++) {
        if (vu_state(sl[i].v) == CS_WAITING) {
            all = 0;
        } else if (!sl[i].v->at_barrier) {
            vu_cpu_mark(sl[i].v);
            sl[i].v->at_barrier = 1;
            sh->n_paused++;
            marked = 1;
        }
    }
    if (marked)
        pthread_cond_broadcast(&sh->cond);
    if (all)
        while (phase_get(sh) == PH_PAUSE)
            pthread_cond_wait(&sh->cond, &sh->lock);
    pthread_mutex_unlock(&sh->lock);
    return all;
}

/* Out of the barrier (the phase changed). */
static void group_unbarrier(struct shared *sh, struct gslot *sl, int k)
{
    pthread_mutex_lock(&sh->lock);
    for (int i = 0; i < k; i++)
        sl[i].v->at_barrier = 0;
    pthread_mutex_unlock(&sh->lock);
}

/* Connect every connection of the group (its n slots), then wait for the
 * start as each worker of one does; 0 = go, -1 = abandon. */
static int group_start(struct shared *sh, struct gslot *sl, int n)
{
    int failed = 0, go;

    for (int i = 0; i < n; i++) {
        struct vu *v = sl[i].v;
        uint64_t t0 = clock_us();
        struct err e;
        err_clear(&e);
        v->jitter = t0 ^ ((uint64_t)(uintptr_t)v << 16) ^ (uint64_t)v->id;
        if (vu_connect(v, &e) == 0) {
            vu_state_set(v, CS_IDLE);
            v->backend = backend_of(v->c, sh->backend_sql);
        } else {
            v->backend = -1;
            failed++;
            pthread_mutex_lock(&sh->lock);
            if (sh->conn_err.code == E_OK)
                sh->conn_err = e;
            pthread_mutex_unlock(&sh->lock);
        }
        v->connect_us = clock_us() - t0;
    }
    pthread_mutex_lock(&sh->lock);
    sh->n_ready += n;
    sh->n_failed += failed;
    pthread_cond_broadcast(&sh->cond);
    while (!sh->go && phase_get(sh) != PH_STOP)
        pthread_cond_wait(&sh->cond, &sh->lock);
    go = sh->go && !failed;
    pthread_mutex_unlock(&sh->lock);
    return go ? 0 : -1;
}

/* Join every reconnect attempt of the n slots (told to give up); a
 * connection still down has its outage so far counted. */
static void group_end_down(struct gslot *sl, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t since;
        slot_join(&sl[i], 1);
        since = __atomic_load_n(&sl[i].v->down_since_us, __ATOMIC_RELAXED);
        if (vu_down(sl[i].v) && since) {
            sl[i].v->st.down_us += clock_us() - since;
            __atomic_store_n(&sl[i].v->down_since_us, 0, __ATOMIC_RELAXED);
        }
    }
}

/* Every terminal ran its run.transactions: the k terminal connections are
 * done (their stats final; the thread may still serve the queued Deliveries). */
static void group_finish(struct shared *sh, struct gslot *sl, struct vu *lead, int k)
{
    group_end_down(sl, k);
    vu_cpu_mark(lead);
    pthread_mutex_lock(&sh->lock);
    for (int i = 0; i < k; i++) {
        vu_publish(&lead[i]);
        lead[i].finished = 1;
    }
    __atomic_add_fetch(&sh->n_finished, k, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
    bell_ring(sh->main_bell);
}

/* The k connections lead[0 .. k - 1], then its m delivery connections. */
static struct gslot *group_slots(struct vu *lead, int k, int m)
{
    struct gslot *sl = calloc((size_t)(k + m), sizeof(*sl));

    for (int i = 0; sl && i < k + m; i++) {
        sl[i].v = i < k ? &lead[i] : &lead->dl_vus[i - k];
        sl[i].dl = i >= k;
    }
    return sl;
}

void *group_main(void *arg)
{
    struct vu *lead = arg;
    struct shared *sh = lead->sh;
    int k = lead->n_group, m = lead->n_dl, n = k + m, barrier = 0, done = 0;
    struct gslot *sl = group_slots(lead, k, m), *dl = sl ? sl + k : NULL;

    if (!sl) {
        for (int i = 0; i < n; i++)
            thread_not_started(sh, ENOMEM);
        return NULL;
    }
    if (m)
        __atomic_add_fetch(&sh->dl_consumers, 1, __ATOMIC_ACQ_REL);
    if (sh->timer_slack_ns > 50000) /* the thread's ppoll() may wake that much later */
        prctl(PR_SET_TIMERSLACK, (unsigned long)sh->timer_slack_ns, 0UL, 0UL, 0UL);
    if (group_start(sh, sl, n) < 0)
        goto out;
    for (;;) {
        int ph = phase_get(sh), busy = 0, dls = 0, dl_up = 0;
        int fatal = __atomic_load_n(&sh->fatal, __ATOMIC_ACQUIRE);
        for (int i = 0; i < k; i++) {
            vu_publish(&lead[i]);
            busy += vu_state(sl[i].v) == CS_WAITING;
        }
        for (int i = 0; i < m; i++) {
            enum conn_state st = vu_state(dl[i].v);
            dls += st == CS_WAITING || (!fatal && st == CS_RETRY);
            dl_up += !vu_down(dl[i].v);
        }
        if (!fatal)
            for (int i = 0; i < m; i++)
                slot_reconnect(&dl[i], clock_us());
        if (done || ph == PH_STOP || fatal) {
            /* No terminal is taken: what is in flight ends (or is cancelled
             * by the monitor's join), and meanwhile the queued Deliveries
             * are served (the drain) while a delivery connection is up,
             * until the queue is empty or closed. */
            if (!busy && !dls && (fatal || !dl_up || !dlq_waiting(sh)))
                break;
            dl_dispatch(sh, dl, m, !fatal);
            group_wait(sh, sl, k, n, GW_DLS);
            continue;
        }
        if (ph == PH_PAUSE) {
            barrier = 1;
            if (!group_barrier(sh, sl, k, n))
                group_wait(sh, sl, k, n, 0);
            continue;
        }
        if (barrier) {
            group_unbarrier(sh, sl, k);
            barrier = 0;
        }
        if (!busy && __atomic_load_n(&sh->n_retired, __ATOMIC_ACQUIRE) == sh->n_terms) {
            group_finish(sh, sl, lead, k);
            done = 1;
            continue;
        }
        for (int i = 0; i < k; i++)
            slot_reconnect(&sl[i], clock_us());
        dispatch(sh, sl, k);
        dl_dispatch(sh, dl, m, 1);
        group_wait(sh, sl, k, n, GW_TERMS | GW_DLS);
    }
out:
    group_end_down(sl, n);
    vu_cpu_mark(lead);
    for (int i = 0; i < k; i++)
        vu_publish(&lead[i]);
    if (m)
        __atomic_sub_fetch(&sh->dl_consumers, 1, __ATOMIC_ACQ_REL);
    free(sl);
    return NULL;
}
