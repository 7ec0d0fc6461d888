/*
 * lazyfs_fuse.c - tpccbench-lazyfs, the power-loss file system of issue
 * 40: a FUSE file system (libfuse3's high-level API) that passes through
 * to a backing directory but keeps every write not yet made durable in
 * memory (lazyfs.c), and drops those writes at a "crash".
 *
 *   tpccbench-lazyfs BACKING MOUNTPOINT [--cap-bytes N] [--background-bytes N]
 *                    [--expire-ms N] [--foreground]
 *
 * Durable: what fsync/fdatasync (FSYNC) made so, writes through a handle
 * opened with O_SYNC or O_DSYNC (FUSE passes the open flags), and what
 * expiry or the background threshold wrote back as the kernel would.  Not
 * durable: FLUSH (each close) and sync_file_range, for which FUSE has no
 * operation.  Metadata (create, unlink, rename, truncate, mkdir, chmod...)
 * goes to the backing directory at once: the model leaves out metadata
 * ordering, and FSYNCDIR has nothing to do.
 *
 * The control file MOUNTPOINT/.lazyfs-ctl (root only; in no listing): a read
 * gives the counters, a write of "crash" drops every pending write and makes
 * every later operation fail with EIO until the unmount (a dead machine takes
 * no more writes), "sync" writes everything back.  A write returns once it
 * is done, so a script needs no wait.  After the crash, unmount and mount
 * again: the new mount's page cache and attributes come from the backing
 * directory, which holds only durable bytes.
 *
 * This file is its own main: it is linked only into tpccbench-lazyfs, never
 * into tpccbench (the Makefile leaves it out of the library), so libfuse3 is
 * needed only to build this helper.  One mutex guards the core and every
 * backing write or read that the core's state must agree with.
 */
#define FUSE_USE_VERSION 35

#include <fuse.h>

#include "tools/lazyfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define LZF_CTL "/.lazyfs-ctl"

/* An open file: the backing descriptor and what the core needs of it. */
struct lzf_handle {
    int fd;       /* backing descriptor (-1 for the control file) */
    int sync;     /* opened with O_SYNC or O_DSYNC: every write durable at once */
    uint64_t ino; /* the backing inode, the core's key */
};

/* The one mounted file system of this process (FUSE callbacks take no
 * argument of ours but a path). */
