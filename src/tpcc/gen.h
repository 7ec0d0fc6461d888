/*
 * gen.h - the TPC-C initial population (clause 4.3) as rows of text.
 *
 * gen_table() writes every row of one table for one warehouse (ITEM: all of
 * it) in the bulk format of db.h (tab-separated, \N for NULL, one row per
 * line), or with sink.binary in PostgreSQL's binary COPY format (the
 * tuples; gen_copy_begin/gen_copy_end write the header and the trailer),
 * into a sink that flushes full buffers.  Each (table, warehouse,
 * district) has its own random stream derived from the seed, so the rows do
 * not depend on how the work is split between jobs.  No I/O happens here.
 */
#ifndef TPCC_GEN_H
#define TPCC_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "tpcc/random.h"

enum tpcc_table {
    T_WAREHOUSE = 0,
    T_DISTRICT,
    T_CUSTOMER,
    T_HISTORY,
    T_NEW_ORDER,
    T_ORDERS,
    T_ORDER_LINE,
    T_ITEM,
    T_STOCK,
    T_NTABLES
};

/* TPC-C population constants. */
#define TPCC_ITEMS 100000
#define TPCC_DIST_PER_WH 10
#define TPCC_CUST_PER_DIST 3000
#define TPCC_ORD_PER_DIST 3000
#define TPCC_FIRST_UNDELIVERED 2101 /* orders from here on are new orders */

const char *tpcc_table_name(int table);
/* Column list in the order gen_table writes them. */
const char *tpcc_table_columns(int table);
/* Rows of table per warehouse (ITEM: total); ORDER_LINE: the expected mean. */
int64_t tpcc_table_rows(int table, int warehouses);

struct gen_ctx {
    uint64_t seed;          /* load seed: same seed, same rows */
    struct nurand_c c_load; /* NURand constants of the load */
    char now[24];           /* "YYYY-MM-DD HH:MM:SS": dates of the load */
};

/* Where rows go: put() gets whole rows only. */
struct gen_sink {
    int (*put)(void *arg, const char *buf, size_t len);
    void *arg;
    char *buf;    /* caller-owned buffer of cap bytes (>= 64 KiB) */
    size_t cap;
    size_t len;   /* bytes pending in buf */
    int64_t rows; /* rows written so far (for progress) */
    int64_t bytes;
    int binary;     /* 1: PostgreSQL's binary COPY format (DB_BULK_BINARY); 0: text */
    int64_t now_us; /* binary: the load's date as a PostgreSQL timestamp (set by gen_table) */
};

/* Write table's rows for warehouse w (ignored for ITEM) and flush. */
int gen_table(const struct gen_ctx *g, int table, int w, struct gen_sink *s);
/* Binary format only (nothing in text): the header, before the first row of
 * one COPY, into the empty buffer; the trailer after its last row, then flush. */
void gen_copy_begin(struct gen_sink *s);
int gen_copy_end(struct gen_sink *s);

/* The per-order values of one district that orders and order_line share:
 * o_c_id, o_carrier_id (0 = NULL) and o_ol_cnt of o_id 1..3000. */
struct gen_orders {
    int c_id[TPCC_ORD_PER_DIST];
    unsigned char carrier[TPCC_ORD_PER_DIST];
    unsigned char ol_cnt[TPCC_ORD_PER_DIST];
};
void gen_orders_of(const struct gen_ctx *g, int w, int d, struct gen_orders *o);

#endif
