/*
 * random.c - xoshiro256** streams and the TPC-C random values built on them.
 *
 * Everything here is pure computation on a caller-owned struct rng: no
 * allocation, no global state, safe to call from any thread.
 */
#include "tpcc/random.h"

#include <string.h>

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

int64_t nurand(struct rng *r, int a, int64_t x, int64_t y, int c)
{
    return (((rng_range(r, 0, a) | rng_range(r, x, y)) + c) % (y - x + 1)) + x;
}

void nurand_c_load(struct rng *r, struct nurand_c *c)
{
    c->c_last = (int)rng_range(r, 0, 255);
    c->c_id = (int)rng_range(r, 0, 1023);
    c->ol_i_id = (int)rng_range(r, 0, 8191);
}

int nurand_c_last_ok(int c_load, int c_run)
{
    int delta = c_run > c_load ? c_run - c_load : c_load - c_run;

    return delta >= 65 && delta <= 119 && delta != 96 && delta != 112;
}

void nurand_c_run(struct rng *r, const struct nurand_c *load, struct nurand_c *run)
{
    /* At least one valid value exists for every c_load in 0..255 (a delta
     * of 65..119 fits on one side), so rejection sampling ends. */
    do
        run->c_last = (int)rng_range(r, 0, 255);
    while (!nurand_c_last_ok(load->c_last, run->c_last));
    run->c_id = (int)rng_range(r, 0, 1023);
    run->ol_i_id = (int)rng_range(r, 0, 8191);
}

static const char alnum64[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/* Fill n bytes from the 64-symbol alphabet, ten symbols per 64-bit draw. */
static void fill_alnum(struct rng *r, char *buf, int n)
{
    while (n > 0) {
        uint64_t v = rng_next(r);
        int k = n < 10 ? n : 10;
        for (int i = 0; i < k; i++) {
            *buf++ = alnum64[v & 63];
            v >>= 6;
        }
        n -= k;
    }
}

int rand_astring(struct rng *r, char *buf, int lo, int hi)
{
    int n = (int)rng_range(r, lo, hi);

    fill_alnum(r, buf, n);
    return n;
}

int rand_nstring(struct rng *r, char *buf, int lo, int hi)
{
    int n = (int)rng_range(r, lo, hi);

    for (int i = 0; i < n; i++)
        buf[i] = (char)('0' + rng_range(r, 0, 9));
    return n;
}

int rand_data_original(struct rng *r, char *buf, int lo, int hi)
{
    int n = rand_astring(r, buf, lo, hi);

    if (rng_range(r, 1, 10) == 1) {
        int pos = (int)rng_range(r, 0, n - 8);
        memcpy(buf + pos, "ORIGINAL", 8);
    }
    return n;
}

void rand_zip(struct rng *r, char *buf)
{
    rand_nstring(r, buf, 4, 4);
    memcpy(buf + 4, "11111", 5);
}

static const char *const syllables[10] = {
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
};

int tpcc_lastname(int num, char *buf)
{
    int digits[3] = { num / 100 % 10, num / 10 % 10, num % 10 };
    int n = 0;

    for (int i = 0; i < 3; i++) {
        size_t k = strlen(syllables[digits[i]]);
        memcpy(buf + n, syllables[digits[i]], k);
        n += (int)k;
    }
    buf[n] = '\0';
    return n;
}

void rand_permutation(struct rng *r, int *perm, int n)
{
    for (int i = 0; i < n; i++)
        perm[i] = i + 1;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_range(r, 0, i);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}
