/*
 * history.c - `tpccbench history [RUN | RESULTS_DIR]...`: run records as
 * series of the same benchmark, their change points, what changed there,
 * and the nightly gate (--fail-if).  Also `tpccbench report --history`,
 * the same as an HTML file.  The work is in src/results/history.c; this
 * file parses the command line, prints and picks the exit code: 0 ok, 1 a
 * rule tripped, 2 bad usage or no usable records.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/opt.h"
#include "results/history.h"
#include "results/record.h"

#define MAX_RULES 32
#define MAX_ARGS  256

static void history_usage(FILE *out, int report)
{
    fprintf(
        out,
        "usage: tpccbench %s [RUN | RESULTS_DIR]... [--format F] [--label GLOB]\n"
        "         [--since WHEN] [--until WHEN] [--metric PATH] [--alpha P] [--min-change PCT]\n"
        "         [--min-runs N] [--fail-if RULE]... [--window N]%s\n"
        "\n"
        "Read every complete run record given (run folders, run.json files, or folders of\n"
        "them at any depth: results folders, study folders), group them into series of\n"
        "the same benchmark (kind, warehouses, terminals, connections, mode, mix, think\n"
        "time, isolation, duration, DBMS), each in time order, and find where each\n"
        "series' NOTPM, TPS, load time and New-Order p90 changed: E-Divisive with means,\n"
        "each change point kept only when Welch's t test between the runs either side\n"
        "gives p < --alpha.  Each change point: the run it starts at, the medians before\n"
        "and after, the change in %% with its 95 %% interval, p, and what changed at that\n"
        "run against the run before it (as 'tpccbench compare' says it).  A folder's\n"
        "index (" HISTORY_INDEX_NAME ") keeps one line per run; it is rebuilt when missing,\n"
        "stale or damaged, and said so.\n"
        "\n"
        "options:\n"
        "  --format F        text (default), markdown, csv, json or html\n"
        "  -o, --output FILE write there (atomically) instead of standard output%s\n"
        "  --label GLOB      only runs whose label matches (shell pattern, e.g. 'nightly-*')\n"
        "  --since WHEN      only runs started at or after WHEN (2026-01-31, or\n"
        "                    2026-01-31T08:00:00Z; UTC, compared to that precision)\n"
        "  --until WHEN      only runs started at or before WHEN (same form)\n"
        "  --metric PATH     also judge the number at PATH in run.json, e.g.\n"
        "                    run.transactions.payment.p99_ms (reads every record)\n"
        "  --alpha P         the largest p-value kept (default 0.001)\n"
        "  --min-change PCT  the smallest change kept, in %% of the median before (default 0)\n"
        "  --min-runs N      runs needed on each side of a change point (default 4, >= 2);\n"
        "                    a shorter series is too short to judge, and says so\n"
        "  --fail-if RULE    exit 1 when a change point in effect over the newest --window\n"
        "                    runs breaks RULE (compare's rules: 'notpm < -3%%',\n"
        "                    'p90.new_order > +10%%'; the change is after/before - 1 of the\n"
        "                    medians, tripping when its whole 95 %% interval is past RULE)\n"
        "  --window N        the newest runs the gate looks at (default 1: the change point\n"
        "                    the newest run's level starts at)\n"
        "  -h, --help        this text\n"
        "\n"
        "exit: 0 ok, 1 a --fail-if rule tripped, 2 usage or no usable run records\n",
        report ? "report --history" : "history", report ? " [-o FILE]" : "",
        report ? " (default history.html)" : "");
}

enum {
    H_FORMAT,
    H_OUTPUT,
    H_LABEL,
    H_SINCE,
    H_UNTIL,
    H_METRIC,
    H_ALPHA,
    H_MIN_CHANGE,
    H_MIN_RUNS,
    H_FAIL_IF,
    H_WINDOW,
    H_HISTORY,
    H_HELP
};
static const struct opt_spec h_opt_table[] = {
    [H_FORMAT] = { "format", 0, 1, "a value (text, markdown, csv, json or html)" },
    [H_OUTPUT] = { "output", 'o', 1, "a file name" },
    [H_LABEL] = { "label", 0, 1, "a pattern, e.g. 'nightly-*'" },
    [H_SINCE] = { "since", 0, 1, "a date, e.g. 2026-01-31" },
    [H_UNTIL] = { "until", 0, 1, "a date, e.g. 2026-01-31" },
    [H_METRIC] = { "metric", 0, 1, "a path into run.json, e.g. run.tps" },
    [H_ALPHA] = { "alpha", 0, 1, "a p-value, e.g. 0.001" },
    [H_MIN_CHANGE] = { "min-change", 0, 1, "a percentage, e.g. 2" },
    [H_MIN_RUNS] = { "min-runs", 0, 1, "a number of runs, e.g. 4" },
    [H_FAIL_IF] = { "fail-if", 0, 1, "a rule, e.g. 'notpm < -3%'" },
    [H_WINDOW] = { "window", 0, 1, "a number of runs, e.g. 7" },
    [H_HISTORY] = { "history", 0, 0, NULL },
    [H_HELP] = { "help", 'h', 0, NULL },
};

/* The command line of history. */
struct history_args {
    const char *args[MAX_ARGS];
    int nargs;
    struct cmp_rule rules[MAX_RULES];
    int n_rules;
    int format;         /* history_format_parse */
    const char *output; /* -o, NULL: stdout */
    struct history_opts o;
    const char *cmd; /* "history" or "report" for messages */
};

