/*
 * progress.c - progress output for long work.  Writes to its FILE only.
 */
#include "core/progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"

void progress_init(struct progress *p, FILE *out)
{
    memset(p, 0, sizeof(*p));
    p->out = out;
    p->tty = isatty(fileno(out));
}

void progress_phase(struct progress *p, const char *phase, int64_t total, const char *unit)
{
    snprintf(p->phase, sizeof(p->phase), "%s", phase);
    p->start_us = clock_us();
    p->last_us = 0;
    p->total = total;
    p->unit = unit;
}

static void fmt_count(char *buf, size_t len, double v)
{
    if (v >= 1e6)
        snprintf(buf, len, "%.1fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, len, "%.0fk", v / 1e3);
    else
        snprintf(buf, len, "%.0f", v);
}

void progress_update(struct progress *p, int64_t done)
{
    uint64_t now = clock_us();
    double secs, rate, pct;
    char bar[31], rbuf[16];
    int fill;

    if (!p->tty || now - p->last_us < 200000)
        return;
    p->last_us = now;
    secs = (double)(now - p->start_us) / 1e6;
    rate = secs > 0 ? (double)done / secs : 0;
    pct = p->total > 0 ? 100.0 * (double)done / (double)p->total : 0;
    if (pct > 100)
        pct = 100;
    fill = (int)(pct * 30 / 100);
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(30 - fill));
    bar[30] = '\0';
    fmt_count(rbuf, sizeof(rbuf), rate);
    if (rate > 0 && done < p->total)
        fprintf(p->out, "\r%-8s [%s] %5.1f%%  %s %s/s  ETA %.0fs   ", p->phase, bar, pct, rbuf,
                p->unit, (double)(p->total - done) / rate);
    else
        fprintf(p->out, "\r%-8s [%s] %5.1f%%  %s %s/s           ", p->phase, bar, pct, rbuf,
                p->unit);
    fflush(p->out);
}

void progress_done(struct progress *p, int64_t done)
{
    double secs = (double)(clock_us() - p->start_us) / 1e6;
    char rbuf[16];

    fmt_count(rbuf, sizeof(rbuf), secs > 0 ? (double)done / secs : 0);
    if (p->tty)
        fprintf(p->out, "\r%*s\r", 79, "");
    fprintf(p->out, "%-8s %lld %s in %.2f s (%s %s/s)\n", p->phase, (long long)done, p->unit, secs,
            rbuf, p->unit);
    fflush(p->out);
}
