/*
 * waitdiff.h - why a change paid: where each transaction type's time went
 * in the database in two runs (run.json "waits", the wait sampler's
 * samples by type and event), and the events whose share changed most.
 * `compare` prints it per type for each step, `history` at each change
 * point; the study's step table takes the largest change (wdiff_largest).
 *
 * A share is an event's samples over all the type's samples (CPU, Client
 * and every Class:Event), pooled over the runs of a side (a step's
 * repeats).  The waits (every event but CPU) are ranked by the size of
 * their change, largest first; CPU's share comes last, as the room the
 * waits left or took.  A change is "within the sampling error" when it is
 * under twice its standard error, sqrt(q1 (1 - q1) / n1 + q2 (1 - q2) / n2)
 * over the two sides' samples n, with q = (samples of the event + 1) /
 * (n + 2) (so that a share of 0 or 1 of a few samples has an error too: 1
 * sample of 1 against 0 of 2 is no change); samples of one backend a tenth
 * of a second apart are not independent, so this is a floor of the error,
 * not its measure.
 *
 * Nothing here prints or exits; records are read, never changed.
 */
#ifndef TPCC_WAITDIFF_H
#define TPCC_WAITDIFF_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define WDIFF_KEYS 128 /* events kept per type and side (the sampler keeps 128) */
#define WDIFF_KEY  72  /* an event key's room: "LWLock:WALWrite" */
#define WDIFF_SHOW 3   /* waits compare and history name per type */

/* One transaction type's samples on one side, pooled over its records. */
struct wdiff_side {
    uint64_t samples;                /* all its samples */
    int n;                           /* events */
    char key[WDIFF_KEYS][WDIFF_KEY]; /* "CPU", "Client", "IO:WALSync" */
    uint64_t count[WDIFF_KEYS];      /* samples of each */
};

/* One event's share of a type's samples, old and new. */
struct wdiff_change {
    char type[24];      /* "new_order" */
    char key[WDIFF_KEY]; /* "IO:WALSync", "CPU" */
    double old_share;   /* 0..1 */
    double new_share;
    int beyond_noise;   /* 1: the change is at least twice its sampling error */
};

/*
 * 1 when record doc has waits to diff (available, with samples by type);
 * else 0 and why into why (len bytes): the sampler's reason ("run.wait_
 * sampling is 0: off") or that the record has none.
 */
int wdiff_has(json_t *doc, char *why, size_t len);
/* Add the samples of type ("new_order") in record doc to s (a zeroed side to start). */
void wdiff_side_add(struct wdiff_side *s, json_t *doc, const char *type);
/*
 * The samples of type in those of the records docs[0..n) that have waits,
 * pooled into s (zeroed first); how many had them (0: why says why the
 * first has none).
 */
int wdiff_pool(json_t *const *docs, int n, const char *type, struct wdiff_side *s, char *why,
               size_t len);
/*
 * The changes of type from a (old) to b (new) into out: the waits ranked by
 * the size of their change (at most k - 1 of them), then CPU.  Their count;
 * 0 when a side has no sample of the type.
 */
int wdiff_type(const struct wdiff_side *a, const struct wdiff_side *b, const char *type,
               struct wdiff_change *out, int k);
/* "IO:WALSync 31 % -> 4 %, LWLock:WALWrite 12 % -> 2 %, CPU 40 % -> 77 %": a change
 * within the sampling error is marked "(~)". */
void wdiff_fmt(char *buf, size_t len, const struct wdiff_change *c, int n);
/* A share as the text shows it: "31 %", "4 %", "0.4 %" (under 1 %), "0 %". */
void wdiff_fmt_share(char *buf, size_t len, double share);
/*
 * The largest change between two records: of every type's waits, the one
 * whose share changed most beyond its sampling error, into *out.  1 when
 * there is one; 0 when there is none (why says so: a record without waits
 * and its reason, or no change beyond the sampling error).
 */
int wdiff_largest(json_t *old_doc, json_t *new_doc, struct wdiff_change *out, char *why,
                  size_t len);
/* The same between the records olds[0..n_old) and news[0..n_new), each side pooled. */
int wdiff_largest_of(json_t *const *olds, int n_old, json_t *const *news, int n_new,
                     struct wdiff_change *out, char *why, size_t len);
/* c as JSON: {"type", "event", "old_share", "new_share", "beyond_noise"}. */
json_t *wdiff_json(const struct wdiff_change *c);

#endif
