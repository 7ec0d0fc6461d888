/*
 * durab.c - TPC-C's durability test (clause 3.5) on the real transactions
 * of txn.c: the mix, a ledger of what the database acknowledged, the
 * caller's crash and restart, the look-ups.
 *
 * Each terminal is a thread with its own connection, random stream and
 * deck, running the mix without think time, and its own ledger: every
 * New-Order, Payment and Delivery the database acknowledged as committed,
 * with what it wrote (New-Order: w, d, o_id, customer, line count and the
 * sums of the lines' items and quantities; Payment: the home and the
 * customer's warehouse and district and the amount, the key of its
 * history row; Delivery: the carrier and the order delivered in each
 * district), and the one in flight when its connection died.  The main
 * thread crashes the server at the planned instant (the caller's crash),
 * joins the terminals, restarts it (the caller's restart) and times the
 * recovery (a connection, then a New-Order committed), then reads in bulk
 * what each district holds from the run's first order on, and the history
 * rows since the run's start (schema/<dialect>/durability.sql), and looks
 * every acknowledged transaction up: present or LOST.  An in-flight one
 * is looked up the same way where it can be (its o_id is unknown: a
 * New-Order is found by its customer and lines among the orders no
 * acknowledged one claims).  Then the consistency conditions (check.c).
 * Nothing here prints.
 */
#include "tpcc/durab.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/rng.h"
#include "core/signals.h"
#include "db/db.h"
#include "db/dialect.h"
#include "tpcc/admin.h"
#include "tpcc/deck.h"
#include "tpcc/txn.h"

enum dur_stmt { DS_DISTRICT = 0, DS_NOW, DS_ORDERS, DS_HISTORY, DS_SETTINGS, DS_NSTMTS };

static const char *const dur_names[DS_NSTMTS] = { "dur_district", "dur_now", "dur_orders",
                                                  "dur_history", "?dur_settings" };

/* How long the restarted server (pg_ctl start -w returned) gets to take a
 * connection, and then to commit a New-Order, unless the setup says
 * (acid.restart_timeout): a minute is a server that is not coming back. */
#define DUR_BACK_BOUND_US 60000000u
#define DUR_RETRY_US 50000u

/* One acknowledged (or in-flight) transaction and what it wrote. */
struct dur_rec {
    int type;          /* enum acid_dur_type */
    int w, d;          /* home warehouse; district (New-Order, Payment) */
    int o_id;          /* New-Order (0 in flight: unknown) */
    int c_id, ol_cnt;  /* New-Order */
    int64_t sum_i, sum_q; /* New-Order: sums of its lines' i_id and quantity */
    int c_w, c_d;      /* Payment: the customer's warehouse and district */
    int64_t amount;    /* Payment, cents */
    int carrier;       /* Delivery */
    int delivered[10]; /* Delivery: o_id per district, 0 none (unknown in flight) */
    uint64_t acked_us; /* from the mix's start */
};

struct dur;

struct dur_term {
    struct dur *x;
    struct db_conn *c;
    struct rng r;
    struct deck deck;
    int w, d;                /* home warehouse, Stock-Level district */
    struct dur_rec *recs;    /* the ledger: acknowledged writes */
    size_t n, cap;
    struct dur_rec flight;   /* the one in flight at the crash */
    int has_flight;
    int64_t n_ro, n_rb, n_failed;
    int oom;                 /* 1: the ledger could not grow (the thread stopped) */
    pthread_t th;
    int started;
};

struct dur {
    const struct acid_setup *s;
    struct dialect td, dd;
    struct txn_ctx ctx;
    struct dur_term *t;
    int nt;
    uint64_t t0;           /* the mix's start */
    int stop;              /* atomic: the crash is done, start nothing more */
    char since[64];        /* dur_now at the start */
    int (*base)[11][2];    /* per warehouse and district: d_next_o_id, first undelivered */
    uint64_t crash_us;     /* when the crash was called */
};

