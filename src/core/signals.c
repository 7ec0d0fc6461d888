/*
 * signals.c - the stop flag and its handlers.
 *
 * The flag is read by every thread (VUs, loader workers, the monitor) while
 * the handler writes it on whichever thread the signal lands: a plain
 * volatile sig_atomic_t is only good for one thread, so it is a lock-free
 * atomic int (async-signal-safe), read with acquire and written with release.
 */
#include "core/signals.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag must be a lock-free int");
static int stop_signo; /* 0, or the first stop signal; __atomic only */

static int stop_get(void)
{
    return __atomic_load_n(&stop_signo, __ATOMIC_ACQUIRE);
}

static void stop_set(int signo)
{
    __atomic_store_n(&stop_signo, signo, __ATOMIC_RELEASE);
}

/* A server we started (the managed PostgreSQL's postmaster), 0 = none. */
static int server_pid;   /* __atomic only */
static int wake_fd = -1; /* __atomic only */

/* Ring the wake eventfd, if any (write(2) is async-signal-safe). */
static void wake(void)
{
    int fd = __atomic_load_n(&wake_fd, __ATOMIC_ACQUIRE);
    uint64_t one = 1;

    if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
        return; /* a full counter is rung already */
}

static void on_stop(int signo)
{
    static const char msg[] = "\ntpccbench: second interrupt, exiting now\n";

    if (stop_get()) {
        ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)w;
        /* Fast shutdown of our private server: it must not outlive us. */
        int pid = __atomic_load_n(&server_pid, __ATOMIC_ACQUIRE);
        if (pid > 0)
            kill((pid_t)pid, SIGINT);
        _exit(128 + signo);
    }
    stop_set(signo);
    wake();
}

void sig_install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

int sig_stop_requested(void)
{
    return stop_get();
}

int sig_exit_code(void)
{
    int signo = stop_get();

    return signo ? 128 + signo : 0;
}

void sig_request_stop(int signo)
{
    stop_set(signo);
    wake();
}

void sig_set_wake_fd(int fd)
{
    __atomic_store_n(&wake_fd, fd, __ATOMIC_RELEASE);
}

void sig_set_server_pid(long pid)
{
    __atomic_store_n(&server_pid, (int)pid, __ATOMIC_RELEASE);
}
