/*
 * merge.c - the parts of a scale-out run as one record: done by the last
 * part to finish (from tpcc_run_part, cmd/run.c) and by `tpccbench merge
 * RUN...` (from the parts' run.json).  Both merge the parts' summaries
 * (run/partsum.h) and judge the whole with figures.c; percentiles come
 * from the merged histograms.  A part missing or not complete makes the
 * record "partial", naming it; its figures are never silently short.
 */
#include "cmd/merge.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/load.h"
#include "core/opt.h"
#include "core/part.h"
#include "results/record.h"
#include "results/runrec.h"
#include "run/figures.h"
#include "run/partsum.h"

/* The parts' summaries as merge_write reads them, and what the record says of each. */
struct merge_acc {
    struct run_result *parts; /* the summaries read: n_ok of them, in part order */
    int n_ok;
    struct config cfg; /* the first summary's config */
    int have_cfg;
    int complete;      /* every summary read is of a complete part */
    json_t *plist;     /* the record's "parts", one object a part */
    char missing[512]; /* "part 2 (never reported), ...", "" when none */
    size_t at;         /* bytes used of missing */
};

/* Part k (its row of in->rows): its summary decoded into a->parts, or why it is missing. */
static void take_part(const struct merge_in *in, struct merge_acc *a, int k)
{
    const json_t *row = json_array_get(in->rows, (size_t)k - 1);
    const json_t *sum = json_object_get(row, "summary");
    const char *state = json_string_value(json_object_get(row, "state"));
    const char *why = NULL;
    char whybuf[600];
    json_t *p = json_pack("{s:i, s:s, s:[i, i], s:s}", "k", k, "host",
                          json_string_value(json_object_get(row, "host"))
                              ? json_string_value(json_object_get(row, "host"))
                              : "",
                          "warehouses", (int)json_integer_value(json_object_get(row, "first_w")),
                          (int)json_integer_value(json_object_get(row, "last_w")), "state",
                          state ? state : "unknown");

    if (!sum || json_is_null(sum)) {
        why = state && (strcmp(state, "never registered") == 0 || strcmp(state, "not given") == 0)
                  ? state
                  : "never reported";
    } else {
        struct err de;
        struct config pc;
        err_clear(&de);
        if (partsum_decode(sum, &a->parts[a->n_ok], &pc, &de) < 0) {
            run_result_release(&a->parts[a->n_ok]);
            json_object_set_new(p, "error", json_string(de.msg));
            snprintf(whybuf, sizeof(whybuf), "its summary could not be read: %s", de.msg);
            why = whybuf;
        } else {
            if (!a->have_cfg) {
                a->cfg = pc;
                a->have_cfg = 1;
            }
            json_object_set_new(p, "status", json_string(a->parts[a->n_ok].status));
            /* Its own host's metrics (a table of means, one row a part). */
            if (json_is_object(json_object_get(sum, "metrics")))
                json_object_set_new(
                    p, "metrics",
                    json_pack("{s:O?, s:O}", "hostname",
                              json_object_get(json_object_get(sum, "metrics"), "hostname"),
                              "driver_means",
                              json_object_get(json_object_get(sum, "metrics"), "driver_means")));
            if (strcmp(a->parts[a->n_ok].status, "complete") != 0)
                a->complete = 0;
            a->n_ok++;
        }
    }
    if (why) {
        a->complete = 0;
        json_object_set_new(p, "missing", json_string(why));
        if (a->at < sizeof(a->missing))
            a->at += (size_t)snprintf(a->missing + a->at, sizeof(a->missing) - a->at,
                                      "%spart %d (%s)", a->at ? ", " : "", k, why);
    }
    json_array_append_new(a->plist, p);
}

/* The database's count over the shared window when every part is in it; else why not. */
static void db_count(const struct merge_in *in, const struct merge_acc *a,
                     struct run_result *merged)
{
    if (a->n_ok == in->n && a->complete && in->count_open >= 0 && in->count_close >= 0) {
        merged->db_counted = 1;
        merged->db_new_orders = in->count_close - in->count_open;
        return;
    }
    snprintf(merged->db_count_note, sizeof(merged->db_count_note), "%s",
             a->n_ok < in->n ? "not every part reported: the database's count includes "
                               "work these figures lack"
             : !a->complete  ? "a part did not complete its window: the counts are not "
                               "compared"
                             : "the database's count was not taken at both edges");
}

/*
 * The merged record's metrics: each part's own host is in its row of
 * "parts" (metrics.driver_means); the database host's figures once, from
 * part 1, which scraped it; the base record's (the merging part's) own
 * columns are not the run's and go.
 */
