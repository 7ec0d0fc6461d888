/*
 * iobench.c - `tpccbench iobench`: the disk I/O bench with tbiobench's
 * options (-b -s -F -t -f -k -i -T -S -o) and report.
 *
 * Parses the options (iobench_parse_args: tbiobench's letters, through the
 * common getopt parser of core/opt.h, not cmd_parse's config options), runs
 * src/tools/iobench.c, prints the report as text or
 * JSON on stdout and, with -o, writes the same report to a file atomically.
 * Exit codes: 0 ok, 1 an I/O error, 2 bad usage or a target it refuses,
 * 130/143 interrupted (the file it created is removed all the same).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/signals.h"
#include "results/record.h"
#include "tools/iobench.h"

static void iobench_usage(FILE *out)
{
    fputs(
        "usage: tpccbench iobench [-b SIZE] [-s SIZE] [-F FLAG]... [-t TARGET] [-f] [-k]\n"
        "                         [-i TYPE] [-T THREADS] [-S SEED] [-o FILE] [--json]\n"
        "                         [--destroy-data]\n"
        "\n"
        "Disk I/O bench with the options and report of Tibero's tbiobench: sequential and\n"
        "random writes and reads of a file or block device, per thread and in total.\n"
        "\n"
        "options:\n"
        "  -b SIZE         block size of each I/O, 1 byte to 64M: 512, 4K, 8K, 1M ... (default 8K)\n"
        "  -s SIZE         total size, a multiple of -b, at most 1P (default 1G)\n"
        "  -F FLAG         open flag, repeatable or comma-separated: O_DIRECT, O_SYNC, O_DSYNC,\n"
        "                  O_TRUNC, O_NONBLOCK (default O_SYNC; any -F replaces the default)\n"
        "  -t TARGET       file or block device (default: a new iobench-XXXXXX.tmp in the\n"
        "                  current directory; a directory: such a file in it)\n"
        "  -f              force: write a target tpccbench did not create (an existing file or\n"
        "                  a block device); re-create a file that cannot be opened\n"
        "  -k              keep the file this run created (default: remove it at the end)\n"
        "  -i TYPE         SW, SR, RW, RR, SEQ (= SW,SR), RND (= RW,RR) or ALL (= SW,SR,RW,RR);\n"
        "                  repeatable or comma-separated, run in that order (default SW then RW)\n"
        "  -T THREADS      threads, 1 to 256, each with its own descriptor and -b buffer\n"
        "                  (at most 1G of buffers in all; default 1)\n"
        "  -S SEED         random seed, 0 to 18446744073709551615 (default: drawn, printed)\n"
        "  -o FILE         also write the report to FILE (atomically: temp file + rename)\n"
        "      --json      the report as JSON\n"
        "      --destroy-data  with -f: also write a block device that is mounted, in use, or\n"
        "                  carries a filesystem, swap, LVM, RAID, ASM or partition signature\n"
        "  -h, --help      this text\n"
        "\n"
        "how it works:\n"
        "  SW, SR  walk the file in block order; with T threads each walks its own\n"
        "          contiguous share (-s / -b blocks split as evenly as they go).\n"
        "  RW, RR  pick block-aligned offsets uniformly over the whole -s area from a\n"
        "          generator seeded by (-S, type, thread): the same -S gives the same offsets.\n"
        "  Threads split -s: the Total row sums their bytes; its ms is the wall time from the\n"
        "  first thread's start to the last one's end.  Mbytes are 2^20 bytes.\n"
        "  Read tests read data written before: when the file is shorter than -s (a new file,\n"
        "  or -i without a leading SW), it is filled first, untimed; RW too.\n"
        "  Before each test the area's cached pages are flushed and dropped (as fio does);\n"
        "  without O_DIRECT, O_SYNC or O_DSYNC writes may still land in the page cache only.\n"
        "  O_DIRECT: buffers and offsets are aligned to the device's logical block size\n"
        "  (BLKSSZGET for a device; for a file what statx STATX_DIOALIGN reports, else the\n"
        "  disk's logical block size from sysfs, else st_blksize); -b must be a multiple.\n"
        "  O_TRUNC truncates the file once, before the first test.\n"
        "  Data written: random non-zero bytes with the offset stamped in every 512-byte\n"
        "  sector, so no two sectors are alike.\n"
        "  Report: per test the tbiobench table (Thread#, ms, Mbytes, Mbytes/sec, Total),\n"
        "  IOPS, per-I/O latency p50/p99/max, and a warning when a write test runs under\n"
        "  10 Mbytes/sec (a slow disk for redo logs and data files).\n"
        "\n"
        "safety:\n"
        "  An existing file or a block device is written only with -f.  A block device that\n"
        "  is mounted (or a partition of it), active swap, held by LVM/RAID, or that carries a\n"
        "  filesystem or volume signature is refused even with -f unless --destroy-data is\n"
        "  given too: its data would be destroyed.  A file needing more space than is free\n"
        "  is refused before anything is written.  A file this run created is removed at the\n"
        "  end (also on Ctrl-C) unless -k; a target that existed before is never removed.\n"
        "\n"
        "examples:\n"
        "  tpccbench iobench -i ALL -s 256M -F O_DIRECT -F O_SYNC -T 4\n"
        "  tpccbench iobench -t /u01/oradata -b 8K -i RW -F O_DSYNC --json -o io.json\n",
        out);
}

/* Progress on stderr, only when someone watches it. */
static void iobench_progress(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "iobench: %s\n", line);
}

