#!/bin/sh
# 0013-server.sh - `tpccbench server status|stop` (issue 37) on the private
# PostgreSQL in $tmp/pgdata, 1 warehouse, on a random TCP port:
#
#  1. load --keep-server, then status: running, the postmaster's pid, kept,
#     where it listens (socket and 127.0.0.1:PORT, as postmaster.pid says),
#     the same in --json; exit 0;
#  2. server stop (by -c, as a user would): exit 0, no postmaster of that
#     data directory left (pg_ctl status says none, no process under /proc
#     runs postgres -D on it), no owner file; status says not running, exit
#     3; a second stop: nothing to stop, exit 0;
#  3. a run that starts the server and owns it (waited for by its owner file
#     naming it): status names it as owner, not kept; server stop is refused
#     with exit 2 naming the run, the server untouched; stop --force stops
#     it (exit 0, saying the run owned it), no postmaster left, and the run,
#     its server gone, ends with exit 1 (run.max_outage 2s).
# Prints TAP.  About 40 s (the load).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_private t0013 pgdata
pg=$t_datadir
owner=$pg/tpccbench.owner

# pmpid: the postmaster's pid on $pg, empty when none runs.
pmpid() {
    _p=$(head -n 1 "$pg/postmaster.pid" 2>/dev/null)
    [ -n "$_p" ] && kill -0 "$_p" 2>/dev/null && echo "$_p"
}

# postmasters: pids of the processes that run postgres -D $pg (from /proc,
# not from anything the code under test writes), one a line.
postmasters() {
    for _c in /proc/[0-9]*/cmdline; do
        # A process may end between the glob and the read: say nothing of it.
        { tr '\0' '\n' <"$_c"; } 2>/dev/null | awk -v d="$pg" 'prev == "-D" && $0 == d { f = 1 } { prev = $0 } END { exit !f }' &&
            _p=${_c#/proc/} && echo "${_p%/cmdline}"
    done
}

# none_left WHAT: the test "WHAT: no postmaster of the data directory is left".
none_left() {
    _left=$(postmasters)
    pg__run "$(pg__bindir)/pg_ctl" -D "$pg" status >"$tmp/pgctl.out" 2>&1
    _st=$?
    is "$_st|$_left" "3|" "$1: no postmaster of $pg is left (pg_ctl status exit 3, none in /proc)" ||
        diag "$(cat "$tmp/pgctl.out")" "pids: $_left"
}

# owner_is PID SECS: until the owner file names PID and a postmaster runs (at most SECS s).
owner_is() {
    _i=0
    while [ $_i -lt $(($2 * 10)) ]; do
        [ "$(sed -n 's/^pid //p' "$owner" 2>/dev/null)" = "$1" ] && [ -n "$(pmpid)" ] && return 0
        alive "$1" || return 1
        sleep 0.1
        _i=$((_i + 1))
    done
    return 1
}

# A free port: a port taken between the probe and the start is tried again.
for i in 1 2 3 4 5; do
    port=$(pg__random_port)
    cfg=$tmp/tpcc.yaml
    cat >"$cfg" <<EOF
database: {managed: true, datadir: "$pg", port: $port}
schema: {warehouses: 1}
run: {max_outage: 2s}
results: {dir: "$tmp/results"}
EOF
    run load "$bin" load -c "$cfg" --keep-server --label load
    case $err in *"could not bind"* | *"could not create any TCP"*) rm -rf "$pg"; continue ;; esac
    break
done
is "$rc" 0 "load --keep-server on port $port: exit 0" || {
    explain
    bail_out "no kept server to look at"
}

# ---------------------------------------------------------------------------
# 1. status of the kept server.
pm=$(pmpid)
pm_t=$(pid_start "$pm")
kept_by=$(sed -n 's/^pid //p' "$owner")
run st "$bin" server status -c "$cfg"
is "$rc" 0 "server status of a running server: exit 0" || explain
is "$out" "private PostgreSQL in $pg
  state:    running (postmaster pid $pm, ready)
  owner:    none: kept by pid $kept_by (--keep-server)
  kept:     yes: commands use it and leave it running; 'tpccbench server stop' ends it
  listens:  $pg/.s.PGSQL.$port and 127.0.0.1:$port
  conninfo: host=$pg port=$port dbname=tpcc user=tpcc" \
    "status: running, its postmaster, kept, where it listens" || explain
