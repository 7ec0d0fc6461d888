/*
 * txn.c - input generation and execution of the five transactions.
 *
 * The SQL text is in schema/<dialect>/statements.sql; this file only decides
 * which statement runs when, with which bound values, and what the rows
 * mean.  No allocation on this path: inputs, outputs and text buffers are the
 * caller's or on the stack.
 */
#include "tpcc/txn.h"

#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "db/db.h"
#include "db/dialect.h"
#include "db/schema_sql.h"

static const char *const stmt_names[S_NSTMTS] = {
    "iso_read_committed", "iso_repeatable_read", "iso_serializable",
    "no_header", "no_line", "pay_warehouse_district", "pay_customers_by_name",
    "pay_customer_history", "pay_customer_history_by_name", "os_customers_by_name",
    "os_get_customer",
    "os_last_order", "os_order_lines", "dl_oldest_new_order", "dl_delete_new_order",
    "dl_update_order", "dl_update_order_lines", "dl_update_customer", "sl_next_order_id",
    "sl_low_stock", "no_line_pipe", "os_all_by_id", "os_all_by_name", "?dl_district", "sl_all",
    "?proc_new_order", "?proc_payment", "?proc_order_status", "?proc_delivery",
    "?proc_stock_level", "run_new_orders", "run_ping", "os_begin", "os_snapshot", "?proc_version",
};

int txn_stmt_type(int id)
{
    /* By id, beside stmt_names: each statement is one transaction's. */
    static const struct {
        int first, last, type;
    } r[] = {
        { S_NO_HEADER, S_NO_LINE, TX_NEW_ORDER },
        { S_PAY_WAREHOUSE_DISTRICT, S_PAY_CUSTOMER_HISTORY_BY_NAME, TX_PAYMENT },
        { S_OS_CUSTOMERS_BY_NAME, S_OS_ORDER_LINES, TX_ORDER_STATUS },
        { S_DL_OLDEST_NEW_ORDER, S_DL_UPDATE_CUSTOMER, TX_DELIVERY },
        { S_SL_NEXT_ORDER_ID, S_SL_LOW_STOCK, TX_STOCK_LEVEL },
        { S_NO_LINE_PIPE, S_NO_LINE_PIPE, TX_NEW_ORDER },
        { S_OS_ALL_BY_ID, S_OS_ALL_BY_NAME, TX_ORDER_STATUS },
        { S_DL_DISTRICT, S_DL_DISTRICT, TX_DELIVERY },
        { S_SL_ALL, S_SL_ALL, TX_STOCK_LEVEL },
        { S_PROC_NEW_ORDER, S_PROC_NEW_ORDER, TX_NEW_ORDER },
        { S_PROC_PAYMENT, S_PROC_PAYMENT, TX_PAYMENT },
        { S_PROC_ORDER_STATUS, S_PROC_ORDER_STATUS, TX_ORDER_STATUS },
        { S_PROC_DELIVERY, S_PROC_DELIVERY, TX_DELIVERY },
        { S_PROC_STOCK_LEVEL, S_PROC_STOCK_LEVEL, TX_STOCK_LEVEL },
        /* Only Order-Status opens a read-only repeatable-read transaction. */
        { S_OS_BEGIN, S_OS_SNAPSHOT, TX_ORDER_STATUS },
    };

    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
        if (id >= r[i].first && id <= r[i].last)
            return r[i].type;
    return -1;
}

#ifdef TPCC_TEST_BROKEN
/* Test builds only (make's tpccbench-broken; never the release binary):
 * the environment's TPCC_BROKEN names transactions made wrong on purpose
 * ("payment-commits", "os-no-snapshot"), so tests/t/0045-acid.sh can
 * show that the acid tests catch them. */
static int txn_broken(const char *what)
{
    const char *b = getenv("TPCC_BROKEN");

    return b && strstr(b, what) != NULL;
}
#else
#define txn_broken(what) 0
#endif

int txn_dialect_load(struct dialect *d, const char *name, struct err *e)
{
    return dialect_load(d, name, "statements", stmt_names, S_NSTMTS, e);
}

int txn_mode_resolve(int mode, const char *dialect)
{
    if (mode != RUN_MODE_AUTO)
        return mode;
    /* Server-side functions where the dialect has them (schema/<dialect>/procedures.sql),
     * else client SQL. */
    return schema_sql(dialect, "procedures") ? RUN_MODE_PROCEDURE : RUN_MODE_CLIENT;
}

