/*
 * figures.c - the arithmetic and presentation of a run's results.
 * Pure computation plus formatting; the caller writes files.
 */
#include "run/figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/histjson.h"
#include "run/terminal.h"
#include "tpcc/deck.h"

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double ms(uint64_t us)
{
    return (double)us / 1000.0;
}

/* Add an item judged by bound (enum validity_bound) over [lo, hi]; its
 * statistics (n, target, se) are the caller's to fill, judge() decides.
 * na: NULL when the item applies to this run, else why it does not. */
static struct validity_item *add_validity(struct figures *f, const char *name, double v, int bound,
                                          double lo, double hi, uint64_t n, const char *na)
{
    struct validity_item *it = &f->validity[f->n_validity++];

    memset(it, 0, sizeof(*it));
    it->name = name;
    it->value = v;
    it->bound = bound;
    it->min = lo;
    it->max = hi;
    it->n = n;
    it->target = NAN;
    it->applies = na == NULL;
    it->na = na;
    return it;
}

/* The standard error, in percent, of a share of n draws with probability
 * p_pct percent: sqrt(p(1-p)/n), at the spec's p, so a short run is judged
 * by the spread the spec's own rule would give it.  Infinite when n is 0. */
static double share_se_pct(double p_pct, uint64_t n)
{
    double p = p_pct / 100.0;

    return n ? 100.0 * sqrt(p * (1.0 - p) / (double)n) : INFINITY;
}

/* A share with the spec's target: in [lo, hi], judged from n draws. */
static void add_share(struct figures *f, const char *name, uint64_t part, uint64_t n, double lo,
                      double hi, double target_pct, const char *na)
{
    struct validity_item *it = add_validity(f, name, pct(part, n), VB_RANGE, lo, hi, n, na);

    it->target = target_pct;
    it->se = share_se_pct(target_pct, n);
}

/*
 * The share of type t of the measured transactions, against its minimum (P
 * 43 %, OS, D, SL 4 %: clause 5.2.3).  The VUs deal from decks, so over whole
 * decks the share is the deck's exactly; what varies is the partial deck
 * each VU is in at each end of the window.  A cut after a uniformly random
 * number a of the deck's D cards holds a hypergeometric count of the type,
 * of variance a(D-a)/(D-1) p(1-p), which averages (D+1)/6 p(1-p) over a; two
 * ends per VU over V VUs make a variance of the count of V(D+1)p(1-p)/3.  A
 * deck whose composition is under the minimum fails whatever the run's
 * length: no standard error excuses it.
 */
static void add_mix_share(struct figures *f, const char *name, const struct deck *d, int t,
                          const struct vu_stats *m, uint64_t executed, int vus)
{
    const struct tx_stats *s = &m->tx[t];
    static const double min_pct[TX_NTYPES] = { 0, 43.0, 4.0, 4.0, 4.0 };
    struct validity_item *it = add_validity(f, name, pct(s->committed + s->rolled_back, executed),
                                            VB_MIN, min_pct[t], 100, executed, NULL);
    double p = d->n ? (double)d->count[t] / d->n : 0;

    it->target = min_pct[t];
    if (100.0 * p < min_pct[t])
        it->se = 0;
    else
        it->se = executed
                     ? 100.0 * sqrt((double)vus * (d->n + 1) * p * (1 - p) / 3.0) / (double)executed
                     : INFINITY;
}

/* Clause 5.5.1.5's companion: the 90th percentile of a response time must
 * not be below its average, judged to P90_MEAN_RES_MS: a Delivery's
 * queueing reply takes tens of microseconds, and a few slow ones put its
 * mean a few microseconds above its 90th percentile, which says nothing
 * about the distribution the rule guards. */
#define P90_MEAN_RES_MS 1.0
static void add_p90_vs_mean(struct figures *f, const char *name, const struct hist *h)
{
    add_validity(f, name, ms(hist_percentile(h, 90)), VB_MIN, hist_mean(h) / 1000.0, 0,
                 h->n_samples, NULL)
        ->resolution = P90_MEAN_RES_MS;
}

/* Inside its bounds: ok.  Outside: too few to judge when a standard error
 * is known and the value lies within VALIDITY_SIGMAS of the target, else
 * out of bounds. */
static void judge(struct validity_item *it)
{
    double v = it->value;
    int inside = it->bound == VB_MIN   ? v >= it->min - it->resolution
                 : it->bound == VB_MAX ? v <= it->max
                                       : v >= it->min && v <= it->max;

    it->ok = !it->applies || inside;
    if (!it->applies)
        it->verdict = VV_NA;
    else if (inside)
        it->verdict = VV_OK;
    else if (it->se > 0 && !isnan(it->target) &&
             (isinf(it->se) || fabs(v - it->target) <= VALIDITY_SIGMAS * it->se))
        it->verdict = VV_TOO_FEW;
    else
        it->verdict = VV_OUT;
}

const char *figures_verdict_text(int verdict)
{
    switch (verdict) {
    case VO_VALID:
        return "valid";
    case VO_UNDETERMINED:
        return "undetermined: run longer";
    default:
        return "NOT valid";
    }
}

/* "in [0.9, 1.1]", ">= 43.0", ">= 12.345 (mean)", "<= 5". */
static void bound_text(const struct validity_item *it, char *buf, size_t len)
{
    if (it->bound == VB_MIN && strstr(it->name, "_vs_mean"))
        snprintf(buf, len, ">= %.3f (mean, to %g ms)", it->min, it->resolution);
    else if (it->bound == VB_MIN)
        snprintf(buf, len, ">= %.1f", it->min);
    else if (it->bound == VB_MAX)
        snprintf(buf, len, "<= %g", it->max);
    else
        snprintf(buf, len, "in [%g, %g]", it->min, it->max);
}

/* Committed transactions per second of a series row, all types. */
static double row_tps(const struct series_row *row)
{
    double total = 0;

    for (int t = 0; t < TX_NTYPES; t++)
        total += row->tps[t];
    return total;
}

/* A measured second in which a connection was lost or a VU was down (an
 * outage shorter than the sampling still counts). */
static int row_down(const struct series_row *row)
{
    return row->phase == 'm' && (row->vus_down > 0 || row->lost > 0);
}

