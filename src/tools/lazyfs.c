/*
 * lazyfs.c - the pure core of tpccbench-lazyfs (see lazyfs.h): pending
 * extents per backing inode, the cap, expiry and background write-back in
 * the kernel's manner, and the crash that drops whatever is pending.
 *
 * The kernel writes back a whole inode once it has been dirty for
 * vm.dirty_expire_centisecs (its dirtied_when is set when it goes from clean
 * to dirty and kept until it is clean), and, past the background threshold,
 * the oldest dirty inodes first; so do we, per file.  Lists are unordered and
 * searched linearly: a test's server has a few hundred dirty files at most,
 * and a page rewritten (the WAL's last page) trims its older copy, so a file
 * holds about as many extents as it has dirty pages.  No I/O, no locks, no
 * printing here: the caller gives ops and holds its lock around each call.
 */
#include "tools/lazyfs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void lazyfs_init(struct lazyfs *fs, const struct lazyfs_cfg *cfg, const struct lazyfs_ops *ops,
                 void *ctx)
{
    memset(fs, 0, sizeof(*fs));
    fs->cfg = *cfg;
    fs->ops = ops;
    fs->ctx = ctx;
}

static struct lazyfs_file *file_find(const struct lazyfs *fs, uint64_t ino)
{
    for (struct lazyfs_file *f = fs->files; f; f = f->next)
        if (f->ino == ino)
            return f;
    return NULL;
}

static void ext_free_all(struct lazyfs_file *f)
{
    struct lazyfs_ext *x = f->ext;
    while (x) {
        struct lazyfs_ext *next = x->next;
        free(x->data);
        free(x);
        x = next;
    }
    f->ext = NULL;
}

/* Unlink f from the dirty list, drop its extents uncounted, close its fd. */
static void file_free(struct lazyfs *fs, struct lazyfs_file *f)
{
    for (struct lazyfs_file **pp = &fs->files; *pp; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    }
    fs->st.pending_bytes -= f->n_bytes;
    fs->st.n_files--;
    ext_free_all(f);
    fs->ops->close(fs->ctx, f->fd);
    free(f);
}

void lazyfs_release(struct lazyfs *fs)
{
    while (fs->files)
        file_free(fs, fs->files);
}

/* Bytes of [off, off+len) that f's extents already hold. */
static uint64_t overlap_bytes(const struct lazyfs_file *f, uint64_t off, uint64_t len)
{
    uint64_t end = off + len, n = 0;
    for (const struct lazyfs_ext *x = f->ext; x; x = x->next) {
        uint64_t a = x->off > off ? x->off : off;
        uint64_t b = x->off + x->len < end ? x->off + x->len : end;
        if (a < b)
            n += b - a;
    }
    return n;
}

/* Cut [off, end) out of extent x, which overlaps it but is not inside it:
 * keep its head, its tail, or both (the tail then becomes an extent of its
 * own).  Returns the bytes cut, or -ENOMEM. */
static int64_t ext_cut(struct lazyfs_ext *x, uint64_t off, uint64_t end)
{
    uint64_t a = x->off, b = x->off + x->len;
    if (a < off && b > end) {
        struct lazyfs_ext *tail = malloc(sizeof(*tail));
        unsigned char *d = malloc(b - end);
        if (!tail || !d) {
            free(tail);
            free(d);
            return -ENOMEM;
        }
        memcpy(d, x->data + (end - a), b - end);
        *tail = (struct lazyfs_ext){.off = end, .len = b - end, .data = d, .next = x->next};
        x->next = tail;
        x->len = off - a;
        return (int64_t)(end - off);
    }
    if (a < off) { /* keep the head */
        x->len = off - a;
        return (int64_t)(b - off);
    }
    /* keep the tail */
    memmove(x->data, x->data + (end - a), b - end);
    x->off = end;
    x->len = b - end;
    return (int64_t)(end - a);
}

/* Remove [off, off+len) from f's extents (len may run to UINT64_MAX).
 * Returns the bytes removed, or -ENOMEM (what was cut before stays cut). */
