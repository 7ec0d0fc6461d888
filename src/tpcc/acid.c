/*
 * acid.c - TPC-C's atomicity tests (clause 3.2.2) and isolation tests
 * (3.4.2) on the real transactions of txn.c.
 *
 * Each isolation test runs one transaction (the stalled one, S) on a
 * connection whose test hook (db_hook) stops it between two of its own
 * statements (before its COMMIT or ROLLBACK, or before a given statement);
 * while it is stopped, the other transaction (O) runs on a second
 * connection in a thread of its own, and a third connection asks the
 * database whether O waits for a lock (schema/<dialect>/acid.sql
 * acid_waiting), or, where the dialect cannot ask or the database will
 * not answer, takes O as waiting once it has run ACID_WAIT_BOUND_US
 * without ending.  Then S goes on, O is joined, and the rows are read and
 * compared with what the spec says.
 * The transactions' SQL is never copied here: a test that reads again
 * runs one of the transaction's own named statements.  Nothing here
 * prints.
 */
#include "tpcc/acid.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/rng.h"
#include "db/db.h"
#include "db/dialect.h"
#include "tpcc/txn.h"

/* Ids of schema/<dialect>/acid.sql's statements. */
enum acid_stmt {
    AS_WAREHOUSE = 0,
    AS_DISTRICT,
    AS_CUSTOMER,
    AS_BC_CUSTOMER,
    AS_STOCK,
    AS_ORDER,
    AS_ORDER_LINES,
    AS_NEW_ORDER,
    AS_OLDEST,
    AS_PRICE,
    AS_SET_PRICE,
    AS_ASIDE,
    AS_BACK,
    AS_BACKEND,
    AS_WAITING,
    AS_POLL_MS,
    AS_NSTMTS
};

static const char *const acid_names[AS_NSTMTS] = {
    "acid_warehouse", "acid_district", "acid_customer", "acid_bc_customer", "acid_stock",
    "acid_order",     "acid_order_lines", "acid_new_order", "acid_oldest", "acid_price",
    "acid_set_price", "acid_aside",     "acid_back",      "?acid_backend", "?acid_waiting",
    "?acid_wait_poll_ms",
};

/*
 * How long another transaction may run without ending before it is taken
 * as waiting, where the database cannot say (no acid_waiting), and how
 * long one that the database does not call waiting may run before the
 * test gives up on it: a transaction of a few statements takes
 * milliseconds on a database nothing else uses, so 10 s is a thousand
 * times that, and a wait, not a slow answer.
 */
#define ACID_WAIT_BOUND_US 10000000u
/* How often the watch looks whether the other transaction ended, and, where
 * acid.sql has no acid_wait_poll_ms, asks whether it waits. */
#define ACID_POLL_US 2000u
/* How long the other transaction gets to end once the stalled one has. */
#define ACID_JOIN_BOUND_US 30000000u
/* How often the other transaction runs again after a rollback (E_RETRY). */
#define ACID_MAX_RETRIES 3

struct acid {
    const struct acid_setup *s;
    struct dialect td, ad;  /* the transactions' statements, acid.sql's */
    struct db_conn *c1, *c2; /* the stalled transaction's, the other's (td) */
    struct db_conn *cv;     /* reads, the wait monitor, the set-up (ad) */
    struct db_conn *c3;     /* test 7's price change (td, the run's level; ad's text) */
    int64_t backend2, backend3; /* server sessions of c2, c3 (0: unknown) */
    int can_ask;                /* acid_waiting answers (it exists and the probe ran) */
    char no_ask[320];           /* else why not, for a test's line */
    uint64_t ask_every_us;      /* least time between two acid_waiting (acid_wait_poll_ms) */
    uint64_t asked_us;          /* when acid_waiting last returned, across tests */
    struct rng r;
};

/* The other transaction, on a thread of its own. */
struct acid_other {
    struct acid *a;
    struct db_conn *c;
    int64_t backend;                  /* its server session, 0 unknown */
    int (*fn)(struct acid_other *o);  /* runs it: 0 or a negative class */
    struct txn_input in;              /* a transaction of txn.c (fn other_txn) */
    struct txn_output out;
    int mode;
    int x, y;                         /* test 7: the items */
    int64_t px, py;                   /* test 7: the new prices */
    int rc;
    int n_rolled;                     /* rolled back by the DBMS (E_RETRY) and run again */
    struct err e;
    int done;                         /* atomic: fn returned */
    pthread_t th;
    int started;
};

/* The stall: the hook runs during() once, at the nth time it is called. */
struct acid_stall {
    struct acid *a;
    int nth, seen, fired;
    int (*during)(struct acid *a, void *t, struct err *e);
    void *t;
    int rc;
    struct err e;
};

const char *acid_verdict_name(int verdict)
{
    return verdict == ACID_PASS ? "pass" : verdict == ACID_FAIL ? "FAIL" : "not run";
}

const char *acid_case_text(char kase)
{
    switch (kase) {
    case 'A':
        return "the second transaction waited for the stalled one";
    case 'B':
        return "the stalled transaction was rolled back";
    case 'C':
        return "the second transaction was rolled back (and ran again)";
    case 'D':
        return "neither waited nor was rolled back";
    default:
        return "";
    }
}

