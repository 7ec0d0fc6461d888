/*
 * compare.c - read run records, group them into steps, compute gains, noise
 * and differences, evaluate regression rules, print the step table (see
 * compare.h for the definitions).  Reads files; prints only to the FILE the
 * caller gives; never exits.
 */
#include "results/compare.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fmt.h"
#include "core/secret.h"
#include "results/record.h"
#include "results/waitdiff.h"

#define NONE "(none)"

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

json_t *cmp_jpath(json_t *doc, const char *path)
{
    char key[128];

    while (doc && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof(key))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        doc = json_is_object(doc) ? json_object_get(doc, key) : NULL;
        path += n;
        if (*path == '.')
            path++;
    }
    return doc;
}

static int add_warning(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_warning(struct cmp *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    if (c->n_warnings >= CMP_MAX_WARNINGS)
        return 0;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    c->warnings[c->n_warnings] = strdup(buf);
    if (c->warnings[c->n_warnings])
        c->n_warnings++;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ */
/* Metrics                                                             */
/* ------------------------------------------------------------------ */

const char *cmp_metric_name(int m, char *buf, size_t len)
{
    if (m == CMP_LOAD)
        snprintf(buf, len, "load_time");
    else if (m == CMP_NOTPM)
        snprintf(buf, len, "notpm");
    else if (m == CMP_TPS)
        snprintf(buf, len, "tps");
    else if (m >= CMP_P90 && m < CMP_P90 + TX_NTYPES)
        snprintf(buf, len, "p90.%s", tx_name((enum tx_type)(m - CMP_P90)));
    else if (m >= CMP_P99 && m < CMP_P99 + TX_NTYPES)
        snprintf(buf, len, "p99.%s", tx_name((enum tx_type)(m - CMP_P99)));
    else if (m == CMP_CPU)
        snprintf(buf, len, "cpu_pct");
    else if (m == CMP_IOWAIT)
        snprintf(buf, len, "iowait_pct");
    else if (m == CMP_DISK)
        snprintf(buf, len, "disk_mb_per_s");
    else if (m == CMP_DBH_CPU)
        snprintf(buf, len, "db_host_cpu_pct");
    else if (m == CMP_DBH_IOWAIT)
        snprintf(buf, len, "db_host_iowait_pct");
    else if (m == CMP_DBH_DISK)
        snprintf(buf, len, "db_host_disk_mb_per_s");
    else
        snprintf(buf, len, "?");
    return buf;
}

double cmp_gain(int m, double old_v, double new_v)
{
    if (isnan(old_v) || isnan(new_v))
        return NAN;
    if (m == CMP_LOAD)
        return new_v > 0 ? old_v / new_v - 1.0 : NAN;
    return old_v > 0 ? new_v / old_v - 1.0 : NAN;
}

/* The raw change new / old - 1 (the gate's measure for every metric). */
static double raw_change(double old_v, double new_v)
{
    if (isnan(old_v) || isnan(new_v) || old_v <= 0)
        return NAN;
    return new_v / old_v - 1.0;
}

const int cmp_sig_metrics[CMP_NSIG] = { CMP_NOTPM, CMP_TPS, CMP_LOAD, CMP_P90 + TX_NEW_ORDER };

int cmp_sig_kind(int m)
{
    if (m == CMP_LOAD)
        return SIG_DOWN;
    if (m == CMP_NOTPM || m == CMP_TPS)
        return SIG_UP;
    return SIG_CHANGE;
}

/* The figures m of step s's runs into v (at most SIG_MAX_N); their count. */
static int step_values(const struct cmp *c, int s, int m, double *v)
{
    const struct cmp_step *st = &c->steps[s];
    int n = 0;

    for (int i = 0; i < st->n && n < SIG_MAX_N; i++)
        v[n++] = c->runs[st->first + i].v[m];
    return n;
}

void cmp_sig(const struct cmp *c, int s, int base, int m, struct sig_result *r)
{
    double a[SIG_MAX_N], b[SIG_MAX_N];
    int na = step_values(c, base, m, a), nb = step_values(c, s, m, b);

    sig_compare(a, na, b, nb, cmp_sig_kind(m), r);
}

int cmp_any_sig(const struct cmp *c)
{
    for (int s = 1; s < c->n_steps; s++)
        if (c->steps[s].n > 1 && (c->steps[s - 1].n > 1 || c->steps[0].n > 1))
            return 1;
    return 0;
}

void cmp_fmt_ci(char *buf, size_t len, const struct sig_result *r)
{
    if (isnan(r->lo) || isnan(r->hi))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "[%+.1f, %+.1f]", r->lo * 100.0, r->hi * 100.0);
}

int cmp_within_noise(const struct cmp *c, int s, int base, int m)
{
    const struct cmp_step *a = &c->steps[s], *b = &c->steps[base];
    struct sig_result r;

    if (s == base || (a->n < 2 && b->n < 2))
        return 0;
    if (isnan(a->lo[m]) || isnan(b->lo[m]))
        return 0;
    if (a->n > 1 && b->n > 1) {
        cmp_sig(c, s, base, m, &r);
        if (r.verdict != SIG_NONE)
            return r.verdict == SIG_NOISE;
    }
    return !(a->hi[m] < b->lo[m] || a->lo[m] > b->hi[m]);
}

void cmp_fmt_value(char *buf, size_t len, int m, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (m == CMP_NOTPM)
        snprintf(buf, len, "%.0f", v);
    else if (m == CMP_TPS || m >= CMP_CPU)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.2f", v);
}

void cmp_fmt_pct(char *buf, size_t len, double frac)
{
    if (isnan(frac) || isinf(frac))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.1f %%", frac * 100.0);
}

/* ------------------------------------------------------------------ */
/* Reading records                                                     */
/* ------------------------------------------------------------------ */

/* What to do about a record that parses but is not what tpccbench writes. */
#define DAMAGED "the record is damaged: leave it out, or run that step again"

/* The largest run.json read; real ones are tens of kilobytes. */
#define RECORD_MAX_BYTES (64L * 1024 * 1024)

void cmp_run_release(struct cmp_run *r)
{
    json_decref(r->doc);
    r->doc = NULL;
}

/* What v is, for "(got ...)": its JSON text cut at 40 characters, or "nothing". */
static const char *json_got(json_t *v, char *buf, size_t size)
{
    char *t;

    if (!v) {
        snprintf(buf, size, "nothing");
        return buf;
    }
    t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    if (t && strlen(t) > 40)
        snprintf(buf, size, "%.37s...", t);
    else
        snprintf(buf, size, "%s", t ? t : "?");
    free(t);
    return buf;
}

/* The value at path, which must be of the JSON type want when present ("" when absent). */
static int get_typed(json_t *doc, const char *path, json_type want, json_t **out, const char *name,
                     struct err *e)
{
    static const char *const what[] = {
        [JSON_OBJECT] = "an object",    [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
        [JSON_INTEGER] = "an integer",  [JSON_REAL] = "a number",  [JSON_TRUE] = "true or false",
        [JSON_FALSE] = "true or false", [JSON_NULL] = "null",
    };
    json_t *v = cmp_jpath(doc, path);
    char got[48];

    *out = v;
    if (!v || json_typeof(v) == want || (want == JSON_TRUE && json_is_boolean(v)))
        return 0;
    return err_set(e, E_USAGE, "%s: '%s' must be %s (got %s): " DAMAGED, name, path, what[want],
                   json_got(v, got, sizeof(got)));
}

/* A string at path, "" when absent; E_USAGE when present but not a string. */
static int get_str(json_t *doc, const char *path, const char **out, const char *name, struct err *e)
{
    json_t *v;
    int rc = get_typed(doc, path, JSON_STRING, &v, name, e);

    *out = v ? json_string_value(v) : "";
    return rc;
}

/* A number at path, or NAN; E_USAGE when present but not a number (null counts as absent). */
static int get_num(json_t *doc, const char *path, double *out, const char *name, struct err *e)
{
    json_t *v = cmp_jpath(doc, path);
    char got[48];

    *out = NAN;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return err_set(e, E_USAGE, "%s: '%s' must be a number (got %s): " DAMAGED, name, path,
                       json_got(v, got, sizeof(got)));
    *out = json_number_value(v);
    return 0;
}

/* Redact the string at path in place (connection strings, settings). */
static void redact_at(json_t *obj, const char *key, int mask_whole)
{
    json_t *v = json_object_get(obj, key);
    char out[4096];

    if (!json_is_string(v))
        return;
    if (mask_whole && json_string_value(v)[0])
        snprintf(out, sizeof(out), "%s", SECRET_MASK);
    else if (secret_redact(json_string_value(v), out, sizeof(out)) == 0)
        return;
    json_string_set(v, out);
}

static void metrics_why(json_t *doc, struct cmp_run *r);

/*
 * What compare and report show comes from the record; a record written by
 * an older tpccbench (whose redaction missed ODBC's PWD=) or edited by hand
 * may hold a password: redact its connection strings and server settings
 * again on reading, so no output of ours repeats one.
 */
static void redact_record(json_t *doc)
{
    json_t *db = cmp_jpath(doc, "config.database"), *set = cmp_jpath(doc, "environment.dbms.settings");
    const char *key;
    json_t *v;

    if (json_is_object(db)) {
        redact_at(db, "conninfo", 0);
        redact_at(db, "dsn", 0);
    }
    if (json_is_object(set))
        json_object_foreach(set, key, v) redact_at(set, key, secret_setting_name(key));
}

int cmp_run_from_json(struct cmp_run *r, json_t *doc, const char *name, struct err *e)
{
    /* The sections read, with their types; each may be absent unless checked below. */
    static const struct {
        const char *path;
        json_type type;
    } shape[] = {
        { "tool", JSON_OBJECT },         { "config", JSON_OBJECT },
        { "environment", JSON_OBJECT },  { "load", JSON_OBJECT },
        { "run", JSON_OBJECT },          { "run.transactions", JSON_OBJECT },
        { "run.validity", JSON_OBJECT }, { "run.validity.valid", JSON_TRUE },
    };
    json_t *ver, *v;
    const char *phase;
    char got[48];
    int rc;

    r->doc = doc;
    r->label = r->change = r->status = r->started = "";
    redact_record(doc);
    for (int m = 0; m < CMP_NMETRICS; m++)
        r->v[m] = NAN;
    if (!json_is_object(doc))
        return err_set(e, E_USAGE,
                       "%s: not a tpccbench run record: the JSON is %s, not an object; give a "
                       "run folder or its run.json",
                       name, json_is_array(doc) ? "an array" : "a single value");
    for (size_t i = 0; i < sizeof(shape) / sizeof(shape[0]); i++)
        if ((rc = get_typed(doc, shape[i].path, shape[i].type, &v, name, e)) < 0)
            return rc;
    ver = cmp_jpath(doc, "tool.record_version");
    if (!ver)
        return err_set(e, E_USAGE,
                       "%s: not a tpccbench run record (no tool.record_version); give a run "
                       "folder or its run.json",
                       name);
    if (!json_is_integer(ver))
        return err_set(e, E_USAGE,
                       "%s: 'tool.record_version' must be an integer (got %s): " DAMAGED, name,
                       json_got(ver, got, sizeof(got)));
    if (json_integer_value(ver) > RECORD_VERSION)
        return err_set(e, E_USAGE,
                       "%s: record_version %lld is newer than this tpccbench reads (%d); upgrade "
                       "tpccbench",
                       name, (long long)json_integer_value(ver), RECORD_VERSION);
    if (json_integer_value(ver) < 1)
        return err_set(e, E_USAGE,
                       "%s: record_version %lld is not valid (they start at 1): " DAMAGED, name,
                       (long long)json_integer_value(ver));
    /* Every record tpccbench writes has a label: steps are grouped by it. */
    if (!cmp_jpath(doc, "label"))
        return err_set(e, E_USAGE, "%s: 'label' is missing: " DAMAGED, name);
    if ((rc = get_str(doc, "label", &r->label, name, e)) < 0 ||
        (rc = get_str(doc, "change", &r->change, name, e)) < 0 ||
        (rc = get_str(doc, "status", &r->status, name, e)) < 0 ||
        (rc = get_str(doc, "started", &r->started, name, e)) < 0 ||
        (rc = get_str(doc, "load.phase_reached", &phase, name, e)) < 0)
        return rc;
    /* "running" says nothing by itself: its command may have died. */
    r->life = record_liveness(doc, r->status_buf, sizeof(r->status_buf));
    if (r->life != RECORD_ENDED)
        r->status = r->status_buf;
    if (strcmp(phase, "done") == 0 &&
        (rc = get_num(doc, "load.seconds", &r->v[CMP_LOAD], name, e)) < 0)
        return rc;
    if ((rc = get_num(doc, "run.notpm", &r->v[CMP_NOTPM], name, e)) < 0 ||
        (rc = get_num(doc, "run.tps", &r->v[CMP_TPS], name, e)) < 0)
        return rc;
    for (int t = 0; t < TX_NTYPES; t++) {
        char p[96];
        snprintf(p, sizeof(p), "run.transactions.%s", tx_name((enum tx_type)t));
        if ((rc = get_typed(doc, p, JSON_OBJECT, &v, name, e)) < 0)
            return rc;
        snprintf(p, sizeof(p), "run.transactions.%s.p90_ms", tx_name((enum tx_type)t));
        if ((rc = get_num(doc, p, &r->v[CMP_P90 + t], name, e)) < 0)
            return rc;
        snprintf(p, sizeof(p), "run.transactions.%s.p99_ms", tx_name((enum tx_type)t));
        if ((rc = get_num(doc, p, &r->v[CMP_P99 + t], name, e)) < 0)
            return rc;
    }
    /* What the machine did (run.json "metrics", records since the metrics). */
    {
        double user, sys, rd, wr;
        if ((rc = get_num(doc, "metrics.columns.cpu_user_pct.mean", &user, name, e)) < 0 ||
            (rc = get_num(doc, "metrics.columns.cpu_system_pct.mean", &sys, name, e)) < 0 ||
            (rc = get_num(doc, "metrics.columns.cpu_iowait_pct.mean", &r->v[CMP_IOWAIT], name, e)) <
                0 ||
            (rc = get_num(doc, "metrics.columns.disk_data_read_mb_per_s.mean", &rd, name, e)) < 0 ||
            (rc = get_num(doc, "metrics.columns.disk_data_write_mb_per_s.mean", &wr, name, e)) < 0)
            return rc;
        r->v[CMP_CPU] = user + sys; /* NAN when either is absent */
        r->v[CMP_DISK] = rd + wr;
        /* The database host's, where its node_exporter was scraped (NAN otherwise). */
        if ((rc = get_num(doc, "metrics.columns.db_host_cpu_user_pct.mean", &user, name, e)) < 0 ||
            (rc = get_num(doc, "metrics.columns.db_host_cpu_system_pct.mean", &sys, name, e)) < 0 ||
            (rc = get_num(doc, "metrics.columns.db_host_cpu_iowait_pct.mean",
                          &r->v[CMP_DBH_IOWAIT], name, e)) < 0 ||
            (rc = get_num(doc, "metrics.columns.db_host_disk_data_read_mb_per_s.mean", &rd, name,
                          e)) < 0 ||
            (rc = get_num(doc, "metrics.columns.db_host_disk_data_write_mb_per_s.mean", &wr, name,
                          e)) < 0)
            return rc;
        r->v[CMP_DBH_CPU] = user + sys;
        r->v[CMP_DBH_DISK] = rd + wr;
    }
    metrics_why(doc, r);
    return 0;
}

/* The note of metrics column col in doc, or NULL. */
static const char *column_note(json_t *doc, const char *col)
{
    char path[128];

    snprintf(path, sizeof(path), "metrics.columns.%s.note", col);
    return json_string_value(cmp_jpath(doc, path));
}

/* Why r's metrics figures are absent (r->metrics_note; "" when all are there):
 * no "metrics" at all (metrics off, a load's record, a record from before
 * tpccbench sampled them), or the columns' own notes. */
static void metrics_why(json_t *doc, struct cmp_run *r)
{
    const char *n;
    json_t *on = cmp_jpath(doc, "config.run.metrics");
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    r->metrics_note[0] = '\0';
    if (!isnan(r->v[CMP_CPU]) && !isnan(r->v[CMP_IOWAIT]) && !isnan(r->v[CMP_DISK]))
        return;
    if (!json_is_object(json_object_get(doc, "metrics"))) {
        if (json_is_false(on))
            snprintf(r->metrics_note, sizeof(r->metrics_note),
                     "no metrics: the run had run.metrics false");
        else if (r->life == RECORD_CRASHED || r->life == RECORD_RUNNING)
            snprintf(r->metrics_note, sizeof(r->metrics_note), "no metrics: %s",
                     r->life == RECORD_CRASHED ? "its command died before it wrote them"
                                               : "the run still runs");
        else if (kind && strcmp(kind, "load") == 0)
            snprintf(r->metrics_note, sizeof(r->metrics_note),
                     "no metrics: a load's record (metrics are sampled for runs)");
        else if (json_is_object(json_object_get(doc, "run")) && !cmp_jpath(doc, "run.notpm"))
            snprintf(r->metrics_note, sizeof(r->metrics_note),
                     "no metrics: the run ended before it measured anything");
        else
            snprintf(r->metrics_note, sizeof(r->metrics_note),
                     "no metrics in this record (written before tpccbench recorded them)");
        return;
    }
    if (isnan(r->v[CMP_CPU]) || isnan(r->v[CMP_IOWAIT])) {
        n = column_note(doc, isnan(r->v[CMP_IOWAIT]) ? "cpu_iowait_pct" : "cpu_user_pct");
        snprintf(r->metrics_note, sizeof(r->metrics_note), "CPU: %s",
                 n ? n : "not in the record's metrics");
    }
    if (isnan(r->v[CMP_DISK]) && !r->metrics_note[0]) {
        n = column_note(doc, "disk_data_write_mb_per_s");
        snprintf(r->metrics_note, sizeof(r->metrics_note), "data disk: %s",
                 n ? n : "not in the record's metrics");
    }
}

/*
 * Parse the record at r->path into r: the file must be a regular file of
 * reasonable size holding one JSON object.  A parse error names the line and
 * column, and "truncated" when the text ends too early (a run cut short).
 */
static int read_record(struct cmp_run *r, struct err *e)
{
    json_error_t je;
    struct stat st;
    json_t *doc;
    char eb[128];
    FILE *f;

    f = fopen(r->path, "rb");
    if (!f)
        return err_set(e, E_USAGE, "%s: cannot open: %s", r->path,
                       err_errno(errno, eb, sizeof(eb)));
    /* A pipe (as from <(ssh host cat run.json)) is read; its size says nothing. */
    if (fstat(fileno(f), &st) < 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
        fclose(f);
        return err_set(e, E_USAGE, "%s: not a file: give a run folder or its run.json", r->path);
    }
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        fclose(f);
        return err_set(e, E_USAGE,
                       "%s: the file is empty: the run that wrote it did not finish; leave it "
                       "out, or run that step again",
                       r->path);
    }
    if (st.st_size > RECORD_MAX_BYTES) {
        fclose(f);
        return err_set(e, E_USAGE,
                       "%s: %lld bytes is too large for a run record (at most %ld); is this the "
                       "right file?",
                       r->path, (long long)st.st_size, RECORD_MAX_BYTES);
    }
    doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    if (!doc && ferror(f)) {
        int saved = errno;
        fclose(f);
        return err_set(e, E_USAGE, "%s: cannot read: %s", r->path,
                       err_errno(saved, eb, sizeof(eb)));
    }
    fclose(f);
    if (!doc) {
        int truncated = json_error_code(&je) == json_error_premature_end_of_input;
        /* jansson names its own flag here; say what is in the file instead. */
        const char *why = json_error_code(&je) == json_error_null_character
                              ? "a string holds the NUL character \\u0000"
                              : je.text;
        return err_set(e, E_USAGE, "%s:%d:%d: %s (%s): %s", r->path, je.line > 0 ? je.line : 1,
                       je.column > 0 ? je.column : 1,
                       truncated ? "truncated JSON" : "not valid JSON", why,
                       truncated ? "the run that wrote it was cut short or the file was damaged; "
                                   "leave it out, or run that step again"
                                 : "is this a run.json written by tpccbench?");
    }
    return cmp_run_from_json(r, doc, r->path, e);
}

int cmp_run_load(struct cmp_run *r, const char *arg, struct err *e)
{
    struct stat st;
    char eb[128];
    const char *slash;

    memset(r, 0, sizeof(*r));
    if (stat(arg, &st) < 0)
        return err_set(e, E_USAGE, "'%s': %s (give a run folder or its run.json)", arg,
                       err_errno(errno, eb, sizeof(eb)));
    if (S_ISDIR(st.st_mode)) {
        size_t n = strlen(arg);
        while (n > 1 && arg[n - 1] == '/')
            n--;
        snprintf(r->dir, sizeof(r->dir), "%.*s", (int)n, arg);
        snprintf(r->path, sizeof(r->path), "%.*s/run.json", (int)n, arg);
        if (stat(r->path, &st) < 0)
            return err_set(e, E_USAGE, "'%s' holds no run.json (give a run folder or its run.json)",
                           arg);
    } else {
        snprintf(r->path, sizeof(r->path), "%s", arg);
        slash = strrchr(arg, '/');
        if (slash)
            snprintf(r->dir, sizeof(r->dir), "%.*s", (int)(slash == arg ? 1 : slash - arg), arg);
        else
            snprintf(r->dir, sizeof(r->dir), ".");
    }
    {
        char real[PATH_MAX];
        const char *base = realpath(r->dir, real) ? real : r->dir;
        slash = strrchr(base, '/');
        snprintf(r->name, sizeof(r->name), "%.255s", slash && slash[1] ? slash + 1 : base);
    }
    return read_record(r, e);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A study's folder (it holds study.json): its complete runs step by step,
 * repeats together, in place of the name order (interleaved rounds in time
 * order would make every run a step of its own) and without the study's
 * load record.  Runs are found by folder name under dir, wherever the
 * study's paths pointed.  list[first .. *n) is replaced; kept as it is when
 * study.json is unreadable or names none of them.
 */
static void study_order(const char *dir, char **list, int first, int *n)
{
    char p[PATH_MAX];
    json_t *doc, *runs, *r;
    int nsteps, k = first, total = *n - first;
    char **keep;

    if (snprintf(p, sizeof(p), "%s/study.json", dir) >= (int)sizeof(p) ||
        !(doc = json_load_file(p, 0, NULL)))
        return;
    runs = json_object_get(doc, "runs");
    nsteps = (int)json_array_size(json_object_get(doc, "steps"));
    keep = calloc((size_t)total, sizeof(*keep));
    for (int step = 1; keep && step <= nsteps; step++) {
        size_t i;
        json_array_foreach(runs, i, r)
        {
            const char *d = json_string_value(json_object_get(r, "dir")), *base;
            const char *st = json_string_value(json_object_get(r, "status"));
            if (json_integer_value(json_object_get(r, "step")) != step || !d || !st ||
                strcmp(st, "complete") != 0)
                continue;
            base = strrchr(d, '/') ? strrchr(d, '/') + 1 : d;
            for (int j = first; j < *n; j++) {
                const char *name = list[j] ? strrchr(list[j], '/') + 1 : NULL;
                if (name && strcmp(name, base) == 0 && k - first < total) {
                    keep[k++ - first] = list[j];
                    list[j] = NULL;
                    break;
                }
            }
        }
    }
    if (keep && k > first) {
        for (int j = first; j < *n; j++)
            free(list[j]); /* the study's load, runs that did not complete */
        memcpy(list + first, keep, sizeof(*keep) * (size_t)(k - first));
        *n = k;
    } else if (keep) {
        for (int j = 0; j < k - first; j++) /* none matched: nothing moved */
            list[first + j] = keep[j];
    }
    free(keep);
    json_decref(doc);
}

/* Append the run folders below dir (those holding run.json), sorted, to *list. */
static int expand_dir(const char *dir, char ***list, int *n, int *cap, struct err *e)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int first = *n;

    if (!d)
        return err_set(e, E_USAGE, "cannot open folder '%s'", dir);
    while ((de = readdir(d)) != NULL) {
        char p[PATH_MAX];
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        if (snprintf(p, sizeof(p), "%s/%s/run.json", dir, de->d_name) >= (int)sizeof(p) ||
            stat(p, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (*n == *cap) {
            char **nl = realloc(*list, sizeof(char *) * (size_t)(*cap ? *cap * 2 : 16));
            if (!nl) {
                closedir(d);
                return err_set(e, E_FAIL, "out of memory");
            }
            *list = nl;
            *cap = *cap ? *cap * 2 : 16;
        }
        p[strlen(p) - strlen("/run.json")] = '\0';
        (*list)[(*n)++] = strdup(p);
    }
    closedir(d);
    if (*n == first)
        return err_set(e, E_USAGE,
                       "'%s' holds no run.json and no run folders (give a run folder or its "
                       "run.json)",
                       dir);
    qsort(*list + first, (size_t)(*n - first), sizeof(char *), cmp_str);
    study_order(dir, *list, first, n);
    return 0;
}

int cmp_load_args(const char *const *args, int nargs, struct cmp_run **runs, int *n_runs,
                  struct err *e)
{
    char **list = NULL;
    int n = 0, cap = 0, rc = 0;
    struct cmp_run *rs = NULL;

    *runs = NULL;
    *n_runs = 0;
    for (int i = 0; i < nargs && rc == 0; i++) {
        struct stat st;
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/run.json", args[i]);
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode) && stat(p, &st) < 0) {
            rc = expand_dir(args[i], &list, &n, &cap, e);
            continue;
        }
        if (n == cap) {
            char **nl = realloc(list, sizeof(char *) * (size_t)(cap ? cap * 2 : 16));
            if (!nl) {
                rc = err_set(e, E_FAIL, "out of memory");
                break;
            }
            list = nl;
            cap = cap ? cap * 2 : 16;
        }
        list[n++] = strdup(args[i]);
    }
    if (rc == 0 && n > 0 && !(rs = calloc((size_t)n, sizeof(*rs))))
        rc = err_set(e, E_FAIL, "out of memory");
    for (int i = 0; rc == 0 && i < n; i++) {
        if (!list[i])
            rc = err_set(e, E_FAIL, "out of memory");
        else if ((rc = cmp_run_load(&rs[i], list[i], e)) == 0)
            *n_runs = i + 1;
        else
            cmp_run_release(&rs[i]);
    }
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
    if (rc < 0) {
        for (int i = 0; i < *n_runs; i++)
            cmp_run_release(&rs[i]);
        free(rs);
        *n_runs = 0;
        return rc;
    }
    *runs = rs;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Flattening and differences                                          */
/* ------------------------------------------------------------------ */

struct kv {
    char path[256];
    char val[256];
};

struct kvlist {
    struct kv *a;
    int n, cap;
};

static void kv_add(struct kvlist *l, const char *path, const char *val)
{
    if (l->n == l->cap) {
        int ncap = l->cap ? l->cap * 2 : 128;
        struct kv *na = realloc(l->a, sizeof(*na) * (size_t)ncap);
        if (!na)
            return;
        l->a = na;
        l->cap = ncap;
    }
    snprintf(l->a[l->n].path, sizeof(l->a[l->n].path), "%s", path);
    snprintf(l->a[l->n].val, sizeof(l->a[l->n].val), "%s", val);
    l->n++;
}

/* The keys compare never reports (see compare.h). */
static int ignored(const char *p)
{
    return strcmp(p, "environment.config_hash") == 0 || strcmp(p, "config.file") == 0 ||
           strncmp(p, "config.results", 14) == 0 ||
           strncmp(p, "environment.dbms.settings_source.", 33) == 0 ||
           strcmp(p, "environment.dbms.settings.unix_socket_directories") == 0 ||
           strcmp(p, "environment.dbms.error") == 0;
}

static void flatten(json_t *v, const char *prefix, struct kvlist *l)
{
    char buf[256];

    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            char p[256];
            snprintf(p, sizeof(p), "%s%s%s", prefix, prefix[0] ? "." : "", k);
            flatten(x, p, l);
        }
        return;
    }
    if (ignored(prefix))
        return;
    if (json_is_string(v)) {
        kv_add(l, prefix, json_string_value(v));
        return;
    }
    if (json_is_integer(v))
        snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, sizeof(buf), "%.10g", json_real_value(v));
    else if (json_is_true(v))
        snprintf(buf, sizeof(buf), "true");
    else if (json_is_false(v))
        snprintf(buf, sizeof(buf), "false");
    else if (json_is_null(v))
        snprintf(buf, sizeof(buf), "null");
    else {
        char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(buf, sizeof(buf), "%s", t ? t : "?");
        free(t);
    }
    kv_add(l, prefix, buf);
}

