/*
 * report.c - the HTML report of a comparison (see report.h): a string
 * builder, HTML escaping, a series.csv reader and the inline SVG charts
 * (horizontal bars, lines over time, latency percentiles on a log scale,
 * and each run second by second: its throughput with the server's events
 * over it, its waits stacked by class, New-Order's latency heatmap).
 * Builds text only: it must not print, exit or reach the network.
 */
#include "results/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TPCC_VERSION
#    define TPCC_VERSION "0.1.0"
#endif

/* Colours of the steps, in order (repeats share their step's colour). */
static const char *const palette[] = {
    "#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed",
    "#0891b2", "#db2777", "#4b5563", "#65a30d", "#b45309",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* Percentiles of the latency charts: record key and axis label. */
static const struct {
    const char *key;
    const char *label;
} pcts[] = {
    { "p50_ms", "p50" }, { "p90_ms", "p90" },     { "p95_ms", "p95" },
    { "p99_ms", "p99" }, { "p99_9_ms", "p99.9" },
};
#define NPCTS ((int)(sizeof(pcts) / sizeof(pcts[0])))

/* ------------------------------------------------------------------ */
/* A growing string                                                    */
/* ------------------------------------------------------------------ */

struct sbuf {
    char *p;    /* heap text, NUL-terminated */
    size_t n;   /* length */
    size_t cap; /* allocated */
    int oom;    /* 1: an allocation failed; the text is incomplete */
};

static void sb_grow(struct sbuf *b, size_t need)
{
    size_t cap = b->cap ? b->cap : 65536;
    char *np;

    if (b->oom || b->n + need + 1 <= b->cap)
        return;
    while (cap < b->n + need + 1)
        cap *= 2;
    np = realloc(b->p, cap);
    if (!np) {
        b->oom = 1;
        return;
    }
    b->p = np;
    b->cap = cap;
}

static void sb_put(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);

    sb_grow(b, n);
    if (b->oom)
        return;
    memcpy(b->p + b->n, s, n + 1);
    b->n += n;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    sb_grow(b, (size_t)n);
    if (b->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

/* Text escaped for HTML element content and attribute values. */
static void sb_esc(struct sbuf *b, const char *s)
{
    char one[2] = { 0, 0 };

    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            sb_put(b, "&amp;");
            break;
        case '<':
            sb_put(b, "&lt;");
            break;
        case '>':
            sb_put(b, "&gt;");
            break;
        case '"':
            sb_put(b, "&quot;");
            break;
        case '\'':
            sb_put(b, "&#39;");
            break;
        default:
            one[0] = *s;
            sb_put(b, one);
        }
    }
}

/* ------------------------------------------------------------------ */
/* series.csv                                                          */
/* ------------------------------------------------------------------ */

void report_series_release(struct report_series *s)
{
    free(s->x);
    free(s->tps);
    free(s->notpm);
    memset(s, 0, sizeof(*s));
}

/* Split line (modified in place) at commas into f (at most max); returns the count. */
static int split_csv(char *line, char **f, int max)
{
    int n = 0;

    for (char *p = line;; p++) {
        if (n < max)
            f[n] = p;
        n++;
        p = strchr(p, ',');
        if (!p)
            break;
        *p = '\0';
    }
    return n;
}

int report_series_parse(const char *text, const char *name, struct report_series *s, struct err *e)
{
    char *copy, *line, *next, *f[64];
    int nf, c_sec = -1, c_phase = -1, c_tps = -1, c_no = -1, lineno = 1, cap = 0, rc = 0;
    size_t len = strlen(text);

    memset(s, 0, sizeof(*s));
    if (len == 0)
        return err_set(e, E_USAGE, "'%s' is empty: the run that wrote it was cut short", name);
    if (text[len - 1] != '\n')
        return err_set(e, E_USAGE,
                       "'%s' is truncated (its last line has no end): the run that wrote it was "
                       "cut short or the file was damaged",
                       name);
    if (!(copy = strdup(text)))
        return err_set(e, E_FAIL, "out of memory");
    next = strchr(copy, '\n');
    *next++ = '\0';
    nf = split_csv(copy, f, 64);
    for (int i = 0; i < nf && i < 64; i++) {
        if (strcmp(f[i], "second") == 0)
            c_sec = i;
        else if (strcmp(f[i], "phase") == 0)
            c_phase = i;
        else if (strcmp(f[i], "total_tps") == 0)
            c_tps = i;
        else if (strcmp(f[i], "new_order_tps") == 0)
            c_no = i;
    }
    if (c_sec < 0 || c_phase < 0 || c_tps < 0 || c_no < 0) {
        free(copy);
        return err_set(e, E_USAGE,
                       "'%s' is not a tpccbench series.csv (its header lacks second, phase, "
                       "total_tps or new_order_tps)",
                       name);
    }
    for (line = next; line && *line; line = next) {
        char *g[64], *end;
        int ng;
        double tps, no;
        lineno++;
        next = strchr(line, '\n');
        *next++ = '\0';
        ng = split_csv(line, g, 64);
        if (ng != nf) {
            rc = err_set(e, E_USAGE,
                         "'%s' line %d has %d fields, the header %d: the file is truncated or "
                         "damaged",
                         name, lineno, ng, nf);
            break;
        }
        if (strcmp(g[c_phase], "measure") != 0)
            continue;
        errno = 0;
        tps = strtod(g[c_tps], &end);
        if (errno || end == g[c_tps] || *end) {
            rc = err_set(e, E_USAGE, "'%s' line %d: total_tps '%s' is not a number", name, lineno,
                         g[c_tps]);
            break;
        }
        no = strtod(g[c_no], &end);
        if (errno || end == g[c_no] || *end) {
            rc = err_set(e, E_USAGE, "'%s' line %d: new_order_tps '%s' is not a number", name,
                         lineno, g[c_no]);
            break;
        }
        if (s->n == cap) {
            int ncap = cap ? cap * 2 : 256;
            double *nx = realloc(s->x, sizeof(double) * (size_t)ncap);
            double *nt = nx ? realloc(s->tps, sizeof(double) * (size_t)ncap) : NULL;
            double *nn = nt ? realloc(s->notpm, sizeof(double) * (size_t)ncap) : NULL;
            if (nx)
                s->x = nx;
            if (nt)
                s->tps = nt;
            if (!nn) {
                rc = err_set(e, E_FAIL, "out of memory");
                break;
            }
            s->notpm = nn;
            cap = ncap;
        }
        if (s->n == 0)
            s->sec0 = (int)strtol(g[c_sec], NULL, 10);
        s->x[s->n] = s->n + 1;
        s->tps[s->n] = tps;
        s->notpm[s->n] = no * 60.0;
        s->n++;
    }
    free(copy);
    if (rc < 0)
        report_series_release(s);
    return rc;
}

/* Read dir/series.csv into s; s->n = 0 when there is none.  E_USAGE when damaged. */
static int series_load(const struct cmp_run *r, struct report_series *s, struct err *e)
{
    char path[PATH_MAX + 16], eb[128], *text;
    FILE *f;
    long size;
    int rc;

    memset(s, 0, sizeof(*s));
    snprintf(path, sizeof(path), "%s/series.csv", r->dir);
    f = fopen(path, "re");
    if (!f)
        return errno == ENOENT ? 0
                               : err_set(e, E_USAGE, "cannot read '%s': %s", path,
                                         err_errno(errno, eb, sizeof(eb)));
    if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
        fclose(f);
        return err_set(e, E_USAGE, "cannot read '%s'", path);
    }
    text = malloc((size_t)size + 1);
    if (!text) {
        fclose(f);
        return err_set(e, E_FAIL, "out of memory");
    }
    text[fread(text, 1, (size_t)size, f)] = '\0';
    fclose(f);
    rc = report_series_parse(text, path, s, e);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------ */
/* metrics.csv                                                         */
/* ------------------------------------------------------------------ */

/* The metrics charts: what each plots, from which columns (summed). */
enum { MC_CPU, MC_DISK, MC_WAL, MC_DBH_CPU, MC_DBH_DISK, MC_N };
static const struct {
    const char *cols[2];
    double scale;
} mchart[MC_N] = {
    { { "cpu_user_pct", "cpu_system_pct" }, 1 },
    { { "disk_data_read_mb_per_s", "disk_data_write_mb_per_s" }, 1 },
    { { "db_wal_bytes_per_s", NULL }, 1e-6 },
    { { "db_host_cpu_user_pct", "db_host_cpu_system_pct" }, 1 },
    { { "db_host_disk_data_read_mb_per_s", "db_host_disk_data_write_mb_per_s" }, 1 },
};

/*
 * The measured rows of dir/metrics.csv as lines of the metrics charts: for
 * each MC_*, x (the second of the window, from 1) and the value in the tps
 * field of out[MC_*].  A run without metrics.csv, or with a damaged one, or
 * a row without the columns, gives no points: the charts are beside the
 * record's figures, not part of them.
 */
static void metrics_load(const struct cmp_run *r, struct report_series *out)
{
    char path[PATH_MAX + 16], *text, *line, *next, *f[256];
    int c_phase = -1, cols[MC_N][2], nf, k = 0;
    FILE *fp;
    long size;

    for (int m = 0; m < MC_N; m++)
        memset(&out[m], 0, sizeof(out[m]));
    snprintf(path, sizeof(path), "%s/metrics.csv", r->dir);
    if (!(fp = fopen(path, "re")))
        return;
    if (fseek(fp, 0, SEEK_END) < 0 || (size = ftell(fp)) <= 0 || fseek(fp, 0, SEEK_SET) < 0 ||
        !(text = malloc((size_t)size + 1))) {
        fclose(fp);
        return;
    }
    text[fread(text, 1, (size_t)size, fp)] = '\0';
    fclose(fp);
    if (!(next = strchr(text, '\n'))) {
        free(text);
        return;
    }
    *next++ = '\0';
    nf = split_csv(text, f, 256);
    for (int m = 0; m < MC_N; m++)
        cols[m][0] = cols[m][1] = -1;
    for (int i = 0; i < nf && i < 256; i++) {
        if (strcmp(f[i], "phase") == 0)
            c_phase = i;
        for (int m = 0; m < MC_N; m++)
            for (int j = 0; j < 2; j++)
                if (mchart[m].cols[j] && strcmp(f[i], mchart[m].cols[j]) == 0)
                    cols[m][j] = i;
    }
    for (int m = 0; m < MC_N; m++) {
        out[m].x = calloc((size_t)size / 8 + 1, sizeof(double));
        out[m].tps = calloc((size_t)size / 8 + 1, sizeof(double));
    }
    for (line = next; c_phase >= 0 && line && *line && (next = strchr(line, '\n')); line = next) {
        char *g[256];
        *next++ = '\0';
        if (split_csv(line, g, 256) != nf || strcmp(g[c_phase], "m") != 0)
            continue;
        k++;
        for (int m = 0; m < MC_N; m++) {
            double v = 0;
            int ok = cols[m][0] >= 0 && out[m].x && out[m].tps;
            for (int j = 0; j < 2 && ok; j++) {
                char *end;
                if (!mchart[m].cols[j])
                    continue;
                ok = cols[m][j] >= 0 && g[cols[m][j]][0];
                if (ok)
                    v += strtod(g[cols[m][j]], &end) * mchart[m].scale;
            }
            if (ok) {
                out[m].x[out[m].n] = k;
                out[m].tps[out[m].n] = v;
                out[m].n++;
            }
        }
    }
    free(text);
}