const char *acid_crash_name(int kind)
{
    return kind == ACID_CRASH_POWER     ? "power"
           : kind == ACID_CRASH_KILL    ? "kill"
           : kind == ACID_CRASH_COMMAND ? "command"
                                        : "?";
}

const char *acid_dur_type_key(int t)
{
    static const char *const k[ACID_DUR_NTYPES] = { "new_order", "payment", "delivery" };
    return t >= 0 && t < ACID_DUR_NTYPES ? k[t] : "?";
}

/* ---- the mix ---- */

/* The record of in as it ran (out: what the database answered). */
static void rec_of(const struct txn_input *in, const struct txn_output *out, struct dur_rec *d)
{
    memset(d, 0, sizeof(*d));
    switch (in->type) {
    case TX_NEW_ORDER:
        d->type = ACID_DUR_NEW_ORDER;
        d->w = in->u.no.w_id;
        d->d = in->u.no.d_id;
        d->c_id = in->u.no.c_id;
        d->ol_cnt = in->u.no.ol_cnt;
        d->o_id = out->no_o_id;
        for (int i = 0; i < in->u.no.ol_cnt; i++) {
            d->sum_i += in->u.no.items[i].i_id;
            d->sum_q += in->u.no.items[i].quantity;
        }
        break;
    case TX_PAYMENT:
        d->type = ACID_DUR_PAYMENT;
        d->w = in->u.pay.w_id;
        d->d = in->u.pay.d_id;
        d->c_w = in->u.pay.c_w_id;
        d->c_d = in->u.pay.c_d_id;
        d->amount = in->u.pay.amount_cents;
        break;
    default:
        d->type = ACID_DUR_DELIVERY;
        d->w = in->u.dl.w_id;
        d->carrier = in->u.dl.carrier_id;
        memcpy(d->delivered, out->delivered, sizeof(d->delivered));
        break;
    }
}

static int term_append(struct dur_term *t, const struct dur_rec *d)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        struct dur_rec *p = realloc(t->recs, cap * sizeof(*p));
        if (!p)
            return -1;
        t->recs = p;
        t->cap = cap;
    }
    t->recs[t->n++] = *d;
    return 0;
}

static void *term_main(void *p)
{
    struct dur_term *t = p;
    struct dur *x = t->x;
    struct txn_input in;
    struct txn_output out;
    struct err e;

    while (!__atomic_load_n(&x->stop, __ATOMIC_ACQUIRE)) {
        int type = deck_draw(&t->deck, &t->r), rc;
        txn_gen(&t->r, &x->ctx, type, t->w, t->d, &in);
        memset(&out, 0, sizeof(out));
        err_clear(&e);
        rc = txn_exec(t->c, x->s->mode, &in, &out, &e);
        if (rc == 0 && (type == TX_ORDER_STATUS || type == TX_STOCK_LEVEL)) {
            t->n_ro++;
        } else if (rc == 0 && out.rolled_back) {
            t->n_rb++;
        } else if (rc == 0) {
            struct dur_rec d;
            rec_of(&in, &out, &d);
            d.acked_us = clock_us() - x->t0;
            if (term_append(t, &d) < 0) {
                t->oom = 1;
                break;
            }
        } else if (rc == E_CONN || __atomic_load_n(&x->stop, __ATOMIC_ACQUIRE)) {
            /* No answer: it may or may not have committed. */
            if (type != TX_ORDER_STATUS && type != TX_STOCK_LEVEL) {
                rec_of(&in, &out, &t->flight);
                t->flight.o_id = 0;
                memset(t->flight.delivered, 0, sizeof(t->flight.delivered));
                t->has_flight = 1;
            }
            break;
        } else {
            t->n_failed++;
        }
    }
    return NULL;
}

