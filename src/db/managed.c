/*
 * managed.c - a private PostgreSQL that tpccbench initialises, starts and
 * stops itself (the embedded default).
 *
 * It runs initdb, pg_ctl, createdb and psql from the server's bindir with
 * fork + execve: no shell sees a path or setting of ours (pg_ctl itself still
 * passes -D and -l through /bin/sh inside double quotes, so datadirs holding
 * quotes, backslashes, '$' or '`' are refused).  Every child gets its own
 * session, stdin from /dev/null, stdout and stderr in an unlinked temporary
 * file whose last lines become the error message when the child fails, and
 * our environment without PG* and without the password's variable.  When
 * we are root the children drop to the server's user; the identity, groups
 * and environment are prepared before fork so the child only makes system
 * calls.  This file must not print, exit, or link libpq.
 */
#include "db/managed.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/proc.h"
#include "core/secret.h"
#include "core/signals.h"

extern char **environ;

#define DEFAULT_PORT     5432
#define START_TIMEOUT_S  60  /* pg_ctl start -t, and waiting for a reused server */
#define STOP_TIMEOUT_S   120 /* a fast shutdown still writes a checkpoint */
#define MAX_GROUPS       256
#define MAX_ARGS         24
#define TAIL_BYTES       2048 /* how much of a child's output we look at for the error */
#define TAIL_LINES       4    /* how many of its last lines go into the message */
#define RUNTIME_CONF     "tpccbench.conf"
#define LOAD_CONF        "tpccbench_load.conf"  /* the load's settings, only while it runs */
#define HBA_FILE         "tpccbench_hba.conf"   /* named by hba_file in RUNTIME_CONF */
#define PASS_FILE        MANAGED_PASS_FILE      /* the cluster's password (libpq passfile) */
#define PASS_SQL         "tpccbench-password.sql" /* exists only while the password is set */
#define INCLUDE_LINE     "include = '" RUNTIME_CONF "'"
#define PG_LIBDIR        "/usr/lib/postgresql"
#define SOCKDIR_TEMPLATE "/tmp/tpccbench-XXXXXX"
#define OWNER_FILE       MANAGED_OWNER_FILE /* who owns the running server */
#define LOCK_TIMEOUT_S   180                /* another command's initdb and start, at most */

/* Appended to postgresql.conf once, right after initdb. */
static const char conf_block[] =
    "\n"
    "# Added by tpccbench (managed PostgreSQL).\n"
    "max_connections = 200\n"
    "shared_buffers = 256MB\n"
    "max_wal_size = 4GB\n"
    "checkpoint_timeout = 15min\n"
    "logging_collector = off\n"
    "# listen_addresses, port, unix_socket_directories: set on every start.\n" INCLUDE_LINE "\n";

/* Who the children run as and with what environment; all prepared before fork. */
struct runas {
    int change;               /* 1: the child drops to uid/gid/groups (we are root) */
    uid_t uid;                /* the server's user */
    gid_t gid;                /* its primary group */
    gid_t groups[MAX_GROUPS]; /* its supplementary groups */
    int ngroups;              /* entries used in groups */
    char name[64];            /* user name, for messages */
    char home_env[600];       /* "HOME=..." of that user, used when change is 1 */
    char **envp;              /* our environment minus PG* variables; heap, pointers into environ */
};

