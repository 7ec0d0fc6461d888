/*
 * msrc_waits.c - the wait sampler, a metrics source (run/msrc.h): on
 * PostgreSQL, pg_stat_activity read run.wait_sampling times a second (0:
 * off) in one statement a sample (admin.sql's metrics_waits), for our
 * backends only (the pids the run hands over once its connections are
 * made, metrics_backends) and the server's background processes.  Each
 * sample of ours is attributed to a transaction type by the statement it
 * runs (run/waits.h: the dialect's statement texts, no guess from timing).
 * On MariaDB (the mysql dialect, through ODBC) the same statement reads
 * INNODB_TRX: a transaction in LOCK WAIT is a row (or table) lock wait, and
 * where performance_schema's current waits are on and readable
 * (metrics_waits_note says nothing) metrics_waits_ps adds its I/O and mutex
 * waits; the note otherwise says once what is not seen.  The ansi dialect
 * has no view of waits: unavailable, saying so.
 *
 * The statement is prepared once (a plan of the view each sample would cost
 * the server more than the reading).  It samples on a thread and a
 * connection of its own: ten statements a
 * second on the database source's connection would queue behind (or ahead
 * of) that source's once-a-second reads, which the sampler waits for at
 * most 0.5 s; a connection of its own keeps both bounds, at the price of
 * one more server session.  The thread hands what it saw over under a lock
 * once a sample (never on the transactions' path); the sampler takes it
 * each second into the per-class columns (mean sessions of ours in each
 * class), the same per type for run.json's waits.per_second (the report's
 * chart), and the run's totals (run.json "waits", the summary).  The
 * thread also follows the checkpointer's and autovacuum workers' rows and,
 * once a second, metrics_events' counters, into run.json "events"
 * (run/events.h).  Its cost
 * is measured: the thread's CPU, and the server process's where the
 * server is on this host (/proc).  Nothing here prints but the summary.
 */
#include "run/metrics.h"
#include "run/msrc.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/lingering.h"
#include "db/dialect.h"
#include "db/schema_sql.h"
#include "run/events.h"
#include "run/waits.h"
#include "tpcc/txn.h"

/* metrics_events: the run's checkpoints and autovacuums (PostgreSQL);
 * metrics_waits_ps and metrics_waits_note: MariaDB's performance_schema,
 * used where the note says nothing. */
enum { WQ_WAITS, WQ_SELF, WQ_EVENTS, WQ_NOTE, WQ_WAITS_PS, WQ_N };
static const char *const wq_names[WQ_N] = { "?metrics_waits", "?backend_id", "?metrics_events",
                                            "?metrics_waits_note", "?metrics_waits_ps" };

#define ROWS_MAX   512 /* rows of one sample kept (ours and background) */
#define TYPE_CACHE 256 /* statement texts whose type is kept (a power of two) */

/* One row of a sample, attributed on the thread, added under the lock. */
struct wrow {
    int bg;       /* 1: a background process */
    int type;     /* ours: enum tx_type, -1 unattributed */
    char name[40]; /* background: its backend_type */
    char key[WAIT_KEY];
    int ev;          /* background: EV_CHECKPOINTER, EV_AUTOVACUUM (of our table), else 0 */
    int pid;
    char table[40];  /* EV_AUTOVACUUM: the table and what it does */
    char what[40];
};
enum { EV_CHECKPOINTER = 1, EV_AUTOVACUUM };
#define EV_POLLS_MAX 16 /* rows of one poll of the events' counters */

/*
 * What the source and its thread share, freed by the last of the two
 * (a thread blocked in a server that stopped answering is left behind).
 */
