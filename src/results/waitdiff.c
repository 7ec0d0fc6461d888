/*
 * waitdiff.c - the waits whose share of a transaction type's samples
 * changed most between two runs (see waitdiff.h): the records' "waits"
 * read, pooled per side, ranked, formatted.  Reads records only; prints
 * nothing.
 */
#include "results/waitdiff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"

int wdiff_has(json_t *doc, char *why, size_t len)
{
    json_t *w = json_object_get(doc, "waits");
    const char *r;

    if (!json_is_object(w)) {
        snprintf(why, len, "the record has no waits (written before the wait sampler)");
        return 0;
    }
    if (!json_is_true(json_object_get(w, "available"))) {
        r = json_string_value(json_object_get(w, "why"));
        snprintf(why, len, "%s", r ? r : "the wait sampler took no sample");
        return 0;
    }
    if (!json_is_object(json_object_get(w, "by_type"))) {
        snprintf(why, len, "the record's waits have no samples by type");
        return 0;
    }
    why[0] = '\0';
    return 1;
}

void wdiff_side_add(struct wdiff_side *s, json_t *doc, const char *type)
{
    json_t *t = json_object_get(json_object_get(json_object_get(doc, "waits"), "by_type"), type);
    json_t *ev = json_object_get(t, "events"), *v;
    const char *key;

    if (!json_is_object(ev))
        return;
    json_object_foreach(ev, key, v) {
        int i = 0;
        json_int_t c = json_integer_value(v);
        if (c <= 0)
            continue;
        while (i < s->n && strcmp(s->key[i], key) != 0)
            i++;
        if (i == s->n) {
            if (s->n == WDIFF_KEYS)
                continue; /* beyond what the sampler itself keeps: not seen */
            snprintf(s->key[s->n], WDIFF_KEY, "%s", key);
            s->count[s->n++] = 0;
        }
        s->count[i] += (uint64_t)c;
        /* The share's whole is the events' sum, so that shares add up to 1 even
         * when a record's "samples" and events disagree. */
        s->samples += (uint64_t)c;
    }
}

int wdiff_pool(json_t *const *docs, int n, const char *type, struct wdiff_side *s, char *why,
               size_t len)
{
    char w[320];
    int got = 0;

    memset(s, 0, sizeof(*s));
    why[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (!wdiff_has(docs[i], w, sizeof(w))) {
            if (!got && !why[0])
                snprintf(why, len, "%s", w);
            continue;
        }
        wdiff_side_add(s, docs[i], type);
        got++;
    }
    if (got)
        why[0] = '\0';
    return got;
}

/* The share of key on side s (0 when absent). */
static double share_of(const struct wdiff_side *s, const char *key)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->key[i], key) == 0)
            return (double)s->count[i] / (double)s->samples;
    return 0.0;
}

/* c for key from a to b, its sampling error judged. */
static void change_of(const struct wdiff_side *a, const struct wdiff_side *b, const char *type,
                      const char *key, struct wdiff_change *c)
{
    double p1 = share_of(a, key), p2 = share_of(b, key), n1 = (double)a->samples,
           n2 = (double)b->samples;
    /* The error of shares (x + 1) / (n + 2) (Agresti-Coull's "plus two"): a share of
     * 0 or 1 has none by the plain formula, and 1 sample of 1 against 0 of 2 would
     * pass as a change. */
    double q1 = (p1 * n1 + 1) / (n1 + 2), q2 = (p2 * n2 + 1) / (n2 + 2);
    double se = sqrt(q1 * (1 - q1) / n1 + q2 * (1 - q2) / n2);

    snprintf(c->type, sizeof(c->type), "%s", type);
    snprintf(c->key, sizeof(c->key), "%s", key);
    c->old_share = p1;
    c->new_share = p2;
    c->beyond_noise = fabs(p2 - p1) >= 2 * se && p1 != p2;
}

