/*
 * pg.c - the PostgreSQL driver, on libpq.
 *
 * Parameters are sent as text with PQexecPrepared/PQexecParams (never spliced
 * into SQL; the statements built here, COPY and the TRUNCATE before a COPY
 * FREEZE, take table and column names quoted by PQescapeIdentifier).  COPY
 * takes text or binary rows (DB_BULK_BINARY).  Prepared statements are named "s<slot>";
 * with run.statements unnamed every statement goes out with its text as the
 * unnamed statement (PQexecParams, PQsendQueryParams in a pipeline), which a
 * pooler in transaction mode can pass to any server connection.  BEGIN,
 * COMMIT and ROLLBACK are simple queries either way.  The last result stays
 * in the connection until the next call, so the core reads rows with
 * next/col_*.  Errors are classed by SQLSTATE: 40001/40P01 retryable, class
 * 08 and admin shutdown (57P0x) connection lost.
 */
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/signals.h"
#include "db/db.h"

#define PG_MAX_PARAMS DB_MAX_PARAMS
#define PG_SCRATCH 8192

struct pg_conn {
    PGconn *conn;
    PGresult *res;                  /* result of the last exec/query, or NULL */
    int row;                        /* current row for next(), -1 before the first */
    int nrows;
    char stmt_name[DB_MAX_SLOTS][8]; /* "s12" */
    char scratch[PG_SCRATCH];        /* numbers as text, arrays as binary */
    PGresult *pres[DB_PIPE_MAX];     /* results of the last pipeline, in order */
    int npipe;                       /* statements queued in the pipeline */
    int pk, pn_ok, prc;              /* pg_pipe_recv: results read, succeeded, first failure */
    struct err perr;                 /* ... and its error */
    PGcancel *cancel;                /* for pg_cancel from another thread */
    int pipe_prepared;               /* 1: "tpcc_begin" and "tpcc_commit" are prepared */
};

static struct pg_conn *P(struct db_conn *c)
{
    return c->priv;
}

static void clear_result(struct pg_conn *p)
{
    /* A pipeline's results are owned by pres[]; res only points at one. */
    if (p->res && p->npipe == 0)
        PQclear(p->res);
    p->res = NULL;
    p->row = -1;
    p->nrows = 0;
}

static void clear_pipe(struct pg_conn *p)
{
    p->res = NULL;
    for (int k = 0; k < p->npipe; k++)
        if (p->pres[k])
            PQclear(p->pres[k]);
    memset(p->pres, 0, sizeof(p->pres));
    p->npipe = 0;
    p->row = -1;
    p->nrows = 0;
}

/* Copy the primary message without its trailing newline. */
static void set_pg_message(struct err *e, const char *msg)
{
    size_t n;

    snprintf(e->msg, sizeof(e->msg), "%s", msg ? msg : "unknown error");
    n = strlen(e->msg);
    while (n && (e->msg[n - 1] == '\n' || e->msg[n - 1] == ' '))
        e->msg[--n] = '\0';
}

static int classify(const char *sqlstate, int conn_bad)
{
    if (conn_bad)
        return E_CONN;
    if (!sqlstate || !*sqlstate)
        return E_FAIL;
    if (strcmp(sqlstate, "40001") == 0 || strcmp(sqlstate, "40P01") == 0)
        return E_RETRY;
    if (strncmp(sqlstate, "08", 2) == 0 || strncmp(sqlstate, "57P0", 4) == 0)
        return E_CONN;
    return E_FAIL;
}

/* Fill e from a failed result (res may be NULL when libpq returned none). */
static int fail(struct db_conn *c, const PGresult *res, struct err *e)
{
    struct pg_conn *p = P(c);
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *prim = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    int bad = PQstatus(p->conn) == CONNECTION_BAD;

    e->code = classify(state, bad);
    snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", state ? state : (bad ? "08006" : ""));
    set_pg_message(e, prim ? prim : PQerrorMessage(p->conn));
    return e->code;
}

