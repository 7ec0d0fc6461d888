/*
 * clock.h - monotonic and wall-clock time in the units we record.
 */
#ifndef TPCC_CLOCK_H
#define TPCC_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic microseconds (CLOCK_MONOTONIC). */
uint64_t clock_us(void);
/* Wall-clock microseconds since the epoch. */
uint64_t clock_wall_us(void);
/* Sleep for us microseconds (restarts after signals unless *stop becomes set). */
void clock_sleep_us(uint64_t us);
/* Format local time of epoch seconds t as fmt (strftime) into buf. */
void clock_format(char *buf, size_t len, const char *fmt, int64_t t);

#endif
