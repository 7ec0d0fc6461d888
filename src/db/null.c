/*
 * null.c - a driver that accepts everything and returns no rows, but for
 * one synthetic Order-Status and the procedure version.
 *
 * For testing the core (config, CLI, retry logic with injected faults) and
 * the run's scheduler at any scale without a server: each exec and query
 * takes database.null_service_time (a sleep; 0 by default).  A pipeline
 * (one round trip) takes it once, on a timer instead of a sleep, so one
 * thread can keep several null connections in flight.  Every statement
 * answers no rows, except the few of null_answers below, so that the
 * transaction code needs no case of its own for this driver.  It must never
 * be used to claim a feature works against a database.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "core/clock.h"
#include "db/db.h"
#include "db/dialect.h"

/*
 * What a statement answers: one row of ncols columns as text (NULL: SQL
 * NULL), the columns the dialects' statements.sql blocks of that name
 * return, in their order.
 *
 * Statements are known by their block name in the dialect ("-- name: X",
 * kept in struct dialect.names), not by id: ids are only the order in which
 * a caller lists its names (tpcc/txn.c's enum txn_stmt, which db/ may not
 * include), and the same id is another file's statement on a connection of
 * another dialect file (admin.sql, meet.sql).  The table lives here rather
 * than coming from the caller through struct db_connect_args: these are
 * this driver's answers, in one place, and every connection gets them (the
 * run's workers and monitor, helpers, unit tests) without each place that
 * connects having to pass them, and without tpcc/ holding a table for one
 * driver, which is the special case this table removes from txn.c.
 */
struct null_answer {
    const char *name;        /* the statement's block name */
    int ncols;               /* columns of its one row */
    const char *const *cols; /* their text, NULL for SQL NULL */
};

/* One synthetic Order-Status (clause 2.6.3): customer 1, its undelivered
 * order 1 with one line, the same values however they are read. */
#define NULL_C_ID      "1"
#define NULL_C_FIRST   "synthetic"
#define NULL_C_MIDDLE  "OE"
#define NULL_C_LAST    "BARBARBAR"
#define NULL_C_BALANCE "-10.00"
#define NULL_O_ID      "1"
#define NULL_O_ENTRY_D "2000-01-01 00:00:00"
/* ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d (NULL: not delivered). */
#define NULL_LINE "1", "1", "5", "10.00", NULL

/* Client mode: the customer (os_customers_by_name, os_get_customer), its
 * last order (o_id, o_entry_d, o_carrier_id NULL: not delivered), the
 * order's lines. */
static const char *const null_os_customer[] = { NULL_C_ID, NULL_C_BALANCE, NULL_C_FIRST,
                                                NULL_C_MIDDLE, NULL_C_LAST };
static const char *const null_os_order[] = { NULL_O_ID, NULL_O_ENTRY_D, NULL };
static const char *const null_os_lines[] = { NULL_LINE };
/* Pipeline and procedure mode: all of it in one row per line. */
static const char *const null_os_all[] = { NULL_C_ID,      NULL_C_FIRST,   NULL_C_MIDDLE,
                                           NULL_C_LAST,    NULL_C_BALANCE, NULL_O_ID,
                                           NULL_O_ENTRY_D, NULL,           NULL_LINE };
/* The version of the server-side functions: TXN_PROC_VERSION (tpcc/txn.h,
 * which db/ may not include); tests/unit/test_txn.c fails when they differ. */
static const char *const null_proc_version[] = { "3" };

#define NULL_COLS(a) (int)(sizeof(a) / sizeof((a)[0])), (a)

static const struct null_answer null_answers[] = {
    { "os_customers_by_name", NULL_COLS(null_os_customer) },
    { "os_get_customer", NULL_COLS(null_os_customer) },
    { "os_last_order", NULL_COLS(null_os_order) },
    { "os_order_lines", NULL_COLS(null_os_lines) },
    { "os_all_by_id", NULL_COLS(null_os_all) },
    { "os_all_by_name", NULL_COLS(null_os_all) },
    { "proc_order_status", NULL_COLS(null_os_all) },
    { "proc_version", NULL_COLS(null_proc_version) },
};

