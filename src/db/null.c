/*
 * null.c - a driver that accepts everything and returns no rows.
 *
 * For testing the core (config, CLI, retry logic with injected faults) and
 * the run's scheduler at any scale without a server: each exec and query
 * takes database.null_service_time (a sleep; 0 by default).  A pipeline
 * (one round trip) takes it once, on a timer instead of a sleep, so one
 * thread can keep several null connections in flight.  It must never be
 * used to claim a feature works against a database.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "core/clock.h"
#include "db/db.h"

/* Per connection: how long a call takes. */
struct null_conn {
    int64_t service_us;
    int npipe; /* statements queued in the pipeline */
    int timer; /* timerfd: readable once a sent pipeline's service time passed */
};

static int null_connect(struct db_conn *c, const struct db_connect_args *a, struct err *e)
{
    struct null_conn *nc = c->priv;

    nc->service_us = a ? a->null_service_us : 0;
    nc->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (nc->timer < 0)
        return err_set(e, E_FAIL, "timerfd_create: %s", strerror(errno));
    snprintf(c->server_name, sizeof(c->server_name), "null");
    snprintf(c->server_version, sizeof(c->server_version), "0");
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
    (void)c;
    (void)sql;
    (void)e;
    return 0;
}

static int null_prepare(struct db_conn *c, int id, const char *sql, int np, struct err *e)
{
    (void)c;
    (void)id;
    (void)sql;
    (void)np;
    (void)e;
    return 0;
}

static int null_exec(struct db_conn *c, int id, const struct db_param *p, int np, struct err *e)
{
    const struct null_conn *nc = c->priv;

    if (nc && nc->service_us > 0)
        clock_sleep_us((uint64_t)nc->service_us);
    (void)id;
    (void)p;
    (void)np;
    (void)e;
    return 0;
}

static int null_exec_once(struct db_conn *c, int id, const char *sql, const struct db_param *p,
                          int np, struct err *e)
{
    (void)sql;
    return null_exec(c, id, p, np, e);
}

static int null_query(struct db_conn *c, const char *sql, const struct db_param *p, int np,
                      struct err *e)
{
    (void)sql;
    return null_exec(c, 0, p, np, e);
}

static int null_next(struct db_conn *c)
{
    (void)c;
    return 0;
}

static int null_col_isnull(struct db_conn *c, int col)
{
    (void)c;
    (void)col;
    return 1;
}

static int64_t null_col_int(struct db_conn *c, int col)
{
    (void)c;
    (void)col;
    return 0;
}

static int64_t null_col_num(struct db_conn *c, int col, int scale)
{
    (void)scale;
    return null_col_int(c, col);
}

static const char *null_col_text(struct db_conn *c, int col, int *len)
{
    (void)c;
    (void)col;
    if (len)
        *len = 0;
    return "";
}

static int64_t null_affected(struct db_conn *c)
{
    (void)c;
    return 0;
}

static int null_tx(struct db_conn *c, struct err *e)
{
    (void)c;
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
    return 0;
}

static int null_pipe_exec(struct db_conn *c, int id, const char *sql, const struct db_param *p,
                          int np, struct err *e)
{
    struct null_conn *nc = c->priv;

    (void)id;
    (void)sql;
    (void)p;
    (void)np;
    if (nc->npipe >= DB_PIPE_MAX)
        return err_set(e, E_FAIL, "pipeline longer than %d statements", DB_PIPE_MAX);
    nc->npipe++;
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

/* Every result is empty. */
static int null_pipe_result(struct db_conn *c, int k)
{
    const struct null_conn *nc = c->priv;

    return k >= 0 && k < nc->npipe ? 0 : -1;
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
