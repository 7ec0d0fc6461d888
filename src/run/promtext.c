/*
 * promtext.c - the Prometheus text format read as samples, and a database
 * host's figures from a node_exporter text (see promtext.h).
 *
 * The text comes from another machine: every read is bounded by end, a
 * line is taken only when it parses whole (name, labels with their quoting,
 * a number), and a field too long for its buffer is cut, never overrun.
 */
#include "run/promtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

/* The end of the labels starting after '{' at p (the '}'), or NULL. */
static const char *labels_end(const char *p, const char *eol)
{
    int quoted = 0;

    for (; p < eol; p++) {
        if (quoted) {
            if (*p == '\\')
                p++;
            else if (*p == '"')
                quoted = 0;
        } else if (*p == '"') {
            quoted = 1;
        } else if (*p == '}') {
            return p;
        }
    }
    return NULL;
}

/* Parse one line [p, eol) into s: 1, 0 for a comment or blank, -1 malformed. */
static int parse_line(const char *p, const char *eol, struct prom_sample *s)
{
    char num[64];
    const char *q;
    char *numend;
    size_t n;

    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if (p == eol || *p == '#' || *p == '\r')
        return 0;
    if (!name_start(*p))
        return -1;
    s->name = p;
    while (p < eol && name_char(*p))
        p++;
    s->name_len = (size_t)(p - s->name);
    s->labels = "";
    s->labels_len = 0;
    if (p < eol && *p == '{') {
        const char *close = labels_end(p + 1, eol);
        if (!close)
            return -1;
        s->labels = p + 1;
        s->labels_len = (size_t)(close - p - 1);
        p = close + 1;
    }
    if (p == eol || (*p != ' ' && *p != '\t'))
        return -1;
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    for (q = p; q < eol && *q != ' ' && *q != '\t' && *q != '\r'; q++)
        ;
    n = (size_t)(q - p);
    if (n == 0 || n >= sizeof(num))
        return -1;
    memcpy(num, p, n);
    num[n] = '\0';
    s->value = strtod(num, &numend);
    if (*numend != '\0')
        return -1;
    return 1;
}

int prom_next(const char **p, const char *end, struct prom_sample *s, int *bad)
{
    while (*p < end) {
        const char *line = *p, *eol = memchr(line, '\n', (size_t)(end - line));
        int rc;
        if (!eol)
            eol = end;
        *p = eol < end ? eol + 1 : end;
        rc = parse_line(line, eol, s);
        if (rc == 1)
            return 1;
        if (rc < 0 && bad)
            (*bad)++;
    }
    return 0;
}

int prom_is(const struct prom_sample *s, const char *name)
{
    size_t n = strlen(name);

    return s->name_len == n && memcmp(s->name, name, n) == 0;
}

