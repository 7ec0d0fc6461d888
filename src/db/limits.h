/*
 * limits.h - how many statements a dialect and a connection hold, and
 * parameters a statement takes: the sizes db.h (the driver interface) and
 * dialect.h (the SQL text) both build their arrays with.  A header of its
 * own so that the dialect needs nothing of the drivers: db.c reads the
 * dialect, never the reverse.
 */
#ifndef TPCC_DB_LIMITS_H
#define TPCC_DB_LIMITS_H

#define DB_MAX_STMTS 64 /* statements of one dialect file */
#define DB_MAX_SUB 6    /* statements in one dialect step */
#define DB_MAX_PARAMS 64

#endif