/* What postmaster.pid says about a server. */
struct pidfile {
    long pid;           /* line 1 */
    int port;           /* line 4 */
    char sockdir[4096]; /* line 5: first Unix socket directory, "" when none */
    char listen[256];   /* line 6: first listen address, "" when none */
    char status[16];    /* line 8: "starting", "ready", "stopping", "standby", or "" */
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static int path_join(char *out, size_t len, const char *dir, const char *name)
{
    int n = snprintf(out, len, "%s/%s", dir, name);

    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Whether the server's library dir (bindir/../lib, the layout of Debian's
 * /usr/lib/postgresql/NN and of a source build) holds the library name. */
static int lib_present(const char *bindir, const char *name)
{
    char path[4096];
    struct stat st;
    int n = snprintf(path, sizeof(path), "%s/../lib/%s", bindir, name);

    return n > 0 && (size_t)n < sizeof(path) && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_executable(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;

    if (path_join(path, sizeof(path), dir, name) < 0)
        return 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Characters that need no quoting in postgresql.conf or a conninfo value. */
static int is_plain_path(const char *s)
{
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("/._-+", *s)))
            return 0;
    }
    return 1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* An unlinked temporary file for a child's output; returns the fd or -1. */
static int capture_open(void)
{
    char path[] = "/tmp/tpccbench-out-XXXXXX";
    int fd = mkostemp(path, O_CLOEXEC);

    if (fd >= 0)
        unlink(path);
    return fd;
}

/* Skip the "2024-01-31 12:00:00.000 UTC [123] " prefix of a server log line. */
static char *skip_log_prefix(char *p)
{
    char *q;

    if (strlen(p) < 5 || !(p[0] >= '0' && p[0] <= '9' && p[4] == '-'))
        return p;
    q = strstr(p, "] ");
    return q && q - p < 64 ? q + 2 : p;
}

/*
 * Put the last TAIL_LINES non-empty lines of what fd holds into buf, joined
 * by "; ".  buf is "" when there is nothing to show.  server_log: fd is a
 * server log, so drop the line prefixes and the LOG lines that only tell the
 * story (keeping those that say "could not"), to make room for the reason.
 */
static void tail_lines(int fd, int server_log, char *buf, size_t len)
{
    char data[TAIL_BYTES + 1];
    const char *line[TAIL_LINES];
    int nline = 0;
    struct stat st;
    off_t from = 0;
    ssize_t n;
    size_t used = 0;

    buf[0] = '\0';
    if (fstat(fd, &st) < 0)
        return;
    if (st.st_size > TAIL_BYTES)
        from = st.st_size - TAIL_BYTES;
    n = pread(fd, data, TAIL_BYTES, from);
    if (n <= 0)
        return;
    data[n] = '\0';
    /* Split in place; keep a ring of the last TAIL_LINES non-empty lines. */
    for (char *p = data, *next; p && *p; p = next) {
        next = strchr(p, '\n');
        if (next)
            *next++ = '\0';
        for (char *q = p; *q; q++)
            if (*q == '\t' || *q == '\r')
                *q = ' ';
        while (*p == ' ')
            p++;
        if (server_log) {
            p = skip_log_prefix(p);
            if (strncmp(p, "LOG:", 4) == 0 && !strstr(p, "could not"))
                continue;
        }
        if (*p == '\0')
            continue;
        if (nline == TAIL_LINES) {
            memmove(line, line + 1, sizeof(line[0]) * (TAIL_LINES - 1));
            nline--;
        }
        line[nline++] = p;
    }
    for (int i = 0; i < nline && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? "; " : "", line[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void tail_server_log(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    buf[0] = '\0';
    if (fd < 0)
        return;
    tail_lines(fd, 1, buf, len);
    close(fd);
}

/* ------------------------------------------------------------------ */
/* Running programs                                                    */
/* ------------------------------------------------------------------ */

/*
 * 1 when environment entry v ("NAME=value") must not reach a child: it is
 * variable hide, or its value holds hide's value (the password under
 * another name, or inside a URL); a value shorter than SECRET_SCRUB_MIN
 * only when it is the whole value.
 */
static int env_hidden(const char *v, const char *hide, const char *secret)
{
    size_t n = hide ? strlen(hide) : 0;
    const char *val = strchr(v, '=');

    if (n > 0 && strncmp(v, hide, n) == 0 && v[n] == '=')
        return 1;
    if (!secret || !*secret || !val)
        return 0;
    return strlen(secret) >= SECRET_SCRUB_MIN ? strstr(val + 1, secret) != NULL
                                              : strcmp(val + 1, secret) == 0;
}

/* Set ra up to run children as uid/gid, with our environment minus PG* and
 * minus what env_hidden() says of hide (NULL or "": nothing more), so no
 * password reaches them. */
static int runas_init(struct runas *ra, uid_t uid, gid_t gid, const char *hide, struct err *e)
{
    struct passwd pw, *res = NULL;
    char pwbuf[16384];
    size_t nenv = 0, k = 0;
    const char *secret = hide && *hide ? getenv(hide) : NULL;

    memset(ra, 0, sizeof(*ra));
    ra->uid = uid;
    ra->gid = gid;
    ra->change = geteuid() == 0 && uid != 0;
    ra->groups[0] = gid;
    ra->ngroups = 1;
    if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res) {
        int n = MAX_GROUPS;
        snprintf(ra->name, sizeof(ra->name), "%s", pw.pw_name);
        snprintf(ra->home_env, sizeof(ra->home_env), "HOME=%s", pw.pw_dir);
        /* On -1 glibc has still filled the first MAX_GROUPS entries. */
        if (getgrouplist(pw.pw_name, gid, ra->groups, &n) < 0 || n > MAX_GROUPS)
            n = MAX_GROUPS;
        ra->ngroups = n;
    } else {
        snprintf(ra->name, sizeof(ra->name), "uid %ld", (long)uid);
        snprintf(ra->home_env, sizeof(ra->home_env), "HOME=/");
    }

    /* PGHOST, PGPORT, PGOPTIONS, PGDATA, ... would redirect or alter the tools;
     * PGPASSWORD and the variable named by database.password_env would sit
     * in every server process's environment (ps e, /proc/PID/environ). */
    for (char **v = environ; v && *v; v++)
        nenv++;
    ra->envp = calloc(nenv + 2, sizeof(*ra->envp));
    if (!ra->envp)
        return err_set(e, E_FAIL, "out of memory");
    for (char **v = environ; v && *v; v++) {
        if (strncmp(*v, "PG", 2) == 0 || env_hidden(*v, hide, secret))
            continue;
        if (ra->change && strncmp(*v, "HOME=", 5) == 0)
            continue;
        ra->envp[k++] = *v;
    }
    if (ra->change)
        ra->envp[k++] = ra->home_env;
    ra->envp[k] = NULL;
    return 0;
}

static void runas_release(struct runas *ra)
{
    free(ra->envp);
    ra->envp = NULL;
}

/* Write a fixed message to fd 2 from a forked child (no stdio there). */
static void child_say(const char *what, const char *subject)
{
    (void)!write(2, "tpccbench: ", 11);
    (void)!write(2, what, strlen(what));
    (void)!write(2, subject, strlen(subject));
    (void)!write(2, "\n", 1);
}

/* Drop to ra's user in a forked child; returns -1 after saying why. */
static int child_drop(const struct runas *ra)
{
    if (!ra->change)
        return 0;
    if (setgroups((size_t)ra->ngroups, ra->groups) < 0 || setgid(ra->gid) < 0 ||
        setuid(ra->uid) < 0) {
        child_say("cannot switch to user ", ra->name);
        return -1;
    }
    return 0;
}

/* Close every descriptor from fd up in a forked child (the server must not keep our pipes). */
static void close_from(int fd)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    if (close_range((unsigned)fd, ~0U, 0) == 0)
        return;
#endif
    for (long max = sysconf(_SC_OPEN_MAX); fd < (max > 0 && max < 65536 ? max : 1024); fd++)
        close(fd);
}

/*
 * The forked child: new session (a Ctrl-C to our process group must not reach
 * the server), stdin /dev/null, stdout/stderr into out_fd/err_fd, no other
 * descriptors, cwd /, then the server's user, then exec.  Never returns.
 */
static void child_exec(const struct runas *ra, const char *const argv[], int devnull, int out_fd,
                       int err_fd)
{
    if (setsid() < 0 || dup2(devnull, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(127);
    close_from(3);
    if (child_drop(ra) < 0)
        _exit(127);
    if (chdir("/") < 0)
        _exit(127);
    /* execve takes char *const[]; it does not modify the strings. */
    execve(argv[0], (char *const *)argv, ra->envp);
    child_say("cannot run ", argv[0]);
    _exit(127);
}

/* Wait for pid; returns its wait status, or -1 when waitpid fails. */
static int wait_child(pid_t pid)
{
    int status;

    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return status;
}

/*
 * Run argv (argv[0] an absolute path) as ra.  Its output goes into a temporary
 * file; when out is not NULL its stdout goes into out instead (NUL-terminated,
 * truncated to len - 1 bytes).  what names the program in messages.  Returns
 * 0 when it exited with 0, E_FAIL with its last lines of output otherwise.
 */
static int run_argv(const struct runas *ra, const char *const argv[], const char *what, char *out,
                    size_t len, struct err *e)
{
    char ebuf[128], tail[400];
    int devnull, cap, out_fd = -1, status, rc = 0;
    pid_t pid;

    devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    cap = capture_open();
    if (out)
        out_fd = capture_open();
    if (devnull < 0 || cap < 0 || (out && out_fd < 0)) {
        rc = err_set(e, E_FAIL, "running '%s': cannot open a temporary file in /tmp: %s", what,
                     err_errno(errno, ebuf, sizeof(ebuf)));
        goto out;
    }
    pid = fork();
    if (pid < 0) {
        rc = err_set(e, E_FAIL, "running '%s': fork: %s", what,
                     err_errno(errno, ebuf, sizeof(ebuf)));
        goto out;
    }
    if (pid == 0)
        child_exec(ra, argv, devnull, out ? out_fd : cap, cap);
    status = wait_child(pid);
    if (status == -1) {
        rc = err_set(e, E_FAIL, "running '%s': waitpid: %s", what,
                     err_errno(errno, ebuf, sizeof(ebuf)));
        goto out;
    }
    if (out) {
        ssize_t n = pread(out_fd, out, len - 1, 0);
        out[n > 0 ? n : 0] = '\0';
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        goto out;
    tail_lines(cap, 0, tail, sizeof(tail));
    if (WIFEXITED(status))
        rc = err_set(e, E_FAIL, "'%s' failed (exit %d): %s", what, WEXITSTATUS(status),
                     tail[0] ? tail : "no output");
    else
        rc = err_set(e, E_FAIL, "'%s' was killed by signal %d: %s", what, WTERMSIG(status),
                     tail[0] ? tail : "no output");
out:
    if (devnull >= 0)
        close(devnull);
    if (cap >= 0)
        close(cap);
    if (out_fd >= 0)
        close(out_fd);
    return rc;
}

/* Run the PostgreSQL program tool from m->bindir with args (NULL-terminated) as ra. */
static int run_tool(const struct managed_pg *m, const struct runas *ra, const char *tool,
                    const char *const args[], char *out, size_t len, struct err *e)
{
    char path[4096];
    const char *argv[MAX_ARGS];
    int n = 0;

    if (path_join(path, sizeof(path), m->bindir, tool) < 0)
        return err_set(e, E_USAGE, "bindir '%s' is too long", m->bindir);
    argv[n++] = path;
    for (int i = 0; args[i]; i++) {
        if (n == MAX_ARGS - 1)
            return err_set(e, E_FAIL, "too many arguments for '%s'", tool);
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    return run_argv(ra, argv, tool, out, len, e);
}

/* ------------------------------------------------------------------ */
/* Finding the server programs                                         */
/* ------------------------------------------------------------------ */

/* `pg_config --bindir` from PATH into out; 0 when it names a dir holding initdb. */
static int bindir_from_pg_config(char *out, size_t len)
{
    const char *path = getenv("PATH");
    char exe[4096], dir[4096], got[4096];
    struct runas ra;
    struct err e;
    int rc = -1;

    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    exe[0] = '\0';
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && n < sizeof(dir)) {
            memcpy(dir, p, n);
            dir[n] = '\0';
            if (dir[0] == '/' && is_executable(dir, "pg_config") &&
                path_join(exe, sizeof(exe), dir, "pg_config") == 0)
                break;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    if (!exe[0])
        return -1;
    if (runas_init(&ra, geteuid(), getegid(), NULL, &e) < 0)
        return -1;
    ra.change = 0;
    {
        const char *argv[] = { exe, "--bindir", NULL };
        if (run_argv(&ra, argv, "pg_config", got, sizeof(got), &e) == 0) {
            got[strcspn(got, "\r\n")] = '\0';
            if (got[0] == '/' && is_executable(got, "initdb") && is_executable(got, "pg_ctl") &&
                (size_t)snprintf(out, len, "%s", got) < len)
                rc = 0;
        }
    }
    runas_release(&ra);
    return rc;
}

/* Parse a version directory name ("15", "9.6"); 0 on success. */
static int parse_version(const char *s, long *major, long *minor)
{
    char *end;

    errno = 0;
    *major = strtol(s, &end, 10);
    if (errno || end == s || *major < 0)
        return -1;
    *minor = 0;
    if (*end == '.') {
        s = end + 1;
        *minor = strtol(s, &end, 10);
        if (errno || end == s || *minor < 0)
            return -1;
    }
    return *end == '\0' ? 0 : -1;
}

int managed_find_bindir(char *out, size_t len, struct err *e)
{
    long best_major = -1, best_minor = -1;
    char dir[4096];
    DIR *d;
    struct dirent *de;

    if (bindir_from_pg_config(out, len) == 0)
        return 0;
    d = opendir(PG_LIBDIR);
    while (d && (de = readdir(d)) != NULL) {
        long major, minor;
        if (parse_version(de->d_name, &major, &minor) < 0)
            continue;
        if (major < best_major || (major == best_major && minor <= best_minor))
            continue;
        snprintf(dir, sizeof(dir), "%s/%s/bin", PG_LIBDIR, de->d_name);
        if (!is_executable(dir, "initdb") || !is_executable(dir, "pg_ctl"))
            continue;
        if ((size_t)snprintf(out, len, "%s", dir) >= len)
            continue;
        best_major = major;
        best_minor = minor;
    }
    if (d)
        closedir(d);
    if (best_major >= 0)
        return 0;
    return err_set(e, E_USAGE,
                   "initdb not found: install the PostgreSQL server with 'apt-get install "
                   "postgresql'");
}

/* ------------------------------------------------------------------ */
/* The data directory                                                  */
/* ------------------------------------------------------------------ */

/* Absolute form of path in out, without trailing slashes. */
static int make_absolute(const char *path, char *out, size_t len, struct err *e)
{
    char cwd[4096], ebuf[128];
    int n;
    size_t l;

    if (path[0] == '/') {
        n = snprintf(out, len, "%s", path);
    } else {
        if (!getcwd(cwd, sizeof(cwd)))
            return err_set(e, E_FAIL, "cannot get the current directory: %s",
                           err_errno(errno, ebuf, sizeof(ebuf)));
        n = snprintf(out, len, "%s/%s", cwd, path);
    }
    if (n < 0 || (size_t)n >= len)
        return err_set(e, E_USAGE, "datadir '%s' is too long", path);
    for (l = strlen(out); l > 1 && out[l - 1] == '/'; l--)
        out[l - 1] = '\0';
    return 0;
}

/*
 * mkdir -p path: missing parents get mode 0755 whatever the umask (the
 * server's user must be able to pass through them), the last one 0700.
 */
static int mkdir_p(char *path, struct err *e)
{
    char ebuf[128];
    struct stat st;

    for (char *p = path + 1;; p++) {
        int last = *p == '\0';
        if (*p != '/' && !last)
            continue;
        *p = '\0';
        if (mkdir(path, last ? 0700 : 0755) == 0) {
            if (!last && chmod(path, 0755) < 0) {
                int rc = err_set(e, E_FAIL, "cannot chmod '%s': %s", path,
                                 err_errno(errno, ebuf, sizeof(ebuf)));
                *p = '/';
                return rc;
            }
        } else if (errno != EEXIST || stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
            int code = errno == EEXIST ? ENOTDIR : errno;
            int rc = err_set(e, code == EACCES ? E_USAGE : E_FAIL, "cannot create '%s': %s", path,
                             err_errno(code, ebuf, sizeof(ebuf)));
            if (!last)
                *p = '/';
            return rc;
        }
        if (last)
            return 0;
        *p = '/';
    }
}

/* 1 when dir holds PG_VERSION, 0 when it or dir does not exist, <0 on error. */
static int cluster_exists(const char *dir, struct err *e)
{
    char path[4096], ebuf[128];
    struct stat st;

    if (path_join(path, sizeof(path), dir, "PG_VERSION") < 0)
        return err_set(e, E_USAGE, "datadir '%s' is too long", dir);
    if (stat(path, &st) == 0)
        return 1;
    if (errno == ENOENT || errno == ENOTDIR)
        return 0;
    return err_set(e, E_USAGE, "cannot look into datadir '%s': %s", dir,
                   err_errno(errno, ebuf, sizeof(ebuf)));
}

static int dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int empty = 1;

    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            empty = 0;
            break;
        }
    }
    closedir(d);
    return empty;
}

/*
 * Index (1-based) of the first directory on the way to path that the calling
 * user cannot search, counting "/" as 1 and path itself last; 0 when all can.
 */
static int first_unreachable(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);
    int idx = 1;

    if (access("/", X_OK) < 0)
        return 1;
    /* No stdio: this runs in a forked child. */
    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, path, len);
    buf[len] = '\0';
    for (char *p = buf + 1;; p++) {
        int last = *p == '\0';
        if (*p != '/' && !last)
            continue;
        *p = '\0';
        idx++;
        if (access(buf, X_OK) < 0)
            return idx;
        if (last)
            return 0;
        *p = '/';
    }
}

/* The directory first_unreachable() counted as idx, into out. */
static void nth_prefix(const char *path, int idx, char *out, size_t len)
{
    const char *p = path;

    if (idx <= 1) {
        snprintf(out, len, "/");
        return;
    }
    for (int i = 1; i < idx && *p; i++) {
        p = strchr(p + 1, '/');
        if (!p) {
            p = path + strlen(path);
            break;
        }
    }
    snprintf(out, len, "%.*s", (int)(p - path), path);
}

/*
 * Check that ra's user can reach dir: every directory on the way must be
 * searchable by it.  When we switch user this runs in a child that drops to
 * that user, so groups and ACLs count exactly as they will for the server.
 */
static int check_reachable(const struct runas *ra, const char *dir, struct err *e)
{
    char bad[4096], ebuf[128];
    int idx;

    if (!ra->change) {
        idx = first_unreachable(dir);
    } else {
        pid_t pid = fork();
        int status;
        if (pid < 0)
            return err_set(e, E_FAIL, "fork: %s", err_errno(errno, ebuf, sizeof(ebuf)));
        if (pid == 0) {
            if (child_drop(ra) < 0)
                _exit(255);
            idx = first_unreachable(dir);
            _exit(idx > 250 ? 250 : idx);
        }
        status = wait_child(pid);
        if (status == -1)
            return err_set(e, E_FAIL, "waitpid: %s", err_errno(errno, ebuf, sizeof(ebuf)));
        if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
            return err_set(e, E_FAIL, "cannot switch to user '%s' to check '%s'", ra->name, dir);
        idx = WEXITSTATUS(status);
    }
    if (idx == 0)
        return 0;
    nth_prefix(dir, idx, bad, sizeof(bad));
    return err_set(
        e, E_USAGE,
        "user '%s' (the server runs as it) cannot enter '%s' on the way to '%s': choose a "
        "--datadir under /tmp or allow it with chmod o+x '%s'",
        ra->name, bad, dir, bad);
}

/* The user to run a new cluster as: ourselves, or postgres (else nobody) when root. */
static int pick_new_user(struct managed_pg *m, struct err *e)
{
    static const char *const names[] = { "postgres", "nobody" };
    struct passwd pw, *res = NULL;
    char buf[16384];

    if (geteuid() != 0) {
        m->run_uid = geteuid();
        m->run_gid = getegid();
        return 0;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (getpwnam_r(names[i], &pw, buf, sizeof(buf), &res) == 0 && res && pw.pw_uid != 0) {
            m->run_uid = pw.pw_uid;
            m->run_gid = pw.pw_gid;
            return 0;
        }
    }
    return err_set(e, E_USAGE,
                   "running as root, and there is no 'postgres' or 'nobody' user to run "
                   "PostgreSQL as: create one (adduser --system postgres)");
}

/* The user to run an existing cluster as: its owner when we are root. */
static int pick_existing_user(struct managed_pg *m, struct err *e)
{
    struct passwd pw, *res = NULL;
    char buf[16384], ebuf[128];
    struct stat st;

    if (geteuid() != 0) {
        m->run_uid = geteuid();
        m->run_gid = getegid();
        return 0;
    }
    if (stat(m->datadir, &st) < 0)
        return err_set(e, E_FAIL, "cannot stat '%s': %s", m->datadir,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    if (st.st_uid == 0)
        return err_set(e, E_USAGE,
                       "datadir '%s' is owned by root and PostgreSQL refuses to run as root: "
                       "chown -R postgres: '%s'",
                       m->datadir, m->datadir);
    m->run_uid = st.st_uid;
    m->run_gid = st.st_gid;
    if (getpwuid_r(st.st_uid, &pw, buf, sizeof(buf), &res) == 0 && res)
        m->run_gid = pw.pw_gid;
    return 0;
}

/*
 * Choose the socket directory: the datadir when the socket path fits in
 * sun_path and needs no quoting, else a fresh mkdtemp directory under /tmp
 * owned by the server's user.
 */
static int sockdir_choose(struct managed_pg *m, struct err *e)
{
    struct sockaddr_un sa;
    char name[32], tmpl[] = SOCKDIR_TEMPLATE, ebuf[128];

    snprintf(name, sizeof(name), "/.s.PGSQL.%d", m->socket_port);
    if (!m->sock_away && strlen(m->datadir) + strlen(name) < sizeof(sa.sun_path) &&
        is_plain_path(m->datadir)) {
        snprintf(m->sockdir, sizeof(m->sockdir), "%s", m->datadir);
        m->sockdir_tmp = 0;
        return 0;
    }
    if (!mkdtemp(tmpl))
        return err_set(e, E_FAIL, "cannot create a socket directory '%s': %s", SOCKDIR_TEMPLATE,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    if (geteuid() == 0 && chown(tmpl, m->run_uid, m->run_gid) < 0) {
        int saved = errno;
        rmdir(tmpl);
        return err_set(e, E_FAIL, "cannot chown '%s': %s", tmpl,
                       err_errno(saved, ebuf, sizeof(ebuf)));
    }
    snprintf(m->sockdir, sizeof(m->sockdir), "%s", tmpl);
    m->sockdir_tmp = 1;
    return 0;
}

static void sockdir_drop(struct managed_pg *m)
{
    if (m->sockdir_tmp) {
        rmdir(m->sockdir);
        m->sockdir_tmp = 0;
    }
}

/* ------------------------------------------------------------------ */
/* Configuration files                                                 */
/* ------------------------------------------------------------------ */

/* Append text to datadir/postgresql.conf. */
static int conf_append(const struct managed_pg *m, const char *text, struct err *e)
{
    char path[4096], ebuf[128];
    int fd;

    if (path_join(path, sizeof(path), m->datadir, "postgresql.conf") < 0)
        return err_set(e, E_USAGE, "datadir '%s' is too long", m->datadir);
    fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return err_set(e, E_FAIL, "cannot open '%s': %s", path,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    if (write_all(fd, text, strlen(text)) < 0 || fsync(fd) < 0) {
        int saved = errno;
        close(fd);
        return err_set(e, E_FAIL, "cannot write '%s': %s", path,
                       err_errno(saved, ebuf, sizeof(ebuf)));
    }
    close(fd);
    return 0;
}

/* A cluster we did not initialise may lack our include line: add it. */
static int conf_ensure_include(const struct managed_pg *m, struct err *e)
{
    char path[4096], ebuf[128], *text;
    FILE *f;
    long size;
    int found;

    if (path_join(path, sizeof(path), m->datadir, "postgresql.conf") < 0)
        return err_set(e, E_USAGE, "datadir '%s' is too long", m->datadir);
    f = fopen(path, "re");
    if (!f)
        return err_set(e, E_FAIL, "cannot open '%s': %s", path,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
        fclose(f);
        return err_set(e, E_FAIL, "cannot read '%s'", path);
    }
    text = malloc((size_t)size + 1);
    if (!text) {
        fclose(f);
        return err_set(e, E_FAIL, "out of memory");
    }
    text[fread(text, 1, (size_t)size, f)] = '\0';
    fclose(f);
    found = strstr(text, "\n" INCLUDE_LINE "\n") != NULL;
    free(text);
    if (found)
        return 0;
    return conf_append(
        m, "\n# Added by tpccbench: the settings it rewrites on every start.\n" INCLUDE_LINE "\n",
        e);
}

/*
 * Write text (n bytes) to datadir/name atomically (a temporary file, fsync,
 * rename), mode 0600 and owned by the server's user: it and we (root, or the
 * same user) can read it, nobody else.
 */
static int file_write_private(const struct managed_pg *m, const char *name, const char *text,
                              size_t n, struct err *e)
{
    char path[4096], tmp[4096], tmpname[128], ebuf[128];
    int fd;

    snprintf(tmpname, sizeof(tmpname), "%s.tmp", name);
    if (path_join(path, sizeof(path), m->datadir, name) < 0 ||
        path_join(tmp, sizeof(tmp), m->datadir, tmpname) < 0)
        return err_set(e, E_USAGE, "datadir '%s' is too long", m->datadir);
    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return err_set(e, E_FAIL, "cannot create '%s': %s", tmp,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    if (write_all(fd, text, n) < 0 || fsync(fd) < 0 ||
        (geteuid() == 0 && fchown(fd, m->run_uid, m->run_gid) < 0)) {
        int saved = errno;
        close(fd);
        unlink(tmp);
        return err_set(e, E_FAIL, "cannot write '%s': %s", tmp,
                       err_errno(saved, ebuf, sizeof(ebuf)));
    }
    close(fd);
    if (rename(tmp, path) < 0) {
        int saved = errno;
        unlink(tmp);
        return err_set(e, E_FAIL, "cannot rename '%s' to '%s': %s", tmp, path,
                       err_errno(saved, ebuf, sizeof(ebuf)));
    }
    return 0;
}

/*
 * (Re)write datadir/tpccbench.conf (listen_addresses, port, socket
 * directory and its permissions, our own hba file) and that hba file: the
 * Unix socket trusts whoever reaches it, and only the server's user and root
 * can (the socket and its directory are 0700); TCP, on 127.0.0.1 only, asks
 * for the cluster's password (scram-sha-256).  The user's own pg_hba.conf is
 * left as it is and unused.
 */
static int conf_write_runtime(const struct managed_pg *m, struct err *e)
{
    static const char hba[] =
        "# Written by tpccbench before each start of this managed server; edits are "
        "overwritten.\n"
        "# The socket (directory and file 0700) reaches the server's user and root only;\n"
        "# TCP (127.0.0.1 only) needs the password in " PASS_FILE " beside this file.\n"
        "local all all trust\n"
        "host  all all 127.0.0.1/32 scram-sha-256\n";
    char text[9000], hba_path[4096], pgss[300];
    int n, rc;

    if (path_join(hba_path, sizeof(hba_path), m->datadir, HBA_FILE) < 0)
        return err_set(e, E_USAGE, "datadir '%s' is too long", m->datadir);
    /* Top statements (run/msrc_stmts.c), the statements inside our
     * procedures too; only where the library is there: a server told to
     * preload a library it lacks does not start.  Utility statements are
     * not tracked: their text is kept as given, and the ALTER ROLE that sets
     * the password would sit in the datadir's query texts file. */
    if (lib_present(m->bindir, "pg_stat_statements.so"))
        snprintf(pgss, sizeof(pgss), "shared_preload_libraries = 'pg_stat_statements'\n"
                                     "pg_stat_statements.track = all\n"
                                     "pg_stat_statements.track_utility = off\n");
    else
        snprintf(pgss, sizeof(pgss), "# No pg_stat_statements.so in the server's lib: no top "
                                     "statements.\n");
    if ((rc = file_write_private(m, HBA_FILE, hba, strlen(hba), e)) < 0)
        return rc;
    n = snprintf(text, sizeof(text),
                 "# Written by tpccbench before each start of this managed server; edits are "
                 "overwritten.\n"
                 "listen_addresses = '%s'\n"
                 "port = %d\n"
                 "unix_socket_directories = '%s'\n"
                 "unix_socket_permissions = 0700\n"
                 "hba_file = '%s'\n"
                 "password_encryption = 'scram-sha-256'\n"
                 "%s"
                 "# The load's settings (managed_load_settings), only while it runs.\n"
                 "include_if_exists = '" LOAD_CONF "'\n",
                 m->port ? "127.0.0.1" : "", m->socket_port, m->sockdir, hba_path, pgss);
    if (n < 0 || (size_t)n >= sizeof(text))
        return err_set(e, E_USAGE, "datadir '%s' is too long", m->datadir);
    return file_write_private(m, RUNTIME_CONF, text, (size_t)n, e);
}

/*
 * The cluster's password: 32 random letters and digits, made once per
 * cluster and kept only in datadir/tpccbench.pgpass (0600, libpq's password
 * file format "*:*:*:tpcc:PASSWORD"), which our TCP connections name with
 * passfile=.  When the file is new, the role's password is set through the
 * socket from a 0600 SQL file that is removed at once: no password on a
 * command line, in the environment or in a log.
 */
static int pass_ensure(const struct managed_pg *m, const struct runas *ra, struct err *e)
{
    static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char raw[32];
    char pw[33], text[256], path[4096], sql_path[4096], port[16], ebuf[128];
    struct stat st;
    int fd, n, rc;

    if (path_join(path, sizeof(path), m->datadir, PASS_FILE) < 0 ||
        path_join(sql_path, sizeof(sql_path), m->datadir, PASS_SQL) < 0)
        return err_set(e, E_USAGE, "datadir '%s' is too long", m->datadir);
    if (stat(path, &st) == 0)
        return 0;
    fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw)) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        return err_set(e, E_FAIL, "cannot read /dev/urandom for the cluster's password: %s",
                       err_errno(saved, ebuf, sizeof(ebuf)));
    }
    close(fd);
    /* 62 does not divide 256: drop the top values so every character is equally likely. */
    for (size_t i = 0, k = 0; k < sizeof(pw) - 1; i++) {
        unsigned char b;
        if (i == sizeof(raw)) {
            fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
            if (fd < 0 || read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw)) {
                if (fd >= 0)
                    close(fd);
                return err_set(e, E_FAIL, "cannot read /dev/urandom");
            }
            close(fd);
            i = 0;
        }
        b = raw[i];
        if (b < 248)
            pw[k++] = alnum[b % 62];
    }
    pw[sizeof(pw) - 1] = '\0';
    secret_wipe(raw, sizeof(raw));

    n = snprintf(text, sizeof(text), "ALTER ROLE " MANAGED_USER " PASSWORD '%s';\n", pw);
    rc = file_write_private(m, PASS_SQL, text, (size_t)n, e);
    if (rc == 0) {
        const char *args[] = { "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", m->sockdir, "-p", port,
                               "-U", MANAGED_USER, "-d", "postgres", "-f", sql_path, NULL };
        snprintf(port, sizeof(port), "%d", m->socket_port);
        rc = run_tool(m, ra, "psql", args, NULL, 0, e);
        if (rc < 0)
            err_prefix(e, "setting the password of role '%s'", MANAGED_USER);
    }
    unlink(sql_path);
    secret_wipe(text, sizeof(text));
    if (rc == 0) {
        n = snprintf(text, sizeof(text), "*:*:*:%s:%s\n", MANAGED_USER, pw);
        rc = file_write_private(m, PASS_FILE, text, (size_t)n, e);
        secret_wipe(text, sizeof(text));
    }
    secret_wipe(pw, sizeof(pw));
    return rc;
}

/* ------------------------------------------------------------------ */
/* The server                                                          */
/* ------------------------------------------------------------------ */

/* Copy line n (1-based) of text into out. */
static void pid_line(const char *text, int n, char *out, size_t len)
{
    const char *p = text;

    for (int i = 1; i < n && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p) {
        out[0] = '\0';
        return;
    }
    snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
    /* The status line is padded with blanks. */
    for (size_t l = strlen(out); l > 0 && out[l - 1] == ' '; l--)
        out[l - 1] = '\0';
}

/* Read datadir/postmaster.pid: 1 when it names a live process, 0 when not. */
static int pidfile_read(const char *datadir, struct pidfile *pf)
{
    char path[4096], text[8192], line[4096];
    ssize_t n;
    int fd;

    memset(pf, 0, sizeof(*pf));
    if (path_join(path, sizeof(path), datadir, "postmaster.pid") < 0)
        return 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    pid_line(text, 1, line, sizeof(line));
    pf->pid = strtol(line, NULL, 10);
    pid_line(text, 4, line, sizeof(line));
    pf->port = (int)strtol(line, NULL, 10);
    pid_line(text, 5, pf->sockdir, sizeof(pf->sockdir));
    pid_line(text, 6, pf->listen, sizeof(pf->listen));
    pid_line(text, 8, pf->status, sizeof(pf->status));
    if (pf->pid <= 0)
        return 0;
    return kill((pid_t)pf->pid, 0) == 0 || errno == EPERM;
}

/* pg_ctl start; on failure the server log says why. */
static int server_start(struct managed_pg *m, const struct runas *ra, struct err *e)
{
    char log[4096], tail[400], timeout[16];
    int rc;

    if (path_join(log, sizeof(log), m->datadir, "server.log") < 0)
        return err_set(e, E_USAGE, "datadir '%s' is too long", m->datadir);
    snprintf(timeout, sizeof(timeout), "%d", START_TIMEOUT_S);
    {
        const char *args[] = { "-D", m->datadir, "-l", log, "-w", "-t", timeout, "start", NULL };
        rc = run_tool(m, ra, "pg_ctl", args, NULL, 0, e);
    }
    if (rc == 0)
        return 0;
    tail_server_log(log, tail, sizeof(tail));
    if (tail[0])
        return err_set(e, E_FAIL, "starting PostgreSQL on '%s' failed (see '%s'): %s", m->datadir,
                       log, tail);
    return err_prefix(e, "starting PostgreSQL on '%s'", m->datadir);
}

/* pg_ctl stop -m fast; success too when the server turns out to be gone. */
static int server_stop(const struct managed_pg *m, const struct runas *ra, struct err *e)
{
    struct pidfile pf;
    char timeout[16];
    int rc;

    snprintf(timeout, sizeof(timeout), "%d", STOP_TIMEOUT_S);
    {
        const char *args[] = { "-D", m->datadir, "-m", "fast", "-w", "-t", timeout, "stop", NULL };
        rc = run_tool(m, ra, "pg_ctl", args, NULL, 0, e);
    }
    if (rc == 0 || !pidfile_read(m->datadir, &pf))
        return 0;
    return err_prefix(e, "stopping PostgreSQL on '%s'", m->datadir);
}

/*
 * Create database tpcc unless it exists (and in it pg_stat_statements
 * where the server has it), and read back where the server
 * listens (SHOW listen_addresses, port) into m->listen and m->listen_port:
 * what the first line of a command says, never the config's wish.
 */
static int ensure_db(struct managed_pg *m, const struct runas *ra, struct err *e)
{
    char port[16], out[512], *f1, *f2;
    int rc;

    snprintf(port, sizeof(port), "%d", m->socket_port);
    {
        const char *args[] = {
            "-X",   "-q",
            "-h",   m->sockdir,
            "-p",   port,
            "-U",   MANAGED_USER,
            "-d",   "postgres",
            "-tAc", "select current_setting('listen_addresses') || '|' || "
                    "current_setting('port') || '|' || exists (select 1 from pg_database "
                    "where datname = '" MANAGED_DBNAME "')",
            NULL
        };
        rc = run_tool(m, ra, "psql", args, out, sizeof(out), e);
    }
    if (rc < 0)
        return err_prefix(e, "looking for database '%s'", MANAGED_DBNAME);
    out[strcspn(out, "\r\n")] = '\0';
    f1 = strchr(out, '|');
    f2 = f1 ? strchr(f1 + 1, '|') : NULL;
    if (!f2)
        return err_set(e, E_FAIL, "psql on '%s' answered '%s' to where it listens", m->datadir,
                       out);
    *f1++ = '\0';
    *f2++ = '\0';
    snprintf(m->listen, sizeof(m->listen), "%.255s", out);
    m->listen_port = (int)strtol(f1, NULL, 10);
    if (f2[0] != 't') {
        const char *args[] = { "-h", m->sockdir,   "-p",           port,
                               "-U", MANAGED_USER, MANAGED_DBNAME, NULL };
        rc = run_tool(m, ra, "createdb", args, NULL, 0, e);
    }
    if (rc < 0)
        return err_prefix(e, "creating database '%s'", MANAGED_DBNAME);
    /* Top statements' view (run/msrc_stmts.c), where its library is: a
     * failure leaves the runs to say it is not installed, and how. */
    if (lib_present(m->bindir, "pg_stat_statements.so")) {
        const char *args[] = { "-X", "-q", "-h", m->sockdir, "-p", port, "-U", MANAGED_USER,
                               "-d", MANAGED_DBNAME, "-c",
                               "CREATE EXTENSION IF NOT EXISTS pg_stat_statements", NULL };
        struct err scratch;
        (void)run_tool(m, ra, "psql", args, NULL, 0, &scratch);
    }
    return 0;
}

/* A server already runs on m->datadir: take its socket and port, wait until it is ready. */
static int reuse_running(struct managed_pg *m, struct pidfile *pf, struct err *e)
{
    for (int i = 0; i < START_TIMEOUT_S * 10 && strcmp(pf->status, "ready") != 0; i++) {
        sleep_ms(100);
        if (!pidfile_read(m->datadir, pf))
            return err_set(
                e, E_FAIL,
                "the PostgreSQL server on '%s' stopped while we waited for it: try again",
                m->datadir);
    }
    if (strcmp(pf->status, "ready") != 0)
        return err_set(
            e, E_FAIL,
            "the PostgreSQL server running on '%s' is not ready after %d s (status '%s')",
            m->datadir, START_TIMEOUT_S, pf->status);
    if (!pf->sockdir[0])
        return err_set(
            e, E_USAGE,
            "the PostgreSQL server running on '%s' has no Unix socket: stop it or choose "
            "another --datadir",
            m->datadir);
    snprintf(m->sockdir, sizeof(m->sockdir), "%s", pf->sockdir);
    m->socket_port = pf->port > 0 ? pf->port : DEFAULT_PORT;
    m->port = pf->listen[0] ? m->socket_port : 0;
    /* A socket directory of ours from an earlier run, removed if this one is told to stop it. */
    m->sockdir_tmp =
        strncmp(m->sockdir, "/tmp/tpccbench-", 15) == 0 && strcmp(m->sockdir, m->datadir) != 0;
    m->started = 0;
    return 0;
}

/* Create datadir and run initdb in it. */
static int cluster_init(struct managed_pg *m, const struct runas *ra, struct err *e)
{
    const char *args[] = { "-D",           m->datadir, "--username=" MANAGED_USER,
                           "--auth=trust", "-E",       "UTF8",
                           "--locale=C",   NULL };

    if (run_tool(m, ra, "initdb", args, NULL, 0, e) < 0)
        return err_prefix(e, "creating a PostgreSQL cluster in '%s'", m->datadir);
    return conf_append(m, conf_block, e);
}

/* The datadir exists (we made it or it was there) and has no cluster: it must be empty and ours. */
static int datadir_prepare(struct managed_pg *m, struct err *e)
{
    char real[4096], ebuf[128];
    struct stat st;

    if (!realpath(m->datadir, real))
        return err_set(e, E_FAIL, "cannot resolve '%s': %s", m->datadir,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    snprintf(m->datadir, sizeof(m->datadir), "%s", real);
    if (!dir_is_empty(m->datadir))
        return err_set(e, E_USAGE,
                       "'%s' is not empty and holds no PostgreSQL cluster (no PG_VERSION): choose "
                       "an empty or new --datadir",
                       m->datadir);
    if (geteuid() != 0)
        return 0;
    if (stat(m->datadir, &st) < 0)
        return err_set(e, E_FAIL, "cannot stat '%s': %s", m->datadir,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    if ((st.st_uid != m->run_uid || st.st_gid != m->run_gid) &&
        chown(m->datadir, m->run_uid, m->run_gid) < 0)
        return err_set(e, E_FAIL, "cannot chown '%s': %s", m->datadir,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    return 0;
}

/* ------------------------------------------------------------------ */
/* One owner at a time                                                 */
/* ------------------------------------------------------------------ */

/*
 * Hold the data directory's lock (flock on the directory itself, made with
 * mkdir -p when missing, so it exists before initdb and adds no file):
 * whoever decides whether to start, adopt or reuse the server holds it, so
 * two commands starting at once never both start one.  Waits up to
 * LOCK_TIMEOUT_S (another command's initdb and start), or until a stop
 * signal.  *fd is the lock's descriptor (close() lets it go).
 */
static int datadir_lock(struct managed_pg *m, int *fd, struct err *e)
{
    char ebuf[128];
    int rc;

    *fd = -1;
    if (cluster_exists(m->datadir, e) == 0 && (rc = mkdir_p(m->datadir, e)) < 0)
        return rc;
    *fd = open(m->datadir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0)
        return err_set(e, errno == EACCES ? E_USAGE : E_FAIL, "cannot open '%s': %s", m->datadir,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    for (int i = 0;; i++) {
        if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR)
            rc = err_set(e, E_FAIL, "cannot lock '%s': %s", m->datadir,
                         err_errno(errno, ebuf, sizeof(ebuf)));
        else if (sig_stop_requested())
            rc = err_set(e, E_INTR, "interrupted while waiting for the lock on '%s'", m->datadir);
        else if (i >= LOCK_TIMEOUT_S * 10)
            rc = err_set(e, E_FAIL,
                         "another command has held the lock on '%s' for %d s (it is starting "
                         "or stopping the private PostgreSQL there): wait for it, or choose "
                         "another --datadir",
                         m->datadir, LOCK_TIMEOUT_S);
        else {
            sleep_ms(100);
            continue;
        }
        close(*fd);
        *fd = -1;
        return rc;
    }
}

/* The owner file: "pid N", "start_ticks N", "boot_id S", "state owned|kept" lines. */
struct owner {
    struct proc_id who; /* the command that wrote it */
    int kept;           /* 1: state kept (left running on purpose) */
};

/* Read datadir/tpccbench.owner; 0, or -1 when there is none (or it says nothing). */
static int owner_read(const struct managed_pg *m, struct owner *o)
{
    char path[4096], text[1024], key[32], val[128];
    ssize_t n;
    int fd;

    memset(o, 0, sizeof(*o));
    if (path_join(path, sizeof(path), m->datadir, OWNER_FILE) < 0 ||
        (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
        return -1;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    for (char *p = text, *next; p && *p; p = next) {
        next = strchr(p, '\n');
        if (next)
            *next++ = '\0';
        if (sscanf(p, "%31s %127s", key, val) != 2)
            continue;
        if (strcmp(key, "pid") == 0)
            o->who.pid = strtol(val, NULL, 10);
        else if (strcmp(key, "start_ticks") == 0)
            o->who.start_ticks = strtoull(val, NULL, 10);
        else if (strcmp(key, "boot_id") == 0)
            snprintf(o->who.boot_id, sizeof(o->who.boot_id), "%.39s", val);
        else if (strcmp(key, "state") == 0)
            o->kept = strcmp(val, "kept") == 0;
    }
    return o->who.pid > 0 ? 0 : -1;
}

/* Write datadir/tpccbench.owner (0600, atomically) naming this process. */
static int owner_write(const struct managed_pg *m, int kept, struct err *e)
{
    struct proc_id me;
    char text[512];
    int n;

    proc_self(&me);
    n = snprintf(text, sizeof(text),
                 "# Written by tpccbench: the command that owns this private server.\n"
                 "# owned: that command stops it at its end (or, once it is gone, the next\n"
                 "# command adopts it); kept: left running on purpose (--keep-server).\n"
                 "pid %ld\nstart_ticks %llu\nboot_id %s\nstate %s\n",
                 (long)getpid(), me.start_ticks, me.boot_id[0] ? me.boot_id : "-",
                 kept ? "kept" : "owned");
    return file_write_private(m, OWNER_FILE, text, (size_t)n, e);
}

static void owner_remove(const struct managed_pg *m)
{
    char path[4096];

    if (path_join(path, sizeof(path), m->datadir, OWNER_FILE) == 0)
        unlink(path);
}

/*
 * What a running server is to this command, from its owner file: its
 * owner's command still runs (SHARED; *mine when that is this process),
 * it was left running on purpose or without an owner file (KEPT), or its
 * owner is gone (ADOPTED).  m->owner_pid: the pid the file names.
 */
static int owner_how(struct managed_pg *m, int *mine)
{
    struct owner o;

    *mine = 0;
    m->owner_pid = 0;
    if (owner_read(m, &o) < 0)
        return MANAGED_KEPT;
    m->owner_pid = o.who.pid;
    if (strcmp(o.who.boot_id, "-") == 0)
        o.who.boot_id[0] = '\0';
    if (o.kept)
        return MANAGED_KEPT;
    if (proc_judge(&o.who) != PROC_ALIVE)
        return MANAGED_ADOPTED;
    *mine = o.who.pid == (long)getpid();
    return MANAGED_SHARED;
}

/* Where the server of pf listens, for messages: "127.0.0.1:5433" or "its Unix socket only". */
static void pf_where(const struct pidfile *pf, char *buf, size_t len)
{
    if (pf->listen[0])
        snprintf(buf, len, "%s:%d", pf->listen, pf->port);
    else
        snprintf(buf, len, "its Unix socket only (no TCP)");
}

/* A running server listens elsewhere than port asks, and it is not ours to restart. */
static int refuse_mismatch(const struct managed_pg *m, const struct pidfile *pf, int port,
                           struct err *e)
{
    char where[300], why[160];

    pf_where(pf, where, sizeof(where));
    if (m->how == MANAGED_SHARED)
        snprintf(why, sizeof(why), "tpccbench pid %ld uses it now", m->owner_pid);
    else if (m->owner_pid)
        snprintf(why, sizeof(why), "it was left running on purpose (--keep-server, pid %ld)",
                 m->owner_pid);
    else
        snprintf(why, sizeof(why), "it has no %s: tpccbench did not start it", OWNER_FILE);
    return err_set(e, E_USAGE,
                   "the private PostgreSQL running on '%s' listens on %s, but the config asks "
                   "for 127.0.0.1:%d (database.port), and this command may not restart it (%s): "
                   "stop it (tpccbench server stop --datadir '%s') and run again, or set "
                   "database.port to %d",
                   m->datadir, where, port, why, m->datadir, pf->listen[0] ? pf->port : 0);
}

/*
 * A server runs on m->datadir: wait until it is ready, decide what it is to
 * this command (owner_how), and when it listens elsewhere than port asks,
 * stop it when it may (ours or adopted: returns 1, the caller starts it
 * again with port) or refuse.  Else attach: 0, m filled, and an adopted one
 * owned by this process from now on (m->started 1).
 */
static int attach_running(struct managed_pg *m, struct pidfile *pf, int port, struct err *e)
{
    struct runas ra = { 0 };
    int rc, mine;

    if ((rc = reuse_running(m, pf, e)) < 0)
        return rc;
    m->how = owner_how(m, &mine);
    rc = pick_existing_user(m, e);
    if (rc == 0)
        rc = runas_init(&ra, m->run_uid, m->run_gid, m->hide_env, e);
    if (rc == 0 && port && (strcmp(pf->listen, "127.0.0.1") != 0 || pf->port != port)) {
        if (m->how != MANAGED_ADOPTED && !mine)
            rc = refuse_mismatch(m, pf, port, e);
        else if ((rc = server_stop(m, &ra, e)) == 0) {
            sockdir_drop(m);
            m->port = port;
            m->socket_port = port;
            runas_release(&ra);
            return 1;
        }
    }
    if (rc == 0 && m->how == MANAGED_ADOPTED && (rc = owner_write(m, 0, e)) == 0) {
        m->started = 1;
        sig_set_server_pid(pf->pid);
    }
    if (rc == 0)
        rc = ensure_db(m, &ra, e);
    if (rc == 0)
        rc = pass_ensure(m, &ra, e);
    runas_release(&ra);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */
/* ------------------------------------------------------------------ */

/* The arguments of managed_start, before anything is touched. */
static int start_args(struct managed_pg *m, const char *datadir, int port, const char *hide_env,
                      struct err *e)
{
    int rc;

    if (hide_env && strlen(hide_env) >= sizeof(m->hide_env))
        return err_set(e, E_USAGE, "environment variable name '%.40s...' is too long", hide_env);
    snprintf(m->hide_env, sizeof(m->hide_env), "%s", hide_env ? hide_env : "");
    if (!datadir || !*datadir)
        return err_set(e, E_USAGE, "no datadir given for the managed PostgreSQL");
    if (port < 0 || port > 65535)
        return err_set(e, E_USAGE,
                       "port %d is out of range: give 1 to 65535, or 0 for the Unix socket only",
                       port);
    /* pg_ctl hands -D and -l to /bin/sh inside double quotes. */
    for (const char *p = datadir; *p; p++) {
        if (strchr("\"\\$`", *p) || (unsigned char)*p < 0x20)
            return err_set(e, E_USAGE,
                           "datadir '%s' must not contain quotes, backslashes, '$', '`' or control "
                           "characters (pg_ctl passes it through a shell)",
                           datadir);
    }
    rc = managed_find_bindir(m->bindir, sizeof(m->bindir), e);
    if (rc == 0)
        rc = make_absolute(datadir, m->datadir, sizeof(m->datadir), e);
    m->port = port;
    m->socket_port = port ? port : DEFAULT_PORT;
    return rc;
}

/* An existing cluster that does not run: its user, the way to it, a socket, our include. */
static int prepare_existing(struct managed_pg *m, struct runas *ra, struct err *e)
{
    int rc = pick_existing_user(m, e);

    if (rc == 0)
        rc = runas_init(ra, m->run_uid, m->run_gid, m->hide_env, e);
    if (rc == 0)
        rc = check_reachable(ra, m->datadir, e);
    if (rc == 0)
        rc = sockdir_choose(m, e);
    if (rc == 0)
        rc = conf_ensure_include(m, e);
    return rc;
}

/* A new cluster: its user, mkdir -p, an empty directory of its user's, initdb. */
static int prepare_new(struct managed_pg *m, struct runas *ra, struct err *e)
{
    int rc = pick_new_user(m, e);

    if (rc == 0)
        rc = runas_init(ra, m->run_uid, m->run_gid, m->hide_env, e);
    if (rc == 0)
        rc = mkdir_p(m->datadir, e);
    if (rc == 0)
        rc = datadir_prepare(m, e);
    if (rc == 0)
        rc = check_reachable(ra, m->datadir, e);
    if (rc == 0)
        rc = sockdir_choose(m, e);
    if (rc == 0)
        rc = cluster_init(m, ra, e);
    return rc;
}

/* The load's settings file: written (on) with wal_level minimal and no WAL
 * senders, or removed (off). */
static int load_conf_write(const struct managed_pg *m, int on, struct err *e)
{
    static const char text[] = "# Written by tpccbench for a load, removed after it (and at "
                               "every start).\n"
                               "wal_level = minimal\n"
                               "max_wal_senders = 0\n";
    char path[4096], ebuf[128];

    if (on)
        return file_write_private(m, LOAD_CONF, text, strlen(text), e);
    if (path_join(path, sizeof(path), m->datadir, LOAD_CONF) < 0)
        return err_set(e, E_USAGE, "datadir '%s' is too long", m->datadir);
    if (unlink(path) < 0 && errno != ENOENT)
        return err_set(e, E_FAIL, "cannot remove '%s': %s", path,
                       err_errno(errno, ebuf, sizeof(ebuf)));
    return 0;
}

/* "wal_level|max_wal_senders" as the running server has them, into out. */
static int show_wal_settings(const struct managed_pg *m, const struct runas *ra, char *out,
                             size_t len, struct err *e)
{
    char port[16];
    int rc;

    snprintf(port, sizeof(port), "%d", m->socket_port);
    {
        const char *args[] = { "-X", "-q", "-h", m->sockdir, "-p", port, "-U", MANAGED_USER,
                               "-d", "postgres", "-tAc",
                               "select current_setting('wal_level') || '|' || "
                               "current_setting('max_wal_senders')",
                               NULL };
        rc = run_tool(m, ra, "psql", args, out, len, e);
    }
    if (rc < 0)
        return err_prefix(e, "reading wal_level on '%s'", m->datadir);
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

int managed_load_settings(struct managed_pg *m, int on, char *got, size_t len, struct err *e)
{
    struct runas ra;
    struct pidfile pf;
    struct err scratch;
    int rc, lock = -1;

    if (!m->started)
        return err_set(e, E_USAGE, "the server on '%s' is not this command's to restart",
                       m->datadir);
    datadir_lock(m, &lock, &scratch);
    rc = runas_init(&ra, m->run_uid, m->run_gid, m->hide_env, e);
    if (rc == 0 && (rc = load_conf_write(m, on, e)) == 0 && (rc = server_stop(m, &ra, e)) == 0) {
        sig_set_server_pid(0);
        rc = server_start(m, &ra, e);
        /* A server that refuses them (archive_mode on) runs without: got says so. */
        if (rc < 0 && on && load_conf_write(m, 0, &scratch) == 0)
            rc = server_start(m, &ra, e);
    }
    if (rc == 0 && pidfile_read(m->datadir, &pf))
        sig_set_server_pid(pf.pid);
    if (rc == 0)
        rc = show_wal_settings(m, &ra, got, len, e);
    runas_release(&ra);
    if (lock >= 0)
        close(lock);
    return rc;
}

/* Start the prepared cluster as its owner: settings, the owner file, pg_ctl start, database. */
static int start_owned(struct managed_pg *m, const struct runas *ra, struct err *e)
{
    struct pidfile pf;
    struct err scratch;
    int rc = conf_write_runtime(m, e);

    /* A load's settings left by a command that died go: a start is the run's own. */
    if (rc == 0)
        rc = load_conf_write(m, 0, e);
    /* Written before the start: a server of ours never runs without it. */
    if (rc == 0)
        rc = owner_write(m, 0, e);
    if (rc == 0) {
        rc = server_start(m, ra, e);
        /* pg_ctl -w gives up after its timeout while the server may still come up. */
        if (rc < 0 && pidfile_read(m->datadir, &pf))
            server_stop(m, ra, &scratch);
    }
    if (rc < 0)
        return rc;
    m->started = 1;
    if (m->how != MANAGED_ADOPTED)
        m->how = MANAGED_STARTED;
    if (pidfile_read(m->datadir, &pf))
        sig_set_server_pid(pf.pid);
    rc = ensure_db(m, ra, e);
    if (rc == 0)
        rc = pass_ensure(m, ra, e);
    if (rc < 0) {
        server_stop(m, ra, &scratch);
        owner_remove(m);
        sig_set_server_pid(0);
        m->started = 0;
    }
    return rc;
}

/* managed_start under the data directory's lock. */
static int start_locked(struct managed_pg *m, int port, struct err *e)
{
    struct runas ra = { 0 };
    struct pidfile pf;
    int have = cluster_exists(m->datadir, e), rc;

    if (have < 0)
        return have;
    if (have) {
        char real[4096], ebuf[128];
        if (!realpath(m->datadir, real))
            return err_set(e, E_FAIL, "cannot resolve '%s': %s", m->datadir,
                           err_errno(errno, ebuf, sizeof(ebuf)));
        snprintf(m->datadir, sizeof(m->datadir), "%s", real);
        if (pidfile_read(m->datadir, &pf) && (rc = attach_running(m, &pf, port, e)) <= 0)
            return rc;
        rc = prepare_existing(m, &ra, e);
    } else {
        rc = prepare_new(m, &ra, e);
    }
    if (rc == 0)
        rc = start_owned(m, &ra, e);
    if (rc < 0)
        sockdir_drop(m);
    runas_release(&ra);
    return rc;
}

int managed_start(struct managed_pg *m, const char *datadir, int port, const char *hide_env,
                  struct err *e)
{
    return managed_start_flags(m, datadir, port, hide_env, 0, e);
}

int managed_start_flags(struct managed_pg *m, const char *datadir, int port, const char *hide_env,
                        unsigned flags, struct err *e)
{
    int lock = -1, rc;

    memset(m, 0, sizeof(*m));
    m->how = MANAGED_STARTED;
    m->sock_away = (flags & MANAGED_SOCK_AWAY) != 0;
    if ((rc = start_args(m, datadir, port, hide_env, e)) < 0 ||
        (rc = datadir_lock(m, &lock, e)) < 0)
        return rc;
    rc = start_locked(m, port, e);
    close(lock);
    return rc;
}

/* 1 while a process of group pgid is alive (a zombie is not: it only
 * waits for its parent to reap it). */
static int group_alive(pid_t pgid)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int alive = 0;

    if (!d)
        return kill(-pgid, 0) == 0;
    while (!alive && (de = readdir(d)) != NULL) {
        char path[300], text[1024], *close_paren;
        char state;
        long pgrp;
        ssize_t n;
        int fd;
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            continue;
        n = read(fd, text, sizeof(text) - 1);
        close(fd);
        if (n <= 0)
            continue;
        text[n] = '\0';
        /* "pid (comm) state ppid pgrp ...": comm may hold blanks and parentheses. */
        if (!(close_paren = strrchr(text, ')')) ||
            sscanf(close_paren + 1, " %c %*d %ld", &state, &pgrp) != 2)
            continue;
        alive = pgrp == (long)pgid && state != 'Z' && state != 'X';
    }
    closedir(d);
    return alive;
}

int managed_crash(struct managed_pg *m, struct err *e)
{
    struct pidfile pf;
    pid_t pgid;
    char ebuf[128];

    if (!m->started)
        return err_set(e, E_USAGE, "the private PostgreSQL on '%s' is not this command's to crash",
                       m->datadir);
    if (!pidfile_read(m->datadir, &pf))
        return err_set(e, E_FAIL, "no PostgreSQL runs on '%s' to crash", m->datadir);
    pgid = getpgid((pid_t)pf.pid);
    if (pgid <= 0 || pgid == getpgrp())
        return err_set(e, E_FAIL, "the postmaster %ld has no process group of its own", pf.pid);
    sig_set_server_pid(0);
    if (kill(-pgid, SIGKILL) < 0)
        return err_set(e, E_FAIL, "cannot kill the server's processes (group %ld): %s",
                       (long)pgid, err_errno(errno, ebuf, sizeof(ebuf)));
    /* Gone, and the postmaster reaped: a start refuses a lock file whose pid
     * still answers kill(0), and a zombie does. */
    for (int i = 0; i < 300 && (group_alive(pgid) || kill((pid_t)pf.pid, 0) == 0); i++)
        sleep_ms(100);
    if (group_alive(pgid) || kill((pid_t)pf.pid, 0) == 0)
        return err_set(e, E_FAIL, "the server's processes (group %ld) are still there 30 s after "
                                  "SIGKILL", (long)pgid);
    return 0;
}

int managed_restart(struct managed_pg *m, struct err *e)
{
    char datadir[sizeof(m->datadir)], hide[sizeof(m->hide_env)];
    int port = m->port;
    unsigned flags = m->sock_away ? MANAGED_SOCK_AWAY : 0;

    if (!m->started)
        return err_set(e, E_USAGE, "the private PostgreSQL on '%s' is not this command's to "
                                   "restart", m->datadir);
    snprintf(datadir, sizeof(datadir), "%s", m->datadir);
    snprintf(hide, sizeof(hide), "%s", m->hide_env);
    if (m->sockdir_tmp) {
        /* What the killed server left in our socket directory, so it goes. */
        char p[sizeof(m->sockdir) + 40];
        snprintf(p, sizeof(p), "%s/.s.PGSQL.%d", m->sockdir, m->socket_port);
        unlink(p);
        snprintf(p, sizeof(p), "%s/.s.PGSQL.%d.lock", m->sockdir, m->socket_port);
        unlink(p);
    }
    sockdir_drop(m);
    return managed_start_flags(m, datadir, port, hide[0] ? hide : NULL, flags, e);
}

int managed_keep(struct managed_pg *m, struct err *e)
{
    int rc;

    if (!m->started)
        return 0;
    if ((rc = owner_write(m, 1, e)) < 0)
        return rc;
    m->started = 0;
    sig_set_server_pid(0);
    return 0;
}

int managed_stop(struct managed_pg *m, struct err *e)
{
    struct runas ra;
    struct err scratch;
    int rc, lock = -1;

    if (!m->started)
        return 0;
    /* Under the lock: a command starting now waits for the stop, then starts its own. */
    datadir_lock(m, &lock, &scratch);
    rc = runas_init(&ra, m->run_uid, m->run_gid, m->hide_env, e);
    if (rc == 0)
        rc = server_stop(m, &ra, e);
    runas_release(&ra);
    if (rc == 0)
        owner_remove(m);
    if (lock >= 0)
        close(lock);
    if (rc < 0)
        return rc;
    m->started = 0;
    sig_set_server_pid(0);
    sockdir_drop(m);
    return 0;
}

/* ------------------------------------------------------------------ */
/* A server named by its data directory (`tpccbench server`)           */
/* ------------------------------------------------------------------ */

/* mi (but its datadir) from m->datadir's postmaster.pid and owner file, as owner_how judges. */
static void inspect_fill(const struct managed_pg *m, struct managed_info *mi)
{
    struct pidfile pf;
    struct owner o;
    struct err scratch;

    mi->cluster = cluster_exists(m->datadir, &scratch) == 1;
    mi->running = mi->cluster && pidfile_read(m->datadir, &pf);
    if (mi->running) {
        mi->pm_pid = pf.pid;
        snprintf(mi->pm_status, sizeof(mi->pm_status), "%s", pf.status);
        snprintf(mi->sockdir, sizeof(mi->sockdir), "%s", pf.sockdir);
        mi->port = pf.port > 0 ? pf.port : DEFAULT_PORT;
        snprintf(mi->listen, sizeof(mi->listen), "%s", pf.listen);
    }
    if (owner_read(m, &o) == 0) {
        mi->owner_file = 1;
        mi->owner_kept = o.kept;
        mi->owner_pid = o.who.pid;
        if (strcmp(o.who.boot_id, "-") == 0)
            o.who.boot_id[0] = '\0';
        mi->owner_alive = proc_judge(&o.who) == PROC_ALIVE;
        if (mi->owner_alive)
            proc_command(o.who.pid, mi->owner_cmd, sizeof(mi->owner_cmd));
    }
    if (!mi->owner_file || mi->owner_kept)
        mi->how = MANAGED_KEPT;
    else
        mi->how = mi->owner_alive ? MANAGED_SHARED : MANAGED_ADOPTED;
}

int managed_inspect(const char *datadir, struct managed_info *mi, struct err *e)
{
    struct managed_pg m;
    char real[4096];
    int rc;

    memset(mi, 0, sizeof(*mi));
    memset(&m, 0, sizeof(m));
    if (!datadir || !*datadir)
        return err_set(e, E_USAGE, "no datadir given for the private PostgreSQL");
    if ((rc = make_absolute(datadir, m.datadir, sizeof(m.datadir), e)) < 0)
        return rc;
    /* The path the commands keep (start_locked resolves it too). */
    if (realpath(m.datadir, real))
        snprintf(m.datadir, sizeof(m.datadir), "%s", real);
    inspect_fill(&m, mi);
    snprintf(mi->datadir, sizeof(mi->datadir), "%s", m.datadir);
    return 0;
}

/* managed_stop_datadir under the lock: judge again (a command may have come
 * or gone meanwhile), refuse or stop. */
static int stop_datadir_locked(struct managed_pg *m, int force, struct managed_info *mi,
                               struct err *e)
{
    struct runas ra = { 0 };
    int rc;

    memset(mi, 0, sizeof(*mi));
    snprintf(mi->datadir, sizeof(mi->datadir), "%s", m->datadir);
    inspect_fill(m, mi);
    if (!mi->running)
        return 1;
    if (mi->how == MANAGED_SHARED && !force)
        return err_set(e, E_USAGE,
                       "the private PostgreSQL in '%s' is in use by %s (pid %ld), which owns it "
                       "and stops it at its end: wait for that command to end, or give --force "
                       "to stop the server now (that command then loses its connections)",
                       m->datadir, mi->owner_cmd[0] ? mi->owner_cmd : "a command",
                       mi->owner_pid);
    rc = pick_existing_user(m, e);
    if (rc == 0)
        rc = runas_init(&ra, m->run_uid, m->run_gid, NULL, e);
    if (rc == 0)
        rc = server_stop(m, &ra, e);
    runas_release(&ra);
    if (rc < 0)
        return rc;
    owner_remove(m);
    /* A socket directory of ours under /tmp (a datadir too long for sun_path). */
    if (strncmp(mi->sockdir, "/tmp/tpccbench-", 15) == 0 && strcmp(mi->sockdir, m->datadir) != 0)
        rmdir(mi->sockdir);
    return 0;
}

int managed_stop_datadir(const char *datadir, int force, struct managed_info *mi, struct err *e)
{
    struct managed_pg m;
    int rc, lock = -1;

    if ((rc = managed_inspect(datadir, mi, e)) < 0)
        return rc;
    if (!mi->cluster)
        return err_set(e, E_USAGE,
                       "'%s' holds no PostgreSQL cluster (no PG_VERSION): nothing to stop there; "
                       "name the private server's directory with --datadir, or its config with -c",
                       mi->datadir);
    memset(&m, 0, sizeof(m));
    snprintf(m.datadir, sizeof(m.datadir), "%s", mi->datadir);
    if ((rc = managed_find_bindir(m.bindir, sizeof(m.bindir), e)) < 0 ||
        (rc = datadir_lock(&m, &lock, e)) < 0)
        return rc;
    rc = stop_datadir_locked(&m, force, mi, e);
    close(lock);
    return rc;
}

/* Append key=value to buf at *used, quoting the value when libpq needs it. */
static int conninfo_add(char *buf, size_t len, size_t *used, const char *key, const char *val)
{
    int plain = *val != '\0' && strpbrk(val, " \t\n'\\") == NULL;
    size_t u = *used;
    int n;

    n = snprintf(buf + u, len - u, "%s%s=%s", u ? " " : "", key, plain ? val : "'");
    if (n < 0 || (size_t)n >= len - u)
        return -1;
    u += (size_t)n;
    if (!plain) {
        for (const char *p = val; *p; p++) {
            if (u + 3 >= len)
                return -1;
            if (*p == '\'' || *p == '\\')
                buf[u++] = '\\';
            buf[u++] = *p;
        }
        buf[u++] = '\'';
        buf[u] = '\0';
    }
    *used = u;
    return 0;
}

int managed_conninfo(const struct managed_pg *m, char *buf, size_t len)
{
    char port[16];
    size_t used = 0;

    if (len == 0)
        return E_FAIL;
    buf[0] = '\0';
    snprintf(port, sizeof(port), "%d", m->socket_port ? m->socket_port : DEFAULT_PORT);
    if (conninfo_add(buf, len, &used, "host", m->sockdir) < 0 ||
        conninfo_add(buf, len, &used, "port", port) < 0 ||
        conninfo_add(buf, len, &used, "dbname", MANAGED_DBNAME) < 0 ||
        conninfo_add(buf, len, &used, "user", MANAGED_USER) < 0)
        return E_FAIL;
    return 0;
}

int managed_conninfo_tcp(const struct managed_pg *m, char *buf, size_t len)
{
    char pass[4096];
    size_t used = 0;

    if (len == 0 || path_join(pass, sizeof(pass), m->datadir, PASS_FILE) < 0)
        return E_FAIL;
    buf[0] = '\0';
    if (conninfo_add(buf, len, &used, "dbname", MANAGED_DBNAME) < 0 ||
        conninfo_add(buf, len, &used, "user", MANAGED_USER) < 0 ||
        conninfo_add(buf, len, &used, "passfile", pass) < 0)
        return E_FAIL;
    return 0;
}
