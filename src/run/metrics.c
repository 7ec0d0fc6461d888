/*
 * metrics.c - the per-second OS and database figures of a run (see
 * metrics.h): columns, samples, rows, metrics.csv, run.json's "metrics",
 * the summary lines and the text the endpoint serves.
 *
 * A column is one figure (cpu_user_pct, disk_data_write_mb_per_s, ...) with
 * its unit in its name, its Prometheus family and labels, and a note saying
 * why it was unavailable when it was.  Rates are differences of two samples
 * over the time between them (measured here, not assumed to be 1 s).  The
 * database's statistics come from four statements of admin.sql (for
 * checkpoints, one of two by the server's version where the dialect has a
 * metrics_server_version: PostgreSQL 17 moved them to pg_stat_checkpointer), each
 * returning rows (name, value); db_keys[] says which statement each name
 * is expected from, so a statement that fails (no privilege, a view an older
 * or newer server lacks) is named in the notes of exactly its columns.  A statement refused for
 * good (SQLSTATE class 42: privilege, undefined object) is not tried again.
 *
 * Runs on the monitor's thread only (during a load: the load command's sampling
 * thread); nothing here prints or exits, and
 * nothing here is on the per-transaction path.
 */
#include "run/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/hist.h"
#include "db/dialect.h"
#include "db/schema_sql.h"
#include "run/mserve.h"
#include "run/osmetrics.h"
#include "run/scrape.h"

#define MCOL_MAX 192
#define MDEV_MAX 8
#define MNET_MAX 16

/* The database statements, in id order: the four every dialect has, then
 * two a dialect may add (PostgreSQL): the server's version, and the
 * checkpoint statement of servers from PostgreSQL 17 on, used instead of
 * metrics_checkpoints there (metrics_checkpoints_stmt). */
enum {
    MQ_COUNTERS,
    MQ_WAL,
    MQ_CHECKPOINTS,
    MQ_SESSIONS,
    MQ_NBASE,
    MQ_VERSION = MQ_NBASE,
    MQ_CHECKPOINTS_17,
    MQ_N
};
/* Each may be absent from a dialect (an "-- absent:" line says why). */
static const char *const mq_load_names[MQ_N] = { "?metrics_counters",       "?metrics_wal",
                                                 "?metrics_checkpoints",    "?metrics_sessions",
                                                 "?metrics_server_version", "?metrics_checkpoints_17" };
static const char *const mq_names[MQ_N] = { "metrics_counters",       "metrics_wal",
                                            "metrics_checkpoints",    "metrics_sessions",
                                            "metrics_server_version", "metrics_checkpoints_17" };

/* The names the statements return, and which statement returns each. */
enum {
    K_COMMITS,
    K_ROLLBACKS,
    K_HITS,
    K_READS,
    K_TEMP,
    K_DEADLOCKS,
    K_LOCK_WAITS,
    K_DATA_WRITTEN,
    K_WAL,
    K_CKPT,
    K_BUF_CKPT,
    K_BUF_BACKEND,
    K_S_ACTIVE,
    K_S_IDLE_TX,
    K_S_LOCK,
    K_LONGEST,
    K_HIDDEN,
    NDBK
};
static const struct {
    const char *name;
    int stmt;
} db_keys[NDBK] = {
    { "commits", MQ_COUNTERS },
    { "rollbacks", MQ_COUNTERS },
    { "buffer_hits", MQ_COUNTERS },
    { "buffer_reads", MQ_COUNTERS },
    { "temp_bytes", MQ_COUNTERS },
    { "deadlocks", MQ_COUNTERS },
    { "lock_waits", MQ_COUNTERS },
    { "data_written_bytes", MQ_COUNTERS },
    { "wal_bytes", MQ_WAL },
    { "checkpoints", MQ_CHECKPOINTS },
    { "buffers_checkpoint", MQ_CHECKPOINTS },
    { "buffers_backend", MQ_CHECKPOINTS },
    { "sessions_active", MQ_SESSIONS },
    { "sessions_idle_in_tx", MQ_SESSIONS },
    { "sessions_waiting_lock", MQ_SESSIONS },
    { "longest_tx_s", MQ_SESSIONS },
    { "sessions_hidden", MQ_SESSIONS },
};

/* How a column's value is made. */
enum {
    SRC_CPU_USER,
    SRC_CPU_SYSTEM,
    SRC_CPU_IOWAIT,
    SRC_CPU_STEAL,
    SRC_CPU_IDLE,
    SRC_PROCS,
    SRC_CTXT,
    SRC_MEM_FREE,
    SRC_MEM_CACHED,
    SRC_MEM_DIRTY,
    SRC_MEM_WRITEBACK,
    SRC_SELF_CPU,
    SRC_SELF_RSS,
    SRC_SAMPLE_CPU,
    SRC_DISK,     /* + arg: 0 reads/s .. 5 util */
    SRC_NET,      /* + arg: 0 rx, 1 tx */
    SRC_DB_RATE,  /* arg: K_* */
    SRC_DB_GAUGE, /* arg: K_* */
    SRC_DB_HIT,   /* from K_HITS and K_READS */
    SRC_DBH,      /* the database host's node_exporter; arg: DH_* */
};

/* The database host's columns (SRC_DBH), from its node_exporter. */
enum {
    DH_CPU, /* + 0 user .. 4 idle */
    DH_LOAD1 = DH_CPU + 5,
    DH_MEM,               /* + 0 free .. 3 writeback */
    DH_DISK = DH_MEM + 4, /* + 0 reads/s .. 5 util */
    DH_NET = DH_DISK + 6, /* + 0 rx, 1 tx */
    DH_PSI = DH_NET + 2,  /* + NX_PSI_* */
    DH_SCRAPE_MS = DH_PSI + NX_NPSI,
};

struct mcol {
    char name[96];      /* metrics.csv header: the unit is in the name */
    const char *unit;   /* "%", "1/s", "MB", "MB/s", "ms", "bytes/s", "s", "count" */
    const char *help;   /* one line for the endpoint's HELP and the docs */
    char prom[96];      /* Prometheus family (base units) */
    char labels[128];   /* 'device="vda",role="data"' or "" */
    double prom_scale;  /* prom value = value * prom_scale */
    int src, arg, idx;  /* how it is made; idx: device or interface */
    char note[320];     /* why it was unavailable (first reason), "" when it never was */
    uint64_t n_missing; /* rows without a value */
};

struct mrow {
    int second;
    char phase;
    double interval_s;
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

/* A growing text buffer (OpenMetrics text). */
struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
};

/*
 * The database's statistics are read on a thread of their own, through a
 * connection of their own: a server that does not answer (a frozen
 * network) must never hold the monitor, which closes the window on time.
 * The monitor asks for a sample and waits at most DB_WAIT_US; a sample still
 * outstanding from an earlier tick is not waited for again.  Freed by the
 * last of its two users (the metrics and the thread), so a thread blocked
 * in the database at the end is left behind safely.
 */
