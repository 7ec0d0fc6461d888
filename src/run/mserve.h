/*
 * mserve.h - the live metrics endpoint: an HTTP server (libmicrohttpd, one
 * internal thread) answering GET /metrics with the text the monitor last
 * published: OpenMetrics 1.0 when the scraper asks for it (Accept:
 * application/openmetrics-text, as Prometheus does), else the Prometheus
 * text format 0.0.4.
 *
 * The server thread never reads run state: it copies the latest published
 * buffers under a mutex, so a scrape costs the run nothing but that copy.
 * The text holds figures only: no config, connection string or user name.
 * Nothing here prints or exits.
 */
#ifndef TPCC_MSERVE_H
#define TPCC_MSERVE_H

#include <stddef.h>

#include "core/err.h"

struct mserve;

/*
 * Listen on addr: "HOST:PORT", "[V6]:PORT" or "PORT" (then 127.0.0.1: a
 * loopback unless told otherwise); key names the setting in messages
 * ("--metrics-listen").  0 and *out, or E_USAGE (a bad address, a port in
 * use) with e.  The socket is bound here, before anything else starts.
 */
int mserve_start(struct mserve **out, const char *addr, const char *key, struct err *e);

/* Serve om (OpenMetrics) and text (Prometheus 0.0.4) from now on; takes
 * both heap buffers (freed by the server). */
void mserve_publish(struct mserve *s, char *om, size_t om_len, char *text, size_t text_len);

/* "127.0.0.1:9187", the address listened on. */
const char *mserve_address(const struct mserve *s);

/* Scrapes answered so far. */
unsigned long mserve_scrapes(const struct mserve *s);

void mserve_stop(struct mserve *s);

#endif
