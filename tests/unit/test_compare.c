/*
 * test_compare.c - unit tests of src/results/compare.c, report.c's
 * series.csv reader and fingerprint.c's pure parts, on synthetic run
 * records with known figures.
 *
 * The records are built here with jansson (spec_record), so every figure is
 * known: load 50 s -> 4.5 s must be a gain of +1011.1 %, a record that
 * differs in one server setting must show exactly that setting, two changes
 * must warn, different virtual users must be refused, and the regression
 * rules must trip past their threshold and not at it.  A failing check
 * prints both sides.  No database; temp files are removed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fmt.h"
#include "results/compare.h"
#include "results/fingerprint.h"
#include "results/report.h"
#include "results/waitdiff.h"

/* What a synthetic record holds; unset strings take the baseline's value. */
struct spec {
    const char *label;
    double load_s;     /* NAN: no load section */
    double notpm, tps; /* the run's figures */
    double p90;        /* New-Order p90 ms */
    int vus;           /* config.run.virtual_users; 0 = 4 */
    const char *work_mem, *shared_buffers, *wal_buffers, *swappiness, *kernel;
    const char *started; /* differs in every run */
    const char *hash;    /* environment.config_hash */
    int metrics;         /* 1: a "metrics" section with the figures below; 2: config.run.metrics
                          * false and no section; 0: no section (an older record) */
    double cpu_user, cpu_sys, iowait, disk_rd, disk_wr; /* NAN: the column is unavailable */
    const char *waits; /* JSON of run.json "waits"; NULL: none (a record before the sampler) */
    int dur;           /* acid.durability: 0 none, 1 checked (lost below), 2 no recovery */
    int lost;          /* acknowledged transactions lost in the check */
};

static json_t *spec_record(const struct spec *s)
{
    json_t *settings =
        json_pack("{s:s, s:s, s:s, s:s}", "work_mem", s->work_mem ? s->work_mem : "4MB",
                  "shared_buffers", s->shared_buffers ? s->shared_buffers : "128MB", "wal_buffers",
                  s->wal_buffers ? s->wal_buffers : "4MB", "synchronous_commit", "on");
    json_t *sources = json_pack("{s:s, s:s, s:s, s:s}", "work_mem",
                                s->work_mem ? "configuration file" : "default", "shared_buffers",
                                s->shared_buffers ? "configuration file" : "default", "wal_buffers",
                                "default", "synchronous_commit", "default");
    json_t *tx = json_object();
    json_t *doc;

    for (int t = 0; t < TX_NTYPES; t++)
        json_object_set_new(tx, tx_name((enum tx_type)t),
                            json_pack("{s:f, s:f, s:f}", "p50_ms", 1.0, "p90_ms",
                                      t == TX_NEW_ORDER ? s->p90 : 2.0, "p99_ms",
                                      t == TX_NEW_ORDER ? s->p90 * 2 : 4.0));
    doc = json_pack("{s:{s:s, s:s, s:s, s:i}, s:s, s:s, s:s, s:s, s:s,"
                    " s:{s:s, s:{s:i}, s:{s:i, s:f, s:{s:i, s:i, s:i, s:i, s:i}, s:s}, s:{s:s}},"
                    " s:{s:s, s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:o, s:o}, s:{s:s, s:s}},"
                    " s:{s:f, s:f, s:o}}",
                    "tool", "name", "tpccbench", "version", "0.1.0", "commit", "abc1234",
                    "record_version", 1, "kind", "bench", "status", "complete", "started",
                    s->started ? s->started : "2026-01-01T00:00:00Z", "label", s->label, "change",
                    "a note that always differs", "config", "file", "", "schema", "warehouses", 1,
                    "run", "virtual_users", s->vus ? s->vus : 4, "duration_s", 60.0, "mix",
                    "new_order", 45, "payment", 43, "order_status", 4, "delivery", 4, "stock_level",
                    4, "isolation", "read committed", "results", "dir", s->label, "environment",
                    "kernel", s->kernel ? s->kernel : "6.1.0", "hostname", "db1", "config_hash",
                    s->hash ? s->hash : "fnv1a64:0000000000000001", "sysctl", "vm.swappiness",
                    s->swappiness ? s->swappiness : "60", "vm.dirty_ratio", "20", "dbms", "name",
                    "PostgreSQL", "version", "15.18", "settings", settings, "settings_source",
                    sources, "storage", "fstype", "ext4", "mount_options", "rw,relatime", "run",
                    "notpm", s->notpm, "tps", s->tps, "transactions", tx);
    if (!isnan(s->load_s))
        json_object_set_new(doc, "load",
                            json_pack("{s:f, s:s}", "seconds", s->load_s, "phase_reached", "done"));
    if (s->metrics == 2)
        json_object_set_new(json_object_get(json_object_get(doc, "config"), "run"), "metrics",
                            json_false());
    if (s->metrics == 1) {
        static const char *const names[5] = { "cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct",
                                              "disk_data_read_mb_per_s",
                                              "disk_data_write_mb_per_s" };
        const double v[5] = { s->cpu_user, s->cpu_sys, s->iowait, s->disk_rd, s->disk_wr };
        json_t *cols = json_object();
        for (int i = 0; i < 5; i++)
            json_object_set_new(cols, names[i],
                                isnan(v[i])
                                    ? json_pack("{s:n, s:b, s:s}", "mean", "available", 0, "note",
                                                "the data directory is on tmpfs: "
                                                "no block device")
                                    : json_pack("{s:f, s:b}", "mean", v[i], "available", 1));
        json_object_set_new(doc, "metrics", json_pack("{s:i, s:o}", "rows", 10, "columns", cols));
    }
    if (s->dur)
        json_object_set_new(
            doc, "acid",
            json_pack("{s:{s:s, s:i, s:b, s:o}}", "durability", "crash", "power", "lost", s->lost,
                      "durable", s->dur == 1 && s->lost == 0, "recovery_s",
                      s->dur == 2 ? json_null() : json_pack("{s:f}", "connection", 1.5)));
    if (s->waits) {
        json_error_t je;
        json_t *w = json_loads(s->waits, 0, &je);
        assert_non_null(w);
        json_object_set_new(doc, "waits", w);
    }
    return doc;
}

/* Build a comparison of n specs; returns cmp_build's code. */
static int build(struct cmp *c, const struct spec *specs, int n, int force, struct err *e)
{
    struct cmp_run *runs = calloc((size_t)n, sizeof(*runs));

    assert_non_null(runs);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof(name), "run%d/run.json", i + 1);
        snprintf(runs[i].path, sizeof(runs[i].path), "%s", name);
        snprintf(runs[i].dir, sizeof(runs[i].dir), "run%d", i + 1);
        snprintf(runs[i].name, sizeof(runs[i].name), "run%d", i + 1);
        assert_int_equal(cmp_run_from_json(&runs[i], spec_record(&specs[i]), name, e), 0);
    }
    return cmp_build(c, runs, n, force, e);
}

/* Text of cmp_print in format f (heap). */
static char *printed(const struct cmp *c, int f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    cmp_print(out, c, f, NULL, NULL, 0);
    fclose(out);
    return buf;
}

static void expect_contains(const char *what, const char *text, const char *want)
{
    if (!strstr(text, want)) {
        print_error("%s: want the text to contain '%s'; got:\n%s\n", what, want, text);
        fail();
    }
}

static void expect_pct(const char *what, double frac, const char *want)
{
    char got[32];

    cmp_fmt_pct(got, sizeof(got), frac);
    if (strcmp(got, want) != 0) {
        print_error("%s: want %s, got %s (fraction %.9f)\n", what, want, got, frac);
        fail();
    }
}

/* ------------------------------------------------------------------ */

