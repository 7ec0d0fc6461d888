/*
 * progress.h - a progress bar on a terminal, a plain line per phase elsewhere.
 */
#ifndef TPCC_PROGRESS_H
#define TPCC_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

struct progress {
    FILE *out;          /* stderr normally */
    int tty;            /* 1: redraw a bar in place */
    char phase[32];     /* "copy", "index", ... */
    uint64_t start_us;  /* phase start */
    uint64_t last_us;   /* last redraw */
    int64_t total;      /* units of work in the phase (rows, statements) */
    const char *unit;   /* "rows", "indexes" */
};

void progress_init(struct progress *p, FILE *out);
void progress_phase(struct progress *p, const char *phase, int64_t total, const char *unit);
/* Redraw (at most 5 times a second) with done units of work. */
void progress_update(struct progress *p, int64_t done);
/* End the phase: the final line with elapsed seconds and rate. */
void progress_done(struct progress *p, int64_t done);

#endif
