/*
 * iobench.h - a disk I/O bench with the options and report of Tibero's
 * tbiobench: sequential and random reads and writes of one file or block
 * device with pread/pwrite from T threads, each with its own descriptor.
 *
 * The pieces, each usable on its own: option parsing (iobench_parse_args,
 * no printing), the offset generator (iobench_offgen_*: same seed, same
 * offsets), the target's safety checks (iobench_signature on a buffer,
 * iobench_mount_lookup on a mountinfo file), the run (iobench_run) and its
 * report (iobench_print for people, iobench_json for machines).  Nothing here
 * exits; errors go into a struct err.  The run removes the file it created
 * unless told to keep it, on success, failure and interruption alike.
 */
#ifndef TPCC_IOBENCH_H
#define TPCC_IOBENCH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/err.h"
#include "core/hist.h"
#include "core/rng.h"

/* Limits of the numeric options. */
#define IOB_MAX_BLOCK_BYTES  (UINT64_C(64) << 20) /* -b at most 64M */
#define IOB_MAX_TOTAL_BYTES  (UINT64_C(1) << 50)  /* -s at most 1P */
#define IOB_MAX_THREADS      256                  /* -T at most 256 */
#define IOB_MAX_BUFFER_BYTES (UINT64_C(1) << 30)  /* -T x -b at most 1G of buffers */
/* Bytes at the head of a block device read for filesystem signatures. */
#define IOB_SIG_BYTES (128 * 1024)
/* A write test under this many Mbytes/sec gets the slow-disk warning. */
#define IOB_SLOW_MBPS 10.0

/* The -F open flags. */
enum {
    IOB_F_DIRECT = 1 << 0,
    IOB_F_SYNC = 1 << 1,
    IOB_F_DSYNC = 1 << 2,
    IOB_F_TRUNC = 1 << 3,
    IOB_F_NONBLOCK = 1 << 4,
};

/* Test types in the order ALL runs them. */
enum iobench_type { IOB_SW, IOB_SR, IOB_RW, IOB_RR, IOB_NTYPES };

struct iobench_opts {
    uint64_t block_bytes;                /* -b, default 8K */
    uint64_t total_bytes;                /* -s, default 1G */
    unsigned flags;                      /* -F, IOB_F_* bits; default IOB_F_SYNC */
    int flags_given;                     /* 1: some -F was given (the default is dropped) */
    const char *target;                  /* -t (not copied), NULL: iobench-XXXXXX.tmp in . */
    int force;                           /* -f: write over a target we did not create */
    int keep;                            /* -k: keep the target (a file we created) */
    int destroy_data;                    /* --destroy-data: also a mounted/formatted device */
    enum iobench_type types[IOB_NTYPES]; /* -i, in run order, no repeats */
    int ntypes;                          /* default 2: SW, RW */
    int types_given;                     /* 1: some -i was given (the default is dropped) */
    int nthreads;                        /* -T, default 1 */
    uint64_t seed;                       /* -S */
    int seed_given;                      /* 0: iobench_run draws one and reports it */
    const char *out_path;                /* -o FILE (not copied), or NULL */
    int json;                            /* --json: the report as JSON */
    int help;                            /* -h/--help was given */
    /* Called (from the calling thread) before each test and fill with a line
     * saying what starts; NULL for none.  The run does not print. */
    void (*progress)(void *arg, const char *line);
    void *progress_arg;
};

/* One thread of one test. */
struct iobench_thread_stat {
    uint64_t bytes;      /* bytes read or written */
    uint64_t n_ios;      /* I/O calls completed (a short transfer is finished, not counted twice) */
    uint64_t elapsed_us; /* this thread's first I/O start to its last I/O end */
};

/* One test (SW, SR, RW or RR). */
struct iobench_test {
    enum iobench_type type;
    int nthreads;
    struct iobench_thread_stat *threads; /* nthreads entries (heap, owned) */
    uint64_t bytes;                      /* sum over the threads: -s when complete */
    uint64_t n_ios;                      /* sum over the threads */
    uint64_t elapsed_us;                 /* wall time: first thread's start to last one's end */
    struct hist *lat;                    /* per-I/O latency of every thread (heap, owned) */
    int slow;                            /* 1: a write test under IOB_SLOW_MBPS */
};