static int kv_cmp(const void *a, const void *b)
{
    return strcmp(((const struct kv *)a)->path, ((const struct kv *)b)->path);
}

static void run_flatten(const struct cmp_run *r, struct kvlist *l)
{
    static const char *const sections[] = { "tool", "config", "environment" };

    memset(l, 0, sizeof(*l));
    for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
        json_t *s = json_object_get(r->doc, sections[i]);
        if (s)
            flatten(s, sections[i], l);
    }
    if (l->n)
        qsort(l->a, (size_t)l->n, sizeof(*l->a), kv_cmp);
}

static void display_key(const char *path, char *out, size_t len)
{
    static const char *const strip[] = { "environment.dbms.settings.", "environment.sysctl.",
                                         "environment." };

    for (size_t i = 0; i < sizeof(strip) / sizeof(strip[0]); i++)
        if (strncmp(path, strip[i], strlen(strip[i])) == 0) {
            snprintf(out, len, "%s", path + strlen(strip[i]));
            return;
        }
    snprintf(out, len, "%s", path);
}

static int has_diff(const struct cmp_diff *d, int n, const char *path)
{
    for (int i = 0; i < n; i++)
        if (strcmp(d[i].path, path) == 0)
            return 1;
    return 0;
}

/* The source of server setting name in run r ("default" when not recorded). */
static const char *setting_source(const struct cmp_run *r, const char *name)
{
    json_t *src = json_object_get(cmp_jpath(r->doc, "environment.dbms.settings_source"), name);

    return json_is_string(src) ? json_string_value(src) : "default";
}

