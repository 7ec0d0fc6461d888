/*
 * random.c - the TPC-C random values (clause 2 and 4.3) built on core/rng.h.
 *
 * Everything here is pure computation on a caller-owned struct rng: no
 * allocation, no global state, safe to call from any thread.
 */
#include "tpcc/random.h"

#include <string.h>

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
