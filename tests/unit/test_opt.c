/*
 * test_opt.c - unit tests for the command-line parser (src/core/opt.c).
 *
 * Table-driven: each case is an argument string (split on blanks) and what
 * the parser must report, in order, as one line: "x=V" for option x with
 * value V, "x" for a flag, "[A]" for an argument, then either nothing more
 * (the end) or "! message" for the error that stops it.  The table covers
 * every form getopt_long gives (clusters, attached values, --name=value, `--`),
 * the refused abbreviations, the negative-number arguments of netbench, and
 * that a second parse in the same process starts afresh.  Each failure
 * prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/opt.h"

#include <stdio.h>
#include <string.h>

static const struct opt_spec specs[] = {
    { "warehouses", 'w', 1, NULL },      { "force", 'f', 0, NULL }, { "keep", 'k', 0, NULL },
    { "config", 'c', 1, "a file name" }, { "driver", 0, 1, NULL },  { "drop", 0, 0, NULL },
    { "duration", 'd', 1, NULL },        { "no-load", 0, 0, NULL }, { NULL, 'b', 1, NULL },
};

/* Short name of entry i for the transcript: its long name, else its letter. */
static void entry_name(int i, char *buf, size_t len)
{
    if (specs[i].name)
        snprintf(buf, len, "%s", specs[i].name);
    else
        snprintf(buf, len, "%c", specs[i].short_name);
}

/* Parse args and write what the parser reported into out. */
static void transcript(const char *args, int negative_args, char *out, size_t len)
{
    char buf[512], *argv[32], name[32];
    int argc = 0, found, idx;
    const char *val;
    struct opt_parser p;
    struct err e;
    size_t off = 0;

    snprintf(buf, sizeof(buf), "%s", args);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 31;
         t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    out[0] = '\0';
    err_clear(&e);
    if (opt_init(&p, "test", specs, OPT_COUNT(specs), argc, argv, &e) < 0) {
        snprintf(out, len, "init failed: %s", e.msg);
        return;
    }
    p.negative_args = negative_args;
    while ((found = opt_next(&p, &idx, &val, &e)) != OPT_END && off < len) {
        const char *sep = off ? " " : "";
        if (found < 0) {
            off += (size_t)snprintf(out + off, len - off, "%s! %s", sep, e.msg);
            break;
        }
        if (found == OPT_ARG) {
            off += (size_t)snprintf(out + off, len - off, "%s[%s]", sep, val);
            continue;
        }
        entry_name(idx, name, sizeof(name));
        if (val)
            off += (size_t)snprintf(out + off, len - off, "%s%s=%s", sep, name, val);
        else
            off += (size_t)snprintf(out + off, len - off, "%s%s", sep, name);
    }
    opt_release(&p);
}

struct opt_case {
    const char *args;
    int negative_args;
    const char *want;
};

