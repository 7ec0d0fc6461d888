#!/bin/bash
# bench/load.sh - how fast does tpccbench load, against the floor of this
# machine: the identical data loaded by plain server-side COPY ... FROM 'file'
# (pre-written files, the same two parallel sessions), plus the same index
# build and ANALYZE.  Prints, for each W (default 1 and 4) with 2 jobs: total
# and per-phase seconds, MB/s, the ratio tpccbench / floor, and the paths the
# load took with each one's share of the rows (load.path_rows).
# BENCH_LOAD_SERVER=user (default): a server of the user's (tests/lib/pg.sh,
# managed: false), where only what needs no server setting is used.
# BENCH_LOAD_SERVER=private: tpccbench's private server (it runs the load
# with wal_level minimal and restarts to the run's settings; the floor runs
# on those).  BENCH_LOAD_COPY=text: the text path, for comparison.
# Not part of `make test`.  Usage: bench/load.sh [W...]
. "$(dirname "$0")/lib.sh"
PG_TEST_CONF="shared_buffers = 256MB
max_wal_size = 4GB
checkpoint_timeout = 15min
maintenance_work_mem = 512MB"
bench_begin benchload
server=${BENCH_LOAD_SERVER:-user}
if [ "$server" = private ]; then
    cat >"$work/bench.yaml" <<EOY
database: {driver: postgres, managed: true, datadir: $work/pgdata}
results: {dir: $work/results, label: benchload}
load: {copy: ${BENCH_LOAD_COPY:-fast}}
EOY
    keep=--keep-server
else
    pg_start
    cat >"$work/bench.yaml" <<EOY
database: {driver: postgres, managed: false, conninfo: "$PG_TEST_CONNINFO", password_env: TPCC_TEST_PASSWORD}
results: {dir: $work/results, label: benchload}
load: {copy: ${BENCH_LOAD_COPY:-fast}}
EOY
    keep=
    export PGPASSWORD=$TPCC_TEST_PASSWORD
fi
# The floor's sessions: the private server through its socket (its settings
# lack the test server's maintenance_work_mem, which the loader sets itself).
psql_() {
    if [ "$server" = private ]; then
        _sock=$(sed -n "s/^unix_socket_directories = '\(.*\)'$/\1/p" "$work/pgdata/tpccbench.conf")
        _port=$(sed -n 's/^port = //p' "$work/pgdata/tpccbench.conf")
        PGOPTIONS="-c maintenance_work_mem=512MB" "$(pg__bindir)/psql" -X -q -tA -v ON_ERROR_STOP=1 \
            -h "$_sock" -p "$_port" -U tpcc -d tpcc "$@"
    else
        "$PG_TEST_BINDIR/psql" -X -q -tA -v ON_ERROR_STOP=1 -d "$PG_TEST_CONNINFO" "$@"
    fi
}
tables="warehouse district customer history new_order orders order_line item stock"
wcol() {
    case $1 in
    warehouse) echo w_id ;; district) echo d_w_id ;; customer) echo c_w_id ;;
    history) echo h_w_id ;; new_order) echo no_w_id ;; orders) echo o_w_id ;;
    order_line) echo ol_w_id ;; item) echo i_id ;; stock) echo s_w_id ;;
    esac
}
now() { date +%s.%N; }
secs() { python3 -c "print($2 - $1)"; }
# Run the statements of a file (one per line) in 2 parallel sessions, alternating.
par2() {
    grep -v '^--' "$1" | grep -v '^ *$' >"$work/stmts"
    awk 'NR % 2 == 1' "$work/stmts" >"$work/s0"
    awk 'NR % 2 == 0' "$work/stmts" >"$work/s1"
    psql_ -f "$work/s0" &
    p0=$!
    psql_ -f "$work/s1" &
    p1=$!
    wait $p0 $p1
}

