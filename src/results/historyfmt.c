/*
 * historyfmt.c - history's output: text, markdown, csv, json and a
 * self-contained HTML page (see history.h).  Prints only to the FILE it is
 * given; reads nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/history.h"

/* A series longer than this shows only the runs around its change points and its newest. */
#define TABLE_ALL    40
#define TABLE_NEWEST 20

int history_format_parse(const char *s)
{
    if (strcmp(s, "html") == 0)
        return HISTORY_HTML;
    return cmp_format_parse(s);
}

static void fmt_value(char *buf, size_t len, int metric, double v)
{
    if (metric == HISTORY_CUSTOM && !isnan(v))
        snprintf(buf, len, "%.6g", v);
    else
        cmp_fmt_value(buf, len, metric == HISTORY_CUSTOM ? CMP_TPS : metric, v);
}

/* "p = 1.2e-06" style, or "p < 1e-300" when it underflows. */
static void fmt_p(char *buf, size_t len, double p)
{
    if (p <= 0)
        snprintf(buf, len, "p < 1e-300");
    else
        snprintf(buf, len, "p = %.2g", p);
}

void history_fmt_what(char *buf, size_t len, const struct history_what *w)
{
    size_t o = 0;
    int shown = 0;

    buf[0] = '\0';
    if (!w) {
        snprintf(buf, len, "(not worked out)");
        return;
    }
    if (w->err[0]) {
        snprintf(buf, len, "cannot say: %s", w->err);
        return;
    }
    for (int i = 0; i < w->n && o < len; i++) {
        int k;
        if (w->d[i].derived)
            continue;
        k = snprintf(buf + o, len - o, "%s%s: %s -> %s", shown ? "; " : "", w->d[i].key,
                     w->d[i].old, w->d[i].new_);
        if (k < 0)
            break;
        o += (size_t)k;
        shown++;
    }
    if (!shown)
        snprintf(buf, len,
                 "nothing that tpccbench records (the tool, config and environment "
                 "are as in the run before)");
}

void history_fmt_waits(char *buf, size_t len, const struct history_what *w)
{
    char line[512];

    buf[0] = '\0';
    if (!w || w->err[0])
        return;
    if (!w->has_wait) {
        snprintf(buf, len, "%s", w->wait_why);
        return;
    }
    wdiff_fmt(line, sizeof(line), &w->wait, 1);
    snprintf(buf, len, "%s: %s (the largest change of a wait's share)", w->wait.type, line);
}

void history_fmt_cp(char *buf, size_t len, const struct history *h, int series, int metric, int cp)
{
    const struct history_series *s = &h->series[series];
    const struct history_metric *m = &s->m[metric];
    const struct history_cp *c = &m->cps[cp];
    const struct history_rec *r = &h->set.recs[s->runs[c->run]];
    char mn[128], a[32], b[32], ci[64] = "", p[32];

    history_metric_name(h, m->metric, mn, sizeof(mn));
    fmt_value(a, sizeof(a), m->metric, c->pt.med_before);
    fmt_value(b, sizeof(b), m->metric, c->pt.med_after);
    if (!isnan(c->pt.ci_lo))
        snprintf(ci, sizeof(ci), " [%+.1f, %+.1f]", c->pt.ci_lo * 100, c->pt.ci_hi * 100);
    fmt_p(p, sizeof(p), c->pt.p);
    snprintf(buf, len, "run %d '%s' (%s): %s %s -> %s, %+.1f %%%s, %s", c->run + 1, r->name,
             r->label, mn, a, b, c->pt.change * 100, ci, p);
}

