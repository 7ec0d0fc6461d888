#!/bin/sh
# 0036-order-status.sh - Order-Status's outputs and its one snapshot, against a
# real PostgreSQL (tests/lib/pg.sh), 1 warehouse, through the probe of
# tests/helper/txn_probe.c (one Order-Status through src/tpcc/txn.c, printed).
#
#  1. Outputs (clause 2.6.3): for the same input, by c_id and by last name,
#     client, pipeline and procedure mode print the same customer, order and
#     lines, and those are what the tables hold.
#  2. One snapshot, client mode: the probe stops between the order and its
#     lines (the db_exec() test hook: it prints "paused" and waits for a
#     file); meanwhile a second session commits a Delivery of that very order
#     (tpcc_delivery, which delivers the oldest new order of each district:
#     after a load the oldest in a district is o_id 2101 and its customer's
#     only order).  Order-Status must show the order wholly undelivered: no
#     carrier and no line delivered.  The control does the same with the
#     statements in a plain read-committed transaction, as Order-Status ran
#     before: it shows the carrier NULL and every line delivered, so the test
#     can tell the two apart.
#  3. One snapshot, procedure mode: the pause is inside the function.  The
#     test installs tpcc_order_status from schema/postgresql/procedures.sql
#     with the marked comment between the order and its lines replaced by a
#     wait for a shared advisory lock that a third session holds.  The test
#     waits until pg_locks shows the probe's backend waiting for it (an
#     advisory lock not granted: the function has read the order), commits
#     the Delivery, releases the lock; the function then reads the lines.
#     Deterministic: each step waits for the state the next one needs.  The
#     control (the call in a read-committed transaction) again shows the mix.
#  4. Functions of another version (tpcc_procedures_version) are refused by
#     procedure mode with what to run; install-procedures restores them.
# Prints TAP.  About 20 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# The binary under test: a sanitizer build sets TPCC_BIN (see the Makefile).
TPCC_BIN=${TPCC_BIN:-$root/tpccbench}
. "$root/tests/lib/tap.sh"
. "$root/tests/lib/pg.sh"
. "$root/tests/lib/util.sh"

probe=${TPCC_HELPERS:-$root/build/tests/helper}/txn_probe
[ -x "$probe" ] || bail_out "$probe is missing: run make build/tests/helper/txn_probe"

t_begin t0036
t_pg 1

run load "$bin" load -c "$cfg" --label load
is "$rc" 0 "load: exit 0" || {
    explain
    bail_out "no data to run on"
}

# p LABEL ARGS...: the probe on the test server, output in $tmp/LABEL.out.
p() {
    _l=$1
    shift
    run "$_l" "$probe" --conninfo "$PG_TEST_CONNINFO" "$@"
}