printf '%-3s %-10s %8s %8s %8s %8s %8s %8s\n' W tool total schema copy index analyze MB/s
for W in ${@:-1 4}; do
    ./tpccbench load -c "$work/bench.yaml" --warehouses "$W" --jobs 2 --drop $keep >"$work/out" 2>&1
    rec=$(ls -t "$work"/results/*/run.json | head -1)
    python3 - "$rec" "$W" >"$work/paths" <<'EOP'
import json, sys
l = json.load(open(sys.argv[1]))["load"]
p = l["phases"]
print("%-3s %-10s %8.2f %8.2f %8.2f %8.2f %8.2f %8.1f" % (sys.argv[2], "tpccbench", l["seconds"],
      p["schema"], p["copy"], p["index"], p["analyze"], l["mb_per_s"]), file=sys.stderr)
rows = l["total_rows"] or 1
pr = l.get("path_rows", {})
share = {"text COPY": pr.get("text", rows), "binary COPY": pr.get("binary", 0),
         "table per transaction: TRUNCATE, COPY FREEZE": pr.get("table_per_transaction", 0)}
for path in l.get("paths", []):
    # wal_level minimal is the server's during the whole load: every row.
    print("%-3s   path %-46s %5.1f%% of the rows" % (sys.argv[2], path, 100.0 * share.get(path, rows) / rows))
if l.get("settings"):
    print("%-3s   load settings %s, after it %s; the restarts: %.2f s (in total)" % (sys.argv[2],
          l["settings"], l.get("settings_after"), p.get("restart", 0)))
EOP
    ours=$(python3 -c "import json; print(json.load(open('$rec'))['load']['seconds'])")
    # Export the identical data, two halves per table, for the floor.
    rm -f "$work"/*.copy
    for t in $tables; do
        c=$(wcol "$t")
        psql_ -c "\\copy (SELECT * FROM $t WHERE $c % 2 = 0) TO '$work/$t.0.copy'"
        psql_ -c "\\copy (SELECT * FROM $t WHERE $c % 2 = 1) TO '$work/$t.1.copy'"
    done
    chmod 644 "$work"/*.copy
    bytes=$(cat "$work"/*.copy | wc -c)
    sync
    # The floor: empty tables, server-side COPY from the files in 2 sessions,
    # the same indexes.sql in 2 sessions, ANALYZE in 2 sessions.
    t0=$(now)
    psql_ -f schema/postgresql/drop.sql >/dev/null
    psql_ -f schema/postgresql/tables.sql >/dev/null
    t1=$(now)
    : >"$work/c0"
    : >"$work/c1"
    for t in item stock order_line customer history orders new_order district warehouse; do
        echo "COPY $t FROM '$work/$t.0.copy';" >>"$work/c0"
        echo "COPY $t FROM '$work/$t.1.copy';" >>"$work/c1"
    done
    psql_ -f "$work/c0" >/dev/null &
    p0=$!
    psql_ -f "$work/c1" >/dev/null &
    p1=$!
    wait $p0 $p1
    t2=$(now)
    par2 schema/postgresql/indexes.sql >/dev/null
    t3=$(now)
    for t in $tables; do echo "ANALYZE $t;"; done >"$work/an.sql"
    par2 "$work/an.sql" >/dev/null
    t4=$(now)
    total=$(secs "$t0" "$t4")
    python3 -c "
t0,t1,t2,t3,t4=$t0,$t1,$t2,$t3,$t4
print('%-3s %-10s %8.2f %8.2f %8.2f %8.2f %8.2f %8.1f' % ('$W', 'COPY floor', t4-t0, t1-t0, t2-t1, t3-t2, t4-t3, $bytes/1e6/(t2-t1)))
print('%-3s ratio tpccbench/floor: %.2f (%s server)' % ('$W', $ours/(t4-t0), '$server'))"
    cat "$work/paths"
    # Put a tpcc_meta row back is not needed: the next iteration reloads with --drop.
    # A kept private server is not the next load's to restart: stop it.
    if [ "$server" = private ]; then pg_stop_datadir "$work/pgdata"; fi
done
