/*
 * db.h - the driver interface: one table of functions per database backend
 * (like fio's I/O engines), and the db_*() wrappers the core calls.
 *
 * Transactions, the loader and the checks are written once against the
 * wrappers below and never against libpq or ODBC.  Every call into a driver
 * goes through one wrapper (db.c), so round-trip counting, statement
 * preparation on first use and fault injection live in one place.
 *
 * Values are always bound parameters; SQL text comes from the dialect
 * (src/db/dialect.h), never from data or config.
 */
#ifndef TPCC_DB_H
#define TPCC_DB_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "db/limits.h"

struct dialect;

/* Parameter and column types. */
enum db_type {
    DB_NULL = 0,
    DB_INT,  /* i */
    DB_NUM,  /* i scaled by 10^scale: 12345 with scale 2 is 123.45 */
    DB_TEXT, /* s, len bytes (len < 0: NUL-terminated) */
    DB_INTS, /* ints, len of them (0 .. DB_INTS_MAX): an int[] on PostgreSQL,
              * sent binary there (the parameter must be int4[]); elsewhere
              * the text "{a,b,c}" */
};

#define DB_INTS_MAX 16
/* The text form of DB_INTS_MAX ints: "{", 11 characters and "," each, "}", NUL. */
#define DB_INTS_TEXT (DB_INTS_MAX * 12 + 3)

struct db_param {
    int type;      /* enum db_type */
    int scale;     /* DB_NUM: digits after the decimal point */
    int64_t i;     /* DB_INT, DB_NUM */
    const char *s; /* DB_TEXT; not kept after the call returns */
    int len;       /* DB_TEXT length, -1 for strlen; DB_INTS count */
    const int32_t *ints; /* DB_INTS; not kept after the call returns */
};

/* Convenience initialisers for parameter arrays. */
#define DBP_INT(v) ((struct db_param){ .type = DB_INT, .i = (v) })
#define DBP_NUM(v, sc) ((struct db_param){ .type = DB_NUM, .i = (v), .scale = (sc) })
#define DBP_TEXT(p) ((struct db_param){ .type = DB_TEXT, .s = (p), .len = -1 })
#define DBP_TEXTN(p, n) ((struct db_param){ .type = DB_TEXT, .s = (p), .len = (n) })
#define DBP_NULL() ((struct db_param){ .type = DB_NULL })
#define DBP_INTS(a, n) ((struct db_param){ .type = DB_INTS, .ints = (a), .len = (n) })

/*
 * How dialect statements reach the server (run.statements).  Prepared:
 * each is prepared once per connection as a named statement and executed
 * by name.  Unnamed: each execution sends the text with its bound
 * parameters as the unnamed statement (libpq's PQexecParams /
 * PQsendQueryParams; ODBC's SQLExecDirect), so nothing a later transaction
 * needs is kept on the server: a pooler in transaction mode may hand every
 * transaction a different server connection.
 */
enum db_statements {
    DB_STMT_PREPARED = 0,
    DB_STMT_UNNAMED = 1,
};

/* What the core passes to connect. */
struct db_connect_args {
    const char *conninfo; /* postgres: libpq conninfo; may be "" */
    const char *dsn;      /* odbc: DSN name or connection string */
    const char *password; /* from the environment; NULL = driver's own (PGPASSWORD, .pgpass) */
    const char *app_name; /* application_name, e.g. "tpccbench vu 3" */
    int64_t null_service_us; /* driver null: each exec and query takes this long (a sleep) */
    int statements;       /* enum db_statements */
    /* Set (non-zero) by another thread: a connect still waiting for the
     * server gives up (E_INTR) within 100 ms.  NULL: none. */
    const int *abandon;
};

/* Driver capabilities (struct db_ops.flags). */
#define DB_F_BULK 0x1     /* bulk_* load rows faster than inserts */
#define DB_F_PIPELINE 0x2 /* pipe_* send many statements in one round trip */
#define DB_F_QMARK 0x4    /* placeholders are ? (ODBC), not $n */
#define DB_F_AUTOCOMMIT 0x8 /* a statement outside begin() commits by itself */
#define DB_F_SYNTHETIC 0x10 /* no database behind it (null): results are synthetic */