/* ------------------------------------------------------------------ */
/* Chart helpers                                                       */
/* ------------------------------------------------------------------ */

/* A "nice" tick step (1, 2 or 5 x 10^k) for about n ticks over range. */
static double nice_step(double range, int n)
{
    double raw, mag, f;

    if (!(range > 0))
        return 1;
    raw = range / n;
    mag = pow(10, floor(log10(raw)));
    f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* Tick label: no trailing zeros, thousands as "k". */
static void tick_label(char *buf, size_t len, double v)
{
    if (fabs(v) >= 10000)
        snprintf(buf, len, "%gk", v / 1000);
    else
        snprintf(buf, len, "%g", v);
}

static const char *step_colour(int s)
{
    return palette[(size_t)s % NPALETTE];
}

/* The step index of run i. */
static int run_step(const struct cmp *c, int i)
{
    for (int s = 0; s < c->n_steps; s++)
        if (i >= c->steps[s].first && i < c->steps[s].first + c->steps[s].n)
            return s;
    return 0;
}

/* Label of a step for charts, with "#k" for a repeat. */
static void run_label(const struct cmp *c, int i, char *buf, size_t len)
{
    int s = run_step(c, i);

    if (c->steps[s].n > 1)
        snprintf(buf, len, "%d %s #%d", s + 1, c->runs[i].label, i - c->steps[s].first + 1);
    else
        snprintf(buf, len, "%d %s", s + 1, c->runs[i].label);
}

/* ------------------------------------------------------------------ */
/* Bars per step                                                       */
/* ------------------------------------------------------------------ */

static void chart_bars(struct sbuf *b, const struct cmp *c, int metric, const char *name,
                       const char *unit, const char *caption)
{
    const int W = 560, left = 150, right = 120, row = 30, top = 8, axis = 24;
    int n = 0, H;
    double max = 0, step, top_v;

    for (int s = 0; s < c->n_steps; s++)
        if (!isnan(c->steps[s].med[metric])) {
            n++;
            if (c->steps[s].hi[metric] > max)
                max = c->steps[s].hi[metric];
        }
    sb_printf(b, "<figure class=\"chart-box\"><figcaption>%s</figcaption>\n", caption);
    if (n == 0) {
        sb_printf(b,
                  "<svg class=\"chart\" data-chart=\"%s\" data-series=\"0\" viewBox=\"0 0 %d 40\" "
                  "role=\"img\"><text x=\"%d\" y=\"24\" class=\"empty\" text-anchor=\"middle\">"
                  "no run has this figure</text></svg></figure>\n",
                  name, W, W / 2);
        return;
    }
    step = nice_step(max, 4);
    top_v = ceil(max / step) * step;
    if (!(top_v > 0))
        top_v = 1;
    H = top + row * c->n_steps + axis;
    sb_printf(b,
              "<svg class=\"chart\" data-chart=\"%s\" data-series=\"%d\" viewBox=\"0 0 %d %d\" "
              "role=\"img\" aria-label=\"%s\">\n",
              name, n, W, H, caption);
    /* Grid and axis. */
    for (double v = 0; v <= top_v * 1.0001; v += step) {
        double x = left + (W - left - right) * v / top_v;
        char t[32];
        tick_label(t, sizeof(t), v);
        sb_printf(b,
                  "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                  "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                  x, top, x, H - axis, x, H - axis + 15, t);
    }
    for (int s = 0; s < c->n_steps; s++) {
        const struct cmp_step *st = &c->steps[s];
        double v = st->med[metric], y = top + row * s, w, x_lo, x_hi;
        char val[32], gain[32] = "", lab[80];
        snprintf(lab, sizeof(lab), "%d %s", s + 1, c->runs[st->first].label);
        if (strlen(lab) > 22)
            snprintf(lab + 19, sizeof(lab) - 19, "...");
        sb_printf(b, "<text class=\"lab\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", left - 8,
                  y + row / 2.0 + 4);
        sb_esc(b, lab);
        sb_put(b, "</text>\n");
        if (isnan(v)) {
            sb_printf(b, "<text class=\"tick\" x=\"%d\" y=\"%.1f\">-</text>\n", left + 4,
                      y + row / 2.0 + 4);
            continue;
        }
        w = (W - left - right) * v / top_v;
        cmp_fmt_value(val, sizeof(val), metric, v);
        if (s > 0) {
            cmp_fmt_pct(gain, sizeof(gain), cmp_gain(metric, c->steps[s - 1].med[metric], v));
            if (strcmp(gain, "-") == 0)
                gain[0] = '\0';
        }
        sb_printf(b,
                  "<g class=\"series\" data-step=\"s%d\"><rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"%d\" rx=\"2\" fill=\"%s\"><title>",
                  s + 1, left, y + 5, w > 0.5 ? w : 0.5, row - 10, step_colour(s));
        sb_esc(b, c->runs[st->first].label);
        sb_printf(b, ": %s %s%s%s</title></rect>", val, unit, gain[0] ? ", " : "", gain);
        if (st->n > 1) {
            x_lo = left + (W - left - right) * st->lo[metric] / top_v;
            x_hi = left + (W - left - right) * st->hi[metric] / top_v;
            sb_printf(b, "<path class=\"whisker\" d=\"M%.1f %.1fv8M%.1f %.1fh%.1fM%.1f %.1fv8\"/>",
                      x_lo, y + row / 2.0 - 4, x_lo, y + row / 2.0, x_hi - x_lo, x_hi,
                      y + row / 2.0 - 4);
        }
        sb_printf(b, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%s %s",
                  left + (st->n > 1 ? (W - left - right) * st->hi[metric] / top_v : w) + 6,
                  y + row / 2.0 + 4, val, unit);
        if (gain[0])
            sb_printf(b, " <tspan class=\"%s\">%s</tspan>",
                      cmp_gain(metric, c->steps[s - 1].med[metric], v) >= 0 ? "up" : "down", gain);
        sb_put(b, "</text></g>\n");
    }
    sb_put(b, "</svg></figure>\n");
}

/* ------------------------------------------------------------------ */
/* Lines over time                                                     */
/* ------------------------------------------------------------------ */

static void chart_time(struct sbuf *b, const struct cmp *c, const struct report_series *ser,
                       int notpm, const char *name, const char *caption, const char *ylab)
{
    const int W = 640, H = 260, l = 58, r = 14, t = 12, bt = 38;
    double max_x = 1, max_y = 0, sx, sy, ystep, xstep, top_y;
    int n = 0;

    for (int i = 0; i < c->n_runs; i++)
        for (int k = 0; k < ser[i].n; k++) {
            double v = notpm ? ser[i].notpm[k] : ser[i].tps[k];
            if (ser[i].x[k] > max_x)
                max_x = ser[i].x[k];
            if (v > max_y)
                max_y = v;
        }
    for (int i = 0; i < c->n_runs; i++)
        n += ser[i].n > 0;
    sb_printf(b, "<figure class=\"chart-box wide\"><figcaption>%s</figcaption>\n", caption);
    if (n == 0) {
        sb_printf(b,
                  "<svg class=\"chart\" data-chart=\"%s\" data-series=\"0\" viewBox=\"0 0 %d 40\" "
                  "role=\"img\"><text x=\"%d\" y=\"24\" class=\"empty\" text-anchor=\"middle\">"
                  "no run has a series.csv</text></svg></figure>\n",
                  name, W, W / 2);
        return;
    }
    ystep = nice_step(max_y > 0 ? max_y : 1, 5);
    top_y = ceil((max_y > 0 ? max_y : 1) / ystep) * ystep;
    xstep = nice_step(max_x, 8);
    if (xstep < 1)
        xstep = 1;
    sx = (W - l - r) / max_x;
    sy = (H - t - bt) / top_y;
    sb_printf(b,
              "<svg class=\"chart\" data-chart=\"%s\" data-series=\"%d\" viewBox=\"0 0 %d %d\" "
              "role=\"img\" aria-label=\"%s\">\n",
              name, n, W, H, caption);
    for (double v = 0; v <= top_y * 1.0001; v += ystep) {
        char tl[32];
        tick_label(tl, sizeof(tl), v);
        sb_printf(b,
                  "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text "
                  "class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                  l, H - bt - v * sy, W - r, H - bt - v * sy, l - 6, H - bt - v * sy + 4, tl);
    }
    for (double v = 0; v <= max_x * 1.0001; v += xstep)
        sb_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
                  l + v * sx, H - bt + 16, v);
    sb_printf(b,
              "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
              "<text class=\"axlab\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds of the "
              "measured window</text>"
              "<text class=\"axlab\" transform=\"translate(14 %d) rotate(-90)\" "
              "text-anchor=\"middle\">%s</text>\n",
              l, H - bt, W - r, H - bt, l + (W - l - r) / 2, H - 4, t + (H - t - bt) / 2, ylab);
    for (int i = 0; i < c->n_runs; i++) {
        const struct report_series *s = &ser[i];
        int st = run_step(c, i), rep = i - c->steps[st].first;
        char lab[300];
        if (s->n == 0)
            continue;
        run_label(c, i, lab, sizeof(lab));
        sb_printf(b,
                  "<path class=\"series line\" data-run=\"r%d\" data-step=\"s%d\" stroke=\"%s\"%s "
                  "d=\"",
                  i + 1, st + 1, step_colour(st),
                  rep == 1   ? " stroke-dasharray=\"6 3\""
                  : rep >= 2 ? " stroke-dasharray=\"2 3\""
                             : "");
        for (int k = 0; k < s->n; k++)
            sb_printf(b, "%s%.1f %.1f", k ? "L" : "M", l + s->x[k] * sx,
                      H - bt - (notpm ? s->notpm[k] : s->tps[k]) * sy);
        if (s->n == 1)
            sb_put(b, "h1");
        sb_put(b, "\"><title>");
        sb_esc(b, lab);
        sb_put(b, "</title></path>\n");
    }
    sb_put(b, "</svg>\n<ul class=\"legend\">");
    for (int i = 0; i < c->n_runs; i++) {
        char lab[300];
        if (ser[i].n == 0)
            continue;
        run_label(c, i, lab, sizeof(lab));
        sb_printf(b, "<li data-run=\"r%d\"><span class=\"sw\" style=\"background:%s\"></span>",
                  i + 1, step_colour(run_step(c, i)));
        sb_esc(b, lab);
        sb_put(b, "</li>");
    }
    sb_put(b, "</ul></figure>\n");
}

/* ------------------------------------------------------------------ */
/* Latency percentiles                                                 */
/* ------------------------------------------------------------------ */

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Median over step s's runs of run.transactions.<type>.<key>, NAN when none. */
static double step_pct(const struct cmp *c, int s, const char *type, const char *key)
{
    double v[256];
    int n = 0;

    for (int i = 0; i < c->steps[s].n && n < 256; i++) {
        json_t *run = json_object_get(c->runs[c->steps[s].first + i].doc, "run");
        json_t *x =
            json_object_get(json_object_get(json_object_get(run, "transactions"), type), key);
        if (json_is_number(x))
            v[n++] = json_number_value(x);
    }
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof(double), cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void chart_latency(struct sbuf *b, const struct cmp *c, int type)
{
    const int W = 330, H = 210, l = 46, r = 22, t = 10, bt = 26;
    const char *tn = tx_name((enum tx_type)type);
    double lo = INFINITY, hi = 0, dlo, dhi, sx, sy;
    int n = 0;

    for (int s = 0; s < c->n_steps; s++) {
        int has = 0;
        for (int p = 0; p < NPCTS; p++) {
            double v = step_pct(c, s, tn, pcts[p].key);
            if (isnan(v) || v <= 0)
                continue;
            has = 1;
            if (v < lo)
                lo = v;
            if (v > hi)
                hi = v;
        }
        n += has;
    }
    sb_printf(b, "<figure class=\"chart-box small\"><figcaption>%s</figcaption>\n", tn);
    if (n == 0) {
        sb_printf(b,
                  "<svg class=\"chart\" data-chart=\"latency-%s\" data-series=\"0\" viewBox=\"0 0 "
                  "%d 40\" role=\"img\"><text x=\"%d\" y=\"24\" class=\"empty\" "
                  "text-anchor=\"middle\">no latencies</text></svg></figure>\n",
                  tn, W, W / 2);
        return;
    }
    dlo = floor(log10(lo));
    dhi = ceil(log10(hi));
    if (dhi <= dlo)
        dhi = dlo + 1;
    sx = (double)(W - l - r) / (NPCTS - 1);
    sy = (H - t - bt) / (dhi - dlo);
    sb_printf(b,
              "<svg class=\"chart\" data-chart=\"latency-%s\" data-series=\"%d\" viewBox=\"0 0 %d "
              "%d\" role=\"img\" aria-label=\"latency percentiles of %s (ms, log scale)\">\n",
              tn, n, W, H, tn);
    for (double d = dlo; d <= dhi + 1e-9; d += 1) {
        double y = H - bt - (d - dlo) * sy;
        char tl[32];
        tick_label(tl, sizeof(tl), pow(10, d));
        sb_printf(b,
                  "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text "
                  "class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                  l, y, W - r, y, l - 5, y + 4, tl);
        for (int k = 2; k <= 9 && d < dhi - 1e-9; k++) {
            double ym = H - bt - (d + log10(k) - dlo) * sy;
            sb_printf(b, "<line class=\"grid minor\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
                      l, ym, W - r, ym);
        }
    }
    for (int p = 0; p < NPCTS; p++)
        sb_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                  l + p * sx, H - bt + 16, pcts[p].label);
    sb_printf(b, "<text class=\"axlab\" x=\"%d\" y=\"%d\">ms</text>\n", 4, t + 8);
    for (int s = 0; s < c->n_steps; s++) {
        int first = 1;
        char lab[300];
        snprintf(lab, sizeof(lab), "%d %s", s + 1, c->runs[c->steps[s].first].label);
        sb_printf(b, "<g class=\"series\" data-step=\"s%d\" stroke=\"%s\" fill=\"%s\"><path d=\"",
                  s + 1, step_colour(s), step_colour(s));
        for (int p = 0; p < NPCTS; p++) {
            double v = step_pct(c, s, tn, pcts[p].key);
            if (isnan(v) || v <= 0)
                continue;
            sb_printf(b, "%s%.1f %.1f", first ? "M" : "L", l + p * sx,
                      H - bt - (log10(v) - dlo) * sy);
            first = 0;
        }
        sb_put(b, "\" fill=\"none\"/>");
        for (int p = 0; p < NPCTS; p++) {
            double v = step_pct(c, s, tn, pcts[p].key);
            if (isnan(v) || v <= 0)
                continue;
            sb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", l + p * sx,
                      H - bt - (log10(v) - dlo) * sy);
            sb_esc(b, lab);
            sb_printf(b, " %s: %.3f ms</title></circle>", pcts[p].label, v);
        }
        sb_put(b, "</g>\n");
    }
    sb_put(b, "</svg></figure>\n");
}

/* ------------------------------------------------------------------ */
/* Tables                                                              */
/* ------------------------------------------------------------------ */

/* A gain cell: coloured by direction (good: green), grey when within noise. */
static void gain_td(struct sbuf *b, double frac, int higher_is_better, int noise)
{
    char p[32];

    cmp_fmt_pct(p, sizeof(p), frac);
    if (strcmp(p, "-") == 0) {
        sb_put(b, "<td class=\"num muted\">-</td>");
        return;
    }
    sb_printf(b, "<td class=\"num %s\">%s%s</td>",
              noise                                    ? "noise"
              : (frac >= 0) == (higher_is_better != 0) ? "good"
                                                       : "bad",
              p, noise ? "<br><span class=\"tag\">within noise</span>" : "");
}

static void value_td(struct sbuf *b, const struct cmp_step *st, int m)
{
    char v[32], lo[32], hi[32];

    cmp_fmt_value(v, sizeof(v), m, st->med[m]);
    sb_printf(b, "<td class=\"num\">%s", v);
    if (st->n > 1 && !isnan(st->lo[m])) {
        cmp_fmt_value(lo, sizeof(lo), m, st->lo[m]);
        cmp_fmt_value(hi, sizeof(hi), m, st->hi[m]);
        sb_printf(b, "<br><span class=\"range\">%s..%s</span>", lo, hi);
    }
    sb_put(b, "</td>");
}

static void step_table(struct sbuf *b, const struct cmp *c)
{
    sb_put(b, "<div class=\"scroll\"><table class=\"steps\"><thead>"
              "<tr><th rowspan=\"2\">step</th><th rowspan=\"2\">label</th><th rowspan=\"2\">"
              "change note</th><th rowspan=\"2\" class=\"num\">runs</th>"
              "<th colspan=\"3\" class=\"grp\">load time</th><th colspan=\"2\" "
              "class=\"grp\">NOTPM</th><th colspan=\"2\" class=\"grp\">TPS</th><th "
              "colspan=\"2\" class=\"grp\">New-Order p90</th></tr>"
              "<tr><th class=\"num\">s</th><th class=\"num\">gain</th><th class=\"num\">vs "
              "first</th><th class=\"num\">per min</th><th class=\"num\">gain</th><th "
              "class=\"num\">per s</th><th class=\"num\">gain</th><th class=\"num\">ms</th><th "
              "class=\"num\">change</th></tr></thead><tbody>\n");
    for (int s = 0; s < c->n_steps; s++) {
        const struct cmp_step *st = &c->steps[s], *pv = s ? &c->steps[s - 1] : NULL;
        const struct cmp_run *r = &c->runs[st->first];
        sb_printf(
            b,
            "<tr data-step=\"s%d\"><td><span class=\"sw\" style=\"background:%s\"></span>%d</td><td>",
            s + 1, step_colour(s), s + 1);
        sb_esc(b, r->label);
        sb_put(b, "</td><td class=\"note\">");
        sb_esc(b, r->change[0] ? r->change : "-");
        sb_printf(b, "</td><td class=\"num\">%d</td>", st->n);
        value_td(b, st, CMP_LOAD);
        if (!pv) {
            sb_put(b, "<td class=\"num muted\">-</td><td class=\"num muted\">-</td>");
        } else {
            gain_td(b, cmp_gain(CMP_LOAD, pv->med[CMP_LOAD], st->med[CMP_LOAD]), 1,
                    cmp_within_noise(c, s, s - 1, CMP_LOAD));
            gain_td(b, cmp_gain(CMP_LOAD, c->steps[0].med[CMP_LOAD], st->med[CMP_LOAD]), 1,
                    cmp_within_noise(c, s, 0, CMP_LOAD));
        }
        value_td(b, st, CMP_NOTPM);
        if (pv)
            gain_td(b, cmp_gain(CMP_NOTPM, pv->med[CMP_NOTPM], st->med[CMP_NOTPM]), 1,
                    cmp_within_noise(c, s, s - 1, CMP_NOTPM));
        else
            sb_put(b, "<td class=\"num muted\">-</td>");
        value_td(b, st, CMP_TPS);
        if (pv)
            gain_td(b, cmp_gain(CMP_TPS, pv->med[CMP_TPS], st->med[CMP_TPS]), 1,
                    cmp_within_noise(c, s, s - 1, CMP_TPS));
        else
            sb_put(b, "<td class=\"num muted\">-</td>");
        value_td(b, st, CMP_P90);
        if (pv)
            gain_td(b, cmp_gain(CMP_P90, pv->med[CMP_P90], st->med[CMP_P90]), 0,
                    cmp_within_noise(c, s, s - 1, CMP_P90));
        else
            sb_put(b, "<td class=\"num muted\">-</td>");
        sb_put(b, "</tr>\n");
    }
    sb_put(b, "</tbody></table></div>\n");
}

/*
 * The significance of each gain when steps have repeats: each step against
 * the step before and (from the third) the first, for NOTPM, TPS, load time
 * and New-Order p90: the gain of the medians, its 95 % interval, the verdict.
 */
static void sig_table(struct sbuf *b, const struct cmp *c)
{
    static const char *const names[CMP_NSIG] = { "NOTPM", "TPS", "load time", "New-Order p90" };

    sb_put(b, "<div class=\"scroll\"><table class=\"sig\"><thead><tr><th>step</th><th>label"
              "</th><th>against</th><th>figure</th><th class=\"num\">gain</th><th "
              "class=\"num\">95&nbsp;% CI</th><th>verdict</th></tr></thead><tbody>\n");
    for (int k = 0, s, base; cmp_sig_next(c, &k, &s, &base);) {
        for (int f = 0; f < CMP_NSIG; f++) {
            struct sig_result r;
            char g[32], ci[64];
            cmp_sig(c, s, base, cmp_sig_metrics[f], &r);
            if (isnan(r.gain))
                continue;
            cmp_fmt_pct(g, sizeof(g), r.gain);
            cmp_fmt_ci(ci, sizeof(ci), &r);
            sb_printf(b, "<tr data-step=\"s%d\" data-verdict=\"%s\"><td>%d</td><td>", s + 1,
                      r.verdict == SIG_GAIN    ? "gain"
                      : r.verdict == SIG_LOSS  ? "loss"
                      : r.verdict == SIG_NOISE ? "noise"
                                               : "none",
                      s + 1);
            sb_esc(b, c->runs[c->steps[s].first].label);
            sb_printf(b, "</td><td>%d ", base + 1);
            sb_esc(b, c->runs[c->steps[base].first].label);
            sb_printf(b,
                      "</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
                      "<td class=\"%s\">%s</td></tr>\n",
                      names[f], g, ci,
                      r.verdict == SIG_GAIN   ? "good"
                      : r.verdict == SIG_LOSS ? "bad"
                                              : "noise",
                      sig_verdict_name(r.verdict));
        }
    }
    sb_put(b, "</tbody></table></div>\n");
}

static void latency_table(struct sbuf *b, const struct cmp *c)
{
    sb_put(
        b,
        "<div class=\"scroll\"><table class=\"lat\"><thead><tr><th>transaction</th><th>step</th>");
    for (int p = 0; p < NPCTS; p++)
        sb_printf(b, "<th class=\"num\">%s ms</th>", pcts[p].label);
    sb_put(b, "</tr></thead><tbody>\n");
    for (int t = 0; t < TX_NTYPES; t++)
        for (int s = 0; s < c->n_steps; s++) {
            const char *tn = tx_name((enum tx_type)t);
            sb_printf(b, "<tr%s><td>%s</td><td><span class=\"sw\" style=\"background:%s\"></span>",
                      s == 0 && t ? " class=\"group\"" : "", s == 0 ? tn : "", step_colour(s));
            sb_printf(b, "%d ", s + 1);
            sb_esc(b, c->runs[c->steps[s].first].label);
            sb_put(b, "</td>");
            for (int p = 0; p < NPCTS; p++) {
                double v = step_pct(c, s, tn, pcts[p].key);
                if (isnan(v))
                    sb_put(b, "<td class=\"num muted\">-</td>");
                else
                    sb_printf(b, "<td class=\"num\">%.2f</td>", v);
            }
            sb_put(b, "</tr>\n");
        }
    sb_put(b, "</tbody></table></div>\n");
}

static void changes_section(struct sbuf *b, const struct cmp *c)
{
    if (c->n_steps < 2) {
        sb_put(b, "<p class=\"muted\">One step only: nothing to compare.</p>\n");
        return;
    }
    for (int s = 1; s < c->n_steps; s++) {
        const struct cmp_step *st = &c->steps[s];
        sb_printf(b, "<h3><span class=\"sw\" style=\"background:%s\"></span>Step %d ",
                  step_colour(s), s + 1);
        sb_esc(b, c->runs[st->first].label);
        sb_printf(b, " <span class=\"muted\">against step %d ", s);
        sb_esc(b, c->runs[c->steps[s - 1].first].label);
        sb_printf(b, "</span>%s</h3>\n",
                  st->n_changes > 1 ? " <span class=\"warn-tag\">more than one change</span>" : "");
        if (st->n_diffs == 0) {
            sb_put(b, "<p class=\"muted\">Nothing that tpccbench records changed.</p>\n");
            continue;
        }
        sb_put(b, "<table class=\"diff\"><thead><tr><th>setting</th><th>before</th><th>after</th>"
                  "<th></th></tr></thead><tbody>\n");
        for (int i = 0; i < st->n_diffs; i++) {
            const struct cmp_diff *d = &st->diffs[i];
            sb_printf(b, "<tr%s><td><code>", d->derived ? " class=\"derived\"" : "");
            sb_esc(b, d->key);
            sb_put(b, "</code></td><td class=\"old\">");
            sb_esc(b, d->old);
            sb_put(b, "</td><td class=\"new\">");
            sb_esc(b, d->new_);
            sb_printf(b, "</td><td class=\"muted\">%s</td></tr>\n",
                      d->derived ? "follows from another change" : "");
        }
        sb_put(b, "</tbody></table>\n");
    }
}

/* Rows "key | value" of a JSON object, flattened with dotted keys. */
static void kv_rows(struct sbuf *b, json_t *v, const char *prefix)
{
    const char *k;
    json_t *x;

    if (!json_is_object(v)) {
        char *t = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        sb_put(b, "<tr><td><code>");
        sb_esc(b, prefix);
        sb_put(b, "</code></td><td>");
        sb_esc(b, t ? t : json_string_value(v));
        sb_put(b, "</td></tr>\n");
        free(t);
        return;
    }
    json_object_foreach(v, k, x)
    {
        char p[512];
        if (strcmp(k, "settings_source") == 0)
            continue;
        snprintf(p, sizeof(p), "%s%s%s", prefix, prefix[0] ? "." : "", k);
        kv_rows(b, x, p);
    }
}

/* One fact of the fingerprint summary. */
static void fact(struct sbuf *b, const char *name, json_t *doc, const char *path)
{
    json_t *v = doc;
    char key[128];
    const char *p = path;

    while (v && *p) {
        size_t n = strcspn(p, ".");
        snprintf(key, sizeof(key), "%.*s", (int)n, p);
        v = json_object_get(v, key);
        p += n + (p[n] == '.');
    }
    sb_put(b, "<div><dt>");
    sb_esc(b, name);
    sb_put(b, "</dt><dd>");
    if (json_is_string(v))
        sb_esc(b, json_string_value(v));
    else if (json_is_integer(v))
        sb_printf(b, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v))
        sb_put(b, json_is_true(v) ? "yes" : "no");
    else
        sb_put(b, "unknown");
    sb_put(b, "</dd></div>");
}

