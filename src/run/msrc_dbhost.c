/*
 * msrc_dbhost.c - the metrics source of the database host (run/msrc.h):
 * its node_exporter (run.db_host_metrics), scraped by run/scrape.c on a
 * thread of its own and read by run/promtext.c: the same figures as the
 * driver host's, named db_host_* (CPU shares, load, memory, the data
 * directory's disk, network, pressure), and how long the scrape took.
 *
 * The scrape is asked for at the start of a sample and taken at most 0.5 s
 * later, so an exporter that does not answer never holds the sampler.
 * Without a URL the source has no columns, and says in run.json and the
 * summary why the database host is not measured (another host, unknown,
 * or one host with the driver).  Nothing here prints but the summary's
 * lines; the bearer token is never in a note.
 */
#include "run/metrics.h"
#include "run/msrc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/scrape.h"

/* The database host's columns (mcol.kind), from its node_exporter. */
enum {
    DH_CPU, /* + 0 user .. 4 idle */
    DH_LOAD1 = DH_CPU + 5,
    DH_MEM,               /* + 0 free .. 3 writeback */
    DH_DISK = DH_MEM + 4, /* + 0 reads/s .. 5 util */
    DH_NET = DH_DISK + 6, /* + 0 rx, 1 tx */
    DH_PSI = DH_NET + 2,  /* + NX_PSI_* */
    DH_SCRAPE_MS = DH_PSI + NX_NPSI,
};

/* The database host: its scraper and the last two good scrapes. */
struct mdbh {
    struct scrape *scr; /* NULL: not scraped (note says why) */
    char url[1024];
    int local;       /* metrics_opts.db_local */
    char where[128]; /* how the server is reached */
    char note[400];  /* why the db host is not measured, "" when it is */
    struct nodex prev, cur;
    int have_prev, cur_ok;
    uint64_t t_prev, t_cur;
    double ms;           /* how long the latest scrape took */
    double cpu_ms;       /* the scraper thread's CPU for it (in metrics_cpu_ms) */
    char miss[640];      /* why this sample has no scrape, "" when it has */
    char disk[64];       /* the data disk found (or named), "" when none */
    char disk_from[320]; /* how, or why none */
    int n_ok, n_fail;    /* scrapes answered, not */
};

/* The database host's columns: the same figures as this host's, named db_host_*. */
static void dbh_columns(struct msrc *src)
{
    static const char *const modes[5] = { "user", "system", "iowait", "steal", "idle" };
    static const char *const kinds[4] = { "free", "cached", "dirty", "writeback" };
    static const struct {
        const char *suffix, *unit, *prom, *help;
        double scale;
    } dk[6] = {
        { "reads_per_s", "1/s", "tpccbench_db_host_disk_reads_per_second",
          "the database host's data disk: completed reads per second", 1 },
        { "writes_per_s", "1/s", "tpccbench_db_host_disk_writes_per_second",
          "the database host's data disk: completed writes per second", 1 },
        { "read_mb_per_s", "MB/s", "tpccbench_db_host_disk_read_bytes_per_second",
          "the database host's data disk: bytes read per second", 1e6 },
        { "write_mb_per_s", "MB/s", "tpccbench_db_host_disk_write_bytes_per_second",
          "the database host's data disk: bytes written per second", 1e6 },
        { "await_ms", "ms", "tpccbench_db_host_disk_await_seconds",
          "the database host's data disk: mean time per completed I/O", 1e-3 },
        { "util_pct", "%", "tpccbench_db_host_disk_utilisation_percent",
          "the database host's data disk: share of time with I/O in flight", 1 },
    };
    static const char *const psi[NX_NPSI] = { "cpu_waiting", "io_waiting", "io_stalled",
                                              "memory_waiting", "memory_stalled" };
    char name[96], labels[128];

    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "db_host_cpu_%s_pct", modes[i]);
        snprintf(labels, sizeof(labels), "mode=\"%s\"", modes[i]);
        mcol_add(src, name, "%", "tpccbench_db_host_cpu_percent", labels, 1, DH_CPU + i, 0, 0, "db",
                 "the database host's CPU shares (node_cpu_seconds_total): user includes nice, "
                 "system irq and softirq");
    }
    mcol_add(src, "db_host_load1", "count", "tpccbench_db_host_load1", NULL, 1, DH_LOAD1, 0, 0,
             "db", "the database host's 1-minute load average (node_load1)");
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "db_host_mem_%s_mb", kinds[i]);
        snprintf(labels, sizeof(labels), "kind=\"%s\"", kinds[i]);
        mcol_add(src, name, "MB", "tpccbench_db_host_memory_bytes", labels, 1e6, DH_MEM + i, 0, 0,
                 "db", "the database host's memory free, page cache, dirty and under writeback");
    }
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "db_host_disk_data_%s", dk[i].suffix);
        mcol_add(src, name, dk[i].unit, dk[i].prom, "role=\"data\"", dk[i].scale, DH_DISK + i, 0, 0,
                 "db", dk[i].help);
    }
    mcol_add(src, "db_host_net_rx_bytes_per_s", "bytes/s",
             "tpccbench_db_host_network_receive_bytes_per_second", NULL, 1, DH_NET, 0, 0, "db",
             "the database host's bytes received per second, every interface but lo");
    mcol_add(src, "db_host_net_tx_bytes_per_s", "bytes/s",
             "tpccbench_db_host_network_transmit_bytes_per_second", NULL, 1, DH_NET + 1, 0, 0, "db",
             "the database host's bytes sent per second, every interface but lo");
    for (int i = 0; i < NX_NPSI; i++) {
        snprintf(name, sizeof(name), "db_host_pressure_%s_pct", psi[i]);
        snprintf(labels, sizeof(labels), "resource=\"%.*s\",kind=\"%s\"", (int)strcspn(psi[i], "_"),
                 psi[i], strchr(psi[i], '_') + 1);
        mcol_add(src, name, "%", "tpccbench_db_host_pressure_percent", labels, 1, DH_PSI + i, 0, 0,
                 "db",
                 "the database host's pressure stall time, percent of the interval "
                 "(node_pressure_*)");
    }
    mcol_add(src, "db_host_scrape_ms", "ms", "tpccbench_db_host_scrape_seconds", NULL, 1e-3,
             DH_SCRAPE_MS, 0, 0, "db", "how long the database host's node_exporter took to answer");
}

