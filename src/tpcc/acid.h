/*
 * acid.h - the ACID tests of TPC-C clause 3 that a driver can run: the
 * atomicity tests (3.2.2) and the nine isolation tests (3.4.2), on the
 * real transactions of txn.c, stalled between two of their statements
 * through the driver's test hook (db_hook).  Spec logic only: the command
 * (cmd/acid.c) prints the results and writes the record.
 */
#ifndef TPCC_ACID_H
#define TPCC_ACID_H

#include <stdint.h>

#include "core/err.h"

struct db_ops;
struct db_connect_args;

enum acid_verdict {
    ACID_NOT_RUN = 0,
    ACID_PASS,
    ACID_FAIL,
};

/* Which tests (acid_run's which). */
#define ACID_ATOMICITY 0x1
#define ACID_ISOLATION 0x2
#define ACID_DURABILITY 0x4 /* tpcc/durab.h: acid_durability, not acid_run */

/* 4 atomicity tests, then isolation tests 1 to 9. */
#define ACID_NTESTS 13

struct acid_result {
    const char *name;   /* "atomicity: payment committed", "isolation 3: ..." */
    const char *clause; /* "3.2.2.1", "3.4.2.3" */
    int verdict;        /* enum acid_verdict */
    char kase;          /* isolation: 'A'..'D' (acid_case_text), 0 for none */
    char mode[80];      /* the mode it ran in, and why when not the configured one */
    char why[512];      /* not run: why; FAIL: the requirement broken; pass: what happened */
    char rows[256];     /* the rows it used */
    char values[768];   /* the values it compared */
};

/* Size of acid_setup.level and level_why. */
#define ACID_LEVEL_LEN 200

/* What the tests run against. */
struct acid_setup {
    const struct db_ops *ops;
    const struct db_connect_args *args;
    const char *dialect;   /* "postgresql", "mysql", "ansi" */
    const char *isolation; /* run.isolation */
    int isolation_set;     /* run.isolation was given; else the DBMS's pick (db_isolation_default) */
    char *level;           /* out (ACID_LEVEL_LEN): the level the tests ran at */
    char *level_why;       /* out (ACID_LEVEL_LEN): why, when picked; "" when given */
    int mode;              /* enum run_mode, resolved (not auto) */
    int warehouses;
    uint64_t seed;         /* the random warehouses, customers, items */
    int terminals;         /* durability: the mix's connections (tpcc/durab.h) */
    int64_t window_us;     /* durability: the mix's window */
    int64_t crash_at_us;   /* durability: the crash from the mix's start, 0 = random */
    int64_t back_bound_us; /* durability: how long the restarted server gets, 0 = 60 s */
};

/* The spec's cases of the isolation tests: what the stalled transaction
 * and the other one did ('A'..'D'). */
const char *acid_case_text(char kase);

/* Name of a verdict: "pass", "FAIL", "not run". */
const char *acid_verdict_name(int verdict);

/*
 * Run the tests in which (ACID_*) into r[0..ACID_NTESTS-1] (those not in
 * which are "not run").  A test that meets an error is FAIL with the error
 * as why.  Returns 0, or negative with e when the tests could not start
 * (connect, the server-side functions missing).  Changes the database as
 * its transactions do (orders, payments, deliveries); the prices and
 * new-order rows it moves are put back.
 */
int acid_run(const struct acid_setup *s, unsigned which, struct acid_result *r, struct err *e);

#endif
