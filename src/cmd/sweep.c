/*
 * sweep.c - `tpccbench sweep`: the stretched-cluster study on one machine.
 *
 * Loads once, then for each RTT (and VU count) starts the delay proxy in
 * front of the database, runs the same workload through it as a normal run
 * record, and prints the study's table: throughput relative to co-located,
 * VUs inside a transaction, time inside a transaction, time to connect.
 * The sweep's own summary goes to RESULTS/<time>-sweep/ as JSON and CSV.
 */
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/load.h"
#include "core/secret.h"
#include "core/signals.h"
#include "results/record.h"
#include "results/runrec.h"
#include "tools/proxy.h"

#define SWEEP_MAX 32

static const struct cmd_opt sweep_opts[] = {
    { "rtt", 0, 1, NULL, "round trips to add: 0,0.3ms,0.6ms,6.5ms (0 = direct, co-located)" },
    { "vus", 0, 1, NULL, "VU counts to run at each RTT: 4,8,16 (default: run.virtual_users)" },
    { "duration", 'd', 1, "run.duration", "measured time per point (default 60s)" },
    { "warmup", 0, 1, "run.warmup", "warm-up per point (default 5s)" },
    { "mode", 0, 1, "run.mode", "client | pipeline | procedure (default: procedure)" },
    { "no-load", 0, 0, NULL, "use the data already loaded" },
    { NULL, 0, 0, NULL, NULL },
};

struct point {
    char rtt_text[32];  /* as given: "0.3ms" */
    int64_t rtt_us;     /* added round trip */
    int vus;
    int ok;             /* the run record is complete */
    char dir[4096];     /* its folder */
    double notpm, tps, no_p90_ms, rtt_seen_ms, vus_in_tx, in_tx_ms, connect_s;
};

/*
 * Split the list value of option name ("0,0.3ms,6.5ms") into at most max
 * items of under 32 bytes; *n gets how many.  E_USAGE, naming the option,
 * for an empty list or item (",," or a trailing comma), too many items or
 * one too long.
 */
static int split_list(const char *name, const char *s, char out[][32], int max, int *n,
                      struct err *e)
{
    const char *list = s;

    *n = 0;
    if (!*s)
        return err_set(e, E_USAGE, "--%s: the list is empty (example: %s)", name,
                       strcmp(name, "rtt") ? "4,8,16" : "0,0.3ms,6.5ms");
    for (;;) {
        size_t k = strcspn(s, ",");
        if (k == 0)
            return err_set(e, E_USAGE,
                           "--%s: an empty item in \"%s\": separate the items by single commas",
                           name, list);
        if (*n == max)
            return err_set(e, E_USAGE, "--%s: give at most %d items (got more in \"%.64s\")", name,
                           max, list);
        if (k >= 32)
            return err_set(e, E_USAGE, "--%s: '%.32s...' is too long for an item", name, s);
        memcpy(out[*n], s, k);
        out[(*n)++][k] = '\0';
        s += k;
        if (!*s)
            return 0;
        s++; /* the comma */
    }
}

/* An added round-trip time from 0 to 2 s; a bare number other than 0 needs a unit. */
static int parse_rtt(const char *text, int64_t *us, struct err *e)
{
    size_t n = strlen(text);

    if (strcmp(text, "0") != 0 && n > 0 && text[n - 1] >= '0' && text[n - 1] <= '9')
        return err_set(e, E_USAGE,
                       "--rtt: '%s' needs a unit: 0.3ms, 250us or 1s (seconds or milliseconds?)",
                       text);
    if (parse_duration_us(text, us) < 0 || *us > 2000000)
        return err_set(e, E_USAGE,
                       "--rtt: '%s' is not a round-trip time from 0 to 2s (examples: 0, 0.3ms, "
                       "6.5ms)",
                       text);
    return 0;
}