/* The database host: a scraper of its node_exporter, or why there is none. */
static void dbh_setup(struct msrc *src, struct mdbh *h, const struct metrics_opts *o)
{
    struct err e;

    h->local = o->db_local;
    snprintf(h->where, sizeof(h->where), "%s", o->db_where ? o->db_where : "");
    if (o->db_host_url && o->db_host_url[0]) {
        snprintf(h->url, sizeof(h->url), "%s", o->db_host_url);
        dbh_columns(src);
        err_clear(&e);
        if (!(h->scr = scrape_new(o->db_host_url, o->db_host_token, o->db_datadir,
                                  o->db_host_device, &e)))
            snprintf(h->note, sizeof(h->note), "%.390s", e.msg);
    } else if (o->db_host_note) {
        snprintf(h->note, sizeof(h->note), "%s", o->db_host_note);
    } else if (h->local == 0) {
        snprintf(h->note, sizeof(h->note),
                 "the server is on another host (reached at %.100s) and no run.db_host_metrics "
                 "was given: the OS figures are the driver host's; add the database host's "
                 "with --db-host-metrics http://DBHOST:9100/metrics (its node_exporter)",
                 h->where[0] ? h->where : "an address not of this host");
    } else if (h->local < 0) {
        snprintf(h->note, sizeof(h->note),
                 "whether the server is on this host is not known (its address or data "
                 "directory could not be read): the OS figures are the driver host's; add the "
                 "database host's with --db-host-metrics http://DBHOST:9100/metrics");
    }
}

/* The database host's scrape asked for at the start of the sample, waited
 * for until deadline_us (0.5 s after the start: never a held clock). */
static void dbh_take(struct mdbh *h, uint64_t deadline_us)
{
    h->cur_ok = 0;
    h->cpu_ms = 0;
    h->miss[0] = '\0';
    if (!h->scr) {
        snprintf(h->miss, sizeof(h->miss), "%s", h->note);
        return;
    }
    if (scrape_take(h->scr, deadline_us, &h->cur, &h->t_cur, &h->ms, &h->cpu_ms, h->miss,
                    sizeof(h->miss)) < 0) {
        h->n_fail++;
        return;
    }
    h->cur_ok = 1;
    h->n_ok++;
    snprintf(h->disk, sizeof(h->disk), "%s", h->cur.disk);
    snprintf(h->disk_from, sizeof(h->disk_from), "%s", h->cur.disk_from);
}

/* A CPU share of the database host between two scrapes (i: user .. idle). */
static double dbh_cpu(const struct nodex *a, const struct nodex *b, int i, struct mcol *col)
{
    double d[NX_NMODES], total = 0, v[5];

    for (int k = 0; k < NX_NMODES; k++) {
        d[k] = b->cpu[k] - a->cpu[k];
        if (d[k] < 0) {
            mcol_missing(col, "node_cpu_seconds_total went backwards (the host restarted?)");
            return NAN;
        }
        total += d[k];
    }
    if (total <= 0) {
        mcol_missing(col, "no CPU time passed between two scrapes");
        return NAN;
    }
    v[0] = d[NX_USER] + d[NX_NICE];
    v[1] = d[NX_SYSTEM] + d[NX_IRQ] + d[NX_SOFTIRQ];
    v[2] = d[NX_IOWAIT];
    v[3] = d[NX_STEAL];
    v[4] = d[NX_IDLE];
    return 100.0 * v[i] / total;
}

