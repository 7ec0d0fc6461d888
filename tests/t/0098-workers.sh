#!/bin/sh
# 0098-workers.sh - workers that own several connections (run.workers fewer
# than run.connections, src/run/group.c) on a real PostgreSQL (W=2):
#
#  1. 16 terminals x 60 transactions over 8 connections on 2 worker
#     threads, batches of 2, inline Delivery: exactly 960 transactions ran,
#     none twice and none lost; committed New-Orders equal the increase of
#     sum(d_next_o_id); the record and the summary say 2 workers; the same
#     exactness in batches of up to 64 (256 terminals on 4 connections);
#  2. a timed closed-loop run, 8 connections on 1 thread: the window's edges
#     wait for every connection (nothing unfinished), NOTPM equals the
#     database count, and more than one connection is in a transaction at
#     once on average; the deferred Deliveries ran on the thread's 2
#     delivery connections (no delivery worker thread: the record says
#     "worker threads"; 11 connections answered: 8, 2 and the monitor's),
#     each queued in the window completed (10 districts each, none
#     pending), one round trip each, and the orders the database delivered
#     are exactly delivery.log's;
#  3. the server restarted (-m immediate) inside the window, 8 connections
#     on 2 threads: the run completes, all 8 were lost and reconnected on
#     their threads, the database count is the client's plus at most the
#     unknown outcomes, throughput comes back; conditions 1-4 hold;
#  4. every client backend killed (pg_terminate_backend): the same;
#  5. fewer workers than connections in client mode: exit 2, saying what it
#     needs and what to do;
#  6. a call that fails at its commit (a deferred constraint trigger) is a
#     failure, never a commit, though its result came back first; in
#     batches too, wherever its commit falls (a COMMIT AND CHAIN, a COMMIT,
#     the sync), the ones after it skipped and run once later;
#  7. the null driver: 16 terminals x 25 transactions on 2 threads, exactly
#     400, and a worker of several connections keeps each busy (TPS near 16
#     connections / 1 ms); with a deferred queue of 1 and 1 delivery
#     connection (on the second of 2 threads), 32 terminals x 50 fill it,
#     and the threads that empty it never wait for room (no deadlock):
#     exactly 1600, the waits counted, every Delivery completed; with 1
#     delivery connection and batches of 8 the Deliveries share its round
#     trips (of 1: one each), every one completed once, delivery.log whole;
#  8. one connection of a thread lost while the server takes new
#     connections but does not answer them (tests/helper/holdproxy.py): its
#     reconnect waits on a thread of its own, so the thread's other 7
#     connections commit during the hold (the database's New-Orders grow
#     while it is held), and it is
#     reconnected once the server answers again; held to the end of the
#     run instead, the attempt gives up at the stop and the run ends on
#     time, no thread left behind;
#  9. the server frozen at the stop (the proxy stopped: neither round trips
#     in flight nor cancel requests are answered): the run still ends by
#     itself, within its bounds, and its record and warning say 8
#     connections were left behind.
# Prints TAP.  About 115 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

# fsync off: the restart of 3. recovers a crashed server, not a crashed
# machine (the page cache keeps what was written), and its data directory's
# sync and checkpoints at fsync took seconds of the window on a machine
# whose other tests write too.
PG_TEST_CONF="fsync = off"
export PG_TEST_CONF
t_begin t0098 pg
t_pg_load 2 "load W=2"