/* Append to buf (cap bytes) what fmt says, "; " between parts. */
__attribute__((format(printf, 3, 4))) static void cat(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;

    if (n && n + 2 < cap) {
        memcpy(buf + n, "; ", 3);
        n += 2;
    }
    va_start(ap, fmt);
    if (n < cap)
        vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

/* Money in cents as "12.34". */
static const char *money(char *buf, size_t cap, int64_t cents)
{
    db_format_scaled(buf, cap, cents, 2);
    return buf;
}

/* ---- reading rows (cv, acid.sql) ---- */

/* Statement id of acid.sql on cv with its parameters; the first row made
 * current (*found 1), or none (*found 0). */
static int aq(struct acid *a, int id, const struct db_param *p, int np, int *found, struct err *e)
{
    int rc = db_exec(a->cv, id, p, np, e);

    if (rc < 0)
        return rc;
    *found = db_next(a->cv) == 1;
    return 0;
}

#define AQ(id, found, ...)                                                                         \
    aq(a, (id), (const struct db_param[]){ __VA_ARGS__ },                                          \
       (int)(sizeof((const struct db_param[]){ __VA_ARGS__ }) / sizeof(struct db_param)), (found), \
       e)

/* Commit what cv did (ends the reads' transaction without autocommit). */
static int av_end(struct acid *a, struct err *e)
{
    return db_commit(a->cv, e);
}

struct pay_rows {
    int64_t w_ytd, d_ytd, d_next, c_balance, c_ytd, c_cnt, c_delivery_cnt;
    char credit[3];
    char c_data[501];
};

static int read_pay_rows(struct acid *a, int w, int d, int c, struct pay_rows *p, struct err *e)
{
    int rc, f1 = 0, f2 = 0, f3 = 0, len;
    const char *t;

    memset(p, 0, sizeof(*p));
    if ((rc = AQ(AS_WAREHOUSE, &f1, DBP_INT(w))) < 0)
        return rc;
    if (f1)
        p->w_ytd = db_col_num(a->cv, 0, 2);
    if ((rc = AQ(AS_DISTRICT, &f2, DBP_INT(w), DBP_INT(d))) < 0)
        return rc;
    if (f2) {
        p->d_ytd = db_col_num(a->cv, 0, 2);
        p->d_next = db_col_int(a->cv, 1);
    }
    if ((rc = AQ(AS_CUSTOMER, &f3, DBP_INT(w), DBP_INT(d), DBP_INT(c))) < 0)
        return rc;
    if (f3) {
        p->c_balance = db_col_num(a->cv, 0, 2);
        p->c_ytd = db_col_num(a->cv, 1, 2);
        p->c_cnt = db_col_int(a->cv, 2);
        t = db_col_text(a->cv, 3, &len);
        snprintf(p->credit, sizeof(p->credit), "%.*s", len < 2 ? len : 2, t);
        t = db_col_text(a->cv, 4, &len);
        snprintf(p->c_data, sizeof(p->c_data), "%.*s", len < 500 ? len : 500, t);
        p->c_delivery_cnt = db_col_int(a->cv, 5);
    }
    if (!f1 || !f2 || !f3)
        return err_set(e, E_FAIL, "warehouse %d, district %d or customer %d not found", w, d, c);
    return av_end(a, e);
}

struct order_rows {
    int found, c_id, ol_cnt, all_local, carrier, has_new_order;
    int n_lines;
    struct {
        int number, i_id, supply_w_id, quantity;
        int64_t amount;
    } lines[NO_MAX_ITEMS];
};

static int read_order(struct acid *a, int w, int d, int o_id, struct order_rows *o, struct err *e)
{
    int rc, f;

    memset(o, 0, sizeof(*o));
    if ((rc = AQ(AS_ORDER, &f, DBP_INT(w), DBP_INT(d), DBP_INT(o_id))) < 0)
        return rc;
    if ((o->found = f)) {
        o->c_id = (int)db_col_int(a->cv, 0);
        o->ol_cnt = (int)db_col_int(a->cv, 1);
        o->all_local = (int)db_col_int(a->cv, 2);
        o->carrier = db_col_isnull(a->cv, 3) ? 0 : (int)db_col_int(a->cv, 3);
    }
    if ((rc = AQ(AS_ORDER_LINES, &f, DBP_INT(w), DBP_INT(d), DBP_INT(o_id))) < 0)
        return rc;
    for (; f && o->n_lines < NO_MAX_ITEMS; f = db_next(a->cv) == 1) {
        o->lines[o->n_lines].number = (int)db_col_int(a->cv, 0);
        o->lines[o->n_lines].i_id = (int)db_col_int(a->cv, 1);
        o->lines[o->n_lines].supply_w_id = (int)db_col_int(a->cv, 2);
        o->lines[o->n_lines].quantity = (int)db_col_int(a->cv, 3);
        o->lines[o->n_lines].amount = db_col_num(a->cv, 4, 2);
        o->n_lines++;
    }
    if ((rc = AQ(AS_NEW_ORDER, &f, DBP_INT(w), DBP_INT(d), DBP_INT(o_id))) < 0)
        return rc;
    o->has_new_order = f;
    return av_end(a, e);
}

static int read_next_o_id(struct acid *a, int w, int d, int64_t *next, struct err *e)
{
    int rc, f;

    if ((rc = AQ(AS_DISTRICT, &f, DBP_INT(w), DBP_INT(d))) < 0)
        return rc;
    if (!f)
        return err_set(e, E_FAIL, "district %d of warehouse %d not found", d, w);
    *next = db_col_int(a->cv, 1);
    return av_end(a, e);
}

static int read_price(struct acid *a, int i_id, int64_t *cents, struct err *e)
{
    int rc, f;

    if ((rc = AQ(AS_PRICE, &f, DBP_INT(i_id))) < 0)
        return rc;
    if (!f)
        return err_set(e, E_FAIL, "item %d not found", i_id);
    *cents = db_col_num(a->cv, 0, 2);
    return av_end(a, e);
}

/* ---- the other transaction ---- */

/* A transaction of txn.c; rolled back by the DBMS, it runs again. */
static int other_txn(struct acid_other *o)
{
    int rc;

    while ((rc = txn_exec(o->c, o->mode, &o->in, &o->out, &o->e)) == E_RETRY &&
           o->n_rolled < ACID_MAX_RETRIES)
        o->n_rolled++;
    return rc;
}

/* acid_set_price on c3, whose statements are the transactions' (td): its
 * text, unprepared ($n placeholders, which db_query takes on every driver),
 * the parameters in the order they name them. */
static int set_price(struct acid_other *o, int i_id, int64_t cents)
{
    const struct dialect_sub *sb = &o->a->ad.sub[AS_SET_PRICE][0];
    const struct db_param p[2] = { DBP_INT(i_id), DBP_NUM(cents, 2) };
    struct db_param d[2];
    int n = sb->nd < 2 ? sb->nd : 2;

    for (int j = 0; j < n; j++)
        d[j] = p[sb->dmap[j] - 1];
    return db_query(o->c, sb->dollar, d, n, &o->e);
}

/* Test 7's T3: the prices of items x and y changed, one transaction at
 * the run's isolation level. */
static int other_prices(struct acid_other *o)
{
    struct err ignore;
    int rc = db_begin(o->c, &o->e);

    if (rc == 0)
        rc = set_price(o, o->x, o->px);
    if (rc == 0)
        rc = set_price(o, o->y, o->py);
    if (rc == 0)
        return db_commit(o->c, &o->e);
    if (rc == E_RETRY)
        o->n_rolled++;
    if (rc != E_CONN)
        db_rollback(o->c, &ignore);
    return rc;
}

static void *other_main(void *p)
{
    struct acid_other *o = p;

    o->rc = o->fn(o);
    __atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static int other_done(struct acid_other *o)
{
    return __atomic_load_n(&o->done, __ATOMIC_ACQUIRE);
}

static int other_start(struct acid_other *o, struct err *e)
{
    err_clear(&o->e);
    o->done = 0;
    if (pthread_create(&o->th, NULL, other_main, o) != 0)
        return err_set(e, E_FAIL, "cannot start a thread for the second transaction");
    o->started = 1;
    return 0;
}

/*
 * Until o ends (0) or waits for a lock (1).  The database says when it
 * waits (acid_waiting, asked at most every ask_every_us, also counting the
 * previous test's last question: InnoDB answers from a cache that a
 * question less than 0.1 s after the previous one does not refresh);
 * without that answer, o still running after ACID_WAIT_BOUND_US is taken
 * as waiting, and *how says which.
 */
static int other_watch(struct acid *a, struct acid_other *o, const char **how, struct err *e)
{
    uint64_t t0 = clock_us();
    int ask = o->backend > 0 && a->can_ask;

    *how = "";
    while (!other_done(o)) {
        if (ask && clock_us() - a->asked_us >= a->ask_every_us) {
            int rc, f;
            if ((rc = AQ(AS_WAITING, &f, DBP_INT(o->backend))) < 0)
                return rc;
            int64_t n = f ? db_col_int(a->cv, 0) : 0;
            if ((rc = av_end(a, e)) < 0)
                return rc;
            a->asked_us = clock_us();
            if (n > 0 && !other_done(o)) {
                *how = "the database showed it waiting for a lock";
                return 1;
            }
        }
        if (clock_us() - t0 > ACID_WAIT_BOUND_US) {
            *how = ask ? "still running after 10 s, though the database showed no lock wait"
                       : a->no_ask;
            return 1;
        }
        clock_sleep_us(ACID_POLL_US);
    }
    return 0;
}

/* Wait for o's thread (cancelling its request after ACID_JOIN_BOUND_US). */
static void other_join(struct acid_other *o)
{
    uint64_t t0 = clock_us();

    if (!o->started)
        return;
    while (!other_done(o) && clock_us() - t0 < ACID_JOIN_BOUND_US)
        clock_sleep_us(ACID_POLL_US);
    if (!other_done(o))
        db_cancel(o->c);
    pthread_join(o->th, NULL);
    o->started = 0;
}

/* ---- the stalled transaction ---- */

static void stall_hook(struct db_conn *c, int id, void *arg)
{
    struct acid_stall *st = arg;

    (void)c;
    (void)id;
    if (++st->seen != st->nth || st->fired)
        return;
    st->fired = 1;
    st->rc = st->during(st->a, st->t, &st->e);
}

/*
 * Run in on c1 in mode with the stall armed before hook_id (a statement,
 * DB_HOOK_COMMIT or DB_HOOK_ROLLBACK).  A procedure on a driver with
 * autocommit is called inside an explicit transaction, so that it can
 * stall before that transaction's COMMIT or ROLLBACK.  Returns what the
 * transaction returned.
 */
static int run_stalled(struct acid *a, int mode, const struct txn_input *in,
                       struct txn_output *out, int hook_id, struct acid_stall *st, struct err *e)
{
    struct db_conn *c = a->c1;
    int rc;

    memset(out, 0, sizeof(*out));
    st->a = a;
    st->seen = st->fired = st->rc = 0;
    err_clear(&st->e);
    if (st->nth < 1)
        st->nth = 1;
    if (st->during)
        db_hook(c, hook_id, stall_hook, st);
    if (mode == RUN_MODE_PROCEDURE && (c->ops->flags & DB_F_AUTOCOMMIT) &&
        in->type != TX_ORDER_STATUS) {
        rc = db_begin(c, e);
        if (rc == 0)
            rc = txn_exec(c, mode, in, out, e);
        if (rc == 0)
            rc = out->rolled_back ? db_rollback(c, e) : db_commit(c, e);
        else if (rc != E_CONN) {
            struct err ignore;
            db_hook(c, 0, NULL, NULL);
            db_rollback(c, &ignore);
        }
    } else {
        rc = txn_exec(c, mode, in, out, e);
    }
    db_hook(c, 0, NULL, NULL);
    c->commit_rolls_back = 0;
    return rc;
}

/* The mode a stalled transaction runs in: the configured one where it can
 * stall at the test's point (a pipeline is sent and its results read up to
 * the stall: db_pipe_exec's hook), else client, with why in r->mode. */
static int stall_mode(struct acid *a, int inside_body, struct acid_result *r)
{
    int m = a->s->mode;

    if (m == RUN_MODE_CLIENT) {
        snprintf(r->mode, sizeof(r->mode), "client");
        return m;
    }
    if (inside_body) {
        snprintf(r->mode, sizeof(r->mode), "client (the stall is inside %s)",
                 m == RUN_MODE_PIPELINE ? "one of the pipeline's statements"
                                        : "a procedure's body");
        return RUN_MODE_CLIENT;
    }
    if (m == RUN_MODE_PIPELINE) {
        snprintf(r->mode, sizeof(r->mode), "pipeline (sent and read up to the stall)");
        return m;
    }
    snprintf(r->mode, sizeof(r->mode), "%s", run_mode_name(m));
    return m;
}

/* A test's end on an error: FAIL, the error as why. */
static void res_error(struct acid_result *r, const char *what, const struct err *e)
{
    r->verdict = ACID_FAIL;
    snprintf(r->why, sizeof(r->why), "error in %s: %.400s%s%s", what, e->msg,
             e->sqlstate[0] ? " SQLSTATE " : "", e->sqlstate);
}

/* ---- inputs ---- */

static void pick_district(struct acid *a, int *w, int *d)
{
    *w = (int)rng_range(&a->r, 1, a->s->warehouses);
    *d = (int)rng_range(&a->r, 1, 10);
}

/* New-Order of n distinct items (ascending: the order it reads them in),
 * all from warehouse w; with rollback the last is the unused item. */
static void new_order_input(struct acid *a, int w, int d, int c, int n, int rollback,
                            struct txn_input *in)
{
    struct no_input *no = &in->u.no;
    int step = TPCC_ITEMS_MAX / n;

    memset(in, 0, sizeof(*in));
    in->type = TX_NEW_ORDER;
    no->w_id = w;
    no->d_id = d;
    no->c_id = c;
    no->ol_cnt = n;
    no->rollback = rollback;
    no->all_local = 1;
    for (int i = 0; i < n; i++) {
        no->items[i].i_id = i * step + (int)rng_range(&a->r, 1, step);
        no->items[i].supply_w_id = w;
        no->items[i].quantity = (int)rng_range(&a->r, 1, 10);
    }
    if (rollback)
        no->items[n - 1].i_id = TXN_UNUSED_ITEM;
}

static void payment_input(int w, int d, int c, int64_t cents, struct txn_input *in)
{
    memset(in, 0, sizeof(*in));
    in->type = TX_PAYMENT;
    in->u.pay.w_id = in->u.pay.c_w_id = w;
    in->u.pay.d_id = in->u.pay.c_d_id = d;
    in->u.pay.c_id = c;
    in->u.pay.amount_cents = cents;
}

static void order_status_input(int w, int d, int c, struct txn_input *in)
{
    memset(in, 0, sizeof(*in));
    in->type = TX_ORDER_STATUS;
    in->u.os.w_id = w;
    in->u.os.d_id = d;
    in->u.os.c_id = c;
}

static void other_init(struct acid *a, struct acid_other *o, int (*fn)(struct acid_other *))
{
    memset(o, 0, sizeof(*o));
    o->a = a;
    o->c = a->c2;
    o->backend = a->backend2;
    o->mode = a->s->mode;
    o->fn = fn;
}


/* ---- atomicity (3.2.2) ---- */

/* c_data after a Payment of a bad-credit customer (clause 2.5.2.2): the
 * ids and amount in front of what it was, kept to 500 characters. */
static void bc_data(const struct pay_input *p, int c, const char *old, char *out, size_t cap)
{
    char m[32], pre[96];
    size_t n, k, lim = cap < 501 ? cap - 1 : 500;

    snprintf(pre, sizeof(pre), "%d %d %d %d %d %s ", c, p->c_d_id, p->c_w_id, p->d_id, p->w_id,
             money(m, sizeof(m), p->amount_cents));
    n = strlen(pre) < lim ? strlen(pre) : lim;
    memcpy(out, pre, n);
    k = strlen(old) < lim - n ? strlen(old) : lim - n;
    memcpy(out + n, old, k);
    out[n + k] = '\0';
}

/* Compare one money value: its line into r->values, 0 when as wanted. */
static int cmp_money(struct acid_result *r, const char *what, int64_t before, int64_t after,
                     int64_t want)
{
    char b[32], f[32], w[32];

    cat(r->values, sizeof(r->values), "%s %s -> %s (want %s)", what, money(b, sizeof(b), before),
        money(f, sizeof(f), after), money(w, sizeof(w), want));
    return after != want;
}

static int cmp_int(struct acid_result *r, const char *what, int64_t before, int64_t after,
                   int64_t want)
{
    cat(r->values, sizeof(r->values), "%s %lld -> %lld (want %lld)", what, (long long)before,
        (long long)after, (long long)want);
    return after != want;
}

/* Payment committed (3.2.2.1) or rolled back in place of its commit (3.2.2.2). */
static void atom_payment(struct acid *a, int rollback, struct acid_result *r)
{
    struct pay_rows b, f;
    struct txn_input in;
    struct txn_output out;
    struct acid_stall none = { 0 };
    char want_data[501];
    int w, d, c, bad = 0, rc, found;
    struct err e_, *e = &e_;

    pick_district(a, &w, &d);
    c = (int)rng_range(&a->r, 1, 3000);
    /* A customer of bad credit where there is one: its c_data changes too. */
    if (AQ(AS_BC_CUSTOMER, &found, DBP_INT(w), DBP_INT(d)) == 0 && found &&
        !db_col_isnull(a->cv, 0))
        c = (int)db_col_int(a->cv, 0);
    if (av_end(a, e) < 0 || read_pay_rows(a, w, d, c, &b, e) < 0)
        {
            res_error(r, "reading the rows before", e);
            return;
        }
    payment_input(w, d, c, rng_range(&a->r, 100, 500000), &in);
    snprintf(r->rows, sizeof(r->rows), "warehouse %d, district %d, customer %d (credit %s)", w, d,
             c, b.credit);
    a->c1->commit_rolls_back = rollback;
    rc = run_stalled(a, stall_mode(a, 0, r), &in, &out, DB_HOOK_COMMIT, &none, e);
    if (rc < 0)
        {
            res_error(r, "the payment", e);
            return;
        }
    if (read_pay_rows(a, w, d, c, &f, e) < 0)
        {
            res_error(r, "reading the rows after", e);
            return;
        }
    {
        int64_t amt = rollback ? 0 : in.u.pay.amount_cents;
        char m[32];
        cat(r->values, sizeof(r->values), "amount %s", money(m, sizeof(m), in.u.pay.amount_cents));
        bad |= cmp_money(r, "w_ytd", b.w_ytd, f.w_ytd, b.w_ytd + amt);
        bad |= cmp_money(r, "d_ytd", b.d_ytd, f.d_ytd, b.d_ytd + amt);
        bad |= cmp_money(r, "c_balance", b.c_balance, f.c_balance, b.c_balance - amt);
        bad |= cmp_money(r, "c_ytd_payment", b.c_ytd, f.c_ytd, b.c_ytd + amt);
        bad |= cmp_int(r, "c_payment_cnt", b.c_cnt, f.c_cnt, b.c_cnt + !rollback);
    }
    if (strcmp(b.credit, "BC") == 0 && !rollback)
        bc_data(&in.u.pay, c, b.c_data, want_data, sizeof(want_data));
    else
        snprintf(want_data, sizeof(want_data), "%s", b.c_data);
    cat(r->values, sizeof(r->values), "c_data starts \"%.24s\" (want \"%.24s\")%s", f.c_data,
        want_data, strcmp(f.c_data, want_data) == 0 ? "" : ", differs");
    bad |= strcmp(f.c_data, want_data) != 0;
    r->verdict = bad ? ACID_FAIL : ACID_PASS;
    snprintf(r->why, sizeof(r->why), "%s",
             bad ? (rollback ? "a rolled-back Payment changed its rows (atomicity broken)"
                             : "a committed Payment did not change its rows as it says")
                 : (rollback ? "rolled back in place of its commit: no row changed"
                             : "committed: each row changed by the amount"));
}

/* The stock rows of a New-Order's items. */
struct stock_rows {
    int64_t q[NO_MAX_ITEMS], ytd[NO_MAX_ITEMS], cnt[NO_MAX_ITEMS], remote[NO_MAX_ITEMS];
    int64_t price[NO_MAX_ITEMS];
};

static int read_stock(struct acid *a, const struct no_input *no, struct stock_rows *s,
                      struct err *e)
{
    int rc, f;

    for (int i = 0; i < no->ol_cnt; i++) {
        if ((rc = AQ(AS_STOCK, &f, DBP_INT(no->items[i].i_id), DBP_INT(no->items[i].supply_w_id))) <
            0)
            return rc;
        if (!f)
            return err_set(e, E_FAIL, "stock of item %d not found", no->items[i].i_id);
        s->q[i] = db_col_int(a->cv, 0);
        s->ytd[i] = db_col_int(a->cv, 1);
        s->cnt[i] = db_col_int(a->cv, 2);
        s->remote[i] = db_col_int(a->cv, 3);
        if ((rc = av_end(a, e)) < 0 || (rc = read_price(a, no->items[i].i_id, &s->price[i], e)) < 0)
            return rc;
    }
    return av_end(a, e);
}

/* What a committed New-Order must have left: order o_id, its lines, its
 * new-order row, the stock rows.  Returns 1 when something differs. */
static int no_compare(struct acid_result *r, const struct no_input *no, int64_t o_id,
                      const struct order_rows *o, const struct stock_rows *b,
                      const struct stock_rows *f, int committed)
{
    int bad = 0;

    cat(r->values, sizeof(r->values), "order %lld: %s (want %s)", (long long)o_id,
        o->found ? "present" : "absent", committed ? "present" : "absent");
    bad |= o->found != committed;
    cat(r->values, sizeof(r->values), "new-order row %s (want %s)",
        o->has_new_order ? "present" : "absent", committed ? "present" : "absent");
    bad |= o->has_new_order != committed;
    if (o->found)
        bad |= cmp_int(r, "o_c_id", no->c_id, o->c_id, no->c_id) |
               cmp_int(r, "o_ol_cnt", no->ol_cnt, o->ol_cnt, no->ol_cnt);
    cat(r->values, sizeof(r->values), "%d order lines (want %d)", o->n_lines,
        committed ? no->ol_cnt : 0);
    bad |= o->n_lines != (committed ? no->ol_cnt : 0);
    for (int i = 0; i < no->ol_cnt; i++) {
        const struct no_item *it = &no->items[i];
        int64_t q = b->q[i] >= it->quantity + 10 ? b->q[i] - it->quantity
                                                  : b->q[i] - it->quantity + 91;
        char what[48];
        if (!committed)
            q = b->q[i];
        snprintf(what, sizeof(what), "item %d s_quantity", it->i_id);
        bad |= cmp_int(r, what, b->q[i], f->q[i], q);
        bad |= f->ytd[i] != b->ytd[i] + (committed ? it->quantity : 0) ||
               f->cnt[i] != b->cnt[i] + committed || f->remote[i] != b->remote[i];
        if (committed && i < o->n_lines &&
            (o->lines[i].i_id != it->i_id || o->lines[i].quantity != it->quantity ||
             o->lines[i].amount != b->price[i] * it->quantity)) {
            cat(r->values, sizeof(r->values), "line %d: item %d x %d = %lld cents (want item %d "
                "x %d = %lld)", i + 1, o->lines[i].i_id, o->lines[i].quantity,
                (long long)o->lines[i].amount, it->i_id, it->quantity,
                (long long)(b->price[i] * it->quantity));
            bad = 1;
        }
    }
    if (committed && !bad)
        cat(r->values, sizeof(r->values), "every line's item, quantity and amount (price x "
                                          "quantity), s_ytd, s_order_cnt as wanted");
    return bad;
}

/* New-Order committed, or rolled back in place of its commit: our
 * extension of 3.2.2.1 and 3.2.2.2 (the spec's are Payment's). */
static void atom_new_order(struct acid *a, int rollback, struct acid_result *r)
{
    struct stock_rows b, f;
    struct order_rows o;
    struct txn_input in;
    struct txn_output out;
    struct acid_stall none = { 0 };
    int64_t next0, next1;
    int w, d, bad, rc;
    struct err e_, *e = &e_;

    pick_district(a, &w, &d);
    new_order_input(a, w, d, (int)rng_range(&a->r, 1, 3000), 5, 0, &in);
    if (read_next_o_id(a, w, d, &next0, e) < 0 || read_stock(a, &in.u.no, &b, e) < 0)
        {
            res_error(r, "reading the rows before", e);
            return;
        }
    snprintf(r->rows, sizeof(r->rows),
             "warehouse %d, district %d, customer %d, order %lld, items %d %d %d %d %d", w, d,
             in.u.no.c_id, (long long)next0, in.u.no.items[0].i_id, in.u.no.items[1].i_id,
             in.u.no.items[2].i_id, in.u.no.items[3].i_id, in.u.no.items[4].i_id);
    a->c1->commit_rolls_back = rollback;
    rc = run_stalled(a, stall_mode(a, 0, r), &in, &out, DB_HOOK_COMMIT, &none, e);
    if (rc < 0)
        {
            res_error(r, "the new-order", e);
            return;
        }
    if (read_next_o_id(a, w, d, &next1, e) < 0 || read_order(a, w, d, (int)next0, &o, e) < 0 ||
        read_stock(a, &in.u.no, &f, e) < 0)
        {
            res_error(r, "reading the rows after", e);
            return;
        }
    bad = cmp_int(r, "d_next_o_id", next0, next1, next0 + !rollback);
    bad |= no_compare(r, &in.u.no, next0, &o, &b, &f, !rollback);
    r->verdict = bad ? ACID_FAIL : ACID_PASS;
    snprintf(r->why, sizeof(r->why), "%s",
             bad ? (rollback ? "a rolled-back New-Order changed rows (atomicity broken)"
                             : "a committed New-Order did not leave its rows as it says")
                 : (rollback ? "rolled back in place of its commit: no row changed"
                             : "committed: order, lines, new-order row, stock, district"));
}

/* ---- isolation (3.4.2) ---- */

/* One isolation test's state: the other transaction, what the watch saw,
 * and the stalled transaction's read again (tests 8 and 9). */
struct iso {
    struct acid_other o;
    int waited;                     /* the other waited for a lock */
    const char *how;                /* how that was known */
    int reread;                     /* 8: dl_oldest_new_order, 9: os_last_order, 0: none */
    int w, d, c;
    const struct txn_output *s_out; /* the stalled transaction's output so far */
    int64_t first, again;           /* test 9: the order read before and again */
    int again_found;
};

static int iso_reread(struct acid *a, struct iso *x, struct err *e)
{
    int rc;

    if (x->reread == 8) {
        rc = db_exec(a->c1, S_DL_OLDEST_NEW_ORDER,
                     (const struct db_param[]){ DBP_INT(x->w), DBP_INT(x->d) }, 2, e);
        x->again_found = rc == 0 && db_next(a->c1) == 1 && !db_col_isnull(a->c1, 0);
        x->again = x->again_found ? db_col_int(a->c1, 0) : 0;
        return rc;
    }
    x->first = x->s_out->os.o_id;
    rc = db_exec(a->c1, S_OS_LAST_ORDER,
                 (const struct db_param[]){ DBP_INT(x->w), DBP_INT(x->d), DBP_INT(x->c) }, 3, e);
    x->again_found = rc == 0 && db_next(a->c1) == 1;
    x->again = x->again_found ? db_col_int(a->c1, 0) : 0;
    return rc;
}

/* While the stalled transaction waits: the other starts; it ends or waits. */
static int iso_during(struct acid *a, void *t, struct err *e)
{
    struct iso *x = t;
    int rc;

    if ((rc = other_start(&x->o, e)) < 0 || (rc = other_watch(a, &x->o, &x->how, e)) < 0)
        return rc;
    x->waited = rc == 1;
    if (!x->waited)
        x->how = "it ended while the first was stalled";
    return x->reread ? iso_reread(a, x, e) : 0;
}

/* The case of the spec the test followed (acid_case_text). */
static char iso_case(int s_rc, const struct iso *x)
{
    if (s_rc == E_RETRY)
        return 'B';
    if (x->o.n_rolled || x->o.rc == E_RETRY)
        return 'C';
    return x->waited ? 'A' : 'D';
}

/* After the stall: the other joined, errors of either made the test's. */
static int iso_end(struct iso *x, int s_rc, const struct acid_stall *st, struct acid_result *r,
                   const struct err *e)
{
    other_join(&x->o);
    if (st->rc < 0) {
        res_error(r, "the stall", &st->e);
        return -1;
    }
    if (!st->fired) {
        r->verdict = ACID_FAIL;
        snprintf(r->why, sizeof(r->why), "the first transaction never reached its stall");
        return -1;
    }
    if (s_rc < 0 && s_rc != E_RETRY) {
        res_error(r, "the first transaction", e);
        return -1;
    }
    if (x->o.rc < 0 && x->o.rc != E_RETRY) {
        res_error(r, "the second transaction", &x->o.e);
        return -1;
    }
    r->kase = iso_case(s_rc, x);
    cat(r->values, sizeof(r->values), "second transaction: %s%s", x->how,
        x->o.n_rolled ? ", rolled back and run again" : "");
    return 0;
}

static void iso_verdict(struct acid_result *r, int ok, const char *broken)
{
    r->verdict = ok ? ACID_PASS : ACID_FAIL;
    snprintf(r->why, sizeof(r->why), "%s", ok ? acid_case_text(r->kase) : broken);
}

/* Tests 1 and 2: New-Order (T1, stalled before its commit or rollback)
 * against Order-Status (T2) of the same customer. */
static void iso_ostatus(struct acid *a, int rollback, struct acid_result *r)
{
    struct txn_input t0, t1;
    struct txn_output out0, out1;
    struct acid_stall st = { .during = iso_during };
    struct iso x;
    int64_t next0, want;
    int rc;
    struct err e_, *e = &e_;

    memset(&x, 0, sizeof(x));
    pick_district(a, &x.w, &x.d);
    x.c = (int)rng_range(&a->r, 1, 3000);
    order_status_input(x.w, x.d, x.c, &t0);
    memset(&out0, 0, sizeof(out0));
    if ((rc = txn_exec(a->c2, a->s->mode, &t0, &out0, e)) < 0 ||
        read_next_o_id(a, x.w, x.d, &next0, e) < 0)
        {
            res_error(r, "T0 (order-status)", e);
            return;
        }
    new_order_input(a, x.w, x.d, x.c, 5, rollback, &t1);
    other_init(a, &x.o, other_txn);
    x.o.in = t0;
    st.t = &x;
    snprintf(r->rows, sizeof(r->rows), "warehouse %d, district %d, customer %d; T1's order %lld",
             x.w, x.d, x.c, (long long)next0);
    rc = run_stalled(a, stall_mode(a, 0, r), &t1, &out1,
                     rollback ? DB_HOOK_ROLLBACK : DB_HOOK_COMMIT, &st, e);
    if (iso_end(&x, rc, &st, r, e) < 0)
        return;
    want = r->kase == 'A' && !rollback ? next0 : out0.os.o_id;
    cat(r->values, sizeof(r->values), "T0 read order %d; T2 read order %d (want %lld)",
        out0.os.o_id, x.o.out.os.o_id, (long long)want);
    iso_verdict(r, x.o.out.os.o_id == want,
                rollback ? "P1 (dirty read): Order-Status (T2) read the order of a New-Order "
                           "(T1) that was then rolled back"
                         : "P1 (dirty read) or a lost read: Order-Status (T2) did not read the "
                           "last committed order of New-Order (T1)'s customer");
}

/* Tests 3 and 4: two New-Orders of one district; T1 stalled before its
 * commit (or its rollback: the unused item). */
static void iso_new_orders(struct acid *a, int rollback, struct acid_result *r)
{
    struct txn_input t1;
    struct txn_output out1;
    struct acid_stall st = { .during = iso_during };
    struct order_rows o1, o2;
    struct iso x;
    int64_t next0, next1;
    int rc, c2, ok, t1_done;
    struct err e_, *e = &e_;

    memset(&x, 0, sizeof(x));
    pick_district(a, &x.w, &x.d);
    x.c = (int)rng_range(&a->r, 1, 1500);
    c2 = x.c + 1500;
    if (read_next_o_id(a, x.w, x.d, &next0, e) < 0)
        {
            res_error(r, "reading the district", e);
            return;
        }
    new_order_input(a, x.w, x.d, x.c, 5, rollback, &t1);
    other_init(a, &x.o, other_txn);
    new_order_input(a, x.w, x.d, c2, 5, 0, &x.o.in);
    st.t = &x;
    snprintf(r->rows, sizeof(r->rows),
             "warehouse %d, district %d; T1 customer %d, T2 customer %d", x.w, x.d, x.c, c2);
    rc = run_stalled(a, stall_mode(a, 0, r), &t1, &out1,
                     rollback ? DB_HOOK_ROLLBACK : DB_HOOK_COMMIT, &st, e);
    if (iso_end(&x, rc, &st, r, e) < 0)
        return;
    if (read_next_o_id(a, x.w, x.d, &next1, e) < 0 || read_order(a, x.w, x.d, (int)next0, &o1, e) < 0 ||
        read_order(a, x.w, x.d, (int)next0 + 1, &o2, e) < 0)
        {
            res_error(r, "reading the rows after", e);
            return;
        }
    t1_done = rc == 0 && !rollback;
    ok = !cmp_int(r, "d_next_o_id", next0, next1, next0 + 1 + t1_done);
    cat(r->values, sizeof(r->values), "order %lld of customer %d (want %d), order %lld of "
        "customer %d (want %d)", (long long)next0, o1.c_id, t1_done ? x.c : c2,
        (long long)next0 + 1, o2.c_id, t1_done ? c2 : 0);
    ok = ok && o1.c_id == (t1_done ? x.c : c2) && o2.c_id == (t1_done ? c2 : 0);
    iso_verdict(r, ok, "P0 (dirty write): two New-Orders (T1, T2) of one district lost or "
                       "reused an order id");
}

/* Tests 5 and 6: Delivery (T1, stalled before its commit, or the rollback
 * in its place) against Payment (T2) of the customer whose order T1 delivers. */
static void iso_delivery(struct acid *a, int rollback, struct acid_result *r)
{
    struct txn_input t1;
    struct txn_output out1;
    struct acid_stall st = { .during = iso_during };
    struct pay_rows b, f;
    struct order_rows o;
    struct iso x;
    int64_t sum, amount, want;
    int rc, found, o_id, done;
    struct err e_, *e = &e_;
    char m1[32], m2[32];

    memset(&x, 0, sizeof(x));
    pick_district(a, &x.w, &x.d);
    if ((rc = AQ(AS_OLDEST, &found, DBP_INT(x.w), DBP_INT(x.d))) < 0)
        {
            res_error(r, "reading the oldest new order", e);
            return;
        }
    if (!found || db_col_isnull(a->cv, 0)) {
        av_end(a, e);
        snprintf(r->why, sizeof(r->why), "district %d of warehouse %d has no undelivered order",
                 x.d, x.w);
        return;
    }
    o_id = (int)db_col_int(a->cv, 0);
    x.c = (int)db_col_int(a->cv, 1);
    sum = db_col_num(a->cv, 2, 2);
    if (av_end(a, e) < 0 || read_pay_rows(a, x.w, x.d, x.c, &b, e) < 0)
        {
            res_error(r, "reading the rows before", e);
            return;
        }
    memset(&t1, 0, sizeof(t1));
    t1.type = TX_DELIVERY;
    t1.u.dl.w_id = x.w;
    t1.u.dl.carrier_id = (int)rng_range(&a->r, 1, 10);
    amount = rng_range(&a->r, 100, 500000);
    other_init(a, &x.o, other_txn);
    payment_input(x.w, x.d, x.c, amount, &x.o.in);
    st.t = &x;
    snprintf(r->rows, sizeof(r->rows), "warehouse %d, district %d, order %d, customer %d", x.w,
             x.d, o_id, x.c);
    a->c1->commit_rolls_back = rollback;
    rc = run_stalled(a, stall_mode(a, 0, r), &t1, &out1, DB_HOOK_COMMIT, &st, e);
    if (iso_end(&x, rc, &st, r, e) < 0)
        return;
    if (read_pay_rows(a, x.w, x.d, x.c, &f, e) < 0 || read_order(a, x.w, x.d, o_id, &o, e) < 0)
        {
            res_error(r, "reading the rows after", e);
            return;
        }
    done = rc == 0 && !rollback && out1.delivered[x.d - 1] == o_id;
    want = b.c_balance + (done ? sum : 0) - amount;
    cat(r->values, sizeof(r->values), "delivery amount %s, payment %s", money(m1, sizeof(m1), sum),
        money(m2, sizeof(m2), amount));
    rc = cmp_money(r, "c_balance", b.c_balance, f.c_balance, want);
    cat(r->values, sizeof(r->values), "o_carrier_id %d (want %s)", o.carrier,
        done ? "set" : "unset");
    iso_verdict(r, !rc && (o.carrier != 0) == done && (rollback || done || r->kase == 'B'),
                "P0 (dirty write): Delivery (T1) and Payment (T2) of one customer lost an update "
                "of c_balance");
}

/* Test 7's values: T2's reads of x (again) and y, from its order lines. */
struct price_reads {
    int64_t x1, y1;   /* T1's */
    int64_t x3, y3;   /* T3's */
    int64_t x2, y2;   /* T2's second read of x, its read of y (0: no order) */
    int64_t x4, y4;   /* T4's */
};

static int price_ok(char kase, int t3_committed, const struct price_reads *p)
{
    int t2_old = p->x2 == p->x1 && p->y2 == p->y1;
    int t4_new = p->x4 == p->x3 && p->y4 == p->y3, t4_old = p->x4 == p->x1 && p->y4 == p->y1;

    switch (kase) {
    case 'A':
    case 'D':
        return t2_old && t4_new;
    case 'B':
        return t3_committed ? t4_new : t4_old;
    default:
        return t2_old && t4_old;
    }
}

/* Test 7: New-Order (T2) orders x, x and y (read in item order: x < y),
 * stalls after its first read of x; T3 changes both prices. */
static void iso_price(struct acid *a, struct acid_result *r)
{
    struct txn_input t2;
    struct txn_output out2;
    struct acid_stall st = { .during = iso_during, .nth = 2 };
    struct order_rows o;
    struct price_reads p;
    struct iso x;
    int64_t next0;
    int rc, ix, iy;
    struct err e_, *e = &e_;
    char b[6][32];

    memset(&x, 0, sizeof(x));
    memset(&p, 0, sizeof(p));
    pick_district(a, &x.w, &x.d);
    ix = (int)rng_range(&a->r, 1, TPCC_ITEMS_MAX / 2);
    iy = (int)rng_range(&a->r, TPCC_ITEMS_MAX / 2 + 1, TPCC_ITEMS_MAX);
    if (read_price(a, ix, &p.x1, e) < 0 || read_price(a, iy, &p.y1, e) < 0 ||
        read_next_o_id(a, x.w, x.d, &next0, e) < 0)
        {
            res_error(r, "T1 (the prices)", e);
            return;
        }
    p.x3 = p.x1 + (p.x1 / 10 > 0 ? p.x1 / 10 : 1);
    p.y3 = p.y1 + (p.y1 / 10 > 0 ? p.y1 / 10 : 1);
    new_order_input(a, x.w, x.d, (int)rng_range(&a->r, 1, 3000), 3, 0, &t2);
    t2.u.no.items[0].i_id = t2.u.no.items[1].i_id = ix;
    t2.u.no.items[2].i_id = iy;
    other_init(a, &x.o, other_prices);
    x.o.c = a->c3;
    x.o.backend = a->backend3;
    x.o.x = ix;
    x.o.y = iy;
    x.o.px = p.x3;
    x.o.py = p.y3;
    st.t = &x;
    snprintf(r->rows, sizeof(r->rows), "items x %d and y %d; T2's order %lld of warehouse %d, "
             "district %d", ix, iy, (long long)next0, x.w, x.d);
    rc = run_stalled(a, stall_mode(a, 1, r), &t2, &out2, S_NO_LINE, &st, e);
    if (iso_end(&x, rc, &st, r, e) < 0)
        goto put_back;
    if (read_order(a, x.w, x.d, (int)next0, &o, e) < 0 || read_price(a, ix, &p.x4, e) < 0 ||
        read_price(a, iy, &p.y4, e) < 0) {
        res_error(r, "reading the rows after", e);
        goto put_back;
    }
    if (rc == 0 && o.n_lines == 3) {
        p.x2 = o.lines[1].amount / o.lines[1].quantity;
        p.y2 = o.lines[2].amount / o.lines[2].quantity;
    }
    cat(r->values, sizeof(r->values), "x: T1 %s, T2 again %s, T3 %s, T4 %s",
        money(b[0], 32, p.x1), money(b[1], 32, p.x2), money(b[2], 32, p.x3), money(b[3], 32, p.x4));
    cat(r->values, sizeof(r->values), "y: T1 %s, T2 %s, T3 %s, T4 %s", money(b[0], 32, p.y1),
        money(b[1], 32, p.y2), money(b[4], 32, p.y3), money(b[5], 32, p.y4));
    iso_verdict(r, price_ok(r->kase, x.o.rc == 0, &p),
                "P2 (fuzzy read): New-Order (T2) read item x again, or y, at a price other than "
                "the one it began with, as the price change (T3) committed meanwhile (level 2 "
                "against any transaction required)");
put_back:
    if (db_exec(a->cv, AS_SET_PRICE, (const struct db_param[]){ DBP_INT(ix), DBP_NUM(p.x1, 2) }, 2,
                e) < 0 ||
        db_exec(a->cv, AS_SET_PRICE, (const struct db_param[]){ DBP_INT(iy), DBP_NUM(p.y1, 2) }, 2,
                e) < 0 ||
        av_end(a, e) < 0)
        res_error(r, "putting the prices back", e);
}

/* Test 8: Delivery (T1) finds no new-order row in district 10 (they are
 * set aside) and stalls before its commit; New-Order (T2) inserts one. */
static void iso_phantom_delivery(struct acid *a, struct acid_result *r)
{
    struct txn_input t1;
    struct txn_output out1;
    struct acid_stall st = { .during = iso_during };
    struct iso x;
    int64_t next0;
    int rc, found;
    struct err e_, *e = &e_;

    memset(&x, 0, sizeof(x));
    pick_district(a, &x.w, &x.d);
    x.d = 10; /* the district a Delivery visits last: its stall is before its commit */
    x.reread = 8;
    if (read_next_o_id(a, x.w, x.d, &next0, e) < 0 ||
        (rc = AQ(AS_ASIDE, &found, DBP_INT(x.w), DBP_INT(x.d))) < 0 || av_end(a, e) < 0)
        {
            res_error(r, "setting the district's new-order rows aside", e);
            return;
        }
    memset(&t1, 0, sizeof(t1));
    t1.type = TX_DELIVERY;
    t1.u.dl.w_id = x.w;
    t1.u.dl.carrier_id = (int)rng_range(&a->r, 1, 10);
    other_init(a, &x.o, other_txn);
    new_order_input(a, x.w, x.d, (int)rng_range(&a->r, 1, 3000), 5, 0, &x.o.in);
    st.t = &x;
    snprintf(r->rows, sizeof(r->rows), "warehouse %d, district %d (its new-order rows set aside), "
             "T2's order %lld", x.w, x.d, (long long)next0);
    rc = run_stalled(a, stall_mode(a, 1, r), &t1, &out1, DB_HOOK_COMMIT, &st, e);
    if (iso_end(&x, rc, &st, r, e) == 0) {
        cat(r->values, sizeof(r->values), "T1 found no new order in district %d first (delivered "
            "%d); read again: %s %lld", x.d, out1.delivered[x.d - 1],
            x.again_found ? "order" : "none", (long long)x.again);
        iso_verdict(r, !x.again_found || r->kase == 'B',
                    "P3 (phantom): Delivery (T1) read the district's new orders again and found "
                    "the one New-Order (T2) inserted (level 3 among them required)");
    }
    if (AQ(AS_BACK, &found, DBP_INT(0)) < 0 || av_end(a, e) < 0)
        res_error(r, "putting the new-order rows back", e);
}

/* Test 9: Order-Status (T1) stalls after reading the customer's last
 * order; New-Order (T2) of that customer inserts another. */
static void iso_phantom_ostatus(struct acid *a, struct acid_result *r)
{
    struct txn_input t1;
    struct txn_output out1;
    struct acid_stall st = { .during = iso_during };
    struct iso x;
    int64_t next0;
    int rc;
    struct err e_, *e = &e_;

    memset(&x, 0, sizeof(x));
    pick_district(a, &x.w, &x.d);
    x.c = (int)rng_range(&a->r, 1, 3000);
    x.reread = 9;
    x.s_out = &out1;
    if (read_next_o_id(a, x.w, x.d, &next0, e) < 0)
        {
            res_error(r, "reading the district", e);
            return;
        }
    order_status_input(x.w, x.d, x.c, &t1);
    other_init(a, &x.o, other_txn);
    new_order_input(a, x.w, x.d, x.c, 5, 0, &x.o.in);
    st.t = &x;
    snprintf(r->rows, sizeof(r->rows), "warehouse %d, district %d, customer %d; T2's order %lld",
             x.w, x.d, x.c, (long long)next0);
    rc = run_stalled(a, stall_mode(a, 1, r), &t1, &out1, S_OS_ORDER_LINES, &st, e);
    if (iso_end(&x, rc, &st, r, e) < 0)
        return;
    cat(r->values, sizeof(r->values), "T1's last order %lld; read again %lld; T1 returned %d",
        (long long)x.first, (long long)x.again, out1.os.o_id);
    iso_verdict(r, (x.again == x.first && out1.os.o_id == x.first) || r->kase == 'B',
                "P3 (phantom): Order-Status (T1) read the customer's orders again and found the "
                "one New-Order (T2) inserted (level 3 among them required)");
}

/* ---- the run ---- */

static const struct {
    const char *name, *clause;
} tests[ACID_NTESTS] = {
    { "atomicity: payment committed", "3.2.2.1" },
    { "atomicity: payment rolled back", "3.2.2.2" },
    { "atomicity: new-order committed (our extension)", "3.2.2.1" },
    { "atomicity: new-order rolled back (our extension)", "3.2.2.2" },
    { "isolation 1: new-order vs order-status, committed", "3.4.2.1" },
    { "isolation 2: new-order vs order-status, rolled back", "3.4.2.2" },
    { "isolation 3: new-order vs new-order, committed", "3.4.2.3" },
    { "isolation 4: new-order vs new-order, rolled back", "3.4.2.4" },
    { "isolation 5: delivery vs payment, committed", "3.4.2.5" },
    { "isolation 6: delivery vs payment, rolled back", "3.4.2.6" },
    { "isolation 7: new-order vs a price change", "3.4.2.7" },
    { "isolation 8: phantom, delivery vs new-order", "3.4.2.8" },
    { "isolation 9: phantom, order-status vs new-order", "3.4.2.9" },
};

/* The server session of c (acid_backend's text, run once unprepared), 0
 * where the dialect cannot ask. */
static int conn_backend(struct acid *a, struct db_conn *c, int64_t *out, struct err *e)
{
    const struct dialect_sub *sb = &a->ad.sub[AS_BACKEND][0];
    int rc;

    *out = 0;
    if (!a->ad.sql[AS_BACKEND])
        return 0;
    if ((rc = db_query(c, (c->ops->flags & DB_F_QMARK) ? sb->qmark : sb->dollar, NULL, 0, e)) < 0)
        return rc;
    if (db_next(c) == 1)
        *out = db_col_int(c, 0);
    return db_end_reads(c, e);
}

/*
 * Whether acid_waiting answers here: asked once about c2's session (the
 * user may lack the right, as MariaDB's innodb_trx wants PROCESS); when it
 * does not, the watch takes a transaction still running after 10 s as
 * waiting, and a test's line says why it could not ask.  The interval
 * between questions is acid_wait_poll_ms where the dialect has it.
 */
static int ask_probe(struct acid *a, struct err *e)
{
    const struct dialect_sub *sb = &a->ad.sub[AS_POLL_MS][0];
    struct err pe;
    int rc;

    a->ask_every_us = ACID_POLL_US;
    snprintf(a->no_ask, sizeof(a->no_ask),
             "still running after 10 s (the dialect cannot ask for lock waits)");
    if (!a->ad.sql[AS_WAITING] || a->backend2 <= 0)
        return 0;
    if (a->ad.sql[AS_POLL_MS]) {
        int64_t ms = 0;
        if ((rc = db_query_int(a->cv, (a->cv->ops->flags & DB_F_QMARK) ? sb->qmark : sb->dollar,
                               &ms, e)) < 0 ||
            (rc = av_end(a, e)) < 0)
            return rc;
        if (ms > 0)
            a->ask_every_us = (uint64_t)ms * 1000u;
    }
    err_clear(&pe);
    rc = db_exec(a->cv, AS_WAITING, (const struct db_param[]){ DBP_INT(a->backend2) }, 1, &pe);
    if (rc == 0) {
        while (db_next(a->cv) == 1)
            ;
        if ((rc = av_end(a, e)) < 0)
            return rc;
    } else {
        struct err ignore;
        if (rc == E_CONN) {
            *e = pe;
            return rc;
        }
        db_rollback(a->cv, &ignore);
        snprintf(a->no_ask, sizeof(a->no_ask), "still running after 10 s (asking the database "
                 "for lock waits failed: %.240s)", pe.msg);
        return 0;
    }
    a->can_ask = 1;
    a->asked_us = clock_us();
    return 0;
}

/* A connection for the transactions: the run's isolation level and (with
 * prepare) mode. */
static int conn_txn(struct acid *a, const char *app, int prepare, struct db_conn **out,
                    struct err *e)
{
    struct db_connect_args args = *a->s->args;
    int rc;

    args.app_name = app;
    if ((rc = db_connect(a->s->ops, &a->td, &args, out, e)) < 0)
        return rc;
    if ((rc = db_set_isolation(*out, a->s->level, txn_isolation_stmt(a->s->level), e)) < 0 ||
        (prepare && (rc = txn_prepare(*out, a->s->mode, e)) < 0) ||
        (rc = db_end_reads(*out, e)) < 0)
        return rc;
    return 0;
}

static int acid_open(struct acid *a, struct err *e)
{
    struct db_connect_args args = *a->s->args;
    int rc, found;

    if ((rc = txn_dialect_load(&a->td, a->s->dialect, e)) < 0 ||
        (rc = dialect_load(&a->ad, a->s->dialect, "acid", acid_names, AS_NSTMTS, e)) < 0)
        return rc;
    args.app_name = "tpccbench acid (reads)";
    if ((rc = db_connect(a->s->ops, &a->ad, &args, &a->cv, e)) < 0)
        return rc;
    /* The level, as a run picks it: the one set, else read committed where
     * the DBMS offers it, else the weakest it offers above. */
    {
        const char *name = a->s->isolation;
        a->s->level_why[0] = '\0';
        if (!a->s->isolation_set &&
            (rc = db_isolation_default(&a->cv->caps, a->cv->server_name, &name, a->s->level_why,
                                       ACID_LEVEL_LEN, e)) < 0)
            return rc;
        snprintf(a->s->level, ACID_LEVEL_LEN, "%s", name);
    }
    if ((rc = conn_txn(a, "tpccbench acid (T3)", 0, &a->c3, e)) < 0 ||
        (rc = conn_txn(a, "tpccbench acid (T1)", 1, &a->c1, e)) < 0 ||
        (rc = conn_txn(a, "tpccbench acid (T2)", 1, &a->c2, e)) < 0 ||
        (rc = conn_backend(a, a->c2, &a->backend2, e)) < 0 ||
        (rc = conn_backend(a, a->c3, &a->backend3, e)) < 0)
        return rc;
    if ((rc = ask_probe(a, e)) < 0)
        return rc;
    /* New-order rows a test that died left set aside go back first. */
    if ((rc = AQ(AS_BACK, &found, DBP_INT(0))) < 0)
        return rc;
    return av_end(a, e);
}

static void acid_close(struct acid *a)
{
    db_close(a->c1);
    db_close(a->c2);
    db_close(a->c3);
    db_close(a->cv);
    if (a->td.text)
        dialect_release(&a->td);
    if (a->ad.text)
        dialect_release(&a->ad);
}

int acid_run(const struct acid_setup *s, unsigned which, struct acid_result *r, struct err *e)
{
    struct acid a;
    int rc;

    memset(&a, 0, sizeof(a));
    a.s = s;
    rng_init(&a.r, s->seed);
    for (int i = 0; i < ACID_NTESTS; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        r[i].name = tests[i].name;
        r[i].clause = tests[i].clause;
        snprintf(r[i].why, sizeof(r[i].why), "not asked for (--tests)");
    }
    if ((rc = acid_open(&a, e)) < 0) {
        acid_close(&a);
        return rc;
    }
    for (int i = 0; i < ACID_NTESTS; i++) {
        if (!(which & (i < 4 ? ACID_ATOMICITY : ACID_ISOLATION)))
            continue;
        r[i].why[0] = '\0';
        switch (i) {
        case 0: case 1: atom_payment(&a, i == 1, &r[i]); break;
        case 2: case 3: atom_new_order(&a, i == 3, &r[i]); break;
        case 4: case 5: iso_ostatus(&a, i == 5, &r[i]); break;
        case 6: case 7: iso_new_orders(&a, i == 7, &r[i]); break;
        case 8: case 9: iso_delivery(&a, i == 9, &r[i]); break;
        case 10: iso_price(&a, &r[i]); break;
        case 11: iso_phantom_delivery(&a, &r[i]); break;
        default: iso_phantom_ostatus(&a, &r[i]); break;
        }
    }
    acid_close(&a);
    return 0;
}
