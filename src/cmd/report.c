/*
 * report.c - `tpccbench report RUN... -o report.html`: one self-contained
 * HTML file with the step table, charts, what changed and the environment
 * (src/results/report.c builds it).  This file parses the command line,
 * writes the file atomically and picks the exit code: 0 ok, 2 bad usage,
 * unreadable or incomparable records.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "core/opt.h"
#include "results/compare.h"
#include "results/record.h"
#include "results/report.h"

static void report_usage(FILE *out)
{
    fprintf(out,
            "usage: tpccbench report RUN [RUN...] [-o FILE] [--title TEXT] [--force]\n"
            "       tpccbench report --history RESULTS_DIR... [-o FILE] (see report --history "
            "--help)\n"
            "\n"
            "Write one self-contained HTML file (no network access needed to view or print it)\n"
            "for the runs in the order given, grouped into steps as 'tpccbench compare' does:\n"
            "the step table with gains, bars of load time and TPS per step, TPS and NOTPM over\n"
            "time per run (from series.csv), latency percentiles per transaction type, what\n"
            "changed at each step, and the environment; each run second by second where its\n"
            "record has it: TPS with the checkpoints, autovacuums, stalls and outages over it,\n"
            "its sessions by wait class (all types, or one at a click), New-Order's latency\n"
            "heatmap.  RUN: a run folder, its run.json, or a results folder standing for every\n"
            "run folder in it.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE  where to write (default report.html); written atomically\n"
            "  --title TEXT       the page title (default \"tpccbench report\")\n"
            "  --force            accept runs whose warehouses, duration, mix, virtual users or\n"
            "                     isolation differ\n"
            "  -h, --help         this text\n");
}

enum { REP_O_OUTPUT, REP_O_TITLE, REP_O_FORCE, REP_O_HELP };
static const struct opt_spec rep_opt_table[] = {
    [REP_O_OUTPUT] = { "output", 'o', 1, NULL },
    [REP_O_TITLE] = { "title", 0, 1, NULL },
    [REP_O_FORCE] = { "force", 0, 0, NULL },
    [REP_O_HELP] = { "help", 'h', 0, NULL },
};

int cmd_report(int argc, char **argv)
{
    const char *args[256], *output = "report.html", *title = NULL;
    char dir[PATH_MAX], name[PATH_MAX], generated[32];
    struct cmp_run *runs;
    struct report_opts o;
    struct cmp c;
    struct err e;
    char *html = NULL;
    size_t len = 0;
    int nargs = 0, force = 0, n_runs, found, which;
    struct opt_parser p;
    const char *val;
    time_t now = time(NULL);
    struct tm tm;

    /* report --history is history's page (cmd/history.c). */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--history") == 0)
            return cmd_report_history(argc, argv);
    err_clear(&e);
    if (opt_init(&p, "report", rep_opt_table, OPT_COUNT(rep_opt_table), argc - 1, argv + 1, &e) < 0)
        return cmd_fail("report", &e);
    while ((found = opt_next(&p, &which, &val, &e)) != OPT_END) {
        if (found < 0) {
            opt_release(&p);
            return cmd_fail("report", &e);
        }
        if (found == OPT_ARG) {
            if (nargs >= (int)(sizeof(args) / sizeof(args[0]))) {
                opt_release(&p);
                fprintf(stderr, "tpccbench report: too many runs (at most %d arguments)\n",
                        (int)(sizeof(args) / sizeof(args[0])));
                return 2;
            }
            args[nargs++] = val;
        } else if (which == REP_O_HELP) {
            opt_release(&p);
            report_usage(stdout);
            return 0;
        } else if (which == REP_O_FORCE) {
            force = 1;
        } else if (which == REP_O_OUTPUT) {
            output = val;
        } else if (which == REP_O_TITLE) {
            title = val;
        }
    }
    opt_release(&p);
    if (!output || !output[0] || output[strlen(output) - 1] == '/') {
        fprintf(stderr, "tpccbench report: '-o' needs a file name\n");
        return 2;
    }
    if (nargs < 1) {
        fprintf(stderr, "tpccbench report: give at least one run (run folders or run.json "
                        "files; see 'tpccbench report --help')\n");
        return 2;
    }
    if (cmp_load_args(args, nargs, &runs, &n_runs, &e) < 0)
        return cmd_fail("report", &e);
    if (cmp_build(&c, runs, n_runs, force, &e) < 0) {
        cmp_release(&c);
        return cmd_fail("report", &e);
    }
    if (gmtime_r(&now, &tm) && strftime(generated, sizeof(generated), "%Y-%m-%d %H:%M UTC", &tm))
        o.generated = generated;
    else
        o.generated = NULL;
    o.title = title;
    if (report_html(&c, &o, &html, &len, &e) < 0) {
        cmp_release(&c);
        return cmd_fail("report", &e);
    }
    for (int i = 0; i < c.n_warnings; i++)
        fprintf(stderr, "warning: %s\n", c.warnings[i]);
    cmp_release(&c);
    {
        const char *slash = strrchr(output, '/');
        if (slash) {
            snprintf(dir, sizeof(dir), "%.*s", (int)(slash == output ? 1 : slash - output), output);
            snprintf(name, sizeof(name), "%s", slash + 1);
        } else {
            snprintf(dir, sizeof(dir), ".");
            snprintf(name, sizeof(name), "%s", output);
        }
    }
    if (record_write_file(dir, name, html, len, &e) < 0) {
        free(html);
        return cmd_fail("report", &e);
    }
    free(html);
    printf("report: %s\n", output);
    return 0;
}
