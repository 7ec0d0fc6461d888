/*
 * gen.c - row generators for the nine tables, per TPC-C clause 4.3.3.1.
 *
 * Formatting is hand-rolled (no snprintf per field): the loader must outrun
 * the database's COPY.  Values never contain a tab, newline or backslash.
 * Each field is written by a put_* of its column's type, which writes it as
 * text or, with s->binary, in PostgreSQL's binary COPY format (a row's field
 * count, then each field's int32 length and its value in network order:
 * int2, int4, numeric as base-10000 digits, timestamp as microseconds since
 * 2000-01-01).  Both formats come from the same random draws, so they hold
 * the same rows.
 */
#include "tpcc/gen.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static const char *const table_names[T_NTABLES] = {
    "warehouse", "district", "customer", "history", "new_order",
    "orders", "order_line", "item", "stock",
};

static const char *const table_columns[T_NTABLES] = {
    "w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd",
    "d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, "
    "d_next_o_id",
    "c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, "
    "c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, "
    "c_payment_cnt, c_delivery_cnt, c_data",
    "h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data",
    "no_o_id, no_d_id, no_w_id",
    "o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local",
    "ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, "
    "ol_amount, ol_dist_info",
    "i_id, i_im_id, i_name, i_price, i_data",
    "s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, "
    "s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, "
    "s_data",
};

const char *tpcc_table_name(int table)
{
    return table_names[table];
}

const char *tpcc_table_columns(int table)
{
    return table_columns[table];
}

int64_t tpcc_table_rows(int table, int warehouses)
{
    static const int64_t per_wh[T_NTABLES] = { 1, 10, 30000, 30000, 9000, 30000, 300000, 0, 100000 };

    return table == T_ITEM ? TPCC_ITEMS : per_wh[table] * warehouses;
}

/* Stream identifiers (the first is the table). */
enum { S_ORDERS_SHAPE = 100 };

/* Room for the longest row (customer: ~700 bytes) plus slack. */
#define ROW_MAX 2048

static int flush(struct gen_sink *s)
{
    int rc = 0;

    if (s->len) {
        rc = s->put(s->arg, s->buf, s->len);
        s->bytes += (int64_t)s->len;
        s->len = 0;
    }
    return rc;
}

static inline void put_be16(struct gen_sink *s, int v)
{
    uint16_t n = htons((uint16_t)v);

    memcpy(s->buf + s->len, &n, 2);
    s->len += 2;
}

static inline void put_be32(struct gen_sink *s, int32_t v)
{
    uint32_t n = htonl((uint32_t)v);

    memcpy(s->buf + s->len, &n, 4);
    s->len += 4;
}

static inline void put_be64(struct gen_sink *s, int64_t v)
{
    put_be32(s, (int32_t)((uint64_t)v >> 32));
    put_be32(s, (int32_t)((uint64_t)v & 0xffffffffu));
}

/* Start a row of nfields (binary: the field count; text: nothing). */
static inline void row_begin(struct gen_sink *s, int nfields)
{
    if (s->binary)
        put_be16(s, nfields);
}

/* End a row; flush when the buffer may not hold another. */
static int row_end(struct gen_sink *s)
{
    if (!s->binary)
        s->buf[s->len - 1] = '\n'; /* replace the trailing tab */
    s->rows++;
    if (s->len + ROW_MAX > s->cap)
        return flush(s);
    return 0;
}

static inline void put_tab(struct gen_sink *s)
{
    s->buf[s->len++] = '\t';
}

/* A field written in place: open it (binary: room for its length), write
 * its bytes at s->buf + s->len, close it (binary: the length; text: a tab). */
static inline size_t field_open(struct gen_sink *s)
{
    size_t at = s->len;

    if (s->binary)
        s->len += 4;
    return at;
}

static inline void field_close(struct gen_sink *s, size_t at)
{
    if (s->binary) {
        uint32_t n = htonl((uint32_t)(s->len - at - 4));
        memcpy(s->buf + at, &n, 4);
    } else {
        put_tab(s);
    }
}

