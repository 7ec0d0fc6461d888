/*
 * txn.h - the five TPC-C transactions (clause 2): their inputs, drawn by the
 * client exactly as the spec says, and their execution through the driver
 * interface, written once for every database.
 *
 * A transaction gets a connection and an input and returns an outcome; it
 * knows nothing of threads, timing or which terminal runs it (the scheduler
 * in src/run/ decides that).  Retrying with the same input is the caller's
 * choice: txn_exec() leaves the connection outside any transaction.
 */
#ifndef TPCC_TXN_H
#define TPCC_TXN_H

#include <limits.h>
#include <stdint.h>

#include "core/config.h"
#include "core/err.h"
#include "tpcc/random.h"

struct db_conn;
struct dialect;

/* What every terminal shares, read-only during a run. */
struct txn_ctx {
    int warehouses;         /* W */
    struct nurand_c c_run;  /* NURand constants of the run */
};

#define NO_MAX_ITEMS 15
#define TXN_UNUSED_ITEM (TPCC_ITEMS_MAX + 1) /* i_id that is never loaded */
#define TPCC_ITEMS_MAX 100000

struct no_item {
    int i_id;        /* TXN_UNUSED_ITEM on the last line of a rollback order */
    int supply_w_id;
    int quantity;    /* 1..10 */
};

struct no_input {
    int w_id, d_id, c_id;
    int ol_cnt;                       /* 5..15 */
    int rollback;                     /* 1: the last item is unused (1 %) */
    int all_local;                    /* 1: every supply warehouse is home */
    struct no_item items[NO_MAX_ITEMS]; /* sorted by (i_id, supply_w_id): lock order */
};

struct pay_input {
    int w_id, d_id;          /* home warehouse and district */
    int c_w_id, c_d_id;      /* customer's (remote for 15 % when W > 1) */
    int by_name;             /* 1: select by c_last (60 %) */
    int c_id;                /* when !by_name */
    char c_last[16];         /* when by_name */
    int64_t amount_cents;    /* 100..500000 */
};

struct os_input {
    int w_id, d_id;
    int by_name;
    int c_id;
    char c_last[16];
};

struct dl_input {
    int w_id;
    int carrier_id;          /* 1..10 */
};

struct sl_input {
    int w_id, d_id;          /* the terminal's fixed district */
    int threshold;           /* 10..20 */
};

struct txn_input {
    int type; /* enum tx_type */
    union {
        struct no_input no;
        struct pay_input pay;
        struct os_input os;
        struct dl_input dl;
        struct sl_input sl;
    } u;
};

/* One line of Order-Status's output. */
struct os_line {
    int i_id, supply_w_id, quantity;
    int64_t amount_cents;
    int delivered;            /* ol_delivery_d is set */
    char delivery_d[32];      /* its text as the DBMS sent it ("" when NULL) */
};

/* Order-Status's output (clause 2.6.3): the customer, its most recent order
 * and that order's lines in ol_number order, in every mode. */
struct os_output {
    int c_id;
    char c_first[17], c_middle[3], c_last[17];
    int64_t c_balance_cents;
    int o_id;
    char o_entry_d[32];       /* as the DBMS sent it */
    int o_carrier_id;         /* 0: NULL, not delivered */
    int ol_cnt;               /* lines received */
    struct os_line lines[NO_MAX_ITEMS];
};

/* What a transaction reports beyond success (the input-validity figures and
 * the outputs the spec asks the terminal to show). */
struct txn_output {
    int rolled_back;          /* New-Order: the spec's 1 % rollback happened */
    int no_o_id;              /* New-Order: the o_id it committed (0 when rolled back) */
    int delivered[10];        /* Delivery: o_id delivered per district, 0 = skipped */
    int n_skipped;            /* Delivery: districts with no new order */
    int64_t sl_low_stock;     /* Stock-Level: the count */
    int64_t no_total_cents;   /* New-Order: total amount in cents (txn_no_total_cents) */
    char no_brand[NO_MAX_ITEMS + 1]; /* New-Order: 'B' or 'G' per line (2.4.2.2), a string */
    struct os_output os;      /* Order-Status: what it read */
    uint64_t in_tx_us;        /* time from BEGIN to COMMIT/ROLLBACK */
    int commit_sent;          /* failed with the connection lost after COMMIT was sent */
};

/* Draw the input of a transaction of type for a terminal with home warehouse
 * w_id and Stock-Level district sl_d_id (clause 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1). */