/* Connect and prepare each terminal; its home warehouse and district. */
static int terms_open(struct dur *x, struct err *e)
{
    const struct acid_setup *s = x->s;
    struct db_connect_args args = *s->args;
    int rc;

    x->nt = s->terminals > 0 ? s->terminals : 1;
    x->t = calloc((size_t)x->nt, sizeof(*x->t));
    if (!x->t)
        return err_set(e, E_FAIL, "out of memory");
    args.app_name = "tpccbench acid (durability)";
    for (int i = 0; i < x->nt; i++) {
        struct dur_term *t = &x->t[i];
        t->x = x;
        t->w = 1 + i % s->warehouses;
        t->d = 1 + (i / s->warehouses) % 10;
        rng_init_stream(&t->r, s->seed, 40, (uint64_t)i, 0);
        deck_init(&t->deck, deck_spec_weights);
        if ((rc = db_connect(s->ops, &x->td, &args, &t->c, e)) < 0 ||
            (rc = db_set_isolation(t->c, s->level, txn_isolation_stmt(s->level), e)) < 0 ||
            (rc = txn_prepare(t->c, s->mode, e)) < 0 || (rc = db_end_reads(t->c, e)) < 0)
            return rc;
    }
    return 0;
}

/* ---- reads on the verifying connection ---- */

static int q_exec(struct db_conn *c, int id, const struct db_param *p, int np, struct err *e)
{
    return db_exec(c, id, p, np, e);
}

/* Each district's d_next_o_id and first undelivered order; the clock. */
static int read_start(struct dur *x, struct db_conn *c, struct err *e)
{
    int rc, len;
    const char *t;

    x->base = calloc((size_t)x->s->warehouses + 1, sizeof(*x->base));
    if (!x->base)
        return err_set(e, E_FAIL, "out of memory");
    for (int w = 1; w <= x->s->warehouses; w++)
        for (int d = 1; d <= 10; d++) {
            const struct db_param p[2] = { DBP_INT(w), DBP_INT(d) };
            if ((rc = q_exec(c, DS_DISTRICT, p, 2, e)) < 0)
                return rc;
            if (db_next(c) != 1)
                return err_set(e, E_FAIL, "district %d of warehouse %d not found", d, w);
            x->base[w][d][0] = (int)db_col_int(c, 0);
            x->base[w][d][1] = db_col_isnull(c, 1) ? x->base[w][d][0] : (int)db_col_int(c, 1);
            while (db_next(c) == 1)
                ;
        }
    if ((rc = q_exec(c, DS_NOW, NULL, 0, e)) < 0)
        return rc;
    if (db_next(c) != 1)
        return err_set(e, E_FAIL, "dur_now returned no row");
    t = db_col_text(c, 0, &len);
    snprintf(x->since, sizeof(x->since), "%.*s", len < 63 ? len : 63, t);
    while (db_next(c) == 1)
        ;
    return db_end_reads(c, e);
}

static void read_settings(struct dur *x, struct db_conn *c, struct acid_dur *r)
{
    struct err e;
    int len;

    r->settings[0] = '\0';
    if (!x->dd.sql[DS_SETTINGS] || q_exec(c, DS_SETTINGS, NULL, 0, &e) < 0)
        return;
    if (db_next(c) == 1 && !db_col_isnull(c, 0)) {
        const char *t = db_col_text(c, 0, &len);
        snprintf(r->settings, sizeof(r->settings), "%.*s", len < 255 ? len : 255, t);
    }
    while (db_next(c) == 1)
        ;
    db_end_reads(c, &e);
}

/* ---- the look-ups ---- */

/* An order of a district as the database holds it after the recovery. */
struct dur_order {
    int exists, c_id, carrier, ol_cnt, n_lines;
    int64_t sum_i, sum_q;
    int claimed_no, claimed_dl; /* taken by a New-Order, a Delivery of the ledger */
};

struct dur_district {
    int from;              /* o_id of orders[0] */
    int n;
    struct dur_order *orders;
};

/* The orders of (w, d) from o_id `from` on, indexed by o_id - from. */
static int read_district(struct db_conn *c, int w, int d, int from, struct dur_district *dd,
                         struct err *e)
{
    const struct db_param p[3] = { DBP_INT(w), DBP_INT(d), DBP_INT(from) };
    int rc;

