/*
 * txn.c - input generation and execution of the five transactions.
 *
 * The SQL text is in schema/<dialect>/statements.sql; this file only decides
 * which statement runs when, with which bound values, and what the rows
 * mean.  No allocation on this path: inputs, outputs and text buffers are the
 * caller's or on the stack.
 */
#include "tpcc/txn.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "db/db.h"
#include "db/dialect.h"

static const char *const stmt_names[S_NSTMTS] = {
    "iso_read_committed", "iso_repeatable_read", "iso_serializable",
    "no_header", "no_line", "pay_warehouse_district", "pay_customers_by_name",
    "pay_customer_history", "os_customers_by_name", "os_get_customer",
    "os_last_order", "os_order_lines", "dl_oldest_new_order", "dl_delete_new_order",
    "dl_update_order", "dl_update_order_lines", "dl_update_customer", "sl_next_order_id",
    "sl_low_stock", "run_new_orders", "run_ping",
};

int txn_dialect_load(struct dialect *d, const char *name, struct err *e)
{
    return dialect_load(d, name, "statements", stmt_names, S_NSTMTS, e);
}

int txn_isolation_stmt(const char *isolation)
{
    if (strcmp(isolation, "serializable") == 0)
        return S_ISO_SERIALIZABLE;
    if (strcmp(isolation, "repeatable read") == 0)
        return S_ISO_REPEATABLE_READ;
    return S_ISO_READ_COMMITTED;
}

/* A random warehouse other than w (W > 1). */
static int other_warehouse(struct rng *r, int w, int nw)
{
    int o = (int)rng_range(r, 1, nw - 1);

    return o >= w ? o + 1 : o;
}

static int cmp_item(const struct no_item *a, const struct no_item *b)
{
    if (a->i_id != b->i_id)
        return a->i_id < b->i_id ? -1 : 1;
    return (a->supply_w_id > b->supply_w_id) - (a->supply_w_id < b->supply_w_id);
}

static void gen_new_order(struct rng *r, const struct txn_ctx *ctx, int w, struct no_input *no)
{
    no->w_id = w;
    no->d_id = (int)rng_range(r, 1, 10);
    no->c_id = (int)nurand(r, 1023, 1, 3000, ctx->c_run.c_id);
    no->ol_cnt = (int)rng_range(r, 5, 15);
    no->rollback = rng_range(r, 1, 100) == 1;
    no->all_local = 1;
    for (int i = 0; i < no->ol_cnt; i++) {
        struct no_item *it = &no->items[i];
        it->i_id = (int)nurand(r, 8191, 1, TPCC_ITEMS_MAX, ctx->c_run.ol_i_id);
        it->supply_w_id = w;
        if (ctx->warehouses > 1 && rng_range(r, 1, 100) == 1) {
            it->supply_w_id = other_warehouse(r, w, ctx->warehouses);
            no->all_local = 0;
        }
        it->quantity = (int)rng_range(r, 1, 10);
    }
    if (no->rollback)
        no->items[no->ol_cnt - 1].i_id = TXN_UNUSED_ITEM;
    /* Insertion sort (at most 15 items): stock rows are locked in this order. */
    for (int i = 1; i < no->ol_cnt; i++) {
        struct no_item t = no->items[i];
        int j = i - 1;
        while (j >= 0 && cmp_item(&no->items[j], &t) > 0) {
            no->items[j + 1] = no->items[j];
            j--;
        }
        no->items[j + 1] = t;
    }
}

