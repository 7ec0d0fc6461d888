/*
 * test_odbccaps.c - the capability decisions of src/db/odbccaps.c against
 * what three real drivers answered (recorded once with tests/helper/odbc_info
 * on Debian 12: psqlODBC 13.02 on PostgreSQL 15, MariaDB Connector/ODBC
 * 3.1.15 on MariaDB 10.11, libsqliteodbc 0.9998 with SQLite 3.39), and
 * against answers no driver gave us but some could (no transactions, short
 * names, no catalog).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <sql.h>
#include <sqlext.h>

#include "core/secret.h"
#include "db/odbccaps.h"

/* odbc_info DSN=tpcc-pg (psqlODBC, "PostgreSQL Unicode"). */
static const struct odbc_info psqlodbc = {
    .dbms_name = "PostgreSQL",
    .dbms_ver = "15.0.18",
    .driver_name = "psqlodbcw.so",
    .driver_odbc_ver = "03.51",
    .txn_capable = 2,
    .default_isolation = 2,
    .isolation_options = 15,
    .param_array_row_counts = 1,
    .param_array_selects = 1,
    .batch_support = 3,
    .max_identifier_len = 63,
    .has_tables = 1,
    .has_statistics = 1,
    .has_typeinfo = 1,
    .paramset_ok = 1,
};

/* odbc_info DSN=tpcc-maria (MariaDB Connector/ODBC). */
static const struct odbc_info mariadb = {
    .dbms_name = "MariaDB",
    .dbms_ver = "10.11.000019",
    .driver_name = "libmaodbc.so",
    .driver_odbc_ver = "03.51",
    .txn_capable = 3,
    .default_isolation = 0,
    .isolation_options = 15,
    .param_array_row_counts = 2,
    .param_array_selects = 2,
    .batch_support = 15,
    .max_identifier_len = 256,
    .has_tables = 1,
    .has_statistics = 1,
    .has_typeinfo = 1,
    .paramset_ok = 1,
};

/* odbc_info 'Driver=SQLite3;Database=/tmp/t.db' (libsqliteodbc). */
static const struct odbc_info sqlite = {
    .dbms_name = "SQLite",
    .dbms_ver = "3.39.3",
    .driver_name = "sqlite3odbc.so",
    .driver_odbc_ver = "03.00",
    .txn_capable = 2,
    .default_isolation = 8,
    .isolation_options = 8,
    .param_array_row_counts = 0,
    .param_array_selects = 0,
    .batch_support = 0,
    .max_identifier_len = 255,
    .has_tables = 1,
    .has_statistics = 1,
    .has_typeinfo = 1,
    .paramset_ok = 1,
};

static void test_psqlodbc(void **state)
{
    struct odbc_caps k;
    struct err e;

    (void)state;
    assert_int_equal(odbc_caps_decide(&psqlodbc, &k, &e), 0);
    assert_int_equal(k.transactions, 1);
    assert_int_equal(k.isolation,
                     ODBC_ISO_READ_COMMITTED | ODBC_ISO_REPEATABLE_READ | ODBC_ISO_SERIALIZABLE);
    assert_int_equal(k.default_isolation, ODBC_ISO_READ_COMMITTED);
    assert_string_equal(k.isolation_list, "read committed, repeatable read, serializable");
    assert_int_equal(k.load_path, ODBC_LOAD_ARRAY);
    assert_string_equal(
        k.load_why, "array binding: SQL_ATTR_PARAMSET_SIZE accepted, SQL_PARAM_ARRAY_ROW_COUNTS "
                    "SQL_PARC_BATCH");
    assert_int_equal(k.max_identifier_len, 63);
    assert_int_equal(k.catalog, 1);
    assert_int_equal(odbc_caps_isolation(&k, "PostgreSQL", "read committed", &e), 0);
    assert_int_equal(odbc_caps_isolation(&k, "PostgreSQL", "serializable", &e), 0);
}

static void test_mariadb(void **state)
{
    struct odbc_caps k;
    struct err e;

    (void)state;
    assert_int_equal(odbc_caps_decide(&mariadb, &k, &e), 0);
    assert_int_equal(k.transactions, 1);
    assert_int_equal(k.default_isolation, 0); /* not answered */
    assert_int_equal(k.load_path, ODBC_LOAD_ARRAY);
    assert_string_equal(
        k.load_why, "array binding: SQL_ATTR_PARAMSET_SIZE accepted, SQL_PARAM_ARRAY_ROW_COUNTS "
                    "SQL_PARC_NO_BATCH");
    assert_int_equal(odbc_caps_isolation(&k, "MariaDB", "repeatable read", &e), 0);
    /* Its own codes: deadlock and lock wait timeout retried, lost server. */
    assert_int_equal(odbc_error_class("MariaDB", "40001", 1213), E_RETRY);
    assert_int_equal(odbc_error_class("MariaDB", "HY000", 1205), E_RETRY);
    assert_int_equal(odbc_error_class("MariaDB", "HY000", 2013), E_CONN);
    assert_int_equal(odbc_error_class("MariaDB", "HY000", 5), E_FAIL);
}