static int server_chosen(const char *source)
{
    return strcmp(source, "default") == 0 || strcmp(source, "override") == 0;
}

/* Settings chosen when the cluster was made (source override): a change is a change. */
static int fixed_at_initdb(const char *name)
{
    static const char *const names[] = { "data_checksums", "wal_segment_size", "block_size",
                                         "lc_collate",     "lc_ctype",         "server_encoding" };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* Mark the differences that follow from others (see compare.h). */
static void mark_derived(const struct cmp_run *a, const struct cmp_run *b, struct cmp_diff *d,
                         int n)
{
    static const char set_prefix[] = "environment.dbms.settings.";
    int dd_moved = has_diff(d, n, "environment.storage.data_directory");
    int cfg_dd = has_diff(d, n, "config.database.datadir");
    int cfg_conn = has_diff(d, n, "config.database.conninfo") ||
                   has_diff(d, n, "config.database.managed") ||
                   has_diff(d, n, "config.database.driver");
    int version = has_diff(d, n, "environment.dbms.version");
    int dbh_url = has_diff(d, n, "config.run.db_host_metrics");
    int dbh_status = has_diff(d, n, "environment.db_host.status");
    int dbh_kernel = has_diff(d, n, "environment.db_host.kernel");
    int local = has_diff(d, n, "environment.dbms.local");

    for (int i = 0; i < n; i++) {
        const char *p = d[i].path;
        if (strncmp(p, set_prefix, sizeof(set_prefix) - 1) == 0) {
            const char *name = p + sizeof(set_prefix) - 1;
            d[i].derived = !fixed_at_initdb(name) && server_chosen(setting_source(a, name)) &&
                           server_chosen(setting_source(b, name));
        } else if (strcmp(p, "environment.storage.data_directory") == 0) {
            d[i].derived = cfg_dd || cfg_conn;
        } else if (strncmp(p, "environment.storage.", 20) == 0) {
            d[i].derived = dd_moved || cfg_dd || cfg_conn;
        } else if (strcmp(p, "environment.dbms.connection") == 0 ||
                   strcmp(p, "environment.dbms.local") == 0) {
            d[i].derived = cfg_conn;
        } else if (strcmp(p, "environment.dbms.version_full") == 0) {
            d[i].derived = version;
        } else if (strncmp(p, "config.run.db_host_", 19) == 0 ||
                   strcmp(p, "environment.db_host.why") == 0 ||
                   strcmp(p, "environment.db_host.storage.disk_from") == 0) {
            d[i].derived = 1; /* how the database host was read, not what it is */
        } else if (strcmp(p, "environment.db_host.status") == 0 ||
                   strcmp(p, "environment.db_host.source") == 0) {
            d[i].derived = dbh_url || cfg_conn || local;
        } else if (strcmp(p, "environment.db_host.kernel_version") == 0) {
            d[i].derived = dbh_kernel;
        } else if (strncmp(p, "environment.db_host.", 20) == 0) {
            d[i].derived = dbh_status; /* read in one run only: not a change of the host */
        } else if (strcmp(p, "environment.os_fields_host") == 0) {
            d[i].derived = cfg_conn || local;
        }
    }
}

/* The differences from run a (old) to run b (new) into *out (heap). */
static int run_diff(const struct cmp_run *a, const struct cmp_run *b, struct cmp_diff **out,
                    int *n_out)
{
    struct kvlist la, lb;
    struct cmp_diff *d = NULL;
    int n = 0, cap = 0, i = 0, j = 0;

    run_flatten(a, &la);
    run_flatten(b, &lb);
    while (i < la.n || j < lb.n) {
        int c = i >= la.n ? 1 : j >= lb.n ? -1 : strcmp(la.a[i].path, lb.a[j].path);
        const char *path, *ov, *nv;
        if (c == 0 && strcmp(la.a[i].val, lb.a[j].val) == 0) {
            i++;
            j++;
            continue;
        }
        path = c <= 0 ? la.a[i].path : lb.a[j].path;
        ov = c <= 0 ? la.a[i].val : NONE;
        nv = c >= 0 ? lb.a[j].val : NONE;
        if (n == cap) {
            struct cmp_diff *nd = realloc(d, sizeof(*d) * (size_t)(cap ? cap * 2 : 16));
            if (!nd)
                break;
            d = nd;
            cap = cap ? cap * 2 : 16;
        }
        memset(&d[n], 0, sizeof(d[n]));
        snprintf(d[n].path, sizeof(d[n].path), "%s", path);
        display_key(path, d[n].key, sizeof(d[n].key));
        snprintf(d[n].old, sizeof(d[n].old), "%s", ov);
        snprintf(d[n].new_, sizeof(d[n].new_), "%s", nv);
        n++;
        if (c <= 0)
            i++;
        if (c >= 0)
            j++;
    }
    free(la.a);
    free(lb.a);
    mark_derived(a, b, d, n);
    *out = d;
    *n_out = n;
    return 0;
}

int cmp_run_diff(const struct cmp_run *a, const struct cmp_run *b, struct cmp_diff **out,
                 int *n_out)
{
    return run_diff(a, b, out, n_out);
}

/* "a, b, c" of the counted differences into buf: the first eight, then how many more. */
static void changed_names(const struct cmp_diff *d, int n, char *buf, size_t len)
{
    size_t o = 0;
    int shown = 0, more = 0;

    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w;
        if (d[i].derived)
            continue;
        if (shown == 8) {
            more++;
            continue;
        }
        w = snprintf(buf + o, len - o, "%s%s", o ? ", " : "", d[i].key);
        if (w < 0 || (size_t)w >= len - o) {
            more++;
            continue;
        }
        o += (size_t)w;
        shown++;
    }
    if (more && o < len)
        snprintf(buf + o, len - o, " and %d more", more);
}

/* ------------------------------------------------------------------ */
/* Building the comparison                                             */
/* ------------------------------------------------------------------ */

/* What must be equal for runs to be comparable. */
static const struct {
    const char *path; /* in the record */
    const char *what; /* in messages */
} same[] = {
    { "config.schema.warehouses", "warehouses" },
    { "config.run.duration_s", "duration" },
    { "config.run.mix", "mix" },
    { "config.run.virtual_users", "virtual users" },
    { "config.run.isolation", "isolation" },
};

static void value_text(json_t *v, char *buf, size_t len)
{
    char *t;

    if (!v) {
        snprintf(buf, len, NONE);
        return;
    }
    if (json_is_string(v)) {
        snprintf(buf, len, "%s", json_string_value(v));
        return;
    }
    t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    snprintf(buf, len, "%s", t ? t : "?");
    free(t);
}

static int check_comparable(struct cmp *c, int force, struct err *e)
{
    for (int i = 1; i < c->n_runs; i++) {
        for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
            json_t *a = cmp_jpath(c->runs[0].doc, same[k].path), *b = cmp_jpath(c->runs[i].doc, same[k].path);
            char va[128], vb[128];
            if (a && b && json_equal(a, b))
                continue;
            if (!a && !b)
                continue;
            value_text(a, va, sizeof(va));
            value_text(b, vb, sizeof(vb));
            if (!force)
                return err_set(e, E_USAGE,
                               "runs are not comparable: %s is %s in '%s' but %s in '%s': "
                               "compare runs with the same warehouses, duration, mix, virtual "
                               "users and isolation, or pass --force",
                               same[k].what, va, c->runs[0].path, vb, c->runs[i].path);
            add_warning(c, "%s differs (%s in '%s', %s in '%s'): compared anyway (--force)",
                        same[k].what, va, c->runs[0].name, vb, c->runs[i].name);
        }
    }
    return 0;
}

static void step_stats(struct cmp *c, struct cmp_step *s)
{
    double vals[1024];

    for (int m = 0; m < CMP_NMETRICS; m++) {
        int k = 0;
        for (int i = 0; i < s->n && k < 1024; i++) {
            double v = c->runs[s->first + i].v[m];
            if (!isnan(v))
                vals[k++] = v;
        }
        if (k == 0) {
            s->med[m] = s->lo[m] = s->hi[m] = NAN;
            continue;
        }
        qsort(vals, (size_t)k, sizeof(double), cmp_double);
        s->lo[m] = vals[0];
        s->hi[m] = vals[k - 1];
        s->med[m] = k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2.0;
    }
}

