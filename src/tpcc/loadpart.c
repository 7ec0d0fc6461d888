/*
 * loadpart.c - the parts of one load meeting in the database (see
 * loadpart.h and schema/postgresql/load_parts.sql for the protocol).
 *
 * Reads are single statements outside a transaction; a join and an end are
 * one transaction each that takes the plan's row lock first, then looks
 * again, so what they decide stands on what every earlier join and end
 * committed.  Every value is a bound parameter.  Must not print anything
 * but the waiting lines, and never decides for the loader what to load.
 */
#include "tpcc/loadpart.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/signals.h"
#include "db/schema_sql.h"
#include "tpcc/admin.h"

/* How often a waiting part looks for the plan. */
#define LP_POLL_US 200000

static const char *const lp_names[LP_NSTMTS] = {
    "load_part_table",  "load_part_plan",  "load_part_lock",  "load_part_join",
    "load_part_copied", "load_part_state", "load_part_claim", "load_part_step",
};

int loadpart_dialect_load(struct dialect *d, const char *dialect, struct err *e)
{
    if (!schema_sql(dialect, "load_parts")) {
        memset(d, 0, sizeof(*d));
        return err_set(e, E_USAGE,
                       "loads of several parts are built for the postgresql dialect only (SQL "
                       "dialect '%s' has no load_parts.sql): load with one process (no --part, "
                       "or --part 1/1)",
                       dialect);
    }
    return dialect_load(d, dialect, "load_parts", lp_names, LP_NSTMTS, e);
}

/* Copy a column's text into out (len bytes), cut short when longer. */
static void col_copy(struct db_conn *c, int col, char *out, size_t len)
{
    int n;
    const char *s = db_col_text(c, col, &n);

    if (db_col_isnull(c, col))
        n = 0;
    if ((size_t)n >= len)
        n = (int)len - 1;
    memcpy(out, s, (size_t)n);
    out[n] = '\0';
}

/* The plan's first six columns (run_id, parts, warehouses, seed, epoch, date) from the current row.
 */
static void plan_cols(struct db_conn *c, struct loadpart_plan *p)
{
    col_copy(c, 0, p->run_id, sizeof(p->run_id));
    p->parts = (int)db_col_int(c, 1);
    p->warehouses = (int)db_col_int(c, 2);
    p->seed = (uint64_t)db_col_int(c, 3);
    p->epoch = db_col_int(c, 4);
    col_copy(c, 5, p->date, sizeof(p->date));
}

int loadpart_read(struct db_conn *c, const struct dialect *d, const struct dialect *admin, int k,
                  struct loadpart_plan *p, char *seen, size_t len, struct err *e)
{
    struct db_param prm[1] = { DBP_INT(k) };
    int rc;

    memset(p, 0, sizeof(*p));
    seen[0] = '\0';
    if ((rc = db_query(c, d->sql[LP_PLAN], prm, 1, e)) < 0) {
        int64_t n = 0;

        if (rc == E_CONN || rc == E_INTR)
            return rc;
        if (strcmp(e->sqlstate, "42P01") != 0) {
            snprintf(seen, len, "reading the plan failed: %s", e->msg);
            return rc;
        }
        /* A table is missing: no schema at all, or one without part loads. */
        err_clear(e);
        if (!admin->sql[A_SCHEMA_TABLES])
            rc = dialect_absent(admin, A_SCHEMA_TABLES, e);
        else
            rc = db_query_int(c, admin->sql[A_SCHEMA_TABLES], &n, e);
        if (rc < 0) {
            snprintf(seen, len, "reading the plan failed: %s", e->msg);
            return rc;
        }
        snprintf(seen, len, "%s",
                 n == 0 ? "the database holds no TPC-C schema yet"
                        : "the database holds a TPC-C schema without a plan of parts (a load of "
                          "one process, or one being created)");
        return 0;
    }
    if (db_next(c) != 1) {
        snprintf(seen, len, "the database holds a TPC-C schema without a plan of parts yet");
        return db_end_reads(c, e) < 0 ? e->code : 0;
    }
    plan_cols(c, p);
    p->joined = db_col_int(c, 6) > 0;
    p->complete = db_col_int(c, 7) > 0;
    return db_end_reads(c, e) < 0 ? e->code : 1;
}

