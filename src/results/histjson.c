/*
 * histjson.c - latency histograms to and from run.json's mergeable form
 * (see histjson.h).  The reader checks every invariant struct hist keeps,
 * so a record edited by hand or cut short is refused with the field named
 * rather than merged into wrong figures.  Nothing here prints.
 */
#include "results/histjson.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A uint64_t as a JSON integer, or as a decimal string past json_int_t. */
static json_t *u64_json(uint64_t v)
{
    char buf[24];

    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return json_string(buf);
}

/* A non-negative JSON integer or decimal string: 0 and *out, else -1. */
static int json_u64(const json_t *j, uint64_t *out)
{
    const char *s;
    uint64_t v = 0;

    if (json_is_integer(j)) {
        if (json_integer_value(j) < 0)
            return -1;
        *out = (uint64_t)json_integer_value(j);
        return 0;
    }
    if (!json_is_string(j) || !*(s = json_string_value(j)))
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

json_t *histjson_encode(const struct hist *h)
{
    json_t *o, *b = json_array();

    if (!b)
        return NULL;
    for (int i = 0; i < HIST_N_BUCKETS; i++) {
        if (!h->counts[i])
            continue;
        if (json_array_append_new(b, json_integer(i)) < 0 ||
            json_array_append_new(b, u64_json(h->counts[i])) < 0) {
            json_decref(b);
            return NULL;
        }
    }
    o = json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "sub_bits", HIST_SUB_BITS,
                  "range_bits", HIST_RANGE_BITS, "n", u64_json(h->n_samples), "sum_us",
                  u64_json(h->sum_us), "min_us", u64_json(h->n_samples ? h->min_us : 0), "max_us",
                  u64_json(h->n_samples ? h->max_us : 0), "overflow", u64_json(h->n_overflow),
                  "buckets", b);
    return o;
}

/* Field name of j as an unsigned number into *out, or the message. */
static int field_u64(const json_t *j, const char *name, uint64_t *out, struct err *e)
{
    if (json_u64(json_object_get(j, name), out) < 0)
        return err_set(e, E_USAGE, "histogram: '%s' must be a non-negative integer", name);
    return 0;
}

int histjson_decode(const json_t *j, struct hist *h, struct err *e)
{
    uint64_t sub, range, n, sum, min, max, over, total = 0;
    const json_t *b;
    size_t nb;
    int prev = -1, rc;

    hist_init(h);
    if (!json_is_object(j))
        return err_set(e, E_USAGE, "histogram: must be an object");
    if ((rc = field_u64(j, "sub_bits", &sub, e)) < 0 ||
        (rc = field_u64(j, "range_bits", &range, e)) < 0)
        return rc;
    if (sub != HIST_SUB_BITS || range != HIST_RANGE_BITS)
        return err_set(e, E_USAGE,
                       "histogram: bucket layout sub_bits %" PRIu64 ", range_bits %" PRIu64
                       " is not this build's (%d, %d): it cannot be merged bucket by bucket",
                       sub, range, HIST_SUB_BITS, HIST_RANGE_BITS);
    if ((rc = field_u64(j, "n", &n, e)) < 0 || (rc = field_u64(j, "sum_us", &sum, e)) < 0 ||
        (rc = field_u64(j, "min_us", &min, e)) < 0 || (rc = field_u64(j, "max_us", &max, e)) < 0 ||
        (rc = field_u64(j, "overflow", &over, e)) < 0)
        return rc;
    b = json_object_get(j, "buckets");
    if (!json_is_array(b) || json_array_size(b) % 2 != 0)
        return err_set(e, E_USAGE, "histogram: 'buckets' must be an array of index, count pairs");
    nb = json_array_size(b);
    for (size_t i = 0; i < nb; i += 2) {
        const json_t *ji = json_array_get(b, i);
        uint64_t c;

        if (!json_is_integer(ji) || json_integer_value(ji) <= prev ||
            json_integer_value(ji) >= HIST_N_BUCKETS) {
            hist_init(h);
            return err_set(e, E_USAGE,
                           "histogram: bucket index %zu must be an integer from 0 to %d, above "
                           "the one before",
                           i / 2, HIST_N_BUCKETS - 1);
        }
        prev = (int)json_integer_value(ji);
        if (json_u64(json_array_get(b, i + 1), &c) < 0 || c == 0 || total + c < total) {
            hist_init(h);
            return err_set(e, E_USAGE, "histogram: the count of bucket %d must be an integer >= 1",
                           prev);
        }
        h->counts[prev] = c;
        total += c;
    }
    if (total != n) {
        hist_init(h);
        return err_set(e, E_USAGE,
                       "histogram: the bucket counts add up to %" PRIu64 ", not n = %" PRIu64,
                       total, n);
    }
    if (n == 0) {
        if (sum || min || max || over)
            return err_set(e, E_USAGE,
                           "histogram: an empty histogram must have zero sum, min, "
                           "max and overflow");
        return 0;
    }
    /* The first and last non-empty buckets hold min and max; overflowed values sit in the last. */
    {
        int first = (int)json_integer_value(json_array_get(b, 0));

        if (min > max || hist_bucket_of(min) != first || hist_bucket_of(max) != prev) {
            hist_init(h);
            return err_set(e, E_USAGE,
                           "histogram: min_us %" PRIu64 " and max_us %" PRIu64
                           " must lie in the first and last non-empty buckets (%d, %d)",
                           min, max, first, prev);
        }
    }
    /* (A snapshot delta may hold no overflowed value yet keep the whole run's max.) */
    if (over > (prev == HIST_N_BUCKETS - 1 ? h->counts[prev] : 0) ||
        (over > 0 && max <= HIST_MAX_US)) {
        hist_init(h);
        return err_set(e, E_USAGE,
                       "histogram: 'overflow' %" PRIu64 " does not match the last bucket and "
                       "max_us",
                       over);
    }
    h->n_samples = n;
    h->sum_us = sum;
    h->min_us = min;
    h->max_us = max;
    h->n_overflow = over;
    return 0;
}

int histjson_read(const json_t *doc, const char *path, struct hist *h, struct err *e)
{
    const json_t *j = doc;
    const char *p = path;

    hist_init(h);
    while (j && *p) {
        size_t len = strcspn(p, ".");
        char key[128];

        if (len >= sizeof(key))
            return err_set(e, E_USAGE, "'%s': a part of the path is too long", path);
        memcpy(key, p, len);
        key[len] = '\0';
        j = json_object_get(j, key);
        p += len;
        if (*p == '.')
            p++;
    }
    if (!j)
        return err_set(e, E_USAGE,
                       "the record has no histogram at '%s' (written by a version "
                       "without mergeable histograms, or the run measured nothing)",
                       path);
    if (histjson_decode(j, h, e) < 0)
        return err_prefix(e, "'%s'", path);
    return 0;
}
