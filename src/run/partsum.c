/*
 * partsum.c - a part's run as mergeable JSON, and the merge (see partsum.h).
 * Counters are named as in struct vu_stats (stats.h's field lists), so the
 * form follows the struct; an unknown or missing counter is an error.
 */
#include "run/partsum.h"

#include <stdlib.h>
#include <string.h>

#include "results/histjson.h"
#include "run/figures.h"

/* ---- encode ---- */

static json_t *stats_encode(const struct vu_stats *s)
{
    json_t *o = json_object(), *tx = json_array(), *st = json_object();

#define PUT(f) json_object_set_new(o, #f, json_integer((json_int_t)s->f));
    STATS_FIELDS(PUT)
#undef PUT
    for (int t = 0; t < TX_NTYPES; t++) {
        json_t *x = json_object();
#define TPUT(f) json_object_set_new(x, #f, json_integer((json_int_t)s->tx[t].f));
        STATS_TX_FIELDS(TPUT)
#undef TPUT
        json_object_set_new(x, "lat", histjson_encode(&s->tx[t].lat));
        json_object_set_new(x, "svc", histjson_encode(&s->tx[t].svc));
        json_array_append_new(tx, x);
    }
    json_object_set_new(o, "tx", tx);
    json_object_set_new(o, "lag", histjson_encode(&s->lag));
    for (int i = 0; i < STATS_NSTATES && s->sqlstates[i].state[0]; i++)
        json_object_set_new(st, s->sqlstates[i].state, json_integer((json_int_t)s->sqlstates[i].n));
    json_object_set_new(o, "sqlstates", st);
    return o;
}

static json_t *series_encode(const struct run_result *r)
{
    json_t *a = json_array();

    for (int i = 0; i < r->n_series; i++) {
        const struct series_row *s = &r->series[i];
        char ph[2] = { s->phase, 0 };
        json_array_append_new(a, json_pack("[i, s, [f, f, f, f, f], f, f, f, f, f, f, I, i, i, I]",
                                           s->second, ph, s->tps[0], s->tps[1], s->tps[2],
                                           s->tps[3], s->tps[4], s->no_p50_ms, s->no_p90_ms,
                                           s->no_p99_ms, s->all_p99_ms, s->all_svc_p99_ms,
                                           s->lag_p99_ms, (json_int_t)s->errors, s->vus_in_tx,
                                           s->vus_down, (json_int_t)s->lost));
    }
    return a;
}

json_t *partsum_encode(const struct run_result *r, const struct config *cfg)
{
    json_t *o = json_object(), *sl = json_array(), *mix = json_array();

    json_object_set_new(o, "form", json_integer(1));
    json_object_set_new(o, "status", json_string(r->status));
    json_object_set_new(o, "window_opened", json_integer(r->window_opened));
    json_object_set_new(o, "measured_s", json_real(r->measured_s));
    json_object_set_new(o, "measured", stats_encode(&r->measured));
    json_object_set_new(o, "delivery", stats_encode(&r->delivery));
    for (int i = 0; i < r->n_stock_level_pairs; i++)
        json_array_append_new(sl, json_pack("[i, i, I]", r->stock_level_pairs[i].w,
                                            r->stock_level_pairs[i].d,
                                            (json_int_t)r->stock_level_pairs[i].n));
    json_object_set_new(o, "stock_level_pairs", sl);
    json_object_set_new(
        o, "scalars",
        json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:i, s:i, s:i, s:i, "
                  "s:f, s:f, s:i, s:s, s:s, s:I, s:I, s:i, s:i, s:i, s:i, s:[i, i, i], s:[i, i, "
                  "i]}",
                  "unfinished_open", r->unfinished_open, "unfinished_close", r->unfinished_close,
                  "rtt_median_us", r->rtt_median_us, "connect_total_s", r->connect_total_s,
                  "connect_min_ms", r->connect_min_ms, "connect_median_ms", r->connect_median_ms,
                  "connect_max_ms", r->connect_max_ms, "cpu_s", r->cpu_s, "vus_in_tx_mean",
                  r->vus_in_tx_mean, "warehouses", r->warehouses, "virtual_users", r->virtual_users,
                  "terminals", r->terminals, "connections", r->connections, "delivery_workers",
                  r->delivery_workers, "load", r->load, "offered_tps", r->offered_tps, "time_scale",
                  r->time_scale, "mode", r->mode, "server_name", r->server_name, "server_version",
                  r->server_version, "seed", (json_int_t)r->seed, "deliveries_pending",
                  (json_int_t)r->deliveries_pending, "backend_connections", r->backend_connections,
                  "backend_distinct", r->backend_distinct, "backend_samples", r->backend_samples,
                  "backend_changes", r->backend_changes, "c_load", r->c_load.c_last, r->c_load.c_id,
                  r->c_load.ol_i_id, "c_run", r->c_run.c_last, r->c_run.c_id, r->c_run.ol_i_id));
    /* The worker threads (a part from before they were counted has none:
     * one per connection, as it ran). */
    json_object_set_new(json_object_get(o, "scalars"), "workers",
                        json_integer(r->workers ? r->workers : r->connections));
    json_object_set_new(json_object_get(o, "scalars"), "timer_slack_us",
                        json_real(r->timer_slack_us));
    json_object_set_new(json_object_get(o, "scalars"), "delivery_on",
                        json_integer(r->delivery_on));
    json_object_set_new(json_object_get(o, "scalars"), "left_behind", json_integer(r->left_behind));
    json_object_set_new(json_object_get(o, "scalars"), "cancel_unanswered",
                        json_integer(r->cancel_unanswered));
    json_object_set_new(o, "series", series_encode(r));
    for (int t = 0; t < TX_NTYPES; t++)
        json_array_append_new(mix, json_integer(cfg->run.mix[t]));
    json_object_set_new(o, "config",
                        json_pack("{s:s, s:i, s:b, s:s, s:I, s:o, s:b, s:f, s:i}", "pooler",
                                  cfg->database.pooler, "batch", cfg->run.batch, "delivery_inline",
                                  cfg->run.delivery_inline, "isolation", figures_isolation(cfg, r),
                                  "max_outage_us", (json_int_t)cfg->run.max_outage_us, "mix", mix,
                                  "mix_set", cfg->run.mix_set, "rate", cfg->run.rate, "statements",
                                  cfg->run.statements));
    return o;
}