    dd->from = from;
    if ((rc = q_exec(c, DS_ORDERS, p, 3, e)) < 0)
        return rc;
    while (db_next(c) == 1) {
        int o = (int)db_col_int(c, 0), i = o - from;
        if (i < 0)
            continue;
        if (i >= dd->n) {
            int n = i + 1 > 2 * dd->n ? i + 1 : 2 * dd->n;
            struct dur_order *q = realloc(dd->orders, (size_t)n * sizeof(*q));
            if (!q)
                return err_set(e, E_FAIL, "out of memory");
            memset(q + dd->n, 0, (size_t)(n - dd->n) * sizeof(*q));
            dd->orders = q;
            dd->n = n;
        }
        dd->orders[i].exists = 1;
        dd->orders[i].c_id = (int)db_col_int(c, 1);
        dd->orders[i].carrier = db_col_isnull(c, 2) ? 0 : (int)db_col_int(c, 2);
        dd->orders[i].ol_cnt = (int)db_col_int(c, 3);
        dd->orders[i].n_lines = (int)db_col_int(c, 4);
        dd->orders[i].sum_i = db_col_int(c, 5);
        dd->orders[i].sum_q = db_col_int(c, 6);
    }
    return db_end_reads(c, e);
}

static struct dur_order *order_at(struct dur_district *dd, int o_id)
{
    int i = o_id - dd->from;
    return i >= 0 && i < dd->n && dd->orders[i].exists ? &dd->orders[i] : NULL;
}

/* 1 when o is the order New-Order d wrote: its customer and lines. */
static int order_matches(const struct dur_order *o, const struct dur_rec *d)
{
    return o && o->c_id == d->c_id && o->ol_cnt == d->ol_cnt && o->n_lines == d->ol_cnt &&
           o->sum_i == d->sum_i && o->sum_q == d->sum_q;
}

/* A history row's key (or a Payment's), for sorting and matching. */
struct dur_pay {
    int w, d, c_w, c_d;
    int64_t amount;
    int used;
};

static int pay_cmp(const void *a, const void *b)
{
    const struct dur_pay *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? -1 : 1;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    if (x->c_w != y->c_w)
        return x->c_w < y->c_w ? -1 : 1;
    if (x->c_d != y->c_d)
        return x->c_d < y->c_d ? -1 : 1;
    return x->amount < y->amount ? -1 : x->amount > y->amount;
}

struct dur_verify {
    struct dur_district *dist; /* [w * 11 + d] */
    struct dur_pay *hist;      /* history rows since the start, sorted */
    size_t n_hist;
};

static int read_history(struct dur *x, struct db_conn *c, struct dur_verify *v, struct err *e)
{
    const struct db_param p[1] = { DBP_TEXT(x->since) };
    size_t cap = 0;
    int rc;

    if ((rc = q_exec(c, DS_HISTORY, p, 1, e)) < 0)
        return rc;
    while (db_next(c) == 1) {
        if (v->n_hist == cap) {
            size_t n = cap ? cap * 2 : 4096;
            struct dur_pay *q = realloc(v->hist, n * sizeof(*q));
            if (!q)
                return err_set(e, E_FAIL, "out of memory");
            v->hist = q;
            cap = n;
        }
        struct dur_pay *h = &v->hist[v->n_hist++];
        h->w = (int)db_col_int(c, 0);
        h->d = (int)db_col_int(c, 1);
        h->c_w = (int)db_col_int(c, 2);
        h->c_d = (int)db_col_int(c, 3);
        h->amount = db_col_num(c, 4, 2);
        h->used = 0;
    }
    if (v->n_hist)
        qsort(v->hist, v->n_hist, sizeof(*v->hist), pay_cmp);
    return db_end_reads(c, e);
}