/* Split -o into directory and name for record_write_file and check that the
 * directory takes files before the bench runs. */
static int iobench_out_split(const char *path, char *dir, size_t dlen, const char **name,
                             struct err *e)
{
    const char *slash = strrchr(path, '/');
    char eb[128];

    if (!slash) {
        snprintf(dir, dlen, ".");
        *name = path;
    } else {
        snprintf(dir, dlen, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        *name = slash + 1;
    }
    if (access(dir, W_OK | X_OK) != 0)
        return err_set(e, E_USAGE, "'-o' %s: cannot write in '%s': %s", path, dir,
                       err_errno(errno, eb, sizeof(eb)));
    return 0;
}

/* The report as text or JSON in a heap string (NULL on no memory). */
static char *iobench_report(const struct iobench_opts *o, const struct iobench_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    if (o->json) {
        json_t *doc = iobench_json(o, r);
        char *s =
            doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))
                : NULL;
        size_t n = s ? strlen(s) : 0;
        json_decref(doc);
        /* A final newline, like every text file. */
        if (s && (text = malloc(n + 2))) {
            memcpy(text, s, n);
            text[n] = '\n';
            text[n + 1] = '\0';
        }
        free(s);
        return text;
    }
    if (!(f = open_memstream(&text, &len)))
        return NULL;
    iobench_print(f, o, r);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int cmd_iobench(int argc, char **argv)
{
    struct iobench_opts o;
    struct iobench_result r;
    struct err e, we;
    char out_dir[PATH_MAX];
    const char *out_name = NULL;
    char *report;
    int rc;

    err_clear(&e);
    iobench_opts_init(&o);
    if (iobench_parse_args(&o, argc - 1, argv + 1, &e) < 0)
        return cmd_fail("iobench", &e);
    if (o.help) {
        iobench_usage(stdout);
        return 0;
    }
    if (o.out_path && iobench_out_split(o.out_path, out_dir, sizeof(out_dir), &out_name, &e) < 0)
        return cmd_fail("iobench", &e);
    if (isatty(STDERR_FILENO))
        o.progress = iobench_progress;
    sig_install();

    rc = iobench_run(&o, &r, &e);
    if (rc < 0 && rc != E_INTR) {
        iobench_result_release(&r);
        return cmd_fail("iobench", &e);
    }
    /* Interrupted: what completed is still worth printing (not saved with -o). */
    report = iobench_report(&o, &r);
    iobench_result_release(&r);
    if (!report) {
        err_set(&we, E_FAIL, "out of memory formatting the report");
        return cmd_fail("iobench", &we);
    }
    fputs(report, stdout);
    fflush(stdout);
    if (rc == 0 && o.out_path &&
        record_write_file(out_dir, out_name, report, strlen(report), &we) < 0) {
        free(report);
        return cmd_fail("iobench", &we);
    }
    free(report);
    if (rc == E_INTR) {
        err_set(&e, E_INTR, "interrupted%s", r.removed ? ": the file it created was removed" : "");
        return cmd_fail("iobench", &e);
    }
    return 0;
}