# wait_until SECS SQL: until the query returns t; 0 when it did.
wait_until() {
    _i=0
    while [ $_i -lt $(($1 * 20)) ]; do
        [ "$(pg_psql "$2" 2>/dev/null)" = t ] && return 0
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# wait_paused FILE SECS: until the probe printed "paused" into FILE.
wait_paused() {
    _i=0
    while [ $_i -lt $(($2 * 20)) ]; do
        grep -q '^paused before' "$1" 2>/dev/null && return 0
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# ---------------------------------------------------------------------------
# 1. The same outputs in every mode, and the tables' own.

c_id=17
last=$(pg_psql "select c_last from customer where c_w_id = 1 and c_d_id = 3 and c_id = 1200")
for m in client pipeline procedure; do
    p "id-$m" --mode "$m" --w 1 --d 3 --c "$c_id"
    is "$rc" 0 "$m: Order-Status by c_id: exit 0" || explain
    p "name-$m" --mode "$m" --w 1 --d 3 --last "$last"
    is "$rc" 0 "$m: Order-Status by last name ($last): exit 0" || explain
done
for m in pipeline procedure; do
    is "$(cat "$tmp/id-$m.out")" "$(cat "$tmp/id-client.out")" \
        "$m: by c_id, the same customer, order and lines as client mode"
    is "$(cat "$tmp/name-$m.out")" "$(cat "$tmp/name-client.out")" \
        "$m: by last name, the same customer, order and lines as client mode"
done
# What the tables hold for customer 17 of district 3, its order and lines.
want=$(pg_psql "select 'customer ' || c_id || ' ' || c_first || ' ' || c_middle || ' ' || c_last
        || ' ' || (c_balance * 100)::bigint from customer where c_w_id = 1 and c_d_id = 3 and c_id = $c_id
    union all select * from (select 'order ' || o_id || ' ' || o_entry_d || ' '
        || coalesce(o_carrier_id::text, 'NULL') from orders
        where o_w_id = 1 and o_d_id = 3 and o_c_id = $c_id order by o_id desc limit 1) o")
lines=$(pg_psql "select 'line ' || ol_i_id || ' ' || ol_supply_w_id || ' ' || ol_quantity || ' '
        || (ol_amount * 100)::bigint || ' ' || case when ol_delivery_d is null then 'NULL' else 'delivered' end
    from order_line where ol_w_id = 1 and ol_d_id = 3 and ol_o_id = (select max(o_id) from orders
        where o_w_id = 1 and o_d_id = 3 and o_c_id = $c_id) order by ol_number")
is "$(cat "$tmp/id-client.out")" "$want
$lines" "client: customer, order and lines are the tables' (clause 2.6.3's columns)"
# By name: position ceil(n/2) of those named $last, in c_first order.
pick=$(pg_psql "select c_id from customer where c_w_id = 1 and c_d_id = 3 and c_last = '$last'
    order by c_first, c_id offset (select (count(*) - 1) / 2 from customer
        where c_w_id = 1 and c_d_id = 3 and c_last = '$last') limit 1")
is "$(sed -n 's/^customer \([0-9]*\) .*/\1/p' "$tmp/name-client.out")" "$pick" \
    "by last name: the customer at position ceil(n/2) in c_first order (c_id $pick)"
n=$(grep -c '^line ' "$tmp/id-procedure.out")
ok "$([ "$n" -ge 5 ] && [ "$n" -le 15 ] && echo 0 || echo 1)" "procedure: 5..15 lines returned ($n)"

# ---------------------------------------------------------------------------
# 2 and 3.  A Delivery committed between the order and its lines.

# target: the oldest undelivered order of district 1 and its customer (after
# a load, that customer's only order): "o_id c_id".
target() {
    pg_psql "select o_id || ' ' || o_c_id from orders where o_w_id = 1 and o_d_id = 1
        and o_id = (select min(no_o_id) from new_order where no_w_id = 1 and no_d_id = 1)"
}

# judge LABEL O_ID WANT: the probe's output LABEL shows order O_ID, and WANT
# is "undelivered" (carrier NULL, no line delivered) or "mixed" (carrier
# NULL, every line delivered: two snapshots).
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

# The Delivery the second session commits, and that it delivered o_id.
deliver() {
    pg_psql "select tpcc_delivery(1, 7)" >/dev/null
    [ "$(pg_psql "select o_carrier_id from orders where o_w_id = 1 and o_d_id = 1 and o_id = $1")" = 7 ]
}

# paused_client LABEL [--read-committed]: client mode, paused before the lines.
paused_client() {
    _l=$1
    shift
    set -- $(target) "$@"
    _o=$1
    _c=$2
    shift 2
    rm -f "$tmp/go-$_l"
    "$probe" --conninfo "$PG_TEST_CONNINFO" --mode client --w 1 --d 1 --c "$_c" \
        --pause-before os_order_lines --go-file "$tmp/go-$_l" "$@" \
        >"$tmp/$_l.out" 2>"$tmp/$_l.err" </dev/null &
    bgpid=$!
    if wait_paused "$tmp/$_l.out" 10; then
        pass "$_l: the probe stopped before the lines of order $_o (customer $_c)"
    else
        fail "$_l: the probe stopped before the lines" "$(cat "$tmp/$_l.err")"
    fi
    if deliver "$_o"; then
        pass "$_l: a second session delivered order $_o meanwhile (carrier 7)"
    else
        fail "$_l: a second session delivered order $_o meanwhile"
    fi
    touch "$tmp/go-$_l"
    wait "$bgpid"
    is "$?" 0 "$_l: the probe finished: exit 0" || diag "$(cat "$tmp/$_l.err")"
    bgpid=
    order=$_o
}

paused_client client-control --read-committed
if judge client-control "$order" mixed; then
    pass "control (read committed, as before): order $order shows no carrier but every line delivered"
else
    fail "control (read committed): order $order undelivered with its lines delivered" "$(cat "$tmp/client-control.out")"
fi

paused_client client-snapshot
if judge client-snapshot "$order" undelivered; then
    pass "client mode: order $order wholly undelivered, as when Order-Status began (one snapshot)"
else
    fail "client mode: order $order wholly undelivered" "$(cat "$tmp/client-snapshot.out")"
fi

# Procedure mode: the function waits for a shared advisory lock between the
# order and its lines.  The marked comment must be there to be replaced.
key=36036
awk '/^CREATE FUNCTION tpcc_order_status\(/ { on = 1 } on { print } on && /^END \$\$;/ { exit }' \
    "$root/schema/postgresql/procedures.sql" |
    sed "s/^CREATE FUNCTION/CREATE OR REPLACE FUNCTION/;
         s/^ *-- (between the order and its lines: .*pauses here)\$/    PERFORM pg_advisory_lock_shared($key); PERFORM pg_advisory_unlock_shared($key);/" \
    >"$tmp/os-paused.sql"
like "$(cat "$tmp/os-paused.sql")" "*PERFORM pg_advisory_lock_shared($key)*" \
    "procedures.sql: tpcc_order_status has the marked place between the order and its lines"
pg_psql "$(cat "$tmp/os-paused.sql")" >/dev/null
is "$?" 0 "installed tpcc_order_status with a wait for advisory lock $key at that place"

# The lock holder: psql reading from a FIFO, so it keeps its session.
mkfifo "$tmp/lock.fifo"
PGPASSWORD=$TPCC_TEST_PASSWORD "$PG_TEST_BINDIR/psql" -X -q -tA -d "$PG_TEST_CONNINFO" \
    <"$tmp/lock.fifo" >"$tmp/lock.out" 2>&1 &
lockpid=$!
exec 3>"$tmp/lock.fifo"
held="select exists (select 1 from pg_locks where locktype = 'advisory' and objid = $key
    and mode = 'ExclusiveLock' and granted)"
waiting="select exists (select 1 from pg_locks where locktype = 'advisory' and objid = $key
    and mode = 'ShareLock' and not granted)"

# paused_proc LABEL [--read-committed]
paused_proc() {
    _l=$1
    shift
    set -- $(target) "$@"
    _o=$1
    _c=$2
    shift 2
    echo "select pg_advisory_lock($key);" >&3
    wait_until 10 "$held" || fail "$_l: the third session holds advisory lock $key"
    "$probe" --conninfo "$PG_TEST_CONNINFO" --mode procedure --w 1 --d 1 --c "$_c" "$@" \
        >"$tmp/$_l.out" 2>"$tmp/$_l.err" </dev/null &
    bgpid=$!
    if wait_until 10 "$waiting"; then
        pass "$_l: tpcc_order_status waits for the lock, after reading order $_o (customer $_c)"
    else
        fail "$_l: tpcc_order_status waits for the lock" "$(cat "$tmp/$_l.err")"
    fi
    if deliver "$_o"; then
        pass "$_l: a second session delivered order $_o meanwhile (carrier 7)"
    else
        fail "$_l: a second session delivered order $_o meanwhile"
    fi
    echo "select pg_advisory_unlock($key);" >&3
    wait "$bgpid"
    is "$?" 0 "$_l: the probe finished: exit 0" || diag "$(cat "$tmp/$_l.err")"
    bgpid=
    order=$_o
}

paused_proc proc-control --read-committed
if judge proc-control "$order" mixed; then
    pass "control (the call at read committed): order $order shows no carrier but every line delivered"
else
    fail "control (the call at read committed): order $order undelivered with its lines delivered" "$(cat "$tmp/proc-control.out")"
fi

paused_proc proc-snapshot
if judge proc-snapshot "$order" undelivered; then
    pass "procedure mode: order $order wholly undelivered, as when the call began (one snapshot)"
else
    fail "procedure mode: order $order wholly undelivered" "$(cat "$tmp/proc-snapshot.out")"
fi

# Afterwards the same Order-Status sees the delivery whole.
p after --mode procedure --w 1 --d 1 --c "$(pg_psql "select o_c_id from orders where o_w_id = 1
    and o_d_id = 1 and o_id = $order")"
n=$(grep -c '^line ' "$tmp/after.out")
is "$(sed -n 's/^order \([0-9]*\) .* \([0-9A-Z]*\)$/\1 \2/p' "$tmp/after.out") $(grep -c '^line .* delivered$' "$tmp/after.out")" \
    "$order 7 $n" "afterwards: order $order with carrier 7 and all $n lines delivered"

exec 3>&-
wait "$lockpid" 2>/dev/null
lockpid=

# ---------------------------------------------------------------------------
# 4. Functions of another version return other columns: procedure mode
#    refuses them and says what to run; install-procedures puts this
#    version's back (the paused tpcc_order_status too).

pg_psql "create or replace function tpcc_procedures_version() returns int language sql as 'select 1'" >/dev/null
run oldproc "$bin" run -c "$cfg" --mode procedure --vus 1 --duration 1s --warmup 0s --label oldproc
is "$rc" 2 "run --mode procedure on functions of version 1: exit 2" || explain
like "$err" "*server-side functions are of another version, this tpccbench needs version 2: run 'tpccbench install-procedures'*" \
    "it says the functions are of another version and to run install-procedures"
run install "$bin" install-procedures -c "$cfg"
is "$rc" 0 "install-procedures: exit 0" || explain
is "$(pg_psql "select tpcc_procedures_version()")" "2" "install-procedures: version 2 again"
like "$(pg_psql "select prosrc from pg_proc where proname = 'tpcc_order_status'")" \
    "*pauses here*" "install-procedures: tpcc_order_status without the pause again"
done_testing
