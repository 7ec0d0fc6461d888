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
#include "run/figures.h"
#include "run/partsum.h"

int merge_write(const struct merge_in *in, char *dir_out, size_t dir_len, struct err *e)
{
    struct run_result *parts = calloc((size_t)in->n, sizeof(*parts)), merged;
    struct config cfg;
    struct figures f;
    json_t *rec = NULL, *plist = json_array();
    char dir[4096], missing[512] = "";
    size_t at = 0;
    int rc = 0, n_ok = 0, have_cfg = 0, complete = 1;

    memset(&merged, 0, sizeof(merged));
    if (!parts) {
        json_decref(plist);
        return err_set(e, E_FAIL, "out of memory");
    }
    for (int k = 1; k <= in->n; k++) {
        const json_t *row = json_array_get(in->rows, (size_t)k - 1);
        const json_t *sum = json_object_get(row, "summary");
        const char *state = json_string_value(json_object_get(row, "state"));
        const char *why = NULL;
        char whybuf[600];
        json_t *p =
            json_pack("{s:i, s:s, s:[i, i], s:s}", "k", k, "host",
                      json_string_value(json_object_get(row, "host"))
                          ? json_string_value(json_object_get(row, "host"))
                          : "",
                      "warehouses", (int)json_integer_value(json_object_get(row, "first_w")),
                      (int)json_integer_value(json_object_get(row, "last_w")), "state",
                      state ? state : "unknown");
        if (!sum || json_is_null(sum)) {
            why =
                state && (strcmp(state, "never registered") == 0 || strcmp(state, "not given") == 0)
                    ? state
                    : "never reported";
        } else {
            struct err de;
            struct config pc;
            err_clear(&de);
            if (partsum_decode(sum, &parts[n_ok], &pc, &de) < 0) {
                run_result_release(&parts[n_ok]);
                json_object_set_new(p, "error", json_string(de.msg));
                snprintf(whybuf, sizeof(whybuf), "its summary could not be read: %s", de.msg);
                why = whybuf;
            } else {
                if (!have_cfg) {
                    cfg = pc;
                    have_cfg = 1;
                }
                json_object_set_new(p, "status", json_string(parts[n_ok].status));
                if (strcmp(parts[n_ok].status, "complete") != 0)
                    complete = 0;
                n_ok++;
            }
        }
        if (why) {
            complete = 0;
            json_object_set_new(p, "missing", json_string(why));
            if (at < sizeof(missing))
                at += (size_t)snprintf(missing + at, sizeof(missing) - at, "%spart %d (%s)",
                                       at ? ", " : "", k, why);
        }
        json_array_append_new(plist, p);
    }
    if (n_ok == 0) {
        rc = err_set(e, E_FAIL, "run '%s': no part left a summary to merge (%s)", in->run_id,
                     missing);
        goto out;
    }
    if ((rc = partsum_merge(parts, n_ok, &merged, e)) < 0)
        goto out;
    /* The database's count over the shared window, when every part is in it. */
    if (n_ok == in->n && complete && in->count_open >= 0 && in->count_close >= 0) {
        merged.db_counted = 1;
        merged.db_new_orders = in->count_close - in->count_open;
    } else {
        snprintf(merged.db_count_note, sizeof(merged.db_count_note), "%s",
                 n_ok < in->n ? "not every part reported: the database's count includes "
                                "work these figures lack"
                 : !complete  ? "a part did not complete its window: the counts are not "
                                "compared"
                              : "the database's count was not taken at both edges");
    }
    if (n_ok < in->n || !complete)
        snprintf(merged.status, sizeof(merged.status), "partial");
    figures_compute(&cfg, &merged, &f);
    if ((rc = record_make_dir(in->results_dir, in->label, dir, sizeof(dir), e)) < 0)
        goto out;
    if (dir_out)
        snprintf(dir_out, dir_len, "%s", dir);
    rec = in->base ? json_deep_copy(in->base) : json_object();
    json_object_set_new(rec, "kind", json_string("run"));
    json_object_set_new(rec, "status", json_string(merged.status));
    json_object_set_new(rec, "parts", plist);
    plist = NULL;
    json_object_set_new(rec, "merged",
                        json_pack("{s:s, s:i, s:i, s:i, s:s, s:s}", "run_id", in->run_id, "gen",
                                  in->gen, "parts", in->n, "reported", n_ok, "by", in->by,
                                  "missing", missing));
    json_object_del(rec, "part");
    json_object_set_new(rec, "run", figures_json(&cfg, &merged, &f));
    json_object_set_new(
        rec, "dbms",
        json_pack("{s:s, s:s}", "name", merged.server_name, "version", merged.server_version));
    if (merged.n_series) {
        size_t len;
        char *csv = figures_series_csv(&merged, &len);
        if (csv)
            record_write_file(dir, "series.csv", csv, len, e);
        free(csv);
    }
    if ((rc = record_write_json(dir, "run.json", rec, e)) < 0)
        goto out;
    printf("merged %d of %d parts of run '%s'%s%s\n", n_ok, in->n, in->run_id,
           missing[0] ? "; missing: " : "", missing);
    figures_print(stdout, &cfg, &merged, &f);
    printf("merged record: %s/run.json\n", dir);
out:
    json_decref(plist);
    json_decref(rec);
    for (int i = 0; i < n_ok; i++)
        run_result_release(&parts[i]);
    free(parts);
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

int cmd_merge(int argc, char **argv)
{
    const char *args[PART_MAX + 1], *dir = "results", *label = NULL, *val;
    json_t *docs[256] = { 0 }, *rows = NULL;
    const json_t *first = NULL;
    struct opt_parser p;
    struct err e;
    int nargs = 0, found, which, rc = 0, n = 0, gen = 0;
    int64_t c_open = -1, c_close = -1;

    err_clear(&e);
    if (opt_init(&p, "merge", mrg_opt_table, OPT_COUNT(mrg_opt_table), argc - 1, argv + 1, &e) < 0)
        return cmd_fail("merge", &e);
    while ((found = opt_next(&p, &which, &val, &e)) != OPT_END) {
        if (found < 0) {
            opt_release(&p);
            return cmd_fail("merge", &e);
        }
        if (found == OPT_ARG) {
            if (nargs >= 256) {
                opt_release(&p);
                err_set(&e, E_USAGE, "at most 256 parts' records");
                return cmd_fail("merge", &e);
            }
            args[nargs++] = val;
        } else if (which == MRG_O_HELP) {
            opt_release(&p);
            merge_usage(stdout);
            return 0;
        } else if (which == MRG_O_DIR) {
            dir = val;
        } else if (which == MRG_O_LABEL) {
            label = val;
        }
    }
    if (nargs == 0) {
        opt_release(&p);
        err_set(&e, E_USAGE, "give the run folders of the parts to merge (see --help)");
        return cmd_fail("merge", &e);
    }
    for (int i = 0; i < nargs && rc == 0; i++) {
        const json_t *part = NULL;
        int k, pn;
        if ((rc = read_part(args[i], &docs[i], &part, &e)) < 0)
            break;
        k = (int)json_integer_value(json_object_get(part, "k"));
        pn = (int)json_integer_value(json_object_get(part, "n"));
        if (!first) {
            first = part;
            n = pn;
            gen = (int)json_integer_value(json_object_get(part, "gen"));
            rows = json_array();
            for (int j = 0; j < n; j++)
                json_array_append_new(rows,
                                      json_pack("{s:s, s:n}", "state", "not given", "summary"));
        } else if (strcmp(json_string_value(json_object_get(part, "run_id")),
                          json_string_value(json_object_get(first, "run_id"))) != 0 ||
                   pn != n || json_integer_value(json_object_get(part, "gen")) != gen) {
            rc = err_set(&e, E_USAGE,
                         "%s is part %d/%d of run '%s' (attempt %d), not of run '%s' (attempt "
                         "%d) as the first: give the parts of one run",
                         args[i], k, pn, json_string_value(json_object_get(part, "run_id")),
                         (int)json_integer_value(json_object_get(part, "gen")),
                         json_string_value(json_object_get(first, "run_id")), gen);
            break;
        }
        if (k < 1 || k > n) {
            rc = err_set(&e, E_USAGE, "%s: part %d of %d is out of range", args[i], k, n);
            break;
        }
        if (strcmp(json_string_value(json_object_get(json_array_get(rows, (size_t)k - 1), "state")),
                   "not given") != 0) {
            rc = err_set(&e, E_USAGE, "%s: part %d/%d is given twice", args[i], k, n);
            break;
        }
        {
            const json_t *w = json_object_get(part, "warehouses");
            json_t *sum = json_object_get(part, "summary");
            const char *st = json_string_value(json_object_get(docs[i], "status"));
            json_array_set_new(
                rows, (size_t)k - 1,
                json_pack("{s:s, s:s, s:i, s:i, s:O?}", "state", st ? st : "unknown", "host",
                          json_string_value(json_object_get(part, "host"))
                              ? json_string_value(json_object_get(part, "host"))
                              : "",
                          "first_w", (int)json_integer_value(json_array_get(w, 0)), "last_w",
                          (int)json_integer_value(json_array_get(w, 1)), "summary", sum));
        }
        /* Every part heard the same counts; any one that has them gives them. */
        if (json_integer_value(json_object_get(part, "db_count_open")) >= 0 &&
            json_integer_value(json_object_get(part, "db_count_close")) >= 0 &&
            json_object_get(part, "db_count_close")) {
            c_open = json_integer_value(json_object_get(part, "db_count_open"));
            c_close = json_integer_value(json_object_get(part, "db_count_close"));
        }
    }
    if (rc == 0) {
        struct merge_in in = {
            .run_id = json_string_value(json_object_get(first, "run_id")),
            .gen = gen,
            .n = n,
            .rows = rows,
            .count_open = c_open,
            .count_close = c_close,
            .base = docs[0],
            .results_dir = dir,
            .label = label ? label
                     : json_string_value(json_object_get(docs[0], "label"))
                         ? json_string_value(json_object_get(docs[0], "label"))
                         : "merged",
            .by = "tpccbench merge",
        };
        rc = merge_write(&in, NULL, 0, &e);
    }
    opt_release(&p);
    json_decref(rows);
    for (int i = 0; i < nargs; i++)
        json_decref(docs[i]);
    return rc < 0 ? cmd_fail("merge", &e) : 0;
}
