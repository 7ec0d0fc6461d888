#!/bin/sh
# 0037-terminals.sh - the terminal model on a real PostgreSQL (W=2):
#
#  1. 20 terminals over 4 connections: Stock-Level ran for exactly the 20
#     (w, d) pairs, each terminal its own, and NOTPM equals the database's
#     count (closed loop, as before);
#  2. think time with run.time_scale 0.01 (recorded as a deviation): 20 spec
#     terminals, efficiency near 100 % of what they can offer;
#  3. open loop (run.rate) through the delay proxy, frozen (SIGSTOP) inside
#     the window until its endpoint has counted 6 s without a commit:
#     response-time p99 >= 2 s while service-time p99 holds only the
#     transactions in flight at the freeze, a stall window of at least 5 s,
#     input validity fails;
#  4. the same frozen across the window's end: the window still closes on
#     time (measured_seconds within 1 s of the duration), the workers still
#     in a transaction are counted unfinished, the database's count is not
#     taken (never a figure that was not measured);
#  5. an open loop offering far more than 1 connection carries: the driver
#     fell behind (schedule lag), said in the summary and the validity;
#  6. batches (run.batch 4): 20 terminals' transactions four to a round trip
#     on 4 connections, each its own transaction: NOTPM equals the database
#     count, the record says how many shared a round trip and how many the
#     server skipped after a failure (at most 3 per failure, none after the
#     spec's rollbacks, which go last) and were sent again, conditions 1-4
#     hold; a batch in client mode is refused (exit 2);
#  7. the null driver runs 1000 spec terminals without a server.
# Prints TAP.  About 110 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0037 pg
t_pg_load 2 "load W=2"

# 1. Fixed (w, d) per terminal.
run fixed "$bin" run -c "$cfg" --terminals 20 --connections 4 --duration 8s --warmup 1s --label fixed
is "$rc" 0 "20 terminals over 4 connections: exit 0" || explain
jcheck "$(rec fixed)/run.json" "
run = rec.get('run', {})
t = run.get('terminals', {})
check(t.get('count') == 20 and t.get('connections') == 4, 'the record says 20 terminals, 4 connections', t)
check(t.get('workers') == min($(nproc), 4), 'by default one worker thread per core ($(nproc)), at most one per connection', t)
pairs = t.get('stock_level_by_w_d', [])
wd = sorted((p[0], p[1]) for p in pairs)
want = sorted((w, d) for w in (1, 2) for d in range(1, 11))
check(wd == want, 'the 20 terminals hold the 20 (w, d) pairs, one each', wd)
check(all(p[2] > 0 for p in pairs), 'every terminal ran Stock-Level for its own pair', pairs)
check(sum(p[2] for p in pairs) >= run['transactions']['stock_level']['count'],
      'the per-terminal Stock-Level counts cover the measured ones', (sum(p[2] for p in pairs), run['transactions']['stock_level']['count']))
check(run.get('notpm_counts_agree') is True and run.get('new_orders_client') == run.get('new_orders_db'),
      'closed loop: NOTPM equals the database count', {k: run.get(k) for k in ('new_orders_client', 'new_orders_db')})
check(run.get('unfinished') == {'at_open': 0, 'at_close': 0}, 'nothing unfinished at the edges', run.get('unfinished'))
"

# 7. The null driver runs the whole scheduler without a server (as
# bench/terminals.sh does at 100,000 terminals), in the default mode.
printf 'database: {driver: null, null_service_time: 1ms}\nresults: {dir: %s}\n' "$tmp/results" >"$tmp/null.yaml"
# Until every terminal ran 3 transactions (an event), not a 3 s window that a
# starved machine may pass with none; the duration is only a ceiling.
run null "$bin" run -c "$tmp/null.yaml" --warehouses 100 --think-time true --time-scale 0.01 \
    --transactions 3 --duration 300s --warmup 0s --label null
is "$rc" 0 "the null driver: 1000 spec terminals, load-free, exit 0" || explain
jcheck "$(rec null)/run.json" "
run = rec.get('run', {})
check(run.get('terminals', {}).get('count') == 1000 and run.get('transactions', {}).get('new_order', {}).get('count', 0) > 0,
      'the null driver: 1000 terminals ran New-Orders', run.get('terminals', {}).get('count'))
