/*
 * netbench.c - `tpccbench netbench server|client IP PORT SEND# SIZE REPEAT#`,
 * the positional interface of Tibero's tbnetbench: argument checks, and the
 * figures printed as text or JSON.  The bench itself is src/tools/netbench.c.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/config.h"
#include "core/opt.h"
#include "core/signals.h"
#include "tools/netbench.h"

#define NB_CMD                "netbench"
#define NB_DEFAULT_TIMEOUT_US (10 * 1000000LL)
#define NB_MAX_TIMEOUT_US     (3600 * 1000000LL)

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tpccbench netbench server IP PORT SEND# SIZE REPEAT# [options]\n"
            "       tpccbench netbench client IP PORT SEND# SIZE REPEAT# [options]\n"
            "\n"
            "The network bench of Tibero's tbnetbench.  Per repetition the client sends SEND#\n"
            "messages of SIZE bytes and waits for the server's reply; it reports the round\n"
            "trip of each repetition (min, avg, p50, p99, max), MB/s (10^6 bytes) and\n"
            "messages/s.  The server serves many clients at once (a thread each), prints a\n"
            "line per client when it finishes, and runs until Ctrl-C.  Example:\n"
            "  tpccbench netbench server 0.0.0.0 5000 5 8192 100\n"
            "  tpccbench netbench client 10.0.0.7 5000 5 8192 100\n"
            "\n"
            "  IP        address or name (IPv4 or IPv6); server: where to listen (0.0.0.0, ::)\n"
            "  PORT      TCP port; server: 0 picks a free one (printed)\n"
            "  SEND#     messages per repetition, 1..%d (server: 0 = what the client says)\n"
            "  SIZE      bytes per message, 1..64M, K and M suffixes (server: 0 = any)\n"
            "  REPEAT#   repetitions, 1..%d (server: 0 = any)\n"
            "\n"
            "options:\n"
            "  --reply ack|size   the server's answer to a repetition: %d bytes (ack, default)\n"
            "                     or SIZE bytes (size); both directions' bytes are reported\n"
            "  --timeout D        connect and every wait for the peer (default 10s)\n"
            "  --clients N        server: stop after N clients finished (default: at Ctrl-C)\n"
            "  --json             figures as JSON (server: one object per line)\n"
            "  -h, --help         this text\n"
            "\n"
            "Exit: 0 ok; 1 the peer is unreachable, refused, timed out or failed (server: a\n"
            "client failed); 2 bad arguments.\n",
            NB_MAX_SEND, NB_MAX_REPEAT, NB_ACK_BYTES);
}

/* Output state shared by the server's callbacks. */
struct nb_out {
    int json;
};

static void print_json(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));

    if (s) {
        printf("%s\n", s);
        free(s);
    }
    fflush(stdout);
    json_decref(j);
}

static double mb_per_s(uint64_t bytes, double s)
{
    return s > 0 ? (double)bytes / 1e6 / s : 0.0;
}

static void on_listen(void *arg, const char *addr, int port)
{
    const struct nb_out *out = arg;

    if (out->json)
        print_json(
            json_pack("{s:s, s:s, s:i}", "event", "listening", "address", addr, "port", port));
    else {
        printf("tpccbench netbench server: listening on %s\n", addr);
        fflush(stdout);
    }
}

static void on_report(void *arg, const struct nb_client_report *r)
{
    const struct nb_out *out = arg;
    double rx = mb_per_s(r->bytes_received, r->elapsed_s);

    if (out->json) {
        print_json(json_pack(
            "{s:s, s:s, s:b, s:i, s:i, s:i, s:s, s:i, s:I, s:I, s:f, s:f, s:s?}", "event", "client",
            "peer", r->peer, "ok", r->ok, "send", (int)r->n_send, "size", (int)r->size_bytes,
            "repeat", (int)r->n_repeat, "reply", r->reply == NB_REPLY_SIZE ? "size" : "ack",
            "repetitions_done", (int)r->n_done, "bytes_received", (json_int_t)r->bytes_received,
            "bytes_sent", (json_int_t)r->bytes_sent, "elapsed_s", r->elapsed_s, "received_mb_s", rx,
            "error", r->ok ? NULL : r->error));
        return;
    }
    if (r->ok)
        printf("client %s: ok: %u repetitions of %u x %u bytes: received %llu bytes, sent %llu "
               "bytes in %.3f s (%.2f MB/s)\n",
               r->peer, r->n_repeat, r->n_send, r->size_bytes,
               (unsigned long long)r->bytes_received, (unsigned long long)r->bytes_sent,
               r->elapsed_s, rx);
    else
        printf("client %s: failed after %u of %u repetitions: %s\n", r->peer, r->n_done,
               r->n_repeat, r->error);
    fflush(stdout);
}

/* A positional count: 1..max, or 0 too when zero_ok (the server's "any"). */
static int parse_count(const char *name, const char *s, uint64_t max, int zero_ok, uint32_t *out,
                       struct err *e)
{
    uint64_t v;