static inline void put_int(struct gen_sink *s, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t a = v < 0 ? (uint64_t)(-v) : (uint64_t)v;

    if (v < 0)
        s->buf[s->len++] = '-';
    do {
        tmp[n++] = (char)('0' + a % 10);
        a /= 10;
    } while (a);
    while (n)
        s->buf[s->len++] = tmp[--n];
    put_tab(s);
}

/* A smallint column. */
static inline void put_i2(struct gen_sink *s, int v)
{
    if (!s->binary) {
        put_int(s, v);
        return;
    }
    put_be32(s, 2);
    put_be16(s, v);
}

/* An integer column. */
static inline void put_i4(struct gen_sink *s, int32_t v)
{
    if (!s->binary) {
        put_int(s, v);
        return;
    }
    put_be32(s, 4);
    put_be32(s, v);
}

/* A numeric column in binary: ndigits, weight, sign, dscale, then the
 * base-10000 digits without leading or trailing zero digits, as the server
 * stores them.  v is the value x 10^scale, scale 0..4, |v| < 10^16. */
static void put_numeric_bin(struct gen_sink *s, int64_t v, int scale)
{
    static const uint32_t pow10[] = { 1, 10, 100, 1000, 10000 };
    uint64_t a = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
    uint64_t ip = a / pow10[scale];
    int digits[8], nd = 0, nint = 0, weight;

    /* The integer part's digits, most significant first. */
    for (uint64_t t = ip; t; t /= 10000)
        nint++;
    for (int i = nint - 1; i >= 0; i--) {
        digits[i] = (int)(ip % 10000);
        ip /= 10000;
    }
    nd = nint;
    digits[nd++] = (int)(a % pow10[scale] * pow10[4 - scale]);
    weight = nint - 1;
    /* Leading zero digits (an integer part of 0) and trailing ones go. */
    int first = 0;
    while (first < nd && digits[first] == 0) {
        first++;
        weight--;
    }
    while (nd > first && digits[nd - 1] == 0)
        nd--;
    if (nd == first)
        weight = 0;
    put_be32(s, 8 + 2 * (nd - first));
    put_be16(s, nd - first);
    put_be16(s, weight);
    put_be16(s, v < 0 && nd > first ? 0x4000 : 0);
    put_be16(s, scale);
    for (int i = first; i < nd; i++)
        put_be16(s, digits[i]);
}

/* A numeric column: v scaled by 10^scale, e.g. (1234, 2) -> "12.34". */
static inline void put_scaled(struct gen_sink *s, int64_t v, int scale)
{
    char tmp[24];
    int n = 0;
    uint64_t a = v < 0 ? (uint64_t)(-v) : (uint64_t)v;

    if (s->binary) {
        put_numeric_bin(s, v, scale);
        return;
    }
    if (v < 0)
        s->buf[s->len++] = '-';
    for (int i = 0; i < scale; i++) {
        tmp[n++] = (char)('0' + a % 10);
        a /= 10;
    }
    tmp[n++] = '.';
    do {
        tmp[n++] = (char)('0' + a % 10);
        a /= 10;
    } while (a);
    while (n)
        s->buf[s->len++] = tmp[--n];
    put_tab(s);
}

/* A text column (char, varchar). */
static inline void put_str(struct gen_sink *s, const char *p, size_t n)
{
    if (s->binary)
        put_be32(s, (int32_t)n);
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    if (!s->binary)
        put_tab(s);
}

static inline void put_null(struct gen_sink *s)
{
    if (s->binary) {
        put_be32(s, -1);
        return;
    }
    s->buf[s->len++] = '\\';
    s->buf[s->len++] = 'N';
    put_tab(s);
}

/* A timestamp column: the load's date (g->now; binary: s->now_us). */
static inline void put_now(struct gen_sink *s, const struct gen_ctx *g)
{
    if (!s->binary) {
        put_str(s, g->now, strlen(g->now));
        return;
    }
    put_be32(s, 8);
    put_be64(s, s->now_us);
}

