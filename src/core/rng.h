/*
 * rng.h - random streams: xoshiro256** seeded through splitmix64, so any
 * 64-bit seed gives a good stream.
 *
 * One struct rng per thread or per terminal (no shared state, no locks).
 * The loader derives one stream per (table, warehouse, district) from the
 * load seed, so the same seed gives the same rows however the work is
 * split; iobench one per (test, thread).  Pure: no I/O, no allocation.
 */
#ifndef TPCC_CORE_RNG_H
#define TPCC_CORE_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s[4]; /* xoshiro256** state, never all zero */
};

void rng_init(struct rng *r, uint64_t seed);
/* Seed from a base seed and up to three stream identifiers. */
void rng_init_stream(struct rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
uint64_t rng_next(struct rng *r);
/* Uniform integer in [lo, hi], both inclusive, unbiased. */
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi);
/* Uniform double in [0, 1). */
double rng_unit(struct rng *r);

#endif