#define DB_WAIT_US       500000
#define DB_WAIT_FIRST_US 5000000 /* the baseline and the last sample */
struct mdb {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs;                /* under lock: 2 while both use it */
    int stop;                /* under lock: the thread ends */
    unsigned req, done;      /* under lock: samples asked for, and the last one taken */
    struct db_conn *c;       /* the thread's (closed by whoever frees) */
    const struct dialect *d; /* the metrics' (outlives the thread: see mdb_release) */
    struct dialect own_d;    /* ... kept here */
    int stmt_off[MQ_N];      /* thread only: refused for good */
    int n_mq;                /* statements loaded: MQ_NBASE, or MQ_N with the versioned ones */
    int version_read;        /* thread only: server_version_num asked for */
    long server_version;     /* thread only: server_version_num, 0 when unknown */
    int ckpt_q;              /* MQ_CHECKPOINTS or MQ_CHECKPOINTS_17 (under lock once read) */
    /* The latest sample, under lock. */
    double val[NDBK];
    int have[NDBK];
    char stmt_note[MQ_N][300];
    int lost;      /* the connection was lost */
    uint64_t t_us; /* when it was taken */
    double cpu_ms; /* the thread's CPU for it */
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

struct metrics {
    struct mdbh dbh;
    const struct metrics_series *series; /* registered families (kept, not owned) */
    int nseries;
    struct mdb *db;               /* NULL: no database statistics (d_note says why) */
    uint64_t db_t_cur, db_t_prev; /* when db_cur and db_prev were read */
    double db_cpu_ms;             /* the database thread's CPU for this sample */
    char db_miss[320];            /* why this sample has no database figures, "" when it has */
    char dialect[32];
    int synthetic;
    struct mserve *serve;
    struct dialect d; /* moved into db at metrics_start */
    int have_d;
    char d_note[300];          /* why there are no database statements */
    char stmt_note[MQ_N][300]; /* the latest failure of each statement (from db) */
    int n_mq;                  /* statements in d: MQ_NBASE or MQ_N */
    int ckpt_q;                /* the checkpoint statement in use (from db) */
    long server_version;       /* server_version_num (from db), 0 when unknown */
    struct mcol cols[MCOL_MAX];
    int ncol;
    struct mdev dev[MDEV_MAX];
    int ndev;
    struct mnet net[MNET_MAX];
    int nnet;
    struct osm_cpu cpu_prev;
    int cpu_have;
    struct osm_self self_prev;
    int self_have;
    double db_prev[NDBK];
    int db_have[NDBK];
    double db_cur[NDBK];
    int db_cur_have[NDBK];
    uint64_t t_prev_us;
    int started;
    long clk_tck;
    struct mrow *rows;
    double *vals; /* nrow x ncol */
    int nrow, cap;
    double sample_cpu_ms; /* of the current sample, for its row */
    int le_bucket[16];    /* last histogram bucket under each le of prom_le */
    char buf[65536];      /* /proc text */
};

static void mdb_release(struct mdb *w);

/* Response-time buckets of the endpoint, seconds. */
static const double prom_le[] = { 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1,
                                  0.2,   0.5,   1,     2,    5,    10,   30 };
#define N_LE ((int)(sizeof(prom_le) / sizeof(prom_le[0])))

/* ------------------------------------------------------------------ */
/* Columns                                                             */
/* ------------------------------------------------------------------ */

static int col_add(struct metrics *m, const char *name, const char *unit, const char *prom,
                   const char *labels, double scale, int src, int arg, int idx, const char *help)
{
    struct mcol *c;

    if (m->ncol == MCOL_MAX)
        return -1;
    c = &m->cols[m->ncol++];
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", name);
    snprintf(c->prom, sizeof(c->prom), "%s", prom);
    snprintf(c->labels, sizeof(c->labels), "%s", labels ? labels : "");
    c->unit = unit;
    c->help = help;
    c->prom_scale = scale;
    c->src = src;
    c->arg = arg;
    c->idx = idx;
    return 0;
}

/* A label value: only [A-Za-z0-9_.:@-], anything else becomes '_'. */
static void label_safe(char *out, size_t len, const char *in)
{
    size_t i = 0;

    for (; in[i] && i + 1 < len; i++) {
        char ch = in[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '.' || ch == ':' || ch == '@' || ch == '-';
        out[i] = ok ? ch : '_';
    }
    out[i] = '\0';
}

static void disk_columns(struct metrics *m, int d)
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
    char name[96], labels[128], safe[64];
    const char *tag = strcmp(m->dev[d].role, "data") == 0 ? "data" : m->dev[d].name;

    label_safe(safe, sizeof(safe), m->dev[d].name);
    snprintf(labels, sizeof(labels), "device=\"%s\",role=\"%s\"", safe[0] ? safe : "none",
             m->dev[d].role);
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "disk_%s_%s", tag, k[i].suffix);
        col_add(m, name, k[i].unit, k[i].prom, labels, k[i].scale, SRC_DISK, i, d, k[i].help);
    }
}

static void os_columns(struct metrics *m)
{
    static const char *const modes[5] = { "user", "system", "iowait", "steal", "idle" };
    static const char *const kinds[4] = { "free", "cached", "dirty", "writeback" };
    char name[96], labels[128];

    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "cpu_%s_pct", modes[i]);
        snprintf(labels, sizeof(labels), "mode=\"%s\"", modes[i]);
        col_add(m, name, "%", "tpccbench_cpu_percent", labels, 1, SRC_CPU_USER + i, 0, 0,
                "share of all CPUs' time (/proc/stat): user includes nice, system irq and "
                "softirq");
    }
    col_add(m, "procs_running", "count", "tpccbench_procs_running", NULL, 1, SRC_PROCS, 0, 0,
            "runnable tasks (the run queue)");
    col_add(m, "context_switches_per_s", "1/s", "tpccbench_context_switches_per_second", NULL, 1,
            SRC_CTXT, 0, 0, "context switches per second, all CPUs");
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "mem_%s_mb", kinds[i]);
        snprintf(labels, sizeof(labels), "kind=\"%s\"", kinds[i]);
        col_add(m, name, "MB", "tpccbench_memory_bytes", labels, 1e6, SRC_MEM_FREE + i, 0, 0,
                "memory free, page cache, dirty and under writeback (/proc/meminfo)");
    }
    for (int d = 0; d < m->ndev; d++)
        disk_columns(m, d);
    for (int n = 0; n < m->nnet; n++) {
        char safe[32];
        label_safe(safe, sizeof(safe), m->net[n].name);
        snprintf(labels, sizeof(labels), "interface=\"%s\"", safe);
        snprintf(name, sizeof(name), "net_%s_rx_bytes_per_s", m->net[n].name);
        col_add(m, name, "bytes/s", "tpccbench_network_receive_bytes_per_second", labels, 1,
                SRC_NET, 0, n, "bytes received per second (/proc/net/dev)");
        snprintf(name, sizeof(name), "net_%s_tx_bytes_per_s", m->net[n].name);
        col_add(m, name, "bytes/s", "tpccbench_network_transmit_bytes_per_second", labels, 1,
                SRC_NET, 1, n, "bytes sent per second (/proc/net/dev)");
    }
    col_add(m, "self_cpu_pct", "%", "tpccbench_process_cpu_percent", NULL, 1, SRC_SELF_CPU, 0, 0,
            "tpccbench's own CPU (user + system), percent of one core");
    col_add(m, "self_rss_mb", "MB", "tpccbench_process_resident_bytes", NULL, 1e6, SRC_SELF_RSS, 0,
            0, "tpccbench's resident memory");
    col_add(m, "metrics_cpu_ms", "ms", "tpccbench_metrics_sample_cpu_seconds", NULL, 1e-3,
            SRC_SAMPLE_CPU, 0, 0,
            "CPU the metrics sample itself took (OS, database and scraper threads)");
}

static void db_columns(struct metrics *m)
{
    static const struct {
        const char *name, *unit, *prom, *labels, *help;
        int src, key;
    } k[] = {
        { "db_commits_per_s", "1/s", "tpccbench_db_commits_per_second", NULL,
          "transactions committed per second (server side)", SRC_DB_RATE, K_COMMITS },
        { "db_rollbacks_per_s", "1/s", "tpccbench_db_rollbacks_per_second", NULL,
          "transactions rolled back per second (server side)", SRC_DB_RATE, K_ROLLBACKS },
        { "db_buffer_hit_pct", "%", "tpccbench_db_buffer_hit_percent", NULL,
          "share of page requests served from the buffer pool", SRC_DB_HIT, 0 },
        { "db_wal_bytes_per_s", "bytes/s", "tpccbench_db_wal_bytes_per_second", NULL,
          "WAL (redo log) bytes written per second", SRC_DB_RATE, K_WAL },
        { "db_checkpoints_per_s", "1/s", "tpccbench_db_checkpoints_per_second", NULL,
          "checkpoints per second (timed and requested)", SRC_DB_RATE, K_CKPT },
        { "db_buffers_checkpoint_per_s", "1/s", "tpccbench_db_buffers_written_per_second",
          "by=\"checkpoint\"", "buffers written per second by checkpoints", SRC_DB_RATE,
          K_BUF_CKPT },
        { "db_buffers_backend_per_s", "1/s", "tpccbench_db_buffers_written_per_second",
          "by=\"backend\"", "buffers written per second by backends", SRC_DB_RATE, K_BUF_BACKEND },
        { "db_temp_bytes_per_s", "bytes/s", "tpccbench_db_temp_bytes_per_second", NULL,
          "bytes written to temporary files per second", SRC_DB_RATE, K_TEMP },
        { "db_deadlocks_per_s", "1/s", "tpccbench_db_deadlocks_per_second", NULL,
          "deadlocks detected per second", SRC_DB_RATE, K_DEADLOCKS },
        /* A gauge: PostgreSQL counts no lock waits over time, only those now. */
        { "db_lock_waits", "count", "tpccbench_db_lock_waits", NULL,
          "lock waits in progress at the sample, the whole server's", SRC_DB_GAUGE,
          K_LOCK_WAITS },
        { "db_data_written_mb_per_s", "MB/s", "tpccbench_db_data_written_bytes_per_second", NULL,
          "data file bytes written per second", SRC_DB_RATE, K_DATA_WRITTEN },
        { "db_sessions_active", "count", "tpccbench_db_sessions", "state=\"active\"",
          "sessions by state, the monitor's own left out", SRC_DB_GAUGE, K_S_ACTIVE },
        { "db_sessions_idle_in_tx", "count", "tpccbench_db_sessions",
          "state=\"idle_in_transaction\"", "sessions by state, the monitor's own left out",
          SRC_DB_GAUGE, K_S_IDLE_TX },
        { "db_sessions_waiting_lock", "count", "tpccbench_db_sessions", "state=\"waiting_lock\"",
          "sessions by state, the monitor's own left out", SRC_DB_GAUGE, K_S_LOCK },
        { "db_longest_tx_s", "s", "tpccbench_db_longest_transaction_seconds", NULL,
          "age of the oldest open transaction", SRC_DB_GAUGE, K_LONGEST },
    };

    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        col_add(m, k[i].name, k[i].unit, k[i].prom, k[i].labels,
                strcmp(k[i].unit, "MB/s") == 0 ? 1e6 : 1, k[i].src, k[i].key, 0, k[i].help);
}

