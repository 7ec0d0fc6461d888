/*
 * acidcrash.h - the crashes of `tpccbench acid --tests durability` on the
 * private PostgreSQL (tpcc/durab.h's struct acid_crash): kill (SIGKILL to
 * every process of the server, then a start: crash recovery) and power
 * (the data directory on a tpccbench-lazyfs mount this command makes;
 * the crash drops what was not made durable, unmounts and mounts again);
 * on a user's server, command (acid.crash_command, then
 * acid.restart_command, through the shell).
 */
#ifndef CMD_ACIDCRASH_H
#define CMD_ACIDCRASH_H

#include <sys/types.h>

#include "cmd/cmd.h"
#include "tpcc/durab.h"

/* What a crash of the private server needs (ctx of the acid_crash). */
struct acid_crasher {
    struct session *s;     /* its managed server (s->mpg) and conninfo, kept up to date */
    int kind;              /* enum acid_crash_kind */
    char prog[4096];       /* power: tpccbench-lazyfs */
    char backing[4096];    /* power: the data directory, the file system's backing */
    char mnt[4096];        /* power: where it is mounted, the server's data directory */
    char log[4096];        /* power: the file system's stderr */
    pid_t pid;             /* power: the file system's process, 0 none */
    int mounted;
    char cmd_log[4096];    /* command: where acid.crash_command's output goes */
};

/* What a crash of kind needs on this machine, checked before anything
 * starts: power needs tpccbench-lazyfs (beside tpccbench or on PATH),
 * /dev/fuse, fusermount3 and root.  E_USAGE saying what is missing. */
int acid_crash_check(int kind, struct err *e);

/*
 * Make the crash of kind for s's server into k (c: its state, kept by k);
 * kill and power need the private server, command acid.crash_command
 * (its output, and acid.restart_command's, in log_dir/crash.log).  Power stops the server, mounts tpccbench-lazyfs over its
 * data directory (its log in log_dir/lazyfs.log) and starts it there.
 * E_USAGE when it cannot be done: not a private server of this command,
 * no tpccbench-lazyfs, /dev/fuse or fusermount3, not root (power).
 */
int acid_crasher_begin(struct acid_crasher *c, struct session *s, int kind, const char *log_dir,
                       struct acid_crash *k, struct err *e);

/* Power: the server stopped, the file system unmounted cleanly (every
 * write durable) and its mount point removed.  Kill: nothing. */
void acid_crasher_end(struct acid_crasher *c);

#endif
