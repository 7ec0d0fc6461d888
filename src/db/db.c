/*
 * db.c - the one path from the core into a driver.
 *
 * Every db_*() wrapper here counts round trips, prepares dialect statements
 * on first use per connection, and applies injected faults and the test
 * hook (a pause before a given statement), so the drivers stay small and the
 * core never calls a driver directly.  A failed connect's message is cleaned
 * of passwords here, for every driver (core/secret.h).
 * With run.statements unnamed, statements are sent with their text each
 * time instead of prepared (exec_once); the errors a pooler in transaction
 * mode causes to prepared statements are turned into a usage error here.
 */
#include "db/db.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/secret.h"
#include "db/dialect.h"

/* The registered drivers, in one explicit array. */
static const struct db_ops *const drivers[] = { &db_pg_ops, &db_odbc_ops, &db_null_ops, NULL };

const struct db_ops *db_find(const char *name)
{
    for (int i = 0; drivers[i]; i++)
        if (strcmp(drivers[i]->name, name) == 0)
            return drivers[i];
    return NULL;
}

const char *db_driver_names(void)
{
    return "postgres, odbc, null";
}

/* An armed fault for op: consume one and fill e. */
static int fault_hit(struct db_conn *c, unsigned op, struct err *e)
{
    if (!(c->fault_ops & op) || c->fault_n <= 0)
        return 0;
    c->fault_n--;
    err_set(e, c->fault_code, "injected fault (%s)", err_class_name(c->fault_code));
    snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", c->fault_sqlstate);
    return 1;
}

void db_fault(struct db_conn *c, unsigned ops, int n, int code, const char *sqlstate)
{
    c->fault_ops = ops;
    c->fault_n = n;
    c->fault_code = code;
    snprintf(c->fault_sqlstate, sizeof(c->fault_sqlstate), "%s", sqlstate ? sqlstate : "");
}

void db_hook(struct db_conn *c, int id, void (*fn)(struct db_conn *c, int id, void *arg),
             void *arg)
{
    c->hook_fn = fn;
    c->hook_id = id;
    c->hook_arg = arg;
}

