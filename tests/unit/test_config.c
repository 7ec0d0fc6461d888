/*
 * test_config.c - unit tests of src/core/config.c: defaults, a full file,
 * every config error with its exact message, command-line overrides,
 * cross-field validation and the small parsers (durations, integers); and
 * of the YAML tree it reads with (src/core/yaml.c), as the study file uses it.
 *
 * Most cases are table rows fed to cfg_load_string() under the name
 * "t.yaml"; a failing row prints the input and both messages.  No test here
 * needs a database or the network; one writes a temp file and removes it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/config.h"
#include "core/yaml.h"

#define SEC INT64_C(1000000)

/* Fail with both sides printed when a message is not the one expected. */
static void check_msg(const char *what, const char *input, const char *want, const char *got)
{
    if (strcmp(want, got) != 0) {
        print_error("%s\ninput: %s\nwant: %s\ngot:  %s\n", what, input, want, got);
        fail();
    }
}

static void test_defaults(void **state)
{
    struct config c;

    (void)state;
    cfg_defaults(&c);
    assert_string_equal(c.path, "");
    assert_string_equal(c.database.driver, "postgres");
    assert_int_equal(c.database.managed, 1);
    assert_string_equal(c.database.conninfo, "");
    assert_string_equal(c.database.dsn, "");
    assert_string_equal(c.database.password_env, "");
    assert_string_equal(c.database.datadir, "");
    assert_int_equal(c.database.keep_server, 0);
    assert_int_equal(c.database.port, 0);
    assert_int_equal(c.schema.warehouses, 1);
    assert_string_equal(c.schema.dialect, "");
    assert_int_equal(c.load.jobs, 2);
    assert_int_equal(c.load.seed, 1);
    assert_int_equal(c.load.seed_set, 0);
    assert_int_equal(c.load.drop, 0);
    assert_int_equal(c.run.virtual_users, 4);
    assert_int_equal(c.run.rampup_us, 0);
    assert_int_equal(c.run.warmup_us, 5 * SEC);
    assert_int_equal(c.run.duration_us, 60 * SEC);
    /* The spec's 23-card deck, not a mix in percent. */
    assert_int_equal(c.run.mix[TX_NEW_ORDER], 10);
    assert_int_equal(c.run.mix[TX_PAYMENT], 10);
    assert_int_equal(c.run.mix[TX_ORDER_STATUS], 1);
    assert_int_equal(c.run.mix[TX_DELIVERY], 1);
    assert_int_equal(c.run.mix[TX_STOCK_LEVEL], 1);
    assert_int_equal(c.run.mix_set, 0);
    assert_int_equal(c.run.think_time, 0);
    assert_int_equal(c.run.max_retries, 10);
    assert_int_equal(c.run.delivery_workers, 0); /* sized from the connections */
    assert_int_equal(c.run.delivery_inline, 0);
    assert_int_equal(c.run.delivery_queue, 64);
    assert_string_equal(c.run.isolation, "read committed");
    assert_int_equal(c.run.isolation_set, 0); /* the DBMS may have another */
    assert_int_equal(c.run.seed, 0);
    assert_string_equal(c.results.dir, "results");
    assert_string_equal(c.results.label, "run");
    assert_string_equal(c.results.change, "");
}

/* Every key set to something other than its default. */
static const char full_yaml[] = "# every key, none at its default\n"
                                "database:\n"
                                "  driver: odbc\n"
                                "  managed: no\n"
                                "  conninfo: \"host=127.0.0.1 port=5432 dbname=tpcc user=tpcc\"\n"
                                "  dsn: 'DSN=tpcc-mariadb;UID=tpcc'\n"
                                "  password_env: TPCC_PASSWORD\n"
                                "  datadir: /var/tmp/tpcc data\n"
                                "  keep_server: On\n"
                                "  port: 65535\n"
                                "schema: { warehouses: 100000, dialect: mysql }\n"
                                "load:\n"
                                "  jobs: 256\n"
                                "  seed: 4611686018427387904\n"
                                "  drop: YES\n"
                                "run:\n"
                                "  virtual_users: 10000\n"
                                "  rampup: 1.5s\n"
                                "  warmup: 30s\n"
                                "  duration: 24h\n"
                                "  mix: { new_order: 40, payment: 40, order_status: 10,\n"
                                "         delivery: 5, stock_level: 5 }\n"
                                "  think_time: true\n"
                                "  max_retries: 0\n"
                                "  delivery_workers: 64\n"
                                "  delivery: inline\n"
                                "  delivery_queue: 100000\n"
                                "  isolation: repeatable_read\n"
                                "  seed: 42\n"
                                "results:\n"
                                "  dir: /tmp/res\n"
                                "  label: baseline\n"
                                "  change: \"shared_buffers=8GB\"\n";

static void test_full_file(void **state)
{
    struct config c;
    struct err e;

    (void)state;
    cfg_defaults(&c);
    err_clear(&e);
    assert_int_equal(cfg_load_string(&c, "t.yaml", full_yaml, strlen(full_yaml), &e), 0);
    assert_string_equal(e.msg, "");
    assert_string_equal(c.path, "t.yaml");
    assert_string_equal(c.database.driver, "odbc");
    assert_int_equal(c.database.managed, 0);
    assert_string_equal(c.database.conninfo, "host=127.0.0.1 port=5432 dbname=tpcc user=tpcc");
    assert_string_equal(c.database.dsn, "DSN=tpcc-mariadb;UID=tpcc");
    assert_string_equal(c.database.password_env, "TPCC_PASSWORD");
    assert_string_equal(c.database.datadir, "/var/tmp/tpcc data");
    assert_int_equal(c.database.keep_server, 1);
    assert_int_equal(c.database.port, 65535);
    assert_int_equal(c.schema.warehouses, 100000);
    assert_string_equal(c.schema.dialect, "mysql");
    assert_int_equal(c.load.jobs, 256);
    assert_int_equal(c.load.seed, INT64_C(4611686018427387904));
    assert_int_equal(c.load.seed_set, 1);
    assert_int_equal(c.load.drop, 1);
    assert_int_equal(c.run.virtual_users, 10000);
    assert_int_equal(c.run.rampup_us, 1500000);
    assert_int_equal(c.run.warmup_us, 30 * SEC);
    assert_int_equal(c.run.duration_us, 24 * 3600 * SEC);
    assert_int_equal(c.run.mix[TX_NEW_ORDER], 40);
    assert_int_equal(c.run.mix[TX_PAYMENT], 40);
    assert_int_equal(c.run.mix[TX_ORDER_STATUS], 10);
    assert_int_equal(c.run.mix[TX_DELIVERY], 5);
    assert_int_equal(c.run.mix[TX_STOCK_LEVEL], 5);
    assert_int_equal(c.run.mix_set, 1);
    assert_int_equal(c.run.think_time, 1);
    assert_int_equal(c.run.max_retries, 0);
    assert_int_equal(c.run.delivery_workers, 64);
    assert_int_equal(c.run.delivery_inline, 1);
    assert_int_equal(c.run.delivery_queue, 100000);
    assert_string_equal(c.run.isolation, "repeatable read");
    assert_int_equal(c.run.isolation_set, 1);
    assert_int_equal(c.run.seed, 42);
    assert_string_equal(c.results.dir, "/tmp/res");
    assert_string_equal(c.results.label, "baseline");
    assert_string_equal(c.results.change, "shared_buffers=8GB");
    assert_int_equal(cfg_validate(&c, &e), 0);
}

