/*
 * figures.c - the arithmetic and presentation of a run's results.
 * Pure computation plus formatting; the caller writes files.
 */
#include "run/figures.h"

#include <stdlib.h>
#include <string.h>

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double ms(uint64_t us)
{
    return (double)us / 1000.0;
}

static void add_validity(struct figures *f, const char *name, double v, double lo, double hi,
                         int applies)
{
    struct validity_item *it = &f->validity[f->n_validity++];

    it->name = name;
    it->value = v;
    it->min = lo;
    it->max = hi;
    it->applies = applies;
    it->ok = !applies || (v >= lo && v <= hi);
    if (!it->ok)
        f->valid = 0;
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

void figures_compute(const struct config *cfg, const struct run_result *r, struct figures *f)
{
    const struct vu_stats *m = &r->measured;
    double minutes = r->measured_s / 60.0;
    uint64_t committed = stats_committed(m);
    int remote = r->warehouses > 1;
    const struct hist *dl_lat = cfg->run.delivery_inline ? &m->tx[TX_DELIVERY].lat
                                                         : &m->tx[TX_DELIVERY].lat;

    memset(f, 0, sizeof(*f));
    f->valid = 1;
    if (minutes > 0) {
        f->notpm = (double)m->tx[TX_NEW_ORDER].committed / minutes;
        f->notpm_db = (double)r->db_new_orders / minutes;
        f->no_rolled_back_pm = (double)m->tx[TX_NEW_ORDER].rolled_back / minutes;
        f->tps = (double)committed / r->measured_s;
        f->driver_cpu_pct = 100.0 * r->cpu_s / r->measured_s;
    }
    f->driver_cpu_ms_per_ktx = committed ? r->cpu_s * 1000.0 / ((double)committed / 1000.0) : 0;
    /* A New-Order whose commit was sent but never answered (a lost connection)
     * may or may not be in the database's count: the counts agree when the
     * difference is within those. */
    {
        int64_t diff = r->db_new_orders - (int64_t)m->tx[TX_NEW_ORDER].committed;
        f->counts_agree = diff >= 0 && diff <= (int64_t)m->tx[TX_NEW_ORDER].unknown;
    }
    for (int i = 0; i < r->n_series; i++) {
        const struct series_row *row = &r->series[i];
        f->zero_tps_s += row->phase == 'm' && row_tps(row) == 0;
        f->down_s += row_down(row);
    }

    add_validity(f, "new_order_rollback_pct", pct(m->tx[TX_NEW_ORDER].rolled_back, m->no_orders),
                 0.9, 1.1, 1);
    add_validity(f, "new_order_mean_lines",
                 m->no_orders ? (double)m->no_lines / (double)m->no_orders : 0, 9.5, 10.5, 1);
    add_validity(f, "remote_order_line_pct", pct(m->no_remote_lines, m->no_lines), 0.95, 1.05,
                 remote);
    add_validity(f, "remote_payment_pct", pct(m->pay_remote, m->pay_total), 14, 16, remote);
    add_validity(f, "payment_by_last_name_pct", pct(m->pay_by_name, m->pay_total), 57, 63, 1);
    add_validity(f, "order_status_by_last_name_pct", pct(m->os_by_name, m->os_total), 57, 63, 1);
    add_validity(f, "skipped_delivery_pct",
                 pct(r->delivery.dl_skipped, r->delivery.dl_districts), 0, 1, 1);
    add_validity(f, "new_order_p90_s", ms(hist_percentile(&m->tx[TX_NEW_ORDER].lat, 90)) / 1000,
                 0, 5, 1);
    add_validity(f, "payment_p90_s", ms(hist_percentile(&m->tx[TX_PAYMENT].lat, 90)) / 1000, 0, 5,
                 1);
    add_validity(f, "order_status_p90_s",
                 ms(hist_percentile(&m->tx[TX_ORDER_STATUS].lat, 90)) / 1000, 0, 5, 1);
    add_validity(f, "delivery_p90_s", ms(hist_percentile(dl_lat, 90)) / 1000, 0, 5, 1);
    add_validity(f, "stock_level_p90_s",
                 ms(hist_percentile(&m->tx[TX_STOCK_LEVEL].lat, 90)) / 1000, 0, 20, 1);
    if (!cfg->run.delivery_inline)
        add_validity(f, "deferred_delivery_p90_s",
                     ms(hist_percentile(&r->delivery.tx[TX_DELIVERY].lat, 90)) / 1000, 0, 80, 1);
}

static json_t *lat_json(const struct hist *h)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "mean_ms", hist_mean(h) / 1000.0,
                     "p50_ms", ms(hist_percentile(h, 50)), "p90_ms", ms(hist_percentile(h, 90)),
                     "p95_ms", ms(hist_percentile(h, 95)), "p99_ms", ms(hist_percentile(h, 99)),
                     "p99_9_ms", ms(hist_percentile(h, 99.9)), "max_ms",
                     ms(h->n_samples ? h->max_us : 0), "min_ms", ms(h->n_samples ? h->min_us : 0));
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
            json_array_append_new(windows, json_pack("{s:i, s:i}", "from_second", from,
                                                     "to_second", to));
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

