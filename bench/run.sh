#!/bin/bash
# bench/run.sh - throughput and the driver's own cost on the private
# PostgreSQL: W=4 (loaded once), then VUs 1, 4, 8, 16 for 60 s each.  Prints
# NOTPM, TPS, New-Order p90 and the driver's CPU (getrusage of tpccbench)
# per 1000 committed transactions and as % of one core per 1000 TPS.
# Not part of `make test`.  Environment: W (4), VUS ("1 4 8 16"), DURATION (60s).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make -s tpccbench
. tests/lib/pg.sh
W=${W:-4}
VUS=${VUS:-1 4 8 16}
DURATION=${DURATION:-60s}
work=$(mktemp -d /tmp/tpcc-benchrun.XXXXXX)
chmod 755 "$work"
common=(--results-dir "$work/results" --datadir "$work/pgdata")
cleanup() {
    # The server was kept running between runs (--keep-server): stop it.
    pg_stop_datadir "$work/pgdata"
    rm -rf "$work"
}
trap cleanup EXIT
./tpccbench load "${common[@]}" --warehouses "$W" --jobs 2 --keep-server >"$work/load.out" 2>&1
printf '%4s %10s %9s %10s %16s %22s\n' VUs NOTPM TPS "NO p90 ms" "CPU ms/1000 tx" "% core per 1000 TPS"
for v in $VUS; do
    ./tpccbench run "${common[@]}" --keep-server --vus "$v" --warmup 10s --duration "$DURATION" \
        --label "vus$v" >"$work/run.out" 2>&1
    rec=$(ls -t "$work"/results/*/run.json | head -1)
    python3 - "$rec" "$v" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))["run"]
cpu = r["driver_cpu_ms_per_1000_tx"]
# % of one core per 1000 TPS = (CPU seconds per second at 1000 TPS) x 100 = cpu_ms_per_1000_tx / 10
print("%4s %10.0f %9.1f %10.2f %16.1f %22.2f" % (sys.argv[2], r["notpm"], r["tps"],
      r["transactions"]["new_order"]["p90_ms"], cpu, cpu / 10.0))
EOP
done
echo "(NOTPM: TPC-C derived, not audited)"
