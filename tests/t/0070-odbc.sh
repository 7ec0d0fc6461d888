#!/bin/sh
# 0070-odbc.sh - the ODBC driver against real servers: PostgreSQL through
# psqlODBC and MariaDB through Connector/ODBC, both under unixODBC with our
# own odbc.ini (tests/lib/odbc.sh).
#
# For each DBMS: load 1 warehouse (the SQL dialect is chosen from the DBMS
# name), all 12 consistency conditions, a 10 s client-mode run with 4 VUs
# whose New-Order count must equal the database's (run.json) and the increase
# of sum(d_next_o_id) read through the native client (but for New-Orders
# finished before the window opened), conditions 1-4 after it, and a complete run
# record naming the DBMS and its version as the server states it.  MariaDB
# also runs 10 s in procedure mode (stored procedures; the 1 % New-Order
# rollback arrives as SQLSTATE TPCRB), PostgreSQL 10 s in procedure mode with
# run.statements unnamed (SQLExecDirect, nothing prepared).  Then the connection errors: a DSN that
# does not exist, a wrong password, a server that is down: exit 2 with the
# ODBC diagnostic, and the password appears in no output and no record.
# Prints TAP; the servers and the temp directory are removed on exit, pass or
# fail.  About 90 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0070 pg mariadb odbc
t_copy_bin

TPCC_WRONG_PW="wrong-$$-Zq8v"
export TPCC_WRONG_PW

# The driver must be built in, else skip everything: a DSN in no odbc.ini
# must fail in the driver manager, not for want of a driver.
odbc_cfg "$tmp/nodsn.yaml" "DSN=tpcc-no-such-dsn"
t_odbc_built "$tmp/nodsn.yaml"

t_pg_up
t_maria_up
t_odbc_up
pass "servers up: PostgreSQL on 127.0.0.1:$PG_TEST_PORT, MariaDB on 127.0.0.1:$MARIA_TEST_PORT"
unlike "$(cat "$tmp/odbc/odbc.ini" "$tmp/odbc/odbcinst.ini")" "*$TPCC_TEST_PASSWORD*" \
    "odbc.ini and odbcinst.ini hold no password"

# What the server says through its own client.
db_sum() {
    db_sql "$1" 'select sum(d_next_o_id) from district'
}

server_version() {
    case $1 in
    pg) pg_psql 'show server_version' | sed 's/ .*//' ;;
    maria) maria_sql 'select version()' | sed 's/-.*//' ;;
    esac
}

# check_run KIND MODE LABEL [STATEMENTS]: a 10 s run of 4 VUs in MODE with
# run.statements STATEMENTS (default prepared), then the checks.
check_run() {
    _k=$1
    _mode=$2
    _label=$3
    _st=${4:-prepared}
    _before=$(db_sum "$_k")
    run "$_label" "$bin" run -c "$tmp/$_k.yaml" --mode "$_mode" --statements "$_st" --vus 4 \
        --duration 10s --warmup 0s --label "$_label"
    is "$rc" 0 "$_k $_mode: 10 s run with 4 VUs: exit 0" || explain
    _after=$(db_sum "$_k")
    _r=$(rec_json "$_label")
    is "$(json "$_r" "r['status'], r['run']['mode'], r['run']['statements']")" "complete $_mode $_st" \
        "$_k $_mode: the record is complete and states the mode and the statements ($_st)"
    is "$(json "$_r" "r['run']['notpm_counts_agree'], r['run']['new_orders_client'] == r['run']['new_orders_db']")" \
        "True True" "$_k $_mode: client NOTPM equals the database's count"
    # Seen from outside, the increase of sum(d_next_o_id) also holds the
    # New-Orders that VUs finished before the window opened (at most one each:
    # the window opens at a barrier right after the start, as there is no
    # warm-up); it closes after every VU stopped.
    _n=$(json "$_r" "r['run']['new_orders_client']")
    is "$(python3 -c "print(0 <= $((_after - _before)) - ${_n:-0} <= 4)" 2>&1)" "True" \
        "$_k $_mode: the window's $_n New-Orders are the increase of sum(d_next_o_id) ($_before -> $_after) but for at most one per VU before the window"
    # How many is the machine's business (bench/odbc.sh measures it), not a test's.
    is "$(json "$_r" "r['run']['new_orders_client'] > 0")" "True" \
        "$_k $_mode: New-Orders were committed in the window"
    # 1 % of New-Orders roll back: none in n has probability 0.99^n, under 0.1 % from 700
    # on (a slow machine may run fewer; then only the count's sanity is checked).
    is "$(json "$_r" "(lambda t: t['rolled_back'] > 0 if t['count'] >= 700 else 0 <= t['rolled_back'] <= t['count'])(r['run']['transactions']['new_order'])")" "True" \
        "$_k $_mode: the 1 % New-Order rollbacks happen (and are not errors)"
    is "$(json "$_r" "sum(t['errors']['other'] + t['errors']['connection'] for t in r['run']['transactions'].values())")" \
        "0" "$_k $_mode: no errors but retryable ones" ||
        diag "$(json "$_r" "r['run']['errors_by_sqlstate']")"
    is "$(json "$_r" "sum(t['count'] > 0 for t in r['run']['transactions'].values())")" "5" \
        "$_k $_mode: every transaction type completed"
    is "$(json "$_r" "r['dbms']['name'], r['dbms']['version']")" "$name $version" \
        "$_k $_mode: the record names the DBMS and its version as the server states it"
    is "$(json "$_r" "'error' in r['environment']['dbms'], bool(r['environment']['dbms']['version_full'])")" \
        "False True" "$_k $_mode: the fingerprint read the DBMS" ||
        diag "$(json "$_r" "r['environment']['dbms'].get('error')")"
    run "check14-$_label" "$bin" check -c "$tmp/$_k.yaml" --conditions 1-4
    is "$rc:$(n_ok "$both")" "0:4" "$_k $_mode: conditions 1-4 hold after the run" || explain
}

