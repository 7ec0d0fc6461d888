/*
 * test_waits.c - unit tests for src/run/waits.c, the wait sampler's pure
 * parts: a session's state and wait event as a key and class; statement
 * text normalised (comments, white space, a final ';') and matched to its
 * transaction type, a text cut by track_activity_query_size by its prefix;
 * the dialect's own statements (postgresql) each found by the text
 * pg_stat_activity shows; COMMIT attributed to the type of the same
 * transaction only; the counts by type and event, merged, their top three
 * without CPU, and their JSON.  Each failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "db/dialect.h"
#include "db/schema_sql.h"
#include "run/waits.h"
#include "tpcc/txn.h"
#include "unit.h"

static void test_keys(void **state)
{
    char k[WAIT_KEY];

    (void)state;
    assert_int_equal(wait_event_key("active", "", "", k, sizeof(k)), WC_CPU);
    assert_string_equal(k, "CPU");
    assert_int_equal(wait_event_key("active", NULL, NULL, k, sizeof(k)), WC_CPU);
    assert_int_equal(wait_event_key("active", "Lock", "transactionid", k, sizeof(k)), WC_LOCK);
    assert_string_equal(k, "Lock:transactionid");
    assert_int_equal(wait_event_key("active", "LWLock", "WALWrite", k, sizeof(k)), WC_LWLOCK);
    assert_int_equal(wait_event_key("active", "IO", "WALSync", k, sizeof(k)), WC_IO);
    assert_int_equal(wait_event_key("active", "IPC", "SyncRep", k, sizeof(k)), WC_IPC);
    assert_int_equal(wait_event_key("active", "Timeout", "PgSleep", k, sizeof(k)), WC_OTHER);
    assert_int_equal(wait_event_key("idle in transaction", "Client", "ClientRead", k, sizeof(k)),
                     WC_CLIENT);
    assert_string_equal(k, "Client");
    assert_int_equal(wait_event_key("idle in transaction (aborted)", "Client", "ClientRead", k,
                                    sizeof(k)),
                     WC_CLIENT);
    /* Between transactions the time is the driver's, not a wait of ours. */
    assert_int_equal(wait_event_key("idle", "Client", "ClientRead", k, sizeof(k)), -1);
    assert_int_equal(wait_event_key(NULL, NULL, NULL, k, sizeof(k)), -1);
    assert_string_equal(wait_class_names[WC_LWLOCK], "lwlock");
}

static void test_norm(void **state)
{
    char out[256];

    (void)state;
    wait_norm("-- a comment\nSELECT  a,\n\tb -- why\nFROM t;\n", out, sizeof(out));
    assert_string_equal(out, "SELECT a, b FROM t");
    wait_norm("   ", out, sizeof(out));
    assert_string_equal(out, "");
    wait_norm("SELECT 1", out, 5);
    assert_string_equal(out, "SELE");
}

static void test_stmts(void **state)
{
    struct wait_stmts m = { 0 };
    char longq[400];

    (void)state;
    assert_int_equal(wait_stmts_add(&m, "-- pay\nUPDATE warehouse SET w_ytd = w_ytd + $1\n"
                                        "WHERE w_id = $2;",
                                    TX_PAYMENT),
                     0);
    assert_int_equal(wait_stmts_type(&m, "UPDATE warehouse SET w_ytd = w_ytd + $1 WHERE w_id = $2"),
                     TX_PAYMENT);
    assert_int_equal(wait_stmts_type(&m, "COMMIT"), -1);
    assert_int_equal(wait_stmts_type(&m, "UPDATE warehouse"), -1); /* too short a prefix */
    memset(longq, 'x', sizeof(longq) - 1);
    longq[sizeof(longq) - 1] = '\0';
    assert_int_equal(wait_stmts_add(&m, longq, TX_STOCK_LEVEL), 0);
    longq[150] = '\0'; /* cut, as track_activity_query_size does */
    assert_int_equal(wait_stmts_type(&m, longq), TX_STOCK_LEVEL);
    /* pg_stat_statements puts "$n" for the constants. */
    assert_int_equal(wait_stmts_add(&m, "UPDATE district SET d_next_o_id = d_next_o_id + 1, "
                                        "d_note = 'it''s' WHERE d_w_id = $1",
                                    TX_NEW_ORDER),
                     0);
    assert_int_equal(wait_stmts_type_words(&m, "UPDATE district SET d_next_o_id = d_next_o_id + "
                                               "$2, d_note = $3 WHERE d_w_id = $1"),
                     TX_NEW_ORDER);
    assert_int_equal(wait_stmts_type_words(&m, "UPDATE district SET d_next_o_id = $2"), -1);
    assert_int_equal(wait_stmts_type_words(&m, "UPDATE warehouse SET w_ytd = w_ytd + $1 "
                                               "WHERE w_id = $2"),
                     TX_PAYMENT);
    wait_stmts_release(&m);
}

