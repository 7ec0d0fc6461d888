/*
 * proxy.c - `tpccbench proxy --listen HOST:PORT --to HOST:PORT --delay D`:
 * run the delaying TCP proxy (src/tools/proxy.c) until Ctrl-C, then print
 * what went through it.
 */
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cmd/cmd.h"
#include "core/config.h"
#include "core/opt.h"
#include "core/signals.h"
#include "tools/netbench.h"
#include "tools/proxy.h"

#define PX_CMD "proxy"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tpccbench proxy --listen HOST:PORT --to HOST:PORT --delay D [options]\n"
            "\n"
            "A TCP proxy that holds every chunk of data in each direction for the one-way\n"
            "delay D before passing it on, so the round trip through it grows by 2 x D: a\n"
            "database \"D away\".  Byte order is kept; a half-close (FIN) is passed on after\n"
            "the data before it; a reset on one side resets the other.  Runs until Ctrl-C,\n"
            "then prints what went through.  Example: 3.25 ms each way to a local PostgreSQL:\n"
            "  tpccbench proxy --listen 127.0.0.1:6432 --to 127.0.0.1:5432 --delay 3.25ms\n"
            "\n"
            "options:\n"
            "  --listen HOST:PORT   where clients connect ([::1]:PORT for IPv6, :PORT for all\n"
            "                       addresses; port 0 picks a free one, printed)\n"
            "  --to HOST:PORT       the server\n"
            "  --delay D            one-way delay, with a unit: 0.15ms, 250us, 3.25ms, 1s (default 0)\n"
            "  --jitter J           plus a uniform -J..+J per chunk, never reordering bytes\n"
            "  --max-queue SIZE     bytes held per direction before reading stops\n"
            "                       (default 4M; K and M suffixes)\n"
            "  --seed N             seed of the jitter (default: from the clock)\n"
            "  --json               start and stop lines as JSON\n"
            "  -h, --help           this text\n"
            "\n"
            "The TCP handshake is not delayed (the kernel completes it); all data and FINs are.\n"
            "Exit: 0 stopped by Ctrl-C/SIGTERM; 1 the proxy failed; 2 bad arguments.\n");
}

/* Durations print as "3.25ms", "150us", "0". */
static void fmt_delay(int64_t us, char *buf, size_t size)
{
    if (us == 0)
        snprintf(buf, size, "0");
    else if (us % 1000 == 0)
        snprintf(buf, size, "%lldms", (long long)(us / 1000));
    else if (us < 1000)
        snprintf(buf, size, "%lldus", (long long)us);
    else {
        char *p;
        snprintf(buf, size, "%.3f", (double)us / 1000.0);
        p = buf + strlen(buf) - 1;
        while (*p == '0')
            *p-- = '\0';
        snprintf(p + 1, size - (size_t)(p + 1 - buf), "ms");
    }
}

static void log_line(void *arg, const char *msg)
{
    (void)arg;
    fprintf(stderr, "tpccbench proxy: %s\n", msg);
}

static int parse_delay(const char *name, const char *val, int64_t *out, struct err *e)
{
    size_t n = strlen(val);

    /* A bare number would be seconds (parse_duration_us): "--delay 3" is far
     * more likely a slip for 3ms than a wish for 3 s, so a unit is required. */
    if (strcmp(val, "0") != 0 && n > 0 && val[n - 1] >= '0' && val[n - 1] <= '9')
        return err_set(e, E_USAGE,
                       "'--%s' needs a unit: 3ms, 250us or 1s (got \"%s\": seconds or "
                       "milliseconds?)",
                       name, val);
    if (parse_duration_us(val, out) != 0 || *out > PROXY_MAX_DELAY_US)
        return err_set(e, E_USAGE,
                       "'--%s' must be a duration from 0 to 60s with a unit, like 0.15ms, 250us "
                       "or 3.25ms (got \"%s\")",
                       name, val);
    return 0;
}

enum {
    PX_O_LISTEN,
    PX_O_TO,
    PX_O_DELAY,
    PX_O_JITTER,
    PX_O_MAX_QUEUE,
    PX_O_SEED,
    PX_O_JSON,
    PX_O_HELP
};
static const struct opt_spec px_opt_table[] = {
    [PX_O_LISTEN] = { "listen", 0, 1, NULL },       /* HOST:PORT clients connect to */
    [PX_O_TO] = { "to", 0, 1, NULL },               /* HOST:PORT of the server */
    [PX_O_DELAY] = { "delay", 0, 1, NULL },         /* one-way delay */
    [PX_O_JITTER] = { "jitter", 0, 1, NULL },       /* +-J per chunk */
    [PX_O_MAX_QUEUE] = { "max-queue", 0, 1, NULL }, /* bytes held per direction */
    [PX_O_SEED] = { "seed", 0, 1, NULL },           /* of the jitter */
    [PX_O_JSON] = { "json", 0, 0, NULL },           /* start and stop lines as JSON */
    [PX_O_HELP] = { "help", 'h', 0, NULL },
};