/* ---- decode ---- */

static int get_u64(const json_t *o, const char *name, uint64_t *out, struct err *e)
{
    const json_t *v = json_object_get(o, name);

    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return err_set(e, E_USAGE, "'%s' is missing or not a non-negative integer", name);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int stats_decode(const json_t *o, struct vu_stats *s, struct err *e)
{
    const json_t *tx = json_object_get(o, "tx"), *st = json_object_get(o, "sqlstates");
    const char *key;
    json_t *v;
    int rc, i = 0;

    stats_init(s);
    if (!json_is_object(o))
        return err_set(e, E_USAGE, "not an object");
#define GET(f)                               \
    if ((rc = get_u64(o, #f, &s->f, e)) < 0) \
        return rc;
    STATS_FIELDS(GET)
#undef GET
    if (!json_is_array(tx) || json_array_size(tx) != TX_NTYPES)
        return err_set(e, E_USAGE, "'tx' must be a list of %d transaction types", TX_NTYPES);
    for (int t = 0; t < TX_NTYPES; t++) {
        const json_t *x = json_array_get(tx, (size_t)t);
#define TGET(f)                                    \
    if ((rc = get_u64(x, #f, &s->tx[t].f, e)) < 0) \
        return err_prefix(e, "tx[%d]", t);
        STATS_TX_FIELDS(TGET)
#undef TGET
        if ((rc = histjson_decode(json_object_get(x, "lat"), &s->tx[t].lat, e)) < 0 ||
            (rc = histjson_decode(json_object_get(x, "svc"), &s->tx[t].svc, e)) < 0)
            return err_prefix(e, "tx[%d]", t);
    }
    if ((rc = histjson_decode(json_object_get(o, "lag"), &s->lag, e)) < 0)
        return err_prefix(e, "lag");
    if (st && !json_is_object(st))
        return err_set(e, E_USAGE, "'sqlstates' must be an object");
    json_object_foreach((json_t *)st, key, v)
    {
        if (i == STATS_NSTATES)
            break;
        if (strlen(key) != 5 || !json_is_integer(v) || json_integer_value(v) < 0)
            return err_set(e, E_USAGE, "'sqlstates' holds \"%.20s\", not SQLSTATE: count", key);
        memcpy(s->sqlstates[i].state, key, 6);
        s->sqlstates[i++].n = (uint64_t)json_integer_value(v);
    }
    return 0;
}

static double num(const json_t *o, const char *name)
{
    return json_number_value(json_object_get(o, name));
}

static int inum(const json_t *o, const char *name)
{
    return (int)json_integer_value(json_object_get(o, name));
}

static const char *str_or_empty(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "";
}

static void nurand_of(const json_t *a, struct nurand_c *c)
{
    c->c_last = (int)json_integer_value(json_array_get(a, 0));
    c->c_id = (int)json_integer_value(json_array_get(a, 1));
    c->ol_i_id = (int)json_integer_value(json_array_get(a, 2));
}

/* What figures.c reads of the config, over cfg's defaults. */
static int config_decode(const json_t *c, struct config *cfg, struct err *e)
{
    const json_t *mix = json_object_get(c, "mix");

    cfg_defaults(cfg);
    if (!json_is_object(c) || !json_is_array(mix) || json_array_size(mix) != TX_NTYPES ||
        !json_is_string(json_object_get(c, "pooler")) ||
        !json_is_string(json_object_get(c, "isolation")))
        return err_set(e, E_USAGE, "'config' of a part summary is not of form 1");
    snprintf(cfg->database.pooler, CFG_STR, "%s", json_string_value(json_object_get(c, "pooler")));
    snprintf(cfg->run.isolation, CFG_STR, "%s", json_string_value(json_object_get(c, "isolation")));
    cfg->run.batch = inum(c, "batch");
    cfg->run.delivery_inline = json_is_true(json_object_get(c, "delivery_inline"));
    cfg->run.max_outage_us = (int64_t)json_integer_value(json_object_get(c, "max_outage_us"));
    cfg->run.mix_set = json_is_true(json_object_get(c, "mix_set"));
    cfg->run.rate = num(c, "rate");
    cfg->run.statements = inum(c, "statements");
    for (int t = 0; t < TX_NTYPES; t++)
        cfg->run.mix[t] = (int)json_integer_value(json_array_get(mix, (size_t)t));
    return 0;
}

int partsum_decode(const json_t *j, struct run_result *r, struct config *cfg, struct err *e)
{
    const json_t *sc = json_object_get(j, "scalars"), *se = json_object_get(j, "series"),
                 *sl = json_object_get(j, "stock_level_pairs");
    int rc;

    memset(r, 0, sizeof(*r));
    if (!json_is_object(j) || json_integer_value(json_object_get(j, "form")) != 1)
        return err_set(e, E_USAGE, "not a part summary of form 1");
    if (!json_is_object(sc) || !json_is_array(se) || !json_is_array(sl) ||
        !json_is_string(json_object_get(j, "status")))
        return err_set(e, E_USAGE,
                       "a part summary needs status, scalars, series and "
                       "stock_level_pairs");
    snprintf(r->status, sizeof(r->status), "%s", json_string_value(json_object_get(j, "status")));
    if (cfg && (rc = config_decode(json_object_get(j, "config"), cfg, e)) < 0)
        return rc;
    r->window_opened = inum(j, "window_opened");
    r->measured_s = num(j, "measured_s");
    if ((rc = stats_decode(json_object_get(j, "measured"), &r->measured, e)) < 0)
        return err_prefix(e, "measured");
    if ((rc = stats_decode(json_object_get(j, "delivery"), &r->delivery, e)) < 0)
        return err_prefix(e, "delivery");
    r->unfinished_open = inum(sc, "unfinished_open");
    r->unfinished_close = inum(sc, "unfinished_close");
    r->rtt_median_us = num(sc, "rtt_median_us");
    r->connect_total_s = num(sc, "connect_total_s");
    r->connect_min_ms = num(sc, "connect_min_ms");
    r->connect_median_ms = num(sc, "connect_median_ms");
    r->connect_max_ms = num(sc, "connect_max_ms");
    r->cpu_s = num(sc, "cpu_s");
    r->vus_in_tx_mean = num(sc, "vus_in_tx_mean");
    r->warehouses = inum(sc, "warehouses");
    r->virtual_users = inum(sc, "virtual_users");
    r->terminals = inum(sc, "terminals");
    r->connections = inum(sc, "connections");
    r->workers = json_object_get(sc, "workers") ? inum(sc, "workers") : r->connections;
    r->left_behind = inum(sc, "left_behind");
    r->cancel_unanswered = inum(sc, "cancel_unanswered");
    r->delivery_workers = inum(sc, "delivery_workers");
    r->load = inum(sc, "load");
    r->offered_tps = num(sc, "offered_tps");
    r->time_scale = num(sc, "time_scale");
    r->timer_slack_us = num(sc, "timer_slack_us"); /* 0 in a part from before it */
    r->delivery_on = json_object_get(sc, "delivery_on") ? inum(sc, "delivery_on")
                     : r->delivery_workers > 0     ? DL_ON_THREADS /* a part from before it */
                                                   : 0;
    r->mode = inum(sc, "mode");
    snprintf(r->server_name, sizeof(r->server_name), "%s",
             str_or_empty(json_object_get(sc, "server_name")));
    snprintf(r->server_version, sizeof(r->server_version), "%s",
             str_or_empty(json_object_get(sc, "server_version")));
    r->seed = (uint64_t)json_integer_value(json_object_get(sc, "seed"));
    r->deliveries_pending = (uint64_t)json_integer_value(json_object_get(sc, "deliveries_pending"));
    r->backend_connections = inum(sc, "backend_connections");
    r->backend_distinct = inum(sc, "backend_distinct");
    r->backend_samples = inum(sc, "backend_samples");
    r->backend_changes = inum(sc, "backend_changes");
    nurand_of(json_object_get(sc, "c_load"), &r->c_load);
    nurand_of(json_object_get(sc, "c_run"), &r->c_run);
    if (json_array_size(sl)) {
        r->stock_level_pairs = calloc(json_array_size(sl), sizeof(*r->stock_level_pairs));
        if (!r->stock_level_pairs)
            return err_set(e, E_FAIL, "out of memory");
        for (size_t i = 0; i < json_array_size(sl); i++) {
            const json_t *p = json_array_get(sl, i);
            r->stock_level_pairs[i].w = (int)json_integer_value(json_array_get(p, 0));
            r->stock_level_pairs[i].d = (int)json_integer_value(json_array_get(p, 1));
            r->stock_level_pairs[i].n = (uint64_t)json_integer_value(json_array_get(p, 2));
        }
        r->n_stock_level_pairs = (int)json_array_size(sl);
    }
    if (json_array_size(se)) {
        r->series = calloc(json_array_size(se), sizeof(*r->series));
        if (!r->series)
            return err_set(e, E_FAIL, "out of memory");
        for (size_t i = 0; i < json_array_size(se); i++) {
            const json_t *a = json_array_get(se, i), *tps = json_array_get(a, 2);
            struct series_row *s = &r->series[i];
            const char *ph = json_string_value(json_array_get(a, 1));
            if (!json_is_array(a) || json_array_size(a) != 13 || !ph || !json_is_array(tps))
                return err_set(e, E_USAGE, "series row %zu is not a row of form 1", i);
            s->second = (int)json_integer_value(json_array_get(a, 0));
            s->phase = ph[0];
            for (int t = 0; t < TX_NTYPES; t++)
                s->tps[t] = json_number_value(json_array_get(tps, (size_t)t));
            s->no_p50_ms = json_number_value(json_array_get(a, 3));
            s->no_p90_ms = json_number_value(json_array_get(a, 4));
            s->no_p99_ms = json_number_value(json_array_get(a, 5));
            s->all_p99_ms = json_number_value(json_array_get(a, 6));
            s->all_svc_p99_ms = json_number_value(json_array_get(a, 7));
            s->lag_p99_ms = json_number_value(json_array_get(a, 8));
            s->errors = (uint64_t)json_integer_value(json_array_get(a, 9));
            s->vus_in_tx = (int)json_integer_value(json_array_get(a, 10));
            s->vus_down = (int)json_integer_value(json_array_get(a, 11));
            s->lost = (uint64_t)json_integer_value(json_array_get(a, 12));
        }
        r->n_series = (int)json_array_size(se);
    }
    return 0;
}

/* ---- merge ---- */

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

int partsum_merge(const struct run_result *parts, int n, struct run_result *out, struct err *e)
{
    int max_sec = 0, n_sl = 0;

    memset(out, 0, sizeof(*out));
    if (n < 1)
        return err_set(e, E_USAGE, "no part to merge");
    stats_init(&out->measured);
    stats_init(&out->delivery);
    snprintf(out->status, sizeof(out->status), "complete");
    out->window_opened = 1;
    out->c_load = parts[0].c_load;
    out->c_run = parts[0].c_run;
    out->warehouses = parts[0].warehouses;
    out->load = parts[0].load;
    out->time_scale = parts[0].time_scale;
    out->mode = parts[0].mode;
    out->seed = parts[0].seed;
    out->connect_min_ms = parts[0].connect_min_ms;
    snprintf(out->server_name, sizeof(out->server_name), "%s", parts[0].server_name);
    snprintf(out->server_version, sizeof(out->server_version), "%s", parts[0].server_version);
    for (int i = 0; i < n; i++) {
        const struct run_result *p = &parts[i];
        if (strcmp(p->status, "complete") != 0)
            snprintf(out->status, sizeof(out->status), "%s", p->status);
        out->window_opened &= p->window_opened;
        stats_merge(&out->measured, &p->measured);
        stats_merge(&out->delivery, &p->delivery);
        out->measured_s = dmax(out->measured_s, p->measured_s);
        out->unfinished_open += p->unfinished_open;
        out->unfinished_close += p->unfinished_close;
        out->rtt_median_us += p->rtt_median_us / n; /* the parts' mean */
        out->connect_total_s = dmax(out->connect_total_s, p->connect_total_s);
        out->connect_min_ms =
            p->connect_min_ms < out->connect_min_ms ? p->connect_min_ms : out->connect_min_ms;
        out->connect_median_ms += p->connect_median_ms / n;
        out->connect_max_ms = dmax(out->connect_max_ms, p->connect_max_ms);
        out->cpu_s += p->cpu_s;
        out->vus_in_tx_mean += p->vus_in_tx_mean;
        out->virtual_users += p->virtual_users;
        out->terminals += p->terminals;
        out->connections += p->connections;
        out->workers += p->workers;
        out->left_behind += p->left_behind;
        out->cancel_unanswered |= p->cancel_unanswered;
        out->delivery_workers += p->delivery_workers;
        out->offered_tps += p->offered_tps;
        out->timer_slack_us = dmax(out->timer_slack_us, p->timer_slack_us);
        out->delivery_on |= p->delivery_on;
        out->deliveries_pending += p->deliveries_pending;
        out->backend_connections += p->backend_connections;
        out->backend_distinct += p->backend_distinct;
        out->backend_samples += p->backend_samples;
        out->backend_changes += p->backend_changes;
        for (int s = 0; s < p->n_series; s++)
            if (p->series[s].second > max_sec)
                max_sec = p->series[s].second;
        n_sl += p->n_stock_level_pairs;
    }
    if (max_sec > 0 && !(out->series = calloc((size_t)max_sec, sizeof(*out->series))))
        return err_set(e, E_FAIL, "out of memory");
    if (n_sl > 0 &&
        !(out->stock_level_pairs = calloc((size_t)n_sl, sizeof(*out->stock_level_pairs)))) {
        free(out->series);
        out->series = NULL;
        return err_set(e, E_FAIL, "out of memory");
    }
    /* Second s of every part goes to row s - 1; a second no part has stays out. */
    for (int i = 0; i < n; i++) {
        const struct run_result *p = &parts[i];
        for (int s = 0; s < p->n_series; s++) {
            const struct series_row *a = &p->series[s];
            struct series_row *d;
            if (a->second < 1)
                continue;
            d = &out->series[a->second - 1];
            d->second = a->second;
            if (!d->phase || a->phase == 'm')
                d->phase = a->phase;
            for (int t = 0; t < TX_NTYPES; t++)
                d->tps[t] += a->tps[t];
            d->no_p50_ms = dmax(d->no_p50_ms, a->no_p50_ms);
            d->no_p90_ms = dmax(d->no_p90_ms, a->no_p90_ms);
            d->no_p99_ms = dmax(d->no_p99_ms, a->no_p99_ms);
            d->all_p99_ms = dmax(d->all_p99_ms, a->all_p99_ms);
            d->all_svc_p99_ms = dmax(d->all_svc_p99_ms, a->all_svc_p99_ms);
            d->lag_p99_ms = dmax(d->lag_p99_ms, a->lag_p99_ms);
            d->errors += a->errors;
            d->vus_in_tx += a->vus_in_tx;
            d->vus_down += a->vus_down;
            d->lost += a->lost;
        }
        for (int s = 0; s < p->n_stock_level_pairs; s++)
            out->stock_level_pairs[out->n_stock_level_pairs++] = p->stock_level_pairs[s];
    }
    /* Keep the seconds some part had, in order. */
    for (int s = 0; s < max_sec; s++)
        if (out->series[s].second)
            out->series[out->n_series++] = out->series[s];
    return 0;
}
