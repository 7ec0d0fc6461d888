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
# The binary under test: a sanitizer build sets TPCC_BIN (see the Makefile).
TPCC_BIN=${TPCC_BIN:-$root/tpccbench}
. "$root/tests/lib/tap.sh"
. "$root/tests/lib/pg.sh"
. "$root/tests/lib/mariadb.sh"
. "$root/tests/lib/util.sh"

probe=${TPCC_HELPERS:-$root/build/tests/helper}/txn_probe
[ -x "$probe" ] || bail_out "$probe is missing: run make build/tests/helper/txn_probe"

t_begin t0073
t_extra_cleanup=maria_stop
t_pg 1
if ! maria_start 2>"$tmp/maria_start.err"; then
    cat "$tmp/maria_start.err" >&2
    bail_out "maria_start failed: $(tail -n 1 "$tmp/maria_start.err")"
fi
. "$root/tests/lib/odbc.sh"
odbc_setup "$tmp/odbc" 2>"$tmp/odbc_setup.err" || bail_out "odbc_setup: $(cat "$tmp/odbc_setup.err")"
cat >"$tmp/m.yaml" <<EOY
database: {driver: odbc, managed: false, dsn: "DSN=tpcc-maria", password_env: TPCC_TEST_PASSWORD}
results: {dir: "$tmp/results"}
EOY
run load-pg "$bin" load -c "$cfg" --label load-pg
is "$rc" 0 "PostgreSQL: load W=1" || bail_out "no data to run on"
run load-maria "$bin" load -c "$tmp/m.yaml" --label load-maria
is "$rc" 0 "MariaDB: load W=1 through Connector/ODBC" || bail_out "no data to run on"

# sql KIND SQL: through the DBMS's own client.
sql() {
    case $1 in
    pg) pg_psql "$2" ;;
    maria) maria_sql "$2" ;;
    esac
}

# wait_true SECS KIND SQL: until the query returns 1 (or t); 0 when it did.
wait_true() {
    _i=0
    while [ $_i -lt $(($1 * 20)) ]; do
        case $(sql "$2" "$3" 2>/dev/null) in 1 | t) return 0 ;; esac
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

wait_paused() {
    _i=0
    while [ $_i -lt $(($2 * 20)) ]; do
        grep -q '^paused before' "$1" 2>/dev/null && return 0
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# target KIND: "o_id c_id" of the oldest undelivered order of district 1.
target() {
    sql "$1" "select o_id, o_c_id from orders where o_w_id = 1 and o_d_id = 1
        and o_id = (select min(no_o_id) from new_order where no_w_id = 1 and no_d_id = 1)" |
        tr '|\t' '  '
}

# deliver KIND O_ID: the second session's Delivery, and that it delivered O_ID.
deliver() {
    case $1 in
    pg) pg_psql "select tpcc_delivery(1, 7)" >/dev/null ;;
    maria) maria_sql "call tpcc_delivery(1, 7)" >/dev/null ;;
    esac
    [ "$(sql "$1" "select o_carrier_id from orders where o_w_id = 1 and o_d_id = 1 and o_id = $2")" = 7 ]
}

# judge LABEL O_ID undelivered|mixed (as in 0036).
judge() {
    _out=$tmp/$1.out
    _order=$(sed -n 's/^order \([0-9]*\) .* \([0-9A-Z]*\)$/\1 \2/p' "$_out")
    _n=$(grep -c '^line ' "$_out")
    _d=$(grep -c '^line .* delivered$' "$_out")
    case $3 in
    undelivered) [ "$_order" = "$2 NULL" ] && [ "$_n" -ge 5 ] && [ "$_d" = 0 ] ;;
    mixed) [ "$_order" = "$2 NULL" ] && [ "$_n" -ge 5 ] && [ "$_d" = "$_n" ] ;;
    esac
}

# probe_bg KIND LABEL ARGS...: the probe through ODBC in the background.
probe_bg() {
    _k=$1
    _l=$2
    shift 2
    case $_k in
    pg) _dsn=DSN=tpcc-pg _dialect=postgresql ;;
    maria) _dsn=DSN=tpcc-maria _dialect=mysql ;;
    esac
    "$probe" --driver odbc --dsn "$_dsn" --dialect "$_dialect" --w 1 --d 1 "$@" \
        >"$tmp/$_l.out" 2>"$tmp/$_l.err" </dev/null &
    bgpid=$!
}

# finish LABEL O_ID WANT WHAT: wait for the probe, then judge its output.
finish() {
    wait "$bgpid"
    is "$?" 0 "$1: the probe finished: exit 0" || diag "$(cat "$tmp/$1.err")"
    bgpid=
    if judge "$1" "$2" "$3"; then
        pass "$4"
    else
        fail "$4" "$(cat "$tmp/$1.out")"
    fi
}

# paused_client KIND LABEL WANT WHAT [--read-committed]
paused_client() {
    _k=$1
    _l=$2
    _want=$3
    _what=$4
    shift 4
    set -- $(target "$_k") "$@"
    _o=$1
    _c=$2
    shift 2
    rm -f "$tmp/go-$_l"
    probe_bg "$_k" "$_l" --mode client --c "$_c" --pause-before os_order_lines \
        --go-file "$tmp/go-$_l" "$@"
    wait_paused "$tmp/$_l.out" 20 || fail "$_l: the probe stopped before the lines" "$(cat "$tmp/$_l.err")"
    if deliver "$_k" "$_o"; then
        pass "$_l: order $_o (customer $_c) delivered by a second session during the pause"
    else
        fail "$_l: order $_o delivered by a second session during the pause"
    fi
    touch "$tmp/go-$_l"
    finish "$_l" "$_o" "$_want" "$_what: order $_o"
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

mkfifo "$tmp/lock.fifo"
maria_session <"$tmp/lock.fifo" >"$tmp/lock.out" 2>&1 &
lockpid=$!
exec 3>"$tmp/lock.fifo"
held="select is_used_lock('tpcc_t0073') is not null"
waiting="select count(*) > 0 from information_schema.processlist where state = 'User lock'"

# paused_proc LABEL WANT WHAT [--read-committed]
paused_proc() {
    _l=$1
    _want=$2
    _what=$3
    shift 3
    set -- $(target maria) "$@"
    _o=$1
    _c=$2
    shift 2
    echo "select get_lock('tpcc_t0073', 60);" >&3
    wait_true 10 maria "$held" || fail "$_l: a third session holds user lock tpcc_t0073"
    probe_bg maria "$_l" --mode procedure --c "$_c" "$@"
    if wait_true 20 maria "$waiting"; then
        pass "$_l: tpcc_order_status waits for the lock, after reading order $_o (customer $_c)"
    else
        fail "$_l: tpcc_order_status waits for the lock" "$(cat "$tmp/$_l.err")"
    fi
    if deliver maria "$_o"; then
        pass "$_l: order $_o delivered by a second session meanwhile"
    else
        fail "$_l: order $_o delivered by a second session meanwhile"
    fi
    echo "select release_lock('tpcc_t0073');" >&3
    finish "$_l" "$_o" "$_want" "$_what: order $_o"
}

paused_proc maria-proc-control mixed \
    "Connector/ODBC control (the CALL at read committed): carrier NULL but every line delivered" \
    --read-committed
paused_proc maria-proc-snapshot undelivered \
    "Connector/ODBC procedure mode: wholly undelivered, as when the CALL began (one snapshot)"

exec 3>&-
wait "$lockpid" 2>/dev/null
lockpid=
done_testing