static void test_gains_exact(void **state)
{
    (void)state;
    /* The study's definitions: time old/new - 1, throughput new/old - 1. */
    expect_pct("load 50 s -> 4.5 s", cmp_gain(CMP_LOAD, 50, 4.5), "+1011.1 %");
    assert_true(fabs(cmp_gain(CMP_LOAD, 50, 4.5) - (50.0 / 4.5 - 1)) < 1e-12);
    expect_pct("load 10 s -> 20 s", cmp_gain(CMP_LOAD, 10, 20), "-50.0 %");
    expect_pct("TPS 100 -> 150", cmp_gain(CMP_TPS, 100, 150), "+50.0 %");
    expect_pct("NOTPM 2000 -> 1900", cmp_gain(CMP_NOTPM, 2000, 1900), "-5.0 %");
    expect_pct("p90 10 ms -> 8 ms", cmp_gain(CMP_P90, 10, 8), "-20.0 %");
    expect_pct("no load before", cmp_gain(CMP_LOAD, NAN, 4.5), "-");
    expect_pct("zero TPS before", cmp_gain(CMP_TPS, 0, 10), "-");
}

static void test_step_table(void **state)
{
    struct spec s[] = {
        { .label = "baseline", .load_s = 50, .notpm = 1000, .tps = 40, .p90 = 10 },
        { .label = "sga", .load_s = 4.5, .notpm = 2000, .tps = 80, .p90 = 5, .work_mem = "8MB" },
    };
    struct cmp c;
    struct err e;
    char *t;

    (void)state;
    err_clear(&e);
    assert_int_equal(build(&c, s, 2, 0, &e), 0);
    assert_int_equal(c.n_steps, 2);
    t = printed(&c, CMP_TEXT);
    expect_contains("text", t, "50.00");
    expect_contains("text", t, "4.50  +1011.1 %  +1011.1 %");
    expect_contains("text", t, "+100.0 %");
    expect_contains("text", t, "-50.0 %");
    expect_contains("text", t, "work_mem: 4MB -> 8MB");
    free(t);
    t = printed(&c, CMP_MARKDOWN);
    expect_contains("markdown", t,
                    "| 2 | sga | a note that always differs | 4.50 | +1011.1 % | +1011.1 % |");
    free(t);
    t = printed(&c, CMP_CSV);
    expect_contains("csv", t,
                    "2,sga,a note that always differs,1,4.5,4.5,4.5,1011.11,0,1011.11,2000");
    free(t);
    t = printed(&c, CMP_JSON);
    {
        json_error_t je;
        json_t *doc = json_loads(t, 0, &je);
        json_t *g = json_object_get(
            json_object_get(json_array_get(json_object_get(doc, "steps"), 1), "gain_pct"), "load");
        assert_non_null(doc);
        assert_true(fabs(json_number_value(g) - 1011.111111) < 1e-5);
        json_decref(doc);
    }
    free(t);
    cmp_release(&c);
}

/* cmp_print_steps: compare's own table, and the study's (its step numbers, runs of its repeats,
 * change notes in full). */
static void test_step_table_opts(void **state)
{
    struct spec s[] = {
        { .label = "baseline", .load_s = 50, .notpm = 1000, .tps = 40, .p90 = 10 },
        { .label = "sga", .load_s = 4.5, .notpm = 2000, .tps = 80, .p90 = 5, .work_mem = "8MB" },
    };
    static const int step_no[] = { 1, 3 };
    const struct cmp_table_opts study = { .runs_of = 3, .full_notes = 1, .step_no = step_no };
    const char *note = "shared_buffers = 8GB, work_mem = 64MB, wal_buffers = 16MB";
    struct cmp c;
    struct err e;
    char *t = NULL;
    size_t len = 0;
    FILE *out;

    (void)state;
    err_clear(&e);
    assert_int_equal(build(&c, s, 2, 0, &e), 0);
    c.runs[1].change = note;
    assert_non_null(out = open_memstream(&t, &len));
    cmp_print_steps(out, &c, NULL);
    fclose(out);
    expect_contains("compare's table", t, "step  label     change note");
    expect_contains("compare's table", t, "   2  sga       shared_buffers = 8GB, work_mem = ...    4.50");
    if (strstr(t, "runs")) {
        print_error("no repeats: want no runs column; got:\n%s\n", t);
        fail();
    }
    free(t);
    t = NULL;
    assert_non_null(out = open_memstream(&t, &len));
    cmp_print_steps(out, &c, &study);
    fclose(out);
    expect_contains("the study's table", t, "runs  load s");
    expect_contains("the study's table", t, "   1  baseline  a note that always differs");
    expect_contains("the study's table", t, "   3  sga       ");
    expect_contains("the study's table", t, "wal_buffers = 16MB   1/3    4.50  +1011.1 %");
    free(t);
    cmp_release(&c);
}

static void test_run_without_load(void **state)
{
    struct spec s[] = {
        { .label = "a", .load_s = NAN, .notpm = 1000, .tps = 40, .p90 = 10 },
        { .label = "b", .load_s = NAN, .notpm = 1100, .tps = 44, .p90 = 9 },
    };
    struct cmp c;
    struct err e;
    char *t;

    (void)state;
    assert_int_equal(build(&c, s, 2, 0, &e), 0);
    assert_true(isnan(c.steps[0].med[CMP_LOAD]));
    t = printed(&c, CMP_TEXT);
    /* step, label, note, then "-" for load time and both of its gains. */
    expect_contains("text", t,
                    "2  b      a note that always differs       -     -         -   1100");
    free(t);
    cmp_release(&c);
}

static void test_diff_one_setting(void **state)
{
    /* Label, change note, start time, results dir and the config hash differ: not changes. */
    struct spec s[] = {
        { .label = "baseline",
          .load_s = 10,
          .notpm = 1000,
          .tps = 40,
          .p90 = 10,
          .started = "2026-01-01T00:00:00Z",
          .hash = "fnv1a64:1111111111111111" },
        { .label = "work-mem",
          .load_s = 10,
          .notpm = 1000,
          .tps = 40,
          .p90 = 10,
          .work_mem = "8MB",
          .started = "2026-01-01T01:00:00Z",
          .hash = "fnv1a64:2222222222222222" },
    };
    struct cmp c;
    struct err e;

    (void)state;
    assert_int_equal(build(&c, s, 2, 0, &e), 0);
    if (c.steps[1].n_diffs != 1) {
        for (int i = 0; i < c.steps[1].n_diffs; i++)
            print_error("diff %s: %s -> %s\n", c.steps[1].diffs[i].path, c.steps[1].diffs[i].old,
                        c.steps[1].diffs[i].new_);
        fail();
    }
    assert_string_equal(c.steps[1].diffs[0].key, "work_mem");
    assert_string_equal(c.steps[1].diffs[0].path, "environment.dbms.settings.work_mem");
    assert_string_equal(c.steps[1].diffs[0].old, "4MB");
    assert_string_equal(c.steps[1].diffs[0].new_, "8MB");
    assert_int_equal(c.steps[1].n_changes, 1);
    assert_int_equal(c.n_warnings, 0);
    cmp_release(&c);
}

static void test_diff_derived(void **state)
{
    /* wal_buffers follows shared_buffers (source default in both): shown, not counted. */
    struct spec s[] = {
        { .label = "baseline", .load_s = 10, .notpm = 1000, .tps = 40, .p90 = 10 },
        { .label = "sb",
          .load_s = 10,
          .notpm = 1000,
          .tps = 40,
          .p90 = 10,
          .shared_buffers = "1GB",
          .wal_buffers = "16MB" },
    };
    struct cmp c;
    struct err e;

    (void)state;
    assert_int_equal(build(&c, s, 2, 0, &e), 0);
    assert_int_equal(c.steps[1].n_diffs, 2);
    assert_int_equal(c.steps[1].n_changes, 1);
    for (int i = 0; i < 2; i++)
        assert_int_equal(c.steps[1].diffs[i].derived,
                         strcmp(c.steps[1].diffs[i].key, "wal_buffers") == 0);
    assert_int_equal(c.n_warnings, 0);
    cmp_release(&c);
}