/* The database host's columns: the same figures as this host's, named db_host_*. */
static void dbh_columns(struct metrics *m)
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
        col_add(m, name, "%", "tpccbench_db_host_cpu_percent", labels, 1, SRC_DBH, DH_CPU + i, 0,
                "the database host's CPU shares (node_cpu_seconds_total): user includes nice, "
                "system irq and softirq");
    }
    col_add(m, "db_host_load1", "count", "tpccbench_db_host_load1", NULL, 1, SRC_DBH, DH_LOAD1, 0,
            "the database host's 1-minute load average (node_load1)");
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "db_host_mem_%s_mb", kinds[i]);
        snprintf(labels, sizeof(labels), "kind=\"%s\"", kinds[i]);
        col_add(m, name, "MB", "tpccbench_db_host_memory_bytes", labels, 1e6, SRC_DBH, DH_MEM + i,
                0, "the database host's memory free, page cache, dirty and under writeback");
    }
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "db_host_disk_data_%s", dk[i].suffix);
        col_add(m, name, dk[i].unit, dk[i].prom, "role=\"data\"", dk[i].scale, SRC_DBH, DH_DISK + i,
                0, dk[i].help);
    }
    col_add(m, "db_host_net_rx_bytes_per_s", "bytes/s",
            "tpccbench_db_host_network_receive_bytes_per_second", NULL, 1, SRC_DBH, DH_NET, 0,
            "the database host's bytes received per second, every interface but lo");
    col_add(m, "db_host_net_tx_bytes_per_s", "bytes/s",
            "tpccbench_db_host_network_transmit_bytes_per_second", NULL, 1, SRC_DBH, DH_NET + 1, 0,
            "the database host's bytes sent per second, every interface but lo");
    for (int i = 0; i < NX_NPSI; i++) {
        snprintf(name, sizeof(name), "db_host_pressure_%s_pct", psi[i]);
        snprintf(labels, sizeof(labels), "resource=\"%.*s\",kind=\"%s\"", (int)strcspn(psi[i], "_"),
                 psi[i], strchr(psi[i], '_') + 1);
        col_add(m, name, "%", "tpccbench_db_host_pressure_percent", labels, 1, SRC_DBH, DH_PSI + i,
                0,
                "the database host's pressure stall time, percent of the interval "
                "(node_pressure_*)");
    }
    col_add(m, "db_host_scrape_ms", "ms", "tpccbench_db_host_scrape_seconds", NULL, 1e-3, SRC_DBH,
            DH_SCRAPE_MS, 0, "how long the database host's node_exporter took to answer");
}

static int col_find(const struct metrics *m, const char *name)
{
    for (int i = 0; i < m->ncol; i++)
        if (strcmp(m->cols[i].name, name) == 0)
            return i;
    return -1;
}

/* Note why column c is unavailable in this row (the first reason is kept,
 * a later different one replaces it only when the first was transient). */
