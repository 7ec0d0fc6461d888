/*
 * test_secret.c - unit tests for the redaction of passwords (src/core/secret.c)
 * and its users in the records (record_redact_conninfo, record_config), and
 * for the names the bulk load puts into SQL text (db_bulk_begin).
 *
 * Table-driven: each case is an input and the exact output with the number
 * of passwords replaced, covering libpq key=value conninfo (bare and 'quoted'
 * values with escapes), URIs (user:password@, several hosts, a password in
 * the query), ODBC connection strings (PWD=...; and PWD={a;b}} c}), and the
 * messages drivers print around them.  Every case also checks that the
 * password's characters are gone, so a wrong expectation cannot hide a leak.
 * Records are checked as written (record_config) and as compare and report
 * read them back (cmp_run_from_json).  And the one place names are put into
 * SQL text, the bulk load, takes only plain names (db_bulk_begin).  Each
 * failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/config.h"
#include "core/secret.h"
#include "db/db.h"
#include "results/compare.h"
#include "results/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct redact_case {
    const char *in;     /* text to redact */
    const char *want;   /* exact result */
    int n;              /* passwords replaced */
    const char *secret; /* must not survive (NULL: nothing secret in the input) */
};

static const struct redact_case redact_cases[] = {
    /* Nothing to hide. */
    { "", "", 0, NULL },
    { "host=127.0.0.1 port=5432 dbname=tpcc user=tpcc",
      "host=127.0.0.1 port=5432 dbname=tpcc user=tpcc", 0, NULL },
    { "DSN=tpcc-maria;UID=tpcc", "DSN=tpcc-maria;UID=tpcc", 0, NULL },
    { "postgresql://tpcc@db.example:5432/tpcc", "postgresql://tpcc@db.example:5432/tpcc", 0, NULL },
    { "postgresql://db.example:5432/tpcc?sslmode=require",
      "postgresql://db.example:5432/tpcc?sslmode=require", 0, NULL },
    /* Our own config key names a variable, not a value. */
    { "password_env=TPCC_PASSWORD", "password_env=TPCC_PASSWORD", 0, NULL },
    { "passfile=/home/dba/.pgpass", "passfile=/home/dba/.pgpass", 0, NULL },
    /* A word that merely ends in a secret key's name is not a key. */
    { "mypassword is not a key", "mypassword is not a key", 0, NULL },

    /* libpq key=value. */
    { "host=db password=hunter22 user=tpcc", "host=db password=*** user=tpcc", 1, "hunter22" },
    { "password=hunter22", "password=***", 1, "hunter22" },
    { "host=db PASSWORD = hunter22 user=tpcc", "host=db PASSWORD = *** user=tpcc", 1, "hunter22" },
    { "host=db password='two words' user=tpcc", "host=db password=*** user=tpcc", 1, "two words" },
    { "host=db password='it\\'s \\\\ x y' dbname=t", "host=db password=*** dbname=t", 1,
      "s \\\\ x" },
    { "host=db password='unterminated secret", "host=db password=***", 1, "unterminated" },
    { "sslpassword=keypass99 sslkey=/k.pem", "sslpassword=*** sslkey=/k.pem", 1, "keypass99" },
    { "host=a password=one1 host=b password=two2", "host=a password=*** host=b password=***", 2,
      "one1" },

    /* URIs. */
    { "postgresql://tpcc:hunter22@db.example:5432/tpcc",
      "postgresql://tpcc:***@db.example:5432/tpcc", 1, "hunter22" },
    { "postgres://:hunter22@db/tpcc", "postgres://:***@db/tpcc", 1, "hunter22" },
    { "postgresql://tpcc:hun@ter/22@h1:5432,h2:5433/tpcc?connect_timeout=5",
      "postgresql://tpcc:***@h1:5432,h2:5433/tpcc?connect_timeout=5", 1, "ter/22" },
    { "postgresql://tpcc@db/tpcc?sslmode=require&password=hunter22&application_name=x",
      "postgresql://tpcc@db/tpcc?sslmode=require&password=***&application_name=x", 1, "hunter22" },
    { "postgresql://tpcc:pw1x@db/tpcc?password=pw2x", "postgresql://tpcc:***@db/tpcc?password=***",
      2, "pw2x" },
    { "mysql://root:s3cr3t@[::1]:3306/db", "mysql://root:***@[::1]:3306/db", 1, "s3cr3t" },
    /* A libpq message quoting a whole URI. */
    { "end of string reached when looking for matching \"]\" in IPv6 host address in URI: "
      "\"postgresql://u:hunter22@[::1/db\"",
      "end of string reached when looking for matching \"]\" in IPv6 host address in URI: "
      "\"postgresql://u:***@[::1/db\"",
      1, "hunter22" },

    /* ODBC connection strings. */
    { "DSN=tpcc;UID=tpcc;PWD=hunter22;", "DSN=tpcc;UID=tpcc;PWD=***;", 1, "hunter22" },
    { "DSN=tpcc;UID=tpcc;PWD=hunter22", "DSN=tpcc;UID=tpcc;PWD=***", 1, "hunter22" },
    { "DSN=tpcc;pwd={a;b}", "DSN=tpcc;pwd=***", 1, "a;b" },
    { "DSN=tpcc;PWD={a;b}};c d};UID=tpcc", "DSN=tpcc;PWD=***;UID=tpcc", 1, "b}};c d" },
    { "DSN=tpcc;PWD={never closed;UID=x", "DSN=tpcc;PWD=***", 1, "never" },
    /* A bare ODBC value may hold blanks: it ends at ';'. */
    { "DSN=tpcc;PASSWORD=two words here;UID=tpcc", "DSN=tpcc;PASSWORD=***;UID=tpcc", 1,
      "words here" },
    { "PWD=two words", "PWD=***", 1, "words" },
    { "Driver={MariaDB};Server=127.0.0.1;Password={x=y;z};Database=tpcc",
      "Driver={MariaDB};Server=127.0.0.1;Password=***;Database=tpcc", 1, "x=y;z" },
    /* A driver message echoing the connection string. */
    { "[unixODBC]Invalid attribute in \"DSN=x;PWD={hunter22};\" (SQLSTATE 01S00)",
      "[unixODBC]Invalid attribute in \"DSN=x;PWD=***;\" (SQLSTATE 01S00)", 1, "hunter22" },

    /* Server settings that hold a connection string or a command. */
    { "host=primary port=5432 user=replicator password='r3pl pw' application_name=s1",
      "host=primary port=5432 user=replicator password=*** application_name=s1", 1, "r3pl" },
    { "PGPASSWORD=hunter22 pg_receivewal -D /x", "PGPASSWORD=*** pg_receivewal -D /x", 1,
      "hunter22" },
};

