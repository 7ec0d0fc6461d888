/*
 * history.h - run records as series: `tpccbench history`.  Reads every
 * complete run record under the folders given (recursively: results
 * folders, study folders), groups them into series of the same benchmark,
 * finds the change points of each series' figures (results/edivisive.h),
 * says what changed at each (compare's "what changed", cmp_run_diff), and
 * judges the nightly gate (compare's rules, cmp_rule_parse/cmp_rule_judge).
 *
 * A series: records with the same command kind (run or bench), warehouses,
 * terminals, connections, mode, mix, think time, isolation, duration and
 * DBMS name (what compare refuses to mix, and what else makes two runs
 * different benchmarks), in time order (started, then folder name).
 *
 * The index: a folder holding run folders gets HISTORY_INDEX_NAME, one line
 * per run folder (its name, the size and modification time of its
 * run.json, why it is left out if it is, start time, label, series and
 * figures), so that history reads thousands of records without parsing
 * them.  A writer of run.json appends the record's line
 * (history_index_append, called by runrec_save) when the index exists;
 * history rebuilds the index when it is missing, damaged or stale (a run
 * folder whose run.json is not as its line says, or none for it), and says
 * so.  The last line of a run folder wins (a run's record is written when
 * it starts and again when it ends).
 *
 * Nothing here exits; output goes to the FILE given.
 */
#ifndef TPCC_HISTORY_H
#define TPCC_HISTORY_H

#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>

#include "core/err.h"
#include "results/compare.h"
#include "results/edivisive.h"
#include "results/waitdiff.h"

#define HISTORY_INDEX_NAME "history.idx"
/* The index's first line: change its number whenever what a line holds or how its series
 * key is made changes, so that an older index is taken as damaged and rebuilt. */
#define HISTORY_INDEX_HEADER "tpccbench history index 2"
/* Fields of an index line before its CMP_NMETRICS figures. */
#define HISTORY_INDEX_HEAD   7
#define HISTORY_MAX_METRICS  16           /* figures judged per series */
#define HISTORY_CUSTOM       CMP_NMETRICS /* the --metric PATH figure */
#define HISTORY_MAX_REASONS  16           /* distinct reasons records are left out */

/* One run as history sees it (from the index or the record). */
struct history_rec {
    char name[160];         /* the run folder's name */
    char *dir;              /* the run folder (heap) */
    char started[32];       /* UTC start, "" when absent */
    char label[128];        /* the record's label */
    char key[256];          /* its series, as text */
    char why[96];           /* "" when usable; else why it is left out */
    double v[CMP_NMETRICS]; /* compare's figures (NAN: absent) */
    double custom;          /* the --metric figure, NAN when absent */
};

/* What to read and how to judge. */
struct history_opts {
    const char *label_glob; /* --label: fnmatch pattern, NULL: all */
    const char *since;      /* --since/--until: ISO dates or times (prefix compared) */
    const char *until;
    const char *metric_path; /* --metric: a dotted path into run.json, NULL: none */
    struct ed_opts ed;       /* --alpha, --min-change, --min-runs */
    int window;              /* --window: the newest runs the gate looks at (1) */
    FILE *notes;             /* where index messages go (stderr), NULL: nowhere */
};

/* The records read. */
struct history_set {
    struct history_rec *recs; /* usable ones; heap */
    int n, cap;
    int n_read;                         /* run folders seen */
    char reasons[HISTORY_MAX_REASONS][96]; /* why records were left out */
    int n_reason[HISTORY_MAX_REASONS];
    int n_reasons;
    int n_filtered; /* left out by --label, --since, --until */
};

/* A change point of one figure of a series. */
struct history_cp {
    struct ed_point pt; /* indices into the figure's runs (those that have it) */
    int run;            /* the run it starts at: index into the series */
    int before;         /* the run before it in the series */
};

enum history_state {
    HISTORY_NO_DATA = 0, /* no run of the series has the figure */
    HISTORY_TOO_SHORT,   /* fewer than 2 x min_runs runs have it */
    HISTORY_NO_CHANGE,   /* judged: no change point */
    HISTORY_CHANGED,     /* judged: change points */
};

