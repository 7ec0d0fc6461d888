/*
 * events.c - the run's checkpoints and autovacuums from the wait sampler's
 * samples and once-a-second counters (see events.h): the tracking of each
 * kind, and the JSON on series.csv's seconds.  No server, no locks,
 * nothing printed.
 */
#include "run/events.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A checkpointer seen busy again after this long starts a new busy run. */
#define CK_GAP_US 1500000
/* A busy run this long at the end is a checkpoint still under way. */
#define CK_OPEN_US 1000000

int events_our_table(const char *name)
{
    static const char *const tables[] = { "warehouse", "district", "customer",
                                          "history",   "new_order", "orders",
                                          "order_line", "item",     "stock" };

    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        if (strcmp(name, tables[i]) == 0)
            return 1;
    return 0;
}

int events_autovacuum_query(const char *query, char *table, size_t tcap, char *what, size_t wcap)
{
    static const char prefix[] = "autovacuum: ";
    const char *p, *rel = NULL, *end;
    size_t wl;

    if (strncmp(query, prefix, sizeof(prefix) - 1) != 0)
        return -1;
    p = query + sizeof(prefix) - 1;
    /* The relation is the first word with a dot (schema.table), after the verbs. */
    for (const char *w = p; *w;) {
        size_t n = strcspn(w, " ");
        if (memchr(w, '.', n)) {
            rel = w;
            break;
        }
        w += n;
        w += strspn(w, " ");
    }
    if (!rel)
        return -1;
    end = rel + strcspn(rel, " ");
    wl = (size_t)(rel - p);
    while (wl > 0 && p[wl - 1] == ' ')
        wl--;
    snprintf(what, wcap, "%.*s", (int)wl, p);
    for (const char *d = rel; d < end; d++)
        if (*d == '.')
            rel = d + 1;
    snprintf(table, tcap, "%.*s", (int)(end - rel), rel);
    /* A quoted name is not one of ours (they are lower case, unquoted). */
    return events_our_table(table) ? 0 : -1;
}

static struct run_event *ev_add(struct run_events *e, const char *kind)
{
    struct run_event *v;

    if (e->n == RUN_EVENTS_MAX) {
        e->dropped++;
        return NULL;
    }
    v = &e->ev[e->n++];
    memset(v, 0, sizeof(*v));
    snprintf(v->kind, sizeof(v->kind), "%s", kind);
    return v;
}

void events_seen_checkpointer(struct run_events *e, uint64_t t_us)
{
    if (!e->ck_first_us || t_us > e->ck_last_us + CK_GAP_US)
        e->ck_first_us = t_us;
    e->ck_last_us = t_us;
}

void events_seen_autovacuum(struct run_events *e, int pid, const char *table, const char *what,
                            uint64_t t_us)
{
    struct run_event *v;

    for (int i = e->n - 1; i >= 0; i--) {
        v = &e->ev[i];
        if (v->open && v->pid == pid && strcmp(v->kind, "autovacuum") == 0 &&
            strcmp(v->table, table) == 0 && strcmp(v->what, what) == 0) {
            v->end_us = t_us;
            v->seen = 1;
            return;
        }
    }
    if (!(v = ev_add(e, "autovacuum")))
        return;
    snprintf(v->table, sizeof(v->table), "%s", table);
    snprintf(v->what, sizeof(v->what), "%s", what);
    v->pid = pid;
    v->open = v->seen = 1;
    v->start_us = v->end_us = t_us;
    v->start_from = v->end_from = "pg_stat_activity";
}

void events_sample_end(struct run_events *e)
{
    for (int i = 0; i < e->n; i++) {
        if (e->ev[i].open && !e->ev[i].seen && strcmp(e->ev[i].kind, "autovacuum") == 0)
            e->ev[i].open = 0; /* it ended after its last sample (end_us) */
        e->ev[i].seen = 0;
    }
}

/* The driver's clock of a server time x (seconds), read at t_us when the server's was now. */
static uint64_t server_us(double x, double now, uint64_t t_us)
{
    double d = (x - now) * 1e6;

    if (!isfinite(d))
        return t_us;
    if (d < 0 && -d >= (double)t_us)
        return 1;
    return (uint64_t)((double)t_us + d);
}