# 1. Exact counts.
# exact NAME N ARGS...: run NAME (ARGS, procedure mode, no window limit but
# run.transactions): exactly N transactions ran, none twice, none lost, and
# the committed New-Orders are the increase of sum(d_next_o_id).
exact() {
    ex_name=$1 ex_n=$2
    shift 2
    ex_before=$(pg_psql "select sum(d_next_o_id) from district")
    run "$ex_name" "$bin" run -c "$cfg" --mode procedure --warmup 0s --duration 120s --label "$ex_name" "$@"
    is "$rc" 0 "$ex_name: $*: exit 0" || explain
    ex_after=$(pg_psql "select sum(d_next_o_id) from district")
    jcheck "$(rec "$ex_name")/run.json" "
run = rec.get('run', {})
n = sum(t['count'] + t['rolled_back'] for t in run.get('transactions', {}).values())
check(n == $ex_n, '$ex_name: exactly $ex_n transactions ran, none twice, none lost', n)
check(run.get('new_orders_client') == $ex_after - $ex_before,
      '$ex_name: committed New-Orders equal the increase of sum(d_next_o_id) ($ex_after - $ex_before)', run.get('new_orders_client'))
"
}
exact exact 960 --terminals 16 --connections 8 --workers 2 --batch 2 --transactions 60 --delivery inline
jcheck "$(rec exact)/run.json" "
run = rec.get('run', {})
tx = run.get('transactions', {})
t = run.get('terminals', {})
check(t.get('workers') == 2 and t.get('connections') == 8, 'the record says 8 connections on 2 workers', t)
check(sum(x.get('errors', {}).get('other', 0) for x in tx.values()) == 0, 'no errors', tx)
"
like "$out" "*16 terminals over 8 connections on 2 worker threads*" "the summary says 2 worker threads" || explain
# The largest batches: 256 terminals x 10 over 4 connections on 1 thread, up
# to 64 a round trip (pipelines of over 128 statements).
exact big 2560 --terminals 256 --connections 4 --workers 1 --batch 64 --transactions 10
jcheck "$(rec big)/run.json" "
p = rec.get('run', {}).get('terminals', {}).get('pipelining', {})
check(p.get('batch_max') == 64 and (p.get('per_round_trip') or 0) > 16, 'batches of 64: more than 16 a round trip', p)
"

# 2. Timed, 8 connections on 1 thread.
dl_sql="select count(*) from orders where o_carrier_id is not null"
dl0=$(pg_psql "$dl_sql")
run one "$bin" run -c "$cfg" --mode procedure --vus 8 --workers 1 --duration 6s --warmup 1s --label one
is "$rc" 0 "8 connections on 1 thread: exit 0" || explain
dl1=$(pg_psql "$dl_sql")
jcheck "$(rec one)/run.json" "
run = rec.get('run', {})
t, dl = run.get('terminals', {}), run.get('delivery', {})
dtx = run.get('transactions', {}).get('delivery', {})
check(dl.get('run_on') == 'worker threads' and t.get('delivery_workers') == 2
      and run.get('pooler', {}).get('connections') == 11,
      'the Deliveries ran on the thread\'s 2 delivery connections: 11 answered (8, 2, the monitor)',
      dl.get('run_on'), run.get('pooler'), t)
check(dl.get('mode') == 'deferred' and dl.get('completed', 0) > 0
      and dl.get('completed') == dtx.get('count') and dl.get('pending_at_end') == 0
      and dl.get('districts') == 10 * dl.get('completed'),
      'every Delivery queued in the window completed, 10 districts each, none pending',
      {k: dl.get(k) for k in ('completed', 'districts', 'pending_at_end')}, dtx.get('count'))
check(abs(dtx.get('round_trips_per_tx', 0) - 1.0) < 1e-9 and dtx.get('mean_in_tx_ms', 0) > 0,
      'a Delivery is one round trip of its own (procedure mode)', dtx)
n = 0
with open('$(rec one)/delivery.log') as f:
    for line in f:
        pairs = dict(x.split('=', 1) for x in line.split())['delivered'].split(',')
        n += sum(1 for p in pairs if p.split(':')[1] != '0')
check(n == $dl1 - $dl0, 'the database delivered exactly the %d orders delivery.log names' % n,
      ($dl0, $dl1))
check(run.get('notpm_counts_agree') is True and run.get('new_orders_client') == run.get('new_orders_db'),
      'NOTPM equals the database count', {k: run.get(k) for k in ('new_orders_client', 'new_orders_db')})
