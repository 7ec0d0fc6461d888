/*
 * msrc_db.c - the metrics source of the database (run/msrc.h): its
 * statistics read with the metrics_* statements of schema/<dialect>/admin.sql
 * (for checkpoints, one of two by the server's version where the dialect
 * has a metrics_server_version: PostgreSQL 17 moved them to
 * pg_stat_checkpointer), each returning rows (name, value); db_keys[] says
 * which statement each name is expected from, so a statement that fails (no
 * privilege, a view an older or newer server lacks) is named in the notes of
 * exactly its columns.  A statement refused for good (SQLSTATE class 42:
 * privilege, undefined object) is not tried again.
 *
 * The statements run on a thread and a connection of the source's own, so
 * that a database that stops answering never holds the sampler: it waits
 * for a reading at most as long as it is told (0.5 s a second).  Rates are
 * over the time between the database's own readings.  Nothing here prints
 * but the summary's line.
 */
#include "run/metrics.h"
#include "run/msrc.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/lingering.h"
#include "db/dialect.h"
#include "db/schema_sql.h"

/* How long the release waits for the thread to end before it leaves it
 * running (lingering_join): a query's own round trip, with room. */
#define MDB_JOIN_MS 2000

/* The database statements, in id order: the four every dialect has, then
 * two a dialect may add (PostgreSQL): the server's version, and the
 * checkpoint statement of servers from PostgreSQL 17 on, used instead of
 * metrics_checkpoints there (metrics_checkpoints_stmt). */
enum {
    MQ_COUNTERS,
    MQ_WAL,
    MQ_CHECKPOINTS,
    MQ_SESSIONS,
    MQ_NBASE,
    MQ_VERSION = MQ_NBASE,
    MQ_CHECKPOINTS_17,
    MQ_N
};
/* Each may be absent from a dialect (an "-- absent:" line says why). */
static const char *const mq_load_names[MQ_N] = {
    "?metrics_counters",       "?metrics_wal",
    "?metrics_checkpoints",    "?metrics_sessions",
    "?metrics_server_version", "?metrics_checkpoints_17"
};
static const char *const mq_names[MQ_N] = { "metrics_counters",       "metrics_wal",
                                            "metrics_checkpoints",    "metrics_sessions",
                                            "metrics_server_version", "metrics_checkpoints_17" };

/* The names the statements return, and which statement returns each. */
enum {
    K_COMMITS,
    K_ROLLBACKS,
    K_HITS,
    K_READS,
    K_TEMP,
    K_DEADLOCKS,
    K_LOCK_WAITS,
    K_DATA_WRITTEN,
    K_WAL,
    K_CKPT,
    K_BUF_CKPT,
    K_BUF_BACKEND,
    K_S_ACTIVE,
    K_S_IDLE_TX,
    K_S_LOCK,
    K_LONGEST,
    K_HIDDEN,
    NDBK
};
static const struct {
    const char *name;
    int stmt;
} db_keys[NDBK] = {
    { "commits", MQ_COUNTERS },
    { "rollbacks", MQ_COUNTERS },
    { "buffer_hits", MQ_COUNTERS },
    { "buffer_reads", MQ_COUNTERS },
    { "temp_bytes", MQ_COUNTERS },
    { "deadlocks", MQ_COUNTERS },
    { "lock_waits", MQ_COUNTERS },
    { "data_written_bytes", MQ_COUNTERS },
    { "wal_bytes", MQ_WAL },
    { "checkpoints", MQ_CHECKPOINTS },
    { "buffers_checkpoint", MQ_CHECKPOINTS },
    { "buffers_backend", MQ_CHECKPOINTS },
    { "sessions_active", MQ_SESSIONS },
    { "sessions_idle_in_tx", MQ_SESSIONS },
    { "sessions_waiting_lock", MQ_SESSIONS },
    { "longest_tx_s", MQ_SESSIONS },
    { "sessions_hidden", MQ_SESSIONS },
};

/* The figures of this source (mcol.kind; mcol.arg: K_*). */
enum {
    DB_RATE,  /* a counter's rate */
    DB_GAUGE, /* a reading as it is */
    DB_HIT,   /* the buffer hit ratio, from K_HITS and K_READS */
    DB_SPAN,  /* the seconds between the two readings the rates are over */
};

