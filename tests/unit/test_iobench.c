/*
 * test_iobench.c - unit tests for the disk I/O bench (src/tools/iobench.c).
 *
 * Option parsing is table-driven: arguments -> the parsed values, or the
 * exact error message.  The offset generator is checked for what the README
 * promises: sequential shares are contiguous and cover the file once, random
 * offsets are block-aligned, inside the file, uniform (chi-square at 5
 * sigma), and the same for the same seed.  The signature detector runs on
 * synthetic images holding each magic number, and on a temp file with an
 * ext4 superblock magic read back from disk; the mount lookup on a fake
 * mountinfo file.  iobench_run itself runs on a 1M file in a temp directory:
 * exact byte counts, per-thread sums, the file removed or kept, and the data
 * written (no zero bytes, every sector unique, no signature).  Each failure
 * prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit.h"

#include "tools/iobench.h"

#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Parse a space-separated argument string (no quoting) onto o. */
static int test_parse(struct iobench_opts *o, const char *args, struct err *e)
{
    static char buf[512];
    char *argv[32];
    int argc = 0;

    snprintf(buf, sizeof(buf), "%s", args);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 32;
         t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    iobench_opts_init(o);
    err_clear(e);
    return iobench_parse_args(o, argc, argv, e);
}

static void test_parse_size(void **state)
{
    static const struct {
        const char *in;
        int ok;
        uint64_t want;
    } cases[] = {
        { "512", 1, 512 },
        { "1000", 1, 1000 },
        { "4K", 1, 4096 },
        { "8k", 1, 8192 },
        { "1M", 1, 1048576 },
        { "1G", 1, UINT64_C(1) << 30 },
        { "1GB", 1, UINT64_C(1) << 30 },
        { "1GiB", 1, UINT64_C(1) << 30 },
        { "256m", 1, UINT64_C(256) << 20 },
        { "2T", 1, UINT64_C(2) << 40 },
        { "1P", 1, UINT64_C(1) << 50 },
        { "0", 1, 0 },
        { "", 0, 0 },
        { "K", 0, 0 },
        { "-1", 0, 0 },
        { "+1", 0, 0 },
        { " 1", 0, 0 },
        { "1.5G", 0, 0 },
        { "1X", 0, 0 },
        { "1KBx", 0, 0 },
        { "1 K", 0, 0 },
        { "99999999999999999999", 0, 0 },
        { "20000P", 0, 0 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t v = 12345;
        int rc = iobench_parse_size(cases[i].in, &v);
        CHECK((rc == 0) == cases[i].ok, "parse_size(\"%s\"): rc %d, want %s", cases[i].in, rc,
              cases[i].ok ? "ok" : "an error");
        if (cases[i].ok)
            CHECK(v == cases[i].want, "parse_size(\"%s\") = %" PRIu64 ", want %" PRIu64,
                  cases[i].in, v, cases[i].want);
    }
}

static void test_format_size(void **state)
{
    static const struct {
        uint64_t in;
        const char *want;
    } cases[] = {
        { 0, "0" },
        { 512, "512" },
        { 1000, "1000" },
        { 1536, "1536" },
        { 4096, "4K" },
        { 8192, "8K" },
        { 1048576, "1M" },
        { 3 << 20, "3M" },
        { UINT64_C(1) << 30, "1G" },
        { UINT64_C(1) << 50, "1P" },
        { (UINT64_C(1) << 30) + 4096, "1048580K" },
    };
    char buf[32], flags[96];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        iobench_format_size(cases[i].in, buf, sizeof(buf));
        CHECK(strcmp(buf, cases[i].want) == 0, "format_size(%" PRIu64 ") = \"%s\", want \"%s\"",
              cases[i].in, buf, cases[i].want);
    }
    iobench_format_flags(IOB_F_DIRECT | IOB_F_SYNC, flags, sizeof(flags));
    CHECK(strcmp(flags, "O_DIRECT|O_SYNC") == 0, "flags \"%s\"", flags);
    iobench_format_flags(0, flags, sizeof(flags));
    CHECK(strcmp(flags, "none") == 0, "flags \"%s\"", flags);
}

