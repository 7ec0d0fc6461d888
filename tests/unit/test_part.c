/*
 * test_part.c - unit tests for core/part.c: which part this process is.
 *
 * A table of environments (and of what --part/--parts or the config said)
 * -> K/N and the source string, or the exact error message.  The
 * environment is a list of NAME=value pairs behind the lookup function, so
 * the process's own environment plays no part.  Then part_range over many
 * (W, N): contiguous, in order, sizes within 1 of each other, covering
 * 1 .. W exactly once.  Each failure prints the case and both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/part.h"

#define TEST_MAX_VARS 6

/* One case: the environment, what was given, and what must come out. */
struct part_case {
    const char *env[TEST_MAX_VARS]; /* "NAME=value", NULL-terminated */
    struct part_given given;
    int k, n;           /* expected on success */
    const char *source; /* expected source; NULL: an error is expected */
    const char *msg;    /* expected message of the error */
};

/* The lookup over a case's env list. */
static const char *case_env(void *ctx, const char *name)
{
    const char *const *env = ctx;
    size_t len = strlen(name);

    for (int i = 0; i < TEST_MAX_VARS && env[i]; i++)
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
            return env[i] + len + 1;
    return NULL;
}

/* clang-format off */
#define NONE { NULL }
#define G0 { 0, 0, NULL, 0, NULL }