/* The state of a figure without change points, as a sentence. */
static void fmt_state(char *buf, size_t len, const struct history *h, const struct history_metric *m)
{
    int min_runs = h->o.ed.min_runs < 2 ? 2 : h->o.ed.min_runs;

    if (m->state == HISTORY_NO_DATA)
        snprintf(buf, len, "not in these records");
    else if (m->state == HISTORY_TOO_SHORT)
        snprintf(buf, len,
                 "too short to judge: %d runs, needs at least %d (%d on each side of a change, "
                 "--min-runs)",
                 m->n, 2 * min_runs, min_runs);
    else if (m->state == HISTORY_NO_CHANGE)
        snprintf(buf, len, "no change point over %d runs", m->n);
    else
        snprintf(buf, len, "%d change point%s over %d runs", m->n_cps, m->n_cps > 1 ? "s" : "",
                 m->n);
}

/* The state's word for csv and json. */
static const char *state_name(int state)
{
    static const char *const names[] = { "no data", "too short", "no change", "changed" };

    return names[state];
}

/* Whether run i of s starts a change point of any figure. */
static int is_cp(const struct history_series *s, int i)
{
    for (int k = 0; k < s->n_m; k++)
        for (int c = 0; c < s->m[k].n_cps; c++)
            if (s->m[k].cps[c].run == i)
                return 1;
    return 0;
}

/* Whether the table shows run i (a long series: the first, around change points, the newest). */
static int shown(const struct history_series *s, int i)
{
    return s->n <= TABLE_ALL || i == 0 || i >= s->n - TABLE_NEWEST || is_cp(s, i) ||
           (i + 1 < s->n && is_cp(s, i + 1));
}

static void print_skipped(FILE *out, const struct history *h, const char *lead)
{
    const struct history_set *st = &h->set;
    int n = 0;

    for (int i = 0; i < st->n_reasons; i++)
        n += st->n_reason[i];
    fprintf(out, "%s%d run records read, %d in %d series", lead, st->n_read, st->n, h->n_series);
    if (st->n_filtered)
        fprintf(out, ", %d outside --label/--since/--until", st->n_filtered);
    if (n) {
        fprintf(out, "; %d left out:", n);
        for (int i = 0; i < st->n_reasons; i++)
            fprintf(out, "%s %d %s", i ? "," : "", st->n_reason[i], st->reasons[i]);
    }
    fputc('\n', out);
}

static void text_table(FILE *out, const struct history *h, const struct history_series *s, int md)
{
    char head[HISTORY_MAX_METRICS][64];
    int skipped = 0;

    for (int k = 0; k < s->n_m; k++)
        history_metric_name(h, s->m[k].metric, head[k], sizeof(head[k]));
    if (md) {
        fprintf(out, "| # | run | started | label |");
        for (int k = 0; k < s->n_m; k++)
            fprintf(out, " %s |", head[k]);
        fprintf(out, "\n|---:|---|---|---|");
        for (int k = 0; k < s->n_m; k++)
            fprintf(out, "---:|");
        fputc('\n', out);
    } else {
        fprintf(out, "  %5s  %-32s %-21s %-16s", "#", "run", "started", "label");
        for (int k = 0; k < s->n_m; k++)
            fprintf(out, " %13s", head[k]);
        fputc('\n', out);
    }
    for (int i = 0; i < s->n; i++) {
        const struct history_rec *r = &h->set.recs[s->runs[i]];
        if (!shown(s, i)) {
            skipped++;
            continue;
        }
        if (skipped) {
            if (md)
                fprintf(out, "| ... | (%d runs not shown) | | |\n", skipped);
            else
                fprintf(out, "  %5s  (%d runs not shown: see --format csv or json)\n", "...",
                        skipped);
        }
        skipped = 0;
        if (md)
            fprintf(out, "| %d%s | %s | %s | %s |", i + 1, is_cp(s, i) ? " ◆" : "", r->name,
                    r->started, r->label);
        else
            fprintf(out, "%c %5d  %-32s %-21s %-16.16s", is_cp(s, i) ? '*' : ' ', i + 1, r->name,
                    r->started, r->label);
        for (int k = 0; k < s->n_m; k++) {
            char v[32];
            double x = s->m[k].metric == HISTORY_CUSTOM ? r->custom : r->v[s->m[k].metric];
            fmt_value(v, sizeof(v), s->m[k].metric, x);
            fprintf(out, md ? " %s |" : " %13s", v);
        }
        fputc('\n', out);
    }
}

