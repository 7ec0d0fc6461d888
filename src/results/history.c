/*
 * history.c - read run records through the folders' indexes, group them
 * into series, find their change points, say what changed there, judge the
 * gate (see history.h).  Output is in historyfmt.c.  Reads and writes index
 * files; never exits.
 */
#include "results/history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/jskim.h"
#include "results/record.h"

/* The deepest folder below an argument that is searched for run folders. */
#define MAX_DEPTH 8
/* Fields of an index line before the figures. */
#define N_HEAD HISTORY_INDEX_HEAD

/* ------------------------------------------------------------------ */
/* A record's line                                                      */
/* ------------------------------------------------------------------ */


/* Copy s into out with tabs and line ends made blanks (an index field). */
static void field(char *out, size_t len, const char *s)
{
    size_t k = 0;

    for (; s && *s && k + 1 < len; s++)
        out[k++] = (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s;
    out[k] = '\0';
}

/* The text of v for the series key: a string as it is, a number as %g, "?" when absent. */
static const char *key_part(json_t *v, char *buf, size_t len)
{
    if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_number(v))
        snprintf(buf, len, "%g", json_number_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "on" : "off");
    else
        snprintf(buf, len, "?");
    return buf;
}

/* The series of doc as text: what must be equal for two runs to be one benchmark. */
static void series_key(json_t *doc, char *out, size_t len)
{
    char k[32], w[32], t[32], c[32], mode[32], th[8], iso[64], d[32], db[64], mix[64];
    json_t *m = cmp_jpath(doc, "config.run.mix");
    size_t o = 0;

    mix[0] = '\0';
    for (int i = 0; i < TX_NTYPES && o < sizeof(mix); i++) {
        json_t *v = json_object_get(m, tx_name((enum tx_type)i));
        char part[24];
        int wr = snprintf(mix + o, sizeof(mix) - o, "%s%s", i ? "/" : "",
                          key_part(json_is_integer(v) ? v : NULL, part, sizeof(part)));
        if (wr < 0)
            break;
        o += (size_t)wr;
    }
    snprintf(out, len,
             "%s, W=%s, %s terminals, %s connections, %s mode, mix %s, think time %s, %s, "
             "%s s, %s",
             key_part(json_object_get(doc, "kind"), k, sizeof(k)),
             key_part(cmp_jpath(doc, "config.schema.warehouses"), w, sizeof(w)),
             key_part(cmp_jpath(doc, "run.terminals.count"), t, sizeof(t)),
             key_part(cmp_jpath(doc, "run.terminals.connections"), c, sizeof(c)),
             key_part(cmp_jpath(doc, "run.mode"), mode, sizeof(mode)), mix,
             key_part(cmp_jpath(doc, "config.run.think_time"), th, sizeof(th)),
             key_part(cmp_jpath(doc, "config.run.isolation"), iso, sizeof(iso)),
             key_part(cmp_jpath(doc, "config.run.duration_s"), d, sizeof(d)),
             key_part(cmp_jpath(doc, "environment.dbms.name"), db, sizeof(db)));
}

/* Why a record (kind, status) is left out, "" when it is usable. */
static void why_out(json_t *doc, const struct cmp_run *r, char *out, size_t len)
{
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    out[0] = '\0';
    if (kind && strcmp(kind, "load") == 0)
        snprintf(out, len, "a load's record (no run)");
    else if (!kind || (strcmp(kind, "run") != 0 && strcmp(kind, "bench") != 0))
        snprintf(out, len, "kind '%s' (not a run or a bench)", kind ? kind : "none");
    else if (strcmp(r->status, "complete") != 0) {
        /* A "running" one: still running, or crashed (pid N gone). */
        char life[160];
        if (record_liveness(doc, life, sizeof(life)) != RECORD_ENDED)
            snprintf(out, len, "%.70s (not complete)", life);
        else
            snprintf(out, len, "status '%s' (not complete)", r->status[0] ? r->status : "none");
    }
    else if (isnan(r->v[CMP_NOTPM]))
        snprintf(out, len, "no run figures");
}

/* Fill rec from doc of run folder name: doc is the caller's and left as it is when copy,
 * else taken (and freed). */