static struct {
    int bfd;                /* the backing directory */
    struct lazyfs fs;       /* pending writes */
    pthread_mutex_t mu;     /* guards fs and backing I/O that fs must agree with */
    pthread_t ticker;       /* expiry write-back, every LZF_TICK_MS */
    int ticker_on;          /* ticker was started */
    int stop;               /* ticker: end (under mu) */
    pthread_cond_t wake;    /* ticker's sleep, cut short at the end */
    uint64_t n_refusals_logged; /* cap refusals said on stderr */
} g = {.bfd = -1, .mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

#define LZF_TICK_MS 200

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A path of ours as one relative to the backing directory. */
static const char *rel(const char *path)
{
    return path[1] ? path + 1 : ".";
}

static int crashed(void)
{
    return __atomic_load_n(&g.fs.st.crashed, __ATOMIC_ACQUIRE);
}

static int is_ctl(const char *path)
{
    return strcmp(path, LZF_CTL) == 0;
}

/* --- the core's ops ------------------------------------------------------ */

static int op_apply(void *ctx, int fd, uint64_t off, const unsigned char *data, size_t len)
{
    (void)ctx;
    while (len > 0) {
        ssize_t n = pwrite(fd, data, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        data += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

static int op_dup(void *ctx, int fd)
{
    (void)ctx;
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    return d < 0 ? -errno : d;
}

static void op_close(void *ctx, int fd)
{
    (void)ctx;
    close(fd);
}

static const struct lazyfs_ops lzf_ops = {op_apply, op_dup, op_close};

/* --- attributes and names ------------------------------------------------ */

static int lzf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    if (is_ctl(path)) {
        memset(st, 0, sizeof(*st));
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        return 0;
    }
    /* The root stays reachable after the crash, or the control file would
     * not be once the kernel's cached attributes of "/" expire (1 s; on a
     * loaded machine the counters are read later than that). */
    if (crashed() && strcmp(path, "/") != 0)
        return -EIO;
    struct lzf_handle *h = fi ? (struct lzf_handle *)(uintptr_t)fi->fh : NULL;
    int rc = h && h->fd >= 0 ? fstat(h->fd, st) : fstatat(g.bfd, rel(path), st, AT_SYMLINK_NOFOLLOW);
    if (rc < 0)
        return -errno;
    if (S_ISREG(st->st_mode)) {
        pthread_mutex_lock(&g.mu);
        st->st_size = (off_t)lazyfs_size(&g.fs, st->st_ino, (uint64_t)st->st_size);
        pthread_mutex_unlock(&g.mu);
    }
    return 0;
}

static int lzf_readlink(const char *path, char *buf, size_t size)
{
    if (crashed())
        return -EIO;
    ssize_t n = readlinkat(g.bfd, rel(path), buf, size - 1);
    if (n < 0)
        return -errno;
    buf[n] = 0;
    return 0;
}

/* The caller owns what it made (we run as root; the server does not). */
static int own(const char *path)
{
    struct fuse_context *c = fuse_get_context();
    if (geteuid() != 0)
        return 0;
    return fchownat(g.bfd, rel(path), c->uid, c->gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int lzf_mknod(const char *path, mode_t mode, dev_t dev)
{
    if (crashed())
        return -EIO;
    return mknodat(g.bfd, rel(path), mode, dev) < 0 ? -errno : own(path);
}

static int lzf_mkdir(const char *path, mode_t mode)
{
    if (crashed())
        return -EIO;
    return mkdirat(g.bfd, rel(path), mode) < 0 ? -errno : own(path);
}

static int lzf_symlink(const char *target, const char *path)
{
    if (crashed())
        return -EIO;
    return symlinkat(target, g.bfd, rel(path)) < 0 ? -errno : own(path);
}

/* The inode of path when removing its name leaves it with none (0 if not):
 * its pending bytes then go, as the kernel drops a deleted file's pages. */
static uint64_t last_name(const char *path)
{
    struct stat st;
    if (fstatat(g.bfd, rel(path), &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0;
    return S_ISREG(st.st_mode) && st.st_nlink == 1 ? st.st_ino : 0;
}

static void forget(uint64_t ino)
{
    if (!ino)
        return;
    pthread_mutex_lock(&g.mu);
    lazyfs_forget(&g.fs, ino);
    pthread_mutex_unlock(&g.mu);
}

static int lzf_unlink(const char *path)
{
    if (crashed())
        return -EIO;
    uint64_t ino = last_name(path);
    if (unlinkat(g.bfd, rel(path), 0) < 0)
        return -errno;
    forget(ino);
    return 0;
}

static int lzf_rmdir(const char *path)
{
    if (crashed())
        return -EIO;
    return unlinkat(g.bfd, rel(path), AT_REMOVEDIR) < 0 ? -errno : 0;
}

static int lzf_rename(const char *from, const char *to, unsigned int flags)
{
    if (crashed())
        return -EIO;
    struct stat a;
    uint64_t ino = last_name(to);
    if (fstatat(g.bfd, rel(from), &a, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == ino)
        ino = 0; /* a rename onto itself (a hard link of it) removes nothing */
    if (renameat2(g.bfd, rel(from), g.bfd, rel(to), flags) < 0)
        return -errno;
    if (!(flags & RENAME_EXCHANGE))
        forget(ino);
    return 0;
}

static int lzf_link(const char *from, const char *to)
{
    if (crashed())
        return -EIO;
    return linkat(g.bfd, rel(from), g.bfd, rel(to), 0) < 0 ? -errno : 0;
}

static int lzf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    if (crashed())
        return -EIO;
    return fchmodat(g.bfd, rel(path), mode, 0) < 0 ? -errno : 0;
}

static int lzf_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    (void)fi;
    if (crashed())
        return -EIO;
    return fchownat(g.bfd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int lzf_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    (void)fi;
    if (crashed())
        return -EIO;
    return utimensat(g.bfd, rel(path), tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* Truncate the backing file (durable at once) and the pending bytes past
 * the new size, under the lock so no write-back lands between the two. */
static int truncate_fd(int fd, off_t size)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    pthread_mutex_lock(&g.mu);
    int rc = ftruncate(fd, size) < 0 ? -errno : 0;
    if (rc == 0)
        lazyfs_truncate(&g.fs, st.st_ino, (uint64_t)size);
    pthread_mutex_unlock(&g.mu);
    return rc;
}

static int lzf_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (crashed())
        return -EIO;
    struct lzf_handle *h = fi ? (struct lzf_handle *)(uintptr_t)fi->fh : NULL;
    if (h && h->fd >= 0)
        return truncate_fd(h->fd, size);
    int fd = openat(g.bfd, rel(path), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = truncate_fd(fd, size);
    close(fd);
    return rc;
}

/* --- open files ---------------------------------------------------------- */

/* A handle on a backing descriptor opened with flags, as ours. */
static int handle_new(const char *path, int fd, int flags, struct fuse_file_info *fi)
{
    struct stat st;
    struct lzf_handle *h = malloc(sizeof(*h));
    int rc = !h ? -ENOMEM : fstat(fd, &st) < 0 ? -errno : 0;
    if (rc == 0 && (flags & O_TRUNC) && S_ISREG(st.st_mode))
        rc = truncate_fd(fd, 0);
    if (rc == 0 && (flags & O_CREAT))
        rc = own(path);
    if (rc < 0) {
        free(h);
        close(fd);
        return rc;
    }
    *h = (struct lzf_handle){.fd = fd, .sync = (flags & O_DSYNC) != 0, .ino = st.st_ino};
    fi->fh = (uint64_t)(uintptr_t)h;
    return 0;
}

/* The backing file's flags: we write at the offsets FUSE gives (no
 * O_APPEND), keep durability ourselves (no O_SYNC/O_DSYNC/O_DIRECT) and
 * truncate under our lock (no O_TRUNC). */
static int backing_flags(int flags)
{
    return (flags & ~(O_APPEND | O_SYNC | O_DSYNC | O_DIRECT | O_TRUNC | O_NOCTTY)) | O_CLOEXEC;
}

static int lzf_open(const char *path, struct fuse_file_info *fi)
{
    if (is_ctl(path)) {
        struct lzf_handle *h = calloc(1, sizeof(*h));
        if (!h)
            return -ENOMEM;
        h->fd = -1;
        fi->fh = (uint64_t)(uintptr_t)h;
        fi->direct_io = 1; /* its size is 0: reads must reach us */
        return 0;
    }
    if (crashed())
        return -EIO;
    int fd = openat(g.bfd, rel(path), backing_flags(fi->flags) & ~O_CREAT);
    return fd < 0 ? -errno : handle_new(path, fd, fi->flags & ~O_CREAT, fi);
}

static int lzf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    if (crashed())
        return -EIO;
    int fd = openat(g.bfd, rel(path), backing_flags(fi->flags) | O_CREAT, mode);
    return fd < 0 ? -errno : handle_new(path, fd, fi->flags | O_CREAT, fi);
}

/* The counters, as "name value" lines. */
static int ctl_text(char *buf, size_t len)
{
    pthread_mutex_lock(&g.mu);
    struct lazyfs_stats s = g.fs.st;
    struct lazyfs_cfg c = g.fs.cfg;
    pthread_mutex_unlock(&g.mu);
    return snprintf(buf, len,
                    "pending_bytes %" PRIu64 "\npending_files %" PRIu64 "\nsynced_bytes %" PRIu64
                    "\nwritten_back_bytes %" PRIu64 "\ndropped_bytes %" PRIu64
                    "\nrefused_writes %" PRIu64 "\ncrashed %d\ncap_bytes %" PRIu64
                    "\nbackground_bytes %" PRIu64 "\nexpire_ms %" PRId64 "\n",
                    s.pending_bytes, s.n_files, s.synced_bytes, s.written_back_bytes,
                    s.dropped_bytes, s.n_refused, s.crashed, c.cap_bytes, c.background_bytes,
                    c.expire_ms);
}

static int ctl_read(char *buf, size_t size, off_t off)
{
    char text[1024];
    int n = ctl_text(text, sizeof(text));
    if (n < 0 || off >= n)
        return 0;
    size_t k = (size_t)n - (size_t)off < size ? (size_t)n - (size_t)off : size;
    memcpy(buf, text + off, k);
    return (int)k;
}

/* A command to the control file: "crash" or "sync" (a newline allowed). */
static int ctl_write(const char *buf, size_t size)
{
    size_t n = size > 0 && buf[size - 1] == '\n' ? size - 1 : size;
    int rc = 0;
    pthread_mutex_lock(&g.mu);
    if (n == 5 && memcmp(buf, "crash", 5) == 0) {
        uint64_t lost = lazyfs_crash(&g.fs);
        fprintf(stderr, "tpccbench-lazyfs: crash: %" PRIu64 " unsynced bytes dropped\n", lost);
    } else if (n == 4 && memcmp(buf, "sync", 4) == 0) {
        rc = g.fs.st.crashed ? -EIO : lazyfs_sync_all(&g.fs);
    } else {
        rc = -EINVAL;
    }
    pthread_mutex_unlock(&g.mu);
    return rc < 0 ? rc : (int)size;
}

static int lzf_read(const char *path, char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    struct lzf_handle *h = (struct lzf_handle *)(uintptr_t)fi->fh;
    if (h->fd < 0)
        return ctl_read(buf, size, off);
    if (crashed())
        return -EIO;
    struct stat st;
    size_t got = 0;
    int rc = 0;
    pthread_mutex_lock(&g.mu);
    while (got < size) {
        ssize_t n = pread(h->fd, buf + got, size - got, off + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -errno : 0;
            break;
        }
        got += (size_t)n;
    }
    if (rc == 0 && fstat(h->fd, &st) < 0)
        rc = -errno;
    if (rc == 0) {
        uint64_t end = lazyfs_size(&g.fs, h->ino, (uint64_t)st.st_size);
        uint64_t want = (uint64_t)off >= end ? 0 : end - (uint64_t)off;
        /* Past the backing file's end, up to pending bytes: zeros. */
        memset(buf + got, 0, size - got);
        got = want < size ? (size_t)want : size;
        lazyfs_overlay(&g.fs, h->ino, (uint64_t)off, buf, got);
    }
    pthread_mutex_unlock(&g.mu);
    return rc < 0 ? rc : (int)got;
}

static int lzf_write(const char *path, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    (void)path;
    struct lzf_handle *h = (struct lzf_handle *)(uintptr_t)fi->fh;
    if (h->fd < 0)
        return ctl_write(buf, size);
    if (crashed())
        return -EIO;
    struct err e;
    err_clear(&e);
    pthread_mutex_lock(&g.mu);
    int rc = lazyfs_write(&g.fs, h->ino, h->fd, (uint64_t)off, buf, size, now_ms(), h->sync, &e);
    /* Said on stderr the first time and every 1000th after: refused
     * writes come in floods (a server retries, or stops). */
    if (rc == -ENOSPC && g.n_refusals_logged++ % 1000 == 0)
        fprintf(stderr, "tpccbench-lazyfs: %s\n", e.msg);
    pthread_mutex_unlock(&g.mu);
    return rc < 0 ? rc : (int)size;
}

/* Close: FLUSH makes nothing durable (a close never does). */
static int lzf_flush(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    return 0;
}

static int lzf_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct lzf_handle *h = (struct lzf_handle *)(uintptr_t)fi->fh;
    if (h->fd >= 0)
        close(h->fd);
    free(h);
    return 0;
}

/* fsync and fdatasync alike: every pending byte of the file. */
static int lzf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    struct lzf_handle *h = (struct lzf_handle *)(uintptr_t)fi->fh;
    if (h->fd < 0)
        return 0;
    if (crashed())
        return -EIO;
    pthread_mutex_lock(&g.mu);
    int rc = lazyfs_fsync(&g.fs, h->ino);
    pthread_mutex_unlock(&g.mu);
    return rc;
}

/* Metadata is durable at once: nothing is left for FSYNCDIR. */
static int lzf_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    (void)fi;
    return crashed() ? -EIO : 0;
}

/* Plain allocation only (mode 0): it changes no byte a reader sees. */
static int lzf_fallocate(const char *path, int mode, off_t off, off_t len,
                         struct fuse_file_info *fi)
{
    (void)path;
    struct lzf_handle *h = (struct lzf_handle *)(uintptr_t)fi->fh;
    if (crashed())
        return -EIO;
    if (mode != 0 || h->fd < 0)
        return -EOPNOTSUPP;
    pthread_mutex_lock(&g.mu);
    int rc = fallocate(h->fd, 0, off, len) < 0 ? -errno : 0;
    pthread_mutex_unlock(&g.mu);
    return rc;
}

static int lzf_statfs(const char *path, struct statvfs *sv)
{
    (void)path;
    return fstatvfs(g.bfd, sv) < 0 ? -errno : 0;
}

static int lzf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off;
    (void)fi;
    (void)flags;
    if (crashed())
        return -EIO;
    int fd = openat(g.bfd, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        int rc = -errno;
        if (fd >= 0)
            close(fd);
        return rc;
    }
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st = {.st_ino = de->d_ino, .st_mode = (mode_t)DTTOIF(de->d_type)};
        if (fill(buf, de->d_name, &st, 0, 0))
            break;
    }
    closedir(d);
    return 0;
}

/* --- write-back, mount and options ---------------------------------------- */

/* The kernel's flusher: every LZF_TICK_MS, files dirty for expire_ms go back. */
static void *ticker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g.mu);
    while (!g.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += LZF_TICK_MS * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&g.wake, &g.mu, &ts);
        if (!g.stop && !g.fs.st.crashed) {
            int64_t n = lazyfs_tick(&g.fs, now_ms());
            char eb[128];
            if (n < 0)
                fprintf(stderr, "tpccbench-lazyfs: write-back failed: %s\n",
                        err_errno(-(int)n, eb, sizeof(eb)));
        }
    }
    pthread_mutex_unlock(&g.mu);
    return NULL;
}

