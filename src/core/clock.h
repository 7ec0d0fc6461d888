/*
 * clock.h - monotonic and wall-clock time in the units we record.
 */
#ifndef TPCC_CLOCK_H
#define TPCC_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Monotonic microseconds (CLOCK_MONOTONIC). */
uint64_t clock_us(void);
/* Wall-clock microseconds since the epoch. */
uint64_t clock_wall_us(void);
/* Sleep for us microseconds (restarts after signals unless *stop becomes set). */
void clock_sleep_us(uint64_t us);
/* The CLOCK_REALTIME instant us microseconds from now, for timed waits
 * (pthread_cond_timedwait, pthread_timedjoin_np). */
void clock_deadline(struct timespec *ts, uint64_t us);
/* A random delay in 0..max_us for back-off, advancing the caller's xorshift
 * state (any nonzero seed, e.g. the clock xor an address). */
uint64_t clock_jitter_us(uint64_t *state, uint64_t max_us);
/* Format local time of epoch seconds t as fmt (strftime) into buf. */
void clock_format(char *buf, size_t len, const char *fmt, int64_t t);

#endif
