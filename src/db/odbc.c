/*
 * odbc.c - the ODBC driver, on unixODBC: any database with an ODBC driver.
 *
 * Autocommit is off: a transaction starts with the first statement and ends
 * with SQLEndTran.  Each dialect statement is SQLPrepare'd once per
 * connection (its $n placeholders already rewritten to ? by dialect.c);
 * parameters are bound per execution with their SQL types (integers as
 * BIGINT, scaled numbers as NUMERIC text, text as VARCHAR).  Rows are read
 * with SQLFetch + SQLGetData into per-column buffers.  Bulk loads use array
 * parameter binding (SQL_ATTR_PARAMSET_SIZE) in batches, in an INSERT whose
 * table and column names are quoted the DBMS's way (SQL_IDENTIFIER_QUOTE_CHAR,
 * SQL_IDENTIFIER_CASE); a driver without parameter arrays gets the same
 * rows one per execution.  At connect, what the driver answers (SQLGetInfo,
 * SQLGetFunctions) is read and judged by odbccaps.c: a DBMS without
 * transactions is refused, run.isolation is set through
 * SQL_ATTR_TXN_ISOLATION among the levels offered, and the load's path and
 * the rest go into c->caps for the record.  What exists comes from the
 * catalog (SQLTables, SQLStatistics, SQLGetTypeInfo), never from a query of
 * the dialect.  Errors are classed from SQLGetDiagRec by odbc_error_class():
 * 40001/40P01 and each DBMS's own busy, deadlock and lock-wait codes
 * (MySQL's 1213/1205, SQLite's 5/6 under HY000) are retryable, class 08
 * and lost-server codes mean the connection is gone.
 * The password goes into the connection string as PWD=... (in braces, '}'
 * doubled, only where ODBC's rules need them: odbc_cs_add_password), which
 * is wiped right after SQLDriverConnect.
 */
#include <ctype.h>
#include <sql.h>
#include <sqlext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/secret.h"
#include "db/db.h"
#include "db/dialect.h"
#include "db/odbccaps.h"

#define OD_MAX_COLS 64
#define OD_COLBUF 1024  /* per result column: the longest we read is 500 chars */
#define OD_PARAMBUF 48  /* per numeric parameter, as text */
#define OD_MAX_INTS 4   /* DB_INTS parameters of one statement */
#define OD_BATCH 1000   /* rows per bulk execution */
#define OD_BULK_COL 512 /* bytes per bulk column value (c_data is 500) */

struct od_conn {
    SQLHENV env;
    SQLHDBC dbc;
    int connected;
    SQLHSTMT st[DB_MAX_SLOTS]; /* prepared dialect statements */
    SQLHSTMT tmp;              /* exec_sql / query */
    SQLHSTMT cur;              /* statement whose rows next() reads, or NULL */
    SQLSMALLINT ncols;
    SQLLEN affected;
    char col[OD_MAX_COLS][OD_COLBUF];
    SQLLEN collen[OD_MAX_COLS];
    /* Parameters of the current execution. */
    SQLBIGINT pint[DB_MAX_PARAMS];
    char pnum[DB_MAX_PARAMS][OD_PARAMBUF];
    char pints[OD_MAX_INTS][DB_INTS_TEXT]; /* DB_INTS parameters, as "{a,b,c}" */
    SQLLEN pind[DB_MAX_PARAMS];
    /* Bulk load state. */
    SQLHSTMT bulk;
    int bulk_ncols, bulk_nrows;
    char *bulk_buf;       /* bulk_ncols x OD_BATCH x OD_BULK_COL */
    SQLLEN *bulk_ind;     /* bulk_ncols x OD_BATCH */
    SQLSMALLINT bulk_type[OD_MAX_COLS];
    SQLSMALLINT bulk_dec[OD_MAX_COLS];
    /* How this DBMS quotes a name: SQLGetInfo(SQL_IDENTIFIER_QUOTE_CHAR)
     * (0: it cannot), and SQL_IDENTIFIER_CASE, how it stores unquoted names. */
    char quote_open, quote_close;
    SQLUSMALLINT ident_case;
    int plain_fn;          /* 1: the driver translates no {fn ...} escape (SQL_STRING_FUNCTIONS) */
    struct odbc_info info; /* what the driver answered at connect */
    struct odbc_caps caps; /* what tpccbench decided from it */
};

static struct od_conn *O(struct db_conn *c)
{
    return c->priv;
}

/* Fill e from the diagnostics of a handle; class by SQLSTATE / native code. */
static int od_fail(const struct od_conn *o, SQLSMALLINT type, SQLHANDLE h, const char *what,
                   struct err *e)
{
    SQLCHAR state[6] = "", msg[400] = "";
    SQLINTEGER native = 0;
    SQLSMALLINT len = 0;
    int code;

    if (h)
        SQLGetDiagRec(type, h, 1, state, &native, msg, sizeof(msg), &len);
    /* Some drivers end their message with a newline: keep ours on one line. */
    for (char *q = (char *)msg; *q; q++)
        if (*q == '\n' || *q == '\r')
            *q = q[1] ? ' ' : '\0';
    /* The DBMS's retry class: its busy and lock codes (odbccaps.c). */
    code = odbc_error_class(o->info.dbms_name, (char *)state, (long)native);
    err_set(e, code, "%s: %s%s%s", what, msg[0] ? (char *)msg : "unknown ODBC error",
            state[0] ? " (SQLSTATE " : "", state[0] ? (char *)state : "");
    if (state[0]) {
        size_t n = strlen(e->msg);
        if (n + 1 < sizeof(e->msg)) {
            e->msg[n] = ')';
            e->msg[n + 1] = '\0';
        }
    }
    snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", (char *)state);
    return code;
}

static int ok(SQLRETURN r)
{
    return r == SQL_SUCCESS || r == SQL_SUCCESS_WITH_INFO;
}

/* SQL_DBMS_VER pads its parts ("10.11.000019", PostgreSQL's "15.0.18" for
 * 15.18): drop leading zeros, and PostgreSQL 10+'s empty middle part. */
