/*
 * acidcrash.c - the crashes of `tpccbench acid --tests durability` on the
 * private PostgreSQL: kill and power (see acidcrash.h).  The server's side
 * (SIGKILL to its process group, the start after it) is db/managed.c's;
 * here are the file system's: tpccbench-lazyfs found beside this program
 * or on PATH, started in the foreground as our child, its mount waited
 * for in /proc/mounts, the crash written to its control file, and
 * fusermount3 -u.  A user's server is crashed and restarted by its
 * commands (acid.crash_command, acid.restart_command) through /bin/sh.
 * Prints nothing.
 */
#include "cmd/acidcrash.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/managed.h"

extern char **environ;

#define LAZYFS_PROG "tpccbench-lazyfs"
/* Tenths of a second the mount, an unmount, the file system's exit get. */
#define MOUNT_TENTHS 100

static void nap_tenth(void)
{
    struct timespec ts = { 0, 100000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* tpccbench-lazyfs beside this program, else on PATH, into out. */
static int find_lazyfs(char *out, size_t len)
{
    char self[PATH_MAX], *slash;
    const char *path = getenv("PATH");
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (n > 0) {
        self[n] = '\0';
        if ((slash = strrchr(self, '/')) != NULL) {
            *slash = '\0';
            if ((size_t)snprintf(out, len, "%.*s/%s", (int)(len - sizeof(LAZYFS_PROG) - 1), self,
                                 LAZYFS_PROG) < len &&
                access(out, X_OK) == 0)
                return 0;
        }
    }
    while (path && *path) {
        size_t l = strcspn(path, ":");
        if (l + sizeof(LAZYFS_PROG) + 1 < len)
            snprintf(out, len, "%.*s/%s", (int)l, path, LAZYFS_PROG);
        if (l && l + sizeof(LAZYFS_PROG) + 1 < len && access(out, X_OK) == 0)
            return 0;
        path += l + (path[l] == ':');
    }
    return -1;
}

static int on_path(const char *prog)
{
    char buf[PATH_MAX];
    const char *path = getenv("PATH");

    while (path && *path) {
        size_t l = strcspn(path, ":");
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)l, path, prog);
        if (l && access(buf, X_OK) == 0)
            return 1;
        path += l + (path[l] == ':');
    }
    return 0;
}

/* 1 when /proc/mounts shows the file system mounted on c->mnt. */
static int is_mounted(const struct acid_crasher *c)
{
    char line[8192], want[4200];
    FILE *f = fopen("/proc/mounts", "r");
    int found = 0;

    if (!f)
        return 0;
    snprintf(want, sizeof(want), " %s fuse.lazyfs ", c->mnt);
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, want) != NULL;
    fclose(f);
    return found;
}

/* The last line of the file system's log, for a message. */
static void log_tail(const struct acid_crasher *c, char *buf, size_t len)
{
    char text[2048];
    FILE *f = fopen(c->log, "r");
    size_t n = 0;

    buf[0] = '\0';
    if (!f)
        return;
    while (fgets(text, sizeof(text), f))
        if (text[0] != '\n')
            n = (size_t)snprintf(buf, len, "%s", text);
    fclose(f);
    if (n && n < len && buf[n - 1] == '\n')
        buf[n - 1] = '\0';
}

static int lz_mount(struct acid_crasher *c, struct err *e)
{
    posix_spawn_file_actions_t fa;
    char *const argv[] = { c->prog, c->backing, c->mnt, (char *)"--foreground", NULL };
    char tail[512], ebuf[128];
    int rc, status;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, c->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    rc = posix_spawn(&c->pid, c->prog, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        c->pid = 0;
        return err_set(e, E_FAIL, "cannot start '%s': %s", c->prog, err_errno(rc, ebuf, sizeof(ebuf)));
    }
    for (int i = 0; i < MOUNT_TENTHS && !is_mounted(c); i++) {
        if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
            c->pid = 0;
            log_tail(c, tail, sizeof(tail));
            return err_set(e, E_FAIL, "tpccbench-lazyfs did not mount on '%s': %s", c->mnt,
                           tail[0] ? tail : "it ended without a word");
        }
        nap_tenth();
    }
    if (!is_mounted(c))
        return err_set(e, E_FAIL, "tpccbench-lazyfs did not mount on '%s' within 10 s", c->mnt);
    c->mounted = 1;
    return 0;
}

/* fusermount3 -u (again while something still holds a file), and the file
 * system's process waited for. */