/* Insert c into the k best of out[0..*n) by the size of its change, names breaking ties. */
static void rank_in(struct wdiff_change *out, int *n, int k, const struct wdiff_change *c)
{
    double d = fabs(c->new_share - c->old_share);
    int at;

    for (at = *n; at > 0; at--) {
        const struct wdiff_change *p = &out[at - 1];
        double pd = fabs(p->new_share - p->old_share);
        if (pd > d || (pd == d && strcmp(p->key, c->key) < 0))
            break;
    }
    if (at >= k)
        return;
    if (*n < k)
        (*n)++;
    memmove(&out[at + 1], &out[at], (size_t)(*n - 1 - at) * sizeof(*out));
    out[at] = *c;
}

int wdiff_type(const struct wdiff_side *a, const struct wdiff_side *b, const char *type,
               struct wdiff_change *out, int k)
{
    struct wdiff_change c;
    int n = 0;

    if (!a->samples || !b->samples || k < 1)
        return 0;
    /* Every wait of either side: one gone from b changed as much as one new in it. */
    for (int side = 0; side < 2; side++) {
        const struct wdiff_side *s = side ? b : a;
        for (int i = 0; i < s->n; i++) {
            if (strcmp(s->key[i], "CPU") == 0 || (side && share_of(a, s->key[i]) > 0))
                continue;
            change_of(a, b, type, s->key[i], &c);
            rank_in(out, &n, k - 1, &c);
        }
    }
    change_of(a, b, type, "CPU", &out[n++]);
    return n;
}

void wdiff_fmt_share(char *buf, size_t len, double share)
{
    double pct = share * 100;

    if (pct == 0 || pct >= 0.95)
        snprintf(buf, len, "%.0f %%", pct);
    else
        snprintf(buf, len, "%.1f %%", pct);
}

void wdiff_fmt(char *buf, size_t len, const struct wdiff_change *c, int n)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && o < len; i++) {
        char a[16], b[16];
        int k;
        wdiff_fmt_share(a, sizeof(a), c[i].old_share);
        wdiff_fmt_share(b, sizeof(b), c[i].new_share);
        k = snprintf(buf + o, len - o, "%s%s %s -> %s%s", i ? ", " : "", c[i].key, a, b,
                     c[i].beyond_noise ? "" : " (~)");
        if (k < 0)
            break;
        o += (size_t)k;
    }
}

int wdiff_largest_of(json_t *const *olds, int n_old, json_t *const *news, int n_new,
                     struct wdiff_change *out, char *why, size_t len)
{
    struct wdiff_side a, b;
    struct wdiff_change c[WDIFF_KEYS + 1];
    int found = 0;

    for (int t = 0; t < TX_NTYPES; t++) {
        const char *type = tx_name((enum tx_type)t);
        int n;
        if (!wdiff_pool(olds, n_old, type, &a, why, len) ||
            !wdiff_pool(news, n_new, type, &b, why, len))
            return 0;
        n = wdiff_type(&a, &b, type, c, WDIFF_KEYS + 1);
        /* The waits come ranked, CPU last: the first beyond the sampling error. */
        for (int i = 0; i < n - 1; i++) {
            if (!c[i].beyond_noise)
                continue;
            if (!found ||
                fabs(c[i].new_share - c[i].old_share) > fabs(out->new_share - out->old_share))
                *out = c[i];
            found = 1;
            break;
        }
    }
    if (!found)
        snprintf(why, len, "no wait's share changed beyond the sampling error");
    return found;
}

int wdiff_largest(json_t *old_doc, json_t *new_doc, struct wdiff_change *out, char *why,
                  size_t len)
{
    return wdiff_largest_of(&old_doc, 1, &new_doc, 1, out, why, len);
}

json_t *wdiff_json(const struct wdiff_change *c)
{
    return json_pack("{s:s, s:s, s:f, s:f, s:b}", "type", c->type, "event", c->key, "old_share",
                     c->old_share, "new_share", c->new_share, "beyond_noise", c->beyond_noise);
}