int cmp_build(struct cmp *c, struct cmp_run *runs, int n_runs, int force, struct err *e)
{
    int rc;

    memset(c, 0, sizeof(*c));
    c->runs = runs;
    c->n_runs = n_runs;
    if (n_runs < 1)
        return err_set(e, E_USAGE, "no runs to compare");
    if ((rc = check_comparable(c, force, e)) < 0)
        return rc;
    c->steps = calloc((size_t)n_runs, sizeof(*c->steps));
    if (!c->steps)
        return err_set(e, E_FAIL, "out of memory");
    for (int i = 0; i < n_runs; i++) {
        if (c->n_steps > 0 &&
            strcmp(runs[i].label, runs[c->steps[c->n_steps - 1].first].label) == 0) {
            c->steps[c->n_steps - 1].n++;
            continue;
        }
        c->steps[c->n_steps].first = i;
        c->steps[c->n_steps].n = 1;
        c->n_steps++;
    }
    for (int i = 0; i < n_runs; i++) {
        const struct cmp_run *r = &runs[i];
        json_t *valid = cmp_jpath(r->doc, "run.validity.valid");
        if (strcmp(r->status, "complete") != 0)
            add_warning(c, "run '%s' (%s) has status '%s'%s", r->name, r->label,
                        r->status[0] ? r->status : "none",
                        r->life == RECORD_CRASHED
                            ? ": the command that wrote it ended without finishing it (killed, "
                              "or it crashed); its figures are not a run's"
                        : r->life == RECORD_RUNNING ? ": its command still runs"
                        : r->life == RECORD_UNKNOWN
                            ? ": the command that wrote it did not finish (it crashed, or still "
                              "runs)"
                        : strcmp(r->status, "interrupted") == 0
                            ? ": its figures cover only part of the window"
                            : "");
        if (json_is_false(valid)) {
            /* Name the checks that failed: "new_order_rollback_pct 0.62 not in [0.9, 1.1]";
             * a record that says so, those too few to judge apart. */
            const char *verdict = json_string_value(cmp_jpath(r->doc, "run.validity.verdict"));
            int undetermined = verdict && strncmp(verdict, "undetermined", 12) == 0;
            char why[512] = "";
            size_t o = 0;
            const char *k;
            json_t *it;
            json_object_foreach(cmp_jpath(r->doc, "run.validity"), k, it)
            {
                const char *rule = json_string_value(json_object_get(it, "rule"));
                const char *iv = json_string_value(json_object_get(it, "verdict"));
                char bound[64];
                int w;
                if (!json_is_object(it) || !json_is_false(json_object_get(it, "ok")))
                    continue;
                if (rule)
                    snprintf(bound, sizeof(bound), "%s", rule);
                else
                    snprintf(bound, sizeof(bound), "in [%g, %g]",
                             json_number_value(json_object_get(it, "min")),
                             json_number_value(json_object_get(it, "max")));
                w = snprintf(why + o, sizeof(why) - o, "%s%s %.3g not %s%s", o ? ", " : "", k,
                             json_number_value(json_object_get(it, "value")), bound,
                             iv && strcmp(iv, "too few to judge") == 0 ? " (too few to judge)"
                                                                       : "");
                if (w < 0 || (size_t)w >= sizeof(why) - o)
                    break;
                o += (size_t)w;
            }
            if (undetermined)
                add_warning(c,
                            "run '%s' (%s) is undetermined by the input checks of TPC-C "
                            "5.5.1.5 (too few transactions to judge; run longer)%s%s",
                            r->name, r->label, why[0] ? ": " : "", why);
            else
                add_warning(c,
                            "run '%s' (%s) is not valid by the input checks of TPC-C 5.5.1.5%s%s",
                            r->name, r->label, why[0] ? ": " : "", why);
        }
    }
    for (int s = 0; s < c->n_steps; s++) {
        struct cmp_step *st = &c->steps[s];
        step_stats(c, st);
        /* Repeats should not differ from the first run of their step. */
        for (int k = 1; k < st->n; k++) {
            struct cmp_diff *d;
            int n, counted = 0;
            char names[512];
            run_diff(&runs[st->first], &runs[st->first + k], &d, &n);
            for (int i = 0; i < n; i++)
                counted += !d[i].derived;
            if (counted) {
                changed_names(d, n, names, sizeof(names));
                add_warning(c, "step %d '%s': repeat '%s' differs from '%s' in %s", s + 1,
                            runs[st->first].label, runs[st->first + k].name, runs[st->first].name,
                            names);
            }
            free(d);
        }
        if (s == 0)
            continue;
        run_diff(&runs[c->steps[s - 1].first], &runs[st->first], &st->diffs, &st->n_diffs);
        for (int i = 0; i < st->n_diffs; i++)
            st->n_changes += !st->diffs[i].derived;
        if (st->n_changes > 1) {
            char names[512];
            changed_names(st->diffs, st->n_diffs, names, sizeof(names));
            add_warning(c,
                        "step %d '%s' changed %d things (%s): its gain cannot be put on one "
                        "change",
                        s + 1, runs[st->first].label, st->n_changes, names);
        }
    }
    return 0;
}

void cmp_release(struct cmp *c)
{
    for (int s = 0; c->steps && s < c->n_steps; s++)
        free(c->steps[s].diffs);
    free(c->steps);
    for (int i = 0; c->runs && i < c->n_runs; i++)
        cmp_run_release(&c->runs[i]);
    free(c->runs);
    for (int i = 0; i < c->n_warnings; i++)
        free(c->warnings[i]);
    memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------------ */
/* Regression rules                                                    */
/* ------------------------------------------------------------------ */

int cmp_format_parse(const char *s)
{
    static const char *const names[] = { "text", "markdown", "csv", "json" };

    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    if (strcmp(s, "md") == 0)
        return CMP_MARKDOWN;
    return -1;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* The durability rule's rest after "lost" (at p): "> N". */
static int lost_rule_parse(const char *text, const char *p, struct cmp_rule *r, int *col,
                           struct err *e)
{
    const char *w;

    r->lost = 1;
    r->op = '>';
    p = skip_blanks(p);
    *col = (int)(p - text) + 1;
    if (*p != '>' || p[1] == '=')
        return err_set(e, E_USAGE, "the durability rule is 'lost > N' (N acknowledged "
                                   "transactions, usually 0)");
    p = skip_blanks(p + 1);
    *col = (int)(p - text) + 1;
    w = p;
    while (isdigit((unsigned char)*p))
        p++;
    if (p == w || p - w > 12)
        return err_set(e, E_USAGE, "expected a count of transactions after 'lost >' (e.g. 0)");
    r->pct = strtod(w, NULL);
    p = skip_blanks(p);
    *col = (int)(p - text) + 1;
    if (*p)
        return err_set(e, E_USAGE, "unexpected text after the rule (the count has no '%%')");
    *col = 0;
    return 0;
}

int cmp_rule_parse(const char *text, struct cmp_rule *r, int *col, struct err *e)
{
    const char *p = skip_blanks(text), *w;
    char word[64], num[32];
    size_t n;

    memset(r, 0, sizeof(*r));
    snprintf(r->text, sizeof(r->text), "%s", text);
    *col = 0;
    /* METRIC */
    w = p;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
        p++;
    n = (size_t)(p - w);
    snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) ? n : sizeof(word) - 1), w);
    *col = (int)(w - text) + 1;
    if (n == 0)
        return err_set(e, E_USAGE, "expected a metric (notpm, tps, load_time, p90.TYPE, p99.TYPE)");
    if (strcmp(word, "lost") == 0)
        return lost_rule_parse(text, p, r, col, e);
    if (strcmp(word, "notpm") == 0)
        r->metric = CMP_NOTPM;
    else if (strcmp(word, "tps") == 0)
        r->metric = CMP_TPS;
    else if (strcmp(word, "load_time") == 0)
        r->metric = CMP_LOAD;
    else if ((strncmp(word, "p90.", 4) == 0 || strncmp(word, "p99.", 4) == 0)) {
        int t;
        for (t = 0; t < TX_NTYPES; t++)
            if (strcmp(word + 4, tx_name((enum tx_type)t)) == 0)
                break;
        if (t == TX_NTYPES) {
            *col += 4;
            return err_set(e, E_USAGE,
                           "unknown transaction type '%s' (new_order, payment, order_status, "
                           "delivery, stock_level)",
                           word + 4);
        }
        r->metric = (word[2] == '0' ? CMP_P90 : CMP_P99) + t;
    } else {
        return err_set(e, E_USAGE,
                       "unknown metric '%s' (notpm, tps, load_time, p90.TYPE, p99.TYPE)", word);
    }
    /* OP */
    p = skip_blanks(p);
    *col = (int)(p - text) + 1;
    if (*p != '<' && *p != '>')
        return err_set(e, E_USAGE, "expected '<' or '>' after the metric");
    r->op = *p++;
    if (*p == '=' || *p == '<' || *p == '>')
        return *col = (int)(p - text) + 1,
               err_set(e, E_USAGE, "the operator is a single '<' or '>'");
    /* SIGNED_PERCENT */
    p = skip_blanks(p);
    *col = (int)(p - text) + 1;
    if (*p != '+' && *p != '-')
        return err_set(e, E_USAGE,
                       "expected a sign '+' or '-' before the percentage (e.g. -5%% or +10%%)");
    w = p++;
    if (!isdigit((unsigned char)*p))
        return *col = (int)(p - text) + 1, err_set(e, E_USAGE, "expected digits after the sign");
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return *col = (int)(p - text) + 1,
                   err_set(e, E_USAGE, "expected digits after the decimal point");
        while (isdigit((unsigned char)*p))
            p++;
    }
    n = (size_t)(p - w);
    if (n >= sizeof(num))
        return *col = (int)(w - text) + 1, err_set(e, E_USAGE, "the percentage is too long");
    memcpy(num, w, n);
    num[n] = '\0';
    r->pct = strtod(num, NULL);
    *col = (int)(p - text) + 1;
    if (*p != '%')
        return err_set(e, E_USAGE, "expected '%%' after the number");
    p = skip_blanks(p + 1);
    *col = (int)(p - text) + 1;
    if (*p)
        return err_set(e, E_USAGE, "unexpected text after the rule");
    *col = 0;
    return 0;
}

void cmp_rule_judge(const struct cmp_rule *r, const double *old_v, int n_old, const double *new_v,
                    int n_new, struct cmp_verdict *v)
{
    struct sig_result sr;

    memset(v, 0, sizeof(*v));
    v->old_v = sig_median(old_v, n_old);
    v->new_v = sig_median(new_v, n_new);
    v->change_pct = raw_change(v->old_v, v->new_v) * 100.0;
    sig_compare(old_v, n_old, new_v, n_new, SIG_CHANGE, &sr); /* the raw change new / old - 1 */
    v->ci_lo_pct = sr.lo * 100.0;
    v->ci_hi_pct = sr.hi * 100.0;
    v->by_interval = !isnan(sr.lo) && !isnan(sr.hi);
    v->within_noise = sr.verdict == SIG_NOISE;
    if (isnan(v->change_pct))
        return;
    /* At the threshold exactly (within rounding of the division) it does not trip. */
    if (v->by_interval)
        v->tripped = r->op == '<' ? v->ci_hi_pct < r->pct - 1e-9 : v->ci_lo_pct > r->pct + 1e-9;
    else
        v->tripped = r->op == '<' ? v->change_pct < r->pct - 1e-9 : v->change_pct > r->pct + 1e-9;
}

/* run.json's acid.durability of run x, NULL when it had no check (or it did not run). */
static const json_t *run_durability(const struct cmp_run *x)
{
    const json_t *d = json_object_get(json_object_get(x->doc, "acid"), "durability");

    return json_is_integer(json_object_get(d, "lost")) ? d : NULL;
}

/* What the durability checks of step s's runs say together. */
struct step_dur {
    int64_t most;               /* the most acknowledged transactions a run lost */
    int durable;                /* every run was durable */
    int came_back;              /* every run's server came back */
    const struct cmp_run *none; /* the first run with no check (NULL: every run has one) */
};

static void step_dur(const struct cmp *c, int s, struct step_dur *o)
{
    const struct cmp_step *st = &c->steps[s];

    *o = (struct step_dur){ .durable = 1, .came_back = 1 };
    for (int i = st->first; i < st->first + st->n; i++) {
        const json_t *d = run_durability(&c->runs[i]);
        if (!d) {
            o->none = &c->runs[i];
            return;
        }
        if (json_integer_value(json_object_get(d, "lost")) > o->most)
            o->most = json_integer_value(json_object_get(d, "lost"));
        o->durable &= json_is_true(json_object_get(d, "durable"));
        o->came_back &= !json_is_null(json_object_get(d, "recovery_s"));
    }
}

/* The most acknowledged transactions a run of step s lost; -1 when a
 * server did not come back; -2 when a run has no check (*none: it). */