static void merged_metrics(const struct merge_in *in, struct runrec *rec)
{
    const json_t *pm = json_object_get(
        json_object_get(json_object_get(json_array_get(in->rows, 0), "summary"), "metrics"),
        "db_host");
    json_t *m = json_object(), *env = rec->env;

    json_object_set_new(m, "os_columns_host",
                        json_string("driver: each part's own host, in parts[].metrics"));
    if (pm) {
        json_object_set(m, "db_host", json_object_get(pm, "metrics"));
        json_object_set(m, "columns", json_object_get(pm, "columns"));
        if (env && json_object_get(pm, "environment"))
            json_object_set(env, "db_host", json_object_get(pm, "environment"));
    } else {
        json_object_set_new(m, "db_host",
                            json_pack("{s:s, s:s}", "status", "not measured", "why",
                                      "part 1 left no metrics in its summary (metrics off, or it "
                                      "did not report)"));
        json_object_set_new(m, "columns", json_object());
    }
    runrec_set(rec, "metrics", m);
}

/* The merged record into dir: run.json (from in->base, with the parts) and series.csv. */
static int write_merged(const struct merge_in *in, struct merge_acc *a,
                        const struct run_result *merged, const struct figures *f, const char *dir,
                        struct err *e)
{
    struct runrec rec;
    int rc;

    /* The base is the merging part's record as it was written: its copy is
     * this record's start, read as a document, not as the part's facts. */
    runrec_adopt(&rec, in->base ? json_deep_copy(in->base) : json_object(), dir);
    runrec_set(&rec, "kind", json_string("run"));
    runrec_status(&rec, merged->status);
    runrec_set(&rec, "parts", a->plist);
    a->plist = NULL;
    runrec_set(&rec, "merged",
               json_pack("{s:s, s:i, s:i, s:i, s:s, s:s}", "run_id", in->run_id, "gen", in->gen,
                         "parts", in->n, "reported", a->n_ok, "by", in->by, "missing",
                         a->missing));
    json_object_del(rec.doc, "part");
    if (json_object_get(in->base, "metrics") ||
        json_object_get(json_object_get(json_array_get(in->rows, 0), "summary"), "metrics"))
        merged_metrics(in, &rec);
    runrec_set(&rec, "run", figures_json(&a->cfg, merged, f));
    runrec_set(&rec, "dbms",
               json_pack("{s:s, s:s}", "name", merged->server_name, "version",
                         merged->server_version));
    if (merged->n_series) {
        size_t len;
        char *csv = figures_series_csv(merged, &len);
        if (csv)
            record_write_file(dir, "series.csv", csv, len, e);
        free(csv);
    }
    rc = runrec_save(&rec, e);
    runrec_release(&rec);
    return rc;
}

int merge_write(const struct merge_in *in, char *dir_out, size_t dir_len, struct err *e)
{
    struct merge_acc a = { .complete = 1 };
    struct run_result merged;
    struct figures f;
    char dir[4096];
    int rc = 0;

    memset(&merged, 0, sizeof(merged));
    a.parts = calloc((size_t)in->n, sizeof(*a.parts));
    if (!a.parts)
        return err_set(e, E_FAIL, "out of memory");
    a.plist = json_array();
    for (int k = 1; k <= in->n; k++)
        take_part(in, &a, k);
    if (a.n_ok == 0) {
        rc = err_set(e, E_FAIL, "run '%s': no part left a summary to merge (%s)", in->run_id,
                     a.missing);
        goto out;
    }
    if ((rc = partsum_merge(a.parts, a.n_ok, &merged, e)) < 0)
        goto out;
    db_count(in, &a, &merged);
    if (a.n_ok < in->n || !a.complete)
        snprintf(merged.status, sizeof(merged.status), "partial");
    figures_compute(&a.cfg, &merged, &f);
    if ((rc = runrec_make_dir(in->results_dir, in->label, dir, sizeof(dir), e)) < 0)
        goto out;
    if (dir_out)
        snprintf(dir_out, dir_len, "%s", dir);
    if ((rc = write_merged(in, &a, &merged, &f, dir, e)) < 0)
        goto out;
    printf("merged %d of %d parts of run '%s'%s%s\n", a.n_ok, in->n, in->run_id,
           a.missing[0] ? "; missing: " : "", a.missing);
    figures_print(stdout, &a.cfg, &merged, &f);
    printf("merged record: %s/run.json\n", dir);
out:
    json_decref(a.plist);
    for (int i = 0; i < a.n_ok; i++)
        run_result_release(&a.parts[i]);
    free(a.parts);
    run_result_release(&merged);
    return rc;
}