/* Smaller valid files, each checked by a function of the loaded config. */
struct ok_case {
    const char *yaml;
    int (*check)(const struct config *c); /* returns 1 when the config is as expected */
};

static int mix_missing_is_zero(const struct config *c)
{
    return c->run.mix[TX_NEW_ORDER] == 50 && c->run.mix[TX_PAYMENT] == 50 &&
           c->run.mix[TX_ORDER_STATUS] == 0 && c->run.mix[TX_DELIVERY] == 0 &&
           c->run.mix[TX_STOCK_LEVEL] == 0 && c->run.mix_set == 1;
}

static int untouched(const struct config *c)
{
    struct config d;

    cfg_defaults(&d);
    snprintf(d.path, sizeof(d.path), "t.yaml");
    return memcmp(c, &d, sizeof(d)) == 0;
}

static int isolation_serializable(const struct config *c)
{
    return strcmp(c->run.isolation, "serializable") == 0;
}

static int isolation_read_committed(const struct config *c)
{
    return strcmp(c->run.isolation, "read committed") == 0 && c->run.delivery_inline == 0;
}

static int null_driver_quoted_numbers(const struct config *c)
{
    return strcmp(c->database.driver, "null") == 0 && c->schema.warehouses == 7 &&
           strcmp(c->schema.dialect, "10") == 0;
}

static int durations(const struct config *c)
{
    return c->run.rampup_us == 250 && c->run.warmup_us == 0 && c->run.duration_us == 90 * SEC;
}

static int empty_string(const struct config *c)
{
    return strcmp(c->results.label, "") == 0 && strcmp(c->results.change, "") == 0;
}

static int longest_string(const struct config *c)
{
    return strlen(c->results.change) == CFG_STR - 1;
}

static char long_ok_yaml[CFG_STR + 64];
static char long_bad_yaml[CFG_STR + 64];

static const struct ok_case ok_cases[] = {
    { "run: { mix: { new_order: 50, payment: 50 } }\n", mix_missing_is_zero },
    { "{}\n", untouched },
    { "run:\n  # everything commented out\nschema:\n", untouched },
    { "---\nrun: {}\n...\n", untouched },
    { "run: { isolation: SERIALIZABLE }\n", isolation_serializable },
    { "run: { isolation: read_committed, delivery: deferred }\n", isolation_read_committed },
    { "database: { driver: null }\nschema: { warehouses: \"7\", dialect: 10 }\n",
      null_driver_quoted_numbers },
    { "run: { rampup: 250us, warmup: 0, duration: 1.5m }\n", durations },
    { "results: { label: \"\", change: }\n", empty_string },
    { long_ok_yaml, longest_string },
};

static void test_ok_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
        const struct ok_case *t = &ok_cases[i];
        struct config c;
        struct err e;
        int rc;

        cfg_defaults(&c);
        err_clear(&e);
        rc = cfg_load_string(&c, "t.yaml", t->yaml, strlen(t->yaml), &e);
        if (rc != 0 || !t->check(&c)) {
            print_error("ok case %zu\ninput: %s\nrc %d: %s\n", i, t->yaml, rc, e.msg);
            fail();
        }
    }
}

/* A file that must fail, and the exact message it must fail with. */
struct err_case {
    const char *yaml;
    size_t len; /* 0: strlen(yaml); set for inputs holding NUL bytes */
    const char *msg;
};

