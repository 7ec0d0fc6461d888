/*
 * stats.c - merge and subtract per-thread counts.  Pure; no I/O.
 */
#include "run/stats.h"

#include <string.h>

void stats_init(struct vu_stats *s)
{
    /* One memset for all (hist_init would clear each histogram again). */
    memset(s, 0, sizeof(*s));
    for (int t = 0; t < TX_NTYPES; t++) {
        s->tx[t].lat.min_us = UINT64_MAX;
        s->tx[t].svc.min_us = UINT64_MAX;
    }
    s->lag.min_us = UINT64_MAX;
}

void stats_clear(struct vu_stats *s)
{
#define ZERO(f)  s->f = 0;
#define TZERO(f) s->tx[t].f = 0;
    STATS_FIELDS(ZERO)
    for (int t = 0; t < TX_NTYPES; t++) {
        STATS_TX_FIELDS(TZERO)
        hist_clear(&s->tx[t].lat);
        hist_clear(&s->tx[t].svc);
    }
    hist_clear(&s->lag);
    memset(s->sqlstates, 0, sizeof(s->sqlstates));
#undef ZERO
#undef TZERO
}

static void add_state(struct vu_stats *s, const char *state, uint64_t n)
{
    for (int i = 0; i < STATS_NSTATES; i++) {
        if (s->sqlstates[i].state[0] == '\0') {
            memcpy(s->sqlstates[i].state, state, 6);
            s->sqlstates[i].n = n;
            return;
        }
        if (strcmp(s->sqlstates[i].state, state) == 0) {
            s->sqlstates[i].n += n;
            return;
        }
    }
    /* Table full: count under the last slot's neighbours as "other". */
    s->sqlstates[STATS_NSTATES - 1].n += n;
}

void stats_sqlstate(struct vu_stats *s, const char *state)
{
    add_state(s, state && state[0] ? state : "-----", 1);
}

void stats_merge(struct vu_stats *dst, const struct vu_stats *src)
{
#define ADD(f)  dst->f += src->f;
#define TADD(f) dst->tx[t].f += src->tx[t].f;
    STATS_FIELDS(ADD)
    for (int t = 0; t < TX_NTYPES; t++) {
        STATS_TX_FIELDS(TADD)
        hist_merge(&dst->tx[t].lat, &src->tx[t].lat);
        hist_merge(&dst->tx[t].svc, &src->tx[t].svc);
    }
    hist_merge(&dst->lag, &src->lag);
    for (int i = 0; i < STATS_NSTATES && src->sqlstates[i].state[0]; i++)
        add_state(dst, src->sqlstates[i].state, src->sqlstates[i].n);
#undef ADD
#undef TADD
}

void stats_copy_grown(struct vu_stats *dst, const struct vu_stats *src)
{
#define CPY(f)  dst->f = src->f;
#define TCPY(f) dst->tx[t].f = src->tx[t].f;
    STATS_FIELDS(CPY)
    for (int t = 0; t < TX_NTYPES; t++) {
        STATS_TX_FIELDS(TCPY)
        hist_copy_grown(&dst->tx[t].lat, &src->tx[t].lat);
        hist_copy_grown(&dst->tx[t].svc, &src->tx[t].svc);
    }
    hist_copy_grown(&dst->lag, &src->lag);
    memcpy(dst->sqlstates, src->sqlstates, sizeof(dst->sqlstates));
#undef CPY
#undef TCPY
}

void stats_sub(struct vu_stats *dst, const struct vu_stats *a, const struct vu_stats *b)
{
    /* Static: the struct is large (a dozen histograms) and only the monitor
     * subtracts; used only where dst is a or b (the SQLSTATE tables are
     * read while the result's is written). */
    static _Thread_local struct vu_stats tmp;
    struct vu_stats *r = dst == a || dst == b ? &tmp : dst;

#define SUB(f)  r->f = a->f - b->f;
#define TSUB(f) r->tx[t].f = a->tx[t].f - b->tx[t].f;
    /* Every field is written below (hist_sub writes all of a histogram). */
    STATS_FIELDS(SUB)
    for (int t = 0; t < TX_NTYPES; t++) {
        STATS_TX_FIELDS(TSUB)
        hist_sub(&r->tx[t].lat, &a->tx[t].lat, &b->tx[t].lat);
        hist_sub(&r->tx[t].svc, &a->tx[t].svc, &b->tx[t].svc);
    }
    hist_sub(&r->lag, &a->lag, &b->lag);
    /* SQLSTATE counts: a's minus b's for the same state. */
    memset(r->sqlstates, 0, sizeof(r->sqlstates));
    for (int i = 0; i < STATS_NSTATES && a->sqlstates[i].state[0]; i++) {
        uint64_t n = a->sqlstates[i].n;
        for (int j = 0; j < STATS_NSTATES; j++)
            if (strcmp(b->sqlstates[j].state, a->sqlstates[i].state) == 0)
                n -= b->sqlstates[j].n;
        if (n)
            add_state(r, a->sqlstates[i].state, n);
    }
    if (r != dst)
        *dst = *r;
#undef SUB
#undef TSUB
}

uint64_t stats_committed(const struct vu_stats *s)
{
    uint64_t n = 0;

    for (int t = 0; t < TX_NTYPES; t++)
        n += s->tx[t].committed;
    return n;
}

uint64_t stats_errors(const struct vu_stats *s)
{
    uint64_t n = 0;

    for (int t = 0; t < TX_NTYPES; t++)
        n += s->tx[t].err_retry + s->tx[t].err_conn + s->tx[t].err_other;
    return n;
}