/* Keep res when it is a success, else fail. */
static int take(struct db_conn *c, PGresult *res, struct err *e)
{
    struct pg_conn *p = P(c);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

    clear_result(p);
    clear_pipe(p);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        int rc = fail(c, res, e);
        PQclear(res);
        return rc;
    }
    p->res = res;
    p->nrows = PQntuples(res);
    return 0;
}

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* Drive an asynchronous connect to its end, so that a stop signal (Ctrl-C)
 * is seen while a slow or distant server answers; PQconnectPoll leaves the
 * time limit to us: PG_CONNECT_WAIT_MS without progress. */
#define PG_CONNECT_WAIT_MS 10000
static int connect_wait(struct pg_conn *p, const int *abandon, struct err *e)
{
    PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
    int waited_ms = 0;

    if (PQstatus(p->conn) == CONNECTION_BAD)
        return 0; /* the caller reports it */
    while (ps != PGRES_POLLING_OK && ps != PGRES_POLLING_FAILED) {
        struct pollfd pfd = { .fd = PQsocket(p->conn),
                              .events = ps == PGRES_POLLING_READING ? POLLIN : POLLOUT };
        int r = poll(&pfd, 1, 100);
        if (sig_stop_requested() || (abandon && __atomic_load_n(abandon, __ATOMIC_ACQUIRE))) {
            PQfinish(p->conn);
            p->conn = NULL;
            return err_set(e, E_INTR, "interrupted while connecting to PostgreSQL");
        }
        if (r == 0 && (waited_ms += 100) >= PG_CONNECT_WAIT_MS) {
            PQfinish(p->conn);
            p->conn = NULL;
            err_set(e, E_CONN, "cannot connect to PostgreSQL: no answer for %d s",
                    PG_CONNECT_WAIT_MS / 1000);
            snprintf(e->sqlstate, sizeof(e->sqlstate), "08001");
            return e->code;
        }
        if (r != 0) {
            waited_ms = 0;
            ps = PQconnectPoll(p->conn);
        }
    }
    return 0;
}

static int pg_connect(struct db_conn *c, const struct db_connect_args *a, struct err *e)
{
    struct pg_conn *p = P(c);
    const char *keys[10], *vals[10];
    const char *ver;
    int n = 0, rc;

    /* A peer gone without a word (a cut link, a dead host) shows as a lost
     * connection within about 15 s instead of a wait without end: TCP
     * keepalives while waiting, and a bound on unacknowledged data.  Given
     * before the connection string, so keepalives_* or tcp_user_timeout
     * there win.  (A server that is merely slow still acknowledges.) */
    keys[n] = "keepalives";
    vals[n++] = "1";
    keys[n] = "keepalives_idle";
    vals[n++] = "5";
    keys[n] = "keepalives_interval";
    vals[n++] = "2";
    keys[n] = "keepalives_count";
    vals[n++] = "3";
    keys[n] = "tcp_user_timeout";
    vals[n++] = "15000";
    keys[n] = "dbname";
    vals[n++] = a->conninfo ? a->conninfo : "";
    if (a->password && *a->password) {
        keys[n] = "password";
        vals[n++] = a->password;
    }
    keys[n] = "fallback_application_name";
    vals[n++] = a->app_name ? a->app_name : "tpccbench";
    keys[n] = NULL;
    vals[n] = NULL;
    p->row = -1;
    p->conn = PQconnectStartParams(keys, vals, 1);
    if (!p->conn)
        return err_set(e, E_FAIL, "out of memory connecting to PostgreSQL");
    if ((rc = connect_wait(p, a->abandon, e)) < 0)
        return rc;
    if (PQstatus(p->conn) != CONNECTION_OK) {
        const char *msg = PQerrorMessage(p->conn);
        const char *host = PQhost(p->conn), *user = PQuser(p->conn), *port = PQport(p->conn);
        /* Authentication and unknown database are the user's to fix. */
        int usage = strstr(msg, "password") || strstr(msg, "authentication") ||
                    strstr(msg, "does not exist") || strstr(msg, "invalid connection option") ||
                    strstr(msg, "missing \"=\"") || strstr(msg, "invalid URI");
        char detail[sizeof(e->msg)];
        size_t l;
        snprintf(detail, sizeof(detail), "%s", msg);
        /* libpq's message may span lines: keep ours on one. */
        for (char *q = detail; *q; q++)
            if (*q == '\n' && q[1])
                *q = ' ';
        l = strlen(detail);
        while (l && (detail[l - 1] == '\n' || detail[l - 1] == ' '))
            detail[--l] = '\0';
        err_set(e, usage ? E_USAGE : E_CONN,
                "cannot connect to PostgreSQL (host=%s port=%s user=%s): %s",
                host && *host ? host : "(default)", port && *port ? port : "(default)",
                user && *user ? user : "(default)", detail);
        snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", usage ? "28000" : "08001");
        return e->code;
    }
    /* Server notices (e.g. "there is no transaction in progress") would
     * scribble over the live progress line: drop them. */
    PQsetNoticeProcessor(p->conn, ignore_notice, NULL);
    p->cancel = PQgetCancel(p->conn);
    c->tls = PQsslInUse(p->conn);
    c->chain = PQserverVersion(p->conn) >= 120000;
    snprintf(c->server_name, sizeof(c->server_name), "PostgreSQL");
    ver = PQparameterStatus(p->conn, "server_version");
    snprintf(c->server_version, sizeof(c->server_version), "%s", ver ? ver : "unknown");
    for (int i = 0; i < DB_MAX_SLOTS; i++)
        snprintf(p->stmt_name[i], sizeof(p->stmt_name[i]), "s%d", i);
    return 0;
}

