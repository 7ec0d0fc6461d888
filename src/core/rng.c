/*
 * rng.c - xoshiro256** streams (see rng.h).
 *
 * Pure computation on a caller-owned struct rng: no allocation, no global
 * state, safe to call from any thread.
 */
#include "core/rng.h"

/* GCC and clang have 128-bit integers on 64-bit targets; -Wpedantic needs telling. */
__extension__ typedef unsigned __int128 u128;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void rng_init(struct rng *r, uint64_t seed)
{
    uint64_t x = seed;

    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1;
}

void rng_init_stream(struct rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t x = seed;
    uint64_t h = splitmix64(&x);

    x = h ^ (a * 0x9e3779b97f4a7c15ULL);
    h = splitmix64(&x);
    x = h ^ (b * 0xc2b2ae3d27d4eb4fULL);
    h = splitmix64(&x);
    x = h ^ (c * 0x165667b19e3779f9ULL);
    rng_init(r, splitmix64(&x));
}

uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

int64_t rng_range(struct rng *r, int64_t lo, int64_t hi)
{
    /* In unsigned arithmetic: hi - lo overflows int64_t for spans over 2^63. */
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    u128 m;
    uint64_t low;

    if (span == 0) /* the full 64-bit range */
        return (int64_t)rng_next(r);
    /* Lemire's nearly divisionless method: unbiased. */
    m = (u128)rng_next(r) * span;
    low = (uint64_t)m;
    if (low < span) {
        uint64_t threshold = -span % span;
        while (low < threshold) {
            m = (u128)rng_next(r) * span;
            low = (uint64_t)m;
        }
    }
    return (int64_t)((uint64_t)lo + (uint64_t)(m >> 64));
}

double rng_unit(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