/* Claim an unused history row with d's key: 1 found, 0 none. */
static int pay_claim(struct dur_verify *v, const struct dur_rec *d)
{
    struct dur_pay k = { d->w, d->d, d->c_w, d->c_d, d->amount, 0 };
    size_t lo = 0, hi = v->n_hist;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pay_cmp(&v->hist[mid], &k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < v->n_hist && pay_cmp(&v->hist[lo], &k) == 0; lo++)
        if (!v->hist[lo].used) {
            v->hist[lo].used = 1;
            return 1;
        }
    return 0;
}

static int read_all(struct dur *x, struct db_conn *c, struct dur_verify *v, struct err *e)
{
    int rc;

    v->dist = calloc((size_t)(x->s->warehouses + 1) * 11, sizeof(*v->dist));
    if (!v->dist)
        return err_set(e, E_FAIL, "out of memory");
    for (int w = 1; w <= x->s->warehouses; w++)
        for (int d = 1; d <= 10; d++) {
            int from = x->base[w][d][1] < x->base[w][d][0] ? x->base[w][d][1] : x->base[w][d][0];
            if ((rc = read_district(c, w, d, from, &v->dist[w * 11 + d], e)) < 0)
                return rc;
        }
    return read_history(x, c, v, e);
}

static struct dur_district *dist_of(struct dur *x, struct dur_verify *v, int w, int d)
{
    return w >= 1 && w <= x->s->warehouses && d >= 1 && d <= 10 ? &v->dist[w * 11 + d] : NULL;
}

/* Whether acknowledged transaction d is in the database (and claim what it wrote). */
static int acked_present(struct dur *x, struct dur_verify *v, const struct dur_rec *d,
                         int *lost_d, int *lost_o)
{
    struct dur_district *dd;
    struct dur_order *o;

    *lost_d = d->d;
    *lost_o = d->o_id;
    switch (d->type) {
    case ACID_DUR_NEW_ORDER:
        dd = dist_of(x, v, d->w, d->d);
        o = dd ? order_at(dd, d->o_id) : NULL;
        if (!order_matches(o, d))
            return 0;
        o->claimed_no = 1;
        return 1;
    case ACID_DUR_PAYMENT:
        return pay_claim(v, d);
    default:
        for (int i = 0; i < 10; i++) {
            if (!d->delivered[i])
                continue;
            dd = dist_of(x, v, d->w, i + 1);
            o = dd ? order_at(dd, d->delivered[i]) : NULL;
            if (!o || o->carrier != d->carrier) {
                *lost_d = i + 1;
                *lost_o = d->delivered[i];
                return 0;
            }
            o->claimed_dl = 1;
        }
        return 1;
    }
}

/* Whether in-flight transaction d left its writes (unknown o_ids: found by
 * what they wrote, among what no acknowledged one claims). */
static int flight_present(struct dur *x, struct dur_verify *v, const struct dur_rec *d)
{
    struct dur_district *dd;

    switch (d->type) {
    case ACID_DUR_NEW_ORDER:
        if (!(dd = dist_of(x, v, d->w, d->d)))
            return 0;
        for (int i = 0; i < dd->n; i++)
            if (dd->orders[i].exists && !dd->orders[i].claimed_no &&
                dd->from + i >= x->base[d->w][d->d][0] && order_matches(&dd->orders[i], d)) {
                dd->orders[i].claimed_no = 1;
                return 1;
            }
        return 0;
    case ACID_DUR_PAYMENT:
        return pay_claim(v, d);
    default:
        for (int k = 1; k <= 10; k++) {
            if (!(dd = dist_of(x, v, d->w, k)))
                return 0;
            for (int i = 0; i < dd->n; i++)
                if (dd->orders[i].exists && !dd->orders[i].claimed_dl &&
                    dd->orders[i].carrier == d->carrier && dd->from + i >= x->base[d->w][k][1]) {
                    dd->orders[i].claimed_dl = 1;
                    return 1;
                }
        }
        return 0;
    }
}

