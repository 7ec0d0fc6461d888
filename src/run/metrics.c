/*
 * metrics.c - what the metrics sources share (see metrics.h and msrc.h):
 * the column table, the rows, the sample that asks each source in turn,
 * metrics.csv, run.json's "metrics", the summary lines and the text the
 * endpoint serves (the registered series, then the latest row's figures).
 *
 * A column is one figure (cpu_user_pct, disk_data_write_mb_per_s, ...) with
 * its unit in its name, its Prometheus family and labels, the source that
 * fills it, and a note saying why it was unavailable when it was.  The
 * sources are the array metrics_sources[], each a struct
 * metrics_source_ops in a file of its own, as the database backends are
 * drivers: this file never looks inside one.  Rates are differences of two
 * samples over the time between them (measured, not assumed to be 1 s).
 *
 * Runs on the monitor's thread only (during a load: the load command's
 * sampling thread); nothing here prints or exits, and nothing here is on
 * the per-transaction path.
 */
#include "run/metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "run/mserve.h"
#include "run/msrc.h"

#define MCOL_MAX 192

/* The sources, in the order their columns come in a row: a new source is
 * a file with its ops and one line here. */
static const struct metrics_source_ops *const metrics_sources[] = {
    &msrc_os_ops,
    &msrc_db_ops,
    &msrc_dbhost_ops,
    &msrc_waits_ops,
    &msrc_stmts_ops,
};
#define MSRC_N ((int)(sizeof(metrics_sources) / sizeof(metrics_sources[0])))

/* How long a sample waits for a source's thread (the database's). */
#define WAIT_US       500000
#define WAIT_FIRST_US 5000000 /* the baseline and the last sample */

struct mrow {
    int second;
    char phase;
    double interval_s;
};

/* A growing text buffer (OpenMetrics text). */
struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
};

struct metrics {
    struct msrc src[MSRC_N];             /* the sources, as metrics_sources[] */
    const struct metrics_series *series; /* registered families (kept, not owned) */
    int nseries;
    struct mserve *serve;
    struct mcol cols[MCOL_MAX];
    int ncol;
    int sample_col; /* metrics_cpu_ms, filled here after each sample, or -1 */
    char phase;     /* the row being sampled (msrc_phase), 0 for the baseline */
    int second;     /* ... and its second (msrc_second), 0 for the baseline */
    uint64_t t_prev_us;
    int started;
    struct mrow *rows;
    double *vals; /* nrow x ncol */
    int nrow, cap;
};

/* ------------------------------------------------------------------ */
/* Columns: what metrics.c lends the sources (msrc.h)                  */
/* ------------------------------------------------------------------ */

int mcol_add(struct msrc *s, const char *name, const char *unit, const char *prom,
             const char *labels, double scale, int kind, int arg, int idx, const char *host,
             const char *help)
{
    struct metrics *m = s->m;
    struct mcol *c;

    if (m->ncol == MCOL_MAX)
        return -1;
    c = &m->cols[m->ncol++];
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", name);
    snprintf(c->prom, sizeof(c->prom), "%s", prom);
    snprintf(c->labels, sizeof(c->labels), "%s", labels ? labels : "");
    c->unit = unit;
    c->help = help;
    c->prom_scale = scale;
    c->host = host;
    c->src = s;
    c->kind = kind;
    c->arg = arg;
    c->idx = idx;
    return 0;
}

/* Note why column c is unavailable in this row (the first reason is kept). */
void mcol_missing(struct mcol *c, const char *fmt, ...)
{
    c->n_missing++;
    if (!c->note[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->note, sizeof(c->note), fmt, ap);
        va_end(ap);
    }
}

int mcol_count(const struct metrics *m)
{
    return m->ncol;
}

struct mcol *mcol_at(struct metrics *m, int i)
{
    return &m->cols[i];
}

static int col_find(const struct metrics *m, const char *name)
{
    for (int i = 0; i < m->ncol; i++)
        if (strcmp(m->cols[i].name, name) == 0)
            return i;
    return -1;
}

const char *mcol_note(const struct metrics *m, const char *name)
{
    int i = col_find(m, name);

    return i < 0 ? "" : m->cols[i].note;
}