static void fingerprint_section(struct sbuf *b, const struct cmp *c)
{
    json_t *doc = c->runs[0].doc, *env = json_object_get(doc, "environment");
    json_t *mem = json_object_get(env, "memory_kb");

    sb_put(b, "<dl class=\"facts\">");
    fact(b, "DBMS", doc, "environment.dbms.name");
    fact(b, "version", doc, "environment.dbms.version");
    fact(b, "server is local", doc, "environment.dbms.local");
    fact(b, "data directory", doc, "environment.storage.data_directory");
    fact(b, "filesystem", doc, "environment.storage.fstype");
    fact(b, "mount options", doc, "environment.storage.mount_options");
    fact(b, "disk", doc, "environment.storage.disk");
    fact(b, "I/O scheduler", doc, "environment.storage.scheduler");
    fact(b, "rotational", doc, "environment.storage.rotational");
    fact(b, "kernel", doc, "environment.kernel");
    fact(b, "OS", doc, "environment.os");
    fact(b, "CPU", doc, "environment.cpu_model");
    fact(b, "CPUs", doc, "environment.cpu_count");
    if (json_is_integer(mem))
        sb_printf(b, "<div><dt>memory</dt><dd>%.1f GiB</dd></div>",
                  (double)json_integer_value(mem) / 1048576.0);
    fact(b, "transparent huge pages", doc, "environment.transparent_hugepage.enabled");
    fact(b, "host", doc, "environment.hostname");
    fact(b, "tpccbench", doc, "tool.version");
    fact(b, "commit", doc, "tool.commit");
    fact(b, "config hash", doc, "environment.config_hash");
    sb_put(b, "</dl>\n<details><summary>Every recorded item of step 1's environment and "
              "config</summary><table class=\"kv\"><tbody>\n");
    kv_rows(b, env, "environment");
    kv_rows(b, json_object_get(doc, "config"), "config");
    sb_put(b, "</tbody></table></details>\n");
}