void events_poll_checkpoint(struct run_events *e, double ck_time, double server_now, uint64_t t_us)
{
    struct run_event *v;
    uint64_t ct_us;

    if (!e->ck_known || !isfinite(e->ck_time)) {
        e->ck_time = ck_time;
        e->ck_known = 1;
        return;
    }
    if (ck_time == e->ck_time || !isfinite(ck_time))
        return;
    e->ck_time = ck_time;
    if (!(v = ev_add(e, "checkpoint")))
        return;
    /* The control file keeps the start to the second (truncated): a
     * sighting of the checkpointer busy within that second is closer. */
    ct_us = server_us(ck_time, server_now, t_us);
    if (e->ck_first_us && e->ck_first_us + 200000 >= ct_us && e->ck_first_us <= t_us) {
        v->start_us = e->ck_first_us;
        v->start_from = "pg_stat_activity";
    } else {
        v->start_us = ct_us;
        v->start_from = "pg_control_checkpoint";
    }
    if (e->ck_last_us && e->ck_last_us >= v->start_us && e->ck_last_us <= t_us) {
        v->end_us = e->ck_last_us;
        v->end_from = "pg_stat_activity";
    } else {
        /* Not seen busy: it ended before this poll, after the previous one. */
        v->end_us = t_us;
        v->end_from = "pg_control_checkpoint";
    }
    if (v->end_us < v->start_us)
        v->start_us = v->end_us;
    e->ck_first_us = e->ck_last_us = 0;
}

void events_poll_autovacuum(struct run_events *e, const char *table, long long n, double last,
                            double server_now, uint64_t t_us)
{
    struct run_event *v;
    int i = 0;

    while (i < e->nav && strcmp(e->av[i].table, table) != 0)
        i++;
    if (i == e->nav) {
        if (e->nav == RUN_EVENTS_TABLES)
            return;
        snprintf(e->av[e->nav].table, sizeof(e->av[0].table), "%s", table);
        e->av[e->nav++].n = n;
        return; /* the baseline */
    }
    if (n <= e->av[i].n) {
        e->av[i].n = n;
        return;
    }
    e->av[i].n = n;
    /* Seen by the samples already (under way, or ended since the last poll)? */
    for (int k = 0; k < e->n; k++) {
        const struct run_event *s = &e->ev[k];
        if (strcmp(s->kind, "autovacuum") == 0 && strcmp(s->table, table) == 0 &&
            (s->open || s->end_us + CK_GAP_US >= e->poll_prev_us))
            return;
    }
    /* Shorter than a sample's period: its end only, from the table's counters. */
    if (!(v = ev_add(e, "autovacuum")))
        return;
    snprintf(v->table, sizeof(v->table), "%s", table);
    snprintf(v->what, sizeof(v->what), "%s", "VACUUM or ANALYZE");
    v->start_us = v->end_us = isfinite(last) ? server_us(last, server_now, t_us) : t_us;
    v->start_from = v->end_from = "pg_stat_user_tables";
}

void events_poll_end(struct run_events *e, uint64_t t_us)
{
    e->poll_prev_us = t_us;
}

double events_second(uint64_t t_us, const uint64_t *tick_us, const int *tick_sec, int n)
{
    int i = 0;

    if (n <= 0)
        return NAN;
    while (i < n && tick_us[i] < t_us)
        i++;
    if (i == 0) {
        double s = tick_sec[0] - (double)(tick_us[0] - t_us) / 1e6;
        return s > 0 ? s : 0;
    }
    if (i == n)
        return tick_sec[n - 1] + (double)(t_us - tick_us[n - 1]) / 1e6;
    return tick_sec[i - 1] + (double)(tick_sec[i] - tick_sec[i - 1]) *
                                 (double)(t_us - tick_us[i - 1]) /
                                 (double)(tick_us[i] - tick_us[i - 1]);
}

static json_t *sec_json(double s)
{
    return isfinite(s) ? json_real(round(s * 100) / 100) : json_null();
}

json_t *events_json(const struct run_events *e, const uint64_t *tick_us, const int *tick_sec,
                    int n, uint64_t end_us)
{
    json_t *a = json_array();

    for (int i = 0; i < e->n; i++) {
        const struct run_event *v = &e->ev[i];
        json_t *o = json_pack("{s:s, s:o, s:o, s:s, s:s}", "kind", v->kind, "start_s",
                              sec_json(events_second(v->start_us, tick_us, tick_sec, n)), "end_s",
                              v->open ? json_null()
                                      : sec_json(events_second(v->end_us, tick_us, tick_sec, n)),
                              "start_from", v->start_from, "end_from",
                              v->open ? "still under way at the run's end" : v->end_from);
        if (strcmp(v->kind, "autovacuum") == 0) {
            json_object_set_new(o, "table", json_string(v->table));
            json_object_set_new(o, "what", json_string(v->what));
            if (v->pid)
                json_object_set_new(o, "pid", json_integer(v->pid));
        }
        json_array_append_new(a, o);
    }
    if (e->ck_first_us && e->ck_last_us >= e->ck_first_us + CK_OPEN_US &&
        e->ck_last_us + CK_GAP_US >= end_us)
        json_array_append_new(
            a, json_pack("{s:s, s:o, s:n, s:s, s:s}", "kind", "checkpoint", "start_s",
                         sec_json(events_second(e->ck_first_us, tick_us, tick_sec, n)), "end_s",
                         "start_from", "pg_stat_activity", "end_from",
                         "still under way at the run's end"));
    return a;
}
