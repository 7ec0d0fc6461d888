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
#include "results/compare.h"
#include "results/record.h"
#include "results/report.h"

static void report_usage(FILE *out)
{
    fprintf(out,
            "usage: tpccbench report RUN [RUN...] [-o FILE] [--title TEXT] [--force]\n"
            "\n"
            "Write one self-contained HTML file (no network access needed to view or print it)\n"
            "for the runs in the order given, grouped into steps as 'tpccbench compare' does:\n"
            "the step table with gains, bars of load time and TPS per step, TPS and NOTPM over\n"
            "time per run (from series.csv), latency percentiles per transaction type, what\n"
            "changed at each step, and the environment.  RUN: a run folder, its run.json, or a\n"
            "results folder standing for every run folder in it.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE  where to write (default report.html); written atomically\n"
            "  --title TEXT       the page title (default \"tpccbench report\")\n"
            "  --force            accept runs whose warehouses, duration, mix, virtual users or\n"
            "                     isolation differ\n"
            "  -h, --help         this text\n");
}

/* Value of option a (--name VALUE or --name=VALUE); NULL and *bad set when missing. */
static const char *opt_value(int argc, char **argv, int *i, size_t namelen, int *bad)
{
    const char *a = argv[*i];

    if (a[namelen] == '=')
        return a + namelen + 1;
    if (*i + 1 < argc)
        return argv[++*i];
    *bad = 1;
    return NULL;
}

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
    int nargs = 0, force = 0, n_runs, opts_done = 0, bad = 0;
    time_t now = time(NULL);
    struct tm tm;

    err_clear(&e);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || !a[1]) {
            if (nargs >= (int)(sizeof(args) / sizeof(args[0]))) {
                fprintf(stderr, "tpccbench report: too many runs (at most %d arguments)\n",
                        (int)(sizeof(args) / sizeof(args[0])));
                return 2;
            }
            args[nargs++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            report_usage(stdout);
            return 0;
        } else if (strcmp(a, "--force") == 0) {
            force = 1;
        } else if (strcmp(a, "-o") == 0) {
            output = opt_value(argc, argv, &i, 2, &bad);
        } else if (strncmp(a, "--output", 8) == 0 && (a[8] == '\0' || a[8] == '=')) {
            output = opt_value(argc, argv, &i, 8, &bad);
        } else if (strncmp(a, "--title", 7) == 0 && (a[7] == '\0' || a[7] == '=')) {
            title = opt_value(argc, argv, &i, 7, &bad);
        } else {
            fprintf(stderr,
                    "tpccbench report: unknown option '%s' (see 'tpccbench report "
                    "--help')\n",
                    a);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "tpccbench report: option '%s' needs a value\n", a);
            return 2;
        }
    }
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