static void col_missing(struct mcol *c, const char *fmt, ...)
{
    c->n_missing++;
    if (!c->note[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->note, sizeof(c->note), fmt, ap);
        va_end(ap);
    }
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static void dev_add(struct metrics *m, const char *name, const char *role, const char *note)
{
    struct mdev *d;

    for (int i = 0; i < m->ndev; i++)
        if (m->dev[i].name[0] && strcmp(m->dev[i].name, name) == 0)
            return; /* named twice, or the data directory's device named again */
    if (m->ndev == MDEV_MAX)
        return;
    d = &m->dev[m->ndev++];
    memset(d, 0, sizeof(*d));
    snprintf(d->name, sizeof(d->name), "%s", name);
    snprintf(d->role, sizeof(d->role), "%s", role);
    snprintf(d->note, sizeof(d->note), "%s", note ? note : "");
}

/* Whether the dialect's admin.sql has the versioned statements (both). */
static int dialect_has_versions(const char *dialect)
{
    const char *admin = schema_sql(dialect, "admin");

    return admin && strstr(admin, "-- name: metrics_server_version\n") &&
           strstr(admin, "-- name: metrics_checkpoints_17\n");
}

const char *metrics_checkpoints_stmt(long server_version_num, int have_17)
{
    return have_17 && server_version_num >= 170000 ? mq_names[MQ_CHECKPOINTS_17]
                                                   : mq_names[MQ_CHECKPOINTS];
}

/* The database host: a scraper of its node_exporter, or why there is none. */
static void dbh_setup(struct metrics *m, const struct metrics_opts *o)
{
    struct mdbh *h = &m->dbh;
    struct err e;

    h->local = o->db_local;
    snprintf(h->where, sizeof(h->where), "%s", o->db_where ? o->db_where : "");
    if (o->db_host_url && o->db_host_url[0]) {
        snprintf(h->url, sizeof(h->url), "%s", o->db_host_url);
        dbh_columns(m);
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

/* 1 with e set (the first one's reason) when d holds none of its n
 * metrics statements, d released; else 0. */
static int none_present(struct dialect *d, int n, struct err *e)
{
    for (int q = 0; q < n; q++)
        if (d->sql[q])
            return 0;
    dialect_absent(d, 0, e);
    dialect_release(d);
    return 1;
}

struct metrics *metrics_new(const struct metrics_opts *o, struct err *e)
{
    struct metrics *m = calloc(1, sizeof(*m));
    struct osm_net nets[MNET_MAX];
    int n;

    if (!m) {
        err_set(e, E_FAIL, "out of memory");
        return NULL;
    }
    snprintf(m->dialect, sizeof(m->dialect), "%s", o->dialect ? o->dialect : "");
    m->synthetic = o->synthetic;
    m->serve = o->serve;
    m->ckpt_q = MQ_CHECKPOINTS;
    m->clk_tck = sysconf(_SC_CLK_TCK);
    if (m->clk_tck <= 0)
        m->clk_tck = 100;
    /* The data directory's device first: its columns are disk_data_*. */
    if (o->data_device && o->data_device[0] && strcmp(o->data_device, "none") != 0 &&
        strcmp(o->data_device, "unknown") != 0)
        dev_add(m, o->data_device, "data", NULL);
    else
        dev_add(m, "", "data",
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
                dev_add(m, name, "named", NULL);
            }
            p += len;
            while (*p == ',' || *p == ' ')
                p++;
        }
    }
    if (osm_read_file("/proc/net/dev", m->buf, sizeof(m->buf)) > 0) {
        n = osm_parse_netdev(m->buf, nets, MNET_MAX);
        for (int i = 0; i < n; i++) {
            memcpy(m->net[m->nnet].name, nets[i].name, sizeof(m->net[0].name));
            m->nnet++;
        }
    }
    os_columns(m);
    db_columns(m);
    dbh_setup(m, o);
    /* The database's statements; a dialect without them records why. */
    if (m->synthetic) {
        snprintf(m->d_note, sizeof(m->d_note), "driver null: no database behind it");
    } else if ((m->n_mq = dialect_has_versions(m->dialect) ? MQ_N : MQ_NBASE),
               dialect_load(&m->d, m->dialect, "admin", mq_load_names, m->n_mq, e) < 0 ||
               none_present(&m->d, m->n_mq, e)) {
        /* An absent statement's message names the dialect and why. */
        if (e->code == E_USAGE)
            snprintf(m->d_note, sizeof(m->d_note), "%.290s", e->msg);
        else
            snprintf(m->d_note, sizeof(m->d_note),
                     "no metrics statements for dialect '%.31s': %.200s", m->dialect, e->msg);
        err_clear(e);
    } else {
        m->have_d = 1;
    }
    /* For each le: the last bucket whose values all lie at or under it. */
    for (int i = 0; i < N_LE; i++) {
        uint64_t le_us = (uint64_t)(prom_le[i] * 1e6 + 0.5);
        int b = 0;
        while (b + 1 < HIST_N_BUCKETS && hist_bucket_high(b + 1) <= le_us)
            b++;
        m->le_bucket[i] = hist_bucket_high(b) <= le_us ? b : -1;
    }
    return m;
}

void metrics_free(struct metrics *m)
{
    if (!m)
        return;
    if (m->db) {
        pthread_mutex_lock(&m->db->lock);
        m->db->stop = 1;
        pthread_cond_broadcast(&m->db->cond);
        pthread_mutex_unlock(&m->db->lock);
        mdb_release(m->db); /* the thread frees it when it ends, if it has not yet */
    } else if (m->have_d) {
        dialect_release(&m->d);
    }
    scrape_free(m->dbh.scr);
    free(m->rows);
    free(m->vals);
    free(m);
}

/* ------------------------------------------------------------------ */
/* Sampling                                                            */
/* ------------------------------------------------------------------ */

static double thread_cpu_ms(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A permanent refusal: privilege (42501), an undefined table, column or
 * function (42P01, 42703, 42883), a server in recovery (55000). */
static int refused_for_good(const struct err *e)
{
    return strncmp(e->sqlstate, "42", 2) == 0 || strcmp(e->sqlstate, "55000") == 0;
}

/* Once per connection: the server's version (metrics_server_version), and
 * from it the checkpoint statement.  Unknown (no such statement, or it
 * failed): metrics_checkpoints, whose failure then names itself. */
static void db_version(struct mdb *w, char notes[MQ_N][300], int *lost)
{
    struct db_conn *c = w->c;
    struct err e;
    int rc;

    err_clear(&e);
    if (w->n_mq > MQ_VERSION) {
        if ((rc = db_query(c, w->d->sql[MQ_VERSION], NULL, 0, &e)) < 0) {
            snprintf(notes[MQ_VERSION], sizeof(notes[MQ_VERSION]), "%s: %.220s",
                     mq_names[MQ_VERSION], e.msg);
            if (rc == E_CONN) {
                *lost = 1;
                return;
            }
            if (!(c->ops->flags & DB_F_AUTOCOMMIT)) {
                struct err e2;
                db_rollback(c, &e2);
            }
        } else {
            while (db_next(c) == 1) {
                int len = 0;
                const char *v = db_col_text(c, 1, &len);
                char vbuf[32];
                if (v && len > 0 && len < (int)sizeof(vbuf)) {
                    memcpy(vbuf, v, (size_t)len);
                    vbuf[len] = '\0';
                    w->server_version = strtol(vbuf, NULL, 10);
                }
            }
            db_end_reads(c, &e);
        }
    }
    pthread_mutex_lock(&w->lock);
    w->ckpt_q = strcmp(metrics_checkpoints_stmt(w->server_version, w->n_mq > MQ_CHECKPOINTS_17),
                       mq_names[MQ_CHECKPOINTS_17]) == 0
                    ? MQ_CHECKPOINTS_17
                    : MQ_CHECKPOINTS;
    pthread_mutex_unlock(&w->lock);
    w->version_read = 1;
}

/* Read the statistics through w->c into val/have/notes (the thread's own
 * copies); *lost: the connection is gone. */
static void db_read(struct mdb *w, double *val, int *have, char notes[MQ_N][300], int *lost)
{
    struct db_conn *c = w->c;

    memset(have, 0, sizeof(int) * NDBK);
    *lost = 0;
    if (!w->version_read && (db_version(w, notes, lost), *lost))
        return;
    for (int qb = 0; qb < MQ_NBASE; qb++) {
        int q = qb == MQ_CHECKPOINTS ? w->ckpt_q : qb;
        struct err e;
        int rc;
        if (w->stmt_off[q])
            continue;
        if (!w->d->sql[q]) {
            struct err why;
            dialect_absent(w->d, q, &why);
            snprintf(notes[q], sizeof(notes[q]), "%.290s", why.msg);
            continue;
        }
        err_clear(&e);
        if ((rc = db_query(c, w->d->sql[q], NULL, 0, &e)) < 0) {
            snprintf(notes[q], sizeof(notes[q]), "%s: %.220s%s", mq_names[q], e.msg,
                     refused_for_good(&e) ? " (not tried again in this run)" : "");
            if (refused_for_good(&e))
                w->stmt_off[q] = 1;
            if (!(c->ops->flags & DB_F_AUTOCOMMIT) && rc != E_CONN) {
                struct err e2;
                db_rollback(c, &e2);
            }
            if (rc == E_CONN) {
                *lost = 1;
                return;
            }
            continue;
        }
        notes[q][0] = '\0';
        while (db_next(c) == 1) {
            int len = 0;
            const char *name = db_col_text(c, 0, &len);
            const char *v;
            char nbuf[64], vbuf[64];
            int vlen = 0;
            if (!name || db_col_isnull(c, 1) || len <= 0 || len >= (int)sizeof(nbuf))
                continue;
            memcpy(nbuf, name, (size_t)len);
            nbuf[len] = '\0';
            v = db_col_text(c, 1, &vlen);
            if (!v || vlen <= 0 || vlen >= (int)sizeof(vbuf))
                continue;
            memcpy(vbuf, v, (size_t)vlen);
            vbuf[vlen] = '\0';
            for (int k = 0; k < NDBK; k++) {
                /* Any statement may return any name (a dialect puts a figure
                 * where its privileges allow); db_keys[k].stmt is where a
                 * missing one is looked for in notes. */
                if (strcmp(db_keys[k].name, nbuf) == 0) {
                    char *end;
                    double x = strtod(vbuf, &end);
                    if (end != vbuf && isfinite(x)) {
                        val[k] = x;
                        have[k] = 1;
                    }
                }
            }
        }
        {
            struct err e2;
            db_end_reads(c, &e2);
        }
    }
}

/* Drop one user of w; the last frees it (closing its connection). */
static void mdb_release(struct mdb *w)
{
    int last;

    pthread_mutex_lock(&w->lock);
    last = --w->refs == 0;
    pthread_mutex_unlock(&w->lock);
    if (!last)
        return;
    db_close(w->c);
    dialect_release(&w->own_d);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free(w);
}

static void *mdb_main(void *arg)
{
    struct mdb *w = arg;
    double val[NDBK];
    int have[NDBK], lost;
    char(*notes)[300] = calloc(MQ_N, sizeof(*notes));

    pthread_mutex_lock(&w->lock);
    while (notes && !w->stop) {
        unsigned r;
        if (w->req == w->done) {
            pthread_cond_wait(&w->cond, &w->lock);
            continue;
        }
        double cpu0;
        r = w->req;
        pthread_mutex_unlock(&w->lock);
        cpu0 = thread_cpu_ms();
        db_read(w, val, have, notes, &lost);
        pthread_mutex_lock(&w->lock);
        w->cpu_ms = thread_cpu_ms() - cpu0;
        memcpy(w->val, val, sizeof(val));
        memcpy(w->have, have, sizeof(have));
        memcpy(w->stmt_note, notes, sizeof(w->stmt_note));
        w->lost = lost;
        w->t_us = clock_us();
        w->done = r;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    free(notes);
    mdb_release(w);
    return NULL;
}

/* A database sample into m->db_cur, waiting at most wait_us; m->db_miss
 * says why there is none. */
static void db_get(struct metrics *m, uint64_t wait_us)
{
    struct mdb *w = m->db;
    struct timespec ts;
    unsigned r;
    int busy;

    memset(m->db_cur_have, 0, sizeof(m->db_cur_have));
    m->db_miss[0] = '\0';
    m->db_cpu_ms = 0;
    if (!w) {
        snprintf(m->db_miss, sizeof(m->db_miss), "%s",
                 m->have_d ? "no connection for the metrics (see the warning at the start)"
                           : m->d_note);
        return;
    }
    pthread_mutex_lock(&w->lock);
    busy = w->req != w->done;
    if (!busy) {
        r = ++w->req;
        pthread_cond_broadcast(&w->cond);
        clock_deadline(&ts, wait_us);
        while (w->done != r && pthread_cond_timedwait(&w->cond, &w->lock, &ts) == 0)
            ;
    }
    if (busy || w->done != w->req) {
        snprintf(m->db_miss, sizeof(m->db_miss),
                 "the database did not answer the statistics queries within %.1f s",
                 (double)wait_us / 1e6);
    } else if (w->lost) {
        snprintf(m->db_miss, sizeof(m->db_miss), "the metrics' connection was lost");
        memcpy(m->stmt_note, w->stmt_note, sizeof(m->stmt_note));
    } else {
        memcpy(m->db_cur, w->val, sizeof(m->db_cur));
        memcpy(m->db_cur_have, w->have, sizeof(m->db_cur_have));
        memcpy(m->stmt_note, w->stmt_note, sizeof(m->stmt_note));
        m->ckpt_q = w->ckpt_q;
        m->server_version = w->server_version;
        m->db_t_cur = w->t_us;
        m->db_cpu_ms = w->cpu_ms;
    }
    pthread_mutex_unlock(&w->lock);
}

/* Why database key k has no value now. */
static void db_why(const struct metrics *m, int k, int have_conn, char *out, size_t len)
{
    /* PostgreSQL's data written is pg_stat_bgwriter's (pg_stat_io's from
     * 17): its checkpoint statement's, where MariaDB's is a status counter. */
    int s = k == K_DATA_WRITTEN && strcmp(m->dialect, "postgresql") == 0 ? MQ_CHECKPOINTS
                                                                          : db_keys[k].stmt;
    int q = s == MQ_CHECKPOINTS ? m->ckpt_q : s;

    (void)have_conn;
    if (k == K_BUF_BACKEND && q == MQ_CHECKPOINTS_17 && !m->db_miss[0])
        snprintf(out, len,
                 "PostgreSQL %ld.%ld has no buffers_backend (removed in 17 with "
                 "pg_stat_bgwriter's checkpoint columns; backends' writes are in pg_stat_io)",
                 m->server_version / 10000, m->server_version % 10000);
    else if (!m->have_d)
        snprintf(out, len, "%s", m->d_note);
    else if (m->db_miss[0])
        snprintf(out, len, "%s", m->db_miss);
    else if (m->stmt_note[q][0])
        snprintf(out, len, "%s", m->stmt_note[q]);
    else if (strcmp(m->dialect, "ansi") == 0)
        snprintf(out, len, "the ansi dialect: standard SQL has no view of server statistics");
    else
        snprintf(out, len, "the %s dialect's %s reports no '%s'", m->dialect, mq_names[q],
                 db_keys[k].name);
}

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

/* Read /proc: CPU, memory, the devices' and interfaces' counters, this process. */
static void os_read(struct metrics *m, struct os_now *s)
{
    int diskstats_ok, netdev_ok;

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
}

/* The rates of s against the previous sample, over interval_s. */
static void os_rates(const struct metrics *m, struct os_now *s, double interval_s)
{
    if (s->cpu_ok && m->cpu_have)
        osm_cpu_shares(&m->cpu_prev, &s->cpu, &s->pct);
    if (s->self_ok && m->self_have && interval_s > 0)
        s->self_cpu =
            100.0 *
            (double)((s->self.utime + s->self.stime) - (m->self_prev.utime + m->self_prev.stime)) /
            (double)m->clk_tck / interval_s;
}

/* Sessions of other users this user may not see: the counts cover only the
 * visible ones, which their columns say (they are not missing). */
static void db_note_hidden(struct metrics *m)
{
    if (!m->db_cur_have[K_HIDDEN] || m->db_cur[K_HIDDEN] <= 0)
        return;
    for (int i = 0; i < m->ncol; i++) {
        struct mcol *col = &m->cols[i];
        /* pg_locks shows every session's locks: lock_waits is whole. */
        if (col->src == SRC_DB_GAUGE && col->arg != K_HIDDEN && col->arg != K_LOCK_WAITS &&
            !col->note[0])
            snprintf(col->note, sizeof(col->note),
                     "%.0f sessions of other users were not visible (needs "
                     "pg_read_all_stats, part of pg_monitor): the figure covers the visible "
                     "ones",
                     m->db_cur[K_HIDDEN]);
    }
}

/* A column of /proc/stat, /proc/meminfo or /proc/self (NaN: not read, noted). */
static double col_os(const struct metrics *m, const struct os_now *s, struct mcol *col,
                     double interval_s)
{
    switch (col->src) {
    case SRC_CPU_USER:
    case SRC_CPU_SYSTEM:
    case SRC_CPU_IOWAIT:
    case SRC_CPU_STEAL:
    case SRC_CPU_IDLE: {
        const double p[5] = { s->pct.user, s->pct.system, s->pct.iowait, s->pct.steal,
                              s->pct.idle };
        if (s->cpu_ok && m->cpu_have)
            return p[col->src - SRC_CPU_USER];
        col_missing(col, "/proc/stat could not be read");
        return NAN;
    }
    case SRC_PROCS:
        if (s->cpu_ok)
            return (double)s->cpu.procs_running;
        col_missing(col, "/proc/stat could not be read");
        return NAN;
    case SRC_CTXT:
        if (s->cpu_ok && m->cpu_have && interval_s > 0 && s->cpu.ctxt >= m->cpu_prev.ctxt)
            return (double)(s->cpu.ctxt - m->cpu_prev.ctxt) / interval_s;
        col_missing(col, "/proc/stat could not be read");
        return NAN;
    case SRC_MEM_FREE:
    case SRC_MEM_CACHED:
    case SRC_MEM_DIRTY:
    case SRC_MEM_WRITEBACK: {
        const uint64_t k[4] = { s->mem.free_kb, s->mem.cached_kb, s->mem.dirty_kb,
                                s->mem.writeback_kb };
        if (s->mem_ok)
            return (double)k[col->src - SRC_MEM_FREE] * 1024.0 / 1e6;
        col_missing(col, "/proc/meminfo could not be read");
        return NAN;
    }
    case SRC_SELF_CPU:
        if (!isnan(s->self_cpu))
            return s->self_cpu;
        col_missing(col, "/proc/self/stat could not be read");
        return NAN;
    case SRC_SELF_RSS:
        if (s->self_ok)
            return (double)s->self.rss_kb * 1024.0 / 1e6;
        col_missing(col, "/proc/self/status could not be read");
        return NAN;
    default:
        return NAN;
    }
}

/* A column of a block device's counters (/proc/diskstats). */
static double col_disk(const struct metrics *m, const struct os_now *s, struct mcol *col,
                       double interval_s)
{
    const struct mdev *d = &m->dev[col->idx];
    struct osm_disk_rate r;

    if (!d->name[0]) {
        col_missing(col, "%s", d->note);
        return NAN;
    }
    if (!s->disk_ok[col->idx]) {
        col_missing(col, "device '%s' is not in /proc/diskstats (gone, or never there)", d->name);
        return NAN;
    }
    if (!d->have) {
        col_missing(col, "device '%s': no earlier sample", d->name);
        return NAN;
    }
    osm_disk_rates(&d->prev, &s->disk[col->idx], interval_s, &r);
    const double v[6] = { r.reads_per_s,    r.writes_per_s, r.read_mb_per_s,
                          r.write_mb_per_s, r.await_ms,     r.util_pct };
    return v[col->arg];
}

/* A column of a network interface's counters (/proc/net/dev). */
static double col_net(const struct metrics *m, const struct os_now *s, struct mcol *col,
                      double interval_s)
{
    const struct mnet *nt = &m->net[col->idx];
    uint64_t a, b;

    if (!s->net_ok[col->idx] || !nt->have || interval_s <= 0) {
        col_missing(col, "interface '%s' is not in /proc/net/dev (gone)", nt->name);
        return NAN;
    }
    a = col->arg ? nt->prev.tx_bytes : nt->prev.rx_bytes;
    b = col->arg ? s->net[col->idx].tx_bytes : s->net[col->idx].rx_bytes;
    if (b >= a)
        return (double)(b - a) / interval_s;
    col_missing(col, "interface '%s': counter went backwards", nt->name);
    return NAN;
}

/* A column of the database's statistics: a rate, a gauge or the hit ratio. */
static double col_db(const struct metrics *m, struct mcol *col)
{
    char why[320];
    int k = col->arg;

    if (col->src == SRC_DB_RATE) {
        double dt = (double)(m->db_t_cur - m->db_t_prev) / 1e6;
        if (m->db_cur_have[k] && m->db_have[k] && dt > 0 && m->db_cur[k] >= m->db_prev[k])
            return (m->db_cur[k] - m->db_prev[k]) / dt / (strcmp(col->unit, "MB/s") ? 1 : 1e6);
        if (m->db_cur_have[k] && m->db_have[k]) {
            col_missing(col, "the server's counter went backwards (statistics reset or "
                             "a restart)");
            return NAN;
        }
        if (m->db_cur_have[k]) {
            col_missing(col, "no earlier sample of '%s'", db_keys[k].name);
            return NAN;
        }
    } else if (col->src == SRC_DB_GAUGE) {
        if (m->db_cur_have[k])
            return m->db_cur[k];
    } else { /* SRC_DB_HIT */
        int ok = m->db_cur_have[K_HITS] && m->db_cur_have[K_READS] && m->db_have[K_HITS] &&
                 m->db_have[K_READS];
        double h = ok ? m->db_cur[K_HITS] - m->db_prev[K_HITS] : 0;
        double r = ok ? m->db_cur[K_READS] - m->db_prev[K_READS] : 0;
        if (ok && h >= 0 && r >= 0 && h + r > 0)
            return 100.0 * h / (h + r);
        if (ok && h + r == 0) {
            col_missing(col, "no page was requested in some seconds (no ratio)");
            return NAN;
        }
        k = m->db_cur_have[K_HITS] ? K_READS : K_HITS;
    }
    db_why(m, k, 1, why, sizeof(why));
    col_missing(col, "%s", why);
    return NAN;
}

/* The database host's scrape asked for at the start of the sample, waited
 * for until deadline_us (0.5 s after the start: never a held clock). */
static void dbh_take(struct metrics *m, uint64_t deadline_us)
{
    struct mdbh *h = &m->dbh;

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
            col_missing(col, "node_cpu_seconds_total went backwards (the host restarted?)");
            return NAN;
        }
        total += d[k];
    }
    if (total <= 0) {
        col_missing(col, "no CPU time passed between two scrapes");
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
        col_missing(col, "%s", h->cur.disk_from);
        return NAN;
    }
    if (!h->cur.have_disk || !h->prev.have_disk) {
        col_missing(col,
                    "device '%s' has no node_disk_* counters at %s (diskstats collector off, "
                    "or its device excluded)",
                    h->cur.disk, h->url);
        return NAN;
    }
    for (int k = 0; k < NX_NDISK; k++)
        if ((d[k] = b[k] - a[k]) < 0) {
            col_missing(col, "device '%s': a counter went backwards", h->cur.disk);
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
static double col_dbh(const struct metrics *m, struct mcol *col)
{
    const struct mdbh *h = &m->dbh;
    const struct nodex *a = &h->prev, *b = &h->cur;
    double dt = (double)(h->t_cur - h->t_prev) / 1e6;
    int k = col->arg;

    if (!h->cur_ok) {
        col_missing(col, "%s", h->miss);
        return NAN;
    }
    if (k == DH_SCRAPE_MS)
        return h->ms;
    if (k == DH_LOAD1 && b->have_load1)
        return b->load1;
    if (k >= DH_MEM && k < DH_MEM + 4 && b->have_mem[k - DH_MEM])
        return b->mem[k - DH_MEM] / 1e6;
    if (k == DH_LOAD1 || (k >= DH_MEM && k < DH_MEM + 4)) {
        col_missing(col, "%s serves no %s (its %s collector is off)", h->url,
                    k == DH_LOAD1 ? "node_load1" : "node_memory_*",
                    k == DH_LOAD1 ? "loadavg" : "meminfo");
        return NAN;
    }
    if (!h->have_prev || dt <= 0) {
        col_missing(col, "no earlier scrape of %s", h->url);
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
        col_missing(col, b->n_net ? "node_network_*_bytes_total went backwards"
                                  : "no node_network_*_bytes_total but lo (netdev collector off)");
        return NAN;
    }
    k -= DH_PSI;
    if (b->have_psi[k] && a->have_psi[k] && b->psi[k] >= a->psi[k])
        return 100.0 * (b->psi[k] - a->psi[k]) / dt;
    col_missing(col,
                "%s serves no node_pressure_* of this kind (pressure collector off, or a "
                "kernel without PSI)",
                h->url);
    return NAN;
}

/* This sample is the next one's baseline; a figure not read now has none.  A
 * database figure not read now keeps its last reading as the baseline: the
 * next rate spans the gap (over the time between the two readings). */
static void keep_baseline(struct metrics *m, const struct os_now *s)
{
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
    for (int k = 0; k < NDBK; k++) {
        if (m->db_cur_have[k]) {
            m->db_prev[k] = m->db_cur[k];
            m->db_have[k] = 1;
        }
    }
    if (!m->db_miss[0])
        m->db_t_prev = m->db_t_cur;
    if (m->dbh.cur_ok) {
        m->dbh.prev = m->dbh.cur;
        m->dbh.t_prev = m->dbh.t_cur;
        m->dbh.have_prev = 1;
    }
}

/* One sample; with v, the values of a row (NaN = unavailable) over the
 * interval since the previous sample, a function per source. */
static void sample(struct metrics *m, double *v, double interval_s, uint64_t db_wait_us)
{
    struct os_now s;
    uint64_t t0 = clock_us();

    if (m->dbh.scr)
        scrape_ask(m->dbh.scr); /* under way while this host and the database are read */
    os_read(m, &s);
    db_get(m, db_wait_us);
    dbh_take(m, t0 + (uint64_t)SCRAPE_TIMEOUT_MS * 1000);
    db_note_hidden(m);
    if (v) {
        os_rates(m, &s, interval_s);
        for (int i = 0; i < m->ncol; i++) {
            struct mcol *col = &m->cols[i];
            switch (col->src) {
            case SRC_DISK:
                v[i] = col_disk(m, &s, col, interval_s);
                break;
            case SRC_NET:
                v[i] = col_net(m, &s, col, interval_s);
                break;
            case SRC_DB_RATE:
            case SRC_DB_GAUGE:
            case SRC_DB_HIT:
                v[i] = col_db(m, col);
                break;
            case SRC_DBH:
                v[i] = col_dbh(m, col);
                break;
            case SRC_SAMPLE_CPU:
                v[i] = NAN; /* filled in by the caller, after the sample */
                break;
            default:
                v[i] = col_os(m, &s, col, interval_s);
                break;
            }
        }
    }
    keep_baseline(m, &s);
}

void metrics_start(struct metrics *m, struct db_conn *c)
{
    if (!m)
        return;
    if (c && m->have_d) {
        struct mdb *w = calloc(1, sizeof(*w));
        pthread_t th;
        if (w) {
            pthread_mutex_init(&w->lock, NULL);
            pthread_cond_init(&w->cond, NULL);
            w->refs = 2;
            w->c = c;
            w->own_d = m->d; /* the statements move to the worker, which may outlive m */
            w->d = &w->own_d;
            w->n_mq = m->n_mq;
            w->ckpt_q = MQ_CHECKPOINTS;
            m->have_d = 1;
            memset(&m->d, 0, sizeof(m->d));
            if (pthread_create(&th, NULL, mdb_main, w) == 0) {
                pthread_detach(th);
                m->db = w;
                c = NULL;
            } else {
                m->d = w->own_d;
                pthread_mutex_destroy(&w->lock);
                pthread_cond_destroy(&w->cond);
                free(w);
            }
        }
    }
    db_close(c); /* not taken by a worker */
    sample(m, NULL, 0, DB_WAIT_FIRST_US);
    m->t_prev_us = clock_us();
    m->started = 1;
}

/* Sample into a new row (second, phase). */
static void add_row(struct metrics *m, int second, char phase, uint64_t db_wait_us)
{
    double cpu0 = thread_cpu_ms(), *v;
    uint64_t now = clock_us();
    double interval = m->started ? (double)(now - m->t_prev_us) / 1e6 : 0;
    int sc;

    if (m->nrow == m->cap) {
        int cap = m->cap ? m->cap * 2 : 256;
        struct mrow *nr = realloc(m->rows, (size_t)cap * sizeof(*nr));
        double *nv;
        if (!nr)
            return;
        m->rows = nr;
        if (!(nv = realloc(m->vals, (size_t)cap * (size_t)m->ncol * sizeof(*nv))))
            return;
        m->vals = nv;
        m->cap = cap;
    }
    v = &m->vals[(size_t)m->nrow * (size_t)m->ncol];
    sample(m, v, interval, db_wait_us);
    m->rows[m->nrow].second = second;
    m->rows[m->nrow].phase = phase;
    m->rows[m->nrow].interval_s = interval;
    m->nrow++;
    m->t_prev_us = now;
    m->started = 1;
    m->sample_cpu_ms = thread_cpu_ms() - cpu0 + m->db_cpu_ms + m->dbh.cpu_ms;
    if ((sc = col_find(m, "metrics_cpu_ms")) >= 0)
        v[sc] = m->sample_cpu_ms;
}

/* ------------------------------------------------------------------ */
/* The endpoint's text                                                 */
/* ------------------------------------------------------------------ */

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->oom)
        return;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && (size_t)n < room) {
            b->n += (size_t)n;
            return;
        }
        {
            size_t cap = b->cap ? b->cap * 2 : 16384;
            char *np;
            while (cap - b->n <= (size_t)n)
                cap *= 2;
            if (!(np = realloc(b->p, cap))) {
                b->oom = 1;
                return;
            }
            b->p = np;
            b->cap = cap;
        }
    }
}

