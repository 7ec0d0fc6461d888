#!/bin/sh
# 0034-signals.sh - SIGINT/SIGTERM in every phase: starting the private
# server, connecting, ramp-up, warm-up, load, check, report and compare; and
# a second SIGINT that exits at once.  Each must leave only whole files (a
# record marked "interrupted" where the command writes one), no private server
# running, and exit 130 (SIGINT) or 143 (SIGTERM).  The measured phase is
# 0031's.  Real PostgreSQL (tests/lib/pg.sh) plus a managed one.  Prints TAP.
# About 90 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0034 pg
# The managed server's user must reach its data directory under $tmp.
chmod 755 "$tmp"
stop_managed() { pg_stop_datadir "$tmp/pgdata"; }
t_extra_cleanup=stop_managed

# bg_start LABEL CMD...: CMD in the background, output in $tmp/LABEL.{out,err}.
bg_start() {
    _l=$1
    shift
    "$@" >"$tmp/$_l.out" 2>"$tmp/$_l.err" </dev/null &
    bgpid=$!
}

# wait_for LABEL PATTERN SECS: until $tmp/LABEL.err matches the grep PATTERN.
wait_for() {
    _i=0
    while [ $_i -lt $(($3 * 20)) ]; do
        grep -q "$2" "$tmp/$1.err" 2>/dev/null && return 0
        alive "$bgpid" || return 1
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# signal_and_wait LABEL SIG WANT LIMIT: send SIG, expect exit WANT within LIMIT s.
signal_and_wait() {
    if ! alive "$bgpid"; then
        fail "$1: still running when signalled" "$(cat "$tmp/$1.err")"
    fi
    kill "-$2" "$bgpid"
    _t0=$(date +%s)
    wait_gone "$bgpid" "$4" || fail "$1: ended within $4 s of SIG$2"
    wait "$bgpid"
    rc=$?
    bgpid=
    is "$rc" "$3" "$1: SIG$2 -> exit $3 ($(($(date +%s) - _t0)) s)" || diag "$(cat "$tmp/$1.err")"
}

# status_is LABEL STATUS: the record of LABEL parses and has STATUS.
status_is() {
    jcheck "$(rec "$1")/run.json" "
check(rec.get('status') == '$2', '$1: record status $2', 'got %r (error %r)' % (rec.get('status'), rec.get('error')))
"
}

no_tmp_files() {
    is "$(find "$tmp" -name '*.tmp*' 2>/dev/null | sort)" "" "$1: no temp files left"
}

# server_gone DATADIR: no postmaster runs on DATADIR (within 10 s).
server_gone() {
    _i=0
    while [ -f "$1/postmaster.pid" ] && [ $_i -lt 100 ]; do
        _p=$(head -n 1 "$1/postmaster.pid")
        kill -0 "$_p" 2>/dev/null || return 0
        sleep 0.1
        _i=$((_i + 1))
    done
    [ ! -f "$1/postmaster.pid" ] || ! kill -0 "$(head -n 1 "$1/postmaster.pid")" 2>/dev/null
}

# ---------------------------------------------------------------------------
# 1. The managed server: SIGTERM while it starts; then a second SIGINT.
mcfg=$tmp/managed.yaml
cat >"$mcfg" <<EOF
database: {driver: postgres, managed: true, datadir: "$tmp/pgdata"}
schema: {warehouses: 2}
results: {dir: "$tmp/results"}
EOF
bg_start mstart "$bin" load -c "$mcfg" --label mstart
# The moment the test names: the record is written (its first run.json, just
# before the private server starts), so the handlers are in place; a sleep of
# 0.5 s was before that under ASan on a loaded machine (exit 143, no record).
i=0
while [ ! -f "$(rec mstart)/run.json" ] && alive "$bgpid" && [ $i -lt 1200 ]; do
    sleep 0.05
    i=$((i + 1))
done
signal_and_wait mstart TERM 143 120
status_is mstart interrupted
server_gone "$tmp/pgdata"
ok $? "mstart: the private server is not left running"

bg_start twice "$bin" load -c "$mcfg" --drop --label twice
if wait_for twice '^schema  *created' 120; then
    kill -INT "$bgpid"
    sleep 0.1
    signal_and_wait twice INT 130 5
else
    fail "twice: the load reached its copy phase" "$(cat "$tmp/twice.err")"
fi
like "$(cat "$tmp/twice.err")" "*second interrupt, exiting now*" "twice: the second SIGINT exits at once"
jcheck "$(rec twice)/run.json" "
check(rec.get('status') in ('running', 'interrupted'), 'twice: the record is whole (status %r)' % rec.get('status'))
"
server_gone "$tmp/pgdata"
ok $? "twice: the private server is shut down too"
no_tmp_files twice

# ---------------------------------------------------------------------------
# 2. A plain server: connect (through a slow proxy), ramp-up, warm-up, load, check.
t_pg 2

bg_start load "$bin" load -c "$cfg" --label load
if wait_for load '^schema  *created' 60; then
    sleep 0.3
    signal_and_wait load TERM 143 10
else
    fail "load: reached its copy phase" "$(cat "$tmp/load.err")"
fi
status_is load interrupted
like "$(cat "$tmp/load.err")" "*interrupted during the copy phase*--resume*" "load: the message says how to go on"
run resume "$bin" load -c "$cfg" --resume --label resume
is "$rc" 0 "load --resume after the interrupted load: exit 0" || explain

# Signalled once the run shows its first second (an event): 2 s after the
# start, a loaded CI's ASan run had not begun (its record held no run at all).
bg_start rampup "$bin" run -c "$cfg" --rampup 30s --warmup 0s --duration 30s --vus 4 --label rampup
wait_for rampup 'warmup *\]' 120 || fail "rampup: its first second shown" "$(cat "$tmp/rampup.err")"
signal_and_wait rampup INT 130 10
status_is rampup interrupted

bg_start warmup "$bin" run -c "$cfg" --warmup 30s --duration 30s --vus 4 --label warmup
wait_for warmup 'warmup *\]' 120 || fail "warmup: its first second shown" "$(cat "$tmp/warmup.err")"
signal_and_wait warmup TERM 143 10
status_is warmup interrupted
for label in rampup warmup; do
    jcheck "$(rec $label)/run.json" "
run = rec.get('run', {})
check(run.get('measured') is False and 'notpm' not in run and 'notpm_counts_agree' not in run,
      '$label: stopped before the measured window, the record holds no figures', 'got %r' % run)
"
done

# Connecting through a proxy with 1 s each way: 4 VUs need several seconds.
"$bin" proxy --listen 127.0.0.1:0 --to "127.0.0.1:$PG_TEST_PORT" --delay 1s \
    >"$tmp/px.out" 2>"$tmp/px.err" </dev/null &
pxpid=$!
i=0
px_port=
while [ $i -lt 100 ] && [ -z "$px_port" ]; do
    px_port=$(sed -n 's/.*listening on [^,]* port \([0-9][0-9]*\).*/\1/p' "$tmp/px.out" | head -n 1)
    sleep 0.05
    i=$((i + 1))
done
isnt "$px_port" "" "proxy listening (1 s each way)" || diag "$(cat "$tmp/px.err")"
pcfg=$tmp/slow.yaml
sed "s/port=$PG_TEST_PORT/port=$px_port/" "$cfg" >"$pcfg"
bg_start connect "$bin" run -c "$pcfg" --vus 4 --warmup 0s --duration 10s --label connect
sleep 3
signal_and_wait connect TERM 143 12
status_is connect interrupted
kill -INT "$pxpid" 2>/dev/null
wait "$pxpid" 2>/dev/null
pxpid=

# check blocked on a lock held by another session: Ctrl-C must not wait for it.
printf 'BEGIN;\nLOCK TABLE warehouse IN ACCESS EXCLUSIVE MODE;\nSELECT pg_sleep(60);\n' |
    PGPASSWORD=$TPCC_TEST_PASSWORD "$PG_TEST_BINDIR/psql" -X -q -d "$PG_TEST_CONNINFO" >/dev/null 2>&1 &
lockpid=$!
sleep 1
bg_start check "$bin" check -c "$cfg"
sleep 1.5
signal_and_wait check INT 130 5
like "$(cat "$tmp/check.err")" "*interrupted*" "check: says it was interrupted"
kill -KILL "$lockpid" 2>/dev/null
wait "$lockpid" 2>/dev/null
lockpid=

# ---------------------------------------------------------------------------
# 3. report and compare reading from a pipe that never delivers (a FIFO):
#    report as series.csv of a run folder, compare as a run.json.  They write
#    no record and keep the default action of the signals (SIGTERM here: a
#    background job of a non-interactive shell starts with SIGINT ignored).
mkdir -p "$tmp/fifo" && mkfifo "$tmp/fifo/run.json"
cp -r "$(rec resume)" "$tmp/slowrun" && rm -f "$tmp/slowrun/series.csv" && mkfifo "$tmp/slowrun/series.csv"
cp "$(rec warmup)/run.json" "$tmp/slowrun/run.json"
bg_start report "$bin" report "$tmp/slowrun" -o "$tmp/report.html"
sleep 1
signal_and_wait report TERM 143 5
ok "$([ ! -e "$tmp/report.html" ] && echo 0 || echo 1)" "report: no report file written"
bg_start compare "$bin" compare "$tmp/fifo/run.json" "$(rec resume)"
sleep 1
signal_and_wait compare TERM 143 5
no_tmp_files "all"

done_testing