/* A free TCP port on 127.0.0.1 for the managed server. */
static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* The number at a dotted path ("transactions.new_order.p90_ms"), or 0. */
static double jnum(json_t *o, const char *path)
{
    char key[64];

    while (o && *path) {
        size_t k = strcspn(path, ".");
        snprintf(key, sizeof(key), "%.*s", (int)k, path);
        o = json_object_get(o, key);
        path += k + (path[k] == '.');
    }
    return o && json_is_number(o) ? json_number_value(o) : 0.0;
}

static void read_point(struct point *p)
{
    char path[4200];
    json_t *doc, *run, *tx;
    const char *k;
    json_t *v;
    double n = 0, t = 0;

    snprintf(path, sizeof(path), "%s/run.json", p->dir);
    if (!(doc = json_load_file(path, 0, NULL)))
        return;
    run = json_object_get(doc, "run");
    p->ok = run && json_is_string(json_object_get(doc, "status")) &&
            strcmp(json_string_value(json_object_get(doc, "status")), "complete") == 0;
    p->notpm = jnum(run, "notpm");
    p->tps = jnum(run, "tps");
    p->no_p90_ms = jnum(run, "transactions.new_order.p90_ms");
    p->rtt_seen_ms = jnum(run, "rtt_median_ms");
    p->vus_in_tx = jnum(run, "vus_in_transaction_mean");
    p->connect_s = jnum(run, "connect.total_s");
    tx = json_object_get(run, "transactions");
    json_object_foreach(tx, k, v)
    {
        double c = jnum(v, "count") + jnum(v, "rolled_back");
        n += c;
        t += c * jnum(v, "mean_in_tx_ms");
    }
    p->in_tx_ms = n > 0 ? t / n : 0;
    json_decref(doc);
}

/* NOTPM of the co-located point (RTT 0) with the same VUs, or 0. */
static double colocated(const struct point *pts, int n, int vus)
{
    for (int i = 0; i < n; i++)
        if (pts[i].rtt_us == 0 && pts[i].vus == vus && pts[i].ok)
            return pts[i].notpm;
    return 0;
}

static int write_summary(const struct config *cfg, const struct point *pts, int n, char *dir,
                         size_t dlen, struct err *e)
{
    json_t *arr = json_array(), *doc;
    char csv[16384];
    size_t off = 0;
    int rc;

    if ((rc = runrec_make_dir(cfg->results.dir, "sweep", dir, dlen, e)) < 0)
        return rc;
    off += (size_t)snprintf(csv, sizeof(csv),
                            "rtt,rtt_added_ms,rtt_seen_ms,vus,notpm,pct_of_colocated,tps,"
                            "new_order_p90_ms,vus_in_transaction,time_in_transaction_ms,"
                            "connect_all_s,record\n");
    for (int i = 0; i < n; i++) {
        const struct point *p = &pts[i];
        double base = colocated(pts, n, p->vus);
        double pct = base > 0 ? 100.0 * p->notpm / base : 0;
        json_array_append_new(
            arr, json_pack("{s:s, s:f, s:f, s:i, s:b, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s}", "rtt",
                           p->rtt_text, "rtt_added_ms", (double)p->rtt_us / 1000.0,
                           "rtt_seen_ms", p->rtt_seen_ms, "vus", p->vus, "complete", p->ok,
                           "notpm", p->notpm, "pct_of_colocated", pct, "tps", p->tps,
                           "new_order_p90_ms", p->no_p90_ms, "vus_in_transaction", p->vus_in_tx,
                           "time_in_transaction_ms", p->in_tx_ms, "connect_all_s", p->connect_s,
                           "record", p->dir));
        off += (size_t)snprintf(csv + off, sizeof(csv) - off,
                                "%s,%.3f,%.3f,%d,%.0f,%.1f,%.1f,%.2f,%.2f,%.3f,%.3f,%s\n",
                                p->rtt_text, (double)p->rtt_us / 1000.0, p->rtt_seen_ms, p->vus,
                                p->notpm, pct, p->tps, p->no_p90_ms, p->vus_in_tx, p->in_tx_ms,
                                p->connect_s, p->dir);
        if (off >= sizeof(csv))
            break;
    }
    doc = json_pack("{s:o, s:s, s:o}", "tool", record_tool(), "kind", "sweep", "points", arr);
    rc = record_write_json(dir, "sweep.json", doc, e);
    json_decref(doc);
    if (rc == 0)
        rc = record_write_file(dir, "sweep.csv", csv, strlen(csv), e);
    return rc;
}