static int64_t trim_range(struct lazyfs *fs, struct lazyfs_file *f, uint64_t off, uint64_t len)
{
    uint64_t end = len > UINT64_MAX - off ? UINT64_MAX : off + len;
    int64_t n = 0, rc = 0;
    struct lazyfs_ext **pp = &f->ext;
    while (*pp) {
        struct lazyfs_ext *x = *pp;
        uint64_t a = x->off, b = x->off + x->len;
        if (b <= off || a >= end) {
            pp = &x->next;
            continue;
        }
        if (a >= off && b <= end) { /* inside: goes whole */
            *pp = x->next;
            n += (int64_t)x->len;
            free(x->data);
            free(x);
            continue;
        }
        int64_t cut = ext_cut(x, off, end);
        if (cut < 0) {
            rc = cut;
            break;
        }
        n += cut;
        pp = &x->next;
    }
    f->n_bytes -= (uint64_t)n;
    fs->st.pending_bytes -= (uint64_t)n;
    return rc < 0 ? rc : n;
}

/* Apply every extent of f, freeing each once written; f itself is freed
 * when clean.  On a failed apply the rest stays pending.  Returns the bytes
 * applied or -errno. */
static int64_t file_apply(struct lazyfs *fs, struct lazyfs_file *f)
{
    int64_t n = 0;
    while (f->ext) {
        struct lazyfs_ext *x = f->ext;
        int rc = fs->ops->apply(fs->ctx, f->fd, x->off, x->data, x->len);
        if (rc < 0)
            return rc;
        f->ext = x->next;
        f->n_bytes -= x->len;
        fs->st.pending_bytes -= x->len;
        n += (int64_t)x->len;
        free(x->data);
        free(x);
    }
    file_free(fs, f);
    return n;
}

/* Past the background threshold, write back the oldest dirty files until
 * under it (the kernel's flusher, oldest dirtied_when first). */
static int background(struct lazyfs *fs)
{
    while (fs->st.pending_bytes > fs->cfg.background_bytes && fs->files) {
        struct lazyfs_file *old = fs->files;
        for (struct lazyfs_file *f = fs->files; f; f = f->next)
            if (f->dirtied_ms < old->dirtied_ms)
                old = f;
        int64_t n = file_apply(fs, old);
        if (n < 0)
            return (int)n;
        fs->st.written_back_bytes += (uint64_t)n;
    }
    return 0;
}

/* A sync write: applied now; older pending bytes under it are trimmed. */
static int write_sync(struct lazyfs *fs, uint64_t ino, int fd, uint64_t off, const void *data,
                      size_t len)
{
    struct lazyfs_file *f = file_find(fs, ino);
    if (f) {
        int64_t n = trim_range(fs, f, off, len);
        if (n < 0)
            return (int)n;
        if (!f->ext)
            file_free(fs, f);
    }
    int rc = fs->ops->apply(fs->ctx, fd, off, data, len);
    if (rc < 0)
        return rc;
    fs->st.synced_bytes += len;
    return 0;
}

/* A clean file becomes dirty: its record, with a descriptor of its own. */
static int file_new(struct lazyfs *fs, uint64_t ino, int fd, int64_t now_ms,
                    struct lazyfs_file **out)
{
    struct lazyfs_file *f = calloc(1, sizeof(*f));
    if (!f)
        return -ENOMEM;
    f->fd = fs->ops->dup(fs->ctx, fd);
    if (f->fd < 0) {
        int rc = f->fd;
        free(f);
        return rc;
    }
    f->ino = ino;
    f->dirtied_ms = now_ms;
    f->next = fs->files;
    fs->files = f;
    fs->st.n_files++;
    *out = f;
    return 0;
}

