/*
 * main.c - subcommand dispatch, nothing else.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

#ifndef TPCC_VERSION
#    define TPCC_VERSION "0.1.0"
#endif
#ifndef TPCC_GIT_COMMIT
#    define TPCC_GIT_COMMIT "unknown"
#endif

struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the subcommand name */
    const char *summary;
};

static const struct subcommand subcommands[] = {
    { "load", cmd_load, "create the schema, generate and load the data, index, analyze" },
    { "install-procedures", cmd_install_procedures,
      "install the server-side functions of run.mode procedure" },
    { "check", cmd_check, "check the TPC-C consistency conditions" },
    { "acid", cmd_acid, "the TPC-C atomicity and isolation tests (clause 3)" },
    { "run", cmd_run, "timed mixed workload: NOTPM, TPS, latency per run" },
    { "bench", cmd_bench, "load + run + check: one tuning step, one record" },
    { "compare", cmd_compare, "step table, % gains, what changed, regression gate" },
    { "merge", cmd_merge, "merge the records of a scale-out run's parts into one" },
    { "report", cmd_report, "self-contained HTML report: step table, charts, what changed" },
    { "iobench", cmd_iobench, "disk I/O bench with tbiobench's options and report" },
    { "netbench", cmd_netbench, "network bench: round trips and throughput (tbnetbench)" },
    { "proxy", cmd_proxy, "TCP proxy adding a one-way delay in each direction" },
    { "sweep", cmd_sweep, "the same workload at several RTTs through the delay proxy" },
    { "study", cmd_study, "a tuning study: steps of settings, repeats, significance" },
    { "history", cmd_history, "runs over time as series: change points, what changed, gate" },
    { "server", cmd_server, "the private PostgreSQL: status, or stop one left running" },
    { NULL, NULL, NULL },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: tpccbench COMMAND [options]   (tpccbench COMMAND --help for more)\n\n"
                 "A TPC-C derived load generator (results are not audited TPC-C results).\n\n"
                 "commands:\n");
    for (const struct subcommand *s = subcommands; s->name; s++)
        fprintf(out, "  %-19s %s\n", s->name, s->summary);
    fprintf(out, "  %-19s %s\n", "version", "print the version and the git commit (also --version)");
}

int main(int argc, char **argv)
{
    /* Summaries (stdout) and progress and warnings (stderr) in the order they
     * happen when both go to one file: stdout a line at a time. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("tpccbench %s (commit %s)\n", TPCC_VERSION, TPCC_GIT_COMMIT);
        return 0;
    }
    for (const struct subcommand *s = subcommands; s->name; s++)
        if (strcmp(s->name, argv[1]) == 0)
            return cmd_exit_lingering(s->fn(argc - 1, argv + 1));
    fprintf(stderr, "tpccbench: unknown command '%s' (see 'tpccbench --help')\n", argv[1]);
    return 2;
}
