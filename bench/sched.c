/*
 * bench/sched.c - the timer queue alone (src/run/sched.c): nanoseconds per
 * take + put of one terminal, at N terminals in the queue, single-threaded
 * (the lock uncontended), in the steady state of a run with think times:
 * the first is taken and put back with a due time drawn uniformly over the
 * next N microseconds, so the queue keeps N terminals spread in time and a
 * put lands anywhere in it.  The terminals are one array of struct
 * terminal, as term_array_new gives them, so a pointer to one is a
 * different cache line from its neighbours'.
 *
 *   sched N OPS    prints: N ns_per_op
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "run/sched.h"

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: the bench's own stream, the same for every build compared. */
static uint64_t next(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 2685821657736338717u;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    long ops = argc > 2 ? atol(argv[2]) : 2000000;
    struct terminal *t = calloc((size_t)n, sizeof(*t));
    struct sched s;
    uint64_t x = 88172645463325252u, t0, sum = 0;

    if (n < 1 || ops < 1 || !t || sched_init(&s, n) != 0) {
        fprintf(stderr, "sched: usage: sched N OPS (N >= 1), or out of memory\n");
        return 2;
    }
    for (int i = 0; i < n; i++) {
        t[i].id = i;
        t[i].due_us = 1 + next(&x) % (uint64_t)n;
        sched_put(&s, &t[i]);
    }
    /* Warm: one pass over every terminal before the clock starts. */
    for (long k = 0; k < (long)n + ops; k++) {
        struct terminal *a;
        if (k == n)
            t0 = now_ns();
        a = sched_take_now(&s, UINT64_MAX - 1);
        if (!a)
            return 1;
        sum += a->due_us;
        a->due_us += 1 + next(&x) % (uint64_t)n;
        sched_put(&s, a);
    }
    printf("%d %.1f\n", n, (double)(now_ns() - t0) / (double)ops);
    fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sum);
    sched_release(&s);
    free(t);
    return 0;
}