int txn_prepare(struct db_conn *c, int mode, struct err *e)
{
    int rc;

    if (mode == RUN_MODE_PIPELINE && !(c->ops->flags & DB_F_PIPELINE))
        return err_set(e, E_USAGE, "run.mode pipeline needs libpq's pipeline mode: use driver "
                                   "postgres, or mode client or procedure");
    /* What a pipeline queues must be prepared before it starts (Order-Status's
     * BEGIN too, in procedure mode). */
    if ((mode == RUN_MODE_PIPELINE || mode == RUN_MODE_PROCEDURE) &&
        (c->ops->flags & DB_F_PIPELINE) && (rc = db_prepare(c, S_OS_BEGIN, e)) < 0)
        return err_prefix(e, "preparing %s", stmt_names[S_OS_BEGIN]);
    if (mode == RUN_MODE_PIPELINE) {
        for (int id = S_NO_HEADER; id < S_PROC_NEW_ORDER; id++)
            if ((rc = db_prepare(c, id, e)) < 0)
                return err_prefix(e, "preparing %s", stmt_names[id]);
    } else if (mode == RUN_MODE_PROCEDURE) {
        int64_t version = 0;
        if (!schema_sql(c->dialect->name, "procedures"))
            return err_set(e, E_USAGE,
                           "run.mode procedure: the %s dialect has no server-side functions "
                           "(schema/%s/procedures.sql): use mode client",
                           c->dialect->name, c->dialect->name);
        for (int id = S_PROC_NEW_ORDER; id <= S_PROC_STOCK_LEVEL; id++)
            if ((rc = db_prepare(c, id, e)) < 0) {
                char why[sizeof(e->msg)];
                /* A lost connection, or a usage error that says itself what
                 * is wrong (a pooler and prepared statements). */
                if (rc == E_CONN || rc == E_USAGE)
                    return rc;
                snprintf(why, sizeof(why), "%.300s", e->msg);
                return err_set(e, E_USAGE,
                               "run.mode procedure: the TPC-C server-side functions are not "
                               "installed (%s): run 'tpccbench install-procedures' or load again",
                               why);
            }
        /* Functions of another version return other columns. */
        rc = db_exec(c, S_PROC_VERSION, NULL, 0, e);
        if (rc == E_CONN)
            return rc;
        if (rc == 0 && db_next(c) == 1)
            version = db_col_int(c, 0);
        if (rc == 0)
            rc = db_end_reads(c, e);
        else if (!(c->ops->flags & DB_F_AUTOCOMMIT)) {
            struct err ignore;
            db_rollback(c, &ignore);
        }
        if (rc < 0 || version != TXN_PROC_VERSION)
            return err_set(e, E_USAGE,
                           "run.mode procedure: the TPC-C server-side functions are %s, this "
                           "tpccbench needs version %d: run 'tpccbench install-procedures'",
                           rc < 0 ? "from an older tpccbench" : "of another version",
                           TXN_PROC_VERSION);
    }
    return 0;
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

int64_t txn_no_total_cents(int64_t sum_cents, int64_t c_discount, int64_t w_tax, int64_t d_tax)
{
    /* At most 15 x 10 x 100.00 = 1.5e6 cents x 10^4 x 1.4 10^4: far from overflow. */
    return (sum_cents * (10000 - c_discount) * (10000 + w_tax + d_tax) + 50000000) / 100000000;
}

/* New-Order line i's brand-generic (clause 2.4.2.2) from a no_line row:
 * 'B' when both i_data (column 1) and s_data (column 3) contain "ORIGINAL". */
static char no_line_brand(struct db_conn *c)
{
    int ilen, slen;
    const char *idata = db_col_text(c, 1, &ilen), *sdata;

    if (!contains_original(idata, ilen))
        return 'G';
    sdata = db_col_text(c, 3, &slen);
    return contains_original(sdata, slen) ? 'B' : 'G';
}

/* Column col of the current row as text into buf (cap bytes, cut to fit). */
static void col_copy(struct db_conn *c, int col, char *buf, size_t cap)
{
    int len;
    const char *t = db_col_text(c, col, &len);
    size_t n = len < 0 ? 0 : (size_t)len;

    if (n >= cap)
        n = cap - 1;
    memcpy(buf, t, n);
    buf[n] = '\0';
}

/* The customer's columns c_id, c_balance, c_first, c_middle, c_last at
 * column base of the current row (client mode's customer statements). */
static void os_customer(struct db_conn *c, struct os_output *os)
{
    os->c_id = (int)db_col_int(c, 0);
    os->c_balance_cents = db_col_num(c, 1, 2);
    col_copy(c, 2, os->c_first, sizeof(os->c_first));
    col_copy(c, 3, os->c_middle, sizeof(os->c_middle));
    col_copy(c, 4, os->c_last, sizeof(os->c_last));
}

/* An order line from columns ol_i_id, ol_supply_w_id, ol_quantity,
 * ol_amount, ol_delivery_d starting at base. */
static void os_line(struct db_conn *c, int base, struct os_output *os)
{
    struct os_line *l;

    if (os->ol_cnt >= NO_MAX_ITEMS)
        return;
    l = &os->lines[os->ol_cnt++];
    l->i_id = (int)db_col_int(c, base);
    l->supply_w_id = (int)db_col_int(c, base + 1);
    l->quantity = (int)db_col_int(c, base + 2);
    l->amount_cents = db_col_num(c, base + 3, 2);
    l->delivered = !db_col_isnull(c, base + 4);
    if (l->delivered)
        col_copy(c, base + 4, l->delivery_d, sizeof(l->delivery_d));
    else
        l->delivery_d[0] = '\0';
}

/* Order-Status's rows in one result (pipeline and procedure mode): c_id,
 * c_first, c_middle, c_last, c_balance, o_id, o_entry_d, o_carrier_id, then
 * the line's five columns, one row per line. */
static int os_rows(struct db_conn *c, struct os_output *os, struct err *e)
{
    memset(os, 0, sizeof(*os));
    while (db_next(c) == 1) {
        if (os->ol_cnt == 0) {
            os->c_id = (int)db_col_int(c, 0);
            col_copy(c, 1, os->c_first, sizeof(os->c_first));
            col_copy(c, 2, os->c_middle, sizeof(os->c_middle));
            col_copy(c, 3, os->c_last, sizeof(os->c_last));
            os->c_balance_cents = db_col_num(c, 4, 2);
            os->o_id = (int)db_col_int(c, 5);
            col_copy(c, 6, os->o_entry_d, sizeof(os->o_entry_d));
            os->o_carrier_id = db_col_isnull(c, 7) ? 0 : (int)db_col_int(c, 7);
        }
        os_line(c, 8, os);
    }
    return os->ol_cnt ? 0 : err_set(e, E_FAIL, "order-status found no order");
}

/* Open Order-Status's transaction: read only, repeatable read, so that all
 * its reads see one snapshot (clause 3.4: at read committed each statement
 * sees its own, and a Delivery committed between the order and its lines
 * would show the order both undelivered and delivered).  With autocommit
 * the dialect's BEGIN does it; otherwise the first statement of the
 * transaction the driver opens. */
static int os_begin(struct db_conn *c, struct err *e)
{
    int rc;

    if (txn_broken("os-no-snapshot"))
        return db_begin(c, e); /* broken: each statement its own snapshot at read committed */
    if (c->ops->flags & DB_F_AUTOCOMMIT)
        return db_exec(c, S_OS_BEGIN, NULL, 0, e);
    if ((rc = db_begin(c, e)) < 0)
        return rc;
    /* Already one snapshot per transaction at the connection's level
     * (SQLite has no other than serializable, and no SET TRANSACTION). */
    if (c->caps.txn_level >= DB_ISO_REPEATABLE_READ)
        return 0;
    return db_exec(c, S_OS_SNAPSHOT, NULL, 0, e);
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
        /* The spec's brand-generic output, shown to the terminal, not stored. */
        out->no_brand[i] = no_line_brand(c);
        total += db_col_num(c, 4, 2);
    }
    out->no_brand[no->ol_cnt] = '\0';
    if ((rc = db_commit(c, e)) < 0)
        return rc;
    out->no_total_cents = txn_no_total_cents(total, c_discount, w_tax, d_tax);
    out->no_o_id = o_id;
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
    int rc, c_id = p->c_id;

    EXEC(S_PAY_WAREHOUSE_DISTRICT, DBP_INT(p->w_id), DBP_INT(p->d_id),
         DBP_NUM(p->amount_cents, 2));
    ONE_ROW("warehouse or district");
    if (p->by_name && (rc = pick_by_name(c, S_PAY_CUSTOMERS_BY_NAME, p->c_w_id, p->c_d_id,
                                         p->c_last, &c_id, e)) < 0)
        goto fail;
    /* c_data and h_data (w_name + 4 spaces + d_name) are built in SQL, the
     * same text in every mode. */
    EXEC(S_PAY_CUSTOMER_HISTORY, DBP_INT(p->c_w_id), DBP_INT(p->c_d_id), DBP_INT(c_id),
         DBP_NUM(p->amount_cents, 2), DBP_INT(p->d_id), DBP_INT(p->w_id));
    ONE_ROW("customer");
    return db_commit(c, e);
fail:
    return rc;
}

