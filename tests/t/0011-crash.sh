#!/bin/sh
# 0011-crash.sh - after a crash and around a kept server (issue 27), on the
# private PostgreSQL in $tmp/pgdata, 1 warehouse:
#
#  1. one owner at a time: a run names itself in pgdata/tpccbench.owner
#     (0600, its pid, state owned); a check meanwhile uses the server and
#     leaves it to the run, which stops it at its end;
#     a run killed with SIGKILL in its window leaves the server running;
#     the next check adopts it (its first line says so) and stops it;
#     two commands starting at once on a stopped cluster, and on a new
#     datadir, start one server between them (the lock), 3 rounds each;
#  2. a server kept (check --keep-server) on its socket only, then a run
#     asking for a TCP port: exit 2 naming both and what to do, the server
#     as it was; the same after a SIGKILL (adopted): restarted with the
#     port, the first line says where it listens, psql reaches that port;
#  3. a run through the delay proxy frozen by SIGSTOP from second 3 to the
#     run's end: the record is written with left_behind, and the process
#     exits while the proxy is still frozen (it is thawed after); the record's
#     "ended" falls after the window and before the exit;
#  4. the killed run's record: compare and report say "crashed (pid N
#     gone)"; the next run into that results directory marks it crashed in
#     the file (valid JSON, when it was found, and by whom);
#  5. make demo's command (bench, shortened) with 2>&1 into one file: the
#     consistency table is whole, "stopped private PostgreSQL" after it.
# Ports: the proxy listens on port 0 and says its port; the private
# server's TCP port is a random one, tried again when taken.  Prints TAP.
# About 120 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_private t0011 pgdata
pg=$t_datadir
owner=$pg/tpccbench.owner
cfg=$tmp/tpcc.yaml
cat >"$cfg" <<EOF
database: {managed: true, datadir: "$pg"}
schema: {warehouses: 1}
results: {dir: "$tmp/results"}
EOF

# pmpid: the postmaster's pid on $pg, empty when none runs.
pmpid() {
    _p=$(head -n 1 "$pg/postmaster.pid" 2>/dev/null)
    [ -n "$_p" ] && kill -0 "$_p" 2>/dev/null && echo "$_p"
}

# owner_is PID SECS: until the owner file names PID (at most SECS s); 0 when it did.
owner_is() {
    _i=0
    while [ $_i -lt $(($2 * 10)) ]; do
        [ "$(sed -n 's/^pid //p' "$owner" 2>/dev/null)" = "$1" ] && [ -n "$(pmpid)" ] && return 0
        sleep 0.1
        _i=$((_i + 1))
    done
    return 1
}

# kill_in_window LABEL: a 60 s run, SIGKILLed 3 s after it owns the server.
kill_in_window() {
    bg_run "$1" --duration 60s --warmup 0s --vus 2
    if owner_is "$bgpid" 60; then
        sleep 3
        kill -KILL "$bgpid"
        wait "$bgpid" 2>/dev/null
        bgpid=
        pass "$1: the run owned the server and was killed with SIGKILL in its window"
    else
        fail "$1: the run owns the server (tpccbench.owner names it)" "$(cat "$tmp/$1.err")"
    fi
}

t_load "load 1 warehouse on the private server: exit 0"
is "$(pmpid)|$(ls "$owner" 2>/dev/null)" "|" "load stopped its server and removed its owner file"

# ---------------------------------------------------------------------------
# 1. The owner while a command runs; another command beside it.
bg_run owned --duration 12s --warmup 0s --vus 2
if owner_is "$bgpid" 60; then
    pass "a run names itself in tpccbench.owner (pid $bgpid)"
else
    fail "a run names itself in tpccbench.owner" "$(cat "$owner" 2>&1)"
fi
is "$(stat -c %a "$owner" 2>/dev/null)|$(sed -n 's/^state //p' "$owner")" "600|owned" \
    "the owner file is 0600 and says owned"
start=$(awk -v p="$bgpid" '{ print $22 }' "/proc/$bgpid/stat" 2>/dev/null)
is "$(sed -n 's/^start_ticks //p' "$owner")" "$start" "the owner file has the run's start time"
is "$(sed -n 's/^boot_id //p' "$owner")" "$(cat /proc/sys/kernel/random/boot_id)" \
    "the owner file has this boot's id"
