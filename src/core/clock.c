/*
 * clock.c - time sources.  Nothing here allocates.
 */
#include "core/clock.h"

#include <errno.h>
#include <time.h>

uint64_t clock_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t clock_wall_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void clock_sleep_us(uint64_t us)
{
    struct timespec ts = { .tv_sec = (time_t)(us / 1000000u), .tv_nsec = (long)(us % 1000000u) * 1000 };

    /* A signal ends the sleep early; callers check their stop flag. */
    nanosleep(&ts, NULL);
}

void clock_format(char *buf, size_t len, const char *fmt, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;

    localtime_r(&tt, &tm);
    /* fmt is always a literal of ours; the warning cannot see through the wrapper. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (strftime(buf, len, fmt, &tm) == 0 && len)
        buf[0] = '\0';
#pragma GCC diagnostic pop
}

void clock_deadline(struct timespec *ts, uint64_t us)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += (time_t)(us / 1000000u);
    ts->tv_nsec += (long)(us % 1000000u) * 1000;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

uint64_t clock_jitter_us(uint64_t *state, uint64_t max_us)
{
    uint64_t x = *state ? *state : 0x9E3779B97F4A7C15u;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x % (max_us + 1);
}