static const struct err_case err_cases[] = {
    /* Out of range and malformed values. */
    { "schema:\n  warehouses: 0\n", 0,
      "t.yaml:2:15: 'schema.warehouses' must be an integer from 1 to 100000 (got \"0\")" },
    { "schema: { warehouses: 100001 }\n", 0,
      "t.yaml:1:23: 'schema.warehouses' must be an integer from 1 to 100000 (got \"100001\")" },
    { "schema: { warehouses: 0x10 }\n", 0,
      "t.yaml:1:23: 'schema.warehouses' must be an integer from 1 to 100000 (got \"0x10\")" },
    { "schema: { warehouses: +5 }\n", 0,
      "t.yaml:1:23: 'schema.warehouses' must be an integer from 1 to 100000 (got \"+5\")" },
    { "schema: { warehouses: '' }\n", 0,
      "t.yaml:1:23: 'schema.warehouses' must be an integer from 1 to 100000 (got \"\")" },
    { "database: { port: 65536 }\n", 0,
      "t.yaml:1:19: 'database.port' must be an integer from 0 to 65535 (got \"65536\")" },
    { "load: { jobs: 257 }\n", 0,
      "t.yaml:1:15: 'load.jobs' must be an integer from 1 to 256 (got \"257\")" },
    { "load: { seed: 4611686018427387905 }\n", 0,
      "t.yaml:1:15: 'load.seed' must be an integer from 0 to 4611686018427387904 (got "
      "\"4611686018427387905\")" },
    { "load: { seed: -1 }\n", 0,
      "t.yaml:1:15: 'load.seed' must be an integer from 0 to 4611686018427387904 (got \"-1\")" },
    { "run: { virtual_users: 10001 }\n", 0,
      "t.yaml:1:23: 'run.virtual_users' must be an integer from 1 to 10000 (got \"10001\")" },
    { "run: { max_retries: 1001 }\n", 0,
      "t.yaml:1:21: 'run.max_retries' must be an integer from 0 to 1000 (got \"1001\")" },
    { "run: { delivery_workers: 65 }\n", 0,
      "t.yaml:1:26: 'run.delivery_workers' must be an integer from 0 to 64 (got \"65\")" },
    { "run: { delivery_queue: 0 }\n", 0,
      "t.yaml:1:24: 'run.delivery_queue' must be an integer from 1 to 100000 (got \"0\")" },
    { "run: { seed: 99999999999999999999 }\n", 0,
      "t.yaml:1:14: 'run.seed' must be an integer from 0 to 9223372036854775807 (got "
      "\"99999999999999999999\")" },
    { "run: { mix: { new_order: 101, payment: 0 } }\n", 0,
      "t.yaml:1:26: 'run.mix.new_order' must be an integer from 0 to 100 (got \"101\")" },

    /* Durations. */
    { "run:\n  duration: 5x\n", 0,
      "t.yaml:2:13: 'run.duration' must be a duration such as 500ms, 30s, 5m or 1h (got "
      "\"5x\")" },
    { "run: { warmup: -1s }\n", 0,
      "t.yaml:1:16: 'run.warmup' must not be negative: give a duration from 0 to 24h (got "
      "\"-1s\")" },
    { "run: { duration: -5m }\n", 0,
      "t.yaml:1:18: 'run.duration' must not be negative: give a duration above 0 and at most "
      "24h (got \"-5m\")" },
    { "run: { duration: 99999999999999999999h }\n", 0,
      "t.yaml:1:18: 'run.duration' must be a duration above 0 and at most 24h (got "
      "\"99999999999999999999h\")" },
    { "run: { rampup: 2562047789h }\n", 0,
      "t.yaml:1:16: 'run.rampup' must be a duration of at most 24h (got \"2562047789h\")" },
    { "run: { rampup: -h }\n", 0,
      "t.yaml:1:16: 'run.rampup' must be a duration such as 500ms, 30s, 5m or 1h (got "
      "\"-h\")" },
    { "run: { duration: 0s }\n", 0,
      "t.yaml:1:18: 'run.duration' must be a duration above 0 and at most 24h (got \"0s\")" },
    { "run: { rampup: 25h }\n", 0,
      "t.yaml:1:16: 'run.rampup' must be a duration of at most 24h (got \"25h\")" },

    /* Booleans, choices, strings. */
    { "run: { think_time: maybe }\n", 0,
      "t.yaml:1:20: 'run.think_time' must be true or false (got \"maybe\")" },
    { "load: { drop: 1 }\n", 0, "t.yaml:1:15: 'load.drop' must be true or false (got \"1\")" },
    { "database: { driver: mysql }\n", 0,
      "t.yaml:1:21: 'database.driver' must be one of postgres, odbc, null (got \"mysql\")" },
    { "run: { delivery: later }\n", 0,
      "t.yaml:1:18: 'run.delivery' must be one of deferred, inline (got \"later\")" },
    { "run: { isolation: read uncommitted }\n", 0,
      "t.yaml:1:19: 'run.isolation' must be one of read committed, repeatable read, "
      "serializable (got \"read uncommitted\")" },
    { long_bad_yaml, 0, "t.yaml:1:20: 'results.change' must be at most 255 bytes long (got 256)" },
    { "results: { label: \"a\\0b\" }\n", 0,
      "t.yaml:1:19: 'results.label' must not contain a NUL character (got \"a\\x00b\")" },

    /* Mix. */
    { "run:\n  mix:\n    new_order: 45\n    payment: 42\n    order_status: 4\n"
      "    delivery: 4\n    stock_level: 4\n",
      0, "t.yaml:3:5: 'run.mix' must sum to 100 (got 99)" },
    { "run: { mix: { new_order: 45, payment: 43, order_status: 4, delivery: 4, stock_level: 5 "
      "} }\n",
      0, "t.yaml:1:13: 'run.mix' must sum to 100 (got 101)" },
    { "run: { mix: }\n", 0, "t.yaml:1:13: 'run.mix' must sum to 100 (got 0)" },
    { "run: { mix: { neworder: 100 } }\n", 0,
      "t.yaml:1:15: unknown key 'run.mix.neworder' (allowed here: new_order, payment, "
      "order_status, delivery, stock_level)" },
    { "run: { mix: 45 }\n", 0,
      "t.yaml:1:13: 'run.mix' must be a mapping with the keys new_order, payment, order_status, "
      "delivery, stock_level (got \"45\")" },

    /* Unknown keys, wrong shapes. */
    { "run:\n  durration: 5m\n", 0,
      "t.yaml:2:3: unknown key 'run.durration' (allowed here: virtual_users, terminals, connections, batch, workers, rate, time_scale, rampup, warmup, "
      "duration, mix, think_time, max_retries, delivery_workers, delivery, delivery_queue, "
      "isolation, seed, mode, transactions, max_outage, statements, metrics, metrics_listen, metrics_devices, wait_sampling, part, parts, part_timeout, run_id, meet_conninfo, db_host_metrics, db_host_metrics_auth_env, db_host_device)" },
    { "schema: { warehouses: 1 }\nrunn: {}\n", 0,
      "t.yaml:2:1: unknown key 'runn' (allowed here: database, schema, load, run, acid, results)" },
    { "run: { mix.payment: 50 }\n", 0,
      "t.yaml:1:8: unknown key 'run.mix.payment' (allowed here: virtual_users, terminals, connections, batch, workers, rate, time_scale, rampup, warmup, "
      "duration, mix, think_time, max_retries, delivery_workers, delivery, delivery_queue, "
      "isolation, seed, mode, transactions, max_outage, statements, metrics, metrics_listen, metrics_devices, wait_sampling, part, parts, part_timeout, run_id, meet_conninfo, db_host_metrics, db_host_metrics_auth_env, db_host_device)" },
    { "schema: { \"a\\tb\": 1 }\n", 0,
      "t.yaml:1:11: unknown key 'schema.a\\tb' (allowed here: warehouses, dialect)" },
    { "schema: { [a]: 1 }\n", 0,
      "t.yaml:1:11: keys must be plain names such as 'duration' (got a sequence)" },
    { "schema:\n  warehouses:\n    count: 10\n", 0,
      "t.yaml:3:5: 'schema.warehouses' must be an integer from 1 to 100000 (got a mapping)" },
    { "results: { dir: [a, b] }\n", 0,
      "t.yaml:1:17: 'results.dir' must be a string (got a sequence)" },
    { "schema: 10\n", 0,
      "t.yaml:1:9: 'schema' must be a mapping with the keys warehouses, dialect (got \"10\")" },
    { "run: [1, 2]\n", 0,
      "t.yaml:1:6: 'run' must be a mapping with the keys virtual_users, terminals, connections, batch, workers, rate, time_scale, rampup, warmup, "
      "duration, mix, think_time, max_retries, delivery_workers, delivery, delivery_queue, "
      "isolation, seed, mode, transactions, max_outage, statements, metrics, metrics_listen, metrics_devices, wait_sampling, part, parts, part_timeout, run_id, meet_conninfo, db_host_metrics, db_host_metrics_auth_env, db_host_device (got a sequence)" },

    /* Duplicates and passwords. */
    { "run:\n  duration: 5m\n  warmup: 1s\n  duration: 6m\n", 0,
      "t.yaml:4:3: duplicate key 'run.duration' (first at line 2:3)" },
    { "run: {}\nrun: {}\n", 0, "t.yaml:2:1: duplicate key 'run' (first at line 1:1)" },
    { "database:\n  password: secret\n", 0,
      "t.yaml:2:3: 'database.password' is not allowed: passwords come only from the "
      "environment variable named by database.password_env" },
    { "password: secret\n", 0,
      "t.yaml:1:1: 'password' is not allowed: passwords come only from the environment "
      "variable named by database.password_env" },
    { "run: { mix: { Password: x } }\n", 0,
      "t.yaml:1:15: 'run.mix.Password' is not allowed: passwords come only from the "
      "environment variable named by database.password_env" },
    /* A password inside a connection string: refused, and never quoted back. */
    { "database: { conninfo: \"host=db password=Hx7-secret user=tpcc\" }\n", 0,
      "t.yaml:1:23: 'database.conninfo' holds a password (not shown): remove it, and put the "
      "password in the environment variable named by database.password_env" },
    { "database: { conninfo: \"postgresql://tpcc:Hx7-secret@db/tpcc\" }\n", 0,
      "t.yaml:1:23: 'database.conninfo' holds a password (not shown): remove it, and put the "
      "password in the environment variable named by database.password_env" },
    { "database: { driver: odbc, dsn: \"DSN=tpcc;UID=tpcc;PWD={Hx7;secret}\" }\n", 0,
      "t.yaml:1:32: 'database.dsn' holds a password (not shown): remove it, and put the "
      "password in the environment variable named by database.password_env" },
    { "database: { conninfo: \"password=Hx7-secret\\0x\" }\n", 0,
      "t.yaml:1:23: 'database.conninfo' must not contain a NUL character (got "
      "\"password=***\")" },
    /* The password typed where its variable's name belongs. */
    { "database: { password_env: \"Hx7-secret!\" }\n", 0,
      "t.yaml:1:27: 'database.password_env' must be the name of an environment variable "
      "(letters, digits and '_'), not the password itself; the value is not shown" },

    /* The document as a whole. */
    { "", 0,
      "t.yaml: the config file is empty (expected a mapping with database, schema, load, run, "
      "acid, results)" },
    { "# only a comment\n\n   # and another\n", 0,
      "t.yaml: the config file is empty (expected a mapping with database, schema, load, run, "
      "acid, results)" },
    { "---\n", 0,
      "t.yaml: the config file is empty (expected a mapping with database, schema, load, run, "
      "acid, results)" },
    { "just a string\n", 0,
      "t.yaml:1:1: the config file must be a mapping with database, schema, load, run, acid, "
      "results (got \"just a string\")" },
    { "- run\n- load\n", 0,
      "t.yaml:1:1: the config file must be a mapping with database, schema, load, run, acid, "
      "results (got a sequence)" },
    { "run: {}\n---\nload: {}\n", 0,
      "t.yaml:2:1: the config file must hold a single YAML document (a second one starts "
      "here)" },

    /* YAML itself. */
    { "run:\n  duration: 5m\n warmup: 1s\n", 0,
      "t.yaml:3:2: YAML syntax error: did not find expected key: check the indentation of this "
      "line and the one above" },
    { "run: { duration: 5m\n", 0,
      "t.yaml:2:1: YAML syntax error: did not find expected ',' or '}' in the flow mapping that "
      "starts at 1:6: close the '{' with '}', or put ',' between entries" },
    { "run: \"abc\n", 0,
      "t.yaml:2:1: YAML syntax error: found unexpected end of stream in the quoted scalar that "
      "starts at 1:6: close the quote" },
    { "run: {}\nx\x00y: 1\n", 10,
      "t.yaml:2:2: YAML syntax error: control characters are not allowed (0x00): a NUL byte: "
      "save the file as UTF-8 text" },
    { "run: {}\nlabel: \xff\n", 0,
      "t.yaml:2:8: YAML syntax error: invalid leading UTF-8 octet (0xff): save the file as UTF-8 "
      "text" },
    { "run: {}\nlabel: \xc3\n", 0,
      "t.yaml:2:9: YAML syntax error: invalid trailing UTF-8 octet (0x0a): save the file as UTF-8 "
      "text" },
    { "run: {}\nlabel: \xc3", 0,
      "t.yaml:2:8: YAML syntax error: incomplete UTF-8 octet sequence: save the file as UTF-8 "
      "text" },
    { "run: {}\nlabel: \xed\xa0\x80\n", 0,
      "t.yaml:2:8: YAML syntax error: invalid Unicode character (0xd800): save the file as UTF-8 "
      "text" },
    { "a: &x [1, 2]\nb: [*x, *x]\n", 0,
      "t.yaml:2:5: YAML aliases such as '*x' are not supported; write the value out in full" },
    { "run: { mix: { new_order: 100 }, seed: *s }\n", 0,
      "t.yaml:1:39: YAML aliases such as '*s' are not supported; write the value out in full" },

    /* Tags are refused: the loader reads only a value's text. */
    { "run: { mix: !!map { new_order: 100 } }\n", 0,
      "t.yaml:1:13: YAML tags such as '!!map' are not supported; write the value without it" },
    { "results: { label: !!binary aGk= }\n", 0,
      "t.yaml:1:19: YAML tags such as '!!binary' are not supported; write the value without it" },
    { "run: !local { }\n", 0,
      "t.yaml:1:6: YAML tags such as '!local' are not supported; write the value without it" },

    /* Where libyaml's problem does not say what to do, the message does. */
    { "run:\n\tduration: 5m\n", 0,
      "t.yaml:2:1: YAML syntax error: found character that cannot start any token: indent with "
      "spaces: YAML does not allow tabs there" },
    { "results: { label: @me }\n", 0,
      "t.yaml:1:19: YAML syntax error: found character that cannot start any token: '@' cannot "
      "start a plain value: put the value in quotes" },
    { "run: [1, 2\n", 0,
      "t.yaml:2:1: YAML syntax error: did not find expected ',' or ']' in the flow sequence "
      "that starts at 1:6: close the '[' with ']', or put ',' between items" },
    { "\xef\xbb\xbfrun: {}\nx: \x01\n", 0,
      "t.yaml:2:4: YAML syntax error: control characters are not allowed (0x01): the config "
      "must be plain text: remove it" },
    /* UTF-16 (with a byte order mark) is read; a reader error's position counts its characters. */
    { "\xff\xfer\0u\0n\0:\0 \0{\0}\0\n\0\x01\0", 20,
      "t.yaml:2:1: YAML syntax error: control characters are not allowed (0x01): the config "
      "must be plain text: remove it" },
};

