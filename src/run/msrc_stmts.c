/*
 * msrc_stmts.c - top statements, a metrics source (run/msrc.h): where
 * pg_stat_statements is installed, its counters of this database (calls,
 * total time, rows, shared blocks read and hit) over the run's measured
 * window, each statement mapped to its transaction type by its text (a
 * named statement's, a call of a procedure by its name, or a statement
 * inside a procedure by its words: run/waits.h), never by timing.
 *
 * The window is the metrics' own: the counters are read once a sample
 * (admin.sql's metrics_statements, texts left out) through the ramp-up and
 * the window; the last reading before the window is its start, the last
 * one in it its end, and the run's figures are their difference (a
 * statement new in the window starts from 0).  A statement's text is read
 * once, when its queryid first shows (metrics_statements_text).  The
 * readings run on a thread and a connection of their own, as the database
 * source's do, so a server that stops answering never holds the monitor: a
 * reading late for its sample is not used, and the window's length in
 * run.json is the time between the two readings used.  Absent (no
 * extension, library not loaded, another dialect): said once, with how to
 * install it.  Nothing here prints but the summary.
 */
#include "run/metrics.h"
#include "run/msrc.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/lingering.h"
#include "db/dialect.h"
#include "db/schema_sql.h"
#include "run/waits.h"
#include "tpcc/txn.h"

enum { SQ_COUNTS, SQ_TEXTS, SQ_TRACK, SQ_N };
static const char *const sq_names[SQ_N] = { "?metrics_statements", "?metrics_statements_text",
                                            "?metrics_statements_track" };

#define ST_MAX     2048 /* statements kept (a busy server's pg_stat_statements.max is 5000) */
#define ST_HASH    4096 /* slots of the queryid index, a power of two above ST_MAX */
#define ST_TEXT    1000 /* characters of a statement's text kept */
#define ST_JOIN_MS 2000 /* how long the release waits for a reading under way */
#define ST_TOP     5    /* statements in the summary */

/* A statement's counters in one reading. */
struct stmt_cnt {
    int64_t calls, time_us, rows, blk_read, blk_hit;
};

/* A statement seen: fixed once added (texts are filled in once, under lock). */
struct stmt_id {
    int64_t qid;
    int top;    /* 1: run at top level, 0: inside a function */
    int type;   /* enum tx_type, -1 none */
    char *text; /* heap, NULL until read */
};

/* What the source and its thread share, freed by the last of the two. */
struct sshared {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs, stop;     /* under lock */
    unsigned req, done; /* under lock: readings asked for, the last one made */
    char note[320];     /* under lock: why readings stopped, "" while they run */
    int n;              /* under lock: statements known (the ids only grow) */
    struct stmt_id id[ST_MAX];
    struct stmt_cnt snap[ST_MAX]; /* under lock: the latest reading */
    unsigned char in_snap[ST_MAX];
    uint64_t snap_us;        /* under lock: when it was made */
    double cpu_ms, query_ms; /* under lock: the thread's CPU and round trips since the last take */
    /* The thread's own. */
    struct db_conn *c;
    struct dialect d;
    struct wait_stmts ws;
    struct wait_procs wp;
    int slot[ST_HASH]; /* queryid index: id + 1, 0 empty */
    struct stmt_cnt rows[ST_MAX];
    unsigned char in_rows[ST_MAX];
};

/* The source's state (msrc.priv). */
struct mstmts {
    pthread_t th;
    int synthetic;
    char dialect[32];
    char why[400]; /* why there are no figures, "" when there are */
    char track_note[200];
    const struct db_ops *ops;
    const struct db_connect_args *args;
    struct sshared *w;
    int fresh; /* this sample's reading arrived in time */
    /* The window's edges: the last reading before it and the last in it. */
    struct stmt_cnt base[ST_MAX], end[ST_MAX];
    unsigned char in_base[ST_MAX], in_end[ST_MAX];
    int have_base, have_end;
    uint64_t base_us, end_us;
    double meas_cpu_ms, meas_query_ms, meas_s;
    int meas_reads;
};

