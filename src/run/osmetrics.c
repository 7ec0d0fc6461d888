/*
 * osmetrics.c - parsers of /proc text and the rates of two samples (see
 * osmetrics.h).  Everything but osm_read_file() is a pure function of its
 * arguments; nothing here prints or allocates.
 */
#include "run/osmetrics.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The line starting with key followed by a blank or ':' (at a line start),
 * pointing just past key; NULL when there is none. */
static const char *line_with(const char *text, const char *key)
{
    size_t n = strlen(key);

    for (const char *p = text; p && *p;) {
        if (strncmp(p, key, n) == 0 && (p[n] == ' ' || p[n] == '\t' || p[n] == ':'))
            return p + n;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return NULL;
}

/* Up to max unsigned numbers from p (stopping at the line's end) into v:
 * how many were read. */
static int numbers(const char *p, uint64_t *v, int max)
{
    int n = 0;

    while (n < max) {
        char *end;
        unsigned long long x;
        while (*p == ' ' || *p == '\t' || *p == ':')
            p++;
        if (!isdigit((unsigned char)*p))
            break;
        errno = 0;
        x = strtoull(p, &end, 10);
        if (errno || end == p)
            break;
        v[n++] = x;
        p = end;
    }
    return n;
}

int osm_parse_stat(const char *text, struct osm_cpu *out)
{
    uint64_t v[10];
    const char *p;
    int n;

    memset(out, 0, sizeof(*out));
    if (!(p = line_with(text, "cpu")) || (n = numbers(p, v, 10)) < 4)
        return -1;
    out->user = v[0];
    out->nice = v[1];
    out->system = v[2];
    out->idle = v[3];
    /* Old kernels stop early: what is not there is 0. */
    out->iowait = n > 4 ? v[4] : 0;
    out->irq = n > 5 ? v[5] : 0;
    out->softirq = n > 6 ? v[6] : 0;
    out->steal = n > 7 ? v[7] : 0;
    if ((p = line_with(text, "ctxt")) && numbers(p, v, 1) == 1)
        out->ctxt = v[0];
    if ((p = line_with(text, "procs_running")) && numbers(p, v, 1) == 1)
        out->procs_running = v[0];
    return 0;
}

/* b - a, 0 when a counter went backwards (a CPU taken offline). */
static uint64_t delta(uint64_t a, uint64_t b)
{
    return b > a ? b - a : 0;
}

void osm_cpu_shares(const struct osm_cpu *a, const struct osm_cpu *b, struct osm_cpu_pct *out)
{
    double user = (double)(delta(a->user, b->user) + delta(a->nice, b->nice));
    double sys = (double)(delta(a->system, b->system) + delta(a->irq, b->irq) +
                          delta(a->softirq, b->softirq));
    double io = (double)delta(a->iowait, b->iowait), st = (double)delta(a->steal, b->steal);
    double idle = (double)delta(a->idle, b->idle);
    double total = user + sys + io + st + idle;

    memset(out, 0, sizeof(*out));
    if (total <= 0)
        return;
    out->user = 100.0 * user / total;
    out->system = 100.0 * sys / total;
    out->iowait = 100.0 * io / total;
    out->steal = 100.0 * st / total;
    out->idle = 100.0 * idle / total;
}

int osm_parse_meminfo(const char *text, struct osm_mem *out)
{
    static const char *const keys[4] = { "MemFree", "Cached", "Dirty", "Writeback" };
    uint64_t *dst[4] = { &out->free_kb, &out->cached_kb, &out->dirty_kb, &out->writeback_kb };

    memset(out, 0, sizeof(*out));
    for (int i = 0; i < 4; i++) {
        const char *p = line_with(text, keys[i]);
        if (!p || numbers(p, dst[i], 1) != 1)
            return -1;
    }
    return 0;
}

int osm_parse_diskstats(const char *text, const char *dev, struct osm_disk *out)
{
    size_t n = strlen(dev);

    memset(out, 0, sizeof(*out));
    if (!n)
        return -1;
    for (const char *p = text; p && *p;) {
        /* "   8       0 sda 1 2 3 ...": major, minor, name, then the counters. */
        const char *q = p;
        uint64_t v[10];
        for (int field = 0; field < 2; field++) {
            while (*q == ' ')
                q++;
            while (isdigit((unsigned char)*q))
                q++;
        }
        while (*q == ' ')
            q++;
        if (strncmp(q, dev, n) == 0 && q[n] == ' ' && numbers(q + n, v, 10) >= 10) {
            out->reads = v[0];
            out->sectors_read = v[2];
            out->read_ms = v[3];
            out->writes = v[4];
            out->sectors_written = v[6];
            out->write_ms = v[7];
            out->io_ms = v[9];
            return 0;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return -1;
}

void osm_disk_rates(const struct osm_disk *a, const struct osm_disk *b, double interval_s,
                    struct osm_disk_rate *out)
{
    double ios = (double)(delta(a->reads, b->reads) + delta(a->writes, b->writes));

    memset(out, 0, sizeof(*out));
    if (interval_s <= 0)
        return;
    out->reads_per_s = (double)delta(a->reads, b->reads) / interval_s;
    out->writes_per_s = (double)delta(a->writes, b->writes) / interval_s;
    out->read_mb_per_s = (double)delta(a->sectors_read, b->sectors_read) * 512.0 / 1e6 / interval_s;
    out->write_mb_per_s =
        (double)delta(a->sectors_written, b->sectors_written) * 512.0 / 1e6 / interval_s;
    if (ios > 0)
        out->await_ms =
            (double)(delta(a->read_ms, b->read_ms) + delta(a->write_ms, b->write_ms)) / ios;
    out->util_pct = 100.0 * (double)delta(a->io_ms, b->io_ms) / (interval_s * 1000.0);
    if (out->util_pct > 100)
        out->util_pct = 100;
}

/* One line of /proc/net/dev ("  eth0: 123 4 ..."): 0 and *out, or -1 for a
 * header or malformed line. */
static int netdev_line(const char *p, struct osm_net *out)
{
    const char *colon = strchr(p, ':'), *eol = strchr(p, '\n');
    uint64_t v[9];
    size_t n;

    if (!colon || (eol && colon > eol))
        return -1;
    while (*p == ' ')
        p++;
    n = (size_t)(colon - p);
    if (n == 0 || n >= sizeof(out->name) || memchr(p, '|', n))
        return -1;
    /* rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes ... */
    if (numbers(colon + 1, v, 9) < 9)
        return -1;
    memcpy(out->name, p, n);
    out->name[n] = '\0';
    out->rx_bytes = v[0];
    out->tx_bytes = v[8];
    return 0;
}

int osm_parse_netdev(const char *text, struct osm_net *out, int cap)
{
    int k = 0;

    for (const char *p = text; p && *p && k < cap;) {
        if (netdev_line(p, &out[k]) == 0)
            k++;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return k;
}

int osm_netdev_find(const char *text, const char *name, struct osm_net *out)
{
    for (const char *p = text; p && *p;) {
        if (netdev_line(p, out) == 0 && strcmp(out->name, name) == 0)
            return 0;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    memset(out, 0, sizeof(*out));
    return -1;
}

int osm_parse_self_stat(const char *text, struct osm_self *out)
{
    /* "pid (comm) state ppid ...": utime and stime are fields 14 and 15, after
     * the 11 fields from state to cmajflt; comm may hold ") ", so find the last. */
    const char *p = strrchr(text, ')');
    int field = 0;

    if (!p)
        return -1;
    p++;
    while (*p && field < 11) {
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
        field++;
    }
    {
        uint64_t v[2];
        if (field < 11 || numbers(p, v, 2) != 2)
            return -1;
        out->utime = v[0];
        out->stime = v[1];
    }
    return 0;
}

int osm_parse_self_status(const char *text, struct osm_self *out)
{
    const char *p = line_with(text, "VmRSS");

    return p && numbers(p, &out->rss_kb, 1) == 1 ? 0 : -1;
}

long osm_read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t n = 0;

    if (fd < 0 || cap == 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    while (n < cap - 1) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return (long)n;
}