int loadpart_create(struct db_conn *c, const struct dialect *d, const struct loadpart *lp,
                    int first, int last, const char *date, struct err *e)
{
    struct db_param p[6] = { DBP_INT(1),     DBP_TEXT(lp->run_id), DBP_INT(lp->n),
                             DBP_INT(first), DBP_INT(last),        DBP_TEXT(date) };
    int rc;

    if ((rc = db_exec_sql(c, d->sql[LP_TABLE], e)) < 0)
        return err_prefix(e, "creating tpcc_load_part");
    if ((rc = db_query(c, d->sql[LP_JOIN], p, 6, e)) < 0)
        return err_prefix(e, "recording part 1 of run '%s'", lp->run_id);
    return 0;
}

/* Why plan p is not part lp's, into why (len bytes); "" when it is. */
static void plan_mismatch(const struct loadpart *lp, const struct loadpart_plan *p, char *why,
                          size_t len)
{
    why[0] = '\0';
    if (strcmp(p->run_id, lp->run_id) != 0)
        snprintf(why, len, "the plan in the database is of run '%s' (%d parts), not of run '%s'",
                 p->run_id, p->parts, lp->run_id);
    else if (p->parts != lp->n)
        snprintf(why, len, "the plan of run '%s' has %d parts, but this is part %d/%d", p->run_id,
                 p->parts, lp->k, lp->n);
    else if (p->complete && !lp->resume)
        snprintf(why, len,
                 "the load of run '%s' in the database is complete: an earlier load with the "
                 "same run id (give part 1 --drop, or give every part another --run-id)",
                 p->run_id);
    else if (!lp->resume && (p->warehouses != lp->warehouses || p->seed != lp->seed))
        snprintf(why, len,
                 "the plan of run '%s' has %d warehouses and seed %" PRIu64
                 ", but this part has %d and seed %" PRIu64 " (give every part the same)",
                 p->run_id, p->warehouses, p->seed, lp->warehouses, lp->seed);
    else if (p->joined && !lp->resume)
        snprintf(why, len,
                 "part %d of run '%s' has joined its plan already: an earlier load with the same "
                 "run id, or two processes that are part %d (give another --run-id, or --resume "
                 "to continue that part)",
                 lp->k, p->run_id, lp->k);
}

static void rollback_quietly(struct db_conn *c)
{
    struct err ignore;

    db_rollback(c, &ignore);
}

/* Join plan p under its lock: 1 joined (or, resuming, joined before); 0 the
 * plan changed or part k is taken meanwhile (why says so); < 0 an error. */
static int join_locked(struct db_conn *c, const struct dialect *d, const struct loadpart *lp,
                       const struct loadpart_plan *p, char *why, size_t len, struct err *e)
{
    struct loadpart_plan now;
    int first, last, rc, got;

    if ((rc = db_begin(c, e)) < 0)
        return rc;
    if ((rc = db_query(c, d->sql[LP_LOCK], NULL, 0, e)) < 0)
        goto fail;
    memset(&now, 0, sizeof(now));
    got = db_next(c) == 1;
    if (got)
        plan_cols(c, &now);
    if (!got || strcmp(now.run_id, p->run_id) != 0 || now.parts != p->parts ||
        now.warehouses != p->warehouses || now.seed != p->seed || now.epoch != p->epoch) {
        rollback_quietly(c);
        snprintf(why, len, "the plan changed while this part joined it");
        return 0;
    }
    part_range(lp->k, lp->n, p->warehouses, &first, &last);
    {
        struct db_param prm[6] = { DBP_INT(lp->k), DBP_TEXT(lp->run_id), DBP_INT(lp->n),
                                   DBP_INT(first), DBP_INT(last),        DBP_NULL() };
        if ((rc = db_query(c, d->sql[LP_JOIN], prm, 6, e)) < 0)
            goto fail;
    }
    if (db_next(c) != 1 && !lp->resume) {
        rollback_quietly(c);
        snprintf(why, len, "part %d of run '%s' joined meanwhile: two processes are part %d", lp->k,
                 p->run_id, lp->k);
        return 0;
    }
    if ((rc = db_commit(c, e)) < 0)
        goto fail;
    return 1;
fail:
    rollback_quietly(c);
    return err_prefix(e, "joining the plan of run '%s'", p->run_id);
}

