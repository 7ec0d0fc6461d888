/*
 * test_history.c - unit tests of src/results/edivisive.c and the history
 * index of src/results/history.c.
 *
 * The statistic q(tau) and Welch's p are checked against values computed
 * once with python3: q exactly with fractions.Fraction from its definition
 * (edivisive.h), p with mpmath's regularized incomplete beta at 40 digits;
 * the fast best split against the definition on random series.  The search
 * is checked on seeded synthetic series (normal noise from a xorshift
 * generator and Box-Muller, so every run of the test sees the same
 * numbers): a step found where it is, an A/A series left alone.  The index:
 * built when missing, left alone when fresh, brought up to date when a
 * record changes or goes, rebuilt when damaged, each said; an appended line
 * keeps it fresh; lines piled up by runs written again are compacted.  A failing check prints both
 * values.
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
#include <sys/stat.h>
#include <unistd.h>

#include "results/edivisive.h"
#include "results/history.h"
#include "results/jskim.h"

#define near(got, want, tol)                                                             \
    do {                                                                                 \
        double g_ = (got), w_ = (want);                                                  \
        if (!(fabs(g_ - w_) <= (tol))) {                                                 \
            print_error("%s = %.15g, want %.15g (+-%g)\n", #got, g_, w_, (double)(tol)); \
            fail();                                                                      \
        }                                                                                \
    } while (0)

/* q(tau) for tau = 1.. of three series, from python3's Fraction (printed with %.17g). */
static void t_qhat_values(void **state)
{
    static const double a[] = { 10, 11, 9, 10, 12, 20, 21, 19, 22, 20 };
    static const double qa[] = { 113.0 / 20, 344.0 / 35, 19,         796.0 / 25, 43,
                                 682.0 / 25, 77.0 / 5,   362.0 / 35, 19.0 / 4 };
    static const double b[] = { 3.5, 1.25, 4.0, 2.0, 7.5, 8.25, 6.0, 9.5, 7.0, 1.5, 2.5 };
    static const double qb[] = { 1.7676767676767677,  1.9318181818181819,  3.1818181818181817,
                                 6.666666666666667,   0.63636363636363635, -2.5454545454545454,
                                 -3.1818181818181817, -1.7532467532467533, 4.6590909090909092,
                                 2.3737373737373737 };
    /* Ties, which the fast sums must count as distance 0. */
    static const double c[] = { 5, 5, 5, 7, 7, 5, 9, 9, 9, 9, 5, 9 };
    static const double qc[] = { 2.0666666666666669,
                                 4.5925925925925926,
                                 7.75,
                                 5.5238095238095237,
                                 5.6111111111111107,
                                 10.133333333333333,
                                 5,
                                 1.3333333333333333,
                                 -1.4166666666666667,
                                 -3.5555555555555554,
                                 2.0666666666666669 };
    int tau;

    (void)state;
    for (int t = 1; t < 10; t++)
        near(ed_qhat(a, 10, t), qa[t - 1], 1e-12);
    for (int t = 1; t < 11; t++)
        near(ed_qhat(b, 11, t), qb[t - 1], 1e-12);
    for (int t = 1; t < 12; t++)
        near(ed_qhat(c, 12, t), qc[t - 1], 1e-12);
    /* The best splits: the largest q of the taus allowed. */
    near(ed_best_split(a, 10, 2, &tau), 43, 1e-9);
    assert_int_equal(tau, 5);
    near(ed_best_split(b, 11, 2, &tau), 6.666666666666667, 1e-9);
    assert_int_equal(tau, 4);
    near(ed_best_split(b, 11, 1, &tau), 6.666666666666667, 1e-9);
    assert_int_equal(tau, 4);
    near(ed_best_split(c, 12, 2, &tau), 10.133333333333333, 1e-9);
    assert_int_equal(tau, 6);
    /* At least 5 a side leaves only tau 5 and 6 of c's 12: q(6) still wins. */
    near(ed_best_split(c, 12, 5, &tau), 10.133333333333333, 1e-9);
    assert_int_equal(tau, 6);
    /* At least 6 a side of a's 10 is not possible. */
    assert_true(isnan(ed_best_split(a, 10, 6, &tau)));
    assert_int_equal(tau, -1);
}