/* Rates over the window, the driver's CPU, and whether the database's
 * New-Order count agrees with ours. */
static void figures_rates(const struct run_result *r, struct figures *f)
{
    const struct vu_stats *m = &r->measured;
    double minutes = r->measured_s / 60.0;
    uint64_t committed = stats_committed(m);
    int64_t diff;

    if (minutes > 0) {
        f->notpm = (double)m->tx[TX_NEW_ORDER].committed / minutes;
        f->notpm_db = (double)r->db_new_orders / minutes;
        f->no_rolled_back_pm = (double)m->tx[TX_NEW_ORDER].rolled_back / minutes;
        f->tps = (double)committed / r->measured_s;
        f->driver_cpu_pct = 100.0 * r->cpu_s / r->measured_s;
    }
    f->driver_cpu_ms_per_ktx = committed ? r->cpu_s * 1000.0 / ((double)committed / 1000.0) : 0;
    f->worker_cpu_ms_per_ktx =
        committed ? (double)m->cpu_us / 1000.0 / ((double)committed / 1000.0) : 0;
    f->wakes_per_tx = committed ? (double)m->csw_vol / (double)committed : NAN;
    f->preempted_per_tx = committed ? (double)m->csw_invol / (double)committed : NAN;
    /* A New-Order whose commit was sent but never answered (a lost connection)
     * may or may not be in the database's count: the counts agree when the
     * difference is within those.  A worker still in a transaction at the
     * window's opening (its counts are from before it) may make the client
     * count one higher, one at its close one lower. */
    diff = r->db_new_orders - (int64_t)m->tx[TX_NEW_ORDER].committed;
    f->counts_agree = r->db_counted && diff >= -(int64_t)r->unfinished_open &&
                      diff <= (int64_t)(m->tx[TX_NEW_ORDER].unknown + r->unfinished_close);
    if (!r->db_counted)
        f->notpm_db = NAN;
}

/* Stalls: runs of measured seconds in which nothing committed; seconds down. */
static void figures_stalls(const struct run_result *r, struct figures *f)
{
    int run_len = 0, run_start = 0;

    for (int i = 0; i <= r->n_series; i++) {
        const struct series_row *row = i < r->n_series ? &r->series[i] : NULL;
        int zero = row && row->phase == 'm' && row_tps(row) == 0;
        if (row) {
            f->zero_tps_s += zero;
            f->down_s += row_down(row);
        }
        if (zero) {
            if (!run_len++)
                run_start = row->second;
            continue;
        }
        if (run_len > f->longest_stall_s)
            f->longest_stall_s = run_len;
        if (run_len >= STALL_MIN_S && f->n_stalls < STALLS_MAX) {
            f->stalls[f->n_stalls][0] = run_start;
            f->stalls[f->n_stalls][1] = run_start + run_len - 1;
            f->n_stalls++;
        }
        run_len = 0;
    }
}

/* The input's shares against the spec's targets: 1 % rollbacks and remote
 * lines, 10 lines an order, 15 % remote and 60 % by-name payments, the
 * skipped deliveries, and the mix minimums of clause 5.2.3 (one deck per
 * terminal). */
static void figures_shares(const struct config *cfg, const struct run_result *r, struct figures *f)
{
    const struct vu_stats *m = &r->measured;
    const char *remote = r->warehouses > 1 ? NULL : "one warehouse";
    struct validity_item *it;
    struct deck d;
    uint64_t executed = 0;

    add_share(f, "new_order_rollback_pct", m->tx[TX_NEW_ORDER].rolled_back, m->no_orders, 0.9, 1.1,
              1.0, NULL);
    /* Lines per order are uniform in 5..15: variance (11^2 - 1) / 12 = 10. */
    it = add_validity(f, "new_order_mean_lines",
                      m->no_orders ? (double)m->no_lines / (double)m->no_orders : 0, VB_RANGE, 9.5,
                      10.5, m->no_orders, NULL);
    it->target = 10;
    it->se = m->no_orders ? sqrt(10.0 / (double)m->no_orders) : INFINITY;
    add_share(f, "remote_order_line_pct", m->no_remote_lines, m->no_lines, 0.95, 1.05, 1.0, remote);
    add_share(f, "remote_payment_pct", m->pay_remote, m->pay_total, 14, 16, 15, remote);
    add_share(f, "payment_by_last_name_pct", m->pay_by_name, m->pay_total, 57, 63, 60, NULL);
    add_share(f, "order_status_by_last_name_pct", m->os_by_name, m->os_total, 57, 63, 60, NULL);
    add_validity(f, "skipped_delivery_pct", pct(r->delivery.dl_skipped, r->delivery.dl_districts),
                 VB_RANGE, 0, 1, r->delivery.dl_districts, NULL);
    if (deck_init(&d, cfg->run.mix) < 0)
        memset(&d, 0, sizeof(d));
    for (int t = 0; t < TX_NTYPES; t++)
        executed += m->tx[t].committed + m->tx[t].rolled_back;
    add_mix_share(f, "payment_share_pct", &d, TX_PAYMENT, m, executed, r->terminals);
    add_mix_share(f, "order_status_share_pct", &d, TX_ORDER_STATUS, m, executed, r->terminals);
    add_mix_share(f, "delivery_share_pct", &d, TX_DELIVERY, m, executed, r->terminals);
    add_mix_share(f, "stock_level_share_pct", &d, TX_STOCK_LEVEL, m, executed, r->terminals);
}

/* A 90th percentile in seconds against the spec's bound. */
static void add_p90(struct figures *f, const char *name, const struct hist *h, double max_s)
{
    add_validity(f, name, ms(hist_percentile(h, 90)) / 1000, VB_RANGE, 0, max_s, h->n_samples,
                 NULL);
}

/* Response times: each type's 90th percentile within its bound (clause
 * 5.2.5.4), and not below the average (the Delivery's is its queueing reply). */