static void pg_close(struct db_conn *c)
{
    struct pg_conn *p = P(c);

    if (!p)
        return;
    clear_result(p);
    clear_pipe(p);
    if (p->cancel)
        PQfreeCancel(p->cancel);
    p->cancel = NULL;
    if (p->conn)
        PQfinish(p->conn);
    p->conn = NULL;
}

/* PQcancel is thread-safe: it opens its own connection to ask the server. */
static void pg_cancel(struct db_conn *c)
{
    struct pg_conn *p = P(c);
    char errbuf[256];

    if (p && p->cancel)
        (void)PQcancel(p->cancel, errbuf, (int)sizeof(errbuf));
}

static int pg_exec_sql(struct db_conn *c, const char *sql, struct err *e)
{
    struct pg_conn *p = P(c);
    PGresult *res;

    clear_result(p);
    res = PQexec(p->conn, sql);
    /* A script returns the last statement's result; errors stop it. */
    return take(c, res, e);
}

static int pg_prepare(struct db_conn *c, int id, const char *sql, int np, struct err *e)
{
    struct pg_conn *p = P(c);

    (void)np;
    clear_result(p);
    /* Unnamed: parse as the unnamed statement, which the next one replaces. */
    return take(c, PQprepare(p->conn, c->statements == DB_STMT_UNNAMED ? "" : p->stmt_name[id],
                             sql, 0, NULL),
                e);
}

/* Parameters as libpq takes them: vals, lens and (when one is binary) fmts. */
struct pg_wire {
    const char *vals[PG_MAX_PARAMS];
    int lens[PG_MAX_PARAMS];
    int fmts[PG_MAX_PARAMS];
    int binary; /* fmts holds a 1 */
};

#define PG_FMTS(w) ((w)->binary ? (w)->fmts : NULL)

/* Put a 32-bit integer at d in network order (array_recv's). */
static char *put_be32(char *d, uint32_t v)
{
    uint32_t be = htonl(v);

    memcpy(d, &be, sizeof(be));
    return d + 4;
}

/* DB_INTS as PostgreSQL's binary int4[] (array_recv): dimensions, no NULLs,
 * element type int4 (OID 23), then each element's length and value.  No
 * digits are written and none parsed.  Its length, or -1 past room. */
