/*
 * odbccaps.c - the decisions tpccbench takes from what an ODBC driver
 * answers, and the password's place in a connection string (see
 * odbccaps.h).  Pure: no ODBC calls, no printing.
 */
#include "db/odbccaps.h"

#include <ctype.h>
#include <sql.h>
#include <sqlext.h>
#include <stdio.h>
#include <string.h>

static const struct {
    unsigned iso;
    unsigned long attr;
    const char *name;
} iso_names[] = {
    { ODBC_ISO_READ_COMMITTED, SQL_TXN_READ_COMMITTED, "read committed" },
    { ODBC_ISO_REPEATABLE_READ, SQL_TXN_REPEATABLE_READ, "repeatable read" },
    { ODBC_ISO_SERIALIZABLE, SQL_TXN_SERIALIZABLE, "serializable" },
};
#define N_ISO (sizeof(iso_names) / sizeof(iso_names[0]))

unsigned odbc_iso_of(const char *name)
{
    for (size_t i = 0; i < N_ISO; i++)
        if (strcmp(iso_names[i].name, name) == 0)
            return iso_names[i].iso;
    return 0;
}

unsigned long odbc_iso_attr(unsigned iso)
{
    for (size_t i = 0; i < N_ISO; i++)
        if (iso_names[i].iso == iso)
            return iso_names[i].attr;
    return 0;
}

/* Our bits of SQL_TXN_* bits. */
static unsigned iso_bits(unsigned long txn)
{
    unsigned out = 0;

    for (size_t i = 0; i < N_ISO; i++)
        if (txn & iso_names[i].attr)
            out |= iso_names[i].iso;
    return out;
}

static void load_path(const struct odbc_info *in, struct odbc_caps *out)
{
    int counts = in->param_array_row_counts == SQL_PARC_BATCH ||
                 in->param_array_row_counts == SQL_PARC_NO_BATCH;

    if (in->paramset_ok && counts) {
        out->load_path = ODBC_LOAD_ARRAY;
        snprintf(out->load_why, sizeof(out->load_why),
                 "array binding: SQL_ATTR_PARAMSET_SIZE accepted, SQL_PARAM_ARRAY_ROW_COUNTS %s",
                 in->param_array_row_counts == SQL_PARC_BATCH ? "SQL_PARC_BATCH"
                                                              : "SQL_PARC_NO_BATCH");
        return;
    }
    out->load_path = ODBC_LOAD_ROWS;
    snprintf(out->load_why, sizeof(out->load_why), "row at a time: %s",
             !in->paramset_ok ? "the driver refused SQL_ATTR_PARAMSET_SIZE > 1"
                              : "SQL_PARAM_ARRAY_ROW_COUNTS has no answer (no parameter arrays)");
}

int odbc_caps_decide(const struct odbc_info *in, struct odbc_caps *out, struct err *e)
{
    const char *dbms = in->dbms_name[0] ? in->dbms_name : "(unnamed)";
    size_t used = 0;

    memset(out, 0, sizeof(*out));
    out->transactions = in->txn_capable != SQL_TC_NONE;
    out->isolation = iso_bits(in->isolation_options);
    out->default_isolation = iso_bits(in->default_isolation);
    out->max_identifier_len = in->max_identifier_len;
    out->catalog = in->has_tables;
    for (size_t i = 0; i < N_ISO; i++)
        if (out->isolation & iso_names[i].iso)
            used += (size_t)snprintf(
                out->isolation_list + used,
                used < sizeof(out->isolation_list) ? sizeof(out->isolation_list) - used : 0, "%s%s",
                used ? ", " : "", iso_names[i].name);
    if (!out->isolation_list[0])
        snprintf(out->isolation_list, sizeof(out->isolation_list),
                 "none of read committed, "
                 "repeatable read, "
                 "serializable");
    load_path(in, out);
    if (!out->transactions)
        return err_set(e, E_USAGE,
                       "DBMS '%s' supports no transactions (its ODBC driver answers "
                       "SQL_TXN_CAPABLE = SQL_TC_NONE): TPC-C needs commit and rollback",
                       dbms);
    if (!in->has_tables)
        return err_set(e, E_USAGE,
                       "the ODBC driver of '%s' has no SQLTables: tpccbench finds its tables "
                       "through the ODBC 3 catalog functions",
                       dbms);
    if (in->max_identifier_len && in->max_identifier_len < sizeof(ODBC_LONGEST_NAME) - 1)
        return err_set(e, E_USAGE,
                       "DBMS '%s' takes names of at most %u characters (SQL_MAX_IDENTIFIER_LEN); "
                       "the TPC-C schema needs %zu ('%s')",
                       dbms, in->max_identifier_len, sizeof(ODBC_LONGEST_NAME) - 1,
                       ODBC_LONGEST_NAME);
    return 0;
}

