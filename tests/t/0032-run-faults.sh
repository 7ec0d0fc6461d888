#!/bin/sh
# 0032-run-faults.sh - database faults during `tpccbench run` against a real
# PostgreSQL (tests/lib/pg.sh), 1 warehouse, 4 VUs, procedure mode.
#
#  1. the server restarted (-m immediate) 2 s into a 20 s measured window (time for the server to recover on a loaded machine):
#     the run completes, the outage shows in run.json and series.csv, lost
#     connections and unknown outcomes are counted, conditions 1-4 hold;
#  2. every backend killed by pg_terminate_backend: the same, in client mode;
#  3. the server stopped for longer than --max-outage 3s: exit 1 within
#     seconds, a valid record marked "aborted"; conditions 1-4 hold after the
#     server is back.
# Prints TAP.  About 40 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0032 pg
t_pg_load 1 "load: exit 0"

# check_after NAME: conditions 1-4 hold.
check_after() {
    run "check-$1" "$bin" check -c "$cfg" --conditions 1-4
    is "$rc" 0 "$1: check --conditions 1-4 afterwards: exit 0" || explain
}

# outage_checks NAME: the record of a run that lived through an outage.
outage_checks() {
    jcheck "$(rec "$1")/run.json" "
name = '$1'
run = rec.get('run', {})
o = run.get('outage', {})
check(rec.get('status') == 'complete', name + ': status complete', 'got: %r, error %r' % (rec.get('status'), rec.get('error')))
check(o.get('lost_connections', 0) >= 4, name + ': outage.lost_connections >= 4 (the VUs)', 'outage: %r' % o)
check(o.get('reconnects', 0) >= 4, name + ': outage.reconnects >= 4', 'outage: %r' % o)
check(isinstance(o.get('unknown_outcome'), int) and o['unknown_outcome'] >= 0,
      name + ': outage.unknown_outcome is a count', 'outage: %r' % o)
check(len(o.get('windows', [])) >= 1, name + ': outage.windows names when', 'outage: %r' % o)
errs = sum(t.get('errors', {}).get('connection', 0) for t in run.get('transactions', {}).values())
check(errs >= 1, name + ': connection errors counted per type (%d)' % errs)
nc, nd, unk = run.get('new_orders_client'), run.get('new_orders_db'), run.get('transactions', {}).get('new_order', {}).get('errors', {}).get('unknown_outcome')
check(run.get('notpm_counts_agree') is True and 0 <= nd - nc <= unk,
      name + ': database New-Orders = client count + at most the unknown ones',
      'client %r, db %r, unknown %r' % (nc, nd, unk))
check(run.get('notpm', 0) > 0, name + ': NOTPM > 0 (the run went on)')
"
    # series.csv: a measured second with a VU down or errors, and seconds
    # after it with transactions again.
    _s=$(rec "$1")/series.csv
    _hdr=$(head -n 1 "$_s")
    like "$_hdr" "*,errors,vus_in_tx,vus_down,connections_lost,*" \
        "$1: series.csv has errors, vus_down and connections_lost columns"
    series_outage "$1"
}

# ---------------------------------------------------------------------------
# 1. Restart -m immediate 3 s into the measured window.
# The window is 20 s: a fresh chroot at load average 11 saw no second of
# throughput left after the restart in a 14 s one.  A checkpoint first, so
# the crash recovery replays this run's WAL, not the load's too (0098).
pg_psql "checkpoint" >/dev/null
bg_run restart --duration 20s --warmup 1s --vus 4
restart_in_window restart
bg_complete restart
outage_checks restart
like "$(cat "$tmp/restart.out")" "*outage: * connections lost*" "restart: the summary names the outage"
check_after restart

# ---------------------------------------------------------------------------
# 2. pg_terminate_backend of every client backend, client mode.
# 12 s: a fresh chroot running 4 files on 2 cores saw 1 second of throughput
# left after the outage in an 8 s window.
bg_run term --duration 12s --warmup 1s --vus 4 --mode client
bg_window term
sleep 2
n=$(pg_terminate_clients)
ok "$([ "${n:-0}" -ge 5 ] && echo 0 || echo 1)" "pg_terminate_backend ended $n backends (4 VUs, a worker, the monitor)"
bg_complete term terminate
outage_checks term
check_after term

# ---------------------------------------------------------------------------
# 3. Gone for longer than --max-outage.
bg_run gone --duration 60s --warmup 1s --vus 4 --max-outage 3s
bg_window gone
sleep 1
pg_halt
ok $? "server stopped during the run"
t0=$(date +%s)
bg_wait 30
t1=$(date +%s)
is "$rc" 1 "max-outage: exit 1" || diag "$(cat "$tmp/gone.err")"
ok "$([ $((t1 - t0)) -le 10 ] && echo 0 || echo 1)" "max-outage: ended $((t1 - t0)) s after the stop (limit 3 s)"
like "$(cat "$tmp/gone.err")" "*unreachable for more than 3 s (run.max_outage)*" \
    "max-outage: the error names the limit" || diag "$(cat "$tmp/gone.err")"
jcheck "$(rec gone)/run.json" "
check(rec.get('status') == 'aborted', 'max-outage: status aborted', 'got: %r' % rec.get('status'))
check('run.max_outage' in rec.get('error', ''), 'max-outage: the record carries the error', rec.get('error'))
o = rec.get('run', {}).get('outage', {})
check(o.get('max_outage_s') == 3 and o.get('lost_connections', 0) >= 4, 'max-outage: outage section present', o)
"
is "$(find "$tmp/results" -name '*.tmp*' | sort)" "" "no temp files left in results"
pg_resume
ok $? "server started again"
check_after gone

done_testing