static void test_parse_defaults(void **state)
{
    struct iobench_opts o;
    struct err e;

    (void)state;
    /* Library callers that build options by hand get the defaults from init. */
    iobench_opts_init(&o);
    CHECK(o.ntypes == 2 && o.types[0] == IOB_SW && o.types[1] == IOB_RW && o.nthreads == 1 &&
              o.flags == IOB_F_SYNC,
          "iobench_opts_init: %d types, -T %d, flags 0x%x", o.ntypes, o.nthreads, o.flags);
    CHECK(test_parse(&o, "", &e) == 0, "no options: %s", e.msg);
    CHECK(o.block_bytes == 8192, "default -b %" PRIu64 ", want 8192", o.block_bytes);
    CHECK(o.total_bytes == UINT64_C(1) << 30, "default -s %" PRIu64 ", want 1G", o.total_bytes);
    CHECK(o.flags == IOB_F_SYNC, "default -F 0x%x, want O_SYNC", o.flags);
    CHECK(o.nthreads == 1, "default -T %d", o.nthreads);
    CHECK(o.ntypes == 2 && o.types[0] == IOB_SW && o.types[1] == IOB_RW,
          "default -i: %d types, first %d", o.ntypes, o.types[0]);
    CHECK(!o.target && !o.force && !o.keep && !o.destroy_data && !o.json && !o.seed_given &&
              !o.out_path,
          "default flags set");
}

static void test_parse_values(void **state)
{
    struct iobench_opts o;
    struct err e;

    (void)state;
    CHECK(test_parse(&o,
                     "-b 4K -s 4M -F O_DIRECT -F o_dsync -t /x/y -f -k -T 3 -S 42 -o r.txt "
                     "--json --destroy-data",
                     &e) == 0,
          "all options: %s", e.msg);
    CHECK(o.block_bytes == 4096 && o.total_bytes == 4 << 20, "sizes %" PRIu64 " %" PRIu64,
          o.block_bytes, o.total_bytes);
    CHECK(o.flags == (IOB_F_DIRECT | IOB_F_DSYNC), "-F replaces the default: 0x%x", o.flags);
    CHECK(strcmp(o.target, "/x/y") == 0 && o.force && o.keep && o.nthreads == 3 && o.seed == 42 &&
              o.seed_given && strcmp(o.out_path, "r.txt") == 0 && o.json && o.destroy_data,
          "values not all taken");
    /* Attached values, bundled flags, comma lists. */
    CHECK(test_parse(&o, "-b512 -s1M -FO_DIRECT,SYNC|O_TRUNC -fk -iRR,SW", &e) == 0, "%s", e.msg);
    CHECK(o.block_bytes == 512 && o.total_bytes == 1 << 20, "attached sizes");
    CHECK(o.flags == (IOB_F_DIRECT | IOB_F_SYNC | IOB_F_TRUNC), "flag list 0x%x", o.flags);
    CHECK(o.force && o.keep, "bundled -fk");
    CHECK(o.ntypes == 2 && o.types[0] == IOB_RR && o.types[1] == IOB_SW, "types in given order");
    /* A cluster may end in an option with a value, attached or not. */
    CHECK(test_parse(&o, "-fkb4K -fT 2 -s 1M", &e) == 0, "%s", e.msg);
    CHECK(o.force && o.keep && o.block_bytes == 4096 && o.nthreads == 2, "-fkb4K -fT 2");
    /* Groups expand in tbiobench's order, repeats are dropped. */
    CHECK(test_parse(&o, "-i ALL", &e) == 0, "%s", e.msg);
    CHECK(o.ntypes == 4 && o.types[0] == IOB_SW && o.types[1] == IOB_SR && o.types[2] == IOB_RW &&
              o.types[3] == IOB_RR,
          "ALL = SW SR RW RR");
    CHECK(test_parse(&o, "-i SEQ", &e) == 0 && o.ntypes == 2 && o.types[0] == IOB_SW &&
              o.types[1] == IOB_SR,
          "SEQ = SW SR");
    CHECK(test_parse(&o, "-i rnd -i SW -i RW", &e) == 0 && o.ntypes == 3 && o.types[0] == IOB_RW &&
              o.types[1] == IOB_RR && o.types[2] == IOB_SW,
          "RND then SW, RW not repeated");
    CHECK(test_parse(&o, "-h -b 0", &e) == 0 && o.help, "-h stops parsing");
    CHECK(test_parse(&o, "--help", &e) == 0 && o.help, "--help");
    CHECK(test_parse(&o, "-S 18446744073709551615", &e) == 0 && o.seed == UINT64_MAX,
          "largest seed");
    CHECK(test_parse(&o, "-T 256 -s 1M -b 4K", &e) == 0 && o.nthreads == 256, "256 threads");
}

