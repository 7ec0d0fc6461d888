/*
 * check.h - the TPC-C consistency conditions (clause 3.3.2) and row counts.
 */
#ifndef TPCC_CHECK_H
#define TPCC_CHECK_H

#include <stdint.h>

#include "core/err.h"
#include "tpcc/gen.h"

struct db_conn;
struct dialect;

#define CHECK_NCOND 12
#define CHECK_ALL 0xfffu    /* conditions 1-12 (11 generalized after transactions) */
#define CHECK_1_TO_4 0xfu

struct check_cond {
    int ran;          /* 1: this condition was checked */
    int ok;           /* 1: it holds */
    double seconds;   /* time the query took */
    char detail[256]; /* the first offender when it fails */
};

struct check_result {
    int warehouses;                  /* from the database's tpcc_meta */
    int fresh;                       /* 1: no New-Order since the load */
    int cond11_general;              /* 1: 11 ran in its generalized form (not fresh) */
    struct check_cond cond[CHECK_NCOND];
    int counts_ran;
    int counts_ok;
    int64_t counts[T_NTABLES];       /* rows per table */
    int64_t sum_ol_cnt;              /* sum(o_ol_cnt) */
    char counts_detail[256];         /* first count out of range */
    int keys_ran;                    /* 1: the keys were looked up in the catalog (ODBC) */
    int keys_ok;                     /* 1: every table has its key */
    char keys_detail[256];           /* the first table without its key */
    int n_failed;                    /* conditions and counts that failed */
};

/* Human description of condition k (1-based) as r ran it (11 in the
 * generalized form when r->cond11_general; r may be NULL: the spec's form). */
const char *check_cond_text(const struct check_result *r, int k);

/* Run the conditions in mask (bit k-1 = condition k); with mask 0, all 12,
 * plus exact row counts on a fresh load, else the counts of the tables that
 * never change.  Condition 11 as the spec states it holds only until the
 * first Delivery: on a database that is not fresh it runs generalized,
 * count(orders) - count(new_order) = 2100 + sum(c_delivery_cnt) per district.
 * With mask 0 and a driver with a catalog of its own (ODBC), also each
 * table's key: a unique index on its key columns (SQLStatistics).
 * Returns 0 when it could run the checks (r->n_failed says whether they
 * held). */
int check_run(struct db_conn *c, const struct dialect *ad, unsigned mask, struct check_result *r,
              struct err *e);

/* Parse "1-4", "1,2,5", "all" into a mask; -1 on a bad list. */
int check_parse_mask(const char *s, unsigned *mask);

#endif