static void ss_release(struct sshared *w)
{
    int last;

    pthread_mutex_lock(&w->lock);
    last = --w->refs == 0;
    pthread_mutex_unlock(&w->lock);
    if (!last)
        return;
    db_close(w->c);
    dialect_release(&w->d);
    wait_stmts_release(&w->ws);
    wait_procs_release(&w->wp);
    for (int i = 0; i < w->n; i++)
        free(w->id[i].text);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free(w);
}

/* The index of (qid, top), added when add (its text unread): -1 when
 * unknown and not added, or the table is full. */
static int ss_find(struct sshared *w, int64_t qid, int top, int add)
{
    uint64_t h = ((uint64_t)qid * 0x9E3779B97F4A7C15ull) ^ (uint64_t)top;

    for (int k = 0; k < ST_HASH; k++) {
        int *s = &w->slot[(h + (uint64_t)k) & (ST_HASH - 1)];
        if (!*s) {
            if (!add || w->n == ST_MAX)
                return -1;
            pthread_mutex_lock(&w->lock);
            w->id[w->n] = (struct stmt_id){ .qid = qid, .top = top, .type = -1 };
            *s = ++w->n;
            pthread_mutex_unlock(&w->lock);
            return *s - 1;
        }
        if (w->id[*s - 1].qid == qid && w->id[*s - 1].top == top)
            return *s - 1;
    }
    return -1;
}

/* The texts of the statements without one, each typed. */
static int ss_texts(struct sshared *w, struct err *e)
{
    int rc;

    if ((rc = db_query(w->c, w->d.sql[SQ_TEXTS], NULL, 0, e)) < 0)
        return rc;
    while (db_next(w->c) == 1) {
        int i = ss_find(w, db_col_int(w->c, 0), (int)db_col_int(w->c, 1), 0), len = 0;
        const char *q = db_col_isnull(w->c, 2) ? NULL : db_col_text(w->c, 2, &len);
        char *t;
        int type;
        if (i < 0 || w->id[i].text || !q || !(t = malloc((size_t)len + 1)))
            continue;
        memcpy(t, q, (size_t)len);
        t[len] = '\0';
        type = wait_stmts_type_words(&w->ws, t);
        if (type < 0)
            type = wait_procs_type(&w->wp, t);
        if (len > ST_TEXT) /* typed by the whole text, kept in part */
            t[ST_TEXT] = '\0';
        pthread_mutex_lock(&w->lock);
        w->id[i].text = t;
        w->id[i].type = type;
        pthread_mutex_unlock(&w->lock);
    }
    if ((rc = db_end_reads(w->c, e)) < 0)
        return rc;
    /* A text the server did not give (gone between the two statements) is
     * not asked for again each second: it stays empty. */
    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < w->n; i++)
        if (!w->id[i].text)
            w->id[i].text = calloc(1, 1);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

/* One reading into w->rows, the texts of new statements read. */
static int ss_read(struct sshared *w, struct err *e)
{
    int rc, untexted = 0;

    memset(w->in_rows, 0, sizeof(w->in_rows));
    if ((rc = db_exec(w->c, SQ_COUNTS, NULL, 0, e)) < 0)
        return rc;
    while (db_next(w->c) == 1) {
        int i = ss_find(w, db_col_int(w->c, 0), (int)db_col_int(w->c, 1), 1);
        if (i < 0)
            continue;
        w->rows[i] =
            (struct stmt_cnt){ db_col_int(w->c, 2), db_col_int(w->c, 3), db_col_int(w->c, 4),
                               db_col_int(w->c, 5), db_col_int(w->c, 6) };
        w->in_rows[i] = 1;
        untexted += !w->id[i].text;
    }
    if ((rc = db_end_reads(w->c, e)) < 0)
        return rc;
    return untexted ? ss_texts(w, e) : 0;
}

