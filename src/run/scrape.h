/*
 * scrape.h - the database host's node_exporter, read over HTTP(S) with
 * libcurl on a thread of its own, so that an exporter that does not answer
 * never holds the monitor: the sampler asks for a scrape (scrape_ask), does
 * its other reads, and takes the result (scrape_take), waiting at most until
 * the deadline; a scrape not done by then is a missing row with a note.
 *
 * A bearer token (run.db_host_metrics_auth_env) goes only into the
 * Authorization header: it is copied here, wiped when freed, and never in a
 * note.  HTTPS checks the certificate against the system's CA store (curl's
 * defaults).  A body over SCRAPE_MAX_BYTES is cut off and not parsed, so an
 * endpoint serving without end costs no more memory than that.
 */
#ifndef TPCC_SCRAPE_H
#define TPCC_SCRAPE_H

#include <stdint.h>

#include "core/err.h"
#include "run/promtext.h"

#define SCRAPE_MAX_BYTES  (8u << 20)
#define SCRAPE_TIMEOUT_MS 500

struct scrape;

/* curl_global_init, once per process, before any thread (cmd/ calls it). */
int scrape_global_init(struct err *e);

/*
 * A scraper of url (copied) with an optional bearer token (copied; NULL:
 * none); data_dir and device as for nodex_parse (copied).  Heap, or NULL
 * with e.
 */
struct scrape *scrape_new(const char *url, const char *token, const char *data_dir,
                          const char *device, struct err *e);
/* Ends the thread and joins it (one blocked in a transfer ends within its
 * timeout); one not ended SCRAPE_TIMEOUT_MS + 1.5 s later is left to free
 * itself and counted as lingering (core/lingering.h). */
void scrape_free(struct scrape *s);

/* Ask for a scrape now (nothing when one is still under way). */
void scrape_ask(struct scrape *s);

/*
 * The scrape asked for, waited for until deadline_us (clock_us()): 0 and
 * out filled (t_us: when it was answered, ms: how long it took, cpu_ms: the
 * scraper thread's CPU for it, transfer and parse), or -1 with why (no
 * scrape done in time, HTTP error, TLS error naming the URL, too large, not
 * a node_exporter text).
 */
int scrape_take(struct scrape *s, uint64_t deadline_us, struct nodex *out, uint64_t *t_us,
                double *ms, double *cpu_ms, char *why, size_t len);

/* One scrape on the caller's thread with a timeout of timeout_ms (the
 * fingerprint's, before the run): 0 and out, or -1 with e. */
int scrape_once(const char *url, const char *token, const char *data_dir, const char *device,
                long timeout_ms, struct nodex *out, struct err *e);

#endif
