/*
 * run_int.h - what the parts of a run share inside src/run/ (not for use
 * outside it): the shared state, a worker (one thread, one connection), the
 * deferred-delivery queue, and the functions driver.c (phases), worker.c
 * (workers and delivery workers) and monitor.c (counts, series, window
 * edges, joins) call in each other.
 *
 * Threads and what they share:
 *  - each worker owns its connection and struct vu_stats; it publishes a
 *    copy of its stats when the monitor asks (req/ack counters, one relaxed
 *    load per transaction; two buffers so the monitor never reads the one
 *    being written); terminals are taken from and put back into the
 *    scheduler's timer queue (run/sched.h), one worker at a time each;
 *  - each connection's state (enum conn_state, below) is stored by the
 *    thread that serves it and read by the monitor (monitor_collect);
 *  - deferred deliveries go through a bounded queue (a mutex: 4 % of the
 *    transactions, never on the other four's path), consumed by the
 *    delivery workers' threads, or in group mode (sh->dl_group) by the
 *    group threads that serve the delivery workers' connections;
 *  - phase changes go through one mutex + condition variable.
 * The monitor (the calling thread) keeps time, takes the New-Order counts at
 * the window edges while every worker is idle, and builds the series.  It
 * reads a worker's own struct vu_stats only while that worker waits at the
 * barrier (seen under the lock), after it finished, or after it was joined;
 * otherwise only the published copies.
 */
#ifndef TPCC_RUN_INT_H
#define TPCC_RUN_INT_H

#include <pthread.h>
#include <stdio.h>

#include "db/db.h"
#include "db/dialect.h"
#include "run/sched.h"
#include "run/stats.h"
#include "run/terminal.h"
#include "tpcc/txn.h"

/* The driver's (run/driver.h), by pointer only: driver.c includes this header. */
struct run_opts;
struct run_result;
struct series_row;

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
    int cap, head;
    int n;      /* items queued: changed under lock, atomically (dlq_take looks without it) */
    int closed; /* no more items will come (the same) */
};

#define DL_FULL_AGAIN_US 1000 /* group mode: a full queue is tried again this much later */

struct shared {
    const struct run_opts *o;
    const struct config *cfg;
    struct dialect d;
    struct txn_ctx ctx;
    const char *iso_name;    /* the level each connection sets (run_result's isolation) */
    int iso_stmt;            /* the dialect's statement that sets it */
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
    int fatal;               /* atomic: 1 once a worker met a usage error (fatal_err) */
    int monitor_outage;      /* 1 once the monitor's connection stayed lost for run.max_outage
                              * (the run is then aborted, as for the workers' outage) */
    struct err fatal_err;    /* under lock: the first one, e.g. a pooler and prepared statements */
    char backend_sql[512];   /* admin statement backend_id (a copy: workers read it) */
    uint64_t t0_us;          /* start of ramp-up */
    struct dlq q;
    FILE *dlog;              /* delivery.log */
    pthread_mutex_t dlog_lock;
    struct terminal *terms;  /* the terminals (data, not threads) */
    int n_terms;
    struct sched sched;      /* the terminals not being served, by intended time */
    struct term_pace pace;   /* how they offer load */
    uint64_t timer_slack_ns; /* think time: group threads' timer slack (0: the kernel's) */
    int n_retired;           /* atomic: terminals that ran their run.transactions */
    int dl_group;            /* 1: the group threads serve the delivery workers' connections
                              * (group.c); no delivery worker thread is started */
    int dl_consumers;        /* atomic: group threads that may still take from the queue */
    int *bells;              /* the group threads' bells (struct vu bell), n_bells of them */
    int n_bells;
    int main_bell;           /* eventfd (-1: none) the main thread sleeps on between its
                              * seconds: rung by a stop signal, a fatal error and every
                              * terminal that finished, so it wakes once a second otherwise */
};