static void version_tidy(const char *v, const char *dbms, char *out, size_t cap)
{
    long part[4];
    int n = 0;
    char *end;

    while (n < 4 && *v >= '0' && *v <= '9') {
        part[n++] = strtol(v, &end, 10);
        v = *end == '.' ? end + 1 : end;
        if (*end != '.')
            break;
    }
    if (n == 3 && strstr(dbms, "PostgreSQL") && part[0] >= 10 && part[1] == 0)
        snprintf(out, cap, "%ld.%ld", part[0], part[2]);
    else if (n == 3)
        snprintf(out, cap, "%ld.%ld.%ld", part[0], part[1], part[2]);
    else if (n == 2)
        snprintf(out, cap, "%ld.%ld", part[0], part[1]);
    else
        snprintf(out, cap, "%s", v);
}

static void info_str(SQLHDBC dbc, SQLUSMALLINT what, char *out, size_t cap)
{
    SQLSMALLINT len = 0;

    out[0] = '\0';
    if (!ok(SQLGetInfo(dbc, what, out, (SQLSMALLINT)cap, &len)))
        out[0] = '\0';
}

static unsigned info_uint(SQLHDBC dbc, SQLUSMALLINT what)
{
    SQLUINTEGER v = 0;

    return ok(SQLGetInfo(dbc, what, &v, sizeof(v), NULL)) ? (unsigned)v : 0;
}

static unsigned info_ushort(SQLHDBC dbc, SQLUSMALLINT what)
{
    SQLUSMALLINT v = 0;

    return ok(SQLGetInfo(dbc, what, &v, sizeof(v), NULL)) ? (unsigned)v : 0;
}

static int has_function(SQLHDBC dbc, SQLUSMALLINT fn)
{
    SQLUSMALLINT yes = 0;

    return ok(SQLGetFunctions(dbc, fn, &yes)) && yes == SQL_TRUE;
}

void odbc_info_read(void *dbc, struct odbc_info *in)
{
    SQLHSTMT h = NULL;

    memset(in, 0, sizeof(*in));
    info_str(dbc, SQL_DBMS_NAME, in->dbms_name, sizeof(in->dbms_name));
    info_str(dbc, SQL_DBMS_VER, in->dbms_ver, sizeof(in->dbms_ver));
    info_str(dbc, SQL_DRIVER_NAME, in->driver_name, sizeof(in->driver_name));
    info_str(dbc, SQL_DRIVER_ODBC_VER, in->driver_odbc_ver, sizeof(in->driver_odbc_ver));
    in->txn_capable = info_ushort(dbc, SQL_TXN_CAPABLE);
    in->default_isolation = info_uint(dbc, SQL_DEFAULT_TXN_ISOLATION);
    in->isolation_options = info_uint(dbc, SQL_TXN_ISOLATION_OPTION);
    in->param_array_row_counts = info_uint(dbc, SQL_PARAM_ARRAY_ROW_COUNTS);
    in->param_array_selects = info_uint(dbc, SQL_PARAM_ARRAY_SELECTS);
    in->batch_support = info_uint(dbc, SQL_BATCH_SUPPORT);
    in->max_identifier_len = info_ushort(dbc, SQL_MAX_IDENTIFIER_LEN);
    in->has_tables = has_function(dbc, SQL_API_SQLTABLES);
    in->has_statistics = has_function(dbc, SQL_API_SQLSTATISTICS);
    in->has_typeinfo = has_function(dbc, SQL_API_SQLGETTYPEINFO);
    /* Array binding: a driver without it refuses the size or keeps 1. */
    if (ok(SQLAllocHandle(SQL_HANDLE_STMT, dbc, &h))) {
        SQLULEN got = 0;
        if (ok(SQLSetStmtAttr(h, SQL_ATTR_PARAMSET_SIZE, (SQLPOINTER)(SQLULEN)OD_BATCH, 0)) &&
            ok(SQLGetStmtAttr(h, SQL_ATTR_PARAMSET_SIZE, &got, sizeof(got), NULL)))
            in->paramset_ok = got == OD_BATCH;
        SQLFreeHandle(SQL_HANDLE_STMT, h);
    }
}

/*
 * The text a statement is sent as: sql itself, or for a driver that
 * translates no ODBC scalar function escape (SQLite's reports no string
 * function), a heap copy with each "{fn F(...)}" written F(...), the call
 * as the DBMS itself knows it.  String literals are copied as they are.
 * NULL when out of memory; free it with text_free.
 */
