/*
 * scrape.c - the database host's node_exporter over HTTP(S) (see scrape.h):
 * one libcurl handle per scraper, used by its thread only; a transfer
 * bounded by SCRAPE_TIMEOUT_MS and SCRAPE_MAX_BYTES; the text parsed into
 * struct nodex (run/promtext.h) on the same thread.
 *
 * Freed by the last of its two users (the sampler and the thread), so a
 * thread still in a transfer at the end is left to finish it safely.  No
 * message here quotes the token; nothing here prints or exits.
 */
#include "run/scrape.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/lingering.h"
#include "core/secret.h"

/* One transfer's state. */
struct fetch {
    CURL *h;
    struct curl_slist *hdr; /* Accept, and Authorization with a token */
    char *buf;              /* the body, at most SCRAPE_MAX_BYTES */
    size_t n, cap;
    int too_big;
    char url[1024];
    char data_dir[1024];
    char device[64];
    char errbuf[CURL_ERROR_SIZE];
};

struct scrape {
    pthread_t th;       /* joined by scrape_free, or left (counted) past its bound */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs;           /* under lock: 2 while both use it */
    int stop;           /* under lock: the thread ends */
    unsigned req, done; /* under lock: scrapes asked for, the last one answered */
    struct fetch f;     /* the thread's */
    /* The latest result, under lock. */
    struct nodex res;
    int rc;
    char why[640];
    uint64_t t_us;
    double ms;
    double cpu_ms; /* the thread's CPU for it */
};