/* The change points of s, figure by figure, with what changed at each. */
static void text_points(FILE *out, const struct history *h, int si, int md)
{
    const struct history_series *s = &h->series[si];
    char line[1024], what[2048], mn[128], waits[640];

    fprintf(out,
            md ? "\n**Change points** (E-Divisive with means, Welch's p < %g, change at least "
                 "%g %%, at least %d runs on each side):\n\n"
               : "\nchange points (E-Divisive with means, Welch's p < %g, change at least %g "
                 "%%, at least %d runs on each side):\n",
            h->o.ed.alpha, h->o.ed.min_change * 100, h->o.ed.min_runs);
    for (int k = 0; k < s->n_m; k++) {
        const struct history_metric *m = &s->m[k];
        history_metric_name(h, m->metric, mn, sizeof(mn));
        if (m->n_cps == 0) {
            fmt_state(line, sizeof(line), h, m);
            fprintf(out, md ? "- `%s`: %s\n" : "  %s: %s\n", mn, line);
            continue;
        }
        for (int c = 0; c < m->n_cps; c++) {
            history_fmt_cp(line, sizeof(line), h, si, k, c);
            history_fmt_what(what, sizeof(what), history_what_at(s, m->cps[c].run));
            history_fmt_waits(waits, sizeof(waits), history_what_at(s, m->cps[c].run));
            if (md)
                fprintf(out, "- at %s\n  - what changed: %s\n", line, what);
            else
                fprintf(out, "  at %s\n      what changed: %s\n", line, what);
            if (waits[0])
                fprintf(out, md ? "  - waits: %s\n" : "      waits: %s\n", waits);
        }
    }
}

static void print_text(FILE *out, const struct history *h, int md)
{
    print_skipped(out, h, md ? "" : "history: ");
    for (int s = 0; s < h->n_series; s++) {
        const struct history_series *sr = &h->series[s];
        const struct history_rec *a = &h->set.recs[sr->runs[0]],
                              *b = &h->set.recs[sr->runs[sr->n - 1]];
        if (md)
            fprintf(out, "\n## Series %d: %s\n\n%d run%s, %s .. %s\n\n", s + 1, sr->key, sr->n,
                    sr->n == 1 ? "" : "s", a->started, b->started);
        else
            fprintf(out, "\nseries %d: %s\n%d run%s, %s .. %s (* starts a change point)\n", s + 1,
                    sr->key, sr->n, sr->n == 1 ? "" : "s", a->started, b->started);
        text_table(out, h, sr, md);
        text_points(out, h, s, md);
    }
}

static void csv_num(FILE *out, double v, int last)
{
    if (!isnan(v) && !isinf(v))
        fprintf(out, "%.6g", v);
    fputc(last ? '\n' : ',', out);
}

/* One row per change point, and one per figure without any. */
static void print_csv(FILE *out, const struct history *h)
{
    fputs("series,benchmark,metric,state,runs,run_index,run,started,label,median_before,"
          "median_after,change_pct,ci_low_pct,ci_high_pct,p_value,what_changed,waits\n",
          out);
    for (int s = 0; s < h->n_series; s++) {
        const struct history_series *sr = &h->series[s];
        for (int k = 0; k < sr->n_m; k++) {
            const struct history_metric *m = &sr->m[k];
            char mn[128], what[2048];
            history_metric_name(h, m->metric, mn, sizeof(mn));
            for (int c = 0; c < (m->n_cps ? m->n_cps : 1); c++) {
                fprintf(out, "%d,", s + 1);
                cmp_csv_field(out, sr->key, 0);
                cmp_csv_field(out, mn, 0);
                fprintf(out, "%s,%d,", state_name(m->state), m->n);
                if (!m->n_cps) {
                    fputs(",,,,,,,,,,,\n", out);
                    continue;
                }
                {
                    const struct history_cp *cp = &m->cps[c];
                    const struct history_rec *r = &h->set.recs[sr->runs[cp->run]];
                    fprintf(out, "%d,", cp->run + 1);
                    cmp_csv_field(out, r->name, 0);
                    cmp_csv_field(out, r->started, 0);
                    cmp_csv_field(out, r->label, 0);
                    csv_num(out, cp->pt.med_before, 0);
                    csv_num(out, cp->pt.med_after, 0);
                    csv_num(out, cp->pt.change * 100, 0);
                    csv_num(out, cp->pt.ci_lo * 100, 0);
                    csv_num(out, cp->pt.ci_hi * 100, 0);
                    csv_num(out, cp->pt.p, 0);
                    history_fmt_what(what, sizeof(what), history_what_at(sr, cp->run));
                    cmp_csv_field(out, what, 0);
                    history_fmt_waits(what, sizeof(what), history_what_at(sr, cp->run));
                    cmp_csv_field(out, what, 1);
                }
            }
        }
    }
}