/* ------------------------------------------------------------------ */
/* Each run, second by second                                          */
/* ------------------------------------------------------------------ */

/* The panels' charts: width, margins, and the x of window second x. */
#define PW 900
#define PL 58
#define PR 14
#define PX(x, n) (PL + (double)(x) * (PW - PL - PR) / (n))

/* The wait classes' colours, by the names run.json's per_second gives. */
static const char *wclass_colour(const char *cls)
{
    static const struct {
        const char *name, *colour;
    } k[] = { { "cpu", "#16a34a" }, { "client", "#9ca3af" }, { "lock", "#dc2626" },
              { "lwlock", "#f59e0b" }, { "io", "#2563eb" }, { "ipc", "#7c3aed" } };

    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        if (strcmp(cls, k[i].name) == 0)
            return k[i].colour;
    return "#78716c";
}

/* The number at a of index i, NAN when absent or not a number. */
static double jnum(json_t *a, size_t i)
{
    json_t *v = json_array_get(a, i);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A y grid of a panel chart (0 .. top) with its ticks. */
static void panel_grid(struct sbuf *b, double top, int H, int t, int bt)
{
    double step = nice_step(top, 4);

    for (double v = 0; v <= top * 1.0001; v += step) {
        double y = H - bt - v * (H - t - bt) / top;
        char tl[32];
        tick_label(tl, sizeof(tl), v);
        sb_printf(b,
                  "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text "
                  "class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                  PL, y, PW - PR, y, PL - 6, y + 4, tl);
    }
}

/* The x axis of a panel chart: window seconds 0 .. n. */
static void panel_xaxis(struct sbuf *b, int n, int H, int bt)
{
    double step = nice_step(n, 10);

    if (step < 1)
        step = 1;
    for (double v = 0; v <= n * 1.0001; v += step)
        sb_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>",
                  PX(v, n), H - bt + 14, v);
    sb_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", PL, H - bt,
              PW - PR, H - bt);
}