static double step_lost(const struct cmp *c, int s, const struct cmp_run **none)
{
    struct step_dur d;

    step_dur(c, s, &d);
    if (d.none) {
        *none = d.none;
        return -2;
    }
    return d.came_back ? (double)d.most : -1;
}

/* "lost > N" on every step from base to s: a durability loss on any of
 * them fails the comparison, not only on the last.  new_v: what step s
 * lost, or, tripped, the step named (the worst: a server that did not
 * come back, else the most lost); old_v the base step's, when it has the
 * check. */
static int lost_rule_eval(const struct cmp *c, const struct cmp_rule *r, int base, int s,
                          struct cmp_verdict *v, struct err *e)
{
    const struct cmp_run *none = NULL;
    double lost = step_lost(c, s, &none), was = step_lost(c, base, &none);

    if (lost == -2)
        return err_set(e, E_USAGE, "--fail-if '%s': run '%s' (%s) has no durability check "
                                   "(give the step --durability kill or power)",
                       r->text, none->name, none->label);
    v->new_v = lost;
    v->old_v = was >= -1 ? was : NAN;
    v->lost_step = -1;
    for (int k = base; k <= s; k++) {
        /* The judged step and the base were read above. */
        double l = k == s ? lost : k == base ? was : step_lost(c, k, &none);
        if (l == -2 || (l >= 0 && l <= r->pct))
            continue;
        v->n_steps_lost++;
        if (v->lost_step < 0 || (v->new_v >= 0 && (l < 0 || l > v->new_v))) {
            v->lost_step = k;
            v->new_v = l;
            snprintf(v->lost_label, sizeof(v->lost_label), "%s",
                     c->runs[c->steps[k].first].label);
        }
    }
    v->tripped = v->n_steps_lost > 0;
    return 0;
}

int cmp_rule_eval_steps(const struct cmp *c, const struct cmp_rule *r, int base, int s,
                        struct cmp_verdict *v, struct err *e)
{
    const struct cmp_step *a = &c->steps[base], *b = &c->steps[s];
    double ov[SIG_MAX_N], nv[SIG_MAX_N];
    char mn[32];

    memset(v, 0, sizeof(*v));
    v->old_v = v->new_v = v->change_pct = v->ci_lo_pct = v->ci_hi_pct = NAN; /* not judged */
    if (r->lost)
        return lost_rule_eval(c, r, base, s, v, e);
    cmp_metric_name(r->metric, mn, sizeof(mn));
    if (isnan(a->med[r->metric]) || isnan(b->med[r->metric])) {
        const struct cmp_run *x = &c->runs[isnan(a->med[r->metric]) ? a->first : b->first];
        return err_set(e, E_USAGE, "--fail-if '%s': run '%s' (%s) has no %s%s", r->text, x->name,
                       x->label, mn,
                       r->metric == CMP_LOAD ? " (it has no complete load section)" : "");
    }
    if (a->med[r->metric] <= 0)
        return err_set(e, E_USAGE, "--fail-if '%s': %s of the first step is 0: no change to judge",
                       r->text, mn);
    cmp_rule_judge(r, ov, step_values(c, base, r->metric, ov), nv, step_values(c, s, r->metric, nv),
                   v);
    v->within_noise = cmp_within_noise(c, s, base, r->metric);
    return 0;
}

int cmp_rule_eval(const struct cmp *c, const struct cmp_rule *r, struct cmp_verdict *v,
                  struct err *e)
{
    return cmp_rule_eval_steps(c, r, 0, c->n_steps - 1, v, e);
}