static void test_sqlite(void **state)
{
    struct odbc_caps k;
    struct err e;

    (void)state;
    assert_int_equal(odbc_caps_decide(&sqlite, &k, &e), 0);
    assert_int_equal(k.transactions, 1);
    assert_int_equal(k.isolation, ODBC_ISO_SERIALIZABLE);
    assert_int_equal(k.default_isolation, ODBC_ISO_SERIALIZABLE);
    assert_string_equal(k.isolation_list, "serializable");
    /* The size is accepted, but no row counts of arrays: one row at a time. */
    assert_int_equal(k.load_path, ODBC_LOAD_ROWS);
    assert_string_equal(k.load_why,
                        "row at a time: SQL_PARAM_ARRAY_ROW_COUNTS has no answer (no parameter "
                        "arrays)");
    assert_int_equal(odbc_caps_isolation(&k, "SQLite", "serializable", &e), 0);
    assert_int_equal(odbc_caps_isolation(&k, "SQLite", "read committed", &e), E_USAGE);
    assert_string_equal(e.msg, "run.isolation 'read committed': DBMS 'SQLite' offers serializable "
                               "(SQL_TXN_ISOLATION_OPTION): set run.isolation to one of them");
    /* SQLITE_BUSY and SQLITE_LOCKED come as HY000: retried on SQLite only. */
    assert_int_equal(odbc_error_class("SQLite", "HY000", 5), E_RETRY);
    assert_int_equal(odbc_error_class("SQLite", "HY000", 6), E_RETRY);
    assert_int_equal(odbc_error_class("SQLite", "HY000", 1), E_FAIL);
    assert_int_equal(odbc_error_class("SQLite", "HY000", 1213), E_FAIL);
    assert_int_equal(odbc_error_class("PostgreSQL", "HY000", 5), E_FAIL);
    assert_int_equal(odbc_error_class("PostgreSQL", "40001", 7), E_RETRY);
    assert_int_equal(odbc_error_class("PostgreSQL", "08006", 0), E_CONN);
}

/* Answers some driver could give: each refusal names the DBMS and the lack. */
static void test_refusals(void **state)
{
    struct odbc_info in = sqlite;
    struct odbc_caps k;
    struct err e;

    (void)state;
    snprintf(in.dbms_name, sizeof(in.dbms_name), "FlatFiles");
    in.txn_capable = SQL_TC_NONE;
    assert_int_equal(odbc_caps_decide(&in, &k, &e), E_USAGE);
    assert_int_equal(k.transactions, 0);
    assert_string_equal(e.msg, "DBMS 'FlatFiles' supports no transactions (its ODBC driver answers "
                               "SQL_TXN_CAPABLE = SQL_TC_NONE): TPC-C needs commit and rollback");

    in = sqlite;
    in.max_identifier_len = 18;
    assert_int_equal(odbc_caps_decide(&in, &k, &e), E_USAGE);
    assert_string_equal(e.msg, "DBMS 'SQLite' takes names of at most 18 characters "
                               "(SQL_MAX_IDENTIFIER_LEN); the TPC-C schema needs 19 "
                               "('orders_customer_idx')");
    in.max_identifier_len = 19;
    assert_int_equal(odbc_caps_decide(&in, &k, &e), 0);

    in = sqlite;
    in.has_tables = 0;
    assert_int_equal(odbc_caps_decide(&in, &k, &e), E_USAGE);
    assert_non_null(strstr(e.msg, "has no SQLTables"));

    /* A driver that refuses the array size: row at a time, saying so. */
    in = psqlodbc;
    in.paramset_ok = 0;
    assert_int_equal(odbc_caps_decide(&in, &k, &e), 0);
    assert_int_equal(k.load_path, ODBC_LOAD_ROWS);
    assert_string_equal(k.load_why, "row at a time: the driver refused SQL_ATTR_PARAMSET_SIZE > 1");

    /* Only read uncommitted: none of ours. */
    in = psqlodbc;
    in.isolation_options = SQL_TXN_READ_UNCOMMITTED;
    assert_int_equal(odbc_caps_decide(&in, &k, &e), 0);
    assert_int_equal(odbc_caps_isolation(&k, "X", "serializable", &e), E_USAGE);
    assert_non_null(strstr(e.msg, "offers none of read committed"));
}

/* run.isolation unset: read committed where offered or not known, else the
 * weakest offered above it, and why; none of the three offered is refused. */