/* One mark over the throughput line: window seconds x0 .. x1 (clipped);
 * 1 when drawn. */
static int panel_mark(struct sbuf *b, const char *kind, double x0, double x1, int n, int y,
                      int h, const char *title)
{
    double a, z;

    if (isnan(x0) || isnan(x1) || x1 < 0 || x0 > n)
        return 0;
    a = x0 < 0 ? 0 : x0;
    z = x1 > n ? n : x1;
    sb_printf(b,
              "<rect class=\"mark ev-%s\" data-kind=\"%s\" data-x0=\"%.2f\" data-x1=\"%.2f\" "
              "x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>",
              kind, kind, x0, x1, PX(a, n), y, PX(z, n) - PX(a, n) > 2 ? PX(z, n) - PX(a, n) : 2,
              h);
    sb_esc(b, title);
    sb_put(b, "</title></rect>\n");
    return 1;
}

/* The run's events, stalls and outages as marks; counts of each drawn into nk. */
static void panel_marks(struct sbuf *b, json_t *doc, int sec0, int n, int H, int t, int bt,
                        int nk[4])
{
    json_t *list = json_object_get(json_object_get(doc, "events"), "list");
    json_t *run = json_object_get(doc, "run"), *v;
    double off = sec0 - 1;
    size_t i;
    char tt[256];

    json_array_foreach(list, i, v)
    {
        const char *kind = json_string_value(json_object_get(v, "kind"));
        double s0;
        json_t *endj = json_object_get(v, "end_s");
        double s1 = json_is_number(endj) ? json_number_value(endj) : off + n;
        int ck = kind && strcmp(kind, "checkpoint") == 0;
        if (!kind || (!ck && strcmp(kind, "autovacuum") != 0))
            continue;
        s0 = json_is_number(json_object_get(v, "start_s"))
                 ? json_number_value(json_object_get(v, "start_s"))
                 : NAN;
        if (ck)
            snprintf(tt, sizeof(tt), "checkpoint, seconds %.1f to %s%.1f (start from %s, end from %s)",
                     s0 - off, json_is_number(endj) ? "" : "past ", s1 - off,
                     json_string_value(json_object_get(v, "start_from")),
                     json_string_value(json_object_get(v, "end_from")));
        else
            snprintf(tt, sizeof(tt), "autovacuum: %s %s, seconds %.1f to %.1f (from %s)",
                     json_string_value(json_object_get(v, "what")),
                     json_string_value(json_object_get(v, "table")), s0 - off, s1 - off,
                     json_string_value(json_object_get(v, "end_from")));
        /* Checkpoints over the whole height; autovacuums a strip at the top. */
        nk[ck ? 0 : 1] += ck ? panel_mark(b, "checkpoint", s0 - off, s1 - off, n, t, H - t - bt, tt)
                             : panel_mark(b, "autovacuum", s0 - off, s1 - off, n,
                                          t + 7 * (int)(nk[1] % 3), 6, tt);
    }
    json_array_foreach(json_object_get(run, "stalls"), i, v)
    {
        double a = json_number_value(json_object_get(v, "from_s")) - sec0,
               z = json_number_value(json_object_get(v, "to_s")) - sec0 + 1;
        snprintf(tt, sizeof(tt), "stall: nothing committed, seconds %.0f to %.0f", a + 1, z);
        nk[2] += panel_mark(b, "stall", a, z, n, t, H - t - bt, tt);
    }
    json_array_foreach(json_object_get(json_object_get(run, "outage"), "windows"), i, v)
    {
        double a = json_number_value(json_object_get(v, "from_second")) - sec0,
               z = json_number_value(json_object_get(v, "to_second")) - sec0 + 1;
        snprintf(tt, sizeof(tt), "outage: connections down or only errors, seconds %.0f to %.0f",
                 a + 1, z);
        nk[3] += panel_mark(b, "outage", a, z, n, t, H - t - bt, tt);
    }
}

/* The run's TPS per second with its checkpoints, autovacuums, stalls and outages over it. */
static void panel_throughput(struct sbuf *b, int run, const struct report_series *s, json_t *doc)
{
    const int H = 220, t = 8, bt = 30;
    static const char *const mk[4] = { "checkpoint", "autovacuum", "stall", "outage" };
    int nk[4] = { 0 };
    double max = 0, top;

    for (int k = 0; k < s->n; k++)
        if (s->tps[k] > max)
            max = s->tps[k];
    top = ceil((max > 0 ? max : 1) / nice_step(max > 0 ? max : 1, 4)) * nice_step(max > 0 ? max : 1, 4);
    sb_printf(b,
              "<svg class=\"chart\" data-chart=\"run%d-throughput\" data-series=\"1\" viewBox=\"0 "
              "0 %d %d\" role=\"img\" aria-label=\"TPS per second with the server's events\">\n",
              run, PW, H);
    panel_grid(b, top, H, t, bt);
    sb_put(b, "<g class=\"marks\">\n");
    panel_marks(b, doc, s->sec0, s->n, H, t, bt, nk);
    sb_put(b, "</g>\n");
    panel_xaxis(b, s->n, H, bt);
    sb_printf(b, "<path class=\"series line\" data-run=\"r%d\" stroke=\"#111827\" d=\"", run);
    for (int k = 0; k < s->n; k++)
        sb_printf(b, "%s%.1f %.1f", k ? "L" : "M", PX(s->x[k], s->n),
                  H - bt - s->tps[k] * (H - t - bt) / top);
    sb_put(b, "\"><title>TPS</title></path>\n");
    sb_printf(b,
              "<text class=\"axlab\" transform=\"translate(14 %d) rotate(-90)\" "
              "text-anchor=\"middle\">TPS</text></svg>\n",
              t + (H - t - bt) / 2);
    sb_put(b, "<ul class=\"legend marks-legend\"><li><span class=\"sw\" "
              "style=\"background:#111827\"></span>TPS</li>");
    for (int k = 0; k < 4; k++)
        sb_printf(b, "<li data-marks=\"%s\" data-n=\"%d\"><span class=\"sw ev-%s\"></span>%s "
                     "(%d)</li>",
                  mk[k], nk[k], mk[k], mk[k], nk[k]);
    sb_put(b, "</ul>\n");
}

/* One group of the stacked waits: the classes of row key ("all", or a
 * type under by_type) as areas; class "series" only for "all". */
static void panel_wstack(struct sbuf *b, json_t *ps, const char *key, int sec0, int n, int H,
                         int t, int bt)
{
    json_t *rows = strcmp(key, "all") == 0 ? json_object_get(ps, "all")
                                           : json_object_get(json_object_get(ps, "by_type"), key);
    json_t *secs = json_object_get(ps, "second"), *cls = json_object_get(ps, "classes");
    size_t nr = json_array_size(rows), nc = json_array_size(cls);
    double max = 0, top, *cum = calloc(nr + 1, sizeof(double)), *prev = calloc(nr + 1, sizeof(double));

    for (size_t i = 0; i < nr; i++) {
        double tot = 0;
        for (size_t c = 0; c < nc; c++)
            tot += isnan(jnum(json_array_get(rows, i), c)) ? 0 : jnum(json_array_get(rows, i), c);
        if (tot > max)
            max = tot;
    }
    top = ceil((max > 0 ? max : 1) / nice_step(max > 0 ? max : 1, 3)) * nice_step(max > 0 ? max : 1, 3);
    sb_printf(b, "<g class=\"wstack\" data-wtype=\"%s\"%s>\n", key,
              strcmp(key, "all") == 0 ? "" : " style=\"display:none\"");
    panel_grid(b, top, H, t, bt);
    for (size_t c = 0; cum && prev && c < nc; c++) {
        const char *cn = json_string_value(json_array_get(cls, c));
        int first = 1;
        sb_printf(b, "<path class=\"%s\" data-class=\"%s\" fill=\"%s\" d=\"",
                  strcmp(key, "all") == 0 ? "series area" : "area", cn ? cn : "", wclass_colour(cn ? cn : ""));
        /* The class's top edge forward, the one below it back. */
        for (size_t i = 0; i < nr; i++) {
            double x = jnum(secs, i) - sec0 + 1, v = jnum(json_array_get(rows, i), c);
            prev[i] = cum[i];
            cum[i] += isnan(v) ? 0 : v;
            if (x < 1 || x > n)
                continue;
            sb_printf(b, "%s%.1f %.1f", first ? "M" : "L", PX(x, n), H - bt - cum[i] * (H - t - bt) / top);
            first = 0;
        }
        for (size_t i = nr; !first && i-- > 0;) {
            double x = jnum(secs, i) - sec0 + 1;
            if (x >= 1 && x <= n)
                sb_printf(b, "L%.1f %.1f", PX(x, n), H - bt - prev[i] * (H - t - bt) / top);
        }
        sb_printf(b, "%s\"><title>%s</title></path>\n", first ? "M0 0" : "Z", cn ? cn : "");
    }
    sb_put(b, "</g>\n");
    free(cum);
    free(prev);
}

/* Our sessions in each wait class per second, stacked: all types, and one
 * group per type that the buttons show instead. */