static json_t *json_what(const struct history_what *w)
{
    json_t *a = json_array();

    for (int i = 0; w && i < w->n; i++)
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:b}", "key", w->d[i].key, "path",
                                           w->d[i].path, "old", w->d[i].old, "new", w->d[i].new_,
                                           "derived", w->d[i].derived));
    return a;
}

static json_t *json_metric(const struct history *h, const struct history_series *sr,
                           const struct history_metric *m)
{
    char mn[128], st[256];
    json_t *o, *cps = json_array();

    history_metric_name(h, m->metric, mn, sizeof(mn));
    fmt_state(st, sizeof(st), h, m);
    for (int c = 0; c < m->n_cps; c++) {
        const struct history_cp *cp = &m->cps[c];
        const struct history_rec *r = &h->set.recs[sr->runs[cp->run]];
        const struct history_what *w = history_what_at(sr, cp->run);
        json_t *j = json_pack(
            "{s:i, s:s, s:s, s:s, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "run_index",
            cp->run + 1, "run", r->name, "dir", r->dir, "started", r->started, "label", r->label,
            "runs_before", cp->pt.at - cp->pt.from, "runs_after",
            json_integer(cp->pt.to - cp->pt.at), "median_before", cmp_jnum(cp->pt.med_before),
            "median_after", cmp_jnum(cp->pt.med_after), "change_pct", cmp_jnum(cp->pt.change * 100),
            "ci_low_pct", cmp_jnum(cp->pt.ci_lo * 100), "ci_high_pct", cmp_jnum(cp->pt.ci_hi * 100),
            "p_value", cmp_jnum(cp->pt.p));
        json_object_set_new(j, "changes", json_what(w));
        json_object_set_new(j, "n_changes", json_integer(w ? w->n_changes : 0));
        if (w && w->err[0])
            json_object_set_new(j, "changes_error", json_string(w->err));
        if (w && w->has_wait)
            json_object_set_new(j, "waits", json_pack("{s:o}", "largest", wdiff_json(&w->wait)));
        else if (w && w->wait_why[0])
            json_object_set_new(j, "waits", json_pack("{s:s}", "why", w->wait_why));
        json_array_append_new(cps, j);
    }
    o = json_pack("{s:s, s:s, s:i, s:s}", "metric", mn, "state", state_name(m->state), "runs", m->n,
                  "verdict", st);
    json_object_set_new(o, "change_points", cps);
    return o;
}

static json_t *json_series(const struct history *h, int s)
{
    const struct history_series *sr = &h->series[s];
    json_t *runs = json_array(), *ms = json_array();

    for (int i = 0; i < sr->n; i++) {
        const struct history_rec *r = &h->set.recs[sr->runs[i]];
        json_t *v = json_object();
        for (int k = 0; k < sr->n_m; k++) {
            char mn[128];
            history_metric_name(h, sr->m[k].metric, mn, sizeof(mn));
            json_object_set_new(
                v, mn,
                cmp_jnum(sr->m[k].metric == HISTORY_CUSTOM ? r->custom : r->v[sr->m[k].metric]));
        }
        json_array_append_new(runs, json_pack("{s:i, s:s, s:s, s:s, s:s, s:o}", "index", i + 1,
                                              "run", r->name, "dir", r->dir, "started", r->started,
                                              "label", r->label, "values", v));
    }
    for (int k = 0; k < sr->n_m; k++)
        json_array_append_new(ms, json_metric(h, sr, &sr->m[k]));
    return json_pack("{s:i, s:s, s:i, s:o, s:o}", "series", s + 1, "benchmark", sr->key, "n_runs",
                     sr->n, "metrics", ms, "runs", runs);
}

