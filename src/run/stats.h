/*
 * stats.h - what one virtual user (or delivery worker) counts, and how those
 * counts are merged and subtracted.
 *
 * Each thread owns its struct vu_stats and updates it without locks or
 * atomics; the monitor reads published copies (see driver.c) and merges them.
 */
#ifndef TPCC_STATS_H
#define TPCC_STATS_H

#include <stdint.h>

#include "core/config.h"
#include "core/hist.h"

#define STATS_NSTATES 8 /* distinct SQLSTATEs kept per thread */

struct tx_stats {
    uint64_t committed;   /* committed (New-Order: without the spec's rollbacks) */
    uint64_t rolled_back; /* New-Order rollbacks of clause 2.4.2.3 (not errors) */
    uint64_t retries;     /* retryable failures that were retried */
    uint64_t err_retry;   /* retryable failures after max_retries: given up */
    uint64_t err_conn;    /* connection lost (the transaction is lost) */
    uint64_t err_other;   /* any other error */
    uint64_t unknown;     /* connection lost after COMMIT was sent: outcome unknown */
    uint64_t in_tx_us;    /* summed time from BEGIN to COMMIT/ROLLBACK */
    uint64_t roundtrips;  /* requests that waited for the server, all attempts */
    struct hist lat;      /* response time, microseconds: from the terminal's intended submit
                           * time (end of keying, or the arrival) to completion */
    struct hist svc;      /* service time: from sending the first request to completion */
};

struct vu_stats {
    struct tx_stats tx[TX_NTYPES];
    /* Input-validity counts (TPC-C 5.5.1.5), over executed transactions. */
    uint64_t no_orders;       /* New-Orders committed or rolled back */
    uint64_t no_lines;        /* order lines of those */
    uint64_t no_remote_lines; /* lines with a remote supply warehouse */
    uint64_t pay_total;       /* Payments committed */
    uint64_t pay_remote;      /* of which the customer was remote */
    uint64_t pay_by_name;     /* of which selected by last name */
    uint64_t os_total;        /* Order-Status committed */
    uint64_t os_by_name;
    uint64_t os_lines;         /* order lines they returned */
    uint64_t no_total_cents;   /* sum of committed New-Orders' total amounts (outputs) */
    uint64_t no_brand_b;       /* their lines with brand-generic 'B' */
    uint64_t dl_districts;     /* districts processed by deliveries */
    uint64_t dl_skipped;       /* districts with no new order */
    uint64_t dl_queue_full;    /* times the deferred queue was full */
    uint64_t dl_queue_wait_us; /* time waited for room in the queue */
    uint64_t reconnects;       /* successful reconnections */
    uint64_t lost_connections; /* connections found lost (each starts an outage) */
    uint64_t down_us;          /* time spent without a connection, reconnecting */
    uint64_t waits_over_think; /* terminals dispatched later than their own think time */
    uint64_t batches;          /* round trips that carried a batch (run.batch > 1) */
    uint64_t batched_tx;       /* transactions sent in them (a resent one counts again) */
    uint64_t batch_skipped;    /* skipped by the server after a failure before them: sent again */
    uint64_t cpu_us;           /* CPU of the worker's thread so far (on its first connection only) */
    uint64_t csw_vol;          /* its voluntary context switches so far (each a sleep, then a
                                * wake; same connection only) */
    uint64_t csw_invol;        /* its involuntary ones (preempted) */
    struct hist lag;           /* schedule lag: how late terminals were dispatched (us) */
    struct {
        char state[6];
        uint64_t n;
    } sqlstates[STATS_NSTATES]; /* errors by SQLSTATE (first seen first) */
};

/* The plain counters of struct vu_stats and of struct tx_stats, for code that
 * treats each alike (merge, subtract, the scale-out summary). */
#define STATS_FIELDS(X)                                                                         \
    X(no_orders)                                                                                \
    X(no_lines) X(no_remote_lines) X(pay_total) X(pay_remote) X(pay_by_name) X(os_total)        \
        X(os_by_name) X(os_lines) X(no_total_cents) X(no_brand_b) X(dl_districts) X(dl_skipped) \
            X(dl_queue_full) X(dl_queue_wait_us) X(reconnects) X(lost_connections) X(down_us)   \
                X(waits_over_think) X(batches) X(batched_tx) X(batch_skipped) X(cpu_us) \
                    X(csw_vol) X(csw_invol)
#define STATS_TX_FIELDS(X)                                                                 \
    X(committed)                                                                           \
    X(rolled_back) X(retries) X(err_retry) X(err_conn) X(err_other) X(unknown) X(in_tx_us) \
        X(roundtrips)

void stats_init(struct vu_stats *s);
/* stats_init() for an s that holds stats (or zeros): each histogram's
 * buckets out of use are not written (a dozen histograms of 26 KB). */
void stats_clear(struct vu_stats *s);
/* dst += src */
void stats_merge(struct vu_stats *dst, const struct vu_stats *src);
/* dst = src, where dst is zeroed or an earlier copy of src (the counts only
 * grew since): each histogram's unused buckets are not copied (a snapshot
 * is a dozen histograms of 26 KB, mostly zeros). */
void stats_copy_grown(struct vu_stats *dst, const struct vu_stats *src);
/* dst = a - b (b an earlier copy of a) */
void stats_sub(struct vu_stats *dst, const struct vu_stats *a, const struct vu_stats *b);
/* Count an error's SQLSTATE. */
void stats_sqlstate(struct vu_stats *s, const char *state);
/* Totals over all types. */
uint64_t stats_committed(const struct vu_stats *s);
uint64_t stats_errors(const struct vu_stats *s);

#endif
