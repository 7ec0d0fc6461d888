#!/bin/bash
# bench/modes.sh - the three execution modes side by side on the private
# PostgreSQL: W=4 (loaded once), VUs 4 and 8, DURATION each (default 60s);
# then 8 VUs through `tpccbench proxy` at 6.5 ms RTT (3.25 ms each way).
# Prints NOTPM, TPS, New-Order p90, round trips per New-Order, and the
# driver's CPU per 1000 transactions; at 6.5 ms also TPS against the
# one-round-trip bound (VUs / RTT).  Not part of `make test`.
# Environment: W (4), VUS ("4 8"), DURATION (60s), RTT_VUS (8).
. "$(dirname "$0")/lib.sh"
W=${W:-4}
VUS=${VUS:-4 8}
DURATION=${DURATION:-60s}
RTT_VUS=${RTT_VUS:-8}
port=$((20000 + RANDOM % 20000))
pport=$((port + 1))
proxy_pid=
stop_proxy() {
    [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
}
bench_begin benchmodes
bench_extra_cleanup=stop_proxy
# The private server on a TCP port too, so the proxy can stand in front of it.
cat >"$work/managed.yaml" <<EOY
database: {driver: postgres, managed: true, datadir: $work/pgdata, port: $port, keep_server: true}
results: {dir: $work/results}
EOY
./tpccbench load -c "$work/managed.yaml" --warehouses "$W" --jobs 2 >"$work/load.out" 2>&1
cat >"$work/direct.yaml" <<EOY
database: {driver: postgres, managed: false, conninfo: "host=127.0.0.1 port=$port dbname=tpcc user=tpcc"}
results: {dir: $work/results}
EOY
cat >"$work/far.yaml" <<EOY
database: {driver: postgres, managed: false, conninfo: "host=127.0.0.1 port=$pport dbname=tpcc user=tpcc"}
results: {dir: $work/results}
EOY
report() { # record, label, vus, rtt_ms
    python3 - "$1" "$2" "$3" "$4" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))["run"]
vus, rtt = int(sys.argv[3]), float(sys.argv[4])
no = r["transactions"]["new_order"]
bound = ""
if rtt > 0:
    b = vus / (rtt / 1000.0)
    bound = "%5.0f %5.2f" % (b, r["tps"] / b)
print("%-10s %4d %6.1f %9.0f %9.1f %9.2f %8.1f %10.1f %s" % (sys.argv[2], vus, rtt, r["notpm"],
      r["tps"], no["p90_ms"], no["round_trips_per_tx"], r["driver_cpu_ms_per_1000_tx"], bound))
EOP
}
printf '%-10s %4s %6s %9s %9s %9s %8s %10s %s\n' mode VUs RTTms NOTPM TPS "NO p90" "RT/NO" "CPUms/ktx" "bound ratio"
for v in $VUS; do
    for m in client pipeline procedure; do
        ./tpccbench run -c "$work/direct.yaml" --mode "$m" --vus "$v" --warmup 10s \
            --duration "$DURATION" --label "$m-$v" >"$work/run.out" 2>&1
        report "$(ls -t "$work"/results/*/run.json | head -1)" "$m" "$v" 0
    done
done
./tpccbench proxy --listen "127.0.0.1:$pport" --to "127.0.0.1:$port" --delay 3.25ms \
    >"$work/proxy.out" 2>&1 &
proxy_pid=$!
sleep 1
for m in client pipeline procedure; do
    ./tpccbench run -c "$work/far.yaml" --mode "$m" --vus "$RTT_VUS" --warmup 10s \
        --duration "$DURATION" --label "far-$m" >"$work/run.out" 2>&1
    rec=$(ls -t "$work"/results/*/run.json | head -1)
    rtt=$(python3 -c "import json; print(json.load(open('$rec'))['run']['rtt_median_ms'])")
    report "$rec" "$m" "$RTT_VUS" "$rtt"
done
echo "(NOTPM: TPC-C derived, not audited; bound = VUs / RTT, one transaction per round trip)"
