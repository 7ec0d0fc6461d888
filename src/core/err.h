/*
 * err.h - the caller-owned error record every fallible function fills.
 *
 * Functions return int: 0 on success, a negative enum err_code on failure, and
 * put the details (message, SQLSTATE) into a struct err the caller owns.  Only
 * main() and the cmd_*() functions print errors and choose exit codes.
 */
#ifndef TPCC_ERR_H
#define TPCC_ERR_H

#include <stddef.h>

/* Error classes.  Workers count failures by class and go on. */
enum err_code {
    E_OK = 0,
    E_FAIL = -1,  /* anything else: a bug, a constraint violation, an I/O error */
    E_RETRY = -2, /* serialization failure or deadlock: roll back and retry */
    E_CONN = -3,  /* the connection to the database is gone */
    E_USAGE = -4, /* bad input: config, command line, connection parameters */
    E_INTR = -5,  /* interrupted by a signal */
    E_NOTYET = -6 /* a part that is not built yet */
};

struct err {
    int code;         /* one of enum err_code */
    char sqlstate[6]; /* five-character SQLSTATE, or "" when not from a database */
    char msg[512];    /* lowercase, no final full stop, what failed first */
};

/* Clear e (code E_OK, empty message). */
void err_clear(struct err *e);

/* Fill e with code and a formatted message; returns code so callers can write
 * `return err_set(e, E_FAIL, "...")`.  A NULL e is allowed and ignored. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefix the existing message with a formatted context ("loading stock: ..."). */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Thread-safe strerror into buf; returns buf. */
const char *err_errno(int errnum, char *buf, size_t len);

/* Exit code for an error class: E_USAGE -> 2, E_INTR -> 130, others -> 1. */
int err_exit_code(int code);

/* Short name of a class for counters and records ("retryable", "connection", ...). */
const char *err_class_name(int code);

#endif