void msrc_label_safe(char *out, size_t len, const char *in)
{
    size_t i = 0;

    for (; in[i] && i + 1 < len; i++) {
        char ch = in[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '.' || ch == ':' || ch == '@' || ch == '-';
        out[i] = ok ? ch : '_';
    }
    out[i] = '\0';
}

char msrc_phase(const struct metrics *m)
{
    return m->phase;
}

int msrc_second(const struct metrics *m)
{
    return m->second;
}

void metrics_backends(struct metrics *m, const int64_t *pids, int n)
{
    for (int i = 0; m && i < MSRC_N; i++)
        if (m->src[i].ops->backends)
            m->src[i].ops->backends(&m->src[i], pids, n);
}

double msrc_thread_cpu_ms(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

struct metrics *metrics_new(const struct metrics_opts *o, struct err *e)
{
    struct metrics *m = calloc(1, sizeof(*m));

    if (!m) {
        err_set(e, E_FAIL, "out of memory");
        return NULL;
    }
    m->serve = o->serve;
    for (int i = 0; i < MSRC_N; i++) {
        m->src[i].ops = metrics_sources[i];
        m->src[i].m = m;
        if (m->src[i].ops->init(&m->src[i], o, e) < 0) {
            metrics_free(m);
            return NULL;
        }
    }
    m->sample_col = col_find(m, "metrics_cpu_ms");
    return m;
}

void metrics_free(struct metrics *m)
{
    if (!m)
        return;
    for (int i = 0; i < MSRC_N; i++)
        if (m->src[i].ops)
            m->src[i].ops->release(&m->src[i]);
    free(m->rows);
    free(m->vals);
    free(m);
}

/* ------------------------------------------------------------------ */
/* Sampling                                                            */
/* ------------------------------------------------------------------ */

/*
 * One sample: every source asked first (what runs beside, a scrape), then
 * read in turn; with v, the values of a row (NaN = unavailable) over the
 * interval since the previous sample; then this sample is each source's
 * baseline.  The CPU the sources' own threads took for it, ms.
 */
static double sample(struct metrics *m, double *v, double interval_s, uint64_t wait_us)
{
    uint64_t t0 = clock_us();
    double cpu_ms = 0;

    for (int i = 0; i < MSRC_N; i++)
        if (m->src[i].ops->ask)
            m->src[i].ops->ask(&m->src[i]);
    for (int i = 0; i < MSRC_N; i++)
        cpu_ms += m->src[i].ops->read(&m->src[i], t0, wait_us, interval_s);
    for (int i = 0; v && i < m->ncol; i++) {
        struct mcol *c = &m->cols[i];
        v[i] = c->src->ops->value(c->src, c, interval_s);
    }
    for (int i = 0; i < MSRC_N; i++)
        if (m->src[i].ops->keep)
            m->src[i].ops->keep(&m->src[i]);
    return cpu_ms;
}

void metrics_start(struct metrics *m, struct db_conn *c)
{
    if (!m)
        return;
    for (int i = 0; i < MSRC_N; i++)
        if (m->src[i].ops->start && m->src[i].ops->start(&m->src[i], c))
            c = NULL;
    db_close(c); /* no source kept it */
    sample(m, NULL, 0, WAIT_FIRST_US);
    m->t_prev_us = clock_us();
    m->started = 1;
}

/* Sample into a new row (second, phase). */
static void add_row(struct metrics *m, int second, char phase, uint64_t wait_us)
{
    double cpu0 = msrc_thread_cpu_ms(), *v, threads_ms;
    uint64_t now = clock_us();
    double interval = m->started ? (double)(now - m->t_prev_us) / 1e6 : 0;

    if (m->nrow == m->cap) {
        int cap = m->cap ? m->cap * 2 : 256;
        struct mrow *nr = realloc(m->rows, (size_t)cap * sizeof(*nr));
        double *nv;
        if (!nr)
            return;
        m->rows = nr;
        if (!(nv = realloc(m->vals, (size_t)cap * (size_t)m->ncol * sizeof(*nv))))
            return;
        m->vals = nv;
        m->cap = cap;
    }
    v = &m->vals[(size_t)m->nrow * (size_t)m->ncol];
    m->phase = phase;
    m->second = second;
    threads_ms = sample(m, v, interval, wait_us);
    m->rows[m->nrow].second = second;
    m->rows[m->nrow].phase = phase;
    m->rows[m->nrow].interval_s = interval;
    m->nrow++;
    m->t_prev_us = now;
    m->started = 1;
    if (m->sample_col >= 0)
        v[m->sample_col] = msrc_thread_cpu_ms() - cpu0 + threads_ms;
}

/* ------------------------------------------------------------------ */
/* The endpoint's text                                                 */
/* ------------------------------------------------------------------ */

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->oom)
        return;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && (size_t)n < room) {
            b->n += (size_t)n;
            return;
        }
        {
            size_t cap = b->cap ? b->cap * 2 : 16384;
            char *np;
            while (cap - b->n <= (size_t)n)
                cap *= 2;
            if (!(np = realloc(b->p, cap))) {
                b->oom = 1;
                return;
            }
            b->p = np;
            b->cap = cap;
        }
    }
}

