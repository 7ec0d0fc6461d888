#!/bin/bash
# bench/statements.sh - what run.statements costs: prepared against unnamed
# statements, directly and through PgBouncer.  A throwaway PostgreSQL
# (tests/lib/pg.sh), W=4 loaded once, 8 VUs (8 connections for the
# transactions, plus a delivery worker and the monitor), DURATION each
# (default 60s) after a 10 s warm-up, in each of MODES.  Rows: directly with
# prepared and with unnamed statements; through PgBouncer in transaction
# mode (default_pool_size POOL, fewer server connections than ours) with
# unnamed (prepared fails there, by design: exit 2); through PgBouncer in
# session mode with prepared, which separates the pooler's own cost from
# the statements'.  Prints NOTPM, TPS, New-Order p90 and the driver's CPU
# (getrusage of tpccbench) per committed transaction.  Not part of `make test`.
# Environment: W (4), VUS (8), DURATION (60s), MODES ("client procedure"), POOL (4).
. "$(dirname "$0")/lib.sh"
. tests/lib/pgbouncer.sh
W=${W:-4}
VUS=${VUS:-8}
DURATION=${DURATION:-60s}
MODES=${MODES:-client procedure}
POOL=${POOL:-4}
command -v pgbouncer >/dev/null || { echo "bench/statements.sh: apt-get install pgbouncer" >&2; exit 2; }
bench_begin benchstmts
bench_extra_cleanup=pgb_stop
pg_start
config() { # file, conninfo
    cat >"$1" <<EOY
database: {driver: postgres, managed: false, conninfo: "$2", password_env: TPCC_TEST_PASSWORD}
results: {dir: $work/results}
EOY
}
config "$work/direct.yaml" "$PG_TEST_CONNINFO"
./tpccbench load -c "$work/direct.yaml" --warehouses "$W" --jobs 2 >"$work/load.out" 2>&1
report() { # record, path, statements, mode
    python3 - "$@" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))["run"]
p = r["pooler"]
print("%-22s %-9s %-9s %9.0f %8.1f %9.2f %10.1f  %s" % (sys.argv[2], sys.argv[3], sys.argv[4],
      r["notpm"], r["tps"], r["transactions"]["new_order"]["p90_ms"],
      r["driver_cpu_ms_per_1000_tx"],
      "yes (%d conns on %d procs)" % (p["connections"], p["server_processes"]) if p["seen"] else "no"))
EOP
}
one() { # config, path, statements, mode
    if ! ./tpccbench run -c "$1" --mode "$4" --statements "$3" --vus "$VUS" --warmup 10s \
        --duration "$DURATION" --label "$2-$3-$4" >"$work/run.out" 2>&1; then
        echo "$2 $3 $4: the run failed:" >&2
        tail -n 3 "$work/run.out" >&2
        return 0
    fi
    report "$(ls -t "$work"/results/*/run.json | head -1)" "$2" "$3" "$4"
}
printf '%-22s %-9s %-9s %9s %8s %9s %10s  %s\n' path statements mode NOTPM TPS "NO p90" "CPU us/tx" \
    "pooler seen"
for m in $MODES; do
    one "$work/direct.yaml" direct prepared "$m"
    one "$work/direct.yaml" direct unnamed "$m"
done
pgb_start transaction "$POOL"
config "$work/pgb.yaml" "$PGB_TEST_CONNINFO"
for m in $MODES; do
    one "$work/pgb.yaml" "pgbouncer-tx-pool$POOL" unnamed "$m"
done
pgb_stop
pgb_start session $((VUS + 4))
config "$work/pgb.yaml" "$PGB_TEST_CONNINFO"
for m in $MODES; do
    one "$work/pgb.yaml" pgbouncer-session prepared "$m"
done
echo "(W=$W, $VUS VUs, $DURATION each; NOTPM: TPC-C derived, not audited; CPU us/tx: the driver's"
echo " user+system CPU per committed transaction; prepared through transaction mode fails by design)"