static void test_multiple_changes_warn(void **state)
{
    struct spec s[] = {
        { .label = "baseline", .load_s = 10, .notpm = 1000, .tps = 40, .p90 = 10 },
        { .label = "two",
          .load_s = 10,
          .notpm = 1000,
          .tps = 40,
          .p90 = 10,
          .work_mem = "8MB",
          .swappiness = "1" },
        { .label = "kernel",
          .load_s = 10,
          .notpm = 1000,
          .tps = 40,
          .p90 = 10,
          .work_mem = "8MB",
          .swappiness = "1",
          .kernel = "6.6.0" },
    };
    struct cmp c;
    struct err e;

    (void)state;
    assert_int_equal(build(&c, s, 3, 0, &e), 0);
    assert_int_equal(c.steps[1].n_changes, 2);
    assert_int_equal(c.steps[2].n_changes, 1);
    assert_int_equal(c.n_warnings, 1);
    expect_contains("warning", c.warnings[0],
                    "step 2 'two' changed 2 things (work_mem, vm.swappiness)");
    cmp_release(&c);
}

static void test_incomparable(void **state)
{
    struct spec s[] = {
        { .label = "a", .load_s = 10, .notpm = 1000, .tps = 40, .p90 = 10, .vus = 4 },
        { .label = "b", .load_s = 10, .notpm = 1000, .tps = 40, .p90 = 10, .vus = 8 },
    };
    struct cmp c;
    struct err e;

    (void)state;
    err_clear(&e);
    assert_int_equal(build(&c, s, 2, 0, &e), E_USAGE);
    expect_contains("refusal", e.msg,
                    "runs are not comparable: virtual users is 4 in 'run1/run.json' "
                    "but 8 in 'run2/run.json'");
    expect_contains("refusal", e.msg, "--force");
    cmp_release(&c);
    assert_int_equal(build(&c, s, 2, 1, &e), 0);
    assert_int_equal(c.n_warnings, 1);
    expect_contains("forced", c.warnings[0], "virtual users differs");
    cmp_release(&c);
}

static void test_repeats_noise(void **state)
{
    struct spec s[] = {
        { .label = "base", .load_s = 10, .notpm = 100, .tps = 10, .p90 = 10 },
        { .label = "base", .load_s = 12, .notpm = 104, .tps = 10, .p90 = 10 },
        { .label = "base", .load_s = 11, .notpm = 98, .tps = 10, .p90 = 10 },
        { .label = "tweak", .load_s = 10, .notpm = 103, .tps = 10, .p90 = 10 },
        { .label = "tweak", .load_s = 10, .notpm = 101, .tps = 10, .p90 = 10 },
        { .label = "big", .load_s = 5, .notpm = 200, .tps = 20, .p90 = 5 },
    };
    struct cmp c;
    struct err e;
    char *t;

    (void)state;
    assert_int_equal(build(&c, s, 6, 0, &e), 0);
    assert_int_equal(c.n_steps, 3);
    assert_int_equal(c.steps[0].n, 3);
    assert_int_equal(c.steps[1].n, 2);
    assert_true(c.steps[0].med[CMP_NOTPM] == 100 && c.steps[0].lo[CMP_NOTPM] == 98 &&
                c.steps[0].hi[CMP_NOTPM] == 104);
    assert_true(c.steps[1].med[CMP_NOTPM] == 102); /* even count: mean of the middle two */
    assert_true(c.steps[0].med[CMP_LOAD] == 11);
    assert_true(cmp_within_noise(&c, 1, 0, CMP_NOTPM));  /* 101..103 overlaps 98..104 */
    assert_false(cmp_within_noise(&c, 2, 1, CMP_NOTPM)); /* 200 is outside 101..103 */
    assert_true(cmp_within_noise(&c, 1, 0, CMP_LOAD));   /* 10..10 inside 10..12 */
    t = printed(&c, CMP_TEXT);
    expect_contains("text", t, "+2.0 %~");
    expect_contains("text", t, "98..104");
    expect_contains("text", t, "~ within noise");
    free(t);
    cmp_release(&c);
}

/* A figure against its known value (from python3's mpmath), to 1e-6. */
static void expect_near(const char *what, double got, double want)
{
    if (!(fabs(got - want) < 1e-6)) {
        print_error("%s: want %.9f, got %.9f\n", what, want, got);
        fail();
    }
}

/*
 * Repeats in compare: each gain's 95 % interval and verdict (Welch's t on
 * the log figures, values from mpmath), the "~" mark following the interval
 * where both steps have repeats, and every format and the report showing it.
 */
static void test_repeats_significance(void **state)
{
    struct spec s[] = {
        { .label = "base", .load_s = 10, .notpm = 1000, .tps = 100, .p90 = 10 },
        { .label = "base", .load_s = 10, .notpm = 1020, .tps = 102, .p90 = 10 },
        { .label = "base", .load_s = 10, .notpm = 980, .tps = 98, .p90 = 10 },
        { .label = "fast", .load_s = 10, .notpm = 1200, .tps = 120, .p90 = 10 },
        { .label = "fast", .load_s = 10, .notpm = 1230, .tps = 123, .p90 = 10 },
        { .label = "fast", .load_s = 10, .notpm = 1170, .tps = 117, .p90 = 10 },
        { .label = "noisy", .load_s = 10, .notpm = 1100, .tps = 110, .p90 = 10 },
        { .label = "noisy", .load_s = 10, .notpm = 1300, .tps = 130, .p90 = 10 },
        { .label = "noisy", .load_s = 10, .notpm = 1250, .tps = 125, .p90 = 10 },
    };
    struct report_opts o = { 0 };
    struct sig_result r;
    struct cmp c;
    struct err e;
    size_t len;
    char *t;

    (void)state;
    assert_int_equal(build(&c, s, 9, 0, &e), 0);
    assert_int_equal(c.n_steps, 3);
    assert_true(cmp_any_sig(&c));
    cmp_sig(&c, 1, 0, CMP_NOTPM, &r);
    expect_near("fast vs base: gain", r.gain, 0.2);
    expect_near("fast vs base: ci low", r.lo, 0.13874259343491957);
    expect_near("fast vs base: ci high", r.hi, 0.26436291551644286);
    expect_near("fast vs base: df", r.df, 3.8159896133626208);
    assert_int_equal(r.verdict, SIG_GAIN);
    assert_int_equal(r.n_old, 3);
    assert_int_equal(r.n_new, 3);
    cmp_sig(&c, 2, 1, CMP_NOTPM, &r);
    expect_near("noisy vs fast: ci low", r.lo, -0.17013545749894643);
    expect_near("noisy vs fast: ci high", r.hi, 0.23303483216597143);
    assert_int_equal(r.verdict, SIG_NOISE);
    cmp_sig(&c, 2, 0, CMP_NOTPM, &r);
    expect_near("noisy vs base: ci low", r.lo, -0.00980685727629016);
    assert_int_equal(r.verdict, SIG_NOISE);
    assert_false(cmp_within_noise(&c, 1, 0, CMP_NOTPM));
    /* 1100..1300 does not overlap 980..1020, but the interval holds no change. */
    assert_true(cmp_within_noise(&c, 2, 0, CMP_NOTPM));

    t = printed(&c, CMP_TEXT);
    expect_contains("text", t, "significance: the gain of the medians");
    expect_contains("text", t,
                    "2  fast   1 base     NOTPM       +20.0 %  [+13.9, +26.4]    significant gain");
    expect_contains("text", t,
                    "3  noisy  1 base     NOTPM       +25.0 %  [-1.0, +48.8]     "
                    "within noise");
    free(t);
    t = printed(&c, CMP_MARKDOWN);
    expect_contains("markdown", t,
                    "| 2 | fast | 1 base | NOTPM | +20.0 % | [+13.9, +26.4] | "
                    "significant gain |");
    free(t);
    t = printed(&c, CMP_CSV);
    expect_contains("csv header", t,
                    ",changes,notpm_gain_pct,notpm_ci_low_pct,notpm_ci_high_pct,"
                    "notpm_verdict,notpm_vs_first_gain_pct,");
    expect_contains("csv step 2", t, ",20.00,13.87,26.44,significant gain,,,,,");
    free(t);
    t = printed(&c, CMP_JSON);
    expect_contains("json", t, "\"significance\": [");
    expect_contains("json", t, "\"verdict\": \"significant gain\"");
    free(t);
    assert_int_equal(report_html(&c, &o, &t, &len, &e), 0);
    expect_contains("report", t, "<section id=\"significance\"><h2>Significance</h2>");
    expect_contains("report", t,
                    "<tr data-step=\"s2\" data-verdict=\"gain\"><td>2</td><td>fast"
                    "</td><td>1 base</td><td>NOTPM</td><td class=\"num\">+20.0 %</td>"
                    "<td class=\"num\">[+13.9, +26.4]</td>");
    free(t);
    cmp_release(&c);

    /* Single runs: no significance anywhere, as before. */
    assert_int_equal(build(&c, s + 2, 2, 0, &e), 0);
    assert_false(cmp_any_sig(&c));
    for (int f = CMP_TEXT; f <= CMP_JSON; f++) {
        t = printed(&c, f);
        if (strstr(t, "ignificance") || strstr(t, "verdict")) {
            print_error("format %d of single runs shows significance:\n%s\n", f, t);
            fail();
        }
        free(t);
    }
    assert_int_equal(report_html(&c, &o, &t, &len, &e), 0);
    assert_null(strstr(t, "id=\"significance\""));
    free(t);
    cmp_release(&c);
}

