/*
 * runseries.h - the run's counters as the live endpoint's series: the
 * transactions by type and outcome, the response and service time
 * histograms, NOTPM and TPS of the last second, the phase, the run's second,
 * the connections in a transaction and those down.  The monitor keeps a
 * struct runseries, updates it from its counts once a second before
 * metrics_tick(), and registers its families with the sampler
 * (metrics_serve_series) as cmd/load.c registers the load's, so the sampler
 * and the endpoint know nothing of TPC-C.
 *
 * Written and read on the monitor's thread only; nothing here prints,
 * allocates or exits.
 */
#ifndef TPCC_RUNSERIES_H
#define TPCC_RUNSERIES_H

#include <stdint.h>

#include "run/series.h"
#include "run/metrics.h"
#include "run/stats.h"

#define RUNSERIES_NLE      14 /* response-time buckets of the endpoint */
#define RUNSERIES_OUTCOMES 5  /* committed, rolled_back, error, unknown, retried */
#define RUNSERIES_NFAM     9

struct runseries {
    /* transactions by type and outcome since the run started */
    int64_t tx[TX_NTYPES * RUNSERIES_OUTCOMES];
    const char *tx_labels[TX_NTYPES * RUNSERIES_OUTCOMES];
    char tx_label_text[TX_NTYPES * RUNSERIES_OUTCOMES][64];
    /* response (0) and service (1) times by type: cumulative counts by bound, sums */
    uint64_t cum[2][TX_NTYPES][RUNSERIES_NLE + 1];
    double sum_s[2][TX_NTYPES];
    struct metrics_hist hist[2][TX_NTYPES];
    const char *type_labels[TX_NTYPES];
    char type_label_text[TX_NTYPES][32];
    int le_bucket[RUNSERIES_NLE]; /* last histogram bucket under each bound */
    double notpm, tps;            /* of the last second */
    int measuring;                /* 1 inside the measured window */
    int second;                   /* since the ramp-up started */
    int in_tx, down;              /* connections in a transaction; without a connection */
    struct metrics_series fam[RUNSERIES_NFAM];
};

/* Set rs up (zero counts) and register its families with m (m may be NULL:
 * nothing is registered).  m keeps pointers into rs: unregister with
 * metrics_serve_series(m, NULL, 0) before rs goes. */
void runseries_init(struct runseries *rs, struct metrics *m);

/* This second's figures: row (the series row just added; NULL: the last
 * second's are kept), cum (the counts since the start), in_tx and down. */
void runseries_update(struct runseries *rs, const struct series_row *row,
                      const struct vu_stats *cum, int in_tx, int down);

#endif