/* One figure of a series. */
struct history_metric {
    int metric;          /* enum cmp_metric, or HISTORY_CUSTOM */
    int n;               /* runs that have it */
    int state;           /* enum history_state */
    double *x;           /* its values, in series order (heap) */
    int *at;             /* x[i] is of series run at[i] (heap) */
    struct history_cp *cps; /* heap */
    int n_cps;
};

/* What changed at a run of a series against the run before it. */
struct history_what {
    int run;
    struct cmp_diff *d; /* heap */
    int n, n_changes;   /* differences, those not derived */
    char err[256];      /* why it could not be said, "" */
    struct wdiff_change wait; /* the largest change of a wait's share (waitdiff.h) */
    int has_wait;             /* 1: wait holds it */
    char wait_why[320];       /* else why there is none; "" when neither run has waits */
};

struct history_series {
    char key[256];
    int *runs; /* indices into the set's recs, in time order (heap) */
    int n;
    struct history_metric m[HISTORY_MAX_METRICS];
    int n_m;
    struct history_what *what; /* heap */
    int n_what;
};

struct history {
    struct history_set set;
    struct history_series *series; /* heap */
    int n_series;
    struct history_opts o;
    const char *metric_path; /* the custom figure's name */
};

/* One tripped rule. */
struct history_trip {
    const struct cmp_rule *rule;
    int series, metric, cp; /* indices: h->series[series].m[metric].cps[cp] */
    struct cmp_verdict v;
};

/* The index line of record doc in run folder name whose run.json is st (no newline). */
void history_index_line(const char *name, const struct stat *st, json_t *doc, char *buf, size_t len);
/*
 * Append the line of doc (the run.json just written in run_dir) to the
 * index of run_dir's parent folder, when that index exists: one write
 * with O_APPEND, so lines of writers at once do not mix.  0, or E_FAIL.
 */
int history_index_append(const char *run_dir, json_t *doc, struct err *e);

/* Read the runs named by args (run folders, run.json files, folders of them at any depth)
 * into s, through the folders' indexes, filtered by o.  E_USAGE when an argument is not one. */
int history_load(const char *const *args, int nargs, const struct history_opts *o, struct history_set *s,
              struct err *e);
void history_set_release(struct history_set *s);

/*
 * Group h->set (filled by history_load; h takes it) into series and judge the
 * figures metrics[0..n) (enum cmp_metric or HISTORY_CUSTOM) of each, with what
 * changed at every change point.  0, or E_FAIL (out of memory).
 */
int history_build(struct history *h, const int *metrics, int n_metrics, struct err *e);
void history_release(struct history *h);

/* What changed at run of series s (NULL when not worked out). */
const struct history_what *history_what_at(const struct history_series *s, int run);
/* The figure's name: compare's ("notpm", "p90.new_order") or the --metric path. */
const char *history_metric_name(const struct history *h, int metric, char *buf, size_t len);

/*
 * The gate: each rule against the change points of its figure in effect
 * over the newest o.window runs of each series (those starting among them,
 * and the last one before them: with the default 1, each series' newest
 * change point), judged by cmp_rule_judge on the runs of the segments
 * either side.  The trips into out (at most max); their count.
 */
int history_gate(const struct history *h, const struct cmp_rule *rules, int n_rules,
              struct history_trip *out, int max);

/* Output formats: compare's (enum cmp_format), then HTML. */
#define HISTORY_HTML (CMP_JSON + 1)
/* text, markdown, csv, json, html; -1 otherwise. */
int history_format_parse(const char *s);
/* Print h (and the trips, for json) in format. */
void history_print(FILE *out, const struct history *h, int format, const struct history_trip *trips,
                int n_trips);
/* "run 7 '20261202-...' (label): notpm 123 -> 456, +9.1 % [+3.0, +15.2], p = 1.2e-05" */
void history_fmt_cp(char *buf, size_t len, const struct history *h, int series, int metric, int cp);
/* What changed there, one line: "synchronous_commit: on -> off" ("nothing ..." when none). */
void history_fmt_what(char *buf, size_t len, const struct history_what *w);
/* The largest change of a wait's share there: "new_order: IO:WALSync 31 % -> 4 %", or why
 * there is none; "" when neither run has waits (nothing to say). */
void history_fmt_waits(char *buf, size_t len, const struct history_what *w);

#endif
