/*
 * compare.h - read run records and compare them: the step table of a tuning
 * study, what changed between steps, noise across repeats, the regression
 * gate.  Used by `tpccbench compare` and `tpccbench report`.
 *
 * Runs are taken in the order given.  Consecutive runs with the same label
 * form one step (the repeats of `--repeat N`); a step's figure is the median
 * of its runs, with their min..max.  Each step is compared with the step
 * before it and with the first step.
 *
 * Gains follow the tuning study: a time gains when it shrinks, a throughput
 * when it grows:
 *     load-time gain  = old / new - 1      (50 s -> 4.5 s is +1011.1 %)
 *     throughput gain = new / old - 1      (NOTPM, TPS)
 *     latency change  = new / old - 1      (p90: + is slower)
 * Significance (results/signif.h): when both steps of a comparison have 2
 * runs or more, the gain of NOTPM, TPS, load time and New-Order p90 comes
 * with its 95 % confidence interval (Welch's t on the logarithms of the
 * runs' figures) and a verdict: significant gain, significant loss, within
 * noise.  A gain is "within noise" when that interval holds no change; when
 * only one of the two steps has repeats (no interval), when the other's
 * single figure lies inside the repeats' min..max.  Single runs on both
 * sides are never within noise: one run has no spread to judge by.
 *
 * What changed: the sections "tool", "config" and "environment" of the first
 * run of each step are flattened to dotted paths and compared with the step
 * before.  Ignored, because they always differ or summarise other keys:
 * label, change note, timestamps and run folders (not in those sections),
 * environment.config_hash (its parts are compared), config.file and
 * config.results (where the config came from and where records go),
 * environment.dbms.settings_source (used below) and the server's
 * unix_socket_directories (a fresh temporary folder per start of a managed
 * server with a long data directory path).  A difference that follows from
 * another is marked derived and not counted as a change of its own: a
 * server setting nobody set in either run (source default or override in
 * both, e.g. wal_buffers following shared_buffers; not those fixed by
 * initdb, such as data_checksums), the storage details of a moved data
 * directory, the full version string of a new version.  A step that changed
 * more than one thing gets a warning.
 *
 * Runs are comparable only with the same warehouses, duration, mix, virtual
 * users and isolation; cmp_build() refuses others (E_USAGE) unless forced.
 *
 * Nothing here exits; cmp_print() writes to the FILE it is given.
 */
#ifndef TPCC_COMPARE_H
#define TPCC_COMPARE_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>

#include "core/config.h"
#include "core/err.h"
#include "results/signif.h"

/* The figures compared, per run.  NAN: not in the record. */
enum cmp_metric {
    CMP_LOAD = 0,                  /* load.seconds (a complete load only) */
    CMP_NOTPM,                     /* run.notpm */
    CMP_TPS,                       /* run.tps */
    CMP_P90,                       /* + enum tx_type: run.transactions.T.p90_ms */
    CMP_P99 = CMP_P90 + TX_NTYPES, /* + enum tx_type: run.transactions.T.p99_ms */
    CMP_CPU = CMP_P99 + TX_NTYPES, /* metrics: mean cpu_user_pct + cpu_system_pct */
    CMP_IOWAIT,                    /* metrics: mean cpu_iowait_pct */
    CMP_DISK,                      /* metrics: mean data disk read + write MB/s */
    CMP_DBH_CPU,                   /* metrics: the database host's (db_host_*), likewise */
    CMP_DBH_IOWAIT,
    CMP_DBH_DISK,
    CMP_NMETRICS
};