int loadpart_wait_join(struct db_conn *c, const struct dialect *d, const struct dialect *admin,
                       const struct loadpart *lp, struct loadpart_plan *out, double *waited_s,
                       struct err *e)
{
    uint64_t t0 = clock_us(), deadline = t0 + (uint64_t)lp->timeout_us;
    char seen[512], said[512];
    int rc;

    said[0] = '\0';
    *waited_s = 0;
    if (lp->progress)
        fprintf(lp->progress,
                "part %d/%d of run '%s': waiting for part 1's plan (at most %.0f s)\n", lp->k,
                lp->n, lp->run_id, (double)lp->timeout_us / 1e6);
    for (;;) {
        struct loadpart_plan p;

        if (sig_stop_requested())
            return err_set(e, E_INTR, "interrupted while waiting for part 1 of run '%s'",
                           lp->run_id);
        rc = loadpart_read(c, d, admin, lp->k, &p, seen, sizeof(seen), e);
        if (rc == E_CONN || rc == E_INTR)
            return err_prefix(e, "waiting for the plan of run '%s'", lp->run_id);
        if (rc == 1) {
            plan_mismatch(lp, &p, seen, sizeof(seen));
            if (!seen[0] && p.complete) /* resuming a load that is whole */
                return err_set(e, E_USAGE,
                               "the load of run '%s' completed already: nothing to resume (run "
                               "'tpccbench load --drop' to load again)",
                               lp->run_id);
            if (!seen[0] && (rc = join_locked(c, d, lp, &p, seen, sizeof(seen), e)) < 0)
                return rc;
            if (!seen[0]) {
                *out = p;
                *waited_s = (double)(clock_us() - t0) / 1e6;
                return 0;
            }
        }
        /* Say what holds us up when it changes; a line a poll would be noise. */
        if (lp->progress && strcmp(seen, said) != 0) {
            fprintf(lp->progress, "part %d/%d: still waiting: %s\n", lp->k, lp->n, seen);
            snprintf(said, sizeof(said), "%s", seen);
        }
        if (clock_us() >= deadline)
            break;
        clock_sleep_us(LP_POLL_US);
    }
    *waited_s = (double)(clock_us() - t0) / 1e6;
    return err_set(e, E_FAIL,
                   "part %d/%d of run '%s' waited %.0f s (run.part_timeout) for part 1, which "
                   "creates the schema and the plan the parts share: part 1 is missing; %s; "
                   "start part 1 (--part 1/%d --run-id %s, with the same --warehouses and "
                   "--seed) within the timeout, or give more time with --part-timeout; this part "
                   "loaded nothing",
                   lp->k, lp->n, lp->run_id, *waited_s, seen, lp->n, lp->run_id);
}

int loadpart_finish(struct db_conn *c, const struct dialect *d, int k, int n,
                    struct loadpart_end *out, struct err *e)
{
    struct db_param pk[1] = { DBP_INT(k) }, pn[1] = { DBP_INT(n) };
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = db_begin(c, e)) < 0)
        return rc;
    if ((rc = db_query(c, d->sql[LP_LOCK], NULL, 0, e)) < 0)
        goto fail;
    if (db_next(c) != 1) {
        rollback_quietly(c);
        return err_set(e, E_FAIL, "the plan of the load is gone (dropped by another load?)");
    }
    if ((rc = db_query(c, d->sql[LP_COPIED], pk, 1, e)) < 0 ||
        (rc = db_query(c, d->sql[LP_STATE], pn, 1, e)) < 0)
        goto fail;
    if (db_next(c) == 1) {
        out->ncopied = (int)db_col_int(c, 0);
        out->njoined = (int)db_col_int(c, 1);
        out->indexer = (int)db_col_int(c, 2);
        col_copy(c, 3, out->missing, sizeof(out->missing));
        if (strlen(out->missing) == sizeof(out->missing) - 1)
            memcpy(out->missing + sizeof(out->missing) - 4, "...", 4);
    }
    /* The lock makes this the only end running: one part sees every part
     * copied with no indexer yet, and that is the one that claims. */
    if (out->ncopied == n && out->indexer == 0) {
        if ((rc = db_query(c, d->sql[LP_CLAIM], pk, 1, e)) < 0)
            goto fail;
        out->indexer = k;
    }
    if ((rc = db_commit(c, e)) < 0)
        goto fail;
    return 0;
fail:
    rollback_quietly(c);
    return err_prefix(e, "ending the copy of part %d", k);
}
