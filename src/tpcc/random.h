/*
 * random.h - the random numbers and strings of TPC-C clause 2 and 4.3, on
 * the streams of core/rng.h.
 */
#ifndef TPCC_RANDOM_H
#define TPCC_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"

/* The NURand constant C per field (TPC-C 2.1.6), shared by all terminals. */
struct nurand_c {
    int c_last;  /* A = 255 */
    int c_id;    /* A = 1023 */
    int ol_i_id; /* A = 8191 */
};

/* NURand(A, x, y) with constant c (TPC-C 2.1.6). */
int64_t nurand(struct rng *r, int a, int64_t x, int64_t y, int c);

/* Draw the load-time constants. */
void nurand_c_load(struct rng *r, struct nurand_c *c);
/* Draw run-time constants from the load-time ones: c_last differs by
 * 65..119 and not by 96 or 112 (2.1.6.1); the others are drawn freely. */
void nurand_c_run(struct rng *r, const struct nurand_c *load, struct nurand_c *run);
/* 1 when run.c_last is a valid run-time constant for load.c_last. */
int nurand_c_last_ok(int c_load, int c_run);

/* Random a-string of uniform length in [lo, hi] into buf, from 64 symbols
 * (letters, digits, "-" and "_": none needs escaping in bulk text)
 * (not NUL-terminated); returns the length.  buf holds at least hi bytes. */
int rand_astring(struct rng *r, char *buf, int lo, int hi);
/* Random n-string (digits). */
int rand_nstring(struct rng *r, char *buf, int lo, int hi);
/* An a-string of [lo, hi] that contains "ORIGINAL" at a random position
 * with probability 10 % (4.3.3.1, i_data and s_data). */
int rand_data_original(struct rng *r, char *buf, int lo, int hi);
/* Zip code: 4 random digits + "11111" (9 bytes). */
void rand_zip(struct rng *r, char *buf);

/* Customer last name from a number 0..999: three syllables; returns length.
 * buf holds at least 16 bytes; NUL-terminated. */
int tpcc_lastname(int num, char *buf);

/* Fill perm[0..n-1] with a random permutation of 1..n. */
void rand_permutation(struct rng *r, int *perm, int n);

#endif
