/*
 * events.h - the run's server events (checkpoints, autovacuums of the
 * schema's tables) from what the wait sampler (run/msrc_waits.c) sees: the
 * pure parts, so that a unit test drives them without a server.
 *
 * Two kinds of evidence, each honest about what it can tell.  The samples
 * of pg_stat_activity (N a second) see the checkpointer busy (its row not
 * idle in its main loop) and an autovacuum worker on a table of ours, so
 * they give starts and ends to a sample's period; a process busy for less
 * than a period may be missed.  The once-a-second counters never miss one:
 * pg_control_checkpoint()'s checkpoint_time changes when a checkpoint
 * completes (and is that checkpoint's start, to the second: PostgreSQL 15
 * counts no checkpoint's start), pg_stat_user_tables' autovacuum and
 * autoanalyze counts move when one ends.  An event is recorded with where
 * its start and end came from.  Times are the driver's clock (clock_us);
 * events_json puts them on series.csv's seconds.  Nothing here locks,
 * prints or talks to a server.
 */
#ifndef TPCC_EVENTS_H
#define TPCC_EVENTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define RUN_EVENTS_MAX 512
#define RUN_EVENTS_TABLES 16

struct run_event {
    char kind[12];     /* "checkpoint", "autovacuum" */
    char table[40];    /* autovacuum: the table */
    char what[40];     /* autovacuum: "VACUUM", "ANALYZE", "VACUUM ANALYZE", ... */
    const char *start_from, *end_from; /* how each was seen (static text) */
    int pid;           /* autovacuum: the worker's process, 0 when not seen */
    int open;          /* still under way at the last sample */
    int seen;          /* autovacuum: seen in the sample being added */
    uint64_t start_us, end_us;
};

struct run_events {
    int n;
    uint64_t dropped; /* events beyond the table (none expected) */
    struct run_event ev[RUN_EVENTS_MAX];
    uint64_t ck_first_us, ck_last_us; /* the checkpointer's current busy run, 0 none */
    double ck_time;                   /* pg_control's checkpoint_time at the last poll */
    int ck_known;                     /* ck_time was read */
    int nav;
    struct {
        char table[40];
        long long n; /* autovacuum_count + autoanalyze_count at the last poll */
    } av[RUN_EVENTS_TABLES];
    uint64_t poll_prev_us; /* the previous poll, 0 none */
};

/* 1 when name is a table of the TPC-C schema. */
int events_our_table(const char *name);
/* An autovacuum worker's query ("autovacuum: VACUUM ANALYZE public.stock")
 * into its table and what it does: 0, or -1 when it is not a table of ours. */
int events_autovacuum_query(const char *query, char *table, size_t tcap, char *what, size_t wcap);

/* One sample of pg_stat_activity at t_us: the checkpointer seen busy, an
 * autovacuum worker seen on a table of ours, then the sample's end (an
 * autovacuum not seen in it has ended). */
void events_seen_checkpointer(struct run_events *e, uint64_t t_us);
void events_seen_autovacuum(struct run_events *e, int pid, const char *table, const char *what,
                            uint64_t t_us);
void events_sample_end(struct run_events *e);

/* One poll of the counters at t_us, the server's clock then server_now
 * (seconds since the epoch): the control file's checkpoint_time, and a
 * table's autovacuum and autoanalyze count with the latest one's end
 * (NaN when none). */
void events_poll_checkpoint(struct run_events *e, double ck_time, double server_now,
                            uint64_t t_us);
void events_poll_autovacuum(struct run_events *e, const char *table, long long n, double last,
                            double server_now, uint64_t t_us);
/* The poll is done (the next one's "since"). */
void events_poll_end(struct run_events *e, uint64_t t_us);

/* t_us on series.csv's seconds (second S spans S - 1 .. S) from the
 * metrics' ticks (tick_us[i] the clock when second tick_sec[i] was
 * sampled, ascending); NaN without ticks. */
double events_second(uint64_t t_us, const uint64_t *tick_us, const int *tick_sec, int n);

/* run.json's "events" list; a checkpointer busy at the end for a second
 * or more (end_us the last sample) is an open checkpoint. */
json_t *events_json(const struct run_events *e, const uint64_t *tick_us, const int *tick_sec,
                    int n, uint64_t end_us);

#endif
