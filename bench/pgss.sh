#!/bin/bash
# bench/pgss.sh - what pg_stat_statements.track = all costs the private
# PostgreSQL (it preloads pg_stat_statements with track = all so that the
# top statements show those inside our procedures, issue 41): W=2 (loaded
# once), then the same run (VUS virtual users, DURATION, procedure mode) with
# track = all and track = none (ALTER SYSTEM and a reload between runs, the
# value checked in a new session), REPEAT times in a rotating order, in one
# sitting.  Prints NOTPM, TPS and the server's CPU: all its processes
# (the postmaster's children that ended, through its cutime and cstime, and
# those alive), as % of one core over the run command's wall time and as
# ms per 1000 transactions committed in database tpcc over it (the warm-up
# included).  The server is on this host.  Not part of `make test`.
# Environment: W (2), VUS (8), DURATION (30s), REPEAT (1).
. "$(dirname "$0")/lib.sh"
W=${W:-2}
VUS=${VUS:-8}
DURATION=${DURATION:-30s}
REPEAT=${REPEAT:-1}
bench_begin benchpgss
bench_load "$W"
sock=$(sed -n "s/^unix_socket_directories = '\(.*\)'$/\1/p" "$work/pgdata/tpccbench.conf")
port=$(sed -n 's/^port = //p' "$work/pgdata/tpccbench.conf")
psql_() { "$(pg__bindir)/psql" -X -q -tA -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U tpcc -d tpcc -c "$1"; }
hz=$(getconf CLK_TCK)

# srv_ticks: the CPU ticks of the whole server so far: the postmaster's own
# and those of its children it reaped (fields 14 to 17 of its stat), plus
# each child alive now (14 and 15).  A backend that ends between two
# readings moves from the second sum into the first: nothing is lost.
srv_ticks() {
    local pm t=0 p
    pm=$(head -n 1 "$work/pgdata/postmaster.pid")
    t=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat")
    for p in $(pgrep -P "$pm"); do
        t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    echo "$t"
}
commits() { psql_ "SELECT xact_commit FROM pg_stat_database WHERE datname = 'tpcc'"; }

printf '%-6s %10s %9s %18s %18s\n' track NOTPM TPS "server % core" "server ms/1000 tx"
# The order rotates with each repeat, so that a drift over the runs is not
# put down to one setting.
orders=("all none" "none all")
for i in $(seq "$REPEAT"); do
    for track in ${orders[$(((i - 1) % 2))]}; do
        psql_ "ALTER SYSTEM SET pg_stat_statements.track = '$track'" >/dev/null
        psql_ "SELECT pg_reload_conf()" >/dev/null
        for _ in $(seq 100); do
            [ "$(psql_ 'SHOW pg_stat_statements.track')" = "$track" ] && break
            sleep 0.1
        done
        [ "$(psql_ 'SHOW pg_stat_statements.track')" = "$track" ] ||
            { echo "bench/pgss.sh: the server did not take track = $track" >&2; exit 1; }
        t0=$(srv_ticks) c0=$(commits) w0=$(date +%s.%N)
        ./tpccbench run "${common[@]}" --keep-server --vus "$VUS" --warmup 5s --duration "$DURATION" \
            --mode procedure --label "track-$track" >"$work/run.out" 2>&1
        # The run's backends gone (the postmaster reaps them as they go).
        for _ in $(seq 100); do
            [ "$(psql_ "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'
                        AND pid <> pg_backend_pid()")" = 0 ] && break
            sleep 0.1
        done
        t1=$(srv_ticks) c1=$(commits) w1=$(date +%s.%N)
        rec=$(ls -t "$work"/results/*/run.json | head -1)
        python3 - "$rec" "$track" "$((t1 - t0))" "$hz" "$w0" "$w1" "$((c1 - c0))" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))["run"]
ticks, hz, w0, w1, tx = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7])
cpu_s = ticks / hz
print("%-6s %10.0f %9.1f %18.1f %18.1f" % (sys.argv[2], r["notpm"], r["tps"],
      100 * cpu_s / (w1 - w0), 1e6 * cpu_s / max(tx, 1)))
EOP
    done
done
psql_ "ALTER SYSTEM RESET pg_stat_statements.track" >/dev/null
echo "(W=$W, $VUS VUs, $DURATION after a 5 s warm-up, procedure mode; NOTPM: TPC-C derived, not audited;"
echo " the server's CPU over the whole run command, its warm-up and connections included)"