    if (nb_parse_size(s, zero_ok ? 0 : 1, max, &v) != 0)
        return err_set(e, E_USAGE, "%s must be an integer from %d to %llu%s (got \"%s\")", name,
                       zero_ok ? 0 : 1, (unsigned long long)max, zero_ok ? ", 0 = any" : "", s);
    *out = (uint32_t)v;
    return 0;
}

/* The options; everything else is tbnetbench's positional arguments. */
enum { NB_O_REPLY, NB_O_TIMEOUT, NB_O_CLIENTS, NB_O_JSON, NB_O_HELP };
static const struct opt_spec nb_opt_table[] = {
    [NB_O_REPLY] = { "reply", 0, 1, NULL },     /* ack | size */
    [NB_O_TIMEOUT] = { "timeout", 0, 1, NULL }, /* connect and every wait */
    [NB_O_CLIENTS] = { "clients", 0, 1, NULL }, /* server: stop after N */
    [NB_O_JSON] = { "json", 0, 0, NULL },       /* figures as JSON */
    [NB_O_HELP] = { "help", 'h', 0, NULL },
};

/* One option onto o. */
static int parse_option(int which, const char *val, struct nb_opts *o, int *json, struct err *e)
{
    if (which == NB_O_JSON) {
        *json = 1;
    } else if (which == NB_O_TIMEOUT) {
        int64_t us;
        if (parse_duration_us(val, &us) != 0 || us <= 0 || us > NB_MAX_TIMEOUT_US)
            return err_set(e, E_USAGE,
                           "'--timeout' must be a duration above 0 and at most 1h, like 10s "
                           "or 500ms (got \"%s\")",
                           val);
        o->timeout_us = us;
    } else if (which == NB_O_REPLY) {
        if (strcmp(val, "ack") == 0)
            o->reply = NB_REPLY_ACK;
        else if (strcmp(val, "size") == 0)
            o->reply = NB_REPLY_SIZE;
        else
            return err_set(e, E_USAGE, "'--reply' must be ack or size (got \"%s\")", val);
    } else if (which == NB_O_CLIENTS) {
        int64_t n;
        if (parse_int64(val, 1, 1000000, &n) != 0)
            return err_set(e, E_USAGE,
                           "'--clients' must be an integer from 1 to 1000000 (got \"%s\")", val);
        o->max_clients = (int)n;
    }
    return 0;
}

/* Parse argv (after "netbench") into o; *server, *json, *help.  Negative
 * numbers are arguments ("SEND# -1" is a bad count, not an option). */
static int parse(int argc, char **argv, struct nb_opts *o, int *server, int *json, int *help,
                 struct err *e)
{
    const char *pos[8], *val;
    struct opt_parser p;
    int npos = 0, port, found, which, rc;

    memset(o, 0, sizeof(*o));
    o->timeout_us = NB_DEFAULT_TIMEOUT_US;
    o->reply = NB_REPLY_ACK;
    *json = *help = 0;
    if ((rc = opt_init(&p, NB_CMD, nb_opt_table, OPT_COUNT(nb_opt_table), argc, argv, e)) < 0)
        return rc;
    p.negative_args = 1;
    rc = 0;
    while (rc == 0 && (found = opt_next(&p, &which, &val, e)) != OPT_END) {
        if (found < 0)
            rc = found;
        else if (found == OPT_ARG && npos >= 5 + 1)
            rc = err_set(e, E_USAGE,
                         "too many arguments: expected server|client IP PORT SEND# SIZE "
                         "REPEAT# (see 'tpccbench netbench --help')");
        else if (found == OPT_ARG)
            pos[npos++] = val;
        else if (which == NB_O_HELP)
            *help = 1;
        else
            rc = parse_option(which, val, o, json, e);
        if (*help)
            break;
    }
    opt_release(&p);
    if (rc < 0 || *help)
        return rc;
    if (npos == 0)
        return err_set(e, E_USAGE,
                       "expected 'server' or 'client' IP PORT SEND# SIZE REPEAT# (see 'tpccbench "
                       "netbench --help')");
    if (strcmp(pos[0], "server") == 0)
        *server = 1;
    else if (strcmp(pos[0], "client") == 0)
        *server = 0;
    else
        return err_set(e, E_USAGE, "the first argument must be 'server' or 'client' (got \"%s\")",
                       pos[0]);
    if (npos != 6)
        return err_set(e, E_USAGE,
                       "expected 5 arguments after '%s': IP PORT SEND# SIZE REPEAT# (got %d)",
                       pos[0], npos - 1);
    if (o->max_clients && !*server)
        return err_set(e, E_USAGE, "'--clients' is a server option");
    o->host = pos[1];
    if (!*o->host)
        return err_set(e, E_USAGE, "IP must not be empty");
    if (nb_parse_port(pos[2], *server ? 0 : 1, &port) != 0)
        return err_set(e, E_USAGE, "PORT must be an integer from %d to 65535 (got \"%s\")",
                       *server ? 0 : 1, pos[2]);
    o->port = pos[2];
    if (parse_count("SEND#", pos[3], NB_MAX_SEND, *server, &o->n_send, e) < 0 ||
        parse_count("SIZE", pos[4], NB_MAX_SIZE, *server, &o->size_bytes, e) < 0 ||
        parse_count("REPEAT#", pos[5], NB_MAX_REPEAT, *server, &o->n_repeat, e) < 0)
        return e->code;
    return 0;
}