static int exec_order_status(struct db_conn *c, const struct os_input *o, struct os_output *os,
                             struct err *e)
{
    int rc;

    memset(os, 0, sizeof(*os));
    if (o->by_name) {
        /* Position ceil(n/2) in c_first order (clause 2.6.2.2), as pick_by_name();
         * the rows come once, so the columns of the first 128 are kept. */
        struct {
            int c_id;
            int64_t balance;
            char first[17], middle[3], last[17];
        } rows[128];
        int want, n = 0;

        EXEC(S_OS_CUSTOMERS_BY_NAME, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_TEXT(o->c_last));
        while (db_next(c) == 1) {
            if (n < 128) {
                rows[n].c_id = (int)db_col_int(c, 0);
                rows[n].balance = db_col_num(c, 1, 2);
                col_copy(c, 2, rows[n].first, sizeof(rows[n].first));
                col_copy(c, 3, rows[n].middle, sizeof(rows[n].middle));
                col_copy(c, 4, rows[n].last, sizeof(rows[n].last));
            }
            n++;
        }
        want = (n + 1) / 2 - 1;
        if (n == 0 || want >= 128) {
            rc = err_set(e, E_FAIL, "%d customers named %s in w_id=%d d_id=%d", n, o->c_last,
                         o->w_id, o->d_id);
            goto fail;
        }
        os->c_id = rows[want].c_id;
        os->c_balance_cents = rows[want].balance;
        memcpy(os->c_first, rows[want].first, sizeof(os->c_first));
        memcpy(os->c_middle, rows[want].middle, sizeof(os->c_middle));
        memcpy(os->c_last, rows[want].last, sizeof(os->c_last));
    } else {
        EXEC(S_OS_GET_CUSTOMER, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_INT(o->c_id));
        ONE_ROW("customer");
        os_customer(c, os);
    }
    EXEC(S_OS_LAST_ORDER, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_INT(os->c_id));
    ONE_ROW("order of customer");
    os->o_id = (int)db_col_int(c, 0);
    col_copy(c, 1, os->o_entry_d, sizeof(os->o_entry_d));
    os->o_carrier_id = db_col_isnull(c, 2) ? 0 : (int)db_col_int(c, 2);
    EXEC(S_OS_ORDER_LINES, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_INT(os->o_id));
    while (db_next(c) == 1)
        os_line(c, 0, os);
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

static int exec_client(struct db_conn *c, const struct txn_input *in, struct txn_output *out,
                       struct err *e)
{
    uint64_t t0;
    int rc;

