/*
 * sched.c - the terminals' timer queue (see sched.h).
 */
#include "run/sched.h"

#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

int sched_init(struct sched *s, int cap)
{
    s->heap = calloc((size_t)(cap > 0 ? cap : 1), sizeof(*s->heap));
    if (!s->heap)
        return -1;
    s->n = 0;
    s->cap = cap;
    s->closed = 0;
    s->n_waiting = 0;
    s->n_polling = 0;
    s->bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->bell < 0) {
        free(s->heap);
        s->heap = NULL;
        return -1;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    return 0;
}

void sched_release(struct sched *s)
{
    if (!s->heap)
        return; /* never initialised */
    free(s->heap);
    s->heap = NULL;
    close(s->bell);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
}

/* Wake the workers polling (under the lock). */
static void ring(struct sched *s)
{
    uint64_t one = 1;

    if (s->n_polling && write(s->bell, &one, sizeof(one)) < 0) {
        /* Full (2^64 - 2 rings unread) cannot happen; nothing else to do. */
    }
}

/*
 * The heap's slots hold each terminal's due time beside its pointer, so a
 * sift compares slots in the heap's own array and never follows a pointer
 * to a terminal (at 10^6 terminals a pointer chase is a cache miss per
 * level of a 20-level heap).  A terminal is written only when it goes in
 * or comes out.  Returns the slot where the entry came to rest.
 */
static int sift_up(struct sched *s, int i, struct sched_slot e)
{
    while (i > 0) {
        int p = (i - 1) / 2;
        if (s->heap[p].due_us <= e.due_us)
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
    return i;
}

static void sift_down(struct sched *s, int i, struct sched_slot e)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = l;
        if (l >= s->n)
            break;
        if (r < s->n && s->heap[r].due_us < s->heap[l].due_us)
            m = r;
        if (e.due_us <= s->heap[m].due_us)
            break;
        s->heap[i] = s->heap[m];
        i = m;
    }
    s->heap[i] = e;
}

void sched_put(struct sched *s, struct terminal *t)
{
    pthread_mutex_lock(&s->lock);
    if (s->n < s->cap) {
        struct sched_slot e = { t->due_us, t };
        int at = sift_up(s, s->n++, e);
        t->queued = 1;
        /* The new one may be due before what the waiters sleep for. */
        if (s->n_waiting && at == 0) {
            pthread_cond_signal(&s->cond);
            ring(s);
        }
    }
    pthread_mutex_unlock(&s->lock);
}

/* Remove and return heap[0] (under the lock, s->n > 0). */
static struct terminal *pop_first(struct sched *s)
{
    struct terminal *t = s->heap[0].t;

    t->queued = 0;
    if (--s->n > 0)
        sift_down(s, 0, s->heap[s->n]);
    return t;
}

struct terminal *sched_take(struct sched *s, const int *stop, uint64_t max_wait_us,
                            uint64_t *now_us)
{
    uint64_t until = clock_us() + max_wait_us;
    struct terminal *t = NULL;

    pthread_mutex_lock(&s->lock);
    for (;;) {
        uint64_t now = clock_us(), wake;
        struct timespec ts;
        if (s->closed || (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE)))
            break;
        if (s->n > 0 && s->heap[0].due_us <= now) {
            t = pop_first(s);
            /* Another may be due too: let the next waiter look. */
            if (s->n > 0 && s->heap[0].due_us <= now && s->n_waiting)
                pthread_cond_signal(&s->cond);
            *now_us = now;
            break;
        }
        if (now >= until)
            break;
        wake = s->n > 0 && s->heap[0].due_us < until ? s->heap[0].due_us : until;
        clock_deadline(&ts, wake - now);
        s->n_waiting++;
        pthread_cond_timedwait(&s->cond, &s->lock, &ts);
        s->n_waiting--;
    }
    pthread_mutex_unlock(&s->lock);
    return t;
}

struct terminal *sched_take_due(struct sched *s, uint64_t now_us)
{
    struct terminal *t = NULL;

    pthread_mutex_lock(&s->lock);
    if (!s->closed && s->n_waiting == 0 && s->n > 0 && s->heap[0].due_us <= now_us)
        t = pop_first(s);
    pthread_mutex_unlock(&s->lock);
    return t;
}

struct terminal *sched_take_now(struct sched *s, uint64_t now_us)
{
    struct terminal *t = NULL;

    pthread_mutex_lock(&s->lock);
    if (!s->closed && s->n > 0 && s->heap[0].due_us <= now_us)
        t = pop_first(s);
    pthread_mutex_unlock(&s->lock);
    return t;
}

int sched_take_many(struct sched *s, uint64_t now_us, struct terminal **out, int max, int leave)
{
    int n = 0;

    pthread_mutex_lock(&s->lock);
    if (!s->closed && !(leave && s->n_waiting))
        while (n < max && s->n > 0 && s->heap[0].due_us <= now_us)
            out[n++] = pop_first(s);
    pthread_mutex_unlock(&s->lock);
    return n;
}

uint64_t sched_poll_begin(struct sched *s)
{
    uint64_t due = UINT64_MAX;

    pthread_mutex_lock(&s->lock);
    s->n_polling++;
    s->n_waiting++;
    if (!s->closed && s->n > 0)
        due = s->heap[0].due_us;
    pthread_mutex_unlock(&s->lock);
    return due;
}

void sched_poll_end(struct sched *s, int drain)
{
    uint64_t v;

    pthread_mutex_lock(&s->lock);
    s->n_polling--;
    s->n_waiting--;
    pthread_mutex_unlock(&s->lock);
    if (drain && read(s->bell, &v, sizeof(v)) < 0) {
        /* Another poller read it first. */
    }
}

void sched_wake(struct sched *s)
{
    pthread_mutex_lock(&s->lock);
    pthread_cond_broadcast(&s->cond);
    ring(s);
    pthread_mutex_unlock(&s->lock);
}

void sched_close(struct sched *s)
{
    pthread_mutex_lock(&s->lock);
    s->closed = 1;
    pthread_cond_broadcast(&s->cond);
    ring(s);
    pthread_mutex_unlock(&s->lock);
}

int sched_count(struct sched *s)
{
    int n;

    pthread_mutex_lock(&s->lock);
    n = s->n;
    pthread_mutex_unlock(&s->lock);
    return n;
}