# The workers sleep between transactions (1000 terminals in think time keep
# 4 workers far from busy): some wakes per transaction, never none, and no
# storm of them (a worker spinning on its condition variable would show).
w = run.get('terminals', {}).get('wakes_per_tx')
check(isinstance(w, float) and 0.05 < w < 50, 'the record counts the workers\' wakes per transaction', w)
"
like "$out" "*of a core, *.* wakes per tx*" "the summary shows wakes per transaction beside driver CPU" || explain
# One wake serves the terminals due within the timer slack: 1/10,000 of the
# mean cycle (20.7 s of keying and think time over the mix, x 0.01 here), at
# most 1 ms (time scale 1).
run slack "$bin" run -c "$tmp/null.yaml" --warehouses 100 --think-time true --duration 2s --warmup 1s \
    --label slack
is "$rc" 0 "the null driver at time scale 1: exit 0" || explain
jcheck "$(rec null)/run.json" "
s = rec.get('run', {}).get('terminals', {}).get('timer_slack_us')
check(isinstance(s, float) and 20.5 < s < 20.9, 'time scale 0.01: the timer slack is 1/10,000 of the mean cycle', s)
"
jcheck "$(rec slack)/run.json" "
s = rec.get('run', {}).get('terminals', {}).get('timer_slack_us')
check(s == 1000.0, 'time scale 1: the timer slack is at most 1 ms', s)
"

# 6. Batches: several terminals' transactions in one round trip.
run batch "$bin" run -c "$cfg" --terminals 20 --connections 4 --batch 4 --duration 8s --warmup 1s \
    --label batch
is "$rc" 0 "batches of 4 over 4 connections: exit 0" || explain
like "$out" "*20 terminals over 4 connections*, closed loop (no think time), batches of up to 4 (*" \
    "the summary says transactions went in batches" || explain
jcheck "$(rec batch)/run.json" "
run = rec.get('run', {})
p = run.get('terminals', {}).get('pipelining', {})
check(isinstance(p, dict) and p.get('batch_max') == 4 and p.get('round_trips', 0) > 0,
      'the record describes the batches', p)
check(2.0 <= (p.get('per_round_trip') or 0) <= 4.0,
      '20 terminals on 4 connections: 2 to 4 transactions per round trip', p)
tx = run.get('transactions', {})
failures = tx.get('new_order', {}).get('rolled_back', 0) + sum(
    sum(o.get('errors', {}).values()) + o.get('retries', 0) for o in tx.values() if isinstance(o, dict))
check(tx.get('new_order', {}).get('rolled_back', 0) > 0, 'the spec rollbacks happened in batches',
      tx.get('new_order'))
# A New-Order that rolls back goes last in its batch: it skips nothing
# (sent anywhere else it would skip 1.5 on average, and W=2 at batch 4 has
# dozens).  Two of them in one batch (about 1 in 8,000 batches) skip at most 3.
rolled = tx.get('new_order', {}).get('rolled_back', 0)
check(p.get('skipped_sent_again', -1) <= 3 * (failures - rolled) + 3,
      'the server skipped at most the 3 after each failure but the spec rollbacks (those were sent again)',
      (p.get('skipped_sent_again'), failures, rolled))
check(run.get('notpm_counts_agree') is True and run.get('new_orders_client') == run.get('new_orders_db'),
      'batches: NOTPM equals the database count', {k: run.get(k) for k in ('new_orders_client', 'new_orders_db')})
"
run batchck "$bin" check -c "$cfg" --conditions 1-4
is "$rc" 0 "after batches: consistency conditions 1-4 hold" || explain
run batchcl "$bin" run -c "$cfg" --batch 4 --mode client --duration 2s --label batchcl
is "$rc" 2 "a batch in client mode: exit 2" || explain
like "$err" "*'run.batch' is 4, but batches of transactions need run.mode procedure*set run.batch to 1*" \
    "... saying what it needs and what to do" || explain

# 2. Think time, 100 x shorter.
run think "$bin" run -c "$cfg" --think-time true --time-scale 0.01 --duration 20s --warmup 3s --label think
is "$rc" 0 "think time x 0.01: exit 0" || explain
like "$out" "*20 terminals over * connections*, think time*times x 0.01 (a deviation)*" \
    "the summary names the terminals and the deviation" || explain
