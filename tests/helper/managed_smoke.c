/*
 * managed_smoke.c - test driver for src/db/managed.c, used by
 * tests/t/0010-managed.sh.
 *
 *   managed_smoke DATADIR start [PORT]   start (or reuse) the server and leave it
 *                                        running (kept, as --keep-server does);
 *                                        print the conninfo on stdout
 *   managed_smoke DATADIR stop           stop the server running on DATADIR
 *   managed_smoke bindir                 print the bindir managed_find_bindir() picks
 *
 * stderr gets "started=N sockdir_tmp=N" after a start, and error messages.
 * Exit codes as in tpccbench: 0 ok, 1 failure, 2 usage, 130 interrupted.
 *
 * SIGINT and SIGTERM are handled as tpccbench must handle them: noted, and
 * once managed_start() returns, a server it started is stopped again.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "db/managed.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: managed_smoke DATADIR start [PORT] | DATADIR stop | bindir\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct managed_pg m;
    struct err e;
    char conninfo[8300], *end;
    long port = 0;

    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    err_clear(&e);
    if (argc == 2 && strcmp(argv[1], "bindir") == 0) {
        char bindir[4096];
        if (managed_find_bindir(bindir, sizeof(bindir), &e) < 0)
            goto fail;
        printf("%s\n", bindir);
        return 0;
    }
    if (argc < 3)
        return usage();
    if (strcmp(argv[2], "start") == 0 && argc <= 4) {
        if (argc == 4) {
            port = strtol(argv[3], &end, 10);
            if (*argv[3] == '\0' || *end != '\0' || port < 0 || port > 65535)
                return usage();
        }
        if (managed_start(&m, argv[1], (int)port, NULL, &e) < 0)
            goto fail;
        if (interrupted) {
            if (managed_stop(&m, &e) < 0)
                goto fail;
            fprintf(stderr, "managed_smoke: interrupted\n");
            return 130;
        }
        if (managed_conninfo(&m, conninfo, sizeof(conninfo)) < 0) {
            err_set(&e, E_FAIL, "conninfo does not fit in %zu bytes", sizeof(conninfo));
            goto fail;
        }
        printf("%s\n", conninfo);
        fprintf(stderr, "started=%d sockdir_tmp=%d\n", m.started, m.sockdir_tmp);
        /* Left running on purpose, as --keep-server does: no later start adopts it. */
        if (managed_keep(&m, &e) < 0)
            goto fail;
        return 0;
    }
    if (strcmp(argv[2], "stop") == 0 && argc == 3) {
        /* Attach to the running server (a reuse), then take it over so that
         * managed_stop() stops it. */
        if (managed_start(&m, argv[1], 0, NULL, &e) < 0)
            goto fail;
        m.started = 1;
        if (managed_stop(&m, &e) < 0)
            goto fail;
        return 0;
    }
    return usage();
fail:
    fprintf(stderr, "managed_smoke: %s\n", e.msg);
    return err_exit_code(e.code);
}