static void print_table(const struct point *pts, int n)
{
    printf("\nsweep (NOTPM: TPC-C derived, not audited)\n");
    printf("  %8s %8s %4s %9s %7s %8s %8s %8s %9s %9s\n", "RTT", "seen ms", "VUs", "NOTPM",
           "% co-loc", "TPS", "NO p90", "VUs in tx", "ms in tx", "connect s");
    for (int i = 0; i < n; i++) {
        const struct point *p = &pts[i];
        double base = colocated(pts, n, p->vus);
        printf("  %8s %8.3f %4d %9.0f %7.1f%% %8.1f %8.2f %8.2f %9.3f %9.3f%s\n", p->rtt_text,
               p->rtt_seen_ms, p->vus, p->notpm, base > 0 ? 100.0 * p->notpm / base : 0.0,
               p->tps, p->no_p90_ms, p->vus_in_tx, p->in_tx_ms, p->connect_s,
               p->ok ? "" : "  (run failed)");
    }
}

/* The sweep while it runs: what its phases share. */
struct sweep {
    struct config cfg;
    struct cmd_args a;
    struct session s;
    struct point pts[SWEEP_MAX * 4]; /* every (RTT, VUs) point, in order */
    int np;
    char base[600];   /* the connection string each point adds its host and port to */
    char target[300]; /* the server's host:port, where the proxy forwards */
    int tport;        /* the server's port: a point without added RTT connects there */
};

/* --help. */
static void sweep_usage(void)
{
    cmd_usage(stdout, "sweep", "[-c FILE] --rtt 0,0.3ms,0.6ms,6.5ms [--vus 4,8,16]",
              "Load once, then run the same workload with the database at each added\n"
              "round-trip time (the delay proxy, half each way) and VU count: each point\n"
              "is a normal run record.  Prints NOTPM as % of the co-located (RTT 0) figure,\n"
              "VUs inside a transaction, time inside a transaction and time to connect all\n"
              "VUs; writes RESULTS/<time>-sweep/sweep.json and sweep.csv.  Needs the\n"
              "postgres driver and a TCP server (a managed server gets a port).",
              sweep_opts);
}

/* The points: each RTT of rtts with each VU count of vlist. */
static int make_points(struct sweep *w, char rtts[][32], int nr, char vlist[][32], int nv,
                       struct err *e)
{
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nv; j++) {
            struct point *p = &w->pts[w->np++];
            int64_t v;
            int rc;
            memset(p, 0, sizeof(*p));
            snprintf(p->rtt_text, sizeof(p->rtt_text), "%.31s", rtts[i]);
            if ((rc = parse_rtt(rtts[i], &p->rtt_us, e)) < 0)
                return rc;
            if (parse_int64(vlist[j], 1, 10000, &v) < 0)
                return err_set(e, E_USAGE, "--vus: '%s' is not a VU count from 1 to 10000",
                               vlist[j]);
            p->vus = (int)v;
        }
    return 0;
}

