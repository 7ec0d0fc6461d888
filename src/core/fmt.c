/*
 * fmt.c - numbers as people read them: see fmt.h.  The verdicts of the
 * durability check and compare's durable column print their counts here.
 */
#include "core/fmt.h"

#include <stdio.h>

const char *fmt_grouped(char *buf, size_t cap, int64_t n)
{
    char d[32];
    /* The magnitude as unsigned: -INT64_MIN does not fit an int64_t. */
    uint64_t u = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
    int len = snprintf(d, sizeof(d), "%llu", (unsigned long long)u);
    size_t o = 0;

    if (cap == 0)
        return buf;
    if (n < 0 && cap > 1)
        buf[o++] = '-';
    for (int i = 0; i < len && o + 2 < cap; i++) {
        buf[o++] = d[i];
        if ((len - i - 1) % 3 == 0 && i < len - 1)
            buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}