static const struct opt_case cases[] = {
    { "", 0, "" },
    /* Every form of a value. */
    { "-w 10", 0, "warehouses=10" },
    { "-w10", 0, "warehouses=10" },
    { "--warehouses 10", 0, "warehouses=10" },
    { "--warehouses=10", 0, "warehouses=10" },
    { "--warehouses=", 0, "warehouses=" },
    { "-w -5", 0, "warehouses=-5" },
    { "--warehouses --force", 0, "warehouses=--force" },
    /* Clusters of flags, ending in an option with a value, attached or not. */
    { "-fk", 0, "force keep" },
    { "-fkw 3", 0, "force keep warehouses=3" },
    { "-fkw3", 0, "force keep warehouses=3" },
    { "-fb8K", 0, "force b=8K" },
    /* Arguments in order, between the options; `--` ends the options. */
    { "a -f b --drop c", 0, "[a] force [b] drop [c]" },
    { "- -f", 0, "[-] force" },
    { "-f -- -k --drop x", 0, "force [-k] [--drop] [x]" },
    { "--", 0, "" },
    { "-- --", 0, "[--]" },
    /* The last value wins is the caller's business: both come back. */
    { "-w 1 -w 2", 0, "warehouses=1 warehouses=2" },
    /* Errors, each naming the option as it was written. */
    { "-x", 0, "! unknown option '-x' (see 'tpccbench test --help')" },
    { "-fx", 0, "force ! unknown option '-x' (see 'tpccbench test --help')" },
    { "--frob", 0, "! unknown option '--frob' (see 'tpccbench test --help')" },
    { "--frob=1", 0, "! unknown option '--frob' (see 'tpccbench test --help')" },
    { "--=1", 0, "! unknown option '--=1' (see 'tpccbench test --help')" },
    { "-w", 0, "! option '-w' needs a value" },
    { "-fw", 0, "force ! option '-w' needs a value" },
    { "--warehouses", 0, "! option '--warehouses' needs a value" },
    { "-c", 0, "! option '-c' needs a file name" },
    { "--config", 0, "! option '--config' needs a file name" },
    { "--force=yes", 0, "! option '--force' takes no value" },
    { "-b", 0, "! option '-b' needs a value" },
    /* No abbreviations: a unique prefix and an ambiguous one alike. */
    { "--ware 10", 0,
      "! unknown option '--ware' (options are not abbreviated: did you mean '--warehouses'?)" },
    { "--ware=10", 0,
      "! unknown option '--ware' (options are not abbreviated: did you mean '--warehouses'?)" },
    { "--ware", 0,
      "! unknown option '--ware' (options are not abbreviated: did you mean '--warehouses'?)" },
    { "--no", 0,
      "! unknown option '--no' (options are not abbreviated: did you mean '--no-load'?)" },
    { "--forc=1", 0,
      "! unknown option '--forc' (options are not abbreviated: did you mean '--force'?)" },
    { "--dr x", 0,
      "! unknown option '--dr' (options are not abbreviated: did you mean '--driver' or "
      "'--drop'?)" },
    { "--d x", 0,
      "! unknown option '--d' (options are not abbreviated: did you mean '--driver', '--drop' "
      "or '--duration'?)" },
    /* netbench: negative numbers are arguments, not options, at an element's start only. */
    { "client -1 -.5 -f", 1, "[client] [-1] [-.5] force" },
    { "-f1", 1, "force ! unknown option '-1' (see 'tpccbench test --help')" },
    { "-w -1", 1, "warehouses=-1" },
    { "-1", 0, "! unknown option '-1' (see 'tpccbench test --help')" },
    { "-- -1 -f", 1, "[-1] [-f]" },
};

static void test_forms(void **state)
{
    char got[1024];
    int failed = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        transcript(cases[i].args, cases[i].negative_args, got, sizeof(got));
        if (strcmp(got, cases[i].want) != 0) {
            print_error("'%s':\n  got:  %s\n  want: %s\n", cases[i].args, got, cases[i].want);
            failed++;
        }
    }
    if (failed)
        fail_msg("%d of %zu cases failed", failed, sizeof(cases) / sizeof(cases[0]));
}

/* A parse that stopped inside a cluster must not leak into the next one. */
static void test_fresh_start(void **state)
{
    char got[256];

    (void)state;
    transcript("-fkx", 0, got, sizeof(got));
    assert_string_equal(got, "force keep ! unknown option '-x' (see 'tpccbench test --help')");
    transcript("-k a", 0, got, sizeof(got));
    assert_string_equal(got, "keep [a]");
    transcript("-fw", 0, got, sizeof(got));
    transcript("-w 7", 0, got, sizeof(got));
    assert_string_equal(got, "warehouses=7");
}

static void test_table_limits(void **state)
{
    static const struct opt_spec bad[] = { { "x", '?', 0, NULL } };
    struct opt_parser p;
    struct err e;
    char *argv[] = { NULL };

    (void)state;
    err_clear(&e);
    assert_int_equal(opt_init(&p, "test", bad, 1, 0, argv, &e), E_FAIL);
    assert_string_equal(e.msg, "test: short option '?' is not a letter or digit");
    opt_release(&p);
    assert_int_equal(opt_init(&p, "test", specs, OPT_MAX + 1, 0, argv, &e), E_FAIL);
    opt_release(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_fresh_start),
        cmocka_unit_test(test_table_limits),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