static inline void put_astr(struct gen_sink *s, struct rng *r, int lo, int hi)
{
    size_t at = field_open(s);

    s->len += (size_t)rand_astring(r, s->buf + s->len, lo, hi);
    field_close(s, at);
}

static inline void put_nstr(struct gen_sink *s, struct rng *r, int lo, int hi)
{
    size_t at = field_open(s);

    s->len += (size_t)rand_nstring(r, s->buf + s->len, lo, hi);
    field_close(s, at);
}

static inline void put_data(struct gen_sink *s, struct rng *r, int lo, int hi)
{
    size_t at = field_open(s);

    s->len += (size_t)rand_data_original(r, s->buf + s->len, lo, hi);
    field_close(s, at);
}

static inline void put_state(struct gen_sink *s, struct rng *r)
{
    size_t at = field_open(s);

    s->buf[s->len++] = (char)('A' + rng_range(r, 0, 25));
    s->buf[s->len++] = (char)('A' + rng_range(r, 0, 25));
    field_close(s, at);
}

static inline void put_zip(struct gen_sink *s, struct rng *r)
{
    size_t at = field_open(s);

    rand_zip(r, s->buf + s->len);
    s->len += 9;
    field_close(s, at);
}

/* street_1, street_2, city, state, zip */
static void put_address(struct gen_sink *s, struct rng *r)
{
    put_astr(s, r, 10, 20);
    put_astr(s, r, 10, 20);
    put_astr(s, r, 10, 20);
    put_state(s, r);
    put_zip(s, r);
}

static int gen_item(const struct gen_ctx *g, struct gen_sink *s)
{
    struct rng r;
    int rc;

    rng_init_stream(&r, g->seed, T_ITEM, 0, 0);
    for (int i = 1; i <= TPCC_ITEMS; i++) {
        row_begin(s, 5);
        put_i4(s, i);
        put_i4(s, (int32_t)rng_range(&r, 1, 10000));
        put_astr(s, &r, 14, 24);
        put_scaled(s, rng_range(&r, 100, 10000), 2);
        put_data(s, &r, 26, 50);
        if ((rc = row_end(s)) != 0)
            return rc;
    }
    return 0;
}

static int gen_warehouse(const struct gen_ctx *g, int w, struct gen_sink *s)
{
    struct rng r;

    rng_init_stream(&r, g->seed, T_WAREHOUSE, (uint64_t)w, 0);
    row_begin(s, 9);
    put_i4(s, w);
    put_astr(s, &r, 6, 10);
    put_address(s, &r);
    put_scaled(s, rng_range(&r, 0, 2000), 4);
    put_scaled(s, 30000000, 2); /* 300000.00 */
    return row_end(s);
}

static int gen_district(const struct gen_ctx *g, int w, struct gen_sink *s)
{
    struct rng r;
    int rc;

    rng_init_stream(&r, g->seed, T_DISTRICT, (uint64_t)w, 0);
    for (int d = 1; d <= TPCC_DIST_PER_WH; d++) {
        row_begin(s, 11);
        put_i2(s, d);
        put_i4(s, w);
        put_astr(s, &r, 6, 10);
        put_address(s, &r);
        put_scaled(s, rng_range(&r, 0, 2000), 4);
        put_scaled(s, 3000000, 2); /* 30000.00 */
        put_i4(s, TPCC_ORD_PER_DIST + 1);
        if ((rc = row_end(s)) != 0)
            return rc;
    }
    return 0;
}

