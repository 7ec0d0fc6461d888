/*
 * loadpart.h - the parts of one load (load --part K/N) meeting in the
 * database: part 1's plan, the others waiting for it and joining, and the
 * end of each part's copy, where the last one claims the indexes.
 *
 * The SQL is schema/<dialect>/load_parts.sql (a dialect without it has no
 * part loads); the loader (loader.c) calls these between its phases.  Every
 * change of state is one transaction that first takes the plan's row lock
 * (tpcc_load_step "plan", FOR UPDATE), so joins and ends run one at a time
 * and exactly one part sees every part copied.  Nothing here prints but
 * the waiting lines on lp->progress; nothing exits.
 */
#ifndef TPCC_LOADPART_H
#define TPCC_LOADPART_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/part.h"
#include "db/db.h"
#include "db/dialect.h"

/* Statement ids of load_parts.sql. */
enum loadpart_stmt {
    LP_TABLE,  /* CREATE TABLE tpcc_load_part */
    LP_PLAN,   /* the plan as a waiting part reads it */
    LP_LOCK,   /* the plan's row, FOR UPDATE */
    LP_JOIN,   /* a part's row */
    LP_COPIED, /* its range committed */
    LP_STATE,  /* parts copied, joined, the indexer, the parts not copied */
    LP_CLAIM,  /* the indexer's mark */
    LP_STEP,   /* step_insert with the part */
    LP_NSTMTS
};

/* This process as a part, and what it looks for. */
struct loadpart {
    int k, n;           /* part k of n (n > 1) */
    const char *run_id; /* the name the parts share (kept, not owned) */
    int warehouses;     /* the load's; a plan with others is not this part's (unless resume) */
    uint64_t seed;      /* likewise */
    int resume;         /* 1: take the plan of run_id and n as it is, joined before or not */
    int64_t timeout_us; /* how long to wait for the plan (run.part_timeout) */
    FILE *progress;     /* the waiting lines; NULL: silent */
};

/* The plan in the database. */
struct loadpart_plan {
    char run_id[PART_RUN_ID_MAX + 1];
    int parts;
    int warehouses;
    uint64_t seed;
    int64_t epoch; /* the load's date as seconds since 1970 */
    char date[24]; /* and as the parts write it ("" when the plan has none) */
    int joined;    /* 1: this part's row is there */
    int complete;  /* 1: tpcc_meta is written, the load is whole */
};

/* Load schema/<dialect>/load_parts.sql into d: E_USAGE naming the dialects
 * that have part loads when this one has not. */
int loadpart_dialect_load(struct dialect *d, const char *dialect, struct err *e);

/*
 * The plan as part k sees it on c (outside a transaction): 1 with *p
 * filled; 0 when there is none, with seen (len bytes) saying what the
 * database holds instead ("no TPC-C schema", ...); E_CONN when the
 * connection is gone, another error for a failed read (seen says it too).
 */
int loadpart_read(struct db_conn *c, const struct dialect *d, const struct dialect *admin, int k,
                  struct loadpart_plan *p, char *seen, size_t len, struct err *e);

/*
 * Part 1's row beside the plan it creates, in the caller's open
 * transaction (the schema's): the table tpcc_load_part and part 1 joined,
 * warehouses first..last, with the date text the parts will write.
 */
int loadpart_create(struct db_conn *c, const struct dialect *d, const struct loadpart *lp,
                    int first, int last, const char *date, struct err *e);

/*
 * Wait for the plan of lp's run and join it (one transaction, under the
 * plan's lock), polling every 0.2 s for at most lp->timeout_us.  A plan is
 * this part's when it carries lp->run_id and lp->n parts, and (unless
 * lp->resume) lp's warehouses and seed, is not complete and has no part k
 * yet; any other plan is waited past (it may be a stale one part 1 is about
 * to drop).  Fills *out and *waited_s.  Errors: E_FAIL at the timeout, naming
 * part 1 as missing, what the database held and what to do; E_USAGE with
 * lp->resume when the load is complete already; E_INTR on a stop request.
 */
int loadpart_wait_join(struct db_conn *c, const struct dialect *d, const struct dialect *admin,
                       const struct loadpart *lp, struct loadpart_plan *out, double *waited_s,
                       struct err *e);

/* How the parts stand after one's copy (loadpart_finish). */
struct loadpart_end {
    int indexer;      /* the part that builds keys, indexes and ANALYZE; 0: parts still copying */
    int ncopied;      /* parts whose ranges are committed */
    int njoined;      /* parts that joined */
    char missing[96]; /* the parts not copied yet, "1,3" (cut short with "...") */
};

/*
 * The end of part k's copy, in one transaction under the plan's lock: its
 * row marked copied; the part whose end finds all n parts copied and no
 * indexer yet claims the indexes (out->indexer = k).  Ran again (resume) it
 * changes nothing and says the same.
 */
int loadpart_finish(struct db_conn *c, const struct dialect *d, int k, int n,
                    struct loadpart_end *out, struct err *e);

#endif