int lazyfs_write(struct lazyfs *fs, uint64_t ino, int fd, uint64_t off, const void *data,
                 size_t len, int64_t now_ms, int sync, struct err *e)
{
    if (len == 0)
        return 0;
    if (len > UINT64_MAX - off)
        return -EFBIG;
    if (sync)
        return write_sync(fs, ino, fd, off, data, len);
    struct lazyfs_file *f = file_find(fs, ino);
    uint64_t after = fs->st.pending_bytes + len - (f ? overlap_bytes(f, off, len) : 0);
    if (after > fs->cfg.cap_bytes) {
        fs->st.n_refused++;
        err_set(e, E_FAIL,
                "a write of %zu bytes would hold %" PRIu64 " unsynced bytes, over the cap of %" PRIu64
                ": raise --cap-bytes, or lower --background-bytes so they are written back",
                len, after, fs->cfg.cap_bytes);
        return -ENOSPC;
    }
    struct lazyfs_ext *x = malloc(sizeof(*x));
    unsigned char *d = malloc(len);
    int rc = !x || !d ? -ENOMEM : 0;
    if (rc == 0 && !f)
        rc = file_new(fs, ino, fd, now_ms, &f);
    if (rc == 0) {
        int64_t n = trim_range(fs, f, off, len);
        rc = n < 0 ? (int)n : 0;
    }
    if (rc < 0) {
        free(x);
        free(d);
        return rc;
    }
    memcpy(d, data, len);
    *x = (struct lazyfs_ext){.off = off, .len = len, .data = d, .next = f->ext};
    f->ext = x;
    f->n_bytes += len;
    fs->st.pending_bytes += len;
    return background(fs);
}

void lazyfs_overlay(const struct lazyfs *fs, uint64_t ino, uint64_t off, void *buf, size_t len)
{
    const struct lazyfs_file *f = file_find(fs, ino);
    if (!f)
        return;
    uint64_t end = off + len;
    for (const struct lazyfs_ext *x = f->ext; x; x = x->next) {
        uint64_t a = x->off > off ? x->off : off;
        uint64_t b = x->off + x->len < end ? x->off + x->len : end;
        if (a < b)
            memcpy((unsigned char *)buf + (a - off), x->data + (a - x->off), b - a);
    }
}

uint64_t lazyfs_size(const struct lazyfs *fs, uint64_t ino, uint64_t backing_size)
{
    const struct lazyfs_file *f = file_find(fs, ino);
    uint64_t size = backing_size;
    for (const struct lazyfs_ext *x = f ? f->ext : NULL; x; x = x->next)
        if (x->off + x->len > size)
            size = x->off + x->len;
    return size;
}

int lazyfs_fsync(struct lazyfs *fs, uint64_t ino)
{
    struct lazyfs_file *f = file_find(fs, ino);
    if (!f)
        return 0;
    int64_t n = file_apply(fs, f);
    if (n < 0)
        return (int)n;
    fs->st.synced_bytes += (uint64_t)n;
    return 0;
}

void lazyfs_truncate(struct lazyfs *fs, uint64_t ino, uint64_t size)
{
    struct lazyfs_file *f = file_find(fs, ino);
    if (!f)
        return;
    /* Only whole extents and heads are cut here, which never allocates. */
    (void)trim_range(fs, f, size, UINT64_MAX - size);
    if (!f->ext)
        file_free(fs, f);
}

void lazyfs_forget(struct lazyfs *fs, uint64_t ino)
{
    struct lazyfs_file *f = file_find(fs, ino);
    if (!f)
        return;
    fs->st.dropped_bytes += f->n_bytes;
    file_free(fs, f);
}

int64_t lazyfs_tick(struct lazyfs *fs, int64_t now_ms)
{
    int64_t total = 0;
    struct lazyfs_file *f = fs->files;
    while (f) {
        struct lazyfs_file *next = f->next;
        if (now_ms - f->dirtied_ms >= fs->cfg.expire_ms) {
            int64_t n = file_apply(fs, f);
            if (n < 0)
                return n;
            total += n;
        }
        f = next;
    }
    fs->st.written_back_bytes += (uint64_t)total;
    int rc = background(fs);
    return rc < 0 ? rc : total;
}

int lazyfs_sync_all(struct lazyfs *fs)
{
    while (fs->files) {
        int64_t n = file_apply(fs, fs->files);
        if (n < 0)
            return (int)n;
        fs->st.synced_bytes += (uint64_t)n;
    }
    return 0;
}

uint64_t lazyfs_crash(struct lazyfs *fs)
{
    uint64_t n = fs->st.pending_bytes;
    lazyfs_release(fs);
    fs->st.dropped_bytes += n;
    fs->st.crashed = 1;
    return n;
}