/* A rate of the database host's data disk (i: reads/s .. util) over dt seconds. */
static double dbh_disk(const struct mdbh *h, double dt, int i, struct mcol *col)
{
    const double *a = h->prev.disk_v, *b = h->cur.disk_v;
    double d[NX_NDISK], io;

    if (!h->cur.disk[0]) {
        mcol_missing(col, "%s", h->cur.disk_from);
        return NAN;
    }
    if (!h->cur.have_disk || !h->prev.have_disk) {
        mcol_missing(col,
                     "device '%s' has no node_disk_* counters at %s (diskstats collector off, "
                     "or its device excluded)",
                     h->cur.disk, h->url);
        return NAN;
    }
    for (int k = 0; k < NX_NDISK; k++)
        if ((d[k] = b[k] - a[k]) < 0) {
            mcol_missing(col, "device '%s': a counter went backwards", h->cur.disk);
            return NAN;
        }
    io = d[NX_D_READS] + d[NX_D_WRITES];
    switch (i) {
    case 0:
        return d[NX_D_READS] / dt;
    case 1:
        return d[NX_D_WRITES] / dt;
    case 2:
        return d[NX_D_READ_BYTES] / 1e6 / dt;
    case 3:
        return d[NX_D_WRITTEN_BYTES] / 1e6 / dt;
    case 4:
        return io > 0 ? (d[NX_D_READ_S] + d[NX_D_WRITE_S]) * 1e3 / io : 0;
    default:
        return 100.0 * d[NX_D_IO_S] / dt;
    }
}

/* A column of the database host's node_exporter (NaN: not scraped, noted). */
static double col_dbh(const struct mdbh *h, struct mcol *col)
{
    const struct nodex *a = &h->prev, *b = &h->cur;
    double dt = (double)(h->t_cur - h->t_prev) / 1e6;
    int k = col->kind;

    if (!h->cur_ok) {
        mcol_missing(col, "%s", h->miss);
        return NAN;
    }
    if (k == DH_SCRAPE_MS)
        return h->ms;
    if (k == DH_LOAD1 && b->have_load1)
        return b->load1;
    if (k >= DH_MEM && k < DH_MEM + 4 && b->have_mem[k - DH_MEM])
        return b->mem[k - DH_MEM] / 1e6;
    if (k == DH_LOAD1 || (k >= DH_MEM && k < DH_MEM + 4)) {
        mcol_missing(col, "%s serves no %s (its %s collector is off)", h->url,
                     k == DH_LOAD1 ? "node_load1" : "node_memory_*",
                     k == DH_LOAD1 ? "loadavg" : "meminfo");
        return NAN;
    }
    if (!h->have_prev || dt <= 0) {
        mcol_missing(col, "no earlier scrape of %s", h->url);
        return NAN;
    }
    if (k < DH_CPU + 5)
        return dbh_cpu(a, b, k - DH_CPU, col);
    if (k >= DH_DISK && k < DH_DISK + 6)
        return dbh_disk(h, dt, k - DH_DISK, col);
    if (k == DH_NET || k == DH_NET + 1) {
        double d = k == DH_NET ? b->net_rx - a->net_rx : b->net_tx - a->net_tx;
        if (b->n_net > 0 && a->n_net > 0 && d >= 0)
            return d / dt;
        mcol_missing(col, b->n_net ? "node_network_*_bytes_total went backwards"
                                   : "no node_network_*_bytes_total but lo (netdev collector off)");
        return NAN;
    }
    k -= DH_PSI;
    if (b->have_psi[k] && a->have_psi[k] && b->psi[k] >= a->psi[k])
        return 100.0 * (b->psi[k] - a->psi[k]) / dt;
    mcol_missing(col,
                 "%s serves no node_pressure_* of this kind (pressure collector off, or a "
                 "kernel without PSI)",
                 h->url);
    return NAN;
}