static void note_lost(struct acid_dur *r, const struct dur_rec *d, int lost_d, int lost_o)
{
    struct acid_dur_lost *l = &r->first_lost;
    double at = (double)d->acked_us / 1e6;

    if (l->found && l->acked_s <= at)
        return;
    memset(l, 0, sizeof(*l));
    l->found = 1;
    l->type = d->type;
    l->w = d->w;
    l->d = lost_d;
    l->o_id = lost_o;
    l->c_w = d->c_w;
    l->c_d = d->c_d;
    l->amount_cents = d->amount;
    l->acked_s = at;
}

static void verify(struct dur *x, struct dur_verify *v, struct acid_dur *r)
{
    for (int i = 0; i < x->nt; i++) {
        struct dur_term *t = &x->t[i];
        for (size_t j = 0; j < t->n; j++) {
            const struct dur_rec *d = &t->recs[j];
            struct acid_dur_counts *c = &r->by_type[d->type];
            int ld, lo;
            if (acked_present(x, v, d, &ld, &lo)) {
                c->present++;
            } else {
                c->lost++;
                note_lost(r, d, ld, lo);
            }
        }
    }
    /* In flight last: what an acknowledged transaction wrote is not theirs. */
    for (int i = 0; i < x->nt; i++) {
        struct dur_term *t = &x->t[i];
        if (t->has_flight)
            r->by_type[t->flight.type].in_flight_present += flight_present(x, v, &t->flight);
    }
    for (int k = 0; k < ACID_DUR_NTYPES; k++) {
        r->total.present += r->by_type[k].present;
        r->total.lost += r->by_type[k].lost;
        r->total.in_flight_present += r->by_type[k].in_flight_present;
    }
}

static void verify_release(struct dur *x, struct dur_verify *v)
{
    if (v->dist)
        for (int i = 0; i < (x->s->warehouses + 1) * 11; i++)
            free(v->dist[i].orders);
    free(v->dist);
    free(v->hist);
}

/* ---- the crash and the recovery ---- */

/* Run the mix until the crash, crash, and join the terminals. */
static int mix_and_crash(struct dur *x, const struct acid_crash *k, struct acid_dur *r,
                         struct err *e)
{
    uint64_t at_us;
    int rc;

    x->t0 = clock_us();
    for (int i = 0; i < x->nt; i++) {
        if (pthread_create(&x->t[i].th, NULL, term_main, &x->t[i]) != 0) {
            __atomic_store_n(&x->stop, 1, __ATOMIC_RELEASE);
            rc = err_set(e, E_FAIL, "cannot start a terminal's thread");
            goto join;
        }
        x->t[i].started = 1;
    }
    at_us = (uint64_t)(r->crash_at_s * 1e6);
    while (clock_us() - x->t0 < at_us && !sig_stop_requested())
        clock_sleep_us(at_us - (clock_us() - x->t0) > 100000 ? 100000
                                                             : at_us - (clock_us() - x->t0));
    if (sig_stop_requested()) {
        /* Interrupted before the crash: the server is left as it runs. */
        __atomic_store_n(&x->stop, 1, __ATOMIC_RELEASE);
        rc = err_set(e, E_INTR, "interrupted before the crash");
        goto join;
    }
    x->crash_us = clock_us();
    rc = k->crash(k->ctx, e);
    __atomic_store_n(&x->stop, 1, __ATOMIC_RELEASE);
join:
    for (int i = 0; i < x->nt; i++)
        if (x->t[i].started) {
            pthread_join(x->t[i].th, NULL);
            x->t[i].started = 0;
            db_close(x->t[i].c);
            x->t[i].c = NULL;
        }
    return rc;
}

/* After the restart: a connection (*c, on the durability statements),
 * then a New-Order committed, each timed from crash_us; each waited for
 * at most DUR_BACK_BOUND_US from the restart's return. */
static int recovery(struct dur *x, uint64_t crash_us, struct acid_dur *r, struct db_conn **c,
                    struct err *e)
{
    struct db_connect_args args = *x->s->args;
    struct db_conn *tc = NULL;
    struct txn_input in;
    struct txn_output out;
    struct rng rr;
    uint64_t back_us = clock_us();
    uint64_t bound_us = x->s->back_bound_us > 0 ? (uint64_t)x->s->back_bound_us
                                                : DUR_BACK_BOUND_US;
    int rc;

