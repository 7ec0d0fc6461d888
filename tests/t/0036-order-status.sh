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
. "$root/tests/lib/util.sh"

t_helper probe txn_probe

t_begin t0036 pg ostatus
t_pg_load 1 "load: exit 0"

# p LABEL ARGS...: the probe on the test server, output in $tmp/LABEL.out.
p() {
    _l=$1
    shift
    run "$_l" "$probe" --conninfo "$PG_TEST_CONNINFO" "$@"
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
# 2 and 3.  A Delivery committed between the order and its lines
# (tests/lib/ostatus.sh: the target order os_o of customer os_c, the
# Delivery, the judgement).

# paused_client LABEL [--read-committed]: client mode, paused before the
# lines while a second session delivers the order; then the probe goes on.
paused_client() {
    _l=$1
    shift
    os_target pg
    rm -f "$tmp/go-$_l"
    os_probe_bg "$_l" --conninfo "$PG_TEST_CONNINFO" --mode client --w 1 --d 1 --c "$os_c" \
        --pause-before os_order_lines --go-file "$tmp/go-$_l" "$@"
    if os_wait_paused "$tmp/$_l.out" 10; then
        pass "$_l: the probe stopped before the lines of order $os_o (customer $os_c)"
    else
        fail "$_l: the probe stopped before the lines" "$(cat "$tmp/$_l.err")"
    fi
    os_deliver "$_l" pg
    touch "$tmp/go-$_l"
}

paused_client client-control --read-committed
os_finish client-control mixed \
    "control (read committed, as before): order $os_o shows no carrier but every line delivered"

paused_client client-snapshot
os_finish client-snapshot undelivered \
    "client mode: order $os_o wholly undelivered, as when Order-Status began (one snapshot)"

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
os_lock_open pg
os_lock_set "advisory lock $key" "select pg_advisory_lock($key);" "select pg_advisory_unlock($key);" \
    "select exists (select 1 from pg_locks where locktype = 'advisory' and objid = $key
        and mode = 'ExclusiveLock' and granted)" \
    "select exists (select 1 from pg_locks where locktype = 'advisory' and objid = $key
        and mode = 'ShareLock' and not granted)"

os_paused_proc proc-control pg 10 --conninfo "$PG_TEST_CONNINFO" --mode procedure --w 1 --d 1 \
    --read-committed
os_finish proc-control mixed \
    "control (the call at read committed): order $os_o shows no carrier but every line delivered"

os_paused_proc proc-snapshot pg 10 --conninfo "$PG_TEST_CONNINFO" --mode procedure --w 1 --d 1
os_finish proc-snapshot undelivered \
    "procedure mode: order $os_o wholly undelivered, as when the call began (one snapshot)"

# Afterwards the same Order-Status sees the delivery whole.
p after --mode procedure --w 1 --d 1 --c "$os_c"
n=$(grep -c '^line ' "$tmp/after.out")
is "$(sed -n 's/^order \([0-9]*\) .* \([0-9A-Z]*\)$/\1 \2/p' "$tmp/after.out") $(grep -c '^line .* delivered$' "$tmp/after.out")" \
    "$os_o 7 $n" "afterwards: order $os_o with carrier 7 and all $n lines delivered"

os_lock_close

# ---------------------------------------------------------------------------
# 4. Functions of another version return other columns: procedure mode
#    refuses them and says what to run; install-procedures puts this
#    version's back (the paused tpcc_order_status too).

pg_psql "create or replace function tpcc_procedures_version() returns int language sql as 'select 1'" >/dev/null
run oldproc "$bin" run -c "$cfg" --mode procedure --vus 1 --duration 1s --warmup 0s --label oldproc
is "$rc" 2 "run --mode procedure on functions of version 1: exit 2" || explain
like "$err" "*server-side functions are of another version, this tpccbench needs version 3: run 'tpccbench install-procedures'*" \
    "it says the functions are of another version and to run install-procedures"
run install "$bin" install-procedures -c "$cfg"
is "$rc" 0 "install-procedures: exit 0" || explain
is "$(pg_psql "select tpcc_procedures_version()")" "3" "install-procedures: version 3 again"
like "$(pg_psql "select prosrc from pg_proc where proname = 'tpcc_order_status'")" \
    "*pauses here*" "install-procedures: tpcc_order_status without the pause again"
done_testing