int cmp_verdict_text(char *buf, size_t len, const struct cmp_rule *r, const struct cmp_verdict *v)
{
    char mn[32], o[32], n[32];
    int past = r->op == '<' ? v->change_pct < r->pct : v->change_pct > r->pct;

    buf[0] = '\0';
    if (r->lost && !v->tripped)
        return -1;
    if (r->lost) {
        char more[64] = "";
        if (v->n_steps_lost > 1)
            snprintf(more, sizeof(more), "; %d steps past the rule", v->n_steps_lost);
        if (v->new_v < 0)
            return snprintf(buf, len, "--fail-if '%s' tripped: step %d '%s': the server did not "
                                      "come back after the durability check's crash%s",
                            r->text, v->lost_step + 1, v->lost_label, more), 1;
        return snprintf(buf, len, "--fail-if '%s' tripped: step %d '%s': a run lost %.0f "
                                  "acknowledged transactions in its durability check (NOT "
                                  "DURABLE)%s",
                        r->text, v->lost_step + 1, v->lost_label, v->new_v, more), 1;
    }
    cmp_metric_name(r->metric, mn, sizeof(mn));
    cmp_fmt_value(o, sizeof(o), r->metric, v->old_v);
    cmp_fmt_value(n, sizeof(n), r->metric, v->new_v);
    if (!v->tripped) {
        /* With repeats, a median past the threshold that is not significant: say so. */
        if (!v->by_interval || !past)
            return -1;
        snprintf(buf, len,
                 "--fail-if '%s': %s %s -> %s is %+.2f %% [%+.2f, %+.2f], past the threshold but "
                 "not significantly (the 95 %% interval reaches it): not tripped",
                 r->text, mn, o, n, v->change_pct, v->ci_lo_pct, v->ci_hi_pct);
        return 0;
    }
    if (v->by_interval)
        snprintf(buf, len,
                 "--fail-if '%s' tripped: %s %s -> %s is %+.2f %% [%+.2f, %+.2f] (the whole 95 %% "
                 "interval is past the threshold)",
                 r->text, mn, o, n, v->change_pct, v->ci_lo_pct, v->ci_hi_pct);
    else
        snprintf(buf, len, "--fail-if '%s' tripped: %s %s -> %s is %+.2f %%%s", r->text, mn, o, n,
                 v->change_pct, v->within_noise ? " (within noise)" : "");
    return 1;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

/*
 * The step table, text and markdown alike, is the array step_cols[] below:
 * each column gives its header, its alignment, when the table shows it and
 * how a step's cell (and the min..max line under a step of repeats) is
 * filled.  A new column is one entry there, with a fill function of its
 * own when none of these fits (and a shown function when it is left out
 * while no step has it).
 */

#define CELL 96

/* What a cell is filled from. */
struct cell_ctx {
    const struct cmp *c;
    int s;                          /* the step */
    int format;                     /* CMP_TEXT or CMP_MARKDOWN */
    const struct cmp_table_opts *o; /* the study's changes; all zero for compare's own */
};

/* One column of the step table. */
struct step_col {
    const char *head;    /* the header */
    const char *md_head; /* the header in markdown when it differs; NULL: head */
    int left;            /* 1: left-aligned (text) */
    int metric;          /* enum cmp_metric of a figure or gain column */
    int vs_first;        /* a gain column: 1 against the first step, 0 against the step before */
    /* Fill the cell and range (the min..max line), CELL bytes each, both given empty. */
    void (*fill)(const struct cell_ctx *x, const struct step_col *col, char *cell, char *range);
    /* Whether the table shows the column; NULL: always. */
    int (*shown)(const struct cmp *c, const struct cmp_table_opts *o);
};

/* A percentage cell, "~" appended when within noise (text) or " (within noise)" (markdown). */
static void gain_cell(char *buf, size_t len, double frac, int noise, int format)
{
    char p[32];

    cmp_fmt_pct(p, sizeof(p), frac);
    if (noise && strcmp(p, "-") != 0)
        snprintf(buf, len, "%s%s", p, format == CMP_MARKDOWN ? " (within noise)" : "~");
    else
        snprintf(buf, len, "%s", p);
}

static const struct cmp_run *step_run(const struct cell_ctx *x)
{
    return &x->c->runs[x->c->steps[x->s].first];
}

/* The step's number: compare's (from 1) or the study's. */
static void fill_step(const struct cell_ctx *x, const struct step_col *col, char *cell, char *range)
{
    (void)col;
    (void)range;
    snprintf(cell, CELL, "%d", x->o->step_no ? x->o->step_no[x->s] : x->s + 1);
}

static void fill_label(const struct cell_ctx *x, const struct step_col *col, char *cell,
                       char *range)
{
    const char *l = step_run(x)->label;

    (void)col;
    (void)range;
    snprintf(cell, CELL, "%s", l[0] ? l : "(none)");
}

/* The change note, cut after 33 characters in compare's text table (the study's is whole). */
static void fill_note(const struct cell_ctx *x, const struct step_col *col, char *cell, char *range)
{
    const char *n = step_run(x)->change;

    (void)col;
    (void)range;
    if (x->format == CMP_TEXT && !x->o->full_notes && strlen(n) > 36)
        snprintf(cell, CELL, "%.33s...", n);
    else
        snprintf(cell, CELL, "%s", n[0] ? n : "-");
}

/* The step's runs: "2", or the study's "2/3" (of its repeats). */
static void fill_runs(const struct cell_ctx *x, const struct step_col *col, char *cell, char *range)
{
    int n = x->c->steps[x->s].n;

    (void)col;
    (void)range;
    if (x->o->runs_of > 0)
        snprintf(cell, CELL, "%d/%d", n, x->o->runs_of);
    else
        snprintf(cell, CELL, "%d", n);
}

/* The median of the column's metric; its runs' min..max under a step of repeats. */
static void fill_value(const struct cell_ctx *x, const struct step_col *col, char *cell,
                       char *range)
{
    const struct cmp_step *st = &x->c->steps[x->s];
    int m = col->metric;

    cmp_fmt_value(cell, CELL, m, st->med[m]);
    if (st->n > 1 && !isnan(st->lo[m])) {
        char lo[32], hi[32];
        cmp_fmt_value(lo, sizeof(lo), m, st->lo[m]);
        cmp_fmt_value(hi, sizeof(hi), m, st->hi[m]);
        snprintf(range, CELL, "%s..%s", lo, hi);
    }
}

/* The gain of the column's metric against the step before or the first; "-" for the first. */
static void fill_gain(const struct cell_ctx *x, const struct step_col *col, char *cell, char *range)
{
    const struct cmp *c = x->c;
    int s = x->s, base = col->vs_first ? 0 : s - 1, m = col->metric;

    (void)range;
    if (s == 0) {
        snprintf(cell, CELL, "-");
        return;
    }
    gain_cell(cell, CELL, cmp_gain(m, c->steps[base].med[m], c->steps[s].med[m]),
              cmp_within_noise(c, s, base, m), x->format);
}

static int any_repeats(const struct cmp *c)
{
    for (int s = 0; s < c->n_steps; s++)
        if (c->steps[s].n > 1)
            return 1;
    return 0;
}

/* 1 when a step has the metrics figures, | 2 when one has the database
 * host's (else their columns are left out). */
static int any_metrics(const struct cmp *c)
{
    int any = 0;

    for (int s = 0; s < c->n_steps; s++) {
        const double *v = c->steps[s].med;
        if (!isnan(v[CMP_CPU]) || !isnan(v[CMP_IOWAIT]) || !isnan(v[CMP_DISK]))
            any |= 1;
        if (!isnan(v[CMP_DBH_CPU]) || !isnan(v[CMP_DBH_IOWAIT]) || !isnan(v[CMP_DBH_DISK]))
            any |= 2;
    }
    return any;
}

/* The largest wait change against the step before (cmp_step_wait_change): "new_order
 * LWLock:WALWrite 37 % -> 0 %"; "-" for the first step, a step without waits, or no
 * change beyond the sampling error. */
static void fill_waits(const struct cell_ctx *x, const struct step_col *col, char *cell,
                       char *range)
{
    struct wdiff_change ch;
    char why[320], a[16], b[16];

    (void)col;
    (void)range;
    if (!cmp_step_wait_change(x->c, x->s, &ch, why, sizeof(why))) {
        snprintf(cell, CELL, "-");
        return;
    }
    wdiff_fmt_share(a, sizeof(a), ch.old_share);
    wdiff_fmt_share(b, sizeof(b), ch.new_share);
    /* An event's name is short ("LWLock:WALWrite"); a longer one is cut at the cell's end. */
    if (snprintf(cell, CELL, "%s %s %s -> %s", ch.type, ch.key, a, b) >= CELL)
        cell[CELL - 1] = '\0';
}

static int any_waits(const struct cmp *c);

/* The waits column: when there are two steps and a run has waits. */
static int shown_waits(const struct cmp *c, const struct cmp_table_opts *o)
{
    (void)o;
    return c->n_steps > 1 && any_waits(c);
}

/* The runs column: when a step has repeats, or always in the study's table. */
static int shown_runs(const struct cmp *c, const struct cmp_table_opts *o)
{
    return any_repeats(c) || o->runs_of > 0;
}

static int shown_metrics(const struct cmp *c, const struct cmp_table_opts *o)
{
    (void)o;
    return (any_metrics(c) & 1) != 0;
}

static int shown_db_host(const struct cmp *c, const struct cmp_table_opts *o)
{
    (void)o;
    return (any_metrics(c) & 2) != 0;
}

/* Step s's durability check into cell (CELL bytes): "yes", "LOST 1,204"
 * (the most a run lost), "no" (nothing lost, but not durable: no
 * recovery, a condition broken), "no check"; the table's cell, and the
 * csv and json field.  *most: the most a run lost, -1 with no check. */
static void step_durable(const struct cmp *c, int s, char *cell, int64_t *most)
{
    struct step_dur d;
    char n[48];

    step_dur(c, s, &d);
    *most = d.none ? -1 : d.most;
    if (d.none)
        snprintf(cell, CELL, "no check");
    else if (d.most > 0)
        snprintf(cell, CELL, "LOST %s", fmt_grouped(n, sizeof(n), d.most));
    else
        snprintf(cell, CELL, "%s", d.durable ? "yes" : "no");
}

static void fill_durable(const struct cell_ctx *x, const struct step_col *col, char *cell,
                         char *range)
{
    int64_t most;

    (void)col;
    (void)range;
    step_durable(x->c, x->s, cell, &most);
}

/* The durable column: when a run had a durability check. */
static int shown_durable(const struct cmp *c, const struct cmp_table_opts *o)
{
    (void)o;
    for (int i = 0; i < c->n_runs; i++)
        if (run_durability(&c->runs[i]))
            return 1;
    return 0;
}

/* The columns, in the order shown. */
static const struct step_col step_cols[] = {
    { .head = "step", .fill = fill_step },
    { .head = "label", .left = 1, .fill = fill_label },
    { .head = "change note", .left = 1, .fill = fill_note },
    { .head = "runs", .fill = fill_runs, .shown = shown_runs },
    { .head = "load s", .metric = CMP_LOAD, .fill = fill_value },
    { .head = "gain", .metric = CMP_LOAD, .fill = fill_gain },
    { .head = "vs first", .metric = CMP_LOAD, .vs_first = 1, .fill = fill_gain },
    { .head = "NOTPM", .metric = CMP_NOTPM, .fill = fill_value },
    { .head = "gain", .metric = CMP_NOTPM, .fill = fill_gain },
    { .head = "TPS", .metric = CMP_TPS, .fill = fill_value },
    { .head = "gain", .metric = CMP_TPS, .fill = fill_gain },
    { .head = "NO p90 ms",
      .md_head = "New-Order p90 ms",
      .metric = CMP_P90 + TX_NEW_ORDER,
      .fill = fill_value },
    { .head = "change", .metric = CMP_P90 + TX_NEW_ORDER, .fill = fill_gain },
    { .head = "CPU %", .metric = CMP_CPU, .fill = fill_value, .shown = shown_metrics },
    { .head = "iowait %", .metric = CMP_IOWAIT, .fill = fill_value, .shown = shown_metrics },
    { .head = "disk MB/s", .metric = CMP_DISK, .fill = fill_value, .shown = shown_metrics },
    { .head = "db CPU %", .metric = CMP_DBH_CPU, .fill = fill_value, .shown = shown_db_host },
    { .head = "db iowait %", .metric = CMP_DBH_IOWAIT, .fill = fill_value, .shown = shown_db_host },
    { .head = "db disk MB/s", .metric = CMP_DBH_DISK, .fill = fill_value, .shown = shown_db_host },
    { .head = "waits", .md_head = "largest wait change", .left = 1, .fill = fill_waits,
      .shown = shown_waits },
    { .head = "durable", .fill = fill_durable, .shown = shown_durable },
};
#define NCOLS (int)(sizeof(step_cols) / sizeof(step_cols[0]))

/* compare's own table: no changes. */
static const struct cmp_table_opts plain_opts;

/* The cells of step s (range: the min..max line under it, "" where none). */
static void step_cells(const struct cmp *c, int s, int format, const struct cmp_table_opts *o,
                       char cells[NCOLS][CELL], char range[NCOLS][CELL])
{
    const struct cell_ctx x = { .c = c, .s = s, .format = format, .o = o };

    for (int k = 0; k < NCOLS; k++) {
        cells[k][0] = range[k][0] = '\0';
        step_cols[k].fill(&x, &step_cols[k], cells[k], range[k]);
    }
}

/* on[k]: whether the table shows column k. */
static void shown_cols(const struct cmp *c, const struct cmp_table_opts *o, int on[NCOLS])
{
    for (int k = 0; k < NCOLS; k++)
        on[k] = !step_cols[k].shown || step_cols[k].shown(c, o);
}

static int any_noise(const struct cmp *c)
{
    static const int ms[] = { CMP_LOAD, CMP_NOTPM, CMP_TPS, CMP_P90 };

    for (int s = 1; s < c->n_steps; s++)
        for (size_t k = 0; k < sizeof(ms) / sizeof(ms[0]); k++)
            if (cmp_within_noise(c, s, s - 1, ms[k]) || cmp_within_noise(c, s, 0, ms[k]))
                return 1;
    return 0;
}

/* Why a step lacks a metrics figure: the note of its first run that does, "" when none. */
static const char *step_metrics_note(const struct cmp *c, const struct cmp_step *st)
{
    for (int i = 0; i < st->n; i++)
        if (c->runs[st->first + i].metrics_note[0])
            return c->runs[st->first + i].metrics_note;
    return "";
}

/* The figures' names in the significance tables. */
static const char *const sig_names[CMP_NSIG] = { "NOTPM", "TPS", "load time", "NO p90" };
/* ... and in csv and json. */
static const char *const sig_keys[CMP_NSIG] = { "notpm", "tps", "load_time", "p90.new_order" };

/*
 * The comparisons the significance tables list, in order: each step from the
 * second against the step before and (from the third) against the first.
 * *k is the cursor (start at 0); 0 at the end.
 */
int cmp_sig_next(const struct cmp *c, int *k, int *s, int *base)
{
    int i = *k;

    for (int st = 1; st < c->n_steps; st++) {
        int n = st > 1 ? 2 : 1;
        if (i < n) {
            *s = st;
            *base = i == 0 ? st - 1 : 0;
            (*k)++;
            return 1;
        }
        i -= n;
    }
    return 0;
}

static void print_sig_text(FILE *out, const struct cmp *c)
{
    int k = 0, s, base, wl = 5, wa = 7;

    for (int i = 0; i < c->n_steps; i++) {
        int n = (int)strlen(c->runs[c->steps[i].first].label);
        if (n > wl)
            wl = n;
        if (n + 4 > wa)
            wa = n + 4;
    }
    fprintf(out, "\nsignificance: the gain of the medians and its 95 %% confidence interval from "
                 "the repeats\n(Welch's t on the logarithms of the figures; NO p90: + is "
                 "slower)\n");
    fprintf(out, "%4s  %-*s  %-*s  %-9s  %8s  %-16s  %s\n", "step", wl, "label", wa, "against",
            "figure", "gain", "95 % CI", "verdict");
    while (cmp_sig_next(c, &k, &s, &base)) {
        char against[300];
        snprintf(against, sizeof(against), "%d %s", base + 1, c->runs[c->steps[base].first].label);
        for (int f = 0; f < CMP_NSIG; f++) {
            struct sig_result r;
            char g[32], ci[64];
            cmp_sig(c, s, base, cmp_sig_metrics[f], &r);
            if (isnan(r.gain))
                continue;
            cmp_fmt_pct(g, sizeof(g), r.gain);
            cmp_fmt_ci(ci, sizeof(ci), &r);
            fprintf(out, "%4d  %-*s  %-*s  %-9s  %8s  %-16s  %s\n", s + 1, wl,
                    c->runs[c->steps[s].first].label, wa, against, sig_names[f], g, ci,
                    sig_verdict_name(r.verdict));
        }
    }
}

/* A line of the table: the cells v of the shown columns in their widths, no blanks at the end. */
static void print_cells(FILE *out, const char *const *v, const int *width, const int *on)
{
    char line[2048];
    size_t o = 0;

    for (int k = 0; k < NCOLS; k++) {
        int w;
        if (!on[k])
            continue;
        w = snprintf(line + o, sizeof(line) - o, "%s%*s", o ? "  " : "",
                     step_cols[k].left ? -width[k] : width[k], v[k]);
        if (w < 0 || (size_t)w >= sizeof(line) - o)
            break;
        o += (size_t)w;
    }
    while (o > 0 && line[o - 1] == ' ')
        line[--o] = '\0';
    fprintf(out, "%s\n", line);
}

/* Below the table: what "~" means, and why a step lacks the metrics the others have. */
static void print_steps_notes(FILE *out, const struct cmp *c, const struct cmp_table_opts *o,
                              int mets)
{
    if (any_noise(c))
        fprintf(out, "\n~ within noise: the 95 %% confidence interval holds no change (a step of "
                     "one run: it lies inside the other's min..max)\n");
    for (int s = 0, first = 1; mets && s < c->n_steps; s++) {
        const char *why = step_metrics_note(c, &c->steps[s]);
        if (!why[0])
            continue;
        fprintf(out, "%s- metrics of step %d: %s\n", first ? "\n" : "",
                o->step_no ? o->step_no[s] : s + 1, why);
        first = 0;
    }
    if (shown_waits(c, o))
        fprintf(out, "\nwaits: the wait whose share of a type's samples in the database changed "
                     "most against the step before, beyond the sampling error (- none)\n");
}

void cmp_print_steps(FILE *out, const struct cmp *c, const struct cmp_table_opts *opts)
{
    const struct cmp_table_opts *o = opts ? opts : &plain_opts;
    char(*cells)[NCOLS][CELL] = calloc((size_t)c->n_steps, sizeof(*cells));
    char(*range)[NCOLS][CELL] = calloc((size_t)c->n_steps, sizeof(*range));
    const char *head[NCOLS];
    int width[NCOLS], on[NCOLS];

    if (!cells || !range) {
        free(cells);
        free(range);
        return;
    }
    shown_cols(c, o, on);
    for (int k = 0; k < NCOLS; k++) {
        head[k] = step_cols[k].head;
        width[k] = (int)strlen(head[k]);
    }
    for (int s = 0; s < c->n_steps; s++) {
        step_cells(c, s, CMP_TEXT, o, cells[s], range[s]);
        for (int k = 0; k < NCOLS; k++) {
            int w = (int)strlen(cells[s][k]), wr = (int)strlen(range[s][k]);
            if (w > width[k])
                width[k] = w;
            if (wr > width[k])
                width[k] = wr;
        }
    }
    print_cells(out, head, width, on);
    for (int s = 0; s < c->n_steps; s++)
        for (int pass = 0; pass < (c->steps[s].n > 1 ? 2 : 1); pass++) {
            const char *v[NCOLS];
            for (int k = 0; k < NCOLS; k++)
                v[k] = pass ? range[s][k] : cells[s][k];
            print_cells(out, v, width, on);
        }
    free(cells);
    free(range);
    print_steps_notes(out, c, o, any_metrics(c));
}

/* The text output: the step table, significance, the last step against the first, the runs and
 * what changed. */
/* Markdown cell text: '|' escaped, newlines blanked. */
static void md_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

/* ------------------------------------------------------------------ */
/* Waits: where each type's time went, each step against the one before */
/* ------------------------------------------------------------------ */

/* What the waits say of a step against the step before. */
struct step_waits {
    int n[TX_NTYPES]; /* changes of each type; 0: a step has no sample of it */
    struct wdiff_change ch[TX_NTYPES][WDIFF_SHOW + 1]; /* the waits ranked, then CPU */
    struct wdiff_change largest; /* the largest beyond the sampling error */
    int has_largest;
    char why[400]; /* why there are no changes, "" when there are */
};

/* 1 when a run of c has waits: without any, compare says nothing of them. */
static int any_waits(const struct cmp *c)
{
    char why[320];

    for (int i = 0; i < c->n_runs; i++)
        if (wdiff_has(c->runs[i].doc, why, sizeof(why)))
            return 1;
    return 0;
}

/* The records of step st into docs (room for st->n). */
static void step_docs(const struct cmp *c, const struct cmp_step *st, json_t **docs)
{
    for (int i = 0; i < st->n; i++)
        docs[i] = c->runs[st->first + i].doc;
}

/* The waits of step s against step s - 1 into w: 0, or -1 (out of memory). */
static int step_waits(const struct cmp *c, int s, struct step_waits *w)
{
    const struct cmp_step *a = &c->steps[s - 1], *b = &c->steps[s];
    json_t **da = malloc((size_t)a->n * sizeof(*da)), **db = malloc((size_t)b->n * sizeof(*db));
    struct wdiff_side sa, sb;
    char why[320];

    memset(w, 0, sizeof(*w));
    if (!da || !db) {
        free(da);
        free(db);
        return -1;
    }
    step_docs(c, a, da);
    step_docs(c, b, db);
    for (int t = 0; t < TX_NTYPES && !w->why[0]; t++) {
        const char *type = tx_name((enum tx_type)t);
        if (!wdiff_pool(da, a->n, type, &sa, why, sizeof(why)))
            snprintf(w->why, sizeof(w->why), "step %d has no waits: %s", s, why);
        else if (!wdiff_pool(db, b->n, type, &sb, why, sizeof(why)))
            snprintf(w->why, sizeof(w->why), "step %d has no waits: %s", s + 1, why);
        else
            w->n[t] = wdiff_type(&sa, &sb, type, w->ch[t], WDIFF_SHOW + 1);
    }
    if (!w->why[0])
        w->has_largest = wdiff_largest_of(da, a->n, db, b->n, &w->largest, why, sizeof(why));
    free(da);
    free(db);
    return 0;
}

int cmp_step_wait_change(const struct cmp *c, int s, struct wdiff_change *out, char *why,
                         size_t len)
{
    const struct cmp_step *a, *b;
    json_t **da, **db;
    int got;

    if (s < 1 || s >= c->n_steps) {
        snprintf(why, len, "no step before it");
        return 0;
    }
    a = &c->steps[s - 1];
    b = &c->steps[s];
    da = malloc((size_t)a->n * sizeof(*da));
    db = malloc((size_t)b->n * sizeof(*db));
    if (!da || !db) {
        free(da);
        free(db);
        snprintf(why, len, "out of memory");
        return 0;
    }
    step_docs(c, a, da);
    step_docs(c, b, db);
    got = wdiff_largest_of(da, a->n, db, b->n, out, why, len);
    free(da);
    free(db);
    return got;
}

/* The waits section of the text output: per step, per type, the waits that changed most. */
static void print_waits_text(FILE *out, const struct cmp *c)
{
    struct step_waits w;
    char line[1024];

    if (c->n_steps < 2 || !any_waits(c))
        return;
    fprintf(out, "\nwhere the time went (waits: share of each type's samples in the database; "
                 "the waits that changed most, then CPU; (~) within the sampling error):\n");
    for (int s = 1; s < c->n_steps; s++) {
        fprintf(out, "  %d %s (against %d %s):\n", s + 1, c->runs[c->steps[s].first].label, s,
                c->runs[c->steps[s - 1].first].label);
        if (step_waits(c, s, &w) < 0 || w.why[0]) {
            fprintf(out, "      %s\n", w.why[0] ? w.why : "out of memory");
            continue;
        }
        for (int t = 0; t < TX_NTYPES; t++) {
            if (!w.n[t])
                continue;
            wdiff_fmt(line, sizeof(line), w.ch[t], w.n[t]);
            fprintf(out, "      %s: %s\n", tx_name((enum tx_type)t), line);
        }
    }
}

/* The waits section of the markdown output. */
static void print_waits_md(FILE *out, const struct cmp *c)
{
    struct step_waits w;
    char line[1024];

    if (c->n_steps < 2 || !any_waits(c))
        return;
    fprintf(out, "\n**Where the time went** (waits: share of each type's samples in the database; "
                 "the waits that changed most, then CPU; (~) within the sampling error):\n\n");
    for (int s = 1; s < c->n_steps; s++) {
        fprintf(out, "- step %d ", s + 1);
        md_cell(out, c->runs[c->steps[s].first].label);
        if (step_waits(c, s, &w) < 0 || w.why[0]) {
            fputs(": ", out);
            md_cell(out, w.why[0] ? w.why : "out of memory");
            fputc('\n', out);
            continue;
        }
        fputs(":\n", out);
        for (int t = 0; t < TX_NTYPES; t++) {
            if (!w.n[t])
                continue;
            wdiff_fmt(line, sizeof(line), w.ch[t], w.n[t]);
            fprintf(out, "  - `%s`: ", tx_name((enum tx_type)t));
            md_cell(out, line);
            fputc('\n', out);
        }
    }
}

/* The waits of step s against the step before as JSON. */
static json_t *json_waits(const struct cmp *c, int s)
{
    struct step_waits w;
    json_t *o, *bt;

    if (step_waits(c, s, &w) < 0)
        return json_pack("{s:i, s:s}", "against", s, "why", "out of memory");
    if (w.why[0])
        return json_pack("{s:i, s:s}", "against", s, "why", w.why);
    bt = json_object();
    for (int t = 0; t < TX_NTYPES; t++) {
        json_t *a = json_array();
        for (int i = 0; i < w.n[t]; i++)
            json_array_append_new(a, wdiff_json(&w.ch[t][i]));
        json_object_set_new(bt, tx_name((enum tx_type)t), a);
    }
    o = json_pack("{s:i, s:o}", "against", s, "by_type", bt);
    json_object_set_new(o, "largest", w.has_largest ? wdiff_json(&w.largest) : json_null());
    return o;
}

static void print_text(FILE *out, const struct cmp *c)
{
    fprintf(out, "tpccbench compare: %d run%s in %d step%s; NOTPM is TPC-C derived, not audited\n",
            c->n_runs, c->n_runs == 1 ? "" : "s", c->n_steps, c->n_steps == 1 ? "" : "s");
    fprintf(out, "gains: load time old/new - 1, NOTPM and TPS new/old - 1, against the step "
                 "before (and the first)\n\n");
    cmp_print_steps(out, c, NULL);
    if (cmp_any_sig(c))
        print_sig_text(out, c);
    if (c->n_steps > 1) {
        const struct cmp_step *a = &c->steps[0], *b = &c->steps[c->n_steps - 1];
        char l[32], n[32], t[32], p[32];
        cmp_fmt_pct(l, sizeof(l), cmp_gain(CMP_LOAD, a->med[CMP_LOAD], b->med[CMP_LOAD]));
        cmp_fmt_pct(n, sizeof(n), cmp_gain(CMP_NOTPM, a->med[CMP_NOTPM], b->med[CMP_NOTPM]));
        cmp_fmt_pct(t, sizeof(t), cmp_gain(CMP_TPS, a->med[CMP_TPS], b->med[CMP_TPS]));
        cmp_fmt_pct(p, sizeof(p), cmp_gain(CMP_P90, a->med[CMP_P90], b->med[CMP_P90]));
        fprintf(out, "\nstep %d against step 1: load time %s, NOTPM %s, TPS %s, New-Order p90 %s\n",
                c->n_steps, l, n, t, p);
    }
    fprintf(out, "\nruns:\n");
    for (int s = 0; s < c->n_steps; s++)
        for (int i = 0; i < c->steps[s].n; i++) {
            const struct cmp_run *r = &c->runs[c->steps[s].first + i];
            fprintf(out, "  %d %s: %s (%s)\n", s + 1, r->label, r->dir, r->status);
        }
    if (c->n_steps > 1)
        fprintf(out, "\nwhat changed (tool, config and environment, each step against the one "
                     "before):\n");
    for (int s = 1; s < c->n_steps; s++) {
        const struct cmp_step *st = &c->steps[s];
        fprintf(out, "  %d %s (against %d %s):\n", s + 1, c->runs[st->first].label, s,
                c->runs[c->steps[s - 1].first].label);
        if (st->n_diffs == 0)
            fprintf(out, "      nothing that tpccbench records\n");
        for (int i = 0; i < st->n_diffs; i++)
            fprintf(out, "      %s: %s -> %s%s\n", st->diffs[i].key, st->diffs[i].old,
                    st->diffs[i].new_,
                    st->diffs[i].derived ? "  (follows from another change)" : "");
    }
    print_waits_text(out, c);
}

/* Markdown's step table: the text table's columns, min..max in brackets after the median. */
static void print_markdown_steps(FILE *out, const struct cmp *c)
{
    int on[NCOLS];

    shown_cols(c, &plain_opts, on);
    fputc('|', out);
    for (int k = 0; k < NCOLS; k++)
        if (on[k])
            fprintf(out, " %s |", step_cols[k].md_head ? step_cols[k].md_head : step_cols[k].head);
    fprintf(out, "\n|");
    for (int k = 0; k < NCOLS; k++)
        if (on[k])
            fprintf(out, "%s|", step_cols[k].left ? "---" : "---:");
    fputc('\n', out);
    for (int s = 0; s < c->n_steps; s++) {
        char cells[NCOLS][CELL], range[NCOLS][CELL];
        step_cells(c, s, CMP_MARKDOWN, &plain_opts, cells, range);
        fputc('|', out);
        for (int k = 0; k < NCOLS; k++) {
            if (!on[k])
                continue;
            fputc(' ', out);
            md_cell(out, cells[k]);
            if (range[k][0]) {
                fputs(" (", out);
                md_cell(out, range[k]);
                fputc(')', out);
            }
            fputs(" |", out);
        }
        fputc('\n', out);
    }
}

static void print_markdown(FILE *out, const struct cmp *c)
{
    int reps = any_repeats(c);

    fprintf(out, "### tpccbench compare: %d run%s in %d step%s\n\n", c->n_runs,
            c->n_runs == 1 ? "" : "s", c->n_steps, c->n_steps == 1 ? "" : "s");
    fprintf(out,
            "NOTPM is TPC-C derived, not audited. Gains: load time old/new - 1, NOTPM "
            "and TPS new/old - 1, against the step before (and the first)%s.\n\n",
            reps ? "; figures are medians of the repeats, min..max below" : "");
    print_markdown_steps(out, c);
    if (cmp_any_sig(c)) {
        int k = 0, st, base;
        fprintf(out, "\n**Significance**: the gain of the medians and its 95 %% confidence "
                     "interval from the repeats (Welch's t on the logarithms of the figures; "
                     "NO p90: + is slower).\n\n| step | label | against | figure | gain | 95 %% "
                     "CI | verdict |\n|---:|---|---|---|---:|---:|---|\n");
        while (cmp_sig_next(c, &k, &st, &base))
            for (int f = 0; f < CMP_NSIG; f++) {
                struct sig_result r;
                char g[32], ci[64];
                cmp_sig(c, st, base, cmp_sig_metrics[f], &r);
                if (isnan(r.gain))
                    continue;
                cmp_fmt_pct(g, sizeof(g), r.gain);
                cmp_fmt_ci(ci, sizeof(ci), &r);
                fprintf(out, "| %d | ", st + 1);
                md_cell(out, c->runs[c->steps[st].first].label);
                fprintf(out, " | %d ", base + 1);
                md_cell(out, c->runs[c->steps[base].first].label);
                fprintf(out, " | %s | %s | %s | %s |\n", sig_names[f], g, ci,
                        sig_verdict_name(r.verdict));
            }
    }
    if (c->n_steps > 1)
        fprintf(out, "\n**What changed** (each step against the one before):\n\n");
    for (int s = 1; s < c->n_steps; s++) {
        const struct cmp_step *st = &c->steps[s];
        fprintf(out, "- step %d ", s + 1);
        md_cell(out, c->runs[st->first].label);
        fputs(st->n_diffs ? ":" : ": nothing that tpccbench records", out);
        fputc('\n', out);
        for (int i = 0; i < st->n_diffs; i++) {
            fputs("  - `", out);
            md_cell(out, st->diffs[i].key);
            fputs("`: ", out);
            md_cell(out, st->diffs[i].old);
            fputs(" → ", out);
            md_cell(out, st->diffs[i].new_);
            fputs(st->diffs[i].derived ? " (follows from another change)\n" : "\n", out);
        }
    }
    print_waits_md(out, c);
    if (c->n_warnings)
        fputc('\n', out);
    for (int i = 0; i < c->n_warnings; i++) {
        fputs("> **warning**: ", out);
        md_cell(out, c->warnings[i]);
        fputs("\n", out);
    }
}

void cmp_csv_field(FILE *out, const char *s, int last)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
    fputc(last ? '\n' : ',', out);
}