static void test_parse_errors(void **state)
{
    static const struct {
        const char *args;
        const char *msg;
    } cases[] = {
        { "-b 0",
          "'-b' must be a block size from 1 byte to 64M, like 512, 4K, 8K or 1M (got \"0\")" },
        { "-b abc",
          "'-b' must be a block size from 1 byte to 64M, like 512, 4K, 8K or 1M (got \"abc\")" },
        { "-b 65M",
          "'-b' must be a block size from 1 byte to 64M, like 512, 4K, 8K or 1M (got \"65M\")" },
        { "-s 0", "'-s' must be a total size from 1 byte to 1P, like 256M or 1G (got \"0\")" },
        { "-s 2P", "'-s' must be a total size from 1 byte to 1P, like 256M or 1G (got \"2P\")" },
        { "-s 1.5G",
          "'-s' must be a total size from 1 byte to 1P, like 256M or 1G (got \"1.5G\")" },
        { "-s 1000 -b 512",
          "'-s' 1000 (1000 bytes) must be a multiple of the block size '-b' 512 (512 bytes)" },
        { "-s 4K -b 4K -T 2",
          "'-s' 4K gives fewer blocks than threads: '-T' 2 with '-b' 4K needs '-s' 8K or more" },
        { "-b 64M -T 32",
          "'-T' 32 threads with '-b' 64M need 2048M of buffers, more than the 1G allowed: use fewer threads or smaller blocks" },
        { "-F O_FOO",
          "'-F' must be one of O_DIRECT, O_SYNC, O_DSYNC, O_TRUNC, O_NONBLOCK (got \"O_FOO\")" },
        { "-F O_SYNC,",
          "'-F' must be one of O_DIRECT, O_SYNC, O_DSYNC, O_TRUNC, O_NONBLOCK (got \"\")" },
        { "-i XX",
          "'-i' must be SW, SR, RR, RW, SEQ, RND or ALL, or a comma list of them (got \"XX\")" },
        { "-i SW,,SR",
          "'-i' must be SW, SR, RR, RW, SEQ, RND or ALL, or a comma list of them (got \"\")" },
        { "-T 0", "'-T' must be a number of threads from 1 to 256 (got \"0\")" },
        { "-T 257", "'-T' must be a number of threads from 1 to 256 (got \"257\")" },
        { "-T -1", "'-T' must be a number of threads from 1 to 256 (got \"-1\")" },
        { "-T 2x", "'-T' must be a number of threads from 1 to 256 (got \"2x\")" },
        { "-S -1", "'-S' must be a random seed from 0 to 18446744073709551615 (got \"-1\")" },
        { "-S 18446744073709551616",
          "'-S' must be a random seed from 0 to 18446744073709551615 (got \"18446744073709551616\")" },
        { "-x", "unknown option '-x' (see 'tpccbench iobench --help')" },
        { "-fz", "unknown option '-z' (see 'tpccbench iobench --help')" },
        { "-fb", "option '-b' needs a value (see 'tpccbench iobench --help')" },
        { "-fkx", "unknown option '-x' (see 'tpccbench iobench --help')" },
        { "--json=yes", "option '--json' takes no value" },
        { "--js", "unknown option '--js' (options are not abbreviated: did you mean '--json'?)" },
        { "-- -b 4K",
          "unexpected argument '-b': iobench takes options only (see 'tpccbench iobench --help')" },
        { "--bogus", "unknown option '--bogus' (see 'tpccbench iobench --help')" },
        { "extra",
          "unexpected argument 'extra': iobench takes options only (see 'tpccbench iobench --help')" },
        { "-b", "option '-b' needs a value (see 'tpccbench iobench --help')" },
        { "-o dir/", "'-o' needs a file name (got \"dir/\")" },
    };
    struct iobench_opts o;
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = test_parse(&o, cases[i].args, &e);
        CHECK(rc == E_USAGE, "'%s': rc %d, want E_USAGE", cases[i].args, rc);
        CHECK(strcmp(e.msg, cases[i].msg) == 0, "'%s':\n  got:  %s\n  want: %s", cases[i].args,
              e.msg, cases[i].msg);
    }
}