static int gen_customer(const struct gen_ctx *g, int w, struct gen_sink *s)
{
    struct rng r;
    int rc;

    for (int d = 1; d <= TPCC_DIST_PER_WH; d++) {
        rng_init_stream(&r, g->seed, T_CUSTOMER, (uint64_t)w, (uint64_t)d);
        for (int c = 1; c <= TPCC_CUST_PER_DIST; c++) {
            int num = c <= 1000 ? c - 1 : (int)nurand(&r, 255, 0, 999, g->c_load.c_last);
            size_t at;
            row_begin(s, 21);
            put_i4(s, c);
            put_i2(s, d);
            put_i4(s, w);
            put_astr(s, &r, 8, 16);
            put_str(s, "OE", 2);
            at = field_open(s);
            s->len += (size_t)tpcc_lastname(num, s->buf + s->len);
            field_close(s, at);
            put_address(s, &r);
            put_nstr(s, &r, 16, 16);
            put_now(s, g);
            put_str(s, rng_range(&r, 1, 10) == 1 ? "BC" : "GC", 2);
            put_scaled(s, 5000000, 2); /* 50000.00 */
            put_scaled(s, rng_range(&r, 0, 5000), 4);
            put_scaled(s, -1000, 2); /* -10.00 */
            put_scaled(s, 1000, 2);  /* 10.00 */
            put_i4(s, 1);
            put_i4(s, 0);
            put_astr(s, &r, 300, 500);
            if ((rc = row_end(s)) != 0)
                return rc;
        }
    }
    return 0;
}

static int gen_history(const struct gen_ctx *g, int w, struct gen_sink *s)
{
    struct rng r;
    int rc;

    rng_init_stream(&r, g->seed, T_HISTORY, (uint64_t)w, 0);
    for (int d = 1; d <= TPCC_DIST_PER_WH; d++)
        for (int c = 1; c <= TPCC_CUST_PER_DIST; c++) {
            row_begin(s, 8);
            put_i4(s, c);
            put_i2(s, d);
            put_i4(s, w);
            put_i2(s, d);
            put_i4(s, w);
            put_now(s, g);
            put_scaled(s, 1000, 2); /* 10.00 */
            put_astr(s, &r, 12, 24);
            if ((rc = row_end(s)) != 0)
                return rc;
        }
    return 0;
}

void gen_orders_of(const struct gen_ctx *g, int w, int d, struct gen_orders *o)
{
    struct rng r;

    rng_init_stream(&r, g->seed, S_ORDERS_SHAPE, (uint64_t)w, (uint64_t)d);
    rand_permutation(&r, o->c_id, TPCC_ORD_PER_DIST);
    for (int i = 0; i < TPCC_ORD_PER_DIST; i++) {
        o->carrier[i] = i + 1 < TPCC_FIRST_UNDELIVERED ? (unsigned char)rng_range(&r, 1, 10) : 0;
        o->ol_cnt[i] = (unsigned char)rng_range(&r, 5, 15);
    }
}

static int gen_orders(const struct gen_ctx *g, int w, struct gen_sink *s)
{
    struct gen_orders o;
    int rc;

    for (int d = 1; d <= TPCC_DIST_PER_WH; d++) {
        gen_orders_of(g, w, d, &o);
        for (int i = 0; i < TPCC_ORD_PER_DIST; i++) {
            row_begin(s, 8);
            put_i4(s, i + 1);
            put_i2(s, d);
            put_i4(s, w);
            put_i4(s, o.c_id[i]);
            put_now(s, g);
            if (o.carrier[i])
                put_i2(s, o.carrier[i]);
            else
                put_null(s);
            put_i2(s, o.ol_cnt[i]);
            put_i2(s, 1);
            if ((rc = row_end(s)) != 0)
                return rc;
        }
    }
    return 0;
}

static int gen_new_order(int w, struct gen_sink *s)
{
    int rc;

    for (int d = 1; d <= TPCC_DIST_PER_WH; d++)
        for (int o = TPCC_FIRST_UNDELIVERED; o <= TPCC_ORD_PER_DIST; o++) {
            row_begin(s, 3);
            put_i4(s, o);
            put_i2(s, d);
            put_i4(s, w);
            if ((rc = row_end(s)) != 0)
                return rc;
        }
    return 0;
}