/*
 * A connection's state (struct vu state), each named as pgbench names a
 * client's, with what leads in and out.  The thread that serves the
 * connection sets it at each transition (vu_state_set: a relaxed atomic
 * store, the cost of the in-transaction flag it replaced); the monitor
 * reads it each second to count the connections inside a transaction
 * (CS_WAITING).  A worker of one connection (worker.c) passes through them
 * in its control flow; a worker of several (group.c) decides by them.  Not
 * states: the window-edge barrier and a finished worker (at_barrier,
 * finished: under sh->lock, how the monitor may read a worker's stats), and
 * the outage's clock (down_since_us: from the loss to the reconnect).
 */
enum conn_state {
    /* The first connect.  In: the thread started (calloc'd: 0).  Out:
     * CS_IDLE; a failure ends the thread (the run does not start). */
    CS_CONNECTING = 0,
    /* Connected, nothing taken, nothing in flight (a delivery worker waits
     * here for the queue).  In: connected, a round trip settled, terminals
     * put back at the barrier, a Delivery queued.  Out: CS_SENDING,
     * CS_WAITING, CS_DELIVERY. */
    CS_IDLE,
    /* Group thread: terminals taken for the connection's next round trip
     * (gslot bt[], n), not sent yet.  In: CS_IDLE, a terminal given.  Out:
     * CS_WAITING (sent), CS_IDLE (the barrier went up: put back). */
    CS_SENDING,
    /* A round trip in flight, its results not all read: the one state the
     * monitor counts as inside a transaction.  A delivery worker's retries
     * (txn_exec_retry) run inside it.  In: CS_IDLE, CS_SENDING, CS_RETRY
     * (sent).  Out: CS_IDLE (settled; a terminal's retryable failure backs
     * off in the scheduler, not here), CS_RETRY, CS_BACKOFF (lost). */
    CS_WAITING,
    /* Group thread, a delivery connection: Deliveries held on it (gslot
     * dli[]) until their retry back-off (txn_retry_backoff_us) ends, at once
     * for those a batch skipped.  In: CS_WAITING, some to go again
     * (txn_retry_again).  Out: CS_WAITING (sent again). */
    CS_RETRY,
    /* Worker of one connection: queuing a terminal's deferred Delivery,
     * waiting for room while the queue is full.  In: CS_IDLE.  Out:
     * CS_IDLE (queued, or the queue closed). */
    CS_DELIVERY,
    /* Down (the down states come last, vu_down): the connection was lost
     * (closed, down_since_us set); the next attempt waits for its back-off
     * (conn_backoff_us).  In: CS_WAITING (E_CONN: vu_lost, once its
     * transactions are settled), CS_RECONNECTING (the attempt failed).
     * Out: CS_RECONNECTING; the stop ends the thread here. */
    CS_BACKOFF,
    /* Down: a reconnect attempt runs (a group thread's on a thread of its
     * own, gslot cth, told to give up at the stop).  In: CS_BACKOFF.  Out:
     * CS_IDLE (connected), CS_BACKOFF (failed), CS_ABORTED. */
    CS_RECONNECTING,
    /* Down for good: the server refused the reconnect as configured (a
     * usage error: a password, a database gone); the run ends with its
     * message (vu_fatal).  In: CS_RECONNECTING.  Out: none. */
    CS_ABORTED,
};

struct vu {
    struct shared *sh;
    int id;
    int worker;              /* 1: a deferred delivery worker */
    pthread_t thread;
    struct vu *lead;         /* the worker whose thread serves this connection (often itself) */
    int n_group;             /* on a lead: connections its thread serves, itself first */
    int started;             /* the thread was created */
    int joined;              /* ... and has been joined */
    pthread_mutex_t conn_lock; /* guards c against a cancel from the monitor */
    struct db_conn *c;
    int state;               /* enum conn_state: set by the thread that serves it, read by
                              * the monitor (relaxed atomics) */
    uint64_t jitter;         /* state of the back-offs' jitter (retry and reconnect) */
    uint64_t connect_us;
    int64_t backend;         /* server process at the first connect, -1 = unknown */
    struct vu_stats st;      /* owned by the thread */
    struct vu_stats snap[2]; /* published copies */
    unsigned req, ack;       /* snapshot request/served, atomics */
    uint64_t down_since_us;  /* atomic: when the connection was lost, 0 = connected */
    int at_barrier;          /* under sh->lock: waiting in vu_pause_point(), st at rest */
    int finished;            /* under sh->lock: ran its run.transactions, st final */
    struct vu *dl_vus;       /* group mode, on a lead: the delivery workers' connections its
                              * thread serves (n_dl of them; each one's lead is this one) */
    int n_dl;
    int bell;                /* group mode, on a lead: an eventfd its thread sleeps on, rung
                              * when the run needs it awake (a phase change, a snapshot
                              * request, a reconnect ended, the last terminal retired);
                              * -1 elsewhere */
};