pm=$(pmpid)
run beside "$bin" check -c "$cfg" --conditions 1
is "$rc" 0 "check beside the run: exit 0" || explain
is "$(head -n 1 "$tmp/beside.err")" "private PostgreSQL in $pg" "check beside the run: its first line"
is "$(pmpid)|$(sed -n 's/^pid //p' "$owner")" "$pm|$bgpid" \
    "check beside the run leaves the server and its owner as they were"
bg_complete owned "the owner's run"
like "$(cat "$tmp/owned.err")" "*stopped private PostgreSQL*" "the owner's run stops the server at its end"
is "$(pmpid)" "" "no server after the owner's run"

# ---------------------------------------------------------------------------
# 1 and 4. SIGKILL in the window; the next check adopts the server.
kill_in_window killed
pm=$(pmpid)
pm_t=$(pid_start "$pm")
isnt "$pm" "" "the killed run left its server running (pid $pm)"
killed_rec=$(rec_json killed)
killed_pid=$(json "$killed_rec" "r['process']['pid']")
is "$(json "$killed_rec" "r['status']")|$killed_pid" "running|$(sed -n 's/^pid //p' "$owner")" \
    "its record says running, with the pid the owner file names"
run adopt "$bin" check -c "$cfg" --conditions 1-4
is "$rc" 0 "check after the SIGKILL: exit 0 (conditions 1-4 hold)" || explain
is "$(head -n 1 "$tmp/adopt.err")" \
    "private PostgreSQL in $pg (left running by a command that ended without stopping it: adopted)" \
    "check's first line says it adopted the server"
like "$err" "*stopped private PostgreSQL*" "check stops the adopted server at its end"
if wait_gone "$pm" 10 "$pm_t"; then pass "the adopted postmaster is gone"; else fail "the adopted postmaster is gone" "pid $pm"; fi
is "$(ls "$owner" 2>/dev/null)" "" "and so is its owner file"

# 4. compare and report name the crash; the next run marks the record.
run done "$bin" run -c "$cfg" --duration 2s --warmup 0s --vus 2 --label done
is "$rc" 0 "a short run after it: exit 0" || explain
run cmp "$bin" compare "$(dirname "$killed_rec")" "$(dirname "$(rec_json done)")" --force
like "$both" "*has status 'crashed (pid $killed_pid gone)'*" "compare says the killed run crashed (pid $killed_pid gone)" ||
    explain