static void run_err_case(size_t i, const char *yaml, size_t len, const char *want)
{
    struct config c, before;
    struct err e;
    char label[64];
    int rc;

    cfg_defaults(&c);
    memcpy(&before, &c, sizeof(c));
    err_clear(&e);
    rc = cfg_load_string(&c, "t.yaml", yaml, len ? len : strlen(yaml), &e);
    snprintf(label, sizeof(label), "error case %zu", i);
    if (rc != E_USAGE || e.code != E_USAGE) {
        print_error("%s\ninput: %s\nrc %d, code %d, want %d: %s\n", label, yaml, rc, e.code,
                    E_USAGE, e.msg);
        fail();
    }
    check_msg(label, yaml, want, e.msg);
    /* A failed load leaves the config as it was. */
    if (memcmp(&before, &c, sizeof(c)) != 0) {
        print_error("%s\ninput: %s\nthe config changed on error\n", label, yaml);
        fail();
    }
}

static void test_err_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++)
        run_err_case(i, err_cases[i].yaml, err_cases[i].len, err_cases[i].msg);
}

/* Depth and size limits, built at run time. */
static void test_limits(void **state)
{
    static char text[64 * 1024]; /* static: a failed assertion must not leak it */
    char want[256];
    size_t n = 0, cap = sizeof(text);

    (void)state;

    /* The root mapping plus 40 flow sequences from column 6: the 33rd container is the
     * 32nd bracket, at column 37. */
    n = (size_t)snprintf(text, cap, "run: ");
    for (int i = 0; i < 40; i++)
        text[n++] = '[';
    for (int i = 0; i < 40; i++)
        text[n++] = ']';
    text[n++] = '\n';
    text[n] = '\0';
    run_err_case(0, text, 0, "t.yaml:1:37: the config nests deeper than 32 levels");

    /* 10001 nodes: mapping, key, sequence, then items; item 9998 is node 10001. */
    n = (size_t)snprintf(text, cap, "x:\n");
    for (int i = 0; i < 10001; i++)
        n += (size_t)snprintf(text + n, cap - n, "- 1\n");
    snprintf(want, sizeof(want),
             "t.yaml:9999:3: the config holds more than 10000 keys and values; is this the "
             "right file?");
    run_err_case(1, text, 0, want);
}