void txn_gen(struct rng *r, const struct txn_ctx *ctx, int type, int w, int sl_d_id,
             struct txn_input *in)
{
    in->type = type;
    switch (type) {
    case TX_NEW_ORDER:
        gen_new_order(r, ctx, w, &in->u.no);
        break;
    case TX_PAYMENT: {
        struct pay_input *p = &in->u.pay;
        p->w_id = w;
        p->d_id = (int)rng_range(r, 1, 10);
        if (ctx->warehouses > 1 && rng_range(r, 1, 100) <= 15) {
            p->c_w_id = other_warehouse(r, w, ctx->warehouses);
            p->c_d_id = (int)rng_range(r, 1, 10);
        } else {
            p->c_w_id = w;
            p->c_d_id = p->d_id;
        }
        p->by_name = rng_range(r, 1, 100) <= 60;
        if (p->by_name)
            tpcc_lastname((int)nurand(r, 255, 0, 999, ctx->c_run.c_last), p->c_last);
        else
            p->c_id = (int)nurand(r, 1023, 1, 3000, ctx->c_run.c_id);
        p->amount_cents = rng_range(r, 100, 500000);
        break;
    }
    case TX_ORDER_STATUS: {
        struct os_input *o = &in->u.os;
        o->w_id = w;
        o->d_id = (int)rng_range(r, 1, 10);
        o->by_name = rng_range(r, 1, 100) <= 60;
        if (o->by_name)
            tpcc_lastname((int)nurand(r, 255, 0, 999, ctx->c_run.c_last), o->c_last);
        else
            o->c_id = (int)nurand(r, 1023, 1, 3000, ctx->c_run.c_id);
        break;
    }
    case TX_DELIVERY:
        in->u.dl.w_id = w;
        in->u.dl.carrier_id = (int)rng_range(r, 1, 10);
        break;
    default:
        in->u.sl.w_id = w;
        in->u.sl.d_id = sl_d_id;
        in->u.sl.threshold = (int)rng_range(r, 10, 20);
        break;
    }
}

/* Execute statement id; on failure the caller rolls back. */
#define EXEC(id, ...)                                                                              \
    do {                                                                                           \
        const struct db_param p_[] = { __VA_ARGS__ };                                              \
        if ((rc = db_exec(c, (id), p_, (int)(sizeof(p_) / sizeof(p_[0])), e)) < 0)                 \
            goto fail;                                                                             \
    } while (0)

