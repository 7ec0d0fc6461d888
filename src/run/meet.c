/*
 * meet.c - the parts of a scale-out run meeting in tpcc_run_part (see
 * meet.h).  Every step is a short statement on the part's own connection;
 * the steps that decide something for the run (joining an attempt, the
 * merger) run in one transaction under the run id's advisory lock.
 * Waiting is polling: every MEET_POLL_US, bounded, a stop request heard.
 */
#include "run/meet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/signals.h"

#define MEET_POLL_US 50000
/* At a window edge the terminals are paused: look more often. */
#define MEET_EDGE_POLL_US 10000

enum meet_stmt {
    M_LOCK_TABLE,
    M_CREATE,
    M_LOCK,
    M_LATEST,
    M_INSERT,
    M_ROWS,
    M_SET_START,
    M_STATE,
    M_COUNT_OPEN,
    M_COUNT_CLOSE,
    M_SUMMARY,
    M_SUMMARIES,
    M_NOW,
    M_BEAT,
    M_NSTMTS
};

static const char *const meet_names[M_NSTMTS] = {
    "meet_lock_table", "meet_create",    "meet_lock",  "meet_latest",     "meet_insert",
    "meet_rows",       "meet_set_start", "meet_state", "meet_count_open", "meet_count_close",
    "meet_summary",    "meet_summaries", "meet_now",        "meet_beat",
};

/* One row of meet_rows. */
struct meet_row {
    int part;
    char state[32];
    char host[256];
    double quiet_s; /* since its last beat */
    int64_t start_at_us;
    int has_start;
    int64_t count_open, count_close; /* -1: not taken */
    int first_w, last_w;
};

/* A part's progress; the run's row (part 0) has its own states. */
static int state_rank(const char *s)
{
    static const char *const order[] = { "registered", "running", "open_paused", "measuring",
                                         "close_paused" };
    for (int i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++)
        if (strcmp(s, order[i]) == 0)
            return i;
    return 10; /* done, failed, gave_up: ended */
}

static int ended(const struct meet_row *r)
{
    return state_rank(r->state) == 10;
}

static int gone(const struct meet_row *r)
{
    return !ended(r) && r->quiet_s > MEET_STALE_S;
}

/* After a failed step: its error is the one to report. */
static void rollback_quietly(struct meet *m)
{
    struct err ig;

    db_rollback(m->c, &ig);
}

/* Run meet.sql's statement id with its parameters on the meeting's connection. */
static int meet_query(struct meet *m, int id, const struct db_param *p, int np, struct err *e)
{
    return db_query(m->c, m->d.sql[id], p, np, e);
}

static int set_state(struct meet *m, int part, const char *state, struct err *e)
{
    struct db_param p[4] = { DBP_TEXT(m->run_id), DBP_INT(m->gen), DBP_INT(part), DBP_TEXT(state) };
    int rc = meet_query(m, M_STATE, p, 4, e);

    m->last_beat_us = clock_us();
    return rc;
}

/* Every row of the attempt into rows (at most max, part order); the count or <0. */
static int read_rows(struct meet *m, struct meet_row *rows, int max, struct err *e)
{
    struct db_param p[2] = { DBP_TEXT(m->run_id), DBP_INT(m->gen) };
    int rc, n = 0;

    if ((rc = meet_query(m, M_ROWS, p, 2, e)) < 0)
        return rc;
    while (db_next(m->c) == 1) {
        struct meet_row *r;
        const char *s;
        int len;
        if (n == max)
            continue;
        r = &rows[n++];
        memset(r, 0, sizeof(*r));
        r->part = (int)db_col_int(m->c, 0);
        s = db_col_text(m->c, 1, &len);
        snprintf(r->state, sizeof(r->state), "%.*s", len, s ? s : "");
        s = db_col_text(m->c, 2, &len);
        snprintf(r->host, sizeof(r->host), "%.*s", len, s ? s : "");
        s = db_col_text(m->c, 3, &len);
        r->quiet_s = s ? strtod(s, NULL) : 0;
        r->has_start = !db_col_isnull(m->c, 4);
        r->start_at_us = r->has_start ? db_col_int(m->c, 4) : 0;
        r->count_open = db_col_isnull(m->c, 5) ? -1 : db_col_int(m->c, 5);
        r->count_close = db_col_isnull(m->c, 6) ? -1 : db_col_int(m->c, 6);
        r->first_w = (int)db_col_int(m->c, 7);
        r->last_w = (int)db_col_int(m->c, 8);
    }
    return n;
}