run rep "$bin" report "$(dirname "$killed_rec")" "$(dirname "$(rec_json done)")" -o "$tmp/report.html" --force
is "$rc" 0 "report over the killed run and a complete one: exit 0" || explain
like "$(cat "$tmp/report.html" 2>/dev/null)" "*crashed (pid $killed_pid gone)*" "report says the killed run crashed"
jcheck "$killed_rec" "
c = rec.get('crashed') or {}
check(rec.get('status') == 'crashed', 'the next run marked the killed record crashed in the file', rec.get('status'))
check(c.get('why') == 'pid $killed_pid gone', 'crashed.why says the pid is gone', c)
import re
check(re.match(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$', c.get('found', '')) is not None, 'crashed.found is a UTC time', c)
check(isinstance(c.get('by_pid'), int) and c['by_pid'] != $killed_pid, 'crashed.by_pid names the command that found it', c)
"
is "$(find "$tmp/results" -name '*.tmp*' | sort)" "" "no temp files left in results"
run cmp2 "$bin" compare "$(dirname "$killed_rec")" "$(dirname "$(rec_json done)")" --force
like "$both" "*has status 'crashed (pid $killed_pid gone)'*" "compare reads the marked record the same way"
run hist "$bin" history "$(dirname "$killed_rec")" "$(dirname "$(rec_json done)")"
like "$both" "*crashed (pid $killed_pid gone) (not complete)*" "history names the killed run crashed where it leaves it out" ||
    explain

# ---------------------------------------------------------------------------
# 1. The lock: two commands starting at once, on a stopped cluster and on a new one.
ready_count() {
    _c=$(grep -c "database system is ready to accept connections" "$1/server.log" 2>/dev/null)
    echo "${_c:-0}"
}
race() {
    _d=$1
    _n0=$(ready_count "$_d")
    "$bin" check --datadir "$_d" --results-dir "$tmp/results" --conditions 1 --keep-server \
        >"$tmp/ra.out" 2>"$tmp/ra.err" </dev/null &
    _a=$!
    "$bin" check --datadir "$_d" --results-dir "$tmp/results" --conditions 1 --keep-server \
        >"$tmp/rb.out" 2>"$tmp/rb.err" </dev/null &
    _b=$!
    wait $_a
    _ra=$?
    wait $_b
    _rb=$?
    race_started=$(($(ready_count "$_d") - _n0))
    race_errs=$(cat "$tmp/ra.err" "$tmp/rb.err" | grep -E "postmaster.pid|not empty|another server|starting PostgreSQL|initdb|lock" || true)
    race_rc="$_ra|$_rb"
}
for round in 1 2 3; do
    race "$pg"
    is "$race_started|$race_errs|$race_rc" "1||0|0" \
        "round $round: two checks at once on a stopped cluster: one server started, both exit 0" ||
        diag "$(cat "$tmp/ra.err" "$tmp/rb.err")"
    is "$(sed -n 's/^state //p' "$owner")" kept "round $round: the owner file says kept (--keep-server)"
    pg_stop_datadir "$pg"
done
for round in 1 2 3; do
    d=$tmp/new$round
    race "$d"
    # An empty database fails the check (no tables): only the start is judged.
    is "$race_started|$race_errs" "1|" "round $round: two checks at once on a new datadir: one initdb and start" ||
        diag "$(cat "$tmp/ra.err" "$tmp/rb.err")"
    pg_stop_datadir "$d"
done

# ---------------------------------------------------------------------------
# 2. A kept socket-only server, and a run that asks for a TCP port.
run keep "$bin" check -c "$cfg" --conditions 1 --keep-server
is "$rc" 0 "check --keep-server: exit 0" || explain
pm=$(pmpid)
kept_pid=$(sed -n 's/^pid //p' "$owner")
port=$(pg__random_port)
cat >"$tmp/port.yaml" <<EOF
database: {managed: true, datadir: "$pg", port: $port}
schema: {warehouses: 1}
results: {dir: "$tmp/results"}
EOF
run asks "$bin" run -c "$tmp/port.yaml" --duration 2s --warmup 0s --vus 2 --label asks
is "$rc" 2 "a run asking for port $port of a kept socket-only server: exit 2" || explain
is "$err" "tpccbench run: the private PostgreSQL running on '$pg' listens on its Unix socket only (no TCP), but the config asks for 127.0.0.1:$port (database.port), and this command may not restart it (it was left running on purpose (--keep-server, pid $kept_pid)): stop it (tpccbench server stop --datadir '$pg') and run again, or set database.port to 0" \
    "the message names where it listens, what the config asks and what to do"
is "$(pmpid)|$(sed -n 6p "$pg/postmaster.pid" | tr -d ' ')" "$pm|" "the kept server runs on, still without TCP"
pg_stop_datadir "$pg"

# The same once its owner is gone: adopted and restarted with the port.
for i in 1 2 3 4 5; do
    kill_in_window "killed$i"
    sed -i "s/port: [0-9]*/port: $port/" "$tmp/port.yaml"
    run moved "$bin" run -c "$tmp/port.yaml" --duration 2s --warmup 0s --vus 2 --label moved --keep-server
    case $err in *"could not bind"* | *"could not create any TCP"*) port=$(pg__random_port); continue ;; esac
    break
done
is "$rc" 0 "a run with port $port after the SIGKILL: exit 0" || explain
is "$(head -n 1 "$tmp/moved.err")" \
    "private PostgreSQL in $pg (and on 127.0.0.1:$port) (left running by a command that ended without stopping it: adopted)" \
    "its first line: adopted, and where it listens now (read back from the server)"
is "$(sed -n 6p "$pg/postmaster.pid" | tr -d ' ')|$(sed -n 4p "$pg/postmaster.pid" | tr -d ' ')" "127.0.0.1|$port" \
    "the server was restarted on 127.0.0.1:$port"
is "$(PGPASSFILE=$pg/tpccbench.pgpass psql -X -q -tA -w "host=127.0.0.1 port=$port dbname=tpcc user=tpcc" -c 'show port' 2>&1)" \
    "$port" "psql with the cluster's password file reaches it on port $port"

# ---------------------------------------------------------------------------
# 3. The record, then the exit: a run through a proxy frozen by SIGSTOP.
bg_listen px "$bin" proxy --listen 127.0.0.1:0 --to "127.0.0.1:$port" --delay 0ms ||
    bail_out "the proxy did not listen: $(cat "$tmp/px.err")"
px=$bg_pid
cat >"$tmp/proxied.yaml" <<EOF
database: {driver: postgres, managed: false, conninfo: "host=127.0.0.1 port=$bg_port dbname=tpcc user=tpcc passfile=$pg/tpccbench.pgpass"}
schema: {warehouses: 1}
results: {dir: "$tmp/results"}
EOF
"$bin" run -c "$tmp/proxied.yaml" --duration 8s --warmup 0s --vus 4 --label frozen \
    >"$tmp/frozen.out" 2>"$tmp/frozen.err" </dev/null &
bgpid=$!
# Frozen a second into the window, not 3 s after the start: a sanitized run
# on a loaded machine may not have connected by then (CI's ASan run left
# nothing behind to count).
bg_window frozen
sleep 1
kill -STOP "$px"
bg_wait 90 "the run through the frozen proxy"
t_exit=$(date +%s.%N)
px_state=$(cut -d' ' -f3 "/proc/$px/stat" 2>/dev/null)
kill -CONT "$px"
is "$px_state" T "the proxy was still frozen when the run exited"
frec=$(rec_json frozen)
# The exit did not wait for the network: the proxy stays frozen until the test
# thaws it, after the exit (above).  What is left to check is that the record
# was whole before the exit, its end after the window (8 s from the start),
# not a guess: no bound on the machine's speed.
t_rec=$(stat -c %.9Y "$frec" 2>/dev/null || echo 0)
ok "$(python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) > 0 and float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$t_exit" "$t_rec" && echo 0 || echo 1)" \
    "the run wrote its record, then exited"