static int ints_binary(char *dst, size_t room, const int32_t *v, int n)
{
    size_t need = n > 0 ? 20 + (size_t)n * 8 : 12;
    char *d = dst;

    if (n < 0 || need > room)
        return -1;
    d = put_be32(d, n > 0);
    d = put_be32(d, 0);
    d = put_be32(d, 23);
    if (n > 0) {
        d = put_be32(d, (uint32_t)n);
        d = put_be32(d, 1);
    }
    for (int i = 0; i < n; i++) {
        d = put_be32(d, 4);
        d = put_be32(d, (uint32_t)v[i]);
    }
    return (int)need;
}

/* Turn parameters into libpq's values; numbers (text) and arrays (binary)
 * go into scratch. */
static int to_wire(struct pg_conn *p, const struct db_param *prm, int np, struct pg_wire *w,
                   struct err *e)
{
    size_t used = 0;

    if (np > PG_MAX_PARAMS)
        return err_set(e, E_FAIL, "too many parameters (%d)", np);
    w->binary = 0;
    for (int i = 0; i < np; i++) {
        const struct db_param *q = &prm[i];
        char *dst = p->scratch + used;
        size_t room = sizeof(p->scratch) - used;
        int n;

        w->fmts[i] = 0;
        switch (q->type) {
        case DB_NULL:
            w->vals[i] = NULL;
            w->lens[i] = 0;
            continue;
        case DB_TEXT:
            /* libpq reads text parameters up to a NUL, whatever the length says:
             * a NUL-terminated one (len < 0) goes as it is, however long. */
            if (q->len < 0) {
                w->vals[i] = q->s;
                w->lens[i] = (int)strlen(q->s);
                continue;
            }
            n = q->len;
            if ((size_t)n + 1 > room)
                return err_set(e, E_FAIL, "parameters too long");
            memcpy(dst, q->s, (size_t)n);
            dst[n] = '\0';
            break;
        case DB_INTS:
            if (q->len > DB_INTS_MAX || (n = ints_binary(dst, room, q->ints, q->len)) < 0)
                return err_set(e, E_FAIL, "parameters too long");
            w->fmts[i] = 1;
            w->binary = 1;
            w->vals[i] = dst;
            w->lens[i] = n;
            used += (size_t)n;
            continue;
        case DB_INT:
            n = db_format_scaled(dst, room, q->i, 0);
            break;
        default:
            n = db_format_scaled(dst, room, q->i, q->scale);
            break;
        }
        if (n < 0 || (size_t)n + 1 > room)
            return err_set(e, E_FAIL, "parameters too long");
        w->vals[i] = dst;
        w->lens[i] = n;
        used += (size_t)n + 1;
    }
    return 0;
}

static int pg_exec(struct db_conn *c, int id, const struct db_param *prm, int np, struct err *e)
{
    struct pg_conn *p = P(c);
    struct pg_wire w;
    int rc;

    if ((rc = to_wire(p, prm, np, &w, e)) < 0)
        return rc;
    clear_result(p);
    return take(c, PQexecPrepared(p->conn, p->stmt_name[id], np, w.vals, w.lens, PG_FMTS(&w), 0),
                e);
}

/* The unnamed statement: Parse, Bind, Execute of sql in one round trip. */
static int pg_exec_once(struct db_conn *c, int slot, const char *sql, const struct db_param *prm,
                        int np, struct err *e)
{
    struct pg_conn *p = P(c);
    struct pg_wire w;
    int rc;

    (void)slot;
    if ((rc = to_wire(p, prm, np, &w, e)) < 0)
        return rc;
    clear_result(p);
    return take(c, PQexecParams(p->conn, sql, np, NULL, w.vals, w.lens, PG_FMTS(&w), 0), e);
}

static int pg_query(struct db_conn *c, const char *sql, const struct db_param *prm, int np,
                    struct err *e)
{
    struct pg_conn *p = P(c);
    struct pg_wire w;
    int rc;

    if ((rc = to_wire(p, prm, np, &w, e)) < 0)
        return rc;
    clear_result(p);
    return take(c, PQexecParams(p->conn, sql, np, NULL, w.vals, w.lens, PG_FMTS(&w), 0), e);
}