/* Expect one row from the last statement. */
#define ONE_ROW(what)                                                                              \
    do {                                                                                           \
        if (db_next(c) != 1) {                                                                     \
            rc = err_set(e, E_FAIL, "%s: no row", (what));                                         \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

static int contains_original(const char *s, int len)
{
    return memmem(s, (size_t)len, "ORIGINAL", 8) != NULL;
}

static int exec_new_order(struct db_conn *c, const struct no_input *no, struct txn_output *out,
                          struct err *e)
{
    int64_t w_tax, d_tax, c_discount, total = 0;
    int o_id, rc;

    EXEC(S_NO_HEADER, DBP_INT(no->w_id), DBP_INT(no->d_id), DBP_INT(no->c_id),
         DBP_INT(no->ol_cnt), DBP_INT(no->all_local));
    ONE_ROW("warehouse, district or customer");
    w_tax = db_col_num(c, 0, 4);
    d_tax = db_col_num(c, 1, 4);
    o_id = (int)db_col_int(c, 2);
    c_discount = db_col_num(c, 3, 4);
    for (int i = 0; i < no->ol_cnt; i++) {
        const struct no_item *it = &no->items[i];
        int ilen, slen, brand_generic;
        const char *idata, *sdata;

        EXEC(S_NO_LINE, DBP_INT(it->i_id), DBP_INT(it->supply_w_id), DBP_INT(it->quantity),
             DBP_INT(it->supply_w_id != no->w_id), DBP_INT(no->d_id), DBP_INT(no->w_id),
             DBP_INT(o_id), DBP_INT(i + 1));
        if (db_next(c) != 1) {
            /* The unused item of clause 2.4.2.3: roll back the whole order. */
            if (!no->rollback || it->i_id != TXN_UNUSED_ITEM) {
                rc = err_set(e, E_FAIL, "item %d (w_id=%d) not found", it->i_id,
                             it->supply_w_id);
                goto fail;
            }
            out->rolled_back = 1;
            return db_rollback(c, e);
        }
        idata = db_col_text(c, 1, &ilen);
        sdata = db_col_text(c, 3, &slen);
        /* The spec's brand-generic output: shown to the terminal, not stored. */
        brand_generic = !contains_original(idata, ilen) || !contains_original(sdata, slen);
        (void)brand_generic;
        total += db_col_num(c, 4, 2);
    }
    if ((rc = db_commit(c, e)) < 0)
        return rc;
    /* total x (1 - c_discount) x (1 + w_tax + d_tax), rates scaled by 10^4. */
    out->no_total_cents = total * (10000 - c_discount) / 10000 * (10000 + w_tax + d_tax) / 10000;
    return 0;
fail:
    return rc;
}

/* Position ceil(n/2) (1-based) of the customers with a last name, in c_first
 * order (clause 2.5.2.2).  About 3 customers share a name per district; the
 * first 128 ids are kept, enough for any n up to 256. */
static int pick_by_name(struct db_conn *c, int id, int w, int d, const char *last, int *c_id,
                        struct err *e)
{
    int ids[128];
    int n = 0, rc;

    EXEC(id, DBP_INT(w), DBP_INT(d), DBP_TEXT(last));
    while (db_next(c) == 1) {
        if (n < 128)
            ids[n] = (int)db_col_int(c, 0);
        n++;
    }
    if (n == 0 || (n + 1) / 2 > 128)
        return err_set(e, E_FAIL, "%d customers named %s in w_id=%d d_id=%d", n, last, w, d);
    *c_id = ids[(n + 1) / 2 - 1];
    return 0;
fail:
    return rc;
}

static int exec_payment(struct db_conn *c, const struct pay_input *p, struct err *e)
{
    char h_data[32], c_new[64], amount[24];
    int wl, dl, rc, c_id = p->c_id, n;
    const char *t;

    EXEC(S_PAY_WAREHOUSE_DISTRICT, DBP_INT(p->w_id), DBP_INT(p->d_id),
         DBP_NUM(p->amount_cents, 2));
    ONE_ROW("warehouse or district");
    /* h_data = w_name + 4 spaces + d_name (clause 2.5.2.2). */
    t = db_col_text(c, 0, &wl);
    wl = wl > 10 ? 10 : wl;
    memcpy(h_data, t, (size_t)wl);
    memcpy(h_data + wl, "    ", 4);
    t = db_col_text(c, 1, &dl);
    dl = dl > 10 ? 10 : dl;
    memcpy(h_data + wl + 4, t, (size_t)dl);
    if (p->by_name && (rc = pick_by_name(c, S_PAY_CUSTOMERS_BY_NAME, p->c_w_id, p->c_d_id,
                                         p->c_last, &c_id, e)) < 0)
        goto fail;
    db_format_scaled(amount, sizeof(amount), p->amount_cents, 2);
    n = snprintf(c_new, sizeof(c_new), "%d %d %d %d %d %s ", c_id, p->c_d_id, p->c_w_id, p->d_id,
                 p->w_id, amount);
    EXEC(S_PAY_CUSTOMER_HISTORY, DBP_INT(p->c_w_id), DBP_INT(p->c_d_id), DBP_INT(c_id),
         DBP_NUM(p->amount_cents, 2), DBP_TEXTN(c_new, n), DBP_INT(p->d_id), DBP_INT(p->w_id),
         DBP_TEXTN(h_data, wl + 4 + dl));
    ONE_ROW("customer");
    return db_commit(c, e);
fail:
    return rc;
}

static int exec_order_status(struct db_conn *c, const struct os_input *o, struct err *e)
{
    int rc, c_id = o->c_id, o_id;

    if (o->by_name) {
        if ((rc = pick_by_name(c, S_OS_CUSTOMERS_BY_NAME, o->w_id, o->d_id, o->c_last, &c_id,
                               e)) < 0)
            goto fail;
    } else {
        EXEC(S_OS_GET_CUSTOMER, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_INT(c_id));
        ONE_ROW("customer");
    }
    EXEC(S_OS_LAST_ORDER, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_INT(c_id));
    ONE_ROW("order of customer");
    o_id = (int)db_col_int(c, 0);
    EXEC(S_OS_ORDER_LINES, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_INT(o_id));
    while (db_next(c) == 1)
        ;
    return db_commit(c, e);
fail:
    return rc;
}

static int exec_delivery(struct db_conn *c, const struct dl_input *dl, struct txn_output *out,
                         struct err *e)
{
    int rc;

    out->n_skipped = 0;
    for (int d = 1; d <= 10; d++) {
        int o_id = 0, c_id;
        int64_t sum;

        /* A concurrent delivery may take the oldest order between our read and
         * our delete: then the delete removes nothing and we look again. */
        for (int tries = 0; tries < 10; tries++) {
            EXEC(S_DL_OLDEST_NEW_ORDER, DBP_INT(dl->w_id), DBP_INT(d));
            if (db_next(c) != 1 || db_col_isnull(c, 0)) {
                o_id = 0;
                break;
            }
            o_id = (int)db_col_int(c, 0);
            EXEC(S_DL_DELETE_NEW_ORDER, DBP_INT(dl->w_id), DBP_INT(d), DBP_INT(o_id));
            if (db_affected(c) == 1)
                break;
            o_id = 0;
        }
        out->delivered[d - 1] = o_id;
        if (!o_id) {
            out->n_skipped++;
            continue;
        }
        EXEC(S_DL_UPDATE_ORDER, DBP_INT(dl->w_id), DBP_INT(d), DBP_INT(o_id),
             DBP_INT(dl->carrier_id));
        ONE_ROW("order");
        c_id = (int)db_col_int(c, 0);
        EXEC(S_DL_UPDATE_ORDER_LINES, DBP_INT(dl->w_id), DBP_INT(d), DBP_INT(o_id));
        ONE_ROW("order lines");
        sum = db_col_num(c, 0, 2);
        EXEC(S_DL_UPDATE_CUSTOMER, DBP_INT(dl->w_id), DBP_INT(d), DBP_INT(c_id),
             DBP_NUM(sum, 2));
    }
    return db_commit(c, e);
fail:
    return rc;
}

static int exec_stock_level(struct db_conn *c, const struct sl_input *s, struct txn_output *out,
                            struct err *e)
{
    int rc;
    int64_t next;

    EXEC(S_SL_NEXT_ORDER_ID, DBP_INT(s->w_id), DBP_INT(s->d_id));
    ONE_ROW("district");
    next = db_col_int(c, 0);
    EXEC(S_SL_LOW_STOCK, DBP_INT(s->w_id), DBP_INT(s->d_id), DBP_INT(next),
         DBP_INT(s->threshold));
    ONE_ROW("stock level");
    out->sl_low_stock = db_col_int(c, 0);
    return db_commit(c, e);
fail:
    return rc;
}

int txn_exec(struct db_conn *c, const struct txn_input *in, struct txn_output *out,
             struct err *e)
{
    uint64_t t0;
    int rc;

    out->rolled_back = 0;
    out->commit_sent = 0;
    if ((rc = db_begin(c, e)) < 0)
        return rc;
    t0 = clock_us();
    switch (in->type) {
    case TX_NEW_ORDER:
        rc = exec_new_order(c, &in->u.no, out, e);
        break;
    case TX_PAYMENT:
        rc = exec_payment(c, &in->u.pay, e);
        break;
    case TX_ORDER_STATUS:
        rc = exec_order_status(c, &in->u.os, e);
        break;
    case TX_DELIVERY:
        rc = exec_delivery(c, &in->u.dl, out, e);
        break;
    default:
        rc = exec_stock_level(c, &in->u.sl, out, e);
        break;
    }
    out->in_tx_us = clock_us() - t0;
    out->commit_sent = rc == E_CONN && c->last_op == DB_OP_COMMIT;
    /* A failed COMMIT has already ended the transaction on the server. */
    if (rc < 0 && rc != E_CONN && c->last_op != DB_OP_COMMIT) {
        struct err ignore;
        db_rollback(c, &ignore);
    }
    return rc;
}

int txn_exec_retry(struct db_conn *c, const struct txn_input *in, struct txn_output *out,
                   int max_retries, const int *stop, int *retries, struct err *e)
{
    uint64_t jitter = clock_us() ^ (uint64_t)(uintptr_t)out;
    int rc;

    *retries = 0;
    while ((rc = txn_exec(c, in, out, e)) == E_RETRY && *retries < max_retries &&
           !(stop && __atomic_load_n(stop, __ATOMIC_RELAXED))) {
        /* Back off 0..(2^k x 250 us), k = retry number capped at 6 (16 ms). */
        uint64_t cap_us = 250u << (*retries < 6 ? *retries : 6);
        jitter ^= jitter << 13;
        jitter ^= jitter >> 7;
        jitter ^= jitter << 17;
        clock_sleep_us(jitter % (cap_us + 1));
        (*retries)++;
    }
    return rc;
}

int txn_pick_type(struct rng *r, const int *mix)
{
    int x = (int)rng_range(r, 0, 99), acc = 0;

    for (int t = 0; t < TX_NTYPES; t++) {
        acc += mix[t];
        if (x < acc)
            return t;
    }
    return TX_NEW_ORDER;
}
