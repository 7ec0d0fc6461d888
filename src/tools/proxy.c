/*
 * proxy.c - the delaying TCP proxy: one thread, one epoll loop.
 *
 * Each connection pairs the client's socket (side 0) with one to the server
 * (side 1) and has two directions, d[0] client -> server and d[1] server ->
 * client.  A direction is a FIFO of chunks, each what one recv() returned,
 * stamped with its due time; a zero-length chunk stands for the FIN.  The
 * directions that have a chunk to write, and are not waiting for their
 * destination to drain, sit in a min-heap keyed by their head chunk's due
 * time, and one timerfd is armed (absolute, nanoseconds) at the heap's top.
 * So the loop sleeps in epoll_wait until a socket has something or the next
 * chunk falls due: no polling, no busy loop.  A full destination parks its
 * direction until EPOLLOUT; a direction holding max_queue bytes stops reading
 * its source until it drains (back-pressure, bounded memory).
 *
 * Accuracy: a chunk's delay counts from the kernel's receive timestamp
 * (arrival_ns), not from when this thread woke to read it, and the timer
 * aims at the chunk reaching the destination socket at its due time (see
 * arm_timer): the wake-up latencies of a virtual machine (20 to 60 us) would
 * otherwise add a third to a 0.15 ms delay.
 *
 * Freeing: a connection that ends mid-batch may still have an event later in
 * the same batch, so it is only unlinked and marked dead, and freed after the
 * batch.  Nothing here prints: messages go to the log callback.
 */
#include "tools/proxy.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tools/netbench.h"

/* Most bytes one recv() takes (one chunk). */
#define PX_READ_BYTES (64 * 1024)
/* Events per epoll_wait. */
#define PX_MAX_EVENTS 256
/* Chunks one sendmsg() writes at most. */
#define PX_MAX_IOV 64
/* The most a chunk is written before its due time (see arm_timer). */
#define PX_EARLY_MAX_NS (100u * 1000)
/* The most a sendmsg() is taken to cost (see dir_flush). */
#define PX_SEND_MAX_NS (30u * 1000)
/* How long accepting pauses when the process is out of file descriptors. */
#define PX_ACCEPT_PAUSE_NS (100u * 1000 * 1000)

enum px_kind { PX_SOCK, PX_LISTEN, PX_TIMER, PX_WAKE };

struct px_chunk {
    struct px_chunk *next;
    uint64_t due_ns;      /* when it may be written (CLOCK_MONOTONIC) */
    uint32_t len;         /* payload bytes; 0: this is the FIN */
    uint32_t off;         /* bytes already written */
    unsigned char data[]; /* the payload */
};

struct px_conn;

/* One direction of a connection. */
struct px_dir {
    struct px_conn *c;
    int src, dst;                 /* endpoint indexes: 0 client, 1 server */
    struct px_chunk *head, *tail; /* FIFO, oldest first */
    size_t queued;                /* payload bytes not yet written */
    uint64_t last_due_ns;         /* due time of the newest chunk: none may be earlier */
    int heap_idx;                 /* index in the proxy's heap, -1 when not in it */
    int eof;                      /* the source sent its FIN (a FIN chunk was queued) */
    int fin_sent;                 /* the FIN went out: shutdown(dst, SHUT_WR) */
    int blocked;                  /* the destination was full: waiting for EPOLLOUT */
};

/* What an epoll event points at. */
struct px_ep {
    enum px_kind kind;
    struct px_conn *c; /* PX_SOCK: its connection */
    int side;          /* PX_SOCK: 0 client, 1 server */
    int fd;            /* -1 once closed */
    uint32_t events;   /* interest registered with epoll */
    int registered;    /* 1: in the epoll set */
};

struct px_conn {
    struct px_ep ep[2];          /* 0: the client's socket, 1: the server's */
    struct px_dir d[2];          /* 0: client -> server, 1: server -> client */
    int connecting;              /* the connect to the server is in progress */
    const struct addrinfo *ai;   /* the server address being tried */
    int dead;                    /* closed; freed after the current batch */
    struct px_conn *prev, *next; /* the proxy's open connections, or the dead list */
};

struct proxy {
    uint64_t delay_ns;  /* one-way delay */
    uint64_t jitter_ns; /* +- this per chunk */
    size_t max_queue;   /* per direction */
    uint64_t rng;       /* xorshift64* state for the jitter */
    proxy_log_fn log;
    void *log_arg;