    out->rolled_back = 0;
    out->commit_sent = 0;
    rc = in->type == TX_ORDER_STATUS ? os_begin(c, e) : db_begin(c, e);
    if (rc < 0) {
        /* Without autocommit the failed statement left a transaction open. */
        if (rc != E_CONN && !(c->ops->flags & DB_F_AUTOCOMMIT)) {
            struct err ignore;
            db_rollback(c, &ignore);
        }
        return rc;
    }
    t0 = clock_us();
    switch (in->type) {
    case TX_NEW_ORDER:
        rc = exec_new_order(c, &in->u.no, out, e);
        break;
    case TX_PAYMENT:
        rc = exec_payment(c, &in->u.pay, e);
        break;
    case TX_ORDER_STATUS:
        rc = exec_order_status(c, &in->u.os, &out->os, e);
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
    /* Roll back after any failure, a failed COMMIT too: it ends the
     * transaction on PostgreSQL (the ROLLBACK then only draws a warning, not
     * shown), but SQLite keeps the transaction open after a COMMIT refused
     * as busy, so that it can be tried again; the retry on this connection
     * would then commit the failed attempt's writes with its own (a
     * New-Order twice, counted once). */
    if (rc < 0 && rc != E_CONN) {
        struct err ignore;
        db_rollback(c, &ignore);
    }
    return rc;
}

/* ---- pipeline mode: a transaction's statements in one round trip ---- */

/* Queue statement id with parameters into the open pipeline. */
#define PIPE(id, ...)                                                                              \
    do {                                                                                           \
        const struct db_param p_[] = { __VA_ARGS__ };                                              \
        if ((rc = db_pipe_exec(c, (id), p_, (int)(sizeof(p_) / sizeof(p_[0])), e)) < 0)            \
            return rc;                                                                             \
    } while (0)

/* Send the pipeline; on failure roll back what BEGIN opened (unless the
 * connection is gone) and report whether COMMIT had been queued. */
static int pipe_run(struct db_conn *c, int *n_ok, struct txn_output *out, struct err *e)
{
    int rc = db_pipe_sync(c, n_ok, e);

    if (rc < 0) {
        out->commit_sent = rc == E_CONN;
        if (rc != E_CONN) {
            struct err ignore;
            /* Keep the first error: the rollback's own status does not matter. */
            db_rollback(c, &ignore);
        }
    }
    return rc;
}

static int pipe_new_order(struct db_conn *c, const struct no_input *no, struct txn_output *out,
                          struct err *e)
{
    int64_t w_tax, d_tax, c_discount, total = 0;
    int rc, n_ok;

    if ((rc = db_pipe_begin(c, e)) < 0)
        return rc;
    PIPE(DB_PIPE_BEGIN, DBP_NULL());
    PIPE(S_NO_HEADER, DBP_INT(no->w_id), DBP_INT(no->d_id), DBP_INT(no->c_id),
         DBP_INT(no->ol_cnt), DBP_INT(no->all_local));
    for (int i = 0; i < no->ol_cnt; i++) {
        const struct no_item *it = &no->items[i];
        PIPE(S_NO_LINE_PIPE, DBP_INT(it->i_id), DBP_INT(it->supply_w_id), DBP_INT(it->quantity),
             DBP_INT(it->supply_w_id != no->w_id), DBP_INT(no->d_id), DBP_INT(no->w_id),
             DBP_INT(i + 1));
    }
    PIPE(DB_PIPE_COMMIT, DBP_NULL());
    rc = pipe_run(c, &n_ok, out, e);
    /* The unused item raises division_by_zero on the last line, after every
     * valid line ran (BEGIN + header + ol_cnt - 1 lines): the spec's rollback. */
    if (rc < 0 && no->rollback && strcmp(e->sqlstate, "22012") == 0 && n_ok == no->ol_cnt + 1) {
        out->rolled_back = 1;
        out->commit_sent = 0;
        return 0;
    }
    if (rc < 0)
        return rc;
    if (db_pipe_result(c, 1) < 0 || db_next(c) != 1)
        return err_set(e, E_FAIL, "new-order header returned no row (committed)");
    w_tax = db_col_num(c, 0, 4);
    d_tax = db_col_num(c, 1, 4);
    out->no_o_id = (int)db_col_int(c, 2);
    c_discount = db_col_num(c, 3, 4);
    for (int i = 0; i < no->ol_cnt; i++) {
        out->no_brand[i] = '?';
        if (db_pipe_result(c, 2 + i) == 0 && db_next(c) == 1) {
            out->no_brand[i] = no_line_brand(c);
            total += db_col_num(c, 4, 2);
        }
    }
    out->no_brand[no->ol_cnt] = '\0';
    out->no_total_cents = txn_no_total_cents(total, c_discount, w_tax, d_tax);
    return 0;
}

/* Order-Status in one round trip: its read-only repeatable-read BEGIN, the
 * statement id (one statement, or the server-side function) and COMMIT, in
 * one pipeline. */
static int pipe_order_status(struct db_conn *c, int id, const struct os_input *o,
                             struct txn_output *out, struct err *e)
{
    int rc, n_ok;

    if ((rc = db_pipe_begin(c, e)) < 0)
        return rc;
    PIPE(S_OS_BEGIN, DBP_NULL());
    /* The function takes c_id 0 and a name, the one statement either. */
    if (id == S_PROC_ORDER_STATUS)
        PIPE(id, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_INT(o->by_name ? 0 : o->c_id),
             DBP_TEXT(o->by_name ? o->c_last : ""));
    else if (o->by_name)
        PIPE(id, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_TEXT(o->c_last));
    else
        PIPE(id, DBP_INT(o->w_id), DBP_INT(o->d_id), DBP_INT(o->c_id));
    PIPE(DB_PIPE_COMMIT, DBP_NULL());
    rc = pipe_run(c, &n_ok, out, e);
    /* Read only: a lost connection leaves no outcome to wonder about. */
    out->commit_sent = 0;
    if (rc < 0)
        return rc;
    if (db_pipe_result(c, 1) < 0)
        return err_set(e, E_FAIL, "order-status returned no result");
    return os_rows(c, &out->os, e);
}

static int pipe_payment(struct db_conn *c, const struct pay_input *p, struct txn_output *out,
                        struct err *e)
{
    int rc, n_ok;

