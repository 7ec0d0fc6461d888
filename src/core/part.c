/*
 * part.c - this process's part of a scale-out run (K/N) from the command
 * line, the config or the launcher's environment, and the warehouse range
 * of a part.  See part.h for the order of the sources.
 *
 * Numbers are read by hand (digits only, bounded): a launcher's variable
 * that is empty, signed, padded or huge is an error naming it, never a
 * silent part 1/1.  Nothing here prints, allocates or keeps a pointer.
 */
#include "core/part.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest part of a value quoted back in a message. */
#define PART_QUOTE 40

/* One launcher that says rank and size in two variables (0-based rank). */
struct part_launcher {
    const char *name; /* for the source and messages: "Slurm" */
    const char *rank; /* "SLURM_PROCID" */
    const char *size; /* "SLURM_NTASKS" */
    const char *how;  /* who sets them, for messages */
};

/* Innermost first: mpirun under Slurm leaves SLURM_PROCID=0 in every rank. */
static const struct part_launcher launchers[] = {
    { "Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun" },
    { "MPICH/Hydra", "PMI_RANK", "PMI_SIZE", "MPICH's mpiexec (Hydra) or a PMI launcher" },
    { "Slurm", "SLURM_PROCID", "SLURM_NTASKS", "Slurm (srun, sbatch)" },
};

const char *part_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

/* Digits only, value in lo .. hi: 0 and *out set, else -1. */
static int part_number(const char *s, long lo, long hi, long *out)
{
    long v = 0;

    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > hi)
            return -1;
    }
    if (v < lo)
        return -1;
    *out = v;
    return 0;
}

int part_parse(const char *text, const char *name, int *k, int *n, struct err *e)
{
    const char *slash = strchr(text, '/');
    char head[24];
    long kv, nv;
    size_t hn;

    hn = slash ? (size_t)(slash - text) : 0;
    if (!slash || hn >= sizeof(head))
        goto bad;
    memcpy(head, text, hn);
    head[hn] = '\0';
    /* Each side alone first, with room above PART_MAX to say which is wrong. */
    if (part_number(head, 0, 999999999, &kv) < 0 || part_number(slash + 1, 0, 999999999, &nv) < 0)
        goto bad;
    if (nv < 1 || nv > PART_MAX)
        return err_set(e, E_USAGE,
                       "%s: N, the number of parts, must be from 1 to %d (got \"%.*s\")", name,
                       PART_MAX, PART_QUOTE, text);
    if (kv < 1 || kv > nv)
        return err_set(e, E_USAGE,
                       "%s: K, this process's part, must be from 1 to N, counting from 1 "
                       "(got \"%.*s\")",
                       name, PART_QUOTE, text);
    *k = (int)kv;
    *n = (int)nv;
    return 0;
bad:
    return err_set(e, E_USAGE,
                   "%s must be K/N, this process's part K of N parts, such as 2/4 (got \"%.*s\")",
                   name, PART_QUOTE, text);
}

/* A launcher's variable that is set must be a number in lo .. hi. */
static int env_number(const char *var, const char *val, long lo, long hi, const char *how,
                      long *out, struct err *e)
{
    if (part_number(val, lo, hi, out) == 0)
        return 0;
    return err_set(e, E_USAGE,
                   "environment variable '%s' must be an integer from %ld to %ld (got \"%.*s\"): "
                   "it is set by %s; fix or unset it, or give --part K/N",
                   var, lo, hi, PART_QUOTE, val, how);
}

/* N given by --parts / run.parts, else TPCC_PARTS: 0 and *n (0 when none), or E_USAGE. */
static int given_parts(const struct part_given *g, part_env_fn env, void *ctx, long *n,
                       const char **where, struct err *e)
{
    const char *v;

    *n = 0;
    *where = NULL;
    if (g->parts > 0) {
        *n = g->parts;
        *where = g->parts_where ? g->parts_where : "--parts";
        return 0;
    }
    if ((v = env(ctx, "TPCC_PARTS")) != NULL) {
        if (part_number(v, 1, PART_MAX, n) < 0)
            return err_set(e, E_USAGE,
                           "environment variable 'TPCC_PARTS' must be the number of parts, an "
                           "integer from 1 to %d (got \"%.*s\"): fix or unset it",
                           PART_MAX, PART_QUOTE, v);
        *where = "TPCC_PARTS";
    }
    return 0;
}

