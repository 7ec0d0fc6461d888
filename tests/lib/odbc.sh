# odbc.sh - unixODBC configuration for integration tests.  POSIX sh; source it
# after tests/lib/pg.sh and/or tests/lib/mariadb.sh have started their servers:
#
#     . "$root/tests/lib/odbc.sh"
#     odbc_setup "$tmp/odbc" || exit 1
#     tpccbench ... (database.dsn "DSN=tpcc-pg" or "DSN=tpcc-maria")
#
# odbc_setup DIR writes DIR/odbcinst.ini with the drivers "PostgreSQL Unicode"
# (psqlODBC, package odbc-postgresql), "MariaDB" (Connector/ODBC, package
# odbc-mariadb) and "SQLite3" (package libsqliteodbc), and DIR/odbc.ini with
# the DSNs:
#
#     tpcc-pg      PostgreSQL on 127.0.0.1:$PG_TEST_PORT, database tpcc, user tpcc
#     tpcc-maria   MariaDB on 127.0.0.1:$MARIA_TEST_PORT, database tpcc, user tpcc
#     tpcc-sqlite  SQLite, the database file $SQLITE_TEST_DB, busy timeout
#                  200 ms (Timeout: a locked database answers SQLITE_BUSY soon,
#                  which tpccbench retries, rather than after 100 s; the
#                  driver leaks what it reads of a DSN, so 0074 connects with
#                  "Driver=SQLite3;Database=...;Timeout=200" instead)
#
# A DSN whose port (or file) variable is unset is left out.  No password is written: the
# caller passes it through the environment (database.password_env), and the
# driver adds it to the connection string in memory.  It exports ODBCSYSINI=DIR
# and ODBCINI=DIR/odbc.ini, so unixODBC reads only these files (not
# /etc/odbc.ini or ~/.odbc.ini), and ODBC_TEST_PG_DRIVER / ODBC_TEST_MARIA_DRIVER
# / ODBC_TEST_SQLITE_DRIVER, the paths of the driver libraries ("" when not
# installed).
#
# odbc_cfg FILE DSN [PASSWORD_ENV [SCHEMA]] writes a tpccbench config for a
# test (see below).

# Print the path of an ODBC driver library: from the package's file list,
# else from the usual places.
odbc__lib() {
    _pkg=$1
    _name=$2
    _p=$(dpkg -L "$_pkg" 2>/dev/null | grep "/$_name\$" | head -n 1)
    if [ -n "$_p" ] && [ -f "$_p" ]; then
        echo "$_p"
        return 0
    fi
    for _p in /usr/lib/*/odbc/"$_name" /usr/lib/odbc/"$_name" /usr/lib64/"$_name" \
        /usr/local/lib/"$_name" /usr/lib/*/"$_name"; do
        if [ -f "$_p" ]; then
            echo "$_p"
            return 0
        fi
    done
    return 1
}

odbc_setup() {
    _dir=$1
    if [ -z "$_dir" ]; then
        echo "odbc_setup: usage: odbc_setup DIR" >&2
        return 1
    fi
    mkdir -p "$_dir" || return 1
    ODBC_TEST_PG_DRIVER=$(odbc__lib odbc-postgresql psqlodbcw.so) || ODBC_TEST_PG_DRIVER=
    ODBC_TEST_MARIA_DRIVER=$(odbc__lib odbc-mariadb libmaodbc.so) || ODBC_TEST_MARIA_DRIVER=
    ODBC_TEST_SQLITE_DRIVER=$(odbc__lib libsqliteodbc libsqlite3odbc.so) || ODBC_TEST_SQLITE_DRIVER=
    if [ -z "$ODBC_TEST_PG_DRIVER" ] && [ -z "$ODBC_TEST_MARIA_DRIVER" ] &&
        [ -z "$ODBC_TEST_SQLITE_DRIVER" ]; then
        echo "odbc_setup: no ODBC driver found: apt-get install odbc-postgresql odbc-mariadb libsqliteodbc" >&2
        return 1
    fi
    {
        if [ -n "$ODBC_TEST_PG_DRIVER" ]; then
            printf '[PostgreSQL Unicode]\nDescription=psqlODBC (tests/lib/odbc.sh)\nDriver=%s\n\n' \
                "$ODBC_TEST_PG_DRIVER"
        fi
        if [ -n "$ODBC_TEST_MARIA_DRIVER" ]; then
            printf '[MariaDB]\nDescription=MariaDB Connector/ODBC (tests/lib/odbc.sh)\nDriver=%s\n\n' \
                "$ODBC_TEST_MARIA_DRIVER"
        fi
        if [ -n "$ODBC_TEST_SQLITE_DRIVER" ]; then
            printf '[SQLite3]\nDescription=SQLite ODBC driver (tests/lib/odbc.sh)\nDriver=%s\n\n' \
                "$ODBC_TEST_SQLITE_DRIVER"
        fi
    } >"$_dir/odbcinst.ini" || return 1
    {
        if [ -n "$ODBC_TEST_PG_DRIVER" ] && [ -n "${PG_TEST_PORT:-}" ]; then
            printf '[tpcc-pg]\nDriver=PostgreSQL Unicode\nServername=127.0.0.1\nPort=%s\nDatabase=tpcc\nUsername=tpcc\nProtocol=7.4-1\n\n' \
                "$PG_TEST_PORT"
        fi
        if [ -n "$ODBC_TEST_MARIA_DRIVER" ] && [ -n "${MARIA_TEST_PORT:-}" ]; then
            printf '[tpcc-maria]\nDriver=MariaDB\nServer=127.0.0.1\nPort=%s\nDatabase=tpcc\nUser=tpcc\n\n' \
                "$MARIA_TEST_PORT"
        fi
        if [ -n "$ODBC_TEST_SQLITE_DRIVER" ] && [ -n "${SQLITE_TEST_DB:-}" ]; then
            printf '[tpcc-sqlite]\nDriver=SQLite3\nDatabase=%s\nTimeout=200\n\n' "$SQLITE_TEST_DB"
        fi
    } >"$_dir/odbc.ini" || return 1
    ODBCSYSINI=$_dir
    ODBCINI=$_dir/odbc.ini
    export ODBCSYSINI ODBCINI ODBC_TEST_PG_DRIVER ODBC_TEST_MARIA_DRIVER ODBC_TEST_SQLITE_DRIVER
}

# odbc_cfg FILE DSN [PASSWORD_ENV [SCHEMA]]: write FILE, a test's config of
# the odbc driver on the connection string DSN ("DSN=tpcc-pg"), the password
# from the variable PASSWORD_ENV (default TPCC_TEST_PASSWORD), the schema
# section SCHEMA (default "warehouses: 1"), 2 load jobs and results under
# $tmp/results.  Exports nothing.
odbc_cfg() {
    cat >"$1" <<EOF
database: {driver: odbc, managed: false, dsn: "$2", password_env: ${3:-TPCC_TEST_PASSWORD}}
schema: {${4:-warehouses: 1}}
load: {jobs: 2}
results: {dir: "$tmp/results"}
EOF
}