static void rec_from_doc(struct history_rec *rec, const char *name, json_t *doc, int copy)
{
    struct cmp_run r;
    struct err e;
    json_t *d = copy ? json_deep_copy(doc) : doc;

    memset(&r, 0, sizeof(r));
    field(rec->name, sizeof(rec->name), name);
    for (int m = 0; m < CMP_NMETRICS; m++)
        rec->v[m] = NAN;
    rec->custom = NAN;
    if (!d || cmp_run_from_json(&r, d, name, &e) < 0) {
        snprintf(rec->why, sizeof(rec->why), "unreadable (%.80s)", d ? e.msg : "no memory");
        field(rec->why, sizeof(rec->why), rec->why);
        cmp_run_release(&r);
        return;
    }
    field(rec->started, sizeof(rec->started), r.started);
    field(rec->label, sizeof(rec->label), r.label);
    series_key(d, rec->key, sizeof(rec->key));
    field(rec->key, sizeof(rec->key), rec->key);
    memcpy(rec->v, r.v, sizeof(rec->v));
    why_out(d, &r, rec->why, sizeof(rec->why));
    field(rec->why, sizeof(rec->why), rec->why);
    cmp_run_release(&r); /* frees d */
}

static long long mtime_ns(const struct stat *st)
{
    return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* The line of rec (no newline). */
static void rec_line(const struct history_rec *rec, const struct stat *st, char *buf, size_t len)
{
    size_t o;
    int w =
        snprintf(buf, len, "%s\t%lld\t%lld\t%s\t%s\t%s\t%s", rec->name, (long long)st->st_size,
                 mtime_ns(st), rec->why[0] ? rec->why : "ok", rec->started, rec->label, rec->key);

    o = w < 0 ? 0 : (size_t)w;
    for (int m = 0; m < CMP_NMETRICS && o < len; m++) {
        w = isnan(rec->v[m]) ? snprintf(buf + o, len - o, "\t-")
                             : snprintf(buf + o, len - o, "\t%.10g", rec->v[m]);
        if (w < 0)
            break;
        o += (size_t)w;
    }
}

void history_index_line(const char *name, const struct stat *st, json_t *doc, char *buf, size_t len)
{
    struct history_rec rec;

    memset(&rec, 0, sizeof(rec));
    rec_from_doc(&rec, name, doc, 1);
    rec_line(&rec, st, buf, len);
}

int history_index_append(const char *run_dir, json_t *doc, struct err *e)
{
    char parent[PATH_MAX], idx[PATH_MAX + 32], rj[PATH_MAX + 32], line[4096], eb[128];
    const char *slash = strrchr(run_dir, '/');
    struct stat st;
    size_t n;
    int fd;

    if (slash)
        snprintf(parent, sizeof(parent), "%.*s", (int)(slash == run_dir ? 1 : slash - run_dir),
                 run_dir);
    else
        snprintf(parent, sizeof(parent), ".");
    snprintf(idx, sizeof(idx), "%s/%s", parent, HISTORY_INDEX_NAME);
    snprintf(rj, sizeof(rj), "%s/run.json", run_dir);
    if (stat(idx, &st) < 0 || stat(rj, &st) < 0)
        return 0; /* no index yet: history builds it when first asked */
    history_index_line(slash ? slash + 1 : run_dir, &st, doc, line, sizeof(line) - 1);
    n = strlen(line);
    line[n++] = '\n';
    fd = open(idx, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return err_set(e, E_FAIL, "cannot append to '%s': %s", idx,
                       err_errno(errno, eb, sizeof(eb)));
    /* One write of a line under PIPE_BUF: appended whole, never interleaved. */
    if (write(fd, line, n) != (ssize_t)n) {
        int saved = errno;
        close(fd);
        return err_set(e, E_FAIL, "cannot append to '%s': %s", idx,
                       err_errno(saved, eb, sizeof(eb)));
    }
    close(fd);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The index of one folder                                              */
/* ------------------------------------------------------------------ */

/* A line of the index, parsed. */
struct ientry {
    struct history_rec rec;
    long long size, mtime;
    int line; /* its line number: the last of a name wins */
};

/* A run folder found in the folder. */
struct cand {
    char name[160];
    struct stat st; /* of its run.json */
};

/* Parse one line (no newline) into ie: 0, or -1 with what is wrong in why. */
static int parse_line(char *s, struct ientry *ie, char *why, size_t len)
{
    char *f[N_HEAD + CMP_NMETRICS], *end;
    int n = 0;

    memset(ie, 0, sizeof(*ie));
    for (char *p = s;;) {
        char *t;
        if (n == N_HEAD + CMP_NMETRICS)
            return snprintf(why, len, "more than %d fields", N_HEAD + CMP_NMETRICS), -1;
        f[n++] = p;
        if (!(t = strchr(p, '\t')))
            break;
        *t = '\0';
        p = t + 1;
    }
    if (n != N_HEAD + CMP_NMETRICS)
        return snprintf(why, len, "%d fields, not %d", n, N_HEAD + CMP_NMETRICS), -1;
    if (!f[0][0] || strchr(f[0], '/'))
        return snprintf(why, len, "no run folder name"), -1;
    snprintf(ie->rec.name, sizeof(ie->rec.name), "%s", f[0]);
    ie->size = strtoll(f[1], &end, 10);
    if (*end || end == f[1])
        return snprintf(why, len, "size '%.20s' is not a number", f[1]), -1;
    ie->mtime = strtoll(f[2], &end, 10);
    if (*end || end == f[2])
        return snprintf(why, len, "time '%.20s' is not a number", f[2]), -1;
    snprintf(ie->rec.why, sizeof(ie->rec.why), "%s", strcmp(f[3], "ok") == 0 ? "" : f[3]);
    snprintf(ie->rec.started, sizeof(ie->rec.started), "%s", f[4]);
    snprintf(ie->rec.label, sizeof(ie->rec.label), "%s", f[5]);
    snprintf(ie->rec.key, sizeof(ie->rec.key), "%s", f[6]);
    for (int m = 0; m < CMP_NMETRICS; m++) {
        const char *v = f[N_HEAD + m];
        ie->rec.v[m] = strcmp(v, "-") == 0 ? NAN : strtod(v, &end);
        if (strcmp(v, "-") != 0 && (*end || end == v))
            return snprintf(why, len, "figure '%.20s' is not a number", v), -1;
    }
    ie->rec.custom = NAN;
    return 0;
}

static int ientry_cmp(const void *a, const void *b)
{
    const struct ientry *x = a, *y = b;
    int c = strcmp(x->rec.name, y->rec.name);

    return c ? c : x->line - y->line;
}

/* One line of the index (its newline still on, got bytes) into a[*n]: 0, or -2 with why. */
static int index_line(char *line, ssize_t got, int lineno, struct ientry **a, int *n, int *cap,
                      char *why, size_t len)
{
    char w[96];

    if (got == 0 || line[got - 1] != '\n')
        return snprintf(why, len, "line %d: cut short (no line end)", lineno), -2;
    line[got - 1] = '\0';
    if (lineno == 1) {
        if (strcmp(line, HISTORY_INDEX_HEADER) != 0)
            return snprintf(why, len, "line 1: not '%s'", HISTORY_INDEX_HEADER), -2;
        return 0;
    }
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 256;
        struct ientry *na = realloc(*a, sizeof(*na) * (size_t)nc);
        if (!na)
            return snprintf(why, len, "out of memory"), -2;
        *a = na;
        *cap = nc;
    }
    if (parse_line(line, &(*a)[*n], w, sizeof(w)) < 0)
        return snprintf(why, len, "line %d: %s", lineno, w), -2;
    (*a)[(*n)++].line = lineno;
    return 0;
}

/* Read the index of dir into *out (sorted by name, one per name: the last line): its count
 * (*lines: how many lines it had); -1 missing; -2 damaged (why says where). */
static int index_read(const char *dir, struct ientry **out, int *lines, char *why, size_t len)
{
    char path[PATH_MAX], *line = NULL;
    size_t cap = 0;
    ssize_t got;
    struct ientry *a = NULL;
    int n = 0, acap = 0, lineno = 0, rc = 0, k = 0;
    FILE *f;

    *out = NULL;
    *lines = 0;
    snprintf(path, sizeof(path), "%s/%s", dir, HISTORY_INDEX_NAME);
    if (!(f = fopen(path, "r")))
        return -1;
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0)
        rc = index_line(line, got, ++lineno, &a, &n, &acap, why, len);
    free(line);
    fclose(f);
    if (rc == 0 && lineno == 0) {
        snprintf(why, len, "empty");
        rc = -2;
    }
    if (rc < 0) {
        free(a);
        return rc;
    }
    if (n)
        qsort(a, (size_t)n, sizeof(*a), ientry_cmp);
    for (int i = 0; i < n; i++) /* keep the last line of each name */
        if (i + 1 == n || strcmp(a[i].rec.name, a[i + 1].rec.name) != 0)
            a[k++] = a[i];
    *out = a;
    *lines = n;
    return k;
}

/* The entry named name in the sorted a[0..n), or NULL. */
static struct ientry *ientry_find(struct ientry *a, int n, const char *name)
{
    int lo = 0, hi = n;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(a[mid].rec.name, name);
        if (c == 0)
            return &a[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/*
 * What of a record rec_from_doc reads (compare's figures and the shape it
 * checks, the series key, the status and liveness): parsed, the rest of the
 * record cut before parsing (results/jskim.h).  A record is about 250 KB,
 * nearly all latency histograms, settings and metrics history does not
 * use, and parsing all of it made a first history of 10,000 records take
 * 40 s.  A new read in rec_from_doc must add its path here (test_history
 * checks that a record's index line is the same either way).
 */
static const char *const read_paths[] = {
    "tool",
    "kind",
    "status",
    "started",
    "label",
    "change",
    "process",
    "config.schema",
    "config.run",
    "environment.dbms.name",
    "load.seconds",
    "load.phase_reached",
    "run.notpm",
    "run.tps",
    "run.mode",
    "run.terminals.count",
    "run.terminals.connections",
    "run.transactions.*.p90_ms",
    "run.transactions.*.p99_ms",
    "run.validity.valid",
    "metrics.columns.*.mean",
    "metrics.columns.*.note",
};

/* Read the record of dir/name into rec (its why says when it cannot be read). */
static void rec_read(struct history_rec *rec, const char *dir, const char *name)
{
    char path[PATH_MAX];
    json_error_t je;
    json_t *doc;

    memset(rec, 0, sizeof(*rec));
    snprintf(path, sizeof(path), "%s/%s/run.json", dir, name);
    if (!(doc = jskim_load_file(path, read_paths, (int)(sizeof(read_paths) / sizeof(read_paths[0])),
                                JSON_REJECT_DUPLICATES, &je))) {
        field(rec->name, sizeof(rec->name), name);
        for (int m = 0; m < CMP_NMETRICS; m++)
            rec->v[m] = NAN;
        rec->custom = NAN;
        snprintf(rec->why, sizeof(rec->why), "unreadable (line %d: %.60s)", je.line, je.text);
        field(rec->why, sizeof(rec->why), rec->why);
        return;
    }
    rec_from_doc(rec, name, doc, 0);
}

/* Write the index of dir from recs[0..n) with their stats, atomically. */
static int index_write(const char *dir, const struct history_rec *recs, const struct cand *c, int n,
                       struct err *e)
{
    size_t cap = 4096 + (size_t)n * 512, o;
    char *buf = malloc(cap);
    int rc;

    if (!buf)
        return err_set(e, E_FAIL, "out of memory");
    o = (size_t)snprintf(buf, cap, "%s\n", HISTORY_INDEX_HEADER);
    for (int i = 0; i < n; i++) {
        char line[4096];
        size_t l;
        rec_line(&recs[i], &c[i].st, line, sizeof(line));
        l = strlen(line);
        if (o + l + 2 > cap) {
            char *nb = realloc(buf, cap = cap * 2 + l);
            if (!nb) {
                free(buf);
                return err_set(e, E_FAIL, "out of memory");
            }
            buf = nb;
        }
        memcpy(buf + o, line, l);
        o += l;
        buf[o++] = '\n';
    }
    rc = record_write_file(dir, HISTORY_INDEX_NAME, buf, o, e);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Reading folders                                                      */
/* ------------------------------------------------------------------ */

static void note(const struct history_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const struct history_opts *o, const char *fmt, ...)
{
    va_list ap;

    if (!o->notes)
        return;
    va_start(ap, fmt);
    fputs("history: ", o->notes);
    vfprintf(o->notes, fmt, ap);
    fputc('\n', o->notes);
    va_end(ap);
}

static void count_reason(struct history_set *s, const char *why)
{
    char shortwhy[96];
    int i;

    /* "unreadable (line 3: ...)" counts as one reason with the first example kept. */
    snprintf(shortwhy, sizeof(shortwhy), "%s", why);
    for (i = 0; i < s->n_reasons; i++)
        if (strncmp(s->reasons[i], shortwhy, strcspn(shortwhy, "(")) == 0)
            break;
    if (i == s->n_reasons) {
        if (i == HISTORY_MAX_REASONS)
            i--;
        else
            snprintf(s->reasons[s->n_reasons++], sizeof(s->reasons[0]), "%s", shortwhy);
    }
    s->n_reason[i]++;
}

/* Within --label, --since, --until. */
static int wanted(const struct history_opts *o, const struct history_rec *r)
{
    if (o->label_glob && fnmatch(o->label_glob, r->label, 0) != 0)
        return 0;
    if (o->since && strncmp(r->started, o->since, strlen(o->since)) < 0)
        return 0;
    if (o->until && strncmp(r->started, o->until, strlen(o->until)) > 0)
        return 0;
    return 1;
}

/* The figure at o->metric_path in the record of r, NAN when absent. */
static double custom_figure(const char *path, const struct history_rec *r)
{
    char p[PATH_MAX];
    json_t *doc, *v;
    double x = NAN;

    snprintf(p, sizeof(p), "%s/run.json", r->dir);
    if (!(doc = json_load_file(p, 0, NULL)))
        return NAN;
    v = cmp_jpath(doc, path);
    if (json_is_number(v))
        x = json_number_value(v);
    json_decref(doc);
    return x;
}

/* Add rec (from run folder dir) to s, or count why it is left out.  Takes nothing. */
static int set_add(struct history_set *s, const struct history_opts *o, const struct history_rec *rec,
                   const char *dir, struct err *e)
{
    s->n_read++;
    if (rec->why[0]) {
        count_reason(s, rec->why);
        return 0;
    }
    if (!wanted(o, rec)) {
        s->n_filtered++;
        return 0;
    }
    if (s->n == s->cap) {
        int nc = s->cap ? s->cap * 2 : 256;
        struct history_rec *nr = realloc(s->recs, sizeof(*nr) * (size_t)nc);
        if (!nr)
            return err_set(e, E_FAIL, "out of memory");
        s->recs = nr;
        s->cap = nc;
    }
    s->recs[s->n] = *rec;
    if (!(s->recs[s->n].dir = strdup(dir)))
        return err_set(e, E_FAIL, "out of memory");
    if (o->metric_path)
        s->recs[s->n].custom = custom_figure(o->metric_path, &s->recs[s->n]);
    s->n++;
    return 0;
}

static int cand_cmp(const void *a, const void *b)
{
    return strcmp(((const struct cand *)a)->name, ((const struct cand *)b)->name);
}

/* The run folders c[0..n) of dir, through its index (brought up to date when it is not). */
static int index_scan(const char *dir, struct cand *c, int n, struct history_set *s,
                      const struct history_opts *o, struct err *e)
{
    struct ientry *ix = NULL;
    struct history_rec *recs = calloc((size_t)n + 1, sizeof(*recs));
    char why[160] = "";
    int lines, nix = index_read(dir, &ix, &lines, why, sizeof(why)), fresh = 0, known = 0, rc = 0;

    if (!recs) {
        free(ix);
        return err_set(e, E_FAIL, "out of memory");
    }
    qsort(c, (size_t)n, sizeof(*c), cand_cmp);
    for (int i = 0; i < n; i++) {
        struct ientry *ie = nix > 0 ? ientry_find(ix, nix, c[i].name) : NULL;
        known += ie != NULL;
        if (ie && ie->size == (long long)c[i].st.st_size && ie->mtime == mtime_ns(&c[i].st)) {
            recs[i] = ie->rec;
            continue;
        }
        rec_read(&recs[i], dir, c[i].name);
        fresh++;
    }
    if (nix == -1)
        note(o, "'%s/%s' is missing: built from the %d records", dir, HISTORY_INDEX_NAME, n);
    else if (nix == -2)
        note(o, "'%s/%s' is damaged (%s): rebuilt from the %d records", dir, HISTORY_INDEX_NAME, why,
             n);
    else if (fresh || known != nix)
        note(o, "'%s/%s' was stale (%d records new or changed, %d gone): brought up to date", dir,
             HISTORY_INDEX_NAME, fresh, nix - known);
    /* Rewritten when not up to date, and (silently) when the lines of runs written twice
     * (at their start and end) have come to outnumber the runs. */
    if (nix < 0 || fresh || known != nix || lines > 2 * n) {
        struct err we;
        if (index_write(dir, recs, c, n, &we) < 0)
            note(o, "the index was not written (%s): the next history reads the records again",
                 we.msg);
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        char rd[PATH_MAX];
        snprintf(rd, sizeof(rd), "%s/%s", dir, c[i].name);
        rc = set_add(s, o, &recs[i], rd, e);
    }
    free(ix);
    free(recs);
    return rc;
}

/* Add run folder name (its run.json is st) to c[0..*n): 0, or -1 out of memory. */
static int cand_add(struct cand **c, int *n, int *cap, const char *name, const struct stat *st)
{
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 256;
        struct cand *na = realloc(*c, sizeof(*na) * (size_t)nc);
        if (!na)
            return -1;
        *c = na;
        *cap = nc;
    }
    snprintf((*c)[*n].name, sizeof((*c)[*n].name), "%s", name);
    (*c)[(*n)++].st = *st;
    return 0;
}

/* Whether folder p is to be searched below: not a PostgreSQL data directory (the
 * managed server's pgdata/ in a results folder), which holds no records. */
static int searched(const char *p)
{
    char v[PATH_MAX + 16];

    snprintf(v, sizeof(v), "%s/PG_VERSION", p);
    return access(v, F_OK) != 0;
}

/* The run folders of dir through its index, then the folders below it that are not run
 * folders (study folders, results folders), depth levels down at most.  A folder below
 * that cannot be opened is passed over (top: it is an argument, and an error). */
static int scan_dir(const char *dir, int depth, int top, struct history_set *s,
                    const struct history_opts *o, struct err *e)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    struct cand *c = NULL;
    char **sub = NULL;
    int n = 0, cap = 0, nsub = 0, rc = 0;

    if (!d)
        return top ? err_set(e, E_USAGE, "cannot open folder '%s'", dir) : 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        char p[PATH_MAX], rj[PATH_MAX + 16];
        struct stat st;
        /* A folder says so in its entry on most file systems: one stat less per run. */
        if (de->d_name[0] == '.' ||
            snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= (int)sizeof(p) ||
            (de->d_type != DT_DIR && (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))))
            continue;
        snprintf(rj, sizeof(rj), "%s/run.json", p);
        if (stat(rj, &st) == 0 && S_ISREG(st.st_mode) && strlen(de->d_name) < sizeof(c->name)) {
            if (cand_add(&c, &n, &cap, de->d_name, &st) < 0)
                rc = err_set(e, E_FAIL, "out of memory");
        } else if (depth > 0 && searched(p)) {
            char **ns = realloc(sub, sizeof(*sub) * (size_t)(nsub + 1));
            if (ns)
                sub = ns;
            if (!ns || !(sub[nsub] = strdup(p)))
                rc = err_set(e, E_FAIL, "out of memory");
            else
                nsub++;
        }
    }
    closedir(d);
    if (rc == 0 && n > 0)
        rc = index_scan(dir, c, n, s, o, e);
    for (int i = 0; i < nsub; i++) {
        if (rc == 0)
            rc = scan_dir(sub[i], depth - 1, 0, s, o, e);
        free(sub[i]);
    }
    free(sub);
    free(c);
    return rc;
}