/* How a bulk load goes (db_bulk_begin_how; struct db_ops.bulk_how: what a
 * driver takes). */
#define DB_BULK_BINARY 0x1   /* rows in PostgreSQL's binary COPY format (gen.h), not text */
#define DB_BULK_TRUNCATE 0x2 /* empty the table first, in the caller's transaction */
#define DB_BULK_FREEZE 0x4   /* rows written frozen (COPY FREEZE): with DB_BULK_TRUNCATE */

/* Pseudo statement ids for db_pipe_exec. */
#define DB_PIPE_BEGIN (-1)
#define DB_PIPE_COMMIT (-2)
#define DB_PIPE_COMMIT_CHAIN (-3) /* COMMIT AND CHAIN: where c->chain */
#define DB_PIPE_ROLLBACK (-4)     /* what DB_PIPE_COMMIT becomes with c->commit_rolls_back */

/* Most statements one pipeline may hold. */
#define DB_PIPE_MAX 192 /* TXN_BATCH_MAX transactions of 3 statements */

#define DB_MAX_SLOTS (DB_MAX_STMTS * DB_MAX_SUB) /* prepared statements per connection */

/* Isolation levels (struct db_caps.txn_level; odbccaps.h's ODBC_ISO_* are these). */
#define DB_ISO_READ_COMMITTED 0x1
#define DB_ISO_REPEATABLE_READ 0x2
#define DB_ISO_SERIALIZABLE 0x4

/* What a driver found out about its DBMS at connect (ODBC: SQLGetInfo,
 * SQLGetFunctions), for the record's environment; known 0 when the driver
 * does not ask (libpq: PostgreSQL's own queries say what is needed). */
struct db_caps {
    int known;
    char source[48];            /* "ODBC SQLGetInfo (sqlite3odbc.so 03.00)" */
    char transactions[64];      /* SQL_TXN_CAPABLE, in words */
    char isolation[96];         /* the levels offered */
    char default_isolation[32]; /* the DBMS's default level, "unknown" */
    char load_path[32];         /* "array binding" | "row at a time" */
    char load_why[160];         /* what decided it */
    unsigned max_identifier_len; /* 0: no limit or not told */
    char catalog[64];           /* how tables are found: "SQLTables, SQLStatistics" */
    int rows_load;              /* 1: bulk_* send one row per execution */
    int txn_level;              /* DB_ISO_* set by db_set_isolation, 0 not set */
    unsigned iso_offered;       /* DB_ISO_* the DBMS offers (where known) */
};

/* A connection: core state plus the driver's private part.  Owned by one thread. */
struct db_conn {
    const struct db_ops *ops;
    const struct dialect *dialect; /* SQL text for prepared statements */
    void *priv;                    /* ops->priv_size bytes, zeroed at connect */
    uint64_t n_roundtrips;         /* requests that waited for a server reply */
    unsigned char prepared[DB_MAX_SLOTS]; /* 1: slot (id * DB_MAX_SUB + k) prepared here */
    char server_name[64];          /* DBMS name, e.g. "PostgreSQL" */
    char server_version[64];       /* e.g. "15.18" */
    int statements;                /* enum db_statements, from the connect arguments */
    int chain;                     /* 1: pipelines may queue DB_PIPE_COMMIT_CHAIN (PostgreSQL
                                    * 12 and later, or null) */
    int tls;                       /* 1: over TLS (data may wait in the TLS layer while the
                                    * socket is quiet: a poll on it alone can miss it) */
    struct db_caps caps;           /* filled by the driver's connect (ODBC) */

    unsigned last_op; /* DB_OP_* of the last wrapper call: was a lost connection at commit? */

