/*
 * metrics.h - what the machine and the database did each second of a run:
 * one row a second of figures from the metrics sources (run/msrc.h: the
 * driver host's /proc, the database through its dialect's metrics_*
 * statements on a thread and a connection of their own, the database
 * host's node_exporter), so that a source that stops answering never holds
 * the monitor.
 *
 * The monitor (run/driver.c) calls metrics_tick() once a second, after its
 * series row; cmd/run.c takes a baseline before the run (metrics_start) and
 * a last sample after it (metrics_finish),
 * and writes metrics.csv, run.json's "metrics" and the summary lines.  When
 * a metrics_serve is attached, each tick also publishes the OpenMetrics and
 * Prometheus text of the registered series (metrics_serve_series: the run's
 * counters, run/runseries.h, or the load's) and of the latest figures to it
 * (run/mserve.h).
 *
 * A figure that cannot be read (a device that disappeared, a statistic the
 * server refuses, a dialect that has none) is a NaN in its row - an empty
 * cell in metrics.csv, a missing sample on the endpoint - and its column
 * carries a note saying why; never a zero.  Everything but the database
 * and the scraper's reads runs on the monitor's thread; nothing here prints
 * or exits.
 */
#ifndef TPCC_METRICS_H
#define TPCC_METRICS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include <stdint.h>

#include "core/err.h"
#include "db/db.h"

struct metrics;
struct mserve;

struct metrics_opts {
    const char *dialect;     /* "postgresql", "mysql", "ansi" */
    const char *data_device; /* the data directory's block device ("vda", "sda1"), "none"
                              * (tmpfs, overlay), or NULL when unknown (a remote server) */
    const char *data_note;   /* why there is none ("tmpfs: no block device"), or NULL */
    const char *devices;     /* more devices, comma-separated ("sdb,nvme0n1"), or NULL */
    int synthetic;           /* the null driver: no database statistics */
    struct mserve *serve;    /* publish there each tick, or NULL (kept, not owned) */
    /* Whose host the OS figures are: the database's too (1), not (0), unknown (-1). */
    int db_local;
    const char *db_where;       /* how the server is reached ("unix socket", "10.0.0.5") */
    const char *db_host_url;    /* the database host's node_exporter (db_host_* columns) */
    const char *db_host_token;  /* its bearer token, or NULL (copied, never recorded) */
    const char *db_datadir;     /* the server's data_directory, or NULL: its disk there */
    const char *db_host_device; /* run.db_host_device, or NULL */
    const char *db_host_note;   /* why there is no db host source (a part of several), or NULL */
    /* The wait sampler (run/msrc_waits.c): samples a second, 0 = off; it
     * connects with these (kept: they must outlive m) once the run hands it
     * its backends (metrics_backends). */
    int wait_hz;
    const struct db_ops *db_ops;
    const struct db_connect_args *db_args;
};

/* A new sampler (heap), or NULL with e. */
struct metrics *metrics_new(const struct metrics_opts *o, struct err *e);
void metrics_free(struct metrics *m);

/* The baseline: the OS counters, and the database's through c, a
 * connection of the metrics' own (taken: closed by the metrics; may be NULL).
 * From here on a thread of the metrics reads the database through c. */
void metrics_start(struct metrics *m, struct db_conn *c);

/*
 * The monitor's once-a-second sample: one row (second, and phase: 'r'
 * ramp-up and warm-up, 'm' measured, 's' stopping, as the series row just
 * added).  A source's thread (the database's, the scraper's) is waited for
 * at most 0.5 s (one that does not answer never holds the monitor; its
 * columns say so).  The endpoint gets the registered series as they are now
 * (the caller updates them first) and the row's figures.  m may be NULL
 * (metrics off): nothing happens.
 */
void metrics_tick(struct metrics *m, int second, char phase);

/* A histogram of a family of series: cumulative counts by upper bound. */
struct metrics_hist {
    const double *le; /* nle upper bounds, seconds, rising */
    int nle;
    const uint64_t *cum; /* nle + 1 counts: samples at or under each bound, then all (+Inf) */
    const double *sum;   /* the samples' sum, seconds ("%.6f") */
};

/*
 * A family of series the endpoint serves, for a command that keeps live
 * counters of its own (the run's transactions by type and outcome and
 * response times, run/runseries.h; the load's rows by table, steps,
 * phase): the sampler knows only what is registered here.  Values are read
 * with relaxed atomic loads at each tick (a double as it is); the arrays
 * are kept, not copied (they must stay until unregistered, or outlive m).
 * One of v, v_int, v_real, state or hist is set.
 */
struct metrics_series {
    const char *family; /* "tpccbench_load_rows_total" */
    const char *help;
    int counter;       /* 1: counter, 0: gauge (a family with hist is a histogram) */
    const char *label; /* with n > 1: the label the values differ by ("table"); NULL: each
                        * of label_values is a whole label set ('type="x",outcome="y"') */
    const char *const *label_values; /* ... its n values */
    int n;                           /* series in the family (1: no label) */
    const int64_t *v;                /* n values */
    const int *v_int;                /* one value */
    const double *v_real;            /* one value, "%.3f" */
    const int *state;                /* 1 for the label value at index *state, 0 for the others */
    const struct metrics_hist *hist; /* n histograms */
};

/* Serve the n families of s from now on, before the figures (kept; s NULL:
 * none from now on, for an owner that goes away before m). */
void metrics_serve_series(struct metrics *m, const struct metrics_series *s, int n);

/*
 * The same sample without a run, from a thread of a command's own once a
 * second (the load's): the endpoint serves the registered series beside
 * the OS and database figures.  Keeps only the latest row (no metrics.csv).
 * m may be NULL: nothing happens.
 */
void metrics_serve_tick(struct metrics *m, double elapsed_s);

/* The run's connections are made: the server processes serving them (n
 * pids, -1 for one unknown; copied), for the sources that sample those
 * (the wait sampler).  m may be NULL. */
void metrics_backends(struct metrics *m, const int64_t *pids, int n);

/* The last row, after the run (phase 's'). */
void metrics_finish(struct metrics *m);

/* metrics.csv (heap; free()), or NULL when there are no rows. */
char *metrics_csv(const struct metrics *m, size_t *len);

/* run.json's "metrics": columns with unit, mean, p95, max (measured rows),
 * rows, unavailable rows and notes; devices; the sampling's own CPU. */
json_t *metrics_json(const struct metrics *m);

/* The summary's lines: CPU, iowait, data disk MB/s and await, WAL MB/s,
 * checkpoints (means over the measured rows). */
void metrics_print(FILE *out, const struct metrics *m);

/*
 * The admin.sql statement that reads checkpoints from a server whose
 * server_version_num is server_version_num (0: unknown): PostgreSQL 17 moved
 * the checkpoint counters from pg_stat_bgwriter to pg_stat_checkpointer, so
 * from 170000 on "metrics_checkpoints_17" when the dialect has it (have_17),
 * else "metrics_checkpoints".
 */
const char *metrics_checkpoints_stmt(long server_version_num, int have_17);

/* Whose figures column name is: "driver", "db" or "driver+db" (one host), or NULL. */
const char *metrics_col_host(const struct metrics *m, const char *name);

/* Mean over the measured rows of column name, NaN when none (tests, the summary). */
double metrics_mean(const struct metrics *m, const char *name);

#endif