/* One run folder or run.json given by name: read it (no index). */
static int add_one(const char *arg, struct history_set *s, const struct history_opts *o, struct err *e)
{
    struct cmp_run r;
    struct history_rec rec;
    int rc;

    if ((rc = cmp_run_load(&r, arg, e)) < 0) {
        cmp_run_release(&r);
        return rc;
    }
    memset(&rec, 0, sizeof(rec));
    rec_from_doc(&rec, r.name, r.doc, 1);
    rc = set_add(s, o, &rec, r.dir, e);
    cmp_run_release(&r);
    return rc;
}

int history_load(const char *const *args, int nargs, const struct history_opts *o, struct history_set *s,
              struct err *e)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        char p[PATH_MAX];
        int rc;
        if (stat(args[i], &st) < 0)
            return err_set(e, E_USAGE,
                           "'%s': no such file or folder (give run folders, run.json files or "
                           "folders of them)",
                           args[i]);
        snprintf(p, sizeof(p), "%s/run.json", args[i]);
        if (S_ISDIR(st.st_mode) && access(p, F_OK) != 0) {
            int before = s->n_read;
            if ((rc = scan_dir(args[i], MAX_DEPTH, 1, s, o, e)) < 0)
                return rc;
            if (s->n_read == before)
                return err_set(e, E_USAGE,
                               "'%s' holds no run folders (folders with a run.json), at any depth",
                               args[i]);
        } else if ((rc = add_one(args[i], s, o, e)) < 0) {
            return rc;
        }
    }
    return 0;
}