struct wshared {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs, stop;         /* under lock */
    struct wait_agg pending; /* under lock: since the sampler's last read */
    double cpu_ms;          /* under lock: the thread's CPU since then */
    double query_ms;        /* under lock: the statements' round trips since then */
    char note[300];         /* under lock: why sampling stopped, "" while it runs */
    /* The thread's own. */
    struct db_conn *c;
    struct dialect d;
    struct wait_stmts stmts;
    struct wait_procs procs; /* the statements inside the procedures (MariaDB shows them) */
    struct wait_pids seen;
    /* Types of texts seen lately, by their FNV-1a hash (a statement waiting
     * for a lock is sampled again and again): 0 is an empty slot. */
    uint64_t cache_h[TYPE_CACHE];
    int cache_t[TYPE_CACHE];
    char pids[64 * 1024]; /* '{1,2,3}' */
    uint64_t period_us;
    int wq; /* the statement sampled: WQ_WAITS or WQ_WAITS_PS */
    struct wrow rows[ROWS_MAX];
    int ev_on;          /* the events' counters are polled (metrics_events prepared) */
    uint64_t ev_next_us; /* the next poll */
    /* Under lock: the run's events (run/events.h), why they are incomplete. */
    struct run_events ev;
    char ev_note[300];
};

/* One second of samples (run.json waits.per_second, the report's chart). */
struct wsec {
    int second;
    uint64_t t0_us; /* when its row was sampled (events_second) */
    uint64_t rounds;
    uint32_t cls[WC_N];
    uint32_t tcls[TX_NTYPES][WC_N];
};

/* The source's state (msrc.priv). */
/* How long waits_release waits for a sample under way (its statement). */
#define WS_JOIN_MS 2000

struct mwaits {
    pthread_t th;   /* the sampler's thread, joined by waits_release */
    int hz;
    int synthetic;  /* the null driver */
    char why[320];  /* why there is no sampling, "" when there is */
    char sees[400]; /* what the server does not show the sampler (metrics_waits_note), or "" */
    char dialect[32];
    int local;      /* the server runs on this host: its process's CPU in /proc */
    const struct db_ops *ops;
    const struct db_connect_args *args;
    struct wshared *w;      /* NULL until the backends are handed over */
    int server_pid;         /* the sampler's server process, 0 unknown */
    double srv_ms_prev;     /* its CPU at the last read, -1 unknown */
    struct wait_agg cur;    /* this second's */
    struct wait_agg all, meas; /* every row's, the measured rows' */
    double meas_cpu_ms, meas_srv_ms, meas_query_ms, meas_s;
    int srv_known;
    struct wsec *secs; /* every row's but the baseline */
    int nsec, capsec;
};