/* xorshift64*, and normal deviates by Box-Muller: the same numbers on every machine. */
static uint64_t rng_state;
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}
static double normal(void)
{
    double u = uniform(), v = uniform();

    return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

/* The fast split (Fenwick sums) is the definition's argmax on random series with ties. */
static void t_best_split_matches_definition(void **state)
{
    double x[80];
    int ties = 0;

    (void)state;
    rng_state = 12345;
    for (int round = 0; round < 40; round++) {
        int n = 8 + round * 2 % 72, tau, want = -1;
        double best = NAN, q;
        for (int i = 0; i < n; i++)
            x[i] = round % 3 == 0 ? floor(uniform() * 4) : 100 + 10 * normal() + (i > n / 2) * 5;
        for (int t = 3; t <= n - 3; t++) {
            double v = ed_qhat(x, n, t);
            if (isnan(best) || v > best + 1e-9 * fabs(best)) {
                best = v;
                want = t;
            }
        }
        q = ed_best_split(x, n, 3, &tau);
        near(q, best, 1e-9 * (fabs(best) + 1));
        near(ed_qhat(x, n, tau), best, 1e-9 * (fabs(best) + 1));
        /* The same split, or one whose q ties the definition's best within rounding (the
         * series with ties have equal q at several splits). */
        if (tau != want) {
            near(ed_qhat(x, n, want), ed_qhat(x, n, tau), 1e-9 * (fabs(best) + 1));
            ties++;
        }
    }
    /* Ties are the exception (the integer series of rounds 0, 3, ...), not the rule. */
    assert_true(ties <= 5);
}

/* Welch's p from mpmath (betainc at 40 digits). */
static void t_welch_p(void **state)
{
    static const double a1[] = { 10, 11, 9, 10, 12 }, b1[] = { 20, 21, 19, 22, 20 };
    static const double a2[] = { 100, 102, 98, 101, 99, 103 },
                        b2[] = { 101, 104, 99, 103, 100, 102, 105 };
    static const double a3[] = { 1, 2, 3, 4 }, b3[] = { 2.5, 3.5, 4.5, 5.5, 6.5 };
    static const double same[] = { 7, 7, 7 }, other[] = { 8, 8, 8 };

    (void)state;
    near(ed_welch_p(a1, 5, b1, 5) / 7.0710866088201098e-7, 1, 1e-6);
    near(ed_welch_p(a2, 6, b2, 7), 0.20676816275792612, 1e-9);
    near(ed_welch_p(a3, 4, b3, 5), 0.075197749598508389, 1e-9);
    /* No spread: the means differ (p 0) or they do not (p 1). */
    near(ed_welch_p(same, 3, other, 3), 0, 0);
    near(ed_welch_p(same, 3, same, 3), 1, 0);
    assert_true(isnan(ed_welch_p(a1, 1, b1, 5)));
}

/* A series of n_before runs at 1000 then n_after at 1000 * (1 + step), noise sd * level. */
static void series(double *x, int n_before, int n_after, double step, double sd)
{
    for (int i = 0; i < n_before + n_after; i++)
        x[i] = 1000.0 * (i < n_before ? 1.0 : 1.0 + step) * (1.0 + sd * normal());
}

static const struct ed_opts defaults = { 0.001, 0.0, 4 };

/*
 * A change point is the first run of the new segment: steps at known runs,
 * noise-free and among noise, found exactly there.  The noise is uniform,
 * +-2 % of the level, so that the 8 % and 6 % steps leave the levels apart
 * (no run of one side looks like the other's): any other split puts a run
 * on the wrong side, so only the exact index is right.  Gaussian noise, by
 * contrast, sometimes makes the run next to a step look like the other
 * level (t_step_within_one_run).
 */
static void t_step_at_its_index(void **state)
{
    static double x[10000];
    struct ed_point p[16];
    int n;

    (void)state;
    for (int noisy = 0; noisy <= 1; noisy++) {
        rng_state = 0x5DEECE66DULL;
        /* 10,000 runs: -8 % at run 7000 (0-based), +6 % at 9000. */
        for (int i = 0; i < 10000; i++)
            x[i] = 8000.0 * (i >= 7000 ? 0.92 : 1) * (i >= 9000 ? 1.06 : 1) *
                   (1 + noisy * 0.02 * (2 * uniform() - 1));
        n = ed_change_points(x, 10000, &defaults, p, 16);
        assert_int_equal(n, 2);
        assert_int_equal(p[0].at, 7000);
        assert_int_equal(p[1].at, 9000);
        assert_int_equal(p[0].at - p[0].from, 7000); /* runs before: all of the old level */
        /* 30 runs, a step at 11: the first 11 before it. */
        for (int i = 0; i < 30; i++)
            x[i] = (i < 11 ? 100.0 : 110.0) * (1 + noisy * 0.02 * (2 * uniform() - 1));
        n = ed_change_points(x, 30, &defaults, p, 16);
        assert_int_equal(n, 1);
        assert_int_equal(p[0].at, 11);
    }
}

/* No spread, no change: a figure the same in every run has no change point (its sides' means
 * once differed by rounding, which Welch's t turned into p = 1e-17); levels with no spread
 * each have one, at the step; the resolution is the smallest step between values. */
static void t_no_spread(void **state)
{
    static double x[10000];
    static const double q[] = { 3, 1.5, 1, 1.5, 3 };
    struct ed_point p[16];
    int n;

    (void)state;
    for (int i = 0; i < 10000; i++)
        x[i] = 7.428903;
    near(ed_resolution(x, 10000), 0, 0);
    assert_int_equal(ed_change_points(x, 10000, &defaults, p, 16), 0);
    for (int i = 0; i < 10000; i++)
        x[i] = i < 2000 ? 20.159 : 32.895;
    n = ed_change_points(x, 10000, &defaults, p, 16);
    assert_int_equal(n, 1);
    assert_int_equal(p[0].at, 2000);
    near(p[0].p, 0, 0);
    near(ed_resolution(q, 5), 0.5, 0);
    near(ed_resolution(q, 1), 0, 0);
    /* Welch's p of two sides of one value is 1 however many runs they hold. */
    near(ed_welch_p(x + 2000, 4000, x + 6000, 4000), 1, 0);
}

/* The point of p[0..n) with the largest change: the step (-1 when none). */
static int main_point(const struct ed_point *p, int n)
{
    int k = -1;

    for (int i = 0; i < n; i++)
        if (k < 0 || fabs(p[i].change) > fabs(p[k].change))
            k = i;
    return k;
}

/*
 * Seeded series with a 5 % step after n_a runs, noise sd * level, n_a runs a
 * side: how often the step's point (the largest change) lies within tol
 * runs of the step, and how many series got a second point besides it.
 */
static void step_rates(uint64_t mult, int n_a, double sd, int tol, int *found, int *extra)
{
    double x[200];
    struct ed_point p[16];

    *found = *extra = 0;
    for (int seed = 1; seed <= 100; seed++) {
        int n, k;
        rng_state = mult * (uint64_t)seed;
        series(x, n_a, n_a, 0.05, sd);
        n = ed_change_points(x, 2 * n_a, &defaults, p, 16);
        k = main_point(p, n);
        *found += k >= 0 && abs(p[k].at - n_a) <= tol;
        *extra += n > 1;
    }
}

/*
 * A 5 % step among noise of 20 % of the step (sd 1 % of the level), 20 runs
 * a side: found at its run.  The step is 5 sd; the energy statistic puts
 * the split on it unless a run next to the step strays past the midpoint
 * (2.5 sd: 0.6 % per run, two runs at risk), so about 1 to 2 in 100 land
 * one off.  Measured: 98 of 100 exact; the bound 95 leaves room for that
 * and none for a search that misplaces the step.
 *
 * A second point besides the step: each flat 20-run segment left after
 * the split is searched again, and its best split tested at alpha 0.001
 * after being picked as the most different-looking of 13, which inflates
 * the false rate to about 1 to 2 % a segment (Otava has the same).
 * Measured: 4 of 100 series; the bound is 10 of 100.
 */
static void t_step_found_at_its_run(void **state)
{
    int found, extra;

    (void)state;
    step_rates(0x9E3779B97F4A7C15ULL, 20, 0.01, 0, &found, &extra);
    print_message("5 %% step, sd 1 %%, 20 a side: at its run in %d/100, a second point in %d/100\n",
                  found, extra);
    assert_true(found >= 95);
    assert_true(extra <= 10);
}

/*
 * A 5 % step among 2 % noise (2.5 sd), 30 runs a side: found within one run
 * of it.  At 2.5 sd a run or two near the step often stray past the
 * midpoint, so the split is exact only about 2 times in 3 (measured 67 of
 * 100) and within one run about 93 of 100 (measured 93).  For scale: the
 * mean-shift maximum likelihood estimate, the natural best on normal
 * noise, is exact in 75 % and within one run in 93.5 % of such series (a
 * python3 simulation of 3000).  The bound 88 of 100 sits below the theory's spread over 100
 * series (about +-2.5) with margin, and far above a search that misses the
 * step (which lands anywhere of 53 splits).  A second point: as above,
 * bound 10 of 100.
 */
static void t_step_within_one_run(void **state)
{
    int found, extra;

    (void)state;
    step_rates(0xD1B54A32D192ED03ULL, 30, 0.02, 1, &found, &extra);
    print_message("5 %% step, sd 2 %%, 30 a side: within one run in %d/100, a second point in "
                  "%d/100\n",
                  found, extra);
    assert_true(found >= 88);
    assert_true(extra <= 10);
}

/*
 * A/A: 60 runs of pure noise.  The best split of noise is tested at alpha
 * 0.001 after the search picked the most different-looking split, which
 * inflates the false rate above 0.001 (Otava accepts the same), but not to
 * 5 %: measured here, no change point in 100 of 100.  The bound is
 * at least 95 of 100.
 */
static void t_aa_no_change(void **state)
{
    double x[60];
    struct ed_point p[16];
    int clean = 0;

    (void)state;
    for (int seed = 1; seed <= 100; seed++) {
        rng_state = 0xA0761D6478BD642FULL * (uint64_t)seed;
        series(x, 60, 0, 0, 0.02);
        clean += ed_change_points(x, 60, &defaults, p, 16) == 0;
    }
    print_message("A/A, 60 runs: no change point in %d/100\n", clean);
    assert_true(clean >= 95);
}

/* Two steps (+10 % at 20, -10 % at 40) are both found, with medians and change; --min-change
 * drops a step smaller than it. */
static void t_two_steps_and_min_change(void **state)
{
    double x[60];
    struct ed_point p[16];
    struct ed_opts big = { 0.001, 0.15, 4 };
    int n;

    (void)state;
    rng_state = 777;
    for (int i = 0; i < 60; i++)
        x[i] = (i < 20 ? 1000 : i < 40 ? 1100 : 990) * (1 + 0.01 * normal());
    n = ed_change_points(x, 60, &defaults, p, 16);
    assert_int_equal(n, 2);
    assert_int_equal(p[0].at, 20);
    assert_int_equal(p[1].at, 40);
    assert_int_equal(p[0].from, 0);
    assert_int_equal(p[0].to, 40);
    assert_int_equal(p[1].from, 20);
    assert_int_equal(p[1].to, 60);
    near(p[0].change, 0.10, 0.01);
    near(p[1].change, -0.10, 0.01);
    assert_true(p[0].ci_lo < p[0].change && p[0].change < p[0].ci_hi);
    assert_true(p[0].p < 1e-10);
    near(p[0].med_before, ed_median(x, 20), 0);
    /* Both steps are 10 %: a 15 % minimum keeps neither. */
    assert_int_equal(ed_change_points(x, 60, &big, p, 16), 0);
}

/* ------------------------------------------------------------------ */
/* The index                                                            */
/* ------------------------------------------------------------------ */

static char dir[256];

static void write_run(const char *name, const char *status, double notpm, int sec)
{
    char p[512];
    FILE *f;

    snprintf(p, sizeof(p), "%s/%s", dir, name);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/%s/run.json", dir, name);
    f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"tool\": {\"name\": \"tpccbench\", \"record_version\": 1}, \"kind\": \"run\", "
            "\"status\": \"%s\", \"label\": \"%s\", \"started\": \"2026-01-01T00:00:%02dZ\", "
            "\"config\": {\"schema\": {\"warehouses\": 1}, \"run\": {\"duration_s\": 5}}, "
            "\"environment\": {\"dbms\": {\"name\": \"PostgreSQL\"}}, "
            "\"run\": {\"notpm\": %g, \"tps\": %g}}\n",
            status, name, sec, notpm, notpm / 20);
    fclose(f);
}

