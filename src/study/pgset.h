/*
 * pgset.h - PostgreSQL server settings for a study: look a setting up in
 * pg_settings, check a value before anything runs, write it with ALTER
 * SYSTEM (or reset it), reload, and tell whether a restart is pending.
 *
 * No setting's name or value is ever spliced into SQL text by us: the
 * lookups bind them as parameters, and ALTER SYSTEM (which takes none) is
 * built by the server with format('%I', '%L') from a name already found in
 * pg_settings.  The SQL is in schema/postgresql/admin.sql (study_*).
 * Nothing here prints or exits.
 */
#ifndef TPCC_STUDY_PGSET_H
#define TPCC_STUDY_PGSET_H

#include "core/err.h"
#include "db/db.h"
#include "db/dialect.h"

/* One row of pg_settings. */
struct pgset_info {
    char name[64];
    char setting[256]; /* current value, in unit */
    char unit[16];     /* "8kB", "ms", "" */
    char vartype[16];  /* bool, enum, integer, real, string */
    char context[32];  /* postmaster (restart), sighup, superuser, user, ... */
    char min_val[32];
    char max_val[32];
    char enumvals[512]; /* "local,remote_write,on,off" */
};

enum pgset_stmt {
    PGS_SETTING = 0,
    PGS_TRY,
    PGS_ALTER_SET,
    PGS_ALTER_RESET,
    PGS_RELOAD,
    PGS_CONF_TIME,
    PGS_DB,
    PGS_DROP_DB,
    PGS_CREATE_DB,
    PGS_RENAME_DB,
    PGS_NSTMTS
};

/* Load the study statements of dialect name (postgresql) into d. */
int pgset_dialect_load(struct dialect *d, const char *name, struct err *e);

/* Look name up: 0 found (into *out), 1 no such setting, < 0 error. */
int pgset_lookup(struct db_conn *c, const struct dialect *d, const char *name,
                 struct pgset_info *out, struct err *e);

/*
 * Is value valid for the setting?  A setting a session may change is tried
 * with set_config() in a transaction that is rolled back, so the server
 * itself judges; any other is checked against vartype, min_val, max_val and
 * enumvals (pgset_value_ok).  0 valid, E_USAGE with the reason in e, or
 * another error.
 */
int pgset_check(struct db_conn *c, const struct dialect *d, const struct pgset_info *in,
                const char *value, struct err *e);

/*
 * The pure check: value against the row's type, unit and range (numbers may
 * carry a unit: B, kB, MB, GB, TB, us, ms, s, min, h, d).  0 valid, else
 * E_USAGE with "must be ..." (without the setting's name) in e.
 */
int pgset_value_ok(const struct pgset_info *in, const char *value, struct err *e);

/* ALTER SYSTEM SET name = value; value NULL: ALTER SYSTEM RESET name. */
int pgset_alter(struct db_conn *c, const struct dialect *d, const char *name, const char *value,
                struct err *e);

/* pg_reload_conf(); *t_before gets the configuration load time of c before it. */
int pgset_reload(struct db_conn *c, const struct dialect *d, double *t_before, struct err *e);

/* On a connection opened after a reload: its configuration load time and the
 * settings pending a restart ("a,b", "" = none). */
int pgset_conf_state(struct db_conn *c, const struct dialect *d, double *t_loaded, char *pending,
                     size_t len, struct err *e);

#endif