/* With repeats on both sides the gate trips only when the whole interval is past the threshold. */
static void test_gate_repeats(void **state)
{
    static const struct {
        const char *rule;
        int tripped;
    } cases[] = {
        { "notpm < -5%", 0 },   /* median -7.0 %, interval [-12.95, -0.68]: reaches -5 % */
        { "notpm < -0.5%", 1 }, /* the whole interval is below -0.5 % */
        { "notpm < -0.7%", 0 }, /* -0.68 is above it */
        { "notpm > +5%", 0 },
    };
    struct spec s[] = {
        { .label = "base", .load_s = 10, .notpm = 1000, .tps = 100, .p90 = 10 },
        { .label = "base", .load_s = 10, .notpm = 1020, .tps = 100, .p90 = 10 },
        { .label = "base", .load_s = 10, .notpm = 980, .tps = 100, .p90 = 10 },
        { .label = "new", .load_s = 10, .notpm = 900, .tps = 100, .p90 = 10 },
        { .label = "new", .load_s = 10, .notpm = 960, .tps = 100, .p90 = 10 },
        { .label = "new", .load_s = 10, .notpm = 930, .tps = 100, .p90 = 10 },
    };
    struct cmp c;
    struct err e;

    (void)state;
    assert_int_equal(build(&c, s, 6, 0, &e), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cmp_rule r;
        struct cmp_verdict v;
        int col;
        assert_int_equal(cmp_rule_parse(cases[i].rule, &r, &col, &e), 0);
        assert_int_equal(cmp_rule_eval(&c, &r, &v, &e), 0);
        assert_true(v.by_interval);
        expect_near("change", v.change_pct, -7.0);
        expect_near("ci low", v.ci_lo_pct, -12.951325756908505);
        expect_near("ci high", v.ci_hi_pct, -0.6842481821707103);
        if (v.tripped != cases[i].tripped) {
            print_error("rule '%s': want tripped %d, got %d\n", cases[i].rule, cases[i].tripped,
                        v.tripped);
            fail();
        }
    }
    cmp_release(&c);
}

/* The study's gate: its last step but the control against its first (cmp_rule_eval_steps), and
 * what compare and the study say of a verdict (cmp_verdict_text). */
static void test_gate_steps(void **state)
{
    static const struct {
        const char *rule;
        int said; /* cmp_verdict_text's answer */
        const char *text;
    } cases[] = {
        { "notpm < -0.5%", 1,
          "--fail-if 'notpm < -0.5%' tripped: notpm 1000 -> 930 is -7.00 % [-12.95, -0.68] (the "
          "whole 95 % interval is past the threshold)" },
        { "notpm < -5%", 0,
          "--fail-if 'notpm < -5%': notpm 1000 -> 930 is -7.00 % [-12.95, -0.68], past the "
          "threshold but not significantly (the 95 % interval reaches it): not tripped" },
        { "notpm > +5%", -1, "" },
    };
    struct spec s[] = {
        { .label = "base", .load_s = 10, .notpm = 1000, .tps = 100, .p90 = 10 },
        { .label = "base", .load_s = 10, .notpm = 1020, .tps = 100, .p90 = 10 },
        { .label = "base", .load_s = 10, .notpm = 980, .tps = 100, .p90 = 10 },
        { .label = "new", .load_s = 10, .notpm = 900, .tps = 100, .p90 = 10 },
        { .label = "new", .load_s = 10, .notpm = 960, .tps = 100, .p90 = 10 },
        { .label = "new", .load_s = 10, .notpm = 930, .tps = 100, .p90 = 10 },
        { .label = "control", .load_s = NAN, .notpm = 2000, .tps = 100, .p90 = 10 },
    };
    struct cmp_rule r;
    struct cmp_verdict v;
    struct cmp c;
    struct err e;
    char text[768];
    int col;

    (void)state;
    assert_int_equal(build(&c, s, 7, 0, &e), 0);
    assert_int_equal(c.n_steps, 3);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int said;
        assert_int_equal(cmp_rule_parse(cases[i].rule, &r, &col, &e), 0);
        assert_int_equal(cmp_rule_eval_steps(&c, &r, 0, 1, &v, &e), 0);
        expect_near("change", v.change_pct, -7.0);
        said = cmp_verdict_text(text, sizeof(text), &r, &v);
        if (said != cases[i].said || strcmp(text, cases[i].text) != 0) {
            print_error("rule '%s': want %d '%s', got %d '%s'\n", cases[i].rule, cases[i].said,
                        cases[i].text, said, text);
            fail();
        }
    }
    /* The last step (the control) against the first: +100 %, no interval (one run). */
    assert_int_equal(cmp_rule_parse("notpm > +50%", &r, &col, &e), 0);
    assert_int_equal(cmp_rule_eval(&c, &r, &v, &e), 0);
    expect_near("change", v.change_pct, 100.0);
    assert_false(v.by_interval);
    assert_true(v.tripped);
    /* A step without the figure: E_USAGE, and the verdict holds no figure (NaN, not 0). */
    assert_int_equal(cmp_rule_parse("load_time > +10%", &r, &col, &e), 0);
    assert_int_equal(cmp_rule_eval_steps(&c, &r, 0, 2, &v, &e), E_USAGE);
    expect_contains("message", e.msg, "run 'run7' (control) has no load_time");
    assert_true(isnan(v.change_pct) && isnan(v.ci_lo_pct) && isnan(v.old_v));
    assert_false(v.tripped);
    cmp_release(&c);
}