static void test_redact_cases(void **state)
{
    char out[512];

    (void)state;
    for (size_t i = 0; i < sizeof(redact_cases) / sizeof(redact_cases[0]); i++) {
        const struct redact_case *t = &redact_cases[i];
        int n = secret_redact(t->in, out, sizeof(out));

        if (strcmp(out, t->want) != 0 || n != t->n)
            fail_msg("case %zu: secret_redact(\"%s\")\n  got:      \"%s\" (%d)\n  expected: "
                     "\"%s\" (%d)",
                     i, t->in, out, n, t->want, t->n);
        if (t->secret && strstr(out, t->secret))
            fail_msg("case %zu: \"%s\" survives in \"%s\"", i, t->secret, out);
    }
}

/* A short buffer truncates, never shows part of a password. */
static void test_redact_truncates(void **state)
{
    char out[16];
    int n;

    (void)state;
    n = secret_redact("host=db password=hunter22", out, sizeof(out));
    if (n != 1 || strcmp(out, "host=db passwor") != 0)
        fail_msg("got \"%s\" (%d), expected \"host=db passwor\" (1)", out, n);
    n = secret_redact("DSN=x;PWD={hunter22}", out, sizeof(out));
    if (n != 1 || strcmp(out, "DSN=x;PWD=***") != 0)
        fail_msg("got \"%s\" (%d), expected \"DSN=x;PWD=***\" (1)", out, n);
    /* Counting works without an output buffer (config checks). */
    n = secret_redact("DSN=x;PWD={hunter22}", NULL, 0);
    assert_int_equal(n, 1);
}

