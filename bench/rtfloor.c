/*
 * rtfloor.c - the client CPU of one blocking libpq round trip, the floor
 * under tpccbench's driver CPU per transaction in procedure mode (one round
 * trip each).  Connects with the conninfo given (password from PGPASSWORD),
 * prepares "SELECT $1::int", then for each mode runs N round trips:
 *   sync   PQexecPrepared, as tpccbench's procedure mode does;
 *   batch  16 requests per pipeline, each with its own sync point (its own
 *          transaction, as run.batch sends them): the server answers each
 *          sync on its own, so the client may wake once per request;
 *   pipe   the same N as one libpq pipeline, one sync per 100 (one wait for
 *          many requests: what batching could at best give).
 * Prints microseconds of client CPU (user + system, getrusage) and of wall
 * time per round trip.  Built and run by bench/rtfloor.sh; not a test.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_s(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static double wall_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    PGconn *c;
    PGresult *res;
    const char *vals[1];
    char buf[16];
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 20000;
    double c0, w0;

    if (argc < 2) {
        fprintf(stderr, "usage: rtfloor CONNINFO [N]\n");
        return 2;
    }
    c = PQconnectdb(argv[1]);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "rtfloor: %s", PQerrorMessage(c));
        return 1;
    }
    PQclear(PQprepare(c, "s", "SELECT $1::int", 1, NULL));
    vals[0] = buf;

    c0 = cpu_s();
    w0 = wall_s();
    for (long i = 0; i < n; i++) {
        snprintf(buf, sizeof(buf), "%ld", i);
        res = PQexecPrepared(c, "s", 1, vals, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
            fprintf(stderr, "rtfloor: %s", PQerrorMessage(c));
            return 1;
        }
        PQclear(res);
    }
    printf("sync  %ld round trips: %.2f us CPU, %.2f us wall each\n", n, (cpu_s() - c0) * 1e6 / n,
           (wall_s() - w0) * 1e6 / n);

    c0 = cpu_s();
    w0 = wall_s();
    PQenterPipelineMode(c);
    for (long i = 0; i < n; i += 16) {
        long k = n - i < 16 ? n - i : 16, syncs = 0;
        for (long j = 0; j < k; j++) {
            snprintf(buf, sizeof(buf), "%ld", i + j);
            PQsendQueryPrepared(c, "s", 1, vals, NULL, NULL, 0);
            PQpipelineSync(c);
        }
        while (syncs < k) {
            res = PQgetResult(c);
            if (!res)
                continue;
            syncs += PQresultStatus(res) == PGRES_PIPELINE_SYNC;
            PQclear(res);
        }
    }
    PQexitPipelineMode(c);
    printf("batch %ld requests, 16 per pipeline, a sync each: %.2f us CPU, %.2f us wall each\n", n,
           (cpu_s() - c0) * 1e6 / n, (wall_s() - w0) * 1e6 / n);

    c0 = cpu_s();
    w0 = wall_s();
    PQenterPipelineMode(c);
    for (long i = 0; i < n; i++) {
        snprintf(buf, sizeof(buf), "%ld", i);
        PQsendQueryPrepared(c, "s", 1, vals, NULL, NULL, 0);
        if (i % 100 == 99 || i == n - 1) {
            PQpipelineSync(c);
            for (;;) {
                res = PQgetResult(c);
                if (!res)
                    continue;
                if (PQresultStatus(res) == PGRES_PIPELINE_SYNC) {
                    PQclear(res);
                    break;
                }
                PQclear(res);
            }
        }
    }
    PQexitPipelineMode(c);
    printf("pipe  %ld requests, 100 per wait: %.2f us CPU, %.2f us wall each\n", n,
           (cpu_s() - c0) * 1e6 / n, (wall_s() - w0) * 1e6 / n);
    PQfinish(c);
    return 0;
}
