/*
 * rng.c - xoshiro256** streams (see rng.h).
 *
 * Pure computation on a caller-owned struct rng: no allocation, no global
 * state, safe to call from any thread.
 */
#include "core/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
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

double rng_unit(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