static void test_share(void **state)
{
    static const uint64_t nblocks[] = { 1, 2, 3, 7, 1024, 1025, 8191, 32768 };
    static const int threads[] = { 1, 2, 3, 4, 7, 256 };

    (void)state;
    for (size_t i = 0; i < sizeof(nblocks) / sizeof(nblocks[0]); i++)
        for (size_t j = 0; j < sizeof(threads) / sizeof(threads[0]); j++) {
            uint64_t next = 0, lo = UINT64_MAX, hi = 0;
            int n = threads[j];
            if ((uint64_t)n > nblocks[i])
                continue;
            for (int k = 0; k < n; k++) {
                uint64_t first, count;
                iobench_share(nblocks[i], n, k, &first, &count);
                CHECK(first == next,
                      "%" PRIu64 " blocks, %d threads: thread %d starts at %" PRIu64
                      ", want %" PRIu64,
                      nblocks[i], n, k, first, next);
                next = first + count;
                lo = count < lo ? count : lo;
                hi = count > hi ? count : hi;
            }
            CHECK(next == nblocks[i], "%" PRIu64 " blocks, %d threads: shares end at %" PRIu64,
                  nblocks[i], n, next);
            CHECK(hi - lo <= 1, "%" PRIu64 " blocks, %d threads: shares %" PRIu64 "..%" PRIu64,
                  nblocks[i], n, lo, hi);
        }
}

static void test_offsets_sequential(void **state)
{
    const uint64_t nblocks = 1001, block = 8192;
    uint64_t want = 0;

    (void)state;
    /* Threads in turn visit their shares in order: together, the whole file in order. */
    for (int k = 0; k < 3; k++) {
        struct iobench_offgen g;
        uint64_t first, count;
        iobench_offgen_init(&g, IOB_SR, 99, nblocks, block, 3, k);
        iobench_share(nblocks, 3, k, &first, &count);
        for (uint64_t i = 0; i < count; i++, want += block) {
            uint64_t off = iobench_offgen_next(&g);
            CHECK(off == want, "thread %d I/O %" PRIu64 ": offset %" PRIu64 ", want %" PRIu64, k, i,
                  off, want);
        }
    }
    CHECK(want == nblocks * block, "covered %" PRIu64 " bytes", want);
}

static void test_offsets_random_repeatable(void **state)
{
    enum { N = 4096 };
    const uint64_t nblocks = 32768, block = 8192;
    static uint64_t a[N], b[N];
    struct iobench_offgen g1, g2;
    int same_seed_diff = 0, other_seed_same = 0, other_thread_same = 0, other_type_same = 0;

    (void)state;
    iobench_offgen_init(&g1, IOB_RR, 42, nblocks, block, 4, 1);
    iobench_offgen_init(&g2, IOB_RR, 42, nblocks, block, 4, 1);
    for (int i = 0; i < N; i++) {
        a[i] = iobench_offgen_next(&g1);
        b[i] = iobench_offgen_next(&g2);
        same_seed_diff += a[i] != b[i];
        CHECK(a[i] % block == 0 && a[i] < nblocks * block,
              "offset %" PRIu64 " not block-aligned inside the file", a[i]);
    }
    CHECK(same_seed_diff == 0, "same seed: %d of %d offsets differ", same_seed_diff, N);

    iobench_offgen_init(&g2, IOB_RR, 43, nblocks, block, 4, 1);
    for (int i = 0; i < N; i++)
        other_seed_same += iobench_offgen_next(&g2) == a[i];
    iobench_offgen_init(&g2, IOB_RR, 42, nblocks, block, 4, 2);
    for (int i = 0; i < N; i++)
        other_thread_same += iobench_offgen_next(&g2) == a[i];
    iobench_offgen_init(&g2, IOB_RW, 42, nblocks, block, 4, 1);
    for (int i = 0; i < N; i++)
        other_type_same += iobench_offgen_next(&g2) == a[i];
    /* By chance about N / nblocks = 0.125 coincide; 10 is far beyond that. */
    CHECK(other_seed_same < 10, "seed 43 repeats %d offsets of seed 42", other_seed_same);
    CHECK(other_thread_same < 10, "thread 2 repeats %d offsets of thread 1", other_thread_same);
    CHECK(other_type_same < 10, "RW repeats %d offsets of RR", other_type_same);
}