static void test_gate_boundary(void **state)
{
    static const struct {
        const char *rule;
        double old_v, new_v; /* of the rule's metric */
        int tripped;
    } cases[] = {
        { "notpm < -5%", 1000, 950, 0 }, /* exactly -5 %: not past it */
        { "notpm < -5%", 1000, 949, 1 },
        { "notpm < -5%", 1000, 1100, 0 },
        { "tps < -5%", 100, 95, 0 },
        { "tps < -5%", 100, 94.99, 1 },
        { "load_time > +10%", 10, 11, 0 }, /* exactly +10 % */
        { "load_time > +10%", 10, 11.01, 1 },
        { "load_time > +10%", 50, 4.5, 0 },
        { "p90.new_order > +20%", 5, 6, 0 },
        { "p90.new_order > +20%", 5, 6.01, 1 },
        { "p99.new_order > +20%", 5, 6.01, 1 }, /* p99 is twice p90 in the specs */
        { "notpm > +0%", 1000, 1000, 0 },
        { "notpm > -0.5%", 1000, 996, 1 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct spec s[2] = {
            { .label = "base", .load_s = 10, .notpm = 1000, .tps = 100, .p90 = 5 },
            { .label = "new", .load_s = 10, .notpm = 1000, .tps = 100, .p90 = 5 },
        };
        struct cmp_rule r;
        struct cmp_verdict v;
        struct cmp c;
        struct err e;
        int col;
        assert_int_equal(cmp_rule_parse(cases[i].rule, &r, &col, &e), 0);
        if (r.metric == CMP_LOAD) {
            s[0].load_s = cases[i].old_v;
            s[1].load_s = cases[i].new_v;
        } else if (r.metric == CMP_NOTPM) {
            s[0].notpm = cases[i].old_v;
            s[1].notpm = cases[i].new_v;
        } else if (r.metric == CMP_TPS) {
            s[0].tps = cases[i].old_v;
            s[1].tps = cases[i].new_v;
        } else {
            s[0].p90 = cases[i].old_v;
            s[1].p90 = cases[i].new_v;
        }
        assert_int_equal(build(&c, s, 2, 0, &e), 0);
        assert_int_equal(cmp_rule_eval(&c, &r, &v, &e), 0);
        if (v.tripped != cases[i].tripped) {
            print_error("rule '%s' on %g -> %g (change %.12f %%): want tripped %d, got %d\n",
                        cases[i].rule, cases[i].old_v, cases[i].new_v, v.change_pct,
                        cases[i].tripped, v.tripped);
            fail();
        }
        cmp_release(&c);
    }
}

static void test_gate_missing_metric(void **state)
{
    struct spec s[] = {
        { .label = "a", .load_s = NAN, .notpm = 1000, .tps = 40, .p90 = 10 },
        { .label = "b", .load_s = 5, .notpm = 1000, .tps = 40, .p90 = 10 },
    };
    struct cmp_rule r;
    struct cmp_verdict v;
    struct cmp c;
    struct err e;
    int col;

    (void)state;
    assert_int_equal(cmp_rule_parse("load_time > +10%", &r, &col, &e), 0);
    assert_int_equal(build(&c, s, 2, 0, &e), 0);
    assert_int_equal(cmp_rule_eval(&c, &r, &v, &e), E_USAGE);
    expect_contains("message", e.msg, "run 'run1' (a) has no load_time");
    cmp_release(&c);
}

static void test_rule_parse(void **state)
{
    static const struct {
        const char *rule;
        int col;         /* 0: parses */
        const char *msg; /* part of the message */
        int metric;
        char op;
        double pct;
    } cases[] = {
        { "notpm < -5%", 0, NULL, CMP_NOTPM, '<', -5 },
        { "  load_time>+10%  ", 0, NULL, CMP_LOAD, '>', 10 },
        { "p90.new_order > +20%", 0, NULL, CMP_P90 + TX_NEW_ORDER, '>', 20 },
        { "p99.stock_level > +2.5%", 0, NULL, CMP_P99 + TX_STOCK_LEVEL, '>', 2.5 },
        { "tps<-0%", 0, NULL, CMP_TPS, '<', 0 },
        { "notpm << -5%", 8, "a single '<' or '>'", 0, 0, 0 },
        { "notpm <= -5%", 8, "a single '<' or '>'", 0, 0, 0 },
        { "notpm < 5%", 9, "expected a sign '+' or '-'", 0, 0, 0 },
        { "nopm < -5%", 1, "unknown metric 'nopm'", 0, 0, 0 },
        { "p90.neworder > +1%", 5, "unknown transaction type 'neworder'", 0, 0, 0 },
        { "notpm -5%", 7, "expected '<' or '>'", 0, 0, 0 },
        { "notpm < -5", 11, "expected '%' after the number", 0, 0, 0 },
        { "notpm < -%", 10, "expected digits after the sign", 0, 0, 0 },
        { "notpm < -5.%", 12, "expected digits after the decimal point", 0, 0, 0 },
        { "notpm < -5% and more", 13, "unexpected text after the rule", 0, 0, 0 },
        { "", 1, "expected a metric", 0, 0, 0 },
        { "< -5%", 1, "expected a metric", 0, 0, 0 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cmp_rule r;
        struct err e;
        int col = -1, rc;
        err_clear(&e);
        rc = cmp_rule_parse(cases[i].rule, &r, &col, &e);
        if (cases[i].col == 0) {
            if (rc != 0 || r.metric != cases[i].metric || r.op != cases[i].op ||
                r.pct != cases[i].pct) {
                print_error("'%s': want metric %d op %c pct %g; got rc %d (%s) metric %d op %c "
                            "pct %g\n",
                            cases[i].rule, cases[i].metric, cases[i].op, cases[i].pct, rc, e.msg,
                            r.metric, r.op ? r.op : '?', r.pct);
                fail();
            }
            continue;
        }
        if (rc != E_USAGE || col != cases[i].col || !strstr(e.msg, cases[i].msg)) {
            print_error("'%s': want E_USAGE at column %d with '%s'; got rc %d at column %d: %s\n",
                        cases[i].rule, cases[i].col, cases[i].msg, rc, col, e.msg);
            fail();
        }
    }
}

/* Write text to a fresh temp folder's run.json; returns the folder (static). */
static const char *temp_record(const char *text)
{
    static char dir[64];
    char path[128];
    FILE *f;

    snprintf(dir, sizeof(dir), "/tmp/tpcc-test-compare.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/run.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return dir;
}

static void remove_record(const char *dir)
{
    char path[128];

    snprintf(path, sizeof(path), "%s/run.json", dir);
    unlink(path);
    rmdir(dir);
}

#define DAMAGED "the record is damaged: leave it out, or run that step again"
#define V1      "{\"tool\": {\"record_version\": 1}, \"label\": \"x\", "

static void test_bad_files(void **state)
{
    /* Each record text and the exact message after "<folder>/run.json". */
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        { "{\"tool\": {\"record_version\": 1}, \"label\": \"x\", \"run\": {\"notpm\": 12",
          ":1:65: truncated JSON ('}' expected near end of file): the run that wrote it was cut "
          "short or the file was damaged; leave it out, or run that step again" },
        { "{\"tool\": {\"record_version\": 1},\n \"label\": \"x\",\n \"change\": \"abc",
          ":3:15: truncated JSON (premature end of input near '\"abc'): the run that wrote it was "
          "cut short or the file was damaged; leave it out, or run that step again" },
        { "not json", ":1:3: not valid JSON ('[' or '{' expected near 'not'): is this a run.json "
                      "written by tpccbench?" },
        { "{\"tool\": {\"record_version\": 1}, \"label\": \"x\", \"label\": \"y\"}",
          ":1:53: not valid JSON (duplicate object key near '\"label\"'): is this a run.json "
          "written by tpccbench?" },
        { "{\"tool\": {\"record_version\": 99}, \"label\": \"x\"}",
          ": record_version 99 is newer than this tpccbench reads (1); upgrade tpccbench" },
        { "{\"tool\": {\"record_version\": 0}, \"label\": \"x\"}",
          ": record_version 0 is not valid (they start at 1): " DAMAGED },
        { "{\"tool\": {\"record_version\": 1.0}, \"label\": \"x\"}",
          ": 'tool.record_version' must be an integer (got 1.0): " DAMAGED },
        { "{\"label\": \"x\"}",
          ": not a tpccbench run record (no tool.record_version); give a run folder or its "
          "run.json" },
        { "{\"tool\": [1], \"label\": \"x\"}", ": 'tool' must be an object (got [1]): " DAMAGED },
        { "[1, 2]", ": not a tpccbench run record: the JSON is an array, not an object; give a "
                    "run folder or its run.json" },
        { "", ": the file is empty: the run that wrote it did not finish; leave it out, or run "
              "that step again" },
        { "{\"tool\": {\"record_version\": 1}}", ": 'label' is missing: " DAMAGED },
        { "{\"tool\": {\"record_version\": 1}, \"label\": null}",
          ": 'label' must be a string (got null): " DAMAGED },
        { V1 "\"status\": true}", ": 'status' must be a string (got true): " DAMAGED },
        { V1 "\"config\": \"a\"}", ": 'config' must be an object (got \"a\"): " DAMAGED },
        { V1 "\"environment\": 7}", ": 'environment' must be an object (got 7): " DAMAGED },
        { V1 "\"load\": {\"phase_reached\": 4}}",
          ": 'load.phase_reached' must be a string (got 4): " DAMAGED },
        { V1 "\"load\": {\"phase_reached\": \"done\", \"seconds\": \"5\"}}",
          ": 'load.seconds' must be a number (got \"5\"): " DAMAGED },
        { V1 "\"run\": {\"notpm\": \"many\"}}",
          ": 'run.notpm' must be a number (got \"many\"): " DAMAGED },
        { V1
          "\"run\": {\"tps\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]}}",
          ": 'run.tps' must be a number (got [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,...): " DAMAGED },
        { V1 "\"run\": {\"transactions\": []}}",
          ": 'run.transactions' must be an object (got []): " DAMAGED },
        { V1 "\"run\": {\"transactions\": {\"payment\": 3}}}",
          ": 'run.transactions.payment' must be an object (got 3): " DAMAGED },
        { V1 "\"run\": {\"transactions\": {\"delivery\": {\"p99_ms\": {}}}}}",
          ": 'run.transactions.delivery.p99_ms' must be a number (got {}): " DAMAGED },
        { V1 "\"run\": {\"validity\": {\"valid\": \"yes\"}}}",
          ": 'run.validity.valid' must be true or false (got \"yes\"): " DAMAGED },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *dir = temp_record(cases[i].text);
        struct cmp_run r;
        struct err e;
        char want[1024];
        int rc;
        err_clear(&e);
        rc = cmp_run_load(&r, dir, &e);
        snprintf(want, sizeof(want), "%s/run.json%s", dir, cases[i].msg);
        if (rc != E_USAGE || strcmp(e.msg, want) != 0) {
            print_error("case %zu: %s\nwant E_USAGE: %s\ngot  %d:      %s\n", i, cases[i].text,
                        want, rc, e.msg);
            fail();
        }
        cmp_run_release(&r);
        remove_record(dir);
    }
}

/* Records that are odd but sound still load: absent parts are absent figures. */
static void test_sparse_files(void **state)
{
    static const char *const texts[] = {
        "{\"tool\": {\"record_version\": 1}, \"label\": \"\"}",
        V1 "\"run\": {\"notpm\": null, \"transactions\": {}}, \"load\": {\"seconds\": \"n/a\"}}",
        V1 "\"run\": {\"validity\": {\"valid\": false}}, \"future_section\": [1, {\"a\": 2}]}",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        const char *dir = temp_record(texts[i]);
        struct cmp_run r;
        struct err e;
        err_clear(&e);
        if (cmp_run_load(&r, dir, &e) != 0 || !isnan(r.v[CMP_NOTPM]) || !isnan(r.v[CMP_LOAD])) {
            print_error("case %zu: %s\nwant it to load without figures; got: %s\n", i, texts[i],
                        e.msg);
            fail();
        }
        cmp_run_release(&r);
        remove_record(dir);
    }
}

static void test_series_parse(void **state)
{
    const char *ok = "second,phase,new_order_tps,payment_tps,total_tps,errors\n"
                     "1,warmup,10.0,10.0,25.0,0\n"
                     "2,measure,20.0,20.0,50.0,0\n"
                     "3,measure,21.0,19.0,52.5,0\n"
                     "4,stop,1.0,1.0,2.0,0\n";
    struct report_series s;
    struct err e;

    (void)state;
    assert_int_equal(report_series_parse(ok, "s.csv", &s, &e), 0);
    assert_int_equal(s.n, 2);
    assert_true(s.x[0] == 1 && s.x[1] == 2);
    assert_true(s.tps[0] == 50.0 && s.tps[1] == 52.5);
    assert_true(s.notpm[0] == 1200.0 && s.notpm[1] == 1260.0);
    report_series_release(&s);
    assert_int_equal(report_series_parse("second,phase,new_order_tps,total_tps\n2,measure,20.0,5",
                                         "s.csv", &s, &e),
                     E_USAGE);
    expect_contains("no final newline", e.msg, "'s.csv' is truncated");
    assert_int_equal(report_series_parse("second,phase,new_order_tps,total_tps\n2,measure,20.0\n",
                                         "s.csv", &s, &e),
                     E_USAGE);
    expect_contains("short row", e.msg, "'s.csv' line 2 has 3 fields, the header 4");
    assert_int_equal(report_series_parse("a,b\n1,2\n", "s.csv", &s, &e), E_USAGE);
    expect_contains("not a series", e.msg, "not a tpccbench series.csv");
}

static void test_mount_find(void **state)
{
    const char *mi = "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
                     "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
                     "40 27 8:17 / /srv/pg rw,noatime shared:5 - xfs /dev/sdb1 rw,attr2,inode64\n"
                     "41 27 8:33 / /srv/pg\\040data rw,relatime - ext4 /dev/sdc1 rw\n"
                     "42 40 0:50 / /srv/pg/tmp rw - tmpfs tmpfs rw,size=1024k\n"
                     "43 27 8:49 / /srv/pg rw,nobarrier - ext4 /dev/sdd1 rw\n";
    struct fp_mount m;

    (void)state;
    assert_int_equal(fingerprint_mount_find(mi, "/var/lib/postgresql", &m), 0);
    assert_string_equal(m.mount_point, "/");
    assert_string_equal(m.fstype, "ext4");
    /* /srv/pg is mounted twice: the later line is on top. */
    assert_int_equal(fingerprint_mount_find(mi, "/srv/pg/15/main", &m), 0);
    assert_string_equal(m.mount_point, "/srv/pg");
    assert_string_equal(m.options, "rw,nobarrier");
    assert_string_equal(m.source, "/dev/sdd1");
    assert_true(m.major == 8 && m.minor == 49);
    /* A prefix must end at a whole component: /srv/pgx is on /. */
    assert_int_equal(fingerprint_mount_find(mi, "/srv/pgx", &m), 0);
    assert_string_equal(m.mount_point, "/");
    assert_int_equal(fingerprint_mount_find(mi, "/srv/pg data/main", &m), 0);
    assert_string_equal(m.mount_point, "/srv/pg data");
    assert_string_equal(m.source, "/dev/sdc1");
    assert_int_equal(fingerprint_mount_find(mi, "/srv/pg/tmp", &m), 0);
    assert_string_equal(m.fstype, "tmpfs");
    assert_int_equal(fingerprint_mount_find("garbage\n", "/x", &m), -1);
}

static void test_fingerprint_helpers(void **state)
{
    char out[64], h1[64], h2[64], h3[64];
    json_t *a, *b, *c;

    (void)state;
    fingerprint_selected("none [mq-deadline] kyber bfq", out, sizeof(out));
    assert_string_equal(out, "mq-deadline");
    fingerprint_selected("always [madvise] never", out, sizeof(out));
    assert_string_equal(out, "madvise");
    fingerprint_selected("  powersave \n", out, sizeof(out));
    assert_string_equal(out, "powersave");
    /* FNV-1a 64 test vectors. */
    assert_true(fingerprint_fnv1a64("", 0) == UINT64_C(0xcbf29ce484222325));
    assert_true(fingerprint_fnv1a64("a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
    assert_true(fingerprint_fnv1a64("foobar", 6) == UINT64_C(0x85944171f73967e8));
    /* The hash ignores key order, the file and the results folder. */
    a = json_pack("{s:s, s:{s:i, s:s}, s:{s:s}}", "file", "a.yaml", "run", "virtual_users", 4,
                  "isolation", "read committed", "results", "dir", "one");
    b = json_pack("{s:{s:s, s:s}, s:{s:s, s:i}, s:s}", "results", "dir", "two", "x", "y", "run",
                  "isolation", "read committed", "virtual_users", 4, "file", "b.yaml");
    c = json_pack("{s:s, s:{s:i, s:s}, s:{s:s}}", "file", "a.yaml", "run", "virtual_users", 8,
                  "isolation", "read committed", "results", "dir", "one");
    fingerprint_config_hash(a, h1, sizeof(h1));
    fingerprint_config_hash(b, h2, sizeof(h2));
    fingerprint_config_hash(c, h3, sizeof(h3));
    assert_int_equal(strlen(h1), strlen("fnv1a64:") + 16);
    assert_string_equal(h1, h2);
    assert_string_not_equal(h1, h3);
    assert_non_null(json_object_get(a, "file")); /* not modified */
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

/* compare's machine-readable formats carry the metrics columns of the text
 * table, and a reason where a record has none. */
static void test_metrics_columns(void **state)
{
    struct spec s[] = {
        { .label = "old", .load_s = NAN, .notpm = 1000, .tps = 40, .p90 = 10 },
        { .label = "now",
          .load_s = NAN,
          .notpm = 1100,
          .tps = 44,
          .p90 = 9,
          .metrics = 1,
          .cpu_user = 30,
          .cpu_sys = 10.5,
          .iowait = 2.25,
          .disk_rd = 1.5,
          .disk_wr = 20 },
        { .label = "tmpfs",
          .load_s = NAN,
          .notpm = 1200,
          .tps = 48,
          .p90 = 9,
          .metrics = 1,
          .cpu_user = 31,
          .cpu_sys = 11,
          .iowait = 0,
          .disk_rd = NAN,
          .disk_wr = NAN },
        { .label = "off", .load_s = NAN, .notpm = 1200, .tps = 48, .p90 = 9, .metrics = 2 },
    };
    struct cmp c;
    struct err e;
    char *t;

    (void)state;
    err_clear(&e);
    assert_int_equal(build(&c, s, 4, 1, &e), 0);
    assert_int_equal(c.n_steps, 4);
    t = printed(&c, CMP_CSV);
    expect_contains("csv header", t,
                    ",cpu_pct,cpu_pct_min,cpu_pct_max,iowait_pct,iowait_pct_min,iowait_pct_max,"
                    "disk_mb_per_s,disk_mb_per_s_min,disk_mb_per_s_max,db_host_cpu_pct,"
                    "db_host_cpu_pct_min,db_host_cpu_pct_max,db_host_iowait_pct,"
                    "db_host_iowait_pct_min,db_host_iowait_pct_max,db_host_disk_mb_per_s,"
                    "db_host_disk_mb_per_s_min,db_host_disk_mb_per_s_max,metrics_note,changes\n");
    /* Step 1: an older record: empty cells and why. */
    expect_contains("csv old", t,
                    ",,,,,,,,,,,,,,,,,,,no metrics in this record (written before tpccbench "
                    "recorded them),");
    expect_contains("csv now", t, ",40.5,40.5,40.5,2.25,2.25,2.25,21.5,21.5,21.5,,,,,,,,,,,");
    expect_contains("csv tmpfs", t,
                    ",42,42,42,0,0,0,,,,,,,,,,,,,data disk: the data directory is on tmpfs: no block "
                    "device,");
    expect_contains("csv off", t,
                    ",,,,,,,,,,,,,,,,,,,no metrics: the run had run.metrics false,");
    free(t);
    t = printed(&c, CMP_TEXT);
    expect_contains("text", t,
                    "- metrics of step 1: no metrics in this record (written before tpccbench "
                    "recorded them)");
    expect_contains("text", t, "- metrics of step 4: no metrics: the run had run.metrics false");
    free(t);
    t = printed(&c, CMP_JSON);
    {
        json_error_t je;
        json_t *doc = json_loads(t, 0, &je), *steps = json_object_get(doc, "steps");
        json_t *m1 = json_object_get(json_array_get(steps, 0), "metrics");
        json_t *m2 = json_object_get(json_array_get(steps, 1), "metrics");
        assert_non_null(doc);
        assert_true(json_is_null(json_object_get(json_object_get(m1, "cpu_pct"), "median")));
        assert_string_equal(json_string_value(json_object_get(m1, "note")),
                            "no metrics in this record (written before tpccbench recorded them)");
        assert_true(
            fabs(json_number_value(json_object_get(json_object_get(m2, "cpu_pct"), "median")) -
                 40.5) < 1e-9);
        assert_null(json_object_get(m2, "note"));
        json_decref(doc);
    }
    free(t);
    cmp_release(&c);
}

/* New-Order's samples: on, a third waits for the WAL; off, none does. */
#define WAITS_ON                                                                                   \
    "{\"available\": true, \"rate_hz\": 10, \"samples\": 100, \"by_type\": {\"new_order\": "     \
    "{\"samples\": 100, \"events\": {\"CPU\": 40, \"LWLock:WALWrite\": 37, \"Client\": 23}}}}"
#define WAITS_OFF                                                                                  \
    "{\"available\": true, \"rate_hz\": 10, \"samples\": 100, \"by_type\": {\"new_order\": "     \
    "{\"samples\": 100, \"events\": {\"CPU\": 77, \"Client\": 23}}}}"

/* The step table's waits column: each step's largest wait change against the step before, "-"
 * where there is none (the first step, no change beyond the sampling error, no waits), and no
 * column at all when no run has waits. */
static void test_waits_column(void **state)
{
    struct spec s[] = {
        { .label = "baseline", .load_s = NAN, .notpm = 1000, .tps = 40, .p90 = 10,
          .waits = WAITS_ON },
        { .label = "sync-off", .load_s = NAN, .notpm = 1500, .tps = 60, .p90 = 5,
          .waits = WAITS_OFF },
        { .label = "again", .load_s = NAN, .notpm = 1500, .tps = 60, .p90 = 5,
          .waits = WAITS_OFF },
        { .label = "unsampled", .load_s = NAN, .notpm = 1500, .tps = 60, .p90 = 5 },
    };
    struct wdiff_change ch;
    char why[320], *t = NULL, *line;
    size_t len = 0;
    struct cmp c;
    struct err e;
    FILE *out;

    (void)state;
    err_clear(&e);
    assert_int_equal(build(&c, s, 4, 1, &e), 0);
    assert_int_equal(c.n_steps, 4);
    assert_int_equal(cmp_step_wait_change(&c, 0, &ch, why, sizeof(why)), 0);
    assert_int_equal(cmp_step_wait_change(&c, 1, &ch, why, sizeof(why)), 1);
    assert_string_equal(ch.type, "new_order");
    assert_string_equal(ch.key, "LWLock:WALWrite");
    assert_true(fabs(ch.old_share - 0.37) < 1e-12 && ch.new_share == 0 && ch.beyond_noise);
    assert_int_equal(cmp_step_wait_change(&c, 2, &ch, why, sizeof(why)), 0);
    assert_string_equal(why, "no wait's share changed beyond the sampling error");
    assert_int_equal(cmp_step_wait_change(&c, 3, &ch, why, sizeof(why)), 0);
    expect_contains("step 4's why", why, "the record has no waits");
    assert_non_null(out = open_memstream(&t, &len));
    cmp_print_steps(out, &c, NULL);
    fclose(out);
    /* The column is the last: each step's line ends with its cell. */
    expect_contains("text header", t, "  waits\n");
    assert_non_null(line = strstr(t, "\n   2  sync-off"));
    expect_contains("text step 2", line, "  new_order LWLock:WALWrite 37 % -> 0 %\n");
    for (int i = 1; i <= 4; i += i == 1 ? 2 : 1) {
        char want[32];
        snprintf(want, sizeof(want), "\n   %d  ", i);
        assert_non_null(line = strstr(t, want));
        line = strchr(line + 1, '\n');
        assert_non_null(line);
        if (strncmp(line - 3, "  -", 3) != 0) {
            print_error("step %d: want the waits cell '-'; got:\n%s\n", i, t);
            fail();
        }
    }
    expect_contains("text note", t, "waits: the wait whose share of a type's samples");
    free(t);
    t = printed(&c, CMP_MARKDOWN);
    expect_contains("markdown header", t, " New-Order p90 ms | change | largest wait change |\n");
    expect_contains("markdown step 2", t, " | new_order LWLock:WALWrite 37 % -> 0 % |\n");
    expect_contains("markdown step 3", t, "| 3 | again | ");
    free(t);
    cmp_release(&c);
    /* No run with waits: no column. */
    for (int i = 0; i < 4; i++)
        s[i].waits = NULL;
    assert_int_equal(build(&c, s, 4, 1, &e), 0);
    t = printed(&c, CMP_TEXT);
    if (strstr(t, "waits")) {
        print_error("no waits: want no waits column or note; got:\n%s\n", t);
        fail();
    }
    free(t);
    cmp_release(&c);
}

/* The durable column in every format, and the rule 'lost > N' on every step. */
/* The counts of the durable column and the durability verdict
 * (core/fmt.c): thousands apart, signs kept, cut short to fit. */
static void test_fmt_grouped(void **state)
{
    char b[32];

    (void)state;
    assert_string_equal(fmt_grouped(b, sizeof(b), 0), "0");
    assert_string_equal(fmt_grouped(b, sizeof(b), 999), "999");
    assert_string_equal(fmt_grouped(b, sizeof(b), 1000), "1,000");
    assert_string_equal(fmt_grouped(b, sizeof(b), 41233), "41,233");
    assert_string_equal(fmt_grouped(b, sizeof(b), 1234567), "1,234,567");
    assert_string_equal(fmt_grouped(b, sizeof(b), -1204), "-1,204");
    assert_string_equal(fmt_grouped(b, sizeof(b), INT64_MIN), "-9,223,372,036,854,775,808");
    assert_string_equal(fmt_grouped(b, 6, 1234567), "1,23");
}

static void test_durable_column(void **state)
{
    struct spec s[] = {
        { .label = "defaults", .load_s = NAN, .notpm = 1000, .tps = 40, .p90 = 10, .dur = 1 },
        { .label = "sync-off", .load_s = NAN, .notpm = 1500, .tps = 60, .p90 = 5, .dur = 1,
          .lost = 1204 },
        { .label = "sync-on", .load_s = NAN, .notpm = 1000, .tps = 40, .p90 = 10, .dur = 1 },
        { .label = "unchecked", .load_s = NAN, .notpm = 1000, .tps = 40, .p90 = 10 },
    };
    static const char *const want[4] = { "yes", "LOST 1,204", "yes", "no check" };
    struct cmp_rule r;
    struct cmp_verdict v;
    struct cmp c;
    struct err e;
    json_error_t je;
    json_t *doc;
    char *t, text[768];
    int col;

    (void)state;
    err_clear(&e);
    assert_int_equal(build(&c, s, 4, 1, &e), 0);
    assert_int_equal(c.n_steps, 4);
    t = printed(&c, CMP_TEXT);
    expect_contains("text", t, "  durable\n");
    expect_contains("text step 2", t, "  LOST 1,204\n");
    expect_contains("text step 4", t, "  no check\n");
    free(t);
    t = printed(&c, CMP_MARKDOWN);
    expect_contains("markdown header", t, " | durable |\n");
    expect_contains("markdown step 2", t, " | LOST 1,204 |\n");
    free(t);
    t = printed(&c, CMP_CSV);
    expect_contains("csv header", t, ",db_host_disk_mb_per_s_max,durable,lost,metrics_note,changes\n");
    expect_contains("csv step 1", t, ",yes,0,");
    expect_contains("csv step 2", t, ",\"LOST 1,204\",1204,");
    expect_contains("csv step 4", t, ",no check,,");
    free(t);
    t = printed(&c, CMP_JSON);
    assert_non_null(doc = json_loads(t, 0, &je));
    for (int i = 0; i < 4; i++) {
        json_t *st = json_array_get(json_object_get(doc, "steps"), (size_t)i);
        const char *d = json_string_value(json_object_get(st, "durable"));
        json_t *l = json_object_get(st, "lost");
        if (!d || strcmp(d, want[i]) != 0 || !l ||
            (i == 3 ? !json_is_null(l) : json_integer_value(l) != s[i].lost)) {
            print_error("json step %d: want durable '%s', lost %d; got:\n%s\n", i + 1, want[i],
                        s[i].lost, t);
            fail();
        }
    }
    json_decref(doc);
    free(t);

    /* 'lost > 0' on steps 1..3: step 2 lost, and it is not the last. */
    assert_int_equal(cmp_rule_parse("lost > 0", &r, &col, &e), 0);
    assert_int_equal(cmp_rule_eval_steps(&c, &r, 0, 2, &v, &e), 0);
    assert_true(v.tripped);
    assert_int_equal(v.lost_step, 1);
    assert_int_equal(cmp_verdict_text(text, sizeof(text), &r, &v), 1);
    assert_string_equal(text, "--fail-if 'lost > 0' tripped: step 2 'sync-off': a run lost 1204 "
                              "acknowledged transactions in its durability check (NOT DURABLE)");
    /* Past the loss: not tripped. */
    assert_int_equal(cmp_rule_parse("lost > 1204", &r, &col, &e), 0);
    assert_int_equal(cmp_rule_eval_steps(&c, &r, 0, 2, &v, &e), 0);
    assert_false(v.tripped);
    /* The judged step without the check cannot be judged. */
    assert_int_equal(cmp_rule_parse("lost > 0", &r, &col, &e), 0);
    assert_int_equal(cmp_rule_eval(&c, &r, &v, &e), E_USAGE);
    expect_contains("message", e.msg, "run 'run4' (unchecked) has no durability check");
    cmp_release(&c);

    /* The lossy step first, a server that did not come back in the middle:
     * that one is named, both counted. */
    s[0].lost = 7;
    s[1].dur = 2;
    s[1].lost = 0;
    s[3].dur = 1;
    assert_int_equal(build(&c, s, 4, 1, &e), 0);
    err_clear(&e);
    assert_int_equal(cmp_rule_eval(&c, &r, &v, &e), 0);
    assert_true(v.tripped);
    assert_int_equal(cmp_verdict_text(text, sizeof(text), &r, &v), 1);
    assert_string_equal(text, "--fail-if 'lost > 0' tripped: step 2 'sync-off': the server did "
                              "not come back after the durability check's crash; 2 steps past "
                              "the rule");
    t = printed(&c, CMP_TEXT);
    expect_contains("text step 1", t, "  LOST 7\n");
    free(t);
    cmp_release(&c);
    /* Only the first step lost: still tripped, named. */
    s[1].dur = 1;
    assert_int_equal(build(&c, s, 4, 1, &e), 0);
    assert_int_equal(cmp_rule_eval(&c, &r, &v, &e), 0);
    assert_int_equal(cmp_verdict_text(text, sizeof(text), &r, &v), 1);
    assert_string_equal(text, "--fail-if 'lost > 0' tripped: step 1 'defaults': a run lost 7 "
                              "acknowledged transactions in its durability check (NOT DURABLE)");
    cmp_release(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gains_exact),
        cmocka_unit_test(test_step_table),
        cmocka_unit_test(test_step_table_opts),
        cmocka_unit_test(test_metrics_columns),
        cmocka_unit_test(test_waits_column),
        cmocka_unit_test(test_fmt_grouped),
        cmocka_unit_test(test_durable_column),
        cmocka_unit_test(test_run_without_load),
        cmocka_unit_test(test_diff_one_setting),
        cmocka_unit_test(test_diff_derived),
        cmocka_unit_test(test_multiple_changes_warn),
        cmocka_unit_test(test_incomparable),
        cmocka_unit_test(test_repeats_noise),
        cmocka_unit_test(test_repeats_significance),
        cmocka_unit_test(test_gate_repeats),
        cmocka_unit_test(test_gate_steps),
        cmocka_unit_test(test_gate_boundary),
        cmocka_unit_test(test_gate_missing_metric),
        cmocka_unit_test(test_rule_parse),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_sparse_files),
        cmocka_unit_test(test_series_parse),
        cmocka_unit_test(test_mount_find),
        cmocka_unit_test(test_fingerprint_helpers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