/* The family header: OpenMetrics names a counter without _total. */
static void family(struct sbuf *b, int om, const char *name, const char *type, const char *help)
{
    const char *fam = name;
    char base[128];
    size_t n = strlen(name);

    if (om && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0) {
        snprintf(base, sizeof(base), "%.*s", (int)(n - 6), name);
        fam = base;
    }
    sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", fam, help, fam, type);
}

/* Series k's labels of family s into out ('table="stock"', or ""). */
static void series_labels(const struct metrics_series *s, int k, char *out, size_t len)
{
    if (s->n > 1 && s->label)
        snprintf(out, len, "%s=\"%s\"", s->label, s->label_values[k]);
    else if (s->n > 1 || (s->label_values && s->label_values[k]))
        snprintf(out, len, "%s", s->label_values[k]);
    else
        out[0] = '\0';
}

/* A line: name{labels} or name alone, then the value's text. */
static void sample_line(struct sbuf *b, const char *name, const char *labels, const char *value)
{
    if (labels[0])
        sb_printf(b, "%s{%s} %s\n", name, labels, value);
    else
        sb_printf(b, "%s %s\n", name, value);
}

/* The histograms of family s: buckets by upper bound, +Inf, sum and count. */
static void render_hist(struct sbuf *b, const struct metrics_series *s)
{
    for (int k = 0; k < s->n; k++) {
        const struct metrics_hist *h = &s->hist[k];
        char labels[256], sep[2] = { 0 };
        uint64_t all = __atomic_load_n(&h->cum[h->nle], __ATOMIC_RELAXED);
        series_labels(s, k, labels, sizeof(labels));
        sep[0] = labels[0] ? ',' : '\0';
        for (int i = 0; i < h->nle; i++)
            sb_printf(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", s->family, labels, sep, h->le[i],
                      (unsigned long long)__atomic_load_n(&h->cum[i], __ATOMIC_RELAXED));
        sb_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", s->family, labels, sep,
                  (unsigned long long)all);
        {
            char name[160], val[64];
            snprintf(name, sizeof(name), "%s_sum", s->family);
            snprintf(val, sizeof(val), "%.6f", *h->sum);
            sample_line(b, name, labels, val);
            snprintf(name, sizeof(name), "%s_count", s->family);
            snprintf(val, sizeof(val), "%llu", (unsigned long long)all);
            sample_line(b, name, labels, val);
        }
    }
}

/* One registered family: its header, then its series. */
static void render_family(struct sbuf *b, const struct metrics_series *s, int om)
{
    family(b, om, s->family, s->hist ? "histogram" : s->counter ? "counter" : "gauge", s->help);
    if (s->hist) {
        render_hist(b, s);
    } else if (s->v_int) {
        sb_printf(b, "%s %d\n", s->family, __atomic_load_n(s->v_int, __ATOMIC_RELAXED));
    } else if (s->v_real) {
        sb_printf(b, "%s %.3f\n", s->family, *s->v_real);
    } else if (s->state) {
        int cur = __atomic_load_n(s->state, __ATOMIC_RELAXED);
        for (int k = 0; k < s->n; k++)
            sb_printf(b, "%s{%s=\"%s\"} %d\n", s->family, s->label, s->label_values[k], k == cur);
    } else {
        for (int k = 0; k < s->n; k++) {
            char labels[256], val[32];
            series_labels(s, k, labels, sizeof(labels));
            snprintf(val, sizeof(val), "%lld",
                     (long long)__atomic_load_n(&s->v[k], __ATOMIC_RELAXED));
            sample_line(b, s->family, labels, val);
        }
    }
}

/* The OS and database figures of the latest row, one family at a time
 * (first appearance order), then the end of the text. */
