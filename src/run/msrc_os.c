/*
 * msrc_os.c - the metrics source of the driver host (run/msrc.h): CPU
 * shares, run queue, context switches and memory (/proc/stat,
 * /proc/meminfo), the data directory's block device and any device named
 * (/proc/diskstats), the network interfaces (/proc/net/dev), this process's
 * CPU and memory, and the sampling's own CPU (filled by metrics.c).
 *
 * The text is parsed by run/osmetrics.c; the rates are over the time
 * between two samples.  When the server is on this host (metrics_opts
 * .db_local), these columns are the database host's too.  Nothing here
 * prints but the summary's lines, and nothing here runs off the sampler's
 * thread.
 */
#include "run/metrics.h"
#include "run/msrc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/osmetrics.h"

#define MDEV_MAX 8
#define MNET_MAX 16

/* The figures of this source (mcol.kind). */
enum {
    OS_CPU,   /* + arg: 0 user .. 4 idle */
    OS_PROCS, /* the run queue */
    OS_CTXT,  /* context switches per second */
    OS_MEM,   /* + arg: 0 free .. 3 writeback */
    OS_DISK,  /* + arg: 0 reads/s .. 5 util; idx: the device */
    OS_NET,   /* + arg: 0 rx, 1 tx; idx: the interface */
    OS_SELF_CPU,
    OS_SELF_RSS,
    OS_SAMPLE_CPU, /* metrics_cpu_ms: metrics.c fills it after the sample */
};

struct mdev {
    char name[64];
    char role[8]; /* "data" or "named" */
    struct osm_disk prev;
    int have;
    char note[256]; /* why its columns are unavailable now */
};

struct mnet {
    char name[32];
    struct osm_net prev;
    int have;
};

/* What one sample read of this machine (each *_ok: read and parsed now). */
struct os_now {
    struct osm_cpu cpu;
    struct osm_cpu_pct pct; /* CPU shares since the previous sample */
    struct osm_mem mem;
    struct osm_self self;
    struct osm_disk disk[MDEV_MAX];
    int disk_ok[MDEV_MAX];
    struct osm_net net[MNET_MAX];
    int net_ok[MNET_MAX];
    int cpu_ok, mem_ok, self_ok;
    double self_cpu; /* this process's CPU % since the previous sample, NaN = none */
};

struct mos {
    int db_local; /* metrics_opts.db_local: 1, these are the database host's figures too */
    struct mdev dev[MDEV_MAX];
    int ndev;
    struct mnet net[MNET_MAX];
    int nnet;
    struct osm_cpu cpu_prev;
    int cpu_have;
    struct osm_self self_prev;
    int self_have;
    long clk_tck;
    struct os_now now; /* this sample */
    char buf[65536];   /* /proc text */
};

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

static void dev_add(struct mos *s, const char *name, const char *role, const char *note)
{
    struct mdev *d;

    for (int i = 0; i < s->ndev; i++)
        if (s->dev[i].name[0] && strcmp(s->dev[i].name, name) == 0)
            return; /* named twice, or the data directory's device named again */
    if (s->ndev == MDEV_MAX)
        return;
    d = &s->dev[s->ndev++];
    memset(d, 0, sizeof(*d));
    snprintf(d->name, sizeof(d->name), "%s", name);
    snprintf(d->role, sizeof(d->role), "%s", role);
    snprintf(d->note, sizeof(d->note), "%s", note ? note : "");
}

/* The devices: the data directory's first (its columns are disk_data_*), then those named. */
static void os_devices(struct mos *s, const struct metrics_opts *o)
{
    if (o->data_device && o->data_device[0] && strcmp(o->data_device, "none") != 0 &&
        strcmp(o->data_device, "unknown") != 0)
        dev_add(s, o->data_device, "data", NULL);
    else
        dev_add(s, "", "data",
                o->data_note ? o->data_note
                : o->data_device && strcmp(o->data_device, "none") == 0
                    ? "the data directory is on no block device (tmpfs, overlay or a network "
                      "filesystem)"
                    : "the data directory's device is not known here (a remote server, or a "
                      "data directory this user cannot see)");
    if (o->devices) {
        const char *p = o->devices;
        while (*p) {
            size_t len = strcspn(p, ", ");
            if (len > 0 && len < 64) {
                char name[64];
                memcpy(name, p, len);
                name[len] = '\0';
                dev_add(s, name, "named", NULL);
            }
            p += len;
            while (*p == ',' || *p == ' ')
                p++;
        }
    }
}