/* The family header: OpenMetrics names a counter without _total. */
static void family(struct sbuf *b, int om, const char *name, const char *type, const char *help)
{
    const char *fam = name;
    char base[128];
    size_t n = strlen(name);

    if (om && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0) {
        snprintf(base, sizeof(base), "%.*s", (int)(n - 6), name);
        fam = base;
    }
    sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", fam, help, fam, type);
}

static void histogram(struct sbuf *b, const struct metrics *m, const char *name, int type,
                      const struct hist *h)
{
    uint64_t cum = 0;
    int bucket = 0;

    for (int i = 0; i < N_LE; i++) {
        for (; bucket <= m->le_bucket[i]; bucket++)
            cum += h->counts[bucket];
        sb_printf(b, "%s_bucket{type=\"%s\",le=\"%g\"} %llu\n", name, tx_name((enum tx_type)type),
                  prom_le[i], (unsigned long long)cum);
    }
    sb_printf(b, "%s_bucket{type=\"%s\",le=\"+Inf\"} %llu\n", name, tx_name((enum tx_type)type),
              (unsigned long long)h->n_samples);
    sb_printf(b, "%s_sum{type=\"%s\"} %.6f\n", name, tx_name((enum tx_type)type),
              (double)h->sum_us / 1e6);
    sb_printf(b, "%s_count{type=\"%s\"} %llu\n", name, tx_name((enum tx_type)type),
              (unsigned long long)h->n_samples);
}