/* Load dir; the notes into notes (a line, "" for none); the count of usable runs. */
static int load(char *notes, size_t len, struct history_set *s)
{
    const char *args[1] = { dir };
    struct history_opts o = { .ed = defaults, .window = 1 };
    char *buf = NULL;
    size_t n = 0;
    struct err e;
    int rc;

    o.notes = open_memstream(&buf, &n);
    rc = history_load(args, 1, &o, s, &e);
    fclose(o.notes);
    assert_int_equal(rc, 0);
    snprintf(notes, len, "%s", buf ? buf : "");
    free(buf);
    return s->n;
}

static void says(const char *notes, const char *want)
{
    if (!strstr(notes, want)) {
        print_error("notes '%s' do not say '%s'\n", notes, want);
        fail();
    }
}

static void t_index(void **state)
{
    char notes[1024], p[512];
    struct history_set s;
    FILE *f;

    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/test_history.XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_run("r1", "complete", 1000, 1);
    write_run("r2", "complete", 1100, 2);
    write_run("r3", "interrupted", 900, 3);
    /* Missing: built, said, and the interrupted run left out with its reason. */
    assert_int_equal(load(notes, sizeof(notes), &s), 2);
    says(notes, "is missing: built from the 3 records");
    assert_int_equal(s.n_read, 3);
    assert_int_equal(s.n_reasons, 1);
    assert_string_equal(s.reasons[0], "status 'interrupted' (not complete)");
    near(s.recs[1].v[CMP_NOTPM], 1100, 0);
    history_set_release(&s);
    /* Fresh: nothing said, the same figures (from the index). */
    assert_int_equal(load(notes, sizeof(notes), &s), 2);
    assert_string_equal(notes, "");
    near(s.recs[0].v[CMP_NOTPM], 1000, 0);
    near(s.recs[1].v[CMP_TPS], 55, 0);
    history_set_release(&s);
    /* A record rewritten (size changes): stale, brought up to date. */
    write_run("r2", "complete", 1234.5, 2);
    assert_int_equal(load(notes, sizeof(notes), &s), 2);
    says(notes, "was stale (1 records new or changed, 0 gone)");
    near(s.recs[1].v[CMP_NOTPM], 1234.5, 0);
    history_set_release(&s);
    /* A record gone: stale. */
    snprintf(p, sizeof(p), "rm -rf '%s/r3'", dir);
    assert_int_equal(system(p), 0);
    assert_int_equal(load(notes, sizeof(notes), &s), 2);
    says(notes, "was stale (0 records new or changed, 1 gone)");
    history_set_release(&s);
    /* Damaged: a line that is not an index line. */
    snprintf(p, sizeof(p), "%s/%s", dir, HISTORY_INDEX_NAME);
    f = fopen(p, "a");
    fputs("garbage\n", f);
    fclose(f);
    assert_int_equal(load(notes, sizeof(notes), &s), 2);
    {
        char want[128];
        snprintf(want, sizeof(want), "is damaged (line 4: 1 fields, not %d): rebuilt from the 2 records",
                 HISTORY_INDEX_HEAD + CMP_NMETRICS);
        says(notes, want);
    }
    history_set_release(&s);
    /* Cut short (a line without its end): damaged too. */
    f = fopen(p, "a");
    fputs("r1\t12", f);
    fclose(f);
    assert_int_equal(load(notes, sizeof(notes), &s), 2);
    says(notes, "is damaged (line 4: cut short (no line end))");
    history_set_release(&s);
    /* A new record whose writer appended its line: the index stays fresh. */
    write_run("r4", "complete", 1300, 4);
    {
        char rd[512];
        json_t *doc;
        snprintf(rd, sizeof(rd), "%s/r4/run.json", dir);
        doc = json_load_file(rd, 0, NULL);
        assert_non_null(doc);
        snprintf(rd, sizeof(rd), "%s/r4", dir);
        assert_int_equal(history_index_append(rd, doc, NULL), 0);
        json_decref(doc);
    }
    assert_int_equal(load(notes, sizeof(notes), &s), 3);
    assert_string_equal(notes, "");
    near(s.recs[2].v[CMP_NOTPM], 1300, 0);
    history_set_release(&s);
    /* Lines of runs written again pile up; past two a run the index is compacted, silently. */
    {
        char rd[512], line[256];
        json_t *doc;
        int n = 0;
        snprintf(rd, sizeof(rd), "%s/r4/run.json", dir);
        doc = json_load_file(rd, 0, NULL);
        snprintf(rd, sizeof(rd), "%s/r4", dir);
        for (int i = 0; i < 5; i++)
            assert_int_equal(history_index_append(rd, doc, NULL), 0);
        json_decref(doc);
        assert_int_equal(load(notes, sizeof(notes), &s), 3);
        assert_string_equal(notes, "");
        history_set_release(&s);
        f = fopen(p, "r");
        while (fgets(line, sizeof(line), f))
            n++;
        fclose(f);
        assert_int_equal(n, 4); /* the header and one line a run */
    }
    snprintf(p, sizeof(p), "rm -rf '%s'", dir);
    assert_int_equal(system(p), 0);
}