/* Part k's row among the nr of rows, or NULL when it has none. */
static const struct meet_row *part_row(const struct meet_row *rows, int nr, int k)
{
    const struct meet_row *r = NULL;

    for (int i = 0; i < nr; i++)
        if (rows[i].part == k)
            r = &rows[i];
    return r;
}

/* "2, 4" of the parts 1..n not in rows (or, with want_rank >= 0, below it and not gone). */
static void missing_list(const struct meet *m, const struct meet_row *rows, int nr, int want_rank,
                         char *out, size_t len, int *n_missing)
{
    size_t at = 0;

    out[0] = '\0';
    *n_missing = 0;
    for (int k = 1; k <= m->n; k++) {
        const struct meet_row *r = part_row(rows, nr, k);
        if (r && (want_rank < 0 || state_rank(r->state) >= want_rank || gone(r)))
            continue;
        (*n_missing)++;
        if (at < len)
            at += (size_t)snprintf(out + at, len - at, "%s%d", at ? ", " : "", k);
    }
}

static void gone_list(struct meet *m, const struct meet_row *rows, int nr)
{
    size_t at = 0;

    m->gone[0] = '\0';
    for (int i = 0; i < nr; i++)
        if (rows[i].part > 0 && gone(&rows[i]) && at < sizeof(m->gone))
            at += (size_t)snprintf(m->gone + at, sizeof(m->gone) - at, "%s%d", at ? ", " : "",
                                   rows[i].part);
}

int meet_open(struct meet *m, const struct db_ops *ops, const struct db_connect_args *args,
              const char *dialect, const char *run_id, int k, int n, int first_w, int last_w,
              uint64_t timeout_us, struct err *e)
{
    int rc, gen = 1, parts = n, have_me = 0, closed = 0, found = 0;

    memset(m, 0, sizeof(*m));
    snprintf(m->run_id, sizeof(m->run_id), "%s", run_id);
    m->k = k;
    m->n = n;
    m->first_w = first_w;
    m->last_w = last_w;
    m->timeout_us = timeout_us;
    if (gethostname(m->host, sizeof(m->host) - 1) != 0)
        snprintf(m->host, sizeof(m->host), "unknown");
    if ((rc = dialect_load(&m->d, dialect, "meet", meet_names, M_NSTMTS, e)) < 0)
        return err_set(e, E_USAGE,
                       "the parts of a run meet in the database, and the %s dialect has no "
                       "meeting statements yet: run one part (PostgreSQL has them)",
                       dialect);
    if ((rc = db_connect(ops, &m->d, args, &m->c, e)) < 0)
        return err_prefix(e, "the meeting's connection");
    /* The table, once even when parts start together. */
    if ((rc = db_begin(m->c, e)) < 0 || (rc = meet_query(m, M_LOCK_TABLE, NULL, 0, e)) < 0 ||
        (rc = meet_query(m, M_CREATE, NULL, 0, e)) < 0 || (rc = db_commit(m->c, e)) < 0)
        goto fail;
    /* Join the latest attempt, or begin one. */
    {
        struct db_param lp[1] = { DBP_TEXT(m->run_id) };
        struct db_param xp[2] = { DBP_TEXT(m->run_id), DBP_INT(k) };
        if ((rc = db_begin(m->c, e)) < 0 || (rc = meet_query(m, M_LOCK, lp, 1, e)) < 0 ||
            (rc = meet_query(m, M_LATEST, xp, 2, e)) < 0)
            goto fail;
        if (db_next(m->c) == 1) {
            const char *s;
            int len;
            found = 1;
            gen = (int)db_col_int(m->c, 0);
            parts = (int)db_col_int(m->c, 1);
            s = db_col_text(m->c, 2, &len);
            have_me = s && s[0] == 't';
            s = db_col_text(m->c, 3, &len);
            closed = s && s[0] == 't';
            while (db_next(m->c) == 1)
                ;
        }
        if (found && !have_me && !closed && parts != n) {
            rc = err_set(e, E_USAGE,
                         "run '%s' is meeting as %d parts, but this part says %d: give every "
                         "part the same number of parts (--part K/N, --parts), or another "
                         "--run-id",
                         m->run_id, parts, n);
            goto fail;
        }
        if (found && (have_me || closed))
            gen++;
        m->gen = gen;
        if (!found || have_me || closed) {
            struct db_param hp[8] = {
                DBP_TEXT(m->run_id), DBP_INT(gen),     DBP_INT(0), DBP_INT(n),
                DBP_TEXT(""),        DBP_TEXT("open"), DBP_INT(0), DBP_INT(0)
            };
            if ((rc = meet_query(m, M_INSERT, hp, 8, e)) < 0)
                goto fail;
        }
        {
            struct db_param ip[8] = { DBP_TEXT(m->run_id), DBP_INT(gen),
                                      DBP_INT(k),          DBP_INT(n),
                                      DBP_TEXT(m->host),   DBP_TEXT("registered"),
                                      DBP_INT(first_w),    DBP_INT(last_w) };
            if ((rc = meet_query(m, M_INSERT, ip, 8, e)) < 0 || (rc = db_commit(m->c, e)) < 0)
                goto fail;
        }
    }
    m->last_beat_us = clock_us();
    m->joined = 1;
    return 0;
fail:
    rollback_quietly(m);
    return err_prefix(e, "registering part %d/%d of run '%s' in tpcc_run_part", k, n, m->run_id);
}