static void disk_columns(struct msrc *src, const char *host, int d)
{
    static const struct {
        const char *suffix, *unit, *prom, *help;
        double scale;
    } k[6] = {
        { "reads_per_s", "1/s", "tpccbench_disk_reads_per_second", "completed reads per second",
          1 },
        { "writes_per_s", "1/s", "tpccbench_disk_writes_per_second", "completed writes per second",
          1 },
        { "read_mb_per_s", "MB/s", "tpccbench_disk_read_bytes_per_second", "bytes read per second",
          1e6 },
        { "write_mb_per_s", "MB/s", "tpccbench_disk_write_bytes_per_second",
          "bytes written per second", 1e6 },
        { "await_ms", "ms", "tpccbench_disk_await_seconds",
          "mean time per completed I/O (queue and service)", 1e-3 },
        { "util_pct", "%", "tpccbench_disk_utilisation_percent", "share of time with I/O in flight",
          1 },
    };
    const struct mos *s = src->priv;
    char name[96], labels[128], safe[64];
    const char *tag = strcmp(s->dev[d].role, "data") == 0 ? "data" : s->dev[d].name;

    msrc_label_safe(safe, sizeof(safe), s->dev[d].name);
    snprintf(labels, sizeof(labels), "device=\"%s\",role=\"%s\"", safe[0] ? safe : "none",
             s->dev[d].role);
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "disk_%s_%s", tag, k[i].suffix);
        mcol_add(src, name, k[i].unit, k[i].prom, labels, k[i].scale, OS_DISK, i, d, host,
                 k[i].help);
    }
}

static void os_columns(struct msrc *src)
{
    static const char *const modes[5] = { "user", "system", "iowait", "steal", "idle" };
    static const char *const kinds[4] = { "free", "cached", "dirty", "writeback" };
    const struct mos *s = src->priv;
    const char *host = s->db_local == 1 ? "driver+db" : "driver";
    char name[96], labels[128];

    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "cpu_%s_pct", modes[i]);
        snprintf(labels, sizeof(labels), "mode=\"%s\"", modes[i]);
        mcol_add(src, name, "%", "tpccbench_cpu_percent", labels, 1, OS_CPU, i, 0, host,
                 "share of all CPUs' time (/proc/stat): user includes nice, system irq and "
                 "softirq");
    }
    mcol_add(src, "procs_running", "count", "tpccbench_procs_running", NULL, 1, OS_PROCS, 0, 0,
             host, "runnable tasks (the run queue)");
    mcol_add(src, "context_switches_per_s", "1/s", "tpccbench_context_switches_per_second", NULL, 1,
             OS_CTXT, 0, 0, host, "context switches per second, all CPUs");
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "mem_%s_mb", kinds[i]);
        snprintf(labels, sizeof(labels), "kind=\"%s\"", kinds[i]);
        mcol_add(src, name, "MB", "tpccbench_memory_bytes", labels, 1e6, OS_MEM, i, 0, host,
                 "memory free, page cache, dirty and under writeback (/proc/meminfo)");
    }
    for (int d = 0; d < s->ndev; d++)
        disk_columns(src, host, d);
    for (int n = 0; n < s->nnet; n++) {
        char safe[32];
        msrc_label_safe(safe, sizeof(safe), s->net[n].name);
        snprintf(labels, sizeof(labels), "interface=\"%s\"", safe);
        snprintf(name, sizeof(name), "net_%s_rx_bytes_per_s", s->net[n].name);
        mcol_add(src, name, "bytes/s", "tpccbench_network_receive_bytes_per_second", labels, 1,
                 OS_NET, 0, n, host, "bytes received per second (/proc/net/dev)");
        snprintf(name, sizeof(name), "net_%s_tx_bytes_per_s", s->net[n].name);
        mcol_add(src, name, "bytes/s", "tpccbench_network_transmit_bytes_per_second", labels, 1,
                 OS_NET, 1, n, host, "bytes sent per second (/proc/net/dev)");
    }
    mcol_add(src, "self_cpu_pct", "%", "tpccbench_process_cpu_percent", NULL, 1, OS_SELF_CPU, 0, 0,
             "driver", "tpccbench's own CPU (user + system), percent of one core");
    mcol_add(src, "self_rss_mb", "MB", "tpccbench_process_resident_bytes", NULL, 1e6, OS_SELF_RSS,
             0, 0, "driver", "tpccbench's resident memory");
    mcol_add(src, "metrics_cpu_ms", "ms", "tpccbench_metrics_sample_cpu_seconds", NULL, 1e-3,
             OS_SAMPLE_CPU, 0, 0, "driver",
             "CPU the metrics sample itself took (OS, database and scraper threads)");
}

