/*
 * driver.h - a timed run: virtual users drive the transaction mix against the
 * database, deferred deliveries run on their own workers, and the monitor
 * thread (the caller's) shows progress and records the per-second series.
 *
 * Phases: connect all VUs, ramp-up (staggered starts), warm-up, a barrier
 * (every VU idle) where the database's New-Order count is read, the measured
 * window, stop (in-flight transactions finish), the count read again.
 */
#ifndef TPCC_DRIVER_H
#define TPCC_DRIVER_H

#include <stdint.h>
#include <stdio.h>

#include "core/config.h"
#include "core/err.h"
#include "db/db.h"
#include "run/series.h"
#include "run/stats.h"
#include "tpcc/random.h"

struct metrics;
struct meet;

struct run_opts {
    const struct config *cfg;
    const struct db_ops *ops;
    const struct db_connect_args *args;
    const char *dialect;        /* "postgresql" */
    const char *dir;            /* run folder: delivery.log goes here */
    FILE *progress;             /* live output, NULL = none */
    struct metrics *metrics;    /* sampled each second (run/metrics.h), NULL = none */
    /* A part of a scale-out run: meet is the caller's (zeroed) and run_run
     * opens it once it knows the warehouses (the caller finishes and
     * closes it); NULL = the only part. */
    struct meet *meet;
    int part_k, part_n;         /* with meet: this part, of n */
    const char *run_id;         /* with meet: the name the parts share */
    int first_w, last_w;        /* filled by run_run: this part's warehouses */
};

/* Where the deferred Deliveries ran (run_result.delivery_on): on delivery
 * worker threads of their own, or on the worker threads that serve several
 * connections each (group mode, run/group.c). */
#define DL_ON_THREADS 1
#define DL_ON_GROUPS 2

struct run_result {
    char status[16];             /* complete | interrupted | aborted | failed */
    struct vu_stats measured;    /* VUs over the measured window */
    struct vu_stats delivery;    /* deferred delivery workers: queue-to-completion */
    int window_opened;           /* 1: the measured window opened; 0: nothing below was measured */
    double measured_s;           /* length of the measured window */
    int64_t db_new_orders;       /* increase of sum(d_next_o_id) over the window */
    int db_counted;              /* 1: db_new_orders was measured */
    char db_count_note[512];     /* why it was not */
    int64_t part_count_open;     /* a part of several: the database's count at the shared */
    int64_t part_count_close;    /* window's edges (every part's New-Orders), -1: not taken */
    /* Stock-Levels per terminal (w, d) over the whole run, when terminals <= 1000. */
    struct sl_pair {
        int w, d;
        uint64_t n;
    } *stock_level_pairs;        /* heap, n_stock_level_pairs entries */
    int n_stock_level_pairs;
    int unfinished_open;         /* workers still in a transaction at the window's opening */
    int unfinished_close;        /* ... and at its close (after the bounded wait) */
    int left_behind;             /* connections whose threads did not stop (blocked in the database) */
    int cancel_unanswered;       /* a cancel request at the stop was not answered */
    double rtt_median_us;        /* median of 100 trivial queries before the run */
    double connect_total_s;      /* time to connect every VU */
    double connect_min_ms, connect_median_ms, connect_max_ms;
    double *connect_ms;          /* heap, per VU in VU order (virtual_users entries) */
    double cpu_s;                /* driver CPU (user+system) in the measured window */
    double vus_in_tx_mean;       /* mean of the per-second samples while measuring */
    struct nurand_c c_load, c_run;
    int warehouses;              /* from the database */
    int virtual_users;           /* connections, each served by one worker thread */
    int terminals;               /* terminals (data) the workers served */
    int connections;
    int workers;                 /* threads serving the connections (fewer: several each) */
    int delivery_workers;
    int delivery_on;             /* deferred: DL_ON_THREADS and/or (parts) DL_ON_GROUPS */
    int load;                    /* enum term_load: closed, think, open */
    double offered_tps;          /* think: what the terminals offer at most; open: run.rate */
    double time_scale;           /* keying and think times were multiplied by this */
    double timer_slack_us;       /* the group threads' timer slack (0: the kernel's own) */
    int mode;                    /* enum run_mode used (never auto) */
    char server_name[64], server_version[64];
    char isolation[CFG_STR];     /* the level the run set: run.isolation, or the default's */
    char isolation_why[128];     /* why run.isolation unset is not read committed, "" */
    uint64_t seed;               /* run RNG seed */
    uint64_t deliveries_pending; /* deferred deliveries not run at the end */
    char backend_unavailable[192]; /* why no connection can say its server process ("" if it can) */
    int backend_connections;     /* connections that said which server process serves them,
                                  * right after the connect phase */
    int backend_distinct;        /* ... and how many different processes they named: fewer
                                  * than connections means a pooler shares them */
    int backend_samples;         /* monitor: pairs of successive backend_id samples on one
                                  * connection */
    int backend_changes;         /* ... in which the server process differed: a pooler */
    int n_series;
    struct series_row *series;   /* heap, n_series rows; free with run_result_release */
};

int run_run(const struct run_opts *o, struct run_result *r, struct err *e);
void run_result_release(struct run_result *r);

#endif
