/*
 * check.c - run the consistency queries of admin.sql and judge row counts.
 * Reads only; prints nothing.
 */
#include "tpcc/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/signals.h"
#include "db/db.h"
#include "db/dialect.h"
#include "tpcc/admin.h"

static const char *const cond_text[CHECK_NCOND] = {
    "w_ytd = sum(d_ytd) per warehouse",
    "d_next_o_id - 1 = max(o_id) = max(no_o_id) per district",
    "max(no_o_id) - min(no_o_id) + 1 = count(new_order) per district",
    "sum(o_ol_cnt) = count(order_line) per district",
    "o_carrier_id is NULL exactly for orders with a new_order row",
    "o_ol_cnt = number of order lines per order",
    "ol_delivery_d is NULL exactly when o_carrier_id is NULL",
    "w_ytd = sum(h_amount) per warehouse",
    "d_ytd = sum(h_amount) per district",
    "c_balance = sum(delivered ol_amount) - sum(h_amount) per customer",
    "count(orders) - count(new_order) = 2100 per district",
    "c_balance + c_ytd_payment = sum(delivered ol_amount) per customer",
};

const char *check_cond_text(const struct check_result *r, int k)
{
    if (k == 11 && r && r->cond11_general)
        return "count(orders) - count(new_order) = 2100 + sum(c_delivery_cnt) per district "
               "(11 generalized)";
    return k >= 1 && k <= CHECK_NCOND ? cond_text[k - 1] : "?";
}

int check_parse_mask(const char *s, unsigned *mask)
{
    unsigned m = 0;
    const char *p = s;

    if (strcmp(s, "all") == 0) {
        *mask = CHECK_ALL;
        return 0;
    }
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 1 || a > CHECK_NCOND)
            return -1;
        b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b > CHECK_NCOND)
                return -1;
            p = end;
        }
        for (long k = a; k <= b; k++)
            m |= 1u << (k - 1);
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    if (!m)
        return -1;
    *mask = m;
    return 0;
}

static int check_counts(struct db_conn *c, const struct dialect *ad, struct check_result *r,
                        struct err *e)
{
    /* Column order of the counts query. */
    static const int col_table[T_NTABLES] = { T_WAREHOUSE, T_DISTRICT, T_CUSTOMER, T_HISTORY,
                                              T_NEW_ORDER, T_ORDERS, T_ORDER_LINE, T_ITEM,
                                              T_STOCK };
    int rc = db_query(c, ad->sql[A_COUNTS], NULL, 0, e);
    int w = r->warehouses;

    if (rc < 0)
        return rc;
    if (db_next(c) != 1)
        return err_set(e, E_FAIL, "row count query returned nothing");
    for (int i = 0; i < T_NTABLES; i++)
        r->counts[col_table[i]] = db_col_int(c, i);
    r->sum_ol_cnt = db_col_int(c, T_NTABLES);
    r->counts_ran = 1;
    r->counts_ok = 1;
    for (int t = 0; t < T_NTABLES; t++) {
        int64_t want = tpcc_table_rows(t, w);
        int64_t got = r->counts[t];
        int changes = t == T_HISTORY || t == T_NEW_ORDER || t == T_ORDERS || t == T_ORDER_LINE;
        int bad;

        if (t == T_ORDER_LINE)
            /* Mean 10 lines per order; the spec allows 1 % either way. */
            bad = r->fresh ? (got < want * 99 / 100 || got > want * 101 / 100) : got < want * 99 / 100;
        else if (changes && !r->fresh)
            bad = t == T_NEW_ORDER ? 0 : got < want;
        else
            bad = got != want;
        if (bad && r->counts_ok) {
            r->counts_ok = 0;
            snprintf(r->counts_detail, sizeof(r->counts_detail),
                     "%s has %lld rows, expected %s%lld for %d warehouse%s", tpcc_table_name(t),
                     (long long)got, t == T_ORDER_LINE ? "about " : "", (long long)want, w,
                     w == 1 ? "" : "s");
        }
    }
    if (r->counts_ok && r->counts[T_ORDER_LINE] != r->sum_ol_cnt) {
        r->counts_ok = 0;
        snprintf(r->counts_detail, sizeof(r->counts_detail),
                 "order_line has %lld rows but sum(o_ol_cnt) is %lld",
                 (long long)r->counts[T_ORDER_LINE], (long long)r->sum_ol_cnt);
    }
    if (!r->counts_ok)
        r->n_failed++;
    return 0;
}

