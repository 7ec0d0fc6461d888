/*
 * evloop.c - client CPU per round trip: N threads blocking in PQexecPrepared
 * vs one thread driving N nonblocking connections with epoll.
 *
 *   evloop MODE N TOTAL SQL PARAM      (conninfo from $CONNINFO, password $PGPASSWORD)
 *
 * MODE: threads  N threads, one connection each, PQexecPrepared in a loop
 *       epoll    one thread, N nonblocking connections, one request always
 *                outstanding per connection, epoll_wait(-1) between events
 *       epoll0   as epoll, but after handling a blocking wake-up, poll again
 *                with timeout 0 until nothing is ready (collect stragglers)
 * SQL is prepared with one int parameter; PARAM is its value.
 * Connections are made and prepared before timing starts.  Prints one line:
 * mode N us_cpu/req (user+sys, getrusage RUSAGE_SELF) req/s ready/wakeup
 * vcsw/req ivcsw/req usr/req sys/req.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAXN 256

static const char *param;
static long per_thread;
static pthread_barrier_t bar;
static PGconn *conns[MAXN];

static void die(const char *what, PGconn *c)
{
    fprintf(stderr, "evloop: %s: %s", what, c ? PQerrorMessage(c) : strerror(errno));
    exit(1);
}

static double wall_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static void check(PGconn *c, PGresult *r)
{
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        die("query", c);
    PQclear(r);
}

static void *thread_main(void *arg)
{
    PGconn *c = arg;
    const char *vals[1] = {param};

    pthread_barrier_wait(&bar);
    for (long i = 0; i < per_thread; i++)
        check(c, PQexecPrepared(c, "s", 1, vals, NULL, NULL, 0));
    return NULL;
}

/* Send the next request on connection i; flush, asking for EPOLLOUT if needed. */
static void send_next(int ep, int i, int *want_out)
{
    const char *vals[1] = {param};
    PGconn *c = conns[i];
    int f;

    if (!PQsendQueryPrepared(c, "s", 1, vals, NULL, NULL, 0))
        die("PQsendQueryPrepared", c);
    f = PQflush(c);
    if (f < 0)
        die("PQflush", c);
    if ((f == 1) != want_out[i]) {
        struct epoll_event ev = {.events = EPOLLIN | (f ? EPOLLOUT : 0), .data.u32 = i};

        want_out[i] = f;
        if (epoll_ctl(ep, EPOLL_CTL_MOD, PQsocket(c), &ev) < 0)
            die("epoll_ctl", NULL);
    }
}

/* Handle one readiness event; returns 1 if a request completed. */
static int handle(int ep, struct epoll_event *e, int *want_out, long *sent, long total,
                  long *done)
{
    int i = e->data.u32;
    PGconn *c = conns[i];
    PGresult *r;

    if (e->events & EPOLLOUT) {
        int f = PQflush(c);

        if (f < 0)
            die("PQflush", c);
        if (f == 0) {
            struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};

            want_out[i] = 0;
            epoll_ctl(ep, EPOLL_CTL_MOD, PQsocket(c), &ev);
        }
    }
    if (!(e->events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
        return 0;
    if (!PQconsumeInput(c))
        die("PQconsumeInput", c);
    for (;;) {
        if (PQisBusy(c))
            return 0;
        r = PQgetResult(c);
        if (!r)
            break;
        check(c, r);
    }
    (*done)++;
    if (*sent < total) {
        (*sent)++;
        send_next(ep, i, want_out);
    }
    return 1;
}

static void run_epoll(int n, long total, int straggle, long *wakeups, long *events,
                      long *polls0, long *hits0)
{
    struct epoll_event evs[MAXN];
    int want_out[MAXN] = {0};
    long sent = 0, done = 0;
    int ep = epoll_create1(0);

    if (ep < 0)
        die("epoll_create1", NULL);
    for (int i = 0; i < n; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};

        if (PQsetnonblocking(conns[i], 1) < 0)
            die("PQsetnonblocking", conns[i]);
        if (epoll_ctl(ep, EPOLL_CTL_ADD, PQsocket(conns[i]), &ev) < 0)
            die("epoll_ctl", NULL);
    }
    for (int i = 0; i < n && sent < total; i++, sent++)
        send_next(ep, i, want_out);
    while (done < total) {
        int k = epoll_wait(ep, evs, MAXN, -1);

        if (k < 0) {
            if (errno == EINTR)
                continue;
            die("epoll_wait", NULL);
        }
        if (k == 0)
            continue;
        (*wakeups)++;
        for (;;) {
            *events += k;
            for (int j = 0; j < k; j++)
                handle(ep, &evs[j], want_out, &sent, total, &done);
            if (!straggle || done >= total)
                break;
            k = epoll_wait(ep, evs, MAXN, 0);
            (*polls0)++;
            if (k <= 0)
                break;
            (*hits0)++;
        }
    }
    close(ep);
}

