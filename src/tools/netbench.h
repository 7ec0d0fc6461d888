/*
 * netbench.h - the network bench of Tibero's tbnetbench: a client sends
 * SEND# messages of SIZE bytes to a server, waits for the server's reply,
 * and does that REPEAT# times, timing each repetition's round trip.
 *
 * The wire protocol (all integers big-endian):
 *   1. client -> server, 32 bytes: "TBNB", version 1, SEND#, SIZE, REPEAT#,
 *      reply mode (0 ack, 1 size), 8 reserved zero bytes.
 *   2. server -> client, 128 bytes: "TBNB", status (0 accepted, else
 *      refused), a NUL-terminated reason for a refusal.
 *   3. per repetition: SEND# x SIZE payload bytes from the client (no
 *      framing), then the server's reply: NB_ACK_BYTES bytes (ack mode) or
 *      SIZE bytes (size mode), starting with the repetition number (u64).
 * Only step 3 is measured and counted in the byte figures.
 *
 * Also here: the socket helpers the proxy shares (resolving a host and port,
 * naming an address, splitting "HOST:PORT").  Nothing here prints or exits;
 * the server reports each finished client through a callback.
 */
#ifndef TPCC_NETBENCH_H
#define TPCC_NETBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/err.h"
#include "core/hist.h"

struct addrinfo;

/* Bytes of the reply per repetition in ack mode. */
#define NB_ACK_BYTES 8
/* Upper bounds of the positional arguments. */
#define NB_MAX_SEND   1000000
#define NB_MAX_SIZE   (64 * 1024 * 1024)
#define NB_MAX_REPEAT 1000000000

enum nb_reply {
    NB_REPLY_ACK = 0, /* the server answers each repetition with NB_ACK_BYTES bytes */
    NB_REPLY_SIZE = 1 /* the server answers each repetition with SIZE bytes */
};

/* What a bench is: the positional arguments and options of both sides. */
struct nb_opts {
    const char *host;    /* address or name to connect to / listen on */
    const char *port;    /* decimal port; server: "0" picks a free one */
    uint32_t n_send;     /* messages per repetition, >= 1; server: 0 = whatever the client says */
    uint32_t size_bytes; /* bytes per message, >= 1; server: 0 = any */
    uint32_t n_repeat;   /* repetitions, >= 1; server: 0 = any */
    enum nb_reply reply; /* client: reply mode it asks for */
    int64_t timeout_us;  /* connect and every wait for the peer, > 0 */
    int max_clients;     /* server: stop after this many clients finished, 0 = until stopped */
};

/* The client's figures. */
struct nb_result {
    char peer[128];          /* "127.0.0.1 port 5000" of the address connected to */
    double connect_ms;       /* TCP connect time */
    double elapsed_s;        /* the measured repetitions, wall time */
    uint64_t bytes_sent;     /* payload client -> server: REPEAT x SEND x SIZE */
    uint64_t bytes_received; /* replies server -> client: REPEAT x (8 or SIZE) */
    uint32_t n_done;         /* repetitions completed */
    struct hist rtt;         /* round trip of each repetition, us */
};

/* One finished client, as the server reports it. */
struct nb_client_report {
    char peer[128];                        /* the client's address */
    uint32_t n_send, size_bytes, n_repeat; /* what the client announced (0 before its hello) */
    enum nb_reply reply;
    uint32_t n_done;         /* repetitions served */
    uint64_t bytes_received; /* payload from the client */
    uint64_t bytes_sent;     /* replies to the client */
    double elapsed_s;        /* from the hello to the last reply */
    int ok;                  /* 1: all repetitions served */
    char error[512];         /* why not, when !ok (a struct err message) */
};

/* Called from the client's thread when it finishes (calls are serialised). */
typedef void (*nb_report_fn)(void *arg, const struct nb_client_report *r);
/* Called once the server listens, with each bound address ("127.0.0.1 port 5000"). */
typedef void (*nb_listen_fn)(void *arg, const char *addr, int port);

/* Run the client: connect, hello, REPEAT# timed repetitions.  E_CONN when
 * the peer cannot be reached or goes away, E_FAIL on a timeout or protocol
 * error, E_USAGE when the server refuses our arguments, E_INTR on a stop
 * signal (sig_stop_requested). */
int nb_client_run(const struct nb_opts *o, struct nb_result *r, struct err *e);

/* Run the server until sig_stop_requested() or max_clients have finished.
 * The calling thread accepts; each client gets a thread.  The caller's
 * SIGINT/SIGTERM handlers (sig_install) must be installed: they are left
 * unblocked only while this thread waits.  *n_failed counts clients whose
 * report had ok == 0.  Returns 0, or < 0 when it cannot listen. */
int nb_server_run(const struct nb_opts *o, nb_listen_fn on_listen, nb_report_fn on_report,
                  void *arg, int *n_served, int *n_failed, struct err *e);

/* --- shared socket helpers (the proxy uses them too) --- */

/* getaddrinfo for TCP; passive: for bind (host NULL or "" = any address).
 * Errors are E_CONN ("cannot resolve 'x': ..."). */
int nb_resolve(const char *host, const char *port, int passive, struct addrinfo **res,
               struct err *e);

/* "127.0.0.1 port 5000" / "::1 port 5000" of a socket address. */
void nb_addr_str(const struct sockaddr *sa, socklen_t len, char *buf, size_t size);

/* The port of a socket address (IPv4 or IPv6), 0 if neither. */
int nb_addr_port(const struct sockaddr *sa);

/* Split "HOST:PORT", "[V6]:PORT" or ":PORT" into host (may be "") and port
 * (a decimal 0..65535).  E_USAGE naming what, on error. */
int nb_split_hostport(const char *s, char *host, size_t host_size, char *port, size_t port_size,
                      struct err *e);

/* Parse a decimal port 0..65535 (min_port 1 to forbid 0).  Returns 0 or -1. */
int nb_parse_port(const char *s, int min_port, int *out);

/* Parse a count or size: decimal, optionally followed by K or M (x 1024,
 * x 1048576), in [min, max].  Returns 0 or -1. */
int nb_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif
