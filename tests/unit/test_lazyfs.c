/*
 * test_lazyfs.c - unit tests for the core of the power-loss file system
 * (src/tools/lazyfs.c), without FUSE: the backing files are byte arrays in
 * memory ("disks", one per descriptor) that the ops write, so each test
 * checks exactly which bytes are durable after a write, an fsync, an
 * O_DSYNC write, a truncate, a deletion, a tick of expiry or the background
 * threshold, and the crash, and what a reader sees before it.  Each failure
 * prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tools/lazyfs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define N_DISK 4
#define DISK_BYTES 256
#define DUP_BASE 100 /* a dup of fd k is DUP_BASE + k: applies must use it */

/* The backing files: disk[k] is the file of descriptor k, size[k] its size. */
struct mem {
    unsigned char disk[N_DISK][DISK_BYTES];
    uint64_t size[N_DISK];
    int n_dups;   /* descriptors the core took */
    int n_closes; /* and gave back */
    int fail;     /* apply fails with -EIO while set */
    int n_direct; /* applies through a caller's descriptor (sync writes) */
};

static int mem_apply(void *ctx, int fd, uint64_t off, const unsigned char *data, size_t len)
{
    struct mem *m = ctx;
    if (m->fail)
        return -EIO;
    if (fd < DUP_BASE)
        m->n_direct++;
    int k = fd % DUP_BASE;
    assert_true(k >= 0 && k < N_DISK && off + len <= DISK_BYTES);
    memcpy(m->disk[k] + off, data, len);
    if (off + len > m->size[k])
        m->size[k] = off + len;
    return 0;
}

static int mem_dup(void *ctx, int fd)
{
    struct mem *m = ctx;
    m->n_dups++;
    return DUP_BASE + fd;
}

static void mem_close(void *ctx, int fd)
{
    struct mem *m = ctx;
    assert_true(fd >= DUP_BASE);
    m->n_closes++;
}

static const struct lazyfs_ops mem_ops = {mem_apply, mem_dup, mem_close};

static struct mem g_mem;
static struct lazyfs g_fs;
static struct err g_err;

/* A fresh file system over empty disks with these limits. */
static struct lazyfs *fs_new(uint64_t cap, uint64_t background, int64_t expire_ms)
{
    struct lazyfs_cfg cfg = {.cap_bytes = cap, .background_bytes = background,
                             .expire_ms = expire_ms};
    memset(&g_mem, 0, sizeof(g_mem));
    err_clear(&g_err);
    lazyfs_init(&g_fs, &cfg, &mem_ops, &g_mem);
    return &g_fs;
}

/* Files are inode 10 + k, written through descriptor k. */
static int put(struct lazyfs *fs, int k, uint64_t off, const char *s, int64_t now_ms, int sync)
{
    return lazyfs_write(fs, 10 + (uint64_t)k, k, off, s, strlen(s), now_ms, sync, &g_err);
}

/* What a reader of file k sees: the disk's bytes ('.' for zero) under the
 * pending ones, up to the size the core reports. */
static const char *seen(struct lazyfs *fs, int k)
{
    static char buf[DISK_BYTES + 1];
    uint64_t n = lazyfs_size(fs, 10 + (uint64_t)k, g_mem.size[k]);
    assert_true(n <= DISK_BYTES);
    memcpy(buf, g_mem.disk[k], n);
    lazyfs_overlay(fs, 10 + (uint64_t)k, 0, buf, n);
    for (uint64_t i = 0; i < n; i++)
        buf[i] = buf[i] ? buf[i] : '.';
    buf[n] = 0;
    return buf;
}

/* What is durable in file k (the disk alone), zeros as '.'. */
static const char *durable(int k)
{
    static char buf[DISK_BYTES + 1];
    uint64_t n = g_mem.size[k];
    for (uint64_t i = 0; i < n; i++)
        buf[i] = g_mem.disk[k][i] ? (char)g_mem.disk[k][i] : '.';
    buf[n] = 0;
    return buf;
}

static void test_write_sync_crash(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(1000, 1000, 30000);
    assert_int_equal(put(fs, 0, 0, "hello", 0, 0), 0);
    assert_string_equal(seen(fs, 0), "hello");
    assert_string_equal(durable(0), "");
    assert_int_equal(lazyfs_fsync(fs, 10), 0);
    assert_string_equal(durable(0), "hello");
    assert_int_equal(put(fs, 0, 5, " world", 1, 0), 0);
    assert_int_equal(put(fs, 0, 0, "J", 2, 0), 0);
    assert_string_equal(seen(fs, 0), "Jello world");
    assert_int_equal(put(fs, 1, 0, "other", 3, 0), 0);
    assert_int_equal(fs->st.pending_bytes, 12);
    assert_int_equal(fs->st.n_files, 2);
    assert_int_equal(lazyfs_crash(fs), 12);
    assert_string_equal(durable(0), "hello");
    assert_string_equal(durable(1), "");
    assert_string_equal(seen(fs, 0), "hello");
    assert_int_equal(fs->st.crashed, 1);
    assert_int_equal(fs->st.dropped_bytes, 12);
    assert_int_equal(fs->st.synced_bytes, 5);
    assert_int_equal(g_mem.n_dups, g_mem.n_closes);
    assert_int_equal(g_mem.n_dups, 3);
}