/*
 * The database's statistics are read on a thread of their own, through a
 * connection of their own: a server that does not answer (a frozen
 * network) must never hold the monitor, which closes the window on time.
 * The sampler asks for a sample and waits at most as told; a sample still
 * outstanding from an earlier tick is not waited for again.  Freed by the
 * last of its two users (the metrics and the thread), so a thread blocked
 * in the database at the end is left behind safely.
 */
struct mdb {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs;                /* under lock: 2 while both use it */
    int stop;                /* under lock: the thread ends */
    unsigned req, done;      /* under lock: samples asked for, and the last one taken */
    struct db_conn *c;       /* the thread's (closed by whoever frees) */
    const struct dialect *d; /* the metrics' (outlives the thread: see mdb_release) */
    struct dialect own_d;    /* ... kept here */
    int stmt_off[MQ_N];      /* thread only: refused for good */
    int n_mq;                /* statements loaded: MQ_NBASE, or MQ_N with the versioned ones */
    int version_read;        /* thread only: server_version_num asked for */
    long server_version;     /* thread only: server_version_num, 0 when unknown */
    int ckpt_q;              /* MQ_CHECKPOINTS or MQ_CHECKPOINTS_17 (under lock once read) */
    /* The latest sample, under lock. */
    double val[NDBK];
    int have[NDBK];
    char stmt_note[MQ_N][300];
    int lost;      /* the connection was lost */
    uint64_t t_us; /* when it was taken */
    double cpu_ms; /* the thread's CPU for it */
};

/* The source's state (msrc.priv). */
struct mdbs {
    struct mdb *db;               /* NULL: no database statistics (d_note says why) */
    pthread_t th;                 /* db's thread, joined (or left lingering) at the release */
    uint64_t db_t_cur, db_t_prev; /* when db_cur and db_prev were read */
    double db_cpu_ms;             /* the database thread's CPU for this sample */
    char db_miss[320];            /* why this sample has no database figures, "" when it has */
    char dialect[32];
    int synthetic;
    struct dialect d; /* moved into db at the start */
    int have_d;
    char d_note[300];          /* why there are no database statements */
    char stmt_note[MQ_N][300]; /* the latest failure of each statement (from db) */
    int n_mq;                  /* statements in d: MQ_NBASE or MQ_N */
    int ckpt_q;                /* the checkpoint statement in use (from db) */
    long server_version;       /* server_version_num (from db), 0 when unknown */
    double db_prev[NDBK];      /* the baseline's readings */
    int db_have[NDBK];
    double db_cur[NDBK]; /* this sample's */
    int db_cur_have[NDBK];
};