check(run.get('unfinished') == {'at_open': 0, 'at_close': 0}, 'the edges waited for all 8: nothing unfinished', run.get('unfinished'))
check(abs(run.get('measured_seconds', 0) - 6) <= 1, 'measured 6 s', run.get('measured_seconds'))
# One connection at a time would give at most 1: the claim is more than
# that (a TSan suite's run came under the 1.5 this once asked for).
check(run.get('vus_in_transaction_mean', 0) > 1, 'more than one of the thread\\'s connections in a transaction at once, on average (%s)' % run.get('vus_in_transaction_mean'), run.get('vus_in_transaction_mean'))
"
# outage_checks NAME: the record of a run with 8 connections that lived through an outage.
outage_checks() {
    jcheck "$(rec "$1")/run.json" "
name = '$1'
run = rec.get('run', {})
o = run.get('outage', {})
check(rec.get('status') == 'complete', name + ': status complete', (rec.get('status'), rec.get('error')))
check(o.get('lost_connections', 0) >= 8, name + ': all 8 connections lost', o)
check(o.get('reconnects', 0) >= 8, name + ': ... and reconnected', o)
nc, nd = run.get('new_orders_client'), run.get('new_orders_db')
unk = run.get('transactions', {}).get('new_order', {}).get('errors', {}).get('unknown_outcome')
check(run.get('notpm_counts_agree') is True and 0 <= nd - nc <= unk,
      name + ': database New-Orders = client count + at most the unknown ones', (nc, nd, unk))
check(run.get('terminals', {}).get('workers') == 2, name + ': on 2 workers', run.get('terminals'))
"
    series_outage "$1"
    run "check-$1" "$bin" check -c "$cfg" --conditions 1-4
    is "$rc" 0 "$1: conditions 1-4 hold" || explain
}

# 3. Restart inside the window.  20 s: with four test files on 2 cores the
# crash recovery and the reconnects' back-off took all of a 14 s window's
# last 9 s once (0032 leaves 18 s too).  A checkpoint first: the crash
# recovery replays the WAL since the last one, which without it is all of
# this file's runs so far (210 MB: the restart took 22 to 40 s under load,
# more than the window had left, 12 s of it redo and 6 s the end-of-recovery
# checkpoint); with it, this run's own few seconds (8 to 15 s, 4 s of them
# the data directory's sync, hence fsync off above).
pg_psql "checkpoint" >/dev/null
bg_run restart --mode procedure --vus 8 --workers 2 --duration 20s --warmup 1s
restart_in_window restart
bg_complete restart
outage_checks restart

# 4. Every client backend killed.  12 s (as 0032): series_outage wants two seconds of
# throughput from the third after the outage's, and CI's ASan run under load
# killed them in the window's fifth second of 8 (one second left to count).
bg_run term --mode procedure --vus 8 --workers 2 --duration 12s --warmup 1s
bg_window term
sleep 2
n=$(pg_terminate_clients)
ok "$([ "${n:-0}" -ge 9 ] && echo 0 || echo 1)" "pg_terminate_backend ended $n backends (8 connections, the monitor)"
bg_complete term terminate
outage_checks term

# 5. Client mode cannot.
run cl "$bin" run -c "$cfg" --mode client --vus 4 --workers 2 --duration 2s --label cl
is "$rc" 2 "fewer workers than connections in client mode: exit 2" || explain
like "$err" "*'run.workers' is 2, fewer than the 4 connections, but a worker of several connections needs run.mode procedure*set run.workers to 0*" \
    "... saying what it needs and what to do" || explain

# 6. A transaction of one call commits at the pipeline's sync, after its
# result came back: a commit that fails there (a deferred constraint
# trigger on history) is the transaction's failure, never a commit.
pg_psql "create function tpcc_test_refuse() returns trigger language plpgsql as
         \$\$ begin raise exception 'refused at commit' using errcode = '23514'; end \$\$;
         create constraint trigger tpcc_test_refuse after insert on history
         deferrable initially deferred for each row execute function tpcc_test_refuse()" >/dev/null
h0=$(pg_psql "select count(*) from history")
run atcommit "$bin" run -c "$cfg" --mode procedure --vus 4 --workers 1 --transactions 10 \
    --mix 0,100,0,0,0 --warmup 0s --duration 60s --label atcommit
h1=$(pg_psql "select count(*) from history")
pg_psql "drop trigger tpcc_test_refuse on history; drop function tpcc_test_refuse()" >/dev/null
is "$h1" "$h0" "the trigger refused every Payment at commit (history unchanged: $h0)"
jcheck "$(rec atcommit)/run.json" "
p = rec.get('run', {}).get('transactions', {}).get('payment', {})
check(p.get('count') == 0, 'no Payment counted as committed', p)
check(p.get('errors', {}).get('other') == 40, 'all 40 counted as failed', p.get('errors'))
"

# ... and in batches: the trigger refuses the Payments of even customers at
# their commit, wherever it falls (a COMMIT AND CHAIN inside the pipeline, a
# COMMIT, or the sync of the last call).  Each refused one fails and never
# counts; the transactions after it in its batch were skipped and ran once,
# later; every counted Payment is in history, every counted New-Order in
# sum(d_next_o_id).
pg_psql "create function tpcc_test_refuse() returns trigger language plpgsql as
         \$\$ begin if new.h_c_id % 2 = 0 then
             raise exception 'refused at commit' using errcode = '23514'; end if;
             return null; end \$\$;
         create constraint trigger tpcc_test_refuse after insert on history
         deferrable initially deferred for each row execute function tpcc_test_refuse()" >/dev/null
h0=$(pg_psql "select count(*) from history")
o0=$(pg_psql "select sum(d_next_o_id) from district")
run atcommitb "$bin" run -c "$cfg" --mode procedure --terminals 8 --connections 2 --workers 1 \
    --batch 4 --transactions 20 --mix 50,50,0,0,0 --warmup 0s --duration 60s --label atcommitb
h1=$(pg_psql "select count(*) from history")
o1=$(pg_psql "select sum(d_next_o_id) from district")
pg_psql "drop trigger tpcc_test_refuse on history; drop function tpcc_test_refuse()" >/dev/null
is "$rc" 0 "batches with Payments refused at commit: exit 0" || explain
jcheck "$(rec atcommitb)/run.json" "
run = rec.get('run', {})
tx = run.get('transactions', {})
p, no = tx.get('payment', {}), tx.get('new_order', {})
n = p.get('count', 0) + p.get('errors', {}).get('other', 0) + no.get('count', 0) + no.get('rolled_back', 0)
check(n == 160, 'batches: 160 transactions ended, each once', n)
check(p.get('errors', {}).get('other', 0) > 0 and p.get('count', 0) > 0, 'some Payments refused, some committed', p.get('count'), p.get('errors'))
check(p.get('count') == $h1 - $h0, 'every counted Payment is in history, no refused one ($h1 - $h0)', p.get('count'))
check(run.get('new_orders_client') == $o1 - $o0, 'every counted New-Order is in sum(d_next_o_id) ($o1 - $o0)', run.get('new_orders_client'))
pp = run.get('terminals', {}).get('pipelining', {})
check(pp.get('skipped_sent_again', 0) > 0, 'transactions after a refused one were skipped and sent again', pp)
"
run atcommitbck "$bin" check -c "$cfg" --conditions 1-4
is "$rc" 0 "after refusals in batches: consistency conditions 1-4 hold" || explain

# 7. The null driver.
printf 'database: {driver: null, null_service_time: 1ms}\nresults: {dir: %s}\n' "$tmp/results" >"$tmp/null.yaml"
run null "$bin" run -c "$tmp/null.yaml" --vus 16 --workers 2 --transactions 25 --warmup 0s \
    --duration 60s --delivery inline --label nullw
is "$rc" 0 "null driver, 16 connections on 2 threads: exit 0" || explain
jcheck "$(rec nullw)/run.json" "
run = rec.get('run', {})
n = sum(t['count'] + t['rolled_back'] for t in run.get('transactions', {}).values())
check(n == 400, 'exactly 400 transactions', n)
check(run.get('terminals', {}).get('workers') == 2, 'on 2 workers', run.get('terminals'))
"
printf 'run: {delivery_queue: 1, delivery_workers: 1}\n' | cat "$tmp/null.yaml" - >"$tmp/nullq.yaml"
run nullq "$bin" run -c "$tmp/nullq.yaml" --vus 32 --workers 2 --transactions 50 --warmup 0s \
    --duration 60s --label nullq
is "$rc" 0 "null driver, a deferred queue of 1 on 2 threads of 16 connections: exit 0" || explain
jcheck "$(rec nullq)/run.json" "
run = rec.get('run', {})
n = sum(t['count'] + t['rolled_back'] for t in run.get('transactions', {}).values())
dl = run.get('delivery', {})
check(n == 1600 and run.get('measured_seconds', 60) < 30, 'exactly 1600 transactions, long before the 60 s', n, run.get('measured_seconds'))
check(dl.get('queue_full_waits', 0) > 0 and dl.get('queue_full_wait_s', 0) > 0,
      'the queue was full and the waits are counted', dl.get('queue_full_waits'), dl.get('queue_full_wait_s'))
check(dl.get('completed', 0) > 0 and dl.get('completed') == run['transactions']['delivery']['count']
      and dl.get('pending_at_end') == 0 and dl.get('districts') == 10 * dl.get('completed'),
      'every Delivery queued completed', {k: dl.get(k) for k in ('completed', 'districts', 'pending_at_end')})
"
# Batches of 8: the one delivery connection takes the Deliveries queued
# meanwhile, up to 8, in one round trip (1 ms each here, while 32 terminals
# queue several per millisecond); with batches of 1, one each.
printf 'run: {delivery_workers: 1}\n' | cat "$tmp/null.yaml" - >"$tmp/nulld.yaml"
for b in 8 1; do
    run "nulld$b" "$bin" run -c "$tmp/nulld.yaml" --vus 32 --workers 2 --batch "$b" --transactions 50 \
        --warmup 0s --duration 60s --label "nulld$b"
    is "$rc" 0 "null driver, 1 delivery connection, batches of $b: exit 0" || explain
    jcheck "$(rec "nulld$b")/run.json" "
run = rec.get('run', {})
n = sum(t['count'] + t['rolled_back'] for t in run.get('transactions', {}).values())
dl = run.get('delivery', {})
check(n == 1600, 'batches of $b: exactly 1600 transactions', n)
check(dl.get('completed', 0) > 0 and dl.get('completed') == run['transactions']['delivery']['count']
      and dl.get('pending_at_end') == 0 and dl.get('districts') == 10 * dl.get('completed'),
      'batches of $b: every Delivery queued completed, once', {k: dl.get(k) for k in ('completed', 'districts', 'pending_at_end')})
if $b > 1:
    check((dl.get('per_round_trip') or 0) > 1.2 and dl.get('round_trips', 0) < dl['completed'],
          'batches of $b: Deliveries shared the delivery connection\'s round trips', {k: dl.get(k) for k in ('round_trips', 'per_round_trip')})
else:
    check(dl.get('round_trips') == dl['completed'] and dl.get('per_round_trip') == 1.0,
          'batches of 1: a round trip each', {k: dl.get(k) for k in ('round_trips', 'per_round_trip')})
"
    is "$(wc -l <"$(rec "nulld$b")/delivery.log")" "$(json "$(rec "nulld$b")/run.json" "r['run']['delivery']['completed']")" \
        "batches of $b: delivery.log has a line for each completed Delivery"
done
run nullt "$bin" run -c "$tmp/null.yaml" --vus 16 --workers 2 --warmup 1s --duration 3s --label nullt
is "$rc" 0 "null driver, timed: exit 0" || explain
# Two threads that kept only one connection each busy would have at most 2
# of the 16 in a transaction at any moment: more than twice that shows they
# keep many busy (8.0 measured here and in a fresh Debian at load 20 alike: a bound of
# 8 judged nothing but the edge; a TPS bound would judge the machine).
jcheck "$(rec nullt)/run.json" "
run = rec.get('run', {})
busy = run.get('vus_in_transaction_mean', 0)
check(busy > 4, 'two threads keep more than one connection each busy: %.1f in a transaction on average > 4' % busy, busy)
"

# 8. A reconnect that hangs does not stall the thread's other connections.
python3 "$root/tests/helper/holdproxy.py" 127.0.0.1 "$PG_TEST_PORT" "$tmp/hold.port" &
pxpid=$!
i=0
while [ ! -s "$tmp/hold.port" ] && [ "$i" -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
hport=$(cat "$tmp/hold.port")
sed "s/port=$PG_TEST_PORT/port=$hport/" "$cfg" >"$tmp/hold.yaml"
grep -q "port=$hport " "$tmp/hold.yaml"
ok $? "the run's config goes through holdproxy.py (port $hport)"
# The run's connections that have called a transaction's function (not the
# monitor's, nor the samplers'): each of its 8 does from its first
# transaction on, whichever of the five it was (waiting for New-Order or
# Payment as the last call of all 8 at once took a loaded machine past a
# 5 s window, and the fault then missed it).
run_conns="datname = 'tpcc' and pid <> pg_backend_pid() and backend_type = 'client backend'
           and query ~ '^SELECT (\\* FROM )?tpcc_(new_order|payment|order_status|delivery|stock_level)\\('"
# hold_start LABEL DURATION: the run through the proxy in the background
# ($bgpid); returns once the window is open and all 8 connections work.
hold_start() {
    "$bin" run -c "$tmp/hold.yaml" --mode procedure --vus 8 --workers 1 --duration "$2" --warmup 1s \
        --delivery inline --label "$1" >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null &
    bgpid=$!
    bg_window "$1"
    i=0
    while [ "$(pg_psql "select count(*) from pg_stat_activity where $run_conns")" -lt 8 ] &&
        [ "$i" -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sleep 1
}
# hold_run LABEL DURATION: hold_start, then hold new connections and end one.
hold_run() {
    hold_start "$1" "$2"
    kill -USR1 "$pxpid"
    n=$(pg_psql "select count(pg_terminate_backend(pid)) from (select pid from pg_stat_activity
                 where $run_conns order by pid limit 1) a")
    is "$n" 1 "$1: one connection of the thread ended while new connections are held"
}
# A long window ended by Ctrl-C once the connection is back (an event): a 14 s
# window closed before the reconnect when the 8 connections took 8 s to show
# under ASan on a loaded CI.
hold_run hold 300s
# The New-Orders committed while the reconnect is held: a thread that waited
# for it would commit none (what its connections had in flight was
# committed before the first count).
no0=$(pg_psql "select sum(d_next_o_id) from district")
sleep 6
no1=$(pg_psql "select sum(d_next_o_id) from district")
released=$(pg_psql "select now()")
kill -USR2 "$pxpid"
ok "$([ "$no1" -gt "$no0" ] && echo 0 || echo 1)" \
    "the other 7 committed while the reconnect was held ($((no1 - no0)) New-Orders)"
# The reconnect, as the server sees it: a client backend born after the release.
newconn() {
    pg_psql "select count(*) from pg_stat_activity where datname = 'tpcc' and backend_type = 'client backend'
             and pid <> pg_backend_pid() and backend_start > '$released'"
}
i=0
while [ "$(newconn)" -lt 1 ] && [ "$i" -lt 1200 ]; do
    sleep 0.1
    i=$((i + 1))
done
ok "$([ "$(newconn)" -ge 1 ] && echo 0 || echo 1)" "hold: a connection made again once the server answers"
kill -INT "$bgpid"
bg_wait 60
is "$rc" 130 "hold: the run ends at the Ctrl-C, exit 130" || diag "$(cat "$tmp/hold.err")"
jcheck "$(rec hold)/run.json" "
run = rec.get('run', {})
o = run.get('outage', {})
check(o.get('lost_connections') == 1, 'one connection lost', o)
check(o.get('disconnected_vu_seconds', 0) >= 5, '... and down while the server held new connections (about 6 s)', o)
check(o.get('reconnects') == 1, '... and reconnected once the server answered again', o)
check(run.get('terminals', {}).get('workers') == 1, 'on 1 worker', run.get('terminals'))
"
# Held to the end: the stop does not wait out the connect.
t0=$(date +%s)
# The hold starts as the window opens (not after the 8 connections show: that
# took 8 s of a 5 s window in a loaded ASan run), and lasts until after the
# exit: a run that waited out the connect would never end.
"$bin" run -c "$tmp/hold.yaml" --mode procedure --vus 8 --workers 1 --duration 10s --warmup 1s \
    --delivery inline --label holdend >"$tmp/holdend.out" 2>"$tmp/holdend.err" </dev/null &
bgpid=$!
bg_window holdend
kill -USR1 "$pxpid"
n=$(pg_psql "select count(pg_terminate_backend(pid)) from (select pid from pg_stat_activity
             where $run_conns order by pid limit 1) a")
is "$n" 1 "holdend: one connection of the thread ended while new connections are held"
bg_wait 60
t1=$(date +%s)
kill -USR2 "$pxpid"
is "$rc" 0 "holdend: the run completes while new connections are still held, exit 0 ($((t1 - t0)) s for 1 + 10 s)" ||
    diag "$(cat "$tmp/holdend.err")"
unlike "$(cat "$tmp/holdend.out" "$tmp/holdend.err")" "*left behind*" "holdend: no thread left behind"
jcheck "$(rec holdend)/run.json" "
run = rec.get('run', {})
o = run.get('outage', {})
check(rec.get('status') == 'complete', 'holdend: status complete', rec.get('status'))
check(o.get('lost_connections') == 1 and o.get('reconnects') == 0, 'holdend: one lost, never reconnected', o)
"

# 9. Frozen at the stop: the proxy stopped (SIGSTOP), so round trips in
# flight never end and new connections (a cancel request is one) are taken
# by the kernel and never answered.  The stop gives up on them within its
# bounds and says so, instead of waiting for ever.
t0=$(date +%s)
hold_start frozen 6s
kill -STOP "$pxpid"
wait_gone "$bgpid" 60
gone=$?
t1=$(date +%s)
kill -CONT "$pxpid"
ok "$gone" "frozen: the run ended by itself ($((t1 - t0)) s), the proxy still stopped" ||
    diag "$(cat "$tmp/frozen.out" "$tmp/frozen.err")"
wait "$bgpid"
rc=$?
bgpid=
is "$rc" 0 "frozen: exit 0 (the window was measured)" || diag "$(cat "$tmp/frozen.err")"
like "$(cat "$tmp/frozen.err")" "*warning: 8 connections did not stop within 5 s*left behind (run.json run.left_behind)*" \
    "frozen: the warning says how many were left behind" || diag "$(cat "$tmp/frozen.err")"
jcheck "$(rec frozen)/run.json" "
run = rec.get('run', {})
check(run.get('left_behind') == 8, 'frozen: the record says 8 connections were left behind', run.get('left_behind'))
check(abs(run.get('measured_seconds', 0) - 6) <= 1, 'frozen: the window closed on time (6 s measured)', run.get('measured_seconds'))
check(run.get('unfinished', {}).get('at_close') == 8, 'frozen: ... and 8 unfinished at the close', run.get('unfinished'))
check(run.get('notpm_counts_agree') is None or run.get('new_orders_db') is None,
      'frozen: the database count was not taken (it did not answer), so not compared', {k: run.get(k) for k in ('new_orders_db', 'notpm_counts_agree')})
"
jcheck "$(rec holdend)/run.json" "
check(rec.get('run', {}).get('left_behind') == 0, 'holdend: the record says none was left behind', rec.get('run', {}).get('left_behind'))
"
done_testing