int main(int argc, char **argv)
{
    const char *ci = getenv("CONNINFO");
    struct rusage r0, r1;
    pthread_t th[MAXN];
    long total, wakeups = 0, events = 0, polls0 = 0, hits0 = 0;
    double w0, w1, cpu, usr, sys;
    int n;

    if (argc != 6 || !ci) {
        fprintf(stderr, "usage: CONNINFO=... evloop threads|epoll|epoll0 N TOTAL SQL PARAM\n");
        return 2;
    }
    n = atoi(argv[2]);
    total = atol(argv[3]);
    param = argv[5];
    if (n < 1 || n > MAXN || total < n)
        return 2;
    for (int i = 0; i < n; i++) {
        conns[i] = PQconnectdb(ci);
        if (PQstatus(conns[i]) != CONNECTION_OK)
            die("connect", conns[i]);
        PGresult *r = PQprepare(conns[i], "s", argv[4], 1, NULL);

        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            die("prepare", conns[i]);
        PQclear(r);
        /* warm up: plan cache, catalog caches */
        const char *vals[1] = {param};
        for (int j = 0; j < 10; j++)
            check(conns[i], PQexecPrepared(conns[i], "s", 1, vals, NULL, NULL, 0));
    }
    if (strcmp(argv[1], "threads") == 0) {
        per_thread = total / n;
        total = per_thread * n;
        pthread_barrier_init(&bar, NULL, n + 1);
        for (int i = 0; i < n; i++)
            if (pthread_create(&th[i], NULL, thread_main, conns[i]) != 0)
                die("pthread_create", NULL);
        pthread_barrier_wait(&bar);
        getrusage(RUSAGE_SELF, &r0);
        w0 = wall_s();
        for (int i = 0; i < n; i++)
            pthread_join(th[i], NULL);
        w1 = wall_s();
        getrusage(RUSAGE_SELF, &r1);
    } else if (strcmp(argv[1], "epoll") == 0 || strcmp(argv[1], "epoll0") == 0) {
        getrusage(RUSAGE_SELF, &r0);
        w0 = wall_s();
        run_epoll(n, total, argv[1][5] == '0', &wakeups, &events, &polls0, &hits0);
        w1 = wall_s();
        getrusage(RUSAGE_SELF, &r1);
    } else {
        return 2;
    }
    usr = tv(r1.ru_utime) - tv(r0.ru_utime);
    sys = tv(r1.ru_stime) - tv(r0.ru_stime);
    cpu = usr + sys;
    printf("%s %d cpu_us=%.2f rps=%.0f ready=%.2f vcsw=%.2f ivcsw=%.2f usr_us=%.2f sys_us=%.2f "
           "p0hit=%.2f\n",
           argv[1], n, cpu * 1e6 / total, total / (w1 - w0),
           wakeups ? (double)events / wakeups : 0.0,
           (double)(r1.ru_nvcsw - r0.ru_nvcsw) / total,
           (double)(r1.ru_nivcsw - r0.ru_nivcsw) / total, usr * 1e6 / total, sys * 1e6 / total,
           polls0 ? (double)hits0 / polls0 : 0.0);
    for (int i = 0; i < n; i++)
        PQfinish(conns[i]);
    return 0;
}
