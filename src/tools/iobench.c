/*
 * iobench.c - the disk I/O bench behind `tpccbench iobench`: option parsing,
 * the target's safety checks, the timed tests and their report.
 *
 * A test runs T threads; each opens its own descriptor with the -F flags,
 * allocates its own (aligned) buffer and histogram, waits at a start gate,
 * then issues pread/pwrite calls of -b bytes back to back, timing each one.
 * The main thread merges after join; on the I/O path there are no locks,
 * only one relaxed load of the stop flag per I/O.
 * Before each test the file's cached pages are dropped (fdatasync +
 * POSIX_FADV_DONTNEED), as fio does by default, so a read test measures the
 * disk unless the test itself re-reads what it just read.
 *
 * Safety rules live in iob_target_open(): we only write a target we created,
 * or one -f allows; a block device that is mounted, in use or carries a
 * filesystem or volume signature needs --destroy-data too.  Nothing here
 * prints (progress goes through the caller's callback) or exits.
 */
#include "tools/iobench.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/opt.h"
#include "core/signals.h"
#include "results/record.h"

/* Buffers are aligned to at least a page, which every O_DIRECT needs. */
#define IOB_MIN_BUF_ALIGN 4096
/* Chunk of the untimed fill that read tests may need. */
#define IOB_FILL_CHUNK (UINT64_C(1) << 20)
/* Stream identifiers mixed into the seed (ASCII tags, any distinct values do). */
#define IOB_STREAM_OFFSETS UINT64_C(0x6f666673) /* "offs" */
#define IOB_STREAM_DATA    UINT64_C(0x64617461) /* "data" */
/* Filesystem magic numbers of statfs(2) that cannot do O_DIRECT on old kernels. */
#define IOB_TMPFS_MAGIC     0x01021994
#define IOB_OVERLAYFS_MAGIC 0x794c7630

static const struct {
    const char *name; /* as tbiobench spells it */
    unsigned bit;     /* IOB_F_* */
} iob_flag_names[] = {
    { "O_DIRECT", IOB_F_DIRECT }, { "O_SYNC", IOB_F_SYNC },         { "O_DSYNC", IOB_F_DSYNC },
    { "O_TRUNC", IOB_F_TRUNC },   { "O_NONBLOCK", IOB_F_NONBLOCK },
};
#define IOB_NFLAGS (sizeof(iob_flag_names) / sizeof(iob_flag_names[0]))

static const char *const iob_type_codes[IOB_NTYPES] = { "SW", "SR", "RW", "RR" };
static const char *const iob_type_names[IOB_NTYPES] = { "sequential write", "sequential read",
                                                        "random write", "random read" };

/* ---- options --------------------------------------------------------- */

void iobench_opts_init(struct iobench_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->block_bytes = 8192;
    o->total_bytes = UINT64_C(1) << 30;
    o->flags = IOB_F_SYNC;
    o->types[0] = IOB_SW;
    o->types[1] = IOB_RW;
    o->ntypes = 2;
    o->nthreads = 1;
}

const char *iobench_type_code(enum iobench_type t)
{
    return (unsigned)t < IOB_NTYPES ? iob_type_codes[t] : "?";
}

const char *iobench_type_name(enum iobench_type t)
{
    return (unsigned)t < IOB_NTYPES ? iob_type_names[t] : "?";
}

static int iob_is_write(enum iobench_type t)
{
    return t == IOB_SW || t == IOB_RW;
}

int iobench_parse_size(const char *s, uint64_t *out)
{
    static const char suffixes[] = "KMGTP";
    unsigned long long v;
    const char *p;
    char *end;
    int shift = 0;

    if (!s || !isdigit((unsigned char)s[0]))
        return E_USAGE;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return E_USAGE;
    p = end;
    if (*p) {
        const char *k = strchr(suffixes, toupper((unsigned char)*p));
        if (!k)
            return E_USAGE;
        shift = 10 * (int)(k - suffixes + 1);
        p++;
        /* "1G", "1GB" and "1GiB" all mean 2^30 bytes. */
        if (*p == 'i' || *p == 'I')
            p++;
        if (*p == 'b' || *p == 'B')
            p++;
        if (*p)
            return E_USAGE;
    }
    if (shift && v > (UINT64_MAX >> shift))
        return E_USAGE;
    *out = (uint64_t)v << shift;
    return 0;
}

void iobench_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char suffixes[] = "PTGMK";

    for (int i = 0; i < 5; i++) {
        int shift = 10 * (5 - i);
        uint64_t unit = UINT64_C(1) << shift;
        if (bytes >= unit && bytes % unit == 0) {
            snprintf(buf, len, "%" PRIu64 "%c", bytes >> shift, suffixes[i]);
            return;
        }
    }
    snprintf(buf, len, "%" PRIu64, bytes);
}

/* A size for messages: "1.5G", "300.0M", "512 bytes". */
static void iob_human(uint64_t bytes, char *buf, size_t len)
{
    static const char suffixes[] = "KMGTP";
    double v = (double)bytes;
    int i = -1;

    while (v >= 1024.0 && i < 4) {
        v /= 1024.0;
        i++;
    }
    if (i < 0)
        snprintf(buf, len, "%" PRIu64 " bytes", bytes);
    else
        snprintf(buf, len, "%.1f%c", v, suffixes[i]);
}

void iobench_format_flags(unsigned flags, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < IOB_NFLAGS; i++)
        if ((flags & iob_flag_names[i].bit) && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", iob_flag_names[i].name);
    if (!n)
        snprintf(buf, len, "none");
}

/* Strict unsigned decimal: digits only, no sign, no spaces. */
static int iob_parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end;

    if (!s || !isdigit((unsigned char)s[0]))
        return E_USAGE;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE || *end)
        return E_USAGE;
    *out = v;
    return 0;
}