struct iobench_result {
    char target[4096];       /* the path used (a generated name when -t was not given) */
    int is_device;           /* 1: a block device */
    int created;             /* 1: this run created the file */
    int removed;             /* 1: the file was removed at the end */
    uint64_t device_bytes;   /* block device: its size */
    uint64_t seed;           /* the seed used (given or drawn) */
    unsigned dio_align;      /* O_DIRECT: required offset/length alignment in bytes */
    char dio_align_from[64]; /* where dio_align came from ("BLKSSZGET", "statx", ...) */
    int ntests;              /* tests completed */
    struct iobench_test tests[IOB_NTYPES];
    int interrupted; /* 1: stopped by a signal before the end */
};

/* Defaults of every option (tbiobench's). */
void iobench_opts_init(struct iobench_opts *o);

/* Parse tbiobench-style options (argv holds options only, no command name)
 * onto o, which iobench_opts_init() prepared, with core/opt.h's getopt_long
 * forms (-fkb8K, --json, `--`).  o keeps pointers into argv.
 * Every error is E_USAGE with a message naming the option, what is allowed
 * and what was given.  -h/--help sets o->help and stops parsing. */
int iobench_parse_args(struct iobench_opts *o, int argc, char **argv, struct err *e);

/* "8K", "1G", "1000": a size with the largest binary suffix that is exact. */
void iobench_format_size(uint64_t bytes, char *buf, size_t len);
/* Parse "512", "4K", "8k", "1M", "1G", "1GB", "1GiB"; 0 or E_USAGE (no message). */
int iobench_parse_size(const char *s, uint64_t *out);
/* "O_DIRECT|O_SYNC" (or "none") into buf. */
void iobench_format_flags(unsigned flags, char *buf, size_t len);
/* "SW", "SR", "RW", "RR" and "sequential write", ... */
const char *iobench_type_code(enum iobench_type t);
const char *iobench_type_name(enum iobench_type t);

/* Thread `thread` of nthreads gets blocks [*first, *first + *count) of
 * nblocks: contiguous shares, the first nblocks % nthreads one block larger. */
void iobench_share(uint64_t nblocks, int nthreads, int thread, uint64_t *first, uint64_t *count);

/* The byte offsets one thread of one test visits, in order. */
struct iobench_offgen {
    int random;           /* 1: uniform block-aligned offsets over the whole file */
    uint64_t next_block;  /* sequential: the next block */
    uint64_t nblocks;     /* blocks in the file (-s / -b) */
    uint64_t block_bytes; /* -b */
    struct rng rng;       /* random: seeded from (seed, type, thread) */
};

/* Sequential types walk the thread's share in block order; random types draw
 * from a generator seeded by (seed, type, thread), so the same seed gives the
 * same offsets and RW and RR do not visit the same blocks. */
void iobench_offgen_init(struct iobench_offgen *g, enum iobench_type t, uint64_t seed,
                         uint64_t nblocks, uint64_t block_bytes, int nthreads, int thread);
uint64_t iobench_offgen_next(struct iobench_offgen *g);

/* The name of a filesystem or volume signature found in buf (the first len
 * bytes of a device, len up to IOB_SIG_BYTES), or NULL when none is. */
const char *iobench_signature(const unsigned char *buf, size_t len);

/* Is any of devs[0..ndevs) mounted, according to a file in the format of
 * /proc/self/mountinfo?  Matches the device number field and a mount source
 * that is a block device node.  1 and the mount point in where (may be
 * NULL), 0 when not, E_FAIL when the file cannot be read. */
int iobench_mount_lookup(const char *mountinfo_path, const dev_t *devs, int ndevs, char *where,
                         size_t len, struct err *e);

/* Run the tests o asks for.  r is filled (release it with
 * iobench_result_release, whatever the outcome).  Errors: E_USAGE for what
 * the options or the target forbid (an existing target without -f, a
 * mounted or formatted device without --destroy-data, no space, a block
 * size O_DIRECT cannot use), E_FAIL for an I/O error, E_INTR when a stop
 * signal arrived (r then holds the tests that completed). */
int iobench_run(const struct iobench_opts *o, struct iobench_result *r, struct err *e);
void iobench_result_release(struct iobench_result *r);

/* The human report: header, per test the tbiobench table with a Total row,
 * IOPS, latency p50/p99/max and the slow-disk warning. */
void iobench_print(FILE *out, const struct iobench_opts *o, const struct iobench_result *r);
/* The same as a new JSON object (the caller owns it), or NULL on no memory. */
json_t *iobench_json(const struct iobench_opts *o, const struct iobench_result *r);

#endif