static void print_json(FILE *out, const struct history *h, const struct history_trip *trips, int n_trips)
{
    json_t *doc = json_object(), *series = json_array(), *skipped = json_array(),
           *gate = json_array();

    for (int i = 0; i < h->set.n_reasons; i++)
        json_array_append_new(
            skipped, json_pack("{s:s, s:i}", "why", h->set.reasons[i], "n", h->set.n_reason[i]));
    for (int s = 0; s < h->n_series; s++)
        json_array_append_new(series, json_series(h, s));
    for (int i = 0; i < n_trips; i++) {
        const struct history_trip *t = &trips[i];
        const struct history_series *sr = &h->series[t->series];
        const struct history_cp *cp = &sr->m[t->metric].cps[t->cp];
        json_array_append_new(
            gate, json_pack("{s:s, s:i, s:s, s:o, s:o, s:o, s:o, s:o}", "rule", t->rule->text,
                            "series", t->series + 1, "run", h->set.recs[sr->runs[cp->run]].name,
                            "old", cmp_jnum(t->v.old_v), "new", cmp_jnum(t->v.new_v), "change_pct",
                            cmp_jnum(t->v.change_pct), "ci_low_pct", cmp_jnum(t->v.ci_lo_pct),
                            "ci_high_pct", cmp_jnum(t->v.ci_hi_pct)));
    }
    json_object_set_new(doc, "method",
                        json_pack("{s:s, s:f, s:f, s:i, s:i}", "name",
                                  "E-Divisive with means, splits kept by Welch's t test", "alpha",
                                  h->o.ed.alpha, "min_change_pct", h->o.ed.min_change * 100,
                                  "min_runs", h->o.ed.min_runs, "window", h->o.window));
    json_object_set_new(doc, "records_read", json_integer(h->set.n_read));
    json_object_set_new(doc, "records_used", json_integer(h->set.n));
    json_object_set_new(doc, "records_filtered", json_integer(h->set.n_filtered));
    json_object_set_new(doc, "skipped", skipped);
    json_object_set_new(doc, "series", series);
    json_object_set_new(doc, "gate", gate);
    cmp_json_print(out, doc);
}

/* ------------------------------------------------------------------ */
/* HTML                                                                 */
/* ------------------------------------------------------------------ */

static void esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

static const char html_css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}"
    "main{max-width:1100px;margin:0 auto;padding:16px}h1{font-size:22px}h2{font-size:18px;"
    "margin-top:28px}h3{font-size:15px;margin:16px 0 4px}.sub{color:#666}"
    "svg.chart{background:#fff;border:1px solid #ddd;display:block;margin:4px 0}"
    ".pt{fill:#3465a4}.pt.after{fill:#c4391d}.med{stroke:#2e7d32;stroke-width:2}"
    ".cp{stroke:#c4391d;stroke-dasharray:4 3;stroke-width:1.5}.axis{stroke:#999}"
    "text{font-size:11px;fill:#555}table{border-collapse:collapse;margin:6px 0}"
    "td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}td.num{text-align:right}"
    "code{background:#eee;padding:0 3px}.verdict{color:#555}.on{stroke-width:3}\n";