static void *ss_main(void *arg)
{
    struct sshared *w = arg;
    struct err e;

    pthread_mutex_lock(&w->lock);
    for (;;) {
        unsigned want;
        double cpu0;
        uint64_t t0;
        int rc;
        while (!w->stop && w->req == w->done)
            pthread_cond_wait(&w->cond, &w->lock);
        if (w->stop)
            break;
        want = w->req;
        pthread_mutex_unlock(&w->lock);
        cpu0 = msrc_thread_cpu_ms();
        t0 = clock_us();
        err_clear(&e);
        rc = ss_read(w, &e);
        pthread_mutex_lock(&w->lock);
        w->cpu_ms += msrc_thread_cpu_ms() - cpu0;
        w->query_ms += (double)(clock_us() - t0) / 1e3;
        if (rc < 0) {
            snprintf(w->note, sizeof(w->note), "reading pg_stat_statements failed: %.250s", e.msg);
            break;
        }
        memcpy(w->snap, w->rows, sizeof(w->rows[0]) * (size_t)w->n);
        memcpy(w->in_snap, w->in_rows, (size_t)w->n);
        w->snap_us = t0;
        w->done = want;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    ss_release(w);
    return NULL;
}

static int stmts_init(struct msrc *src, const struct metrics_opts *o, struct err *e)
{
    struct mstmts *m = calloc(1, sizeof(*m));

    if (!(src->priv = m))
        return err_set(e, E_FAIL, "out of memory");
    m->ops = o->db_ops;
    m->args = o->db_args;
    m->synthetic = o->synthetic;
    snprintf(m->dialect, sizeof(m->dialect), "%s", o->dialect ? o->dialect : "");
    if (o->synthetic)
        snprintf(m->why, sizeof(m->why), "driver null: no database behind it");
    else if (!m->ops || !m->args)
        snprintf(m->why, sizeof(m->why), "no connection settings for the statements' reader");
    else
        snprintf(m->why, sizeof(m->why), "no run's connections (yet)");
    return 0;
}

/* Why pg_stat_statements cannot be read, from the first reading's error e,
 * with how to install it. */
static void stmts_absent(char *why, size_t len, const struct err *e)
{
    static const char how[] =
        "set shared_preload_libraries = 'pg_stat_statements' and pg_stat_statements.track = "
        "all in postgresql.conf, restart the server, then CREATE EXTENSION pg_stat_statements in "
        "the database (Debian and Ubuntu: part of the postgresql-NN package; elsewhere "
        "postgresql-contrib)";

    if (strcmp(e->sqlstate, "42883") == 0 || strcmp(e->sqlstate, "42P01") == 0)
        snprintf(why, len, "pg_stat_statements is not installed in this database: %s", how);
    else if (strcmp(e->sqlstate, "55000") == 0)
        snprintf(why, len, "pg_stat_statements is installed but its library is not loaded: %s",
                 how);
    else
        snprintf(why, len, "pg_stat_statements cannot be read: %.200s", e->msg);
}

/* The dialect's statements and procedures by type, for the texts. */
static int ss_types(struct sshared *w, const char *dialect, char *why, size_t len)
{
    const char *procs = schema_sql(dialect, "procedures");
    struct dialect td;
    struct err e;

    if (txn_dialect_load(&td, dialect, &e) < 0) {
        snprintf(why, len, "%.300s", e.msg);
        return -1;
    }
    for (int id = 0; id < S_NSTMTS; id++) {
        int t = txn_stmt_type(id);
        for (int k = 0; t >= 0 && td.sql[id] && k < td.nsub[id]; k++)
            wait_stmts_add(&w->ws, td.sub[id][k].dollar, t);
    }
    dialect_release(&td);
    if (procs && wait_procs_parse(&w->wp, procs, &w->ws) < 0) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    return 0;
}

/* Connect, read once (the extension's there), and the track setting. */
static int ss_open(struct mstmts *m, struct sshared *w)
{
    struct err e;
    const char *track;
    int len = 0;

    err_clear(&e);
    if (dialect_load(&w->d, m->dialect, "admin", sq_names, SQ_N, &e) < 0) {
        snprintf(m->why, sizeof(m->why), "%.300s", e.msg);
        return -1;
    }
    if (!w->d.sql[SQ_COUNTS] || !w->d.sql[SQ_TEXTS]) {
        snprintf(m->why, sizeof(m->why), "the %s dialect: %s", m->dialect,
                 w->d.absent[w->d.sql[SQ_COUNTS] ? SQ_TEXTS : SQ_COUNTS]);
        return -1;
    }
    if (ss_types(w, m->dialect, m->why, sizeof(m->why)) < 0)
        return -1;
    if (db_connect(m->ops, &w->d, m->args, &w->c, &e) < 0) {
        snprintf(m->why, sizeof(m->why), "the statements' reader could not connect: %.250s", e.msg);
        return -1;
    }
    if (db_prepare(w->c, SQ_COUNTS, &e) < 0 || ss_read(w, &e) < 0) {
        stmts_absent(m->why, sizeof(m->why), &e);
        return -1;
    }
    if (w->d.sql[SQ_TRACK] && db_query(w->c, w->d.sql[SQ_TRACK], NULL, 0, &e) == 0) {
        if (db_next(w->c) == 1 && (track = db_col_text(w->c, 0, &len)) && len > 0 &&
            !(len == 3 && strncmp(track, "all", 3) == 0))
            snprintf(m->track_note, sizeof(m->track_note),
                     "pg_stat_statements.track is '%.*s': the statements inside the procedures "
                     "are not seen (set it to all)",
                     len > 20 ? 20 : len, track);
        db_end_reads(w->c, &e);
    }
    return 0;
}

/* The run's connections are made: connect, and start reading. */
static void stmts_backends(struct msrc *src, const int64_t *pids, int n)
{
    struct mstmts *m = src->priv;
    struct sshared *w;

    (void)pids;
    (void)n;
    if (m->w || m->synthetic || !m->ops || !m->args)
        return;
    if (!(w = calloc(1, sizeof(*w)))) {
        snprintf(m->why, sizeof(m->why), "out of memory");
        return;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->refs = 1;
    m->base_us = clock_us();
    if (ss_open(m, w) < 0) {
        ss_release(w);
        return;
    }
    /* The window's start until a ramp-up's reading takes its place (a run
     * without one starts its window at its first sample). */
    memcpy(m->base, w->rows, sizeof(w->rows[0]) * (size_t)w->n);
    memcpy(m->in_base, w->in_rows, (size_t)w->n);
    m->have_base = 1;
    w->refs = 2;
    if (pthread_create(&m->th, NULL, ss_main, w) != 0) {
        snprintf(m->why, sizeof(m->why), "no thread for the statements' reader");
        w->refs = 1;
        ss_release(w);
        return;
    }
    m->w = w;
    m->why[0] = '\0';
}

/* Readings are asked for through the ramp-up and the window only. */
static int stmts_phase_reads(const struct msrc *src)
{
    char ph = msrc_phase(src->m);

    return ph == 'r' || ph == 'm';
}

static void stmts_ask(struct msrc *src)
{
    struct mstmts *m = src->priv;

    m->fresh = 0;
    if (!m->w || !stmts_phase_reads(src))
        return;
    pthread_mutex_lock(&m->w->lock);
    m->w->req++;
    pthread_cond_broadcast(&m->w->cond);
    pthread_mutex_unlock(&m->w->lock);
}

/* This sample's reading, waited for at most wait_us: the window's start
 * while before it, its end while in it. */
static double stmts_read(struct msrc *src, uint64_t t0_us, uint64_t wait_us, double interval_s)
{
    struct mstmts *m = src->priv;
    struct sshared *w = m->w;
    char ph = msrc_phase(src->m);
    double cpu, q;
    struct timespec ts;
    int n;

    if (!w || !stmts_phase_reads(src))
        return 0;
    clock_deadline(&ts, wait_us);
    (void)t0_us;
    pthread_mutex_lock(&w->lock);
    while (w->done != w->req && !w->note[0] && pthread_cond_timedwait(&w->cond, &w->lock, &ts) == 0)
        ;
    cpu = w->cpu_ms;
    q = w->query_ms;
    w->cpu_ms = w->query_ms = 0;
    if (w->note[0] && !m->why[0])
        snprintf(m->why, sizeof(m->why), "%s", w->note);
    n = w->n;
    if (w->done == w->req && !w->note[0]) {
        int edge_end = ph == 'm';
        memcpy(edge_end ? m->end : m->base, w->snap, sizeof(w->snap[0]) * (size_t)n);
        memcpy(edge_end ? m->in_end : m->in_base, w->in_snap, (size_t)n);
        *(edge_end ? &m->end_us : &m->base_us) = w->snap_us;
        *(edge_end ? &m->have_end : &m->have_base) = 1;
    }
    pthread_mutex_unlock(&w->lock);
    if (ph == 'm') {
        m->meas_cpu_ms += cpu;
        m->meas_query_ms += q;
        m->meas_s += interval_s;
        m->meas_reads++;
    }
    return cpu;
}

static double stmts_value(struct msrc *src, struct mcol *c, double interval_s)
{
    (void)src;
    (void)c;
    (void)interval_s;
    return 0; /* no columns */
}

/* The window's figures of statement i into d: 1 when it ran in it. */
static int stmts_diff(const struct mstmts *m, int i, struct stmt_cnt *d)
{
    struct stmt_cnt z = { 0 };
    const struct stmt_cnt *a = m->in_base[i] ? &m->base[i] : &z, *b = &m->end[i];

    if (!m->in_end[i])
        return 0;
    *d = (struct stmt_cnt){ b->calls - a->calls, b->time_us - a->time_us, b->rows - a->rows,
                            b->blk_read - a->blk_read, b->blk_hit - a->blk_hit };
    /* A reset (pg_stat_statements_reset) or an eviction in the window. */
    if (d->calls < 0 || d->time_us < 0)
        *d = *b;
    return d->calls > 0;
}

/* The statements that ran in the window, costliest first: their indexes
 * into out (cap ST_MAX), how many; d gets their figures by index. */
static int stmts_order(const struct mstmts *m, int n, int *out, struct stmt_cnt *d)
{
    int k = 0;

    for (int i = 0; i < n; i++)
        if (stmts_diff(m, i, &d[i]))
            out[k++] = i;
    /* Insertion sort by total time: a few hundred statements at most. */
    for (int i = 1; i < k; i++) {
        int v = out[i], j = i;
        while (j > 0 && d[out[j - 1]].time_us < d[v].time_us) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = v;
    }
    return k;
}

/* Whether there is a window to report; why not into m->why when not. */
static int stmts_have(const struct mstmts *m)
{
    return m->w && m->have_base && m->have_end;
}

static json_t *stmt_json(const struct stmt_id *id, const struct stmt_cnt *d)
{
    char qid[32];

    snprintf(qid, sizeof(qid), "%" PRId64, id->qid);
    return json_pack("{s:s, s:o, s:b, s:I, s:f, s:f, s:I, s:I, s:I, s:s}", "queryid", qid, "type",
                     id->type >= 0 ? json_string(tx_name((enum tx_type)id->type)) : json_null(),
                     "toplevel", id->top, "calls", (json_int_t)d->calls, "total_ms",
                     (double)d->time_us / 1e3, "mean_ms",
                     (double)d->time_us / 1e3 / (double)d->calls, "rows", (json_int_t)d->rows,
                     "shared_blks_read", (json_int_t)d->blk_read, "shared_blks_hit",
                     (json_int_t)d->blk_hit, "query", id->text ? id->text : "");
}

static void stmts_json(const struct msrc *src, json_t *o)
{
    const struct mstmts *m = src->priv;
    struct stmt_cnt *d = NULL;
    int *order = NULL, n, k;
    json_t *s, *list;

    if (!stmts_have(m) || !(d = calloc(ST_MAX, sizeof(*d))) ||
        !(order = calloc(ST_MAX, sizeof(*order)))) {
        free(d);
        json_object_set_new(o, "statements",
                            json_pack("{s:b, s:s}", "available", 0, "why",
                                      m->why[0] ? m->why : "no reading in the measured window"));
        return;
    }
    pthread_mutex_lock(&m->w->lock);
    n = m->w->n;
    k = stmts_order(m, n, order, d);
    list = json_array();
    for (int i = 0; i < k; i++)
        json_array_append_new(list, stmt_json(&m->w->id[order[i]], &d[order[i]]));
    pthread_mutex_unlock(&m->w->lock);
    s = json_pack("{s:b, s:s, s:f, s:i, s:{s:o, s:f}, s:o}", "available", 1, "source",
                  "pg_stat_statements", "window_s", (double)(m->end_us - m->base_us) / 1e6, "count",
                  k, "cost", "driver_cpu_pct_of_core",
                  m->meas_s > 0 ? json_real(m->meas_cpu_ms / m->meas_s / 10.0) : json_null(),
                  "statement_ms_mean", m->meas_reads ? m->meas_query_ms / m->meas_reads : 0.0,
                  "by_total_time", list);
    if (m->track_note[0] || m->why[0])
        json_object_set_new(s, "note", json_string(m->why[0] ? m->why : m->track_note));
    json_object_set_new(o, "statements", s);
    free(d);
    free(order);
}

/* The five costliest: type, total and mean time, calls, the text's start. */
static int stmts_print(const struct msrc *src, FILE *out)
{
    const struct mstmts *m = src->priv;
    struct stmt_cnt *d;
    int *order, k;

    if (!stmts_have(m)) {
        fprintf(out, "  top statements unavailable (%s)\n",
                m->why[0] ? m->why : "no reading in the measured window");
        return 1;
    }
    if (!(d = calloc(ST_MAX, sizeof(*d))) || !(order = calloc(ST_MAX, sizeof(*order)))) {
        free(d);
        return 1;
    }
    pthread_mutex_lock(&m->w->lock);
    k = stmts_order(m, m->w->n, order, d);
    fprintf(out, "  top statements (pg_stat_statements, %d in the window, by total time):\n", k);
    for (int i = 0; i < k && i < ST_TOP; i++) {
        const struct stmt_id *id = &m->w->id[order[i]];
        const struct stmt_cnt *c = &d[order[i]];
        char text[64];
        wait_norm(id->text ? id->text : "", text, sizeof(text));
        fprintf(out, "    %-12s %9.1f ms %8" PRId64 " calls %8.3f ms/call  %s%s\n",
                id->type >= 0 ? tx_name((enum tx_type)id->type) : "-", (double)c->time_us / 1e3,
                c->calls, (double)c->time_us / 1e3 / (double)c->calls, id->top ? "" : "(inner) ",
                text);
    }
    pthread_mutex_unlock(&m->w->lock);
    if (m->track_note[0])
        fprintf(out, "    (%s)\n", m->track_note);
    free(d);
    free(order);
    return 1;
}

static void stmts_release(struct msrc *src)
{
    struct mstmts *m = src->priv;

    if (!m)
        return;
    if (m->w) {
        pthread_mutex_lock(&m->w->lock);
        m->w->stop = 1;
        pthread_cond_broadcast(&m->w->cond);
        pthread_mutex_unlock(&m->w->lock);
        /* Joined, so that no statement runs on at the exit; one blocked on
         * a server that stopped answering is left and counted. */
        lingering_join(m->th, ST_JOIN_MS);
        ss_release(m->w);
    }
    free(m);
    src->priv = NULL;
}

const struct metrics_source_ops msrc_stmts_ops = {
    .name = "statements",
    .init = stmts_init,
    .ask = stmts_ask,
    .read = stmts_read,
    .value = stmts_value,
    .json = stmts_json,
    .print = stmts_print,
    .backends = stmts_backends,
    .release = stmts_release,
};