/* The statements inside the postgresql procedures, as pg_stat_statements
 * shows them (PL/pgSQL cuts INTO, the server puts $n for constants), are
 * typed by the function they run in; the calls by the function's name. */
static void test_procs(void **state)
{
    struct wait_stmts m = { 0 };
    struct wait_procs p;
    struct dialect d;
    struct err e;

    (void)state;
    assert_int_equal(txn_dialect_load(&d, "postgresql", &e), 0);
    for (int id = 0; id < S_NSTMTS; id++)
        for (int k = 0; txn_stmt_type(id) >= 0 && d.sql[id] && k < d.nsub[id]; k++)
            assert_int_equal(wait_stmts_add(&m, d.sub[id][k].dollar, txn_stmt_type(id)), 0);
    assert_int_equal(wait_procs_parse(&p, schema_sql("postgresql", "procedures"), &m), 0);
    assert_true(p.n >= 5);
    assert_int_equal(wait_procs_type(&p, "SELECT w_tax FROM warehouse WHERE w_id = p_w"),
                     TX_NEW_ORDER);
    assert_int_equal(wait_procs_type(&p, "UPDATE district SET d_next_o_id = d_next_o_id + $1\n"
                                         "    WHERE d_w_id = p_w AND d_id = p_d\n"
                                         "    RETURNING d_tax, d_next_o_id - $2"),
                     TX_NEW_ORDER);
    assert_int_equal(wait_procs_type(&p, "UPDATE warehouse SET w_ytd = w_ytd + p_amount "
                                         "WHERE w_id = p_w RETURNING w_name"),
                     TX_PAYMENT);
    assert_int_equal(wait_procs_type(&p, "SELECT tpcc_payment($1::int, $2::int)"), TX_PAYMENT);
    assert_int_equal(wait_procs_type(&p, "SELECT $1"), -1);       /* too few words */
    wait_procs_release(&p);
    dialect_release(&d);
    wait_stmts_release(&m);
    /* MariaDB's: a procedure's variables as NAME_CONST('name', value). */
    assert_int_equal(txn_dialect_load(&d, "mysql", &e), 0);
    for (int id = 0; id < S_NSTMTS; id++)
        for (int k = 0; txn_stmt_type(id) >= 0 && d.sql[id] && k < d.nsub[id]; k++)
            assert_int_equal(wait_stmts_add(&m, d.sub[id][k].dollar, txn_stmt_type(id)), 0);
    assert_int_equal(wait_procs_parse(&p, schema_sql("mysql", "procedures"), &m), 0);
    assert_int_equal(wait_procs_type(&p, "UPDATE warehouse SET w_ytd = w_ytd +  "
                                         "NAME_CONST('p_amount',653.84) WHERE w_id =  "
                                         "NAME_CONST('p_w',1)"),
                     TX_PAYMENT);
    assert_int_equal(wait_procs_type(&p, "UPDATE district SET d_next_o_id = d_next_o_id + 1 "
                                         "WHERE d_w_id =  NAME_CONST('p_w',1) AND d_id =  "
                                         "NAME_CONST('p_d',2)"),
                     TX_NEW_ORDER);
    assert_int_equal(wait_procs_type(&p, "CALL tpcc_delivery(1, 3)"), TX_DELIVERY);
    assert_int_equal(wait_procs_type(&p, "SELECT x FROM nowhere WHERE y = $1"), -1);
    wait_procs_release(&p);
    wait_stmts_release(&m);
    dialect_release(&d);
}

/* Each statement of the postgresql dialect that has a type is found by its
 * text as sent, with only the statements' own types. */
static void test_dialect(void **state)
{
    struct wait_stmts m = { 0 };
    struct dialect d;
    struct err e;
    int n = 0;

    (void)state;
    assert_int_equal(txn_dialect_load(&d, "postgresql", &e), 0);
    for (int id = 0; id < S_NSTMTS; id++)
        for (int k = 0; txn_stmt_type(id) >= 0 && d.sql[id] && k < d.nsub[id]; k++)
            assert_int_equal(wait_stmts_add(&m, d.sub[id][k].dollar, txn_stmt_type(id)), 0);
    for (int id = 0; id < S_NSTMTS; id++) {
        int t = txn_stmt_type(id);
        if (t < 0 || !d.sql[id])
            continue;
        n++;
        CHECK(wait_stmts_type(&m, d.sub[id][0].dollar) == t, "statement %s: type %d, want %d",
              d.names[id], wait_stmts_type(&m, d.sub[id][0].dollar), t);
    }
    assert_true(n >= 25);
    assert_int_equal(txn_stmt_type(S_PROC_NEW_ORDER), TX_NEW_ORDER);
    assert_int_equal(txn_stmt_type(S_PROC_PAYMENT), TX_PAYMENT);
    assert_int_equal(txn_stmt_type(S_RUN_PING), -1);
    assert_int_equal(txn_stmt_type(S_ISO_SERIALIZABLE), -1);
    assert_int_equal(wait_stmts_type(&m, "select * from tpcc_new_order($1,$2)"), -1);
    wait_stmts_release(&m);
    dialect_release(&d);
}

