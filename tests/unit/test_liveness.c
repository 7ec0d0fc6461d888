/*
 * test_liveness.c - unit tests for a process named by pid, start time and
 * boot id (src/core/proc.c) and for record_liveness() and
 * runrec_mark_crashed() (src/results/record.c, runrec.c), which judge a run record
 * that says "running": this process (alive), a child that has ended and
 * been reaped (gone), the same pid with another start time (gone: the pid
 * was reused), another boot id (before the last boot), another host and
 * no pid at all (cannot tell), a record already marked crashed and one
 * that finished.  Each failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/proc.h"
#include "results/record.h"
#include "results/runrec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A pid that ran and is gone: a child that exited at once, reaped. */
static long gone_pid(void)
{
    pid_t p = fork();

    if (p == 0)
        _exit(0);
    assert_true(p > 0);
    assert_int_equal(waitpid(p, NULL, 0), p);
    return (long)p;
}

static void test_proc_self(void **state)
{
    struct proc_id me, other;

    (void)state;
    assert_int_equal(proc_self(&me), 0);
    assert_int_equal(me.pid, (long)getpid());
    assert_true(me.start_ticks > 0);
    assert_int_equal(strlen(me.boot_id), 36);
    assert_int_equal(proc_judge(&me), PROC_ALIVE);

    other = me;
    other.start_ticks++;
    assert_int_equal(proc_judge(&other), PROC_GONE);
    other = me;
    snprintf(other.boot_id, sizeof(other.boot_id), "00000000-0000-0000-0000-000000000000");
    assert_int_equal(proc_judge(&other), PROC_OTHER_BOOT);
    other = me;
    other.pid = gone_pid();
    other.start_ticks = 0;
    assert_int_equal(proc_judge(&other), PROC_GONE);
    /* Unknown parts are not compared: the pid alone. */
    other = me;
    other.start_ticks = 0;
    other.boot_id[0] = '\0';
    assert_int_equal(proc_judge(&other), PROC_ALIVE);
}

/* A record saying status, written by "process" p (NULL: none). */
static json_t *rec_of(const char *status, json_t *p)
{
    json_t *r = json_pack("{s:s}", "status", status);

    if (p)
        json_object_set_new(r, "process", p);
    return r;
}

static void expect(json_t *rec, int life, const char *why)
{
    char got[160];
    int l = record_liveness(rec, got, sizeof(got));

    if (l != life || strcmp(got, why) != 0)
        fail_msg("record_liveness: got %d '%s', want %d '%s'", l, got, life, why);
    json_decref(rec);
}

static void test_liveness(void **state)
{
    char want[160];
    json_t *p;
    long dead = gone_pid();

    (void)state;
    expect(rec_of("complete", record_process()), RECORD_ENDED, "complete");
    snprintf(want, sizeof(want), "running (pid %ld)", (long)getpid());
    expect(rec_of("running", record_process()), RECORD_RUNNING, want);

    p = record_process();
    json_object_set_new(p, "pid", json_integer(dead));
    snprintf(want, sizeof(want), "crashed (pid %ld gone)", dead);
    expect(rec_of("running", p), RECORD_CRASHED, want);

    p = record_process();
    json_object_set_new(p, "start_ticks",
                        json_integer(json_integer_value(json_object_get(p, "start_ticks")) + 1));
    snprintf(want, sizeof(want), "crashed (pid %ld gone)", (long)getpid());
    expect(rec_of("running", p), RECORD_CRASHED, want);

    p = record_process();
    json_object_set_new(p, "boot_id", json_string("00000000-0000-0000-0000-000000000000"));
    snprintf(want, sizeof(want), "crashed (pid %ld, before the last boot)", (long)getpid());
    expect(rec_of("running", p), RECORD_CRASHED, want);

    p = record_process();
    json_object_set_new(p, "hostname", json_string("elsewhere.example"));
    snprintf(want, sizeof(want),
             "running (pid %ld on host elsewhere.example: cannot tell from here)", (long)getpid());
    expect(rec_of("running", p), RECORD_UNKNOWN, want);

    expect(rec_of("running", NULL), RECORD_UNKNOWN,
           "running (no pid recorded: it crashed, or still runs)");
    {
        json_t *r = rec_of("crashed", NULL);
        json_object_set_new(r, "crashed", json_pack("{s:s}", "why", "pid 7 gone"));
        expect(r, RECORD_CRASHED, "crashed (pid 7 gone)");
    }
}

/* runrec_mark_crashed: the dead one is marked, the live and finished ones are left. */
static void test_mark(void **state)
{
    char top[] = "/tmp/tpcc-liveness-XXXXXX", dir[256];
    const char *names[] = { "a-dead", "b-live", "c-done" };
    long dead = gone_pid();
    struct err e;
    json_t *r;

    (void)state;
    assert_non_null(mkdtemp(top));
    for (int i = 0; i < 3; i++) {
        json_t *p = record_process();
        if (i == 0)
            json_object_set_new(p, "pid", json_integer(dead));
        snprintf(dir, sizeof(dir), "%s/%s", top, names[i]);
        assert_int_equal(mkdir(dir, 0755), 0);
        r = rec_of(i == 2 ? "complete" : "running", p);
        assert_int_equal(record_write_json(dir, "run.json", r, &e), 0);
        json_decref(r);
    }
    assert_int_equal(runrec_mark_crashed(top), 1);
    for (int i = 0; i < 3; i++) {
        char path[300], want[64];
        snprintf(path, sizeof(path), "%s/%s/run.json", top, names[i]);
        r = json_load_file(path, 0, NULL);
        assert_non_null(r);
        {
            const char *want_status[] = { "crashed", "running", "complete" };
            assert_string_equal(json_string_value(json_object_get(r, "status")), want_status[i]);
        }
        if (i == 0) {
            json_t *c = json_object_get(r, "crashed");
            snprintf(want, sizeof(want), "pid %ld gone", dead);
            assert_string_equal(json_string_value(json_object_get(c, "why")), want);
            assert_int_equal(json_integer_value(json_object_get(c, "by_pid")), getpid());
            assert_int_equal(strlen(json_string_value(json_object_get(c, "found"))), 20);
        }
        json_decref(r);
    }
    /* Marked once: a second sweep finds nothing more. */
    assert_int_equal(runrec_mark_crashed(top), 0);
    for (int i = 0; i < 3; i++) {
        char path[300];
        snprintf(path, sizeof(path), "%s/%s/run.json", top, names[i]);
        unlink(path);
        snprintf(path, sizeof(path), "%s/%s", top, names[i]);
        rmdir(path);
    }
    rmdir(top);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proc_self),
        cmocka_unit_test(test_liveness),
        cmocka_unit_test(test_mark),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