    if ((rc = db_pipe_begin(c, e)) < 0)
        return rc;
    PIPE(DB_PIPE_BEGIN, DBP_NULL());
    PIPE(S_PAY_WAREHOUSE_DISTRICT, DBP_INT(p->w_id), DBP_INT(p->d_id),
         DBP_NUM(p->amount_cents, 2));
    if (p->by_name)
        PIPE(S_PAY_CUSTOMER_HISTORY_BY_NAME, DBP_INT(p->c_w_id), DBP_INT(p->c_d_id),
             DBP_TEXT(p->c_last), DBP_NUM(p->amount_cents, 2), DBP_INT(p->d_id),
             DBP_INT(p->w_id));
    else
        PIPE(S_PAY_CUSTOMER_HISTORY, DBP_INT(p->c_w_id), DBP_INT(p->c_d_id), DBP_INT(p->c_id),
             DBP_NUM(p->amount_cents, 2), DBP_INT(p->d_id), DBP_INT(p->w_id));
    PIPE(DB_PIPE_COMMIT, DBP_NULL());
    if ((rc = pipe_run(c, &n_ok, out, e)) < 0)
        return rc;
    if (db_pipe_result(c, 2) < 0 || db_next(c) != 1)
        return err_set(e, E_FAIL, "payment found no customer (committed)");
    return 0;
}

static int pipe_delivery(struct db_conn *c, const struct dl_input *dl, struct txn_output *out,
                         struct err *e)
{
    int todo[10], ntodo = 10, rc, n_ok;

    for (int d = 0; d < 10; d++)
        todo[d] = d + 1;
    out->n_skipped = 0;
    /* A district whose oldest order a concurrent delivery took first is done
     * again in a further transaction (the spec allows up to 10). */
    for (int round = 0; ntodo > 0 && round < 5; round++) {
        int again[10], nagain = 0;
        if ((rc = db_pipe_begin(c, e)) < 0)
            return rc;
        PIPE(DB_PIPE_BEGIN, DBP_NULL());
        for (int k = 0; k < ntodo; k++)
            PIPE(S_DL_DISTRICT, DBP_INT(dl->w_id), DBP_INT(todo[k]), DBP_INT(dl->carrier_id));
        PIPE(DB_PIPE_COMMIT, DBP_NULL());
        if ((rc = pipe_run(c, &n_ok, out, e)) < 0)
            return rc;
        for (int k = 0; k < ntodo; k++) {
            int d = todo[k];
            if (db_pipe_result(c, 1 + k) < 0 || db_next(c) != 1)
                return err_set(e, E_FAIL, "delivery of district %d returned no row", d);
            if (!db_col_isnull(c, 0)) {
                out->delivered[d - 1] = (int)db_col_int(c, 0);
            } else if (db_col_int(c, 2) > 0) {
                again[nagain++] = d;
            } else {
                out->delivered[d - 1] = 0;
                out->n_skipped++;
            }
        }
        memcpy(todo, again, sizeof(again));
        ntodo = nagain;
    }
    for (int k = 0; k < ntodo; k++) {
        out->delivered[todo[k] - 1] = 0;
        out->n_skipped++;
    }
    return 0;
}

static int exec_pipeline(struct db_conn *c, const struct txn_input *in, struct txn_output *out,
                         struct err *e)
{
    int rc;

    switch (in->type) {
    case TX_NEW_ORDER:
        return pipe_new_order(c, &in->u.no, out, e);
    case TX_PAYMENT:
        return pipe_payment(c, &in->u.pay, out, e);
    case TX_ORDER_STATUS:
        /* One statement sees one snapshot; the transaction around it makes
         * Order-Status repeatable read in every mode. */
        return pipe_order_status(c, in->u.os.by_name ? S_OS_ALL_BY_NAME : S_OS_ALL_BY_ID,
                                 &in->u.os, out, e);
    case TX_DELIVERY:
        return pipe_delivery(c, &in->u.dl, out, e);
    default: {
        const struct sl_input *sl = &in->u.sl;
        rc = db_exec(c, S_SL_ALL,
                     (const struct db_param[]){ DBP_INT(sl->w_id), DBP_INT(sl->d_id),
                                                DBP_INT(sl->threshold) },
                     3, e);
        if (rc == 0 && db_next(c) == 1)
            out->sl_low_stock = db_col_int(c, 0);
        return rc;
    }
    }
}

/* ---- procedure mode: one server-side function call per transaction ---- */

/* Order-Status's function inside its read-only repeatable-read transaction:
 * one pipeline where the driver has them (one round trip), else BEGIN (or
 * the snapshot statement), the call, COMMIT. */
static int proc_order_status(struct db_conn *c, const struct os_input *o,
                             struct txn_output *out, struct err *e)
{
    int rc;