static void db_columns(struct msrc *src)
{
    static const struct {
        const char *name, *unit, *prom, *labels, *help;
        int kind, key;
    } k[] = {
        /* The rates' own interval: a rate times it is the counter's
         * difference, where the row's interval_s (the sampler's tick) is off
         * by the database's answer time. */
        { "db_interval_s", "s", "tpccbench_db_sample_interval_seconds", NULL,
          "seconds between the two database readings the row's db_ rates are over", DB_SPAN,
          0 },
        { "db_commits_per_s", "1/s", "tpccbench_db_commits_per_second", NULL,
          "transactions committed per second (server side)", DB_RATE, K_COMMITS },
        { "db_rollbacks_per_s", "1/s", "tpccbench_db_rollbacks_per_second", NULL,
          "transactions rolled back per second (server side)", DB_RATE, K_ROLLBACKS },
        { "db_buffer_hit_pct", "%", "tpccbench_db_buffer_hit_percent", NULL,
          "share of page requests served from the buffer pool", DB_HIT, 0 },
        { "db_wal_bytes_per_s", "bytes/s", "tpccbench_db_wal_bytes_per_second", NULL,
          "WAL (redo log) bytes written per second", DB_RATE, K_WAL },
        { "db_checkpoints_per_s", "1/s", "tpccbench_db_checkpoints_per_second", NULL,
          "checkpoints per second (timed and requested)", DB_RATE, K_CKPT },
        { "db_buffers_checkpoint_per_s", "1/s", "tpccbench_db_buffers_written_per_second",
          "by=\"checkpoint\"", "buffers written per second by checkpoints", DB_RATE, K_BUF_CKPT },
        { "db_buffers_backend_per_s", "1/s", "tpccbench_db_buffers_written_per_second",
          "by=\"backend\"", "buffers written per second by backends", DB_RATE, K_BUF_BACKEND },
        { "db_temp_bytes_per_s", "bytes/s", "tpccbench_db_temp_bytes_per_second", NULL,
          "bytes written to temporary files per second", DB_RATE, K_TEMP },
        { "db_deadlocks_per_s", "1/s", "tpccbench_db_deadlocks_per_second", NULL,
          "deadlocks detected per second", DB_RATE, K_DEADLOCKS },
        /* A gauge: PostgreSQL counts no lock waits over time, only those now. */
        { "db_lock_waits", "count", "tpccbench_db_lock_waits", NULL,
          "lock waits in progress at the sample, the whole server's", DB_GAUGE, K_LOCK_WAITS },
        { "db_data_written_mb_per_s", "MB/s", "tpccbench_db_data_written_bytes_per_second", NULL,
          "data file bytes written per second", DB_RATE, K_DATA_WRITTEN },
        { "db_sessions_active", "count", "tpccbench_db_sessions", "state=\"active\"",
          "sessions by state, the monitor's own left out", DB_GAUGE, K_S_ACTIVE },
        { "db_sessions_idle_in_tx", "count", "tpccbench_db_sessions",
          "state=\"idle_in_transaction\"", "sessions by state, the monitor's own left out",
          DB_GAUGE, K_S_IDLE_TX },
        { "db_sessions_waiting_lock", "count", "tpccbench_db_sessions", "state=\"waiting_lock\"",
          "sessions by state, the monitor's own left out", DB_GAUGE, K_S_LOCK },
        { "db_longest_tx_s", "s", "tpccbench_db_longest_transaction_seconds", NULL,
          "age of the oldest open transaction", DB_GAUGE, K_LONGEST },
    };

    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        mcol_add(src, k[i].name, k[i].unit, k[i].prom, k[i].labels,
                 strcmp(k[i].unit, "MB/s") == 0 ? 1e6 : 1, k[i].kind, k[i].key, 0, "db", k[i].help);
}

/* Whether the dialect's admin.sql has the versioned statements (both). */
static int dialect_has_versions(const char *dialect)
{
    const char *admin = schema_sql(dialect, "admin");

    return admin && strstr(admin, "-- name: metrics_server_version\n") &&
           strstr(admin, "-- name: metrics_checkpoints_17\n");
}

const char *metrics_checkpoints_stmt(long server_version_num, int have_17)
{
    return have_17 && server_version_num >= 170000 ? mq_names[MQ_CHECKPOINTS_17]
                                                   : mq_names[MQ_CHECKPOINTS];
}

/* 1 with e set (the first one's reason) when d holds none of its n
 * metrics statements, d released; else 0. */
static int none_present(struct dialect *d, int n, struct err *e)
{
    for (int q = 0; q < n; q++)
        if (d->sql[q])
            return 0;
    dialect_absent(d, 0, e);
    dialect_release(d);
    return 1;
}

/* A permanent refusal: privilege (42501), an undefined table, column or
 * function (42P01, 42703, 42883), a server in recovery (55000). */
static int refused_for_good(const struct err *e)
{
    return strncmp(e->sqlstate, "42", 2) == 0 || strcmp(e->sqlstate, "55000") == 0;
}

/* Once per connection: the server's version (metrics_server_version), and
 * from it the checkpoint statement.  Unknown (no such statement, or it
 * failed): metrics_checkpoints, whose failure then names itself. */
