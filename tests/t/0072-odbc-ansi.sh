#!/bin/sh
# 0072-odbc-ansi.sh - the generic ANSI SQL dialect (schema/ansi/, the one an
# unknown DBMS falls back to) against real servers through ODBC, chosen with
# schema.dialect: ansi: PostgreSQL through psqlODBC, and MariaDB through
# Connector/ODBC with sql_mode ANSI (|| concatenates, "x" quotes names).
#
# For each DBMS: load 1 warehouse, all 12 consistency conditions, a
# client-mode run of 2 VUs x 23 transactions (a deck each: every type runs)
# whose New-Order count equals the database's
# (run.notpm_counts_agree), conditions 1-4 after it.  Then procedure mode is
# refused (the dialect has no procedures).  Prints TAP; the servers and the
# temp directory are removed on exit, pass or fail.  About 40 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0072 pg mariadb odbc
t_copy_bin

# write_cfg FILE DSN: the dialect ansi.
write_cfg() {
    odbc_cfg "$1" "$2" TPCC_TEST_PASSWORD "warehouses: 1, dialect: ansi"
}

write_cfg "$tmp/nodsn.yaml" "DSN=tpcc-no-such-dsn"
t_odbc_built "$tmp/nodsn.yaml"

t_pg_up
t_maria_up
t_odbc_up
# MariaDB in ANSI mode on every connection of the DSN (Connector/ODBC runs
# InitStmt after connecting): || concatenates, "x" quotes names.  The
# [tpcc-maria] section is the last one of odbc.ini.
printf "InitStmt=SET SESSION sql_mode='ANSI,STRICT_TRANS_TABLES'\n" >>"$tmp/odbc/odbc.ini"
pass "servers up: PostgreSQL on 127.0.0.1:$PG_TEST_PORT, MariaDB on 127.0.0.1:$MARIA_TEST_PORT"

# suite KIND DSN
suite() {
    k=$1
    write_cfg "$tmp/$k.yaml" "DSN=$2"

    # Its progress watched, not its time: under a loaded machine this load
    # through ODBC is slow, not hung.
    run_watched "load-$k" "$bin" load -c "$tmp/$k.yaml" --warehouses 1 --label "load-$k" \
        --metrics-listen 127.0.0.1:0
    is "$rc" 0 "$k ansi: load W=1 through ODBC ($2): exit 0" || {
        explain
        diag "$(cat "$tmp/load-$k.watch")"
        return 1
    }
    is "$(db_sql "$k" 'select sum(d_next_o_id) from district')" "30010" "$k ansi: the load is committed: sum(d_next_o_id) = 30010"
    run "check-$k" "$bin" check -c "$tmp/$k.yaml" --conditions all
    is "$rc:$(n_ok "$both")" "0:12" "$k ansi: all 12 consistency conditions hold after the load" ||
        explain

    # One deck of 23 cards per terminal (10 New-Orders, 10 Payments, 1 of
    # each other type), not a time: every type runs however slow the machine.
    run "run-$k" "$bin" run -c "$tmp/$k.yaml" --mode client --vus 2 --transactions 23 \
        --duration 300s --warmup 0s --label "run-$k"
    is "$rc" 0 "$k ansi: client-mode run, 2 VUs x 23 transactions: exit 0" || explain
    _r=$(rec_json "run-$k")
    is "$(json "$_r" "r['status'], r['run']['notpm_counts_agree']")" "complete True" \
        "$k ansi: the record is complete and the client NOTPM equals the database's count"
    is "$(json "$_r" "r['run']['new_orders_client'] > 0")" "True" "$k ansi: New-Orders were done"
    is "$(json "$_r" "sum(t['errors']['other'] + t['errors']['connection'] for t in r['run']['transactions'].values())")" \
        "0" "$k ansi: no errors but retryable ones" ||
        diag "$(json "$_r" "r['run']['errors_by_sqlstate']")"
    is "$(json "$_r" "[(k, t['count'] + t['rolled_back']) for k, t in sorted(r['run']['transactions'].items())]")" \
        "[('delivery', 2), ('new_order', 20), ('order_status', 2), ('payment', 20), ('stock_level', 2)]" \
        "$k ansi: every transaction type ran, one deck per terminal"
    run "check14-$k" "$bin" check -c "$tmp/$k.yaml" --conditions 1-4
    is "$rc:$(n_ok "$both")" "0:4" "$k ansi: conditions 1-4 hold after the run" || explain
}

suite pg tpcc-pg
suite maria tpcc-maria

done_testing