/* The database's clock against ours: the sample with the shortest round trip of five. */
static int measure_offset(struct meet *m, struct err *e)
{
    double best_rtt = -1;
    int rc;

    for (int i = 0; i < 5; i++) {
        uint64_t t0 = clock_wall_us(), t1;
        int64_t db;
        if ((rc = meet_query(m, M_NOW, NULL, 0, e)) < 0)
            return rc;
        if (db_next(m->c) != 1)
            return err_set(e, E_FAIL, "the database's clock: no row");
        db = db_col_int(m->c, 0);
        while (db_next(m->c) == 1)
            ;
        t1 = clock_wall_us();
        if (best_rtt < 0 || (double)(t1 - t0) / 1e3 < best_rtt) {
            best_rtt = (double)(t1 - t0) / 1e3;
            m->offset_ms = ((double)db - ((double)t0 + (double)t1) / 2.0) / 1e3;
        }
    }
    m->offset_rtt_ms = best_rtt;
    return 0;
}

int meet_start(struct meet *m, struct err *e)
{
    uint64_t deadline = clock_us() + m->timeout_us;
    struct meet_row *rows = calloc((size_t)m->n + 1, sizeof(*rows));
    int rc, nr;

    if (!rows)
        return err_set(e, E_FAIL, "out of memory");
    for (;;) {
        char miss[200];
        int n_miss;
        if ((nr = read_rows(m, rows, m->n + 1, e)) < 0) {
            rc = nr;
            goto out;
        }
        missing_list(m, rows, nr, -1, miss, sizeof(miss), &n_miss);
        if (n_miss == 0)
            break;
        if (sig_stop_requested()) {
            rc = err_set(e, E_INTR, "interrupted while waiting for the other parts");
            goto out;
        }
        if (clock_us() >= deadline) {
            set_state(m, m->k, "gave_up", e);
            rc = err_set(e, E_FAIL,
                         "part %d/%d of run '%s' waited %.0f s (run.part_timeout) for the other "
                         "parts; missing: part%s %s (attempt %d in tpcc_run_part): start every "
                         "part with the same --run-id and number of parts, or raise "
                         "--part-timeout",
                         m->k, m->n, m->run_id, (double)m->timeout_us / 1e6, n_miss > 1 ? "s" : "",
                         miss, m->gen);
            goto out;
        }
        if (clock_us() - m->last_beat_us > 1000000 &&
            (rc = set_state(m, m->k, "registered", e)) < 0)
            goto out;
        clock_sleep_us(MEET_POLL_US);
    }
    /* All here: the start, once. */
    {
        struct db_param p[2] = { DBP_TEXT(m->run_id), DBP_INT(m->gen) };
        if ((rc = meet_query(m, M_SET_START, p, 2, e)) < 0 || (rc = measure_offset(m, e)) < 0 ||
            (nr = read_rows(m, rows, m->n + 1, e)) < 0 ||
            (rc = set_state(m, m->k, "running", e)) < 0) {
            rc = rc < 0 ? rc : nr;
            goto out;
        }
    }
    if (nr < 1 || rows[0].part != 0 || !rows[0].has_start) {
        rc =
            err_set(e, E_FAIL, "run '%s': the agreed start is missing in tpcc_run_part", m->run_id);
        goto out;
    }
    m->start_at_us = rows[0].start_at_us;
    /* Sleep until the agreed instant on our clock. */
    {
        double target = (double)m->start_at_us - m->offset_ms * 1e3;
        for (;;) {
            double now = (double)clock_wall_us();
            if (now >= target)
                break;
            if (sig_stop_requested()) {
                rc = err_set(e, E_INTR, "interrupted while waiting for the agreed start");
                goto out;
            }
            clock_sleep_us(target - now > 100000 ? 100000 : (uint64_t)(target - now) + 1);
        }
    }
    rc = 0;
out:
    free(rows);
    return rc;
}