/* After the mount (and the daemon's fork): no kernel cache of data across
 * opens, the backing inode numbers, unlink without .fuse_hidden files, and
 * the ticker. */
static void *lzf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
    cfg->kernel_cache = 0;
    cfg->use_ino = 1;
    cfg->hard_remove = 1;
    g.ticker_on = pthread_create(&g.ticker, NULL, ticker, NULL) == 0;
    if (!g.ticker_on)
        fprintf(stderr, "tpccbench-lazyfs: no write-back thread: nothing expires\n");
    return NULL;
}

/* A clean unmount syncs, as umount(8) does; after a crash nothing is left. */
static void lzf_destroy(void *data)
{
    (void)data;
    pthread_mutex_lock(&g.mu);
    g.stop = 1;
    pthread_cond_signal(&g.wake);
    pthread_mutex_unlock(&g.mu);
    if (g.ticker_on)
        pthread_join(g.ticker, NULL);
    if (!g.fs.st.crashed && lazyfs_sync_all(&g.fs) < 0)
        fprintf(stderr, "tpccbench-lazyfs: unmount: pending writes could not be written back\n");
    lazyfs_release(&g.fs);
}

static const struct fuse_operations lzf_fuse_ops = {
    .getattr = lzf_getattr,
    .readlink = lzf_readlink,
    .mknod = lzf_mknod,
    .mkdir = lzf_mkdir,
    .unlink = lzf_unlink,
    .rmdir = lzf_rmdir,
    .symlink = lzf_symlink,
    .rename = lzf_rename,
    .link = lzf_link,
    .chmod = lzf_chmod,
    .chown = lzf_chown,
    .truncate = lzf_truncate,
    .open = lzf_open,
    .read = lzf_read,
    .write = lzf_write,
    .statfs = lzf_statfs,
    .flush = lzf_flush,
    .release = lzf_release,
    .fsync = lzf_fsync,
    .readdir = lzf_readdir,
    .fsyncdir = lzf_fsyncdir,
    .init = lzf_init,
    .destroy = lzf_destroy,
    .create = lzf_create,
    .utimens = lzf_utimens,
    .fallocate = lzf_fallocate,
};