/* The command line: -1 to go on, else the exit code (usage printed, or the error). */
static int parse_sweep(struct sweep *w, int argc, char **argv, struct err *e)
{
    char rtts[SWEEP_MAX][32], vlist[SWEEP_MAX][32];
    const char *rl, *vl;
    int nr, nv;

    if (cmd_parse("sweep", argc - 1, argv + 1, sweep_opts, &w->cfg, &w->a, e) < 0)
        return cmd_fail("sweep", e);
    if (w->a.help) {
        sweep_usage();
        return 0;
    }
    /* Not served here: refused rather than ignored. */
    if (w->cfg.run.metrics_listen[0]) {
        err_set(e, E_USAGE,
                "'run.metrics_listen': sweep does not serve the live endpoint (run, bench and "
                "load do): remove it from the config, or watch one point with 'tpccbench run "
                "--metrics-listen'");
        return cmd_fail("sweep", e);
    }
    if (!(rl = cmd_extra(&w->a, "rtt"))) {
        err_set(e, E_USAGE, "--rtt: give a list of round-trip times such as 0,0.3ms,6.5ms");
        return cmd_fail("sweep", e);
    }
    if (split_list("rtt", rl, rtts, SWEEP_MAX, &nr, e) < 0)
        return cmd_fail("sweep", e);
    vl = cmd_extra(&w->a, "vus");
    if (vl && split_list("vus", vl, vlist, 4, &nv, e) < 0)
        return cmd_fail("sweep", e);
    if (!vl) {
        snprintf(vlist[0], sizeof(vlist[0]), "%d", w->cfg.run.virtual_users);
        nv = 1;
    }
    if (strcmp(w->cfg.database.driver, "postgres") != 0) {
        err_set(e, E_USAGE,
                "sweep needs driver postgres (the proxy stands in front of its TCP port)");
        return cmd_fail("sweep", e);
    }
    if (make_points(w, rtts, nr, vlist, nv, e) < 0)
        return cmd_fail("sweep", e);
    return -1;
}

/* An existing server's host and port, from its conninfo (TCP only): the proxy's target. */
static int conninfo_target(struct sweep *w, struct err *e)
{
    char *msg = NULL;
    PQconninfoOption *opts = PQconninfoParse(w->cfg.database.conninfo, &msg);
    const char *host = "", *port = "5432";

    if (!opts) {
        /* libpq quotes the piece it could not parse, which may be all of it. */
        err_set(e, E_USAGE, "database.conninfo: %s", msg ? msg : "cannot parse it");
        secret_clean(e->msg, sizeof(e->msg), w->s.password);
        PQfreemem(msg);
        return E_USAGE;
    }
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (strcmp(o->keyword, "host") == 0 && o->val)
            host = o->val;
        if (strcmp(o->keyword, "port") == 0 && o->val && *o->val)
            port = o->val;
    }
    if (!*host || host[0] == '/' || strchr(host, ',')) {
        PQconninfoFree(opts);
        return err_set(e, E_USAGE,
                       "sweep needs a TCP server: set host=ADDRESS in database.conninfo "
                       "(a Unix socket cannot go through the proxy)");
    }
    snprintf(w->target, sizeof(w->target), "%s:%s", host, port);
    w->tport = (int)strtol(port, NULL, 10);
    PQconninfoFree(opts);
    snprintf(w->base, sizeof(w->base), "%s", w->cfg.database.conninfo);
    return 0;
}

/* Where the points connect: the private server's TCP port, or the existing server's. */
static int find_target(struct sweep *w, struct err *e)
{
    if (!w->cfg.database.managed)
        return conninfo_target(w, e);
    w->tport = w->cfg.database.port;
    snprintf(w->target, sizeof(w->target), "127.0.0.1:%d", w->tport);
    /* Over TCP the private server asks for its password: libpq reads it from its file. */
    if (managed_conninfo_tcp(&w->s.mpg, w->base, sizeof(w->base)) < 0)
        return err_set(e, E_USAGE, "the private PostgreSQL's datadir path is too long");
    return 0;
}