    if (c->ops->flags & DB_F_PIPELINE)
        return pipe_order_status(c, S_PROC_ORDER_STATUS, o, out, e);
    rc = os_begin(c, e);
    if (rc == 0)
        rc = db_exec(c, S_PROC_ORDER_STATUS,
                     (const struct db_param[]){ DBP_INT(o->w_id), DBP_INT(o->d_id),
                                                DBP_INT(o->by_name ? 0 : o->c_id),
                                                DBP_TEXT(o->by_name ? o->c_last : "") },
                     4, e);
    if (rc == 0)
        rc = os_rows(c, &out->os, e);
    if (rc == 0) {
        rc = db_commit(c, e);
    } else if (rc != E_CONN) {
        struct err ignore;
        db_rollback(c, &ignore);
    }
    out->commit_sent = 0;
    return rc;
}

/* The call of a server-side function for in (not Order-Status, which runs
 * in its own read-only transaction): its statement id, its parameters in
 * prm (New-Order's item arrays in ids, sup, qty) and their count. */
struct proc_call {
    int id, np;
    struct db_param prm[8];
    int32_t ids[NO_MAX_ITEMS], sup[NO_MAX_ITEMS], qty[NO_MAX_ITEMS]; /* New-Order's items */
};

static void proc_call_of(const struct txn_input *in, struct proc_call *pc)
{
    switch (in->type) {
    case TX_NEW_ORDER: {
        const struct no_input *no = &in->u.no;
        /* The items as three int arrays (binary int4[] on PostgreSQL: no
         * digits written or parsed), in the lock order they were drawn in. */
        for (int i = 0; i < no->ol_cnt; i++) {
            pc->ids[i] = no->items[i].i_id;
            pc->sup[i] = no->items[i].supply_w_id;
            pc->qty[i] = no->items[i].quantity;
        }
        pc->id = S_PROC_NEW_ORDER;
        pc->np = 8;
        pc->prm[0] = DBP_INT(no->w_id);
        pc->prm[1] = DBP_INT(no->d_id);
        pc->prm[2] = DBP_INT(no->c_id);
        pc->prm[3] = DBP_INT(no->ol_cnt);
        pc->prm[4] = DBP_INT(no->all_local);
        pc->prm[5] = DBP_INTS(pc->ids, no->ol_cnt);
        pc->prm[6] = DBP_INTS(pc->sup, no->ol_cnt);
        pc->prm[7] = DBP_INTS(pc->qty, no->ol_cnt);
        break;
    }
    case TX_PAYMENT: {
        const struct pay_input *p = &in->u.pay;
        pc->id = S_PROC_PAYMENT;
        pc->np = 7;
        pc->prm[0] = DBP_INT(p->w_id);
        pc->prm[1] = DBP_INT(p->d_id);
        pc->prm[2] = DBP_INT(p->c_w_id);
        pc->prm[3] = DBP_INT(p->c_d_id);
        pc->prm[4] = DBP_INT(p->by_name ? 0 : p->c_id);
        pc->prm[5] = DBP_TEXT(p->by_name ? p->c_last : "");
        pc->prm[6] = DBP_NUM(p->amount_cents, 2);
        break;
    }
    case TX_ORDER_STATUS: {
        const struct os_input *o = &in->u.os;
        /* The function takes c_id 0 and a name, or an id. */
        pc->id = S_PROC_ORDER_STATUS;
        pc->np = 4;
        pc->prm[0] = DBP_INT(o->w_id);
        pc->prm[1] = DBP_INT(o->d_id);
        pc->prm[2] = DBP_INT(o->by_name ? 0 : o->c_id);
        pc->prm[3] = DBP_TEXT(o->by_name ? o->c_last : "");
        break;
    }
    case TX_DELIVERY:
        pc->id = S_PROC_DELIVERY;
        pc->np = 2;
        pc->prm[0] = DBP_INT(in->u.dl.w_id);
        pc->prm[1] = DBP_INT(in->u.dl.carrier_id);
        break;
    default:
        pc->id = S_PROC_STOCK_LEVEL;
        pc->np = 3;
        pc->prm[0] = DBP_INT(in->u.sl.w_id);
        pc->prm[1] = DBP_INT(in->u.sl.d_id);
        pc->prm[2] = DBP_INT(in->u.sl.threshold);
        break;
    }
}

/* Read what the function's result (the current one on c) says into out. */
static int proc_read(struct db_conn *c, const struct txn_input *in, struct txn_output *out,
                     struct err *e)
{
    switch (in->type) {
    case TX_NEW_ORDER:
        if (db_next(c) == 1) {
            out->no_total_cents = db_col_int(c, 0);
            col_copy(c, 1, out->no_brand, sizeof(out->no_brand));
            out->no_o_id = (int)db_col_int(c, 2);
        }
        break;
    case TX_ORDER_STATUS:
        return os_rows(c, &out->os, e);
    case TX_DELIVERY:
        out->n_skipped = 0;
        if (db_next(c) == 1) {
            /* "{o1,o2,...,o10}" */
            int len, d = 0;
            const char *t = db_col_text(c, 0, &len), *end = t + len;
            while (t < end && d < 10) {
                char *next;
                while (t < end && (*t < '0' || *t > '9'))
                    t++;
                if (t >= end)
                    break;
                out->delivered[d] = (int)strtol(t, &next, 10);
                out->n_skipped += out->delivered[d] == 0;
                d++;
                t = next;
            }
        }
        break;
    case TX_STOCK_LEVEL:
        if (db_next(c) == 1)
            out->sl_low_stock = db_col_int(c, 0);
        break;
    default:
        break;
    }
    return 0;
}

/* New-Order's unused item: the function raised TPCRB after the valid lines
 * (the spec's rollback, a success). */
static int proc_spec_rollback(const struct txn_input *in, const struct err *e)
{
    return in->type == TX_NEW_ORDER && in->u.no.rollback && strcmp(e->sqlstate, "TPCRB") == 0;
}

static int exec_procedure(struct db_conn *c, const struct txn_input *in, struct txn_output *out,
                          struct err *e)
{
    struct proc_call pc;
    int rc;

