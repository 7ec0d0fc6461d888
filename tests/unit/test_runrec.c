/*
 * test_runrec.c - unit tests of the run record's one writer
 * (src/results/runrec.c): runrec_save writes run.json and appends one line
 * to its folder's history.idx where that index exists, and creates none
 * where it does not; record_write_json, the file writer under it, appends
 * nothing whatever the file's name.  The C facts a command reads later
 * (status, part) are the record's fields, set beside the JSON.  A failing
 * check prints both values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config.h"
#include "results/history.h"
#include "results/record.h"
#include "results/runrec.h"

/* Lines of the file at path, -1 when it does not exist. */
static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, c;

    if (!f)
        return -1;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/* The line number k (from 1) of path into out, "" when there is none. */
static void line_at(const char *path, int k, char *out, size_t len)
{
    FILE *f = fopen(path, "r");

    out[0] = '\0';
    assert_non_null(f);
    for (int i = 1; fgets(out, (int)len, f); i++)
        if (i == k)
            break;
    fclose(f);
}

static void rm_tree(const char *top, const char *run)
{
    char p[4200];

    snprintf(p, sizeof(p), "%s/run.json", run);
    unlink(p);
    rmdir(run);
    snprintf(p, sizeof(p), "%s/%s", top, HISTORY_INDEX_NAME);
    unlink(p);
    rmdir(top);
}

/* A new record in a new folder of a new results directory (top). */
static void begin(char *top, size_t tlen, struct runrec *r, const struct config *cfg)
{
    char run[4096];
    struct err e;

    snprintf(top, tlen, "/tmp/test_runrec.XXXXXX");
    assert_non_null(mkdtemp(top));
    assert_int_equal(runrec_make_dir(top, "step", run, sizeof(run), &e), 0);
    assert_int_equal(runrec_begin(r, cfg, "run", run), 0);
    assert_string_equal(r->status, "running");
}

/* No index: saves write run.json and create no history.idx. */
static void t_no_index(void **state)
{
    char top[64], idx[128], rj[4200];
    struct config cfg;
    struct runrec r;
    struct err e;
    struct stat st;

    (void)state;
    cfg_defaults(&cfg);
    begin(top, sizeof(top), &r, &cfg);
    snprintf(idx, sizeof(idx), "%s/%s", top, HISTORY_INDEX_NAME);
    snprintf(rj, sizeof(rj), "%s/run.json", r.dir);
    assert_int_equal(runrec_save(&r, &e), 0);
    assert_int_equal(runrec_end(&r, "complete", &e), 0);
    assert_int_equal(stat(rj, &st), 0);
    assert_int_equal(count_lines(idx), -1);
    rm_tree(top, r.dir);
    runrec_release(&r);
}

/* An index: one line per save, naming the run folder and its status as
 * history reads it; record_write_json of a run.json adds none. */
static void t_index_line_per_save(void **state)
{
    char top[64], idx[128], line[4096], want[300];
    const char *name;
    struct config cfg;
    struct runrec r;
    struct err e;
    FILE *f;

    (void)state;
    cfg_defaults(&cfg);
    begin(top, sizeof(top), &r, &cfg);
    name = strrchr(r.dir, '/') + 1;
    snprintf(idx, sizeof(idx), "%s/%s", top, HISTORY_INDEX_NAME);
    assert_non_null(f = fopen(idx, "w"));
    fputs("header\n", f);
    fclose(f);
    runrec_part(&r, 2, json_pack("{s:i, s:i}", "k", 2, "n", 3));
    assert_int_equal(r.part_k, 2);
    assert_int_equal(runrec_save(&r, &e), 0);
    assert_int_equal(count_lines(idx), 2);
    runrec_error(&r, "it broke");
    assert_int_equal(r.has_error, 1);
    assert_int_equal(runrec_end(&r, "failed", &e), 0);
    assert_string_equal(r.status, "failed");
    assert_int_equal(count_lines(idx), 3);
    /* Each line is the run's, and the last says how it ended. */
    snprintf(want, sizeof(want), "%s\t", name);
    line_at(idx, 2, line, sizeof(line));
    if (strncmp(line, want, strlen(want)) != 0)
        fail_msg("line 2 is '%s', want it to start with '%s'", line, want);
    line_at(idx, 3, line, sizeof(line));
    if (strncmp(line, want, strlen(want)) != 0 || !strstr(line, "failed"))
        fail_msg("line 3 is '%s', want '%s...' saying failed", line, want);
    /* The file writer knows no file name: no line from it. */
    assert_int_equal(record_write_json(r.dir, "run.json", r.doc, &e), 0);
    assert_int_equal(count_lines(idx), 3);
    rm_tree(top, r.dir);
    runrec_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_no_index),
        cmocka_unit_test(t_index_line_per_save),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