void history_set_release(struct history_set *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->recs[i].dir);
    free(s->recs);
    memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------------ */
/* Series and change points                                             */
/* ------------------------------------------------------------------ */

static int rec_time_cmp(const void *a, const void *b)
{
    const struct history_rec *x = a, *y = b;
    int c = strcmp(x->started, y->started);

    return c ? c : strcmp(x->name, y->name);
}

const char *history_metric_name(const struct history *h, int metric, char *buf, size_t len)
{
    if (metric == HISTORY_CUSTOM) {
        snprintf(buf, len, "%s", h->metric_path ? h->metric_path : "?");
        return buf;
    }
    return cmp_metric_name(metric, buf, len);
}

/* The value of metric in rec. */
static double rec_value(const struct history_rec *r, int metric)
{
    return metric == HISTORY_CUSTOM ? r->custom : r->v[metric];
}

/* Judge metric m of series s. */
static int judge_metric(struct history *h, struct history_series *s, struct history_metric *m, struct err *e)
{
    int min_runs = h->o.ed.min_runs < 2 ? 2 : h->o.ed.min_runs, max;
    struct ed_point *pts;

    m->x = malloc(sizeof(*m->x) * (size_t)s->n);
    m->at = malloc(sizeof(*m->at) * (size_t)s->n);
    if (!m->x || !m->at)
        return err_set(e, E_FAIL, "out of memory");
    for (int i = 0; i < s->n; i++) {
        double v = rec_value(&h->set.recs[s->runs[i]], m->metric);
        if (isnan(v))
            continue;
        m->x[m->n] = v;
        m->at[m->n++] = i;
    }
    if (m->n == 0) {
        m->state = HISTORY_NO_DATA;
        return 0;
    }
    if (m->n < 2 * min_runs) {
        m->state = HISTORY_TOO_SHORT;
        return 0;
    }
    max = m->n / min_runs + 1;
    pts = malloc(sizeof(*pts) * (size_t)max);
    m->cps = calloc((size_t)max, sizeof(*m->cps));
    if (!pts || !m->cps) {
        free(pts);
        return err_set(e, E_FAIL, "out of memory");
    }
    m->n_cps = ed_change_points(m->x, m->n, &h->o.ed, pts, max);
    if (m->n_cps < 0) {
        free(pts);
        return err_set(e, E_FAIL, "out of memory");
    }
    for (int i = 0; i < m->n_cps; i++) {
        m->cps[i].pt = pts[i];
        m->cps[i].run = m->at[pts[i].at];
        m->cps[i].before = m->cps[i].run - 1;
    }
    free(pts);
    m->state = m->n_cps ? HISTORY_CHANGED : HISTORY_NO_CHANGE;
    return 0;
}

