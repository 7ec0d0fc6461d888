/*
 * test_proxy.c - unit tests for the delaying proxy (src/tools/proxy.c) and
 * the socket helpers it shares with netbench (src/tools/netbench.c).
 *
 * The helpers are checked table-driven (HOST:PORT splitting, sizes).  The
 * proxy runs in-process through its API on 127.0.0.1 port 0, in front of a
 * small server written here: 20 connections at once each carry 1 MB of
 * seeded random data each way, the client half-closes after sending (the
 * server still sends after that), and an FNV-1a hash of what each side
 * received is compared with the hash of what the other side sent, so a lost,
 * duplicated or reordered byte fails.  That runs with 1 ms delay and 0.5 ms
 * jitter (chunks must not overtake each other) and again with a 64 KB queue
 * limit (back-pressure pauses reading).  Every connection must then end
 * cleanly (FIN both ways, none reset).  A server that refuses makes the
 * proxy reset the client and say so through the log callback.  Each failure
 * prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tools/netbench.h"
#include "tools/proxy.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

/* Connections at once and bytes each way per connection (the slow-reader
 * test uses 4 connections of 16 times as much). */
#define TEST_NCONN 20
#define TEST_BYTES (1024 * 1024)

/* ------------------------------------------------------------------------ */
/* Helpers. */