static void test_default_isolation(void **state)
{
    struct db_caps k;
    const char *name = NULL;
    char why[128];
    struct err e;

    (void)state;
    memset(&k, 0, sizeof(k)); /* libpq: known 0, PostgreSQL's own statements set the level */
    assert_int_equal(db_isolation_default(&k, "PostgreSQL", &name, why, sizeof(why), &e), 0);
    assert_string_equal(name, "read committed");
    assert_string_equal(why, "");
    k.known = 1;
    k.iso_offered = ODBC_ISO_READ_COMMITTED | ODBC_ISO_SERIALIZABLE;
    assert_int_equal(db_isolation_default(&k, "MariaDB", &name, why, sizeof(why), &e), 0);
    assert_string_equal(name, "read committed");
    assert_string_equal(why, "");
    k.iso_offered = ODBC_ISO_SERIALIZABLE; /* SQLite, as its driver answers */
    assert_int_equal(db_isolation_default(&k, "SQLite", &name, why, sizeof(why), &e), 0);
    assert_string_equal(name, "serializable");
    assert_string_equal(why, "SQLite offers no other");
    k.iso_offered = ODBC_ISO_REPEATABLE_READ | ODBC_ISO_SERIALIZABLE;
    assert_int_equal(db_isolation_default(&k, "X", &name, why, sizeof(why), &e), 0);
    assert_string_equal(name, "repeatable read");
    assert_string_equal(why, "X offers no read committed");
    k.iso_offered = 0;
    assert_int_equal(db_isolation_default(&k, "", &name, why, sizeof(why), &e), E_USAGE);
    assert_string_equal(e.msg, "DBMS '(unnamed)' offers none of read committed, repeatable "
                               "read, serializable: tpccbench runs at one of them");
}

/* add_password(cs, pw): cs with the password appended, or "(too long)". */
static const char *add_password(const char *cs, const char *pw, size_t cap)
{
    static char out[256];

    snprintf(out, sizeof(out), "%s", cs);
    if (odbc_cs_add_password(out, cap, strlen(out), pw) < 0)
        snprintf(out, sizeof(out), "(too long)");
    return out;
}

/* PWD=value where it survives bare (a driver such as Virtuoso's takes
 * braces as part of it), in braces with '}' doubled where it does not; the
 * redaction hides all of either form. */
static void test_password_forms(void **state)
{
    static const struct {
        const char *pw, *want;
    } cases[] = {
        { "secret", "DSN=x;PWD=secret;" },
        { "a=b c@d!", "DSN=x;PWD=a=b c@d!;" }, /* blanks inside, '=': bare */
        { "a;b", "DSN=x;PWD={a;b};" },
        { "a}b", "DSN=x;PWD={a}}b};" },
        { "{ab", "DSN=x;PWD={{ab};" },
        { "a{b", "DSN=x;PWD={a{b};" },
        { " ab", "DSN=x;PWD={ ab};" },
        { "ab ", "DSN=x;PWD={ab };" },
        { "'ab", "DSN=x;PWD={'ab};" },
        { "\"ab", "DSN=x;PWD={\"ab};" },
        { "a\nb", "DSN=x;PWD={a\nb};" },
        { "", "DSN=x;PWD=;" },
        { "a}};x=1", "DSN=x;PWD={a}}}};x=1};" },
    };
    char red[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = add_password("DSN=x", cases[i].pw, 256);
        if (strcmp(got, cases[i].want) != 0)
            print_error("case %zu: got [%s], want [%s]\n", i, got, cases[i].want);
        assert_string_equal(got, cases[i].want);
        /* The redaction hides every byte of it, bare or braced. */
        assert_int_equal(secret_redact(got, red, sizeof(red)), 1);
        assert_string_equal(red, "DSN=x;PWD=***;");
    }
    assert_int_equal(odbc_cs_braced("plain"), 0);
    assert_int_equal(odbc_cs_braced("{x"), 1);
    /* A ';' goes in before it where the string does not end in one. */
    assert_string_equal(add_password("DSN=x;", "pw", 256), "DSN=x;PWD=pw;");
    assert_string_equal(add_password("", "pw", 256), "PWD=pw;");
    /* Too long: refused, never cut (a cut braced value would leak past it). */
    assert_string_equal(add_password("DSN=x", "secret", 14), "(too long)");
    assert_string_equal(add_password("DSN=x", "secret", 18), "DSN=x;PWD=secret;");
    assert_string_equal(add_password("DSN=x", "a}b", 17), "(too long)");
    assert_string_equal(add_password("DSN=x", "a}b", 18), "DSN=x;PWD={a}}b};");
}

/* The recorded answers print as odbc_info printed them. */
static void test_format(void **state)
{
    char out[1024];

    (void)state;
    odbc_info_format(&sqlite, out, sizeof(out));
    assert_string_equal(out, "dbms_name SQLite\ndbms_ver 3.39.3\ndriver_name sqlite3odbc.so\n"
                             "driver_odbc_ver 03.00\ntxn_capable 2\ndefault_isolation 8\n"
                             "isolation_options 8\nparam_array_row_counts 0\n"
                             "param_array_selects 0\nbatch_support 0\nmax_identifier_len 255\n"
                             "has_tables 1\nhas_statistics 1\nhas_typeinfo 1\nparamset_ok 1\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_psqlodbc), cmocka_unit_test(test_mariadb),
        cmocka_unit_test(test_sqlite),   cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_format),   cmocka_unit_test(test_default_isolation),
        cmocka_unit_test(test_password_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