static void test_overlap(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(1000, 1000, 30000);
    assert_int_equal(put(fs, 0, 0, "aaaaaaaaaa", 0, 0), 0);
    assert_int_equal(put(fs, 0, 4, "bb", 0, 0), 0);  /* splits it */
    assert_int_equal(put(fs, 0, 8, "cccc", 0, 0), 0); /* cuts its tail, runs past it */
    assert_int_equal(put(fs, 0, 0, "d", 0, 0), 0);    /* cuts its head */
    assert_string_equal(seen(fs, 0), "daaabbaacccc");
    assert_int_equal(fs->st.pending_bytes, 12);
    assert_int_equal(put(fs, 0, 0, "eeeeeeeeeeee", 0, 0), 0); /* covers all */
    assert_int_equal(fs->st.pending_bytes, 12);
    assert_int_equal(lazyfs_fsync(fs, 10), 0);
    assert_string_equal(durable(0), "eeeeeeeeeeee");
    assert_int_equal(fs->st.pending_bytes, 0);
    assert_int_equal(fs->st.n_files, 0);
    lazyfs_release(fs);
}

static void test_dsync_write(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(1000, 1000, 30000);
    assert_int_equal(put(fs, 0, 0, "aaaa", 0, 0), 0);
    assert_int_equal(put(fs, 0, 1, "ZZ", 1, 1), 0);
    assert_string_equal(durable(0), ".ZZ");
    assert_string_equal(seen(fs, 0), "aZZa");
    assert_int_equal(fs->st.pending_bytes, 2);
    assert_int_equal(g_mem.n_direct, 1);
    /* The older bytes it covered never land over it. */
    assert_int_equal(lazyfs_fsync(fs, 10), 0);
    assert_string_equal(durable(0), "aZZa");

    /* A sync write to a clean file takes no descriptor; a crash keeps it. */
    assert_int_equal(put(fs, 1, 0, "sync", 2, 1), 0);
    assert_int_equal(put(fs, 1, 4, "lost", 3, 0), 0);
    assert_int_equal(lazyfs_crash(fs), 4);
    assert_string_equal(durable(1), "sync");
    assert_int_equal(fs->st.synced_bytes, 8); /* ZZ, the two a, sync */
    assert_int_equal(g_mem.n_dups, g_mem.n_closes);
}

static void test_truncate(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(1000, 1000, 30000);
    assert_int_equal(put(fs, 0, 0, "0123", 0, 0), 0);
    assert_int_equal(lazyfs_fsync(fs, 10), 0);
    assert_int_equal(put(fs, 0, 2, "abcdef", 0, 0), 0);
    assert_int_equal(put(fs, 0, 10, "xy", 0, 0), 0);
    assert_string_equal(seen(fs, 0), "01abcdef..xy");
    /* The caller truncated the backing file to 5 (the disk's size). */
    g_mem.size[0] = 5;
    lazyfs_truncate(fs, 10, 5);
    assert_string_equal(seen(fs, 0), "01abc");
    assert_int_equal(fs->st.pending_bytes, 3);
    assert_int_equal(lazyfs_crash(fs), 3);
    assert_string_equal(durable(0), "0123.");
    /* Truncating a file with nothing pending past the size frees nothing. */
    fs = fs_new(1000, 1000, 30000);
    assert_int_equal(put(fs, 0, 0, "ab", 0, 0), 0);
    lazyfs_truncate(fs, 10, 0);
    assert_int_equal(fs->st.n_files, 0);
    assert_int_equal(g_mem.n_dups, g_mem.n_closes);
}