static void test_offsets_random_uniform(void **state)
{
    enum { BUCKETS = 64, DRAWS = 640000 };
    const uint64_t nblocks = 1000003, block = 512; /* not a power of two: no lucky masks */
    static int64_t counts[BUCKETS];
    struct iobench_offgen g;
    double chi2 = 0, want = (double)DRAWS / BUCKETS, k = BUCKETS - 1, t, bound;

    (void)state;
    memset(counts, 0, sizeof(counts));
    iobench_offgen_init(&g, IOB_RW, 7, nblocks, block, 1, 0);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t blk = iobench_offgen_next(&g) / block;
        CHECK(blk < nblocks, "block %" PRIu64 " past the end", blk);
        counts[blk * BUCKETS / nblocks]++;
    }
    for (int i = 0; i < BUCKETS; i++)
        chi2 += ((double)counts[i] - want) * ((double)counts[i] - want) / want;
    /* 5-sigma point of chi-square with k dof (Wilson-Hilferty). */
    t = 1.0 - 2.0 / (9.0 * k) + 5.0 * sqrt(2.0 / (9.0 * k));
    bound = k * t * t * t;
    CHECK(chi2 < bound, "chi-square %.1f over %d buckets, bound %.1f", chi2, BUCKETS, bound);
}

/* A zeroed image of IOB_SIG_BYTES with magic at off. */
static const char *test_sig_at(size_t off, const char *magic, size_t n)
{
    static unsigned char img[IOB_SIG_BYTES];

    memset(img, 0, sizeof(img));
    memcpy(img + off, magic, n);
    return iobench_signature(img, sizeof(img));
}

static void test_signatures(void **state)
{
    static const struct {
        size_t off;
        const char *magic;
        size_t n;
        const char *want;
    } cases[] = {
        { 1080, "\x53\xef", 2, "an ext2/ext3/ext4 filesystem" },
        { 0, "XFSB", 4, "an XFS filesystem" },
        { 65600, "_BHRfS_M", 8, "a btrfs filesystem" },
        { 4086, "SWAPSPACE2", 10, "a swap area" },
        { 65526, "SWAPSPACE2", 10, "a swap area" },
        { 4086, "SWAP-SPACE", 10, "a swap area" },
        { 512, "LABELONE", 8, "an LVM physical volume" },
        { 1536, "LABELONE", 8, "an LVM physical volume" },
        { 0, "LUKS\xba\xbe", 6, "a LUKS encrypted volume" },
        { 32, "ORCLDISK", 8, "an Oracle ASM disk" },
        { 4096, "\xfc\x4e\x2b\xa9", 4, "a Linux RAID (md) member" },
        { 512, "EFI PART", 8, "a GPT partition table" },
        { 510, "\x55\xaa", 2, "a DOS partition table or boot sector (FAT, NTFS, MBR)" },
    };
    static unsigned char zeros[IOB_SIG_BYTES];

    (void)state;
    CHECK(iobench_signature(zeros, sizeof(zeros)) == NULL, "zeros have no signature");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = test_sig_at(cases[i].off, cases[i].magic, cases[i].n);
        CHECK(got && strcmp(got, cases[i].want) == 0, "magic at %zu: got %s, want %s", cases[i].off,
              got ? got : "(none)", cases[i].want);
    }
    /* A short buffer: magic beyond its end is not read. */
    memset(zeros, 0, sizeof(zeros));
    memcpy(zeros + 65600, "_BHRfS_M", 8);
    CHECK(iobench_signature(zeros, 65600) == NULL, "magic past len was looked at");
    CHECK(iobench_signature(zeros, 65608) != NULL, "magic ending at len was missed");
    memset(zeros, 0, sizeof(zeros));
}

/* The detector on bytes read back from a file with an ext4 superblock magic. */
static void test_signature_file(void **state)
{
    char path[] = "/tmp/test_iobench_sig.XXXXXX";
    static unsigned char buf[IOB_SIG_BYTES];
    unsigned char magic[2] = { 0x53, 0xEF }; /* 0xEF53, little-endian, at 1024 + 56 */
    const char *got;
    ssize_t n;
    int fd = mkstemp(path);

    (void)state;
    CHECK(fd >= 0, "mkstemp failed");
    CHECK(ftruncate(fd, 4 << 20) == 0, "ftruncate failed");
    CHECK(pwrite(fd, magic, 2, 1080) == 2, "pwrite failed");
    n = pread(fd, buf, sizeof(buf), 0);
    close(fd);
    unlink(path);
    CHECK(n == (ssize_t)sizeof(buf), "read %zd bytes", n);
    got = iobench_signature(buf, (size_t)n);
    CHECK(got && strcmp(got, "an ext2/ext3/ext4 filesystem") == 0, "got %s", got ? got : "(none)");
}

