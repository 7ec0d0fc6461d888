/*
 * admin.h - ids of the loader's and checker's statements (schema/<dialect>/admin.sql).
 */
#ifndef TPCC_ADMIN_H
#define TPCC_ADMIN_H

#include "core/err.h"

struct dialect;

enum admin_stmt {
    A_COND1 = 0, /* A_COND1 + k - 1 is condition k */
    A_COND12 = 11,
    A_COUNTS,
    A_FRESH,
    A_SCHEMA_TABLES,
    A_META_INSERT,
    A_STEP_INSERT, /* a committed load step (load --resume) */
    A_STEPS_GET,
    A_META_GET,
    A_COND11_RUN, /* condition 11 generalized: after transactions */
    A_BACKEND_ID, /* which server process serves the connection (pooler detection) */
    A_NSTMTS
};

/* Load the admin statements of dialect name. */
int admin_dialect_load(struct dialect *d, const char *name, struct err *e);

#endif