static int os_init(struct msrc *src, const struct metrics_opts *o, struct err *e)
{
    struct mos *s = calloc(1, sizeof(*s));
    struct osm_net nets[MNET_MAX];

    if (!(src->priv = s))
        return err_set(e, E_FAIL, "out of memory");
    s->db_local = o->db_local;
    s->clk_tck = sysconf(_SC_CLK_TCK);
    if (s->clk_tck <= 0)
        s->clk_tck = 100;
    os_devices(s, o);
    if (osm_read_file("/proc/net/dev", s->buf, sizeof(s->buf)) > 0) {
        int n = osm_parse_netdev(s->buf, nets, MNET_MAX);
        for (int i = 0; i < n; i++) {
            memcpy(s->net[s->nnet].name, nets[i].name, sizeof(s->net[0].name));
            s->nnet++;
        }
    }
    os_columns(src);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Sampling                                                            */
/* ------------------------------------------------------------------ */

/* Read /proc: CPU, memory, the devices' and interfaces' counters, this
 * process; and the rates against the previous sample, over interval_s. */
static double os_read(struct msrc *src, uint64_t t0_us, uint64_t wait_us, double interval_s)
{
    struct mos *m = src->priv;
    struct os_now *s = &m->now;
    int diskstats_ok, netdev_ok;

    (void)t0_us;
    (void)wait_us;
    memset(s, 0, sizeof(*s));
    s->self_cpu = NAN;
    if (osm_read_file("/proc/stat", m->buf, sizeof(m->buf)) > 0 &&
        osm_parse_stat(m->buf, &s->cpu) == 0)
        s->cpu_ok = 1;
    if (osm_read_file("/proc/meminfo", m->buf, sizeof(m->buf)) > 0 &&
        osm_parse_meminfo(m->buf, &s->mem) == 0)
        s->mem_ok = 1;
    diskstats_ok = osm_read_file("/proc/diskstats", m->buf, sizeof(m->buf)) > 0;
    for (int d = 0; d < m->ndev; d++)
        s->disk_ok[d] = diskstats_ok && m->dev[d].name[0] &&
                        osm_parse_diskstats(m->buf, m->dev[d].name, &s->disk[d]) == 0;
    netdev_ok = osm_read_file("/proc/net/dev", m->buf, sizeof(m->buf)) > 0;
    for (int n = 0; n < m->nnet; n++)
        s->net_ok[n] = netdev_ok && osm_netdev_find(m->buf, m->net[n].name, &s->net[n]) == 0;
    if (osm_read_file("/proc/self/stat", m->buf, sizeof(m->buf)) > 0 &&
        osm_parse_self_stat(m->buf, &s->self) == 0 &&
        osm_read_file("/proc/self/status", m->buf, sizeof(m->buf)) > 0 &&
        osm_parse_self_status(m->buf, &s->self) == 0)
        s->self_ok = 1;
    if (s->cpu_ok && m->cpu_have)
        osm_cpu_shares(&m->cpu_prev, &s->cpu, &s->pct);
    if (s->self_ok && m->self_have && interval_s > 0)
        s->self_cpu =
            100.0 *
            (double)((s->self.utime + s->self.stime) - (m->self_prev.utime + m->self_prev.stime)) /
            (double)m->clk_tck / interval_s;
    return 0;
}

/* A column of /proc/stat, /proc/meminfo or /proc/self (NaN: not read, noted). */
static double col_os(const struct mos *m, const struct os_now *s, struct mcol *col,
                     double interval_s)
{
    switch (col->kind) {
    case OS_CPU: {
        const double p[5] = { s->pct.user, s->pct.system, s->pct.iowait, s->pct.steal,
                              s->pct.idle };
        if (s->cpu_ok && m->cpu_have)
            return p[col->arg];
        mcol_missing(col, "/proc/stat could not be read");
        return NAN;
    }
    case OS_PROCS:
        if (s->cpu_ok)
            return (double)s->cpu.procs_running;
        mcol_missing(col, "/proc/stat could not be read");
        return NAN;
    case OS_CTXT:
        if (s->cpu_ok && m->cpu_have && interval_s > 0 && s->cpu.ctxt >= m->cpu_prev.ctxt)
            return (double)(s->cpu.ctxt - m->cpu_prev.ctxt) / interval_s;
        mcol_missing(col, "/proc/stat could not be read");
        return NAN;
    case OS_MEM: {
        const uint64_t k[4] = { s->mem.free_kb, s->mem.cached_kb, s->mem.dirty_kb,
                                s->mem.writeback_kb };
        if (s->mem_ok)
            return (double)k[col->arg] * 1024.0 / 1e6;
        mcol_missing(col, "/proc/meminfo could not be read");
        return NAN;
    }
    case OS_SELF_CPU:
        if (!isnan(s->self_cpu))
            return s->self_cpu;
        mcol_missing(col, "/proc/self/stat could not be read");
        return NAN;
    case OS_SELF_RSS:
        if (s->self_ok)
            return (double)s->self.rss_kb * 1024.0 / 1e6;
        mcol_missing(col, "/proc/self/status could not be read");
        return NAN;
    default:
        return NAN; /* OS_SAMPLE_CPU: filled in by metrics.c, after the sample */
    }
}

/* A column of a block device's counters (/proc/diskstats). */
static double col_disk(const struct mos *m, const struct os_now *s, struct mcol *col,
                       double interval_s)
{
    const struct mdev *d = &m->dev[col->idx];
    struct osm_disk_rate r;

    if (!d->name[0]) {
        mcol_missing(col, "%s", d->note);
        return NAN;
    }
    if (!s->disk_ok[col->idx]) {
        mcol_missing(col, "device '%s' is not in /proc/diskstats (gone, or never there)", d->name);
        return NAN;
    }
    if (!d->have) {
        mcol_missing(col, "device '%s': no earlier sample", d->name);
        return NAN;
    }
    osm_disk_rates(&d->prev, &s->disk[col->idx], interval_s, &r);
    const double v[6] = { r.reads_per_s,    r.writes_per_s, r.read_mb_per_s,
                          r.write_mb_per_s, r.await_ms,     r.util_pct };
    return v[col->arg];
}

/* A column of a network interface's counters (/proc/net/dev). */
static double col_net(const struct mos *m, const struct os_now *s, struct mcol *col,
                      double interval_s)
{
    const struct mnet *nt = &m->net[col->idx];
    uint64_t a, b;

    if (!s->net_ok[col->idx] || !nt->have || interval_s <= 0) {
        mcol_missing(col, "interface '%s' is not in /proc/net/dev (gone)", nt->name);
        return NAN;
    }
    a = col->arg ? nt->prev.tx_bytes : nt->prev.rx_bytes;
    b = col->arg ? s->net[col->idx].tx_bytes : s->net[col->idx].rx_bytes;
    if (b >= a)
        return (double)(b - a) / interval_s;
    mcol_missing(col, "interface '%s': counter went backwards", nt->name);
    return NAN;
}

static double os_value(struct msrc *src, struct mcol *col, double interval_s)
{
    const struct mos *m = src->priv;

    if (col->kind == OS_DISK)
        return col_disk(m, &m->now, col, interval_s);
    if (col->kind == OS_NET)
        return col_net(m, &m->now, col, interval_s);
    return col_os(m, &m->now, col, interval_s);
}

/* This sample is the next one's baseline; a figure not read now has none. */
static void os_keep(struct msrc *src)
{
    struct mos *m = src->priv;
    const struct os_now *s = &m->now;

    if (s->cpu_ok)
        m->cpu_prev = s->cpu;
    m->cpu_have = s->cpu_ok;
    if (s->self_ok)
        m->self_prev = s->self;
    m->self_have = s->self_ok;
    for (int d = 0; d < m->ndev; d++) {
        if (s->disk_ok[d])
            m->dev[d].prev = s->disk[d];
        m->dev[d].have = s->disk_ok[d];
    }
    for (int n = 0; n < m->nnet; n++) {
        if (s->net_ok[n])
            m->net[n].prev = s->net[n];
        m->net[n].have = s->net_ok[n];
    }
}

/* ------------------------------------------------------------------ */
/* Outputs                                                             */
/* ------------------------------------------------------------------ */

/* run.json's metrics.devices, .interfaces and .os_columns_host. */
static void os_json(const struct msrc *src, json_t *o)
{
    const struct mos *m = src->priv;
    json_t *devs = json_object(), *nets = json_array();

    for (int d = 0; d < m->ndev; d++) {
        const struct mdev *dv = &m->dev[d];
        const char *key = strcmp(dv->role, "data") == 0 ? "data" : dv->name;
        json_object_set_new(devs, key, dv->name[0] ? json_string(dv->name) : json_null());
        if (!dv->name[0] && dv->note[0])
            json_object_set_new(devs, "data_note", json_string(dv->note));
    }
    for (int n = 0; n < m->nnet; n++)
        json_array_append_new(nets, json_string(m->net[n].name));
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "interfaces", nets);
    json_object_set_new(o, "os_columns_host",
                        json_string(m->db_local == 1 ? "driver+db (one host)" : "driver"));
}