static const char lzf_usage[] =
    "usage: tpccbench-lazyfs BACKING MOUNTPOINT [--cap-bytes N] [--background-bytes N]\n"
    "                        [--expire-ms N] [--foreground]\n"
    "Mount BACKING at MOUNTPOINT; writes stay in memory until fsync, an O_SYNC/O_DSYNC\n"
    "write, or write-back (dirty for --expire-ms, or past --background-bytes).\n"
    "  echo crash > MOUNTPOINT/.lazyfs-ctl   drop every unsynced write (then unmount)\n"
    "  cat MOUNTPOINT/.lazyfs-ctl            the counters\n"
    "N takes K, M, G (binary).  Defaults: --cap-bytes 1G; --expire-ms and\n"
    "--background-bytes from vm.dirty_expire_centisecs and vm.dirty_background_*.\n";

/* One number of /proc (a sysctl, or a /proc/meminfo field in kB); -1 if none. */
static int64_t proc_number(const char *file, const char *field)
{
    FILE *f = fopen(file, "r");
    char line[256];
    int64_t v = -1;
    size_t n = field ? strlen(field) : 0;
    while (f && v < 0 && fgets(line, sizeof(line), f)) {
        if (!field || (strncmp(line, field, n) == 0 && line[n] == ':'))
            v = strtoll(field ? line + n + 1 : line, NULL, 10);
    }
    if (f)
        fclose(f);
    return v;
}