/* One run record. */
struct cmp_run {
    char path[PATH_MAX];    /* its run.json */
    char dir[PATH_MAX];     /* the folder holding it (series.csv is there) */
    char name[256];         /* the folder's name: the run id */
    json_t *doc;            /* the whole record; owned */
    const char *label;      /* points into doc; "" when absent */
    const char *change;     /* the change note, likewise */
    const char *status;     /* "complete", "interrupted", ...; for a record that says
                             * "running": status_buf ("crashed (pid N gone)", ...) */
    char status_buf[160];   /* record_liveness()'s word on a "running" or "crashed" record */
    int life;               /* enum record_life (results/record.h) */
    const char *started;    /* UTC start time, "" when absent */
    double v[CMP_NMETRICS]; /* the figures, NAN when absent */
    char metrics_note[320]; /* why a metrics figure (CMP_CPU..CMP_DISK) is absent, "" if none is */
};

/* One difference between a step and the step before. */
struct cmp_diff {
    char path[256]; /* "environment.dbms.settings.shared_buffers" */
    char key[256];  /* how it is shown: "shared_buffers" */
    char old[256];  /* "(none)" when the key is new */
    char new_[256]; /* "(none)" when the key went away */
    int derived;    /* 1: follows from another difference; not counted */
};

/* A step: consecutive runs with the same label. */
struct cmp_step {
    int first, n;             /* runs[first .. first + n - 1] */
    double med[CMP_NMETRICS]; /* median over the runs (NAN when none has it) */
    double lo[CMP_NMETRICS];  /* min */
    double hi[CMP_NMETRICS];  /* max */
    struct cmp_diff *diffs;   /* against the step before (none for step 0); heap */
    int n_diffs;
    int n_changes; /* diffs that are not derived */
};

#define CMP_MAX_WARNINGS 64

/* A comparison of runs. */
struct cmp {
    struct cmp_run *runs; /* owned */
    int n_runs;
    struct cmp_step *steps; /* owned */
    int n_steps;
    char *warnings[CMP_MAX_WARNINGS]; /* heap strings */
    int n_warnings;
};

/*
 * Read one run record from a run folder or a run.json path.  Every failure
 * is E_USAGE with a message that starts with the file ("x/run.json:3:17:
 * truncated JSON (...)", "x/run.json: record_version 7 is newer than ...").
 */
int cmp_run_load(struct cmp_run *r, const char *arg, struct err *e);
/*
 * Take a parsed record (ownership passes, even on failure) named name (a
 * file path for messages): it must be an object with an integer
 * tool.record_version from 1 to RECORD_VERSION and a string label; the
 * parts read (status, change, started, config, environment, load, run, the
 * figures) must have their types where present.
 */
int cmp_run_from_json(struct cmp_run *r, json_t *doc, const char *name, struct err *e);
void cmp_run_release(struct cmp_run *r);

/*
 * Read the runs named by args in order.  An argument that is a folder
 * without run.json but with run folders below it stands for those, sorted
 * by name (= by time).  *runs is heap (cmp_build takes it).
 */
int cmp_load_args(const char *const *args, int nargs, struct cmp_run **runs, int *n_runs,
                  struct err *e);

/*
 * What changed from run a (old) to run b (new): the differences of their
 * tool, config and environment sections, derived ones marked (as a step's
 * diffs above).  *out is heap (free it), *n_out its count; 0.  Shared with
 * history (results/history.h), which names what changed at a change point.
 */
int cmp_run_diff(const struct cmp_run *a, const struct cmp_run *b, struct cmp_diff **out,
                 int *n_out);

/*
 * Group runs into steps, compute medians, ranges and differences, and the
 * warnings.  Takes ownership of runs (freed by cmp_release, also on
 * failure).  Refuses incomparable runs with E_USAGE unless force.
 */
int cmp_build(struct cmp *c, struct cmp_run *runs, int n_runs, int force, struct err *e);
void cmp_release(struct cmp *c);

/* The gain (or change) of metric m from old to new as a fraction: NAN when undefined. */
double cmp_gain(int metric, double old_v, double new_v);
/* 1 when step s's gain over step base is within noise for metric m. */
int cmp_within_noise(const struct cmp *c, int s, int base, int metric);
/*
 * The figures judged for significance, in the order shown: NOTPM, TPS, load
 * time, New-Order p90.
 */