static void render_figures(struct sbuf *b, const struct metrics *m, int om)
{
    const double *v = m->nrow ? &m->vals[(size_t)(m->nrow - 1) * (size_t)m->ncol] : NULL;

    for (int i = 0; v && i < m->ncol; i++) {
        int first = 1, any = 0;
        for (int j = 0; j < i && first; j++)
            if (strcmp(m->cols[j].prom, m->cols[i].prom) == 0)
                first = 0;
        if (!first)
            continue;
        for (int j = i; j < m->ncol; j++)
            if (strcmp(m->cols[j].prom, m->cols[i].prom) == 0 && !isnan(v[j]))
                any = 1;
        if (!any)
            continue; /* unavailable: no sample, never a zero */
        family(b, om, m->cols[i].prom, "gauge", m->cols[i].help);
        for (int j = i; j < m->ncol; j++) {
            const struct mcol *c = &m->cols[j];
            if (strcmp(c->prom, m->cols[i].prom) != 0 || isnan(v[j]))
                continue;
            if (c->labels[0])
                sb_printf(b, "%s{%s} %.6g\n", c->prom, c->labels, v[j] * c->prom_scale);
            else
                sb_printf(b, "%s %.6g\n", c->prom, v[j] * c->prom_scale);
        }
    }
    if (om)
        sb_printf(b, "# EOF\n");
}

/* The whole text; om: OpenMetrics 1.0 (else Prometheus text 0.0.4). */
static void render(struct sbuf *b, const struct metrics *m, int om)
{
    for (int i = 0; i < m->nseries; i++)
        render_family(b, &m->series[i], om);
    render_figures(b, m, om);
}

/* Hand both texts to the endpoint (it takes them), or drop them. */
static void publish(struct metrics *m)
{
    struct sbuf om = { 0 }, pt = { 0 };

    if (!m->serve)
        return;
    render(&om, m, 1);
    render(&pt, m, 0);
    if (!om.oom && !pt.oom) {
        mserve_publish(m->serve, om.p, om.n, pt.p, pt.n);
    } else {
        free(om.p);
        free(pt.p);
    }
}

void metrics_tick(struct metrics *m, int second, char phase)
{
    if (!m)
        return;
    add_row(m, second, phase, WAIT_US);
    publish(m);
}

void metrics_serve_series(struct metrics *m, const struct metrics_series *s, int n)
{
    if (!m)
        return;
    m->series = s;
    m->nseries = s ? n : 0;
}

void metrics_serve_tick(struct metrics *m, double elapsed_s)
{
    if (!m)
        return;
    /* Only the latest row is served: no history (no metrics.csv). */
    m->nrow = 0;
    add_row(m, (int)elapsed_s, 'l', WAIT_US);
    publish(m);
}

void metrics_finish(struct metrics *m)
{
    if (!m || !m->started)
        return;
    add_row(m, m->nrow ? m->rows[m->nrow - 1].second + 1 : 1, 's', WAIT_FIRST_US);
}

/* ------------------------------------------------------------------ */
/* Outputs                                                             */
/* ------------------------------------------------------------------ */