int figures_pooler_seen(const struct run_result *r)
{
    return r->backend_distinct < r->backend_connections || r->backend_changes > 0;
}

/* A pooler between us and the server: what the user said (database.pooler)
 * and what the run saw. */
static json_t *pooler_json(const struct config *cfg, const struct run_result *r)
{
    return json_pack("{s:o, s:b, s:i, s:i, s:i, s:i}", "declared",
                     cfg->database.pooler[0] ? json_string(cfg->database.pooler) : json_null(),
                     "seen", figures_pooler_seen(r), "connections", r->backend_connections,
                     "server_processes", r->backend_distinct, "monitor_samples",
                     r->backend_samples, "monitor_changes", r->backend_changes);
}

json_t *figures_json(const struct config *cfg, const struct run_result *r,
                     const struct figures *f)
{
    const struct vu_stats *m = &r->measured;
    json_t *tx = json_object(), *val = json_object(), *states = json_object();
    json_t *per_vu = json_array(), *run;
    uint64_t executed = 0;

    for (int t = 0; t < TX_NTYPES; t++)
        executed += m->tx[t].committed + m->tx[t].rolled_back;
    for (int t = 0; t < TX_NTYPES; t++) {
        const struct tx_stats *s = &m->tx[t];
        json_t *o = lat_json(&s->lat);
        json_object_set_new(o, "count", json_integer((json_int_t)s->committed));
        json_object_set_new(o, "rolled_back", json_integer((json_int_t)s->rolled_back));
        json_object_set_new(o, "share_pct", json_real(pct(s->committed + s->rolled_back,
                                                           executed)));
        json_object_set_new(o, "mix_pct", json_integer(cfg->run.mix[t]));
        json_object_set_new(o, "retries", json_integer((json_int_t)s->retries));
        json_object_set_new(o, "round_trips_per_tx",
                            json_real(s->committed + s->rolled_back
                                          ? (double)s->roundtrips /
                                                (double)(s->committed + s->rolled_back)
                                          : 0.0));
        json_object_set_new(o, "errors", json_pack("{s:I, s:I, s:I, s:I}", "retryable",
                                                   (json_int_t)s->err_retry, "connection",
                                                   (json_int_t)s->err_conn, "other",
                                                   (json_int_t)s->err_other, "unknown_outcome",
                                                   (json_int_t)s->unknown));
        json_object_set_new(o, "mean_in_tx_ms",
                            json_real(s->committed + s->rolled_back
                                          ? (double)s->in_tx_us / 1000.0 /
                                                (double)(s->committed + s->rolled_back)
                                          : 0.0));
        json_object_set_new(tx, tx_name((enum tx_type)t), o);
    }
    for (int i = 0; i < f->n_validity; i++) {
        const struct validity_item *it = &f->validity[i];
        json_object_set_new(val, it->name,
                            json_pack("{s:f, s:f, s:f, s:b, s:b}", "value", it->value, "min",
                                      it->min, "max", it->max, "applies", it->applies, "ok",
                                      it->ok));
    }
    json_object_set_new(val, "valid", json_boolean(f->valid));
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
        f->notpm_db, "new_orders_rolled_back_per_min", f->no_rolled_back_pm, "tps", f->tps,
        "notpm_counts_agree", f->counts_agree, "new_orders_client",
        (json_int_t)m->tx[TX_NEW_ORDER].committed, "new_orders_db", (json_int_t)r->db_new_orders,
        "measured_seconds", r->measured_s, "transactions", tx, "validity", val, "errors_by_sqlstate",
        states, "delivery", "mode", cfg->run.delivery_inline ? "inline (deviation from TPC-C)" : "deferred",
        "completed", (json_int_t)r->delivery.tx[TX_DELIVERY].committed, "districts",
        (json_int_t)r->delivery.dl_districts, "skipped_districts",
        (json_int_t)r->delivery.dl_skipped, "queue_full_waits",
        (json_int_t)r->delivery.dl_queue_full, "queue_full_wait_s",
        (double)r->delivery.dl_queue_wait_us / 1e6, "queue_to_completion",
        lat_json(&r->delivery.tx[TX_DELIVERY].lat), "pending_at_end",
        (json_int_t)r->deliveries_pending,
        "connect", "total_s", r->connect_total_s, "min_ms", r->connect_min_ms, "median_ms",
        r->connect_median_ms, "max_ms", r->connect_max_ms, "virtual_users", r->virtual_users,
        "per_vu_ms", per_vu,
        "rtt_median_ms", r->rtt_median_us / 1000.0, "driver_cpu_s", r->cpu_s,
        "driver_cpu_ms_per_1000_tx", f->driver_cpu_ms_per_ktx, "driver_cpu_pct_of_core",
        f->driver_cpu_pct, "vus_in_transaction_mean", r->vus_in_tx_mean, "warehouses",
        r->warehouses, "virtual_users", r->virtual_users, "nurand_c_load", "c_last",
        r->c_load.c_last, "c_id", r->c_load.c_id, "ol_i_id", r->c_load.ol_i_id, "nurand_c_run",
        "c_last", r->c_run.c_last, "c_id", r->c_run.c_id, "ol_i_id", r->c_run.ol_i_id, "seed",
        (json_int_t)r->seed, "reconnects", (json_int_t)m->reconnects, "isolation",
        cfg->run.isolation, "mode", run_mode_name(r->mode));
    json_object_set_new(run, "outage", outage_json(cfg, r, f));
    json_object_set_new(run, "statements", json_string(run_statements_name(cfg->run.statements)));
    json_object_set_new(run, "pooler", pooler_json(cfg, r));
    return run;
}