static int pg_next(struct db_conn *c)
{
    struct pg_conn *p = P(c);

    if (!p->res || p->row + 1 >= p->nrows)
        return 0;
    p->row++;
    return 1;
}

/* Column readers: callers check next() first; a misuse reads as NULL/0, not a crash. */
static int pg_col_isnull(struct db_conn *c, int col)
{
    struct pg_conn *p = P(c);

    return !p->res || p->row < 0 || PQgetisnull(p->res, p->row, col);
}

static int64_t pg_col_int(struct db_conn *c, int col)
{
    struct pg_conn *p = P(c);

    if (!p->res || p->row < 0)
        return 0;
    return db_parse_int(PQgetvalue(p->res, p->row, col));
}

static int64_t pg_col_num(struct db_conn *c, int col, int scale)
{
    struct pg_conn *p = P(c);

    if (!p->res || p->row < 0)
        return 0;
    return db_parse_scaled(PQgetvalue(p->res, p->row, col), PQgetlength(p->res, p->row, col),
                           scale);
}

static const char *pg_col_text(struct db_conn *c, int col, int *len)
{
    struct pg_conn *p = P(c);

    if (!p->res || p->row < 0) {
        if (len)
            *len = 0;
        return "";
    }
    if (len)
        *len = PQgetlength(p->res, p->row, col);
    return PQgetvalue(p->res, p->row, col);
}

static int64_t pg_affected(struct db_conn *c)
{
    struct pg_conn *p = P(c);

    return p->res ? strtoll(PQcmdTuples(p->res), NULL, 10) : 0;
}

static int pg_simple(struct db_conn *c, const char *cmd, struct err *e)
{
    struct pg_conn *p = P(c);
    int rc;

    clear_result(p);
    rc = take(c, PQexec(p->conn, cmd), e);
    /* COMMIT of an aborted transaction "succeeds" with status ROLLBACK. */
    if (rc == 0 && cmd[0] == 'C' && strcmp(PQcmdStatus(p->res), "ROLLBACK") == 0)
        return err_set(e, E_FAIL, "commit turned into rollback (the transaction had failed)");
    return rc;
}

static int pg_begin(struct db_conn *c, struct err *e)
{
    return pg_simple(c, "BEGIN", e);
}

static int pg_commit(struct db_conn *c, struct err *e)
{
    return pg_simple(c, "COMMIT", e);
}

static int pg_rollback(struct db_conn *c, struct err *e)
{
    return pg_simple(c, "ROLLBACK", e);
}

/* Append text, or name (n bytes) quoted by libpq when quote is 1, to sql at *used. */
static int sql_add(struct pg_conn *p, char *sql, size_t cap, size_t *used, const char *text,
                   size_t n, int quote, struct err *e)
{
    char *q = quote ? PQescapeIdentifier(p->conn, text, n) : NULL;
    const char *add = quote ? q : text;
    size_t len = quote ? (q ? strlen(q) : 0) : n;

    if (quote && !q)
        return err_set(e, E_FAIL, "cannot quote the name '%.*s': %s", (int)(n > 64 ? 64 : n), text,
                       PQerrorMessage(p->conn));
    if (len >= cap - *used) {
        PQfreemem(q);
        return err_set(e, E_FAIL, "COPY statement longer than %zu bytes", cap - 1);
    }
    memcpy(sql + *used, add, len);
    *used += len;
    sql[*used] = '\0';
    PQfreemem(q);
    return 0;
}

/* "VERB table" into sql (the table's name quoted by libpq). */
static int sql_verb_table(struct pg_conn *p, char *sql, size_t size, size_t *used,
                          const char *verb, const char *table, struct err *e)
{
    int rc = sql_add(p, sql, size, used, verb, strlen(verb), 0, e);

    return rc < 0 ? rc : sql_add(p, sql, size, used, table, strlen(table), 1, e);
}

/* "TRUNCATE table" (DB_BULK_TRUNCATE), in the caller's transaction. */
static int pg_truncate(struct db_conn *c, const char *table, struct err *e)
{
    struct pg_conn *p = P(c);
    char sql[256] = "";
    size_t used = 0;
    PGresult *res;
    int rc;

    if ((rc = sql_verb_table(p, sql, sizeof(sql), &used, "TRUNCATE ", table, e)) < 0)
        return rc;
    clear_result(p);
    res = PQexec(p->conn, sql);
    rc = PQresultStatus(res) == PGRES_COMMAND_OK ? 0 : fail(c, res, e);
    PQclear(res);
    return rc;
}

static int pg_bulk_begin_how(struct db_conn *c, const char *table, const char *columns, int how,
                             struct err *e)
{
    static const char *const with[] = { "", " WITH (FORMAT binary)", " WITH (FREEZE)",
                                        " WITH (FORMAT binary, FREEZE)" };
    const char *opts = with[(how & DB_BULK_BINARY ? 1 : 0) + (how & DB_BULK_FREEZE ? 2 : 0)];
    struct pg_conn *p = P(c);
    const char *col, *at = columns;
    char sql[2048] = "";
    size_t used = 0, n;
    PGresult *res;
    int rc, k = 0;

    if ((how & DB_BULK_TRUNCATE) && (rc = pg_truncate(c, table, e)) < 0)
        return rc;
    /* COPY takes no parameters: the names go into its text, each quoted
     * by libpq (db_bulk_begin() has also checked that they are plain). */
    if ((rc = sql_verb_table(p, sql, sizeof(sql), &used, "COPY ", table, e)) < 0 ||
        (rc = sql_add(p, sql, sizeof(sql), &used, " (", 2, 0, e)) < 0)
        return rc;
    while (db_next_name(&at, &col, &n))
        if ((k++ && (rc = sql_add(p, sql, sizeof(sql), &used, ", ", 2, 0, e)) < 0) ||
            (rc = sql_add(p, sql, sizeof(sql), &used, col, n, 1, e)) < 0)
            return rc;
    if ((rc = sql_add(p, sql, sizeof(sql), &used, ") FROM STDIN", 12, 0, e)) < 0 ||
        (rc = sql_add(p, sql, sizeof(sql), &used, opts, strlen(opts), 0, e)) < 0)
        return rc;
    clear_result(p);
    res = PQexec(p->conn, sql);
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        rc = fail(c, res, e);
        PQclear(res);
        return rc ? rc : err_set(e, E_FAIL, "COPY did not start");
    }
    PQclear(res);
    return 0;
}

static int pg_bulk_begin(struct db_conn *c, const char *table, const char *columns,
                         struct err *e)
{
    return pg_bulk_begin_how(c, table, columns, 0, e);
}

static int pg_bulk_put(struct db_conn *c, const char *buf, size_t len, struct err *e)
{
    struct pg_conn *p = P(c);

    if (PQputCopyData(p->conn, buf, (int)len) != 1)
        return fail(c, NULL, e);
    return 0;
}

static int pg_bulk_end(struct db_conn *c, int abort, struct err *e)
{
    struct pg_conn *p = P(c);
    PGresult *res;
    int rc = 0;

    if (PQputCopyEnd(p->conn, abort ? "load aborted by tpccbench" : NULL) != 1)
        return fail(c, NULL, e);
    while ((res = PQgetResult(p->conn)) != NULL) {
        if (PQresultStatus(res) != PGRES_COMMAND_OK && rc == 0 && !abort)
            rc = fail(c, res, e);
        PQclear(res);
    }
    return rc;
}

/* BEGIN and COMMIT as prepared statements, for pipelines on a connection
 * that prepares its statements: a pipeline then sends them as Bind and
 * Execute, which the server need not parse (nor libpq build a Parse
 * message for) every time.  Once per connection, before its first pipeline. */