int meet_edge(struct meet *m, enum meet_edge edge,
              int (*count)(void *ctx, int64_t *out, struct err *e), void *ctx, int64_t *out,
              struct err *e)
{
    const char *paused = edge == MEET_OPEN ? "open_paused" : "close_paused";
    const char *counted = edge == MEET_OPEN ? "open_counted" : "close_counted";
    uint64_t deadline = clock_us() + m->timeout_us;
    struct meet_row *rows = calloc((size_t)m->n + 1, sizeof(*rows));
    int rc, nr;

    if (!rows)
        return err_set(e, E_FAIL, "out of memory");
    if ((rc = set_state(m, m->k, paused, e)) < 0)
        goto out;
    for (;;) {
        if ((nr = read_rows(m, rows, m->n + 1, e)) < 0) {
            rc = nr;
            goto out;
        }
        if (nr < 1 || rows[0].part != 0) {
            rc = err_set(e, E_FAIL, "run '%s': its row in tpcc_run_part is gone", m->run_id);
            goto out;
        }
        if (m->k == 1) {
            char miss[200];
            int n_miss;
            missing_list(m, rows, nr, state_rank(paused), miss, sizeof(miss), &n_miss);
            if (n_miss == 0) {
                struct db_param p[3] = { DBP_TEXT(m->run_id), DBP_INT(m->gen), DBP_INT(0) };
                struct err ce;
                int crc;
                gone_list(m, rows, nr);
                /* Published even without a count: the others wait for the edge, not for it. */
                err_clear(&ce);
                crc = count(ctx, out, &ce);
                p[2] = crc < 0 ? DBP_NULL() : DBP_INT(*out);
                rc = meet_query(m, edge == MEET_OPEN ? M_COUNT_OPEN : M_COUNT_CLOSE, p, 3, e);
                if (rc == 0 && crc < 0) {
                    *e = ce;
                    rc = crc;
                } else if (rc == 0 && m->gone[0])
                    rc = err_set(e, E_FAIL,
                                 "part%s %s of run '%s' stopped beating before the window's %s: "
                                 "the database's count includes what they did",
                                 strchr(m->gone, ',') ? "s" : "", m->gone, m->run_id,
                                 edge == MEET_OPEN ? "opening" : "close");
                goto out;
            }
        } else {
            const struct meet_row *p1 = nr > 1 && rows[1].part == 1 ? &rows[1] : NULL;
            const char *hs = rows[0].state;
            int passed = strcmp(hs, counted) == 0 || strcmp(hs, "merged") == 0 ||
                         (edge == MEET_OPEN && strcmp(hs, "close_counted") == 0);
            if (passed) {
                int64_t c = edge == MEET_OPEN ? rows[0].count_open : rows[0].count_close;
                gone_list(m, rows, nr);
                if (c < 0) {
                    rc = err_set(e, E_FAIL,
                                 "part 1 of run '%s' took no database count at the window's %s",
                                 m->run_id, edge == MEET_OPEN ? "opening" : "close");
                    goto out;
                }
                *out = c;
                rc = 0;
                goto out;
            }
            if (!p1 || ended(p1) || gone(p1)) {
                rc = err_set(e, E_FAIL,
                             "part 1 of run '%s', which takes the database's count, is gone: "
                             "no count at the window's %s",
                             m->run_id, edge == MEET_OPEN ? "opening" : "close");
                goto out;
            }
        }
        if (sig_stop_requested()) {
            rc = err_set(e, E_INTR, "interrupted at the window's edge");
            goto out;
        }
        if (clock_us() >= deadline) {
            rc = err_set(e, E_FAIL,
                         "the parts of run '%s' did not all reach the window's %s within %.0f s "
                         "(run.part_timeout)",
                         m->run_id, edge == MEET_OPEN ? "opening" : "close",
                         (double)m->timeout_us / 1e6);
            goto out;
        }
        if (clock_us() - m->last_beat_us > 1000000 && (rc = set_state(m, m->k, paused, e)) < 0)
            goto out;
        clock_sleep_us(MEET_EDGE_POLL_US);
    }
out:
    if (edge == MEET_OPEN && rc != E_INTR) {
        struct err ig;
        set_state(m, m->k, "measuring", &ig);
    }
    free(rows);
    return rc;
}

void meet_beat(struct meet *m)
{
    struct err ig;

    if (!m || clock_us() - m->last_beat_us < 1000000)
        return;
    {
        struct db_param p[3] = { DBP_TEXT(m->run_id), DBP_INT(m->gen), DBP_INT(m->k) };
        /* The state stays; only the beat. */
        if (meet_query(m, M_BEAT, p, 3, &ig) < 0)
            return;
    }
    m->last_beat_us = clock_us();
}