/* One option onto o. */
static int parse_option(int which, const char *val, struct proxy_opts *o, int *json, struct err *e)
{
    switch (which) {
    case PX_O_LISTEN:
        o->listen = val;
        break;
    case PX_O_TO:
        o->to = val;
        break;
    case PX_O_DELAY:
        return parse_delay("delay", val, &o->delay_us, e);
    case PX_O_JITTER:
        return parse_delay("jitter", val, &o->jitter_us, e);
    case PX_O_MAX_QUEUE: {
        uint64_t v;
        if (nb_parse_size(val, 64 * 1024, (uint64_t)1 << 30, &v) != 0)
            return err_set(e, E_USAGE,
                           "'--max-queue' must be a size from 64K to 1024M (got \"%s\")", val);
        o->max_queue_bytes = (size_t)v;
        break;
    }
    case PX_O_SEED: {
        int64_t v;
        if (parse_int64(val, 1, INT64_MAX, &v) != 0)
            return err_set(e, E_USAGE,
                           "'--seed' must be an integer from 1 to 9223372036854775807 (got \"%s\")",
                           val);
        o->seed = (uint64_t)v;
        break;
    }
    case PX_O_JSON:
        *json = 1;
        break;
    default:
        break;
    }
    return 0;
}

static int parse(int argc, char **argv, struct proxy_opts *o, int *json, int *help, struct err *e)
{
    struct opt_parser p;
    const char *val;
    int found, which, rc;

    memset(o, 0, sizeof(*o));
    *json = *help = 0;
    if ((rc = opt_init(&p, PX_CMD, px_opt_table, OPT_COUNT(px_opt_table), argc, argv, e)) < 0)
        return rc;
    while (rc == 0 && !*help && (found = opt_next(&p, &which, &val, e)) != OPT_END) {
        if (found < 0)
            rc = found;
        else if (found == OPT_ARG)
            rc = err_set(e, E_USAGE,
                         "unexpected argument \"%s\": the proxy takes only options (see "
                         "'tpccbench proxy --help')",
                         val);
        else if (which == PX_O_HELP)
            *help = 1;
        else
            rc = parse_option(which, val, o, json, e);
    }
    opt_release(&p);
    if (rc < 0 || *help)
        return rc;
    if (!o->listen)
        return err_set(e, E_USAGE,
                       "'--listen HOST:PORT' is required (see 'tpccbench proxy "
                       "--help')");
    if (!o->to)
        return err_set(e, E_USAGE, "'--to HOST:PORT' is required (see 'tpccbench proxy --help')");
    return 0;
}

/* Hundreds of connections take two descriptors each: lift the soft limit. */
static void raise_nofile(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int cmd_proxy(int argc, char **argv)
{
    struct proxy_opts o;
    struct proxy *p = NULL;
    struct proxy_stats st;
    char d[32], j[32], rtt[32];
    sigset_t stop, old;
    int json = 0, help = 0, rc = 0;
    struct err e;

    err_clear(&e);
    if (parse(argc - 1, argv + 1, &o, &json, &help, &e) < 0)
        return cmd_fail(PX_CMD, &e);
    if (help) {
        usage(stdout);
        return 0;
    }
    sig_install();
    raise_nofile();
    o.log = log_line;
    /* The stop signals wait blocked until ppoll below; no race with the check. */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    if (proxy_start(&o, &p, &e) < 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return cmd_fail(PX_CMD, &e);
    }
    fmt_delay(o.delay_us, d, sizeof(d));
    fmt_delay(o.jitter_us, j, sizeof(j));
    fmt_delay(2 * o.delay_us, rtt, sizeof(rtt));
    if (json) {
        json_t *js = json_pack("{s:s, s:s, s:i, s:s, s:f, s:f}", "event", "listening", "address",
                               proxy_listen_name(p), "port", proxy_port(p), "to",
                               proxy_target_name(p), "delay_ms", (double)o.delay_us / 1000.0,
                               "jitter_ms", (double)o.jitter_us / 1000.0);
        char *s = json_dumps(js, JSON_COMPACT);
        printf("%s\n", s ? s : "{}");
        free(s);
        json_decref(js);
    } else {
        printf("tpccbench proxy: listening on %s, forwarding to %s, delay %s each way (round "
               "trip +%s), jitter %s; Ctrl-C stops\n",
               proxy_listen_name(p), proxy_target_name(p), d, rtt, j);
    }
    fflush(stdout);

    while (!sig_stop_requested()) {
        struct timespec ts = { .tv_sec = 1, .tv_nsec = 0 };
        sigset_t unmask = old;

        sigdelset(&unmask, SIGINT);
        sigdelset(&unmask, SIGTERM);
        ppoll(NULL, 0, &ts, &unmask);
        if (proxy_error(p, &e) < 0) {
            rc = cmd_fail(PX_CMD, &e);
            break;
        }
    }
    proxy_stats(p, &st);
    proxy_stop(p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (json) {
        json_t *js = json_pack(
            "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "event", "stopped", "connections",
            (json_int_t)st.n_accepted, "closed", (json_int_t)st.n_closed, "reset",
            (json_int_t)st.n_reset, "connect_failed", (json_int_t)st.n_connect_failed, "open",
            (json_int_t)st.n_open, "bytes_to_server", (json_int_t)st.bytes_to_server,
            "bytes_to_client", (json_int_t)st.bytes_to_client);
        char *s = json_dumps(js, JSON_COMPACT);
        printf("%s\n", s ? s : "{}");
        free(s);
        json_decref(js);
    } else {
        printf("tpccbench proxy: stopped: %llu connections (%llu closed, %llu reset, %llu could "
               "not connect, %llu open at the stop), %llu bytes to the server, %llu bytes to "
               "the client\n",
               (unsigned long long)st.n_accepted, (unsigned long long)st.n_closed,
               (unsigned long long)st.n_reset, (unsigned long long)st.n_connect_failed,
               (unsigned long long)st.n_open, (unsigned long long)st.bytes_to_server,
               (unsigned long long)st.bytes_to_client);
    }
    fflush(stdout);
    return rc;
}