static void test_mount_lookup(void **state)
{
    char path[] = "/tmp/test_iobench_mi.XXXXXX";
    char where[256];
    struct err e;
    dev_t devs[2];
    FILE *f = NULL;
    int fd = mkstemp(path), rc;

    (void)state;
    CHECK(fd >= 0 && (f = fdopen(fd, "w")), "mkstemp failed");
    fputs("22 27 0:21 / /proc rw,relatime - proc proc rw\n"
          "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
          "40 27 8:17 / /mnt/my\\040disk rw,noatime shared:5 - xfs /dev/nonexistent-sdb1 rw\n"
          "41 27 0:55 / /srv rw master:1 - btrfs /dev/nonexistent-sdc rw\n",
          f);
    fclose(f);
    devs[0] = makedev(8, 16);
    devs[1] = makedev(8, 17); /* a partition of 8:16 */
    rc = iobench_mount_lookup(path, devs, 2, where, sizeof(where), &e);
    CHECK(rc == 1, "8:17 is mounted: rc %d", rc);
    CHECK(strcmp(where, "/mnt/my disk") == 0, "mount point \"%s\", want \"/mnt/my disk\"", where);
    rc = iobench_mount_lookup(path, devs, 1, where, sizeof(where), &e);
    CHECK(rc == 0, "8:16 alone is not mounted: rc %d", rc);
    devs[0] = makedev(254, 0);
    rc = iobench_mount_lookup(path, devs, 1, NULL, 0, &e);
    CHECK(rc == 1, "254:0 is mounted on /: rc %d", rc);
    unlink(path);
    rc = iobench_mount_lookup(path, devs, 1, NULL, 0, &e);
    CHECK(rc == E_FAIL && strstr(e.msg, "cannot read"), "missing file: rc %d, %s", rc, e.msg);
}

/* Count the entries of dir other than . and .. */
static int test_count_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    if (!d)
        return -1;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void test_run_small(void **state)
{
    char dir[] = "/tmp/test_iobench_run.XXXXXX";
    struct iobench_opts o;
    struct iobench_result r;
    struct err e;
    int rc;

    (void)state;
    CHECK(mkdtemp(dir), "mkdtemp failed");
    iobench_opts_init(&o);
    o.block_bytes = 4096;
    o.total_bytes = 1 << 20;
    o.flags = 0;
    o.nthreads = 3;
    o.target = dir;
    o.seed = 5;
    o.seed_given = 1;
    o.types[0] = IOB_SR; /* alone first: the file must be filled */
    o.types[1] = IOB_RW;
    o.types[2] = IOB_RR;
    o.types[3] = IOB_SW;
    o.ntypes = 4;
    rc = iobench_run(&o, &r, &e);
    CHECK(rc == 0, "run failed: %s", e.msg);
    CHECK(r.ntests == 4 && r.created && r.removed && r.seed == 5, "ntests %d created %d removed %d",
          r.ntests, r.created, r.removed);
    for (int i = 0; i < r.ntests; i++) {
        const struct iobench_test *t = &r.tests[i];
        uint64_t sum = 0, ios = 0;
        CHECK(t->type == o.types[i], "test %d is type %d", i, t->type);
        CHECK(t->bytes == o.total_bytes && t->n_ios == 256,
              "%s: %" PRIu64 " bytes, %" PRIu64 " I/Os", iobench_type_code(t->type), t->bytes,
              t->n_ios);
        for (int k = 0; k < t->nthreads; k++) {
            sum += t->threads[k].bytes;
            ios += t->threads[k].n_ios;
            CHECK(t->threads[k].n_ios == 85 || t->threads[k].n_ios == 86,
                  "thread %d did %" PRIu64 " I/Os", k, t->threads[k].n_ios);
        }
        CHECK(sum == t->bytes && ios == t->n_ios, "threads sum to %" PRIu64, sum);
        CHECK(t->lat->n_samples == t->n_ios, "%" PRIu64 " latencies for %" PRIu64 " I/Os",
              t->lat->n_samples, t->n_ios);
    }
    {
        json_t *j = iobench_json(&o, &r);
        json_t *tests = json_object_get(j, "tests");
        CHECK(j && json_array_size(tests) == 4, "json tests");
        CHECK(json_integer_value(json_object_get(json_array_get(tests, 0), "bytes")) == 1 << 20,
              "json bytes");
        CHECK(strcmp(json_string_value(json_object_get(j, "status")), "complete") == 0, "status");
        json_decref(j);
    }
    iobench_result_release(&r);
    CHECK(test_count_files(dir) == 0, "the created file was not removed");
    rmdir(dir);
}