jcheck "$(rec think)/run.json" "
t = rec['run']['terminals']
check(t.get('count') == 20, 'think time: 10 terminals per warehouse by default', t.get('count'))
check('time_scale' in t.get('deviation', ''), 'the time scale is recorded as a deviation', t)
e = t.get('efficiency_pct', 0)
v = rec['run']['validity']
lag = t.get('schedule_lag_p99_ms', 0)
# On a machine so loaded that the terminals were dispatched late (lag p99
# over the 10 ms bound: a fresh chroot running 4 test files on 2 cores saw
# 768 ms), they offer less than their think times allow; the record must
# then say so in its validity, and the efficiency bound does not apply.
if lag <= 10:
    check(85 <= e <= 115, 'efficiency %.1f %% of the 12.86 NOTPM per warehouse (scaled) is within [85, 115]' % e, t)
    check(v.get('efficiency_pct', {}).get('ok') is True, 'efficiency is an input-validity line, ok', v.get('efficiency_pct'))
else:
    check(v.get('schedule_lag_p99_ms', {}).get('ok') is False,
          'terminals dispatched late (lag p99 %.0f ms): the record says the schedule lag is out of bounds' % lag, v.get('schedule_lag_p99_ms'))
    check('efficiency_pct' in v, 'efficiency is an input-validity line (%.1f %%, the driver behind)' % e, v.get('efficiency_pct'))
"

# A delay proxy (no delay) in front of the server, to freeze the network with SIGSTOP.
start_proxy() {
    "$bin" proxy --listen 127.0.0.1:0 --to "127.0.0.1:$PG_TEST_PORT" --delay 0ms \
        >"$tmp/px.out" 2>"$tmp/px.err" </dev/null &
    pxpid=$!
    px_port=
    _i=0
    while [ $_i -lt 100 ] && [ -z "$px_port" ]; do
        px_port=$(sed -n 's/.*listening on [^,]* port \([0-9][0-9]*\).*/\1/p' "$tmp/px.out" | head -n 1)
        sleep 0.05
        _i=$((_i + 1))
    done
    [ -n "$px_port" ] || bail_out "the proxy did not start: $(cat "$tmp/px.err")"
    pcfg=$tmp/proxy.yaml
    sed "s/port=$PG_TEST_PORT/port=$px_port/" "$cfg" >"$pcfg"
}
stop_proxy() {
    kill -CONT "$pxpid" 2>/dev/null
    kill -TERM "$pxpid" 2>/dev/null
    wait "$pxpid" 2>/dev/null
    pxpid=
}

# wait_measuring FILE: wait (at most 60 s) until a run's progress in FILE
# shows its measured window (the first "measure]" line, after its first second).
wait_measuring() {
    _i=0
    while [ $_i -lt 1200 ] && ! grep -q 'measure\]' "$1"; do
        sleep 0.05
        _i=$((_i + 1))
    done
}

# hold_stall URL: wait (at most 60 s) until the run's endpoint at URL shows
# 6 seconds of its series without a commit inside the window: two readings
# of tpccbench_run_second 6 apart with the same committed total.  That is the
# event the stall checks need (5 rows without a commit), whatever the
# machine's load: a loaded worker publishes commits from before the freeze
# late, and a 6 s freeze once showed as a stall of 4 rows.  0 when seen; else
# 1, with the readings in $tmp/stall.log.
hold_stall() {
    python3 - "$1" >"$tmp/stall.log" 2>&1 <<'PY'
import re, sys, time, urllib.request
seen = {}
end = time.time() + 60
while time.time() < end:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
            text = r.read().decode()
    except OSError as e:
        print('scrape:', e)
        time.sleep(0.1)
        continue
    def val(name):
        m = re.search(r'^' + name + r' (\S+)$', text, re.M)
        return float(m.group(1)) if m else None
    sec, meas = val('tpccbench_run_second'), val('tpccbench_measuring')
    total = sum(float(v) for v in re.findall(r'^tpccbench_transactions_total\{[^}]*outcome="committed"[^}]*\} (\S+)$', text, re.M))
    if sec is None or meas != 1:
        print('second', sec, 'measuring', meas)
        time.sleep(0.1)
        continue
    sec = int(sec)
    seen.setdefault(sec, total)
    print('second', sec, 'committed', total)
    if any(s <= sec - 6 and t == total for s, t in seen.items()):
        sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY
}

# 3. Open loop, the network frozen inside the window until the run has
# counted 6 seconds without a commit.
start_proxy
"$bin" run -c "$pcfg" --rate 150 --terminals 20 --connections 4 --duration 24s --warmup 2s \
    --metrics-listen 127.0.0.1:0 --label frozen >"$tmp/frozen.out" 2>"$tmp/frozen.err" </dev/null &