static void figures_latency(const struct config *cfg, const struct run_result *r, struct figures *f)
{
    const struct vu_stats *m = &r->measured;
    const struct hist *dl_lat = &m->tx[TX_DELIVERY].lat;

    add_p90(f, "new_order_p90_s", &m->tx[TX_NEW_ORDER].lat, 5);
    add_p90(f, "payment_p90_s", &m->tx[TX_PAYMENT].lat, 5);
    add_p90(f, "order_status_p90_s", &m->tx[TX_ORDER_STATUS].lat, 5);
    add_p90(f, "delivery_p90_s", dl_lat, 5);
    add_p90(f, "stock_level_p90_s", &m->tx[TX_STOCK_LEVEL].lat, 20);
    if (!cfg->run.delivery_inline)
        add_p90(f, "deferred_delivery_p90_s", &r->delivery.tx[TX_DELIVERY].lat, 80);
    add_p90_vs_mean(f, "new_order_p90_vs_mean_ms", &m->tx[TX_NEW_ORDER].lat);
    add_p90_vs_mean(f, "payment_p90_vs_mean_ms", &m->tx[TX_PAYMENT].lat);
    add_p90_vs_mean(f, "order_status_p90_vs_mean_ms", &m->tx[TX_ORDER_STATUS].lat);
    add_p90_vs_mean(f, "delivery_p90_vs_mean_ms", dl_lat);
    add_p90_vs_mean(f, "stock_level_p90_vs_mean_ms", &m->tx[TX_STOCK_LEVEL].lat);
}

/* The driver's own limits must not pass for the database's: terminals
 * dispatched late, waiting for a connection longer than their think time, a
 * full deferred-delivery queue, or a stretch in which nothing committed. */
static void figures_driver_limits(const struct config *cfg, const struct run_result *r,
                                  struct figures *f)
{
    const struct vu_stats *m = &r->measured;

    add_validity(f, "schedule_lag_p99_ms", f->lag_p99_ms, VB_MAX, 0, 10, m->lag.n_samples, NULL);
    add_validity(f, "waits_over_think_time", (double)m->waits_over_think, VB_MAX, 0, 0,
                 m->lag.n_samples, r->load == TERM_THINK ? NULL : "no think time");
    if (!cfg->run.delivery_inline)
        add_validity(f, "deferred_queue_full", (double)m->dl_queue_full, VB_MAX, 0, 0,
                     m->tx[TX_DELIVERY].committed, NULL);
    add_validity(f, "longest_stall_s", f->longest_stall_s, VB_MAX, 0, STALL_MIN_S - 1,
                 (uint64_t)r->n_series, NULL);
    if (r->load == TERM_THINK)
        add_validity(f, "efficiency_pct", f->efficiency_pct, VB_RANGE, 85, 115,
                     m->tx[TX_NEW_ORDER].committed, NULL);
}

void figures_compute(const struct config *cfg, const struct run_result *r, struct figures *f)
{
    memset(f, 0, sizeof(*f));
    figures_rates(r, f);
    figures_stalls(r, f);
    f->lag_p99_ms = ms(hist_percentile(&r->measured.lag, 99));
    /* Think time: what the terminals can offer at most, 12.86 NOTPM per 10 terminals
     * (one warehouse's), scaled by run.time_scale. */
    if (r->load == TERM_THINK && r->terminals > 0 && r->time_scale > 0)
        f->efficiency_pct =
            100.0 * f->notpm / (TERM_MAX_NOTPM_PER_WAREHOUSE * r->terminals / 10.0 / r->time_scale);
    figures_shares(cfg, r, f);
    figures_latency(cfg, r, f);
    figures_driver_limits(cfg, r, f);
    f->valid = 1;
    f->verdict = VO_VALID;
    for (int i = 0; i < f->n_validity; i++) {
        struct validity_item *it = &f->validity[i];
        judge(it);
        f->valid &= it->ok;
        if (it->verdict == VV_OUT)
            f->verdict = VO_NOT_VALID;
        else if (it->verdict == VV_TOO_FEW && f->verdict == VO_VALID)
            f->verdict = VO_UNDETERMINED;
    }
}

/* An item's verdict in the record and the summary. */
static const char *verdict_word(int v)
{
    switch (v) {
    case VV_OK:
        return "ok";
    case VV_NA:
        return "n/a";
    case VV_TOO_FEW:
        return "too few to judge";
    default:
        return "out of bounds";
    }
}

/* Percentiles of h, and h itself in mergeable form ("hist", results/histjson.h). */
static json_t *lat_json(const struct hist *h)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o*}", "mean_ms",
                     hist_mean(h) / 1000.0, "p50_ms", ms(hist_percentile(h, 50)), "p90_ms",
                     ms(hist_percentile(h, 90)), "p95_ms", ms(hist_percentile(h, 95)), "p99_ms",
                     ms(hist_percentile(h, 99)), "p99_9_ms", ms(hist_percentile(h, 99.9)), "max_ms",
                     ms(h->n_samples ? h->max_us : 0), "min_ms", ms(h->n_samples ? h->min_us : 0),
                     "hist", histjson_encode(h));
}

/* Unknown outcomes over the VUs and the delivery workers. */
static uint64_t unknown_outcomes(const struct run_result *r)
{
    uint64_t n = r->delivery.tx[TX_DELIVERY].unknown;

    for (int t = 0; t < TX_NTYPES; t++)
        n += r->measured.tx[t].unknown;
    return n;
}

/* What lost connections cost the measured window: counts, and the windows
 * (runs of seconds) in which a VU was disconnected or nothing but errors came. */
static json_t *outage_json(const struct config *cfg, const struct run_result *r,
                           const struct figures *f)
{
    const struct vu_stats *m = &r->measured, *d = &r->delivery;
    json_t *windows = json_array();
    int from = -1, to = -1;

    for (int i = 0; i < r->n_series; i++) {
        const struct series_row *row = &r->series[i];
        /* Down, or nothing but errors came back. */
        int out = row_down(row) || (row->phase == 'm' && row->errors > 0 && row_tps(row) == 0);
        if (out && from < 0)
            from = row->second;
        if (out)
            to = row->second;
        if ((!out || i == r->n_series - 1) && from >= 0) {
            json_array_append_new(windows,
                                  json_pack("{s:i, s:i}", "from_second", from, "to_second", to));
            from = -1;
        }
    }
    return json_pack("{s:I, s:I, s:I, s:f, s:i, s:i, s:o, s:f}", "lost_connections",
                     (json_int_t)(m->lost_connections + d->lost_connections), "reconnects",
                     (json_int_t)(m->reconnects + d->reconnects), "unknown_outcome",
                     (json_int_t)unknown_outcomes(r), "disconnected_vu_seconds",
                     (double)(m->down_us + d->down_us) / 1e6, "seconds_with_disconnected",
                     f->down_s, "zero_throughput_seconds", f->zero_tps_s, "windows", windows,
                     "max_outage_s", (double)cfg->run.max_outage_us / 1e6);
}