static void csv_num(FILE *out, double v, const char *fmt)
{
    if (isnan(v) || isinf(v)) {
        fputc(',', out);
        return;
    }
    /* fmt is one of our literals below. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    fprintf(out, fmt, v);
#pragma GCC diagnostic pop
    fputc(',', out);
}

static void print_csv(FILE *out, const struct cmp *c)
{
    static const int ms[] = { CMP_LOAD, CMP_NOTPM, CMP_TPS, CMP_P90 + TX_NEW_ORDER };
    static const char *const names[] = { "load_s", "notpm", "tps", "new_order_p90_ms" };
    static const int mms[] = { CMP_CPU,     CMP_IOWAIT,     CMP_DISK,
                               CMP_DBH_CPU, CMP_DBH_IOWAIT, CMP_DBH_DISK };
    static const char *const mnames[] = { "cpu_pct",         "iowait_pct",
                                          "disk_mb_per_s",   "db_host_cpu_pct",
                                          "db_host_iowait_pct", "db_host_disk_mb_per_s" };
    /* The significance columns (when steps have repeats), in the order of cmp_sig_metrics. */
    static const char *const sig_csv[CMP_NSIG] = { "notpm", "tps", "load", "new_order_p90" };
    int sig = cmp_any_sig(c), dur = shown_durable(c, &plain_opts);

    fputs("step,label,change,runs", out);
    for (int k = 0; k < 4; k++) {
        fprintf(out, ",%s,%s_min,%s_max,%s_%s_pct,%s_within_noise", names[k], names[k], names[k],
                names[k],
                k == 0   ? "gain"
                : k == 3 ? "change"
                         : "gain",
                names[k]);
        if (k == 0)
            fputs(",load_s_gain_first_pct", out);
    }
    /* The metrics of the text table's step row; empty cells and a note when a
     * record has none (metrics off, or older than them). */
    for (int k = 0; k < 6; k++)
        fprintf(out, ",%s,%s_min,%s_max", mnames[k], mnames[k], mnames[k]);
    /* The durable column, when the text table shows it. */
    if (dur)
        fputs(",durable,lost", out);
    fputs(sig ? ",metrics_note,changes" : ",metrics_note,changes\n", out);
    for (int f = 0; sig && f < CMP_NSIG; f++)
        for (int against = 0; against < 2; against++)
            fprintf(out, ",%s%s_gain_pct,%s%s_ci_low_pct,%s%s_ci_high_pct,%s%s_verdict%s",
                    sig_csv[f], against ? "_vs_first" : "", sig_csv[f], against ? "_vs_first" : "",
                    sig_csv[f], against ? "_vs_first" : "", sig_csv[f], against ? "_vs_first" : "",
                    f == CMP_NSIG - 1 && against ? "\n" : "");
    for (int s = 0; s < c->n_steps; s++) {
        const struct cmp_step *st = &c->steps[s];
        const struct cmp_run *r = &c->runs[st->first];
        char buf[4096];
        size_t o = 0;
        fprintf(out, "%d,", s + 1);
        cmp_csv_field(out, r->label, 0);
        cmp_csv_field(out, r->change, 0);
        fprintf(out, "%d,", st->n);
        for (int k = 0; k < 4; k++) {
            int m = ms[k];
            double g = s ? cmp_gain(m, c->steps[s - 1].med[m], st->med[m]) : NAN;
            csv_num(out, st->med[m], "%.6g");
            csv_num(out, st->lo[m], "%.6g");
            csv_num(out, st->hi[m], "%.6g");
            csv_num(out, g * 100.0, "%.2f");
            fprintf(out, "%d,", s ? cmp_within_noise(c, s, s - 1, m) : 0);
            if (k == 0)
                csv_num(out, s ? cmp_gain(m, c->steps[0].med[m], st->med[m]) * 100.0 : NAN, "%.2f");
        }
        for (int k = 0; k < 6; k++) {
            csv_num(out, st->med[mms[k]], "%.6g");
            csv_num(out, st->lo[mms[k]], "%.6g");
            csv_num(out, st->hi[mms[k]], "%.6g");
        }
        if (dur) {
            char cell[CELL];
            int64_t most;
            step_durable(c, s, cell, &most);
            cmp_csv_field(out, cell, 0);
            if (most >= 0)
                fprintf(out, "%lld", (long long)most);
            fputc(',', out);
        }
        cmp_csv_field(out, step_metrics_note(c, st), 0);
        buf[0] = '\0';
        for (int i = 0; i < st->n_diffs && o + 1 < sizeof(buf); i++) {
            int w = snprintf(buf + o, sizeof(buf) - o, "%s%s: %s -> %s%s", i ? "; " : "",
                             st->diffs[i].key, st->diffs[i].old, st->diffs[i].new_,
                             st->diffs[i].derived ? " (derived)" : "");
            if (w < 0)
                break;
            o += (size_t)w;
        }
        cmp_csv_field(out, buf, !sig);
        for (int f = 0; sig && f < CMP_NSIG; f++)
            for (int against = 0; against < 2; against++) {
                struct sig_result sr = { .gain = NAN, .lo = NAN, .hi = NAN };
                int last = f == CMP_NSIG - 1 && against;
                if (s > 0 && (against == 0 || s > 1))
                    cmp_sig(c, s, against ? 0 : s - 1, cmp_sig_metrics[f], &sr);
                csv_num(out, sr.gain * 100.0, "%.2f");
                csv_num(out, sr.lo * 100.0, "%.2f");
                csv_num(out, sr.hi * 100.0, "%.2f");
                fprintf(out, "%s%s", isnan(sr.gain) ? "" : sig_verdict_name(sr.verdict),
                        last ? "\n" : ",");
            }
    }
}

