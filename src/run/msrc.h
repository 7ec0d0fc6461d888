/*
 * msrc.h - a source of the metrics' figures as a table of functions, the
 * way a database backend is a struct db_ops: the driver host's /proc
 * (msrc_os.c), the database through its dialect's metrics_* statements
 * (msrc_db.c), the database host's node_exporter (msrc_dbhost.c), the wait
 * sampler (msrc_waits.c) and pg_stat_statements (msrc_stmts.c), each
 * registered once in metrics_sources[] (metrics.c).
 *
 * metrics.c holds what the sources share: the column table, the rows, the
 * endpoint's text, metrics.csv, run.json's "metrics" and the summary.  A
 * source adds its columns at init, reads its figures once a sample, and
 * gives each of its columns a value, or NaN with a note saying why; it
 * knows nothing of the other sources or of the rows.  The sampler calls a
 * source only through these ops, in the order of metrics_sources[] (which is
 * the columns' order in metrics.csv).  Only metrics*.c and msrc_*.c include
 * this header; nothing here prints or exits.
 */
#ifndef TPCC_MSRC_H
#define TPCC_MSRC_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "db/db.h"
/* The sampler and its options, by pointer only: metrics.c includes this
 * header, so this one may not include metrics.h (scripts/layers.sh). */
struct metrics;
struct metrics_opts;

struct msrc;

/* One figure of a row: its name in metrics.csv, its Prometheus family. */
struct mcol {
    char name[96];      /* metrics.csv header: the unit is in the name */
    const char *unit;   /* "%", "1/s", "MB", "MB/s", "ms", "bytes/s", "s", "count" */
    const char *help;   /* one line for the endpoint's HELP and the docs */
    char prom[96];      /* Prometheus family (base units) */
    char labels[128];   /* 'device="vda",role="data"' or "" */
    double prom_scale;  /* prom value = value * prom_scale */
    const char *host;   /* whose figure: "driver", "db" or "driver+db" (one host) */
    struct msrc *src;   /* the source that fills it */
    int kind, arg, idx; /* the source's own: which figure, which part, which device */
    char note[320];     /* why it was unavailable (first reason), "" when it never was */
    uint64_t n_missing; /* rows without a value */
};

/* A source as the sampler holds it. */
struct msrc {
    const struct metrics_source_ops *ops;
    struct metrics *m; /* the sampler (for mcol_add and the columns) */
    void *priv;        /* the source's own state: made by init, freed by release */
};

/*
 * A source's functions, called on the sampler's thread (the monitor's, or
 * the load's sampling thread).  Every op but name, init, read, value and
 * release may be NULL.
 */
struct metrics_source_ops {
    const char *name; /* "os", "db", "db_host" */
    /* Its state into s->priv and its columns (mcol_add): 0, or -1 with e
     * (out of memory).  A source with nothing to read still says why in
     * its columns' notes, or adds none. */
    int (*init)(struct msrc *s, const struct metrics_opts *o, struct err *e);
    /* Before the baseline: a connection of the metrics' own, 1 when the
     * source keeps it (it closes it), 0 when it has no use for it.  Every
     * source's start is called, with NULL once one kept it. */
    int (*start)(struct msrc *s, struct db_conn *c);
    /* A sample begins: start what runs beside the other reads (a scrape). */
    void (*ask)(struct msrc *s);
    /* Read this sample's figures: t0_us, when the sample began; wait_us, how
     * long a thread of the source's own is waited for (0.5 s a second, more
     * for the baseline and the last sample); interval_s, since the previous
     * sample (0 for the baseline).  Returns the CPU its own threads took for
     * it, ms (0: none), for metrics_cpu_ms. */
    double (*read)(struct msrc *s, uint64_t t0_us, uint64_t wait_us, double interval_s);
    /* Column c's value in this sample (c->src == s), or NaN with mcol_missing. */
    double (*value)(struct msrc *s, struct mcol *c, double interval_s);
    /* This sample becomes the next one's baseline. */
    void (*keep)(struct msrc *s);
    /* Its members of run.json's "metrics" into o. */
    void (*json)(const struct msrc *s, json_t *o);
    /* Its summary lines; 1 when they said why none of its columns has a
     * value (then the summary lists none of them as unavailable). */
    int (*print)(const struct msrc *s, FILE *out);
    /* The server processes of the run's connections (n pids, copied), once
     * they are connected: called on the run's thread, so a source that
     * reads them on a thread of its own hands them over under its lock. */
    void (*backends)(struct msrc *s, const int64_t *pids, int n);
    /* Free s->priv (a thread blocked in a read may outlive it safely). */
    void (*release)(struct msrc *s);
};

extern const struct metrics_source_ops msrc_os_ops;     /* msrc_os.c */
extern const struct metrics_source_ops msrc_db_ops;     /* msrc_db.c */
extern const struct metrics_source_ops msrc_dbhost_ops; /* msrc_dbhost.c */
extern const struct metrics_source_ops msrc_waits_ops;  /* msrc_waits.c */
extern const struct metrics_source_ops msrc_stmts_ops;  /* msrc_stmts.c */

/* What metrics.c lends the sources. */

/* A column of s: 0, or -1 when the table is full (it is left out). */
int mcol_add(struct msrc *s, const char *name, const char *unit, const char *prom,
             const char *labels, double scale, int kind, int arg, int idx, const char *host,
             const char *help);
/* Column c has no value in this row: count it, and keep the first reason. */
void mcol_missing(struct mcol *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The columns of m, for a source that walks its own (c->src == s). */
int mcol_count(const struct metrics *m);
struct mcol *mcol_at(struct metrics *m, int i);
/* The note of column name ("" when it has none or there is no such column). */
const char *mcol_note(const struct metrics *m, const char *name);
/* A rate's total over the summarised rows into *sum: its value times the
 * row's interval_s, or times the row's value of column span where span is
 * not NULL (a source's own interval, such as db_interval_s); how many rows
 * had a value. */
int mcol_total(const struct metrics *m, const char *name, const char *span, double *sum);

/* The phase of the row being sampled ('r', 'm', 's', 'l'), 0 for the baseline. */
char msrc_phase(const struct metrics *m);
/* ... and its second (series.csv's "second"), 0 for the baseline. */
int msrc_second(const struct metrics *m);

/* A label value: only [A-Za-z0-9_.:@-], anything else becomes '_'. */
void msrc_label_safe(char *out, size_t len, const char *in);
/* The calling thread's CPU time, ms. */
double msrc_thread_cpu_ms(void);

#endif
