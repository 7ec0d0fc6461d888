#!/bin/bash
# bench/terminals.sh - the terminal model at scale.  Not part of `make test`.
#
#  1. The null driver, SERVICE (1ms) per call, TERMINALS (100000: W = 10000)
#     spec terminals with think time, WARMUP (60s) then DURATION (10m): the
#     driver's CPU (% of one core, from its record), its peak RSS (VmHWM),
#     schedule-lag p99, connection waits and the efficiency against the
#     12.86 NOTPM per warehouse that full keying and think times allow.
#     Targets: <= 1 core, <= 1 GiB, lag p99 <= 10 ms, efficiency within 2 %.
#  2. The private PostgreSQL, W = PG_W (20) with its 10 x W spec terminals and
#     run.time_scale 0.01 (they offer what 100 x as many would), over 8 and
#     32 connections, PG_DURATION (60s) each: NOTPM, lag p99, waits, efficiency.
#  The runs use the default run.workers (one thread per core, each owning
#  several connections); WORKERS sets it.
# Environment: SERVICE, TERMINALS, WARMUP, DURATION, PG_W, PG_DURATION, SKIP_PG=1, WORKERS.
. "$(dirname "$0")/lib.sh"
SERVICE=${SERVICE:-1ms}
TERMINALS=${TERMINALS:-100000}
WARMUP=${WARMUP:-60s}
DURATION=${DURATION:-10m}
PG_W=${PG_W:-20}
PG_DURATION=${PG_DURATION:-60s}
bench_begin benchterm

summary() { # RECORD: one line of the figures
    python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["run"]
t = r["terminals"]
print("terminals %6d  conns %3d  workers %3d  NOTPM %9.0f  TPS %8.1f  lag p99 %7.2f ms  waits>think %5d  "
      "efficiency %6.1f %%  driver CPU %5.1f %% of a core  wakes/tx %5.2f"
      % (t["count"], t["connections"], t["workers"], r["notpm"], r["tps"], t["schedule_lag_p99_ms"],
         t["waits_over_think_time"], t.get("efficiency_pct", 0), r["driver_cpu_pct_of_core"],
         t.get("wakes_per_tx") or 0))
EOF
}

w=$((TERMINALS / 10))
printf 'database: {driver: null, null_service_time: %s}\n' "$SERVICE" >"$work/null.yaml"
echo "== null driver, $SERVICE per call, $TERMINALS terminals (W=$w), think time, $DURATION =="
/usr/bin/time -f "%M" -o "$work/maxrss" ./tpccbench run -c "$work/null.yaml" --results-dir "$work/results" \
    --warehouses "$w" --think-time true --workers "${WORKERS:-0}" --warmup "$WARMUP" --duration "$DURATION" --label null \
    >"$work/null.out" 2>&1 || { tail -20 "$work/null.out"; exit 1; }
summary "$(ls -d "$work"/results/*-null)/run.json"
echo "peak RSS $(($(cat "$work/maxrss") / 1024)) MiB"

[ "${SKIP_PG:-0}" = 1 ] && exit 0
echo "== private PostgreSQL, W=$PG_W, $((PG_W * 10)) terminals, think time x 0.01 =="
common=(--results-dir "$work/results" --datadir "$work/pgdata" --keep-server)
./tpccbench load "${common[@]}" --warehouses "$PG_W" --jobs 2 >"$work/load.out" 2>&1
for c in 8 32; do
    ./tpccbench run "${common[@]}" --think-time true --time-scale 0.01 --connections "$c" --workers "${WORKERS:-0}" \
        --warmup 10s --duration "$PG_DURATION" --label "pg-c$c" >"$work/pg-c$c.out" 2>&1 ||
        { tail -20 "$work/pg-c$c.out"; exit 1; }
    summary "$(ls -d "$work"/results/*-pg-c"$c")/run.json"
done
echo "Figures are TPC-C derived, not audited."