static const char *load_name(int load)
{
    return load == TERM_THINK  ? "think time (TPC-C keying and think times)"
           : load == TERM_OPEN ? "open loop (Poisson arrivals)"
                               : "closed loop (no think time)";
}

/* How transactions shared round trips: run.json "run.terminals.pipelining". */
static json_t *pipelining_json(const struct config *cfg, const struct vu_stats *m)
{
    if (cfg->run.batch <= 1)
        return json_string("none: one transaction at a time per connection");
    return json_pack("{s:s, s:i, s:I, s:I, s:o, s:I}", "kind",
                     "batches: several terminals' transactions in one round trip, each its own "
                     "transaction",
                     "batch_max", cfg->run.batch, "round_trips", (json_int_t)m->batches,
                     "transactions", (json_int_t)m->batched_tx, "per_round_trip",
                     m->batches ? json_real((double)m->batched_tx / (double)m->batches)
                                : json_null(),
                     "skipped_sent_again", (json_int_t)m->batch_skipped);
}

/* The terminals and what served them: run.json "run.terminals". */
static json_t *terminals_json(const struct config *cfg, const struct run_result *r,
                              const struct figures *f)
{
    json_t *o =
        json_pack("{s:i, s:i, s:i, s:i, s:s, s:f, s:f, s:o, s:o, s:I, s:f}", "count", r->terminals,
                  "connections", r->connections, "workers",
                  r->workers ? r->workers : r->connections, "delivery_workers", r->delivery_workers,
                  "load", load_name(r->load), "offered_tps", r->offered_tps, "time_scale",
                  r->time_scale, "pipelining", pipelining_json(cfg, &r->measured), "schedule_lag",
                  lat_json(&r->measured.lag), "waits_over_think_time",
                  (json_int_t)r->measured.waits_over_think, "schedule_lag_p99_ms", f->lag_p99_ms);

    if (r->load == TERM_THINK) {
        json_object_set_new(o, "efficiency_pct", json_real(f->efficiency_pct));
        json_object_set_new(o, "timer_slack_us", json_real(r->timer_slack_us));
    }
    /* Context switches of the terminals' worker threads (getrusage RUSAGE_THREAD). */
    json_object_set_new(o, "wakes_per_tx", isnan(f->wakes_per_tx) ? json_null()
                                                                  : json_real(f->wakes_per_tx));
    json_object_set_new(o, "preempted_per_tx", isnan(f->preempted_per_tx)
                                                   ? json_null()
                                                   : json_real(f->preempted_per_tx));
    if (r->time_scale != 1.0)
        json_object_set_new(o, "deviation",
                            json_string("run.time_scale: keying and think times scaled"));
    if (cfg->run.rate > 0)
        json_object_set_new(o, "rate_per_s", json_real(cfg->run.rate));
    if (r->stock_level_pairs) {
        json_t *a = json_array();
        for (int i = 0; i < r->n_stock_level_pairs; i++)
            json_array_append_new(a, json_pack("[i, i, I]", r->stock_level_pairs[i].w,
                                               r->stock_level_pairs[i].d,
                                               (json_int_t)r->stock_level_pairs[i].n));
        json_object_set_new(o, "stock_level_by_w_d", a);
    }
    return o;
}

int figures_pooler_seen(const struct run_result *r)
{
    return r->backend_distinct < r->backend_connections || r->backend_changes > 0;
}

const char *figures_isolation(const struct config *cfg, const struct run_result *r)
{
    return r->isolation[0] ? r->isolation : cfg->run.isolation;
}

/* A pooler between us and the server: what the user said (database.pooler)
 * and what the run saw. */
static json_t *pooler_json(const struct config *cfg, const struct run_result *r)
{
    json_t *p = json_pack("{s:o, s:b, s:i, s:i, s:i, s:i}", "declared",
                          cfg->database.pooler[0] ? json_string(cfg->database.pooler) : json_null(),
                          "seen", figures_pooler_seen(r), "connections", r->backend_connections,
                          "server_processes", r->backend_distinct, "monitor_samples",
                          r->backend_samples, "monitor_changes", r->backend_changes);

    /* The dialect cannot ask which server process serves a connection. */
    if (p && r->backend_unavailable[0])
        json_object_set_new(p, "detection_unavailable", json_string(r->backend_unavailable));
    return p;
}

/* The deck the terminals dealt from: its cards, per type, and where it came from. */
static json_t *deck_json(const struct config *cfg, struct deck *deck)
{
    json_t *o = json_object();

    if (deck_init(deck, cfg->run.mix) < 0)
        memset(deck, 0, sizeof(*deck));
    json_object_set_new(o, "cards", json_integer(deck->n));
    for (int t = 0; t < TX_NTYPES; t++)
        json_object_set_new(o, tx_name((enum tx_type)t), json_integer(deck->count[t]));
    json_object_set_new(o, "from",
                        json_string(cfg->run.mix_set ? "run.mix, reduced by its gcd"
                                                     : "the spec's 23-card deck (default)"));
    return o;
}