static void panel_waits(struct sbuf *b, int run, json_t *doc, int sec0, int n)
{
    const int H = 170, t = 8, bt = 24;
    json_t *w = json_object_get(doc, "waits"), *ps = json_object_get(w, "per_second");
    json_t *cls = json_object_get(ps, "classes");
    size_t c;
    json_t *v;

    if (!json_is_object(ps)) {
        sb_put(b, "<p class=\"muted wnone\">Waits: ");
        sb_esc(b, json_is_string(json_object_get(w, "why"))
                      ? json_string_value(json_object_get(w, "why"))
                      : "not in this run's record (no wait sampler, or a record made before it)");
        sb_put(b, "</p>\n");
        return;
    }
    sb_printf(b, "<div class=\"wbtns\" role=\"group\" data-panel=\"r%d\">Waits of "
                 "<button type=\"button\" data-wtype=\"all\" class=\"on\">all types</button>",
              run);
    for (int tp = 0; tp < TX_NTYPES; tp++)
        sb_printf(b, "<button type=\"button\" data-wtype=\"%s\">%s</button>",
                  tx_name((enum tx_type)tp), tx_name((enum tx_type)tp));
    sb_put(b, "</div>\n");
    sb_printf(b,
              "<svg class=\"chart wchart\" data-chart=\"run%d-waits\" data-series=\"%zu\" "
              "data-shown=\"all\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"sessions by "
              "wait class per second\">\n",
              run, json_array_size(cls), PW, H);
    panel_wstack(b, ps, "all", sec0, n, H, t, bt);
    for (int tp = 0; tp < TX_NTYPES; tp++)
        panel_wstack(b, ps, tx_name((enum tx_type)tp), sec0, n, H, t, bt);
    panel_xaxis(b, n, H, bt);
    sb_printf(b,
              "<text class=\"axlab\" transform=\"translate(14 %d) rotate(-90)\" "
              "text-anchor=\"middle\">sessions</text></svg>\n",
              t + (H - t - bt) / 2);
    sb_put(b, "<ul class=\"legend\">");
    json_array_foreach(cls, c, v)
    {
        sb_printf(b, "<li><span class=\"sw\" style=\"background:%s\"></span>",
                  wclass_colour(json_string_value(v) ? json_string_value(v) : ""));
        sb_esc(b, json_string_value(v));
        sb_put(b, "</li>");
    }
    sb_put(b, "</ul>\n");
}

/* New-Order's latency per second as a heatmap: a cell per second and
 * band, darker for more New-Orders (log scale). */
static void panel_heatmap(struct sbuf *b, int run, json_t *doc, int sec0, int n)
{
    json_t *hm = json_object_get(json_object_get(doc, "run"), "new_order_heatmap");
    json_t *up = json_object_get(hm, "upper_ms"), *secs = json_object_get(hm, "second");
    json_t *counts = json_object_get(hm, "counts");
    size_t nb = json_array_size(up), cells = 0;
    const int t = 8, bt = 24, rowh = 12;
    int H = t + bt + rowh * (int)nb;
    double max = 0;

    if (!nb || !json_array_size(counts)) {
        sb_put(b, "<p class=\"muted hnone\">New-Order latency heatmap: not in this run's record "
                  "(made before it, or merged from parts).</p>\n");
        return;
    }
    for (size_t i = 0; i < json_array_size(counts); i++)
        for (size_t k = 0; k < nb; k++)
            if (jnum(json_array_get(counts, i), k) > max)
                max = jnum(json_array_get(counts, i), k);
    sb_printf(b,
              "<svg class=\"chart\" data-chart=\"run%d-heatmap\" data-series=\"1\" viewBox=\"0 0 "
              "%d %d\" role=\"img\" aria-label=\"New-Order latency per second\">\n",
              run, PW, H);
    for (size_t k = 0; k < nb; k++) {
        double u = jnum(up, k), lo = k ? jnum(up, k - 1) : 0;
        char l[32];
        /* Each band's upper bound at its top edge; the open band's lower. */
        if (isnan(u))
            snprintf(l, sizeof(l), "%g+ ms", lo);
        else
            snprintf(l, sizeof(l), "%g ms", u);
        sb_printf(b, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", PL - 6,
                  H - bt - rowh * (int)(k + 1) + (isnan(u) ? 10 : 4), l);
    }
    sb_put(b, "<g class=\"series heat\">\n");
    for (size_t i = 0; max > 0 && i < json_array_size(counts); i++) {
        double x = jnum(secs, i) - sec0 + 1;
        if (isnan(x) || x < 1 || x > n)
            continue;
        for (size_t k = 0; k < nb; k++) {
            double v = jnum(json_array_get(counts, i), k), u = jnum(up, k),
                   lo = k ? jnum(up, k - 1) : 0;
            if (!(v > 0))
                continue;
            sb_printf(b,
                      "<rect class=\"cell\" x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
                      "fill=\"#7c2d12\" fill-opacity=\"%.2f\"><title>second %.0f: %.0f New-Orders ",
                      PX(x - 1, n), H - bt - rowh * (int)(k + 1), PX(x, n) - PX(x - 1, n), rowh,
                      0.12 + 0.88 * log1p(v) / log1p(max), x, v);
            if (isnan(u))
                sb_printf(b, "over %g ms</title></rect>\n", lo);
            else
                sb_printf(b, "%g to %g ms</title></rect>\n", lo, u);
            cells++;
        }
    }
    sb_printf(b, "</g>\n");
    panel_xaxis(b, n, H, bt);
    sb_printf(b, "</svg><p class=\"muted\">%zu cells: each second's New-Orders by latency band "
                 "(response time, from the run's per-second histograms), darker for more "
                 "(log scale, most %.0f).</p>\n",
              cells, max);
}

/* A run has what its panel shows: a series, and waits, events or the heatmap. */
static int panel_has(const struct report_series *s, json_t *doc)
{
    return s->n > 0 && s->sec0 > 0 &&
           (json_object_get(json_object_get(doc, "waits"), "per_second") ||
            json_object_get(doc, "events") ||
            json_object_get(json_object_get(doc, "run"), "new_order_heatmap"));
}

/* "Each run, second by second": per run its throughput with the server's
 * events over it, under it its waits by class, and New-Order's heatmap. */
static void seconds_section(struct sbuf *b, const struct cmp *c, const struct report_series *ser)
{
    int any = 0;

    for (int i = 0; i < c->n_runs; i++)
        any |= panel_has(&ser[i], c->runs[i].doc);
    if (!any)
        return;
    sb_put(b, "<section id=\"seconds\"><h2>Each run, second by second</h2><p class=\"muted\">"
              "The measured window of each run that recorded them: its TPS with the "
              "checkpoints (shaded), autovacuums of the schema's tables (bars at the top), "
              "stalls and outages over it; under it the run's sessions by wait class (the wait "
              "sampler's mean per second; a button shows one transaction type); then "
              "New-Order's latency as a heatmap.</p>\n");
    for (int i = 0; i < c->n_runs; i++) {
        char lab[300];
        json_t *doc = c->runs[i].doc;
        if (!panel_has(&ser[i], doc))
            continue;
        run_label(c, i, lab, sizeof(lab));
        sb_printf(b, "<figure class=\"chart-box panel\" data-panel=\"r%d\"><figcaption>", i + 1);
        sb_esc(b, lab);
        sb_put(b, "</figcaption>\n");
        panel_throughput(b, i + 1, &ser[i], doc);
        panel_waits(b, i + 1, doc, ser[i].sec0, ser[i].n);
        panel_heatmap(b, i + 1, doc, ser[i].sec0, ser[i].n);
        sb_put(b, "</figure>\n");
    }
    sb_put(b, "</section>\n");
}

/* ------------------------------------------------------------------ */
/* Top statements (run.json "statements", issue 41)                    */
/* ------------------------------------------------------------------ */

#define REPORT_STMTS 10 /* rows of each step's table */

/* One step's top statements: the first run of the step's. */
static void statements_table(struct sbuf *b, const struct cmp *c, int s)
{
    json_t *st = json_object_get(c->runs[c->steps[s].first].doc, "statements");
    json_t *list = json_object_get(st, "by_total_time"), *x;
    size_t i;

    sb_printf(b, "<h3>%d ", s + 1);
    sb_esc(b, c->runs[c->steps[s].first].label);
    sb_put(b, "</h3>\n");
    if (!json_is_true(json_object_get(st, "available"))) {
        sb_put(b, "<p class=\"muted\">unavailable: ");
        sb_esc(b, json_is_string(json_object_get(st, "why"))
                      ? json_string_value(json_object_get(st, "why"))
                      : "the record has no statements (an older tpccbench)");
        sb_put(b, "</p>\n");
        return;
    }
    sb_printf(b,
              "<p class=\"muted\">%zu statements over %.1f s of the window; the %d costliest "
              "by total time (a call of a procedure includes the statements inside it).</p>",
              json_array_size(list), json_real_value(json_object_get(st, "window_s")),
              REPORT_STMTS);
    sb_put(b, "<div class=\"scroll\"><table class=\"lat stmts\"><thead><tr><th>type</th>"
              "<th>calls</th><th>total ms</th><th>mean ms</th><th>rows</th><th>blocks read</th>"
              "<th>blocks hit</th><th>statement</th></tr></thead><tbody>\n");
    json_array_foreach(list, i, x)
    {
        json_t *type = json_object_get(x, "type");
        const char *query = json_string_value(json_object_get(x, "query"));
        char q[160];
        if (i == REPORT_STMTS)
            break;
        snprintf(q, sizeof(q), "%s%.150s",
                 json_is_true(json_object_get(x, "toplevel")) ? "" : "(inner) ",
                 query ? query : "");
        sb_put(b, "<tr><td>");
        sb_esc(b, json_is_string(type) ? json_string_value(type) : "-");
        sb_printf(b,
                  "</td><td>%lld</td><td>%.1f</td><td>%.3f</td><td>%lld</td><td>%lld</td>"
                  "<td>%lld</td><td><code>",
                  (long long)json_integer_value(json_object_get(x, "calls")),
                  json_real_value(json_object_get(x, "total_ms")),
                  json_real_value(json_object_get(x, "mean_ms")),
                  (long long)json_integer_value(json_object_get(x, "rows")),
                  (long long)json_integer_value(json_object_get(x, "shared_blks_read")),
                  (long long)json_integer_value(json_object_get(x, "shared_blks_hit")));
        sb_esc(b, q);
        sb_put(b, "</code></td></tr>\n");
    }
    sb_put(b, "</tbody></table></div>\n");
}