static int gen_order_line(const struct gen_ctx *g, int w, struct gen_sink *s)
{
    struct gen_orders o;
    struct rng r;
    int rc;

    for (int d = 1; d <= TPCC_DIST_PER_WH; d++) {
        gen_orders_of(g, w, d, &o);
        rng_init_stream(&r, g->seed, T_ORDER_LINE, (uint64_t)w, (uint64_t)d);
        for (int i = 0; i < TPCC_ORD_PER_DIST; i++) {
            int delivered = i + 1 < TPCC_FIRST_UNDELIVERED;
            for (int n = 1; n <= o.ol_cnt[i]; n++) {
                row_begin(s, 10);
                put_i4(s, i + 1);
                put_i2(s, d);
                put_i4(s, w);
                put_i2(s, n);
                put_i4(s, (int32_t)rng_range(&r, 1, TPCC_ITEMS));
                put_i4(s, w);
                if (delivered)
                    put_now(s, g);
                else
                    put_null(s);
                put_i2(s, 5);
                if (delivered)
                    put_scaled(s, 0, 2); /* 0.00 */
                else
                    put_scaled(s, rng_range(&r, 1, 999999), 2);
                put_astr(s, &r, 24, 24);
                if ((rc = row_end(s)) != 0)
                    return rc;
            }
        }
    }
    return 0;
}

static int gen_stock(const struct gen_ctx *g, int w, struct gen_sink *s)
{
    struct rng r;
    int rc;

    rng_init_stream(&r, g->seed, T_STOCK, (uint64_t)w, 0);
    for (int i = 1; i <= TPCC_ITEMS; i++) {
        row_begin(s, 17);
        put_i4(s, i);
        put_i4(s, w);
        put_i2(s, (int)rng_range(&r, 10, 100));
        for (int k = 0; k < 10; k++)
            put_astr(s, &r, 24, 24);
        put_i4(s, 0);
        put_i4(s, 0);
        put_i4(s, 0);
        put_data(s, &r, 26, 50);
        if ((rc = row_end(s)) != 0)
            return rc;
    }
    return 0;
}

/* The load's date as PostgreSQL's binary timestamp: microseconds since
 * 2000-01-01 00:00:00 of "YYYY-MM-DD HH:MM:SS" read as it is written (a
 * timestamp without time zone). */
static int64_t now_pg_us(const char *now)
{
    int y, mo, d, h, mi, sec;
    int64_t days, era, yoe, doy, doe;

    if (sscanf(now, "%d-%d-%d %d:%d:%d", &y, &mo, &d, &h, &mi, &sec) != 6)
        return 0;
    /* Days since 1970-01-01 of the civil date (Howard Hinnant's algorithm). */
    y -= mo <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    days = era * 146097 + doe - 719468;
    days -= 10957; /* 1970-01-01 to 2000-01-01 */
    return ((days * 24 + h) * 60 + mi) * INT64_C(60000000) + (int64_t)sec * 1000000;
}

void gen_copy_begin(struct gen_sink *s)
{
    static const char sig[11] = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0' };

    if (!s->binary)
        return;
    memcpy(s->buf + s->len, sig, sizeof(sig));
    s->len += sizeof(sig);
    put_be32(s, 0); /* flags: no OIDs */
    put_be32(s, 0); /* no header extension */
}

int gen_copy_end(struct gen_sink *s)
{
    if (s->binary)
        put_be16(s, -1);
    return flush(s);
}

int gen_table(const struct gen_ctx *g, int table, int w, struct gen_sink *s)
{
    int rc;

    if (s->binary && !s->now_us)
        s->now_us = now_pg_us(g->now);
    switch (table) {
    case T_WAREHOUSE:
        rc = gen_warehouse(g, w, s);
        break;
    case T_DISTRICT:
        rc = gen_district(g, w, s);
        break;
    case T_CUSTOMER:
        rc = gen_customer(g, w, s);
        break;
    case T_HISTORY:
        rc = gen_history(g, w, s);
        break;
    case T_NEW_ORDER:
        rc = gen_new_order(w, s);
        break;
    case T_ORDERS:
        rc = gen_orders(g, w, s);
        break;
    case T_ORDER_LINE:
        rc = gen_order_line(g, w, s);
        break;
    case T_ITEM:
        rc = gen_item(g, s);
        break;
    default:
        rc = gen_stock(g, w, s);
        break;
    }
    return rc ? rc : flush(s);
}
