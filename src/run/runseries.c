/*
 * runseries.c - the run's counters as the endpoint's series (see
 * runseries.h): the families, in the order the endpoint serves them, and
 * their values from the monitor's counts.  A histogram's buckets are the
 * run's log-linear ones (core/hist.h) summed up to each of the endpoint's
 * bounds: a bound takes the buckets whose values all lie at or under it.
 */
#include "run/runseries.h"

#include <stdio.h>
#include <string.h>

#include "core/hist.h"

/* Response-time bounds of the endpoint, seconds. */
static const double runseries_le[RUNSERIES_NLE] = { 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1,
                                                    0.2,   0.5,   1,     2,    5,    10,   30 };
static const char *const outcomes[RUNSERIES_OUTCOMES] = { "committed", "rolled_back", "error",
                                                          "unknown", "retried" };

/* The families: counters, histograms, then the gauges of the last second. */
static void runseries_families(struct runseries *rs)
{
    const struct metrics_series f[RUNSERIES_NFAM] = {
        { "tpccbench_transactions_total",
          "transactions by type and outcome since the run started (rolled_back: "
          "New-Order's 1 % rollbacks; retried: attempts retried)",
          1, NULL, rs->tx_labels, TX_NTYPES * RUNSERIES_OUTCOMES, rs->tx, NULL, NULL, NULL, NULL },
        { "tpccbench_response_seconds", "response time from the intended start to completion", 0,
          NULL, rs->type_labels, TX_NTYPES, NULL, NULL, NULL, NULL, rs->hist[0] },
        { "tpccbench_service_seconds", "service time from the first request sent to completion", 0,
          NULL, rs->type_labels, TX_NTYPES, NULL, NULL, NULL, NULL, rs->hist[1] },
        { "tpccbench_notpm",
          "New-Orders committed per minute in the last second (TPC-C derived, not audited)", 0,
          NULL, NULL, 1, NULL, NULL, &rs->notpm, NULL, NULL },
        { "tpccbench_tps", "transactions committed in the last second", 0, NULL, NULL, 1, NULL,
          NULL, &rs->tps, NULL, NULL },
        { "tpccbench_measuring", "1 inside the measured window, else 0", 0, NULL, NULL, 1, NULL,
          &rs->measuring, NULL, NULL, NULL },
        { "tpccbench_run_second", "seconds since the ramp-up started", 0, NULL, NULL, 1, NULL,
          &rs->second, NULL, NULL, NULL },
        { "tpccbench_terminals_in_transaction", "connections inside a transaction at the sample", 0,
          NULL, NULL, 1, NULL, &rs->in_tx, NULL, NULL, NULL },
        { "tpccbench_connections_down", "virtual users and delivery workers without a connection",
          0, NULL, NULL, 1, NULL, &rs->down, NULL, NULL, NULL },
    };

    memcpy(rs->fam, f, sizeof(f));
}

void runseries_init(struct runseries *rs, struct metrics *m)
{
    memset(rs, 0, sizeof(*rs));
    for (int t = 0; t < TX_NTYPES; t++) {
        snprintf(rs->type_label_text[t], sizeof(rs->type_label_text[t]), "type=\"%s\"",
                 tx_name((enum tx_type)t));
        rs->type_labels[t] = rs->type_label_text[t];
        for (int o = 0; o < RUNSERIES_OUTCOMES; o++) {
            int i = t * RUNSERIES_OUTCOMES + o;
            snprintf(rs->tx_label_text[i], sizeof(rs->tx_label_text[i]),
                     "type=\"%s\",outcome=\"%s\"", tx_name((enum tx_type)t), outcomes[o]);
            rs->tx_labels[i] = rs->tx_label_text[i];
        }
        for (int k = 0; k < 2; k++) {
            struct metrics_hist *h = &rs->hist[k][t];
            h->le = runseries_le;
            h->nle = RUNSERIES_NLE;
            h->cum = rs->cum[k][t];
            h->sum = &rs->sum_s[k][t];
        }
    }
    /* For each bound: the last bucket whose values all lie at or under it. */
    for (int i = 0; i < RUNSERIES_NLE; i++) {
        uint64_t le_us = (uint64_t)(runseries_le[i] * 1e6 + 0.5);
        int b = 0;
        while (b + 1 < HIST_N_BUCKETS && hist_bucket_high(b + 1) <= le_us)
            b++;
        rs->le_bucket[i] = hist_bucket_high(b) <= le_us ? b : -1;
    }
    runseries_families(rs);
    metrics_serve_series(m, rs->fam, RUNSERIES_NFAM);
}

/* h's counts summed up to each bound, then all, into cum; its sum in seconds. */
static void runseries_hist(const struct runseries *rs, const struct hist *h, uint64_t *cum,
                           double *sum_s)
{
    uint64_t n = 0;
    int bucket = 0;

    for (int i = 0; i < RUNSERIES_NLE; i++) {
        for (; bucket <= rs->le_bucket[i]; bucket++)
            n += h->counts[bucket];
        cum[i] = n;
    }
    cum[RUNSERIES_NLE] = h->n_samples;
    *sum_s = (double)h->sum_us / 1e6;
}

void runseries_update(struct runseries *rs, const struct series_row *row,
                      const struct vu_stats *cum, int in_tx, int down)
{
    for (int t = 0; t < TX_NTYPES; t++) {
        const struct tx_stats *s = &cum->tx[t];
        const uint64_t n[RUNSERIES_OUTCOMES] = { s->committed, s->rolled_back,
                                                 s->err_retry + s->err_conn + s->err_other,
                                                 s->unknown, s->retries };
        for (int o = 0; o < RUNSERIES_OUTCOMES; o++)
            rs->tx[t * RUNSERIES_OUTCOMES + o] = (int64_t)n[o];
        runseries_hist(rs, &s->lat, rs->cum[0][t], &rs->sum_s[0][t]);
        runseries_hist(rs, &s->svc, rs->cum[1][t], &rs->sum_s[1][t]);
    }
    if (row) {
        double tps = 0;
        for (int t = 0; t < TX_NTYPES; t++)
            tps += row->tps[t];
        rs->notpm = row->tps[TX_NEW_ORDER] * 60;
        rs->tps = tps;
        rs->measuring = row->phase == 'm';
        rs->second = row->second;
    }
    rs->in_tx = in_tx;
    rs->down = down;
}