# suite KIND DSN NAME DIALECT
suite() {
    k=$1
    dsn=$2
    name=$3
    dialect=$4
    version=$(server_version "$k")
    odbc_cfg "$tmp/$k.yaml" "DSN=$dsn"

    run "load-$k" "$bin" load -c "$tmp/$k.yaml" --warehouses 1 --label "load-$k"
    is "$rc" 0 "$k: load W=1 through ODBC ($dsn): exit 0" || {
        explain
        return 1
    }
    like "$err" "*ODBC: $name *SQL dialect $dialect*" "$k: the dialect $dialect is chosen from the DBMS name $name"
    is "$(db_sum "$k"):$(db_sql "$k" 'select count(*) from tpcc_meta')" "30010:1" \
        "$k: the load is committed: sum(d_next_o_id) = 30010, one tpcc_meta row"
    run "check-$k" "$bin" check -c "$tmp/$k.yaml" --conditions all
    is "$rc:$(n_ok "$both")" "0:12" "$k: all 12 consistency conditions hold after the load" || explain

    check_run "$k" client "run-$k-client"
    if [ "$k" = maria ]; then
        check_run "$k" procedure "run-$k-procedure"
    else
        # SQLExecDirect: psqlODBC binds integers as bigint, which the
        # function calls must cast (schema/postgresql/statements.sql).
        check_run "$k" procedure "run-$k-procedure-unnamed" unnamed
    fi
}

# wrong_password KIND DSN: a wrong password, from another variable: exit 2,
# the diagnostic of the server, and the text of the password nowhere.
wrong_password() {
    k=$1
    dsn=$2
    odbc_cfg "$tmp/$k-wrongpw.yaml" "DSN=$dsn" TPCC_WRONG_PW
    run "wrongpw-$k" "$bin" run -c "$tmp/$k-wrongpw.yaml" --duration 2s --label "wrongpw-$k"
    is "$rc" 2 "$k: a wrong password: exit 2" || explain
    case $k in
    pg) like "$err" "*password authentication failed*" "$k: the ODBC diagnostic says why" ;;
    maria) like "$err" "*Access denied for user*28000*" "$k: the ODBC diagnostic says why" ;;
    esac
    unlike "$both" "*$TPCC_WRONG_PW*" "$k: the wrong password is not printed"
}

suite pg tpcc-pg PostgreSQL postgresql
wrong_password pg tpcc-pg
suite maria tpcc-maria MariaDB mysql
wrong_password maria tpcc-maria

# A DSN that is in no odbc.ini: the driver manager says so.
run nodsn "$bin" run -c "$tmp/nodsn.yaml" --duration 2s --label nodsn
is "$rc" 2 "a DSN that does not exist: exit 2" || explain
like "$err" "*tpcc-no-such-dsn*Data source name not found*IM002*" \
    "the message names the DSN and carries the driver manager's diagnostic"

# Servers that are down: the same DSNs, nothing listening.
maria_stop
run down-maria "$bin" run -c "$tmp/maria.yaml" --duration 2s --label down-maria
is "$rc" 2 "maria: the server is down: exit 2" || explain
like "$err" "*Can't connect to*" "maria: the ODBC diagnostic says why"
pg_stop
run down-pg "$bin" run -c "$tmp/pg.yaml" --duration 2s --label down-pg
is "$rc" 2 "pg: the server is down: exit 2" || explain
like "$err" "*onnection refused*" "pg: the ODBC diagnostic says why"

# No secret anywhere: every output of this test and every record.
leaks=$(grep -rlF -e "$TPCC_TEST_PASSWORD" -e "$TPCC_WRONG_PW" "$tmp"/*.out "$tmp"/*.err "$tmp/results" 2>/dev/null)
is "$leaks" "" "no output and no record holds a password"
done_testing