void txn_gen(struct rng *r, const struct txn_ctx *ctx, int type, int w_id, int sl_d_id,
             struct txn_input *in);

/* Execute in on c in mode (enum run_mode: client, pipeline or procedure;
 * statements of the "statements" dialect file; pipeline and procedure need
 * db_prepare_all first).  Returns 0 when committed (or, for New-Order,
 * rolled back as the spec asks: then out->rolled_back is 1), else a negative
 * class with e filled; the transaction is rolled back before returning.
 * Every mode makes the same database changes for the same input. */
int txn_exec(struct db_conn *c, int mode, const struct txn_input *in, struct txn_output *out,
             struct err *e);

/* The retry decision, the one of the whole run (txn_exec_retry, a
 * terminal's retry through the scheduler in src/run/worker.c, a Delivery's
 * on a group thread's connection in src/run/group.c): a transaction that
 * ended with rc after `retries` retries goes again, same input, when rc is
 * a retryable failure (serialization, deadlock), fewer than max_retries
 * were made and the run is not stopping (*stop, when given, is 0). */
static inline int txn_retry_again(int rc, int retries, int max_retries, const int *stop)
{
    return rc == E_RETRY && retries < max_retries &&
           !(stop && __atomic_load_n(stop, __ATOMIC_RELAXED));
}

/* The back-off before retry k (1-based), the one of the whole run as
 * txn_retry_again: random in 0 .. 2^(k-1) x 250 us, at most 16 ms, so
 * colliding terminals part; *jitter is the caller's clock_jitter_us state. */
uint64_t txn_retry_backoff_us(uint64_t *jitter, int k);

/* Execute with retries: a retryable failure (serialization, deadlock) is
 * rolled back and the same input run again after a short randomised back-off
 * (so colliding terminals do not collide again at once), as txn_retry_again
 * and txn_retry_backoff_us say: up to max_retries times, or until *stop
 * (when given) becomes non-zero; *retries says how many were needed.  Other
 * results as txn_exec. */
int txn_exec_retry(struct db_conn *c, int mode, const struct txn_input *in,
                   struct txn_output *out, int max_retries, const int *stop, int *retries,
                   struct err *e);

/* One transaction of a batch (txn_exec_batch): in and out as txn_exec, its
 * result in rc (0, a negative class with e, or TXN_SKIPPED: it never ran). */
#define TXN_SKIPPED (-100)
struct txn_batch_item {
    const struct txn_input *in;
    struct txn_output *out;
    int rc;
    struct err e;
};

/* 1 when c in mode can run batches: procedure mode, a driver with pipelines
 * and autocommit (PostgreSQL). */
int txn_batch_possible(const struct db_conn *c, int mode);

/* Run n transactions (of different terminals) in one round trip, each its
 * own transaction, in procedure mode (txn_batch_possible).  Every item gets
 * its rc; a transaction after a failed one was skipped by the server
 * (TXN_SKIPPED: nothing happened, run it again).  A New-Order whose input
 * makes it roll back goes last, so the spec's rollback skips nothing.
 * Returns E_CONN when the connection was lost (items not known to have
 * ended carry E_CONN, with out->commit_sent where a change may have
 * committed), else 0.  At most TXN_BATCH_MAX items. */
int txn_exec_batch(struct db_conn *c, struct txn_batch_item *b, int n);

/* txn_exec_batch in two halves, for a thread that keeps several
 * connections' batches in flight: txn_batch_send queues and sends (0: wait
 * for db_fd(c) and call txn_batch_recv; 1: settled already, *rc set);
 * txn_batch_recv reads what arrived without waiting (0: not complete; 1:
 * every item settled, *rc as txn_exec_batch returns).  Item i's statements
 * are first[i] to first[i] + len[i] - 1 of the pipeline, its call call[i]:
 * a BEGIN (or none, chained on from the one before), the call, a COMMIT
 * (or COMMIT AND CHAIN); or the call alone (the last item but an
 * Order-Status, whose transaction the sync ends); last is the item sent
 * last. */