    if (in->type == TX_ORDER_STATUS)
        return proc_order_status(c, &in->u.os, out, e);
    proc_call_of(in, &pc);
    rc = db_exec(c, pc.id, pc.prm, pc.np, e);
    if (rc < 0 && proc_spec_rollback(in, e)) {
        out->rolled_back = 1;
        rc = 0;
        if (!(c->ops->flags & DB_F_AUTOCOMMIT))
            rc = db_rollback(c, e);
        return rc;
    }
    if (rc == 0)
        rc = proc_read(c, in, out, e);
    /* With autocommit the call is its own transaction; otherwise (ODBC) the
     * commit is a second round trip. */
    if (!(c->ops->flags & DB_F_AUTOCOMMIT)) {
        if (rc == 0 && (!out->rolled_back)) {
            rc = db_commit(c, e);
        } else if (rc != E_CONN) {
            struct err ignore;
            db_rollback(c, &ignore);
        }
    }
    /* A lost connection after the call (or its commit) was sent: unknown. */
    out->commit_sent = rc == E_CONN && in->type != TX_ORDER_STATUS && in->type != TX_STOCK_LEVEL;
    return rc;
}

int txn_batch_possible(const struct db_conn *c, int mode)
{
    return mode == RUN_MODE_PROCEDURE && (c->ops->flags & DB_F_PIPELINE) &&
           (c->ops->flags & DB_F_AUTOCOMMIT);
}

/* The item of s whose statements hold statement f (the last item when f is
 * past them all: a failure at the sync is its commit's). */
static int batch_item_at(const struct txn_batch_state *s, int n, int f)
{
    for (int i = 0; i < n; i++)
        if (f >= s->first[i] && f < s->first[i] + s->len[i])
            return i;
    return s->last;
}

/* Settle every item of a batch whose pipeline ended with rc (the first
 * n_ok statements succeeded); returns what txn_exec_batch returns. */
static int batch_settle(struct db_conn *c, struct txn_batch_item *b, int n,
                        struct txn_batch_state *s, int rc)
{
    uint64_t t1 = clock_us();
    int f = s->n_ok, failed;
    struct err e = s->e;

    if (rc == 0 && s->qrc < 0) {
        /* Everything queued ran; the transaction that could not be queued failed. */
        rc = s->qrc;
        e = s->qe;
        f = s->nst;
    }
    /* The call alone commits at the sync, after its result came: a failure
     * after that result (the commit's own, or a lost connection) is still
     * the call's, and not a commit. */
    failed = rc < 0 ? batch_item_at(s, n, f) : -1;
    if (failed >= 0 && s->len[failed] == 1)
        f = s->first[failed];
    for (int i = 0; i < n; i++) {
        struct txn_output *out = b[i].out;
        const struct txn_input *in = b[i].in;
        out->in_tx_us = t1 - s->t0;
        if (failed < 0 || s->first[i] < s->first[failed]) {
            b[i].rc = db_pipe_result(c, s->call[i]) == 0
                          ? proc_read(c, in, out, &b[i].e)
                          : err_set(&b[i].e, E_FAIL, "the call returned no result");
        } else if (i == failed || rc == E_CONN) {
            /* Lost: whatever was sent may have run.  Else the failure is i's. */
            b[i].e = e;
            b[i].rc = rc;
            if (rc == E_CONN) {
                out->commit_sent = in->type != TX_ORDER_STATUS && in->type != TX_STOCK_LEVEL;
            } else if (f == s->call[i] && proc_spec_rollback(in, &e)) {
                out->rolled_back = 1;
                b[i].rc = 0;
            }
        }
    }
    /* A failure inside a transaction block (its call, its commit, or a
     * chained transaction queued only in part) may have left one open: roll
     * it back (where none is, the server only warns). */
    if (failed >= 0 && rc != E_CONN && (s->len[failed] >= 2 || s->qrc < 0)) {
        struct err ignore;
        if (db_rollback(c, &ignore) == E_CONN)
            return E_CONN;
    }
    return rc == E_CONN ? E_CONN : 0;
}

/* 0 for most transactions, 1 Order-Status (a transaction of its own kind),
 * 2 a New-Order whose input rolls it back: the order in the pipeline. */
static int batch_class(const struct txn_input *in)
{
    if (in->type == TX_ORDER_STATUS)
        return 1;
    return in->type == TX_NEW_ORDER && in->u.no.rollback ? 2 : 0;
}

void txn_batch_plan(int chain, const struct txn_batch_item *b, int n, struct txn_batch_state *s,
                    struct txn_batch_plan *p)
{
    int k = 0, j = 0, open = 0;

    for (int cls = 0; cls < 3; cls++)
        for (int i = 0; i < n; i++)
            if (batch_class(b[i].in) == cls)
                p->order[j++] = i;
    for (j = 0; j < n; j++) {
        int i = p->order[j], os = b[i].in->type == TX_ORDER_STATUS;
        int chained = chain && j + 2 < n && !os &&
                      b[p->order[j + 1]].in->type != TX_ORDER_STATUS;
        if (j == n - 1 && !os) {
            p->begin[i] = p->end[i] = TXN_BATCH_NONE;
        } else {
            p->begin[i] = os ? S_OS_BEGIN : open ? TXN_BATCH_NONE : DB_PIPE_BEGIN;
            p->end[i] = chained ? DB_PIPE_COMMIT_CHAIN : DB_PIPE_COMMIT;
        }
        open = p->end[i] == DB_PIPE_COMMIT_CHAIN;
        s->first[i] = (unsigned char)k;
        s->call[i] = (unsigned char)(k + (p->begin[i] != TXN_BATCH_NONE));
        s->len[i] = (unsigned char)((p->begin[i] != TXN_BATCH_NONE) + 1 + (p->end[i] != TXN_BATCH_NONE));
        k += s->len[i];
        s->last = i;
    }
}

/* Queue the statements of one item: 0, or what db_pipe_exec returned. */
static int batch_queue(struct db_conn *c, const struct txn_input *in, int begin, int end,
                       struct txn_batch_state *s)
{
    struct proc_call pc;
    const struct db_param none[] = { DBP_NULL() };