static void render_figures(struct sbuf *b, const struct metrics *m, int om);

/* The whole text; om: OpenMetrics 1.0 (else Prometheus text 0.0.4). */
static void render(struct sbuf *b, const struct metrics *m, const struct series_row *row,
                   const struct vu_stats *cum, int in_tx, int down, int om)
{
    static const char *const outcomes[5] = { "committed", "rolled_back", "error", "unknown",
                                             "retried" };

    if (cum) {
        family(b, om, "tpccbench_transactions_total", "counter",
               "transactions by type and outcome since the run started (rolled_back: "
               "New-Order's 1 % rollbacks; retried: attempts retried)");
        for (int t = 0; t < TX_NTYPES; t++) {
            const struct tx_stats *s = &cum->tx[t];
            const uint64_t n[5] = { s->committed, s->rolled_back,
                                    s->err_retry + s->err_conn + s->err_other, s->unknown,
                                    s->retries };
            for (int o = 0; o < 5; o++)
                sb_printf(b, "tpccbench_transactions_total{type=\"%s\",outcome=\"%s\"} %llu\n",
                          tx_name((enum tx_type)t), outcomes[o], (unsigned long long)n[o]);
        }
        family(b, om, "tpccbench_response_seconds", "histogram",
               "response time from the intended start to completion");
        for (int t = 0; t < TX_NTYPES; t++)
            histogram(b, m, "tpccbench_response_seconds", t, &cum->tx[t].lat);
        family(b, om, "tpccbench_service_seconds", "histogram",
               "service time from the first request sent to completion");
        for (int t = 0; t < TX_NTYPES; t++)
            histogram(b, m, "tpccbench_service_seconds", t, &cum->tx[t].svc);
    }
    if (row) {
        double tps = 0;
        for (int t = 0; t < TX_NTYPES; t++)
            tps += row->tps[t];
        family(b, om, "tpccbench_notpm", "gauge",
               "New-Orders committed per minute in the last second (TPC-C derived, not audited)");
        sb_printf(b, "tpccbench_notpm %.3f\n", row->tps[TX_NEW_ORDER] * 60);
        family(b, om, "tpccbench_tps", "gauge", "transactions committed in the last second");
        sb_printf(b, "tpccbench_tps %.3f\n", tps);
        family(b, om, "tpccbench_measuring", "gauge", "1 inside the measured window, else 0");
        sb_printf(b, "tpccbench_measuring %d\n", row->phase == 'm');
        family(b, om, "tpccbench_run_second", "gauge", "seconds since the ramp-up started");
        sb_printf(b, "tpccbench_run_second %d\n", row->second);
    }
    family(b, om, "tpccbench_terminals_in_transaction", "gauge",
           "connections inside a transaction at the sample");
    sb_printf(b, "tpccbench_terminals_in_transaction %d\n", in_tx);
    family(b, om, "tpccbench_connections_down", "gauge",
           "virtual users and delivery workers without a connection");
    sb_printf(b, "tpccbench_connections_down %d\n", down);
    render_figures(b, m, om);
}

