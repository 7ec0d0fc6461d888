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

/* The bound a validity item is judged by. */
enum validity_bound {
    VB_RANGE = 0, /* min <= value <= max */
    VB_MIN,       /* value >= min (a mix minimum; p90 >= the mean) */
    VB_MAX,       /* value <= max (a response-time limit) */
};

/* How an item came out. */
enum validity_verdict {
    VV_OK = 0,   /* inside its bounds */
    VV_NA,       /* not applicable here (e.g. remote shares with W = 1) */
    VV_TOO_FEW,  /* outside, but within VALIDITY_SIGMAS standard errors of the target */
    VV_OUT,      /* outside and further off: out of bounds whatever the run's length */
};

/* Standard errors within which a value outside its bounds is put down to
 * chance (too few transactions to judge) rather than to the driver. */
#define VALIDITY_SIGMAS 3.0

struct validity_item {
    const char *name;  /* "new_order_rollback_pct", ... */
    double value;
    double min, max;   /* allowed range (inclusive); one side only for VB_MIN/VB_MAX */
    double resolution; /* VB_MIN: judged to this (v >= min - resolution); 0 = exactly */
    int bound;         /* enum validity_bound */
    double target;     /* what the spec aims at (1 % rollbacks); the se is judged from it */
    uint64_t n;        /* observations behind value (orders, lines, payments, samples) */
    double se;         /* standard error of value from n; 0: the bound is absolute */
    int applies;       /* 0: not applicable here (e.g. remote shares with W = 1) */
    const char *na;    /* applies 0: why not ("one warehouse"), for the summary */
    int ok;            /* applies and inside the bounds, or does not apply */
    int verdict;       /* enum validity_verdict */
};

#define VALIDITY_MAX 40

/* A stretch of this many measured seconds with no commit is a stall. */
#define STALL_MIN_S 5
#define STALLS_MAX 32

/* The run's overall input validity. */
enum validity_overall {
    VO_VALID = 0,    /* every item ok */
    VO_UNDETERMINED, /* some too few to judge, none out of bounds: run longer */
    VO_NOT_VALID,    /* an item out of bounds */
};

struct figures {
    double notpm;            /* committed New-Orders per minute (client count) */
    double notpm_db;         /* the database's count per minute */
    double no_rolled_back_pm; /* New-Orders rolled back (spec's 1 %) per minute */
    double tps;              /* committed transactions per second, all types */
    double driver_cpu_ms_per_ktx; /* driver CPU per 1000 committed transactions */
    double worker_cpu_ms_per_ktx; /* ... of it in the terminals' worker threads */
    double wakes_per_tx;          /* voluntary context switches of those threads per committed
                                   * transaction (NAN: none committed) */
    double preempted_per_tx;      /* their involuntary ones per committed transaction */
    double driver_cpu_pct;   /* driver CPU as % of one core */
    int counts_agree;        /* client New-Order count equals the database's (up to
                              * New-Orders of unknown outcome) */
    int zero_tps_s;          /* measured seconds in which nothing committed */
    int down_s;              /* measured seconds with a VU or worker disconnected */
    int longest_stall_s;     /* longest run of measured seconds with no commit */
    int n_stalls;            /* runs of STALL_MIN_S seconds or more */
    int stalls[STALLS_MAX][2]; /* their first and last second (series.csv's "second") */
    double lag_p99_ms;       /* schedule lag, 99th percentile */
    double efficiency_pct;   /* think time: NOTPM against what the terminals can offer */
    int n_validity;
    struct validity_item validity[VALIDITY_MAX];
    int valid;               /* every applicable item ok */
    int verdict;             /* enum validity_overall */
};

/* The overall verdict's words: "valid", "undetermined: run longer", "NOT valid". */
const char *figures_verdict_text(int verdict);

void figures_compute(const struct config *cfg, const struct run_result *r, struct figures *f);
json_t *figures_json(const struct config *cfg, const struct run_result *r,
                     const struct figures *f);
void figures_print(FILE *out, const struct config *cfg, const struct run_result *r,
                   const struct figures *f);
/* Whether a pooler showed itself: open connections sharing server
 * processes, or the monitor's connection changing process (driver.c). */
int figures_pooler_seen(const struct run_result *r);
/* The level the run set: r's (driver.c's pick), else cfg's (a merged record's). */
const char *figures_isolation(const struct config *cfg, const struct run_result *r);
/* series.csv text (heap; free()). */
char *figures_series_csv(const struct run_result *r, size_t *len);

#endif