#define RUN_GROUP_MAX 64 /* most connections one worker thread serves (group.c) */
#define OPEN_WAIT_US 30000000 /* the window's opening may wait for the last transactions */
#define CLOSE_WAIT_US 500000 /* its close may not: it closes on time (within 1 s) */

struct monitor {
    /* cur: the counts monitor_series_add() takes next; prev: the last it took (it
     * swaps the two: no 300 KB copy a second).  Both point into st. */
    struct vu_stats st[2], *prev, *cur, delta;
    struct hist all, svc; /* monitor_series_add()'s scratch */
    int n_cap;
    double in_tx_sum;
    int in_tx_samples;
};
#define JOIN_GRACE_US 3000000
#define JOIN_CANCEL_US 2000000

/* worker.c */
/* Which server process serves c now (admin statement backend_id), or -1
 * when the dialect cannot tell or the query failed. */
int64_t backend_of(struct db_conn *c, const char *sql);
int phase_get(struct shared *sh);
void phase_set(struct shared *sh, int ph);
/* Serve a pending snapshot request. */
void vu_publish(struct vu *v);
/* Wake the group thread sleeping on bell fd (-1: none); every group thread. */
void bell_ring(int fd);
void bells_ring(struct shared *sh);
/* The calling thread's CPU so far into v->st.cpu_us (v its thread's own). */
void vu_cpu_mark(struct vu *v);
/* A new connection, set up for the run (isolation, prepared statements),
 * into *out; touches nothing but sh's settings, so any thread may.  A
 * connect still waiting for the server gives up once *abandon is set
 * (abandon may be NULL). */
int conn_open(struct shared *sh, const int *abandon, struct db_conn **out, struct err *e);
/* Set v's connection, closing the one it had. */
void vu_set_conn(struct vu *v, struct db_conn *c);
/* conn_open, then vu_set_conn. */
int vu_connect(struct vu *v, struct err *e);
/* Monitor: cancel what v is waiting for. */
void vu_cancel(struct vu *v);
/* A connection that could not get a thread counts as failed. */
void thread_not_started(struct shared *sh, int rc);
/* The thread of a worker serving terminals, and of a deferred-delivery worker. */
void *vu_main(void *arg);
void *worker_main(void *arg);
/* What both kinds of terminal workers (worker.c, group.c) do with a terminal. */
void vu_fatal(struct vu *v, const struct err *e);
void vu_lost(struct vu *v, uint64_t now);
/* v's state (its serving thread sets it; others may read it). */
static inline enum conn_state vu_state(const struct vu *v)
{
    return (enum conn_state)__atomic_load_n(&v->state, __ATOMIC_RELAXED);
}
static inline void vu_state_set(struct vu *v, enum conn_state s)
{
    __atomic_store_n(&v->state, (int)s, __ATOMIC_RELAXED);
}
/* Down: no connection (the down states come last in enum conn_state). */
static inline int vu_down(const struct vu *v)
{
    return vu_state(v) >= CS_BACKOFF;
}
/* The wait before reconnect attempt k (1-based) of a lost connection, the
 * one reconnect back-off of the run (worker.c, group.c, the monitor's
 * count): the back-off is 50 ms doubling to 1 s; with jitter (the caller's
 * clock_jitter_us state) the wait is drawn in back-off/2 .. back-off, so
 * connections lost together do not come back together; without (the
 * monitor's one connection), the back-off itself. */
uint64_t conn_backoff_us(int k, uint64_t *jitter);
void term_start(struct vu *v, struct terminal *t, uint64_t now);
int term_deferred(const struct vu *v, const struct terminal *t);
/* 0 queued, 1 (group mode) the queue is full: t waits in the scheduler, or
 * negative (the queue closed). */