/* Per connection: how long a call takes, and the current result. */
struct null_conn {
    int64_t service_us;
    int npipe; /* statements queued in the pipeline */
    int timer; /* timerfd: readable once a sent pipeline's service time passed */
    /* The answer of each statement id of the connection's dialect (NULL: no
     * rows), looked up by name once at connect. */
    const struct null_answer *answer[DB_MAX_STMTS];
    int pipe_slot[DB_PIPE_MAX];    /* the slot (or DB_PIPE_BEGIN/COMMIT) queued at k */
    const struct null_answer *cur; /* the last result's answer, NULL: no rows */
    int row;                       /* rows of cur read by next: 0 before its one row, 1 on it */
};

/* The answers of the connection's dialect by statement id. */
static void null_answers_find(struct null_conn *nc, const struct dialect *d)
{
    size_t n = sizeof(null_answers) / sizeof(null_answers[0]);

    for (int id = 0; d && id < DB_MAX_STMTS; id++)
        for (size_t k = 0; d->names[id] && k < n; k++)
            if (strcmp(d->names[id], null_answers[k].name) == 0)
                nc->answer[id] = &null_answers[k];
}

/* Make the answer of slot the current result (a pseudo or unknown slot: no rows). */
static void null_result(struct null_conn *nc, int slot)
{
    nc->cur = slot >= 0 && slot < DB_MAX_SLOTS ? nc->answer[slot / DB_MAX_SUB] : NULL;
    nc->row = 0;
}

/* Column col of the current row, NULL when there is none or it is SQL NULL. */
static const char *null_col(struct db_conn *c, int col)
{
    const struct null_conn *nc = c->priv;

    if (!nc->cur || nc->row != 1 || col < 0 || col >= nc->cur->ncols)
        return NULL;
    return nc->cur->cols[col];
}

static int null_connect(struct db_conn *c, const struct db_connect_args *a, struct err *e)
{
    struct null_conn *nc = c->priv;

    nc->service_us = a ? a->null_service_us : 0;
    null_answers_find(nc, c->dialect);
    nc->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (nc->timer < 0)
        return err_set(e, E_FAIL, "timerfd_create: %s", strerror(errno));
    snprintf(c->server_name, sizeof(c->server_name), "null");
    snprintf(c->server_version, sizeof(c->server_version), "0");
    c->chain = 1; /* it accepts any statement */
    return 0;
}

static void null_close(struct db_conn *c)
{
    struct null_conn *nc = c->priv;

    if (nc && nc->timer > 0)
        close(nc->timer);
}

static int null_exec_sql(struct db_conn *c, const char *sql, struct err *e)
{
    null_result(c->priv, -1);
    (void)sql;
    (void)e;
    return 0;
}

static int null_prepare(struct db_conn *c, int id, const char *sql, int np, struct err *e)
{
    null_result(c->priv, -1);
    (void)id;
    (void)sql;
    (void)np;
    (void)e;
    return 0;
}

static int null_exec(struct db_conn *c, int slot, const struct db_param *p, int np, struct err *e)
{
    struct null_conn *nc = c->priv;

    if (nc->service_us > 0)
        clock_sleep_us((uint64_t)nc->service_us);
    null_result(nc, slot);
    (void)p;
    (void)np;
    (void)e;
    return 0;
}

static int null_exec_once(struct db_conn *c, int slot, const char *sql, const struct db_param *p,
                          int np, struct err *e)
{
    (void)sql;
    return null_exec(c, slot, p, np, e);
}

static int null_query(struct db_conn *c, const char *sql, const struct db_param *p, int np,
                      struct err *e)
{
    (void)sql;
    /* Text without a statement id: no rows. */
    return null_exec(c, -1, p, np, e);
}

/* The current result's one row, once. */
static int null_next(struct db_conn *c)
{
    struct null_conn *nc = c->priv;

    if (!nc->cur || nc->row >= 1)
        return 0;
    nc->row = 1;
    return 1;
}

static int null_col_isnull(struct db_conn *c, int col)
{
    return null_col(c, col) == NULL;
}

static int64_t null_col_int(struct db_conn *c, int col)
{
    const char *t = null_col(c, col);

    return t ? strtoll(t, NULL, 10) : 0;
}