    /* Fault injection for tests: the next n_fail calls of the operations in
     * fault_ops fail with fault_code/fault_sqlstate, then calls work again. */
    unsigned fault_ops;
    int fault_n;
    int fault_code;
    char fault_sqlstate[6];
    int pipe_fault;       /* 1: an injected fault took the last pipe_send; recv says so */
    struct err pipe_err;  /* ... that fault */

    /* Test hook: db_exec() calls hook_fn(c, id, hook_arg) just before it
     * sends statement hook_id (db_commit() and db_rollback() for the ids
     * DB_HOOK_COMMIT and DB_HOOK_ROLLBACK), so a test can stop a transaction
     * between two of its statements (tests/helper/txn_probe.c, tpcc/acid.c).
     * db_pipe_exec() calls it before it queues statement hook_id (or the
     * COMMIT, for DB_HOOK_COMMIT), once the statements queued so far have
     * run and their results are in (pipe_flush).  NULL outside tests. */
    void (*hook_fn)(struct db_conn *c, int id, void *arg);
    int hook_id;
    void *hook_arg;
    /* 1: the next db_commit() rolls back instead, and clears this (the
     * acid tests' rollback in place of a transaction's commit); a
     * pipeline's COMMIT is queued as DB_PIPE_ROLLBACK. */
    int commit_rolls_back;
};

/* Hook ids (db_hook) of the end of a transaction. */
#define DB_HOOK_COMMIT (-1)
#define DB_HOOK_ROLLBACK (-2)

/* Operations a fault can be injected into (struct db_conn.fault_ops). */
#define DB_OP_EXEC 0x1
#define DB_OP_COMMIT 0x2
#define DB_OP_BEGIN 0x4
#define DB_OP_CONNECT 0x8

/*
 * The function table a backend provides.  Each function returns 0 or a
 * negative enum err_code with e filled (SQLSTATE and server message kept);
 * the class is E_RETRY for serialization failure and deadlock, E_CONN when the
 * connection is gone, E_FAIL otherwise (E_USAGE for connect errors caused by
 * bad parameters: wrong password, unknown host, missing database).
 */
struct db_ops {
    const char *name; /* as in config database.driver */
    unsigned flags;   /* DB_F_* */
    size_t priv_size; /* bytes of private state per connection */

    int (*connect)(struct db_conn *c, const struct db_connect_args *a, struct err *e);
    void (*close)(struct db_conn *c);

    /* Run SQL text without parameters (DDL, SET, several statements). */
    int (*exec_sql)(struct db_conn *c, const char *sql, struct err *e);
    /* Prepare slot (0..DB_MAX_SLOTS-1) with nparams parameters.  With
     * c->statements unnamed, only check that sql parses as the unnamed
     * statement (nothing is kept; db_prepare() uses it to fail early). */
    int (*prepare)(struct db_conn *c, int slot, const char *sql, int nparams, struct err *e);
    /* Execute a prepared slot; its rows are then read with next/col_*. */
    int (*exec)(struct db_conn *c, int slot, const struct db_param *p, int np, struct err *e);
    /* Execute slot's text sql (in the driver's placeholder style) once as
     * the unnamed statement, parameters bound, nothing prepared or kept;
     * rows as after exec.  Used instead of prepare + exec when
     * c->statements is unnamed.  NULL: the driver cannot (unnamed refused
     * at connect). */
    int (*exec_once)(struct db_conn *c, int slot, const char *sql, const struct db_param *p,
                     int np, struct err *e);
    /* Execute SQL text with parameters once, unprepared (checks, admin). */
    int (*query)(struct db_conn *c, const char *sql, const struct db_param *p, int np,
                 struct err *e);

    /* Result of the last exec/query: advance to the next row (1) or end (0). */
    int (*next)(struct db_conn *c);
    int (*col_isnull)(struct db_conn *c, int col);
    int64_t (*col_int)(struct db_conn *c, int col);
    int64_t (*col_num)(struct db_conn *c, int col, int scale);
    const char *(*col_text)(struct db_conn *c, int col, int *len);
    int64_t (*affected)(struct db_conn *c); /* rows changed by the last exec */

