/*
 * fmt.h - numbers as people read them in messages and tables.
 *
 * Pure: the caller's buffer, nothing allocated or kept.
 */
#ifndef TPCC_FMT_H
#define TPCC_FMT_H

#include <stddef.h>
#include <stdint.h>

/* n with its thousands apart, "41,233", "-1,204" (cut short to fit cap);
 * returns buf. */
const char *fmt_grouped(char *buf, size_t cap, int64_t n);

#endif
