/*
 * odbccaps.h - what an ODBC driver says it can do (SQLGetInfo,
 * SQLGetFunctions, a probe of SQL_ATTR_PARAMSET_SIZE), and the decisions
 * tpccbench takes from it: whether it runs at all (transactions), which
 * isolation levels it may set, how the load sends rows (array binding or
 * one row per execution), whether the names of our schema fit, and which
 * errors of this DBMS are busy/lock errors to retry; and how the password
 * is written into a connection string (bare or in braces).
 *
 * Pure: the answers come in a struct filled by odbc.c (or by a unit test
 * from answers recorded once from real drivers), so the decisions are
 * tested without a driver.  Nothing here calls ODBC or prints.
 */
#ifndef TPCC_ODBCCAPS_H
#define TPCC_ODBCCAPS_H

#include <stddef.h>

#include "core/err.h"
#include "db/db.h"

/* The raw answers of one driver and DBMS (tests/helper/odbc_info prints them). */
struct odbc_info {
    char dbms_name[64];              /* SQL_DBMS_NAME */
    char dbms_ver[64];               /* SQL_DBMS_VER */
    char driver_name[64];            /* SQL_DRIVER_NAME */
    char driver_odbc_ver[16];        /* SQL_DRIVER_ODBC_VER */
    unsigned txn_capable;            /* SQL_TXN_CAPABLE: SQL_TC_* */
    unsigned default_isolation;      /* SQL_DEFAULT_TXN_ISOLATION: one SQL_TXN_* bit */
    unsigned isolation_options;      /* SQL_TXN_ISOLATION_OPTION: SQL_TXN_* bits */
    unsigned param_array_row_counts; /* SQL_PARAM_ARRAY_ROW_COUNTS: SQL_PARC_* (0: no answer) */
    unsigned param_array_selects;    /* SQL_PARAM_ARRAY_SELECTS: SQL_PAS_* (0: no answer) */
    unsigned batch_support;          /* SQL_BATCH_SUPPORT: SQL_BS_* bits */
    unsigned max_identifier_len;     /* SQL_MAX_IDENTIFIER_LEN (0: no limit or unknown) */
    int has_tables;                  /* SQLGetFunctions(SQL_API_SQLTABLES) */
    int has_statistics;              /* SQLGetFunctions(SQL_API_SQLSTATISTICS) */
    int has_typeinfo;                /* SQLGetFunctions(SQL_API_SQLGETTYPEINFO) */
    int paramset_ok;                 /* SQL_ATTR_PARAMSET_SIZE 1000 set and read back */
};

/* The load's path. */
enum odbc_load_path {
    ODBC_LOAD_ARRAY = 0, /* array parameter binding, many rows per SQLExecute */
    ODBC_LOAD_ROWS,      /* one row per SQLExecute, committed in batches */
};

/* Isolation levels as tpccbench names them (run.isolation). */
#define ODBC_ISO_READ_COMMITTED  DB_ISO_READ_COMMITTED
#define ODBC_ISO_REPEATABLE_READ DB_ISO_REPEATABLE_READ
#define ODBC_ISO_SERIALIZABLE    DB_ISO_SERIALIZABLE

/* What tpccbench decided from struct odbc_info. */
struct odbc_caps {
    int transactions;            /* 1: commit and rollback exist (else nothing runs) */
    unsigned isolation;          /* ODBC_ISO_* this DBMS offers */
    unsigned default_isolation;  /* ODBC_ISO_* of its default, 0 for another level */
    int load_path;               /* enum odbc_load_path */
    char load_why[160];          /* why that path: what the driver answered */
    unsigned max_identifier_len; /* as answered, 0 = no limit */
    int catalog;                 /* 1: SQLTables and SQLStatistics are there */
    char isolation_list[96];     /* the levels offered, for messages: "serializable" */
};

/* The longest name tpccbench creates (index orders_customer_idx). */
#define ODBC_LONGEST_NAME "orders_customer_idx"

/*
 * Decide from in.  E_USAGE, naming the DBMS and what it lacks, when
 * tpccbench cannot run on it at all: no transactions (SQL_TC_NONE), names
 * of our schema longer than SQL_MAX_IDENTIFIER_LEN, no catalog functions
 * (SQLTables, SQLStatistics).
 */
int odbc_caps_decide(const struct odbc_info *in, struct odbc_caps *out, struct err *e);

/* The ODBC_ISO_* bit of a run.isolation name ("read committed"); 0 for another. */
unsigned odbc_iso_of(const char *name);
/* The SQL_TXN_* value of an ODBC_ISO_* bit. */
unsigned long odbc_iso_attr(unsigned iso);

/* run.isolation name (one of odbc_iso_of's) allowed by caps of DBMS dbms:
 * 0, or E_USAGE naming the level, the DBMS and the levels it offers. */
int odbc_caps_isolation(const struct odbc_caps *caps, const char *dbms, const char *name,
                        struct err *e);

/*
 * The class (E_RETRY, E_CONN, E_FAIL) of an error of DBMS dbms with
 * SQLSTATE state and native code native.  Beside the standard SQLSTATEs
 * (40001 serialization failure, 40P01, class 08), each DBMS's own codes
 * where its SQLSTATE is generic: MySQL/MariaDB's deadlock (1213) and lock
 * wait timeout (1205), lost server (2006, 2013); SQLite's SQLITE_BUSY (5)
 * and SQLITE_LOCKED (6), which its driver reports as HY000.
 */
int odbc_error_class(const char *dbms, const char *state, long native);

/* Fill in from the connected ODBC connection handle dbc (an SQLHDBC):
 * SQLGetInfo, SQLGetFunctions, and SQL_ATTR_PARAMSET_SIZE tried on a
 * statement of its own.  What a driver does not answer stays 0 (odbc.c). */
void odbc_info_read(void *dbc, struct odbc_info *in);

/*
 * The password in a connection string, by ODBC's rules (SQLDriverConnect):
 * bare, PWD=value, where the value survives bare, else in braces with each
 * '}' written twice, so no password can end its value early and add
 * attributes of its own.  Some drivers take braces as part of the password
 * (OpenLink Virtuoso's libvirtodbc: "CL034: Bad login"), so they are used
 * only where needed.  core/secret.c redacts both forms.
 */
/* 1 when value v needs braces: ';', '{' or '}' in it, a blank at either
 * end, a quote first, or a control character. */
int odbc_cs_braced(const char *v);
/* Append "PWD=pw;" or "PWD={pw};" to cs (n bytes used, cap in all), with a
 * ';' before it where cs does not end in one.  -1 when it does not fit. */
int odbc_cs_add_password(char *cs, size_t cap, size_t n, const char *pw);

/* in as "key value" lines into out (cap bytes), as tests/helper/odbc_info
 * prints it and tests/unit/test_odbccaps.c keeps it. */
void odbc_info_format(const struct odbc_info *in, char *out, size_t cap);

#endif