jcheck "$frec" "
import calendar, time
run = rec.get('run', {})
check(run.get('left_behind', 0) >= 1, 'the record counts the connections left behind (%r)' % run.get('left_behind'))
def t(field):
    try:
        return calendar.timegm(time.strptime(rec.get(field, ''), '%Y-%m-%dT%H:%M:%SZ'))
    except ValueError:
        return 0
# Whole seconds: the end is at least the window's 8 s after the start, and
# no later than the exit.
check(t('started') > 0 and t('ended') - t('started') >= 8 and t('ended') <= $t_exit,
      'the record\\'s ended (%s) is after the window and before the exit' % rec.get('ended'))
"
pg_stop_datadir "$pg"

# ---------------------------------------------------------------------------
# 5. make demo's command, 2>&1 into one file: the consistency table is whole.
"$bin" bench --datadir "$pg" --results-dir "$tmp/results" --label demo --change "make demo" \
    --warehouses 1 --vus 4 --warmup 1s --duration 3s >"$tmp/demo.txt" 2>&1 </dev/null
is "$?" 0 "make demo's command (3 s), stdout and stderr into one file: exit 0" || diag "$(cat "$tmp/demo.txt")"
python3 - "$tmp/demo.txt" >"$tmp/checks" 2>&1 <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
def check(c, d, *x):
    print(("PASS\t" if c else "FAIL\t") + d + ("" if c else "\t" + "\t".join(map(str, x))))
head = [i for i, l in enumerate(lines) if l.startswith("consistency (TPC-C 3.3.2)")]
end = [i for i, l in enumerate(lines) if l == "consistency: all passed"]
check(len(head) == 1 and len(end) == 1 and head[0] < end[0], "the table's heading and its last line, once each")
if head and end:
    body = lines[head[0] + 1:end[0]]
    bad = [l for l in body if not re.match(r"^  (ok|FAIL) ", l)]
    check(not bad and len(body) >= 5, "nothing else between them: %d rows" % len(body), bad)
    stop = [i for i, l in enumerate(lines) if l == "stopped private PostgreSQL"]
    check(len(stop) == 1 and stop[0] > end[0], "'stopped private PostgreSQL' after the table", stop)
EOF
tap_from "$tmp/checks"

note "elapsed: $(($(date +%s) - t_start)) s"
done_testing