/* WHEN: YYYY-MM-DD, then optionally THH, :MM, :SS, Z. */
static int when_ok(const char *s)
{
    static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
    size_t n = strlen(s);

    if (n != 10 && n != 13 && n != 16 && n != 19 && n != 20)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (form[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != form[i])
            return 0;
    return 1;
}

static int bad_value(const struct history_args *a, const char *opt, const char *val,
                     const char *what)
{
    fprintf(stderr, "tpccbench %s: --%s '%s': %s\n", a->cmd, opt, val, what);
    return 2;
}

/* A number in [lo, hi] (with an optional final '%' when pct), or -1 with the message printed. */
static int number(const struct history_args *a, const char *opt, const char *val, double lo,
                  double hi, int pct, double *out, const char *what)
{
    char *end;

    errno = 0;
    *out = strtod(val, &end);
    if (pct && *end == '%')
        end++;
    if (end == val || *end || errno || isnan(*out) || *out < lo || *out > hi)
        return bad_value(a, opt, val, what), -1;
    return 0;
}

static int take_rule(struct history_args *a, const char *val)
{
    struct err e;
    int col;

    if (a->n_rules >= MAX_RULES) {
        fprintf(stderr, "tpccbench %s: too many --fail-if rules (at most %d)\n", a->cmd, MAX_RULES);
        return 2;
    }
    if (cmp_rule_parse(val, &a->rules[a->n_rules], &col, &e) < 0) {
        fprintf(stderr, "tpccbench %s: --fail-if '%s': column %d: %s\n", a->cmd, val, col, e.msg);
        fprintf(stderr, "  %s\n  %*s^\n", val, col > 1 ? col - 1 : 0, "");
        return 2;
    }
    if (a->rules[a->n_rules].lost) {
        fprintf(stderr, "tpccbench %s: --fail-if '%s': the durability rule is for compare and "
                        "study (a step's check), not for figures over time\n", a->cmd, val);
        return 2;
    }
    a->n_rules++;
    return -1;
}

/* One option: -1 to go on, else the exit code (the message printed). */
static int take_option(struct history_args *a, int which, const char *val, int report)
{
    double d;

    switch (which) {
    case H_HELP:
        history_usage(stdout, report);
        return 0;
    case H_FORMAT:
        if ((a->format = history_format_parse(val)) < 0 || (report && a->format != HISTORY_HTML))
            return bad_value(a, "format", val,
                             report ? "report --history writes html only"
                                    : "unknown format (text, markdown, csv, json or html)");
        break;
    case H_OUTPUT:
        if (!val[0] || val[strlen(val) - 1] == '/')
            return bad_value(a, "output", val, "needs a file name");
        a->output = val;
        break;
    case H_LABEL:
        a->o.label_glob = val;
        break;
    case H_SINCE:
    case H_UNTIL:
        if (!when_ok(val))
            return bad_value(a, which == H_SINCE ? "since" : "until", val,
                             "must be a UTC date or time: 2026-01-31, 2026-01-31T08, "
                             "2026-01-31T08:00, 2026-01-31T08:00:00 or 2026-01-31T08:00:00Z");
        *(which == H_SINCE ? &a->o.since : &a->o.until) = val;
        break;
    case H_METRIC:
        if (!val[0] || val[0] == '.' || val[strlen(val) - 1] == '.' || strstr(val, ".."))
            return bad_value(a, "metric", val,
                             "must be a dotted path into run.json, e.g. run.transactions.payment."
                             "p99_ms");
        a->o.metric_path = val;
        break;
    case H_ALPHA:
        if (number(a, "alpha", val, 1e-300, 0.5, 0, &a->o.ed.alpha,
                   "must be a p-value above 0 and at most 0.5, e.g. 0.001") < 0)
            return 2;
        break;
    case H_MIN_CHANGE:
        if (number(a, "min-change", val, 0, 1000, 1, &d,
                   "must be a percentage from 0 to 1000, e.g. 2 or 2%") < 0)
            return 2;
        a->o.ed.min_change = d / 100.0;
        break;
    case H_MIN_RUNS:
    case H_WINDOW:
        if (number(a, which == H_MIN_RUNS ? "min-runs" : "window", val, which == H_MIN_RUNS ? 2 : 1,
                   100000, 0, &d,
                   which == H_MIN_RUNS ? "must be a whole number of runs from 2 to 100000"
                                       : "must be a whole number of runs from 1 to 100000") < 0)
            return 2;
        if (d != floor(d))
            return bad_value(a, which == H_MIN_RUNS ? "min-runs" : "window", val,
                             "must be a whole number of runs");
        *(which == H_MIN_RUNS ? &a->o.ed.min_runs : &a->o.window) = (int)d;
        break;
    case H_FAIL_IF:
        return take_rule(a, val);
    case H_HISTORY:
        if (!report)
            return bad_value(a, "history", "", "is an option of 'tpccbench report'");
        break;
    default:
        break;
    }
    return -1;
}

static int parse_args(struct history_args *a, int argc, char **argv, int report)
{
    struct opt_parser p;
    struct err e;
    const char *val;
    int found, which, rc = -1;

    err_clear(&e);
    if (opt_init(&p, a->cmd, h_opt_table, OPT_COUNT(h_opt_table), argc - 1, argv + 1, &e) < 0)
        return cmd_fail(a->cmd, &e);
    while (rc < 0 && (found = opt_next(&p, &which, &val, &e)) != OPT_END) {
        if (found < 0)
            rc = cmd_fail(a->cmd, &e);
        else if (found != OPT_ARG)
            rc = take_option(a, which, val, report);
        else if (a->nargs >= MAX_ARGS)
            rc = bad_value(a, "", val, "too many arguments (at most 256)");
        else
            a->args[a->nargs++] = val;
    }
    opt_release(&p);
    if (rc < 0 && a->nargs < 1) {
        fprintf(stderr,
                "tpccbench %s: give run folders or results folders (see 'tpccbench %s "
                "--help')\n",
                a->cmd, report ? "report --history" : "history");
        rc = 2;
    }
    return rc;
}

/* The figures judged: the four of compare's significance, --metric, and each rule's. */
static int metrics_of(const struct history_args *a, int *m)
{
    int n = 0;

    for (int i = 0; i < CMP_NSIG; i++)
        m[n++] = cmp_sig_metrics[i];
    if (a->o.metric_path)
        m[n++] = HISTORY_CUSTOM;
    for (int r = 0; r < a->n_rules && n < HISTORY_MAX_METRICS; r++) {
        int have = 0;
        for (int i = 0; i < n; i++)
            have |= m[i] == a->rules[r].metric;
        if (!have)
            m[n++] = a->rules[r].metric;
    }
    return n;
}

/* Say why there is nothing to judge; 2. */
static int nothing(const struct history_args *a, const struct history_set *s)
{
    fprintf(stderr, "tpccbench %s: no usable run records: %d read", a->cmd, s->n_read);
    for (int i = 0; i < s->n_reasons; i++)
        fprintf(stderr, "%s %d %s", i ? "," : ";", s->n_reason[i], s->reasons[i]);
    if (s->n_filtered)
        fprintf(stderr, "; %d outside --label/--since/--until", s->n_filtered);
    fprintf(stderr, " (history reads the records of complete runs and benches)\n");
    return 2;
}

/* Print each trip; 1 when any. */
static int report_trips(const struct history_args *a, const struct history *h,
                        const struct history_trip *t, int n)
{
    char cp[1024], what[2048];

    for (int i = 0; i < n; i++) {
        const struct history_series *s = &h->series[t[i].series];
        history_fmt_cp(cp, sizeof(cp), h, t[i].series, t[i].metric, t[i].cp);
        history_fmt_what(what, sizeof(what), history_what_at(s, s->m[t[i].metric].cps[t[i].cp].run));
        fprintf(stderr,
                "tpccbench %s: --fail-if '%s' tripped: series %d (%s): change point at %s "
                "(the rule judges %+.2f %% [%+.2f, %+.2f]); what changed there: %s\n",
                a->cmd, t[i].rule->text, t[i].series + 1, s->key, cp, t[i].v.change_pct,
                t[i].v.ci_lo_pct, t[i].v.ci_hi_pct, what);
    }
    if (n == 0)
        for (int r = 0; r < a->n_rules; r++)
            fprintf(stderr,
                    "history: --fail-if '%s': no significant change point in effect over the "
                    "newest %d run%s of any series breaks it\n",
                    a->rules[r].text, a->o.window, a->o.window == 1 ? "" : "s");
    return n ? 1 : 0;
}

/* Print h to a->output (atomically) or stdout: 0, or the exit code. */
static int emit(const struct history_args *a, const struct history *h, const struct history_trip *t,
                int n)
{
    char dir[PATH_MAX], name[PATH_MAX], *buf = NULL;
    const char *slash;
    size_t len = 0;
    struct err e;
    FILE *mem;

    if (!a->output) {
        history_print(stdout, h, a->format, t, n);
        fflush(stdout);
        return 0;
    }
    if (!(mem = open_memstream(&buf, &len))) {
        fprintf(stderr, "tpccbench %s: out of memory\n", a->cmd);
        return 2;
    }
    history_print(mem, h, a->format, t, n);
    fclose(mem);
    slash = strrchr(a->output, '/');
    snprintf(dir, sizeof(dir), "%.*s",
             slash ? (int)(slash == a->output ? 1 : slash - a->output) : 1,
             slash ? a->output : ".");
    snprintf(name, sizeof(name), "%s", slash ? slash + 1 : a->output);
    err_clear(&e);
    if (record_write_file(dir, name, buf, len, &e) < 0) {
        free(buf);
        return cmd_fail(a->cmd, &e);
    }
    free(buf);
    printf("%s: %s\n", a->format == HISTORY_HTML ? "report" : "history", a->output);
    return 0;
}

static int history_main(int argc, char **argv, int report)
{
    static struct history_args a;
    struct history_trip trips[256];
    struct history h;
    struct err e;
    int metrics[HISTORY_MAX_METRICS], n_trips, rc;

    memset(&a, 0, sizeof(a));
    memset(&h, 0, sizeof(h));
    a.cmd = report ? "report" : "history";
    a.format = report ? HISTORY_HTML : CMP_TEXT;
    a.output = report ? "history.html" : NULL;
    a.o.ed.alpha = 0.001;
    a.o.ed.min_runs = 4;
    a.o.window = 1;
    a.o.notes = stderr;
    if ((rc = parse_args(&a, argc, argv, report)) >= 0)
        return rc;
    err_clear(&e);
    if (history_load(a.args, a.nargs, &a.o, &h.set, &e) < 0) {
        history_set_release(&h.set);
        return cmd_fail(a.cmd, &e);
    }
    if (h.set.n == 0) {
        rc = nothing(&a, &h.set);
        history_set_release(&h.set);
        return rc;
    }
    h.o = a.o;
    h.metric_path = a.o.metric_path;
    if (history_build(&h, metrics, metrics_of(&a, metrics), &e) < 0) {
        history_release(&h);
        return cmd_fail(a.cmd, &e);
    }
    n_trips = history_gate(&h, a.rules, a.n_rules, trips, 256);
    if ((rc = emit(&a, &h, trips, n_trips)) == 0)
        rc = report_trips(&a, &h, trips, n_trips);
    history_release(&h);
    return rc;
}

int cmd_history(int argc, char **argv)
{
    return history_main(argc, argv, 0);
}

int cmd_report_history(int argc, char **argv)
{
    return history_main(argc, argv, 1);
}