/* The source's name in "disagrees with" messages: "--part 2/4", "run.part 2/4 (t.yaml:1:10)". */
static void given_name(const char *where, int k, int n, char *out, size_t len)
{
    if (where && where[0] == '-')
        snprintf(out, len, "%s %d/%d", where, k, n);
    else
        snprintf(out, len, "run.part %d/%d (%s)", k, n, where ? where : "config");
}

/* How the number of parts was given, for messages: "--parts 3", "TPCC_PARTS=3", "run.parts 3
 * (f:2:3)". */
static void parts_name(const char *where, long n, char *out, size_t len)
{
    if (strcmp(where, "TPCC_PARTS") == 0)
        snprintf(out, len, "TPCC_PARTS=%ld", n);
    else if (where[0] == '-')
        snprintf(out, len, "%s %ld", where, n);
    else
        snprintf(out, len, "run.parts %ld (%s)", n, where);
}

int part_detect(const struct part_given *g, part_env_fn env, void *ctx, struct part *out,
                struct err *e)
{
    char a[320], b[320];
    const char *pwhere;
    long pn, rank = 0, size = 0;
    int rc;

    if ((rc = given_parts(g, env, ctx, &pn, &pwhere, e)) < 0)
        return rc;

    /* Said on the command line or in the config: it wins over any launcher. */
    if (g->k > 0) {
        if (pn && pn != g->n) {
            given_name(g->where, g->k, g->n, a, sizeof(a));
            parts_name(pwhere, pn, b, sizeof(b));
            return err_set(e, E_USAGE,
                           "%s and %s disagree on the number of parts: give one, "
                           "or make them agree",
                           a, b);
        }
        out->k = g->k;
        out->n = g->n;
        if (g->where && g->where[0] == '-')
            snprintf(out->source, sizeof(out->source), "%s", g->where);
        else
            snprintf(out->source, sizeof(out->source), "run.part (%s)",
                     g->where ? g->where : "config");
        return 0;
    }

    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
        const struct part_launcher *l = &launchers[i];
        const char *rv = env(ctx, l->rank), *sv = env(ctx, l->size);

