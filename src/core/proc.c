/*
 * proc.c - a process named by pid, start time and boot id (see proc.h),
 * read from /proc.  Must not print or exit.
 */
#include "core/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Read at most len - 1 bytes of path into buf (NUL-terminated); bytes read or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    do
        n = read(fd, buf, len - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

void proc_boot_id(char *buf, size_t len)
{
    char text[128];

    buf[0] = '\0';
    if (read_small("/proc/sys/kernel/random/boot_id", text, sizeof(text)) <= 0)
        return;
    text[strcspn(text, "\r\n")] = '\0';
    snprintf(buf, len, "%s", text);
}

/* Field 22 of /proc/PID/stat (the start time); 0 when it cannot be read. */
static unsigned long long start_ticks(long pid)
{
    char path[64], text[1024], *p, *end;
    unsigned long long v;

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if (read_small(path, text, sizeof(text)) <= 0)
        return 0;
    /* The command name (field 2) is in parentheses and may hold blanks and ')'. */
    p = strrchr(text, ')');
    if (!p)
        return 0;
    p++;
    /* p is before field 3; field 22 is 20 fields further. */
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return 0;
    }
    errno = 0;
    v = strtoull(p + 1, &end, 10);
    return errno || end == p + 1 ? 0 : v;
}

int proc_lookup(long pid, struct proc_id *out)
{
    memset(out, 0, sizeof(*out));
    if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno != EPERM))
        return -1;
    out->pid = pid;
    out->start_ticks = start_ticks(pid);
    proc_boot_id(out->boot_id, sizeof(out->boot_id));
    return 0;
}

int proc_self(struct proc_id *out)
{
    if (proc_lookup((long)getpid(), out) < 0)
        return -1;
    return out->start_ticks && out->boot_id[0] ? 0 : -1;
}

enum proc_state proc_judge(const struct proc_id *who)
{
    struct proc_id now;
    char boot[PROC_BOOT_ID_LEN];

    if (who->boot_id[0]) {
        proc_boot_id(boot, sizeof(boot));
        if (boot[0] && strcmp(boot, who->boot_id) != 0)
            return PROC_OTHER_BOOT;
    }
    if (proc_lookup(who->pid, &now) < 0)
        return PROC_GONE;
    /* A zombie still has its /proc entry: it has ended all the same. */
    {
        char path[64], text[512], *p;
        snprintf(path, sizeof(path), "/proc/%ld/stat", who->pid);
        if (read_small(path, text, sizeof(text)) > 0 && (p = strrchr(text, ')')) && p[1] == ' ' &&
            (p[2] == 'Z' || p[2] == 'X'))
            return PROC_GONE;
    }
    if (who->start_ticks && now.start_ticks && who->start_ticks != now.start_ticks)
        return PROC_GONE;
    return PROC_ALIVE;
}

void proc_command(long pid, char *buf, size_t len)
{
    char path[64], text[512], *base;
    ssize_t n;
    size_t first;

    buf[0] = '\0';
    snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
    if ((n = read_small(path, text, sizeof(text))) <= 0)
        return;
    /* The arguments are NUL-separated: argv[0], then argv[1] when there is one. */
    first = strlen(text);
    base = strrchr(text, '/');
    base = base ? base + 1 : text;
    if ((ssize_t)first + 1 < n && text[first + 1])
        snprintf(buf, len, "%s %s", base, text + first + 1);
    else
        snprintf(buf, len, "%s", base);
}