int odbc_caps_isolation(const struct odbc_caps *caps, const char *dbms, const char *name,
                        struct err *e)
{
    unsigned iso = odbc_iso_of(name);

    if (!iso)
        return err_set(e, E_USAGE, "run.isolation '%s' is not a level tpccbench sets", name);
    if (caps->isolation & iso)
        return 0;
    return err_set(e, E_USAGE,
                   "run.isolation '%s': DBMS '%s' offers %s (SQL_TXN_ISOLATION_OPTION): set "
                   "run.isolation to one of them",
                   name, dbms && *dbms ? dbms : "(unnamed)", caps->isolation_list);
}

int odbc_error_class(const char *dbms, const char *state, long native)
{
    int sqlite = dbms && strcasestr(dbms, "sqlite");

    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
        return E_RETRY;
    if (sqlite)
        /* SQLITE_BUSY, SQLITE_LOCKED; its other natives are not MySQL's. */
        return strcmp(state, "HY000") == 0 && (native == 5 || native == 6) ? E_RETRY
               : strncmp(state, "08", 2) == 0                              ? E_CONN
                                                                           : E_FAIL;
    /* MySQL's codes are taken from any other DBMS: some drivers do not
     * name theirs before the connection is up. */
    if (native == 1213 || native == 1205)
        return E_RETRY;
    if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P0", 4) == 0 || native == 2006 ||
        native == 2013)
        return E_CONN;
    return E_FAIL;
}

int odbc_cs_braced(const char *v)
{
    size_t n = strlen(v);

    if (n == 0)
        return 0;
    /* ';' would end it, '{' first would open braces, '}' is safe only in
     * them; blanks at its ends may be trimmed. */
    if (strpbrk(v, ";{}") || isspace((unsigned char)v[0]) || isspace((unsigned char)v[n - 1]))
        return 1;
    /* A quote first reads as a quoted value, and a line end ends a bare
     * one, to core/secret.c's redaction (and to some drivers). */
    if (v[0] == '\'' || v[0] == '"')
        return 1;
    for (const char *p = v; *p; p++)
        if (iscntrl((unsigned char)*p))
            return 1;
    return 0;
}

int odbc_cs_add_password(char *cs, size_t cap, size_t n, const char *pw)
{
    int braced = odbc_cs_braced(pw);

    if (n > 0 && cs[n - 1] != ';') {
        if (n + 1 >= cap)
            return -1;
        cs[n++] = ';';
    }
    if (n + 5 >= cap)
        return -1;
    memcpy(cs + n, braced ? "PWD={" : "PWD=", braced ? 5 : 4);
    n += braced ? 5 : 4;
    /* Each byte is written with room for what closes the value: '}' when
     * braced, ';' and the NUL. */
    for (const char *p = pw; *p; p++) {
        int twice = braced && *p == '}';
        if (n + (size_t)(twice ? 2 : 1) + (size_t)(braced ? 3 : 2) > cap)
            return -1;
        if (twice)
            cs[n++] = '}';
        cs[n++] = *p;
    }
    if (braced)
        cs[n++] = '}';
    cs[n++] = ';';
    cs[n] = '\0';
    return 0;
}

void odbc_info_format(const struct odbc_info *in, char *out, size_t cap)
{
    snprintf(out, cap,
             "dbms_name %s\ndbms_ver %s\ndriver_name %s\ndriver_odbc_ver %s\n"
             "txn_capable %u\ndefault_isolation %u\nisolation_options %u\n"
             "param_array_row_counts %u\nparam_array_selects %u\nbatch_support %u\n"
             "max_identifier_len %u\nhas_tables %d\nhas_statistics %d\nhas_typeinfo %d\n"
             "paramset_ok %d\n",
             in->dbms_name, in->dbms_ver, in->driver_name, in->driver_odbc_ver, in->txn_capable,
             in->default_isolation, in->isolation_options, in->param_array_row_counts,
             in->param_array_selects, in->batch_support, in->max_identifier_len, in->has_tables,
             in->has_statistics, in->has_typeinfo, in->paramset_ok);
}