static void test_attr(void **state)
{
    struct wait_pids *w = calloc(1, sizeof(*w));

    (void)state;
    assert_non_null(w);
    /* COMMIT before anything was seen: unattributed, not guessed. */
    assert_int_equal(wait_attr(w, 7, 1000, -1), -1);
    assert_int_equal(wait_attr(w, 7, 1000, TX_NEW_ORDER), TX_NEW_ORDER);
    assert_int_equal(wait_attr(w, 7, 1000, -1), TX_NEW_ORDER);
    /* Another backend's, and the next transaction's COMMIT, are not this one's. */
    assert_int_equal(wait_attr(w, 8, 1000, -1), -1);
    assert_int_equal(wait_attr(w, 7, 2000, -1), -1);
    assert_int_equal(wait_attr(w, 7, 0, -1), -1);
    assert_int_equal(wait_attr(w, 7, 2000, TX_PAYMENT), TX_PAYMENT);
    assert_int_equal(wait_attr(w, 7, 2000, -1), TX_PAYMENT);
    assert_int_equal(w->n, 1);
    free(w);
}

static void test_agg(void **state)
{
    struct wait_agg *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    int top[3], n;
    json_t *j;

    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    for (int i = 0; i < 5; i++)
        wait_agg_add(a, TX_PAYMENT, "CPU");
    for (int i = 0; i < 3; i++)
        wait_agg_add(a, TX_PAYMENT, "Lock:transactionid");
    wait_agg_add(a, TX_PAYMENT, "LWLock:WALWrite");
    wait_agg_add(a, TX_PAYMENT, "Client");
    wait_agg_add(a, -1, "IO:WALSync");
    wait_agg_bg(a, "walwriter", "IO:WALWrite");
    a->rounds = 2;
    for (int i = 0; i < 4; i++)
        wait_agg_add(b, TX_PAYMENT, "Lock:tuple");
    wait_agg_add(b, TX_NEW_ORDER, "IO:WALSync");
    wait_agg_bg(b, "walwriter", "IO:WALWrite");
    wait_agg_bg(b, "checkpointer", "CPU");
    b->rounds = 3;
    wait_agg_merge(a, b);
    assert_int_equal(a->rounds, 5);
    assert_int_equal(a->type_samples[TX_PAYMENT], 14);
    assert_int_equal(a->type_samples[TX_NEW_ORDER], 1);
    assert_int_equal(a->unattributed, 1);
    assert_int_equal(a->cls[WC_CPU], 5);
    assert_int_equal(a->cls[WC_LOCK], 7);
    assert_int_equal(a->cls[WC_IO], 2);
    assert_int_equal(a->cls[WC_CLIENT], 1);
    /* Most first, CPU left out; ties by name (Client before LWLock:WALWrite). */
    n = wait_agg_top(a, TX_PAYMENT, top, 3);
    assert_int_equal(n, 3);
    assert_string_equal(a->ev[top[0]], "Lock:tuple");
    assert_string_equal(a->ev[top[1]], "Lock:transactionid");
    assert_string_equal(a->ev[top[2]], "Client");
    assert_int_equal(wait_agg_top(a, TX_DELIVERY, top, 3), 0);
    j = wait_agg_by_type(a);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "payment"), "samples")),
                     14);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(j, "payment"), "events"), "Lock:tuple")),
                     4);
    assert_int_equal(json_object_size(json_object_get(json_object_get(j, "delivery"), "events")),
                     0);
    json_decref(j);
    j = wait_agg_background(a);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "walwriter"), "samples")),
                     2);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(j, "checkpointer"), "events"), "CPU")),
                     1);
    json_decref(j);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),   cmocka_unit_test(test_norm),
        cmocka_unit_test(test_stmts),  cmocka_unit_test(test_dialect), cmocka_unit_test(test_procs),
        cmocka_unit_test(test_attr),   cmocka_unit_test(test_agg),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