static void test_sleep_ms(int ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* FNV-1a, 64 bits: order-sensitive, so a reordering changes it. */
static uint64_t test_fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
#define TEST_FNV_INIT UINT64_C(0xcbf29ce484222325)

/* Fill buf with seeded pseudo-random bytes (splitmix64). */
static void test_fill(unsigned char *buf, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t z = (seed += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        z ^= z >> 31;
        for (size_t k = 0; k < 8 && i + k < n; k++)
            buf[i + k] = (unsigned char)(z >> (8 * k));
    }
}

/* A listening socket on 127.0.0.1, port chosen by the system. */
static int test_listen(int *port)
{
    struct sockaddr_in a;
    socklen_t sl = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

    assert_true(fd >= 0);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 128), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static int test_connect(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    assert_true(fd >= 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One end of a transfer: send n seeded bytes then shut down writing, and
 * meanwhile (another thread) read until EOF, hashing what arrives. */
struct test_end {
    int fd;
    size_t n_bytes;         /* what this end sends */
    uint64_t seed;          /* what this end sends */
    uint64_t sent_hash;     /* hash of what it sent */
    uint64_t recv_hash;     /* hash of what it received */
    uint64_t n_received;    /* bytes received */
    int send_err, recv_err; /* errno of a failure, 0 = none */
    int got_eof;            /* 1: the read ended with a clean EOF */
    int read_after_ms;      /* wait this long before reading (a slow reader) */
};

static void *test_sender(void *arg)
{
    struct test_end *t = arg;
    unsigned char *buf = malloc(t->n_bytes);
    size_t off = 0;

    assert_non_null(buf);
    test_fill(buf, t->n_bytes, t->seed);
    t->sent_hash = test_fnv(TEST_FNV_INIT, buf, t->n_bytes);
    /* Odd-sized writes, so chunk borders fall anywhere. */
    while (off < t->n_bytes) {
        size_t n = t->n_bytes - off < 77777 ? t->n_bytes - off : 77777;
        ssize_t w = send(t->fd, buf + off, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            t->send_err = errno;
            break;
        }
        off += (size_t)w;
    }
    if (!t->send_err && shutdown(t->fd, SHUT_WR) != 0)
        t->send_err = errno;
    free(buf);
    return NULL;
}

static void test_receive(struct test_end *t)
{
    unsigned char buf[65536];

    if (t->read_after_ms)
        test_sleep_ms(t->read_after_ms);
    t->recv_hash = TEST_FNV_INIT;
    for (;;) {
        ssize_t r = recv(t->fd, buf, sizeof(buf), 0);
        if (r > 0) {
            t->recv_hash = test_fnv(t->recv_hash, buf, (size_t)r);
            t->n_received += (uint64_t)r;
        } else if (r == 0) {
            t->got_eof = 1;
            return;
        } else if (errno != EINTR) {
            t->recv_err = errno;
            return;
        }
    }
}

/* Run one end: a sender thread, the receiver here. */
static void *test_end_main(void *arg)
{
    struct test_end *t = arg;
    pthread_t s;

    assert_int_equal(pthread_create(&s, NULL, test_sender, t), 0);
    test_receive(t);
    pthread_join(s, NULL);
    return NULL;
}

/* The server: accepts TEST_NCONN connections, runs an end on each. */
struct test_server {
    int lfd;
    int n_conn;        /* connections to accept */
    size_t n_bytes;    /* each end sends this much */
    int read_after_ms; /* each end waits this long before reading */
    struct test_end ends[TEST_NCONN];
    pthread_t threads[TEST_NCONN];
    int n;
};

static void *test_server_main(void *arg)
{
    struct test_server *s = arg;

    for (s->n = 0; s->n < s->n_conn; s->n++) {
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            break;
        s->ends[s->n].fd = fd;
        s->ends[s->n].seed = 1000u + (uint64_t)s->n; /* the server's data */
        s->ends[s->n].read_after_ms = s->read_after_ms;
        s->ends[s->n].n_bytes = s->n_bytes;
        assert_int_equal(pthread_create(&s->threads[s->n], NULL, test_end_main, &s->ends[s->n]), 0);
    }
    for (int i = 0; i < s->n; i++)
        pthread_join(s->threads[i], NULL);
    return NULL;
}

/* Log callback: counts lines and keeps the last. */
struct test_log {
    pthread_mutex_t lock;
    int n;
    char last[512];
};

static void test_log_fn(void *arg, const char *msg)
{
    struct test_log *l = arg;

    pthread_mutex_lock(&l->lock);
    l->n++;
    snprintf(l->last, sizeof(l->last), "%s", msg);
    pthread_mutex_unlock(&l->lock);
}

/* ------------------------------------------------------------------------ */
/* Helpers of netbench.h. */

static void test_split_hostport(void **state)
{
    static const struct {
        const char *in;
        int ok;
        const char *host, *port;
    } cases[] = {
        { "127.0.0.1:5432", 1, "127.0.0.1", "5432" },
        { "db.example:0", 1, "db.example", "0" },
        { "[::1]:6432", 1, "::1", "6432" },
        { "[fe80::1%eth0]:1", 1, "fe80::1%eth0", "1" },
        { ":5432", 1, "", "5432" },
        { "localhost:65535", 1, "localhost", "65535" },
        { "localhost", 0, NULL, NULL },
        { "localhost:", 0, NULL, NULL },
        { "localhost:65536", 0, NULL, NULL },
        { "localhost:-1", 0, NULL, NULL },
        { "localhost:54x", 0, NULL, NULL },
        { "::1:5432", 0, NULL, NULL },
        { "[::1]5432", 0, NULL, NULL },
        { "[::1", 0, NULL, NULL },
        { "", 0, NULL, NULL },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char host[64] = "?", port[16] = "?";
        struct err e;
        int rc;

        err_clear(&e);
        rc = nb_split_hostport(cases[i].in, host, sizeof(host), port, sizeof(port), &e);
        if ((rc == 0) != cases[i].ok ||
            (cases[i].ok && (strcmp(host, cases[i].host) || strcmp(port, cases[i].port)))) {
            print_error("\"%s\": got rc %d host \"%s\" port \"%s\" (%s); want %s \"%s\" \"%s\"\n",
                        cases[i].in, rc, host, port, e.msg, cases[i].ok ? "ok" : "an error",
                        cases[i].host ? cases[i].host : "", cases[i].port ? cases[i].port : "");
            fail();
        }
        if (!cases[i].ok) {
            assert_int_equal(e.code, E_USAGE);
            assert_true(strlen(e.msg) > 0);
        }
    }
}

static void test_parse_size(void **state)
{
    static const struct {
        const char *in;
        uint64_t min, max;
        int ok;
        uint64_t want;
    } cases[] = {
        { "8192", 1, 1 << 30, 1, 8192 },
        { "8K", 1, 1 << 30, 1, 8192 },
        { "8k", 1, 1 << 30, 1, 8192 },
        { "64M", 1, UINT64_C(1) << 30, 1, 64u << 20 },
        { "0", 0, 10, 1, 0 },
        { "0", 1, 10, 0, 0 },
        { "11", 1, 10, 0, 0 },
        { "", 1, 10, 0, 0 },
        { "-1", 0, 10, 0, 0 },
        { "1.5K", 1, 1 << 20, 0, 0 },
        { "5x", 1, 10, 0, 0 },
        { "5KK", 1, 1 << 20, 0, 0 },
        { "99999999999999999999", 1, UINT64_MAX, 0, 0 },
        { "18014398509481984K", 1, UINT64_MAX, 0, 0 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t v = 12345;
        int rc = nb_parse_size(cases[i].in, cases[i].min, cases[i].max, &v);
        if ((rc == 0) != cases[i].ok || (cases[i].ok && v != cases[i].want)) {
            print_error("\"%s\" in [%llu, %llu]: got rc %d value %llu; want %s %llu\n", cases[i].in,
                        (unsigned long long)cases[i].min, (unsigned long long)cases[i].max, rc,
                        (unsigned long long)v, cases[i].ok ? "ok" : "an error",
                        (unsigned long long)cases[i].want);
            fail();
        }
    }
}

static void test_parse_port(void **state)
{
    int p = -1;

    (void)state;
    assert_int_equal(nb_parse_port("0", 0, &p), 0);
    assert_int_equal(p, 0);
    assert_int_equal(nb_parse_port("0", 1, &p), -1);
    assert_int_equal(nb_parse_port("65535", 1, &p), 0);
    assert_int_equal(p, 65535);
    assert_int_equal(nb_parse_port("65536", 1, &p), -1);
    assert_int_equal(nb_parse_port("", 0, &p), -1);
    assert_int_equal(nb_parse_port("8o", 0, &p), -1);
    assert_int_equal(nb_parse_port("000080", 0, &p), -1);
}

/* ------------------------------------------------------------------------ */
/* The proxy. */

static void test_start_errors(void **state)
{
    static const struct {
        const char *listen, *to;
        int64_t delay_us, jitter_us;
        int code;
        const char *msg_part;
    } cases[] = {
        { "127.0.0.1:0", "127.0.0.1:1", -1, 0, E_USAGE, "delay" },
        { "127.0.0.1:0", "127.0.0.1:1", PROXY_MAX_DELAY_US + 1, 0, E_USAGE, "delay" },
        { "127.0.0.1:0", "127.0.0.1:1", 0, -5, E_USAGE, "jitter" },
        { "127.0.0.1", "127.0.0.1:1", 0, 0, E_USAGE, "--listen" },
        { "127.0.0.1:0", "127.0.0.1", 0, 0, E_USAGE, "--to" },
        { "127.0.0.1:0", "127.0.0.1:0", 0, 0, E_USAGE, "--to" },
        { "127.0.0.1:0", ":5432", 0, 0, E_USAGE, "--to" },
        { "192.0.2.1:0", "127.0.0.1:1", 0, 0, E_USAGE, "cannot listen" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct proxy_opts o;
        struct proxy *p = NULL;
        struct err e;
        int rc;

        memset(&o, 0, sizeof(o));
        o.listen = cases[i].listen;
        o.to = cases[i].to;
        o.delay_us = cases[i].delay_us;
        o.jitter_us = cases[i].jitter_us;
        err_clear(&e);
        rc = proxy_start(&o, &p, &e);
        if (rc != cases[i].code || p != NULL || !strstr(e.msg, cases[i].msg_part)) {
            print_error("listen %s to %s delay %lld jitter %lld: got rc %d \"%s\"; want rc %d "
                        "and a message with \"%s\"\n",
                        cases[i].listen, cases[i].to, (long long)cases[i].delay_us,
                        (long long)cases[i].jitter_us, rc, e.msg, cases[i].code, cases[i].msg_part);
            proxy_stop(p);
            fail();
        }
    }
}

/* nconn connections, nbytes each way, through a proxy with these options.
 * With slow_ms, every end waits that long before reading, so the proxy meets
 * its queue limit and full sockets (partial writes, EPOLLOUT): on loopback a
 * socket takes megabytes before it is full. */
static void run_transfer(int nconn, size_t nbytes, int64_t delay_us, int64_t jitter_us,
                         size_t max_queue, int slow_ms)
{
    struct test_server *srv = calloc(1, sizeof(*srv));
    struct test_end *cl = calloc(TEST_NCONN, sizeof(*cl));
    pthread_t sth, cth[TEST_NCONN];
    struct proxy_opts o;
    struct proxy *p = NULL;
    struct proxy_stats st;
    char to[64];
    int port;
    struct err e;

    assert_non_null(srv);
    assert_non_null(cl);
    srv->lfd = test_listen(&port);
    srv->read_after_ms = slow_ms;
    srv->n_conn = nconn;
    srv->n_bytes = nbytes;
    snprintf(to, sizeof(to), "127.0.0.1:%d", port);
    memset(&o, 0, sizeof(o));
    o.listen = "127.0.0.1:0";
    o.to = to;
    o.delay_us = delay_us;
    o.jitter_us = jitter_us;
    o.max_queue_bytes = max_queue;
    o.seed = 42;
    err_clear(&e);
    if (proxy_start(&o, &p, &e) != 0) {
        print_error("proxy_start: %s\n", e.msg);
        fail();
    }
    assert_true(proxy_port(p) > 0);
    assert_int_equal(pthread_create(&sth, NULL, test_server_main, srv), 0);
    for (int i = 0; i < nconn; i++) {
        cl[i].fd = test_connect(proxy_port(p));
        cl[i].n_bytes = nbytes;
        assert_true(cl[i].fd >= 0);
        cl[i].seed = (uint64_t)i; /* the client's data */
        cl[i].read_after_ms = slow_ms;
        assert_int_equal(pthread_create(&cth[i], NULL, test_end_main, &cl[i]), 0);
    }
    for (int i = 0; i < nconn; i++)
        pthread_join(cth[i], NULL);
    pthread_join(sth, NULL);
    assert_int_equal(srv->n, nconn);

    /* The server's connections come in any order: match them by hash. */
    for (int i = 0; i < nconn; i++) {
        struct test_end *c = &cl[i], *s = NULL;
        for (int k = 0; k < nconn; k++)
            if (srv->ends[k].recv_hash == c->sent_hash)
                s = &srv->ends[k];
        if (c->send_err || c->recv_err || !c->got_eof || c->n_received != nbytes || !s) {
            print_error("client %d: send errno %d, recv errno %d, eof %d, received %llu of %zu "
                        "bytes, server end with its hash %s\n",
                        i, c->send_err, c->recv_err, c->got_eof, (unsigned long long)c->n_received,
                        nbytes, s ? "found" : "missing");
            fail();
        }
        if (s->send_err || s->recv_err || !s->got_eof || s->n_received != nbytes ||
            c->recv_hash != s->sent_hash) {
            print_error("client %d: server end: send errno %d, recv errno %d, eof %d, received "
                        "%llu bytes; client received hash %016llx, server sent %016llx\n",
                        i, s->send_err, s->recv_err, s->got_eof, (unsigned long long)s->n_received,
                        (unsigned long long)c->recv_hash, (unsigned long long)s->sent_hash);
            fail();
        }
    }
    /* Each end saw the other's FIN, so both FINs went through: the proxy
     * closes each connection right after the second one. */
    for (int waited = 0; waited < 2000; waited += 10) {
        proxy_stats(p, &st);
        if (st.n_closed == (uint64_t)nconn)
            break;
        test_sleep_ms(10);
    }
    proxy_stats(p, &st);
    if (st.n_accepted != (uint64_t)nconn || st.n_closed != (uint64_t)nconn || st.n_reset != 0 ||
        st.n_open != 0 || st.n_connect_failed != 0 ||
        st.bytes_to_server != (uint64_t)nconn * nbytes ||
        st.bytes_to_client != (uint64_t)nconn * nbytes) {
        print_error("stats: accepted %llu closed %llu reset %llu open %llu failed %llu, bytes "
                    "%llu to the server %llu to the client; want %d accepted and closed, none "
                    "else, %llu bytes each way\n",
                    (unsigned long long)st.n_accepted, (unsigned long long)st.n_closed,
                    (unsigned long long)st.n_reset, (unsigned long long)st.n_open,
                    (unsigned long long)st.n_connect_failed, (unsigned long long)st.bytes_to_server,
                    (unsigned long long)st.bytes_to_client, nconn,
                    (unsigned long long)nconn * nbytes);
        fail();
    }
    /* Back-pressure: a direction holds at most its limit plus one read. */
    if (st.peak_queue_bytes > (max_queue ? max_queue : PROXY_DEFAULT_QUEUE_BYTES) + 65536) {
        print_error("peak queue %llu bytes; want at most the limit %zu + 65536\n",
                    (unsigned long long)st.peak_queue_bytes,
                    max_queue ? max_queue : (size_t)PROXY_DEFAULT_QUEUE_BYTES);
        fail();
    }
    if (slow_ms && st.peak_queue_bytes < max_queue) {
        print_error("peak queue %llu bytes: the slow readers never filled the %zu-byte queue, "
                    "so back-pressure went untested\n",
                    (unsigned long long)st.peak_queue_bytes, max_queue);
        fail();
    }
    assert_int_equal(proxy_error(p, &e), 0);
    proxy_stop(p);
    for (int i = 0; i < nconn; i++) {
        close(cl[i].fd);
        close(srv->ends[i].fd);
    }
    close(srv->lfd);
    free(srv);
    free(cl);
}

static void test_transfer_jitter(void **state)
{
    (void)state;
    run_transfer(TEST_NCONN, TEST_BYTES, 1000, 500, 0, 0);
}

static void test_transfer_backpressure(void **state)
{
    (void)state;
    run_transfer(4, 16 * TEST_BYTES, 300, 0, 64 * 1024, 300);
}

static void test_transfer_no_delay(void **state)
{
    (void)state;
    run_transfer(TEST_NCONN, TEST_BYTES, 0, 0, 0, 0);
}

/* A server that refuses: the client is reset, the log says why. */
static void test_refused(void **state)
{
    struct test_log log;
    struct proxy_opts o;
    struct proxy *p = NULL;
    struct proxy_stats st;
    char to[64], buf[16];
    int port, lfd, fd;
    ssize_t r;
    struct err e;

    (void)state;
    memset(&log, 0, sizeof(log));
    pthread_mutex_init(&log.lock, NULL);
    /* A port that was just free: listen, note it, close. */
    lfd = test_listen(&port);
    close(lfd);
    snprintf(to, sizeof(to), "127.0.0.1:%d", port);
    memset(&o, 0, sizeof(o));
    o.listen = "127.0.0.1:0";
    o.to = to;
    o.delay_us = 1000;
    o.log = test_log_fn;
    o.log_arg = &log;
    err_clear(&e);
    assert_int_equal(proxy_start(&o, &p, &e), 0);
    fd = test_connect(proxy_port(p));
    assert_true(fd >= 0);
    r = recv(fd, buf, sizeof(buf), 0);
    if (!(r < 0 && errno == ECONNRESET)) {
        print_error("recv through a proxy whose server refuses: got %zd (errno %d); want -1 "
                    "with ECONNRESET\n",
                    r, errno);
        fail();
    }
    proxy_stats(p, &st);
    assert_int_equal(st.n_connect_failed, 1);
    assert_int_equal(st.n_open, 0);
    pthread_mutex_lock(&log.lock);
    if (log.n != 1 || !strstr(log.last, "cannot connect to 127.0.0.1 port") ||
        !strstr(log.last, "refused")) {
        print_error("log: %d lines, last \"%s\"; want 1 saying cannot connect ... refused\n", log.n,
                    log.last);
        pthread_mutex_unlock(&log.lock);
        fail();
    }
    pthread_mutex_unlock(&log.lock);
    close(fd);
    proxy_stop(p);
    pthread_mutex_destroy(&log.lock);
}

/* Stopping with connections open closes them: the client sees EOF. */
static void test_stop_closes(void **state)
{
    struct proxy_opts o;
    struct proxy *p = NULL;
    char to[64], buf[16];
    int port, lfd, fd, sfd;
    struct err e;

    (void)state;
    lfd = test_listen(&port);
    snprintf(to, sizeof(to), "127.0.0.1:%d", port);
    memset(&o, 0, sizeof(o));
    o.listen = "127.0.0.1:0";
    o.to = to;
    err_clear(&e);
    assert_int_equal(proxy_start(&o, &p, &e), 0);
    fd = test_connect(proxy_port(p));
    assert_true(fd >= 0);
    sfd = accept(lfd, NULL, NULL);
    assert_true(sfd >= 0);
    proxy_stop(p);
    assert_int_equal(recv(fd, buf, sizeof(buf), 0), 0);
    assert_int_equal(recv(sfd, buf, sizeof(buf), 0), 0);
    close(fd);
    close(sfd);
    close(lfd);
    proxy_stop(NULL);
}

int main(void)
{
    /* A proxy that stops forwarding would hang a transfer: fail instead. */
    alarm(120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_hostport),    cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_parse_port),        cmocka_unit_test(test_start_errors),
        cmocka_unit_test(test_transfer_jitter),   cmocka_unit_test(test_transfer_backpressure),
        cmocka_unit_test(test_transfer_no_delay), cmocka_unit_test(test_refused),
        cmocka_unit_test(test_stop_closes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
