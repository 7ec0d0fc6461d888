#!/bin/bash
# bench/parts.sh - a scale-out run's parts on this machine, merged.
#
#  1. The null driver (1 ms a call), the spec's terminals with think time
#     shrunk by run.time_scale (TIME_SCALE, 0.1) over NULL_W warehouses (400:
#     4,000 terminals), as 1 process, then 2 and 4 parts meeting in the
#     private PostgreSQL (--meet-conninfo): the merged transactions per
#     second and schedule-lag p99, and the driver CPU of all parts.
#  2. The private PostgreSQL, procedure mode, W=4 loaded once, closed loop:
#     one process with CONNS (8) connections against 2 and 4 parts with
#     CONNS/N each: merged NOTPM (against the database's count) and New-Order
#     p90.
# Not part of `make test`.  Environment: DURATION (30s), NULL_W, TIME_SCALE, CONNS.
. "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-30s}
NULL_W=${NULL_W:-400}
TIME_SCALE=${TIME_SCALE:-0.1}
CONNS=${CONNS:-8}
bench_begin benchparts
bench_load 4
meet="host=$work/pgdata port=5432 dbname=tpcc user=tpcc"
printf 'database: {driver: null, null_service_time: 1ms}\nschema: {warehouses: %s}\n' "$NULL_W" \
    >"$work/null.yaml"

# The merged record of label L (or the one record when there is one part).
figures() {
    python3 - "$work/results" "$1" "$2" "$3" <<'EOP'
import glob, json, sys
res, label, n, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
recs = [d for d in glob.glob(res + "/*-" + label) if not d.endswith("of%d" % n)]
r = json.load(open(sorted(recs)[-1] + "/run.json"))
run = r["run"]
cpu = run["driver_cpu_s"] / run["measured_seconds"] * 100
if what == "null":
    print("%-6s %5d %9d %10.0f %13.2f %12.1f %8s" % ("null", n, run["terminals"]["count"], run["tps"],
          run["terminals"]["schedule_lag"]["p99_ms"], cpu, r.get("status")))
else:
    print("%-6s %5d %9d %10.0f %13s %12.1f %8s  NOTPM %.0f (New-Orders: %s by the database), NO p90 %.2f ms" % ("pg", n,
          run["terminals"]["count"], run["tps"], "-", cpu, r.get("status"), run["notpm"],
          run.get("new_orders_db"), run["transactions"]["new_order"]["p90_ms"]))
EOP
}

printf '%-6s %5s %9s %10s %13s %12s %8s\n' driver parts terminals TPS "lag p99 ms" "CPU % core" status
# 1. The null driver.
for n in 1 2 4; do
    label=null$n
    if [ "$n" = 1 ]; then
        ./tpccbench run -c "$work/null.yaml" --results-dir "$work/results" --label "$label" \
            --think-time true --time-scale "$TIME_SCALE" --warmup 5s --duration "$DURATION" \
            --metrics false >"$work/$label.out" 2>&1
    else
        pids=()
        for k in $(seq 1 "$n"); do
            ./tpccbench run -c "$work/null.yaml" --results-dir "$work/results" --label "$label" \
                --think-time true --time-scale "$TIME_SCALE" --warmup 5s --duration "$DURATION" \
                --metrics false --part "$k/$n" --run-id "bench-$label-$$" --meet-conninfo "$meet" \
                >"$work/$label.$k.out" 2>&1 &
            pids+=($!)
        done
        wait "${pids[@]}"
    fi
    figures "$label" "$n" null
done
# 2. The private PostgreSQL.
for n in 1 2 4; do
    label=pg$n
    c=$((CONNS / n))
    if [ "$n" = 1 ]; then
        ./tpccbench run --conninfo "$meet" --results-dir "$work/results" --mode procedure \
            --vus "$c" --warmup 5s --duration "$DURATION" --label "$label" --metrics false \
            >"$work/$label.out" 2>&1
    else
        pids=()
        for k in $(seq 1 "$n"); do
            ./tpccbench run --conninfo "$meet" --results-dir "$work/results" --mode procedure \
                --vus "$c" --warmup 5s --duration "$DURATION" --label "$label" --metrics false \
                --part "$k/$n" \
                --run-id "bench-$label-$$" >"$work/$label.$k.out" 2>&1 &
            pids+=($!)
        done
        wait "${pids[@]}"
    fi
    figures "$label" "$n" pg
done
echo "(NOTPM: TPC-C derived, not audited; CPU: all parts' driver CPU over the window)"