/* jskim: the members on the paths kept, every other value null, strings with brackets, quotes
 * and escapes passed over as strings; text it cannot follow copied as it is. */
static void t_jskim_cut(void **state)
{
    static const char *const keep[] = { "a.b", "t.*.p90", "k" };
    static const char in[] =
        "{\"a\": {\"b\": [1, {\"x\": 2}], \"c\": {\"b\": 3, \"d\": [4, 5, 6]}},\n"
        " \"t\": {\"no\": {\"p90\": 1.5, \"hist\": [[1, 2], [3, 4]]}, \"pay\": {\"p90\": 2}},\n"
        " \"s\": \"}]{[\\\" :,\", \"k\": \"a \\\"}\\\" b\", \"n\": 12, \"e\\\"k\": [1,2,3]}";
    static const char want[] =
        "{\"a\": {\"b\": [1, {\"x\": 2}], \"c\": null},\n"
        " \"t\": {\"no\": {\"p90\": 1.5, \"hist\": null}, \"pay\": {\"p90\": 2}},\n"
        " \"s\": null, \"k\": \"a \\\"}\\\" b\", \"n\": 12, \"e\\\"k\": null}";
    static const char bad[] = "{\"a\": {\"b\": 1}, \"z\": \"no end";
    char out[sizeof(in)];
    size_t n;

    (void)state;
    n = jskim_cut(in, strlen(in), keep, 3, out);
    out[n] = '\0';
    assert_string_equal(out, want);
    n = jskim_cut(bad, strlen(bad), keep, 3, out);
    out[n] = '\0';
    assert_string_equal(out, bad);
}