void figures_print(FILE *out, const struct config *cfg, const struct run_result *r,
                   const struct figures *f)
{
    const struct vu_stats *m = &r->measured;

    fprintf(out,
            "\nrun: %s, %d warehouse%s, %d VUs, %.1f s measured, mode %s, statements %s, %s, "
            "isolation %s\n",
            r->status, r->warehouses, r->warehouses == 1 ? "" : "s", r->virtual_users,
            r->measured_s, run_mode_name(r->mode), run_statements_name(cfg->run.statements),
            cfg->run.delivery_inline ? "inline delivery (deviation)" : "deferred delivery",
            cfg->run.isolation);
    if (figures_pooler_seen(r) || cfg->database.pooler[0])
        fprintf(out, "  pooler: %s%s%s (%d connections on %d server processes at the start; the "
                     "monitor's connection changed server process in %d of %d samples)\n",
                figures_pooler_seen(r) ? "seen" : "not seen",
                cfg->database.pooler[0] ? ", database.pooler says " : "", cfg->database.pooler,
                r->backend_connections, r->backend_distinct, r->backend_changes,
                r->backend_samples);
    fprintf(out, "  NOTPM %.0f  (TPC-C derived, not audited; database count %.0f%s)\n", f->notpm,
            f->notpm_db, f->counts_agree ? ", agrees" : ", DIFFERS");
    if (m->lost_connections + r->delivery.lost_connections)
        fprintf(out, "  outage: %llu connections lost, %llu reconnected, %d s with no "
                     "throughput, %llu transactions of unknown outcome (not counted)\n",
                (unsigned long long)(m->lost_connections + r->delivery.lost_connections),
                (unsigned long long)(m->reconnects + r->delivery.reconnects), f->zero_tps_s,
                (unsigned long long)unknown_outcomes(r));
    fprintf(out, "  TPS %.1f   rolled-back New-Orders %.1f/min   RTT %.3f ms   connect %.2f s\n",
            f->tps, f->no_rolled_back_pm, r->rtt_median_us / 1000.0, r->connect_total_s);
    fprintf(out, "  %-13s %9s %6s %8s %8s %8s %8s %8s %6s %6s %5s\n", "transaction", "count",
            "share", "p50 ms", "p90 ms", "p95 ms", "p99 ms", "max ms", "retry", "errors", "RT/tx");
    {
        uint64_t executed = 0;
        for (int t = 0; t < TX_NTYPES; t++)
            executed += m->tx[t].committed + m->tx[t].rolled_back;
        for (int t = 0; t < TX_NTYPES; t++) {
            const struct tx_stats *s = &m->tx[t];
            uint64_t n = s->committed + s->rolled_back;
            fprintf(out, "  %-13s %9llu %5.1f%% %8.2f %8.2f %8.2f %8.2f %8.2f %6llu %6llu %5.1f\n",
                    tx_name((enum tx_type)t), (unsigned long long)s->committed,
                    pct(s->committed + s->rolled_back, executed),
                    ms(hist_percentile(&s->lat, 50)), ms(hist_percentile(&s->lat, 90)),
                    ms(hist_percentile(&s->lat, 95)), ms(hist_percentile(&s->lat, 99)),
                    ms(s->lat.n_samples ? s->lat.max_us : 0), (unsigned long long)s->retries,
                    (unsigned long long)(s->err_retry + s->err_conn + s->err_other),
                    n ? (double)s->roundtrips / (double)n : 0.0);
        }
    }
    if (!cfg->run.delivery_inline)
        fprintf(out, "  deferred deliveries: %llu completed, p90 queue-to-completion %.2f ms, "
                     "%llu skipped districts, queue full %llu times\n",
                (unsigned long long)r->delivery.tx[TX_DELIVERY].committed,
                ms(hist_percentile(&r->delivery.tx[TX_DELIVERY].lat, 90)),
                (unsigned long long)r->delivery.dl_skipped,
                (unsigned long long)r->delivery.dl_queue_full);
    fprintf(out, "  input validity (TPC-C 5.5.1.5): %s\n", f->valid ? "valid" : "NOT valid");
    for (int i = 0; i < f->n_validity; i++) {
        const struct validity_item *it = &f->validity[i];
        if (!it->applies)
            fprintf(out, "    %-32s n/a (one warehouse)\n", it->name);
        else
            fprintf(out, "    %-32s %8.3f  in [%g, %g]  %s\n", it->name, it->value, it->min,
                    it->max, it->ok ? "ok" : "OUT OF BOUNDS");
    }
    fprintf(out, "  driver CPU: %.2f ms per 1000 tx, %.1f%% of a core%s\n",
            f->driver_cpu_ms_per_ktx, f->driver_cpu_pct,
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
                          "connections_lost\n");
    for (int i = 0; i < r->n_series; i++) {
        const struct series_row *s = &r->series[i];
        double total = row_tps(s);
        int w;
        /* 200 bytes a row is plenty for real figures; a longer row (a huge
         * value) grows the buffer and is written again, never cut or past it. */
        for (;;) {
            char *nb;
            w = snprintf(buf + n, cap - n,
                         "%d,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,%.3f,%llu,%d,%d,%llu\n",
                         s->second,
                         s->phase == 'm' ? "measure" : s->phase == 's' ? "stop" : "warmup",
                         s->tps[0], s->tps[1], s->tps[2], s->tps[3], s->tps[4], total,
                         s->no_p50_ms, s->no_p90_ms, s->no_p99_ms, s->all_p99_ms,
                         (unsigned long long)s->errors, s->vus_in_tx, s->vus_down,
                         (unsigned long long)s->lost);
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
