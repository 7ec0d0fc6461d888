/*
 * dialect.h - the SQL text of one database dialect, looked up by statement id.
 *
 * The text comes from schema/<dialect>/<file>.sql (compiled in): blocks
 * that start with a line "-- name: NAME".  Callers give the list of names in
 * the order of their statement ids; dialect_load() fails if any is missing,
 * so a dialect cannot silently lack a statement.
 */
#ifndef TPCC_DIALECT_H
#define TPCC_DIALECT_H

#include "core/err.h"
#include "db/db.h"

struct dialect {
    char name[32];                   /* folder under schema/: "postgresql" */
    const char *sql[DB_MAX_STMTS];   /* statement text by id (points into text) */
    int nparams[DB_MAX_STMTS];       /* parameters counted from $n / ? markers */
    char *text;                      /* owned copy of statements.sql, cut in place */
};

/* Load from schema/<name>/<file>.sql the statements names[0..n-1] (id = index). */
int dialect_load(struct dialect *d, const char *name, const char *file,
                 const char *const *names, int n, struct err *e);
void dialect_release(struct dialect *d);

/* Split a SQL script into statements at ";" line ends, calling fn for each
 * (comments and blank statements skipped); stops at the first non-zero. */
int sql_split(const char *script, int (*fn)(const char *stmt, void *arg), void *arg);

#endif