/* The kernel's write-back settings as our defaults: its background threshold
 * is dirty_background_bytes, or dirty_background_ratio % of the memory it
 * counts as available (close to MemAvailable). */
static void cfg_defaults(struct lazyfs_cfg *c)
{
    int64_t cs = proc_number("/proc/sys/vm/dirty_expire_centisecs", NULL);
    int64_t bytes = proc_number("/proc/sys/vm/dirty_background_bytes", NULL);
    int64_t ratio = proc_number("/proc/sys/vm/dirty_background_ratio", NULL);
    int64_t avail_kb = proc_number("/proc/meminfo", "MemAvailable");
    c->cap_bytes = UINT64_C(1) << 30;
    c->expire_ms = cs > 0 ? cs * 10 : 30000;
    if (bytes > 0)
        c->background_bytes = (uint64_t)bytes;
    else if (ratio >= 0 && avail_kb > 0)
        c->background_bytes = (uint64_t)avail_kb * 1024 / 100 * (uint64_t)ratio;
    else
        c->background_bytes = c->cap_bytes;
}

/* "N", "NK", "NM", "NG" (binary) into *out; -1 when not such a number. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
              : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift)
        end++;
    if (*end || v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* Our options onto c and *fg; the two paths into dirs.  0, or -1 after a
 * message on stderr (exit 2). */
