/*
 * dialect.h - the SQL text of one database dialect, looked up by statement id.
 *
 * The text comes from schema/<dialect>/<file>.sql (compiled in): blocks
 * that start with a line "-- name: NAME".  Callers give the list of names in
 * the order of their statement ids; dialect_load() fails if any is missing,
 * so a dialect cannot silently lack a statement.  A name the caller marks
 * optional ("?backend_id") may be absent: its sql is then NULL, and a line
 * "-- absent: NAME: REASON" of the file says why (what a DBMS of that
 * dialect cannot tell), which dialect_absent() reports: a dialect never
 * holds a statement shaped to return nothing in place of a fact it lacks.
 */
#ifndef TPCC_DIALECT_H
#define TPCC_DIALECT_H

#include "core/err.h"
#include "db/limits.h"

/* One SQL statement of a step, in both placeholder styles.  A named block
 * may hold several statements (a "step", e.g. where a dialect has no
 * RETURNING): they run in order with the step's parameters and the last
 * one's rows are the step's result. */
struct dialect_sub {
    char *dollar;                  /* $1..$k renumbered densely (PostgreSQL) */
    char *qmark;                   /* ? in order of appearance (ODBC) */
    unsigned char dmap[DB_MAX_PARAMS]; /* $j of dollar is step parameter dmap[j-1] (1-based) */
    unsigned char qmap[DB_MAX_PARAMS]; /* ?j of qmark is step parameter qmap[j-1] */
    int nd, nq;                    /* entries in dmap, qmap */
};

struct dialect {
    char name[32];                   /* folder under schema/: "postgresql" */
    const char *sql[DB_MAX_STMTS];   /* whole block text by id (points into text); NULL: absent */
    /* The block's name by id ("os_get_customer", points into text): what a
     * driver without a server (null) knows a statement by, ids being only
     * the caller's order of names. */
    const char *names[DB_MAX_STMTS];
    int nparams[DB_MAX_STMTS];       /* highest $n of the block */
    int nsub[DB_MAX_STMTS];          /* statements in the block */
    struct dialect_sub sub[DB_MAX_STMTS][DB_MAX_SUB];
    char *text;                      /* owned copy of the .sql file, cut in place */
    /* Why an optional statement is absent (its "-- absent:" line), "" if
     * it is there or the file says nothing. */
    char absent[DB_MAX_STMTS][160];
};

/* The dialect for a DBMS name as SQLGetInfo reports it ("PostgreSQL",
 * "MySQL", "MariaDB") into out: 0 when the DBMS has a dialect of its own;
 * 1 for any other name (or NULL), with out = "ansi", the generic standard-SQL
 * dialect, which the caller should say it falls back to. */
int dialect_for_dbms(const char *dbms, char *out, size_t cap);

/* Rewrite $n placeholders to ? (order of appearance) into out (cap bytes);
 * map[j] = n of the j-th ?.  Returns the number of ?, or -1 if out or map is
 * too small.  String literals and ::casts are left alone. */
int sql_to_qmark(const char *sql, char *out, size_t cap, unsigned char *map, int map_cap);

/* Load from schema/<name>/<file>.sql the statements names[0..n-1] (id = index). */
int dialect_load(struct dialect *d, const char *name, const char *file,
                 const char *const *names, int n, struct err *e);
void dialect_release(struct dialect *d);

/* Statement id of d is absent: E_USAGE into e naming it, the dialect and
 * the reason ("is not available in the ansi dialect: ..."); returns it. */
int dialect_absent(const struct dialect *d, int id, struct err *e);

/* Split a SQL script into statements at ";" line ends, calling fn for each
 * (comments and blank statements skipped); stops at the first non-zero. */
int sql_split(const char *script, int (*fn)(const char *stmt, void *arg), void *arg);

#endif