const struct history_what *history_what_at(const struct history_series *s, int run)
{
    for (int i = 0; i < s->n_what; i++)
        if (s->what[i].run == run)
            return &s->what[i];
    return NULL;
}

/* What changed at run of series s against the run before it (compare's differences). */
static void what_changed(struct history *h, struct history_series *s, int run)
{
    struct history_what *w = &s->what[s->n_what++];
    struct cmp_run a, b;
    struct err e;
    char why[320];

    memset(w, 0, sizeof(*w));
    w->run = run;
    if (cmp_run_load(&a, h->set.recs[s->runs[run - 1]].dir, &e) < 0) {
        snprintf(w->err, sizeof(w->err), "%.250s", e.msg);
        cmp_run_release(&a);
        return;
    }
    if (cmp_run_load(&b, h->set.recs[s->runs[run]].dir, &e) < 0) {
        snprintf(w->err, sizeof(w->err), "%.250s", e.msg);
    } else {
        cmp_run_diff(&a, &b, &w->d, &w->n);
        for (int i = 0; i < w->n; i++)
            w->n_changes += !w->d[i].derived;
        w->has_wait = wdiff_largest(a.doc, b.doc, &w->wait, w->wait_why, sizeof(w->wait_why));
        /* Records of before the wait sampler, or runs without it: nothing to say. */
        if (!w->has_wait && !wdiff_has(a.doc, why, sizeof(why)) &&
            !wdiff_has(b.doc, why, sizeof(why)))
            w->wait_why[0] = '\0';
    }
    cmp_run_release(&a);
    cmp_run_release(&b);
}

