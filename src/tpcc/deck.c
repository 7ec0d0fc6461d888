/*
 * deck.c - build, shuffle and deal a deck of transaction types.  Pure
 * arithmetic on the caller's struct; the random stream is the caller's too.
 */
#include "tpcc/deck.h"

#include <string.h>

const int deck_spec_weights[TX_NTYPES] = { 10, 10, 1, 1, 1 };

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int deck_init(struct deck *d, const int *weights)
{
    int g = 0, n = 0;

    memset(d, 0, sizeof(*d));
    for (int t = 0; t < TX_NTYPES; t++) {
        if (weights[t] < 0)
            return -1;
        g = gcd(g, weights[t]);
    }
    if (g == 0)
        return -1;
    for (int t = 0; t < TX_NTYPES; t++) {
        d->count[t] = weights[t] / g;
        n += d->count[t];
    }
    if (n > DECK_MAX)
        return -1;
    /* Laid out by type; the first draw shuffles. */
    for (int t = 0, k = 0; t < TX_NTYPES; t++)
        for (int i = 0; i < d->count[t]; i++)
            d->card[k++] = (unsigned char)t;
    d->n = n;
    d->next = n;
    return 0;
}

int deck_draw(struct deck *d, struct rng *r)
{
    if (d->next >= d->n) {
        for (int i = d->n - 1; i > 0; i--) {
            int j = (int)rng_range(r, 0, i);
            unsigned char c = d->card[i];
            d->card[i] = d->card[j];
            d->card[j] = c;
        }
        d->next = 0;
    }
    return d->card[d->next++];
}

double deck_share_pct(const struct deck *d, int t)
{
    return d->n ? 100.0 * d->count[t] / d->n : 0.0;
}
