/*
 * netbench.c - the network bench (client and server) and the socket helpers
 * the proxy shares.  See netbench.h for the wire protocol.
 *
 * Every socket is non-blocking: a call is tried first and only on EAGAIN do
 * we wait in ppoll, with the stop signals unblocked for exactly that wait, so
 * Ctrl-C ends a wait at once and never races the check of the stop flag.
 * The timeout is "no progress for D": each wait for the peer gets the full D.
 * Nothing here prints or exits.
 */
#include "tools/netbench.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "core/signals.h"

#define NB_MAGIC        "TBNB"
#define NB_VERSION      1
#define NB_HELLO_BYTES  32
#define NB_ANSWER_BYTES 128
/* Receive buffer of the server and the client (reading is in pieces). */
#define NB_IO_CHUNK (256 * 1024)
/* Clients served at once; more are closed at accept. */
#define NB_MAX_CONCURRENT 1024
/* Listening sockets at most (a name can resolve to several addresses). */
#define NB_MAX_LISTEN 8

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put_u64(unsigned char *p, uint64_t v)
{
    put_u32(p, (uint32_t)(v >> 32));
    put_u32(p + 4, (uint32_t)v);
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) << 32 | get_u32(p + 4);
}

/* "10s", "1.5s", "250ms" for messages. */
static void fmt_us(int64_t us, char *buf, size_t size)
{
    if (us % 1000000 == 0)
        snprintf(buf, size, "%llds", (long long)(us / 1000000));
    else if (us >= 1000000)
        snprintf(buf, size, "%.3gs", (double)us / 1e6);
    else if (us % 1000 == 0)
        snprintf(buf, size, "%lldms", (long long)(us / 1000));
    else
        snprintf(buf, size, "%lldus", (long long)us);
}

/* ------------------------------------------------------------------------ */
/* Shared helpers. */

int nb_parse_port(const char *s, int min_port, int *out)
{
    long v = 0;

    if (!s || !*s || strlen(s) > 5)
        return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (v < min_port || v > 65535)
        return -1;
    *out = (int)v;
    return 0;
}

int nb_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v = 0, mul = 1;
    const char *p = s;

    if (!s || *s < '0' || *s > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p == 'k' || *p == 'K')
        mul = 1024, p++;
    else if (*p == 'm' || *p == 'M')
        mul = 1024 * 1024, p++;
    if (*p)
        return -1;
    if (v > UINT64_MAX / mul)
        return -1;
    v *= mul;
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int nb_split_hostport(const char *s, char *host, size_t host_size, char *port, size_t port_size,
                      struct err *e)
{
    const char *colon, *h = s;
    size_t hn;
    int p;

    if (!s || !*s)
        return err_set(e, E_USAGE, "expected HOST:PORT (got an empty string)");
    if (*s == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':')
            return err_set(e, E_USAGE, "expected [IPV6]:PORT (got \"%s\")", s);
        h = s + 1;
        hn = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon)
            return err_set(e, E_USAGE, "expected HOST:PORT (got \"%s\"): the port is missing", s);
        if (memchr(s, ':', (size_t)(colon - s)))
            return err_set(e, E_USAGE,
                           "expected HOST:PORT (got \"%s\"): write an IPv6 address in brackets, "
                           "[::1]:5432",
                           s);
        hn = (size_t)(colon - s);
    }
    if (nb_parse_port(colon + 1, 0, &p) != 0)
        return err_set(e, E_USAGE, "the port in \"%s\" must be a number from 0 to 65535", s);
    if (hn >= host_size)
        return err_set(e, E_USAGE, "the host name in \"%s\" is too long", s);
    memcpy(host, h, hn);
    host[hn] = '\0';
    snprintf(port, port_size, "%d", p);
    return 0;
}