/* The OS and database figures of the latest row, one family at a time
 * (first appearance order), then the end of the text. */
static void render_figures(struct sbuf *b, const struct metrics *m, int om)
{
    const double *v = m->nrow ? &m->vals[(size_t)(m->nrow - 1) * (size_t)m->ncol] : NULL;

    for (int i = 0; v && i < m->ncol; i++) {
        int first = 1, any = 0;
        for (int j = 0; j < i && first; j++)
            if (strcmp(m->cols[j].prom, m->cols[i].prom) == 0)
                first = 0;
        if (!first)
            continue;
        for (int j = i; j < m->ncol; j++)
            if (strcmp(m->cols[j].prom, m->cols[i].prom) == 0 && !isnan(v[j]))
                any = 1;
        if (!any)
            continue; /* unavailable: no sample, never a zero */
        family(b, om, m->cols[i].prom, "gauge", m->cols[i].help);
        for (int j = i; j < m->ncol; j++) {
            const struct mcol *c = &m->cols[j];
            if (strcmp(c->prom, m->cols[i].prom) != 0 || isnan(v[j]))
                continue;
            if (c->labels[0])
                sb_printf(b, "%s{%s} %.6g\n", c->prom, c->labels, v[j] * c->prom_scale);
            else
                sb_printf(b, "%s %.6g\n", c->prom, v[j] * c->prom_scale);
        }
    }
    if (om)
        sb_printf(b, "# EOF\n");
}

/* Hand both texts to the endpoint (it takes them), or drop them. */
static void publish(struct metrics *m, struct sbuf *om, struct sbuf *pt)
{
    if (!om->oom && !pt->oom) {
        mserve_publish(m->serve, om->p, om->n, pt->p, pt->n);
    } else {
        free(om->p);
        free(pt->p);
    }
}

void metrics_tick(struct metrics *m, const struct series_row *row, const struct vu_stats *cum,
                  int in_tx, int down)
{
    if (!m)
        return;
    add_row(m, row ? row->second : m->nrow + 1, row ? row->phase : 'r', DB_WAIT_US);
    if (m->serve) {
        struct sbuf om = { 0 }, pt = { 0 };
        render(&om, m, row, cum, in_tx, down, 1);
        render(&pt, m, row, cum, in_tx, down, 0);
        publish(m, &om, &pt);
    }
}

void metrics_serve_series(struct metrics *m, const struct metrics_series *s, int n)
{
    if (!m)
        return;
    m->series = s;
    m->nseries = n;
}

/* The registered families (metrics_serve_series), then the OS and DB figures. */
static void render_series(struct sbuf *b, const struct metrics *m, int om)
{
    for (int i = 0; i < m->nseries; i++) {
        const struct metrics_series *s = &m->series[i];
        family(b, om, s->family, s->counter ? "counter" : "gauge", s->help);
        if (s->v_int)
            sb_printf(b, "%s %d\n", s->family, __atomic_load_n(s->v_int, __ATOMIC_RELAXED));
        else if (s->v_real)
            sb_printf(b, "%s %.3f\n", s->family, *s->v_real);
        else if (s->state) {
            int cur = __atomic_load_n(s->state, __ATOMIC_RELAXED);
            for (int k = 0; k < s->n; k++)
                sb_printf(b, "%s{%s=\"%s\"} %d\n", s->family, s->label, s->label_values[k],
                          k == cur);
        } else if (s->n > 1) {
            for (int k = 0; k < s->n; k++)
                sb_printf(b, "%s{%s=\"%s\"} %lld\n", s->family, s->label, s->label_values[k],
                          (long long)__atomic_load_n(&s->v[k], __ATOMIC_RELAXED));
        } else {
            sb_printf(b, "%s %lld\n", s->family,
                      (long long)__atomic_load_n(s->v, __ATOMIC_RELAXED));
        }
    }
    render_figures(b, m, om);
}

void metrics_serve_tick(struct metrics *m, double elapsed_s)
{
    if (!m)
        return;
    /* Only the latest row is served: no history (no metrics.csv). */
    m->nrow = 0;
    add_row(m, (int)elapsed_s, 'l', DB_WAIT_US);
    if (m->serve) {
        struct sbuf om = { 0 }, pt = { 0 };
        render_series(&om, m, 1);
        render_series(&pt, m, 0);
        publish(m, &om, &pt);
    }
}

void metrics_finish(struct metrics *m)
{
    if (!m || !m->started)
        return;
    add_row(m, m->nrow ? m->rows[m->nrow - 1].second + 1 : 1, 's', DB_WAIT_FIRST_US);
}

/* ------------------------------------------------------------------ */
/* Outputs                                                             */
/* ------------------------------------------------------------------ */