int term_defer(struct vu *v, struct terminal *t, int measured, struct err *e);
/* Group mode's side of the deferred queue: take the oldest without waiting
 * (0, else -1); whether some wait (queued, not closed); a taken one ran on
 * w (a delivery worker's connection) and ended with rc after retries, rt
 * round trips: its completion into w->st (measured ones only, latency from
 * its queueing, as worker_main records) and delivery.log. */
int dlq_take(struct shared *sh, struct dl_item *it);
int dlq_waiting(struct shared *sh);
void dl_settle(struct vu *w, const struct dl_item *it, int rc, int retries, uint64_t rt,
               const struct txn_output *out, const struct err *e);
void term_result(struct vu *v, struct terminal *t, int rc, const struct txn_output *out,
                 uint64_t start, uint64_t end, const struct err *e);
/* Settle the n terminals of one round trip (sent at start, ended at end, rc
 * as txn_exec_batch returns): skipped ones go again, the others through
 * term_result.  Returns rc, or E_USAGE when one met a usage error. */
int batch_settle_terms(struct vu *v, struct terminal **bt, const struct txn_batch_item *b,
                       const struct txn_output *outs, int n, uint64_t start, uint64_t end, int rc);

/* group.c: the thread of a worker that owns several connections (v and the
 * v->n_group - 1 after it), each with one batch in flight, and in group mode
 * (sh->dl_group) the delivery workers' connections v->dl_vus. */
void *group_main(void *arg);

/* monitor.c: the monitor's side of the per-second counts. */
/* Merge the n VUs' latest snapshots into out; *in_tx: how many are inside a transaction. */
void monitor_collect(struct vu *vus, int n, struct vu_stats *out, int *in_tx);
/* The counts at the window's opening, with every VU at the barrier. */
int monitor_collect_base(struct shared *sh, struct vu *vus, int n, struct vu_stats *out);
/* Ask each VU for a snapshot of its counts at its next safe point. */
void monitor_request_snapshots(struct vu *vus, int n);
/* Wait (up to wait_us) until every VU not finished served its request; 1 when all did. */
int monitor_await_snapshots(struct shared *sh, struct vu *vus, int n, uint64_t wait_us);
/* This process's CPU time so far, in seconds. */
double monitor_cpu_now_s(void);
int monitor_count(struct shared *sh, struct db_conn **mc, int64_t *out, struct err *e);
int monitor_count_bounded(struct shared *sh, struct db_conn **mc, int64_t *out, struct err *e);
/* VUs and workers without a connection now; *longest_us: the longest such outage. */
int monitor_count_down(struct vu *vus, int n, struct vu *workers, int nw, uint64_t now,
               uint64_t *longest_us);
/* Put every VU into the barrier and wait until all are idle, at most wait_us. */
void monitor_pause_all(struct shared *sh, int nvu_running, uint64_t wait_us);
/* Append second's row to r's series (phase 'r' warm-up, 'm' measured) from the
 * counts of the second, and hand it to the metrics. */
void monitor_series_add(struct run_result *r, struct monitor *m, int second, char phase, int in_tx,
                int down, double interval_s);
/* The live progress line on stderr (a rewritten line on a terminal). */
void monitor_live_line(const struct run_opts *o, const struct series_row *row, int elapsed_s,
               int total_s, int tty);
/* v's thread was started and has not been joined (it ended or is blocked). */
int vu_unjoined(const struct vu *v);
/* Join at the stop, bounded (monitor.c); 0, or one of: */
#define JOIN_BLOCKED (-1)        /* threads still blocked: left behind */
#define JOIN_CANCEL_BLOCKED (-2) /* all ended, a cancel request not answered */
int join_bounded(struct vu *vs, int n, int quick);
/* qsort comparison of uint64_t values. */
int cmp_u64(const void *a, const void *b);
void backends_shared(struct vu *vus, int n, struct vu *workers, int nw, int64_t mon,
                     struct run_result *r);
/* The pooler probe: its own thread and connection, sampling once a second. */
struct backend_probe;
struct backend_probe *backend_probe_start(struct shared *sh);
void backend_probe_stop(struct backend_probe *p, struct run_result *r);

#endif
