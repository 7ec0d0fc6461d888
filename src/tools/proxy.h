/*
 * proxy.h - a TCP proxy that adds a one-way delay (and optional jitter) to
 * every byte in each direction, to put a database "D ms away" from the
 * driver: the round trip grows by 2 x D.
 *
 * It runs in a thread of its own (one epoll loop, non-blocking sockets, a
 * timerfd armed at the earliest due chunk: no busy loop), so a command can
 * start it beside its own work (a sweep over delays) or run it alone
 * (`tpccbench proxy`).  What it read is held as a chunk stamped with its due
 * time: read time + delay + a uniform jitter in [-jitter, +jitter], but never
 * before the previous chunk of the same direction, so bytes are never
 * reordered.  End of stream is a chunk too: when one side shuts down
 * writing, the FIN reaches the other side after the data queued before it,
 * one delay later (half-close works).  A reset or error on one side resets
 * the other.  The TCP handshake itself is not delayed (the kernel completes
 * it before the proxy sees the connection), so a connect() through the proxy
 * returns in the local round trip; everything after it is delayed.
 *
 * Nothing here prints or exits: notable events (an upstream that cannot be
 * reached) go to an optional callback, figures to proxy_stats().
 */
#ifndef TPCC_PROXY_H
#define TPCC_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Default bytes queued per direction before the proxy stops reading that
 * side (back-pressure): enough for 1 GB/s at 4 ms of delay. */
#define PROXY_DEFAULT_QUEUE_BYTES (4u * 1024 * 1024)
/* Largest delay and jitter accepted, in microseconds (one minute). */
#define PROXY_MAX_DELAY_US (60 * 1000000LL)

struct proxy;

/* Called from the proxy's thread with a one-line message ("cannot connect to
 * 127.0.0.1 port 5432: connection refused"); it must not call into the proxy. */
typedef void (*proxy_log_fn)(void *arg, const char *msg);

struct proxy_opts {
    const char *listen;     /* "HOST:PORT", "[::1]:PORT" or ":PORT"; port 0 = a free port */
    const char *to;         /* "HOST:PORT" of the server */
    int64_t delay_us;       /* one-way delay added in each direction, 0 .. PROXY_MAX_DELAY_US */
    int64_t jitter_us;      /* uniform +-jitter per chunk, 0 .. PROXY_MAX_DELAY_US */
    size_t max_queue_bytes; /* per direction; 0 = PROXY_DEFAULT_QUEUE_BYTES */
    uint64_t seed;          /* jitter random stream; 0 = from the clock */
    proxy_log_fn log;       /* may be NULL */
    void *log_arg;
};

/* Counters since the start; read at any time from any thread. */
struct proxy_stats {
    uint64_t n_accepted;       /* client connections accepted */
    uint64_t n_open;           /* connections open now */
    uint64_t n_closed;         /* ended with a FIN forwarded each way */
    uint64_t n_reset;          /* ended by an error or reset on one side */
    uint64_t n_connect_failed; /* the server could not be reached for a client */
    uint64_t bytes_to_server;  /* forwarded client -> server */
    uint64_t bytes_to_client;  /* forwarded server -> client */
    uint64_t peak_queue_bytes; /* the most one direction held at once (back-pressure keeps it
                                  under max_queue_bytes + one read of 64 KB) */
};

/* Resolve both addresses, listen, and start the proxy's thread.  The thread
 * blocks every signal, so SIGINT reaches the caller's threads.  Keeps no
 * pointer into o except log_arg (and the log function).  E_USAGE for bad
 * addresses or a port that cannot be bound, E_CONN when a name does not
 * resolve, E_FAIL otherwise. */
int proxy_start(const struct proxy_opts *o, struct proxy **out, struct err *e);

/* The port it listens on (the one the system chose for port 0). */
int proxy_port(const struct proxy *p);

/* "127.0.0.1 port 41234": the address it listens on. */
const char *proxy_listen_name(const struct proxy *p);
/* "127.0.0.1 port 5432": the address it forwards to (the first resolved). */
const char *proxy_target_name(const struct proxy *p);

/* A snapshot of the counters. */
void proxy_stats(const struct proxy *p, struct proxy_stats *s);

/* 0 while the proxy runs; < 0 with e filled when its loop failed and ended. */
int proxy_error(struct proxy *p, struct err *e);

/* Stop the thread, close every connection (client and server sides), free
 * p.  NULL is allowed. */
void proxy_stop(struct proxy *p);

#endif