static int pipe_prepare(struct db_conn *c, struct err *e)
{
    struct pg_conn *p = P(c);
    int rc;

    if (p->pipe_prepared || c->statements != DB_STMT_PREPARED)
        return 0;
    if ((rc = take(c, PQprepare(p->conn, "tpcc_begin", "BEGIN", 0, NULL), e)) < 0 ||
        (rc = take(c, PQprepare(p->conn, "tpcc_commit", "COMMIT", 0, NULL), e)) < 0 ||
        (c->chain && (rc = take(c, PQprepare(p->conn, "tpcc_commit_chain", "COMMIT AND CHAIN",
                                             0, NULL),
                                e)) < 0))
        return rc;
    clear_result(p);
    p->pipe_prepared = 1;
    return 0;
}

static int pg_pipe_begin(struct db_conn *c, struct err *e)
{
    struct pg_conn *p = P(c);
    int rc;

    clear_result(p);
    clear_pipe(p);
    p->pk = 0;
    p->pn_ok = 0;
    p->prc = 0;
    err_clear(&p->perr);
    if ((rc = pipe_prepare(c, e)) < 0)
        return rc;
    if (PQenterPipelineMode(p->conn) != 1)
        return fail(c, NULL, e);
    return 0;
}

static int pg_pipe_exec(struct db_conn *c, int id, const char *sql, const struct db_param *prm,
                        int np, struct err *e)
{
    struct pg_conn *p = P(c);
    struct pg_wire w;
    int rc, ok;

    if (p->npipe >= DB_PIPE_MAX)
        return err_set(e, E_FAIL, "pipeline longer than %d statements", DB_PIPE_MAX);
    if (id < 0 && id >= DB_PIPE_ROLLBACK) {
        /* ROLLBACK (the acid tests' in place of a COMMIT) is not prepared. */
        static const char *const name[] = { "tpcc_begin", "tpcc_commit", "tpcc_commit_chain",
                                            NULL };
        static const char *const text[] = { "BEGIN", "COMMIT", "COMMIT AND CHAIN", "ROLLBACK" };
        int k = -1 - id;
        ok = p->pipe_prepared && name[k]
                 ? PQsendQueryPrepared(p->conn, name[k], 0, NULL, NULL, NULL, 0)
                 : PQsendQueryParams(p->conn, text[k], 0, NULL, NULL, NULL, NULL, 0);
    } else {
        if ((rc = to_wire(p, prm, np, &w, e)) < 0)
            return rc;
        /* libpq copies the text and values into its buffer: scratch may be reused. */
        if (sql)
            ok = PQsendQueryParams(p->conn, sql, np, NULL, w.vals, w.lens, PG_FMTS(&w), 0);
        else
            ok = PQsendQueryPrepared(p->conn, p->stmt_name[id], np, w.vals, w.lens,
                                     PG_FMTS(&w), 0);
    }
    if (ok != 1)
        return fail(c, NULL, e);
    p->npipe++;
    return 0;
}

/* Send the queued statements and a sync; their results come to pg_pipe_recv. */
static int pg_pipe_send(struct db_conn *c, struct err *e)
{
    struct pg_conn *p = P(c);
    int rc;

    if (PQpipelineSync(p->conn) != 1) {
        rc = fail(c, NULL, e);
        PQexitPipelineMode(p->conn);
        return rc;
    }
    return 0;
}

/* Read the results that have arrived, never waiting (PQisBusy before each
 * PQgetResult): one per statement, each followed by NULL, then the sync.
 * 1 once upto statements' results are in (npipe + 1: and the sync), or
 * the connection failed; 0 when the next is not there yet.  The state
 * between calls is pk, pn_ok, prc and perr. */