static void test_scrub(void **state)
{
    char msg[128];
    int n;

    (void)state;
    snprintf(msg, sizeof(msg), "missing \"=\" after \"hunter22\" in connection info string");
    n = secret_scrub(msg, "hunter22");
    assert_int_equal(n, 1);
    assert_string_equal(msg, "missing \"=\" after \"***\" in connection info string");

    snprintf(msg, sizeof(msg), "x{;pw};x then x{;pw};x");
    assert_int_equal(secret_scrub(msg, "x{;pw};x"), 2);
    assert_string_equal(msg, "*** then ***");

    /* Too short to scrub without mangling every message: left alone. */
    snprintf(msg, sizeof(msg), "connection refused");
    assert_int_equal(secret_scrub(msg, "on"), 0);
    assert_string_equal(msg, "connection refused");
    assert_int_equal(secret_scrub(msg, NULL), 0);
    assert_int_equal(secret_scrub(msg, ""), 0);
}

static void test_clean(void **state)
{
    char msg[64];
    int n;

    (void)state;
    /* The known password anywhere, and any password in connection syntax. */
    snprintf(msg, sizeof(msg), "bad \"Tz9!q\" near PWD={other};");
    n = secret_clean(msg, sizeof(msg), "Tz9!q");
    assert_int_equal(n, 2);
    assert_string_equal(msg, "bad \"***\" near PWD=***;");
}

static void test_setting_names(void **state)
{
    static const char *const secret[] = { "wsrep_sst_auth", "ssl_passphrase_command",
                                          "some_ext.password", "rpl_secret", "ldap_bind_passwd" };
    static const char *const plain[] = { "password_encryption", "shared_buffers", "old_passwords",
                                         "ssl_passphrase_command_supports_reload",
                                         "primary_conninfo" };

    (void)state;
    for (size_t i = 0; i < sizeof(secret) / sizeof(secret[0]); i++)
        if (!secret_setting_name(secret[i]))
            fail_msg("'%s' should be recorded as a secret", secret[i]);
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (secret_setting_name(plain[i]))
            fail_msg("'%s' should be recorded as it is", plain[i]);
}

static void test_env_names(void **state)
{
    (void)state;
    assert_true(secret_env_name_ok("TPCC_PASSWORD"));
    assert_true(secret_env_name_ok("_x1"));
    assert_false(secret_env_name_ok(""));
    assert_false(secret_env_name_ok("1ABC"));
    assert_false(secret_env_name_ok("Tz9!q-secret"));
    assert_false(secret_env_name_ok("A B"));
}

static void test_wipe(void **state)
{
    char buf[8] = "secret!";

    (void)state;
    secret_wipe(buf, sizeof(buf));
    for (size_t i = 0; i < sizeof(buf); i++)
        assert_int_equal(buf[i], 0);
}

/* The record keeps the shape of the connection string, not the password. */
static void test_record_config(void **state)
{
    struct config c;
    json_t *j;
    char *text;

    (void)state;
    cfg_defaults(&c);
    snprintf(c.database.conninfo, sizeof(c.database.conninfo),
             "postgresql://tpcc:Uri-Pw-77@db/tpcc?password=Query-Pw-77");
    snprintf(c.database.dsn, sizeof(c.database.dsn), "DSN=x;PWD={Odbc;Pw}}77}");
    j = record_config(&c);
    assert_non_null(j);
    text = json_dumps(j, JSON_COMPACT);
    assert_non_null(text);
    if (strstr(text, "Pw-77") || strstr(text, "Pw}}77"))
        fail_msg("a password is in the record: %s", text);
    assert_non_null(strstr(text, "\"conninfo\":\"postgresql://tpcc:***@db/tpcc?password=***\""));
    assert_non_null(strstr(text, "\"dsn\":\"DSN=x;PWD=***\""));
    free(text);
    json_decref(j);
}