/* Per transaction type: latency, counts, shares, retries, round trips, errors. */
static json_t *tx_json(const struct config *cfg, const struct run_result *r,
                       const struct deck *deck)
{
    const struct vu_stats *m = &r->measured;
    json_t *tx = json_object();
    uint64_t executed = 0;

    for (int t = 0; t < TX_NTYPES; t++)
        executed += m->tx[t].committed + m->tx[t].rolled_back;
    for (int t = 0; t < TX_NTYPES; t++) {
        const struct tx_stats *s = &m->tx[t];
        /* A deferred Delivery's terminal only queues it: its database work (round trips,
         * time in transaction) is the delivery workers'. */
        const struct tx_stats *db =
            t == TX_DELIVERY && !cfg->run.delivery_inline ? &r->delivery.tx[TX_DELIVERY] : s;
        uint64_t n_db = db->committed + db->rolled_back;
        json_t *o = lat_json(&s->lat);
        json_object_set_new(o, "service", lat_json(&s->svc));
        json_object_set_new(o, "count", json_integer((json_int_t)s->committed));
        json_object_set_new(o, "rolled_back", json_integer((json_int_t)s->rolled_back));
        json_object_set_new(o, "share_pct",
                            json_real(pct(s->committed + s->rolled_back, executed)));
        json_object_set_new(o, "mix_pct", json_real(deck_share_pct(deck, t)));
        json_object_set_new(o, "retries", json_integer((json_int_t)s->retries));
        json_object_set_new(o, "round_trips_per_tx",
                            json_real(n_db ? (double)db->roundtrips / (double)n_db : 0.0));
        if (db != s)
            json_object_set_new(o, "database_work_of", json_string("delivery workers"));
        json_object_set_new(o, "errors",
                            json_pack("{s:I, s:I, s:I, s:I}", "retryable", (json_int_t)s->err_retry,
                                      "connection", (json_int_t)s->err_conn, "other",
                                      (json_int_t)s->err_other, "unknown_outcome",
                                      (json_int_t)s->unknown));
        json_object_set_new(o, "mean_in_tx_ms",
                            json_real(n_db ? (double)db->in_tx_us / 1000.0 / (double)n_db : 0.0));
        json_object_set_new(tx, tx_name((enum tx_type)t), o);
    }
    /* The outputs the terminals received: the same inputs give the same
     * figures in every mode (tests/t/0035-modes.sh). */
    json_object_set_new(json_object_get(tx, "new_order"), "outputs",
                        json_pack("{s:I, s:I}", "total_cents_sum", (json_int_t)m->no_total_cents,
                                  "brand_generic_b_lines", (json_int_t)m->no_brand_b));
    json_object_set_new(json_object_get(tx, "order_status"), "outputs",
                        json_pack("{s:I}", "lines", (json_int_t)m->os_lines));
    return tx;
}

/* Each validity item (value, bounds, rule, verdict, statistics) and the verdict. */
static json_t *validity_json(const struct figures *f)
{
    json_t *val = json_object();

    for (int i = 0; i < f->n_validity; i++) {
        const struct validity_item *it = &f->validity[i];
        char rule[48];
        bound_text(it, rule, sizeof(rule));
        /* One-sided bounds have no other side; an absolute bound no target
         * and no standard error (null). */
        json_object_set_new(
            val, it->name,
            json_pack("{s:f, s:o, s:o, s:s, s:b, s:b, s:s, s:I, s:o, s:o}", "value", it->value,
                      "min", it->bound == VB_MAX ? json_null() : json_real(it->min), "max",
                      it->bound == VB_MIN ? json_null() : json_real(it->max), "rule", rule,
                      "applies", it->applies, "ok", it->ok, "verdict", verdict_word(it->verdict),
                      "n", (json_int_t)it->n, "target",
                      isnan(it->target) ? json_null() : json_real(it->target), "se",
                      it->se > 0 && isfinite(it->se) ? json_real(it->se) : json_null()));
    }
    json_object_set_new(val, "valid", json_boolean(f->valid));
    json_object_set_new(val, "verdict", json_string(figures_verdict_text(f->verdict)));
    return val;
}

/* New-Order's latency bands per second (run.json "new_order_heatmap", the
 * report's heatmap); nothing when no second has any (a merged record). */
static void heatmap_json(json_t *run, const struct run_result *r)
{
    static const double upper_ms[SERIES_HEAT_N - 1] = SERIES_HEAT_UPPER_MS;
    json_t *up = json_array(), *sec = json_array(), *counts = json_array();
    uint64_t any = 0;

    for (int k = 0; k < SERIES_HEAT_N; k++)
        json_array_append_new(up, k < SERIES_HEAT_N - 1 ? json_real(upper_ms[k]) : json_null());
    for (int i = 0; i < r->n_series; i++) {
        json_t *c = json_array();
        for (int k = 0; k < SERIES_HEAT_N; k++) {
            json_array_append_new(c, json_integer(r->series[i].no_heat[k]));
            any += r->series[i].no_heat[k];
        }
        json_array_append_new(sec, json_integer(r->series[i].second));
        json_array_append_new(counts, c);
    }
    if (any)
        json_object_set_new(run, "new_order_heatmap",
                            json_pack("{s:o, s:o, s:o}", "upper_ms", up, "second", sec, "counts",
                                      counts));
    else {
        json_decref(up);
        json_decref(sec);
        json_decref(counts);
    }
}

/* The stalls (from_s, to_s, seconds) into run. */
static void stalls_json(json_t *run, const struct figures *f)
{
    json_t *st = json_array();

    for (int i = 0; i < f->n_stalls; i++)
        json_array_append_new(st, json_pack("{s:i, s:i, s:i}", "from_s", f->stalls[i][0], "to_s",
                                            f->stalls[i][1], "seconds",
                                            f->stalls[i][1] - f->stalls[i][0] + 1));
    json_object_set_new(run, "stalls", st);
    json_object_set_new(run, "longest_stall_s", json_integer(f->longest_stall_s));
}