static const char html_script[] =
    "(function(){var b=document.body,c=document.querySelectorAll('svg.chart'),n=0;"
    "c.forEach(function(s){var k=s.querySelectorAll('circle.pt').length;"
    "s.setAttribute('data-drawn',k);n+=k;"
    "s.querySelectorAll('line.cp').forEach(function(l){l.addEventListener('mouseenter',"
    "function(){l.classList.add('on');});l.addEventListener('mouseleave',function(){"
    "l.classList.remove('on');});});});"
    "b.setAttribute('data-charts',c.length);b.setAttribute('data-points',n);"
    "b.setAttribute('data-ready','1');})();\n";

/* The chart of figure m of series s: its runs, segment medians, change points. */
static void html_chart(FILE *out, const struct history *h, int si, const struct history_metric *m)
{
    const double W = 1000, H = 220, L = 60, R = 10, T = 10, B = 24;
    double lo = INFINITY, hi = -INFINITY, span;
    char mn[128];

    history_metric_name(h, m->metric, mn, sizeof(mn));
    for (int i = 0; i < m->n; i++) {
        lo = m->x[i] < lo ? m->x[i] : lo;
        hi = m->x[i] > hi ? m->x[i] : hi;
    }
    span = hi > lo ? hi - lo : (fabs(hi) > 0 ? fabs(hi) : 1);
    lo -= span * 0.05;
    hi += span * 0.05;
    span = hi - lo;
#define XP(i) (L + (W - L - R) * (m->n > 1 ? (double)(i) / (m->n - 1) : 0.5))
#define YP(v) (T + (H - T - B) * (1 - ((v)-lo) / span))
    fprintf(out, "<svg class=\"chart\" data-chart=\"s%d-", si + 1);
    esc(out, mn);
    fprintf(out,
            "\" data-points=\"%d\" data-changes=\"%d\" viewBox=\"0 0 %.0f %.0f\" "
            "width=\"100%%\" role=\"img\"><title>",
            m->n, m->n_cps, W, H);
    esc(out, mn);
    fprintf(out, " by run</title>");
    fprintf(out, "<line class=\"axis\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>", L, H - B,
            W - R, H - B);
    fprintf(out, "<text x=\"2\" y=\"%.0f\">%.4g</text><text x=\"2\" y=\"%.0f\">%.4g</text>", T + 10,
            hi, H - B, lo);
    fprintf(out,
            "<text x=\"%.0f\" y=\"%.0f\">run 1</text><text x=\"%.0f\" y=\"%.0f\" "
            "text-anchor=\"end\">run %d</text>",
            L, H - 6, W - R, H - 6, m->n ? m->at[m->n - 1] + 1 : 0);
    for (int c = 0; c <= m->n_cps; c++) {
        int from = c ? m->cps[c - 1].pt.at : 0, to = c < m->n_cps ? m->cps[c].pt.at : m->n;
        double med = ed_median(m->x + from, to - from);
        fprintf(out,
                "<line class=\"med\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
                "<title>median %.6g over runs %d..%d</title></line>",
                XP(from), YP(med), XP(to - 1), YP(med), med, m->at[from] + 1, m->at[to - 1] + 1);
    }
    for (int c = 0; c < m->n_cps; c++) {
        double x = (XP(m->cps[c].pt.at) + XP(m->cps[c].pt.at - 1)) / 2;
        fprintf(out,
                "<line class=\"cp\" data-run=\"%d\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" "
                "y2=\"%.0f\"><title>change point at run %d: %+.1f %%</title></line>",
                m->cps[c].run + 1, x, T, x, H - B, m->cps[c].run + 1, m->cps[c].pt.change * 100);
    }
    for (int i = 0; i < m->n; i++) {
        const struct history_rec *r = &h->set.recs[h->series[si].runs[m->at[i]]];
        fprintf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>run %d ", XP(i),
                YP(m->x[i]), m->at[i] + 1);
        esc(out, r->name);
        fprintf(out, ": %.6g</title></circle>", m->x[i]);
    }
#undef XP
#undef YP
    fputs("</svg>\n", out);
}

