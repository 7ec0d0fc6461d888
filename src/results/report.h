/*
 * report.h - `tpccbench report`: one self-contained HTML file for a
 * comparison of runs (src/results/compare.h): the step table, bars of load
 * time and TPS per step, TPS and NOTPM over time per run (from each run's
 * series.csv), latency percentiles per transaction type, what changed at
 * each step, the environment fingerprint, and each run second by second
 * (from its run.json: the checkpoints, autovacuums, stalls and outages over
 * its throughput, its waits by class per second, all types or one at a
 * click, and New-Order's latency heatmap).
 *
 * Self-contained: no network access, no fonts, scripts or styles from
 * elsewhere; the charts are inline SVG drawn here.  A small inline script
 * only adds hover highlighting, switches a run's waits between types (a
 * button, or the address's #waits=TYPE), opens the collapsed parts for
 * printing, and marks the page ready (body data-ready="1") so tests can
 * tell it ran.
 * Every chart is an <svg class="chart" data-chart="NAME" data-series="N">
 * whose series are the elements of class "series".
 *
 * Builds text only; the caller writes the file (atomically) and prints.
 */
#ifndef TPCC_REPORT_H
#define TPCC_REPORT_H

#include <stddef.h>

#include "core/err.h"
#include "results/compare.h"

/* One run's measured seconds from series.csv. */
struct report_series {
    int n;         /* rows of the measured window */
    double *x;     /* second of the window, from 1 */
    double *tps;   /* total_tps: committed transactions per second */
    double *notpm; /* new_order_tps x 60 */
    int sec0;      /* series.csv's "second" of the first measured row (0: none) */
};

/*
 * Parse series.csv text (name is its path, for messages).  Rows whose
 * phase is not "measure" are skipped.  E_USAGE when the text is truncated
 * (no final newline, a row with fewer fields than the header) or lacks the
 * columns second, phase, total_tps, new_order_tps.
 */
int report_series_parse(const char *text, const char *name, struct report_series *s, struct err *e);
void report_series_release(struct report_series *s);

struct report_opts {
    const char *title;     /* page title; NULL: "tpccbench report" */
    const char *generated; /* when it was made, shown in the header; may be NULL */
};

/*
 * Build the HTML of comparison c, reading series.csv next to each run
 * (a run without one gets no line in the time charts).  *html is heap
 * (free()), *len its length.  E_USAGE for a damaged series.csv.
 */
int report_html(const struct cmp *c, const struct report_opts *o, char **html, size_t *len,
                struct err *e);

#endif
