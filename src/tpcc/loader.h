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
 *
 * A part of a load of several (o->parts > 1) loads the warehouses of its
 * range (part_range) and, part 1, the item table; part 1 creates the
 * schema and the plan, the others wait for it and join (loadpart.h); the
 * part that finishes its copy last builds the keys and indexes, runs
 * ANALYZE and writes tpcc_meta, the others end after their copy.
 */
#ifndef TPCC_LOADER_H
#define TPCC_LOADER_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "db/db.h"
#include "tpcc/gen.h"
#include "tpcc/random.h"

/* The phases of a load, in order (load_stats.phase holds the name). */
enum load_phase {
    LOAD_CONNECT,
    LOAD_SCHEMA,
    LOAD_COPY,
    LOAD_INDEX,
    LOAD_ANALYZE,
    LOAD_DONE,
    LOAD_NPHASES
};

/* "connect", "schema", "copy", "index", "analyze", "done". */
const char *load_phase_name(int phase);

/*
 * A load in progress, as another thread may read it (the live metrics
 * endpoint): every field is written by the loader with relaxed atomics -
 * rows once per bulk buffer (256 kB) or step, never per row - and read with
 * __atomic_load_n.  Caller-owned and zeroed; the loader only adds and sets.
 */
struct load_live {
    int64_t rows_sent[T_NTABLES]; /* rows sent to the server per table (uncommitted too) */
    int64_t rows[T_NTABLES];      /* rows committed per table (each step's, at its commit) */
    int64_t steps;                /* steps this load committed (plan, copy units, indexes) */
    int64_t phase_done;           /* work done in the phase (rows, indexes, tables), ~0.1 s old */
    int64_t phase_total;          /* the phase's work (0 before the copy) */
    int phase;                    /* enum load_phase reached */
    int warehouses;               /* of the load (with resume: the failed load's) */
};

struct load_opts {
    const struct db_ops *ops;
    const struct db_connect_args *args;
    const char *dialect;  /* folder under schema/: "postgresql" */
    int warehouses;
    int jobs;
    int drop;             /* drop an existing schema first */
    int resume;           /* continue a failed load: skip its committed steps */
    int copy_text;        /* 1: text COPY per (table, warehouse) only (load.copy: text) */
    uint64_t seed;
    FILE *progress;       /* NULL: no output */
    struct load_live *live; /* kept up to date when not NULL (kept, not owned) */
    /* A part of a load of several (loadpart.h): parts > 1. */
    int part_k, parts;       /* this load is part part_k of parts; 0 or 1 parts: the whole */
    const char *run_id;      /* the name the parts share (kept, not owned) */
    int64_t part_timeout_us; /* how long a part waits for part 1's plan */
};

struct load_stats {
    double total_s;                /* wall time of the whole load */
    double schema_s;               /* drop + create tables */
    double copy_s;                 /* wall time of the bulk load phase */
    double index_s;                /* keys and indexes */
    double analyze_s;
    double restart_s;              /* the private server's restarts for the load's settings
                                    * (cmd/load.c; in total_s too) */
    double table_s[T_NTABLES];     /* busy seconds per table, summed over jobs */
    int64_t rows[T_NTABLES];       /* rows loaded per table */
    int64_t bytes;                 /* bytes of row text sent */
    struct nurand_c c_load;        /* NURand constants used */
    char phase[16];                /* phase reached ("copy", ...; "done" at the end) */
    int warehouses;                /* loaded (with resume: the failed load's) */
    uint64_t seed;
    int resumed;                   /* 1: continued a failed load */
    int steps_skipped;             /* its steps already committed */
    /* A part of a load of several (parts > 1). */
    int part_k, parts;
    int w_first, w_last;    /* its warehouses (w_last < w_first: none) */
    int joined;             /* 1: it joined the plan (part 1: created it) */
    double wait_s;          /* waited for part 1's plan */
    int indexer;            /* the part that builds keys, indexes, ANALYZE; 0: not yet */
    int parts_copied;       /* parts whose ranges were committed at this one's end */
    char parts_missing[96]; /* the parts still copying then, "1,3" */
    /* How rows reach the DBMS: "array binding" or "row at a time" (ODBC,
     * from SQLGetInfo), else "bulk (driver X)"; and why (ODBC). */
    char path[32];
    char path_why[160];
    int paths;              /* LOAD_PATH_* the copy took */
    int64_t rows_binary;    /* rows sent by binary COPY (the rest: text) */
    int64_t rows_whole;     /* rows sent in a table per transaction (TRUNCATE, COPY FREEZE) */
};

/* The copy's paths (load_stats.paths). */
#define LOAD_PATH_BINARY 0x1      /* binary COPY: the server parses no text */
#define LOAD_PATH_WHOLE 0x2       /* a table per transaction: TRUNCATE, then COPY FREEZE */
#define LOAD_PATH_WAL_MINIMAL 0x4 /* the private server ran the load with wal_level minimal */
#define LOAD_PATH_TEXT 0x8        /* text COPY (a driver's bulk path of its own: none of these) */

/* The most jobs of a load that takes a table per transaction: its three big
 * tables (stock, order_line, customer) would leave more jobs idle. */
#define LOAD_WHOLE_MAX_JOBS 4

int load_run(const struct load_opts *o, struct load_stats *st, struct err *e);

/* Create or replace the dialect's server-side transaction functions
 * (schema/<dialect>/procedures.sql; nothing when the dialect has none). */
int load_install_procedures(struct db_conn *c, const char *dialect, struct err *e);

#endif