static void test_load_missing_file(void **state)
{
    struct config c;
    struct err e;

    (void)state;
    cfg_defaults(&c);
    err_clear(&e);
    assert_int_equal(cfg_load(&c, "/nonexistent-dir/tpcc.yaml", &e), E_USAGE);
    assert_int_equal(e.code, E_USAGE);
    check_msg("missing file", "",
              "/nonexistent-dir/tpcc.yaml: cannot open config file: No such "
              "file or directory",
              e.msg);
    assert_string_equal(c.path, "");
}

static void test_load_temp_file(void **state)
{
    static const char text[] = "schema: { warehouses: 10 }\nrun:\n  duration: 5m\n  bogus: 1\n";
    char path[] = "/tmp/test_config_XXXXXX", want[640];
    size_t good_len;
    struct config c;
    struct err e;
    FILE *f;
    int fd;

    (void)state;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    good_len = (size_t)(strstr(text, "  bogus") - text); /* the file without its last line */
    assert_int_equal(fwrite(text, 1, good_len, f), good_len);
    assert_int_equal(fclose(f), 0);

    cfg_defaults(&c);
    err_clear(&e);
    assert_int_equal(cfg_load(&c, path, &e), 0);
    assert_string_equal(c.path, path);
    assert_int_equal(c.schema.warehouses, 10);
    assert_int_equal(c.run.duration_us, 300 * SEC);
    assert_int_equal(cfg_validate(&c, &e), 0);

    /* The same file with an error names the file, line and column. */
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, sizeof(text) - 1, f), sizeof(text) - 1);
    assert_int_equal(fclose(f), 0);
    cfg_defaults(&c);
    assert_int_equal(cfg_load(&c, path, &e), E_USAGE);
    snprintf(want, sizeof(want),
             "%s:4:3: unknown key 'run.bogus' (allowed here: virtual_users, terminals, connections, batch, workers, rate, time_scale, rampup, warmup, "
             "duration, mix, think_time, max_retries, delivery_workers, delivery, "
             "delivery_queue, isolation, seed, mode, transactions, max_outage, statements, metrics, metrics_listen, metrics_devices, wait_sampling, part, parts, part_timeout, run_id, meet_conninfo, db_host_metrics, db_host_metrics_auth_env, db_host_device)",
             path);
    check_msg("temp file", text, want, e.msg);
    assert_int_equal(unlink(path), 0);
}

/* Command-line overrides: key, value, origin and the message ("" = must succeed). */
struct set_case {
    const char *key, *value, *origin, *msg;
};

static const struct set_case set_cases[] = {
    { "run.duration", "30s", "--duration", "" },
    { "run.duration", "5x", "--duration",
      "--duration: 'run.duration' must be a duration such as 500ms, 30s, 5m or 1h (got \"5x\")" },
    { "run.duration", "0", "--duration",
      "--duration: 'run.duration' must be a duration above 0 and at most 24h (got \"0\")" },
    { "schema.warehouses", "0", "--warehouses",
      "--warehouses: 'schema.warehouses' must be an integer from 1 to 100000 (got \"0\")" },
    { "schema.warehouses", "12abc", "--warehouses",
      "--warehouses: 'schema.warehouses' must be an integer from 1 to 100000 (got \"12abc\")" },
    { "run.think_time", "maybe", "--set",
      "--set: 'run.think_time' must be true or false (got \"maybe\")" },
    { "run.statements", "unnamed", "--statements", "" },
    { "run.statements", "Prepared", "--statements", "" },
    { "run.statements", "simple", "--statements",
      "--statements: 'run.statements' simple is not offered: the simple query protocol takes no "
      "bound parameters, so every value would be spliced into the SQL text, which tpccbench "
      "never does; use unnamed (bound parameters, nothing kept on the server between "
      "transactions: works through a pooler in transaction mode)" },
    { "run.statements", "extended", "--statements",
      "--statements: 'run.statements' must be one of prepared, unnamed (got \"extended\")" },
    { "database.pooler", "PgBouncer", "--set", "" },
    { "database.pooler", "rds-proxy", "--set", "" },
    { "run.durration", "5m", "--set",
      "--set: unknown key 'run.durration' (allowed here: virtual_users, terminals, connections, batch, workers, rate, time_scale, rampup, warmup, "
      "duration, mix, think_time, max_retries, delivery_workers, delivery, delivery_queue, "
      "isolation, seed, mode, transactions, max_outage, statements, metrics, metrics_listen, metrics_devices, wait_sampling, part, parts, part_timeout, run_id, meet_conninfo, db_host_metrics, db_host_metrics_auth_env, db_host_device)" },
    { "runn.duration", "5m", "--set",
      "--set: unknown key 'runn.duration' (allowed here: database, schema, load, run, "
      "acid, results)" },
    { "run.mix.x", "5", "--set",
      "--set: unknown key 'run.mix.x' (allowed here: new_order, payment, order_status, "
      "delivery, stock_level)" },
    { "run", "5", "--set",
      "--set: 'run' is a section, not a key (keys in it: virtual_users, terminals, connections, batch, workers, rate, time_scale, rampup, warmup, "
      "duration, mix, think_time, max_retries, delivery_workers, delivery, delivery_queue, "
      "isolation, seed, mode, transactions, max_outage, statements, metrics, metrics_listen, metrics_devices, wait_sampling, part, parts, part_timeout, run_id, meet_conninfo, db_host_metrics, db_host_metrics_auth_env, db_host_device)" },
    { "database.password", "x", "--set",
      "--set: 'database.password' is not allowed: passwords come only from the environment "
      "variable named by database.password_env" },
    { "database.conninfo", "host=db port=5432 user=tpcc", "--conninfo", "" },
    { "database.conninfo", "host=db password='Hx7 secret' user=tpcc", "--conninfo",
      "--conninfo: 'database.conninfo' holds a password (not shown): remove it, and put the "
      "password in the environment variable named by database.password_env" },
    { "database.password_env", "TPCC_PASSWORD", "--set", "" },
    { "database.password_env", "Hx7 secret", "--set",
      "--set: 'database.password_env' must be the name of an environment variable (letters, "
      "digits and '_'), not the password itself; the value is not shown" },
    { "run.mix", "45,43,4,4", "--mix",
      "--mix: 'run.mix' must be five integers from 0 to 100 separated by commas, for "
      "new_order, payment, order_status, delivery, stock_level (got \"45,43,4,4\")" },
    { "run.mix", "45,43,4,4,5", "--mix", "--mix: 'run.mix' must sum to 100 (got 101)" },
    { "run.isolation", "bogus", "--isolation",
      "--isolation: 'run.isolation' must be one of read committed, repeatable read, "
      "serializable (got \"bogus\")" },
};