    int (*begin)(struct db_conn *c, struct err *e);
    int (*commit)(struct db_conn *c, struct err *e);
    int (*rollback)(struct db_conn *c, struct err *e);

    /* Pipelines: pipe_begin, then pipe_exec queues statements (or
     * DB_PIPE_BEGIN/COMMIT) without waiting, pipe_sync sends them all and
     * waits for every result (one round trip); it returns the first
     * failure and sets *n_ok to the statements that succeeded before it
     * (later ones were skipped by the server).  pipe_result(k) makes
     * result k current for next/col_*.  After a failure inside BEGIN the
     * transaction must be rolled back with rollback().  NULL when the
     * driver cannot (no DB_F_PIPELINE).  pipe_exec's sql is NULL for the
     * prepared slot id, or the slot's text to send as the unnamed statement
     * (c->statements unnamed). */
    int (*pipe_begin)(struct db_conn *c, struct err *e);
    int (*pipe_exec)(struct db_conn *c, int id, const char *sql, const struct db_param *p,
                     int np, struct err *e);
    /* pipe_sync, in two halves so one thread can keep several connections'
     * pipelines in flight: pipe_send sends what was queued (and a sync);
     * pipe_recv reads what has arrived without waiting, sets *done to 1 once
     * every result is in (and returns what pipe_sync would), else 0; fd is
     * the descriptor that becomes readable when there is more to read. */
    int (*pipe_send)(struct db_conn *c, struct err *e);
    int (*pipe_recv)(struct db_conn *c, int *done, int *n_ok, struct err *e);
    int (*fd)(struct db_conn *c);
    int (*pipe_result)(struct db_conn *c, int k);
    /* Send what was queued with a flush request (no sync) and wait for the
     * results of every statement queued so far; the pipeline stays open
     * and pipe_send/pipe_recv go on from there.  A statement's failure is
     * left for pipe_recv; only a lost connection fails here.  For the test
     * hook (a stall inside a pipeline); NULL: the driver cannot. */
    int (*pipe_flush)(struct db_conn *c, struct err *e);

    /* Bulk load: rows as text, one per line, columns separated by a tab,
     * \N for NULL; values contain no tab, newline or backslash. */
    int (*bulk_begin)(struct db_conn *c, const char *table, const char *columns,
                      struct err *e);
    /* bulk_begin with DB_BULK_* flags, those of bulk_how only (NULL, 0: none). */
    int (*bulk_begin_how)(struct db_conn *c, const char *table, const char *columns, int how,
                          struct err *e);
    int bulk_how;
    int (*bulk_put)(struct db_conn *c, const char *buf, size_t len, struct err *e);
    /* Bulk load inside the transaction the caller began (db_begin).  Finish
     * it: the rows stay in that transaction for the caller to commit; with
     * abort 1 the load is cut short and the caller rolls back. */
    int (*bulk_end)(struct db_conn *c, int abort, struct err *e);

    /* Ask the server to cancel what c is running now, from another thread
     * (c's owner gets an error back).  NULL: the driver cannot. */
    void (*cancel)(struct db_conn *c);

    /* The DBMS's own catalog.  tables: which of names[0..n-1] exist as
     * tables (found[i] 1 or 0, names compared without case); types: which
     * of the standard type names names[0..n-1] ("DECIMAL") it has.  NULL:
     * the driver asks no catalog (libpq: the dialect's schema_tables). */
    int (*tables)(struct db_conn *c, const char *const *names, int n, int *found,
                  struct err *e);
    int (*types)(struct db_conn *c, const char *const *names, int n, int *found,
                 struct err *e);
    /* *found 1 when table has a unique index on exactly the columns cols
     * ("a, b", any order), else 0.  NULL: the driver cannot tell. */
    int (*unique_key)(struct db_conn *c, const char *table, const char *cols, int *found,
                      struct err *e);
    /* Set the isolation level (a run.isolation name) of the connection's
     * transactions from the next one on, refused (E_USAGE) when the DBMS
     * does not offer it.  NULL: the dialect's iso_* statement does it. */
    int (*set_isolation)(struct db_conn *c, const char *name, struct err *e);
};