/* Each step's top statements, from pg_stat_statements. */
static void statements_section(struct sbuf *b, const struct cmp *c)
{
    sb_put(b, "<section id=\"statements\"><h2>Top statements</h2>\n");
    for (int s = 0; s < c->n_steps; s++)
        statements_table(b, c, s);
    sb_put(b, "</section>\n");
}

/* ------------------------------------------------------------------ */
/* The page                                                            */
/* ------------------------------------------------------------------ */

/* The page style, in pieces (a C string literal may not exceed 4095 characters). */
static const char *const css[] = {
    ":root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#fff;--card:#f9fafb;",
    "--good:#047857;--bad:#b91c1c}\n",
    "*{box-sizing:border-box}\n",
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',",
    "Arial,sans-serif;color:var(--fg);background:var(--bg)}\n",
    "main{max-width:1180px;margin:0 auto;padding:20px 24px 40px}\n",
    "header h1{font-size:22px;margin:0 0 2px}\n",
    "header .sub{color:var(--muted);margin:0}\n",
    "h2{font-size:17px;margin:28px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}\n",
    "h3{font-size:14px;margin:16px 0 6px}\n",
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:10px;",
    "margin:16px 0 4px}\n",
    ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}\n",
    ".card .k{color:var(--muted);font-size:12px}.card .v{font-size:20px;font-weight:600}\n",
    ".card .d{font-size:12px;color:var(--muted)}\n",
    "table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}\n",
    "th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n",
    "th{font-weight:600;font-size:12px;color:var(--muted);white-space:nowrap}\n",
    "th.grp{text-align:center;border-bottom:1px solid #d1d5db;color:var(--fg)}\n",
    "table.steps td,table.steps th{padding:5px 7px}\n",
    "table.lat{margin-top:12px}table.lat td{padding:3px 8px;font-size:13px}\n",
    ".num{text-align:right;white-space:nowrap}\n",
    ".note{max-width:230px}\n",
    ".scroll{overflow-x:auto}\n",
    ".range{font-size:11px;color:var(--muted)}\n",
    ".good{color:var(--good);font-weight:600}.bad{color:var(--bad);font-weight:600}\n",
    ".noise{color:var(--muted)}.muted{color:var(--muted)}\n",
    ".tag{font-size:10px;border:1px solid var(--line);border-radius:8px;padding:0 5px;",
    "font-weight:400}\n",
    ".warn-tag{font-size:11px;background:#fef3c7;color:#92400e;border-radius:8px;padding:1px 7px;",
    "font-weight:500}\n",
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;",
    "vertical-align:baseline}\n",
    ".grid2{display:grid;grid-template-columns:1fr 1fr;gap:16px}\n",
    ".grid3{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}\n",
    "@media (max-width:900px){.grid2,.grid3{grid-template-columns:1fr}}\n",
    "figure{margin:0}.chart-box{background:var(--card);border:1px solid var(--line);",
    "border-radius:8px;padding:8px 10px}\n",
    "figcaption{font-weight:600;font-size:13px;margin-bottom:4px}\n",
    "svg.chart{width:100%;height:auto;display:block;font-size:11px}\n",
    "svg .grid{stroke:#e5e7eb;stroke-width:1}svg .grid.minor{stroke:#f3f4f6}\n",
    "svg .axis{stroke:#9ca3af}svg .tick{fill:#6b7280;font-size:10px}\n",
    "svg .axlab{fill:#6b7280;font-size:10px}svg .lab{fill:#1f2937;font-size:11px}\n",
    "svg .val{fill:#1f2937;font-size:11px;font-weight:600}\n",
    "svg .up{fill:#047857;font-weight:500}svg .down{fill:#b91c1c;font-weight:500}\n",
    "svg .whisker{stroke:#111827;stroke-width:1.2;fill:none}\n",
    "svg .line{fill:none;stroke-width:1.8;stroke-linejoin:round}\n",
    "svg .empty{fill:#9ca3af}\n",
    "svg g.series path{stroke-width:1.6}\n",
    "svg path.area{stroke:none;fill-opacity:.85}svg .mark{stroke:none}\n",
    ".ev-checkpoint{fill:#2563eb;fill-opacity:.16;background:#2563eb55}",
    ".ev-autovacuum{fill:#059669;fill-opacity:.8;background:#059669}",
    ".ev-stall{fill:#dc2626;fill-opacity:.18;background:#dc262655}",
    ".ev-outage{fill:#7f1d1d;fill-opacity:.25;background:#7f1d1d66}\n",
    "figure.panel{margin:0 0 16px}.wbtns{font-size:12px;margin:8px 0 2px;color:var(--muted)}",
    ".wbtns button{font:inherit;margin-left:4px;padding:1px 8px;border:1px solid var(--line);",
    "border-radius:10px;background:#fff;cursor:pointer}",
    ".wbtns button.on{background:#1f2937;color:#fff;border-color:#1f2937}\n",
    "@media print{.wbtns button:not(.on){display:none}}\n",
    ".legend{list-style:none;padding:0;margin:6px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px;",
    "font-size:12px}\n",
    ".legend.column{flex-direction:column;font-size:13px;gap:8px;margin-top:10px}\n",
    "body.hl .line:not(.on){opacity:.15}body.hl .legend li:not(.on){opacity:.4}\n",
    "table.diff{width:auto;min-width:50%}table.diff td.old{color:var(--bad)}",
    "table.diff td.new{color:var(--good)}\n",
    "tr.derived td{color:var(--muted)}tr.derived td.old,tr.derived td.new{color:var(--muted)}\n",
    "tr.group td{border-top:2px solid var(--line)}\n",
    ".warnings{background:#fffbeb;border:1px solid #fde68a;border-radius:8px;padding:8px 14px 8px ",
    "30px;margin:12px 0}\n",
    "dl.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:6px 16px;",
    "margin:0 0 10px}\n",
    "dl.facts dt{font-size:11px;color:var(--muted)}dl.facts dd{margin:0;word-break:break-all}\n",
    "table.kv td:first-child{white-space:nowrap}table.kv td{font-size:12px;padding:2px 8px}\n",
    "details summary{cursor:pointer;color:#2563eb;margin:6px 0}\n",
    "code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n",
    "footer{margin-top:30px;color:var(--muted);font-size:12px}\n",
    "footer li{word-break:break-all}\n",
    "@media print{@page{size:A4 landscape;margin:12mm}",
    "body{font-size:10pt}main{max-width:none;padding:0}",
    ".chart-box,table.diff,.cards,dl.facts{break-inside:avoid}",
    "h2{break-after:avoid}.scroll{overflow:visible}",
    ".grid3{grid-template-columns:repeat(3,1fr)}.grid2{grid-template-columns:1fr 1fr}",
    "details summary{display:none}.chart-box{background:none}",
    "table.steps{font-size:8pt}table.steps td,table.steps th{padding:3px 4px}",
    "table.steps .note{max-width:130px}table.lat td{font-size:8pt;padding:1px 6px}",
    "a{color:inherit;text-decoration:none}}\n",
    NULL,
};

static const char script[] =
    "(function(){\n"
    "var b=document.body,charts=document.querySelectorAll('svg.chart'),n=0;\n"
    "charts.forEach(function(c){var k=c.querySelectorAll('.series').length;"
    "c.setAttribute('data-drawn',k);n+=k;});\n"
    "function mark(run,on){document.querySelectorAll('[data-run=\"'+run+'\"]').forEach("
    "function(x){x.classList.toggle('on',on);});b.classList.toggle('hl',on);}\n"
    "document.querySelectorAll('.legend li,.line').forEach(function(el){"
    "el.addEventListener('mouseenter',function(){mark(el.getAttribute('data-run'),true);});"
    "el.addEventListener('mouseleave',function(){mark(el.getAttribute('data-run'),false);});});\n"
    "window.addEventListener('beforeprint',function(){"
    "document.querySelectorAll('details').forEach(function(d){d.open=true;});});\n"
    "function showW(p,t){var s=p.querySelector('svg.wchart'),ok=false;if(!s)return;"
    "s.querySelectorAll('g.wstack').forEach(function(g){if(g.getAttribute('data-wtype')===t)"
    "ok=true;});if(!ok)return;s.querySelectorAll('g.wstack').forEach(function(g){"
    "g.style.display=g.getAttribute('data-wtype')===t?'':'none';});s.setAttribute('data-shown',t);"
    "p.querySelectorAll('.wbtns button').forEach(function(x){"
    "x.classList.toggle('on',x.getAttribute('data-wtype')===t);});}\n"
    "var panels=document.querySelectorAll('figure.panel');\n"
    "panels.forEach(function(p){p.querySelectorAll('.wbtns button').forEach(function(x){"
    "x.addEventListener('click',function(){showW(p,x.getAttribute('data-wtype'));});});});\n"
    "var wh=/[#&]waits=([a-z_]+)/.exec(location.hash);"
    "if(wh)panels.forEach(function(p){showW(p,wh[1]);});\n"
    "b.setAttribute('data-charts',charts.length);b.setAttribute('data-series-total',n);\n"
    "b.setAttribute('data-ready','1');\n"
    "})();\n";

/* The headline cards: last step against the first. */
static void cards(struct sbuf *b, const struct cmp *c)
{
    const struct cmp_step *a = &c->steps[0], *z = &c->steps[c->n_steps - 1];
    static const struct {
        int m;
        const char *name, *unit;
        int higher_better;
    } items[] = {
        { CMP_LOAD, "load time gain", "s", 0 },
        { CMP_NOTPM, "NOTPM gain", "", 1 },
        { CMP_TPS, "TPS gain", "", 1 },
        { CMP_P90 + TX_NEW_ORDER, "New-Order p90 change", "ms", 0 },
    };

    sb_put(b, "<div class=\"cards\">");
    for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
        int m = items[i].m;
        char v0[32], v1[32], g[32];
        double gain = cmp_gain(m, a->med[m], z->med[m]);
        cmp_fmt_value(v0, sizeof(v0), m, a->med[m]);
        cmp_fmt_value(v1, sizeof(v1), m, z->med[m]);
        cmp_fmt_pct(g, sizeof(g), gain);
        sb_printf(b,
                  "<div class=\"card\"><div class=\"k\">%s, step 1 &rarr; %d</div>"
                  "<div class=\"v %s\">%s</div><div class=\"d\">%s &rarr; %s %s</div></div>",
                  items[i].name, c->n_steps,
                  c->n_steps < 2 || isnan(gain)                                       ? ""
                  : (m == CMP_LOAD || items[i].higher_better ? gain >= 0 : gain <= 0) ? "good"
                                                                                      : "bad",
                  c->n_steps < 2 ? "&ndash;" : g, v0, v1, items[i].unit);
    }
    sb_put(b, "</div>\n");
}