struct txn_batch_state {
    uint64_t t0;
    int qrc, nst, n_ok;
    int last;
    unsigned char first[TXN_BATCH_MAX], len[TXN_BATCH_MAX], call[TXN_BATCH_MAX];
    struct err e, qe;
};
/*
 * The pipeline of a batch (txn_batch_send plans it; pure, for tests): the
 * New-Orders that will roll back last (their failure then skips nothing),
 * Order-Status before them, every other item first in its order.  Each
 * transaction is its call between a BEGIN and a COMMIT; with chain (the
 * driver's c->chain) one COMMIT AND CHAIN ends a transaction and opens the
 * next (a statement for two), but not into or out of an Order-Status
 * (read-only repeatable read: it opens with its own BEGIN).  The last (not
 * an Order-Status) is its call alone: the sync commits it.  Fills s's
 * first, call, len and last, and p: the order of the items, and by item
 * the statement before its call (S_OS_BEGIN, DB_PIPE_BEGIN or
 * TXN_BATCH_NONE) and after it (DB_PIPE_COMMIT, DB_PIPE_COMMIT_CHAIN or
 * TXN_BATCH_NONE).
 */
#define TXN_BATCH_NONE INT_MIN
struct txn_batch_plan {
    int order[TXN_BATCH_MAX];
    int begin[TXN_BATCH_MAX], end[TXN_BATCH_MAX];
};
void txn_batch_plan(int chain, const struct txn_batch_item *b, int n, struct txn_batch_state *s,
                    struct txn_batch_plan *p);
int txn_batch_send(struct db_conn *c, struct txn_batch_item *b, int n,
                   struct txn_batch_state *s, int *rc);
int txn_batch_recv(struct db_conn *c, struct txn_batch_item *b, int n,
                   struct txn_batch_state *s, int *rc);

/* New-Order's total (clause 2.4.2.2), sum(ol_amount) x (1 - c_discount) x
 * (1 + w_tax + d_tax), exactly: amounts in cents, rates in units of 10^-4
 * (as the columns are), integer arithmetic, rounded once, half up, to the
 * cent.  The server-side functions compute the same. */
int64_t txn_no_total_cents(int64_t sum_cents, int64_t c_discount, int64_t w_tax, int64_t d_tax);

/* The version of the server-side functions (procedures.sql) this code
 * calls: procedure mode refuses a database with another one. */
#define TXN_PROC_VERSION 3

/* Ids of the statements in statements.sql. */
enum txn_stmt {
    S_ISO_READ_COMMITTED = 0,
    S_ISO_REPEATABLE_READ,
    S_ISO_SERIALIZABLE,
    S_NO_HEADER,
    S_NO_LINE,
    S_PAY_WAREHOUSE_DISTRICT,
    S_PAY_CUSTOMERS_BY_NAME,
    S_PAY_CUSTOMER_HISTORY,
    S_PAY_CUSTOMER_HISTORY_BY_NAME,
    S_OS_CUSTOMERS_BY_NAME,
    S_OS_GET_CUSTOMER,
    S_OS_LAST_ORDER,
    S_OS_ORDER_LINES,
    S_DL_OLDEST_NEW_ORDER,
    S_DL_DELETE_NEW_ORDER,
    S_DL_UPDATE_ORDER,
    S_DL_UPDATE_ORDER_LINES,
    S_DL_UPDATE_CUSTOMER,
    S_SL_NEXT_ORDER_ID,
    S_SL_LOW_STOCK,
    S_NO_LINE_PIPE,
    S_OS_ALL_BY_ID,
    S_OS_ALL_BY_NAME,
    S_DL_DISTRICT,
    S_SL_ALL,
    S_PROC_NEW_ORDER,
    S_PROC_PAYMENT,
    S_PROC_ORDER_STATUS,
    S_PROC_DELIVERY,
    S_PROC_STOCK_LEVEL,
    S_RUN_NEW_ORDERS,
    S_RUN_PING,
    S_OS_BEGIN,       /* Order-Status's read-only repeatable-read transaction (autocommit) */
    S_OS_SNAPSHOT,    /* the same as the first statement of an implicit one (ODBC) */
    S_PROC_VERSION,
    S_NSTMTS
};

/* Prepare on c what mode needs before its first transaction (pipeline:
 * every statement it queues).  For procedure mode, fails with E_USAGE and
 * says what to run when the server-side functions are not installed. */
int txn_prepare(struct db_conn *c, int mode, struct err *e);

/* The mode "auto" stands for with this dialect. */
int txn_mode_resolve(int mode, const char *dialect);

/* Load the transaction statements of dialect name. */
int txn_dialect_load(struct dialect *d, const char *name, struct err *e);

/* The transaction type (enum tx_type) statement id belongs to, or -1 (the
 * isolation levels, counts, BEGIN): the wait sampler knows a session's
 * transaction by the statement it runs (run/waits.h). */
int txn_stmt_type(int id);

/* Statement id that sets the session's isolation level ("read committed", ...). */
int txn_isolation_stmt(const char *isolation);

#endif
