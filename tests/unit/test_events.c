/*
 * test_events.c - unit tests for src/run/events.c, the run's checkpoints
 * and autovacuums: an autovacuum worker's query as its table and what it
 * does (ours only); a checkpoint from the control file's time alone, and
 * from the checkpointer seen busy (the sighting wins when it lies in the
 * control file's second); a busy run long ago is not this checkpoint's
 * start; an autovacuum seen over samples, and one only the counters saw;
 * times on series.csv's seconds; the JSON with an open checkpoint.  Each
 * failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "run/events.h"
#include "unit.h"

#define S 1000000ull /* a second, us */

static void test_query(void **state)
{
    char t[40], w[40];

    (void)state;
    assert_int_equal(events_autovacuum_query("autovacuum: VACUUM ANALYZE public.stock", t,
                                             sizeof(t), w, sizeof(w)),
                     0);
    assert_string_equal(t, "stock");
    assert_string_equal(w, "VACUUM ANALYZE");
    assert_int_equal(events_autovacuum_query("autovacuum: ANALYZE public.new_order", t, sizeof(t),
                                             w, sizeof(w)),
                     0);
    assert_string_equal(t, "new_order");
    assert_string_equal(w, "ANALYZE");
    assert_int_equal(events_autovacuum_query(
                         "autovacuum: VACUUM public.orders (to prevent wraparound)", t, sizeof(t),
                         w, sizeof(w)),
                     0);
    assert_string_equal(t, "orders");
    assert_int_equal(events_autovacuum_query("autovacuum: VACUUM pg_catalog.pg_class", t,
                                             sizeof(t), w, sizeof(w)),
                     -1);
    assert_int_equal(events_autovacuum_query("SELECT 1", t, sizeof(t), w, sizeof(w)), -1);
}

static void test_checkpoint(void **state)
{
    struct run_events *e = calloc(1, sizeof(*e));

    (void)state;
    /* The first poll is the baseline: no event. */
    events_poll_checkpoint(e, 1000.0, 1010.0, 100 * S);
    assert_int_equal(e->n, 0);
    /* Not seen busy: the control file's start, the poll's end. */
    events_poll_checkpoint(e, 1012.0, 1013.5, 103 * S + S / 2);
    CHECK(e->n == 1 && e->ev[0].start_us == 102 * S && e->ev[0].end_us == 103 * S + S / 2,
          "n %d start %" PRIu64 " end %" PRIu64, e->n, e->ev[0].start_us, e->ev[0].end_us);
    assert_string_equal(e->ev[0].start_from, "pg_control_checkpoint");
    /* Seen busy within its second: the sightings give start and end. */
    events_seen_checkpointer(e, 110 * S + 300000);
    events_seen_checkpointer(e, 110 * S + 400000);
    events_seen_checkpointer(e, 111 * S + 100000);
    events_poll_checkpoint(e, 1020.0, 1021.5, 111 * S + S / 2);
    CHECK(e->n == 2 && e->ev[1].start_us == 110 * S + 300000 &&
              e->ev[1].end_us == 111 * S + 100000,
          "start %" PRIu64 " end %" PRIu64, e->ev[1].start_us, e->ev[1].end_us);
    assert_string_equal(e->ev[1].start_from, "pg_stat_activity");
    /* A busy sighting long before the checkpoint's second is not its start. */
    events_seen_checkpointer(e, 115 * S);
    events_poll_checkpoint(e, 1030.0, 1030.5, 120 * S + S / 2);
    CHECK(e->n == 3 && e->ev[2].start_us == 120 * S, "start %" PRIu64, e->ev[2].start_us);
    assert_string_equal(e->ev[2].start_from, "pg_control_checkpoint");
    free(e);
}

static void test_autovacuum(void **state)
{
    struct run_events *e = calloc(1, sizeof(*e));

    (void)state;
    events_poll_autovacuum(e, "stock", 3, 0, 1000.0, 100 * S);
    events_poll_autovacuum(e, "district", 5, 0, 1000.0, 100 * S);
    events_poll_end(e, 100 * S);
    /* Seen in two samples, gone in the third: one event, ended at its last. */
    events_seen_autovacuum(e, 42, "stock", "VACUUM", 100 * S + 100000);
    events_sample_end(e);
    events_seen_autovacuum(e, 42, "stock", "VACUUM", 100 * S + 200000);
    events_sample_end(e);
    assert_int_equal(e->ev[0].open, 1);
    events_sample_end(e);
    CHECK(e->n == 1 && !e->ev[0].open && e->ev[0].start_us == 100 * S + 100000 &&
              e->ev[0].end_us == 100 * S + 200000,
          "n %d open %d", e->n, e->ev[0].open);
    /* Its count moving adds nothing; district's, never seen, adds its end. */
    events_poll_autovacuum(e, "stock", 4, 1000.2, 1001.0, 101 * S);
    events_poll_autovacuum(e, "district", 6, 1000.5, 1001.0, 101 * S);
    CHECK(e->n == 2 && e->ev[1].start_us == 100 * S + S / 2 && e->ev[1].end_us == e->ev[1].start_us,
          "n %d", e->n);
    assert_string_equal(e->ev[1].table, "district");
    assert_string_equal(e->ev[1].start_from, "pg_stat_user_tables");
    free(e);
}

static void test_second_json(void **state)
{
    const uint64_t tu[] = { 10 * S, 11 * S, 13 * S };
    const int ts[] = { 1, 2, 3 }; /* second 3 took two seconds to sample */
    struct run_events *e = calloc(1, sizeof(*e));
    json_t *j, *o;

    (void)state;
    assert_true(fabs(events_second(10 * S + S / 2, tu, ts, 3) - 1.5) < 1e-9);
    assert_true(fabs(events_second(12 * S, tu, ts, 3) - 2.5) < 1e-9);
    assert_true(fabs(events_second(9 * S + S / 4, tu, ts, 3) - 0.25) < 1e-9);
    assert_true(fabs(events_second(14 * S, tu, ts, 3) - 4) < 1e-9);
    assert_true(isnan(events_second(S, tu, ts, 0)));
    /* A checkpointer busy for the last 1.5 s is an open checkpoint. */
    events_seen_checkpointer(e, 11 * S + S / 2);
    events_seen_checkpointer(e, 13 * S);
    j = events_json(e, tu, ts, 3, 13 * S);
    assert_int_equal(json_array_size(j), 1);
    o = json_array_get(j, 0);
    assert_string_equal(json_string_value(json_object_get(o, "kind")), "checkpoint");
    assert_true(json_is_null(json_object_get(o, "end_s")));
    assert_true(fabs(json_real_value(json_object_get(o, "start_s")) - 2.25) < 1e-9);
    json_decref(j);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query),
        cmocka_unit_test(test_checkpoint),
        cmocka_unit_test(test_autovacuum),
        cmocka_unit_test(test_second_json),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