/* The document's start: its head with the style, the title, the headline cards, the warnings. */
static void head_section(struct sbuf *b, const struct cmp *c, const struct report_opts *o,
                         const char *title)
{
    sb_put(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
              "<meta name=\"generator\" content=\"tpccbench\">\n<title>");
    sb_esc(b, title);
    sb_put(b, "</title>\n<style>\n");
    for (int i = 0; css[i]; i++)
        sb_put(b, css[i]);
    sb_put(b, "</style>\n</head>\n<body data-ready=\"0\">\n<main>\n");
    sb_put(b, "<header><h1>");
    sb_esc(b, title);
    sb_printf(b, "</h1><p class=\"sub\">%d run%s in %d step%s", c->n_runs,
              c->n_runs == 1 ? "" : "s", c->n_steps, c->n_steps == 1 ? "" : "s");
    if (o && o->generated) {
        sb_put(b, " &middot; made ");
        sb_esc(b, o->generated);
    }
    sb_put(b, " &middot; NOTPM is TPC-C derived, not audited</p></header>\n");
    cards(b, c);
    if (c->n_warnings) {
        sb_put(b, "<ul class=\"warnings\">");
        for (int i = 0; i < c->n_warnings; i++) {
            sb_put(b, "<li>");
            sb_esc(b, c->warnings[i]);
            sb_put(b, "</li>");
        }
        sb_put(b, "</ul>\n");
    }
}

/* "Steps": the step table and how to read its gains. */
static void steps_section(struct sbuf *b, const struct cmp *c)
{
    sb_put(b, "<section id=\"steps\"><h2>Steps</h2>\n");
    step_table(b, c);
    sb_put(b, "<p class=\"muted\">Gains against the step before (and the first): load time "
              "old/new&nbsp;&minus;&nbsp;1, NOTPM and TPS new/old&nbsp;&minus;&nbsp;1; latency "
              "change new/old&nbsp;&minus;&nbsp;1 (negative is faster). Repeats of a step: the "
              "median, min..max below it; a gain is within noise when its 95&nbsp;% confidence "
              "interval holds no change (a step of one run: when it lies inside the other's "
              "min..max).</p></section>\n");
}

/* "Significance", when steps have repeats: each gain's interval and verdict. */
static void significance_section(struct sbuf *b, const struct cmp *c)
{
    if (!cmp_any_sig(c))
        return;
    sb_put(b, "<section id=\"significance\"><h2>Significance</h2>\n");
    sig_table(b, c);
    sb_put(b, "<p class=\"muted\">The gain of the medians and its 95&nbsp;% confidence "
              "interval from the repeats (Welch's t on the logarithms of the figures, "
              "unequal variances allowed); New-Order p90 is a change (+ is slower). "
              "Significant when the whole interval lies on one side of no change.</p>"
              "</section>\n");
}

/* Bars of load time and TPS per step, then TPS and NOTPM per second of every run. */
static void throughput_sections(struct sbuf *b, const struct cmp *c,
                                const struct report_series *ser)
{
    sb_put(b, "<section id=\"bars\"><h2>Load time and throughput per step</h2><div "
              "class=\"grid2\">\n");
    chart_bars(b, c, CMP_LOAD, "load", "s", "Load time (s, lower is better)");
    chart_bars(b, c, CMP_TPS, "tps", "", "TPS (higher is better)");
    sb_put(b, "</div></section>\n");

    sb_put(b, "<section id=\"time\"><h2>Throughput over time</h2><div class=\"grid2\">\n");
    chart_time(b, c, ser, 0, "tps-time", "TPS per second, every run", "transactions/s");
    chart_time(b, c, ser, 1, "notpm-time", "NOTPM per second, every run", "New-Orders/min");
    sb_put(b, "</div></section>\n");
}

/* What the machine and the database did, aligned with the charts above (when a run has them). */
static void metrics_section(struct sbuf *b, const struct cmp *c)
{
    struct report_series *ms = calloc((size_t)c->n_runs * MC_N, sizeof(*ms));
    struct report_series *line = calloc((size_t)c->n_runs, sizeof(*line));
    static const char *const name[MC_N] = { "cpu-time", "disk-time", "wal-time", "db-host-cpu-time",
                                            "db-host-disk-time" };
    static const char *const cap[MC_N] = {
        "CPU user + system per second (the driver's host: all CPUs)",
        "Data disk read + write per second (seen from the driver's host)", "WAL written per second",
        "Database host: CPU user + system per second (its node_exporter)",
        "Database host: data disk read + write per second (its node_exporter)"
    };
    static const char *const ylab[MC_N] = { "% of all CPUs", "MB/s", "MB/s", "% of all CPUs",
                                            "MB/s" };
    int any = 0, has[MC_N] = { 0 };

    for (int i = 0; ms && i < c->n_runs; i++) {
        metrics_load(&c->runs[i], &ms[(size_t)i * MC_N]);
        for (int m = 0; m < MC_N; m++)
            has[m] |= ms[(size_t)i * MC_N + (size_t)m].n > 0;
    }
    for (int m = 0; m < MC_N; m++)
        any |= has[m];
    if (any && line) {
        sb_put(b, "<section id=\"metrics\"><h2>What the machine and the database did</h2>"
                  "<p class=\"muted\">From each run's metrics.csv, the same seconds as "
                  "above.</p><div class=\"grid2\">\n");
        for (int m = 0; m < MC_N; m++) {
            if (m >= MC_DBH_CPU && !has[m])
                continue; /* no run scraped the database host */
            for (int i = 0; i < c->n_runs; i++)
                line[i] = ms[(size_t)i * MC_N + (size_t)m];
            chart_time(b, c, line, 0, name[m], cap[m], ylab[m]);
        }
        sb_put(b, "</div></section>\n");
    }
    for (int i = 0; ms && i < c->n_runs * MC_N; i++)
        report_series_release(&ms[i]);
    free(ms);
    free(line);
}

/* Latency percentiles: a chart per transaction type, the steps' legend, the table. */
static void latency_section(struct sbuf *b, const struct cmp *c)
{
    sb_put(b, "<section id=\"latency\"><h2>Latency percentiles per transaction type</h2>"
              "<p class=\"muted\">Milliseconds on a log scale; each line a step (median of its "
              "repeats).</p><div class=\"grid3\">\n");
    for (int t = 0; t < TX_NTYPES; t++)
        chart_latency(b, c, t);
    sb_put(b, "<figure class=\"chart-box small\"><figcaption>steps</figcaption><ul "
              "class=\"legend column\">");
    for (int s = 0; s < c->n_steps; s++) {
        sb_printf(b, "<li><span class=\"sw\" style=\"background:%s\"></span>%d ", step_colour(s),
                  s + 1);
        sb_esc(b, c->runs[c->steps[s].first].label);
        if (c->steps[s].n > 1)
            sb_printf(b, " <span class=\"muted\">(median of %d runs)</span>", c->steps[s].n);
        sb_put(b, "</li>");
    }
    sb_put(b, "</ul></figure></div>\n");
    latency_table(b, c);
    sb_put(b, "</section>\n");
}

/* The document's end: the run records in order, the tool, the script. */
static void footer_section(struct sbuf *b, const struct cmp *c)
{
    sb_put(b, "<footer><p>Run records, in order:</p><ol>");
    for (int i = 0; i < c->n_runs; i++) {
        const struct cmp_run *r = &c->runs[i];
        sb_put(b, "<li><code>");
        sb_esc(b, r->path);
        sb_put(b, "</code> &middot; ");
        sb_esc(b, r->label);
        sb_put(b, " &middot; ");
        sb_esc(b, r->status);
        if (r->started[0]) {
            sb_put(b, " &middot; ");
            sb_esc(b, r->started);
        }
        sb_put(b, "</li>");
    }
    sb_printf(b,
              "</ol><p>Made by tpccbench %s. Figures are TPC-C derived and not comparable "
              "with audited TPC-C results.</p></footer>\n",
              TPCC_VERSION);
    sb_printf(b, "</main>\n<script>\n%s</script>\n</body></html>\n", script);
}

int report_html(const struct cmp *c, const struct report_opts *o, char **html, size_t *len,
                struct err *e)
{
    struct sbuf b = { 0 };
    struct report_series *ser = calloc((size_t)c->n_runs, sizeof(*ser));
    const char *title = o && o->title ? o->title : "tpccbench report";
    int rc = 0;

    if (!ser)
        return err_set(e, E_FAIL, "out of memory");
    for (int i = 0; i < c->n_runs && rc == 0; i++)
        rc = series_load(&c->runs[i], &ser[i], e);
    if (rc < 0)
        goto out;

    head_section(&b, c, o, title);
    steps_section(&b, c);
    significance_section(&b, c);
    throughput_sections(&b, c, ser);
    seconds_section(&b, c, ser);
    metrics_section(&b, c);
    latency_section(&b, c);
    statements_section(&b, c);

    sb_put(&b, "<section id=\"changes\"><h2>What changed</h2>\n");
    changes_section(&b, c);
    sb_put(&b, "</section>\n");

    sb_put(&b, "<section id=\"fingerprint\"><h2>Environment of step 1</h2>\n");
    fingerprint_section(&b, c);
    sb_put(&b, "</section>\n");

    footer_section(&b, c);
    if (b.oom)
        rc = err_set(e, E_FAIL, "out of memory building the report");
out:
    for (int i = 0; i < c->n_runs; i++)
        report_series_release(&ser[i]);
    free(ser);
    if (rc < 0) {
        free(b.p);
        return rc;
    }
    *html = b.p;
    *len = b.n;
    return 0;
}
