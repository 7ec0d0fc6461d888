/*
 * part.h - which part of a scale-out run this process is (K of N), and the
 * warehouses that part drives.
 *
 * K/N comes, in this order, from what the user said (--part K/N, else
 * run.part in the config), else from the launcher that started us: Open MPI
 * (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE), MPICH/Hydra (PMI_RANK,
 * PMI_SIZE), Slurm (SLURM_PROCID, SLURM_NTASKS), Kubernetes Indexed Jobs
 * (JOB_COMPLETION_INDEX, with N from --parts / run.parts or TPCC_PARTS).
 * The innermost launcher comes first: mpirun inside a Slurm allocation
 * leaves the allocation's SLURM_PROCID in every rank's environment.  Ranks
 * and indexes are 0-based, K is 1-based.  Without any of these the process
 * is the only part, 1/1.
 *
 * Pure: the environment is read through a lookup function the caller
 * passes (part_getenv wraps getenv), nothing is printed and nothing kept.
 * Every error is E_USAGE and names the variable or option and what to do.
 */
#ifndef TPCC_PART_H
#define TPCC_PART_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* The most parts one run may have. */
#define PART_MAX 10000

/* The environment lookup: the value of name, or NULL when it is not set. */
typedef const char *(*part_env_fn)(void *ctx, const char *name);

/* What the command line and the config said; zeros where they said nothing. */
struct part_given {
    int k, n;                /* --part K/N or run.part; 0, 0: not given */
    const char *where;       /* where K/N was given: "--part", "t.yaml:3:9"; NULL: not given */
    int parts;               /* --parts N or run.parts; 0: not given */
    const char *parts_where; /* where parts was given; NULL: not given */
};

/* This process's part. */
struct part {
    int k;            /* 1 .. n */
    int n;            /* parts in the run, >= 1 */
    char source[400]; /* where K/N came from: "--part", "Slurm (SLURM_PROCID=1, ...)", "none" */
};

/* getenv(name), for part_detect outside tests; ctx is unused. */
const char *part_getenv(void *ctx, const char *name);

/*
 * Parse "K/N" (decimal, 1 <= K <= N <= PART_MAX, nothing else) into *k and
 * *n.  name is what the message calls the value ("'--part'", "'run.part'").
 */
int part_parse(const char *text, const char *name, int *k, int *n, struct err *e);

/* Decide this process's part from g and the environment (see the top of
 * this file); out is filled only on success. */
int part_detect(const struct part_given *g, part_env_fn env, void *ctx, struct part *out,
                struct err *e);

/* The longest run id, in characters. */
#define PART_RUN_ID_MAX 63

/*
 * The name the parts of one run share in the database (its meeting row):
 * given (--run-id or run.run_id; where says which, e.g. "--run-id"), else
 * TPCC_RUN_ID (a Kubernetes Job sets it from its name through the downward
 * API), else Slurm's SLURM_JOB_ID as "slurm-<id>", else the label.  1 to
 * PART_RUN_ID_MAX characters of A-Z a-z 0-9 . _ : -; anything else is
 * E_USAGE naming where the id came from.  out gets the id, source (when not
 * NULL) where it came from ("--run-id", "TPCC_RUN_ID", "SLURM_JOB_ID",
 * "results.label").
 */
int part_run_id(const char *given, const char *where, const char *label, part_env_fn env, void *ctx,
                char *out, size_t len, char *source, size_t slen, struct err *e);

/*
 * The warehouses of part k (1-based) of n over w warehouses: *first ..
 * *last, contiguous, in order of k, sizes differing by at most 1, together
 * 1 .. w exactly once.  Returns how many (*last - *first + 1); 0 when n > w
 * leaves this part none (*first = *last + 1 then).
 */
int part_range(int k, int n, int w, int *first, int *last);

#endif