static void merge_usage(FILE *out)
{
    fprintf(out, "usage: tpccbench merge RUN... [--results-dir DIR] [--label L]\n"
                 "\n"
                 "Merge the records of the parts of one scale-out run (each part's run.json)\n"
                 "into one record, as the last part to finish does: counts and histograms added,\n"
                 "percentiles from the merged histograms, input validity over the union, NOTPM\n"
                 "against the database's count at the shared window's edges.  A part given\n"
                 "twice, of another run, or missing makes it an error or a \"partial\" record\n"
                 "naming it.  RUN: a part's run folder or its run.json.\n"
                 "\n"
                 "options:\n"
                 "  --results-dir DIR  where the merged record goes (default results)\n"
                 "  --label L          its label (default: the first part's)\n"
                 "  -h, --help         this text\n");
}

enum { MRG_O_DIR, MRG_O_LABEL, MRG_O_HELP };
static const struct opt_spec mrg_opt_table[] = {
    [MRG_O_DIR] = { "results-dir", 0, 1, "a directory" },
    [MRG_O_LABEL] = { "label", 0, 1, "a label" },
    [MRG_O_HELP] = { "help", 'h', 0, NULL },
};

/* RUN (a folder or its run.json) as a part's record: *doc, its part object. */
static int read_part(const char *arg, json_t **doc, const json_t **part, struct err *e)
{
    char path[PATH_MAX];
    size_t n = strlen(arg);
    json_error_t je;

    if (n > 9 && strcmp(arg + n - 9, "/run.json") == 0)
        snprintf(path, sizeof(path), "%s", arg);
    else
        snprintf(path, sizeof(path), "%s/run.json", arg);
    if (!(*doc = json_load_file(path, 0, &je))) {
        if (je.line < 1)
            return err_set(e, E_USAGE, "%s: %s: give a part's run folder or run.json", path,
                           je.text);
        return err_set(e, E_USAGE, "%s: %s (line %d): give a part's run folder or run.json", path,
                       je.text, je.line);
    }
    *part = json_object_get(*doc, "part");
    if (!json_is_object(*part) || !json_is_string(json_object_get(*part, "run_id")) ||
        !json_is_integer(json_object_get(*part, "k")) ||
        !json_is_integer(json_object_get(*part, "n")))
        return err_set(e, E_USAGE,
                       "%s is not the record of a part of several (no part with run_id, k and "
                       "n): give the records of 'tpccbench run --part K/N'",
                       path);
    return 0;
}

/* The command line of merge. */
struct merge_args {
    const char *args[PART_MAX + 1]; /* the parts' records, as given */
    int nargs;
    const char *dir;   /* --results-dir */
    const char *label; /* --label, NULL: the first part's */
};

/* Parse argv into a: -1 to go on, else the exit code (usage or the error printed). */
static int parse_merge_args(struct merge_args *a, int argc, char **argv, struct err *e)
{
    struct opt_parser p;
    const char *val;
    int found, which, rc = -1;

    if (opt_init(&p, "merge", mrg_opt_table, OPT_COUNT(mrg_opt_table), argc - 1, argv + 1, e) < 0)
        return cmd_fail("merge", e);
    while (rc < 0 && (found = opt_next(&p, &which, &val, e)) != OPT_END) {
        if (found < 0) {
            rc = cmd_fail("merge", e);
        } else if (found == OPT_ARG) {
            if (a->nargs >= 256) {
                err_set(e, E_USAGE, "at most 256 parts' records");
                rc = cmd_fail("merge", e);
            } else {
                a->args[a->nargs++] = val;
            }
        } else if (which == MRG_O_HELP) {
            merge_usage(stdout);
            rc = 0;
        } else if (which == MRG_O_DIR) {
            a->dir = val;
        } else if (which == MRG_O_LABEL) {
            a->label = val;
        }
    }
    opt_release(&p);
    if (rc < 0 && a->nargs == 0) {
        err_set(e, E_USAGE, "give the run folders of the parts to merge (see --help)");
        rc = cmd_fail("merge", e);
    }
    return rc;
}

/* The parts' records read so far, as merge_write takes them. */
struct merge_parts {
    json_t *docs[256];       /* each record; owned */
    const json_t *first;     /* the first record's part object */
    json_t *rows;            /* n rows in part order ("not given" until read); owned */
    int n, gen;              /* the first part's number of parts and attempt */
    int64_t c_open, c_close; /* the database's counts at the edges, -1: not heard */
};