int nb_resolve(const char *host, const char *port, int passive, struct addrinfo **res,
               struct err *e)
{
    struct addrinfo hints;
    int rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : AI_ADDRCONFIG);
    if (host && !*host)
        host = NULL;
    rc = getaddrinfo(host, port, &hints, res);
    if (rc == EAI_SYSTEM) {
        char eb[128];
        return err_set(e, E_CONN, "cannot resolve '%s': %s", host ? host : "*",
                       err_errno(errno, eb, sizeof(eb)));
    }
    if (rc != 0)
        return err_set(e, E_CONN, "cannot resolve '%s': %s", host ? host : "*", gai_strerror(rc));
    return 0;
}

void nb_addr_str(const struct sockaddr *sa, socklen_t len, char *buf, size_t size)
{
    char h[NI_MAXHOST], s[NI_MAXSERV];

    if (getnameinfo(sa, len, h, sizeof(h), s, sizeof(s), NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(buf, size, "(unknown address)");
    else
        snprintf(buf, size, "%s port %s", h, s);
}

int nb_addr_port(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
    if (sa->sa_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Waiting and I/O with a timeout. */

/* How a thread waits: its stop signals are blocked, and unmask (when not
 * NULL) is the mask to wait with, so a stop signal ends the wait. */
struct nb_io {
    int fd;
    int64_t timeout_us;
    const sigset_t *unmask;
};

/* Wait until fd is ready for events.  0, E_INTR, or E_FAIL "timeout" (with
 * errno ETIMEDOUT), or E_CONN on a poll error. */
static int io_wait(const struct nb_io *io, short events, struct err *e)
{
    struct pollfd pfd = { .fd = io->fd, .events = events, .revents = 0 };
    uint64_t deadline = now_ns() + (uint64_t)io->timeout_us * 1000u;

    for (;;) {
        uint64_t t = now_ns();
        struct timespec ts;
        int n;

        if (sig_stop_requested())
            return err_set(e, E_INTR, "interrupted");
        if (t >= deadline) {
            errno = ETIMEDOUT;
            return err_set(e, E_FAIL, "timeout");
        }
        ts.tv_sec = (time_t)((deadline - t) / 1000000000u);
        ts.tv_nsec = (long)((deadline - t) % 1000000000u);
        n = ppoll(&pfd, 1, &ts, io->unmask);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR) {
            char eb[128];
            return err_set(e, E_CONN, "poll: %s", err_errno(errno, eb, sizeof(eb)));
        }
    }
}

/* Write all n bytes.  On failure e says what (the caller prefixes context). */
static int io_write_all(const struct nb_io *io, const void *buf, size_t n, struct err *e)
{
    const char *p = buf;
    char eb[128];
    int rc;

    while (n > 0) {
        ssize_t w = send(io->fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if ((rc = io_wait(io, POLLOUT, e)) < 0)
                return rc;
            continue;
        }
        return err_set(e, E_CONN, "%s", err_errno(errno, eb, sizeof(eb)));
    }
    return 0;
}

/* Read exactly n bytes into buf (or discard them when keep == 0, buf being a
 * scratch buffer of at least min(n, cap) bytes).  A close by the peer is
 * E_CONN "closed" with errno 0. */
static int io_read_all(const struct nb_io *io, void *buf, size_t cap, uint64_t n, int keep,
                       struct err *e)
{
    char *p = buf, eb[128];
    int rc;

    while (n > 0) {
        size_t want = n < cap ? (size_t)n : cap;
        ssize_t r = recv(io->fd, p, want, 0);
        if (r > 0) {
            if (keep) {
                p += r;
                cap -= (size_t)r;
            }
            n -= (uint64_t)r;
            continue;
        }
        if (r == 0) {
            errno = 0;
            return err_set(e, E_CONN, "closed");
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if ((rc = io_wait(io, POLLIN, e)) < 0)
                return rc;
            continue;
        }
        return err_set(e, E_CONN, "%s", err_errno(errno, eb, sizeof(eb)));
    }
    return 0;
}

static void set_nodelay(int fd)
{
    int one = 1;

    /* Messages go out as written: Nagle would hold the last one of a
     * repetition back until the previous ones are acknowledged. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Block SIGINT and SIGTERM in this thread; *old gets the previous mask and
 * *unmask the mask to wait with (the previous one minus nothing: stop
 * signals deliverable). */
static void block_stop_signals(sigset_t *old, sigset_t *unmask)
{
    sigset_t s;

    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &s, old);
    *unmask = *old;
    sigdelset(unmask, SIGINT);
    sigdelset(unmask, SIGTERM);
}

/* ------------------------------------------------------------------------ */
/* Client. */

/* Connect to one address with a timeout.  Returns the fd or < 0 with e set. */
static int connect_one(const struct addrinfo *ai, const struct nb_io *tmpl, const char *name,
                       struct err *e)
{
    struct nb_io io = *tmpl;
    char eb[128], tb[32];
    int fd, rc, soerr = 0;
    socklen_t sl = sizeof(soerr);

    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return err_set(e, E_CONN, "cannot connect to %s: socket: %s", name,
                       err_errno(errno, eb, sizeof(eb)));
    io.fd = fd;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        goto connected;
    if (errno != EINPROGRESS) {
        soerr = errno;
        goto failed;
    }
    if ((rc = io_wait(&io, POLLOUT, e)) < 0) {
        close(fd);
        if (rc == E_INTR)
            return rc;
        if (errno == ETIMEDOUT) {
            fmt_us(io.timeout_us, tb, sizeof(tb));
            return err_set(e, E_CONN,
                           "cannot connect to %s: no answer within %s (--timeout): check the "
                           "address, the route and firewalls",
                           name, tb);
        }
        return err_prefix(e, "cannot connect to %s", name);
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
        soerr = errno;
    if (soerr)
        goto failed;
connected:
    set_nodelay(fd);
    return fd;
failed:
    close(fd);
    if (soerr == ECONNREFUSED)
        return err_set(e, E_CONN,
                       "cannot connect to %s: connection refused: is 'tpccbench netbench server' "
                       "running there?",
                       name);
    return err_set(e, E_CONN, "cannot connect to %s: %s", name, err_errno(soerr, eb, sizeof(eb)));
}

/* What went wrong during repetition rep (0: before the first), as a message. */
static int io_fail(struct err *e, int rc, const char *what, uint32_t rep, uint32_t n_repeat,
                   int64_t timeout_us)
{
    char tb[32], where[300];

    if (rc == E_INTR)
        return rc;
    if (rep)
        snprintf(where, sizeof(where), "%s in repetition %u of %u", what, rep, n_repeat);
    else
        snprintf(where, sizeof(where), "%s", what);
    if (rc == E_FAIL && errno == ETIMEDOUT) {
        fmt_us(timeout_us, tb, sizeof(tb));
        return err_set(e, E_FAIL,
                       "%s: no progress within %s (--timeout): the peer stopped answering", where,
                       tb);
    }
    if (rc == E_CONN && strcmp(e->msg, "closed") == 0)
        return err_set(e, E_CONN, "%s: the peer closed the connection", where);
    return err_prefix(e, "%s", where);
}

/* A client's connection and buffers, shared by its phases. */
struct nb_client {
    const struct nb_opts *o;
    struct nb_result *r;
    struct nb_io io;     /* the connection, -1 before it */
    unsigned char *msg;  /* one message of o->size_bytes, patterned */
    unsigned char *rbuf; /* where replies are read, rcap bytes */
    size_t rcap;
    uint64_t reply_bytes; /* the size of each reply */
};

/* Connect to the first address of the server that answers: r->peer and r->connect_ms. */
static int client_connect(struct nb_client *cl, struct err *e)
{
    const struct nb_opts *o = cl->o;
    struct addrinfo *res = NULL;
    char name[300];
    uint64_t t0;
    int rc;

    snprintf(name, sizeof(name), "%s port %s", o->host, o->port);
    if ((rc = nb_resolve(o->host, o->port, 0, &res, e)) < 0)
        return rc;
    /* Each address in turn (IPv6 and IPv4 of a name); the last error counts. */
    t0 = now_ns();
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if ((rc = connect_one(ai, &cl->io, name, e)) >= 0) {
            cl->io.fd = rc;
            nb_addr_str(ai->ai_addr, ai->ai_addrlen, cl->r->peer, sizeof(cl->r->peer));
            break;
        }
        if (rc == E_INTR)
            break;
    }
    freeaddrinfo(res);
    if (cl->io.fd < 0)
        return rc;
    cl->r->connect_ms = (double)(now_ns() - t0) / 1e6;
    return 0;
}

/* Announce the bench (counts, size, reply mode) and read the server's answer. */
static int client_hello(struct nb_client *cl, struct err *e)
{
    const struct nb_opts *o = cl->o;
    unsigned char hello[NB_HELLO_BYTES], answer[NB_ANSWER_BYTES];
    int rc;

    memset(hello, 0, sizeof(hello));
    memcpy(hello, NB_MAGIC, 4);
    put_u32(hello + 4, NB_VERSION);
    put_u32(hello + 8, o->n_send);
    put_u32(hello + 12, o->size_bytes);
    put_u32(hello + 16, o->n_repeat);
    put_u32(hello + 20, (uint32_t)o->reply);
    if ((rc = io_write_all(&cl->io, hello, sizeof(hello), e)) < 0 ||
        (rc = io_read_all(&cl->io, answer, sizeof(answer), sizeof(answer), 1, e)) < 0)
        return io_fail(e, rc, "handshake with the server", 0, o->n_repeat, o->timeout_us);
    if (memcmp(answer, NB_MAGIC, 4) != 0)
        return err_set(e, E_FAIL, "%s is not a tpccbench netbench server (bad answer to hello)",
                       cl->r->peer);
    if (get_u32(answer + 4) != 0) {
        answer[sizeof(answer) - 1] = '\0';
        return err_set(e, E_USAGE, "the server refused the bench: %s", (const char *)answer + 8);
    }
    return 0;
}

/* The message to send (a pattern) and the buffer replies are read into. */
static int client_buffers(struct nb_client *cl, struct err *e)
{
    const struct nb_opts *o = cl->o;

    cl->msg = malloc(o->size_bytes);
    cl->rcap = cl->reply_bytes < NB_IO_CHUNK ? (size_t)cl->reply_bytes : NB_IO_CHUNK;
    cl->rbuf = malloc(cl->rcap < 8 ? 8 : cl->rcap);
    if (!cl->msg || !cl->rbuf)
        return err_set(e, E_FAIL, "out of memory for messages of %u bytes", o->size_bytes);
    for (uint32_t i = 0; i < o->size_bytes; i++)
        cl->msg[i] = (unsigned char)(i * 131u + 7u);
    return 0;
}

/* Repetition rep: send the messages, read the reply (numbered rep), record its round trip. */
static int client_repetition(struct nb_client *cl, uint32_t rep, uint64_t t_start, struct err *e)
{
    const struct nb_opts *o = cl->o;
    struct nb_result *r = cl->r;
    uint64_t t = now_ns(), dt;
    unsigned char head[8];
    int rc;

    if (sig_stop_requested())
        return err_set(e, E_INTR, "interrupted after %u of %u repetitions", rep - 1, o->n_repeat);
    for (uint32_t m = 0; m < o->n_send; m++) {
        if ((rc = io_write_all(&cl->io, cl->msg, o->size_bytes, e)) < 0)
            return io_fail(e, rc, "sending", rep, o->n_repeat, o->timeout_us);
        r->bytes_sent += o->size_bytes;
    }
    /* The reply: its first 8 bytes (when it has 8) are the repetition number. */
    if (cl->reply_bytes >= 8) {
        if ((rc = io_read_all(&cl->io, head, 8, 8, 1, e)) < 0 ||
            (rc = io_read_all(&cl->io, cl->rbuf, cl->rcap, cl->reply_bytes - 8, 0, e)) < 0)
            return io_fail(e, rc, "waiting for the reply", rep, o->n_repeat, o->timeout_us);
    } else if ((rc = io_read_all(&cl->io, cl->rbuf, cl->rcap, cl->reply_bytes, 1, e)) < 0) {
        return io_fail(e, rc, "waiting for the reply", rep, o->n_repeat, o->timeout_us);
    }
    dt = now_ns() - t;
    r->bytes_received += cl->reply_bytes;
    if (cl->reply_bytes >= 8 && get_u64(head) != rep)
        return err_set(e, E_FAIL,
                       "the reply to repetition %u is numbered %llu: the server is out of step",
                       rep, (unsigned long long)get_u64(head));
    hist_record(&r->rtt, (dt + 500) / 1000);
    r->n_done = rep;
    r->elapsed_s = (double)(now_ns() - t_start) / 1e9;
    return 0;
}

int nb_client_run(const struct nb_opts *o, struct nb_result *r, struct err *e)
{
    struct nb_client cl = {
        .o = o,
        .r = r,
        .io = { .fd = -1, .timeout_us = o->timeout_us, .unmask = NULL },
        .reply_bytes = o->reply == NB_REPLY_SIZE ? o->size_bytes : NB_ACK_BYTES,
    };
    sigset_t old, unmask;
    uint64_t t_start;
    int rc;

    memset(r, 0, sizeof(*r));
    hist_init(&r->rtt);
    block_stop_signals(&old, &unmask);
    cl.io.unmask = &unmask;

    if ((rc = client_connect(&cl, e)) < 0 || cl.io.fd < 0)
        goto out;
    if ((rc = client_hello(&cl, e)) < 0 || (rc = client_buffers(&cl, e)) < 0)
        goto out;
    t_start = now_ns();
    for (uint32_t rep = 1; rep <= o->n_repeat; rep++)
        if ((rc = client_repetition(&cl, rep, t_start, e)) < 0)
            goto out;
    rc = 0;
out:
    if (rc == E_INTR)
        err_set(e, E_INTR, "interrupted after %u of %u repetitions", r->n_done, o->n_repeat);
    r->elapsed_s = r->n_done ? r->elapsed_s : 0;
    if (cl.io.fd >= 0)
        close(cl.io.fd);
    free(cl.msg);
    free(cl.rbuf);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Server. */

struct nb_server;

/* One client being served: its own thread, fd and report. */
struct nb_conn {
    struct nb_server *srv;
    int fd;
    pthread_t thread;
    int finished; /* set (under srv->lock) when the thread is about to end */
    struct nb_client_report rep;
    struct nb_conn *next; /* in srv->conns */
};

struct nb_server {
    const struct nb_opts *o;
    nb_report_fn on_report;
    void *arg;
    pthread_mutex_t lock;  /* guards conns, finished flags and the report calls */
    struct nb_conn *conns; /* clients being served */
    int done_fd;           /* eventfd: a client thread finished */
    int stopping;          /* set (under lock) before the stop shuts client sockets down */
};

/* Refuse the bench with a reason the client prints. */
static int refuse(const struct nb_io *io, struct nb_client_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(const struct nb_io *io, struct nb_client_report *rep, const char *fmt, ...)
{
    unsigned char answer[NB_ANSWER_BYTES];
    struct err e;
    va_list ap;

    memset(answer, 0, sizeof(answer));
    memcpy(answer, NB_MAGIC, 4);
    put_u32(answer + 4, 1);
    va_start(ap, fmt);
    vsnprintf((char *)answer + 8, sizeof(answer) - 8, fmt, ap);
    va_end(ap);
    snprintf(rep->error, sizeof(rep->error), "refused: %s", (const char *)answer + 8);
    io_write_all(io, answer, sizeof(answer), &e);
    return -1;
}

/* Check one announced value against the server's own (0 = any). */
static int check_arg(const struct nb_io *io, struct nb_client_report *rep, const char *name,
                     uint32_t got, uint32_t lo, uint32_t hi, uint32_t want)
{
    if (got < lo || got > hi)
        return refuse(io, rep, "%s must be from %u to %u (got %u)", name, lo, hi, got);
    if (want && got != want)
        return refuse(io, rep, "this server runs %s %u (got %u): use the server's arguments", name,
                      want, got);
    return 0;
}

static void serve(struct nb_conn *c)
{
    const struct nb_opts *o = c->srv->o;
    struct nb_client_report *rep = &c->rep;
    struct nb_io io = { .fd = c->fd, .timeout_us = o->timeout_us, .unmask = NULL };
    unsigned char hello[NB_HELLO_BYTES], answer[NB_ANSWER_BYTES];
    unsigned char *buf = NULL;
    uint64_t reply_bytes, t0;
    size_t cap;
    struct err e;
    int rc;

    err_clear(&e);
    if ((rc = io_read_all(&io, hello, sizeof(hello), sizeof(hello), 1, &e)) < 0) {
        io_fail(&e, rc, "reading the hello", 0, 0, o->timeout_us);
        snprintf(rep->error, sizeof(rep->error), "%s", e.msg);
        return;
    }
    if (memcmp(hello, NB_MAGIC, 4) != 0 || get_u32(hello + 4) != NB_VERSION) {
        refuse(&io, rep, "not a tpccbench netbench client of protocol version %d", NB_VERSION);
        return;
    }
    rep->n_send = get_u32(hello + 8);
    rep->size_bytes = get_u32(hello + 12);
    rep->n_repeat = get_u32(hello + 16);
    rep->reply = get_u32(hello + 20) == NB_REPLY_SIZE ? NB_REPLY_SIZE : NB_REPLY_ACK;
    if (get_u32(hello + 20) > NB_REPLY_SIZE) {
        refuse(&io, rep, "unknown reply mode %u", get_u32(hello + 20));
        return;
    }
    if (check_arg(&io, rep, "SEND#", rep->n_send, 1, NB_MAX_SEND, o->n_send) < 0 ||
        check_arg(&io, rep, "SIZE", rep->size_bytes, 1, NB_MAX_SIZE, o->size_bytes) < 0 ||
        check_arg(&io, rep, "REPEAT#", rep->n_repeat, 1, NB_MAX_REPEAT, o->n_repeat) < 0)
        return;
    reply_bytes = rep->reply == NB_REPLY_SIZE ? rep->size_bytes : NB_ACK_BYTES;
    cap = NB_IO_CHUNK;
    if (!(buf = calloc(1, cap))) {
        refuse(&io, rep, "the server is out of memory");
        return;
    }
    memset(answer, 0, sizeof(answer));
    memcpy(answer, NB_MAGIC, 4);
    if ((rc = io_write_all(&io, answer, sizeof(answer), &e)) < 0) {
        io_fail(&e, rc, "answering the hello", 0, rep->n_repeat, o->timeout_us);
        snprintf(rep->error, sizeof(rep->error), "%s", e.msg);
        free(buf);
        return;
    }
    t0 = now_ns();
    for (uint32_t r = 1; r <= rep->n_repeat; r++) {
        uint64_t left = reply_bytes;

        if ((rc = io_read_all(&io, buf, cap, (uint64_t)rep->n_send * rep->size_bytes, 0, &e)) < 0) {
            io_fail(&e, rc, "receiving", r, rep->n_repeat, o->timeout_us);
            goto fail;
        }
        rep->bytes_received += (uint64_t)rep->n_send * rep->size_bytes;
        /* The reply: the repetition number first, then the buffer again. */
        if (reply_bytes >= 8)
            put_u64(buf, r);
        while (left > 0) {
            size_t n = left < cap ? (size_t)left : cap;
            if ((rc = io_write_all(&io, buf, n, &e)) < 0) {
                io_fail(&e, rc, "replying", r, rep->n_repeat, o->timeout_us);
                goto fail;
            }
            left -= n;
            rep->bytes_sent += n;
        }
        rep->n_done = r;
        rep->elapsed_s = (double)(now_ns() - t0) / 1e9;
    }
    rep->ok = 1;
    free(buf);
    return;
fail:
    snprintf(rep->error, sizeof(rep->error), "%s", e.msg);
    free(buf);
}

static void *conn_main(void *p)
{
    struct nb_conn *c = p;
    struct nb_server *s = c->srv;
    uint64_t one = 1;
    ssize_t w;

    serve(c);
    pthread_mutex_lock(&s->lock);
    if (!c->rep.ok && s->stopping)
        snprintf(c->rep.error, sizeof(c->rep.error),
                 "the server was stopped after %u of %u repetitions", c->rep.n_done,
                 c->rep.n_repeat);
    if (s->on_report)
        s->on_report(s->arg, &c->rep);
    c->finished = 1;
    pthread_mutex_unlock(&s->lock);
    w = write(s->done_fd, &one, sizeof(one));
    (void)w;
    return NULL;
}

/* Join the threads that finished (all when all != 0), counting them. */
static void reap(struct nb_server *s, int all, int *n_served, int *n_failed)
{
    for (;;) {
        struct nb_conn **pp, *c = NULL;

        pthread_mutex_lock(&s->lock);
        for (pp = &s->conns; *pp; pp = &(*pp)->next)
            if ((*pp)->finished || all) {
                c = *pp;
                *pp = c->next;
                break;
            }
        pthread_mutex_unlock(&s->lock);
        if (!c)
            return;
        pthread_join(c->thread, NULL);
        close(c->fd);
        (*n_served)++;
        if (!c->rep.ok)
            (*n_failed)++;
        free(c);
    }
}

/*
 * Listen on each address of res (at most NB_MAX_LISTEN), into pfd[0 ..
 * *nl), and tell on_listen each address.  Returns the last failure: a
 * server that listens on some address runs without the others.
 */
static int listen_all(const struct addrinfo *res, struct pollfd *pfd, int *nl,
                      nb_listen_fn on_listen, void *arg, struct err *e)
{
    char eb[128], name[300];
    int rc = 0;

    for (const struct addrinfo *ai = res; ai && *nl < NB_MAX_LISTEN; ai = ai->ai_next) {
        int fd, one = 1;
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);

        nb_addr_str(ai->ai_addr, ai->ai_addrlen, name, sizeof(name));
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            rc = err_set(e, E_USAGE, "cannot listen on %s: socket: %s", name,
                         err_errno(errno, eb, sizeof(eb)));
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        /* Several addresses: each socket its own family, so they do not clash. */
        if (ai->ai_family == AF_INET6 && res->ai_next)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0 ||
            getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
            rc = err_set(e, E_USAGE, "cannot listen on %s: %s", name,
                         err_errno(errno, eb, sizeof(eb)));
            close(fd);
            continue;
        }
        pfd[*nl].fd = fd;
        pfd[*nl].events = POLLIN;
        (*nl)++;
        if (on_listen) {
            nb_addr_str((struct sockaddr *)&ss, sl, name, sizeof(name));
            on_listen(arg, name, nb_addr_port((struct sockaddr *)&ss));
        }
    }
    return rc;
}

/*
 * Take every connection waiting on listening socket lfd, each served by a
 * thread of its own; *n_conns counts those being served.  Past the limits
 * (NB_MAX_CONCURRENT, o->max_clients with n_served done) a connection is
 * closed at once.
 */
static void accept_all(struct nb_server *s, int lfd, int *n_conns, int n_served)
{
    const struct nb_opts *o = s->o;

    for (;;) {
        struct nb_conn *c;
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            break; /* EAGAIN, or an aborted connection, or out of fds */
        /* With a client limit, take no more than the limit. */
        if (*n_conns >= NB_MAX_CONCURRENT ||
            (o->max_clients && n_served + *n_conns >= o->max_clients) ||
            !(c = calloc(1, sizeof(*c)))) {
            close(fd);
            continue;
        }
        set_nodelay(fd);
        c->srv = s;
        c->fd = fd;
        nb_addr_str((struct sockaddr *)&ss, sl, c->rep.peer, sizeof(c->rep.peer));
        pthread_mutex_lock(&s->lock);
        if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
            pthread_mutex_unlock(&s->lock);
            close(fd);
            free(c);
            continue;
        }
        c->next = s->conns;
        s->conns = c;
        (*n_conns)++;
        pthread_mutex_unlock(&s->lock);
    }
}

/* Stop: wake every client thread (its next wait sees the shutdown). */
static void stop_clients(struct nb_server *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    for (struct nb_conn *c = s->conns; c; c = c->next)
        shutdown(c->fd, SHUT_RDWR);
    pthread_mutex_unlock(&s->lock);
}

int nb_server_run(const struct nb_opts *o, nb_listen_fn on_listen, nb_report_fn on_report,
                  void *arg, int *n_served, int *n_failed, struct err *e)
{
    struct nb_server s;
    struct addrinfo *res = NULL;
    struct pollfd pfd[NB_MAX_LISTEN + 1];
    sigset_t old, unmask;
    int nl = 0, rc = 0, n_conns = 0;
    char eb[128];

    *n_served = *n_failed = 0;
    memset(&s, 0, sizeof(s));
    s.o = o;
    s.on_report = on_report;
    s.arg = arg;
    pthread_mutex_init(&s.lock, NULL);
    s.done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s.done_fd < 0) {
        pthread_mutex_destroy(&s.lock);
        return err_set(e, E_FAIL, "eventfd: %s", err_errno(errno, eb, sizeof(eb)));
    }
    /* Client threads inherit the blocked stop signals; only ppoll here
     * unblocks them. */
    block_stop_signals(&old, &unmask);

    if ((rc = nb_resolve(o->host, o->port, 1, &res, e)) < 0)
        goto out;
    rc = listen_all(res, pfd, &nl, on_listen, arg, e);
    if (nl == 0)
        goto out;
    rc = 0;
    pfd[nl].fd = s.done_fd;
    pfd[nl].events = POLLIN;

    while (!sig_stop_requested() && (o->max_clients == 0 || *n_served < o->max_clients)) {
        int n = ppoll(pfd, (nfds_t)nl + 1, NULL, &unmask);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = err_set(e, E_FAIL, "poll: %s", err_errno(errno, eb, sizeof(eb)));
            break;
        }
        if (pfd[nl].revents) {
            uint64_t v;
            ssize_t r = read(s.done_fd, &v, sizeof(v));
            (void)r;
            int before = *n_served;
            reap(&s, 0, n_served, n_failed);
            n_conns -= *n_served - before;
        }
        for (int i = 0; i < nl; i++)
            if (pfd[i].revents)
                accept_all(&s, pfd[i].fd, &n_conns, *n_served);
    }
    stop_clients(&s);
    reap(&s, 1, n_served, n_failed);
out:
    for (int i = 0; i < nl; i++)
        close(pfd[i].fd);
    if (res)
        freeaddrinfo(res);
    close(s.done_fd);
    pthread_mutex_destroy(&s.lock);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