static void db_version(struct mdb *w, char notes[MQ_N][300], int *lost)
{
    struct db_conn *c = w->c;
    struct err e;
    int rc;

    err_clear(&e);
    if (w->n_mq > MQ_VERSION) {
        if ((rc = db_query(c, w->d->sql[MQ_VERSION], NULL, 0, &e)) < 0) {
            snprintf(notes[MQ_VERSION], sizeof(notes[MQ_VERSION]), "%s: %.220s",
                     mq_names[MQ_VERSION], e.msg);
            if (rc == E_CONN) {
                *lost = 1;
                return;
            }
            if (!(c->ops->flags & DB_F_AUTOCOMMIT)) {
                struct err e2;
                db_rollback(c, &e2);
            }
        } else {
            while (db_next(c) == 1) {
                int len = 0;
                const char *v = db_col_text(c, 1, &len);
                char vbuf[32];
                if (v && len > 0 && len < (int)sizeof(vbuf)) {
                    memcpy(vbuf, v, (size_t)len);
                    vbuf[len] = '\0';
                    w->server_version = strtol(vbuf, NULL, 10);
                }
            }
            db_end_reads(c, &e);
        }
    }
    pthread_mutex_lock(&w->lock);
    w->ckpt_q = strcmp(metrics_checkpoints_stmt(w->server_version, w->n_mq > MQ_CHECKPOINTS_17),
                       mq_names[MQ_CHECKPOINTS_17]) == 0
                    ? MQ_CHECKPOINTS_17
                    : MQ_CHECKPOINTS;
    pthread_mutex_unlock(&w->lock);
    w->version_read = 1;
}

/* Read the statistics through w->c into val/have/notes (the thread's own
 * copies); *lost: the connection is gone. */
static void db_read(struct mdb *w, double *val, int *have, char notes[MQ_N][300], int *lost)
{
    struct db_conn *c = w->c;

    memset(have, 0, sizeof(int) * NDBK);
    *lost = 0;
    if (!w->version_read && (db_version(w, notes, lost), *lost))
        return;
    for (int qb = 0; qb < MQ_NBASE; qb++) {
        int q = qb == MQ_CHECKPOINTS ? w->ckpt_q : qb;
        struct err e;
        int rc;
        if (w->stmt_off[q])
            continue;
        if (!w->d->sql[q]) {
            struct err why;
            dialect_absent(w->d, q, &why);
            snprintf(notes[q], sizeof(notes[q]), "%.290s", why.msg);
            continue;
        }
        err_clear(&e);
        if ((rc = db_query(c, w->d->sql[q], NULL, 0, &e)) < 0) {
            snprintf(notes[q], sizeof(notes[q]), "%s: %.220s%s", mq_names[q], e.msg,
                     refused_for_good(&e) ? " (not tried again in this run)" : "");
            if (refused_for_good(&e))
                w->stmt_off[q] = 1;
            if (!(c->ops->flags & DB_F_AUTOCOMMIT) && rc != E_CONN) {
                struct err e2;
                db_rollback(c, &e2);
            }
            if (rc == E_CONN) {
                *lost = 1;
                return;
            }
            continue;
        }
        notes[q][0] = '\0';
        while (db_next(c) == 1) {
            int len = 0;
            const char *name = db_col_text(c, 0, &len);
            const char *v;
            char nbuf[64], vbuf[64];
            int vlen = 0;
            if (!name || db_col_isnull(c, 1) || len <= 0 || len >= (int)sizeof(nbuf))
                continue;
            memcpy(nbuf, name, (size_t)len);
            nbuf[len] = '\0';
            v = db_col_text(c, 1, &vlen);
            if (!v || vlen <= 0 || vlen >= (int)sizeof(vbuf))
                continue;
            memcpy(vbuf, v, (size_t)vlen);
            vbuf[vlen] = '\0';
            for (int k = 0; k < NDBK; k++) {
                /* Any statement may return any name (a dialect puts a figure
                 * where its privileges allow); db_keys[k].stmt is where a
                 * missing one is looked for in notes. */
                if (strcmp(db_keys[k].name, nbuf) == 0) {
                    char *end;
                    double x = strtod(vbuf, &end);
                    if (end != vbuf && isfinite(x)) {
                        val[k] = x;
                        have[k] = 1;
                    }
                }
            }
        }
        {
            struct err e2;
            db_end_reads(c, &e2);
        }
    }
}

/* Drop one user of w; the last frees it (closing its connection). */
static void mdb_release(struct mdb *w)
{
    int last;

    pthread_mutex_lock(&w->lock);
    last = --w->refs == 0;
    pthread_mutex_unlock(&w->lock);
    if (!last)
        return;
    db_close(w->c);
    dialect_release(&w->own_d);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free(w);
}

static void *mdb_main(void *arg)
{
    struct mdb *w = arg;
    double val[NDBK];
    int have[NDBK], lost;
    char(*notes)[300] = calloc(MQ_N, sizeof(*notes));

    pthread_mutex_lock(&w->lock);
    while (notes && !w->stop) {
        unsigned r;
        if (w->req == w->done) {
            pthread_cond_wait(&w->cond, &w->lock);
            continue;
        }
        double cpu0;
        r = w->req;
        pthread_mutex_unlock(&w->lock);
        cpu0 = msrc_thread_cpu_ms();
        db_read(w, val, have, notes, &lost);
        pthread_mutex_lock(&w->lock);
        w->cpu_ms = msrc_thread_cpu_ms() - cpu0;
        memcpy(w->val, val, sizeof(val));
        memcpy(w->have, have, sizeof(have));
        memcpy(w->stmt_note, notes, sizeof(w->stmt_note));
        w->lost = lost;
        w->t_us = clock_us();
        w->done = r;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    free(notes);
    mdb_release(w);
    return NULL;
}

/* A database sample into m->db_cur, waiting at most wait_us; m->db_miss
 * says why there is none. */
static void db_get(struct mdbs *m, uint64_t wait_us)
{
    struct mdb *w = m->db;
    struct timespec ts;
    unsigned r;
    int busy;

    memset(m->db_cur_have, 0, sizeof(m->db_cur_have));
    m->db_miss[0] = '\0';
    m->db_cpu_ms = 0;
    if (!w) {
        snprintf(m->db_miss, sizeof(m->db_miss), "%s",
                 m->have_d ? "no connection for the metrics (see the warning at the start)"
                           : m->d_note);
        return;
    }
    pthread_mutex_lock(&w->lock);
    busy = w->req != w->done;
    if (!busy) {
        r = ++w->req;
        pthread_cond_broadcast(&w->cond);
        clock_deadline(&ts, wait_us);
        while (w->done != r && pthread_cond_timedwait(&w->cond, &w->lock, &ts) == 0)
            ;
    }
    if (busy || w->done != w->req) {
        snprintf(m->db_miss, sizeof(m->db_miss),
                 "the database did not answer the statistics queries within %.1f s",
                 (double)wait_us / 1e6);
    } else if (w->lost) {
        snprintf(m->db_miss, sizeof(m->db_miss), "the metrics' connection was lost");
        memcpy(m->stmt_note, w->stmt_note, sizeof(m->stmt_note));
    } else {
        memcpy(m->db_cur, w->val, sizeof(m->db_cur));
        memcpy(m->db_cur_have, w->have, sizeof(m->db_cur_have));
        memcpy(m->stmt_note, w->stmt_note, sizeof(m->stmt_note));
        m->ckpt_q = w->ckpt_q;
        m->server_version = w->server_version;
        m->db_t_cur = w->t_us;
        m->db_cpu_ms = w->cpu_ms;
    }
    pthread_mutex_unlock(&w->lock);
}

/* Why database key k has no value now. */
static void db_why(const struct mdbs *m, int k, char *out, size_t len)
{
    /* PostgreSQL's data written is pg_stat_bgwriter's (pg_stat_io's from
     * 17): its checkpoint statement's, where MariaDB's is a status counter. */
    int s = k == K_DATA_WRITTEN && strcmp(m->dialect, "postgresql") == 0 ? MQ_CHECKPOINTS
                                                                         : db_keys[k].stmt;
    int q = s == MQ_CHECKPOINTS ? m->ckpt_q : s;

    if (k == K_BUF_BACKEND && q == MQ_CHECKPOINTS_17 && !m->db_miss[0])
        snprintf(out, len,
                 "PostgreSQL %ld.%ld has no buffers_backend (removed in 17 with "
                 "pg_stat_bgwriter's checkpoint columns; backends' writes are in pg_stat_io)",
                 m->server_version / 10000, m->server_version % 10000);
    else if (!m->have_d)
        snprintf(out, len, "%s", m->d_note);
    else if (m->db_miss[0])
        snprintf(out, len, "%s", m->db_miss);
    else if (m->stmt_note[q][0])
        snprintf(out, len, "%s", m->stmt_note[q]);
    else if (strcmp(m->dialect, "ansi") == 0)
        snprintf(out, len, "the ansi dialect: standard SQL has no view of server statistics");
    else
        snprintf(out, len, "the %s dialect's %s reports no '%s'", m->dialect, mq_names[q],
                 db_keys[k].name);
}

/* Sessions of other users this user may not see: the counts cover only the
 * visible ones, which their columns say (they are not missing). */
static void db_note_hidden(struct msrc *src, const struct mdbs *m)
{
    if (!m->db_cur_have[K_HIDDEN] || m->db_cur[K_HIDDEN] <= 0)
        return;
    for (int i = 0; i < mcol_count(src->m); i++) {
        struct mcol *col = mcol_at(src->m, i);
        /* pg_locks shows every session's locks: lock_waits is whole. */
        if (col->src == src && col->kind == DB_GAUGE && col->arg != K_HIDDEN &&
            col->arg != K_LOCK_WAITS && !col->note[0])
            snprintf(col->note, sizeof(col->note),
                     "%.0f sessions of other users were not visible (needs "
                     "pg_read_all_stats, part of pg_monitor): the figure covers the visible "
                     "ones",
                     m->db_cur[K_HIDDEN]);
    }
}

static double col_db(const struct mdbs *m, struct mcol *col)
{
    char why[320];
    int k = col->arg;

    if (col->kind == DB_RATE) {
        double dt = (double)(m->db_t_cur - m->db_t_prev) / 1e6;
        if (m->db_cur_have[k] && m->db_have[k] && dt > 0 && m->db_cur[k] >= m->db_prev[k])
            return (m->db_cur[k] - m->db_prev[k]) / dt / (strcmp(col->unit, "MB/s") ? 1 : 1e6);
        if (m->db_cur_have[k] && m->db_have[k]) {
            mcol_missing(col, "the server's counter went backwards (statistics reset or "
                              "a restart)");
            return NAN;
        }
        if (m->db_cur_have[k]) {
            mcol_missing(col, "no earlier sample of '%s'", db_keys[k].name);
            return NAN;
        }
    } else if (col->kind == DB_GAUGE) {
        if (m->db_cur_have[k])
            return m->db_cur[k];
    } else if (col->kind == DB_SPAN) {
        if (m->db_miss[0]) {
            mcol_missing(col, "%s", m->db_miss);
            return NAN;
        }
        if (m->db_t_prev > 0 && m->db_t_cur > m->db_t_prev)
            return (double)(m->db_t_cur - m->db_t_prev) / 1e6;
        mcol_missing(col, "no earlier reading of the database");
        return NAN;
    } else { /* DB_HIT */
        int ok = m->db_cur_have[K_HITS] && m->db_cur_have[K_READS] && m->db_have[K_HITS] &&
                 m->db_have[K_READS];
        double h = ok ? m->db_cur[K_HITS] - m->db_prev[K_HITS] : 0;
        double r = ok ? m->db_cur[K_READS] - m->db_prev[K_READS] : 0;
        if (ok && h >= 0 && r >= 0 && h + r > 0)
            return 100.0 * h / (h + r);
        if (ok && h + r == 0) {
            mcol_missing(col, "no page was requested in some seconds (no ratio)");
            return NAN;
        }
        k = m->db_cur_have[K_HITS] ? K_READS : K_HITS;
    }
    db_why(m, k, why, sizeof(why));
    mcol_missing(col, "%s", why);
    return NAN;
}

/* ------------------------------------------------------------------ */
/* The source's ops                                                    */
/* ------------------------------------------------------------------ */

/* The columns, and the dialect's statements; a dialect without them records why. */
static int dbs_init(struct msrc *src, const struct metrics_opts *o, struct err *e)
{
    struct mdbs *m = calloc(1, sizeof(*m));

    if (!(src->priv = m))
        return err_set(e, E_FAIL, "out of memory");
    snprintf(m->dialect, sizeof(m->dialect), "%s", o->dialect ? o->dialect : "");
    m->synthetic = o->synthetic;
    m->ckpt_q = MQ_CHECKPOINTS;
    db_columns(src);
    if (m->synthetic) {
        snprintf(m->d_note, sizeof(m->d_note), "driver null: no database behind it");
    } else if ((m->n_mq = dialect_has_versions(m->dialect) ? MQ_N : MQ_NBASE),
               dialect_load(&m->d, m->dialect, "admin", mq_load_names, m->n_mq, e) < 0 ||
                   none_present(&m->d, m->n_mq, e)) {
        /* An absent statement's message names the dialect and why. */
        if (e->code == E_USAGE)
            snprintf(m->d_note, sizeof(m->d_note), "%.290s", e->msg);
        else
            snprintf(m->d_note, sizeof(m->d_note),
                     "no metrics statements for dialect '%.31s': %.200s", m->dialect, e->msg);
        err_clear(e);
    } else {
        m->have_d = 1;
    }
    return 0;
}

/* The thread that reads through c, with the statements moved to it (it may
 * outlive the source).  1 when it took c. */
static int dbs_start(struct msrc *src, struct db_conn *c)
{
    struct mdbs *m = src->priv;
    struct mdb *w;

    if (!c || !m->have_d || !(w = calloc(1, sizeof(*w))))
        return 0;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->refs = 2;
    w->c = c;
    w->own_d = m->d; /* the statements move to the worker, which may outlive m */
    w->d = &w->own_d;
    w->n_mq = m->n_mq;
    w->ckpt_q = MQ_CHECKPOINTS;
    memset(&m->d, 0, sizeof(m->d));
    if (pthread_create(&m->th, NULL, mdb_main, w) == 0) {
        m->db = w;
        return 1;
    }
    m->d = w->own_d;
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free(w);
    return 0;
}

static double dbs_read(struct msrc *src, uint64_t t0_us, uint64_t wait_us, double interval_s)
{
    struct mdbs *m = src->priv;

    (void)t0_us;
    (void)interval_s;
    db_get(m, wait_us);
    db_note_hidden(src, m);
    return m->db_cpu_ms;
}

static double dbs_value(struct msrc *src, struct mcol *col, double interval_s)
{
    (void)interval_s; /* the rates are over the database's own readings */
    return col_db(src->priv, col);
}

/* A figure not read now keeps its last reading as the baseline: the next
 * rate spans the gap (over the time between the two readings). */
static void dbs_keep(struct msrc *src)
{
    struct mdbs *m = src->priv;

    for (int k = 0; k < NDBK; k++) {
        if (m->db_cur_have[k]) {
            m->db_prev[k] = m->db_cur[k];
            m->db_have[k] = 1;
        }
    }
    if (!m->db_miss[0])
        m->db_t_prev = m->db_t_cur;
}

/* The summary's WAL and checkpoints (summed over the measured rows). */
static int dbs_print(const struct msrc *src, FILE *out)
{
    const struct metrics *m = src->m;
    double wal = metrics_mean(m, "db_wal_bytes_per_s"), ck = 0;
    int ck_n = mcol_total(m, "db_checkpoints_per_s", "db_interval_s", &ck);

    if (!isnan(wal))
        fprintf(out, "  WAL %.2f MB/s", wal / 1e6);
    else
        fprintf(out, "  WAL unavailable (%s)", mcol_note(m, "db_wal_bytes_per_s"));
    if (ck_n)
        fprintf(out, "  checkpoints %.0f\n", ck);
    else
        fprintf(out, "  checkpoints unavailable (%s)\n", mcol_note(m, "db_checkpoints_per_s"));
    return 0;
}

/* The thread ends when it can; the last of it and the source frees what they share. */
static void dbs_release(struct msrc *src)
{
    struct mdbs *m = src->priv;

    if (!m)
        return;
    if (m->db) {
        pthread_mutex_lock(&m->db->lock);
        m->db->stop = 1;
        pthread_cond_broadcast(&m->db->cond);
        pthread_mutex_unlock(&m->db->lock);
        /* A thread still inside libpq (a server that stopped answering)
         * is left running and counted, so the process ends with _exit. */
        lingering_join(m->th, MDB_JOIN_MS);
        mdb_release(m->db); /* the thread frees it when it ends, if it has not yet */
    } else if (m->have_d) {
        dialect_release(&m->d);
    }
    free(m);
    src->priv = NULL;
}

const struct metrics_source_ops msrc_db_ops = {
    .name = "db",
    .init = dbs_init,
    .start = dbs_start,
    .read = dbs_read,
    .value = dbs_value,
    .keep = dbs_keep,
    .print = dbs_print,
    .release = dbs_release,
};