/* The first part read: the run every other part must be of, and a row for each of its parts. */
static void first_part(struct merge_parts *mp, const json_t *part)
{
    mp->first = part;
    mp->n = (int)json_integer_value(json_object_get(part, "n"));
    mp->gen = (int)json_integer_value(json_object_get(part, "gen"));
    mp->rows = json_array();
    for (int j = 0; j < mp->n; j++)
        json_array_append_new(mp->rows, json_pack("{s:s, s:n}", "state", "not given", "summary"));
}

/* Part k's row: its record's status, host, warehouses and summary. */
static void set_row(struct merge_parts *mp, int k, const json_t *part, const json_t *doc)
{
    const json_t *w = json_object_get(part, "warehouses");
    json_t *sum = json_object_get(part, "summary");
    const char *st = json_string_value(json_object_get(doc, "status"));

    json_array_set_new(mp->rows, (size_t)k - 1,
                       json_pack("{s:s, s:s, s:i, s:i, s:O?}", "state", st ? st : "unknown", "host",
                                 json_string_value(json_object_get(part, "host"))
                                     ? json_string_value(json_object_get(part, "host"))
                                     : "",
                                 "first_w", (int)json_integer_value(json_array_get(w, 0)), "last_w",
                                 (int)json_integer_value(json_array_get(w, 1)), "summary", sum));
}

/* Read the i-th record (arg): a part of the same run as the first, in range, not given twice. */
static int add_part(struct merge_parts *mp, int i, const char *arg, struct err *e)
{
    const json_t *part = NULL;
    int rc, k, pn;

    if ((rc = read_part(arg, &mp->docs[i], &part, e)) < 0)
        return rc;
    k = (int)json_integer_value(json_object_get(part, "k"));
    pn = (int)json_integer_value(json_object_get(part, "n"));
    if (!mp->first)
        first_part(mp, part);
    else if (strcmp(json_string_value(json_object_get(part, "run_id")),
                    json_string_value(json_object_get(mp->first, "run_id"))) != 0 ||
             pn != mp->n || json_integer_value(json_object_get(part, "gen")) != mp->gen)
        return err_set(e, E_USAGE,
                       "%s is part %d/%d of run '%s' (attempt %d), not of run '%s' (attempt "
                       "%d) as the first: give the parts of one run",
                       arg, k, pn, json_string_value(json_object_get(part, "run_id")),
                       (int)json_integer_value(json_object_get(part, "gen")),
                       json_string_value(json_object_get(mp->first, "run_id")), mp->gen);
    if (k < 1 || k > mp->n)
        return err_set(e, E_USAGE, "%s: part %d of %d is out of range", arg, k, mp->n);
    if (strcmp(json_string_value(json_object_get(json_array_get(mp->rows, (size_t)k - 1), "state")),
               "not given") != 0)
        return err_set(e, E_USAGE, "%s: part %d/%d is given twice", arg, k, mp->n);
    set_row(mp, k, part, mp->docs[i]);
    /* Every part heard the same counts; any one that has them gives them. */
    if (json_integer_value(json_object_get(part, "db_count_open")) >= 0 &&
        json_integer_value(json_object_get(part, "db_count_close")) >= 0 &&
        json_object_get(part, "db_count_close")) {
        mp->c_open = json_integer_value(json_object_get(part, "db_count_open"));
        mp->c_close = json_integer_value(json_object_get(part, "db_count_close"));
    }
    return 0;
}

int cmd_merge(int argc, char **argv)
{
    struct merge_args a = { .dir = "results" };
    struct merge_parts mp = { .c_open = -1, .c_close = -1 };
    struct err e;
    int rc = 0;

    err_clear(&e);
    if ((rc = parse_merge_args(&a, argc, argv, &e)) >= 0)
        return rc;
    rc = 0;
    for (int i = 0; i < a.nargs && rc == 0; i++)
        rc = add_part(&mp, i, a.args[i], &e);
    if (rc == 0) {
        const char *first_label = json_string_value(json_object_get(mp.docs[0], "label"));
        struct merge_in in = {
            .run_id = json_string_value(json_object_get(mp.first, "run_id")),
            .gen = mp.gen,
            .n = mp.n,
            .rows = mp.rows,
            .count_open = mp.c_open,
            .count_close = mp.c_close,
            .base = mp.docs[0],
            .results_dir = a.dir,
            .label = a.label       ? a.label
                     : first_label ? first_label
                                   : "merged",
            .by = "tpccbench merge",
        };
        rc = merge_write(&in, NULL, 0, &e);
    }
    json_decref(mp.rows);
    for (int i = 0; i < a.nargs; i++)
        json_decref(mp.docs[i]);
    return rc < 0 ? cmd_fail("merge", &e) : 0;
}