static int lz_unmount(struct acid_crasher *c, struct err *e)
{
    char *const argv[] = { (char *)"fusermount3", (char *)"-u", c->mnt, NULL };
    posix_spawn_file_actions_t fa;
    int status = 1, i;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    for (i = 0; c->mounted && i < MOUNT_TENTHS; i++) {
        pid_t p;
        if (posix_spawnp(&p, "fusermount3", &fa, NULL, argv, environ) == 0 &&
            waitpid(p, &status, 0) == p && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            c->mounted = 0;
        else
            nap_tenth();
    }
    posix_spawn_file_actions_destroy(&fa);
    if (c->mounted)
        return err_set(e, E_FAIL, "cannot unmount '%s' (fusermount3 -u failed for 10 s)",
                       c->mnt);
    for (i = 0; c->pid && i < MOUNT_TENTHS; i++) {
        if (waitpid(c->pid, &status, WNOHANG) == c->pid)
            c->pid = 0;
        else
            nap_tenth();
    }
    if (c->pid)
        return err_set(e, E_FAIL, "tpccbench-lazyfs (pid %ld) still runs 10 s after its unmount",
                       (long)c->pid);
    return 0;
}

static void conninfo_update(struct acid_crasher *c)
{
    managed_conninfo(&c->s->mpg, c->s->conninfo, sizeof(c->s->conninfo));
}

static int kill_crash(void *ctx, struct err *e)
{
    struct acid_crasher *c = ctx;
    return managed_crash(&c->s->mpg, e);
}

static int kill_restart(void *ctx, struct err *e)
{
    struct acid_crasher *c = ctx;
    int rc = managed_restart(&c->s->mpg, e);

    conninfo_update(c);
    return rc;
}

/* Every process of the server gone, what it had not made durable dropped
 * (the control file), unmounted: no kernel cache shows what was dropped. */
static int power_crash(void *ctx, struct err *e)
{
    struct acid_crasher *c = ctx;
    char ctl[4200];
    int fd, rc;

    if ((rc = managed_crash(&c->s->mpg, e)) < 0)
        return rc;
    snprintf(ctl, sizeof(ctl), "%s/.lazyfs-ctl", c->mnt);
    fd = open(ctl, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "crash\n", 6) != 6) {
        if (fd >= 0)
            close(fd);
        return err_set(e, E_FAIL, "cannot write 'crash' to '%s'", ctl);
    }
    close(fd);
    return lz_unmount(c, e);
}

static int power_restart(void *ctx, struct err *e)
{
    struct acid_crasher *c = ctx;
    int rc;

    if ((rc = lz_mount(c, e)) < 0)
        return rc;
    rc = managed_restart(&c->s->mpg, e);
    conninfo_update(c);
    return rc;
}

/*
 * The shell runs cmd (its output appended to log); waited for at most
 * bound_us, then killed.  0 when it exited 0, else E_FAIL saying how it
 * ended ("acid.crash_command" names it in the message: what, never the
 * command's text, which may hold a secret).
 */
static int run_shell(const char *what, const char *cmd, const char *log, uint64_t bound_us,
                     struct err *e)
{
    char *const argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)cmd, NULL };
    posix_spawn_file_actions_t fa;
    char ebuf[128];
    pid_t p;
    int rc, status = 0;
    uint64_t waited_us = 0;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    rc = posix_spawn(&p, "/bin/sh", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return err_set(e, E_FAIL, "cannot run %s: %s", what, err_errno(rc, ebuf, sizeof(ebuf)));
    while ((rc = (int)waitpid(p, &status, WNOHANG)) == 0 && waited_us < bound_us) {
        nap_tenth();
        waited_us += 100000;
    }
    if (rc == 0) {
        kill(p, SIGKILL);
        waitpid(p, &status, 0);
        return err_set(e, E_FAIL, "%s still ran after %.0f s (acid.restart_timeout): killed (its "
                                  "output: '%s')", what, (double)bound_us / 1e6, log);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status))
        return err_set(e, E_FAIL, "%s exited %d (its output: '%s')", what, WEXITSTATUS(status),
                       log);
    return err_set(e, E_FAIL, "%s ended by signal %d (its output: '%s')", what,
                   WIFSIGNALED(status) ? WTERMSIG(status) : 0, log);
}

static int command_crash(void *ctx, struct err *e)
{
    struct acid_crasher *c = ctx;
    const struct config *cfg = c->s->cfg;

    return run_shell("acid.crash_command", cfg->acid.crash_command, c->cmd_log,
                     (uint64_t)cfg->acid.restart_timeout_us, e);
}