char *metrics_csv(const struct metrics *m, size_t *len)
{
    struct sbuf b = { 0 };

    if (!m || !m->nrow)
        return NULL;
    sb_printf(&b, "second,phase,interval_s");
    for (int i = 0; i < m->ncol; i++)
        sb_printf(&b, ",%s", m->cols[i].name);
    sb_printf(&b, "\n");
    for (int r = 0; r < m->nrow; r++) {
        const double *v = &m->vals[(size_t)r * (size_t)m->ncol];
        sb_printf(&b, "%d,%c,%.6f", m->rows[r].second, m->rows[r].phase, m->rows[r].interval_s);
        for (int i = 0; i < m->ncol; i++) {
            if (isnan(v[i]))
                sb_printf(&b, ",");
            else
                sb_printf(&b, ",%.10g", v[i]);
        }
        sb_printf(&b, "\n");
    }
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    *len = b.n;
    return b.p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Whether row r is summarised: the measured rows, or every row when there
 * are none (a run stopped before its window). */
static int summarised(const struct metrics *m, int r)
{
    static const char measured = 'm';

    for (int i = 0; i < m->nrow; i++)
        if (m->rows[i].phase == measured)
            return m->rows[r].phase == measured;
    return 1;
}

/* Mean, p95 (nearest rank), max and count of column i over the summarised rows. */
static int col_stats(const struct metrics *m, int i, double *mean, double *p95, double *max)
{
    double *x = malloc((size_t)(m->nrow ? m->nrow : 1) * sizeof(*x)), sum = 0;
    int n = 0;

    *mean = *p95 = *max = NAN;
    if (!x)
        return 0;
    for (int r = 0; r < m->nrow; r++) {
        double v = m->vals[(size_t)r * (size_t)m->ncol + (size_t)i];
        if (summarised(m, r) && !isnan(v)) {
            x[n++] = v;
            sum += v;
        }
    }
    if (n) {
        qsort(x, (size_t)n, sizeof(*x), cmp_double);
        *mean = sum / n;
        *p95 = x[(int)ceil(0.95 * n) - 1];
        *max = x[n - 1];
    }
    free(x);
    return n;
}

double metrics_mean(const struct metrics *m, const char *name)
{
    double mean, p95, max;
    int i = m ? col_find(m, name) : -1;

    if (i < 0)
        return NAN;
    col_stats(m, i, &mean, &p95, &max);
    return mean;
}

/* Whose figures column c is. */
static const char *col_host(const struct metrics *m, const struct mcol *c)
{
    switch (c->src) {
    case SRC_DBH:
    case SRC_DB_RATE:
    case SRC_DB_GAUGE:
    case SRC_DB_HIT:
        return "db";
    case SRC_SELF_CPU:
    case SRC_SELF_RSS:
    case SRC_SAMPLE_CPU:
        return "driver";
    default:
        return m->dbh.local == 1 ? "driver+db" : "driver";
    }
}

const char *metrics_col_host(const struct metrics *m, const char *name)
{
    int i = m ? col_find(m, name) : -1;

    return i < 0 ? NULL : col_host(m, &m->cols[i]);
}

/* run.json's metrics.db_host: measured (from where), one host with the driver, or why not. */
static json_t *dbh_json(const struct metrics *m)
{
    const struct mdbh *h = &m->dbh;
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

static json_t *num_or_null(double x)
{
    return isnan(x) ? json_null() : json_real(x);
}

json_t *metrics_json(const struct metrics *m)
{
    json_t *o = json_object(), *cols = json_object(), *devs = json_object(), *nets = json_array();
    double sample_ms = 0;
    int n_measured = 0;

    for (int i = 0; i < m->ncol; i++) {
        const struct mcol *c = &m->cols[i];
        double mean, p95, max;
        int n = col_stats(m, i, &mean, &p95, &max);
        json_t *j = json_pack("{s:s, s:o, s:o, s:o, s:i, s:I}", "unit", c->unit, "mean",
                              num_or_null(mean), "p95", num_or_null(p95), "max", num_or_null(max),
                              "n", n, "unavailable_rows", (json_int_t)c->n_missing);
        json_object_set_new(j, "available", json_boolean(n > 0));
        json_object_set_new(j, "host", json_string(col_host(m, c)));
        if (c->note[0])
            json_object_set_new(j, "note", json_string(c->note));
        json_object_set_new(cols, c->name, j);
    }
    for (int d = 0; d < m->ndev; d++) {
        const struct mdev *dv = &m->dev[d];
        const char *key = strcmp(dv->role, "data") == 0 ? "data" : dv->name;
        json_object_set_new(devs, key, dv->name[0] ? json_string(dv->name) : json_null());
        if (!dv->name[0] && dv->note[0])
            json_object_set_new(devs, "data_note", json_string(dv->note));
    }
    for (int n = 0; n < m->nnet; n++)
        json_array_append_new(nets, json_string(m->net[n].name));
    for (int r = 0; r < m->nrow; r++) {
        int sc = col_find(m, "metrics_cpu_ms");
        if (summarised(m, r) && sc >= 0) {
            double v = m->vals[(size_t)r * (size_t)m->ncol + (size_t)sc];
            if (!isnan(v)) {
                sample_ms += v;
                n_measured++;
            }
        }
    }
    json_object_set_new(o, "rows", json_integer(m->nrow));
    json_object_set_new(o, "summarised",
                        json_string("rows of the measured window ('m'), or "
                                    "every row when it never opened"));
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "interfaces", nets);
    json_object_set_new(o, "sampling_cpu_pct_of_core",
                        n_measured ? json_real(sample_ms / n_measured / 10.0) : json_null());
    json_object_set_new(o, "columns", cols);
    json_object_set_new(o, "db_host", dbh_json(m));
    json_object_set_new(o, "os_columns_host",
                        json_string(m->dbh.local == 1 ? "driver+db (one host)" : "driver"));
    return o;
}

/* The database host's lines of the summary: its figures, or why there are none. */
static void dbh_print(FILE *out, const struct metrics *m)
{
    const struct mdbh *h = &m->dbh;
    double user = metrics_mean(m, "db_host_cpu_user_pct");

    if (!h->url[0] || !h->scr) {
        if (h->note[0])
            fprintf(out, "  db host: not measured: %s\n", h->note);
        return;
    }
    if (isnan(user)) {
        fprintf(out, "  db host (%s): unavailable (%s)\n", h->url,
                m->cols[col_find(m, "db_host_cpu_user_pct")].note);
        return;
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
                m->cols[col_find(m, "db_host_disk_data_write_mb_per_s")].note);
}

void metrics_print(FILE *out, const struct metrics *m)
{
    double user = metrics_mean(m, "cpu_user_pct"), sys = metrics_mean(m, "cpu_system_pct");
    double io = metrics_mean(m, "cpu_iowait_pct"), steal = metrics_mean(m, "cpu_steal_pct");
    double rd = metrics_mean(m, "disk_data_read_mb_per_s");
    double wr = metrics_mean(m, "disk_data_write_mb_per_s");
    double aw = metrics_mean(m, "disk_data_await_ms"), ut = metrics_mean(m, "disk_data_util_pct");
    double wal = metrics_mean(m, "db_wal_bytes_per_s");
    double ck = 0, sample_ms = metrics_mean(m, "metrics_cpu_ms");
    int ci = col_find(m, "db_checkpoints_per_s"), ck_n = 0, n_unavail = 0;

    for (int r = 0; r < m->nrow && ci >= 0; r++) {
        double v = m->vals[(size_t)r * (size_t)m->ncol + (size_t)ci];
        if (summarised(m, r) && !isnan(v)) {
            ck += v * m->rows[r].interval_s;
            ck_n++;
        }
    }
    fprintf(out,
            "  metrics (means, %s): CPU user %.1f%%  system %.1f%%  iowait %.1f%%  steal "
            "%.1f%%;  sampling %.2f%% of a core\n",
            m->dbh.local == 1 ? "driver and db host: one host" : "driver host", user, sys, io,
            steal, sample_ms / 10.0);
    dbh_print(out, m);
    if (m->dev[0].name[0] && !isnan(rd))
        fprintf(out,
                "  data disk %s: read %.2f MB/s  write %.2f MB/s  await %.2f ms  util %.0f%%\n",
                m->dev[0].name, rd, wr, aw, ut);
    else
        fprintf(out, "  data disk: unavailable (%s)\n",
                m->dev[0].note[0] ? m->dev[0].note
                                  : m->cols[col_find(m, "disk_data_write_mb_per_s")].note);
    if (!isnan(wal))
        fprintf(out, "  WAL %.2f MB/s", wal / 1e6);
    else
        fprintf(out, "  WAL unavailable (%s)", m->cols[col_find(m, "db_wal_bytes_per_s")].note);
    if (ck_n)
        fprintf(out, "  checkpoints %.0f\n", ck);
    else
        fprintf(out, "  checkpoints unavailable (%s)\n",
                m->cols[col_find(m, "db_checkpoints_per_s")].note);
    /* Columns never available: say so once each, with why (the db host's
     * only when it was scraped at all: else its line said why). */
    for (int i = 0; i < m->ncol; i++) {
        double mean, p95, max;
        if (!m->cols[i].n_missing || col_stats(m, i, &mean, &p95, &max) > 0 ||
            (m->cols[i].src == SRC_DBH && !m->dbh.n_ok))
            continue;
        if (n_unavail++ < 8)
            fprintf(out, "  unavailable: %s (%s)\n", m->cols[i].name, m->cols[i].note);
    }
    if (n_unavail > 8)
        fprintf(out, "  ... and %d more unavailable columns (run.json's metrics.columns)\n",
                n_unavail - 8);
}