static int64_t null_col_num(struct db_conn *c, int col, int scale)
{
    const char *t = null_col(c, col);

    return t ? db_parse_scaled(t, -1, scale) : 0;
}

static const char *null_col_text(struct db_conn *c, int col, int *len)
{
    const char *t = null_col(c, col);

    if (!t)
        t = "";
    if (len)
        *len = (int)strlen(t);
    return t;
}

static int64_t null_affected(struct db_conn *c)
{
    (void)c;
    return 0;
}

static int null_tx(struct db_conn *c, struct err *e)
{
    null_result(c->priv, -1);
    (void)e;
    return 0;
}

static int null_bulk_begin(struct db_conn *c, const char *t, const char *cols, struct err *e)
{
    (void)t;
    (void)cols;
    return null_tx(c, e);
}

static int null_bulk_put(struct db_conn *c, const char *buf, size_t len, struct err *e)
{
    (void)buf;
    (void)len;
    return null_tx(c, e);
}

static int null_bulk_end(struct db_conn *c, int abort, struct err *e)
{
    (void)abort;
    return null_tx(c, e);
}

static int null_pipe_begin(struct db_conn *c, struct err *e)
{
    struct null_conn *nc = c->priv;

    (void)e;
    nc->npipe = 0;
    null_result(nc, -1);
    return 0;
}

static int null_pipe_exec(struct db_conn *c, int id, const char *sql, const struct db_param *p,
                          int np, struct err *e)
{
    struct null_conn *nc = c->priv;

    (void)sql;
    (void)p;
    (void)np;
    if (nc->npipe >= DB_PIPE_MAX)
        return err_set(e, E_FAIL, "pipeline longer than %d statements", DB_PIPE_MAX);
    nc->pipe_slot[nc->npipe++] = id;
    return 0;
}

/* The pipeline's one service time starts now (1 ns when there is none). */
static int null_pipe_send(struct db_conn *c, struct err *e)
{
    struct null_conn *nc = c->priv;
    int64_t us = nc->service_us;
    struct itimerspec its = { .it_value = { .tv_sec = us / 1000000,
                                            .tv_nsec = us > 0 ? (us % 1000000) * 1000 : 1 } };

    if (timerfd_settime(nc->timer, 0, &its, NULL) < 0)
        return err_set(e, E_FAIL, "timerfd_settime: %s", strerror(errno));
    return 0;
}

static int null_pipe_recv(struct db_conn *c, int *done, int *n_ok, struct err *e)
{
    struct null_conn *nc = c->priv;
    uint64_t fired;

    (void)e;
    *done = read(nc->timer, &fired, sizeof(fired)) == (ssize_t)sizeof(fired);
    *n_ok = *done ? nc->npipe : 0;
    return 0;
}

static int null_fd(struct db_conn *c)
{
    const struct null_conn *nc = c->priv;

    return nc->timer;
}

/* Result k: the answer of the statement queued at k. */
static int null_pipe_result(struct db_conn *c, int k)
{
    struct null_conn *nc = c->priv;

    if (k < 0 || k >= nc->npipe)
        return -1;
    null_result(nc, nc->pipe_slot[k]);
    return 0;
}

const struct db_ops db_null_ops = {
    .name = "null",
    .flags = DB_F_BULK | DB_F_PIPELINE | DB_F_AUTOCOMMIT | DB_F_SYNTHETIC,
    .priv_size = sizeof(struct null_conn),
    .connect = null_connect,
    .close = null_close,
    .exec_sql = null_exec_sql,
    .prepare = null_prepare,
    .exec = null_exec,
    .exec_once = null_exec_once,
    .query = null_query,
    .next = null_next,
    .col_isnull = null_col_isnull,
    .col_int = null_col_int,
    .col_num = null_col_num,
    .col_text = null_col_text,
    .affected = null_affected,
    .begin = null_tx,
    .commit = null_tx,
    .rollback = null_tx,
    .pipe_begin = null_pipe_begin,
    .pipe_exec = null_pipe_exec,
    .pipe_send = null_pipe_send,
    .pipe_recv = null_pipe_recv,
    .fd = null_fd,
    .pipe_result = null_pipe_result,
    .bulk_begin = null_bulk_begin,
    .bulk_put = null_bulk_put,
    .bulk_end = null_bulk_end,
};
