/*
 * admin.c - names of the admin statements, in enum admin_stmt order.
 */
#include "tpcc/admin.h"

#include "db/dialect.h"

static const char *const admin_names[A_NSTMTS] = {
    "cond1", "cond2", "cond3", "cond4", "cond5", "cond6", "cond7", "cond8", "cond9", "cond10",
    "cond11", "cond12", "counts", "fresh", "?schema_tables", "meta_insert", "step_insert", "steps_get", "meta_get",
    "cond11_run",
    "?backend_id",
};

int admin_dialect_load(struct dialect *d, const char *name, struct err *e)
{
    return dialect_load(d, name, "admin", admin_names, A_NSTMTS, e);
}