int prom_label(const struct prom_sample *s, const char *key, char *out, size_t cap)
{
    const char *p = s->labels, *end = s->labels + s->labels_len;
    size_t klen = strlen(key);

    while (p < end) {
        const char *k = p, *eq;
        int match;
        size_t o = 0;
        while (k < end && (*k == ' ' || *k == ','))
            k++;
        eq = memchr(k, '=', (size_t)(end - k));
        if (!eq || eq + 1 >= end || eq[1] != '"')
            return -1;
        match = (size_t)(eq - k) == klen && memcmp(k, key, klen) == 0;
        for (p = eq + 2; p < end && *p != '"'; p++) {
            char c = *p;
            if (c == '\\' && p + 1 < end) {
                p++;
                c = *p == 'n' ? '\n' : *p;
            }
            if (match && o + 1 < cap)
                out[o++] = c;
        }
        if (match) {
            if (cap)
                out[o] = '\0';
            return 0;
        }
        p++; /* past the closing quote */
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* node_exporter                                                       */
/* ------------------------------------------------------------------ */

/* Length of mount point mp when it is a whole-component prefix of path, else -1. */
static long prefix_len(const char *mp, const char *path)
{
    size_t n = strlen(mp);

    if (strcmp(mp, "/") == 0)
        return path[0] == '/' ? 1 : -1;
    if (n == 0 || strncmp(mp, path, n) != 0 || (path[n] != '/' && path[n] != '\0'))
        return -1;
    return (long)n;
}

/* What pass 1 keeps beyond out: the node_disk devices seen, the best mount. */
struct pass1 {
    char disks[NX_MAX_DISKS][64];
    long best;
};

static void cpu_sample(struct nodex *out, const struct prom_sample *s)
{
    static const char *const modes[NX_NMODES] = { "user",    "nice",   "system", "irq",
                                                  "softirq", "iowait", "steal",  "idle" };
    char mode[32];

    if (prom_label(s, "mode", mode, sizeof(mode)) < 0 || !isfinite(s->value))
        return;
    for (int i = 0; i < NX_NMODES; i++)
        if (strcmp(mode, modes[i]) == 0) {
            out->cpu[i] += s->value;
            if (i == NX_IDLE)
                out->ncpu++;
        }
}

/* node_memory_*, node_load1, node_pressure_*: 1 when s was one of them. */
static int gauge_sample(struct nodex *out, const struct prom_sample *s)
{
    static const char *const mem[NX_NMEM] = { "node_memory_MemFree_bytes",
                                              "node_memory_Cached_bytes", "node_memory_Dirty_bytes",
                                              "node_memory_Writeback_bytes",
                                              "node_memory_MemTotal_bytes" };
    static const char *const psi[NX_NPSI] = { "node_pressure_cpu_waiting_seconds_total",
                                              "node_pressure_io_waiting_seconds_total",
                                              "node_pressure_io_stalled_seconds_total",
                                              "node_pressure_memory_waiting_seconds_total",
                                              "node_pressure_memory_stalled_seconds_total" };

    if (!isfinite(s->value))
        return 0;
    for (int i = 0; i < NX_NMEM; i++)
        if (prom_is(s, mem[i])) {
            out->mem[i] = s->value;
            out->have_mem[i] = 1;
            return 1;
        }
    for (int i = 0; i < NX_NPSI; i++)
        if (prom_is(s, psi[i])) {
            out->psi[i] = s->value;
            out->have_psi[i] = 1;
            return 1;
        }
    if (prom_is(s, "node_load1")) {
        out->load1 = s->value;
        out->have_load1 = 1;
        return 1;
    }
    return 0;
}

static void identity_sample(struct nodex *out, const struct prom_sample *s)
{
    if (prom_is(s, "node_uname_info")) {
        prom_label(s, "release", out->uname_release, sizeof(out->uname_release));
        prom_label(s, "version", out->uname_version, sizeof(out->uname_version));
        prom_label(s, "machine", out->uname_machine, sizeof(out->uname_machine));
        prom_label(s, "nodename", out->uname_nodename, sizeof(out->uname_nodename));
        prom_label(s, "sysname", out->uname_sysname, sizeof(out->uname_sysname));
    } else if (prom_is(s, "node_os_info")) {
        prom_label(s, "pretty_name", out->os_pretty, sizeof(out->os_pretty));
        prom_label(s, "id", out->os_id, sizeof(out->os_id));
        prom_label(s, "version_id", out->os_version_id, sizeof(out->os_version_id));
    }
}

/* The filesystems (the longest mount point holding data_dir) and the disks seen. */
static void storage_sample(struct nodex *out, struct pass1 *p1, const struct prom_sample *s,
                           const char *data_dir)
{
    char mp[256], dev[64];
    long n;

    if (prom_is(s, "node_filesystem_size_bytes") && data_dir && data_dir[0] &&
        prom_label(s, "mountpoint", mp, sizeof(mp)) == 0 && (n = prefix_len(mp, data_dir)) >= 0 &&
        n > p1->best) {
        p1->best = n;
        snprintf(out->fs_mountpoint, sizeof(out->fs_mountpoint), "%s", mp);
        if (prom_label(s, "device", out->fs_device, sizeof(out->fs_device)) < 0)
            out->fs_device[0] = '\0';
        if (prom_label(s, "fstype", out->fs_fstype, sizeof(out->fs_fstype)) < 0)
            out->fs_fstype[0] = '\0';
    } else if (prom_is(s, "node_disk_reads_completed_total") &&
               prom_label(s, "device", dev, sizeof(dev)) == 0 && out->n_disks < NX_MAX_DISKS) {
        memcpy(p1->disks[out->n_disks++], dev, sizeof(dev));
    }
}

static void pass_one(const char *text, size_t len, const char *data_dir, struct nodex *out,
                     struct pass1 *p1)
{
    const char *p = text, *end = text + len;
    struct prom_sample s;
    char dev[64];

    while (prom_next(&p, end, &s, &out->n_bad)) {
        out->n_samples++;
        if (prom_is(&s, "node_cpu_seconds_total")) {
            cpu_sample(out, &s);
        } else if (gauge_sample(out, &s)) {
            continue;
        } else if (prom_is(&s, "node_network_receive_bytes_total") ||
                   prom_is(&s, "node_network_transmit_bytes_total")) {
            if (prom_label(&s, "device", dev, sizeof(dev)) < 0 || strcmp(dev, "lo") == 0 ||
                !isfinite(s.value))
                continue;
            if (s.name[13] == 'r') {
                out->net_rx += s.value;
                out->n_net++;
            } else {
                out->net_tx += s.value;
            }
        } else {
            identity_sample(out, &s);
            storage_sample(out, p1, &s, data_dir);
        }
    }
}

static int disk_seen(const struct nodex *out, const struct pass1 *p1, const char *name)
{
    for (int i = 0; i < out->n_disks; i++)
        if (strcmp(p1->disks[i], name) == 0)
            return 1;
    return 0;
}

/* Which node_disk device holds the data directory, and how that was found. */
static void choose_disk(struct nodex *out, const struct pass1 *p1, const char *data_dir,
                        const char *device)
{
    const char *base = strrchr(out->fs_device, '/');

    base = base ? base + 1 : out->fs_device;
    if (out->fs_mountpoint[0] && strncmp(out->fs_device, "/dev/", 5) == 0 &&
        disk_seen(out, p1, base)) {
        snprintf(out->disk, sizeof(out->disk), "%.63s", base);
        snprintf(out->disk_from, sizeof(out->disk_from),
                 "node_filesystem_size_bytes{mountpoint=\"%.100s\"}: %.100s", out->fs_mountpoint,
                 out->fs_device);
    } else if (device && device[0]) {
        snprintf(out->disk, sizeof(out->disk), "%s", device);
        snprintf(out->disk_from, sizeof(out->disk_from), "run.db_host_device");
    } else if (!data_dir || !data_dir[0]) {
        snprintf(out->disk_from, sizeof(out->disk_from),
                 "the server's data_directory is not readable here (needs pg_read_all_settings "
                 "or superuser): set run.db_host_device");
    } else if (!out->fs_mountpoint[0]) {
        snprintf(out->disk_from, sizeof(out->disk_from),
                 "no node_filesystem_size_bytes mount point holds %.120s (filesystem collector "
                 "off, or its mount excluded): set run.db_host_device",
                 data_dir);
    } else {
        snprintf(out->disk_from, sizeof(out->disk_from),
                 "%.80s is on %.60s (%.60s), which is not a device of node_disk_* (LVM, RAID "
                 "or a network filesystem): set run.db_host_device",
                 data_dir, out->fs_device, out->fs_mountpoint);
    }
}

/* node_disk_* of the chosen disk (and its scheduler, where a label serves it). */
static void pass_two(const char *text, size_t len, struct nodex *out)
{
    static const char *const names[NX_NDISK] = {
        "node_disk_reads_completed_total",   "node_disk_read_bytes_total",
        "node_disk_read_time_seconds_total", "node_disk_writes_completed_total",
        "node_disk_written_bytes_total",     "node_disk_write_time_seconds_total",
        "node_disk_io_time_seconds_total"
    };
    const char *p = text, *end = text + len;
    struct prom_sample s;
    int got = 0;
    char dev[64];

    while (prom_next(&p, end, &s, NULL)) {
        if (s.name_len < 10 || memcmp(s.name, "node_disk_", 10) != 0 ||
            prom_label(&s, "device", dev, sizeof(dev)) < 0 || strcmp(dev, out->disk) != 0)
            continue;
        if (prom_is(&s, "node_disk_info")) {
            prom_label(&s, "scheduler", out->scheduler, sizeof(out->scheduler));
            continue;
        }
        for (int i = 0; i < NX_NDISK; i++)
            if (prom_is(&s, names[i]) && isfinite(s.value)) {
                out->disk_v[i] = s.value;
                got |= 1 << i;
            }
    }
    out->have_disk = got == (1 << NX_NDISK) - 1;
}

void nodex_parse(const char *text, size_t len, const char *data_dir, const char *device,
                 struct nodex *out)
{
    struct pass1 *p1 = NULL, one;

    memset(out, 0, sizeof(*out));
    memset(&one, 0, sizeof(one));
    p1 = &one;
    p1->best = -1;
    pass_one(text, len, data_dir, out, p1);
    out->have_cpu = out->ncpu > 0;
    choose_disk(out, p1, data_dir, device);
    if (out->disk[0])
        pass_two(text, len, out);
}