#define CMP_NSIG 4
extern const int cmp_sig_metrics[CMP_NSIG];
/* How metric m gains (enum sig_kind): load time shrinks, throughput grows, latency changes. */
int cmp_sig_kind(int metric);
/* Step s against step base for metric m: the gain of the medians, its interval and verdict. */
void cmp_sig(const struct cmp *c, int s, int base, int metric, struct sig_result *r);
/* 1 when a step and the one before it (or the first) both have 2 runs or more. */
int cmp_any_sig(const struct cmp *c);
/* The comparisons the significance tables list, in order: each step from the
 * second against the step before and (from the third) against the first.
 * *k is the cursor (start at 0); returns 0 at the end. */
int cmp_sig_next(const struct cmp *c, int *k, int *s, int *base);
/* "[-5.1, +9.6]" (percent) or "-" when there is no interval. */
void cmp_fmt_ci(char *buf, size_t len, const struct sig_result *r);

/* "load_time", "notpm", "tps", "p90.new_order", ... */
const char *cmp_metric_name(int metric, char *buf, size_t len);

/* Output formats. */
enum cmp_format { CMP_TEXT = 0, CMP_MARKDOWN, CMP_CSV, CMP_JSON };
/* CMP_* for "text", "markdown", "csv", "json"; -1 otherwise. */
int cmp_format_parse(const char *s);

/*
 * A regression rule: METRIC OP SIGNED_PERCENT, e.g. "notpm < -5%".
 *   METRIC   notpm | tps | load_time | p90.TYPE | p99.TYPE
 *            (TYPE: new_order, payment, order_status, delivery, stock_level)
 *   OP       <  (trips when the change is below the threshold)
 *            >  (trips when it is above)
 *   SIGNED_PERCENT  a sign, digits, optional fraction, '%': -5%, +10%, +2.5%
 *            (the sign is required: "notpm < 5%" would trip on any gain under
 *            5 %, which is rarely what was meant)
 * Blanks are allowed between the parts.  The change is new / old - 1 of the
 * metric's value (for load_time and latencies too: + is slower), of the last
 * step's median against the first step's.  A change exactly at the threshold
 * does not trip.  The durability rule "lost > N" (N an integer >= 0; no
 * sign, no '%') trips when a run of any step from the first to the judged
 * one lost more than N acknowledged transactions in its durability check
 * (run.json acid.durability.lost), or its server did not come back from
 * the crash (a step in between without the check is passed over); a run
 * of the judged step without that check cannot be judged (E_USAGE).  When both steps have 2 runs or more the rule trips only on
 * a significant breach: when the whole 95 % confidence interval of the
 * change is past the threshold (as the study's gate); with a single run on
 * either side, when the change of the medians is.
 */
struct cmp_rule {
    char text[128]; /* the rule as given */
    int lost;       /* 1: the durability rule "lost > N" (N in pct; metric unused) */
    int metric;     /* enum cmp_metric */
    char op;        /* '<' or '>' */
    double pct;     /* the threshold in percent, e.g. -5 */
};
/* Parse text; on error *col is the 1-based column of the fault (E_USAGE). */
int cmp_rule_parse(const char *text, struct cmp_rule *r, int *col, struct err *e);

/* The outcome of one rule. */
struct cmp_verdict {
    double old_v, new_v;         /* the first and last step's medians */
    double change_pct;           /* (new / old - 1) * 100 */
    double ci_lo_pct, ci_hi_pct; /* its 95 % interval; NAN with a single run on a side */
    int by_interval;             /* 1: judged by the interval (both steps have repeats) */
    int tripped;                 /* 1: the rule fails the comparison */
    int within_noise;            /* the change is within noise (see above) */
    /* The durability rule, tripped: the step it names (the one that lost
     * the most, or whose server did not come back; 0-based in c, in a
     * study's plan after the study maps it) and its label; new_v is what
     * that step lost (-1: no recovery); n_steps_lost the steps past N. */
    int lost_step;
    char lost_label[64];
    int n_steps_lost;
};
/* Evaluate r on c (last step against first).  E_USAGE when a step lacks the metric. */
int cmp_rule_eval(const struct cmp *c, const struct cmp_rule *r, struct cmp_verdict *v,
                  struct err *e);
