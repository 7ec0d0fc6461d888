/*
 * figures.h - turn a run's counts into its published figures: NOTPM, TPS,
 * per-type latency percentiles, the input-validity checks of TPC-C 5.5.1.5,
 * the JSON of run.json's "run" section, series.csv and the printed summary.
 */
#ifndef TPCC_FIGURES_H
#define TPCC_FIGURES_H

#include <jansson.h>
#include <stdio.h>

#include "core/config.h"
#include "run/driver.h"

struct validity_item {
    const char *name;  /* "new_order_rollback_pct", ... */
    double value;
    double min, max;   /* allowed range (inclusive) */
    int applies;       /* 0: not applicable here (e.g. remote shares with W = 1) */
    int ok;
};

#define VALIDITY_MAX 16

struct figures {
    double notpm;            /* committed New-Orders per minute (client count) */
    double notpm_db;         /* the database's count per minute */
    double no_rolled_back_pm; /* New-Orders rolled back (spec's 1 %) per minute */
    double tps;              /* committed transactions per second, all types */
    double driver_cpu_ms_per_ktx; /* driver CPU per 1000 committed transactions */
    double driver_cpu_pct;   /* driver CPU as % of one core */
    int counts_agree;        /* client New-Order count equals the database's (up to
                              * New-Orders of unknown outcome) */
    int zero_tps_s;          /* measured seconds in which nothing committed */
    int down_s;              /* measured seconds with a VU or worker disconnected */
    int n_validity;
    struct validity_item validity[VALIDITY_MAX];
    int valid;               /* every applicable item ok */
};

void figures_compute(const struct config *cfg, const struct run_result *r, struct figures *f);
json_t *figures_json(const struct config *cfg, const struct run_result *r,
                     const struct figures *f);
void figures_print(FILE *out, const struct config *cfg, const struct run_result *r,
                   const struct figures *f);
/* Whether a pooler showed itself: open connections sharing server
 * processes, or the monitor's connection changing process (driver.c). */
int figures_pooler_seen(const struct run_result *r);
/* series.csv text (heap; free()). */
char *figures_series_csv(const struct run_result *r, size_t *len);

#endif
