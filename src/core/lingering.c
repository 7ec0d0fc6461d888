/*
 * lingering.c - the count of threads left running past their bound (see
 * lingering.h), and the bounded join that adds to it.  Relaxed atomics: the
 * count is read once, at the exit.
 */
#include "core/lingering.h"

#include <time.h>

static int n_lingering;

void lingering_add(void)
{
    __atomic_add_fetch(&n_lingering, 1, __ATOMIC_RELAXED);
}

int lingering_count(void)
{
    return __atomic_load_n(&n_lingering, __ATOMIC_RELAXED);
}

int lingering_join(pthread_t th, int wait_ms)
{
    struct timespec ts;

    /* pthread_timedjoin_np's deadline is on CLOCK_REALTIME. */
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += wait_ms / 1000;
    ts.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    if (pthread_timedjoin_np(th, NULL, &ts) == 0)
        return 0;
    pthread_detach(th);
    lingering_add();
    return 1;
}
