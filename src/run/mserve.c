/*
 * mserve.c - the live metrics endpoint over libmicrohttpd (see mserve.h).
 * We bind the listening socket ourselves, so a port in use is reported with
 * its errno before the run starts, then hand it to the daemon.
 */
#include "run/mserve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/config.h"

struct mserve {
    struct MHD_Daemon *d;
    int fd;
    char addr[128];
    pthread_mutex_t lock; /* guards the buffers below */
    char *om, *text;
    size_t om_len, text_len;
    unsigned long scrapes;
};

#define OM_TYPE   "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **state)
{
    struct mserve *s = cls;
    struct MHD_Response *r;
    const char *accept;
    char *body = NULL;
    size_t len = 0;
    int om, status = MHD_HTTP_OK;
    enum MHD_Result rc;

    (void)version;
    (void)upload;
    (void)state;
    if (*upload_len)
        return MHD_NO; /* no request bodies */
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static const char msg[] = "only GET /metrics\n";
        r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        rc = MHD_queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED, r);
        MHD_destroy_response(r);
        return rc;
    }
    if (strcmp(url, "/metrics") != 0) {
        static const char msg[] = "tpccbench: the metrics are at /metrics\n";
        r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        rc = MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, r);
        MHD_destroy_response(r);
        return rc;
    }
    accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    om = accept && strstr(accept, "application/openmetrics-text") != NULL;
    pthread_mutex_lock(&s->lock);
    {
        const char *src = om ? s->om : s->text;
        size_t n = om ? s->om_len : s->text_len;
        /* Before the first sample: an empty (valid) exposition. */
        if (!src) {
            src = om ? "# EOF\n" : "";
            n = strlen(src);
        }
        if ((body = malloc(n + 1)) != NULL) {
            memcpy(body, src, n);
            len = n;
        }
        s->scrapes++;
    }
    pthread_mutex_unlock(&s->lock);
    if (!body)
        return MHD_NO;
    r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, om ? OM_TYPE : TEXT_TYPE);
    rc = MHD_queue_response(conn, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

/* Split addr into host and port; "PORT" alone is the loopback's. */
static int split_addr(const char *addr, char *host, size_t hlen, char *port, size_t plen)
{
    const char *colon;

    if (addr[0] == '[') {
        const char *end = strchr(addr, ']');
        if (!end || end[1] != ':' || (size_t)(end - addr - 1) >= hlen)
            return -1;
        snprintf(host, hlen, "%.*s", (int)(end - addr - 1), addr + 1);
        snprintf(port, plen, "%s", end + 2);
    } else if ((colon = strrchr(addr, ':')) != NULL) {
        if (strchr(addr, ':') != colon || (size_t)(colon - addr) >= hlen)
            return -1; /* a bare IPv6 address needs brackets */
        snprintf(host, hlen, "%.*s", (int)(colon - addr), addr);
        snprintf(port, plen, "%s", colon + 1);
    } else {
        snprintf(host, hlen, "127.0.0.1");
        snprintf(port, plen, "%s", addr);
    }
    if (!host[0])
        snprintf(host, hlen, "127.0.0.1");
    return 0;
}

int mserve_start(struct mserve **out, const char *addr, const char *key, struct err *e)
{
    char host[96], port[16], eb[128];
    int64_t pnum;
    struct addrinfo hints, *ai = NULL;
    struct mserve *s;
    int fd, one = 1, grc;

    *out = NULL;
    if (split_addr(addr, host, sizeof(host), port, sizeof(port)) < 0 ||
        parse_int64(port, 0, 65535, &pnum) != 0)
        return err_set(e, E_USAGE,
                       "'%s' must be HOST:PORT, [IPV6]:PORT or PORT with a port from 0 to 65535 "
                       "(0: the system chooses one) (got \"%s\")",
                       key, addr);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    if ((grc = getaddrinfo(host, port, &hints, &ai)) != 0 || !ai)
        return err_set(e, E_USAGE, "'%s': '%s' is not a numeric IP address (%s)", key, host,
                       gai_strerror(grc));
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        freeaddrinfo(ai);
        return err_set(e, E_FAIL, "'%s': socket: %s", key, err_errno(errno, eb, sizeof(eb)));
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 16) != 0) {
        int err = errno;
        close(fd);
        freeaddrinfo(ai);
        return err_set(e, E_USAGE, "cannot listen on %s (%s): %s%s", addr, key,
                       err_errno(err, eb, sizeof(eb)),
                       err == EADDRINUSE ? ": another program uses that port; choose another" : "");
    }
    freeaddrinfo(ai);
    if (!(s = calloc(1, sizeof(*s)))) {
        close(fd);
        return err_set(e, E_FAIL, "out of memory");
    }
    s->fd = fd;
    /* Port 0: the system chose one, and the address we print must say which. */
    if (pnum == 0) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
            snprintf(port, sizeof(port), "%u",
                     ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                    : ((struct sockaddr_in *)&ss)->sin_port));
    }
    snprintf(s->addr, sizeof(s->addr), "%s%s%s:%s", strchr(host, ':') ? "[" : "", host,
             strchr(host, ':') ? "]" : "", port);
    pthread_mutex_init(&s->lock, NULL);
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, answer, s,
                            MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, (unsigned)16,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
    if (!s->d) {
        close(fd);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return err_set(e, E_FAIL, "'%s': the HTTP server (libmicrohttpd) did not start on %s", key,
                       addr);
    }
    *out = s;
    return 0;
}

void mserve_publish(struct mserve *s, char *om, size_t om_len, char *text, size_t text_len)
{
    char *old_om, *old_text;

    pthread_mutex_lock(&s->lock);
    old_om = s->om;
    old_text = s->text;
    s->om = om;
    s->om_len = om_len;
    s->text = text;
    s->text_len = text_len;
    pthread_mutex_unlock(&s->lock);
    free(old_om);
    free(old_text);
}

const char *mserve_address(const struct mserve *s)
{
    return s->addr;
}

unsigned long mserve_scrapes(const struct mserve *s)
{
    unsigned long n;

    pthread_mutex_lock((pthread_mutex_t *)&s->lock);
    n = s->scrapes;
    pthread_mutex_unlock((pthread_mutex_t *)&s->lock);
    return n;
}

void mserve_stop(struct mserve *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d);
    close(s->fd);
    pthread_mutex_destroy(&s->lock);
    free(s->om);
    free(s->text);
    free(s);
}