static int parse_args(int argc, char **argv, struct lazyfs_cfg *c, int *fg, const char *dirs[2])
{
    int n_dirs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        uint64_t v;
        if (strcmp(a, "--foreground") == 0) {
            *fg = 1;
        } else if (strcmp(a, "--cap-bytes") == 0 || strcmp(a, "--background-bytes") == 0 ||
                   strcmp(a, "--expire-ms") == 0) {
            if (i + 1 >= argc || parse_size(argv[i + 1], &v) < 0 ||
                (a[2] == 'e' && v > INT64_MAX / 2)) {
                fprintf(stderr, "tpccbench-lazyfs: '%s' needs a number of %s (got \"%s\")\n", a,
                        a[2] == 'e' ? "milliseconds" : "bytes (K, M, G allowed)",
                        i + 1 < argc ? argv[i + 1] : "");
                return -1;
            }
            i++;
            if (a[2] == 'c')
                c->cap_bytes = v;
            else if (a[2] == 'b')
                c->background_bytes = v;
            else
                c->expire_ms = (int64_t)v;
        } else if (a[0] == '-' || n_dirs == 2) {
            fprintf(stderr, "tpccbench-lazyfs: unknown argument '%s'\n%s", a, lzf_usage);
            return -1;
        } else {
            dirs[n_dirs++] = a;
        }
    }
    if (n_dirs != 2) {
        fprintf(stderr, "tpccbench-lazyfs: BACKING and MOUNTPOINT are needed\n%s", lzf_usage);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct lazyfs_cfg c;
    const char *dirs[2] = {NULL, NULL};
    int fg = 0;
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(lzf_usage, stdout);
        return 0;
    }
    cfg_defaults(&c);
    if (parse_args(argc, argv, &c, &fg, dirs) < 0)
        return 2;
    g.bfd = open(dirs[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g.bfd < 0) {
        char eb[128];
        fprintf(stderr, "tpccbench-lazyfs: cannot open the backing directory '%s': %s\n", dirs[0],
                err_errno(errno, eb, sizeof(eb)));
        return 2;
    }
    /* Modes reach the backing files exactly as the kernel gave them. */
    umask(0);
    lazyfs_init(&g.fs, &c, &lzf_ops, NULL);
    static char o_flag[] = "-o", f_flag[] = "-f";
    static char opts[] = "allow_other,default_permissions,fsname=tpccbench-lazyfs,subtype=lazyfs";
    char *fargv[] = {argv[0], (char *)dirs[1], o_flag, opts, fg ? f_flag : NULL, NULL};
    int rc = fuse_main(fg ? 5 : 4, fargv, &lzf_fuse_ops, NULL);
    close(g.bfd);
    return rc == 0 ? 0 : 1;
}