is "$err" "" "status prints nothing on stderr"
is "$(postmasters)" "$pm" "the /proc scan finds that postmaster (postgres -D $pg)"
run stj "$bin" server status --datadir "$pg" --json
is "$rc" 0 "server status --json: exit 0" || explain
printf '%s\n' "$out" >"$tmp/st.json"
jcheck "$tmp/st.json" "
check(rec.get('running') is True and rec.get('pid') == $pm and rec.get('status') == 'ready',
      'json: running, postmaster pid $pm, ready', rec)
check(rec.get('kept') is True and (rec.get('owner') or {}).get('state') == 'kept'
      and rec['owner'].get('pid') == $kept_by and rec['owner'].get('running') is False,
      'json: kept, by the load (pid $kept_by, ended)', rec.get('owner'))
check(rec.get('tcp') == '127.0.0.1:$port' and rec.get('port') == $port
      and rec.get('socket') == '$pg/.s.PGSQL.$port', 'json: where it listens', rec)
"
is "$(PGPASSFILE=$pg/tpccbench.pgpass psql -X -q -tA -w "host=127.0.0.1 port=$port dbname=tpcc user=tpcc" -c 'select 1' 2>&1)" \
    1 "the server answers where status says (127.0.0.1:$port)"

# pid_what PID: what runs as PID now (its state and command line), for a failure.
pid_what() {
    printf 'state %s: %s' "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" \
        "$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
}

# ---------------------------------------------------------------------------
# 2. server stop of the kept server.
run stop "$bin" server stop -c "$cfg"
is "$rc|$out" "0|stopped private PostgreSQL in $pg (postmaster pid $pm)" "server stop: exit 0, says what it stopped" ||
    explain
if wait_gone "$pm" 60 "$pm_t"; then pass "the kept postmaster (pid $pm) is gone"; else fail "the kept postmaster (pid $pm) is gone" "pid $pm is still: $(pid_what "$pm")"; fi
none_left "after server stop"
is "$(ls "$owner" 2>/dev/null)" "" "server stop removed the owner file"
run st2 "$bin" server status -c "$cfg"
is "$rc|$out" "3|private PostgreSQL in $pg
  state:    not running" "status after the stop: not running, exit 3" || explain
run stop2 "$bin" server stop --datadir "$pg"
is "$rc|$out" "0|private PostgreSQL in $pg: not running, nothing to stop" "a second stop: nothing to stop, exit 0" ||
    explain

# ---------------------------------------------------------------------------
# 3. A run that owns the server: stop refused, then --force.
bg_run owned --duration 120s --warmup 0s --vus 2
if owner_is "$bgpid" 60; then
    pass "a run started the server and owns it (the owner file names pid $bgpid)"
else
    fail "a run started the server and owns it" "$(cat "$tmp/owned.err")"
fi
pm=$(pmpid)
pm_t=$(pid_start "$pm")
run st3 "$bin" server status --datadir "$pg"
like "$out" "*
  owner:    tpccbench run (pid $bgpid), running now: it stops the server at its end
  kept:     no
*" "status names the run as owner, not kept" || explain
run refused "$bin" server stop --datadir "$pg"
is "$rc|$out" "2|" "server stop while the run owns it: exit 2, nothing on stdout" || explain
is "$err" "tpccbench server: the private PostgreSQL in '$pg' is in use by tpccbench run (pid $bgpid), which owns it and stops it at its end: wait for that command to end, or give --force to stop the server now (that command then loses its connections)" \
    "the refusal names the run and what to do"
is "$(pmpid)|$(sed -n 's/^pid //p' "$owner")" "$pm|$bgpid" "the refused stop left the server and its owner as they were"
alive "$bgpid" && pass "the run goes on" || fail "the run goes on" "$(cat "$tmp/owned.err")"
run forced "$bin" server stop --datadir "$pg" --force
is "$rc|$out" "0|stopped private PostgreSQL in $pg (postmaster pid $pm)
  --force: tpccbench run (pid $bgpid) owned it; that command loses its connections" \
    "server stop --force: exit 0, says whose server it stopped" || explain
if wait_gone "$pm" 60 "$pm_t"; then pass "the run's postmaster (pid $pm) is gone"; else fail "the run's postmaster (pid $pm) is gone" "pid $pm is still: $(pid_what "$pm")"; fi
none_left "after server stop --force"
bg_wait 60 "the run whose server was stopped"
is "$rc" 1 "the run, its server gone, ends with exit 1" || diag "$(tail -n 5 "$tmp/owned.err")"
none_left "after the run's end"
run st4 "$bin" server status --datadir "$pg"
is "$rc|$(printf '%s\n' "$out" | sed -n 2p)" "3|  state:    not running" "status at the end: not running, exit 3"

done_testing