json_t *figures_json(const struct config *cfg, const struct run_result *r, const struct figures *f)
{
    const struct vu_stats *m = &r->measured;
    json_t *states = json_object(), *per_vu = json_array(), *run, *deck_o, *tx, *val;
    struct deck deck;

    deck_o = deck_json(cfg, &deck);
    tx = tx_json(cfg, r, &deck);
    val = validity_json(f);
    for (int i = 0; r->connect_ms && i < r->virtual_users; i++)
        json_array_append_new(per_vu, json_real(r->connect_ms[i]));
    for (int i = 0; i < STATS_NSTATES && m->sqlstates[i].state[0]; i++)
        json_object_set_new(states, m->sqlstates[i].state,
                            json_integer((json_int_t)m->sqlstates[i].n));
    run = json_pack(
        "{s:s, s:f, s:f, s:f, s:f, s:b, s:I, s:I, s:f, s:o, s:o, s:o, s:{s:s, s:I, s:I, s:I, s:I, "
        "s:f, s:o, s:I}, s:{s:f, s:f, s:f, s:f, s:i, s:o}, s:f, s:f, s:f, s:f, s:f, s:i, s:i, "
        "s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, s:I, s:I, s:s, s:s}",
        "metric", "NOTPM (TPC-C derived, not audited)", "notpm", f->notpm, "notpm_db",
        r->db_counted ? f->notpm_db : 0.0, "new_orders_rolled_back_per_min", f->no_rolled_back_pm,
        "tps", f->tps, "notpm_counts_agree", f->counts_agree, "new_orders_client",
        (json_int_t)m->tx[TX_NEW_ORDER].committed, "new_orders_db", (json_int_t)r->db_new_orders,
        "measured_seconds", r->measured_s, "transactions", tx, "validity", val,
        "errors_by_sqlstate", states, "delivery", "mode",
        cfg->run.delivery_inline ? "inline (deviation from TPC-C)" : "deferred", "completed",
        (json_int_t)r->delivery.tx[TX_DELIVERY].committed, "districts",
        (json_int_t)r->delivery.dl_districts, "skipped_districts",
        (json_int_t)r->delivery.dl_skipped, "queue_full_waits",
        (json_int_t)r->delivery.dl_queue_full, "queue_full_wait_s",
        (double)r->delivery.dl_queue_wait_us / 1e6, "queue_to_completion",
        lat_json(&r->delivery.tx[TX_DELIVERY].lat), "pending_at_end",
        (json_int_t)r->deliveries_pending, "connect", "total_s", r->connect_total_s, "min_ms",
        r->connect_min_ms, "median_ms", r->connect_median_ms, "max_ms", r->connect_max_ms,
        "virtual_users", r->virtual_users, "per_vu_ms", per_vu, "rtt_median_ms",
        r->rtt_median_us / 1000.0, "driver_cpu_s", r->cpu_s, "driver_cpu_ms_per_1000_tx",
        f->driver_cpu_ms_per_ktx, "driver_cpu_pct_of_core", f->driver_cpu_pct,
        "vus_in_transaction_mean", r->vus_in_tx_mean, "warehouses", r->warehouses, "virtual_users",
        r->virtual_users, "nurand_c_load", "c_last", r->c_load.c_last, "c_id", r->c_load.c_id,
        "ol_i_id", r->c_load.ol_i_id, "nurand_c_run", "c_last", r->c_run.c_last, "c_id",
        r->c_run.c_id, "ol_i_id", r->c_run.ol_i_id, "seed", (json_int_t)r->seed, "reconnects",
        (json_int_t)m->reconnects, "isolation", figures_isolation(cfg, r), "mode", run_mode_name(r->mode));
    /* run.isolation unset and read committed not offered: which level, and why. */
    if (r->isolation_why[0]) {
        char why[sizeof(r->isolation_why) + 48];
        snprintf(why, sizeof(why), "run.isolation is not set, and %s", r->isolation_why);
        json_object_set_new(run, "isolation_why", json_string(why));
    }
    if (!cfg->run.delivery_inline)
        json_object_set_new(json_object_get(run, "delivery"), "run_on",
                            json_string(r->delivery_on == DL_ON_GROUPS ? "worker threads"
                                        : r->delivery_on == DL_ON_THREADS
                                            ? "delivery worker threads"
                                            : "worker threads and delivery worker threads"));
    if (r->delivery.batches) {
        /* The worker threads' delivery connections send several queued
         * Deliveries per round trip (run.batch); delivery worker threads one. */
        json_t *d = json_object_get(run, "delivery");
        json_object_set_new(d, "round_trips", json_integer((json_int_t)r->delivery.batches));
        json_object_set_new(d, "per_round_trip", json_real((double)r->delivery.batched_tx /
                                                           (double)r->delivery.batches));
    }
    /* Where the driver's CPU goes: the terminals' workers (in group mode with
     * their delivery connections), and the rest (monitor, delivery workers,
     * metrics, probes). */
    json_object_set_new(run, "driver_cpu_workers_ms_per_1000_tx",
                        json_real(f->worker_cpu_ms_per_ktx));
    json_object_set_new(run, "outage", outage_json(cfg, r, f));
    json_object_set_new(run, "deck", deck_o);
    if (!r->db_counted) {
        /* Never a figure that was not measured. */
        json_object_set_new(run, "notpm_db", json_null());
        json_object_set_new(run, "new_orders_db", json_null());
        json_object_set_new(run, "db_count_note",
                            json_string(r->db_count_note[0]
                                            ? r->db_count_note
                                            : "the database's count was not taken"));
    }
    json_object_set_new(
        run, "unfinished",
        json_pack("{s:i, s:i}", "at_open", r->unfinished_open, "at_close", r->unfinished_close));
    /* Threads still blocked in the database when the run ended (the server
     * answered neither them nor their cancel requests). */
    json_object_set_new(run, "left_behind", json_integer(r->left_behind));
    json_object_set_new(run, "cancel_unanswered", json_boolean(r->cancel_unanswered));
    json_object_set_new(run, "terminals", terminals_json(cfg, r, f));
    stalls_json(run, f);
    heatmap_json(run, r);
    json_object_set_new(run, "statements", json_string(run_statements_name(cfg->run.statements)));
    json_object_set_new(run, "pooler", pooler_json(cfg, r));
    return run;
}