/* Series s: its runs (the records with key, in time order). */
static int series_fill(struct history *h, struct history_series *s, const int *metrics, int n_metrics,
                       struct err *e)
{
    int n_cps = 0, rc;

    for (int k = 0; k < n_metrics && k < HISTORY_MAX_METRICS; k++) {
        s->m[s->n_m].metric = metrics[k];
        if ((rc = judge_metric(h, s, &s->m[s->n_m++], e)) < 0)
            return rc;
        n_cps += s->m[s->n_m - 1].n_cps;
    }
    if (n_cps && !(s->what = calloc((size_t)n_cps, sizeof(*s->what))))
        return err_set(e, E_FAIL, "out of memory");
    for (int k = 0; k < s->n_m; k++)
        for (int i = 0; i < s->m[k].n_cps; i++)
            if (!history_what_at(s, s->m[k].cps[i].run))
                what_changed(h, s, s->m[k].cps[i].run);
    return 0;
}

int history_build(struct history *h, const int *metrics, int n_metrics, struct err *e)
{
    struct history_rec *r = h->set.recs;
    int *series_of, rc = 0;

    if (h->set.n == 0)
        return 0;
    qsort(r, (size_t)h->set.n, sizeof(*r), rec_time_cmp);
    series_of = malloc(sizeof(int) * (size_t)h->set.n);
    h->series = calloc((size_t)h->set.n, sizeof(*h->series));
    if (!series_of || !h->series) {
        free(series_of);
        return err_set(e, E_FAIL, "out of memory");
    }
    /* Series in order of their first run; a run joins the series of its key. */
    for (int i = 0; i < h->set.n; i++) {
        int s;
        for (s = h->n_series - 1; s >= 0; s--)
            if (strcmp(h->series[s].key, r[i].key) == 0)
                break;
        if (s < 0) {
            s = h->n_series++;
            snprintf(h->series[s].key, sizeof(h->series[s].key), "%s", r[i].key);
        }
        series_of[i] = s;
        h->series[s].n++;
    }
    for (int s = 0; s < h->n_series && rc == 0; s++) {
        struct history_series *sr = &h->series[s];
        int k = 0;
        if (!(sr->runs = malloc(sizeof(int) * (size_t)sr->n))) {
            rc = err_set(e, E_FAIL, "out of memory");
            break;
        }
        for (int i = 0; i < h->set.n; i++)
            if (series_of[i] == s)
                sr->runs[k++] = i;
        rc = series_fill(h, sr, metrics, n_metrics, e);
    }
    free(series_of);
    return rc;
}

