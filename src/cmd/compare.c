/*
 * compare.c - `tpccbench compare RUN RUN [RUN...]`: the step table of a
 * tuning study, what changed at each step, and the regression gate
 * (--fail-if).  The work is in src/results/compare.c; this file parses the
 * command line, prints and picks the exit code: 0 ok, 1 a rule tripped,
 * 2 bad usage, unreadable or incomparable records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/opt.h"
#include "results/compare.h"

#define MAX_RULES 32

static void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: tpccbench compare RUN RUN [RUN...] [--format F] [--fail-if RULE]... [--force]\n"
            "\n"
            "Compare run records in the order given (RUN: a run folder, its run.json, or a\n"
            "results folder standing for every run folder in it, by time; a study's folder:\n"
            "its complete runs step by step).  Runs in a row with the same label are the\n"
            "repeats of one step: their median is compared and their min..max shown.\n"
            "Prints the step table (load time with its gain against\n"
            "the step before and the first, NOTPM, TPS, New-Order p90), then what changed\n"
            "at each step in the tool, config and environment (settings: old -> new), and\n"
            "where the records have waits, per transaction type the waits whose share of\n"
            "its samples changed most, then CPU's share ((~): within the sampling error).\n"
            "Gains: load time old/new - 1, NOTPM and TPS new/old - 1.  Steps with repeats\n"
            "also get each gain's 95 %% confidence interval and a verdict (significant gain,\n"
            "significant loss, within noise).\n"
            "\n"
            "options:\n"
            "  --format F        text (default), markdown, csv or json (csv: no waits)\n"
            "  --fail-if RULE    exit 1 when the last step against the first breaks RULE:\n"
            "                    METRIC < or > SIGNED_PERCENT, e.g. 'notpm < -5%%',\n"
            "                    'load_time > +10%%', 'p90.new_order > +20%%'; metrics: notpm,\n"
            "                    tps, load_time, p90.TYPE, p99.TYPE; the change is new/old - 1\n"
            "                    of the metric (repeatable); when both steps have repeats\n"
            "                    it trips only when the whole 95 %% interval is past it\n"
            "                    'lost > 0': a run of any step lost an acknowledged\n"
            "                    transaction in its durability check (bench or study\n"
            "                    --durability; the table's column durable); names the step\n"
            "  --force           compare runs whose warehouses, duration, mix, virtual users\n"
            "                    or isolation differ (refused otherwise)\n"
            "  -h, --help        this text\n"
            "\n"
            "exit: 0 ok, 1 a --fail-if rule tripped, 2 usage, unreadable or incomparable runs\n");
}

/* Say where a rule is wrong: the message, then the rule with a caret under the column. */
static int rule_error(const char *rule, int col, const struct err *e)
{
    fprintf(stderr, "tpccbench compare: --fail-if '%s': column %d: %s\n", rule, col, e->msg);
    fprintf(stderr, "  %s\n  %*s^\n", rule, col > 1 ? col - 1 : 0, "");
    return 2;
}

enum { CMP_O_FORMAT, CMP_O_FAIL_IF, CMP_O_FORCE, CMP_O_HELP };
static const struct opt_spec cmp_opt_table[] = {
    [CMP_O_FORMAT] = { "format", 0, 1, "a value (text, markdown, csv or json)" },
    [CMP_O_FAIL_IF] = { "fail-if", 0, 1, "a rule, e.g. 'notpm < -5%'" },
    [CMP_O_FORCE] = { "force", 0, 0, NULL },
    [CMP_O_HELP] = { "help", 'h', 0, NULL },
};

/* The command line of compare. */
struct compare_args {
    const char *args[256]; /* the runs, as given */
    int nargs;
    struct cmp_rule rules[MAX_RULES]; /* --fail-if */
    int n_rules;
    int format; /* enum cmp_format */
    int force;  /* --force: compare incomparable runs */
};

