/*
 * sched.h - who runs next: the terminals in one timer queue (a binary
 * min-heap by intended submit time), shared by the workers.
 *
 * A worker takes the terminal due first once its time has come (or at
 * once, when it is late: how late is the schedule lag the worker measures),
 * runs its transaction on the worker's connection, and puts it back with
 * its next time (its due_us is read once, when it is put).  A terminal in back-off after a retryable failure is put
 * back with the time of its retry, so it never holds a connection while it
 * waits.  One mutex guards the heap; taking and putting are O(log n) and
 * happen once per transaction, never on the database's path.
 */
#ifndef TPCC_SCHED_H
#define TPCC_SCHED_H

#include <pthread.h>
#include <stdint.h>

#include "run/terminal.h"

/* A heap slot: the due time beside the terminal, so sifts stay in the array. */
struct sched_slot {
    uint64_t due_us;     /* t->due_us when it was put */
    struct terminal *t;
};

struct sched {
    pthread_mutex_t lock;
    pthread_cond_t cond;   /* a terminal was put back, or the state changed */
    struct sched_slot *heap; /* heap[0] is due first */
    int n, cap;
    int closed;             /* 1: sched_take() returns NULL at once */
    int n_waiting;          /* workers inside sched_take() or sched_poll_begin() */
    int n_polling;          /* workers of several connections in poll() on the bell */
    int bell;               /* eventfd: rung when a put makes a new first while some poll */
};

/* An empty queue for up to cap terminals.  0, or -1 when out of memory. */
int sched_init(struct sched *s, int cap);
void sched_release(struct sched *s);

/* Put t back (or in, the first time), due at t->due_us. */
void sched_put(struct sched *s, struct terminal *t);

/*
 * Take the terminal due first once it is due, waiting for it; returns NULL
 * when *stop becomes non-zero (checked at least every max_wait_us), when the
 * queue is closed, or when max_wait_us passed with nothing due (so the
 * caller can look at its phase).  *now_us is the time it was taken.
 */
struct terminal *sched_take(struct sched *s, const int *stop, uint64_t max_wait_us,
                            uint64_t *now_us);

/*
 * Take the terminal due first if it is due at now_us and no worker is
 * waiting for one (so a batch never takes work an idle connection could
 * start at once); NULL otherwise.  Never waits.
 */
struct terminal *sched_take_due(struct sched *s, uint64_t now_us);

/* Take the terminal due first if it is due at now_us (whoever waits); NULL
 * otherwise.  Never waits.  The run takes several at once (sched_take_many);
 * this one is the heap's single take for its unit test and bench/sched.c. */
struct terminal *sched_take_now(struct sched *s, uint64_t now_us);

/*
 * Take up to max terminals due at now_us into out[], due first first, in
 * one hold of the lock (a worker of several connections hands out all
 * that is due at once); with leave, none while a worker waits (as
 * sched_take_due).  Returns how many.  Never waits.
 */
int sched_take_many(struct sched *s, uint64_t now_us, struct terminal **out, int max, int leave);

/*
 * A worker of several connections with one free is about to poll() its
 * connections and s->bell: from here until sched_poll_end() a put that
 * becomes the first rings the bell, and batches leave due terminals to it
 * (as to a waiter).  Returns when the first is due (UINT64_MAX: none, or
 * closed).  sched_poll_end() takes the worker out again; drain says the
 * bell was readable (it is read empty).
 */
uint64_t sched_poll_begin(struct sched *s);
void sched_poll_end(struct sched *s, int drain);

/* Wake every waiting worker (a phase change, a stop). */
void sched_wake(struct sched *s);

/* Close: every sched_take() returns NULL from now on. */
void sched_close(struct sched *s);

/* Terminals in the queue now (the others are taken by workers). */
int sched_count(struct sched *s);

#endif
