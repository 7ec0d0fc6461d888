/*
 * opt.h - the one command-line parser of every command: glibc's getopt_long
 * over a table of options, with our own messages (getopt's are off).
 *
 * Forms: clustered short options (-fk, -w10, -fkb 8K), --name=value and
 * --name value, and `--` ends the options.  Arguments that are not options
 * come back in order, between the options.  Long names are never
 * abbreviated: getopt_long accepts any unique prefix, which would turn a
 * script's `--dur` into an error the day another `--dur...` option is
 * added, so a prefix is refused with the names it could mean.
 *
 * Nothing here prints or exits; every error is E_USAGE with a message naming
 * the option.  getopt's state is global: parse on one thread at a time.
 */
#ifndef TPCC_OPT_H
#define TPCC_OPT_H

#include <getopt.h>

#include "core/err.h"

/* One option of a command's table. */
struct opt_spec {
    const char *name;  /* long name without "--"; NULL: a short option only */
    char short_name;   /* 0: a long option only */
    int has_arg;       /* 1: needs a value */
    const char *needs; /* what the value is, for "option '-c' needs a file name"; NULL: "a value" */
};

#define OPT_MAX          64 /* options of one parser */
#define OPT_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* A parse in progress.  Fill it with opt_init, walk it with opt_next, end
 * it with opt_release. */
struct opt_parser {
    const char *cmd;              /* "load": "see 'tpccbench load --help'" */
    const struct opt_spec *specs; /* the table (kept, not copied) */
    int nspecs;
    int negative_args; /* 1: "-1", "-.5" are arguments, not options (netbench) */
    int argc;          /* of argv below */
    char **argv;       /* heap: argv[0] = cmd, then the arguments */
    struct option longs[OPT_MAX + 1];
    char shorts[3 + 2 * OPT_MAX]; /* "-:" then "b:" or "f" per short option */
    int mid;                      /* 1: inside a cluster of short options (-fk) */
    int ended;                    /* `--` or the end was reached: the rest are arguments */
};

/* What opt_next found. */
enum opt_found {
    OPT_END = 0,    /* no more arguments */
    OPT_OPTION = 1, /* *idx: index into the table; *val: its value, NULL for a flag */
    OPT_ARG = 2,    /* *val: an argument that is not an option */
};

/*
 * Prepare to parse argv[0..argc) - the arguments after the command name -
 * against specs[0..nspecs).  cmd names the command in messages.  p keeps
 * pointers to cmd, specs and argv's strings.  E_FAIL when the table is too
 * large or memory runs out.
 */
int opt_init(struct opt_parser *p, const char *cmd, const struct opt_spec *specs, int nspecs,
             int argc, char **argv, struct err *e);
/* The next option or argument (enum opt_found), or E_USAGE: unknown,
 * abbreviated, missing or unexpected value.  After an error, stop. */
int opt_next(struct opt_parser *p, int *idx, const char **val, struct err *e);
void opt_release(struct opt_parser *p);

#endif