static void test_rename_unlink(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(1000, 1000, 30000);
    /* A rename keeps the inode: its pending bytes follow it, still pending. */
    assert_int_equal(put(fs, 0, 0, "renamed", 0, 0), 0);
    assert_int_equal(put(fs, 1, 0, "unlinked", 0, 0), 0);
    assert_int_equal(put(fs, 2, 0, "kept", 0, 0), 0);
    assert_int_equal(lazyfs_fsync(fs, 12), 0);
    /* Unlinking the last name of inode 11 drops its bytes. */
    lazyfs_forget(fs, 11);
    assert_int_equal(fs->st.dropped_bytes, 8);
    assert_int_equal(fs->st.pending_bytes, 7);
    assert_string_equal(seen(fs, 0), "renamed");
    assert_int_equal(lazyfs_crash(fs), 7);
    assert_string_equal(durable(0), "");
    assert_string_equal(durable(1), "");
    assert_string_equal(durable(2), "kept");
}

static void test_cap(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(10, 100, 30000);
    assert_int_equal(put(fs, 0, 0, "123456", 0, 0), 0);
    assert_int_equal(put(fs, 1, 0, "abcde", 0, 0), -ENOSPC);
    assert_non_null(strstr(g_err.msg, "a write of 5 bytes would hold 11 unsynced bytes, over the "
                                      "cap of 10: raise --cap-bytes"));
    assert_int_equal(fs->st.n_refused, 1);
    assert_int_equal(fs->st.n_files, 1);
    /* A rewrite of pending bytes adds nothing: under the cap. */
    assert_int_equal(put(fs, 0, 2, "XXXXXXXX", 0, 0), 0);
    assert_int_equal(fs->st.pending_bytes, 10);
    assert_int_equal(put(fs, 0, 10, "!", 0, 0), -ENOSPC);
    /* A sync write is never held, so never refused. */
    assert_int_equal(put(fs, 1, 0, "abcde", 0, 1), 0);
    assert_int_equal(lazyfs_fsync(fs, 10), 0);
    assert_int_equal(put(fs, 0, 10, "!", 0, 0), 0);
    assert_int_equal(fs->st.n_refused, 2);
    lazyfs_release(fs);
    assert_int_equal(g_mem.n_dups, g_mem.n_closes);
}

static void test_expiry(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(1000, 1000, 30000);
    assert_int_equal(put(fs, 0, 0, "old", 0, 0), 0);
    assert_int_equal(put(fs, 1, 0, "young", 1000, 0), 0);
    /* A rewrite keeps the time the file went dirty, as the kernel does. */
    assert_int_equal(put(fs, 0, 3, "er", 20000, 0), 0);
    assert_int_equal(lazyfs_tick(fs, 29999), 0);
    assert_string_equal(durable(0), "");
    assert_int_equal(lazyfs_tick(fs, 30000), 5);
    assert_string_equal(durable(0), "older");
    assert_int_equal(fs->st.written_back_bytes, 5);
    /* Dirty again: its clock starts again. */
    assert_int_equal(put(fs, 0, 0, "n", 30500, 0), 0);
    assert_int_equal(lazyfs_tick(fs, 31000), 5);
    assert_string_equal(durable(1), "young");
    assert_int_equal(lazyfs_crash(fs), 1);
    assert_string_equal(durable(0), "older");
}

static void test_background(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(1000, 10, 30000);
    assert_int_equal(put(fs, 0, 0, "aaaaaa", 5, 0), 0);
    assert_int_equal(put(fs, 1, 0, "bbbbbb", 1, 0), 0);
    /* 12 > 10: the file dirty the longest (1, from t=1) goes back. */
    assert_string_equal(durable(1), "bbbbbb");
    assert_string_equal(durable(0), "");
    assert_int_equal(fs->st.pending_bytes, 6);
    assert_int_equal(fs->st.written_back_bytes, 6);
    assert_int_equal(lazyfs_crash(fs), 6);
}

static void test_apply_fails(void **state)
{
    (void)state;
    struct lazyfs *fs = fs_new(1000, 1000, 30000);
    assert_int_equal(put(fs, 0, 0, "keep", 0, 0), 0);
    g_mem.fail = 1;
    assert_int_equal(lazyfs_fsync(fs, 10), -EIO);
    assert_int_equal(lazyfs_sync_all(fs), -EIO);
    assert_int_equal(put(fs, 1, 0, "sync", 0, 1), -EIO);
    assert_int_equal(fs->st.pending_bytes, 4);
    g_mem.fail = 0;
    assert_int_equal(lazyfs_sync_all(fs), 0);
    assert_string_equal(durable(0), "keep");
    assert_int_equal(fs->st.pending_bytes, 0);
    assert_int_equal(g_mem.n_dups, g_mem.n_closes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_sync_crash), cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_dsync_write),      cmocka_unit_test(test_truncate),
        cmocka_unit_test(test_rename_unlink),    cmocka_unit_test(test_cap),
        cmocka_unit_test(test_expiry),           cmocka_unit_test(test_background),
        cmocka_unit_test(test_apply_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
