#!/bin/bash
# bench/run.sh - throughput and the driver's own cost on the private
# PostgreSQL, procedure mode: W=4 (loaded once), then one run per row of
# ROWS, each TERMINALS:CONNECTIONS:BATCH[:WORKERS] (closed loop; WORKERS 0 or
# absent: the default, one thread per core).  The default rows are 1, 4, 8
# and 16 virtual users (a terminal and a connection each), then 8
# connections carrying 8, 32, 64, 128 and 512 terminals one transaction at
# a time and in batches (run.batch) of 4, 8, 16 and 64, then 8 connections
# on 8 threads (one each) and on 1.  Prints NOTPM, TPS, New-Order p90
# (response time, from the intended start), the transactions per round trip
# and the driver's CPU (getrusage of tpccbench) per 1000 committed
# transactions and as % of one core per 1000 TPS.  Not part of `make test`.
# Environment: W (4), ROWS, DURATION (60s), BASE: a tpccbench binary of an
# earlier commit (one that takes --vus) to run first, 8 virtual users in
# procedure mode on the same data; every row then also prints its CPU per
# transaction and its NOTPM as a ratio of the base's, measured in the same
# sitting (this machine is shared: compare ratios, not absolute figures).
# HAMMERDB: a HammerDB directory (see bench/hammerdb.sh for what it needs):
# HammerDB's TPROC-C runs first, in the same sitting on the same server
# (its own schema of W warehouses, HAMMERDB_VUS (8) virtual users, DURATION
# rounded up to whole minutes after its 1-minute ramp-up), and its driver CPU
# per committed transaction becomes HAMMERDB_US.  HAMMERDB_US: that figure in
# us, given (from another sitting, which the line then says); every row then
# also prints its own CPU per transaction as a ratio of it (issue 31's
# target: 0.10).
. "$(dirname "$0")/lib.sh"
. bench/hammerdb.sh
W=${W:-4}
ROWS=${ROWS:-1:1:1 4:4:1 8:8:1 16:16:1 32:8:1 32:8:4 64:8:8 128:8:16 512:8:64 8:8:1:8 8:8:1:1}
DURATION=${DURATION:-60s}
# The server is kept running between runs (--keep-server); bench_cleanup stops it.
bench_begin benchrun
bench_load "$W"
if [ -n "${HAMMERDB:-}" ]; then
    secs=$(python3 -c 'import re, sys
m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)?", sys.argv[1])
print(float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[m.group(2) or "s"])' "$DURATION")
    hammerdb_measure "$HAMMERDB" "$W" "${HAMMERDB_VUS:-8}" "$(python3 -c "import math; print(max(1, math.ceil($secs / 60)))")"
    export HAMMERDB_US=$hammerdb_us
    echo "HammerDB's driver CPU per committed transaction, this sitting: $HAMMERDB_US us"
elif [ -n "${HAMMERDB_US:-}" ]; then
    echo "HammerDB's driver CPU per committed transaction, given (another sitting): $HAMMERDB_US us"
    export HAMMERDB_US
fi
printf '%5s %5s %5s %7s %9s %8s %10s %8s %15s %20s %9s %11s %s\n' terms conns batch workers NOTPM TPS "NO p90 ms" \
    "tx/RT" "CPU ms/1000 tx" "% core per 1000 TPS" "CPU/base" "NOTPM/base" "${HAMMERDB_US:+CPU/HammerDB}"
# row_figures REC T C B: one line of the table from a run's record (the
# base's figures, once taken, in $work/base).
row_figures() {
    python3 - "$@" "$work/base" <<'EOP'
import json, os, sys
r = json.load(open(sys.argv[1]))["run"]
cpu = r["driver_cpu_ms_per_1000_tx"]
t = r.get("terminals", {})
p = t.get("pipelining")
per_rt = p["per_round_trip"] if isinstance(p, dict) and p.get("per_round_trip") else 1.0
p90 = r["transactions"]["new_order"]["p90_ms"]
ratio = ("%9s %11s" % ("-", "-"))
if os.path.exists(sys.argv[5]):
    bcpu, bnotpm = map(float, open(sys.argv[5]).read().split())
    ratio = "%9.2f %11.2f" % (cpu / bcpu, r["notpm"] / bnotpm)
else:
    open(sys.argv[5], "w").write("%r %r\n" % (cpu, r["notpm"]))
# % of one core per 1000 TPS = (CPU seconds per second at 1000 TPS) x 100 = cpu_ms_per_1000_tx / 10
# ms per 1000 transactions is us per transaction: the ratio to HammerDB's.
hdb = os.environ.get("HAMMERDB_US")
hratio = " %12.3f" % (cpu / float(hdb)) if hdb else ""
print("%5s %5s %5s %7s %9.0f %8.1f %10.2f %8.2f %15.1f %20.2f %s%s" % (sys.argv[2], sys.argv[3], sys.argv[4],
      t.get("workers", "-"), r["notpm"], r["tps"], p90, per_rt, cpu, cpu / 10.0, ratio, hratio))
EOP
}
if [ -n "${BASE:-}" ]; then
    "$BASE" run "${common[@]}" --keep-server --mode procedure --vus 8 --warmup 10s --duration "$DURATION" \
        --label base >"$work/run.out" 2>&1
    echo "base: $BASE, 8 virtual users"
    row_figures "$(ls -t "$work"/results/*/run.json | head -1)" 8 8 1
fi
for row in $ROWS; do
    IFS=: read -r t c b wk <<<"$row"
    wk=${wk:-0}
    ./tpccbench run "${common[@]}" --keep-server --mode procedure --terminals "$t" --connections "$c" \
        --batch "$b" --workers "$wk" --warmup 10s --duration "$DURATION" --label "t$t-c$c-b$b-w$wk" \
        >"$work/run.out" 2>&1
    row_figures "$(ls -t "$work"/results/*/run.json | head -1)" "$t" "$c" "$b"
done
echo "(NOTPM: TPC-C derived, not audited)"