void history_release(struct history *h)
{
    for (int s = 0; s < h->n_series; s++) {
        struct history_series *sr = &h->series[s];
        for (int k = 0; k < sr->n_m; k++) {
            free(sr->m[k].x);
            free(sr->m[k].at);
            free(sr->m[k].cps);
        }
        for (int i = 0; i < sr->n_what; i++)
            free(sr->what[i].d);
        free(sr->what);
        free(sr->runs);
    }
    free(h->series);
    history_set_release(&h->set);
    h->series = NULL;
    h->n_series = 0;
}

/* ------------------------------------------------------------------ */
/* The gate                                                             */
/* ------------------------------------------------------------------ */

/* Whether change point i of m is in effect over the newest window runs of a series of n. */
static int in_window(const struct history_metric *m, int i, int n, int window)
{
    int first = n - (window < 1 ? 1 : window);

    if (m->cps[i].run > first)
        return 1;
    /* The last one at or before the window's first run: the level it starts with. */
    return i + 1 == m->n_cps || m->cps[i + 1].run > first;
}

int history_gate(const struct history *h, const struct cmp_rule *rules, int n_rules,
              struct history_trip *out, int max)
{
    int n = 0;

    for (int r = 0; r < n_rules; r++)
        for (int s = 0; s < h->n_series; s++) {
            const struct history_series *sr = &h->series[s];
            for (int k = 0; k < sr->n_m; k++) {
                const struct history_metric *m = &sr->m[k];
                if (m->metric != rules[r].metric)
                    continue;
                for (int i = 0; i < m->n_cps && n < max; i++) {
                    const struct ed_point *p = &m->cps[i].pt;
                    /* The runs nearest the change on each side, as many as a step holds. */
                    int nb = p->at - p->from, na = p->to - p->at;
                    if (!in_window(m, i, sr->n, h->o.window))
                        continue;
                    nb = nb > SIG_MAX_N ? SIG_MAX_N : nb;
                    na = na > SIG_MAX_N ? SIG_MAX_N : na;
                    cmp_rule_judge(&rules[r], m->x + p->at - nb, nb, m->x + p->at, na, &out[n].v);
                    if (!out[n].v.tripped)
                        continue;
                    out[n].rule = &rules[r];
                    out[n].series = s;
                    out[n].metric = k;
                    out[n++].cp = i;
                }
            }
        }
    return n;
}