/* A process's CPU so far (user + system), ms, from /proc; -1 unknown. */
static double proc_cpu_ms(int pid)
{
    char path[64], buf[1024], *p;
    unsigned long long ut, st;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if (!(f = fopen(path, "r")))
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* Fields after the command's ')': state is 3, utime 14 and stime 15. */
    if (!(p = strrchr(buf, ')')) ||
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

static void ws_release(struct wshared *w)
{
    int last;

    pthread_mutex_lock(&w->lock);
    last = --w->refs == 0;
    pthread_mutex_unlock(&w->lock);
    if (!last)
        return;
    db_close(w->c);
    dialect_release(&w->d);
    wait_stmts_release(&w->stmts);
    wait_procs_release(&w->procs);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free(w);
}

/* A text column as a C string into out ("" for NULL). */
static const char *col_str(struct db_conn *c, int col, char *out, size_t cap)
{
    int len = 0;
    const char *s = db_col_isnull(c, col) ? NULL : db_col_text(c, col, &len);

    if (!s)
        len = 0;
    snprintf(out, cap, "%.*s", len, s ? s : "");
    return out;
}

/* The transaction type of a statement's text: a named statement's, or one
 * inside a procedure (run/waits.h), kept for the next time. */
static int text_type(struct wshared *w, const char *query)
{
    uint64_t h = 1469598103934665603ull;
    int t, k;

    for (const char *p = query; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h += !h;
    k = (int)(h & (TYPE_CACHE - 1));
    if (w->cache_h[k] == h)
        return w->cache_t[k];
    if ((t = wait_stmts_type_words(&w->stmts, query)) < 0)
        t = wait_procs_type(&w->procs, query);
    w->cache_h[k] = h;
    w->cache_t[k] = t;
    return t;
}

/* One sample's rows into w->rows, attributed; how many, or -1 with e. */
static int sample_rows(struct wshared *w, struct err *e)
{
    struct db_param p = DBP_TEXT(w->pids);
    char btype[40], state[40], wtype[32], wevent[40], query[2048];
    int n = 0, rc;

    if ((rc = db_exec(w->c, w->wq, &p, 1, e)) < 0)
        return rc;
    while (db_next(w->c) == 1 && n < ROWS_MAX) {
        struct wrow *r = &w->rows[n];
        int pid = (int)db_col_int(w->c, 0), bg;
        int64_t xact = db_col_isnull(w->c, 5) ? 0 : db_col_int(w->c, 5);
        col_str(w->c, 1, btype, sizeof(btype));
        col_str(w->c, 2, state, sizeof(state));
        col_str(w->c, 3, wtype, sizeof(wtype));
        col_str(w->c, 4, wevent, sizeof(wevent));
        bg = strcmp(btype, "client backend") != 0;
        if (bg) {
            /* A background process has no state: it runs, or waits. */
            if (wtype[0])
                snprintf(r->key, sizeof(r->key), "%.31s:%.39s", wtype, wevent);
            else
                snprintf(r->key, sizeof(r->key), "CPU");
            snprintf(r->name, sizeof(r->name), "%.39s", btype);
            r->ev = strcmp(btype, "checkpointer") == 0 ? EV_CHECKPOINTER : 0;
            if (strcmp(btype, "autovacuum worker") == 0 && db_col_int(w->c, 7) == 1 &&
                events_autovacuum_query(col_str(w->c, 6, query, sizeof(query)), r->table,
                                        sizeof(r->table), r->what, sizeof(r->what)) == 0)
                r->ev = EV_AUTOVACUUM;
            r->pid = pid;
        } else if (wait_event_key(state, wtype, wevent, r->key, sizeof(r->key)) < 0) {
            continue;
        } else {
            col_str(w->c, 6, query, sizeof(query));
            r->type = wait_attr(&w->seen, pid, xact, text_type(w, query));
        }
        r->bg = bg;
        n++;
    }
    if ((rc = db_end_reads(w->c, e)) < 0)
        return rc;
    return n;
}

/* Sleep until *next (advanced by one period; a late sample is not made
 * up), or until stop; w->lock held.  1 when stopped. */
static int ws_wait(struct wshared *w, uint64_t *next)
{
    uint64_t now = clock_us();
    struct timespec ts;

    *next += w->period_us;
    if (*next < now)
        *next = now;
    clock_deadline(&ts, *next - now);
    while (!w->stop && pthread_cond_timedwait(&w->cond, &w->lock, &ts) == 0)
        ;
    return w->stop;
}

/* One sample's background rows into the events (w->lock held). */
static void ev_track(struct wshared *w, int n, uint64_t t_us)
{
    for (int i = 0; i < n; i++) {
        const struct wrow *r = &w->rows[i];
        if (r->bg && r->ev == EV_CHECKPOINTER)
            events_seen_checkpointer(&w->ev, t_us);
        else if (r->bg && r->ev == EV_AUTOVACUUM)
            events_seen_autovacuum(&w->ev, r->pid, r->table, r->what, t_us);
    }
    events_sample_end(&w->ev);
}

/* The events' counters, once a second (metrics_events); a failure stops
 * the polls and says why. */
static void ev_poll(struct wshared *w)
{
    struct {
        char kind[16], name[40];
        long long n;
        double t, now;
    } row[EV_POLLS_MAX];
    char buf[64];
    int nr = 0, rc;
    uint64_t t0 = clock_us(), t_us;
    struct err e;

    err_clear(&e);
    if ((rc = db_exec(w->c, WQ_EVENTS, NULL, 0, &e)) == 0) {
        while (db_next(w->c) == 1) {
            if (nr == EV_POLLS_MAX)
                continue;
            col_str(w->c, 0, row[nr].kind, sizeof(row[nr].kind));
            col_str(w->c, 1, row[nr].name, sizeof(row[nr].name));
            row[nr].n = db_col_isnull(w->c, 2) ? 0 : (long long)db_col_int(w->c, 2);
            row[nr].t = db_col_isnull(w->c, 3) ? NAN : strtod(col_str(w->c, 3, buf, sizeof(buf)), NULL);
            row[nr].now = strtod(col_str(w->c, 4, buf, sizeof(buf)), NULL);
            nr++;
        }
        rc = db_end_reads(w->c, &e);
    }
    /* The server read its clock about halfway through the round trip. */
    t_us = t0 + (clock_us() - t0) / 2;
    pthread_mutex_lock(&w->lock);
    if (rc < 0) {
        snprintf(w->ev_note, sizeof(w->ev_note),
                 "the events' statement (metrics_events) failed, checkpoints and autovacuums "
                 "are not counted from then on: %.160s",
                 e.msg);
        w->ev_on = 0;
    }
    for (int i = 0; rc == 0 && i < nr; i++) {
        if (strcmp(row[i].kind, "checkpoint") == 0)
            events_poll_checkpoint(&w->ev, row[i].t, row[i].now, t_us);
        else if (strcmp(row[i].kind, "autovacuum") == 0)
            events_poll_autovacuum(&w->ev, row[i].name, row[i].n, row[i].t, row[i].now, t_us);
    }
    if (rc == 0)
        events_poll_end(&w->ev, t_us);
    pthread_mutex_unlock(&w->lock);
    w->ev_next_us = t0 + 1000000;
}

static void *ws_main(void *arg)
{
    struct wshared *w = arg;
    uint64_t next = clock_us();
    struct err e;

    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        double cpu0 = msrc_thread_cpu_ms();
        uint64_t t0 = clock_us();
        int n;
        pthread_mutex_unlock(&w->lock);
        err_clear(&e);
        n = sample_rows(w, &e);
        pthread_mutex_lock(&w->lock);
        if (n < 0) {
            snprintf(w->note, sizeof(w->note), "the wait sampler's statement failed: %.250s",
                     e.msg);
            break;
        }
        for (int i = 0; i < n; i++) {
            if (w->rows[i].bg)
                wait_agg_bg(&w->pending, w->rows[i].name, w->rows[i].key);
            else
                wait_agg_add(&w->pending, w->rows[i].type, w->rows[i].key);
        }
        ev_track(w, n, t0);
        w->pending.rounds++;
        w->query_ms += (double)(clock_us() - t0) / 1e3;
        if (w->ev_on && clock_us() >= w->ev_next_us) {
            pthread_mutex_unlock(&w->lock);
            ev_poll(w);
            pthread_mutex_lock(&w->lock);
        }
        w->cpu_ms += msrc_thread_cpu_ms() - cpu0;
        if (ws_wait(w, &next))
            break;
    }
    pthread_mutex_unlock(&w->lock);
    ws_release(w);
    return NULL;
}

/* The per-class columns: our sessions in each class, on average. */
static void waits_columns(struct msrc *src)
{
    for (int c = 0; c < WC_N; c++) {
        char name[64], labels[64];
        snprintf(name, sizeof(name), "wait_%s_sessions", wait_class_names[c]);
        snprintf(labels, sizeof(labels), "class=\"%s\"", wait_class_names[c]);
        mcol_add(src, name, "count", "tpccbench_wait_sessions", labels, 1, 0, c, 0, "db",
                 "the run's server sessions in each wait class, mean of the second's samples");
    }
}

static int waits_init(struct msrc *src, const struct metrics_opts *o, struct err *e)
{
    struct mwaits *m = calloc(1, sizeof(*m));

    (void)e;
    if (!(src->priv = m))
        return err_set(e, E_FAIL, "out of memory");
    m->hz = o->wait_hz;
    m->ops = o->db_ops;
    m->args = o->db_args;
    m->local = o->db_local == 1;
    m->synthetic = o->synthetic;
    snprintf(m->dialect, sizeof(m->dialect), "%s", o->dialect ? o->dialect : "");
    if (m->hz <= 0)
        snprintf(m->why, sizeof(m->why), "run.wait_sampling is 0: off");
    else if (o->synthetic)
        snprintf(m->why, sizeof(m->why), "driver null: no database behind it");
    else if (!m->ops || !m->args)
        snprintf(m->why, sizeof(m->why), "no connection settings for the wait sampler");
    else
        snprintf(m->why, sizeof(m->why), "no run's connections to sample (yet)");
    waits_columns(src);
    return 0;
}

/* The dialect's statement texts by transaction type, and the sampler's own
 * statements, into w: 0, or -1 with why. */
static int ws_statements(struct wshared *w, const char *dialect, char *why, size_t len)
{
    struct dialect td;
    struct err e;

    if (dialect_load(&w->d, dialect, "admin", wq_names, WQ_N, &e) < 0) {
        snprintf(why, len, "%.300s", e.msg);
        return -1;
    }
    if (!w->d.sql[WQ_WAITS]) {
        snprintf(why, len, "the %s dialect: %s", dialect, w->d.absent[WQ_WAITS]);
        return -1;
    }
    if (txn_dialect_load(&td, dialect, &e) < 0) {
        snprintf(why, len, "%.300s", e.msg);
        return -1;
    }
    for (int id = 0; id < S_NSTMTS; id++) {
        int t = txn_stmt_type(id);
        for (int k = 0; t >= 0 && td.sql[id] && k < td.nsub[id]; k++)
            wait_stmts_add(&w->stmts, td.sub[id][k].dollar, t);
    }
    dialect_release(&td);
    if (schema_sql(dialect, "procedures") &&
        wait_procs_parse(&w->procs, schema_sql(dialect, "procedures"), &w->stmts) < 0) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    return 0;
}

/* '{1,2,3}' of the known pids into out: 0, or -1 when none fits. */
static int pid_list(const int64_t *pids, int n, char *out, size_t cap)
{
    size_t k = 0;
    int any = 0;

    out[k++] = '{';
    for (int i = 0; i < n; i++) {
        int w;
        if (pids[i] <= 0 || pids[i] > INT32_MAX)
            continue;
        w = snprintf(out + k, cap - k, "%s%" PRId64, any ? "," : "", pids[i]);
        if (w < 0 || (size_t)w + 2 >= cap - k)
            break;
        k += (size_t)w;
        any = 1;
    }
    snprintf(out + k, cap - k, "}");
    return any ? 0 : -1;
}

/* The statement that samples: metrics_waits_ps where the server's
 * performance_schema waits are on and readable (MariaDB), else
 * metrics_waits; what the sampler cannot see into m->sees. */
static int ws_pick(struct mwaits *m, struct wshared *w)
{
    struct err e;

    if (!w->d.sql[WQ_NOTE] || !w->d.sql[WQ_WAITS_PS])
        return WQ_WAITS;
    err_clear(&e);
    if (db_query(w->c, w->d.sql[WQ_NOTE], NULL, 0, &e) < 0) {
        snprintf(m->sees, sizeof(m->sees),
                 "performance_schema's waits are not read (%.200s): only row-lock waits "
                 "(INNODB_TRX in LOCK WAIT) are seen, the rest of a statement's time counts as CPU",
                 e.msg);
        if (!(w->c->ops->flags & DB_F_AUTOCOMMIT)) {
            struct err e2;
            db_rollback(w->c, &e2);
        }
        return WQ_WAITS;
    }
    if (db_next(w->c) == 1 && !db_col_isnull(w->c, 0))
        col_str(w->c, 0, m->sees, sizeof(m->sees));
    db_end_reads(w->c, &e);
    return m->sees[0] ? WQ_WAITS : WQ_WAITS_PS;
}

/* The run's connections are made: connect, and start sampling. */
static void waits_backends(struct msrc *src, const int64_t *pids, int n)
{
    struct mwaits *m = src->priv;
    struct wshared *w;
    pthread_t th;
    struct err e;

    if (m->w || m->hz <= 0 || !m->ops || !m->args || m->synthetic)
        return;
    if (!(w = calloc(1, sizeof(*w)))) {
        snprintf(m->why, sizeof(m->why), "out of memory");
        return;
    }
    /* The dialect's reason first (ansi: no view of waits), then the pids'. */
    if (ws_statements(w, m->dialect, m->why, sizeof(m->why)) < 0 ||
        (pid_list(pids, n, w->pids, sizeof(w->pids)) < 0 &&
         snprintf(m->why, sizeof(m->why),
                  "the server processes of the run's connections are unknown (the dialect "
                  "cannot tell them, or a pooler hides them)")) ||
        ((db_connect(m->ops, &w->d, m->args, &w->c, &e) < 0 ||
          db_prepare(w->c, w->wq = ws_pick(m, w), &e) < 0) &&
         snprintf(m->why, sizeof(m->why), "the wait sampler's connection failed: %.250s", e.msg))) {
        db_close(w->c);
        dialect_release(&w->d);
        wait_stmts_release(&w->stmts);
        wait_procs_release(&w->procs);
        free(w);
        return;
    }
    if (!w->d.sql[WQ_EVENTS])
        snprintf(w->ev_note, sizeof(w->ev_note), "the %s dialect: %s", m->dialect,
                 w->d.absent[WQ_EVENTS]);
    else if (db_prepare(w->c, WQ_EVENTS, &e) < 0)
        snprintf(w->ev_note, sizeof(w->ev_note),
                 "the events' statement (metrics_events) was refused: %.200s", e.msg);
    else
        w->ev_on = 1;
    /* A server process of its own: PostgreSQL's (MariaDB's sessions are
     * threads, its CONNECTION_ID() no process). */
    if (w->d.sql[WQ_SELF] && strcmp(m->dialect, "postgresql") == 0) {
        int64_t self = 0;
        if (db_query_int(w->c, w->d.sql[WQ_SELF], &self, &e) == 0)
            m->server_pid = (int)self;
    }
    m->srv_ms_prev = m->local && m->server_pid > 0 ? proc_cpu_ms(m->server_pid) : -1;
    m->srv_known = m->srv_ms_prev >= 0;
    w->period_us = 1000000 / (uint64_t)m->hz;
    w->refs = 2;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    if (pthread_create(&th, NULL, ws_main, w) != 0) {
        snprintf(m->why, sizeof(m->why), "no thread for the wait sampler");
        w->refs = 1;
        ws_release(w);
        return;
    }
    m->th = th;
    m->w = w;
    m->why[0] = '\0';
}

/* This second's samples by class, all and per type, kept for run.json. */
static void sec_add(struct mwaits *m, uint64_t t0_us, int second)
{
    struct wsec *x;

    if (m->nsec == m->capsec) {
        int cap = m->capsec ? m->capsec * 2 : 256;
        struct wsec *n = realloc(m->secs, (size_t)cap * sizeof(*n));
        if (!n)
            return;
        m->secs = n;
        m->capsec = cap;
    }
    x = &m->secs[m->nsec++];
    x->second = second;
    x->t0_us = t0_us;
    x->rounds = m->cur.rounds;
    for (int c = 0; c < WC_N; c++) {
        x->cls[c] = (uint32_t)m->cur.cls[c];
        for (int t = 0; t < TX_NTYPES; t++)
            x->tcls[t][c] = (uint32_t)m->cur.tcls[t][c];
    }
}

/* This second's samples: taken from the thread, added to the run's totals. */
static double waits_read(struct msrc *src, uint64_t t0_us, uint64_t wait_us, double interval_s)
{
    struct mwaits *m = src->priv;
    struct wshared *w = m->w;
    double cpu = 0, q = 0, srv = -1;

    (void)wait_us;
    memset(&m->cur, 0, sizeof(m->cur));
    if (!w)
        return 0;
    pthread_mutex_lock(&w->lock);
    m->cur = w->pending;
    memset(&w->pending, 0, sizeof(w->pending));
    cpu = w->cpu_ms;
    q = w->query_ms;
    w->cpu_ms = w->query_ms = 0;
    if (w->note[0] && !m->why[0])
        snprintf(m->why, sizeof(m->why), "%s", w->note);
    pthread_mutex_unlock(&w->lock);
    if (m->srv_known && (srv = proc_cpu_ms(m->server_pid)) >= 0) {
        double d = srv - m->srv_ms_prev;
        m->srv_ms_prev = srv;
        srv = d;
    } else {
        m->srv_known = 0;
    }
    wait_agg_merge(&m->all, &m->cur);
    if (msrc_phase(src->m))
        sec_add(m, t0_us, msrc_second(src->m));
    if (msrc_phase(src->m) == 'm') {
        wait_agg_merge(&m->meas, &m->cur);
        m->meas_cpu_ms += cpu;
        m->meas_query_ms += q;
        m->meas_srv_ms += srv > 0 ? srv : 0;
        m->meas_s += interval_s;
    }
    return cpu;
}

static double waits_value(struct msrc *src, struct mcol *c, double interval_s)
{
    struct mwaits *m = src->priv;

    (void)interval_s;
    if (!m->w) {
        mcol_missing(c, "%s", m->why);
        return NAN;
    }
    if (!m->cur.rounds) {
        mcol_missing(c, "%s", m->why[0] ? m->why : "no wait sample in this second");
        return NAN;
    }
    return (double)m->cur.cls[c->arg] / (double)m->cur.rounds;
}

/* The totals summarised: the measured rows', or every row's when none. */
static const struct wait_agg *waits_sum(const struct mwaits *m)
{
    return m->meas.rounds ? &m->meas : &m->all;
}

/* Mean sessions of each class in one second, from n samples. */
static json_t *sec_classes(const uint32_t *cls, uint64_t rounds)
{
    json_t *a = json_array();

    for (int c = 0; c < WC_N; c++)
        json_array_append_new(a, json_real(round((double)cls[c] / (double)rounds * 1000) / 1000));
    return a;
}

/*
 * run.json waits.per_second: each row's second (series.csv's), its samples,
 * and the mean sessions of each class (all of ours, then per type); a
 * second without samples has nulls.
 */
static json_t *per_second_json(const struct mwaits *m)
{
    json_t *cls = json_array(), *sec = json_array(), *rounds = json_array(), *all = json_array();
    json_t *bt = json_object(), *o;

    for (int c = 0; c < WC_N; c++)
        json_array_append_new(cls, json_string(wait_class_names[c]));
    for (int t = 0; t < TX_NTYPES; t++)
        json_object_set_new(bt, tx_name((enum tx_type)t), json_array());
    for (int i = 0; i < m->nsec; i++) {
        const struct wsec *x = &m->secs[i];
        json_array_append_new(sec, json_integer(x->second));
        json_array_append_new(rounds, json_integer((json_int_t)x->rounds));
        json_array_append_new(all, x->rounds ? sec_classes(x->cls, x->rounds) : json_null());
        for (int t = 0; t < TX_NTYPES; t++)
            json_array_append_new(json_object_get(bt, tx_name((enum tx_type)t)),
                                  x->rounds ? sec_classes(x->tcls[t], x->rounds) : json_null());
    }
    o = json_pack("{s:o, s:o, s:o, s:o, s:o}", "classes", cls, "second", sec, "samples", rounds,
                  "all", all, "by_type", bt);
    return o;
}

/* run.json "events" (moved to the record's top by the run): the
 * checkpoints and autovacuums seen, on series.csv's seconds. */
static void events_out(const struct mwaits *m, json_t *o)
{
    uint64_t *tu = m->nsec ? calloc((size_t)m->nsec, sizeof(*tu)) : NULL;
    int *ts = m->nsec ? calloc((size_t)m->nsec, sizeof(*ts)) : NULL;
    json_t *ev;

    if (!m->w) {
        json_object_set_new(o, "events", json_pack("{s:b, s:s}", "available", 0, "why",
                                                   m->why[0] ? m->why : "no wait sampler"));
        free(tu);
        free(ts);
        return;
    }
    for (int i = 0; tu && ts && i < m->nsec; i++) {
        tu[i] = m->secs[i].t0_us;
        ts[i] = m->secs[i].second;
    }
    pthread_mutex_lock(&m->w->lock);
    ev = json_pack("{s:b, s:i, s:o}", "available", 1, "sampled_at_hz", m->hz, "list",
                   events_json(&m->w->ev, tu, ts, tu && ts ? m->nsec : 0,
                               m->nsec ? m->secs[m->nsec - 1].t0_us : clock_us()));
    if (m->w->ev_note[0])
        json_object_set_new(ev, "note", json_string(m->w->ev_note));
    if (m->w->ev.dropped)
        json_object_set_new(ev, "dropped", json_integer((json_int_t)m->w->ev.dropped));
    pthread_mutex_unlock(&m->w->lock);
    json_object_set_new(o, "events", ev);
    free(tu);
    free(ts);
}

static void waits_json(const struct msrc *src, json_t *o)
{
    const struct mwaits *m = src->priv;
    const struct wait_agg *a = waits_sum(m);
    json_t *w, *cost;

    events_out(m, o);
    if (!a->rounds) {
        json_object_set_new(o, "waits",
                            json_pack("{s:i, s:b, s:s}", "rate_hz", m->hz, "available", 0, "why",
                                      m->why[0] ? m->why : "no sample was taken"));
        return;
    }
    cost = json_pack("{s:o, s:o, s:f}", "driver_cpu_pct_of_core",
                     m->meas_s > 0 ? json_real(m->meas_cpu_ms / m->meas_s / 10.0) : json_null(),
                     "server_cpu_pct_of_core",
                     m->meas_s > 0 && m->srv_known ? json_real(m->meas_srv_ms / m->meas_s / 10.0)
                                                   : json_null(),
                     "statement_ms_mean",
                     m->meas.rounds ? m->meas_query_ms / (double)m->meas.rounds : 0.0);
    if (!m->srv_known)
        json_object_set_new(
            cost, "server_why",
            json_string(strcmp(m->dialect, "postgresql") != 0
                            ? "the server serves sessions on threads: the sampler's share of "
                              "its CPU is not told apart"
                            : "the server's process is not on this host (or its /proc entry is "
                              "not readable): its CPU is not measured"));
    w = json_pack("{s:i, s:b, s:I, s:s, s:o, s:I, s:o, s:o}", "rate_hz", m->hz, "available", 1,
                  "samples", (json_int_t)a->rounds, "summarised",
                  m->meas.rounds ? "measured window" : "every sample (no measured window)",
                  "cost", cost, "unattributed", (json_int_t)a->unattributed, "by_type",
                  wait_agg_by_type(a), "background", wait_agg_background(a));
    if (m->why[0])
        json_object_set_new(w, "note", json_string(m->why));
    json_object_set_new(w, "per_second", per_second_json(m));
    if (m->sees[0])
        json_object_set_new(w, "not_seen", json_string(m->sees));
    json_object_set_new(o, "waits", w);
}

/* One line per transaction type: its share on CPU and its top three waits. */
static int waits_print(const struct msrc *src, FILE *out)
{
    const struct mwaits *m = src->priv;
    const struct wait_agg *a = waits_sum(m);

    if (!a->rounds) {
        fprintf(out, "  waits unavailable (%s)\n", m->why[0] ? m->why : "no sample was taken");
        return 1;
    }
    fprintf(out, "  waits: %" PRIu64 " samples at %d Hz (share of each type's samples)\n",
            a->rounds, m->hz);
    if (m->sees[0])
        fprintf(out, "    (%s)\n", m->sees);
    for (int t = 0; t < TX_NTYPES; t++) {
        int top[3], n, cpu = -1;
        double all = (double)a->type_samples[t];
        if (!a->type_samples[t])
            continue;
        for (int i = 0; i < a->nev; i++)
            if (strcmp(a->ev[i], "CPU") == 0)
                cpu = i;
        fprintf(out, "    %-12s %6" PRIu64 "  CPU %3.0f%%", tx_name((enum tx_type)t),
                a->type_samples[t], cpu >= 0 ? 100.0 * (double)a->n[cpu][t] / all : 0.0);
        n = wait_agg_top(a, t, top, 3);
        for (int i = 0; i < n; i++)
            fprintf(out, "  %s %.0f%%", a->ev[top[i]], 100.0 * (double)a->n[top[i]][t] / all);
        fprintf(out, "\n");
    }
    return 1;
}

static void waits_release(struct msrc *src)
{
    struct mwaits *m = src->priv;

    if (!m)
        return;
    if (m->w) {
        pthread_mutex_lock(&m->w->lock);
        m->w->stop = 1;
        pthread_cond_broadcast(&m->w->cond);
        pthread_mutex_unlock(&m->w->lock);
        /* Joined, so that no statement (libpq) runs on at the process's
         * exit; one blocked on a server that stopped answering is left
         * and counted (core/lingering.h). */
        lingering_join(m->th, WS_JOIN_MS);
        ws_release(m->w);
    }
    free(m->secs);
    free(m);
    src->priv = NULL;
}

const struct metrics_source_ops msrc_waits_ops = {
    .name = "waits",
    .init = waits_init,
    .read = waits_read,
    .value = waits_value,
    .json = waits_json,
    .print = waits_print,
    .backends = waits_backends,
    .release = waits_release,
};