    int epfd, lfd, tfd, wfd;    /* epoll, listener, timerfd, eventfd (stop) */
    struct px_ep lep, tep, wep; /* their epoll tags */
    struct addrinfo *to_ai;     /* the server's addresses */
    char listen_name[128];
    char target_name[128];
    int port;
    pthread_t thread;
    int thread_started;

    struct px_dir **heap; /* directions with a chunk to write, by head due time */
    int heap_n, heap_cap;
    uint64_t armed_ns;         /* absolute expiry the timerfd holds, 0 = disarmed */
    uint64_t early_ns;         /* how much earlier than due a timer wake-up is planned */
    uint64_t send_ns;          /* what a sendmsg() takes: the last hop, see dir_flush */
    uint64_t accept_resume_ns; /* 0 = accepting; else when to try again */
    struct px_conn *conns;     /* open connections */
    struct px_conn *dead;      /* closed in this batch, to free after it */
    unsigned char *scratch;    /* PX_READ_BYTES receive buffer */

    /* Counters, written by the proxy thread, read by anyone. */
    _Atomic uint64_t n_accepted, n_closed, n_reset, n_connect_failed;
    _Atomic uint64_t bytes_to_server, bytes_to_client;
    _Atomic uint64_t peak_queue; /* the most bytes one direction held */