static double thread_cpu_ms(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int scrape_global_init(struct err *e)
{
    static int done;

    if (done)
        return 0;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return err_set(e, E_FAIL, "libcurl could not be initialised (curl_global_init)");
    done = 1;
    return 0;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
    struct fetch *f = arg;
    size_t len = size * nmemb;

    if (f->n + len > SCRAPE_MAX_BYTES) {
        f->too_big = 1;
        return 0; /* curl ends the transfer: CURLE_WRITE_ERROR */
    }
    if (f->n + len + 1 > f->cap) {
        size_t cap = f->cap ? f->cap : 1 << 18;
        char *nb;
        while (cap < f->n + len + 1)
            cap *= 2;
        if (cap > SCRAPE_MAX_BYTES + 1)
            cap = SCRAPE_MAX_BYTES + 1;
        if (!(nb = realloc(f->buf, cap)))
            return 0;
        f->buf = nb;
        f->cap = cap;
    }
    memcpy(f->buf + f->n, data, len);
    f->n += len;
    return len;
}

static int fetch_init(struct fetch *f, const char *url, const char *token, const char *data_dir,
                      const char *device, struct err *e)
{
    char auth[4200];

    memset(f, 0, sizeof(*f));
    snprintf(f->url, sizeof(f->url), "%s", url);
    snprintf(f->data_dir, sizeof(f->data_dir), "%s", data_dir ? data_dir : "");
    snprintf(f->device, sizeof(f->device), "%s", device ? device : "");
    if (!(f->h = curl_easy_init()))
        return err_set(e, E_FAIL, "libcurl: no handle for %s", url);
    f->hdr = curl_slist_append(NULL, "Accept: text/plain;version=0.0.4");
    if (token && token[0]) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
        f->hdr = curl_slist_append(f->hdr, auth);
        secret_wipe(auth, sizeof(auth));
    }
    curl_easy_setopt(f->h, CURLOPT_URL, f->url);
    curl_easy_setopt(f->h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(f->h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
    curl_easy_setopt(f->h, CURLOPT_HTTPHEADER, f->hdr);
    curl_easy_setopt(f->h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(f->h, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(f->h, CURLOPT_ERRORBUFFER, f->errbuf);
    curl_easy_setopt(f->h, CURLOPT_FOLLOWLOCATION, 0L);
    return 0;
}

static void fetch_release(struct fetch *f)
{
    if (f->h)
        curl_easy_cleanup(f->h);
    curl_slist_free_all(f->hdr); /* the header with the token goes with it */
    free(f->buf);
    memset(f, 0, sizeof(*f));
}

/* Why a transfer failed, naming the URL (never the token). */
static void fetch_why(const struct fetch *f, CURLcode rc, long timeout_ms, char *why, size_t len)
{
    const char *detail = f->errbuf[0] ? f->errbuf : curl_easy_strerror(rc);

    if (rc == CURLE_OPERATION_TIMEDOUT)
        snprintf(why, len, "%.300s did not answer within %.1f s", f->url,
                 (double)timeout_ms / 1000);
    else if (rc == CURLE_WRITE_ERROR && f->too_big)
        snprintf(why, len,
                 "%.300s served more than %u MB (a node_exporter serves well under 1 MB): not "
                 "read",
                 f->url, SCRAPE_MAX_BYTES >> 20);
    else if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
             rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CERTPROBLEM)
        snprintf(why, len,
                 "%.300s: TLS certificate not accepted (%.120s): the exporter needs a "
                 "certificate signed by a CA in this system's store",
                 f->url, detail);
    else
        snprintf(why, len, "%.300s: %.200s", f->url, detail);
}

/* One scrape into out: 0, or -1 with why. */
static int fetch_do(struct fetch *f, long timeout_ms, struct nodex *out, char *why, size_t len)
{
    CURLcode rc;
    long status = 0;

    f->n = 0;
    f->too_big = 0;
    f->errbuf[0] = '\0';
    curl_easy_setopt(f->h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(f->h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    if ((rc = curl_easy_perform(f->h)) != CURLE_OK) {
        fetch_why(f, rc, timeout_ms, why, len);
        return -1;
    }
    curl_easy_getinfo(f->h, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        snprintf(why, len, "%.300s answered HTTP %ld%s", f->url, status,
                 status == 401 || status == 403
                     ? " (a token in the variable named by run.db_host_metrics_auth_env?)"
                     : "");
        return -1;
    }
    nodex_parse(f->buf ? f->buf : "", f->n, f->data_dir, f->device, out);
    if (!out->have_cpu) {
        snprintf(why, len,
                 "%.300s: no node_cpu_seconds_total in its answer (%zu bytes, %d samples, %d "
                 "lines that are not the Prometheus text format): not a node_exporter with "
                 "its cpu collector",
                 f->url, f->n, out->n_samples, out->n_bad);
        return -1;
    }
    return 0;
}

int scrape_once(const char *url, const char *token, const char *data_dir, const char *device,
                long timeout_ms, struct nodex *out, struct err *e)
{
    struct fetch f;
    char why[640];
    int rc;

    if (fetch_init(&f, url, token, data_dir, device, e) < 0)
        return -1;
    rc = fetch_do(&f, timeout_ms, out, why, sizeof(why));
    fetch_release(&f);
    if (rc < 0)
        return err_set(e, E_FAIL, "%s", why);
    return 0;
}

static void scrape_release(struct scrape *s)
{
    int last;

    pthread_mutex_lock(&s->lock);
    last = --s->refs == 0;
    pthread_mutex_unlock(&s->lock);
    if (!last)
        return;
    fetch_release(&s->f);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s);
}

static void *scrape_main(void *arg)
{
    struct scrape *s = arg;
    struct nodex *res = malloc(sizeof(*res));
    char why[640];

    pthread_mutex_lock(&s->lock);
    while (res && !s->stop) {
        unsigned r;
        uint64_t t0;
        double cpu0;
        int rc;
        if (s->req == s->done) {
            pthread_cond_wait(&s->cond, &s->lock);
            continue;
        }
        r = s->req;
        pthread_mutex_unlock(&s->lock);
        t0 = clock_us();
        cpu0 = thread_cpu_ms();
        why[0] = '\0';
        rc = fetch_do(&s->f, SCRAPE_TIMEOUT_MS, res, why, sizeof(why));
        pthread_mutex_lock(&s->lock);
        s->cpu_ms = thread_cpu_ms() - cpu0;
        s->res = *res;
        s->rc = rc;
        snprintf(s->why, sizeof(s->why), "%s", why);
        s->t_us = clock_us();
        s->ms = (double)(s->t_us - t0) / 1e3;
        s->done = r;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
    free(res);
    scrape_release(s);
    return NULL;
}

struct scrape *scrape_new(const char *url, const char *token, const char *data_dir,
                          const char *device, struct err *e)
{
    struct scrape *s = calloc(1, sizeof(*s));

    if (!s) {
        err_set(e, E_FAIL, "out of memory");
        return NULL;
    }
    if (fetch_init(&s->f, url, token, data_dir, device, e) < 0) {
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    s->refs = 2;
    if (pthread_create(&s->th, NULL, scrape_main, s) != 0) {
        fetch_release(&s->f);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->cond);
        free(s);
        err_set(e, E_FAIL, "no thread for scraping %s", url);
        return NULL;
    }
    return s;
}

/* How long scrape_free waits for a transfer under way (its own bound is SCRAPE_TIMEOUT_MS). */
#define SCRAPE_JOIN_MS (SCRAPE_TIMEOUT_MS + 1500)

void scrape_free(struct scrape *s)
{
    pthread_t th;

    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    th = s->th;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    /* Joined, so that no transfer (libcurl, OpenSSL) runs on when the process
     * exits and OpenSSL's exit handler frees what it uses (a crash at exit,
     * seen under ASan with a TLS exporter); one still blocked past the bound
     * is left and counted (core/lingering.h), and the process then skips the
     * exit handlers. */
    lingering_join(th, SCRAPE_JOIN_MS);
    scrape_release(s);
}


void scrape_ask(struct scrape *s)
{
    pthread_mutex_lock(&s->lock);
    if (s->req == s->done) {
        s->req++;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
}

int scrape_take(struct scrape *s, uint64_t deadline_us, struct nodex *out, uint64_t *t_us,
                double *ms, double *cpu_ms, char *why, size_t len)
{
    struct timespec ts;
    uint64_t now = clock_us();
    int rc;

    pthread_mutex_lock(&s->lock);
    clock_deadline(&ts, deadline_us > now ? deadline_us - now : 0);
    while (s->done != s->req && pthread_cond_timedwait(&s->cond, &s->lock, &ts) == 0)
        ;
    if (s->done != s->req) {
        snprintf(why, len, "%.300s did not answer within %.1f s", s->f.url,
                 (double)SCRAPE_TIMEOUT_MS / 1000);
        rc = -1;
    } else if ((rc = s->rc) < 0) {
        snprintf(why, len, "%s", s->why);
    } else {
        *out = s->res;
        *t_us = s->t_us;
        *ms = s->ms;
        *cpu_ms = s->cpu_ms;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}
