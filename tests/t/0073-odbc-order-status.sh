#!/bin/sh
# 0073-odbc-order-status.sh - Order-Status's one snapshot through ODBC, where
# the driver opens transactions itself (autocommit off) and the snapshot comes
# from the dialect's os_snapshot statement (SET TRANSACTION ... REPEATABLE
# READ, READ ONLY) instead of a BEGIN: PostgreSQL through psqlODBC and MariaDB
# through Connector/ODBC, client mode, and MariaDB's stored procedure.
#
# As in tests/t/0036-order-status.sh, with the probe of tests/helper/
# txn_probe.c: Order-Status stops between the order and its lines (client
# mode: the db_exec() test hook; MariaDB's procedure: tpcc_order_status from
# schema/mysql/procedures.sql with its marked place replaced by a wait for a
# user lock (GET_LOCK) that another session holds, seen waiting in the
# process list as "User lock"); a second session commits a Delivery of that
# order meanwhile; Order-Status must show it wholly undelivered.  The control
# (a plain read-committed transaction, as before) shows the carrier NULL and
# every line delivered.  Prints TAP; the servers and the temp directory are
# removed on exit, pass or fail.  About 40 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_helper probe txn_probe

t_begin t0073 pg mariadb odbc ostatus
t_pg 1
t_maria_up
t_odbc_up
cat >"$tmp/m.yaml" <<EOY
database: {driver: odbc, managed: false, dsn: "DSN=tpcc-maria", password_env: TPCC_TEST_PASSWORD}
results: {dir: "$tmp/results"}
EOY
run load-pg "$bin" load -c "$cfg" --label load-pg
is "$rc" 0 "PostgreSQL: load W=1" || bail_out "no data to run on"
run load-maria "$bin" load -c "$tmp/m.yaml" --label load-maria
is "$rc" 0 "MariaDB: load W=1 through Connector/ODBC" || bail_out "no data to run on"

# The gap (tests/lib/ostatus.sh): the target order os_o of customer os_c,
# the Delivery, the judgement.

# probe_via KIND: the probe's arguments for KIND's DSN, district 1 of warehouse 1.
probe_via() {
    case $1 in
    pg) echo "--driver odbc --dsn DSN=tpcc-pg --dialect postgresql --w 1 --d 1" ;;
    maria) echo "--driver odbc --dsn DSN=tpcc-maria --dialect mysql --w 1 --d 1" ;;
    esac
}

# paused_client KIND LABEL WANT WHAT [--read-committed]
paused_client() {
    _k=$1
    _l=$2
    _want=$3
    _what=$4
    shift 4
    os_target "$_k"
    rm -f "$tmp/go-$_l"
    # shellcheck disable=SC2046
    os_probe_bg "$_l" $(probe_via "$_k") --mode client --c "$os_c" --pause-before os_order_lines \
        --go-file "$tmp/go-$_l" "$@"
    os_wait_paused "$tmp/$_l.out" 20 || fail "$_l: the probe stopped before the lines" "$(cat "$tmp/$_l.err")"
    os_deliver "$_l" "$_k"
    touch "$tmp/go-$_l"
    os_finish "$_l" "$_want" "$_what: order $os_o"
}

for k in pg maria; do
    case $k in pg) via="psqlODBC" ;; maria) via="Connector/ODBC" ;; esac
    paused_client $k "$k-client-control" mixed \
        "$via control (read committed, as before): carrier NULL but every line delivered" \
        --read-committed
    paused_client $k "$k-client-snapshot" undelivered \
        "$via client mode: wholly undelivered, as when Order-Status began (one snapshot)"
done

# MariaDB's procedure with a wait for a user lock at its marked place.
awk '/^CREATE PROCEDURE tpcc_order_status\(/ { on = 1 } on { print } on && /^END;/ { exit }' \
    "$root/schema/mysql/procedures.sql" |
    sed 's/^ *-- (between the order and its lines: .*pauses here)$/    DO GET_LOCK('"'tpcc_t0073'"', 60); DO RELEASE_LOCK('"'tpcc_t0073'"');/; s/^END;$/END\/\//' \
    >"$tmp/os-paused.sql"
like "$(cat "$tmp/os-paused.sql")" "*DO GET_LOCK('tpcc_t0073', 60)*" \
    "mysql procedures.sql: tpcc_order_status has the marked place between the order and its lines"
printf 'DROP PROCEDURE IF EXISTS tpcc_order_status;\nDELIMITER //\n%s\nDELIMITER ;\n' \
    "$(cat "$tmp/os-paused.sql")" | maria_session >"$tmp/install.out" 2>&1
is "$?" 0 "installed tpcc_order_status with a wait for user lock tpcc_t0073 there" ||
    diag "$(cat "$tmp/install.out")"

os_lock_open maria
os_lock_set "user lock tpcc_t0073" "select get_lock('tpcc_t0073', 60);" \
    "select release_lock('tpcc_t0073');" "select is_used_lock('tpcc_t0073') is not null" \
    "select count(*) > 0 from information_schema.processlist where state = 'User lock'"

# paused_proc LABEL WANT WHAT [--read-committed]
paused_proc() {
    _l=$1
    _want=$2
    _what=$3
    shift 3
    # shellcheck disable=SC2046
    os_paused_proc "$_l" maria 20 $(probe_via maria) --mode procedure "$@"
    os_finish "$_l" "$_want" "$_what: order $os_o"
}

paused_proc maria-proc-control mixed \
    "Connector/ODBC control (the CALL at read committed): carrier NULL but every line delivered" \
    --read-committed
paused_proc maria-proc-snapshot undelivered \
    "Connector/ODBC procedure mode: wholly undelivered, as when the CALL began (one snapshot)"

os_lock_close
done_testing