/* Each table's key as the catalog shows it: a unique index on exactly
 * these columns (a primary key is one), which the index phase made. */
static int check_keys(struct db_conn *c, struct check_result *r, struct err *e)
{
    static const char *const keys[][2] = {
        { "warehouse", "w_id" },
        { "district", "d_w_id, d_id" },
        { "customer", "c_w_id, c_d_id, c_id" },
        { "new_order", "no_w_id, no_d_id, no_o_id" },
        { "orders", "o_w_id, o_d_id, o_id" },
        { "order_line", "ol_w_id, ol_d_id, ol_o_id, ol_number" },
        { "item", "i_id" },
        { "stock", "s_w_id, s_i_id" },
    };
    int found, rc;

    r->keys_ok = 1;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if ((rc = db_unique_key(c, keys[i][0], keys[i][1], &found, e)) < 0)
            return err_prefix(e, "reading the keys of %s", keys[i][0]);
        if (rc > 0)
            return 0; /* the driver cannot tell */
        r->keys_ran = 1;
        if (!found && r->keys_ok) {
            r->keys_ok = 0;
            snprintf(r->keys_detail, sizeof(r->keys_detail),
                     "%s has no unique index on (%s): did the load's index phase run?",
                     keys[i][0], keys[i][1]);
            r->n_failed++;
        }
    }
    return 0;
}

int check_run(struct db_conn *c, const struct dialect *ad, unsigned mask, struct check_result *r,
              struct err *e)
{
    int rc;
    int64_t fresh = 0;
    int auto_mask = mask == 0;

    memset(r, 0, sizeof(*r));
    if ((rc = db_query(c, ad->sql[A_META_GET], NULL, 0, e)) < 0)
        return err_prefix(e, "reading tpcc_meta (is the database loaded?)");
    if (db_next(c) != 1)
        return err_set(e, E_USAGE, "the database has no load record (tpcc_meta is empty): "
                                   "run 'tpccbench load' first");
    r->warehouses = (int)db_col_int(c, 0);
    if ((rc = db_query_int(c, ad->sql[A_FRESH], &fresh, e)) < 0)
        return rc;
    r->fresh = fresh != 0;
    if (auto_mask)
        mask = CHECK_ALL;
    /* 2100 holds only until the first Delivery: after that, its generalized form. */
    r->cond11_general = !r->fresh;
    for (int k = 1; k <= CHECK_NCOND; k++) {
        struct check_cond *cc = &r->cond[k - 1];
        int id = k == 11 && r->cond11_general ? A_COND11_RUN : A_COND1 + k - 1;
        uint64_t t0;
        if (!(mask & (1u << (k - 1))))
            continue;
        if (sig_stop_requested())
            return err_set(e, E_INTR, "interrupted before condition %d", k);
        t0 = clock_us();
        if ((rc = db_query(c, ad->sql[id], NULL, 0, e)) < 0)
            return err_prefix(e, "condition %d", k);
        cc->ran = 1;
        cc->ok = db_next(c) != 1;
        if (!cc->ok) {
            int len;
            const char *t = db_col_text(c, 0, &len);
            snprintf(cc->detail, sizeof(cc->detail), "%.*s", len, t);
            r->n_failed++;
        }
        cc->seconds = (double)(clock_us() - t0) / 1e6;
    }
    if (auto_mask && (rc = check_counts(c, ad, r, e)) == 0)
        rc = check_keys(c, r, e);
    return auto_mask ? rc : 0;
}
