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
/* Uniform double in [0, 1). */
double rng_unit(struct rng *r);

/* The next 64 bits of the stream.  Inline, as rng_range: a New-Order's
 * input takes some forty draws, a loaded row a dozen. */
static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform integer in [lo, hi], both inclusive, unbiased. */
static inline int64_t rng_range(struct rng *r, int64_t lo, int64_t hi)
{
    /* GCC and clang have 128-bit integers on 64-bit targets; -Wpedantic needs telling. */
    __extension__ typedef unsigned __int128 rng_u128;
    /* In unsigned arithmetic: hi - lo overflows int64_t for spans over 2^63. */
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    rng_u128 m;
    uint64_t low;

    if (span == 0) /* the full 64-bit range */
        return (int64_t)rng_next(r);
    /* Lemire's nearly divisionless method: unbiased. */
    m = (rng_u128)rng_next(r) * span;
    low = (uint64_t)m;
    if (low < span) {
        uint64_t threshold = -span % span;
        while (low < threshold) {
            m = (rng_u128)rng_next(r) * span;
            low = (uint64_t)m;
        }
    }
    return (int64_t)((uint64_t)lo + (uint64_t)(m >> 64));
}

#endif