/* The one load of the sweep, into a record of its own (RESULTS/<time>-sweep-load). */
static int sweep_load(struct sweep *w, struct err *e)
{
    struct runrec rec;
    char ldir[4096];
    int rc;

    w->cfg.load.drop = 1;
    if ((rc = runrec_make_dir(w->cfg.results.dir, "sweep-load", ldir, sizeof(ldir), e)) == 0) {
        runrec_begin(&rec, &w->cfg, "load", ldir);
        rc = load_with_session(&w->s, &rec, 0, NULL, e);
        if (rc == 0)
            runrec_status(&rec, "complete");
        runrec_save(&rec, e);
        runrec_release(&rec);
    }
    return rc;
}

/* Point i: the proxy for its RTT (none for 0), one run record through it, its figures. */
static int run_point(struct sweep *w, int i, struct err *e)
{
    struct point *p = &w->pts[i];
    struct config pc = w->cfg;
    struct proxy *px = NULL;
    int port = w->tport, rc;

    if (p->rtt_us > 0) {
        struct proxy_opts po = { .listen = "127.0.0.1:0",
                                 .to = w->target,
                                 .delay_us = p->rtt_us / 2 };
        if ((rc = proxy_start(&po, &px, e)) < 0)
            return rc;
        port = proxy_port(px);
    }
    pc.database.managed = 0;
    pc.database.managed_set = 1;
    if (snprintf(pc.database.conninfo, sizeof(pc.database.conninfo), "%s host=127.0.0.1 port=%d",
                 w->base, port) >= (int)sizeof(pc.database.conninfo)) {
        rc = err_set(e, E_USAGE,
                     "the connection string of a sweep point is longer than %zu bytes: "
                     "choose a shorter --datadir or conninfo",
                     sizeof(pc.database.conninfo) - 1);
        proxy_stop(px);
        return rc;
    }
    pc.run.virtual_users = p->vus;
    snprintf(pc.results.label, sizeof(pc.results.label), "sweep-rtt%.31s-vus%d", p->rtt_text,
             p->vus);
    fprintf(stderr, "\n== sweep point %d of %d: RTT +%s, %d VUs ==\n", i + 1, w->np, p->rtt_text,
            p->vus);
    one_record("run", 0, &pc, &w->a, 0, 1, p->dir, sizeof(p->dir));
    proxy_stop(px);
    read_point(p);
    return 0;
}

/* The phases: parse, the server and its address, the load, every point, the table. */
static int sweep_main(struct sweep *w, int argc, char **argv)
{
    struct err e;
    char dir[4096];
    int rc;

    err_clear(&e);
    if ((rc = parse_sweep(w, argc, argv, &e)) >= 0)
        return rc;
    sig_install();
    /* The proxy needs TCP: give a managed server a port. */
    if (w->cfg.database.managed && w->cfg.database.port == 0 &&
        (w->cfg.database.port = free_port()) < 0) {
        err_set(&e, E_FAIL, "no free TCP port for the private PostgreSQL");
        return cmd_fail("sweep", &e);
    }
    if (session_open(&w->s, &w->cfg, &e) < 0 || find_target(w, &e) < 0 ||
        (!cmd_extra(&w->a, "no-load") && sweep_load(w, &e) < 0)) {
        session_close(&w->s);
        return cmd_fail("sweep", &e);
    }
    rc = 0;
    for (int i = 0; i < w->np && !sig_stop_requested() && rc == 0; i++)
        rc = run_point(w, i, &e);
    session_close(&w->s);
    print_table(w->pts, w->np);
    if (write_summary(&w->cfg, w->pts, w->np, dir, sizeof(dir), &e) < 0)
        return cmd_fail("sweep", &e);
    printf("summary: %s/sweep.json, %s/sweep.csv\n", dir, dir);
    if (rc < 0)
        return cmd_fail("sweep", &e);
    return sig_stop_requested() ? sig_exit_code() : 0;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep *w = calloc(1, sizeof(*w));
    int rc;

    if (!w) {
        fprintf(stderr, "tpccbench sweep: out of memory\n");
        return 1;
    }
    rc = sweep_main(w, argc, argv);
    free(w);
    return rc;
}
