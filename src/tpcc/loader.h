/*
 * loader.h - create the TPC-C schema and fill it: parallel bulk load, then
 * keys and indexes, then ANALYZE.
 *
 * Works through the driver interface only.  Prints progress to o->progress
 * (NULL = silent); never exits.  A stop request (Ctrl-C) aborts the bulk
 * loads in flight and returns E_INTR with the figures so far.
 *
 * Every step (the bulk load of one table for one warehouse, one index) is one
 * transaction that also records the step in tpcc_load_step, so a load that
 * failed half-way can be continued (o->resume) from the steps not committed.
 */
#ifndef TPCC_LOADER_H
#define TPCC_LOADER_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "db/db.h"
#include "tpcc/gen.h"
#include "tpcc/random.h"

struct load_opts {
    const struct db_ops *ops;
    const struct db_connect_args *args;
    const char *dialect;  /* folder under schema/: "postgresql" */
    int warehouses;
    int jobs;
    int drop;             /* drop an existing schema first */
    int resume;           /* continue a failed load: skip its committed steps */
    uint64_t seed;
    FILE *progress;       /* NULL: no output */
};

struct load_stats {
    double total_s;                /* wall time of the whole load */
    double schema_s;               /* drop + create tables */
    double copy_s;                 /* wall time of the bulk load phase */
    double index_s;                /* keys and indexes */
    double analyze_s;
    double table_s[T_NTABLES];     /* busy seconds per table, summed over jobs */
    int64_t rows[T_NTABLES];       /* rows loaded per table */
    int64_t bytes;                 /* bytes of row text sent */
    struct nurand_c c_load;        /* NURand constants used */
    char phase[16];                /* phase reached ("copy", ...; "done" at the end) */
    int warehouses;                /* loaded (with resume: the failed load's) */
    uint64_t seed;
    int resumed;                   /* 1: continued a failed load */
    int steps_skipped;             /* its steps already committed */
};

int load_run(const struct load_opts *o, struct load_stats *st, struct err *e);

/* Create or replace the dialect's server-side transaction functions
 * (schema/<dialect>/procedures.sql; nothing when the dialect has none). */
int load_install_procedures(struct db_conn *c, const char *dialect, struct err *e);

#endif