static const struct part_case cases[] = {
    /* Nothing at all: the only part. */
    { NONE, G0, 1, 1, "none", NULL },
    /* Unrelated variables change nothing. */
    { { "HOME=/root", "SLURM_JOB_ID=7", NULL }, G0, 1, 1, "none", NULL },
    /* Explicit --part, and it wins over every launcher. */
    { NONE, { 2, 4, "--part", 0, NULL }, 2, 4, "--part", NULL },
    { { "SLURM_PROCID=0", "SLURM_NTASKS=8", "OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_SIZE=6",
        NULL },
      { 3, 3, "--part", 0, NULL }, 3, 3, "--part", NULL },
    /* run.part from the config file names where. */
    { NONE, { 1, 2, "t.yaml:2:9", 0, NULL }, 1, 2, "run.part (t.yaml:2:9)", NULL },
    /* --part 1/1 under a launcher: run alone on purpose. */
    { { "SLURM_PROCID=3", "SLURM_NTASKS=4", NULL }, { 1, 1, "--part", 0, NULL }, 1, 1, "--part",
      NULL },
    /* --part and --parts that agree, and that do not. */
    { NONE, { 2, 4, "--part", 4, "--parts" }, 2, 4, "--part", NULL },
    { NONE, { 2, 4, "--part", 3, "--parts" }, 0, 0, NULL,
      "--part 2/4 and --parts 3 disagree on the number of parts: give one, or make them agree" },
    { NONE, { 2, 4, "t.yaml:2:9", 5, "t.yaml:3:10" }, 0, 0, NULL,
      "run.part 2/4 (t.yaml:2:9) and run.parts 5 (t.yaml:3:10) disagree on the number of parts: "
      "give one, or make them agree" },
    { { "TPCC_PARTS=8", NULL }, { 2, 4, "--part", 0, NULL }, 0, 0, NULL,
      "--part 2/4 and TPCC_PARTS=8 disagree on the number of parts: give one, or make them "
      "agree" },

    /* Slurm. */
    { { "SLURM_PROCID=0", "SLURM_NTASKS=4", NULL }, G0, 1, 4,
      "Slurm (SLURM_PROCID=0, SLURM_NTASKS=4)", NULL },
    { { "SLURM_PROCID=3", "SLURM_NTASKS=4", NULL }, G0, 4, 4,
      "Slurm (SLURM_PROCID=3, SLURM_NTASKS=4)", NULL },
    { { "SLURM_PROCID=0", "SLURM_NTASKS=1", NULL }, G0, 1, 1,
      "Slurm (SLURM_PROCID=0, SLURM_NTASKS=1)", NULL },
    { { "SLURM_PROCID=4", "SLURM_NTASKS=4", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_PROCID' (4) must be below 'SLURM_NTASKS' (4): ranks count "
      "from 0; fix them, or give --part K/N" },
    { { "SLURM_PROCID=1", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_PROCID' is set but 'SLURM_NTASKS' is not: Slurm (srun, "
      "sbatch) sets both; unset 'SLURM_PROCID', or give --part K/N" },
    { { "SLURM_NTASKS=2", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_NTASKS' is set but 'SLURM_PROCID' is not: Slurm (srun, "
      "sbatch) sets both; unset 'SLURM_NTASKS', or give --part K/N" },
    { { "SLURM_PROCID=one", "SLURM_NTASKS=4", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_PROCID' must be an integer from 0 to 9999 (got \"one\"): it "
      "is set by Slurm (srun, sbatch); fix or unset it, or give --part K/N" },
    { { "SLURM_PROCID=0", "SLURM_NTASKS=0", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_NTASKS' must be an integer from 1 to 10000 (got \"0\"): it is "
      "set by Slurm (srun, sbatch); fix or unset it, or give --part K/N" },
    { { "SLURM_PROCID=-1", "SLURM_NTASKS=4", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_PROCID' must be an integer from 0 to 9999 (got \"-1\"): it "
      "is set by Slurm (srun, sbatch); fix or unset it, or give --part K/N" },
    { { "SLURM_PROCID=", "SLURM_NTASKS=4", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_PROCID' must be an integer from 0 to 9999 (got \"\"): it "
      "is set by Slurm (srun, sbatch); fix or unset it, or give --part K/N" },
    { { "SLURM_PROCID=0", "SLURM_NTASKS= 4", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_NTASKS' must be an integer from 1 to 10000 (got \" 4\"): it "
      "is set by Slurm (srun, sbatch); fix or unset it, or give --part K/N" },
    { { "SLURM_PROCID=0", "SLURM_NTASKS=99999999999999999999", NULL }, G0, 0, 0, NULL,
      "environment variable 'SLURM_NTASKS' must be an integer from 1 to 10000 (got "
      "\"99999999999999999999\"): it is set by Slurm (srun, sbatch); fix or unset it, or give "
      "--part K/N" },
    /* --parts must agree with a launcher's size. */
    { { "SLURM_PROCID=1", "SLURM_NTASKS=4", NULL }, { 0, 0, NULL, 4, "--parts" }, 2, 4,
      "Slurm (SLURM_PROCID=1, SLURM_NTASKS=4)", NULL },
    { { "SLURM_PROCID=1", "SLURM_NTASKS=4", NULL }, { 0, 0, NULL, 2, "--parts" }, 0, 0, NULL,
      "--parts 2 and SLURM_NTASKS=4 disagree on the number of parts: give one, or make them "
      "agree" },

    /* Open MPI, and before Slurm (mpirun inside an allocation). */
    { { "OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=3", NULL }, G0, 3, 3,
      "Open MPI (OMPI_COMM_WORLD_RANK=2, OMPI_COMM_WORLD_SIZE=3)", NULL },
    { { "SLURM_PROCID=0", "SLURM_NTASKS=2", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2",
        NULL },
      G0, 2, 2, "Open MPI (OMPI_COMM_WORLD_RANK=1, OMPI_COMM_WORLD_SIZE=2)", NULL },
    { { "OMPI_COMM_WORLD_RANK=1", NULL }, G0, 0, 0, NULL,
      "environment variable 'OMPI_COMM_WORLD_RANK' is set but 'OMPI_COMM_WORLD_SIZE' is not: "
      "Open MPI's mpirun sets both; unset 'OMPI_COMM_WORLD_RANK', or give --part K/N" },
    { { "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=1", NULL }, G0, 0, 0, NULL,
      "environment variable 'OMPI_COMM_WORLD_RANK' (1) must be below 'OMPI_COMM_WORLD_SIZE' (1): "
      "ranks count from 0; fix them, or give --part K/N" },

    /* MPICH/Hydra, and before Slurm (srun --mpi=pmi2 sets both, equal). */
    { { "PMI_RANK=0", "PMI_SIZE=2", NULL }, G0, 1, 2, "MPICH/Hydra (PMI_RANK=0, PMI_SIZE=2)",
      NULL },
    { { "PMI_RANK=5", "PMI_SIZE=6", "SLURM_PROCID=0", "SLURM_NTASKS=1", NULL }, G0, 6, 6,
      "MPICH/Hydra (PMI_RANK=5, PMI_SIZE=6)", NULL },
    { { "PMI_RANK=x1", "PMI_SIZE=6", NULL }, G0, 0, 0, NULL,
      "environment variable 'PMI_RANK' must be an integer from 0 to 9999 (got \"x1\"): it is set "
      "by MPICH's mpiexec (Hydra) or a PMI launcher; fix or unset it, or give --part K/N" },

    /* Kubernetes Indexed Jobs: N from --parts, run.parts or TPCC_PARTS. */
    { { "JOB_COMPLETION_INDEX=0", NULL }, { 0, 0, NULL, 4, "--parts" }, 1, 4,
      "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=0, --parts 4)", NULL },
    { { "JOB_COMPLETION_INDEX=3", "TPCC_PARTS=4", NULL }, G0, 4, 4,
      "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=3, TPCC_PARTS=4)", NULL },
    { { "JOB_COMPLETION_INDEX=1", NULL }, { 0, 0, NULL, 2, "k.yaml:4:10" }, 2, 2,
      "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=1, run.parts 2 (k.yaml:4:10))", NULL },
    /* --parts wins over TPCC_PARTS. */
    { { "JOB_COMPLETION_INDEX=2", "TPCC_PARTS=2", NULL }, { 0, 0, NULL, 3, "--parts" }, 3, 3,
      "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=2, --parts 3)", NULL },
    { { "JOB_COMPLETION_INDEX=0", NULL }, G0, 0, 0, NULL,
      "environment variable 'JOB_COMPLETION_INDEX' is set (a Kubernetes Indexed Job) but not the "
      "number of parts: give --parts N (the Job's completions) or set TPCC_PARTS, or give "
      "--part K/N" },
    { { "JOB_COMPLETION_INDEX=4", "TPCC_PARTS=4", NULL }, G0, 0, 0, NULL,
      "environment variable 'JOB_COMPLETION_INDEX' (4) must be below the number of parts, "
      "TPCC_PARTS=4: indexes count from 0; make TPCC_PARTS the Job's completions" },
    { { "JOB_COMPLETION_INDEX=abc", "TPCC_PARTS=4", NULL }, G0, 0, 0, NULL,
      "environment variable 'JOB_COMPLETION_INDEX' must be an integer from 0 to 9999 (got "
      "\"abc\"): it is set by a Kubernetes Indexed Job; fix or unset it, or give --part K/N" },
    { { "JOB_COMPLETION_INDEX=0", "TPCC_PARTS=zero", NULL }, G0, 0, 0, NULL,
      "environment variable 'TPCC_PARTS' must be the number of parts, an integer from 1 to 10000 "
      "(got \"zero\"): fix or unset it" },
    { { "JOB_COMPLETION_INDEX=0", "TPCC_PARTS=0", NULL }, G0, 0, 0, NULL,
      "environment variable 'TPCC_PARTS' must be the number of parts, an integer from 1 to 10000 "
      "(got \"0\"): fix or unset it" },
    /* A launcher beats Kubernetes' index (not expected together, but decided). */
    { { "JOB_COMPLETION_INDEX=0", "SLURM_PROCID=1", "SLURM_NTASKS=2", NULL }, G0, 2, 2,
      "Slurm (SLURM_PROCID=1, SLURM_NTASKS=2)", NULL },

    /* A number of parts but no part. */
    { NONE, { 0, 0, NULL, 4, "--parts" }, 0, 0, NULL,
      "--parts 4 says there are 4 parts, but nothing says which one this is: give --part K/4, "
      "or start the parts under a launcher (Kubernetes Indexed Job, Slurm, MPI)" },
    { { "TPCC_PARTS=3", NULL }, G0, 0, 0, NULL,
      "TPCC_PARTS=3 says there are 3 parts, but nothing says which one this is: give --part "
      "K/3, or start the parts under a launcher (Kubernetes Indexed Job, Slurm, MPI)" },
    { NONE, { 0, 0, NULL, 1, "--parts" }, 1, 1, "--parts 1", NULL },
};

static void test_detect_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct part_case *c = &cases[i];
        struct part p = { -1, -1, "untouched" };
        struct err e;
        int rc;

        err_clear(&e);
        rc = part_detect(&c->given, case_env, (void *)c->env, &p, &e);
        if (c->source) {
            if (rc != 0 || p.k != c->k || p.n != c->n || strcmp(p.source, c->source) != 0)
                fail_msg("case %zu (first variable %s): want %d/%d from \"%s\", got rc %d, %d/%d "
                         "from \"%s\" (%s)",
                         i, c->env[0] ? c->env[0] : "-", c->k, c->n, c->source, rc, p.k, p.n,
                         p.source, e.msg);
        } else {
            if (rc != E_USAGE || e.code != E_USAGE || strcmp(e.msg, c->msg) != 0)
                fail_msg("case %zu (first variable %s): want E_USAGE\n  \"%s\"\ngot rc %d\n  "
                         "\"%s\"",
                         i, c->env[0] ? c->env[0] : "-", c->msg, rc, e.msg);
            /* A failed detection leaves the output alone. */
            assert_int_equal(p.k, -1);
            assert_string_equal(p.source, "untouched");
        }
    }
}

/* "K/N" text -> K, N or the message. */
static void test_parse(void **state)
{
    static const struct {
        const char *text;
        int k, n;        /* expected when msg is NULL */
        const char *msg; /* expected message */
    } t[] = {
        /* clang-format off */
        { "1/1", 1, 1, NULL },
        { "2/4", 2, 4, NULL },
        { "10000/10000", 10000, 10000, NULL },
        { "007/8", 7, 8, NULL },
        { "5/4", 0, 0, "'--part': K, this process's part, must be from 1 to N, counting from 1 (got \"5/4\")" },
        { "0/4", 0, 0, "'--part': K, this process's part, must be from 1 to N, counting from 1 (got \"0/4\")" },
        { "1/0", 0, 0, "'--part': N, the number of parts, must be from 1 to 10000 (got \"1/0\")" },
        { "1/10001", 0, 0, "'--part': N, the number of parts, must be from 1 to 10000 (got \"1/10001\")" },
        { "2", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"2\")" },
        { "", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"\")" },
        { "a/b", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"a/b\")" },
        { "-1/4", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"-1/4\")" },
        { "1/4/", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"1/4/\")" },
        { " 1/4", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \" 1/4\")" },
        { "1 /4", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"1 /4\")" },
        { "/4", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"/4\")" },
        { "1/", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"1/\")" },
        { "99999999999999999999/4", 0, 0, "'--part' must be K/N, this process's part K of N parts, such as 2/4 (got \"99999999999999999999/4\")" },
        /* clang-format on */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int k = -1, n = -1, rc;
        struct err e;

        err_clear(&e);
        rc = part_parse(t[i].text, "'--part'", &k, &n, &e);
        if (!t[i].msg) {
            if (rc != 0 || k != t[i].k || n != t[i].n)
                fail_msg("\"%s\": want %d/%d, got rc %d, %d/%d (%s)", t[i].text, t[i].k, t[i].n, rc,
                         k, n, e.msg);
        } else if (rc != E_USAGE || strcmp(e.msg, t[i].msg) != 0) {
            fail_msg("\"%s\": want E_USAGE\n  \"%s\"\ngot rc %d\n  \"%s\"", t[i].text, t[i].msg, rc,
                     e.msg);
        }
    }
}

/* Every (W, N) up to 200 x 64, and some large ones: the parts tile 1 .. W. */
static void check_ranges(int w, int n)
{
    int next = 1, smallest = w + 1, largest = -1;

    for (int k = 1; k <= n; k++) {
        int first, last, count = part_range(k, n, w, &first, &last);

        if (first != next || count != last - first + 1 || count < 0)
            fail_msg("W=%d N=%d part %d: %d..%d (count %d), expected to start at %d", w, n, k,
                     first, last, count, next);
        next = last + 1;
        if (count < smallest)
            smallest = count;
        if (count > largest)
            largest = count;
    }
    if (next != w + 1)
        fail_msg("W=%d N=%d: the parts end at %d, not %d", w, n, next - 1, w);
    if (largest - smallest > 1)
        fail_msg("W=%d N=%d: part sizes from %d to %d differ by more than 1", w, n, smallest,
                 largest);
    /* Sizes are floor(W / N) or ceil(W / N). */
    if (smallest != w / n || largest != (w + n - 1) / n)
        fail_msg("W=%d N=%d: sizes %d..%d, want %d..%d", w, n, smallest, largest, w / n,
                 (w + n - 1) / n);
}

static void test_ranges(void **state)
{
    int first, last;

    (void)state;
    for (int w = 1; w <= 200; w++)
        for (int n = 1; n <= 64; n++)
            check_ranges(w, n);
    check_ranges(140000, 5);
    check_ranges(100000, 10000);
    check_ranges(2000000000, 7);
    check_ranges(7, 10000); /* more parts than warehouses: most get none */

    /* Known values: 10 warehouses over 4 parts are 2, 3, 2, 3. */
    assert_int_equal(part_range(1, 4, 10, &first, &last), 2);
    assert_int_equal(first, 1);
    assert_int_equal(last, 2);
    assert_int_equal(part_range(2, 4, 10, &first, &last), 3);
    assert_int_equal(first, 3);
    assert_int_equal(last, 5);
    assert_int_equal(part_range(4, 4, 10, &first, &last), 3);
    assert_int_equal(first, 8);
    assert_int_equal(last, 10);
    /* A part with no warehouse: first is last + 1. */
    assert_int_equal(part_range(1, 3, 2, &first, &last), 0);
    assert_int_equal(first, 1);
    assert_int_equal(last, 0);
    /* The one part has them all. */
    assert_int_equal(part_range(1, 1, 140000, &first, &last), 140000);
    assert_int_equal(first, 1);
    assert_int_equal(last, 140000);
}

/* The run id: given, else TPCC_RUN_ID, else slurm-<SLURM_JOB_ID>, else the label. */
static void test_run_id(void **state)
{
    static const struct {
        const char *env[TEST_MAX_VARS];
        const char *given, *where, *label;
        const char *id, *source; /* NULL id: an error, source then the message */
    } c[] = {
        { { NULL }, NULL, NULL, "baseline", "baseline", "results.label" },
        { { "TPCC_RUN_ID=job-7", "SLURM_JOB_ID=42", NULL },
          NULL,
          NULL,
          "x",
          "job-7",
          "TPCC_RUN_ID" },
        { { "SLURM_JOB_ID=42", NULL }, NULL, NULL, "x", "slurm-42", "SLURM_JOB_ID" },
        { { "TPCC_RUN_ID=job-7", NULL }, "r1", "--run-id", "x", "r1", "--run-id" },
        { { NULL }, "a:b.c_d-9", "t.yaml:3:11", "x", "a:b.c_d-9", "t.yaml:3:11" },
        { { NULL },
          "two words",
          "--run-id",
          "x",
          NULL,
          "the run id from --run-id must be 1 to 63 characters of A-Z, a-z, 0-9, '.', '_', ':' "
          "and '-' (got \"two words\"): give --run-id NAME, the same in every part" },
        { { "TPCC_RUN_ID=", NULL },
          NULL,
          NULL,
          "x",
          NULL,
          "the run id from TPCC_RUN_ID must be 1 to 63 characters of A-Z, a-z, 0-9, '.', '_', ':' "
          "and '-' (got \"\"): give --run-id NAME, the same in every part" },
        { { NULL },
          NULL,
          NULL,
          "caf\xc3\xa9",
          NULL,
          "the run id from results.label must be 1 to 63 characters of A-Z, a-z, 0-9, '.', '_', "
          "':' and '-' (got \"caf\xc3\xa9\"): give --run-id NAME, the same in every part" },
        { { NULL },
          "0123456789012345678901234567890123456789012345678901234567890123",
          "--run-id",
          "x",
          NULL,
          "the run id from --run-id must be 1 to 63 characters of A-Z, a-z, 0-9, '.', '_', ':' "
          "and '-' (got \"0123456789012345678901234567890123456789\"): give --run-id NAME, the "
          "same in every part" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        char id[PART_RUN_ID_MAX + 1] = "untouched", src[64] = "";
        struct err e;
        int rc;

        err_clear(&e);
        rc = part_run_id(c[i].given, c[i].where, c[i].label, case_env, (void *)c[i].env, id,
                         sizeof(id), src, sizeof(src), &e);
        if (c[i].id) {
            if (rc != 0 || strcmp(id, c[i].id) != 0 || strcmp(src, c[i].source) != 0)
                fail_msg("run id case %zu: want \"%s\" from %s, got rc %d \"%s\" from %s (%s)", i,
                         c[i].id, c[i].source, rc, id, src, e.msg);
        } else if (rc != E_USAGE || strcmp(e.msg, c[i].source) != 0 ||
                   strcmp(id, "untouched") != 0) {
            fail_msg("run id case %zu: want E_USAGE \"%s\", got rc %d \"%s\"", i, c[i].source, rc,
                     e.msg);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_table),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_run_id),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