/* compare and report redact a record again when they read it. */
static void test_compare_reads_redacted(void **state)
{
    const char *text = "{\"tool\": {\"record_version\": 1}, \"label\": \"old\","
                       " \"config\": {\"database\": {\"conninfo\": \"host=db password=Old-Pw-1\","
                       " \"dsn\": \"DSN=x;PWD={Old;Pw}}2}\"}},"
                       " \"environment\": {\"dbms\": {\"settings\": {"
                       "\"primary_conninfo\": \"host=p user=r password='Old Pw 3'\","
                       " \"wsrep_sst_auth\": \"root:Old-Pw-4\", \"work_mem\": \"4MB\"}}}}";
    struct cmp_run r;
    struct err e;
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    char *out;

    (void)state;
    assert_non_null(doc);
    memset(&r, 0, sizeof(r));
    err_clear(&e);
    assert_int_equal(cmp_run_from_json(&r, doc, "old.json", &e), 0);
    out = json_dumps(r.doc, JSON_COMPACT | JSON_SORT_KEYS);
    assert_non_null(out);
    if (strstr(out, "Old-Pw") || strstr(out, "Old;Pw") || strstr(out, "Old Pw"))
        fail_msg("a password survives reading: %s", out);
    assert_non_null(strstr(out, "\"conninfo\":\"host=db password=***\""));
    assert_non_null(strstr(out, "\"dsn\":\"DSN=x;PWD=***\""));
    assert_non_null(strstr(out, "\"primary_conninfo\":\"host=p user=r password=***\""));
    assert_non_null(strstr(out, "\"wsrep_sst_auth\":\"***\""));
    assert_non_null(strstr(out, "\"work_mem\":\"4MB\""));
    free(out);
    cmp_run_release(&r);
}

/* Names go into the text of the bulk statements: only plain ones pass. */
static void test_bulk_names(void **state)
{
    static const char *const bad_tables[] = { "",          "stock; DROP TABLE item",
                                              "\"stock\"", "st ock",
                                              "1stock",    "stock--" };
    static const char *const bad_columns[] = { "", " , ", "s_i_id, s_w_id) VALUES (1); --",
                                               "s_i_id,`x`", "s_i_id,1x" };
    struct db_connect_args args = { .conninfo = "", .app_name = "test_secret" };
    struct db_conn *c = NULL;
    struct err e;
    const char *p = " a,b , c_1", *name;
    size_t n;
    char got[64] = "";

    (void)state;
    while (db_next_name(&p, &name, &n))
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "[%.*s]", (int)n, name);
    assert_string_equal(got, "[a][b][c_1]");

    err_clear(&e);
    assert_int_equal(db_connect(&db_null_ops, NULL, &args, &c, &e), 0);
    assert_int_equal(db_bulk_begin(c, "stock", "s_i_id, s_w_id, s_quantity", &e), 0);
    assert_int_equal(db_bulk_end(c, 1, &e), 0);
    for (size_t i = 0; i < sizeof(bad_tables) / sizeof(bad_tables[0]); i++)
        if (db_bulk_begin(c, bad_tables[i], "s_i_id", &e) != E_FAIL)
            fail_msg("table name \"%s\" was accepted", bad_tables[i]);
    for (size_t i = 0; i < sizeof(bad_columns) / sizeof(bad_columns[0]); i++)
        if (db_bulk_begin(c, "stock", bad_columns[i], &e) != E_FAIL)
            fail_msg("column list \"%s\" was accepted", bad_columns[i]);
    db_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact_cases),
        cmocka_unit_test(test_redact_truncates),
        cmocka_unit_test(test_scrub),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_setting_names),
        cmocka_unit_test(test_env_names),
        cmocka_unit_test(test_wipe),
        cmocka_unit_test(test_record_config),
        cmocka_unit_test(test_compare_reads_redacted),
        cmocka_unit_test(test_bulk_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