static void html_series(FILE *out, const struct history *h, int si)
{
    const struct history_series *s = &h->series[si];
    char line[1024], what[2048], mn[128];

    fprintf(out, "<section class=\"series\" id=\"series-%d\"><h2>Series %d: ", si + 1, si + 1);
    esc(out, s->key);
    fprintf(out, "</h2><p class=\"sub\">%d runs, ", s->n);
    esc(out, h->set.recs[s->runs[0]].started);
    fputs(" &ndash; ", out);
    esc(out, h->set.recs[s->runs[s->n - 1]].started);
    fputs("</p>\n", out);
    for (int k = 0; k < s->n_m; k++) {
        const struct history_metric *m = &s->m[k];
        history_metric_name(h, m->metric, mn, sizeof(mn));
        fmt_state(line, sizeof(line), h, m);
        fputs("<h3><code>", out);
        esc(out, mn);
        fputs("</code>: <span class=\"verdict\">", out);
        esc(out, line);
        fputs("</span></h3>\n", out);
        if (m->n > 0)
            html_chart(out, h, si, m);
        if (!m->n_cps)
            continue;
        fputs("<table class=\"cps\"><tr><th>run</th><th>label</th><th>before</th><th>after</th>"
              "<th>change</th><th>95 % CI</th><th>p</th><th>what changed</th></tr>\n",
              out);
        for (int c = 0; c < m->n_cps; c++) {
            const struct history_cp *cp = &m->cps[c];
            const struct history_rec *r = &h->set.recs[s->runs[cp->run]];
            char a[32], b[32], p[32];
            fmt_value(a, sizeof(a), m->metric, cp->pt.med_before);
            fmt_value(b, sizeof(b), m->metric, cp->pt.med_after);
            fmt_p(p, sizeof(p), cp->pt.p);
            history_fmt_what(what, sizeof(what), history_what_at(s, cp->run));
            fprintf(out, "<tr data-run=\"%d\"><td>%d ", cp->run + 1, cp->run + 1);
            esc(out, r->name);
            fputs("</td><td>", out);
            esc(out, r->label);
            fprintf(out,
                    "</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td "
                    "class=\"num\">%+.1f %%</td><td class=\"num\">",
                    a, b, cp->pt.change * 100);
            if (!isnan(cp->pt.ci_lo))
                fprintf(out, "[%+.1f, %+.1f]", cp->pt.ci_lo * 100, cp->pt.ci_hi * 100);
            fprintf(out, "</td><td class=\"num\">%s</td><td class=\"what\">", p + 4);
            esc(out, what);
            fputs("</td></tr>\n", out);
        }
        fputs("</table>\n", out);
    }
    fputs("</section>\n", out);
}

static void print_html(FILE *out, const struct history *h)
{
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"generator\" content=\"tpccbench\">\n<title>tpccbench history"
            "</title>\n<style>\n%s</style>\n</head>\n<body data-ready=\"0\">\n<main>\n"
            "<header><h1>tpccbench history</h1><p class=\"sub\">",
            html_css);
    print_skipped(out, h, "");
    fprintf(out,
            "</p><p class=\"sub\">Change points: E-Divisive with means, each kept when "
            "Welch's t test between the runs either side gives p &lt; %g and the change "
            "of the medians is at least %g %%, with at least %d runs on each side. Green: "
            "the median of each segment; red dashes: change points.</p></header>\n",
            h->o.ed.alpha, h->o.ed.min_change * 100, h->o.ed.min_runs);
    for (int s = 0; s < h->n_series; s++)
        html_series(out, h, s);
    fprintf(out, "</main>\n<script>\n%s</script>\n</body></html>\n", html_script);
}

void history_print(FILE *out, const struct history *h, int format, const struct history_trip *trips,
                int n_trips)
{
    switch (format) {
    case CMP_MARKDOWN:
        print_text(out, h, 1);
        break;
    case CMP_CSV:
        print_csv(out, h);
        break;
    case CMP_JSON:
        print_json(out, h, trips, n_trips);
        break;
    case HISTORY_HTML:
        print_html(out, h);
        break;
    default:
        print_text(out, h, 0);
        break;
    }
}