/* The run's shape: status, scale, mode, terminals, connections, pooler. */
static void print_head(FILE *out, const struct config *cfg, const struct run_result *r)
{
    fprintf(out,
            "\nrun: %s, %d warehouse%s, %d VUs, %.1f s measured, mode %s, statements %s, %s, "
            "isolation %s%s%s%s\n",
            r->status, r->warehouses, r->warehouses == 1 ? "" : "s", r->virtual_users,
            r->measured_s, run_mode_name(r->mode), run_statements_name(cfg->run.statements),
            cfg->run.delivery_inline ? "inline delivery (deviation)" : "deferred delivery",
            figures_isolation(cfg, r), r->isolation_why[0] ? " (" : "", r->isolation_why,
            r->isolation_why[0] ? ")" : "");
    fprintf(out, "  %d terminals over %d connections", r->terminals, r->connections);
    if (r->workers && r->workers < r->connections)
        fprintf(out, " on %d worker thread%s", r->workers, r->workers == 1 ? "" : "s");
    fprintf(out, ", %s", load_name(r->load));
    if (r->load == TERM_OPEN)
        fprintf(out, ", %.1f/s offered", r->offered_tps);
    else if (r->load == TERM_THINK)
        fprintf(out, ", up to %.1f tx/s offered", r->offered_tps);
    if (r->time_scale != 1.0)
        fprintf(out, ", times x %g (a deviation)", r->time_scale);
    if (cfg->run.batch > 1 && r->measured.batches)
        fprintf(out, ", batches of up to %d (%.2f transactions per round trip, %llu sent again)",
                cfg->run.batch, (double)r->measured.batched_tx / (double)r->measured.batches,
                (unsigned long long)r->measured.batch_skipped);
    fprintf(out, "\n");
    if (figures_pooler_seen(r) || cfg->database.pooler[0])
        fprintf(out,
                "  pooler: %s%s%s (%d connections on %d server processes at the start; the "
                "monitor's connection changed server process in %d of %d samples)\n",
                figures_pooler_seen(r) ? "seen" : "not seen",
                cfg->database.pooler[0] ? ", database.pooler says " : "", cfg->database.pooler,
                r->backend_connections, r->backend_distinct, r->backend_changes,
                r->backend_samples);
}

/* NOTPM against the database's count, an outage, TPS and RTT. */
static void print_notpm(FILE *out, const struct run_result *r, const struct figures *f)
{
    const struct vu_stats *m = &r->measured;

    if (!r->db_counted)
        fprintf(out, "  NOTPM %.0f  (TPC-C derived, not audited; database count not taken: %s)\n",
                f->notpm, r->db_count_note[0] ? r->db_count_note : "not measured");
    else if (r->unfinished_open + r->unfinished_close)
        fprintf(out,
                "  NOTPM %.0f  (TPC-C derived, not audited; database count %.0f%s: %d "
                "transactions unfinished at the window's edges may differ)\n",
                f->notpm, f->notpm_db, f->counts_agree ? ", agrees" : ", DIFFERS",
                r->unfinished_open + r->unfinished_close);
    else
        fprintf(out, "  NOTPM %.0f  (TPC-C derived, not audited; database count %.0f%s)\n",
                f->notpm, f->notpm_db, f->counts_agree ? ", agrees" : ", DIFFERS");
    if (m->lost_connections + r->delivery.lost_connections)
        fprintf(out,
                "  outage: %llu connections lost, %llu reconnected, %d s with no "
                "throughput, %llu transactions of unknown outcome (not counted)\n",
                (unsigned long long)(m->lost_connections + r->delivery.lost_connections),
                (unsigned long long)(m->reconnects + r->delivery.reconnects), f->zero_tps_s,
                (unsigned long long)unknown_outcomes(r));
    fprintf(out, "  TPS %.1f   rolled-back New-Orders %.1f/min   RTT %.3f ms   connect %.2f s\n",
            f->tps, f->no_rolled_back_pm, r->rtt_median_us / 1000.0, r->connect_total_s);
}

/* A row per transaction type; the deferred deliveries; service times. */
static void print_tx(FILE *out, const struct config *cfg, const struct run_result *r)
{
    const struct vu_stats *m = &r->measured;

    fprintf(out, "  %-13s %9s %6s %8s %8s %8s %8s %8s %6s %6s %5s\n", "transaction", "count",
            "share", "p50 ms", "p90 ms", "p95 ms", "p99 ms", "max ms", "retry", "errors", "RT/tx");
    {
        uint64_t executed = 0;
        for (int t = 0; t < TX_NTYPES; t++)
            executed += m->tx[t].committed + m->tx[t].rolled_back;
        for (int t = 0; t < TX_NTYPES; t++) {
            const struct tx_stats *s = &m->tx[t];
            /* RT/tx of a deferred Delivery: the workers' (see figures_json). */
            const struct tx_stats *db =
                t == TX_DELIVERY && !cfg->run.delivery_inline ? &r->delivery.tx[TX_DELIVERY] : s;
            uint64_t n = db->committed + db->rolled_back;
            fprintf(out, "  %-13s %9llu %5.1f%% %8.2f %8.2f %8.2f %8.2f %8.2f %6llu %6llu %5.1f\n",
                    tx_name((enum tx_type)t), (unsigned long long)s->committed,
                    pct(s->committed + s->rolled_back, executed), ms(hist_percentile(&s->lat, 50)),
                    ms(hist_percentile(&s->lat, 90)), ms(hist_percentile(&s->lat, 95)),
                    ms(hist_percentile(&s->lat, 99)), ms(s->lat.n_samples ? s->lat.max_us : 0),
                    (unsigned long long)s->retries,
                    (unsigned long long)(s->err_retry + s->err_conn + s->err_other),
                    n ? (double)db->roundtrips / (double)n : 0.0);
        }
    }
    if (!cfg->run.delivery_inline)
        fprintf(out,
                "  deferred deliveries: %llu completed, p90 queue-to-completion %.2f ms, "
                "%llu skipped districts, queue full %llu times\n",
                (unsigned long long)r->delivery.tx[TX_DELIVERY].committed,
                ms(hist_percentile(&r->delivery.tx[TX_DELIVERY].lat, 90)),
                (unsigned long long)r->delivery.dl_skipped,
                (unsigned long long)r->delivery.dl_queue_full);
    /* Service time beside response time, when they differ (queueing shows as the gap). */
    {
        int differ = r->load != TERM_CLOSED;
        for (int t = 0; t < TX_NTYPES && !differ; t++) {
            double p99 = ms(hist_percentile(&m->tx[t].lat, 99));
            double s99 = ms(hist_percentile(&m->tx[t].svc, 99));
            differ = p99 > 1.1 * s99 + 1.0;
        }
        if (differ) {
            fprintf(out, "  service time (send to completion; the table above is from the "
                         "intended start):\n");
            for (int t = 0; t < TX_NTYPES; t++)
                fprintf(out, "  %-13s          p50 %8.2f  p90 %8.2f  p99 %8.2f  max %8.2f ms\n",
                        tx_name((enum tx_type)t), ms(hist_percentile(&m->tx[t].svc, 50)),
                        ms(hist_percentile(&m->tx[t].svc, 90)),
                        ms(hist_percentile(&m->tx[t].svc, 99)),
                        ms(m->tx[t].svc.n_samples ? m->tx[t].svc.max_us : 0));
        }
    }
}