char *metrics_csv(const struct metrics *m, size_t *len)
{
    struct sbuf b = { 0 };

    if (!m || !m->nrow)
        return NULL;
    sb_printf(&b, "second,phase,interval_s");
    for (int i = 0; i < m->ncol; i++)
        sb_printf(&b, ",%s", m->cols[i].name);
    sb_printf(&b, "\n");
    for (int r = 0; r < m->nrow; r++) {
        const double *v = &m->vals[(size_t)r * (size_t)m->ncol];
        sb_printf(&b, "%d,%c,%.6f", m->rows[r].second, m->rows[r].phase, m->rows[r].interval_s);
        for (int i = 0; i < m->ncol; i++) {
            if (isnan(v[i]))
                sb_printf(&b, ",");
            else
                sb_printf(&b, ",%.10g", v[i]);
        }
        sb_printf(&b, "\n");
    }
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    *len = b.n;
    return b.p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Whether row r is summarised: the measured rows, or every row when there
 * are none (a run stopped before its window). */
static int summarised(const struct metrics *m, int r)
{
    static const char measured = 'm';

    for (int i = 0; i < m->nrow; i++)
        if (m->rows[i].phase == measured)
            return m->rows[r].phase == measured;
    return 1;
}

/* Mean, p95 (nearest rank), max and count of column i over the summarised rows. */
static int col_stats(const struct metrics *m, int i, double *mean, double *p95, double *max)
{
    double *x = malloc((size_t)(m->nrow ? m->nrow : 1) * sizeof(*x)), sum = 0;
    int n = 0;

    *mean = *p95 = *max = NAN;
    if (!x)
        return 0;
    for (int r = 0; r < m->nrow; r++) {
        double v = m->vals[(size_t)r * (size_t)m->ncol + (size_t)i];
        if (summarised(m, r) && !isnan(v)) {
            x[n++] = v;
            sum += v;
        }
    }
    if (n) {
        qsort(x, (size_t)n, sizeof(*x), cmp_double);
        *mean = sum / n;
        *p95 = x[(int)ceil(0.95 * n) - 1];
        *max = x[n - 1];
    }
    free(x);
    return n;
}

double metrics_mean(const struct metrics *m, const char *name)
{
    double mean, p95, max;
    int i = m ? col_find(m, name) : -1;

    if (i < 0)
        return NAN;
    col_stats(m, i, &mean, &p95, &max);
    return mean;
}

int mcol_total(const struct metrics *m, const char *name, const char *span, double *sum)
{
    int i = col_find(m, name), j = span ? col_find(m, span) : -1, n = 0;

    *sum = 0;
    for (int r = 0; r < m->nrow && i >= 0 && (!span || j >= 0); r++) {
        const double *row = m->vals + (size_t)r * (size_t)m->ncol;
        double dt = span ? row[j] : m->rows[r].interval_s;
        if (summarised(m, r) && !isnan(row[i]) && !isnan(dt)) {
            *sum += row[i] * dt;
            n++;
        }
    }
    return n;
}

const char *metrics_col_host(const struct metrics *m, const char *name)
{
    int i = m ? col_find(m, name) : -1;

    return i < 0 ? NULL : m->cols[i].host;
}

static json_t *num_or_null(double x)
{
    return isnan(x) ? json_null() : json_real(x);
}

/* run.json's metrics.columns: unit, mean, p95, max, rows, unavailable rows, note. */
static json_t *columns_json(const struct metrics *m)
{
    json_t *cols = json_object();

    for (int i = 0; i < m->ncol; i++) {
        const struct mcol *c = &m->cols[i];
        double mean, p95, max;
        int n = col_stats(m, i, &mean, &p95, &max);
        json_t *j = json_pack("{s:s, s:o, s:o, s:o, s:i, s:I}", "unit", c->unit, "mean",
                              num_or_null(mean), "p95", num_or_null(p95), "max", num_or_null(max),
                              "n", n, "unavailable_rows", (json_int_t)c->n_missing);
        json_object_set_new(j, "available", json_boolean(n > 0));
        json_object_set_new(j, "host", json_string(c->host));
        if (c->note[0])
            json_object_set_new(j, "note", json_string(c->note));
        json_object_set_new(cols, c->name, j);
    }
    return cols;
}

json_t *metrics_json(const struct metrics *m)
{
    json_t *o = json_object();
    double sample_ms = 0;
    int n_measured = 0;

    for (int r = 0; r < m->nrow && m->sample_col >= 0; r++) {
        double v = m->vals[(size_t)r * (size_t)m->ncol + (size_t)m->sample_col];
        if (summarised(m, r) && !isnan(v)) {
            sample_ms += v;
            n_measured++;
        }
    }
    json_object_set_new(o, "rows", json_integer(m->nrow));
    json_object_set_new(o, "summarised",
                        json_string("rows of the measured window ('m'), or "
                                    "every row when it never opened"));
    json_object_set_new(o, "sampling_cpu_pct_of_core",
                        n_measured ? json_real(sample_ms / n_measured / 10.0) : json_null());
    json_object_set_new(o, "columns", columns_json(m));
    for (int i = 0; i < MSRC_N; i++)
        if (m->src[i].ops->json)
            m->src[i].ops->json(&m->src[i], o);
    return o;
}

void metrics_print(FILE *out, const struct metrics *m)
{
    int quiet[MSRC_N] = { 0 }, n_unavail = 0;

    for (int i = 0; i < MSRC_N; i++)
        if (m->src[i].ops->print)
            quiet[i] = m->src[i].ops->print(&m->src[i], out);
    /* Columns never available: say so once each, with why (not those of a
     * source whose lines said why it has none). */
    for (int i = 0; i < m->ncol; i++) {
        double mean, p95, max;
        if (!m->cols[i].n_missing || col_stats(m, i, &mean, &p95, &max) > 0 ||
            quiet[m->cols[i].src - m->src])
            continue;
        if (n_unavail++ < 8)
            fprintf(out, "  unavailable: %s (%s)\n", m->cols[i].name, m->cols[i].note);
    }
    if (n_unavail > 8)
        fprintf(out, "  ... and %d more unavailable columns (run.json's metrics.columns)\n",
                n_unavail - 8);
}
