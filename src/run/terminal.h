/*
 * terminal.h - a TPC-C terminal as data, not a thread: its fixed home
 * warehouse and district, its own random stream and deck of transaction
 * types, its keying and think times (clause 5.2.5), and the time it means to
 * submit its next transaction.  Workers (run/driver.c) execute a terminal's
 * transactions on whatever connection is free; the scheduler (run/sched.h)
 * holds the terminals in a timer queue by that intended time.
 *
 * Pure: no I/O, no threads, no allocation beyond term_array_new().  A
 * terminal is touched by one thread at a time: the worker that took it from
 * the scheduler, until it puts it back.
 */
#ifndef TPCC_TERMINAL_H
#define TPCC_TERMINAL_H

#include <stdint.h>

#include "core/config.h"
#include "tpcc/deck.h"
#include "tpcc/random.h"
#include "tpcc/txn.h"

/* How terminals offer load (run.think_time, run.rate). */
enum term_load {
    TERM_CLOSED = 0, /* each submits as soon as its last transaction ended */
    TERM_THINK,      /* keying before, think time after each transaction (the spec) */
    TERM_OPEN,       /* Poisson arrivals at run.rate per second in total */
};

struct terminal {
    int id;               /* 0-based */
    int w_id, d_id;       /* fixed home warehouse and district (Stock-Level's pair) */
    struct rng rng;       /* its own stream */
    struct deck deck;     /* its mix, dealt card by card */
    int type;             /* enum tx_type of the transaction it prepares or runs */
    uint64_t due_us;      /* when a worker should take it next (monotonic): its intended
                           * submit time, or the time of a retry after a back-off */
    uint64_t intended_us; /* intended submit time of the current transaction: end of keying,
                           * or the arrival; response time runs from here */
    uint64_t gap_us;      /* think: the think + keying time it was given before intended_us */
    int queued;           /* 1 while in the scheduler's queue, 0 while taken */
    int retries;          /* retries of the current input so far */
    int has_input;        /* in holds the current input (kept across retries) */
    int again;            /* skipped in a batch (never ran): sent again, its lag counted once */
    uint64_t dl_full_since_us; /* group mode: its deferred Delivery found the queue full at this
                                * time and waits in the scheduler for room (0: not waiting) */
    int64_t n_done;       /* transactions completed (for run.transactions) */
    uint64_t n_stock_level; /* Stock-Levels it ran (they all use w_id, d_id) */
    struct txn_input in;  /* the current input */
};

/* Keying time of type in seconds (clause 5.2.5.7: 18, 3, 2, 2, 2). */
double term_keying_s(int type);

/* Mean think time of type in seconds (12, 12, 10, 5, 5). */
double term_think_mean_s(int type);

/* A think time for type: negative exponential with the type's mean,
 * truncated at 10 x the mean (clause 5.2.5.4), from u in [0, 1). */
double term_think_s(int type, double u);

/*
 * Fill t as terminal id of n over W warehouses: terminal id has home
 * warehouse id % W + 1 and district (id / W) % 10 + 1, so 10 x W terminals
 * cover every (w, d) exactly once and fewer spread over the warehouses
 * first; its stream comes from seed and id; its deck from weights (see
 * deck_init).  Returns 0, or -1 when the weights cannot be a deck.
 */
int term_init(struct terminal *t, int id, int warehouses, uint64_t seed, const int *weights);
/*
 * Terminal i of a part that drives warehouses first .. first + count - 1 of
 * W: the same terminal (identity, stream, deck) that a single driver's
 * term_init gives the terminal of that (w, d), so the parts' terminals
 * together are exactly one driver's.  With count = W and first = 1 it is
 * term_init(t, i, W, ...).
 */
int term_init_part(struct terminal *t, int i, int first, int count, int warehouses, uint64_t seed,
                   const int *weights);

/* The offered load's parameters, read-only once the run starts. */
struct term_pace {
    enum term_load load;
    double time_scale;   /* keying and think times are multiplied by this (run.time_scale) */
    double rate_per_s;   /* TERM_OPEN: arrivals per second over all terminals */
    int n_terminals;
};

/*
 * After a transaction of t ended at end_us: deal t's next type and set when
 * it means to submit it.  Closed: at end_us.  Think: end_us + think time of
 * the type that ended + keying time of the next (both scaled).  Open: the
 * next arrival of t's own Poisson stream (rate / terminals), which may lie
 * before end_us when t fell behind; its response time then counts the wait.
 */
void term_next(struct terminal *t, const struct term_pace *p, uint64_t end_us);

/* The first submit time of t at start_us: keying of its first type (think),
 * a first arrival (open), or start_us (closed).  Deals the first type. */
void term_first(struct terminal *t, const struct term_pace *p, uint64_t start_us);

/* What 10 x W spec terminals can offer at most: 12.86 New-Orders per minute
 * per warehouse (clause 4.2 with the minimum keying and mean think times). */
#define TERM_MAX_NOTPM_PER_WAREHOUSE 12.86

/* The mean of one terminal cycle (keying + think) in seconds over deck's mix. */
double term_mean_cycle_s(const struct deck *d);

#endif