/* The registered drivers, in one explicit array (db.c). */
const struct db_ops *db_find(const char *name);
const char *db_driver_names(void); /* "postgres, odbc, null" for messages */

/*
 * One line naming the server that driver and conninfo (postgres) or dsn
 * (odbc) reach, for the first line of a command's output: "server
 * 127.0.0.1:5432 db tpcc (libpq)", "ODBC DSN=x;UID=y" (redacted).  E_USAGE
 * when conninfo cannot be parsed.
 */
int db_describe_target(const char *driver, const char *conninfo, const char *dsn, char *out,
                       size_t len, struct err *e);

/* Open a connection with driver ops; *out is heap-allocated, free with db_close. */
int db_connect(const struct db_ops *ops, const struct dialect *d,
               const struct db_connect_args *a, struct db_conn **out, struct err *e);
void db_close(struct db_conn *c);
/* Cancel the request c is waiting for; callable from any thread while c is
 * open (the caller keeps c from being closed meanwhile).  A no-op for a
 * driver without cancel. */
void db_cancel(struct db_conn *c);

int db_exec_sql(struct db_conn *c, const char *sql, struct err *e);
/* Execute dialect statement id (prepared on first use on this connection;
 * with c->statements unnamed, sent with its text each time).
 *
 * Here and in db_prepare() and db_pipe_sync(), a failure with SQLSTATE
 * 42P05 or 26000 (prepared statement "..." already exists / does not exist)
 * on a connection using prepared statements becomes E_USAGE with a message
 * naming the likely cause, a pooler in transaction mode, and the cure,
 * run.statements: unnamed: it is not a lost connection to retry. */
int db_exec(struct db_conn *c, int id, const struct db_param *p, int np, struct err *e);
int db_query(struct db_conn *c, const char *sql, const struct db_param *p, int np,
             struct err *e);
int db_next(struct db_conn *c);
int db_col_isnull(struct db_conn *c, int col);
int64_t db_col_int(struct db_conn *c, int col);
int64_t db_col_num(struct db_conn *c, int col, int scale);
const char *db_col_text(struct db_conn *c, int col, int *len);
int64_t db_affected(struct db_conn *c);
int db_begin(struct db_conn *c, struct err *e);
int db_commit(struct db_conn *c, struct err *e);
int db_rollback(struct db_conn *c, struct err *e);
/* Start a bulk load of table (a plain SQL name) with columns ("a, b, c",
 * plain names); anything else is refused before the driver sees it. */
int db_bulk_begin(struct db_conn *c, const char *table, const char *columns, struct err *e);
/* The same with DB_BULK_* flags; a flag the driver does not take (not in
 * its ops->bulk_how) is refused (E_FAIL) before anything is sent. */
int db_bulk_begin_how(struct db_conn *c, const char *table, const char *columns, int how,
                      struct err *e);
int db_bulk_put(struct db_conn *c, const char *buf, size_t len, struct err *e);
int db_bulk_end(struct db_conn *c, int abort, struct err *e);

/* Prepare dialect statement id now unless it is already (pipelines need
 * their statements prepared before they start).  With c->statements
 * unnamed: check that its text parses, keeping nothing. */
int db_prepare(struct db_conn *c, int id, struct err *e);
int db_pipe_begin(struct db_conn *c, struct err *e);
int db_pipe_exec(struct db_conn *c, int id, const struct db_param *p, int np, struct err *e);
int db_pipe_sync(struct db_conn *c, int *n_ok, struct err *e);
/* db_pipe_sync in two halves (see pipe_send/pipe_recv): send, then recv
 * whenever db_fd(c) is readable until *done; one round trip. */