static void test_set_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(set_cases) / sizeof(set_cases[0]); i++) {
        const struct set_case *t = &set_cases[i];
        struct config c, before;
        struct err e;
        char label[64];
        int rc;

        cfg_defaults(&c);
        memcpy(&before, &c, sizeof(c));
        err_clear(&e);
        rc = cfg_set(&c, t->key, t->value, t->origin, &e);
        snprintf(label, sizeof(label), "set case %zu (%s=%s)", i, t->key, t->value);
        if (!t->msg[0]) {
            if (rc != 0) {
                print_error("%s: rc %d: %s\n", label, rc, e.msg);
                fail();
            }
            continue;
        }
        if (rc != E_USAGE || e.code != E_USAGE) {
            print_error("%s: rc %d, code %d: %s\n", label, rc, e.code, e.msg);
            fail();
        }
        check_msg(label, t->value, t->msg, e.msg);
        assert_memory_equal(&before, &c, sizeof(c));
    }
}

/* Overrides land in the right fields and win over the file. */
/* run.statements and database.pooler: defaults, stored values, aliases. */
static void test_statements_pooler(void **state)
{
    static const char yaml[] = "database: { pooler: PgBouncer }\nrun: { statements: unnamed }\n";
    struct config c;
    struct err e;

    (void)state;
    cfg_defaults(&c);
    assert_int_equal(c.run.statements, RUN_STMT_PREPARED);
    assert_string_equal(c.database.pooler, "");
    assert_string_equal(run_statements_name(c.run.statements), "prepared");
    assert_int_equal(cfg_load_string(&c, "t.yaml", yaml, sizeof(yaml) - 1, &e), 0);
    assert_int_equal(c.run.statements, RUN_STMT_UNNAMED);
    assert_string_equal(run_statements_name(c.run.statements), "unnamed");
    assert_string_equal(c.database.pooler, "pgbouncer");
    assert_int_equal(cfg_set(&c, "database.pooler", "rds-proxy", "--set", &e), 0);
    assert_string_equal(c.database.pooler, "rds_proxy");
    assert_int_equal(cfg_set(&c, "run.statements", "prepared", "--statements", &e), 0);
    assert_int_equal(c.run.statements, RUN_STMT_PREPARED);
    /* A refused word leaves the value as it was. */
    assert_int_equal(cfg_set(&c, "run.statements", "simple", "--statements", &e), E_USAGE);
    assert_int_equal(c.run.statements, RUN_STMT_PREPARED);
}

static void test_set_values(void **state)
{
    static const char yaml[] = "run: { duration: 5m, virtual_users: 8 }\n";
    struct config c;
    struct err e;

    (void)state;
    cfg_defaults(&c);
    err_clear(&e);
    assert_int_equal(cfg_load_string(&c, "t.yaml", yaml, strlen(yaml), &e), 0);
    assert_int_equal(c.run.duration_us, 300 * SEC);
    assert_int_equal(cfg_set(&c, "run.duration", "30s", "--duration", &e), 0);
    assert_int_equal(c.run.duration_us, 30 * SEC);
    assert_int_equal(c.run.virtual_users, 8);
    assert_int_equal(cfg_set(&c, "run.virtual_users", "16", "--vus", &e), 0);
    assert_int_equal(c.run.virtual_users, 16);
    assert_int_equal(cfg_set(&c, "load.seed", "7", "--seed", &e), 0);
    assert_int_equal(c.load.seed, 7);
    assert_int_equal(c.load.seed_set, 1);
    assert_int_equal(cfg_set(&c, "run.delivery", "inline", "--set", &e), 0);
    assert_int_equal(c.run.delivery_inline, 1);
    assert_int_equal(cfg_set(&c, "run.isolation", "repeatable_read", "--set", &e), 0);
    assert_string_equal(c.run.isolation, "repeatable read");
    assert_int_equal(c.run.isolation_set, 1);
    assert_int_equal(cfg_set(&c, "results.label", "step-2", "--label", &e), 0);
    assert_string_equal(c.results.label, "step-2");
    assert_int_equal(cfg_set(&c, "database.managed", "off", "--set", &e), 0);
    assert_int_equal(c.database.managed, 0);
    assert_int_equal(c.run.mix_set, 0);
    assert_int_equal(cfg_set(&c, "run.mix", "100,0,0,0,0", "--mix", &e), 0);
    assert_int_equal(c.run.mix_set, 1);
    assert_int_equal(c.run.mix[TX_NEW_ORDER], 100);
    assert_int_equal(c.run.mix[TX_STOCK_LEVEL], 0);
    assert_int_equal(cfg_set(&c, "run.mix.payment", "10", "--set", &e), 0);
    assert_int_equal(c.run.mix[TX_PAYMENT], 10);
    /* A single mix entry may break the sum; cfg_validate() catches it. */
    assert_int_equal(cfg_validate(&c, &e), E_USAGE);
    check_msg("validate after set", "", "t.yaml: 'run.mix' must sum to 100 (got 110)", e.msg);
}

/* Cross-field checks. */
static void test_validate(void **state)
{
    struct config c;
    struct err e;

    (void)state;
    cfg_defaults(&c);
    err_clear(&e);
    assert_int_equal(cfg_validate(&c, &e), 0);

    /* The default deck sums to 23; a mix given must sum to 100. */
    static const int mix[TX_NTYPES] = { 45, 42, 4, 4, 4 };
    memcpy(c.run.mix, mix, sizeof(mix));
    c.run.mix_set = 1;
    assert_int_equal(cfg_validate(&c, &e), E_USAGE);
    check_msg("mix, no path", "", "'run.mix' must sum to 100 (got 99)", e.msg);
    snprintf(c.path, sizeof(c.path), "cfg.yaml");
    assert_int_equal(cfg_validate(&c, &e), E_USAGE);
    check_msg("mix, path", "", "cfg.yaml: 'run.mix' must sum to 100 (got 99)", e.msg);

    cfg_defaults(&c);
    snprintf(c.database.driver, sizeof(c.database.driver), "odbc");
    c.database.managed = 0;
    assert_int_equal(cfg_validate(&c, &e), E_USAGE);
    check_msg("odbc dsn", "", "'database.dsn' must be set when 'database.driver' is odbc", e.msg);
    snprintf(c.database.dsn, sizeof(c.database.dsn), "DSN=x");
    assert_int_equal(cfg_validate(&c, &e), 0);

    c.database.managed = 1;
    c.database.managed_set = 1;
    c.database.dsn[0] = '\0';
    assert_int_equal(cfg_validate(&c, &e), E_USAGE);
    check_msg("odbc dsn again", "", "'database.dsn' must be set when 'database.driver' is odbc",
              e.msg);
    snprintf(c.database.driver, sizeof(c.database.driver), "null");
    assert_int_equal(cfg_validate(&c, &e), E_USAGE);
    check_msg("managed", "",
              "'database.managed' needs 'database.driver' postgres (got null); set managed: "
              "false to use another driver",
              e.msg);

    cfg_defaults(&c);
    c.schema.warehouses = 0;
    assert_int_equal(cfg_validate(&c, &e), E_USAGE);
    check_msg("range", "", "'schema.warehouses' must be an integer from 1 to 100000 (got 0)",
              e.msg);

    cfg_defaults(&c);
    c.run.duration_us = 0;
    assert_int_equal(cfg_validate(&c, &e), E_USAGE);
    check_msg("duration range", "", "'run.duration' must be a duration from 1us to 24h (got 0us)",
              e.msg);
}