/* run.json's metrics.db_host: measured (from where), one host with the driver, or why not. */
static json_t *dbh_json(const struct mdbh *h)
{
    char why[400];

    if (h->url[0] && h->scr)
        return json_pack("{s:s, s:s, s:i, s:i, s:o, s:s}", "status", "measured", "source", h->url,
                         "scrapes_answered", h->n_ok, "scrapes_failed", h->n_fail, "data_disk",
                         h->disk[0] ? json_string(h->disk) : json_null(), "data_disk_from",
                         h->disk_from);
    if (!h->note[0] && h->local == 1) {
        snprintf(why, sizeof(why),
                 "the server is reached over %.100s and its data directory is on this host: "
                 "the OS columns are the database host's too",
                 h->where[0] ? h->where : "this host");
        return json_pack("{s:s, s:s}", "status", "same host as the driver", "why", why);
    }
    return json_pack("{s:s, s:s}", "status", "not measured", "why",
                     h->note[0] ? h->note : "no source for the database host's figures");
}

/* The database host's lines of the summary: its figures, or why there are none. */
static int dbh_print(const struct msrc *src, FILE *out)
{
    const struct mdbh *h = src->priv;
    const struct metrics *m = src->m;
    double user = metrics_mean(m, "db_host_cpu_user_pct");

    if (!h->url[0] || !h->scr) {
        if (h->note[0])
            fprintf(out, "  db host: not measured: %s\n", h->note);
        return 1;
    }
    if (isnan(user)) {
        fprintf(out, "  db host (%s): unavailable (%s)\n", h->url,
                mcol_note(m, "db_host_cpu_user_pct"));
        return !h->n_ok;
    }
    fprintf(out,
            "  db host (means, %s): CPU user %.1f%%  system %.1f%%  iowait %.1f%%  steal "
            "%.1f%%;  load1 %.2f\n",
            h->url, user, metrics_mean(m, "db_host_cpu_system_pct"),
            metrics_mean(m, "db_host_cpu_iowait_pct"), metrics_mean(m, "db_host_cpu_steal_pct"),
            metrics_mean(m, "db_host_load1"));
    if (!isnan(metrics_mean(m, "db_host_disk_data_write_mb_per_s")))
        fprintf(out,
                "  db host data disk %s: read %.2f MB/s  write %.2f MB/s  await %.2f ms  util "
                "%.0f%%\n",
                h->disk, metrics_mean(m, "db_host_disk_data_read_mb_per_s"),
                metrics_mean(m, "db_host_disk_data_write_mb_per_s"),
                metrics_mean(m, "db_host_disk_data_await_ms"),
                metrics_mean(m, "db_host_disk_data_util_pct"));
    else
        fprintf(out, "  db host data disk: unavailable (%s)\n",
                mcol_note(m, "db_host_disk_data_write_mb_per_s"));
    return !h->n_ok;
}

/* ------------------------------------------------------------------ */
/* The source's ops                                                    */
/* ------------------------------------------------------------------ */

static int dbhs_init(struct msrc *src, const struct metrics_opts *o, struct err *e)
{
    struct mdbh *h = calloc(1, sizeof(*h));

    if (!(src->priv = h))
        return err_set(e, E_FAIL, "out of memory");
    dbh_setup(src, h, o);
    return 0;
}

/* The scrape runs while this host and the database are read. */
static void dbhs_ask(struct msrc *src)
{
    struct mdbh *h = src->priv;

    if (h->scr)
        scrape_ask(h->scr);
}

/* The scrape asked for at the start of the sample, waited for until 0.5 s
 * after that start (never a held clock). */
static double dbhs_read(struct msrc *src, uint64_t t0_us, uint64_t wait_us, double interval_s)
{
    struct mdbh *h = src->priv;

    (void)wait_us;
    (void)interval_s;
    dbh_take(h, t0_us + (uint64_t)SCRAPE_TIMEOUT_MS * 1000);
    return h->cpu_ms;
}

static double dbhs_value(struct msrc *src, struct mcol *col, double interval_s)
{
    (void)interval_s; /* the rates are over the time between the two scrapes */
    return col_dbh(src->priv, col);
}

static void dbhs_keep(struct msrc *src)
{
    struct mdbh *h = src->priv;

    if (h->cur_ok) {
        h->prev = h->cur;
        h->t_prev = h->t_cur;
        h->have_prev = 1;
    }
}

static void dbhs_json(const struct msrc *src, json_t *o)
{
    json_object_set_new(o, "db_host", dbh_json(src->priv));
}

static void dbhs_release(struct msrc *src)
{
    struct mdbh *h = src->priv;

    if (h)
        scrape_free(h->scr);
    free(h);
    src->priv = NULL;
}

const struct metrics_source_ops msrc_dbhost_ops = {
    .name = "db_host",
    .init = dbhs_init,
    .ask = dbhs_ask,
    .read = dbhs_read,
    .value = dbhs_value,
    .keep = dbhs_keep,
    .json = dbhs_json,
    .print = dbh_print,
    .release = dbhs_release,
};