    args.app_name = "tpccbench acid (durability check)";
    while ((rc = db_connect(x->s->ops, &x->dd, &args, c, e)) < 0) {
        if (clock_us() - back_us > bound_us)
            return err_prefix(e, "no connection within %.0f s of the restart",
                              (double)bound_us / 1e6);
        clock_sleep_us(DUR_RETRY_US);
    }
    r->recovery_connect_s = (double)(clock_us() - crash_us) / 1e6;
    args.app_name = "tpccbench acid (durability)";
    if ((rc = db_connect(x->s->ops, &x->td, &args, &tc, e)) < 0 ||
        (rc = txn_prepare(tc, x->s->mode, e)) < 0 || (rc = db_end_reads(tc, e)) < 0) {
        db_close(tc);
        return rc;
    }
    rng_init_stream(&rr, x->s->seed, 41, 0, 0);
    do {
        txn_gen(&rr, &x->ctx, TX_NEW_ORDER, 1, 1, &in);
        memset(&out, 0, sizeof(out));
        rc = txn_exec(tc, x->s->mode, &in, &out, e);
    } while ((rc == E_RETRY || (rc == 0 && out.rolled_back)) &&
             clock_us() - back_us < bound_us);
    db_close(tc);
    if (rc < 0)
        return err_prefix(e, "a New-Order after the recovery");
    r->recovery_new_order_s = (double)(clock_us() - crash_us) / 1e6;
    return 0;
}

/* What the ledgers hold, known before the server comes back (or not). */
static void counts_merge(struct dur *x, struct acid_dur *r)
{
    for (int i = 0; i < x->nt; i++) {
        struct dur_term *t = &x->t[i];
        r->read_only += t->n_ro;
        r->rolled_back += t->n_rb;
        r->failed += t->n_failed;
        for (size_t j = 0; j < t->n; j++)
            r->by_type[t->recs[j].type].acknowledged++;
        if (t->has_flight)
            r->by_type[t->flight.type].in_flight++;
    }
    for (int k = 0; k < ACID_DUR_NTYPES; k++) {
        r->total.acknowledged += r->by_type[k].acknowledged;
        r->total.in_flight += r->by_type[k].in_flight;
    }
}

/* The verdict's why (not durable). */
static void dur_why(struct acid_dur *r)
{
    char conds[128] = "";

    if (!r->came_back)
        return;
    for (int k = 1; r->check_ran && k <= CHECK_NCOND; k++)
        if (r->check.cond[k - 1].ran && !r->check.cond[k - 1].ok)
            snprintf(conds + strlen(conds), sizeof(conds) - strlen(conds), "%s%d",
                     conds[0] ? ", " : "", k);
    if (r->total.lost)
        snprintf(r->why, sizeof(r->why), "%lld of %lld acknowledged transactions lost",
                 (long long)r->total.lost, (long long)r->total.acknowledged);
    if (conds[0])
        snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why),
                 "%sconsistency conditions %s do not hold", r->why[0] ? "; " : "", conds);
    r->durable = !r->why[0];
}

/* After the crash: restart, recovery, look-ups, conditions. */
static int after_crash(struct dur *x, const struct acid_crash *k, uint64_t crash_us,
                       struct acid_dur *r, struct err *e)
{
    struct db_conn *c = NULL;
    struct dur_verify v;
    struct dialect ad;
    struct err ke;
    int rc;