/*
 * Which server a config measures: database.managed follows from conninfo and
 * dsn unless given, and managed: true beside either is refused, naming both
 * keys and where they were set (file position or option).
 */
struct managed_case {
    const char *yaml;     /* the file, or NULL for none */
    const char *set_key;  /* a command-line override, or NULL */
    const char *set_val;
    const char *origin;
    int managed;          /* expected database.managed when want_msg is NULL */
    const char *want_msg; /* expected error of cfg_validate(), or NULL */
};

static void test_managed_rules(void **state)
{
    static const struct managed_case cases[] = {
        /* Nothing names a server: the private one. */
        { NULL, NULL, NULL, NULL, 1, NULL },
        { "run: {duration: 5s}\n", NULL, NULL, NULL, 1, NULL },
        /* A conninfo or dsn, without managed: that server. */
        { "database:\n  conninfo: \"host=db1 dbname=tpcc\"\n", NULL, NULL, NULL, 0, NULL },
        { "database: {driver: odbc, dsn: DSN=maria}\n", NULL, NULL, NULL, 0, NULL },
        { NULL, "database.conninfo", "host=db1", "--conninfo", 0, NULL },
        /* The null driver names no server and is never managed. */
        { "database: {driver: null}\n", NULL, NULL, NULL, 0, NULL },
        /* managed given: as given. */
        { "database: {managed: false}\n", NULL, NULL, NULL, 0, NULL },
        { "database: {managed: true}\n", NULL, NULL, NULL, 1, NULL },
        { "database: {conninfo: \"host=db1\", managed: false}\n", NULL, NULL, NULL, 0, NULL },
        /* managed: true beside a server: refused, both named with their places. */
        { "database:\n  conninfo: \"host=db1\"\n  managed: true\n", NULL, NULL, NULL, 0,
          "t.yaml:3:12: 'database.managed' is true, but 'database.conninfo' (t.yaml:2:13) "
          "names a server: managed starts a private PostgreSQL and would measure that instead; "
          "remove 'database.managed' to measure the server conninfo names, or remove "
          "'database.conninfo'" },
        { "database: {driver: odbc, dsn: DSN=maria, managed: true}\n", NULL, NULL, NULL, 0,
          "t.yaml:1:51: 'database.managed' is true, but 'database.dsn' (t.yaml:1:31) names a "
          "server: managed starts a private PostgreSQL and would measure that instead; remove "
          "'database.managed' to measure the server dsn names, or remove 'database.dsn'" },
        { "database:\n  conninfo: \"host=db1\"\n", "database.managed", "true", "--managed", 0,
          "--managed: 'database.managed' is true, but 'database.conninfo' (t.yaml:2:13) names a "
          "server: managed starts a private PostgreSQL and would measure that instead; remove "
          "'database.managed' to measure the server conninfo names, or remove "
          "'database.conninfo'" },
        { "database: {managed: true}\n", "database.conninfo", "host=db1", "--conninfo", 0,
          "t.yaml:1:21: 'database.managed' is true, but 'database.conninfo' (--conninfo) names "
          "a server: managed starts a private PostgreSQL and would measure that instead; remove "
          "'database.managed' to measure the server conninfo names, or remove "
          "'database.conninfo'" },
        /* An empty conninfo names nothing. */
        { "database: {conninfo: \"\"}\n", NULL, NULL, NULL, 1, NULL },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct managed_case *t = &cases[i];
        struct config c;
        struct err e;
        int rc;

        cfg_defaults(&c);
        err_clear(&e);
        if (t->yaml)
            assert_int_equal(cfg_load_string(&c, "t.yaml", t->yaml, strlen(t->yaml), &e), 0);
        if (t->set_key)
            assert_int_equal(cfg_set(&c, t->set_key, t->set_val, t->origin, &e), 0);
        rc = cfg_validate(&c, &e);
        if (t->want_msg) {
            assert_int_equal(rc, E_USAGE);
            check_msg("managed rule", t->yaml ? t->yaml : "-", t->want_msg, e.msg);
        } else {
            if (rc != 0)
                print_error("case %zu: %s\n", i, e.msg);
            assert_int_equal(rc, 0);
            if (c.database.managed != t->managed)
                print_error("case %zu (%s): managed %d, want %d\n", i, t->yaml ? t->yaml : "-",
                            c.database.managed, t->managed);
            assert_int_equal(c.database.managed, t->managed);
        }
    }
}

/* config/default.yaml says it is the same as giving no -c: hold it to that. */
static void test_default_yaml_is_default(void **state)
{
    struct config d, c;
    struct err e;

    (void)state;
    cfg_defaults(&d);
    cfg_defaults(&c);
    if (cfg_load(&c, "config/default.yaml", &e) != 0) {
        print_error("%s (run from the project root)\n", e.msg);
        fail();
    }
    assert_int_equal(cfg_validate(&d, &e), 0);
    assert_int_equal(cfg_validate(&c, &e), 0);
    /* Only where the values came from may differ. */
    memset(c.path, 0, sizeof(c.path));
    memset(&c.where, 0, sizeof(c.where));
    memset(&d.where, 0, sizeof(d.where));
    c.database.managed_set = d.database.managed_set;
    c.load.seed_set = d.load.seed_set;
    assert_string_equal(c.results.label, d.results.label);
    assert_int_equal(c.run.virtual_users, d.run.virtual_users);
    assert_memory_equal(&c, &d, sizeof(c));
}

struct dur_case {
    const char *s;
    int rc;
    int64_t us;
};

static const struct dur_case dur_cases[] = {
    { "500ms", 0, 500000 },
    { "30s", 0, 30 * SEC },
    { "5m", 0, 300 * SEC },
    { "1h", 0, 3600 * SEC },
    { "1.5s", 0, 1500000 },
    { "30", 0, 30 * SEC },
    { "0", 0, 0 },
    { "250us", 0, 250 },
    { "0.5ms", 0, 500 },
    { "1.25h", 0, 4500 * SEC },
    { "2562047788h", 0, INT64_C(2562047788) * 3600 * SEC },
    { "", -1, 0 },
    { "5x", -1, 0 },
    { "-1s", -1, 0 },
    { "+1s", -1, 0 },
    { " 1s", -1, 0 },
    { "1s ", -1, 0 },
    { "1 s", -1, 0 },
    { "s", -1, 0 },
    { ".5s", -1, 0 },
    { "1.s", -1, 0 },
    { "1.2.3s", -1, 0 },
    { "1e3", -1, 0 },
    { "5M", -1, 0 },
    { "1m30s", -1, 0 },
    { "2562047789h", -1, 0 },
    { "9223372036854775808us", -1, 0 },
    { "99999999999999999999", -1, 0 },
    { "9223372036855s", -1, 0 },
};