bgpid=$!
bg_endpoint frozen || bail_out "the frozen run said no endpoint: $(cat "$tmp/frozen.err")"
# From the window's first progress line (a slow start under a loaded machine
# must not move the freeze before the window), 2 s more.
wait_measuring "$tmp/frozen.err"
sleep 2
kill -STOP "$pxpid"
hold_stall "$endpoint"
is "$?" 0 "the run's endpoint counted 6 s without a commit while the network was frozen" ||
    diag "$(tail -n 20 "$tmp/stall.log")"
kill -CONT "$pxpid"
wait "$bgpid"
rc=$?
bgpid=
stop_proxy
out=$(cat "$tmp/frozen.out")
err=$(cat "$tmp/frozen.err")
is "$rc" 0 "open loop through a frozen network: the run completes" || explain
like "$out" "*stall: nothing committed from second*" "the summary shows the stall" || explain
jcheck "$(rec frozen)/run.json" "
run = rec['run']
tx = run['transactions']
resp = max(tx[k]['p99_ms'] for k in ('new_order', 'payment'))
check(resp >= 2000, 'response time p99 %.0f ms >= 2000 ms: the queue behind the freeze shows' % resp)
# The service time holds only what was on the wire: at most one transaction a
# connection (4) was in flight when the network froze and waited it out;
# those queued behind it count the freeze in their response time only.  A
# count, not a percentile: how many transactions ran depends on the machine.
def low_us(b):
    return b if b < 256 else ((b & 127) + 128) << ((b >> 7) - 1)
def over_1s(h):
    bk = h['buckets']
    return sum(c for i, c in zip(bk[0::2], bk[1::2]) if low_us(i) >= 1000000)
slow = {k: over_1s(tx[k]['service']['hist']) for k in ('new_order', 'payment', 'order_status', 'stock_level')}
check(1 <= sum(slow.values()) <= 4,
      'service times of 1 s or more: the 1 to 4 transactions in flight at the freeze, not the queue', slow)
st = run.get('stalls', [])
check(len(st) >= 1 and st[0]['seconds'] >= 5, 'a stall window of at least 5 s is recorded', st)
v = run['validity']
check(v['longest_stall_s']['ok'] is False and v['valid'] is False, 'the stall makes the run NOT valid', v.get('longest_stall_s'))
"

# 4. Frozen across the window's end.  The run leaves the threads blocked in the
# frozen network (and what they use: connections, the closing count's job) to
# the process's exit on purpose, so a leak checker is told not to count them.
start_proxy
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
"$bin" run -c "$pcfg" --rate 100 --terminals 20 --connections 4 --duration 8s --warmup 1s \
    --label edge >"$tmp/edge.out" 2>"$tmp/edge.err" </dev/null &
bgpid=$!
wait_measuring "$tmp/edge.err"
sleep 5
kill -STOP "$pxpid"
sleep 12
kill -CONT "$pxpid"
wait "$bgpid"
rc=$?
bgpid=
stop_proxy
out=$(cat "$tmp/edge.out")
err=$(cat "$tmp/edge.err")
jcheck "$(rec edge)/run.json" "
run = rec.get('run', {})
ms = run.get('measured_seconds', 0)
check(abs(ms - 8) <= 1, 'the window closes on time: measured_seconds %.2f within 1 s of 8' % ms)
check(run.get('unfinished', {}).get('at_close', 0) >= 1, 'workers stuck at the close are counted unfinished', run.get('unfinished'))
check(run.get('notpm_db', 0) is None and 'did not answer' in run.get('db_count_note', ''),
      'the database count was not taken, and the record says why', {k: run.get(k) for k in ('notpm_db', 'db_count_note')})
"

# 5. More offered than one connection carries.
run behind "$bin" run -c "$cfg" --rate 5000 --terminals 50 --connections 1 --duration 5s --warmup 1s \
    --label behind
like "$out" "*the driver fell behind: terminals waited for a free connection (raise run.connections)*" \
    "an open loop beyond one connection: the summary says the driver fell behind" || explain
jcheck "$(rec behind)/run.json" "
v = rec['run']['validity']
check(v['schedule_lag_p99_ms']['value'] > 10 and v['schedule_lag_p99_ms']['ok'] is False and v['valid'] is False,
      'schedule lag p99 over 10 ms fails input validity', v.get('schedule_lag_p99_ms'))
"
done_testing
