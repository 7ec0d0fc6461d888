/*
 * series.h - one second of a run's series (series.csv's row): what the
 * monitor (run/driver.c) computes each second and hands to the metrics'
 * tick (run/metrics.h).  A header of its own so that metrics.h needs
 * nothing of the driver: the driver calls the metrics, never the reverse.
 */
#ifndef TPCC_SERIES_H
#define TPCC_SERIES_H

#include <stdint.h>

#include "core/config.h"

/* New-Order's latency bands of a second (the report's heatmap): the upper
 * bound of each in ms, the last band open above. */
#define SERIES_HEAT_N 14
#define SERIES_HEAT_UPPER_MS { 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000 }

struct series_row {
    int second;                 /* since the start of ramp-up */
    char phase;                 /* 'r' ramp-up/warm-up, 'm' measured, 's' stopping */
    double tps[TX_NTYPES];      /* committed per second, per type */
    double no_p50_ms, no_p90_ms, no_p99_ms; /* New-Order latency in this second */
    double all_p99_ms;          /* all types */
    double all_svc_p99_ms;      /* service time (send to completion), all types */
    double lag_p99_ms;          /* schedule lag in this second */
    uint64_t errors;            /* errors in this second */
    int vus_in_tx;              /* VUs inside a transaction at the sample */
    int vus_down;               /* VUs and delivery workers without a connection */
    uint64_t lost;              /* connections VUs found lost in this second */
    uint32_t no_heat[SERIES_HEAT_N]; /* New-Orders completed in this second by latency band */
};

#endif