/* The same for step s against step base (the study's gate: its last step but the A/A control
 * against its baseline). */
int cmp_rule_eval_steps(const struct cmp *c, const struct cmp_rule *r, int base, int s,
                        struct cmp_verdict *v, struct err *e);
/*
 * What rule r's verdict v says, as compare and the study print it (after
 * their prefix): 1 it tripped ("--fail-if 'notpm < -5%' tripped: notpm
 * 30215 -> 28100 is -7.00 % ..."), 0 its median is past the threshold but
 * not significantly (not tripped), -1 nothing to say (buf "").
 */
int cmp_verdict_text(char *buf, size_t len, const struct cmp_rule *r, const struct cmp_verdict *v);
/*
 * Judge r on the figures of the old and new runs (NAN values left out):
 * medians, change, interval, tripped (the rule above); within_noise is the
 * interval's verdict.  Shared by compare's gate and history's.
 */
void cmp_rule_judge(const struct cmp_rule *r, const double *old_v, int n_old, const double *new_v,
                    int n_new, struct cmp_verdict *v);

/* Print the comparison; rules/verdicts (n_rules of them) go into the JSON output. */
void cmp_print(FILE *out, const struct cmp *c, int format, const struct cmp_rule *rules,
               const struct cmp_verdict *verdicts, int n_rules);

/*
 * How cmp_print_steps() lays out the step table; all zero (or NULL for the
 * whole): as compare prints it.  The study prints its step table with it.
 */
struct cmp_table_opts {
    int runs_of;        /* > 0: the runs column is always shown, as "2/3" (runs of runs_of) */
    int full_notes;     /* 1: change notes in full (else cut after 33 characters) */
    const int *step_no; /* the number shown for step s, NULL: s + 1 */
};
/*
 * The text step table: a line per step (the median of each figure, its
 * gains against the step before and the first, the change note) with the
 * runs' min..max under a step of repeats, then what "~" (within noise)
 * means and why a step lacks the metrics the others have.  Its columns
 * (and markdown's) are one array in compare.c, step_cols: a new column is
 * one entry there.  The last, "waits", shown when a run has waits, names
 * each step's largest wait change against the step before.
 */
void cmp_print_steps(FILE *out, const struct cmp *c, const struct cmp_table_opts *o);

struct wdiff_change;
/*
 * The largest wait change of step s against the step before, the two steps'
 * runs pooled (wdiff_largest_of, results/waitdiff.h): 1 and *out; 0 and why
 * (the first step, a step without waits and the reason, no change beyond the
 * sampling error).  The step table's "waits" column; the study's study.json.
 */
int cmp_step_wait_change(const struct cmp *c, int s, struct wdiff_change *out, char *why,
                         size_t len);

/* A short text for the step's figure (median) of metric m: "4.50", "21555", "-". */
void cmp_fmt_value(char *buf, size_t len, int metric, double v);
/* "+1011.1 %" or "-" */
void cmp_fmt_pct(char *buf, size_t len, double frac);

/* The value at a dotted path ("run.transactions.new_order") in doc, or NULL. */
json_t *cmp_jpath(json_t *doc, const char *path);
/* One CSV field (quoted when it holds a comma, a quote or a line end), then a
 * comma, or a line end when last. */
void cmp_csv_field(FILE *out, const char *s, int last);
/* v as a JSON number, or null where it is NaN (no figure) or infinite. */
json_t *cmp_jnum(double v);
/* doc as compare and history print their JSON (indented, keys in their
 * order, 10 significant digits), a line end, then doc freed. */
void cmp_json_print(FILE *out, json_t *doc);

#endif
