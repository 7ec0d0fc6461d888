/*
 * waits.h - where each transaction type's time went, from samples of the
 * server's sessions (the wait sampler, run/msrc_waits.c): the pure parts,
 * so that a unit test drives them without a server.
 *
 * A sample of one of our backends is an event key: "CPU" (active, no wait
 * event), "Class:Event" ("Lock:transactionid", "IO:WALSync"), or "Client"
 * (idle in a transaction: waiting for the driver); on MariaDB "Lock:record"
 * for a transaction in LOCK WAIT.  It is attributed to the
 * transaction type of the statement the backend runs, known by its text
 * (the dialect's statements, normalised: comments and runs of white space
 * do not count), never guessed from timing; a statement of no type (COMMIT,
 * BEGIN) takes the type seen earlier in the same transaction (same
 * xact_start) on the same backend, else the sample is unattributed.  The
 * server's background processes are counted beside, under their own names.
 * Nothing here prints, locks or talks to a server.
 */
#ifndef TPCC_WAITS_H
#define TPCC_WAITS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

/* The classes of the per-second columns (ours only). */
enum { WC_CPU, WC_CLIENT, WC_LOCK, WC_LWLOCK, WC_IO, WC_IPC, WC_OTHER, WC_N };
extern const char *const wait_class_names[WC_N]; /* "cpu", "client", "lock", ... */

#define WAIT_EVENTS_MAX 128
#define WAIT_BG_MAX 64
#define WAIT_KEY 72

/* Samples by transaction type and event, and the background's by process. */
struct wait_agg {
    int nev;
    char ev[WAIT_EVENTS_MAX][WAIT_KEY];    /* "CPU", "Client", "Lock:transactionid" */
    uint64_t n[WAIT_EVENTS_MAX][TX_NTYPES]; /* samples of each event by type */
    uint64_t type_samples[TX_NTYPES];       /* samples of each type (all its events) */
    int nbg;
    char bg_name[WAIT_BG_MAX][40];  /* backend_type: "checkpointer", "autovacuum worker" */
    char bg_ev[WAIT_BG_MAX][WAIT_KEY];
    uint64_t bg_n[WAIT_BG_MAX];
    uint64_t rounds;       /* samples taken (one statement each) */
    uint64_t unattributed; /* our backends' samples in a statement of no known type */
    uint64_t dropped;      /* samples of an event beyond the table (none expected) */
    uint64_t cls[WC_N];    /* our backends' samples by class (the columns) */
    uint64_t tcls[TX_NTYPES][WC_N]; /* attributed samples by type and class (the report's) */
};

/* The key of a session's sample into out, and its class; -1: not a sample
 * (idle outside a transaction, or a state we do not know). */
int wait_event_key(const char *state, const char *wtype, const char *wevent, char *out,
                   size_t cap);
/* The class of an event key. */
int wait_key_class(const char *key);

/* SQL text normalised: "--" comments out, white space runs one space,
 * trailing ';' and spaces cut.  Always NUL-terminated. */
void wait_norm(const char *in, char *out, size_t cap);

/* The dialect's statements and their transaction types. */
#define WAIT_STMTS_MAX 96
struct wait_stmts {
    int n;
    char *text[WAIT_STMTS_MAX]; /* normalised (heap) */
    int type[WAIT_STMTS_MAX];
};
/* Add statement sql of type (enum tx_type): 0, or -1 (full, out of memory). */
int wait_stmts_add(struct wait_stmts *m, const char *sql, int type);
void wait_stmts_release(struct wait_stmts *m);
/* The type of the statement whose text query is (truncated: a prefix of
 * at least 100 characters of one), or -1. */
int wait_stmts_type(const struct wait_stmts *m, const char *query);
/* The same, or where query is the whole text normalised as
 * pg_stat_statements shows it (its constants "$n"): the type of the
 * statement with the same words, constants (numbers, strings, NULL, TRUE,
 * FALSE, "$n", and ODBC's "?") left out. */
int wait_stmts_type_words(const struct wait_stmts *m, const char *query);

/*
 * The dialect's procedures (run.mode: procedure), for the statements that
 * run inside them (pg_stat_statements.track = all, run/msrc_stmts.c): each
 * function's name and body, and its transaction type, the type of the
 * named statement that calls it.  A statement inside a function is known
 * by its words: every word of its text (placeholders "$1" left out: the
 * server puts them for constants, and PL/pgSQL cuts "INTO v" clauses;
 * MariaDB's NAME_CONST('p_w', 1) read as the variable p_w) found in order
 * in one function's or procedure's body, and in one only.
 */
#define WAIT_PROCS_MAX 16
struct wait_procs {
    int n;
    char name[WAIT_PROCS_MAX][64]; /* "tpcc_new_order" */
    char *body[WAIT_PROCS_MAX];    /* from the name to the next CREATE (heap) */
    int type[WAIT_PROCS_MAX];      /* enum tx_type, -1: no named statement calls it */
};
/* The functions of procedures_sql ("CREATE [OR REPLACE] FUNCTION name(")
 * into p, typed by the statements of m that call them: 0, or -1 (out of
 * memory). */
int wait_procs_parse(struct wait_procs *p, const char *procedures_sql,
                     const struct wait_stmts *m);
void wait_procs_release(struct wait_procs *p);
/* The type of query: a call of a function (its name followed by '('), or
 * a statement of one function's body (its words in order, at least four);
 * -1 when none or more than one type fits. */
int wait_procs_type(const struct wait_procs *p, const char *query);

/* What each backend was last seen running in which transaction. */
#define WAIT_PIDS_MAX 4096
struct wait_pids {
    int n;
    struct {
        int pid;
        int64_t xact_us; /* its transaction's start, 0 unknown */
        int type;
    } p[WAIT_PIDS_MAX];
};
/* The type of pid's sample: stmt_type when the statement tells (kept for
 * the rest of its transaction), else the one kept for the same transaction,
 * else -1. */
int wait_attr(struct wait_pids *w, int pid, int64_t xact_us, int stmt_type);

/* One sample of ours (type -1: unattributed) or of a background process. */
void wait_agg_add(struct wait_agg *a, int type, const char *key);
void wait_agg_bg(struct wait_agg *a, const char *name, const char *key);
/* dst += src. */
void wait_agg_merge(struct wait_agg *dst, const struct wait_agg *src);
/* The k events of type with most samples, "CPU" left out, most first,
 * ties by name: their indexes into out; how many. */
int wait_agg_top(const struct wait_agg *a, int type, int *out, int k);

/* run.json's by_type and background. */
json_t *wait_agg_by_type(const struct wait_agg *a);
json_t *wait_agg_background(const struct wait_agg *a);

#endif