int meet_finish(struct meet *m, const char *state, const char *summary, int *merger,
                json_t **rows_out, int64_t *count_open, int64_t *count_close, struct err *e)
{
    uint64_t deadline = clock_us() + m->timeout_us;
    struct meet_row *rows = calloc((size_t)m->n + 1, sizeof(*rows));
    int rc, nr;

    *merger = 0;
    *rows_out = NULL;
    *count_open = *count_close = -1;
    if (!rows)
        return err_set(e, E_FAIL, "out of memory");
    {
        struct db_param p[5] = { DBP_TEXT(m->run_id), DBP_INT(m->gen), DBP_INT(m->k),
                                 DBP_TEXT(state), DBP_TEXT(summary) };
        if ((rc = meet_query(m, M_SUMMARY, p, 5, e)) < 0)
            goto out;
    }
    for (;;) {
        int all = 1, timed_out = clock_us() >= deadline;
        struct db_param lp[1] = { DBP_TEXT(m->run_id) };
        if ((rc = db_begin(m->c, e)) < 0 || (rc = meet_query(m, M_LOCK, lp, 1, e)) < 0 ||
            (nr = read_rows(m, rows, m->n + 1, e)) < 0) {
            struct err ig;
            rc = rc < 0 ? rc : nr;
            db_rollback(m->c, &ig);
            goto out;
        }
        if (nr < 1 || rows[0].part != 0 || strcmp(rows[0].state, "merged") == 0) {
            rc = db_commit(m->c, e); /* another part merges */
            goto out;
        }
        for (int k = 1; k <= m->n; k++) {
            const struct meet_row *r = part_row(rows, nr, k);
            all &= r && (ended(r) || gone(r));
        }
        if (all || timed_out || sig_stop_requested()) {
            struct db_param sp[4] = { DBP_TEXT(m->run_id), DBP_INT(m->gen), DBP_INT(0),
                                      DBP_TEXT("merged") };
            json_t *arr = json_array();
            if ((rc = meet_query(m, M_STATE, sp, 4, e)) < 0) {
                struct err ig;
                db_rollback(m->c, &ig);
                json_decref(arr);
                goto out;
            }
            *count_open = rows[0].count_open;
            *count_close = rows[0].count_close;
            for (int k = 1; k <= m->n; k++) {
                const struct meet_row *r = part_row(rows, nr, k);
                json_array_append_new(
                    arr, r ? json_pack("{s:i, s:s, s:s, s:i, s:i, s:b, s:n}", "part", k, "state",
                                       r->state, "host", r->host, "first_w", r->first_w, "last_w",
                                       r->last_w, "gone", gone(r) || !ended(r), "summary")
                           : json_pack("{s:i, s:s, s:b, s:n}", "part", k, "state",
                                       "never registered", "gone", 1, "summary"));
            }
            /* The summaries, decoded. */
            {
                struct db_param p[2] = { DBP_TEXT(m->run_id), DBP_INT(m->gen) };
                if ((rc = meet_query(m, M_SUMMARIES, p, 2, e)) < 0) {
                    struct err ig;
                    db_rollback(m->c, &ig);
                    json_decref(arr);
                    goto out;
                }
                while (db_next(m->c) == 1) {
                    int k = (int)db_col_int(m->c, 0), len;
                    const char *s = db_col_text(m->c, 1, &len);
                    json_t *j = s ? json_loadb(s, (size_t)len, 0, NULL) : NULL;
                    if (k >= 1 && k <= m->n && j)
                        json_object_set_new(json_array_get(arr, (size_t)k - 1), "summary", j);
                    else
                        json_decref(j);
                }
            }
            if ((rc = db_commit(m->c, e)) < 0) {
                json_decref(arr);
                goto out;
            }
            *merger = 1;
            *rows_out = arr;
            goto out;
        }
        if ((rc = db_commit(m->c, e)) < 0)
            goto out;
        clock_sleep_us(200000);
    }
out:
    free(rows);
    return rc;
}

json_t *meet_json(const struct meet *m)
{
    return json_pack("{s:s, s:i, s:s, s:f, s:f}", "run_id", m->run_id, "gen", m->gen, "host",
                     m->host, "clock_offset_ms", m->offset_ms, "clock_offset_rtt_ms",
                     m->offset_rtt_ms);
}

void meet_close(struct meet *m)
{
    if (!m)
        return;
    db_close(m->c);
    m->c = NULL;
    dialect_release(&m->d);
}