static void test_parse_duration(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(dur_cases) / sizeof(dur_cases[0]); i++) {
        const struct dur_case *t = &dur_cases[i];
        int64_t us = -7;
        int rc = parse_duration_us(t->s, &us);

        if (rc != t->rc || (rc == 0 && us != t->us) || (rc != 0 && us != -7)) {
            print_error("parse_duration_us(\"%s\"): want rc %d us %lld, got rc %d us %lld\n", t->s,
                        t->rc, (long long)t->us, rc, (long long)us);
            fail();
        }
    }
}

struct int_case {
    const char *s;
    int64_t min, max;
    int rc;
    int64_t v;
};

static const struct int_case int_cases[] = {
    { "0", 0, 10, 0, 0 },
    { "10", 0, 10, 0, 10 },
    { "-5", -10, 10, 0, -5 },
    { "007", 0, 10, 0, 7 },
    { "9223372036854775807", 0, INT64_MAX, 0, INT64_MAX },
    { "-9223372036854775808", INT64_MIN, 0, 0, INT64_MIN },
    { "11", 0, 10, -1, 0 },
    { "-1", 0, 10, -1, 0 },
    { "", 0, 10, -1, 0 },
    { "-", 0, 10, -1, 0 },
    { "+1", 0, 10, -1, 0 },
    { " 1", 0, 10, -1, 0 },
    { "1 ", 0, 10, -1, 0 },
    { "0x1", 0, 10, -1, 0 },
    { "1.0", 0, 10, -1, 0 },
    { "1e1", 0, 100, -1, 0 },
    { "9223372036854775808", 0, INT64_MAX, -1, 0 },
    { "--1", -10, 10, -1, 0 },
};

static void test_parse_int64(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(int_cases) / sizeof(int_cases[0]); i++) {
        const struct int_case *t = &int_cases[i];
        int64_t v = 1234;
        int rc = parse_int64(t->s, t->min, t->max, &v);

        if (rc != t->rc || (rc == 0 && v != t->v) || (rc != 0 && v != 1234)) {
            print_error("parse_int64(\"%s\", %lld, %lld): want rc %d v %lld, got rc %d v %lld\n",
                        t->s, (long long)t->min, (long long)t->max, t->rc, (long long)t->v, rc,
                        (long long)v);
            fail();
        }
    }
}

static void test_tx_name(void **state)
{
    (void)state;
    assert_string_equal(tx_name(TX_NEW_ORDER), "new_order");
    assert_string_equal(tx_name(TX_PAYMENT), "payment");
    assert_string_equal(tx_name(TX_ORDER_STATUS), "order_status");
    assert_string_equal(tx_name(TX_DELIVERY), "delivery");
    assert_string_equal(tx_name(TX_STOCK_LEVEL), "stock_level");
    assert_string_equal(tx_name(TX_NTYPES), "unknown");
}

/* Strings of exactly CFG_STR - 1 bytes fit; one more does not. */
static void make_long_yaml(void)
{
    char s[CFG_STR + 1];

    memset(s, 'a', sizeof(s));
    s[CFG_STR - 1] = '\0';
    snprintf(long_ok_yaml, sizeof(long_ok_yaml), "results: { change: %s }\n", s);
    s[CFG_STR - 1] = 'a';
    s[CFG_STR] = '\0';
    snprintf(long_bad_yaml, sizeof(long_bad_yaml), "results: { change: %s }\n", s);
}

/* The tree itself, as study/plan.c walks it: kinds, positions, an empty value, the errors. */
static void test_ytree(void **state)
{
    static const char text[] = "a:\nb: ''\nc: [1, {d: \"x\\ty\"}]\n", unclosed[] = "a: 1\nb: [1,\n";
    static char big[YTREE_MAX_FILE_SIZE + 1]; /* static: a failed assertion must not leak it */
    struct ytree_node *root = NULL, *a, *b, *c, *d;
    char buf[64], q[YTREE_QUOTE_SIZE];
    struct err e;

    (void)state;
    err_clear(&e);
    assert_int_equal(ytree_load_string("s.yaml", text, sizeof(text) - 1, "study", &root, &e), 0);
    assert_non_null(root);
    assert_int_equal(root->kind, YTREE_MAP);
    a = root->first;
    b = a->next->next;
    c = b->next->next;
    assert_string_equal(a->text, "a");
    assert_true(ytree_is_empty(a->next));  /* "a:" with nothing after it */
    assert_false(ytree_is_empty(b->next)); /* '' is a value, written out */
    assert_int_equal(c->next->kind, YTREE_SEQ);
    d = c->next->first->next; /* {d: ...} */
    assert_int_equal(d->kind, YTREE_MAP);
    assert_false(ytree_is_empty(d));
    check_msg("ytree_where", text, "s.yaml:3:8", ytree_where("s.yaml", d, buf, sizeof(buf)));
    check_msg("ytree_where", text, "s.yaml:3:12",
              ytree_where("s.yaml", d->first->next, buf, sizeof(buf)));
    check_msg("ytree_quote", text, "\"x\\ty\"",
              ytree_quote(d->first->next->text, d->first->next->len, q, sizeof(q)));
    ytree_free(root);

    /* An empty text is no tree, and no error: each reader refuses it in its own words. */
    assert_int_equal(ytree_load_string("s.yaml", "", 0, "study", &root, &e), 0);
    assert_null(root);

    /* An error after nodes were built: no tree is handed back (ASan sees the rest freed). */
    assert_int_equal(ytree_load_string("s.yaml", unclosed, strlen(unclosed), "study", &root, &e),
                     E_USAGE);
    assert_null(root);
    check_msg("ytree error", unclosed,
              "s.yaml:3:1: YAML syntax error: did not find expected node content: a value is "
              "missing here",
              e.msg);

    /* what names the file in the size refusal and when it cannot be opened. */
    memset(big, ' ', sizeof(big));
    assert_int_equal(ytree_load_string("s.yaml", big, sizeof(big), "study", &root, &e), E_USAGE);
    assert_null(root);
    check_msg("ytree size", "(1 MiB + 1 of spaces)",
              "s.yaml: the study file is larger than 1048576 bytes; is this the right file?",
              e.msg);
    assert_int_equal(ytree_load_file("/nonexistent-dir/s.yaml", "study", &root, &e), E_USAGE);
    assert_null(root);
    check_msg("ytree missing file", "",
              "/nonexistent-dir/s.yaml: cannot open study file: No such file or directory", e.msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_full_file),
        cmocka_unit_test(test_ok_cases),       cmocka_unit_test(test_err_cases),
        cmocka_unit_test(test_limits),         cmocka_unit_test(test_load_missing_file),
        cmocka_unit_test(test_load_temp_file), cmocka_unit_test(test_set_cases),
        cmocka_unit_test(test_set_values),     cmocka_unit_test(test_statements_pooler),
        cmocka_unit_test(test_validate),       cmocka_unit_test(test_parse_duration),
        cmocka_unit_test(test_parse_int64),    cmocka_unit_test(test_tx_name),
        cmocka_unit_test(test_managed_rules),  cmocka_unit_test(test_default_yaml_is_default),
        cmocka_unit_test(test_ytree),
    };

    make_long_yaml();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