static int run_client(const struct nb_opts *o, int json)
{
    struct nb_result *r = malloc(sizeof(*r));
    uint64_t n_msgs;
    double ms[5];
    struct err e;
    int rc;

    if (!r) {
        fprintf(stderr, "tpccbench netbench: out of memory\n");
        return 1;
    }
    err_clear(&e);
    rc = nb_client_run(o, r, &e);
    if (rc < 0) {
        free(r);
        return cmd_fail(NB_CMD, &e);
    }
    n_msgs = (uint64_t)r->n_done * o->n_send;
    ms[0] = (double)r->rtt.min_us / 1000.0;
    ms[1] = hist_mean(&r->rtt) / 1000.0;
    ms[2] = (double)hist_percentile(&r->rtt, 50) / 1000.0;
    ms[3] = (double)hist_percentile(&r->rtt, 99) / 1000.0;
    ms[4] = (double)r->rtt.max_us / 1000.0;
    if (json) {
        json_t *rtt = json_pack("{s:f, s:f, s:f, s:f, s:f}", "min", ms[0], "avg", ms[1], "p50",
                                ms[2], "p99", ms[3], "max", ms[4]);
        print_json(json_pack(
            "{s:s, s:s, s:i, s:s, s:i, s:i, s:i, s:s, s:i, s:f, s:f, s:I, s:I, s:f, s:f, s:f, "
            "s:o}",
            "role", "client", "host", o->host, "port", (int)strtol(o->port, NULL, 10), "peer",
            r->peer, "send", (int)o->n_send, "size", (int)o->size_bytes, "repeat", (int)o->n_repeat,
            "reply", o->reply == NB_REPLY_SIZE ? "size" : "ack", "repetitions_done", (int)r->n_done,
            "connect_ms", r->connect_ms, "elapsed_s", r->elapsed_s, "bytes_sent",
            (json_int_t)r->bytes_sent, "bytes_received", (json_int_t)r->bytes_received, "sent_mb_s",
            mb_per_s(r->bytes_sent, r->elapsed_s), "received_mb_s",
            mb_per_s(r->bytes_received, r->elapsed_s), "messages_per_s",
            r->elapsed_s > 0 ? (double)n_msgs / r->elapsed_s : 0.0, "rtt_ms", rtt));
    } else {
        printf("tpccbench netbench client: %s (connect %.3f ms)\n", r->peer, r->connect_ms);
        printf("repetitions:  %u of %u x %u bytes, reply %s (%u bytes)\n", o->n_repeat, o->n_send,
               o->size_bytes, o->reply == NB_REPLY_SIZE ? "size" : "ack",
               o->reply == NB_REPLY_SIZE ? o->size_bytes : NB_ACK_BYTES);
        printf("elapsed:      %.6f s\n", r->elapsed_s);
        printf("sent:         %llu bytes  %.2f MB/s  (client -> server)\n",
               (unsigned long long)r->bytes_sent, mb_per_s(r->bytes_sent, r->elapsed_s));
        printf("received:     %llu bytes  %.2f MB/s  (server -> client)\n",
               (unsigned long long)r->bytes_received, mb_per_s(r->bytes_received, r->elapsed_s));
        printf("messages:     %llu  %.1f messages/s\n", (unsigned long long)n_msgs,
               r->elapsed_s > 0 ? (double)n_msgs / r->elapsed_s : 0.0);
        printf("round trip:   min %.3f  avg %.3f  p50 %.3f  p99 %.3f  max %.3f ms  (per "
               "repetition)\n",
               ms[0], ms[1], ms[2], ms[3], ms[4]);
    }
    free(r);
    return 0;
}

static int run_server(const struct nb_opts *o, int json)
{
    struct nb_out out = { .json = json };
    int n_served = 0, n_failed = 0, rc;
    struct err e;

    err_clear(&e);
    rc = nb_server_run(o, on_listen, on_report, &out, &n_served, &n_failed, &e);
    if (rc < 0)
        return cmd_fail(NB_CMD, &e);
    if (json)
        print_json(json_pack("{s:s, s:i, s:i}", "event", "stopped", "clients", n_served, "failed",
                             n_failed));
    else {
        printf("tpccbench netbench server: stopped: %d client%s served, %d failed\n", n_served,
               n_served == 1 ? "" : "s", n_failed);
        fflush(stdout);
    }
    return n_failed ? 1 : 0;
}

int cmd_netbench(int argc, char **argv)
{
    struct nb_opts o;
    int server = 0, json = 0, help = 0;
    struct err e;

    err_clear(&e);
    if (parse(argc - 1, argv + 1, &o, &server, &json, &help, &e) < 0)
        return cmd_fail(NB_CMD, &e);
    if (help) {
        usage(stdout);
        return 0;
    }
    sig_install();
    return server ? run_server(&o, json) : run_client(&o, json);
}