/* Case-insensitive compare of the token [s, s + n) with name, "O_" optional. */
static int iob_token_is(const char *s, size_t n, const char *name)
{
    if (strncasecmp(name, "O_", 2) == 0 && !(n >= 2 && strncasecmp(s, "O_", 2) == 0))
        name += 2;
    return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

static int iob_parse_flags(struct iobench_opts *o, const char *val, struct err *e)
{
    const char *p = val;

    if (!o->flags_given) {
        o->flags = 0; /* any -F replaces the default O_SYNC */
        o->flags_given = 1;
    }
    for (;;) {
        size_t n = strcspn(p, ",|");
        size_t i;
        for (i = 0; i < IOB_NFLAGS; i++)
            if (n && iob_token_is(p, n, iob_flag_names[i].name))
                break;
        if (i == IOB_NFLAGS)
            return err_set(e, E_USAGE,
                           "'-F' must be one of O_DIRECT, O_SYNC, O_DSYNC, O_TRUNC, O_NONBLOCK "
                           "(got \"%.*s\")",
                           (int)n, p);
        o->flags |= iob_flag_names[i].bit;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

static void iob_add_type(struct iobench_opts *o, enum iobench_type t)
{
    for (int i = 0; i < o->ntypes; i++)
        if (o->types[i] == t)
            return;
    o->types[o->ntypes++] = t;
}

static int iob_parse_types(struct iobench_opts *o, const char *val, struct err *e)
{
    const char *p = val;

    if (!o->types_given) {
        o->ntypes = 0; /* any -i replaces the default SW, RW */
        o->types_given = 1;
    }
    for (;;) {
        size_t n = strcspn(p, ",");
        int found = 0;
        for (int t = 0; t < IOB_NTYPES; t++)
            if (n && iob_token_is(p, n, iob_type_codes[t])) {
                iob_add_type(o, (enum iobench_type)t);
                found = 1;
            }
        if (iob_token_is(p, n, "SEQ") || iob_token_is(p, n, "ALL")) {
            iob_add_type(o, IOB_SW);
            iob_add_type(o, IOB_SR);
            found = 1;
        }
        if (iob_token_is(p, n, "RND") || iob_token_is(p, n, "ALL")) {
            iob_add_type(o, IOB_RW);
            iob_add_type(o, IOB_RR);
            found = 1;
        }
        if (!found)
            return err_set(e, E_USAGE,
                           "'-i' must be SW, SR, RR, RW, SEQ, RND or ALL, or a comma list of "
                           "them (got \"%.*s\")",
                           (int)n, p);
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

/* Checks across options, for parsed and for hand-built options alike. */
static int iob_opts_check(const struct iobench_opts *o, struct err *e)
{
    char b[32], s[32], need[32];

    if (o->block_bytes < 1 || o->block_bytes > IOB_MAX_BLOCK_BYTES)
        return err_set(e, E_USAGE, "'-b' must be from 1 byte to 64M (got %" PRIu64 ")",
                       o->block_bytes);
    if (o->total_bytes < 1 || o->total_bytes > IOB_MAX_TOTAL_BYTES)
        return err_set(e, E_USAGE, "'-s' must be from 1 byte to 1P (got %" PRIu64 ")",
                       o->total_bytes);
    if (o->nthreads < 1 || o->nthreads > IOB_MAX_THREADS)
        return err_set(e, E_USAGE, "'-T' must be from 1 to %d (got %d)", IOB_MAX_THREADS,
                       o->nthreads);
    if (o->ntypes < 1 || o->ntypes > IOB_NTYPES)
        return err_set(e, E_USAGE, "no test type: give '-i' SW, SR, RR, RW, SEQ, RND or ALL");
    iobench_format_size(o->block_bytes, b, sizeof(b));
    iobench_format_size(o->total_bytes, s, sizeof(s));
    if (o->total_bytes % o->block_bytes)
        return err_set(e, E_USAGE,
                       "'-s' %s (%" PRIu64 " bytes) must be a multiple of the block size "
                       "'-b' %s (%" PRIu64 " bytes)",
                       s, o->total_bytes, b, o->block_bytes);
    if (o->block_bytes * (uint64_t)o->nthreads > IOB_MAX_BUFFER_BYTES)
        return err_set(e, E_USAGE,
                       "'-T' %d threads with '-b' %s need %" PRIu64 "M of buffers, more than the "
                       "1G allowed: use fewer threads or smaller blocks",
                       o->nthreads, b, (o->block_bytes * (uint64_t)o->nthreads) >> 20);
    if (o->total_bytes / o->block_bytes < (uint64_t)o->nthreads) {
        iobench_format_size(o->block_bytes * (uint64_t)o->nthreads, need, sizeof(need));
        return err_set(e, E_USAGE,
                       "'-s' %s gives fewer blocks than threads: '-T' %d with '-b' %s needs "
                       "'-s' %s or more",
                       s, o->nthreads, b, need);
    }
    return 0;
}

/* tbiobench's letters, plus --json, --destroy-data and -h/--help. */
#define IOB_NEEDS "a value (see 'tpccbench iobench --help')"
enum {
    IOB_O_B,
    IOB_O_S,
    IOB_O_F,
    IOB_O_T,
    IOB_O_FORCE,
    IOB_O_KEEP,
    IOB_O_I,
    IOB_O_THREADS,
    IOB_O_SEED,
    IOB_O_OUT,
    IOB_O_JSON,
    IOB_O_DESTROY,
    IOB_O_HELP
};
static const struct opt_spec iob_opt_table[] = {
    [IOB_O_B] = { NULL, 'b', 1, IOB_NEEDS },          /* block size */
    [IOB_O_S] = { NULL, 's', 1, IOB_NEEDS },          /* total size */
    [IOB_O_F] = { NULL, 'F', 1, IOB_NEEDS },          /* open flags */
    [IOB_O_T] = { NULL, 't', 1, IOB_NEEDS },          /* target */
    [IOB_O_FORCE] = { NULL, 'f', 0, NULL },           /* force */
    [IOB_O_KEEP] = { NULL, 'k', 0, NULL },            /* keep the file */
    [IOB_O_I] = { NULL, 'i', 1, IOB_NEEDS },          /* test types */
    [IOB_O_THREADS] = { NULL, 'T', 1, IOB_NEEDS },    /* threads */
    [IOB_O_SEED] = { NULL, 'S', 1, IOB_NEEDS },       /* seed */
    [IOB_O_OUT] = { NULL, 'o', 1, IOB_NEEDS },        /* report file */
    [IOB_O_JSON] = { "json", 0, 0, NULL },            /* JSON report */
    [IOB_O_DESTROY] = { "destroy-data", 0, 0, NULL }, /* write a device in use */
    [IOB_O_HELP] = { "help", 'h', 0, NULL },          /* usage */
};

/* One option onto o. */
static int iob_parse_one(struct iobench_opts *o, int which, const char *val, struct err *e)
{
    uint64_t v;

    switch (which) {
    case IOB_O_B:
        if (iobench_parse_size(val, &v) < 0 || v < 1 || v > IOB_MAX_BLOCK_BYTES)
            return err_set(e, E_USAGE,
                           "'-b' must be a block size from 1 byte to 64M, like 512, 4K, 8K "
                           "or 1M (got \"%s\")",
                           val);
        o->block_bytes = v;
        break;
    case IOB_O_S:
        if (iobench_parse_size(val, &v) < 0 || v < 1 || v > IOB_MAX_TOTAL_BYTES)
            return err_set(e, E_USAGE,
                           "'-s' must be a total size from 1 byte to 1P, like 256M or 1G "
                           "(got \"%s\")",
                           val);
        o->total_bytes = v;
        break;
    case IOB_O_F:
        return iob_parse_flags(o, val, e);
    case IOB_O_T:
        if (!val[0])
            return err_set(e, E_USAGE, "'-t' needs a file or block device name");
        o->target = val;
        break;
    case IOB_O_FORCE:
        o->force = 1;
        break;
    case IOB_O_KEEP:
        o->keep = 1;
        break;
    case IOB_O_I:
        return iob_parse_types(o, val, e);
    case IOB_O_THREADS:
        if (iob_parse_u64(val, &v) < 0 || v < 1 || v > IOB_MAX_THREADS)
            return err_set(e, E_USAGE, "'-T' must be a number of threads from 1 to %d (got \"%s\")",
                           IOB_MAX_THREADS, val);
        o->nthreads = (int)v;
        break;
    case IOB_O_SEED:
        if (iob_parse_u64(val, &v) < 0)
            return err_set(e, E_USAGE,
                           "'-S' must be a random seed from 0 to %" PRIu64 " (got \"%s\")",
                           UINT64_MAX, val);
        o->seed = v;
        o->seed_given = 1;
        break;
    case IOB_O_OUT: {
        size_t n = strlen(val);
        if (!n || val[n - 1] == '/')
            return err_set(e, E_USAGE, "'-o' needs a file name (got \"%s\")", val);
        o->out_path = val;
        break;
    }
    case IOB_O_JSON:
        o->json = 1;
        break;
    case IOB_O_DESTROY:
        o->destroy_data = 1;
        break;
    default:
        break;
    }
    return 0;
}

int iobench_parse_args(struct iobench_opts *o, int argc, char **argv, struct err *e)
{
    struct opt_parser p;
    const char *val;
    int found, which, rc = 0;

    if ((rc = opt_init(&p, "iobench", iob_opt_table, OPT_COUNT(iob_opt_table), argc, argv, e)) < 0)
        return rc;
    while (rc == 0 && (found = opt_next(&p, &which, &val, e)) != OPT_END) {
        if (found < 0)
            rc = found;
        else if (found == OPT_ARG)
            rc = err_set(e, E_USAGE,
                         "unexpected argument '%s': iobench takes options only (see "
                         "'tpccbench iobench --help')",
                         val);
        else if (which == IOB_O_HELP) {
            o->help = 1;
            opt_release(&p);
            return 0;
        } else
            rc = iob_parse_one(o, which, val, e);
    }
    opt_release(&p);
    if (rc < 0)
        return rc;
    return iob_opts_check(o, e);
}

/* ---- offsets ---------------------------------------------------------- */

void iobench_share(uint64_t nblocks, int nthreads, int thread, uint64_t *first, uint64_t *count)
{
    uint64_t n = (uint64_t)nthreads, k = (uint64_t)thread;
    uint64_t base = nblocks / n, extra = nblocks % n;

    *count = base + (k < extra ? 1 : 0);
    *first = k * base + (k < extra ? k : extra);
}

void iobench_offgen_init(struct iobench_offgen *g, enum iobench_type t, uint64_t seed,
                         uint64_t nblocks, uint64_t block_bytes, int nthreads, int thread)
{
    uint64_t first, count;

    memset(g, 0, sizeof(*g));
    g->random = t == IOB_RW || t == IOB_RR;
    g->nblocks = nblocks;
    g->block_bytes = block_bytes;
    if (g->random) {
        rng_init_stream(&g->rng, seed, IOB_STREAM_OFFSETS, (uint64_t)t, (uint64_t)thread);
    } else {
        iobench_share(nblocks, nthreads, thread, &first, &count);
        g->next_block = first;
    }
}

uint64_t iobench_offgen_next(struct iobench_offgen *g)
{
    if (g->random)
        return (uint64_t)rng_range(&g->rng, 0, (int64_t)(g->nblocks - 1)) * g->block_bytes;
    return g->next_block++ * g->block_bytes;
}

/* ---- data written ------------------------------------------------------ */

/*
 * Random bytes, none of them zero, so storage that compresses, dedups or
 * thin-provisions zeros gets no shortcut.  The bytes of the two-byte
 * signatures iobench_signature() looks for (0x55AA, 0xEF53) never occur, so a
 * device that only iobench wrote is not mistaken for a formatted one.
 */
static void iob_fill_random(struct rng *r, unsigned char *buf, size_t len)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = rng_next(r);
        for (size_t k = 0; k < 8 && i + k < len; k++) {
            unsigned char c = (unsigned char)(v >> (8 * k));
            if (c == 0)
                c = 0x01;
            else if (c == 0x55 || c == 0xAA || c == 0x53 || c == 0xEF)
                c ^= 0x01;
            buf[i + k] = c;
        }
    }
}

/* Put (file offset, tag) at the head of every 512-byte sector of the block:
 * no two sectors written are alike, across the file and across writes. */
static void iob_stamp(unsigned char *buf, size_t len, uint64_t offset, uint64_t tag)
{
    for (size_t s = 0; s + 16 <= len; s += 512) {
        uint64_t where = offset + s;
        memcpy(buf + s, &where, 8);
        memcpy(buf + s + 8, &tag, 8);
    }
}

/* ---- safety checks ----------------------------------------------------- */

static int iob_has(const unsigned char *buf, size_t len, size_t off, const char *magic, size_t n)
{
    return off + n <= len && memcmp(buf + off, magic, n) == 0;
}

const char *iobench_signature(const unsigned char *buf, size_t len)
{
    static const size_t page_sizes[] = { 4096, 8192, 16384, 65536 };

    if (iob_has(buf, len, 1080, "\x53\xef", 2))
        return "an ext2/ext3/ext4 filesystem";
    if (iob_has(buf, len, 0, "XFSB", 4))
        return "an XFS filesystem";
    if (iob_has(buf, len, 65600, "_BHRfS_M", 8))
        return "a btrfs filesystem";
    for (size_t i = 0; i < sizeof(page_sizes) / sizeof(page_sizes[0]); i++)
        if (iob_has(buf, len, page_sizes[i] - 10, "SWAPSPACE2", 10) ||
            iob_has(buf, len, page_sizes[i] - 10, "SWAP-SPACE", 10))
            return "a swap area";
    for (size_t s = 0; s < 4; s++)
        if (iob_has(buf, len, s * 512 + 0, "LABELONE", 8))
            return "an LVM physical volume";
    if (iob_has(buf, len, 0, "LUKS\xba\xbe", 6))
        return "a LUKS encrypted volume";
    if (iob_has(buf, len, 32, "ORCLDISK", 8))
        return "an Oracle ASM disk";
    if (iob_has(buf, len, 0, "\xfc\x4e\x2b\xa9", 4) ||
        iob_has(buf, len, 4096, "\xfc\x4e\x2b\xa9", 4))
        return "a Linux RAID (md) member";
    if (iob_has(buf, len, 32769, "CD001", 5))
        return "an ISO 9660 filesystem";
    if (iob_has(buf, len, 512, "EFI PART", 8) || iob_has(buf, len, 4096, "EFI PART", 8))
        return "a GPT partition table";
    if (iob_has(buf, len, 3, "NTFS    ", 8))
        return "an NTFS filesystem";
    if (iob_has(buf, len, 510, "\x55\xaa", 2))
        return "a DOS partition table or boot sector (FAT, NTFS, MBR)";
    return NULL;
}

/* Undo the octal escapes (\040 for a space) of a mountinfo field in place. */
static void iob_unescape(char *s)
{
    char *w = s;

    for (const char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
            *w++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
}

static int iob_dev_in(dev_t d, const dev_t *devs, int ndevs)
{
    for (int i = 0; i < ndevs; i++)
        if (devs[i] == d)
            return 1;
    return 0;
}

int iobench_mount_lookup(const char *mountinfo_path, const dev_t *devs, int ndevs, char *where,
                         size_t len, struct err *e)
{
    char *line = NULL, eb[128];
    size_t cap = 0;
    int found = 0;
    FILE *f = fopen(mountinfo_path, "re");

    if (!f)
        return err_set(e, E_FAIL, "cannot read '%s': %s", mountinfo_path,
                       err_errno(errno, eb, sizeof(eb)));
    while (!found && getline(&line, &cap, f) > 0) {
        /* id parent maj:min root mountpoint options [optional...] - fstype source super */
        char *field[64], *save = NULL, *tok;
        int n = 0, dash = -1;
        unsigned maj, min;
        for (tok = strtok_r(line, " \n", &save); tok && n < 64;
             tok = strtok_r(NULL, " \n", &save)) {
            if (dash < 0 && n >= 6 && strcmp(tok, "-") == 0)
                dash = n;
            field[n++] = tok;
        }
        if (n < 5)
            continue;
        if (sscanf(field[2], "%u:%u", &maj, &min) == 2 &&
            iob_dev_in(makedev(maj, min), devs, ndevs))
            found = 1;
        /* btrfs and others report an anonymous device number: also match the source. */
        if (!found && dash > 0 && dash + 2 < n && strncmp(field[dash + 2], "/dev/", 5) == 0) {
            struct stat st;
            iob_unescape(field[dash + 2]);
            if (stat(field[dash + 2], &st) == 0 && S_ISBLK(st.st_mode) &&
                iob_dev_in(st.st_rdev, devs, ndevs))
                found = 1;
        }
        if (found && where) {
            iob_unescape(field[4]);
            snprintf(where, len, "%s", field[4]);
        }
    }
    free(line);
    fclose(f);
    return found;
}

/* Read a "maj:min" sysfs file into *d; 0 or -1. */
static int iob_read_devno(const char *path, dev_t *d)
{
    unsigned maj, min;
    FILE *f = fopen(path, "re");
    int ok;

    if (!f)
        return -1;
    ok = fscanf(f, "%u:%u", &maj, &min) == 2;
    fclose(f);
    if (!ok)
        return -1;
    *d = makedev(maj, min);
    return 0;
}

/* Name of the first entry of a sysfs holders directory into who; 1 if any. */
static int iob_first_holder(const char *dir, char *who, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int found = 0;

    if (!d)
        return 0;
    while (!found && (de = readdir(d)))
        if (de->d_name[0] != '.') {
            snprintf(who, len, "%s", de->d_name);
            found = 1;
        }
    closedir(d);
    return found;
}

/* The device and its partitions (from /sys/dev/block/M:m/<part>/dev); any
 * of them mounted or held means the device is in use. */
static int iob_dev_family(dev_t dev, dev_t *out, int max, char *holder, size_t hlen)
{
    char dir[128], path[512];
    DIR *d;
    struct dirent *de;
    int n = 0;

    out[n++] = dev;
    snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev), minor(dev));
    snprintf(path, sizeof(path), "%s/holders", dir);
    holder[0] = '\0';
    iob_first_holder(path, holder, hlen);
    if (!(d = opendir(dir)))
        return n;
    while (n < max && (de = readdir(d))) {
        struct stat st;
        dev_t part;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s/partition", dir, de->d_name);
        if (stat(path, &st) != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
        if (iob_read_devno(path, &part) == 0)
            out[n++] = part;
        snprintf(path, sizeof(path), "%s/%s/holders", dir, de->d_name);
        if (!holder[0])
            iob_first_holder(path, holder, hlen);
    }
    closedir(d);
    return n;
}

/* Is the device in use: mounted (itself or a partition), active swap, held
 * by a device mapper/RAID, or claimed exclusively?  1 with why filled. */
static int iob_device_in_use(const char *path, dev_t rdev, char *why, size_t len)
{
    dev_t fam[64];
    char where[1024], holder[256], *line = NULL;
    size_t cap = 0;
    int n, fd, found = 0;
    FILE *f;

    n = iob_dev_family(rdev, fam, 64, holder, sizeof(holder));
    if (iobench_mount_lookup("/proc/self/mountinfo", fam, n, where, sizeof(where), NULL) == 1) {
        snprintf(why, len, "is mounted on %s", where);
        return 1;
    }
    if ((f = fopen("/proc/swaps", "re"))) {
        while (!found && getline(&line, &cap, f) > 0) {
            struct stat st;
            char *sp = strpbrk(line, " \t");
            if (line[0] != '/' || !sp)
                continue;
            *sp = '\0';
            if (stat(line, &st) == 0 && S_ISBLK(st.st_mode) && iob_dev_in(st.st_rdev, fam, n)) {
                snprintf(why, len, "is in use as swap (%s)", line);
                found = 1;
            }
        }
        free(line);
        fclose(f);
        if (found)
            return 1;
    }
    if (holder[0]) {
        snprintf(why, len, "is held by %s (LVM, RAID, encryption or multipath)", holder);
        return 1;
    }
    /* The kernel refuses O_EXCL on a block device that something has claimed. */
    fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
    if (fd < 0 && errno == EBUSY) {
        snprintf(why, len,
                 "is in use (the kernel refuses an exclusive open: mounted, swap or "
                 "a volume manager)");
        return 1;
    }
    if (fd >= 0)
        close(fd);
    return 0;
}

/* ---- the target -------------------------------------------------------- */

struct iob_target {
    char path[4096];      /* what we open */
    int ctl_fd;           /* plain descriptor: size, cache drop, signature */
    int created;          /* this run created the file */
    int is_device;        /* a block device */
    uint64_t valid_bytes; /* bytes of the file that hold data already */
    unsigned dio_align;   /* O_DIRECT offset/length alignment */
    size_t buf_align;     /* buffer alignment */
    char align_from[64];  /* where dio_align came from */
};

/* Create a random-named file in dir (NULL: the current directory). */
static int iob_create_temp(struct iob_target *t, const char *dir, struct err *e)
{
    char eb[128];
    size_t n = dir ? strlen(dir) : 0;

    if (dir)
        snprintf(t->path, sizeof(t->path), "%s%siobench-XXXXXX.tmp", dir,
                 n && dir[n - 1] == '/' ? "" : "/");
    else
        snprintf(t->path, sizeof(t->path), "iobench-XXXXXX.tmp");
    t->ctl_fd = mkostemps(t->path, 4, O_CLOEXEC);
    if (t->ctl_fd < 0)
        return err_set(e, E_FAIL, "cannot create a file in '%s': %s", dir ? dir : ".",
                       err_errno(errno, eb, sizeof(eb)));
    t->created = 1;
    return 0;
}

/* Name the filesystem type of fd when it is one known not to do O_DIRECT. */
static const char *iob_fs_hint(int fd)
{
    struct statfs sf;

    if (fstatfs(fd, &sf) != 0)
        return "";
    if ((unsigned long)sf.f_type == IOB_TMPFS_MAGIC)
        return " (tmpfs)";
    if ((unsigned long)sf.f_type == IOB_OVERLAYFS_MAGIC)
        return " (overlayfs)";
    return "";
}

static int iob_read_uint_file(const char *path, unsigned *out)
{
    FILE *f = fopen(path, "re");
    int ok;

    if (!f)
        return -1;
    ok = fscanf(f, "%u", out) == 1 && *out > 0;
    fclose(f);
    return ok ? 0 : -1;
}

/*
 * O_DIRECT alignment of a regular file: what the kernel reports through
 * statx(STATX_DIOALIGN) (Linux 6.1+), else the logical block size of the
 * disk under the filesystem (sysfs), else st_blksize, the filesystem block
 * size, which is larger than needed but always safe.
 */
static int iob_file_dio_align(struct iob_target *t, struct err *e)
{
    struct stat st;
    char path[256];
    unsigned v;

#ifdef STATX_DIOALIGN
    struct statx sx;
    if (statx(t->ctl_fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
        (sx.stx_mask & STATX_DIOALIGN)) {
        if (sx.stx_dio_offset_align == 0)
            return err_set(e, E_USAGE,
                           "the filesystem of '%s'%s does not support O_DIRECT: put the target "
                           "on a disk filesystem (ext4, xfs) or drop '-F O_DIRECT'",
                           t->path, iob_fs_hint(t->ctl_fd));
        t->dio_align = sx.stx_dio_offset_align;
        if (sx.stx_dio_mem_align > t->buf_align)
            t->buf_align = sx.stx_dio_mem_align;
        snprintf(t->align_from, sizeof(t->align_from), "statx STATX_DIOALIGN");
        return 0;
    }
#endif
    if (fstat(t->ctl_fd, &st) != 0)
        return err_set(e, E_FAIL, "cannot stat '%s'", t->path);
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/logical_block_size", major(st.st_dev),
             minor(st.st_dev));
    if (iob_read_uint_file(path, &v) != 0) {
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/logical_block_size",
                 major(st.st_dev), minor(st.st_dev));
        if (iob_read_uint_file(path, &v) != 0)
            v = 0;
    }
    if (v) {
        t->dio_align = v;
        snprintf(t->align_from, sizeof(t->align_from), "the disk's logical block size");
    } else {
        t->dio_align = st.st_blksize > 0 ? (unsigned)st.st_blksize : 4096;
        snprintf(t->align_from, sizeof(t->align_from), "st_blksize");
    }
    return 0;
}

/* Does any test need data in the file that is not there yet? */
static int iob_needs_fill(const struct iobench_opts *o, uint64_t valid_bytes)
{
    if (valid_bytes >= o->total_bytes)
        return 0;
    /* A leading SW writes the file; everything else needs it full. */
    return !(o->types[0] == IOB_SW);
}

static int iob_has_write(const struct iobench_opts *o)
{
    for (int i = 0; i < o->ntypes; i++)
        if (iob_is_write(o->types[i]))
            return 1;
    return 0;
}

static int iob_open_device(const struct iobench_opts *o, struct iob_target *t,
                           const struct stat *st, struct err *e)
{
    unsigned char *sig;
    const char *found;
    char why[1200], eb[128], s[32], d[32];
    int writes = iob_has_write(o), ssz = 0;
    uint64_t size = 0;
    ssize_t got;

    t->is_device = 1;
    snprintf(t->path, sizeof(t->path), "%s", o->target);
    if (writes && !o->force)
        return err_set(e, E_USAGE,
                       "'%s' is a block device and tpccbench did not create it: writing it "
                       "destroys the data on it; give -f if that is what you want",
                       t->path);
    if (writes && !o->destroy_data && iob_device_in_use(t->path, st->st_rdev, why, sizeof(why)))
        return err_set(e, E_USAGE,
                       "'%s' %s: writing it would destroy the data on it; add --destroy-data "
                       "(with -f) only if that is what you want",
                       t->path, why);
    t->ctl_fd = open(t->path, O_RDONLY | O_CLOEXEC);
    if (t->ctl_fd < 0)
        return err_set(e, E_FAIL, "cannot open '%s': %s", t->path,
                       err_errno(errno, eb, sizeof(eb)));
    if (ioctl(t->ctl_fd, BLKGETSIZE64, &size) != 0 || ioctl(t->ctl_fd, BLKSSZGET, &ssz) != 0)
        return err_set(e, E_FAIL, "cannot get the size of block device '%s': %s", t->path,
                       err_errno(errno, eb, sizeof(eb)));
    t->valid_bytes = size;
    if (o->total_bytes > size) {
        iobench_format_size(o->total_bytes, s, sizeof(s));
        iob_human(size, d, sizeof(d));
        return err_set(e, E_USAGE, "'-s' %s is larger than the device '%s' (%s): give a smaller -s",
                       s, t->path, d);
    }
    if (writes && !o->destroy_data) {
        size_t n = size < IOB_SIG_BYTES ? (size_t)size : IOB_SIG_BYTES;
        if (!(sig = malloc(IOB_SIG_BYTES)))
            return err_set(e, E_FAIL, "out of memory");
        got = pread(t->ctl_fd, sig, n, 0);
        found = got > 0 ? iobench_signature(sig, (size_t)got) : NULL;
        free(sig);
        if (got < 0)
            return err_set(e, E_FAIL, "cannot read '%s': %s", t->path,
                           err_errno(errno, eb, sizeof(eb)));
        if (found)
            return err_set(e, E_USAGE,
                           "'%s' carries %s: writing it would destroy the data on it; add "
                           "--destroy-data (with -f) only if that is what you want",
                           t->path, found);
    }
    t->dio_align = ssz > 0 ? (unsigned)ssz : 512;
    snprintf(t->align_from, sizeof(t->align_from), "BLKSSZGET");
    return 0;
}

static int iob_open_file(const struct iobench_opts *o, struct iob_target *t, int exists,
                         const struct stat *st, struct err *e)
{
    char eb[128], s[32], have[32], need[32], avail[32];
    int trunc = (o->flags & IOB_F_TRUNC) != 0;
    int writes = 1; /* a file we created is empty: some test or the fill writes it */
    uint64_t used = 0, more;
    struct statvfs vfs;

    if (exists) {
        uint64_t size = (uint64_t)st->st_size;
        writes = iob_has_write(o) || trunc || iob_needs_fill(o, size);
        snprintf(t->path, sizeof(t->path), "%s", o->target);
        if (writes && !o->force) {
            if (!iob_has_write(o) && !trunc) {
                iob_human(size, have, sizeof(have));
                iobench_format_size(o->total_bytes, s, sizeof(s));
                return err_set(e, E_USAGE,
                               "'%s' holds %s, less than '-s' %s, and tpccbench did not create "
                               "it: the read tests would have to fill it; give -f to allow "
                               "writing it",
                               t->path, have, s);
            }
            return err_set(e, E_USAGE,
                           "'%s' exists and tpccbench did not create it: iobench would "
                           "overwrite it; give -f to allow that",
                           t->path);
        }
        t->ctl_fd = open(t->path, (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC | (trunc ? O_TRUNC : 0));
        if (t->ctl_fd < 0 && o->force && (errno == EACCES || errno == EPERM || errno == ETXTBSY)) {
            /* -f: re-create a target we may not open (it still is not "ours"). */
            if (unlink(t->path) == 0)
                t->ctl_fd = open(t->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            size = 0;
        }
        if (t->ctl_fd < 0)
            return err_set(e, E_FAIL, "cannot open '%s': %s", t->path,
                           err_errno(errno, eb, sizeof(eb)));
        if (!trunc && size) {
            /* Space already allocated to the file need not be found again. */
            uint64_t alloc = (uint64_t)st->st_blocks * 512;
            used = alloc < size ? alloc : size;
        }
        t->valid_bytes = trunc ? 0 : size;
    }
    if (o->flags & IOB_F_DIRECT) {
        int fd;
        if (iob_file_dio_align(t, e) < 0)
            return e->code;
        fd = open(t->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
        if (fd < 0 && errno == EINVAL)
            return err_set(e, E_USAGE,
                           "the filesystem of '%s'%s does not support O_DIRECT: put the target "
                           "on a disk filesystem (ext4, xfs) or drop '-F O_DIRECT'",
                           t->path, iob_fs_hint(t->ctl_fd));
        if (fd >= 0)
            close(fd);
    }
    /* Refuse before writing when the space is not there. */
    more = o->total_bytes > used ? o->total_bytes - used : 0;
    if (writes && more && fstatvfs(t->ctl_fd, &vfs) == 0 &&
        (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize < more) {
        iobench_format_size(o->total_bytes, s, sizeof(s));
        iob_human(more, need, sizeof(need));
        iob_human((uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize, avail, sizeof(avail));
        return err_set(e, E_USAGE,
                       "not enough free space for '%s': '-s' %s needs %s more and the "
                       "filesystem has %s free; give a smaller -s or a target elsewhere (-t)",
                       t->path, s, need, avail);
    }
    return 0;
}

static void iob_target_close(struct iob_target *t, int keep)
{
    if (t->ctl_fd >= 0)
        close(t->ctl_fd);
    t->ctl_fd = -1;
    if (t->created && !keep)
        unlink(t->path);
}

static int iob_target_open(const struct iobench_opts *o, struct iob_target *t, struct err *e)
{
    struct stat st;
    char eb[128], b[32];
    int rc;

    memset(t, 0, sizeof(*t));
    t->ctl_fd = -1;
    t->buf_align = IOB_MIN_BUF_ALIGN;
    if (!o->target) {
        rc = iob_create_temp(t, NULL, e);
        if (rc == 0)
            rc = iob_open_file(o, t, 0, NULL, e);
    } else if (stat(o->target, &st) != 0) {
        if (errno != ENOENT)
            return err_set(e, E_FAIL, "cannot use '%s': %s", o->target,
                           err_errno(errno, eb, sizeof(eb)));
        snprintf(t->path, sizeof(t->path), "%s", o->target);
        t->ctl_fd = open(t->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (t->ctl_fd < 0)
            return err_set(e, E_FAIL, "cannot create '%s': %s", t->path,
                           err_errno(errno, eb, sizeof(eb)));
        t->created = 1;
        rc = iob_open_file(o, t, 0, NULL, e);
    } else if (S_ISDIR(st.st_mode)) {
        rc = iob_create_temp(t, o->target, e);
        if (rc == 0)
            rc = iob_open_file(o, t, 0, NULL, e);
    } else if (S_ISBLK(st.st_mode)) {
        rc = iob_open_device(o, t, &st, e);
    } else if (S_ISREG(st.st_mode)) {
        rc = iob_open_file(o, t, 1, &st, e);
    } else {
        return err_set(e, E_USAGE, "'%s' is neither a regular file, a directory nor a block device",
                       o->target);
    }
    if (rc == 0 && (o->flags & IOB_F_DIRECT) && o->block_bytes % t->dio_align) {
        iobench_format_size(o->block_bytes, b, sizeof(b));
        rc = err_set(e, E_USAGE,
                     "O_DIRECT needs '-b' to be a multiple of %u bytes, the direct I/O alignment "
                     "of '%s' (from %s): -b %s is not",
                     t->dio_align, t->path, t->align_from, b);
    }
    if (t->dio_align > t->buf_align)
        t->buf_align = t->dio_align;
    return rc;
}

/* ---- one test ---------------------------------------------------------- */

/* What the threads of one test share; read-only once they run, except the
 * start gate, which the mutex guards. */
struct iob_job {
    const char *path;
    int oflags; /* open(2) flags of each thread's descriptor */
    enum iobench_type type;
    int test_no; /* position in the run, for the data stamp */
    uint64_t seed;
    uint64_t nblocks;
    uint64_t block_bytes;
    size_t buf_align;
    int nthreads;
    pthread_mutex_t mu; /* guards n_ready, go and n_done */
    pthread_cond_t cond;
    int n_ready; /* threads set up and waiting at the gate */
    int go;      /* 0 wait, 1 run, -1 give up (a setup failed) */
    int n_done;  /* threads finished */
    /* 1: stop now (a signal came).  Set by the main thread, which polls the
     * signal flag, read relaxed by the workers before each I/O: the signal
     * handler's flag itself is only read by the thread that installed it. */
    int stop;
};

/* One thread: its own descriptor, buffer, generator, histogram and counts. */
struct iob_worker {
    struct iob_job *job;
    int thread;
    pthread_t tid;
    struct hist *lat;                /* per-I/O latency (heap) */
    struct iobench_thread_stat stat; /* what it did */
    uint64_t start_us, end_us;       /* monotonic, for the wall time of the test */
    int rc;                          /* 0, or the error in err */
    struct err err;
};

/* Write or read all len bytes at off (a short transfer is continued). */
static int iob_transfer(int fd, int write, unsigned char *buf, size_t len, uint64_t off,
                        const char *path, const int *stop, struct err *e)
{
    char eb[128];
    size_t done = 0;

    while (done < len) {
        ssize_t n = write ? pwrite(fd, buf + done, len - done, (off_t)(off + done))
                          : pread(fd, buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR) {
            if (stop ? __atomic_load_n(stop, __ATOMIC_RELAXED) : sig_stop_requested())
                return err_set(e, E_INTR, "interrupted");
            continue;
        }
        if (n < 0)
            return err_set(e, E_FAIL, "%s '%s' at offset %" PRIu64 ": %s",
                           write ? "writing" : "reading", path, off + done,
                           err_errno(errno, eb, sizeof(eb)));
        if (n == 0)
            return err_set(e, E_FAIL, "reading '%s' at offset %" PRIu64 ": unexpected end of file",
                           path, off + done);
        done += (size_t)n;
    }
    return 0;
}

static void *iob_worker_main(void *arg)
{
    struct iob_worker *w = arg;
    struct iob_job *job = w->job;
    struct iobench_offgen g;
    struct rng data_rng;
    unsigned char *buf = NULL;
    int write = iob_is_write(job->type), go, fd;
    uint64_t first, count, t0;
    char eb[128];
    void *mem = NULL;

    fd = open(job->path, job->oflags | O_CLOEXEC);
    if (fd < 0)
        w->rc = err_set(&w->err, errno == EINVAL && (job->oflags & O_DIRECT) ? E_USAGE : E_FAIL,
                        "cannot open '%s' for %s: %s", job->path, iobench_type_name(job->type),
                        err_errno(errno, eb, sizeof(eb)));
    else if (posix_memalign(&mem, job->buf_align, (size_t)job->block_bytes) != 0)
        w->rc = err_set(&w->err, E_FAIL, "out of memory for a %" PRIu64 "-byte buffer",
                        job->block_bytes);
    else if (!(w->lat = malloc(sizeof(*w->lat))))
        w->rc = err_set(&w->err, E_FAIL, "out of memory");
    buf = mem;
    if (w->rc == 0) {
        hist_init(w->lat);
        rng_init_stream(&data_rng, job->seed, IOB_STREAM_DATA, (uint64_t)job->test_no,
                        (uint64_t)w->thread);
        iob_fill_random(&data_rng, buf, (size_t)job->block_bytes);
        iobench_offgen_init(&g, job->type, job->seed, job->nblocks, job->block_bytes, job->nthreads,
                            w->thread);
    }
    /* Everyone opens and allocates first; the I/O starts together. */
    pthread_mutex_lock(&job->mu);
    job->n_ready++;
    pthread_cond_broadcast(&job->cond);
    while (job->go == 0)
        pthread_cond_wait(&job->cond, &job->mu);
    go = job->go;
    pthread_mutex_unlock(&job->mu);

    if (go > 0 && w->rc == 0) {
        /* Random threads do as many I/Os as a sequential share holds. */
        iobench_share(job->nblocks, job->nthreads, w->thread, &first, &count);
        w->start_us = t0 = clock_us();
        for (uint64_t i = 0; i < count; i++) {
            uint64_t off = iobench_offgen_next(&g), t1;
            if (__atomic_load_n(&job->stop, __ATOMIC_RELAXED)) {
                w->rc = err_set(&w->err, E_INTR, "interrupted");
                break;
            }
            if (write)
                iob_stamp(buf, (size_t)job->block_bytes, off,
                          ((uint64_t)job->test_no << 56) ^ ((uint64_t)w->thread << 40) ^ i);
            if ((w->rc = iob_transfer(fd, write, buf, (size_t)job->block_bytes, off, job->path,
                                      &job->stop, &w->err)) < 0)
                break;
            t1 = clock_us();
            hist_record(w->lat, t1 - t0);
            t0 = t1;
            w->stat.bytes += job->block_bytes;
            w->stat.n_ios++;
        }
        w->end_us = t0;
        w->stat.elapsed_us = t0 - w->start_us;
    }
    free(mem);
    if (fd >= 0)
        close(fd);
    pthread_mutex_lock(&job->mu);
    job->n_done++;
    pthread_cond_broadcast(&job->cond);
    pthread_mutex_unlock(&job->mu);
    return NULL;
}

static int iob_oflags(unsigned flags, int write)
{
    int f = write ? O_WRONLY : O_RDONLY;

    if (flags & IOB_F_DIRECT)
        f |= O_DIRECT;
    if (flags & IOB_F_SYNC)
        f |= O_SYNC;
    if (flags & IOB_F_DSYNC)
        f |= O_DSYNC;
    if (flags & IOB_F_NONBLOCK)
        f |= O_NONBLOCK;
    /* O_TRUNC is applied once, when the target is opened: per thread it would
     * cut off what the other threads write. */
    return f;
}

static void iob_test_release(struct iobench_test *t)
{
    free(t->threads);
    free(t->lat);
    t->threads = NULL;
    t->lat = NULL;
}

static int iob_run_test(const struct iobench_opts *o, const struct iob_target *tg,
                        enum iobench_type type, int test_no, uint64_t seed,
                        struct iobench_test *out, struct err *e)
{
    struct iob_job job;
    struct iob_worker *w;
    int n = o->nthreads, created = 0, rc = 0;
    uint64_t start = UINT64_MAX, end = 0;

    memset(out, 0, sizeof(*out));
    out->type = type;
    out->nthreads = n;
    out->threads = calloc((size_t)n, sizeof(*out->threads));
    out->lat = malloc(sizeof(*out->lat));
    w = calloc((size_t)n, sizeof(*w));
    if (!out->threads || !out->lat || !w) {
        free(w);
        iob_test_release(out);
        return err_set(e, E_FAIL, "out of memory");
    }
    hist_init(out->lat);
    memset(&job, 0, sizeof(job));
    job.path = tg->path;
    job.oflags = iob_oflags(o->flags, iob_is_write(type));
    job.type = type;
    job.test_no = test_no;
    job.seed = seed;
    job.nblocks = o->total_bytes / o->block_bytes;
    job.block_bytes = o->block_bytes;
    job.buf_align = tg->buf_align;
    job.nthreads = n;
    pthread_mutex_init(&job.mu, NULL);
    pthread_cond_init(&job.cond, NULL);

    for (int k = 0; k < n; k++) {
        w[k].job = &job;
        w[k].thread = k;
        if (pthread_create(&w[k].tid, NULL, iob_worker_main, &w[k]) != 0) {
            rc = err_set(e, E_FAIL, "cannot start thread %d of %d", k + 1, n);
            break;
        }
        created++;
    }
    /* Open the gate when every started thread is ready; give up if any
     * thread could not be started or set up. */
    pthread_mutex_lock(&job.mu);
    while (job.n_ready < created)
        pthread_cond_wait(&job.cond, &job.mu);
    job.go = 1;
    for (int k = 0; k < created; k++)
        if (w[k].rc < 0)
            job.go = -1;
    if (rc < 0)
        job.go = -1;
    pthread_cond_broadcast(&job.cond);
    /* Wait for the workers, passing a stop signal on to them. */
    while (job.n_done < created) {
        struct timespec ts;
        clock_deadline(&ts, 20000);
        pthread_cond_timedwait(&job.cond, &job.mu, &ts);
        if (sig_stop_requested())
            __atomic_store_n(&job.stop, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&job.mu);

    for (int k = 0; k < created; k++)
        pthread_join(w[k].tid, NULL);
    /* The first real error wins over an interruption. */
    for (int k = 0; k < created && rc == 0; k++)
        if (w[k].rc < 0 && w[k].rc != E_INTR) {
            rc = w[k].rc;
            *e = w[k].err;
        }
    for (int k = 0; k < created && rc == 0; k++)
        if (w[k].rc < 0) {
            rc = w[k].rc;
            *e = w[k].err;
        }
    for (int k = 0; k < created; k++) {
        if (rc == 0) {
            out->threads[k] = w[k].stat;
            out->bytes += w[k].stat.bytes;
            out->n_ios += w[k].stat.n_ios;
            if (w[k].start_us < start)
                start = w[k].start_us;
            if (w[k].end_us > end)
                end = w[k].end_us;
            hist_merge(out->lat, w[k].lat);
        }
        free(w[k].lat);
    }
    pthread_cond_destroy(&job.cond);
    pthread_mutex_destroy(&job.mu);
    free(w);
    if (rc < 0) {
        iob_test_release(out);
        return rc;
    }
    out->elapsed_us = end > start ? end - start : 0;
    if (iob_is_write(type)) {
        double secs = out->elapsed_us ? (double)out->elapsed_us / 1e6 : 1e-6;
        out->slow = (double)out->bytes / 1048576.0 / secs < IOB_SLOW_MBPS;
    }
    return 0;
}

/* Write [0, total) once, untimed, so read tests read data that was written. */
static int iob_fill(const struct iobench_opts *o, struct iob_target *tg, uint64_t seed,
                    struct err *e)
{
    uint64_t chunk = IOB_FILL_CHUNK, off = 0;
    unsigned char *buf;
    struct rng r;
    char eb[128];
    int fd, rc = 0;

    if (chunk > o->total_bytes)
        chunk = o->total_bytes;
    fd = open(tg->path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(e, E_FAIL, "cannot open '%s' to fill it: %s", tg->path,
                       err_errno(errno, eb, sizeof(eb)));
    if (!(buf = malloc((size_t)chunk))) {
        close(fd);
        return err_set(e, E_FAIL, "out of memory");
    }
    rng_init_stream(&r, seed, IOB_STREAM_DATA, UINT64_MAX, 0);
    iob_fill_random(&r, buf, (size_t)chunk);
    while (off < o->total_bytes && rc == 0) {
        uint64_t n = o->total_bytes - off < chunk ? o->total_bytes - off : chunk;
        if (sig_stop_requested()) {
            rc = err_set(e, E_INTR, "interrupted");
            break;
        }
        iob_stamp(buf, (size_t)n, off, UINT64_MAX);
        rc = iob_transfer(fd, 1, buf, (size_t)n, off, tg->path, NULL, e);
        off += n;
    }
    if (rc == 0 && fdatasync(fd) != 0)
        rc = err_set(e, E_FAIL, "cannot sync '%s': %s", tg->path, err_errno(errno, eb, sizeof(eb)));
    free(buf);
    close(fd);
    if (rc == 0)
        tg->valid_bytes = o->total_bytes;
    return rc;
}

/* Flush and drop the cached pages of the test area, as fio's invalidate=1. */
static void iob_drop_cache(const struct iob_target *tg, uint64_t total_bytes)
{
    /* Only a hint: the tests themselves report real I/O errors. */
    fdatasync(tg->ctl_fd);
    posix_fadvise(tg->ctl_fd, 0, (off_t)total_bytes, POSIX_FADV_DONTNEED);
}

static uint64_t iob_draw_seed(void)
{
    uint64_t x = clock_wall_us() ^ ((uint64_t)getpid() << 32) ^ clock_us();

    /* One splitmix64 round, so near-equal clocks give unrelated seeds; kept
     * below 2^32 so it is easy to retype. */
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return (x ^ (x >> 31)) & UINT64_C(0xffffffff);
}

static void iob_progress(const struct iobench_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void iob_progress(const struct iobench_opts *o, const char *fmt, ...)
{
    char line[256];
    va_list ap;

    if (!o->progress)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    o->progress(o->progress_arg, line);
}

int iobench_run(const struct iobench_opts *o, struct iobench_result *r, struct err *e)
{
    struct iob_target tg;
    char b[32], s[32];
    int rc, keep;

    memset(r, 0, sizeof(*r));
    err_clear(e);
    if ((rc = iob_opts_check(o, e)) < 0)
        return rc;
    r->seed = o->seed_given ? o->seed : iob_draw_seed();
    rc = iob_target_open(o, &tg, e);
    snprintf(r->target, sizeof(r->target), "%s", tg.path);
    r->created = tg.created;
    r->is_device = tg.is_device;
    r->device_bytes = tg.is_device ? tg.valid_bytes : 0;
    if (o->flags & IOB_F_DIRECT) {
        r->dio_align = tg.dio_align;
        snprintf(r->dio_align_from, sizeof(r->dio_align_from), "%s", tg.align_from);
    }
    iobench_format_size(o->block_bytes, b, sizeof(b));
    iobench_format_size(o->total_bytes, s, sizeof(s));
    for (int i = 0; rc == 0 && i < o->ntypes; i++) {
        enum iobench_type t = o->types[i];
        if (sig_stop_requested()) {
            rc = err_set(e, E_INTR, "interrupted");
            break;
        }
        if (t != IOB_SW && !tg.is_device && tg.valid_bytes < o->total_bytes) {
            iob_progress(o, "filling %s with %s of data first (untimed)", tg.path, s);
            if ((rc = iob_fill(o, &tg, r->seed, e)) < 0)
                break;
        }
        iob_drop_cache(&tg, o->total_bytes);
        iob_progress(o, "%s %s: %s in %s blocks, %d thread%s", iobench_type_code(t),
                     iobench_type_name(t), s, b, o->nthreads, o->nthreads == 1 ? "" : "s");
        if ((rc = iob_run_test(o, &tg, t, i, r->seed, &r->tests[r->ntests], e)) < 0)
            break;
        r->ntests++;
        if (t == IOB_SW && tg.valid_bytes < o->total_bytes)
            tg.valid_bytes = o->total_bytes;
    }
    r->interrupted = rc == E_INTR;
    /* -k keeps a file that holds some result, not one a refusal left empty. */
    keep = o->keep && (rc == 0 || r->ntests > 0);
    iob_target_close(&tg, keep);
    r->removed = tg.created && !keep;
    return rc;
}

void iobench_result_release(struct iobench_result *r)
{
    for (int i = 0; i < r->ntests; i++)
        iob_test_release(&r->tests[i]);
    r->ntests = 0;
}

/* ---- the report -------------------------------------------------------- */

static double iob_mbps(uint64_t bytes, uint64_t us)
{
    return (double)bytes / 1048576.0 / ((us ? (double)us : 1.0) / 1e6);
}

static void iob_target_desc(const struct iobench_opts *o, const struct iobench_result *r, char *buf,
                            size_t len)
{
    if (r->is_device)
        snprintf(buf, len, "block device");
    else if (r->created)
        snprintf(buf, len, "file created by this run, %s",
                 o->keep ? "kept (-k)" : "removed at the end");
    else
        snprintf(buf, len, "existing file, kept");
}

void iobench_print(FILE *out, const struct iobench_opts *o, const struct iobench_result *r)
{
    char b[32], s[32], fl[96], desc[96];

    iobench_format_size(o->block_bytes, b, sizeof(b));
    iobench_format_size(o->total_bytes, s, sizeof(s));
    iobench_format_flags(o->flags, fl, sizeof(fl));
    iob_target_desc(o, r, desc, sizeof(desc));
    fprintf(out, "tpccbench iobench %s (tbiobench options)\n", TPCC_VERSION);
    fprintf(out, "Target       : %s (%s)\n", r->target, desc);
    fprintf(out, "Block size   : %s (%" PRIu64 " bytes)\n", b, o->block_bytes);
    fprintf(out, "Total size   : %s (%" PRIu64 " bytes)\n", s, o->total_bytes);
    fprintf(out, "Open flags   : %s\n", fl);
    fprintf(out, "Threads      : %d\n", o->nthreads);
    fprintf(out, "Random seed  : %" PRIu64 "\n", r->seed);
    if (o->flags & IOB_F_DIRECT)
        fprintf(out, "Direct align : %u bytes (%s)\n", r->dio_align, r->dio_align_from);
    for (int i = 0; i < r->ntests; i++) {
        const struct iobench_test *t = &r->tests[i];
        double secs = (t->elapsed_us ? (double)t->elapsed_us : 1.0) / 1e6;
        fprintf(out, "\n[%s] %s\n", iobench_type_code(t->type), iobench_type_name(t->type));
        fprintf(out, "%7s %12s %12s %12s\n", "Thread#", "ms", "Mbytes", "Mbytes/sec");
        for (int k = 0; k < t->nthreads; k++) {
            const struct iobench_thread_stat *ts = &t->threads[k];
            fprintf(out, "%7d %12.1f %12.2f %12.2f\n", k, (double)ts->elapsed_us / 1e3,
                    (double)ts->bytes / 1048576.0, iob_mbps(ts->bytes, ts->elapsed_us));
        }
        fprintf(out, "%7s %12.1f %12.2f %12.2f\n", "Total", (double)t->elapsed_us / 1e3,
                (double)t->bytes / 1048576.0, iob_mbps(t->bytes, t->elapsed_us));
        fprintf(out,
                "IOPS %.0f; latency per I/O: p50 %" PRIu64 " us, p99 %" PRIu64 " us, max %" PRIu64
                " us\n",
                (double)t->n_ios / secs, hist_percentile(t->lat, 50.0),
                hist_percentile(t->lat, 99.0), t->lat->n_samples ? t->lat->max_us : 0);
        if (t->slow)
            fprintf(out,
                    "warning: %s ran at %.2f Mbytes/sec, under %.0f: a slow disk for database "
                    "files (tbiobench's rule of thumb)\n",
                    iobench_type_code(t->type), iob_mbps(t->bytes, t->elapsed_us), IOB_SLOW_MBPS);
    }
    if (r->interrupted)
        fprintf(out, "\ninterrupted: %d of %d tests completed\n", r->ntests, o->ntypes);
}

json_t *iobench_json(const struct iobench_opts *o, const struct iobench_result *r)
{
    json_t *doc, *flags = json_array(), *tests = json_array(), *types = json_array();
    /* A seed above 2^63 - 1 does not fit a JSON integer of jansson: a string then. */
    json_t *seed = r->seed <= INT64_MAX ? json_integer((json_int_t)r->seed) : NULL;
    char seed_text[24];

    if (!flags || !tests || !types) {
        json_decref(flags);
        json_decref(tests);
        json_decref(types);
        return NULL;
    }
    for (size_t i = 0; i < IOB_NFLAGS; i++)
        if (o->flags & iob_flag_names[i].bit)
            json_array_append_new(flags, json_string(iob_flag_names[i].name));
    for (int i = 0; i < o->ntypes; i++)
        json_array_append_new(types, json_string(iobench_type_code(o->types[i])));
    for (int i = 0; i < r->ntests; i++) {
        const struct iobench_test *t = &r->tests[i];
        double secs = (t->elapsed_us ? (double)t->elapsed_us : 1.0) / 1e6;
        json_t *th = json_array();
        for (int k = 0; k < t->nthreads; k++) {
            const struct iobench_thread_stat *ts = &t->threads[k];
            json_array_append_new(th,
                                  json_pack("{s:i, s:f, s:I, s:I, s:f}", "thread", k, "ms",
                                            (double)ts->elapsed_us / 1e3, "bytes",
                                            (json_int_t)ts->bytes, "ios", (json_int_t)ts->n_ios,
                                            "mbytes_per_sec", iob_mbps(ts->bytes, ts->elapsed_us)));
        }
        json_array_append_new(
            tests,
            json_pack("{s:s, s:s, s:f, s:I, s:f, s:f, s:I, s:f, s:{s:I, s:I, s:I, s:f}, s:b, "
                      "s:o}",
                      "type", iobench_type_code(t->type), "name", iobench_type_name(t->type), "ms",
                      (double)t->elapsed_us / 1e3, "bytes", (json_int_t)t->bytes, "mbytes",
                      (double)t->bytes / 1048576.0, "mbytes_per_sec",
                      iob_mbps(t->bytes, t->elapsed_us), "ios", (json_int_t)t->n_ios, "iops",
                      (double)t->n_ios / secs, "latency_us", "p50",
                      (json_int_t)hist_percentile(t->lat, 50.0), "p99",
                      (json_int_t)hist_percentile(t->lat, 99.0), "max",
                      (json_int_t)(t->lat->n_samples ? t->lat->max_us : 0), "mean",
                      hist_mean(t->lat), "slow_disk", t->slow, "threads", th));
    }
    if (!seed) {
        snprintf(seed_text, sizeof(seed_text), "%" PRIu64, r->seed);
        seed = json_string(seed_text);
    }
    doc = json_pack("{s:o, s:s, s:{s:s, s:s, s:b, s:b}, s:I, s:I, s:o, s:i, s:o, s:o, s:o}", "tool",
                    record_tool(), "status", r->interrupted ? "interrupted" : "complete", "target",
                    "path", r->target, "kind", r->is_device ? "block device" : "file", "created",
                    r->created, "removed", r->removed, "block_bytes", (json_int_t)o->block_bytes,
                    "total_bytes", (json_int_t)o->total_bytes, "flags", flags, "threads",
                    o->nthreads, "seed", seed, "types", types, "tests", tests);
    if (doc && (o->flags & IOB_F_DIRECT))
        json_object_set_new(
            doc, "direct_align",
            json_pack("{s:i, s:s}", "bytes", (int)r->dio_align, "from", r->dio_align_from));
    return doc;
}