int db_connect(const struct db_ops *ops, const struct dialect *d,
               const struct db_connect_args *a, struct db_conn **out, struct err *e)
{
    struct db_conn *c = calloc(1, sizeof(*c));
    int rc;

    *out = NULL;
    if (!c)
        return err_set(e, E_FAIL, "out of memory");
    c->ops = ops;
    c->dialect = d;
    c->statements = a ? a->statements : DB_STMT_PREPARED;
    if (c->statements == DB_STMT_UNNAMED && !ops->exec_once) {
        free(c);
        return err_set(e, E_USAGE,
                       "the %s driver cannot send unnamed statements: use run.statements: "
                       "prepared",
                       ops->name);
    }
    if (ops->priv_size && !(c->priv = calloc(1, ops->priv_size))) {
        free(c);
        return err_set(e, E_FAIL, "out of memory");
    }
    err_clear(e);
    rc = ops->connect(c, a, e);
    c->n_roundtrips++;
    if (rc < 0) {
        /* Drivers echo connection strings in their messages (libpq quotes a
         * bad URI whole, ODBC drivers their attributes): whatever they said
         * leaves here without the password. */
        secret_clean(e->msg, sizeof(e->msg), a ? a->password : NULL);
        ops->close(c);
        free(c->priv);
        free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void db_cancel(struct db_conn *c)
{
    if (c && c->ops->cancel)
        c->ops->cancel(c);
}

void db_close(struct db_conn *c)
{
    if (!c)
        return;
    c->ops->close(c);
    free(c->priv);
    free(c);
}

int db_exec_sql(struct db_conn *c, const char *sql, struct err *e)
{
    c->n_roundtrips++;
    return c->ops->exec_sql(c, sql, e);
}

/* The text of sub-statement k of id in the driver's placeholder style. */
static const struct dialect_sub *sub_of(struct db_conn *c, int id, int k, const char **text,
                                        const unsigned char **map, int *n)
{
    const struct dialect_sub *sb = &c->dialect->sub[id][k];
    int q = (c->ops->flags & DB_F_QMARK) != 0;

    *text = q ? sb->qmark : sb->dollar;
    *map = q ? sb->qmap : sb->dmap;
    *n = q ? sb->nq : sb->nd;
    return sb;
}

/*
 * A named statement this connection prepared is missing on the server
 * (26000), or one it is preparing for the first time is there already
 * (42P05): the server connection is not the one it was.  A pooler in
 * transaction mode does that; retrying or reconnecting would not help, so
 * it is the user's to fix (exit 2), and the message says how.
 */
static int pooler_hint(struct db_conn *c, int rc, struct err *e)
{
    char msg[sizeof(e->msg)], state[sizeof(e->sqlstate)];

    if (rc >= 0 || c->statements != DB_STMT_PREPARED ||
        (strcmp(e->sqlstate, "42P05") != 0 && strcmp(e->sqlstate, "26000") != 0))
        return rc;
    snprintf(state, sizeof(state), "%s", e->sqlstate);
    /* ODBC's messages name the SQLSTATE already; libpq's do not. */
    if (strstr(e->msg, "SQLSTATE"))
        snprintf(msg, sizeof(msg), "%.200s", e->msg);
    else
        snprintf(msg, sizeof(msg), "%.200s (SQLSTATE %s)", e->msg, state);
    err_set(e, E_USAGE,
            "%s: a connection pooler in transaction mode (PgBouncer, Pgpool-II, RDS Proxy, ...) "
            "is the likely cause, giving this connection's transactions server connections that "
            "lack its prepared statements: set run.statements: unnamed (--statements unnamed), "
            "or use the pooler's session mode",
            msg);
    snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", state);
    return e->code;
}

static int prepare_slot(struct db_conn *c, int id, int k, struct err *e)
{
    int slot = id * DB_MAX_SUB + k, n, rc;
    const unsigned char *map;
    const char *text;

    if (c->prepared[slot])
        return 0;
    sub_of(c, id, k, &text, &map, &n);
    c->n_roundtrips++;
    if ((rc = c->ops->prepare(c, slot, text, n, e)) < 0)
        return rc;
    /* Unnamed: the text was only checked; nothing stays prepared. */
    c->prepared[slot] = c->statements == DB_STMT_PREPARED;
    return 0;
}

/* Statement k of step id: prepared on first use, or (unnamed) sent with its text. */
static int exec_sub(struct db_conn *c, int id, int k, const struct db_param *p, int np,
                    struct err *e)
{
    struct db_param sp[DB_MAX_PARAMS];
    const unsigned char *map;
    const char *text;
    int rc, n, slot = id * DB_MAX_SUB + k;

    if (c->statements == DB_STMT_PREPARED && (rc = prepare_slot(c, id, k, e)) < 0)
        return rc;
    sub_of(c, id, k, &text, &map, &n);
    for (int j = 0; j < n; j++) {
        if (map[j] > np)
            return err_set(e, E_FAIL, "statement %d uses parameter $%d of %d", id, map[j], np);
        sp[j] = p[map[j] - 1];
    }
    c->n_roundtrips++;
    if (c->statements == DB_STMT_UNNAMED)
        return c->ops->exec_once(c, slot, text, sp, n, e);
    return c->ops->exec(c, slot, sp, n, e);
}

int db_exec(struct db_conn *c, int id, const struct db_param *p, int np, struct err *e)
{
    int rc;

    c->last_op = DB_OP_EXEC;
    if (!c->dialect->sql[id])
        return dialect_absent(c->dialect, id, e);
    if (fault_hit(c, DB_OP_EXEC, e))
        return e->code;
    if (c->hook_fn && c->hook_id == id)
        c->hook_fn(c, id, c->hook_arg);
    /* A step: every statement in order, with the step's parameters mapped to
     * each statement's placeholders; the last statement's rows remain. */
    for (int k = 0; k < c->dialect->nsub[id]; k++)
        if ((rc = exec_sub(c, id, k, p, np, e)) < 0)
            return pooler_hint(c, rc, e);
    return 0;
}

int db_prepare(struct db_conn *c, int id, struct err *e)
{
    int rc;

    if (!c->dialect->sql[id])
        return dialect_absent(c->dialect, id, e);
    for (int k = 0; k < c->dialect->nsub[id]; k++)
        if ((rc = prepare_slot(c, id, k, e)) < 0)
            return pooler_hint(c, rc, e);
    return 0;
}

int db_pipe_begin(struct db_conn *c, struct err *e)
{
    if (!c->ops->pipe_begin)
        return err_set(e, E_USAGE, "the %s driver has no pipeline mode", c->ops->name);
    return c->ops->pipe_begin(c, e);
}

/* The test hook before a pipeline's statement id: the statements queued so
 * far run and their results are read first, so the stall comes after them. */
static int pipe_hook(struct db_conn *c, int id, struct err *e)
{
    int is_commit = id == DB_PIPE_COMMIT || id == DB_PIPE_COMMIT_CHAIN;
    int rc;

    if (!(is_commit ? c->hook_id == DB_HOOK_COMMIT : id >= 0 && c->hook_id == id))
        return 0;
    if (!c->ops->pipe_flush)
        return err_set(e, E_FAIL, "driver '%s' cannot stall a pipeline (no pipe_flush)",
                       c->ops->name);
    if ((rc = c->ops->pipe_flush(c, e)) < 0)
        return rc;
    c->hook_fn(c, is_commit ? DB_HOOK_COMMIT : id, c->hook_arg);
    return 0;
}

int db_pipe_exec(struct db_conn *c, int id, const struct db_param *p, int np, struct err *e)
{
    struct db_param sp[DB_MAX_PARAMS];
    const unsigned char *map;
    const char *text;
    int n, rc;

    if (c->hook_fn && (rc = pipe_hook(c, id, e)) < 0)
        return rc;
    if ((id == DB_PIPE_COMMIT || id == DB_PIPE_COMMIT_CHAIN) && c->commit_rolls_back) {
        c->commit_rolls_back = 0;
        id = DB_PIPE_ROLLBACK;
    }
    c->last_op = id == DB_PIPE_COMMIT || id == DB_PIPE_COMMIT_CHAIN ? DB_OP_COMMIT : DB_OP_EXEC;
    if (id < 0)
        return c->ops->pipe_exec(c, id, NULL, p, np, e);
    if (!c->dialect->sql[id])
        return dialect_absent(c->dialect, id, e);
    if (c->dialect->nsub[id] != 1 ||
        (c->statements == DB_STMT_PREPARED && !c->prepared[id * DB_MAX_SUB]))
        return err_set(e, E_FAIL, "statement %d is not one prepared statement (db_prepare)", id);
    sub_of(c, id, 0, &text, &map, &n);
    for (int j = 0; j < n; j++) {
        if (map[j] > np)
            return err_set(e, E_FAIL, "statement %d uses parameter $%d of %d", id, map[j], np);
        sp[j] = p[map[j] - 1];
    }
    return c->ops->pipe_exec(c, id * DB_MAX_SUB, c->statements == DB_STMT_UNNAMED ? text : NULL,
                             sp, n, e);
}

int db_pipe_send(struct db_conn *c, struct err *e)
{
    c->pipe_fault = 0;
    if (fault_hit(c, DB_OP_EXEC, &c->pipe_err)) {
        /* As if sent: the fault is the pipeline's result. */
        c->pipe_fault = 1;
        return 0;
    }
    c->n_roundtrips++;
    return pooler_hint(c, c->ops->pipe_send(c, e), e);
}

int db_pipe_recv(struct db_conn *c, int *done, int *n_ok, struct err *e)
{
    if (c->pipe_fault) {
        c->pipe_fault = 0;
        *done = 1;
        *n_ok = 0;
        *e = c->pipe_err;
        return e->code;
    }
    return pooler_hint(c, c->ops->pipe_recv(c, done, n_ok, e), e);
}

int db_fd(struct db_conn *c)
{
    return c->ops->fd ? c->ops->fd(c) : -1;
}

int db_pipe_sync(struct db_conn *c, int *n_ok, struct err *e)
{
    int rc, done = 0;

    *n_ok = 0;
    if ((rc = db_pipe_send(c, e)) < 0)
        return rc;
    while ((rc = db_pipe_recv(c, &done, n_ok, e)), !done) {
        struct pollfd pfd = { .fd = db_fd(c), .events = POLLIN };
        /* Nothing to read yet: wait for it, looking again every 20 ms (data
         * a TLS layer holds back leaves its socket quiet). */
        if (pfd.fd >= 0)
            poll(&pfd, 1, 20);
    }
    return rc;
}

int db_pipe_result(struct db_conn *c, int k)
{
    return c->ops->pipe_result(c, k);
}

int db_query(struct db_conn *c, const char *sql, const struct db_param *p, int np,
             struct err *e)
{
    c->n_roundtrips++;
    return c->ops->query(c, sql, p, np, e);
}

int db_next(struct db_conn *c)
{
    return c->ops->next(c);
}

int db_col_isnull(struct db_conn *c, int col)
{
    return c->ops->col_isnull(c, col);
}

int64_t db_col_int(struct db_conn *c, int col)
{
    return c->ops->col_int(c, col);
}

int64_t db_col_num(struct db_conn *c, int col, int scale)
{
    return c->ops->col_num(c, col, scale);
}

const char *db_col_text(struct db_conn *c, int col, int *len)
{
    return c->ops->col_text(c, col, len);
}

int64_t db_affected(struct db_conn *c)
{
    return c->ops->affected(c);
}

int db_begin(struct db_conn *c, struct err *e)
{
    c->last_op = DB_OP_BEGIN;
    if (fault_hit(c, DB_OP_BEGIN, e))
        return e->code;
    c->n_roundtrips++;
    return c->ops->begin(c, e);
}

int db_commit(struct db_conn *c, struct err *e)
{
    c->last_op = DB_OP_COMMIT;
    if (fault_hit(c, DB_OP_COMMIT, e))
        return e->code;
    if (c->hook_fn && c->hook_id == DB_HOOK_COMMIT)
        c->hook_fn(c, DB_HOOK_COMMIT, c->hook_arg);
    c->n_roundtrips++;
    if (c->commit_rolls_back) {
        c->commit_rolls_back = 0;
        return c->ops->rollback(c, e);
    }
    return c->ops->commit(c, e);
}

int db_rollback(struct db_conn *c, struct err *e)
{
    if (c->hook_fn && c->hook_id == DB_HOOK_ROLLBACK)
        c->hook_fn(c, DB_HOOK_ROLLBACK, c->hook_arg);
    c->n_roundtrips++;
    return c->ops->rollback(c, e);
}

/* 1 when s (n bytes) is a plain SQL name: a letter or '_', then letters, digits, '_'. */
static int plain_name(const char *s, size_t n)
{
    if (n == 0 || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

int db_next_name(const char **p, const char **name, size_t *n)
{
    const char *s = *p;

    while (*s == ' ' || *s == ',')
        s++;
    if (!*s)
        return 0;
    *name = s;
    *n = strcspn(s, ", ");
    *p = s + *n;
    return 1;
}

int db_bulk_begin(struct db_conn *c, const char *table, const char *columns, struct err *e)
{
    return db_bulk_begin_how(c, table, columns, 0, e);
}

int db_bulk_begin_how(struct db_conn *c, const char *table, const char *columns, int how,
                      struct err *e)
{
    const char *p = columns, *name;
    size_t n;
    int ncols = 0;

    /* The drivers build the statement around these names (quoted with the
     * DBMS's own quoting): they must be our plain table and column names. */
    if (!plain_name(table, strlen(table)))
        return err_set(e, E_FAIL, "bulk load: '%.64s' is not a plain table name", table);
    while (db_next_name(&p, &name, &n)) {
        if (!plain_name(name, n))
            return err_set(e, E_FAIL, "bulk load of %s: '%.*s' is not a plain column name",
                           table, (int)(n > 64 ? 64 : n), name);
        ncols++;
    }
    if (ncols == 0)
        return err_set(e, E_FAIL, "bulk load of %s: no columns", table);
    if (how && (!c->ops->bulk_begin_how || (c->ops->bulk_how & how) != how))
        return err_set(e, E_FAIL, "bulk load of %s: driver %s cannot load that way (0x%x)", table,
                       c->ops->name, how);
    c->n_roundtrips++;
    if (how)
        return c->ops->bulk_begin_how(c, table, columns, how, e);
    return c->ops->bulk_begin(c, table, columns, e);
}

int db_bulk_put(struct db_conn *c, const char *buf, size_t len, struct err *e)
{
    return c->ops->bulk_put(c, buf, len, e);
}

int db_bulk_end(struct db_conn *c, int abort, struct err *e)
{
    c->n_roundtrips++;
    return c->ops->bulk_end(c, abort, e);
}

int db_end_reads(struct db_conn *c, struct err *e)
{
    if (c->ops->flags & DB_F_AUTOCOMMIT)
        return 0;
    return db_commit(c, e);
}

int db_tables(struct db_conn *c, const char *schema_tables_sql, const char *const *names, int n,
              int *found, int *n_found, struct err *e)
{
    int rc;

    *n_found = 0;
    if (c->ops->tables) {
        if ((rc = c->ops->tables(c, names, n, found, e)) < 0)
            return rc;
        for (int i = 0; i < n; i++)
            *n_found += found[i] != 0;
        return db_end_reads(c, e);
    }
    if (!schema_tables_sql)
        return err_set(e, E_USAGE,
                       "the %s driver has no catalog and the dialect no schema_tables "
                       "statement: tpccbench cannot tell which tables exist",
                       c->ops->name);
    if ((rc = db_query(c, schema_tables_sql, NULL, 0, e)) < 0)
        return rc;
    /* No row at all (the null driver): no tables. */
    if (db_next(c) == 1)
        *n_found = (int)db_col_int(c, 0);
    return db_end_reads(c, e);
}

int db_types(struct db_conn *c, const char *const *names, int n, int *found, struct err *e)
{
    int rc;

    if (!c->ops->types) {
        for (int i = 0; i < n; i++)
            found[i] = 1;
        return 1;
    }
    if ((rc = c->ops->types(c, names, n, found, e)) < 0)
        return rc;
    return db_end_reads(c, e);
}

int db_unique_key(struct db_conn *c, const char *table, const char *cols, int *found,
                  struct err *e)
{
    int rc;

    *found = 0;
    if (!c->ops->unique_key)
        return 1;
    if ((rc = c->ops->unique_key(c, table, cols, found, e)) < 0)
        return rc;
    return db_end_reads(c, e);
}

int db_set_isolation(struct db_conn *c, const char *name, int stmt_id, struct err *e)
{
    int rc;

    if (c->ops->set_isolation)
        return c->ops->set_isolation(c, name, e);
    if ((rc = db_exec(c, stmt_id, NULL, 0, e)) < 0)
        return rc;
    c->caps.txn_level = strcmp(name, "serializable") == 0      ? DB_ISO_SERIALIZABLE
                        : strcmp(name, "repeatable read") == 0 ? DB_ISO_REPEATABLE_READ
                                                               : DB_ISO_READ_COMMITTED;
    return 0;
}

int db_isolation_default(const struct db_caps *k, const char *dbms, const char **name, char *why,
                         size_t cap, struct err *e)
{
    /* From the weakest up: the first offered is the run's. */
    static const struct {
        unsigned iso;
        const char *name;
    } up[] = {
        { DB_ISO_READ_COMMITTED, "read committed" },
        { DB_ISO_REPEATABLE_READ, "repeatable read" },
        { DB_ISO_SERIALIZABLE, "serializable" },
    };
    unsigned offered = k->known ? k->iso_offered : DB_ISO_READ_COMMITTED;

    dbms = dbms && *dbms ? dbms : "(unnamed)";
    *name = up[0].name;
    why[0] = '\0';
    for (size_t i = 0; i < sizeof(up) / sizeof(up[0]); i++)
        if (offered & up[i].iso) {
            *name = up[i].name;
            if (i > 0)
                snprintf(why, cap, "%s offers %s", dbms,
                         offered == up[i].iso ? "no other" : "no read committed");
            return 0;
        }
    return err_set(e, E_USAGE,
                   "DBMS '%s' offers none of read committed, repeatable read, serializable: "
                   "tpccbench runs at one of them",
                   dbms);
}

int db_query_int(struct db_conn *c, const char *sql, int64_t *out, struct err *e)
{
    int rc = db_query(c, sql, NULL, 0, e);

    if (rc < 0)
        return rc;
    if (db_next(c) != 1 || db_col_isnull(c, 0))
        return err_set(e, E_FAIL, "a query for a single value returned no row");
    *out = db_col_int(c, 0);
    return 0;
}

int64_t db_parse_scaled(const char *s, int len, int scale)
{
    const char *end = s + (len < 0 ? (int)strlen(s) : len);
    int neg = 0, frac = -1;
    int64_t v = 0;
    int round = 0;

    if (s < end && (*s == '-' || *s == '+'))
        neg = *s++ == '-';
    for (; s < end; s++) {
        if (*s == '.') {
            frac = 0;
            continue;
        }
        if (*s < '0' || *s > '9')
            break;
        if (frac >= 0 && frac == scale) {
            round = *s >= '5';
            break;
        }
        v = v * 10 + (*s - '0');
        if (frac >= 0)
            frac++;
    }
    for (int k = frac < 0 ? 0 : frac; k < scale; k++)
        v *= 10;
    v += round;
    return neg ? -v : v;
}

int64_t db_parse_int(const char *s)
{
    const char *t = s + (*s == '-');
    uint64_t v = 0;
    int n = 0;

    /* Up to 18 digits cannot overflow; anything else (a sign, spaces, more
     * digits, trailing text) is strtoll's. */
    for (; *t >= '0' && *t <= '9' && n < 18; t++, n++)
        v = v * 10 + (uint64_t)(*t - '0');
    if (n == 0 || *t != '\0')
        return strtoll(s, NULL, 10);
    return *s == '-' ? -(int64_t)v : (int64_t)v;
}

/* The two digits of 0 .. 99, for db_format_scaled. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

int db_format_scaled(char *buf, size_t cap, int64_t v, int scale)
{
    /* By hand, not snprintf: it runs for every parameter of every
     * transaction.  Digits least significant first, two at a time (half the
     * divisions), at least scale + 1 of them, the point before the last
     * scale of them. */
    uint64_t a = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    char tmp[32], *p = tmp + sizeof(tmp), *q = buf;
    int ndig, len;

    if (scale < 0 || scale > 6)
        scale = 0;
    if (scale == 0 && v >= 0 && v < 1000000) {
        /* Most parameters (ids, counts, quantities): 32-bit arithmetic,
         * straight into buf from its end. */
        unsigned u = (unsigned)v;
        len = u < 10 ? 1 : u < 100 ? 2 : u < 1000 ? 3 : u < 10000 ? 4 : u < 100000 ? 5 : 6;
        if ((size_t)len + 1 > cap) {
            if (cap)
                buf[0] = '\0';
            return len;
        }
        q = buf + len;
        *q = '\0';
        for (; u >= 100; u /= 100) {
            *--q = digit_pairs[u % 100 * 2 + 1];
            *--q = digit_pairs[u % 100 * 2];
        }
        if (u >= 10)
            *--q = digit_pairs[u * 2 + 1];
        *--q = u >= 10 ? digit_pairs[u * 2] : (char)('0' + u);
        return len;
    }
    while (a >= 100) {
        unsigned r = (unsigned)(a % 100) * 2;
        a /= 100;
        *--p = digit_pairs[r + 1];
        *--p = digit_pairs[r];
    }
    if (a >= 10) {
        *--p = digit_pairs[a * 2 + 1];
        *--p = digit_pairs[a * 2];
    } else {
        *--p = (char)('0' + a);
    }
    ndig = (int)(tmp + sizeof(tmp) - p);
    for (; ndig < scale + 1; ndig++)
        *--p = '0';
    len = ndig + (scale > 0) + (v < 0);
    if ((size_t)len + 1 > cap) {
        if (cap)
            buf[0] = '\0';
        return len;
    }
    /* Byte by byte: a number is a few digits, shorter than memcpy's call. */
    if (v < 0)
        *q++ = '-';
    for (int k = 0; k < ndig; k++) {
        if (k == ndig - scale)
            *q++ = '.';
        *q++ = p[k];
    }
    *q = '\0';
    return len;
}

int db_format_ints(char *buf, size_t cap, const int32_t *v, int n)
{
    size_t k = 0;

    if (cap < 3)
        goto toolong;
    buf[k++] = '{';
    for (int i = 0; i < n; i++) {
        /* "," and the number, and "}" and the NUL after them. */
        int len = db_format_scaled(buf + k + (i > 0), cap - k - (i > 0), v[i], 0);
        if (k + (i > 0) + (size_t)len + 2 > cap)
            goto toolong;
        if (i > 0)
            buf[k++] = ',';
        k += (size_t)len;
    }
    buf[k++] = '}';
    buf[k] = '\0';
    return (int)k;
toolong:
    if (cap)
        buf[0] = '\0';
    return -1;
}