/* Schedule lag, whether the driver fell behind, and the stalls. */
static void print_lag(FILE *out, const struct config *cfg, const struct run_result *r,
                      const struct figures *f)
{
    const struct vu_stats *m = &r->measured;

    fprintf(out, "  schedule lag: p50 %.2f  p99 %.2f  max %.2f ms",
            ms(hist_percentile(&m->lag, 50)), f->lag_p99_ms,
            ms(m->lag.n_samples ? m->lag.max_us : 0));
    if (r->load == TERM_THINK)
        fprintf(out,
                "; %llu waits for a connection longer than the think time; efficiency "
                "%.1f%%",
                (unsigned long long)m->waits_over_think, f->efficiency_pct);
    fprintf(out, "\n");
    if (f->lag_p99_ms > 10 || m->waits_over_think ||
        (!cfg->run.delivery_inline && m->dl_queue_full))
        fprintf(out, "  the driver fell behind: %s%s%s\n",
                f->lag_p99_ms > 10 || m->waits_over_think
                    ? "terminals waited for a free connection (raise run.connections) "
                    : "",
                !cfg->run.delivery_inline && m->dl_queue_full
                    ? "the deferred delivery queue was full (raise run.delivery_workers "
                      "or run.delivery_queue) "
                    : "",
                "; input validity fails");
    for (int i = 0; i < f->n_stalls; i++)
        fprintf(out, "  stall: nothing committed from second %d to %d (%d s)\n", f->stalls[i][0],
                f->stalls[i][1], f->stalls[i][1] - f->stalls[i][0] + 1);
}

/* Input validity, item by item. */
static void print_validity(FILE *out, const struct figures *f)
{
    fprintf(out, "  input validity (TPC-C 5.5.1.5, 5.2.3): %s\n", figures_verdict_text(f->verdict));
    for (int i = 0; i < f->n_validity; i++) {
        const struct validity_item *it = &f->validity[i];
        char rule[48];
        bound_text(it, rule, sizeof(rule));
        if (!it->applies)
            fprintf(out, "    %-32s n/a (%s)\n", it->name, it->na);
        else if (it->verdict == VV_TOO_FEW)
            fprintf(out, "    %-32s %8.3f  %-16s too few to judge (%llu, +-%.3g)\n", it->name,
                    it->value, rule, (unsigned long long)it->n, it->se);
        else
            fprintf(out, "    %-32s %8.3f  %-16s %s\n", it->name, it->value, rule,
                    it->ok ? "ok" : "OUT OF BOUNDS");
    }
}

void figures_print(FILE *out, const struct config *cfg, const struct run_result *r,
                   const struct figures *f)
{
    print_head(out, cfg, r);
    print_notpm(out, r, f);
    print_tx(out, cfg, r);
    print_lag(out, cfg, r, f);
    print_validity(out, f);
    fprintf(out,
            "  driver CPU: %.2f ms per 1000 tx (terminal workers %.2f, the rest %.2f), %.1f%% "
            "of a core, %.2f wakes per tx%s\n",
            f->driver_cpu_ms_per_ktx, f->worker_cpu_ms_per_ktx,
            f->driver_cpu_ms_per_ktx > f->worker_cpu_ms_per_ktx
                ? f->driver_cpu_ms_per_ktx - f->worker_cpu_ms_per_ktx
                : 0.0,
            f->driver_cpu_pct, isnan(f->wakes_per_tx) ? 0.0 : f->wakes_per_tx,
            f->driver_cpu_pct > 50 ? "  (warning: the driver may be the bottleneck)" : "");
}

char *figures_series_csv(const struct run_result *r, size_t *len)
{
    size_t cap = 256 + (size_t)r->n_series * 200, n = 0;
    char *buf = malloc(cap);

    if (!buf)
        return NULL;
    n += (size_t)snprintf(buf + n, cap - n,
                          "second,phase,new_order_tps,payment_tps,order_status_tps,delivery_tps,"
                          "stock_level_tps,total_tps,new_order_p50_ms,new_order_p90_ms,"
                          "new_order_p99_ms,all_p99_ms,errors,vus_in_tx,vus_down,"
                          "connections_lost,all_service_p99_ms,schedule_lag_p99_ms\n");
    for (int i = 0; i < r->n_series; i++) {
        const struct series_row *s = &r->series[i];
        double total = row_tps(s);
        int w;
        /* 200 bytes a row is plenty for real figures; a longer row (a huge
         * value) grows the buffer and is written again, never cut or past it. */
        for (;;) {
            char *nb;
            w = snprintf(buf + n, cap - n,
                         "%d,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,%.3f,%llu,%d,%d,%llu,"
                         "%.3f,%.3f\n",
                         s->second,
                         s->phase == 'm'   ? "measure"
                         : s->phase == 's' ? "stop"
                                           : "warmup",
                         s->tps[0], s->tps[1], s->tps[2], s->tps[3], s->tps[4], total, s->no_p50_ms,
                         s->no_p90_ms, s->no_p99_ms, s->all_p99_ms, (unsigned long long)s->errors,
                         s->vus_in_tx, s->vus_down, (unsigned long long)s->lost, s->all_svc_p99_ms,
                         s->lag_p99_ms);
            if (w < 0) {
                free(buf);
                return NULL;
            }
            if ((size_t)w < cap - n)
                break;
            nb = realloc(buf, cap * 2 + (size_t)w);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
            cap = cap * 2 + (size_t)w;
        }
        n += (size_t)w;
    }
    *len = n;
    return buf;
}