static int command_restart(void *ctx, struct err *e)
{
    struct acid_crasher *c = ctx;
    const struct config *cfg = c->s->cfg;

    if (!cfg->acid.restart_command[0])
        return 0;
    return run_shell("acid.restart_command", cfg->acid.restart_command, c->cmd_log,
                     (uint64_t)cfg->acid.restart_timeout_us, e);
}

/* What power needs, checked before anything is touched: E_USAGE. */
static int power_check(struct acid_crasher *c, struct err *e)
{
    struct stat st;

    if (find_lazyfs(c->prog, sizeof(c->prog)) < 0)
        return err_set(e, E_USAGE, "--crash power needs %s beside tpccbench or on PATH: build it "
                                   "with make (libfuse3-dev installed: make deps-test)",
                       LAZYFS_PROG);
    if (stat("/dev/fuse", &st) < 0 || !S_ISCHR(st.st_mode))
        return err_set(e, E_USAGE, "--crash power needs /dev/fuse (FUSE), which this machine "
                                   "lacks: load the fuse module, or give a container --device "
                                   "/dev/fuse; or use --crash kill");
    if (!on_path("fusermount3"))
        return err_set(e, E_USAGE, "--crash power needs fusermount3 on PATH (Debian's fuse3)");
    if (geteuid() != 0)
        return err_set(e, E_USAGE, "--crash power needs root: the file system mounts with "
                                   "allow_other for the server's own user");
    return 0;
}

/* Power: the server moved onto the mount (stopped, mounted, started). */
static int power_begin(struct acid_crasher *c, const char *log_dir, struct err *e)
{
    struct session *s = c->s;
    char ebuf[128];
    int rc;

    snprintf(c->backing, sizeof(c->backing), "%s", s->mpg.datadir);
    snprintf(c->log, sizeof(c->log), "%s/lazyfs.log", log_dir);
    if ((size_t)snprintf(c->mnt, sizeof(c->mnt), "%s.lazyfs-XXXXXX", c->backing) >=
        sizeof(c->mnt) - 1)
        return err_set(e, E_USAGE, "datadir '%s' is too long", c->backing);
    if (!mkdtemp(c->mnt) || chmod(c->mnt, 0755) < 0) {
        rc = err_set(e, E_FAIL, "cannot make the mount point '%s': %s", c->mnt,
                     err_errno(errno, ebuf, sizeof(ebuf)));
        c->mnt[0] = '\0';
        return rc;
    }
    if ((rc = managed_stop(&s->mpg, e)) < 0 || (rc = lz_mount(c, e)) < 0)
        return rc;
    rc = managed_start_flags(&s->mpg, c->mnt, s->cfg->database.port,
                             s->cfg->database.password_env, MANAGED_SOCK_AWAY, e);
    conninfo_update(c);
    return rc;
}

int acid_crash_check(int kind, struct err *e)
{
    struct acid_crasher c;

    memset(&c, 0, sizeof(c));
    return kind == ACID_CRASH_POWER ? power_check(&c, e) : 0;
}

int acid_crasher_begin(struct acid_crasher *c, struct session *s, int kind, const char *log_dir,
                       struct acid_crash *k, struct err *e)
{
    memset(c, 0, sizeof(*c));
    c->s = s;
    c->kind = kind;
    k->kind = kind;
    k->ctx = c;
    k->crash = kind == ACID_CRASH_POWER ? power_crash : kill_crash;
    k->restart = kind == ACID_CRASH_POWER ? power_restart : kill_restart;
    if (kind == ACID_CRASH_COMMAND) {
        k->crash = command_crash;
        k->restart = command_restart;
        snprintf(c->cmd_log, sizeof(c->cmd_log), "%s/crash.log", log_dir);
        return 0;
    }
    if (!s->managed)
        return err_set(e, E_USAGE, "not a private server");
    if (!s->mpg.started)
        return err_set(e, E_USAGE,
                       "the private PostgreSQL on '%s' runs for another command or was kept "
                       "(--keep-server): the crash is only for a server this command starts; "
                       "stop it first ('tpccbench server stop')",
                       s->mpg.datadir);
    if (kind != ACID_CRASH_POWER)
        return 0;
    if (power_check(c, e) < 0)
        return e->code;
    return power_begin(c, log_dir, e);
}

void acid_crasher_end(struct acid_crasher *c)
{
    struct err e;

    if (c->kind != ACID_CRASH_POWER || !c->mnt[0])
        return;
    if (c->s->mpg.started)
        managed_stop(&c->s->mpg, &e);
    if (c->mounted || c->pid)
        lz_unmount(c, &e);
    rmdir(c->mnt);
    c->mnt[0] = '\0';
}