    proc_call_of(in, &pc);
    if (begin != TXN_BATCH_NONE) {
        s->qrc = db_pipe_exec(c, begin, none, 1, &s->qe);
        s->nst += s->qrc == 0;
    }
    if (s->qrc == 0)
        s->qrc = db_pipe_exec(c, pc.id, pc.prm, pc.np, &s->qe);
    s->nst += s->qrc == 0;
    if (end != TXN_BATCH_NONE && s->qrc == 0) {
        s->qrc = db_pipe_exec(c, end, none, 1, &s->qe);
        s->nst += s->qrc == 0;
    }
    return s->qrc;
}

int txn_batch_send(struct db_conn *c, struct txn_batch_item *b, int n,
                   struct txn_batch_state *s, int *rc)
{
    struct txn_batch_plan p;
    int r;

    memset(s, 0, sizeof(*s));
    s->t0 = clock_us();
    for (int i = 0; i < n; i++) {
        memset(b[i].out, 0, sizeof(*b[i].out));
        err_clear(&b[i].e);
        b[i].rc = TXN_SKIPPED;
    }
    if (n < 1 || n > TXN_BATCH_MAX || n * 3 > DB_PIPE_MAX) {
        for (int i = 0; i < n; i++)
            b[i].rc = err_set(&b[i].e, E_FAIL, "%d transactions do not fit one pipeline", n);
        *rc = E_FAIL;
        return 1;
    }
    txn_batch_plan(c->chain, b, n, s, &p);
    err_clear(&s->qe);
    err_clear(&s->e);
    if ((r = db_pipe_begin(c, &s->e)) < 0) {
        *rc = batch_settle(c, b, n, s, r);
        return 1;
    }
    /* In the plan's order; nst counts what went in. */
    for (int j = 0; j < n && s->qrc == 0; j++)
        batch_queue(c, b[p.order[j]].in, p.begin[p.order[j]], p.end[p.order[j]], s);
    /* What was queued goes out even when a later statement could not be. */
    if (s->qrc == E_CONN) {
        s->e = s->qe;
        *rc = batch_settle(c, b, n, s, E_CONN);
        return 1;
    }
    if ((r = db_pipe_send(c, &s->e)) < 0) {
        *rc = batch_settle(c, b, n, s, r);
        return 1;
    }
    /* An injected fault took the send: nothing will come, settle now. */
    if (c->pipe_fault)
        return txn_batch_recv(c, b, n, s, rc);
    return 0;
}

int txn_batch_recv(struct db_conn *c, struct txn_batch_item *b, int n,
                   struct txn_batch_state *s, int *rc)
{
    int done = 0, r = db_pipe_recv(c, &done, &s->n_ok, &s->e);

    if (!done)
        return 0;
    *rc = batch_settle(c, b, n, s, r);
    return 1;
}

/*
 * The transactions of several terminals in one round trip (one pipeline):
 * each its own BEGIN (Order-Status: its read-only repeatable-read one), the
 * function call and COMMIT, and one Sync for all, so the server sends every
 * result at once and the worker waits once; the last one needs no block
 * (the Sync ends its implicit transaction).  A sync of its own for each
 * would make the server answer each on its own (a flush per sync) and the
 * worker wake as often.  The server skips what follows a failure until the
 * Sync: those never ran (TXN_SKIPPED) and their terminals go again; the
 * failed transaction's block is rolled back after.  The New-Orders whose
 * input rolls them back go last, so that failure skips nothing and, as
 * the last call, needs no ROLLBACK.
 */
int txn_exec_batch(struct db_conn *c, struct txn_batch_item *b, int n)
{
    struct txn_batch_state s;
    int rc = 0;

    if (txn_batch_send(c, b, n, &s, &rc))
        return rc;
    while (!txn_batch_recv(c, b, n, &s, &rc)) {
        struct pollfd pfd = { .fd = db_fd(c), .events = POLLIN };
        /* Look again every 20 ms (data a TLS layer holds back). */
        if (pfd.fd >= 0)
            poll(&pfd, 1, 20);
    }
    return rc;
}

int txn_exec(struct db_conn *c, int mode, const struct txn_input *in, struct txn_output *out,
             struct err *e)
{
    uint64_t t0;
    int rc;

    /* Broken: a Payment asked to roll back in place of its commit commits. */
    if (in->type == TX_PAYMENT && txn_broken("payment-commits"))
        c->commit_rolls_back = 0;
    if (mode == RUN_MODE_CLIENT || mode == RUN_MODE_AUTO)
        return exec_client(c, in, out, e);
    out->rolled_back = 0;
    out->commit_sent = 0;
    t0 = clock_us();
    rc = mode == RUN_MODE_PIPELINE ? exec_pipeline(c, in, out, e) : exec_procedure(c, in, out, e);
    out->in_tx_us = clock_us() - t0;
    return rc;
}

int txn_exec_retry(struct db_conn *c, int mode, const struct txn_input *in,
                   struct txn_output *out, int max_retries, const int *stop, int *retries,
                   struct err *e)
{
    uint64_t jitter = clock_us() ^ (uint64_t)(uintptr_t)out;
    int rc;

    *retries = 0;
    while (txn_retry_again(rc = txn_exec(c, mode, in, out, e), *retries, max_retries, stop)) {
        (*retries)++;
        clock_sleep_us(txn_retry_backoff_us(&jitter, *retries));
    }
    return rc;
}

uint64_t txn_retry_backoff_us(uint64_t *jitter, int k)
{
    int doublings = k < 1 ? 0 : k - 1 < 6 ? k - 1 : 6;

    return clock_jitter_us(jitter, (uint64_t)250 << doublings);
}