/* One option (which, with its value val): -1 to go on, else the exit code (the message printed). */
static int take_option(struct compare_args *a, int which, const char *val, struct err *e)
{
    int col;

    switch (which) {
    case CMP_O_HELP:
        compare_usage(stdout);
        return 0;
    case CMP_O_FORCE:
        a->force = 1;
        break;
    case CMP_O_FORMAT:
        if ((a->format = cmp_format_parse(val)) < 0) {
            fprintf(stderr,
                    "tpccbench compare: unknown format '%s' (text, markdown, csv or "
                    "json)\n",
                    val);
            return 2;
        }
        break;
    case CMP_O_FAIL_IF:
        if (a->n_rules >= MAX_RULES) {
            fprintf(stderr, "tpccbench compare: too many --fail-if rules (at most %d)\n",
                    MAX_RULES);
            return 2;
        }
        if (cmp_rule_parse(val, &a->rules[a->n_rules], &col, e) < 0)
            return rule_error(val, col, e);
        a->n_rules++;
        break;
    default:
        break;
    }
    return -1;
}

/* Parse argv into a: -1 to go on, else the exit code (usage or the error printed). */
static int parse_args(struct compare_args *a, int argc, char **argv, struct err *e)
{
    const int max_args = (int)(sizeof(a->args) / sizeof(a->args[0]));
    struct opt_parser p;
    const char *val;
    int found, which, rc = -1;

    if (opt_init(&p, "compare", cmp_opt_table, OPT_COUNT(cmp_opt_table), argc - 1, argv + 1, e) < 0)
        return cmd_fail("compare", e);
    while (rc < 0 && (found = opt_next(&p, &which, &val, e)) != OPT_END) {
        if (found < 0) {
            rc = cmd_fail("compare", e);
        } else if (found != OPT_ARG) {
            rc = take_option(a, which, val, e);
        } else if (a->nargs >= max_args) {
            fprintf(stderr, "tpccbench compare: too many runs (at most %d arguments)\n", max_args);
            rc = 2;
        } else {
            a->args[a->nargs++] = val;
        }
    }
    opt_release(&p);
    if (rc < 0 && a->nargs < 1) {
        fprintf(stderr, "tpccbench compare: give at least two runs (run folders or run.json "
                        "files; see 'tpccbench compare --help')\n");
        rc = 2;
    }
    return rc;
}

/* Say what rule r did: tripped (1), or past its threshold but not significantly (0). */
static int report_rule(const struct cmp_rule *r, const struct cmp_verdict *v)
{
    char msg[768];
    int said = cmp_verdict_text(msg, sizeof(msg), r, v);

    if (said >= 0)
        fprintf(stderr, "tpccbench compare: %s\n", msg);
    return said == 1;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_args a = { .format = CMP_TEXT };
    struct cmp_verdict verdicts[MAX_RULES];
    struct cmp_run *runs;
    struct cmp c;
    struct err e;
    int n_runs, tripped = 0, rc;

    err_clear(&e);
    if ((rc = parse_args(&a, argc, argv, &e)) >= 0)
        return rc;
    if (cmp_load_args(a.args, a.nargs, &runs, &n_runs, &e) < 0)
        return cmd_fail("compare", &e);
    if (n_runs < 2) {
        fprintf(stderr, "tpccbench compare: give at least two runs (got only '%s')\n",
                runs[0].path);
        cmp_run_release(&runs[0]);
        free(runs);
        return 2;
    }
    if (cmp_build(&c, runs, n_runs, a.force, &e) < 0) {
        cmp_release(&c);
        return cmd_fail("compare", &e);
    }
    for (int i = 0; i < a.n_rules; i++)
        if (cmp_rule_eval(&c, &a.rules[i], &verdicts[i], &e) < 0) {
            cmp_release(&c);
            return cmd_fail("compare", &e);
        }
    cmp_print(stdout, &c, a.format, a.rules, verdicts, a.n_rules);
    fflush(stdout);
    for (int i = 0; i < c.n_warnings; i++)
        fprintf(stderr, "warning: %s\n", c.warnings[i]);
    for (int i = 0; i < a.n_rules; i++)
        tripped += report_rule(&a.rules[i], &verdicts[i]);
    cmp_release(&c);
    return tripped ? 1 : 0;
}