json_t *cmp_jnum(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

void cmp_json_print(FILE *out, json_t *doc)
{
    json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    json_decref(doc);
}

static json_t *jfig(const struct cmp_step *st, int m)
{
    return json_pack("{s:o, s:o, s:o}", "median", cmp_jnum(st->med[m]), "min", cmp_jnum(st->lo[m]),
                     "max", cmp_jnum(st->hi[m]));
}

/* The json's "gate": each rule's verdict (the durability rule's step, tripped). */
static json_t *json_gate(const struct cmp_rule *rules, const struct cmp_verdict *verdicts,
                         int n_rules)
{
    json_t *gate = json_array();

    for (int i = 0; i < n_rules; i++) {
        char mn[32];
        json_array_append_new(
            gate, json_pack("{s:s, s:s, s:o, s:o, s:o, s:b, s:b}", "rule", rules[i].text, "metric",
                            rules[i].lost ? "lost" : cmp_metric_name(rules[i].metric, mn,
                                                                     sizeof(mn)), "old",
                            cmp_jnum(verdicts[i].old_v), "new", cmp_jnum(verdicts[i].new_v),
                            "change_pct", cmp_jnum(verdicts[i].change_pct), "tripped",
                            verdicts[i].tripped, "within_noise", verdicts[i].within_noise));
        if (rules[i].lost && verdicts[i].tripped)
            json_object_set_new(json_array_get(gate, json_array_size(gate) - 1), "step",
                                json_pack("{s:i, s:s, s:i}", "step", verdicts[i].lost_step + 1,
                                          "label", verdicts[i].lost_label, "steps_lost",
                                          verdicts[i].n_steps_lost));
        if (verdicts[i].by_interval) {
            json_t *g = json_array_get(gate, json_array_size(gate) - 1);
            json_object_set_new(g, "ci_low_pct", cmp_jnum(verdicts[i].ci_lo_pct));
            json_object_set_new(g, "ci_high_pct", cmp_jnum(verdicts[i].ci_hi_pct));
            json_object_set_new(g, "judged_by", json_string("interval"));
        }
    }
    return gate;
}

static void print_json(FILE *out, const struct cmp *c, const struct cmp_rule *rules,
                       const struct cmp_verdict *verdicts, int n_rules)
{
    json_t *doc = json_object(), *steps = json_array(), *warn = json_array();

    json_object_set_new(doc, "metric", json_string("NOTPM (TPC-C derived, not audited)"));
    json_object_set_new(doc, "gains",
                        json_string("load time: old/new - 1; NOTPM, TPS: new/old - 1; "
                                    "latency: new/old - 1"));
    for (int s = 0; s < c->n_steps; s++) {
        const struct cmp_step *st = &c->steps[s];
        const struct cmp_run *r = &c->runs[st->first];
        json_t *o = json_object(), *runs = json_array(), *ch = json_array(), *p90 = json_object(),
               *p99 = json_object();
        for (int i = 0; i < st->n; i++)
            json_array_append_new(runs, json_string(c->runs[st->first + i].path));
        json_object_set_new(o, "step", json_integer(s + 1));
        json_object_set_new(o, "label", json_string(r->label));
        json_object_set_new(o, "change", json_string(r->change));
        json_object_set_new(o, "runs", runs);
        json_object_set_new(o, "load_s", jfig(st, CMP_LOAD));
        json_object_set_new(o, "notpm", jfig(st, CMP_NOTPM));
        json_object_set_new(o, "tps", jfig(st, CMP_TPS));
        for (int t = 0; t < TX_NTYPES; t++) {
            json_object_set_new(p90, tx_name((enum tx_type)t), jfig(st, CMP_P90 + t));
            json_object_set_new(p99, tx_name((enum tx_type)t), jfig(st, CMP_P99 + t));
        }
        json_object_set_new(o, "p90_ms", p90);
        json_object_set_new(o, "p99_ms", p99);
        json_object_set_new(o, "metrics",
                            json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "cpu_pct",
                                      jfig(st, CMP_CPU), "iowait_pct", jfig(st, CMP_IOWAIT),
                                      "disk_mb_per_s", jfig(st, CMP_DISK), "db_host_cpu_pct",
                                      jfig(st, CMP_DBH_CPU), "db_host_iowait_pct",
                                      jfig(st, CMP_DBH_IOWAIT), "db_host_disk_mb_per_s",
                                      jfig(st, CMP_DBH_DISK)));
        if (step_metrics_note(c, st)[0])
            json_object_set_new(json_object_get(o, "metrics"), "note",
                                json_string(step_metrics_note(c, st)));
        if (s > 0) {
            const struct cmp_step *pv = &c->steps[s - 1], *f = &c->steps[0];
            json_object_set_new(
                o, "gain_pct",
                json_pack(
                    "{s:o, s:o, s:o, s:o, s:o}", "load",
                    cmp_jnum(100 * cmp_gain(CMP_LOAD, pv->med[CMP_LOAD], st->med[CMP_LOAD])),
                    "load_vs_first",
                    cmp_jnum(100 * cmp_gain(CMP_LOAD, f->med[CMP_LOAD], st->med[CMP_LOAD])),
                    "notpm",
                    cmp_jnum(100 * cmp_gain(CMP_NOTPM, pv->med[CMP_NOTPM], st->med[CMP_NOTPM])),
                    "tps", cmp_jnum(100 * cmp_gain(CMP_TPS, pv->med[CMP_TPS], st->med[CMP_TPS])),
                    "new_order_p90_change",
                    cmp_jnum(100 * cmp_gain(CMP_P90, pv->med[CMP_P90], st->med[CMP_P90]))));
            json_object_set_new(o, "within_noise",
                                json_pack("{s:b, s:b, s:b, s:b, s:b}", "load",
                                          cmp_within_noise(c, s, s - 1, CMP_LOAD), "load_vs_first",
                                          cmp_within_noise(c, s, 0, CMP_LOAD), "notpm",
                                          cmp_within_noise(c, s, s - 1, CMP_NOTPM), "tps",
                                          cmp_within_noise(c, s, s - 1, CMP_TPS),
                                          "new_order_p90_change",
                                          cmp_within_noise(c, s, s - 1, CMP_P90)));
        }
        for (int i = 0; i < st->n_diffs; i++)
            json_array_append_new(ch, json_pack("{s:s, s:s, s:s, s:s, s:b}", "key",
                                                st->diffs[i].key, "path", st->diffs[i].path, "old",
                                                st->diffs[i].old, "new", st->diffs[i].new_,
                                                "derived", st->diffs[i].derived));
        if (s > 0 && cmp_any_sig(c)) {
            json_t *sg = json_array();
            for (int base = s - 1; base >= 0; base = base ? 0 : -1) {
                for (int f = 0; f < CMP_NSIG; f++) {
                    struct sig_result sr;
                    cmp_sig(c, s, base, cmp_sig_metrics[f], &sr);
                    if (isnan(sr.gain))
                        continue;
                    json_array_append_new(
                        sg, json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:i, s:i, s:s}", "against",
                                      base + 1, "metric", sig_keys[f], "gain", cmp_jnum(sr.gain),
                                      "ci_low", cmp_jnum(sr.lo), "ci_high", cmp_jnum(sr.hi), "df",
                                      cmp_jnum(sr.df), "n_old", sr.n_old, "n_new", sr.n_new,
                                      "verdict", sig_verdict_name(sr.verdict)));
                }
                if (base == 0)
                    break;
            }
            json_object_set_new(o, "significance", sg);
        }
        json_object_set_new(o, "changes", ch);
        json_object_set_new(o, "n_changes", json_integer(st->n_changes));
        if (s > 0)
            json_object_set_new(o, "waits", json_waits(c, s));
        if (shown_durable(c, &plain_opts)) {
            char cell[CELL];
            int64_t most;
            step_durable(c, s, cell, &most);
            json_object_set_new(o, "durable", json_string(cell));
            json_object_set_new(o, "lost", most >= 0 ? json_integer(most) : json_null());
        }
        json_array_append_new(steps, o);
    }
    for (int i = 0; i < c->n_warnings; i++)
        json_array_append_new(warn, json_string(c->warnings[i]));
    json_object_set_new(doc, "steps", steps);
    json_object_set_new(doc, "warnings", warn);
    json_object_set_new(doc, "gate", json_gate(rules, verdicts, n_rules));
    cmp_json_print(out, doc);
}

void cmp_print(FILE *out, const struct cmp *c, int format, const struct cmp_rule *rules,
               const struct cmp_verdict *verdicts, int n_rules)
{
    switch (format) {
    case CMP_MARKDOWN:
        print_markdown(out, c);
        break;
    case CMP_CSV:
        print_csv(out, c);
        break;
    case CMP_JSON:
        print_json(out, c, rules, verdicts, n_rules);
        break;
    default:
        print_text(out, c);
        break;
    }
}
