/*
 * signals.c - the stop flag and its handlers.
 */
#include "core/signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signo;
/* A server we started (the managed PostgreSQL's postmaster), 0 = none. */
static volatile sig_atomic_t server_pid;

static void on_stop(int signo)
{
    static const char msg[] = "\ntpccbench: second interrupt, exiting now\n";

    if (stop_signo) {
        ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)w;
        /* Fast shutdown of our private server: it must not outlive us. */
        if (server_pid > 0)
            kill((pid_t)server_pid, SIGINT);
        _exit(128 + signo);
    }
    stop_signo = signo;
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
    return stop_signo;
}

int sig_exit_code(void)
{
    return stop_signo ? 128 + stop_signo : 0;
}

void sig_request_stop(int signo)
{
    stop_signo = signo;
}

void sig_set_server_pid(long pid)
{
    server_pid = (sig_atomic_t)pid;
}