int db_pipe_send(struct db_conn *c, struct err *e);
int db_pipe_recv(struct db_conn *c, int *done, int *n_ok, struct err *e);
int db_fd(struct db_conn *c);
int db_pipe_result(struct db_conn *c, int k);

/* End the implicit transaction a driver without autocommit (ODBC) opened
 * with reads; nothing for drivers with autocommit. */
int db_end_reads(struct db_conn *c, struct err *e);

/* Which of names[0..n-1] exist as tables, through the driver's catalog
 * (ops->tables), else the dialect's admin statement schema_tables
 * (sql, which counts them: then *n_found only, found untouched).  *n_found
 * = how many exist. */
int db_tables(struct db_conn *c, const char *schema_tables_sql, const char *const *names, int n,
              int *found, int *n_found, struct err *e);
/* Which of the standard types names[0..n-1] the DBMS has (ops->types);
 * 1 when the driver cannot tell (every found[i] set to 1). */
int db_types(struct db_conn *c, const char *const *names, int n, int *found, struct err *e);
/* *found 1 when table has a unique key on exactly cols (ops->unique_key,
 * the catalog); 1 (nothing to say) when the driver cannot tell. */
int db_unique_key(struct db_conn *c, const char *table, const char *cols, int *found,
                  struct err *e);
/* Set run.isolation name on c: ops->set_isolation, else dialect statement
 * stmt_id.  c->caps.txn_level then says the level set. */
int db_set_isolation(struct db_conn *c, const char *name, int stmt_id, struct err *e);
/*
 * The level a run takes when run.isolation is not set, on a DBMS of caps k
 * named dbms: read committed where it is offered (or k does not know), else
 * the weakest offered above it.  *name is that level's run.isolation name;
 * why (cap bytes) says why it is not read committed ("SQLite offers no
 * other"), "" when it is.  E_USAGE when k offers none of the three.  Pure.
 */
int db_isolation_default(const struct db_caps *k, const char *dbms, const char **name, char *why,
                         size_t cap, struct err *e);

/* Query returning a single integer (first column of the first row). */
int db_query_int(struct db_conn *c, const char *sql, int64_t *out, struct err *e);

/* Arm fault injection (tests): the next n calls of ops fail with code. */
void db_fault(struct db_conn *c, unsigned ops, int n, int code, const char *sqlstate);

/* Arm the test hook (tests, tpccbench acid): fn(c, id, arg) runs each time
 * db_exec() is about to send statement id (DB_HOOK_COMMIT, DB_HOOK_ROLLBACK:
 * db_commit(), db_rollback() about to end the transaction), or
 * db_pipe_exec() to queue it (DB_HOOK_COMMIT: the pipeline's COMMIT), the
 * pipeline then sent and read up to there first; fn NULL disarms it.
 * Keeps arg. */
void db_hook(struct db_conn *c, int id, void (*fn)(struct db_conn *c, int id, void *arg),
             void *arg);

/* The next name of a list "a, b, c" at *p: *name and its length *n, *p
 * moved past it.  0 at the end.  For drivers that quote each column name. */
int db_next_name(const char **p, const char **name, size_t *n);

/* Parse a numeric text ("-12.5") into an integer scaled by 10^scale, rounding
 * half away from zero.  Shared by drivers that receive numbers as text. */
int64_t db_parse_scaled(const char *s, int len, int scale);
/* An integer column's text ("-42"): strtoll's value, the usual digits read
 * by hand (a transaction reads several). */
int64_t db_parse_int(const char *s);
/* Format v scaled by 10^scale into buf ("-0.05"); returns length. */
int db_format_scaled(char *buf, size_t cap, int64_t v, int scale);
/* "{a,b,c}" from n ints into buf (cap >= DB_INTS_TEXT holds DB_INTS_MAX of
 * them): its length, or -1 if it does not fit (buf then holds ""). */
int db_format_ints(char *buf, size_t cap, const int32_t *v, int n);

extern const struct db_ops db_pg_ops;
extern const struct db_ops db_null_ops;
extern const struct db_ops db_odbc_ops;

#endif