        if (!rv && !sv)
            continue;
        if (!rv || !sv)
            return err_set(e, E_USAGE,
                           "environment variable '%s' is set but '%s' is not: %s sets both; "
                           "unset '%s', or give --part K/N",
                           rv ? l->rank : l->size, rv ? l->size : l->rank, l->how,
                           rv ? l->rank : l->size);
        if ((rc = env_number(l->size, sv, 1, PART_MAX, l->how, &size, e)) < 0 ||
            (rc = env_number(l->rank, rv, 0, PART_MAX - 1, l->how, &rank, e)) < 0)
            return rc;
        if (rank >= size)
            return err_set(e, E_USAGE,
                           "environment variable '%s' (%ld) must be below '%s' (%ld): ranks "
                           "count from 0; fix them, or give --part K/N",
                           l->rank, rank, l->size, size);
        if (pn && pn != size) {
            parts_name(pwhere, pn, b, sizeof(b));
            return err_set(e, E_USAGE,
                           "%s and %s=%ld disagree on the number of parts: give one, or make "
                           "them agree",
                           b, l->size, size);
        }
        out->k = (int)rank + 1;
        out->n = (int)size;
        snprintf(out->source, sizeof(out->source), "%s (%s=%ld, %s=%ld)", l->name, l->rank, rank,
                 l->size, size);
        return 0;
    }

    /* Kubernetes says only the index; N is the Job's completions, which we must be told. */
    {
        const char *iv = env(ctx, "JOB_COMPLETION_INDEX");

        if (iv) {
            if (!pn)
                return err_set(e, E_USAGE,
                               "environment variable 'JOB_COMPLETION_INDEX' is set (a Kubernetes "
                               "Indexed Job) but not the number of parts: give --parts N (the "
                               "Job's completions) or set TPCC_PARTS, or give --part K/N");
            if (part_number(iv, 0, PART_MAX - 1, &rank) < 0)
                return err_set(e, E_USAGE,
                               "environment variable 'JOB_COMPLETION_INDEX' must be an integer "
                               "from 0 to %d (got \"%.*s\"): it is set by a Kubernetes Indexed "
                               "Job; fix or unset it, or give --part K/N",
                               PART_MAX - 1, PART_QUOTE, iv);
            if (rank >= pn) {
                parts_name(pwhere, pn, b, sizeof(b));
                return err_set(e, E_USAGE,
                               "environment variable 'JOB_COMPLETION_INDEX' (%ld) must be below "
                               "the number of parts, %s: indexes count from 0; make %s the "
                               "Job's completions",
                               rank, b,
                               pwhere[0] == '-' || strcmp(pwhere, "TPCC_PARTS") == 0 ? pwhere
                                                                                     : "run.parts");
            }
            parts_name(pwhere, pn, b, sizeof(b));
            out->k = (int)rank + 1;
            out->n = (int)pn;
            snprintf(out->source, sizeof(out->source),
                     "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=%ld, %s)", rank, b);
            return 0;
        }
    }

    /* Nothing says which part: the only one, unless told there are more. */
    if (pn > 1) {
        parts_name(pwhere, pn, b, sizeof(b));
        return err_set(e, E_USAGE,
                       "%s says there are %ld parts, but nothing says which one this is: give "
                       "--part K/%ld, or start the parts under a launcher (Kubernetes Indexed Job, "
                       "Slurm, MPI)",
                       b, pn, pn);
    }
    out->k = 1;
    out->n = 1;
    if (pn == 1)
        parts_name(pwhere, pn, out->source, sizeof(out->source));
    else
        snprintf(out->source, sizeof(out->source), "none");
    return 0;
}

int part_range(int k, int n, int w, int *first, int *last)
{
    /* Part k ends at floor(k * w / n): sizes are floor or ceil of w / n. */
    int64_t lo = (int64_t)(k - 1) * w / n, hi = (int64_t)k * w / n;

    *first = (int)lo + 1;
    *last = (int)hi;
    return (int)(hi - lo);
}

int part_run_id(const char *given, const char *where, const char *label, part_env_fn env, void *ctx,
                char *out, size_t len, char *source, size_t slen, struct err *e)
{
    const char *v, *src;
    char buf[PART_RUN_ID_MAX + 16];
    size_t n;

    if (given && *given) {
        v = given;
        src = where && *where ? where : "run.run_id";
    } else if ((v = env(ctx, "TPCC_RUN_ID")) != NULL) {
        src = "TPCC_RUN_ID";
    } else if ((v = env(ctx, "SLURM_JOB_ID")) != NULL && *v && strlen(v) <= PART_RUN_ID_MAX - 6) {
        snprintf(buf, sizeof(buf), "slurm-%s", v);
        v = buf;
        src = "SLURM_JOB_ID";
    } else {
        v = label ? label : "";
        src = "results.label";
    }
    n = strlen(v);
    if (n == 0 || n > PART_RUN_ID_MAX ||
        strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                  "0123456789._:-") != n)
        return err_set(e, E_USAGE,
                       "the run id from %s must be 1 to %d characters of A-Z, a-z, 0-9, '.', '_', "
                       "':' and '-' (got \"%.*s\"): give --run-id NAME, the same in every part",
                       src, PART_RUN_ID_MAX, PART_QUOTE, v);
    if (n >= len)
        return err_set(e, E_FAIL, "run id buffer too small");
    memcpy(out, v, n + 1);
    if (source)
        snprintf(source, slen, "%s", src);
    return 0;
}