/* Keep the file and look at what was written: no zero byte outside the
 * stamps, every sector's stamp unique, no filesystem signature. */
static void test_run_data(void **state)
{
    char dir[] = "/tmp/test_iobench_data.XXXXXX", path[PATH_MAX];
    static unsigned char buf[1 << 20];
    struct iobench_opts o;
    struct iobench_result r;
    struct err e;
    struct stat st;
    FILE *f;
    size_t n;
    int zeros = 0, stamps_bad = 0;

    (void)state;
    CHECK(mkdtemp(dir), "mkdtemp failed");
    snprintf(path, sizeof(path), "%s/data", dir);
    iobench_opts_init(&o);
    o.block_bytes = 8192;
    o.total_bytes = sizeof(buf);
    o.flags = 0;
    o.target = path;
    o.keep = 1;
    o.types[0] = IOB_SW;
    o.ntypes = 1;
    CHECK(iobench_run(&o, &r, &e) == 0, "run failed: %s", e.msg);
    iobench_result_release(&r);
    CHECK(stat(path, &st) == 0 && st.st_size == (off_t)sizeof(buf), "kept file has %lld bytes",
          (long long)st.st_size);
    f = fopen(path, "rb");
    CHECK(f, "cannot open the kept file");
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    CHECK(n == sizeof(buf), "read %zu bytes", n);
    for (size_t s = 0; s < n; s += 512) {
        uint64_t where;
        memcpy(&where, buf + s, 8);
        stamps_bad += where != s;
        for (size_t i = s + 16; i < s + 512; i++)
            zeros += buf[i] == 0;
    }
    CHECK(stamps_bad == 0, "%d sectors without their offset stamp", stamps_bad);
    CHECK(zeros == 0, "%d zero bytes in the data", zeros);
    CHECK(iobench_signature(buf, IOB_SIG_BYTES) == NULL, "our data looks like %s",
          iobench_signature(buf, IOB_SIG_BYTES));
    unlink(path);
    rmdir(dir);
}

/* An existing file is not written without -f; read tests of a full one are fine. */
static void test_run_refuses_existing(void **state)
{
    char path[] = "/tmp/test_iobench_exist.XXXXXX";
    struct iobench_opts o;
    struct iobench_result r;
    struct err e;
    int fd = mkstemp(path), rc;

    (void)state;
    CHECK(fd >= 0 && ftruncate(fd, 64 << 10) == 0, "mkstemp failed");
    close(fd);
    iobench_opts_init(&o);
    o.block_bytes = 4096;
    o.total_bytes = 64 << 10;
    o.target = path;
    o.types[0] = IOB_RW;
    o.ntypes = 1;
    rc = iobench_run(&o, &r, &e);
    iobench_result_release(&r);
    CHECK(rc == E_USAGE && strstr(e.msg, "give -f"), "rc %d: %s", rc, e.msg);
    o.types[0] = IOB_RR;
    rc = iobench_run(&o, &r, &e);
    iobench_result_release(&r);
    CHECK(rc == 0, "read test of an existing full file: %s", e.msg);
    CHECK(access(path, F_OK) == 0, "an existing file was removed");
    o.total_bytes = 128 << 10;
    rc = iobench_run(&o, &r, &e);
    iobench_result_release(&r);
    CHECK(rc == E_USAGE && strstr(e.msg, "would have to fill it"), "short file: rc %d: %s", rc,
          e.msg);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_format_size),
        cmocka_unit_test(test_parse_defaults),
        cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_share),
        cmocka_unit_test(test_offsets_sequential),
        cmocka_unit_test(test_offsets_random_repeatable),
        cmocka_unit_test(test_offsets_random_uniform),
        cmocka_unit_test(test_signatures),
        cmocka_unit_test(test_signature_file),
        cmocka_unit_test(test_mount_lookup),
        cmocka_unit_test(test_run_small),
        cmocka_unit_test(test_run_data),
        cmocka_unit_test(test_run_refuses_existing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