/* The summary's CPU line (with the sampling's own share) and data disk line. */
static int os_print(const struct msrc *src, FILE *out)
{
    const struct mos *s = src->priv;
    const struct metrics *m = src->m;
    double rd = metrics_mean(m, "disk_data_read_mb_per_s");

    fprintf(out,
            "  metrics (means, %s): CPU user %.1f%%  system %.1f%%  iowait %.1f%%  steal "
            "%.1f%%;  sampling %.2f%% of a core\n",
            s->db_local == 1 ? "driver and db host: one host" : "driver host",
            metrics_mean(m, "cpu_user_pct"), metrics_mean(m, "cpu_system_pct"),
            metrics_mean(m, "cpu_iowait_pct"), metrics_mean(m, "cpu_steal_pct"),
            metrics_mean(m, "metrics_cpu_ms") / 10.0);
    if (s->dev[0].name[0] && !isnan(rd))
        fprintf(out,
                "  data disk %s: read %.2f MB/s  write %.2f MB/s  await %.2f ms  util %.0f%%\n",
                s->dev[0].name, rd, metrics_mean(m, "disk_data_write_mb_per_s"),
                metrics_mean(m, "disk_data_await_ms"), metrics_mean(m, "disk_data_util_pct"));
    else
        fprintf(out, "  data disk: unavailable (%s)\n",
                s->dev[0].note[0] ? s->dev[0].note : mcol_note(m, "disk_data_write_mb_per_s"));
    return 0;
}

static void os_release(struct msrc *src)
{
    free(src->priv);
    src->priv = NULL;
}

const struct metrics_source_ops msrc_os_ops = {
    .name = "os",
    .init = os_init,
    .read = os_read,
    .value = os_value,
    .keep = os_keep,
    .json = os_json,
    .print = os_print,
    .release = os_release,
};
