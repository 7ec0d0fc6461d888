/*
 * terminal.c - terminals' identity, deck and pacing (see terminal.h).  Pure.
 */
#include "run/terminal.h"

#include <math.h>
#include <string.h>

static const double keying[TX_NTYPES] = { 18, 3, 2, 2, 2 };
static const double think_mean[TX_NTYPES] = { 12, 12, 10, 5, 5 };

double term_keying_s(int type)
{
    return type >= 0 && type < TX_NTYPES ? keying[type] : 0;
}

double term_think_mean_s(int type)
{
    return type >= 0 && type < TX_NTYPES ? think_mean[type] : 0;
}

double term_think_s(int type, double u)
{
    double mean = term_think_mean_s(type), t;

    if (u < 0 || u >= 1)
        u = 0;
    t = -log(1.0 - u) * mean;
    return t > 10 * mean ? 10 * mean : t;
}

int term_init(struct terminal *t, int id, int warehouses, uint64_t seed, const int *weights)
{
    memset(t, 0, sizeof(*t));
    t->id = id;
    t->w_id = id % warehouses + 1;
    t->d_id = (id / warehouses) % 10 + 1;
    t->queued = 0;
    /* Stream 1 as the VUs had, one per terminal id. */
    rng_init_stream(&t->rng, seed, 1, (uint64_t)id, 0);
    return deck_init(&t->deck, weights);
}

int term_init_part(struct terminal *t, int i, int first, int count, int warehouses, uint64_t seed,
                   const int *weights)
{
    int per_layer = 10 * count, layer = i / per_layer, rem = i % per_layer;
    int w = first + rem % count, d = rem / count + 1;

    return term_init(t, layer * 10 * warehouses + (d - 1) * warehouses + (w - 1), warehouses, seed,
                     weights);
}

static uint64_t scaled_us(double secs, double scale)
{
    double us = secs * scale * 1e6;

    return us <= 0 ? 0 : (uint64_t)us;
}

/* The next arrival gap of one terminal's Poisson stream, in microseconds. */
static uint64_t arrival_gap_us(struct terminal *t, const struct term_pace *p)
{
    double per_terminal = p->rate_per_s / (p->n_terminals > 0 ? p->n_terminals : 1);
    double u = rng_unit(&t->rng);

    if (per_terminal <= 0)
        return UINT64_C(1) << 40;
    return (uint64_t)(-log(1.0 - u) / per_terminal * 1e6);
}

void term_first(struct terminal *t, const struct term_pace *p, uint64_t start_us)
{
    t->type = deck_draw(&t->deck, &t->rng);
    t->has_input = 0;
    t->retries = 0;
    switch (p->load) {
    case TERM_THINK:
        t->due_us = start_us + scaled_us(term_keying_s(t->type), p->time_scale);
        break;
    case TERM_OPEN:
        t->due_us = start_us + arrival_gap_us(t, p);
        break;
    default:
        t->due_us = start_us;
        break;
    }
    t->intended_us = t->due_us;
    t->gap_us = t->due_us - start_us;
}

void term_next(struct terminal *t, const struct term_pace *p, uint64_t end_us)
{
    int done = t->type;

    t->type = deck_draw(&t->deck, &t->rng);
    t->has_input = 0;
    t->retries = 0;
    switch (p->load) {
    case TERM_THINK:
        t->due_us = end_us + scaled_us(term_think_s(done, rng_unit(&t->rng)), p->time_scale) +
                    scaled_us(term_keying_s(t->type), p->time_scale);
        break;
    case TERM_OPEN:
        /* The schedule is the terminal's own, whatever the database did. */
        t->due_us = t->intended_us + arrival_gap_us(t, p);
        break;
    default:
        t->due_us = end_us;
        break;
    }
    t->intended_us = t->due_us;
    t->gap_us = t->due_us > end_us ? t->due_us - end_us : 0;
}

double term_mean_cycle_s(const struct deck *d)
{
    double sum = 0;

    if (d->n <= 0)
        return 0;
    for (int ty = 0; ty < TX_NTYPES; ty++)
        sum += (double)d->count[ty] * (keying[ty] + think_mean[ty]);
    return sum / d->n;
}