static char *text_of(const struct od_conn *o, const char *sql)
{
    size_t n = 0;
    int depth = 0;
    char *out;

    if (!o->plain_fn || !strstr(sql, "{fn "))
        return (char *)sql;
    if (!(out = malloc(strlen(sql) + 1)))
        return NULL;
    for (const char *p = sql; *p; p++) {
        if (*p == '\'') {
            out[n++] = *p++;
            while (*p && *p != '\'')
                out[n++] = *p++;
            if (!*p)
                break;
            out[n++] = *p;
        } else if (strncmp(p, "{fn ", 4) == 0) {
            depth++;
            p += 3;
        } else if (*p == '}' && depth > 0) {
            depth--;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
    return out;
}

static void text_free(const char *sql, char *text)
{
    if (text != sql)
        free(text);
}

static void close_cursor(struct od_conn *o)
{
    if (o->cur)
        SQLFreeStmt(o->cur, SQL_CLOSE);
    o->cur = NULL;
    o->ncols = 0;
}

static const char *txn_words(unsigned tc)
{
    switch (tc) {
    case SQL_TC_NONE:
        return "none";
    case SQL_TC_DML:
        return "DML only (DDL refused in a transaction)";
    case SQL_TC_DDL_COMMIT:
        return "DML; DDL commits the transaction";
    case SQL_TC_DDL_IGNORE:
        return "DML; DDL ignored in a transaction";
    default:
        return "DML and DDL";
    }
}

/* What the driver answers, what we decide from it (refusing a DBMS we
 * cannot run on), and the record's words for it in c->caps. */
static int caps_of(struct db_conn *c, struct od_conn *o, struct err *e)
{
    struct db_caps *k = &c->caps;
    unsigned d;

    SQLUINTEGER fns = 0;

    odbc_info_read(o->dbc, &o->info);
    o->plain_fn = !ok(SQLGetInfo(o->dbc, SQL_STRING_FUNCTIONS, &fns, sizeof(fns), NULL)) ||
                  !(fns & SQL_FN_STR_SUBSTRING);
    if (odbc_caps_decide(&o->info, &o->caps, e) < 0)
        return e->code;
    d = o->caps.default_isolation;
    k->known = 1;
    snprintf(k->source, sizeof(k->source), "ODBC SQLGetInfo (%.20s %.8s)", o->info.driver_name,
             o->info.driver_odbc_ver);
    snprintf(k->transactions, sizeof(k->transactions), "%s", txn_words(o->info.txn_capable));
    snprintf(k->isolation, sizeof(k->isolation), "%s", o->caps.isolation_list);
    k->iso_offered = o->caps.isolation;
    snprintf(k->default_isolation, sizeof(k->default_isolation), "%s",
             d == ODBC_ISO_READ_COMMITTED    ? "read committed"
             : d == ODBC_ISO_REPEATABLE_READ ? "repeatable read"
             : d == ODBC_ISO_SERIALIZABLE    ? "serializable"
                                             : "unknown");
    k->rows_load = o->caps.load_path == ODBC_LOAD_ROWS;
    snprintf(k->load_path, sizeof(k->load_path), "%s",
             k->rows_load ? "row at a time" : "array binding");
    snprintf(k->load_why, sizeof(k->load_why), "%s", o->caps.load_why);
    k->max_identifier_len = o->caps.max_identifier_len;
    snprintf(k->catalog, sizeof(k->catalog), "SQLTables%s%s",
             o->info.has_statistics ? ", SQLStatistics" : "",
             o->info.has_typeinfo ? ", SQLGetTypeInfo" : "");
    return 0;
}

static int od_connect(struct db_conn *c, const struct db_connect_args *a, struct err *e)
{
    struct od_conn *o = O(c);
    char cs[1024], out[1024];
    SQLSMALLINT outlen = 0;
    SQLCHAR info[64];
    SQLSMALLINT ilen;
    SQLRETURN r;
    const char *dsn = a->dsn ? a->dsn : "";
    int n;

    if (!*dsn)
        return err_set(e, E_USAGE, "database.dsn is empty: give a DSN name or a connection string");
    /* A bare name is a DSN from odbc.ini; anything with '=' is a connection string. */
    n = snprintf(cs, sizeof(cs), "%s%s", strchr(dsn, '=') ? "" : "DSN=", dsn);
    if (n >= (int)sizeof(cs))
        return err_set(e, E_USAGE, "ODBC connection string too long");
    if (a->password && *a->password &&
        odbc_cs_add_password(cs, sizeof(cs), (size_t)n, a->password) < 0) {
        secret_wipe(cs, sizeof(cs));
        return err_set(e, E_USAGE, "ODBC connection string too long");
    }
    if (!ok(SQLAllocHandle(SQL_HANDLE_ENV, SQL_NULL_HANDLE, &o->env)) ||
        !ok(SQLSetEnvAttr(o->env, SQL_ATTR_ODBC_VERSION, (SQLPOINTER)SQL_OV_ODBC3, 0)) ||
        !ok(SQLAllocHandle(SQL_HANDLE_DBC, o->env, &o->dbc))) {
        secret_wipe(cs, sizeof(cs));
        return err_set(e, E_FAIL, "cannot allocate ODBC handles (is unixODBC installed?)");
    }
    SQLSetConnectAttr(o->dbc, SQL_ATTR_LOGIN_TIMEOUT, (SQLPOINTER)10, 0);
    r = SQLDriverConnect(o->dbc, NULL, (SQLCHAR *)cs, SQL_NTS, (SQLCHAR *)out, sizeof(out), &outlen,
                         SQL_DRIVER_NOPROMPT);
    /* Both strings hold the password now: wipe them before anything else. */
    secret_wipe(cs, sizeof(cs));
    secret_wipe(out, sizeof(out));
    if (!ok(r)) {
        /* The message names the DSN as configured, without a password in
         * it; db_connect() cleans what the driver said. */
        char what[300], shown[256];
        secret_redact(dsn, shown, sizeof(shown));
        snprintf(what, sizeof(what), "cannot connect through ODBC (%.200s)", shown);
        od_fail(o, SQL_HANDLE_DBC, o->dbc, what, e);
        /* A first connection that fails is the user's to fix. */
        e->code = E_USAGE;
        return E_USAGE;
    }
    o->connected = 1;
    if (!ok(SQLSetConnectAttr(o->dbc, SQL_ATTR_AUTOCOMMIT, (SQLPOINTER)SQL_AUTOCOMMIT_OFF, 0)))
        return od_fail(o, SQL_HANDLE_DBC, o->dbc, "turning autocommit off", e);
    if (!ok(SQLAllocHandle(SQL_HANDLE_STMT, o->dbc, &o->tmp)))
        return od_fail(o, SQL_HANDLE_DBC, o->dbc, "allocating a statement", e);
    if (ok(SQLGetInfo(o->dbc, SQL_DBMS_NAME, info, sizeof(info), &ilen)))
        snprintf(c->server_name, sizeof(c->server_name), "%s", (char *)info);
    if (ok(SQLGetInfo(o->dbc, SQL_DBMS_VER, info, sizeof(info), &ilen)))
        version_tidy((char *)info, c->server_name, c->server_version, sizeof(c->server_version));
    /* A blank quote character means the DBMS has none. */
    if (ok(SQLGetInfo(o->dbc, SQL_IDENTIFIER_QUOTE_CHAR, info, sizeof(info), &ilen)) &&
        info[0] != ' ' && info[0] != '\0') {
        o->quote_open = (char)info[0];
        o->quote_close = info[0] == '[' ? ']' : (char)info[0];
    }
    if (!ok(SQLGetInfo(o->dbc, SQL_IDENTIFIER_CASE, &o->ident_case, sizeof(o->ident_case),
                       NULL)))
        o->ident_case = SQL_IC_SENSITIVE;
    return caps_of(c, o, e);
}

static void bulk_free(struct od_conn *o)
{
    if (o->bulk)
        SQLFreeHandle(SQL_HANDLE_STMT, o->bulk);
    o->bulk = NULL;
    free(o->bulk_buf);
    free(o->bulk_ind);
    o->bulk_buf = NULL;
    o->bulk_ind = NULL;
}

/* ODBC 3.8: cancel whatever runs on the connection, from another thread.
 * A driver without it answers an error, which changes nothing. */
static void od_cancel(struct db_conn *c)
{
    struct od_conn *o = O(c);

    if (o && o->dbc && o->connected)
        (void)SQLCancelHandle(SQL_HANDLE_DBC, o->dbc);
}

static void od_close(struct db_conn *c)
{
    struct od_conn *o = O(c);

    if (!o)
        return;
    close_cursor(o);
    bulk_free(o);
    for (int i = 0; i < DB_MAX_SLOTS; i++)
        if (o->st[i])
            SQLFreeHandle(SQL_HANDLE_STMT, o->st[i]);
    if (o->tmp)
        SQLFreeHandle(SQL_HANDLE_STMT, o->tmp);
    if (o->dbc) {
        if (o->connected) {
            SQLEndTran(SQL_HANDLE_DBC, o->dbc, SQL_ROLLBACK);
            SQLDisconnect(o->dbc);
        }
        SQLFreeHandle(SQL_HANDLE_DBC, o->dbc);
    }
    if (o->env)
        SQLFreeHandle(SQL_HANDLE_ENV, o->env);
    memset(o->st, 0, sizeof(o->st));
    o->tmp = o->dbc = o->env = NULL;
    o->connected = 0;
}

/* Bind p[0..np-1] to h with their SQL types. */
static int bind_params(struct od_conn *o, SQLHSTMT h, const struct db_param *p, int np,
                       struct err *e)
{
    int nints = 0;

    for (int i = 0; i < np; i++) {
        const struct db_param *q = &p[i];
        SQLRETURN r;

        switch (q->type) {
        case DB_INT:
            o->pint[i] = q->i;
            o->pind[i] = 0;
            r = SQLBindParameter(h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, SQL_C_SBIGINT,
                                 SQL_BIGINT, 0, 0, &o->pint[i], 0, &o->pind[i]);
            break;
        case DB_NUM:
            o->pind[i] = db_format_scaled(o->pnum[i], OD_PARAMBUF, q->i, q->scale);
            r = SQLBindParameter(h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, SQL_C_CHAR,
                                 SQL_NUMERIC, 18, (SQLSMALLINT)q->scale, o->pnum[i], OD_PARAMBUF,
                                 &o->pind[i]);
            break;
        case DB_INTS: {
            char *t = nints < OD_MAX_INTS ? o->pints[nints++] : NULL;
            int n = t ? db_format_ints(t, DB_INTS_TEXT, q->ints, q->len) : -1;
            if (n < 0)
                return err_set(e, E_FAIL, "an integer list parameter too long");
            o->pind[i] = n;
            r = SQLBindParameter(h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, SQL_C_CHAR,
                                 SQL_VARCHAR, (SQLULEN)n, 0, t, n, &o->pind[i]);
            break;
        }
        case DB_TEXT: {
            SQLLEN n = q->len < 0 ? (SQLLEN)strlen(q->s) : q->len;
            o->pind[i] = n;
            r = SQLBindParameter(h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, SQL_C_CHAR,
                                 SQL_VARCHAR, (SQLULEN)(n ? n : 1), 0, (SQLPOINTER)q->s, n,
                                 &o->pind[i]);
            break;
        }
        default:
            o->pind[i] = SQL_NULL_DATA;
            r = SQLBindParameter(h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, SQL_C_CHAR,
                                 SQL_VARCHAR, 1, 0, NULL, 0, &o->pind[i]);
            break;
        }
        if (!ok(r))
            return od_fail(o, SQL_HANDLE_STMT, h, "binding a parameter", e);
    }
    return 0;
}

/* Execute h (prepared, parameters bound): keep its rows for next(). */
static int run_stmt(struct db_conn *c, SQLHSTMT h, SQLRETURN r, struct err *e)
{
    struct od_conn *o = O(c);

    /* An UPDATE/DELETE that matched no row answers SQL_NO_DATA: not an error. */
    if (!ok(r) && r != SQL_NO_DATA)
        return od_fail(o, SQL_HANDLE_STMT, h, "executing", e);
    o->affected = 0;
    if (r != SQL_NO_DATA)
        SQLRowCount(h, &o->affected);
    if (!ok(SQLNumResultCols(h, &o->ncols)))
        o->ncols = 0;
    if (o->ncols > OD_MAX_COLS)
        o->ncols = OD_MAX_COLS;
    o->cur = o->ncols ? h : NULL;
    if (!o->cur)
        SQLFreeStmt(h, SQL_CLOSE);
    return 0;
}

static int od_exec_sql(struct db_conn *c, const char *sql, struct err *e)
{
    struct od_conn *o = O(c);
    SQLRETURN r;

    close_cursor(o);
    SQLFreeStmt(o->tmp, SQL_RESET_PARAMS);
    r = SQLExecDirect(o->tmp, (SQLCHAR *)sql, SQL_NTS);
    return run_stmt(c, o->tmp, r, e);
}

static int od_prepare(struct db_conn *c, int slot, const char *sql, int np, struct err *e)
{
    struct od_conn *o = O(c);
    SQLHSTMT h;
    char *text;
    SQLRETURN r;

    (void)np;
    close_cursor(o);
    /* Unnamed: only check the text, on the scratch statement. */
    if (c->statements == DB_STMT_UNNAMED) {
        SQLFreeStmt(o->tmp, SQL_RESET_PARAMS);
        h = o->tmp;
    } else {
        if (!o->st[slot] && !ok(SQLAllocHandle(SQL_HANDLE_STMT, o->dbc, &o->st[slot])))
            return od_fail(o, SQL_HANDLE_DBC, o->dbc, "allocating a statement", e);
        h = o->st[slot];
    }
    if (!(text = text_of(o, sql)))
        return err_set(e, E_FAIL, "out of memory");
    r = SQLPrepare(h, (SQLCHAR *)text, SQL_NTS);
    text_free(sql, text);
    if (!ok(r))
        return od_fail(o, SQL_HANDLE_STMT, h, "preparing", e);
    return 0;
}

static int od_exec(struct db_conn *c, int slot, const struct db_param *p, int np, struct err *e)
{
    struct od_conn *o = O(c);
    SQLHSTMT h = o->st[slot];
    int rc;

    close_cursor(o);
    SQLFreeStmt(h, SQL_RESET_PARAMS);
    if ((rc = bind_params(o, h, p, np, e)) < 0)
        return rc;
    return run_stmt(c, h, SQLExecute(h), e);
}

/* Unnamed: SQLExecDirect with the parameters bound, on the scratch
 * statement; no statement handle keeps the text prepared. */
static int od_exec_once(struct db_conn *c, int slot, const char *sql, const struct db_param *p,
                        int np, struct err *e)
{
    struct od_conn *o = O(c);
    char *text;
    SQLRETURN r;
    int rc;

    (void)slot;
    close_cursor(o);
    SQLFreeStmt(o->tmp, SQL_RESET_PARAMS);
    if ((rc = bind_params(o, o->tmp, p, np, e)) < 0)
        return rc;
    if (!(text = text_of(o, sql)))
        return err_set(e, E_FAIL, "out of memory");
    r = SQLExecDirect(o->tmp, (SQLCHAR *)text, SQL_NTS);
    text_free(sql, text);
    return run_stmt(c, o->tmp, r, e);
}

static int od_query(struct db_conn *c, const char *sql, const struct db_param *p, int np,
                    struct err *e)
{
    struct od_conn *o = O(c);
    struct db_param sp[DB_MAX_PARAMS];
    unsigned char map[DB_MAX_PARAMS];
    size_t cap = strlen(sql) + 16;
    char *q = malloc(cap);
    int nq, rc;

    if (!q)
        return err_set(e, E_FAIL, "out of memory");
    close_cursor(o);
    nq = sql_to_qmark(sql, q, cap, map, DB_MAX_PARAMS);
    if (nq >= 0 && o->plain_fn) {
        char *t = text_of(o, q);
        if (t && t != q) {
            free(q);
            q = t;
        }
    }
    for (int j = 0; j < nq; j++) {
        if (map[j] > np) {
            free(q);
            return err_set(e, E_FAIL, "query uses parameter $%d of %d", map[j], np);
        }
        sp[j] = p[map[j] - 1];
    }
    SQLFreeStmt(o->tmp, SQL_RESET_PARAMS);
    if (c->statements == DB_STMT_UNNAMED) {
        SQLRETURN r;
        if (nq > 0 && (rc = bind_params(o, o->tmp, sp, nq, e)) < 0) {
            free(q);
            return rc;
        }
        r = SQLExecDirect(o->tmp, (SQLCHAR *)q, SQL_NTS);
        free(q);
        return run_stmt(c, o->tmp, r, e);
    }
    if (!ok(SQLPrepare(o->tmp, (SQLCHAR *)q, SQL_NTS))) {
        free(q);
        return od_fail(o, SQL_HANDLE_STMT, o->tmp, "preparing", e);
    }
    free(q);
    if (nq > 0 && (rc = bind_params(o, o->tmp, sp, nq, e)) < 0)
        return rc;
    return run_stmt(c, o->tmp, SQLExecute(o->tmp), e);
}

static int od_next(struct db_conn *c)
{
    struct od_conn *o = O(c);
    SQLRETURN r;

    if (!o->cur)
        return 0;
    r = SQLFetch(o->cur);
    if (!ok(r)) {
        close_cursor(o);
        return 0;
    }
    /* Read every column now, in order: not every driver allows any order. */
    for (SQLSMALLINT i = 0; i < o->ncols; i++) {
        r = SQLGetData(o->cur, (SQLUSMALLINT)(i + 1), SQL_C_CHAR, o->col[i], OD_COLBUF,
                       &o->collen[i]);
        if (!ok(r)) {
            o->collen[i] = SQL_NULL_DATA;
            continue;
        }
        if (o->collen[i] >= OD_COLBUF || o->collen[i] == SQL_NO_TOTAL)
            o->collen[i] = OD_COLBUF - 1; /* truncated: longer than any column we read */
    }
    return 1;
}

static int od_col_isnull(struct db_conn *c, int col)
{
    struct od_conn *o = O(c);

    return col >= o->ncols || o->collen[col] == SQL_NULL_DATA;
}

static int64_t od_col_int(struct db_conn *c, int col)
{
    struct od_conn *o = O(c);

    return od_col_isnull(c, col) ? 0 : strtoll(o->col[col], NULL, 10);
}

static int64_t od_col_num(struct db_conn *c, int col, int scale)
{
    struct od_conn *o = O(c);

    return od_col_isnull(c, col) ? 0 : db_parse_scaled(o->col[col], (int)o->collen[col], scale);
}

static const char *od_col_text(struct db_conn *c, int col, int *len)
{
    struct od_conn *o = O(c);

    if (od_col_isnull(c, col)) {
        if (len)
            *len = 0;
        return "";
    }
    if (len)
        *len = (int)o->collen[col];
    return o->col[col];
}

static int64_t od_affected(struct db_conn *c)
{
    return O(c)->affected;
}

static int od_begin(struct db_conn *c, struct err *e)
{
    /* Autocommit is off: the first statement opens the transaction. */
    (void)c;
    (void)e;
    return 0;
}

static int od_end(struct db_conn *c, SQLSMALLINT how, struct err *e)
{
    struct od_conn *o = O(c);

    close_cursor(o);
    if (!ok(SQLEndTran(SQL_HANDLE_DBC, o->dbc, how)))
        return od_fail(o, SQL_HANDLE_DBC, o->dbc, how == SQL_COMMIT ? "commit" : "rollback", e);
    return 0;
}

static int od_commit(struct db_conn *c, struct err *e)
{
    return od_end(c, SQL_COMMIT, e);
}

static int od_rollback(struct db_conn *c, struct err *e)
{
    return od_end(c, SQL_ROLLBACK, e);
}

/*
 * Append name (n bytes) to sql at *used as a quoted identifier of this DBMS:
 * in its quote characters, an embedded closing quote doubled, and in the
 * case it stores unquoted names in (our schema creates them unquoted, so
 * "warehouse" is WAREHOUSE where names fold to upper case).  Unquoted when
 * the DBMS has no quote character.  -1 when it does not fit.
 */
static int add_ident(const struct od_conn *o, char *sql, size_t cap, size_t *used,
                     const char *name, size_t n)
{
    size_t u = *used;

    if (o->quote_open) {
        if (u + 1 >= cap)
            return -1;
        sql[u++] = o->quote_open;
    }
    for (size_t i = 0; i < n; i++) {
        char ch = name[i];
        if (o->ident_case == SQL_IC_UPPER)
            ch = (char)toupper((unsigned char)ch);
        else if (o->ident_case == SQL_IC_LOWER)
            ch = (char)tolower((unsigned char)ch);
        if (u + 2 >= cap)
            return -1;
        if (o->quote_open && ch == o->quote_close)
            sql[u++] = ch;
        sql[u++] = ch;
    }
    if (o->quote_open) {
        if (u + 1 >= cap)
            return -1;
        sql[u++] = o->quote_close;
    }
    sql[u] = '\0';
    *used = u;
    return 0;
}

/* Append text to sql at *used; -1 when it does not fit. */
static int add_text(char *sql, size_t cap, size_t *used, const char *text)
{
    size_t n = strlen(text);

    if (*used + n >= cap)
        return -1;
    memcpy(sql + *used, text, n + 1);
    *used += n;
    return 0;
}

static int od_bulk_begin(struct db_conn *c, const char *table, const char *columns,
                         struct err *e)
{
    struct od_conn *o = O(c);
    const char *at = columns, *col;
    char sql[4096] = "";
    size_t used = 0, n;
    int ncols = 0, bad;

    close_cursor(o);
    bulk_free(o);
    /* INSERT ... VALUES (?, ...): the values are bound; the names go into
     * the text quoted (db_bulk_begin() has also checked that they are plain). */
    bad = add_text(sql, sizeof(sql), &used, "INSERT INTO ") < 0 ||
          add_ident(o, sql, sizeof(sql), &used, table, strlen(table)) < 0 ||
          add_text(sql, sizeof(sql), &used, " (") < 0;
    while (!bad && db_next_name(&at, &col, &n))
        bad = (ncols++ && add_text(sql, sizeof(sql), &used, ", ") < 0) ||
              add_ident(o, sql, sizeof(sql), &used, col, n) < 0;
    bad = bad || add_text(sql, sizeof(sql), &used, ") VALUES (") < 0;
    for (int i = 0; !bad && i < ncols; i++)
        bad = add_text(sql, sizeof(sql), &used, i ? ",?" : "?") < 0;
    if (bad || add_text(sql, sizeof(sql), &used, ")") < 0)
        return err_set(e, E_FAIL, "bulk insert into %s longer than %zu bytes", table,
                       sizeof(sql) - 1);
    if (ncols > OD_MAX_COLS)
        return err_set(e, E_FAIL, "too many columns for a bulk load (%d)", ncols);
    o->bulk_ncols = ncols;
    o->bulk_nrows = 0;
    o->bulk_buf = malloc((size_t)ncols * OD_BATCH * OD_BULK_COL);
    o->bulk_ind = malloc((size_t)ncols * OD_BATCH * sizeof(SQLLEN));
    if (!o->bulk_buf || !o->bulk_ind)
        return err_set(e, E_FAIL, "out of memory for a bulk load");
    if (!ok(SQLAllocHandle(SQL_HANDLE_STMT, o->dbc, &o->bulk)))
        return od_fail(o, SQL_HANDLE_DBC, o->dbc, "allocating a statement", e);
    if (!ok(SQLPrepare(o->bulk, (SQLCHAR *)sql, SQL_NTS)))
        return od_fail(o, SQL_HANDLE_STMT, o->bulk, "preparing the bulk insert", e);
    SQLSetStmtAttr(o->bulk, SQL_ATTR_PARAM_BIND_TYPE, (SQLPOINTER)SQL_PARAM_BIND_BY_COLUMN, 0);
    for (int i = 0; i < ncols; i++) {
        /* Bind text with the column's own type where the driver tells it,
         * so the server converts (a VARCHAR into an INTEGER column would
         * not be accepted by every DBMS). */
        SQLSMALLINT type = SQL_VARCHAR, dec = 0, nullable;
        SQLULEN size = 0;
        if (!ok(SQLDescribeParam(o->bulk, (SQLUSMALLINT)(i + 1), &type, &size, &dec, &nullable)))
            type = SQL_VARCHAR, dec = 0;
        o->bulk_type[i] = type;
        o->bulk_dec[i] = dec;
        if (!ok(SQLBindParameter(o->bulk, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, SQL_C_CHAR,
                                 type, OD_BULK_COL - 1, dec,
                                 o->bulk_buf + (size_t)i * OD_BATCH * OD_BULK_COL, OD_BULK_COL,
                                 o->bulk_ind + (size_t)i * OD_BATCH)))
            return od_fail(o, SQL_HANDLE_STMT, o->bulk, "binding the bulk insert", e);
    }
    return 0;
}

/* The load's other path, for a driver without parameter arrays: each
 * buffered row bound in place and executed on its own. */
static int bulk_flush_rows(struct db_conn *c, struct err *e)
{
    struct od_conn *o = O(c);
    int n = o->bulk_nrows;

    o->bulk_nrows = 0;
    for (int r = 0; r < n; r++) {
        SQLRETURN x;
        for (int i = 0; i < o->bulk_ncols; i++)
            if (!ok(SQLBindParameter(o->bulk, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT, SQL_C_CHAR,
                                     o->bulk_type[i], OD_BULK_COL - 1, o->bulk_dec[i],
                                     o->bulk_buf + ((size_t)i * OD_BATCH + (size_t)r) * OD_BULK_COL,
                                     OD_BULK_COL, o->bulk_ind + (size_t)i * OD_BATCH + (size_t)r)))
                return od_fail(o, SQL_HANDLE_STMT, o->bulk, "binding the bulk insert", e);
        x = SQLExecute(o->bulk);
        if (!ok(x) && x != SQL_NO_DATA)
            return od_fail(o, SQL_HANDLE_STMT, o->bulk, "bulk insert (row at a time)", e);
        SQLFreeStmt(o->bulk, SQL_CLOSE);
    }
    return 0;
}

static int bulk_flush(struct db_conn *c, struct err *e)
{
    struct od_conn *o = O(c);
    SQLRETURN r;

    if (o->bulk_nrows == 0)
        return 0;
    if (c->caps.rows_load)
        return bulk_flush_rows(c, e);
    SQLSetStmtAttr(o->bulk, SQL_ATTR_PARAMSET_SIZE, (SQLPOINTER)(SQLULEN)o->bulk_nrows, 0);
    r = SQLExecute(o->bulk);
    o->bulk_nrows = 0;
    if (!ok(r) && r != SQL_NO_DATA)
        return od_fail(o, SQL_HANDLE_STMT, o->bulk, "bulk insert", e);
    SQLFreeStmt(o->bulk, SQL_CLOSE);
    return 0;
}

static int od_bulk_put(struct db_conn *c, const char *buf, size_t len, struct err *e)
{
    struct od_conn *o = O(c);
    const char *p = buf, *end = buf + len;
    int rc;

    while (p < end) {
        int row = o->bulk_nrows;
        for (int i = 0; i < o->bulk_ncols; i++) {
            const char *v = p;
            size_t n;
            char *dst = o->bulk_buf + ((size_t)i * OD_BATCH + (size_t)row) * OD_BULK_COL;
            SQLLEN *ind = o->bulk_ind + (size_t)i * OD_BATCH + (size_t)row;
            while (p < end && *p != '\t' && *p != '\n')
                p++;
            n = (size_t)(p - v);
            if (n == 2 && v[0] == '\\' && v[1] == 'N') {
                *ind = SQL_NULL_DATA;
            } else {
                if (n >= OD_BULK_COL)
                    return err_set(e, E_FAIL, "bulk value longer than %d bytes", OD_BULK_COL - 1);
                memcpy(dst, v, n);
                dst[n] = '\0';
                *ind = (SQLLEN)n;
            }
            if (p < end)
                p++; /* the tab or the newline */
        }
        if (++o->bulk_nrows == OD_BATCH && (rc = bulk_flush(c, e)) < 0)
            return rc;
    }
    return 0;
}

static int od_bulk_end(struct db_conn *c, int abort, struct err *e)
{
    struct od_conn *o = O(c);
    int rc = 0;

    /* The rows stay in the caller's transaction: it commits them (with the
     * record of the load step) or rolls them back. */
    if (!abort)
        rc = bulk_flush(c, e);
    bulk_free(o);
    return rc;
}

/* Which of names[0..n-1] are tables, from the catalog: SQLTables of every
 * table this user sees (names compared without case: a DBMS may store
 * WAREHOUSE), rather than a pattern per name, in which '_' is a wildcard. */
static int od_tables(struct db_conn *c, const char *const *names, int n, int *found,
                     struct err *e)
{
    struct od_conn *o = O(c);
    SQLCHAR name[256];
    SQLLEN len;
    SQLRETURN r;

    close_cursor(o);
    for (int i = 0; i < n; i++)
        found[i] = 0;
    SQLFreeStmt(o->tmp, SQL_RESET_PARAMS);
    c->n_roundtrips++;
    r = SQLTables(o->tmp, NULL, 0, NULL, 0, NULL, 0, (SQLCHAR *)"TABLE", SQL_NTS);
    if (!ok(r))
        return od_fail(o, SQL_HANDLE_STMT, o->tmp, "listing the tables (SQLTables)", e);
    while (ok(SQLFetch(o->tmp))) {
        if (!ok(SQLGetData(o->tmp, 3, SQL_C_CHAR, name, sizeof(name), &len)) ||
            len == SQL_NULL_DATA)
            continue;
        for (int i = 0; i < n; i++)
            if (strcasecmp((char *)name, names[i]) == 0)
                found[i] = 1;
    }
    SQLFreeStmt(o->tmp, SQL_CLOSE);
    return 0;
}

/* The standard type names the schema files use, and their ODBC codes. */
static const struct {
    const char *name;
    SQLSMALLINT type;
} std_types[] = {
    { "INTEGER", SQL_INTEGER }, { "SMALLINT", SQL_SMALLINT },        { "BIGINT", SQL_BIGINT },
    { "DECIMAL", SQL_DECIMAL }, { "NUMERIC", SQL_NUMERIC },          { "VARCHAR", SQL_VARCHAR },
    { "CHAR", SQL_CHAR },       { "TIMESTAMP", SQL_TYPE_TIMESTAMP },
};

/* Which of the standard types names[0..n-1] the DBMS has: a row of
 * SQLGetTypeInfo(SQL_ALL_TYPES) with its ODBC type code, or with its name
 * (SQLite's driver lists "numeric" under the code of DOUBLE, which is what
 * it keeps: the DBMS's own name for its type counts).  A name not in
 * std_types is found by name only. */
static int od_types(struct db_conn *c, const char *const *names, int n, int *found,
                    struct err *e)
{
    struct od_conn *o = O(c);
    SQLSMALLINT want[16] = { 0 }, type;
    SQLCHAR name[128];
    SQLLEN len, tlen;

    close_cursor(o);
    for (int i = 0; i < n && i < 16; i++) {
        found[i] = 0;
        for (size_t k = 0; k < sizeof(std_types) / sizeof(std_types[0]); k++)
            if (strcasecmp(std_types[k].name, names[i]) == 0)
                want[i] = std_types[k].type;
    }
    c->n_roundtrips++;
    if (!ok(SQLGetTypeInfo(o->tmp, SQL_ALL_TYPES)))
        return od_fail(o, SQL_HANDLE_STMT, o->tmp, "reading the types (SQLGetTypeInfo)", e);
    while (ok(SQLFetch(o->tmp))) {
        if (!ok(SQLGetData(o->tmp, 1, SQL_C_CHAR, name, sizeof(name), &len)) ||
            len == SQL_NULL_DATA ||
            !ok(SQLGetData(o->tmp, 2, SQL_C_SSHORT, &type, sizeof(type), &tlen)))
            continue;
        for (int i = 0; i < n && i < 16; i++)
            if (strcasecmp((char *)name, names[i]) == 0 || (want[i] && type == want[i]) ||
                (want[i] == SQL_TYPE_TIMESTAMP && type == SQL_TIMESTAMP))
                found[i] = 1;
    }
    SQLFreeStmt(o->tmp, SQL_CLOSE);
    return 0;
}

/* Does the index of (NUL-separated) columns have exactly the columns of
 * want ("a, b, c"), in any order? */
static int same_columns(const char *have, int nhave, const char *want)
{
    const char *at = want, *name;
    size_t n;
    int nwant = 0;

    while (db_next_name(&at, &name, &n)) {
        const char *h = have;
        int hit = 0;
        nwant++;
        for (int i = 0; i < nhave; i++, h += strlen(h) + 1)
            hit |= strlen(h) == n && strncasecmp(h, name, n) == 0;
        if (!hit)
            return 0;
    }
    return nwant == nhave;
}

/* Whether table has a unique index on exactly the columns cols (a key),
 * from the catalog: SQLStatistics's unique indexes, column by column. */
static int od_unique_key(struct db_conn *c, const char *table, const char *cols, int *found,
                         struct err *e)
{
    struct od_conn *o = O(c);
    char name[128], cur[128] = "", have[1024], tab[128];
    SQLCHAR col[128];
    SQLLEN len;
    size_t used = 0;
    int nhave = 0;

    close_cursor(o);
    *found = 0;
    snprintf(tab, sizeof(tab), "%s", table);
    for (char *p = tab; *p; p++)
        *p = (char)(o->ident_case == SQL_IC_UPPER ? toupper((unsigned char)*p) : *p);
    c->n_roundtrips++;
    if (!ok(SQLStatistics(o->tmp, NULL, 0, NULL, 0, (SQLCHAR *)tab, SQL_NTS, SQL_INDEX_UNIQUE,
                          SQL_QUICK)))
        return od_fail(o, SQL_HANDLE_STMT, o->tmp, "reading the indexes (SQLStatistics)", e);
    for (int more = 1; more;) {
        more = ok(SQLFetch(o->tmp));
        if (more && (!ok(SQLGetData(o->tmp, 6, SQL_C_CHAR, name, sizeof(name), &len)) ||
                     len == SQL_NULL_DATA))
            continue; /* the table's statistics row: no index */
        if (!more || strcmp(name, cur) != 0) {
            if (nhave && same_columns(have, nhave, cols))
                *found = 1;
            snprintf(cur, sizeof(cur), "%s", more ? name : "");
            used = 0;
            nhave = 0;
        }
        if (more && ok(SQLGetData(o->tmp, 9, SQL_C_CHAR, col, sizeof(col), &len)) &&
            len != SQL_NULL_DATA && used + strlen((char *)col) + 1 < sizeof(have)) {
            memcpy(have + used, col, strlen((char *)col) + 1);
            used += strlen((char *)col) + 1;
            nhave++;
        }
    }
    SQLFreeStmt(o->tmp, SQL_CLOSE);
    return 0;
}

/* run.isolation through the connection attribute, where the DBMS offers it
 * (SQL_TXN_ISOLATION_OPTION); else E_USAGE with the levels it has.  Ends
 * the transaction the connection may hold, as the attribute needs. */
static int od_set_isolation(struct db_conn *c, const char *name, struct err *e)
{
    struct od_conn *o = O(c);
    unsigned iso = odbc_iso_of(name);
    int rc;

    if ((rc = odbc_caps_isolation(&o->caps, c->server_name, name, e)) < 0)
        return rc;
    close_cursor(o);
    SQLEndTran(SQL_HANDLE_DBC, o->dbc, SQL_ROLLBACK);
    c->n_roundtrips++;
    if (!ok(SQLSetConnectAttr(o->dbc, SQL_ATTR_TXN_ISOLATION,
                              (SQLPOINTER)(SQLULEN)odbc_iso_attr(iso), 0)))
        return od_fail(o, SQL_HANDLE_DBC, o->dbc, "setting the isolation level", e);
    c->caps.txn_level = (int)iso;
    return 0;
}

const struct db_ops db_odbc_ops = {
    .name = "odbc",
    .flags = DB_F_BULK | DB_F_QMARK,
    .priv_size = sizeof(struct od_conn),
    .connect = od_connect,
    .close = od_close,
    .exec_sql = od_exec_sql,
    .prepare = od_prepare,
    .exec = od_exec,
    .exec_once = od_exec_once,
    .query = od_query,
    .next = od_next,
    .col_isnull = od_col_isnull,
    .col_int = od_col_int,
    .col_num = od_col_num,
    .col_text = od_col_text,
    .affected = od_affected,
    .begin = od_begin,
    .commit = od_commit,
    .rollback = od_rollback,
    .bulk_begin = od_bulk_begin,
    .bulk_put = od_bulk_put,
    .bulk_end = od_bulk_end,
    .cancel = od_cancel,
    .tables = od_tables,
    .types = od_types,
    .set_isolation = od_set_isolation,
    .unique_key = od_unique_key,
};