    memset(&v, 0, sizeof(v));
    err_clear(&ke);
    if (k->restart(k->ctx, &ke) < 0 || recovery(x, crash_us, r, &c, &ke) < 0) {
        snprintf(r->why, sizeof(r->why), "the server did not come back after the crash: %s",
                 ke.msg);
        db_close(c);
        return 0;
    }
    r->came_back = 1;
    if ((rc = read_all(x, c, &v, e)) == 0) {
        verify(x, &v, r);
        read_settings(x, c, r);
    }
    verify_release(x, &v);
    db_close(c);
    if (rc < 0)
        return rc;
    if ((rc = admin_dialect_load(&ad, x->s->dialect, e)) < 0)
        return rc;
    if ((rc = db_connect(x->s->ops, &ad, x->s->args, &c, e)) == 0) {
        rc = check_run(c, &ad, CHECK_ALL, &r->check, e);
        r->check_ran = rc == 0;
        db_close(c);
    }
    dialect_release(&ad);
    if (rc < 0)
        return rc;
    dur_why(r);
    return 0;
}

static void dur_release(struct dur *x)
{
    for (int i = 0; x->t && i < x->nt; i++) {
        db_close(x->t[i].c);
        free(x->t[i].recs);
    }
    free(x->t);
    free(x->base);
    if (x->td.text)
        dialect_release(&x->td);
    if (x->dd.text)
        dialect_release(&x->dd);
}

/* Before the mix: statements, the start's reads, the terminals. */
static int dur_open(struct dur *x, struct acid_dur *r, struct err *e)
{
    struct db_connect_args args = *x->s->args;
    struct db_conn *c = NULL;
    struct nurand_c load;
    struct rng cr;
    int rc;

    if ((rc = txn_dialect_load(&x->td, x->s->dialect, e)) < 0 ||
        (rc = dialect_load(&x->dd, x->s->dialect, "durability", dur_names, DS_NSTMTS, e)) < 0)
        return rc;
    rng_init_stream(&cr, x->s->seed, 42, 0, 0);
    nurand_c_load(&cr, &load);
    nurand_c_run(&cr, &load, &x->ctx.c_run);
    x->ctx.warehouses = x->s->warehouses;
    args.app_name = "tpccbench acid (durability check)";
    if ((rc = db_connect(x->s->ops, &x->dd, &args, &c, e)) == 0 && !x->s->level[0]) {
        /* The level as the other tests and a run pick it, when they did not. */
        const char *name = x->s->isolation;
        x->s->level_why[0] = '\0';
        if (!x->s->isolation_set)
            rc = db_isolation_default(&c->caps, c->server_name, &name, x->s->level_why,
                                      ACID_LEVEL_LEN, e);
        snprintf(x->s->level, ACID_LEVEL_LEN, "%s", name);
    }
    if (rc == 0)
        rc = read_start(x, c, e);
    db_close(c);
    if (rc < 0)
        return rc;
    r->window_s = (double)x->s->window_us / 1e6;
    r->crash_at_s = (double)x->s->crash_at_us / 1e6;
    if (x->s->crash_at_us <= 0) {
        /* A random instant in the middle half of the window, to 0.1 s. */
        int64_t tenths = x->s->window_us / 100000;
        r->crash_at_s = (double)rng_range(&cr, tenths / 4, tenths * 3 / 4) / 10.0;
        if (r->crash_at_s <= 0)
            r->crash_at_s = 0.1;
    }
    return terms_open(x, e);
}

int acid_durability(const struct acid_setup *s, const struct acid_crash *k, struct acid_dur *r,
                    struct err *e)
{
    struct dur x;
    uint64_t crash_us;
    int rc;

    memset(&x, 0, sizeof(x));
    memset(r, 0, sizeof(*r));
    x.s = s;
    r->recovery_connect_s = r->recovery_new_order_s = -1;
    if ((rc = dur_open(&x, r, e)) < 0) {
        dur_release(&x);
        return rc;
    }
    r->terminals = x.nt;
    rc = mix_and_crash(&x, k, r, e);
    crash_us = x.crash_us;
    counts_merge(&x, r);
    for (int i = 0; i < x.nt; i++)
        if (x.t[i].oom && rc == 0)
            rc = err_set(e, E_FAIL, "out of memory for the ledger of acknowledged transactions");
    if (rc == 0)
        rc = after_crash(&x, k, crash_us, r, e);
    dur_release(&x);
    return rc;
}