/* A record with what history skips (histograms, settings, delivery): its index line built
 * through jskim (a missing index) is the line of the whole record. */
static void t_skim_same_line(void **state)
{
    char p[512], line[4096], got[4096], notes[256];
    struct history_set s;
    struct stat st;
    json_t *doc;
    FILE *f;

    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/test_history.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof(p), "%s/big", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/big/run.json", dir);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs("{\"tool\": {\"name\": \"tpccbench\", \"record_version\": 1}, \"kind\": \"bench\", "
          "\"status\": \"complete\", \"label\": \"big\", \"change\": \"x\", "
          "\"started\": \"2026-01-01T00:00:01Z\", \"process\": {\"pid\": 1}, "
          "\"config\": {\"database\": {\"conninfo\": \"password=x\"}, \"schema\": {\"warehouses\": 3}, "
          "\"run\": {\"duration_s\": 60, \"think_time\": false, \"isolation\": \"serializable\", "
          "\"mix\": {\"new_order\": 45, \"payment\": 43, \"order_status\": 4, \"delivery\": 4, "
          "\"stock_level\": 4}}}, "
          "\"environment\": {\"kernel\": \"6.1\", \"dbms\": {\"name\": \"PostgreSQL\", "
          "\"settings\": {\"shared_buffers\": \"1GB\", \"password\": \"s\"}}}, "
          "\"load\": {\"phase_reached\": \"done\", \"seconds\": 12.5, \"tables\": [1, 2, 3]}, "
          "\"metrics\": {\"rows\": 60, \"columns\": {\"cpu_user_pct\": {\"mean\": 50.5, \"p95\": 70}, "
          "\"cpu_system_pct\": {\"mean\": 10}, \"cpu_iowait_pct\": {\"mean\": 1.25}, "
          "\"disk_data_read_mb_per_s\": {\"mean\": 3}, "
          "\"disk_data_write_mb_per_s\": {\"note\": \"no data disk\"}}}, "
          "\"run\": {\"notpm\": 12345.678, \"tps\": 456.5, \"mode\": \"procedure\", "
          "\"terminals\": {\"count\": 30, \"connections\": 10, \"list\": [1, 2]}, "
          "\"validity\": {\"valid\": true, \"checks\": [{\"a\": 1}]}, "
          "\"delivery\": {\"completed\": 10, \"queue\": [[1, 2], [3, 4]]}, \"transactions\": {",
          f);
    for (int t = 0; t < TX_NTYPES; t++) {
        fprintf(f, "%s\"%s\": {\"p90_ms\": %d.25, \"p99_ms\": %d.5, \"hist\": [", t ? ", " : "",
                tx_name((enum tx_type)t), 10 + t, 20 + t);
        for (int b = 0; b < 2000; b++)
            fprintf(f, "%s[%d, %d]", b ? ", " : "", b, b * 7 % 13);
        fputs("], \"service\": {\"p90_ms\": 1, \"hist\": [[1, 2]]}}", f);
    }
    fputs("}}, \"ended\": \"2026-01-01T00:01:01Z\"}\n", f);
    fclose(f);
    assert_int_equal(stat(p, &st), 0);
    assert_non_null(doc = json_load_file(p, 0, NULL));
    history_index_line("big", &st, doc, line, sizeof(line));
    json_decref(doc);
    assert_int_equal(load(notes, sizeof(notes), &s), 1);
    history_set_release(&s);
    snprintf(p, sizeof(p), "%s/%s", dir, HISTORY_INDEX_NAME);
    f = fopen(p, "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof(got), f)); /* the header */
    assert_non_null(fgets(got, sizeof(got), f));
    fclose(f);
    got[strcspn(got, "\n")] = '\0';
    assert_string_equal(got, line);
    /* And the figures are there, not absent: the line says them. */
    assert_non_null(strstr(got, "\t12.5\t12345.678\t456.5\t10.25\t"));
    assert_non_null(strstr(got, "bench, W=3, 30 terminals, 10 connections, procedure mode"));
    snprintf(p, sizeof(p), "rm -rf '%s'", dir);
    assert_int_equal(system(p), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_qhat_values),
        cmocka_unit_test(t_best_split_matches_definition),
        cmocka_unit_test(t_welch_p),
        cmocka_unit_test(t_step_at_its_index),
        cmocka_unit_test(t_no_spread),
        cmocka_unit_test(t_step_found_at_its_run),
        cmocka_unit_test(t_step_within_one_run),
        cmocka_unit_test(t_aa_no_change),
        cmocka_unit_test(t_two_steps_and_min_change),
        cmocka_unit_test(t_index),
        cmocka_unit_test(t_jskim_cut),
        cmocka_unit_test(t_skim_same_line),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
