/*
 * lazyfs.h - the pure core of tpccbench-lazyfs, the power-loss file system
 * of issue 40: per file, the writes not yet made durable, and what makes
 * them durable, written back or lost.
 *
 * A file here is a backing inode (its number) with a list of pending
 * extents: bytes written but not yet on the backing file.  Extents of one
 * file never overlap: a newer write trims the older ones it covers, as a
 * page cache holds one copy of each byte.  Reads overlay them on the backing
 * file's bytes.  They reach the backing file only through the ops' apply
 * (fsync, a write through O_SYNC/O_DSYNC, expiry or background write-back,
 * sync); lazyfs_crash drops them all.  Nothing here does I/O itself, knows
 * FUSE, prints, or locks: the caller (lazyfs_fuse.c) holds one lock around
 * every call, and the unit test (tests/unit/test_lazyfs.c) gives ops over
 * memory.  Errors are negative errno values, as FUSE wants them.
 */
#ifndef TPCC_LAZYFS_H
#define TPCC_LAZYFS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* What the core asks of its caller.  fd is the descriptor the caller gave
 * with a file's first pending write (lazyfs_write's fd, after dup). */
struct lazyfs_ops {
    /* Write len bytes at off to the backing file; 0 or -errno. */
    int (*apply)(void *ctx, int fd, uint64_t off, const unsigned char *data, size_t len);
    /* A descriptor of the backing file that outlives the caller's handle
     * (a dup); -errno on failure. */
    int (*dup)(void *ctx, int fd);
    /* The core no longer needs fd (the file is clean, dropped or freed). */
    void (*close)(void *ctx, int fd);
};

struct lazyfs_cfg {
    uint64_t cap_bytes;        /* pending bytes beyond this: the write is refused (ENOSPC) */
    uint64_t background_bytes; /* pending bytes beyond this: oldest files written back */
    int64_t expire_ms;         /* a file dirty this long is written back at the next tick */
};

/* One run of pending bytes; data is owned by the extent. */
struct lazyfs_ext {
    uint64_t off;            /* where in the file */
    size_t len;              /* how many bytes */
    unsigned char *data;     /* the bytes (malloc'd, len long) */
    struct lazyfs_ext *next; /* the file's next extent (unordered) */
};

/* A backing inode with pending writes; freed once clean. */
struct lazyfs_file {
    uint64_t ino;             /* the backing inode number */
    int fd;                   /* the ops' dup of a writable descriptor */
    int64_t dirtied_ms;       /* when it went from clean to dirty (the kernel's dirtied_when) */
    uint64_t n_bytes;         /* pending bytes of this file */
    struct lazyfs_ext *ext;   /* its extents, disjoint */
    struct lazyfs_file *next; /* the next dirty file (unordered) */
};

/* Counters since lazyfs_init, all in bytes but n_refused. */
struct lazyfs_stats {
    uint64_t pending_bytes;     /* held now, lost at a crash */
    uint64_t n_files;           /* files with pending bytes */
    uint64_t synced_bytes;      /* made durable by fsync, sync writes or sync */
    uint64_t written_back_bytes; /* written back by expiry or the background threshold */
    uint64_t dropped_bytes;     /* lost at the crash (or on the deletion of a file) */
    uint64_t n_refused;         /* writes refused at the cap */
    int crashed;                /* lazyfs_crash was called: everything now fails */
};

struct lazyfs {
    struct lazyfs_cfg cfg;      /* limits, read-only after init */
    const struct lazyfs_ops *ops; /* the caller's I/O */
    void *ctx;                  /* passed to ops */
    struct lazyfs_file *files;  /* dirty files */
    struct lazyfs_stats st;     /* counters */
};

/* Set up fs with cfg and ops (both kept by pointer or copy: ops by pointer). */
void lazyfs_init(struct lazyfs *fs, const struct lazyfs_cfg *cfg, const struct lazyfs_ops *ops,
                 void *ctx);

/* Free every pending write (not applied) and close their descriptors. */
void lazyfs_release(struct lazyfs *fs);

/* A write of len bytes at off to inode ino through descriptor fd (dup'd if
 * the file had nothing pending) at now_ms.  sync (O_SYNC/O_DSYNC): applied
 * at once, and the older pending bytes it covers are trimmed so they never
 * land over it.  Otherwise kept pending; beyond cfg.cap_bytes refused with
 * -ENOSPC and a message in e; beyond cfg.background_bytes the oldest dirty
 * files are written back.  Returns 0 or -errno. */
int lazyfs_write(struct lazyfs *fs, uint64_t ino, int fd, uint64_t off, const void *data,
                 size_t len, int64_t now_ms, int sync, struct err *e);

/* Overlay ino's pending bytes on buf, which holds len bytes read at off
 * from the backing file (zeros past its end). */
void lazyfs_overlay(const struct lazyfs *fs, uint64_t ino, uint64_t off, void *buf, size_t len);

/* The size a reader sees: backing_size or the end of the last pending extent. */
uint64_t lazyfs_size(const struct lazyfs *fs, uint64_t ino, uint64_t backing_size);

/* fsync/fdatasync: apply every pending extent of ino.  0 or -errno. */
int lazyfs_fsync(struct lazyfs *fs, uint64_t ino);

/* The backing file of ino was truncated to size: pending bytes past it go. */
void lazyfs_truncate(struct lazyfs *fs, uint64_t ino, uint64_t size);

/* ino lost its last name: its pending bytes go (counted as dropped). */
void lazyfs_forget(struct lazyfs *fs, uint64_t ino);

/* Write back what the kernel would by now_ms: files dirty for cfg.expire_ms.
 * Returns the bytes written back, or -errno. */
int64_t lazyfs_tick(struct lazyfs *fs, int64_t now_ms);

/* sync(2): apply everything.  0 or -errno. */
int lazyfs_sync_all(struct lazyfs *fs);

/* Power loss: drop every pending byte; from now on st.crashed is set and the
 * caller fails every operation.  Returns the bytes dropped. */
uint64_t lazyfs_crash(struct lazyfs *fs);

#endif