static int pipe_read(struct db_conn *c, int upto)
{
    struct pg_conn *p = P(c);
    PGresult *res;

    while (p->pk < upto) {
        if (PQisBusy(p->conn))
            return 0;
        res = PQgetResult(p->conn);
        if (!res) {
            if (PQstatus(p->conn) == CONNECTION_BAD) {
                if (p->prc == 0)
                    p->prc = fail(c, NULL, &p->perr);
                p->pk = p->npipe + 1;
                return 1;
            }
            continue; /* end of one statement's results */
        }
        switch (PQresultStatus(res)) {
        case PGRES_PIPELINE_SYNC:
            PQclear(res);
            p->pk = p->npipe + 1;
            continue;
        case PGRES_TUPLES_OK:
        case PGRES_COMMAND_OK:
            if (p->prc == 0)
                p->pn_ok++;
            break;
        case PGRES_PIPELINE_ABORTED:
            break;
        default:
            if (p->prc == 0)
                p->prc = fail(c, res, &p->perr);
            break;
        }
        if (p->pk < p->npipe)
            p->pres[p->pk++] = res;
        else
            PQclear(res);
    }
    return 1;
}

static int pg_pipe_recv(struct db_conn *c, int *done, int *n_ok, struct err *e)
{
    struct pg_conn *p = P(c);

    *done = 0;
    *n_ok = p->pn_ok;
    if (PQconsumeInput(p->conn) != 1) {
        if (p->prc == 0)
            p->prc = fail(c, NULL, &p->perr);
        p->pk = p->npipe + 1;
    }
    if (!pipe_read(c, p->npipe + 1))
        return 0;
    *done = 1;
    *n_ok = p->pn_ok;
    if (PQexitPipelineMode(p->conn) != 1 && p->prc == 0)
        p->prc = fail(c, NULL, &p->perr);
    if (p->prc)
        *e = p->perr;
    return p->prc;
}

/* The statements queued so far sent with a flush request, their results
 * read (waiting for them, 20 ms at a time); no sync, so the transaction
 * and the pipeline stay open. */
static int pg_pipe_flush(struct db_conn *c, struct err *e)
{
    struct pg_conn *p = P(c);

    if (PQsendFlushRequest(p->conn) != 1 || PQflush(p->conn) != 0)
        return fail(c, NULL, e);
    for (;;) {
        struct pollfd pfd = { .fd = PQsocket(p->conn), .events = POLLIN };
        if (PQconsumeInput(p->conn) != 1)
            return fail(c, NULL, e);
        if (pipe_read(c, p->npipe))
            break;
        poll(&pfd, 1, 20);
    }
    if (PQstatus(p->conn) == CONNECTION_BAD) {
        *e = p->perr;
        return p->prc;
    }
    return 0;
}

static int pg_fd(struct db_conn *c)
{
    return PQsocket(P(c)->conn);
}

static int pg_pipe_result(struct db_conn *c, int k)
{
    struct pg_conn *p = P(c);

    if (k < 0 || k >= p->npipe || !p->pres[k])
        return -1;
    p->res = p->pres[k];
    p->nrows = PQresultStatus(p->res) == PGRES_TUPLES_OK ? PQntuples(p->res) : 0;
    p->row = -1;
    return 0;
}

const struct db_ops db_pg_ops = {
    .name = "postgres",
    .flags = DB_F_BULK | DB_F_PIPELINE | DB_F_AUTOCOMMIT,
    .priv_size = sizeof(struct pg_conn),
    .connect = pg_connect,
    .close = pg_close,
    .exec_sql = pg_exec_sql,
    .prepare = pg_prepare,
    .exec = pg_exec,
    .exec_once = pg_exec_once,
    .query = pg_query,
    .next = pg_next,
    .col_isnull = pg_col_isnull,
    .col_int = pg_col_int,
    .col_num = pg_col_num,
    .col_text = pg_col_text,
    .affected = pg_affected,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .pipe_begin = pg_pipe_begin,
    .pipe_exec = pg_pipe_exec,
    .pipe_send = pg_pipe_send,
    .pipe_recv = pg_pipe_recv,
    .fd = pg_fd,
    .pipe_result = pg_pipe_result,
    .pipe_flush = pg_pipe_flush,
    .bulk_begin = pg_bulk_begin,
    .bulk_begin_how = pg_bulk_begin_how,
    .bulk_how = DB_BULK_BINARY | DB_BULK_TRUNCATE | DB_BULK_FREEZE,
    .bulk_put = pg_bulk_put,
    .bulk_end = pg_bulk_end,
    .cancel = pg_cancel,
};