    pthread_mutex_t lock; /* guards failed and err */
    int failed;
    struct err err;
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* *avg moves 1/16 of the way to sample (capped at max): an average over the
 * last ~16 samples that one outlier cannot throw off. */
static void learn(uint64_t *avg, uint64_t sample, uint64_t max)
{
    if (sample > max)
        sample = max;
    if (sample >= *avg)
        *avg += (sample - *avg) / 16;
    else
        *avg -= (*avg - sample) / 16;
}

static void count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static void px_log(struct proxy *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void px_log(struct proxy *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (!p->log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    p->log(p->log_arg, msg);
}

/* ------------------------------------------------------------------------ */
/* The heap of directions, keyed by the due time of their head chunk. */

static uint64_t key(const struct px_dir *d)
{
    return d->head->due_ns;
}

static void heap_set(struct proxy *p, int i, struct px_dir *d)
{
    p->heap[i] = d;
    d->heap_idx = i;
}

static void heap_up(struct proxy *p, int i)
{
    struct px_dir *d = p->heap[i];

    while (i > 0) {
        int parent = (i - 1) / 2;
        if (key(p->heap[parent]) <= key(d))
            break;
        heap_set(p, i, p->heap[parent]);
        i = parent;
    }
    heap_set(p, i, d);
}

static void heap_down(struct proxy *p, int i)
{
    struct px_dir *d = p->heap[i];

    for (;;) {
        int l = 2 * i + 1, m = l;
        if (l >= p->heap_n)
            break;
        if (l + 1 < p->heap_n && key(p->heap[l + 1]) < key(p->heap[l]))
            m = l + 1;
        if (key(d) <= key(p->heap[m]))
            break;
        heap_set(p, i, p->heap[m]);
        i = m;
    }
    heap_set(p, i, d);
}

/* Add d (it has a head chunk and is not in the heap).  -1 when out of memory. */
static int heap_push(struct proxy *p, struct px_dir *d)
{
    if (d->heap_idx >= 0)
        return 0;
    if (p->heap_n == p->heap_cap) {
        int cap = p->heap_cap ? 2 * p->heap_cap : 256;
        struct px_dir **h = realloc(p->heap, (size_t)cap * sizeof(*h));
        if (!h)
            return -1;
        p->heap = h;
        p->heap_cap = cap;
    }
    heap_set(p, p->heap_n++, d);
    heap_up(p, p->heap_n - 1);
    return 0;
}

static void heap_remove(struct proxy *p, struct px_dir *d)
{
    int i = d->heap_idx;

    if (i < 0)
        return;
    d->heap_idx = -1;
    if (--p->heap_n == i)
        return;
    heap_set(p, i, p->heap[p->heap_n]);
    heap_down(p, i);
    heap_up(p, p->heap[i]->heap_idx);
}

/* ------------------------------------------------------------------------ */
/* Connections. */

static void ep_close(struct proxy *p, struct px_ep *ep, int reset)
{
    if (ep->fd < 0)
        return;
    if (reset) {
        /* An abortive close sends RST: the peer sees an error, not a clean end. */
        struct linger lg = { .l_onoff = 1, .l_linger = 0 };
        setsockopt(ep->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    if (ep->registered)
        epoll_ctl(p->epfd, EPOLL_CTL_DEL, ep->fd, NULL);
    close(ep->fd);
    ep->fd = -1;
    ep->registered = 0;
}

static void dir_free_chunks(struct px_dir *d)
{
    while (d->head) {
        struct px_chunk *k = d->head;
        d->head = k->next;
        free(k);
    }
    d->tail = NULL;
    d->queued = 0;
}

/* End c: reset != 0 resets both sides.  c is freed after the batch. */
static void conn_end(struct proxy *p, struct px_conn *c, int reset)
{
    if (c->dead)
        return;
    for (int s = 0; s < 2; s++) {
        heap_remove(p, &c->d[s]);
        dir_free_chunks(&c->d[s]);
        ep_close(p, &c->ep[s], reset);
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        p->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = NULL;
    c->next = p->dead;
    p->dead = c;
    c->dead = 1;
}

/* An error or reset on either side: reset both (the peer of a reset must
 * see an error, not a clean end).  A reset is an ordinary way for a client
 * to leave, so it is counted, not logged. */
static void conn_fail(struct proxy *p, struct px_conn *c)
{
    count(&p->n_reset, 1);
    conn_end(p, c, 1);
}

/* Register or update the epoll interest of side s from the state of c. */
static int ep_update(struct proxy *p, struct px_conn *c, int s)
{
    struct px_ep *ep = &c->ep[s];
    struct px_dir *in = &c->d[s], *out = &c->d[1 - s];
    struct epoll_event ev;
    uint32_t want = 0;

    if (ep->fd < 0)
        return 0;
    if (s == 1 && c->connecting) {
        want = EPOLLOUT;
    } else {
        if (!in->eof && in->queued < p->max_queue)
            want |= EPOLLIN;
        if (out->blocked)
            want |= EPOLLOUT;
    }
    /* Nothing wanted (done both ways, or the queue is full and nothing to
     * write): leave the epoll set, since a hang-up would be reported even
     * with no interest, for ever; errors show at the next read or write. */
    if (!want) {
        if (ep->registered) {
            epoll_ctl(p->epfd, EPOLL_CTL_DEL, ep->fd, NULL);
            ep->registered = 0;
        }
        return 0;
    }
    if (ep->registered && want == ep->events)
        return 0;
    memset(&ev, 0, sizeof(ev));
    ev.events = want;
    ev.data.ptr = ep;
    if (epoll_ctl(p->epfd, ep->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, ep->fd, &ev) < 0) {
        conn_fail(p, c);
        return -1;
    }
    ep->registered = 1;
    ep->events = want;
    return 0;
}

/* After a change: finished both ways -> close cleanly; else update interests. */
static void conn_update(struct proxy *p, struct px_conn *c)
{
    if (c->dead)
        return;
    if (c->d[0].fin_sent && c->d[1].fin_sent) {
        count(&p->n_closed, 1);
        conn_end(p, c, 0);
        return;
    }
    if (ep_update(p, c, 0) == 0)
        ep_update(p, c, 1);
}

/* Can direction d write now (its destination connected and not full)? */
static int dir_ready(const struct px_dir *d)
{
    return !d->blocked && !(d->dst == 1 && d->c->connecting) && d->c->ep[d->dst].fd >= 0;
}

/* Append a chunk of n bytes (n == 0: the FIN) read at time t. */
static int dir_push(struct proxy *p, struct px_dir *d, const void *data, size_t n, uint64_t t)
{
    struct px_chunk *k = malloc(sizeof(*k) + n);
    uint64_t due = t + p->delay_ns;

    if (!k)
        return -1;
    if (p->jitter_ns) {
        /* xorshift64*: uniform in [-jitter, +jitter], never before t. */
        uint64_t r, span = 2 * p->jitter_ns + 1;
        p->rng ^= p->rng >> 12;
        p->rng ^= p->rng << 25;
        p->rng ^= p->rng >> 27;
        r = (p->rng * UINT64_C(2685821657736338717)) % span;
        if (r < p->jitter_ns && p->jitter_ns - r > p->delay_ns)
            due = t;
        else
            due = due + r - p->jitter_ns;
    }
    /* Never before the previous chunk: bytes keep their order. */
    if (due < d->last_due_ns)
        due = d->last_due_ns;
    d->last_due_ns = due;
    k->next = NULL;
    k->due_ns = due;
    k->len = (uint32_t)n;
    k->off = 0;
    if (n)
        memcpy(k->data, data, n);
    if (d->tail)
        d->tail->next = k;
    else
        d->head = k;
    d->tail = k;
    d->queued += n;
    if (d->queued > atomic_load_explicit(&p->peak_queue, memory_order_relaxed))
        atomic_store_explicit(&p->peak_queue, d->queued, memory_order_relaxed);
    if (dir_ready(d) && heap_push(p, d) < 0)
        return -1;
    return 0;
}

/* Write what is due of d.  The caller took d out of the heap.  Returns -1
 * when the connection ended. */
static int dir_flush(struct proxy *p, struct px_dir *d)
{
    struct px_conn *c = d->c;
    int fd = c->ep[d->dst].fd;
    _Atomic uint64_t *bytes = d->dst == 1 ? &p->bytes_to_server : &p->bytes_to_client;
    uint64_t t = now_ns() + p->early_ns + p->send_ns, t_send;

    while (d->head && d->head->due_ns <= t) {
        struct iovec iov[PX_MAX_IOV];
        struct msghdr mh;
        struct px_chunk *k;
        size_t total = 0;
        ssize_t w;
        int n = 0;

        if (d->head->len == 0) {
            /* The FIN, after everything queued before it. */
            k = d->head;
            d->head = k->next;
            if (!d->head)
                d->tail = NULL;
            free(k);
            if (shutdown(fd, SHUT_WR) < 0 && errno != ENOTCONN) {
                conn_fail(p, c);
                return -1;
            }
            d->fin_sent = 1;
            break;
        }
        for (k = d->head; k && k->len && k->due_ns <= t && n < PX_MAX_IOV; k = k->next) {
            iov[n].iov_base = k->data + k->off;
            iov[n].iov_len = k->len - k->off;
            total += iov[n].iov_len;
            n++;
        }
        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = iov;
        mh.msg_iovlen = (size_t)n;
        t_send = now_ns();
        w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        learn(&p->send_ns, now_ns() - t_send, PX_SEND_MAX_NS);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                d->blocked = 1;
                break;
            }
            conn_fail(p, c);
            return -1;
        }
        count(bytes, (uint64_t)w);
        /* Drop what was written. */
        for (size_t left = (size_t)w; left > 0;) {
            k = d->head;
            if (left >= k->len - k->off) {
                left -= k->len - k->off;
                d->queued -= k->len;
                d->head = k->next;
                if (!d->head)
                    d->tail = NULL;
                free(k);
            } else {
                k->off += (uint32_t)left;
                left = 0;
            }
        }
        if ((size_t)w < total) {
            /* The socket is full: wait until it drains. */
            d->blocked = 1;
            break;
        }
    }
    if (d->head && dir_ready(d) && heap_push(p, d) < 0) {
        conn_fail(p, c);
        return -1;
    }
    conn_update(p, c);
    return c->dead ? -1 : 0;
}

/*
 * When the data of a recvmsg() reached the socket, on our monotonic clock.
 * The delay counts from there, not from when this thread woke up to read
 * it: a wake-up from idle takes 20 to 60 us on a virtual machine, and would
 * add itself to every delay.  The kernel stamps each packet (SO_TIMESTAMPNS,
 * CLOCK_REALTIME, the newest packet of the read); its age on the real-time
 * clock is its age on ours.  Without a stamp, or with a strange one, now.
 */
static uint64_t arrival_ns(struct msghdr *mh)
{
    uint64_t t = now_ns();

    for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts, real;
            int64_t age;
            memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
            clock_gettime(CLOCK_REALTIME, &real);
            age = ((int64_t)real.tv_sec - (int64_t)ts.tv_sec) * 1000000000 +
                  ((int64_t)real.tv_nsec - (int64_t)ts.tv_nsec);
            if (ts.tv_sec > 0 && age > 0 && (uint64_t)age < t && age < 1000000000)
                t -= (uint64_t)age;
        }
    }
    return t;
}

/* Ask the kernel for the arrival time of what fd receives (see arrival_ns). */
static void set_sockopts(int fd)
{
    int one = 1;

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
}

/* Read what side s has, up to the queue limit. */
static int conn_read(struct proxy *p, struct px_conn *c, int s)
{
    struct px_dir *d = &c->d[s];
    int fd = c->ep[s].fd;

    while (!d->eof && d->queued < p->max_queue) {
        union {
            char buf[CMSG_SPACE(sizeof(struct timespec))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = { .iov_base = p->scratch, .iov_len = PX_READ_BYTES };
        struct msghdr mh;
        ssize_t n;
        uint64_t t;

        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = ctl.buf;
        mh.msg_controllen = sizeof(ctl.buf);
        n = recvmsg(fd, &mh, 0);
        t = arrival_ns(&mh);

        if (n > 0) {
            if (dir_push(p, d, p->scratch, (size_t)n, t) < 0) {
                conn_fail(p, c);
                return -1;
            }
            if (n < PX_READ_BYTES)
                break; /* drained, most likely: save the recv that says EAGAIN */
            continue;
        }
        if (n == 0) {
            d->eof = 1;
            if (dir_push(p, d, NULL, 0, t) < 0) {
                conn_fail(p, c);
                return -1;
            }
            break;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        conn_fail(p, c);
        return -1;
    }
    conn_update(p, c);
    return c->dead ? -1 : 0;
}

/* Start connecting c to the server address c->ai or the ones after it. */
static void conn_connect(struct proxy *p, struct px_conn *c)
{
    int last = 0;
    char eb[128];

    for (; c->ai; c->ai = c->ai->ai_next) {
        int fd = socket(c->ai->ai_family, c->ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        c->ai->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        c->ep[1].fd = fd;
        c->ep[1].registered = 0;
        if (connect(fd, c->ai->ai_addr, c->ai->ai_addrlen) == 0) {
            c->connecting = 0;
        } else if (errno == EINPROGRESS) {
            c->connecting = 1;
        } else {
            last = errno;
            close(fd);
            c->ep[1].fd = -1;
            continue;
        }
        set_sockopts(fd);
        if (!c->connecting && c->d[0].head)
            heap_push(p, &c->d[0]);
        conn_update(p, c);
        return;
    }
    count(&p->n_connect_failed, 1);
    px_log(p, "cannot connect to %s: %s: the client's connection is reset", p->target_name,
           err_errno(last ? last : ECONNREFUSED, eb, sizeof(eb)));
    conn_end(p, c, 1);
}

/* The connect in progress finished (or failed). */
static void conn_connected(struct proxy *p, struct px_conn *c)
{
    int soerr = 0;
    socklen_t sl = sizeof(soerr);

    if (getsockopt(c->ep[1].fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
        soerr = errno;
    if (soerr) {
        char eb[128];
        ep_close(p, &c->ep[1], 0);
        c->ai = c->ai->ai_next;
        if (c->ai) {
            conn_connect(p, c);
            return;
        }
        count(&p->n_connect_failed, 1);
        px_log(p, "cannot connect to %s: %s: the client's connection is reset", p->target_name,
               err_errno(soerr, eb, sizeof(eb)));
        conn_end(p, c, 1);
        return;
    }
    c->connecting = 0;
    if (c->d[0].head && heap_push(p, &c->d[0]) < 0) {
        conn_fail(p, c);
        return;
    }
    conn_update(p, c);
}

static void conn_accept(struct proxy *p)
{
    for (;;) {
        struct px_conn *c;
        int fd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0) {
            int err = errno;
            if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
                /* Out of descriptors: stop accepting for a while (the
                 * listener would be readable for ever), resume on a close
                 * or after PX_ACCEPT_PAUSE_NS. */
                char eb[128];
                struct epoll_event ev = { .events = 0, .data.ptr = &p->lep };
                epoll_ctl(p->epfd, EPOLL_CTL_MOD, p->lfd, &ev);
                p->accept_resume_ns = now_ns() + PX_ACCEPT_PAUSE_NS;
                px_log(p, "accept: %s: not accepting for 100 ms", err_errno(err, eb, sizeof(eb)));
            }
            if (err == EINTR || err == ECONNABORTED)
                continue;
            return;
        }
        if (!(c = calloc(1, sizeof(*c)))) {
            close(fd);
            continue;
        }
        set_sockopts(fd);
        for (int s = 0; s < 2; s++) {
            c->ep[s].kind = PX_SOCK;
            c->ep[s].c = c;
            c->ep[s].side = s;
            c->ep[s].fd = -1;
            c->d[s].c = c;
            c->d[s].src = s;
            c->d[s].dst = 1 - s;
            c->d[s].heap_idx = -1;
        }
        c->ep[0].fd = fd;
        c->ai = p->to_ai;
        c->next = p->conns;
        if (p->conns)
            p->conns->prev = c;
        p->conns = c;
        count(&p->n_accepted, 1);
        conn_connect(p, c);
    }
}

static void resume_accept(struct proxy *p)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &p->lep };

    if (!p->accept_resume_ns)
        return;
    p->accept_resume_ns = 0;
    epoll_ctl(p->epfd, EPOLL_CTL_MOD, p->lfd, &ev);
}

static void on_sock(struct proxy *p, struct px_ep *ep, uint32_t ev)
{
    struct px_conn *c = ep->c;
    int s = ep->side;

    if (c->dead || ep->fd < 0)
        return;
    if (s == 1 && c->connecting) {
        if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            conn_connected(p, c);
        return;
    }
    if (ev & EPOLLERR) {
        int soerr = 0;
        socklen_t sl = sizeof(soerr);
        getsockopt(ep->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
        conn_fail(p, c);
        return;
    }
    if ((ev & (EPOLLIN | EPOLLHUP)) && !c->d[s].eof && conn_read(p, c, s) < 0)
        return;
    /* A hang-up while we still write to this socket: it was reset or
     * closed under us (a clean end has our FIN sent first). */
    if ((ev & EPOLLHUP) && !c->d[1 - s].fin_sent) {
        conn_fail(p, c);
        return;
    }
    if ((ev & EPOLLOUT) && c->d[1 - s].blocked) {
        struct px_dir *d = &c->d[1 - s];
        d->blocked = 0;
        heap_remove(p, d);
        dir_flush(p, d);
    }
}

/*
 * Aiming: a chunk should reach its destination socket at its due time.  Two
 * costs stand between the timer and that moment, and both are learnt as
 * they happen (learn(): an average of the last ~16, each sample capped):
 *  - early_ns: how late a timer wake-up comes, 20 to 60 us on a virtual
 *    machine, a third of a 0.15 ms delay;
 *  - send_ns: what the sendmsg() that passes the chunk on takes (on
 *    loopback it carries the data into the receiving socket).
 * The timer is armed early_ns + send_ns before the earliest due chunk, and
 * a wake-up writes every chunk due within that window: a chunk leaves at
 * most that much early (100 + 30 us), and on average on time.
 */
static int arm_timer(struct proxy *p)
{
    uint64_t next = p->heap_n ? key(p->heap[0]) : 0;
    struct itimerspec its;

    if (next)
        next = next > p->early_ns + p->send_ns ? next - p->early_ns - p->send_ns : 1;
    if (p->accept_resume_ns && (!next || p->accept_resume_ns < next))
        next = p->accept_resume_ns;
    if (next == p->armed_ns)
        return 0;
    memset(&its, 0, sizeof(its));
    /* next == 0 disarms; a due time is never 0 (the clock counts from boot). */
    its.it_value.tv_sec = (time_t)(next / 1000000000u);
    its.it_value.tv_nsec = (long)(next % 1000000000u);
    if (timerfd_settime(p->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        return -1;
    p->armed_ns = next;
    return 0;
}

/* The timer fired; we woke at t_wake.  Learn how late that was. */
static void timer_fired(struct proxy *p, uint64_t t_wake)
{
    learn(&p->early_ns, t_wake > p->armed_ns ? t_wake - p->armed_ns : 0, PX_EARLY_MAX_NS);
    p->armed_ns = 0; /* expired: arm_timer sets it again */
}

static void set_failed(struct proxy *p, const char *what, int errnum)
{
    char eb[128];

    pthread_mutex_lock(&p->lock);
    p->failed = 1;
    err_set(&p->err, E_FAIL, "proxy: %s: %s", what, err_errno(errnum, eb, sizeof(eb)));
    pthread_mutex_unlock(&p->lock);
}

static void *px_main(void *arg)
{
    struct proxy *p = arg;
    struct epoll_event evs[PX_MAX_EVENTS];
    uint64_t t_wake;
    int stop = 0;

    /* Timers of this thread fire on time: the default 50 us slack would be
     * a sixth of a 0.15 ms delay. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    while (!stop) {
        int n;

        if (arm_timer(p) < 0) {
            set_failed(p, "timerfd_settime", errno);
            break;
        }
        n = epoll_wait(p->epfd, evs, PX_MAX_EVENTS, -1);
        t_wake = now_ns();
        if (n < 0) {
            if (errno == EINTR)
                continue;
            set_failed(p, "epoll_wait", errno);
            break;
        }
        for (int i = 0; i < n; i++) {
            struct px_ep *ep = evs[i].data.ptr;
            uint64_t v;
            ssize_t r;

            switch (ep->kind) {
            case PX_SOCK:
                on_sock(p, ep, evs[i].events);
                break;
            case PX_LISTEN:
                conn_accept(p);
                break;
            case PX_TIMER:
                r = read(p->tfd, &v, sizeof(v));
                if (r == (ssize_t)sizeof(v) && p->armed_ns)
                    timer_fired(p, t_wake);
                break;
            case PX_WAKE:
                stop = 1;
                break;
            }
        }
        /* Release every chunk that is due (within early_ns). */
        while (p->heap_n) {
            struct px_dir *d = p->heap[0];
            if (key(d) > now_ns() + p->early_ns + p->send_ns)
                break;
            heap_remove(p, d);
            dir_flush(p, d);
        }
        if (p->accept_resume_ns && (p->dead || now_ns() >= p->accept_resume_ns))
            resume_accept(p);
        while (p->dead) {
            struct px_conn *c = p->dead;
            p->dead = c->next;
            free(c);
        }
    }
    /* Stop: close every connection. */
    while (p->conns)
        conn_end(p, p->conns, 0);
    while (p->dead) {
        struct px_conn *c = p->dead;
        p->dead = c->next;
        free(c);
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Public API. */

static int px_add(struct proxy *p, int fd, struct px_ep *ep, enum px_kind kind, struct err *e)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ep };
    char eb[128];

    ep->kind = kind;
    ep->fd = fd;
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
        return err_set(e, E_FAIL, "proxy: epoll_ctl: %s", err_errno(errno, eb, sizeof(eb)));
    return 0;
}

static int px_listen(struct proxy *p, const char *spec, struct err *e)
{
    char host[256], port[16], name[300], eb[128];
    struct addrinfo *res = NULL;
    int rc;

    if ((rc = nb_split_hostport(spec, host, sizeof(host), port, sizeof(port), e)) < 0)
        return err_prefix(e, "--listen");
    if ((rc = nb_resolve(host, port, 1, &res, e)) < 0)
        return err_prefix(e, "--listen");
    rc = err_set(e, E_USAGE, "--listen: '%s' resolves to no address", spec);
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int one = 1, fd;

        nb_addr_str(ai->ai_addr, ai->ai_addrlen, name, sizeof(name));
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            rc = err_set(e, E_USAGE, "--listen: cannot listen on %s: %s", name,
                         err_errno(errno, eb, sizeof(eb)));
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 4096) < 0 ||
            getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
            rc = err_set(e, E_USAGE, "--listen: cannot listen on %s: %s", name,
                         err_errno(errno, eb, sizeof(eb)));
            close(fd);
            continue;
        }
        p->lfd = fd;
        p->port = nb_addr_port((struct sockaddr *)&ss);
        nb_addr_str((struct sockaddr *)&ss, sl, p->listen_name, sizeof(p->listen_name));
        rc = 0;
        break;
    }
    freeaddrinfo(res);
    return rc;
}

static void px_free(struct proxy *p)
{
    if (p->lfd >= 0)
        close(p->lfd);
    if (p->tfd >= 0)
        close(p->tfd);
    if (p->wfd >= 0)
        close(p->wfd);
    if (p->epfd >= 0)
        close(p->epfd);
    if (p->to_ai)
        freeaddrinfo(p->to_ai);
    free(p->heap);
    free(p->scratch);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

int proxy_start(const struct proxy_opts *o, struct proxy **out, struct err *e)
{
    struct proxy *p;
    char host[256], port[16], eb[128];
    sigset_t all, old;
    int rc;

    *out = NULL;
    if (o->delay_us < 0 || o->delay_us > PROXY_MAX_DELAY_US)
        return err_set(e, E_USAGE, "the delay must be from 0 to 60s");
    if (o->jitter_us < 0 || o->jitter_us > PROXY_MAX_DELAY_US)
        return err_set(e, E_USAGE, "the jitter must be from 0 to 60s");
    if (!o->listen || !o->to)
        return err_set(e, E_USAGE, "the proxy needs --listen and --to");
    if (!(p = calloc(1, sizeof(*p))))
        return err_set(e, E_FAIL, "out of memory");
    p->lfd = p->tfd = p->wfd = p->epfd = -1;
    pthread_mutex_init(&p->lock, NULL);
    p->delay_ns = (uint64_t)o->delay_us * 1000u;
    p->jitter_ns = (uint64_t)o->jitter_us * 1000u;
    p->max_queue = o->max_queue_bytes ? o->max_queue_bytes : PROXY_DEFAULT_QUEUE_BYTES;
    p->rng = o->seed ? o->seed : now_ns() ^ (uint64_t)getpid() << 32;
    if (!p->rng)
        p->rng = 1;
    p->log = o->log;
    p->log_arg = o->log_arg;

    if ((rc = nb_split_hostport(o->to, host, sizeof(host), port, sizeof(port), e)) < 0) {
        err_prefix(e, "--to");
        goto fail;
    }
    if (!host[0] || strcmp(port, "0") == 0) {
        rc = err_set(e, E_USAGE,
                     "--to: expected HOST:PORT with a host and a port above 0 "
                     "(got \"%s\")",
                     o->to);
        goto fail;
    }
    if ((rc = nb_resolve(host, port, 0, &p->to_ai, e)) < 0) {
        err_prefix(e, "--to");
        goto fail;
    }
    nb_addr_str(p->to_ai->ai_addr, p->to_ai->ai_addrlen, p->target_name, sizeof(p->target_name));
    if ((rc = px_listen(p, o->listen, e)) < 0)
        goto fail;
    p->scratch = malloc(PX_READ_BYTES);
    p->epfd = epoll_create1(EPOLL_CLOEXEC);
    p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    p->wfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!p->scratch || p->epfd < 0 || p->tfd < 0 || p->wfd < 0) {
        rc = err_set(e, E_FAIL, "proxy: setting up: %s", err_errno(errno, eb, sizeof(eb)));
        goto fail;
    }
    if ((rc = px_add(p, p->lfd, &p->lep, PX_LISTEN, e)) < 0 ||
        (rc = px_add(p, p->tfd, &p->tep, PX_TIMER, e)) < 0 ||
        (rc = px_add(p, p->wfd, &p->wep, PX_WAKE, e)) < 0)
        goto fail;

    /* The thread takes no signals: they stay with the caller's threads. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&p->thread, NULL, px_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        rc = err_set(e, E_FAIL, "proxy: pthread_create: %s", err_errno(rc, eb, sizeof(eb)));
        goto fail;
    }
    p->thread_started = 1;
    *out = p;
    return 0;
fail:
    px_free(p);
    return rc;
}

int proxy_port(const struct proxy *p)
{
    return p->port;
}

const char *proxy_listen_name(const struct proxy *p)
{
    return p->listen_name;
}

const char *proxy_target_name(const struct proxy *p)
{
    return p->target_name;
}

void proxy_stats(const struct proxy *p, struct proxy_stats *s)
{
    struct proxy *q = (struct proxy *)p; /* atomic loads need a non-const object */

    s->n_accepted = atomic_load_explicit(&q->n_accepted, memory_order_relaxed);
    s->n_closed = atomic_load_explicit(&q->n_closed, memory_order_relaxed);
    s->n_reset = atomic_load_explicit(&q->n_reset, memory_order_relaxed);
    s->n_connect_failed = atomic_load_explicit(&q->n_connect_failed, memory_order_relaxed);
    s->bytes_to_server = atomic_load_explicit(&q->bytes_to_server, memory_order_relaxed);
    s->bytes_to_client = atomic_load_explicit(&q->bytes_to_client, memory_order_relaxed);
    s->peak_queue_bytes = atomic_load_explicit(&q->peak_queue, memory_order_relaxed);
    s->n_open = s->n_accepted - s->n_closed - s->n_reset - s->n_connect_failed;
}

int proxy_error(struct proxy *p, struct err *e)
{
    int rc = 0;

    pthread_mutex_lock(&p->lock);
    if (p->failed) {
        *e = p->err;
        rc = p->err.code;
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
}

void proxy_stop(struct proxy *p)
{
    uint64_t one = 1;

    if (!p)
        return;
    if (p->thread_started) {
        ssize_t w = write(p->wfd, &one, sizeof(one));
        (void)w;
        pthread_join(p->thread, NULL);
    }
    px_free(p);
}
