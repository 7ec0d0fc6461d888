#!/bin/bash
# bench/metrics-load.sh - what the live endpoint costs a load, on the private
# PostgreSQL: the same `load --drop` (W warehouses, JOBS jobs) without the
# endpoint and with it scraped every second, REPEAT times in alternating
# order.  Prints the load's seconds (total and copy), its rows per second,
# the scrapes answered, and tpccbench's CPU seconds (user + system, from
# /proc: the loader's row generation dominates).  Not part of `make test`.
# Environment: W (2), JOBS (2), REPEAT (1), PORT (19188).
. "$(dirname "$0")/lib.sh"
W=${W:-2}
JOBS=${JOBS:-2}
REPEAT=${REPEAT:-1}
PORT=${PORT:-19188}
bench_begin benchmload
common+=(--keep-server)
# A first load starts the private server and warms the page cache.
./tpccbench load "${common[@]}" --warehouses "$W" --jobs "$JOBS" --label warm >"$work/warm.out" 2>&1
printf '%-10s %9s %9s %12s %8s %14s\n' variant "load s" "copy s" "rows/s" scrapes "CPU s (u+s)"
orders=("off endpoint" "endpoint off")
for i in $(seq "$REPEAT"); do
    for variant in ${orders[$(((i - 1) % 2))]}; do
        args=()
        : >"$work/scrapes"
        if [ "$variant" = endpoint ]; then
            args=(--metrics-listen "127.0.0.1:$PORT")
            bench_scrape_start "$PORT"
        fi
        # CPU of the tpccbench process itself, from its own /proc/PID/stat at exit.
        ./tpccbench load "${common[@]}" --warehouses "$W" --jobs "$JOBS" --drop --label "$variant" \
            "${args[@]}" >"$work/load.out" 2>&1 &
        pid=$!
        cpu=0
        while kill -0 "$pid" 2>/dev/null; do
            c=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || true)
            [ -z "$c" ] || cpu=$c
            sleep 0.2
        done
        wait "$pid"
        bench_scrape_stop
        rec=$(ls -t "$work"/results/*/run.json | head -1)
        python3 - "$rec" "$variant" "$(wc -l <"$work/scrapes")" "$cpu" "$(getconf CLK_TCK)" <<'EOP'
import json, sys
l = json.load(open(sys.argv[1]))["load"]
print("%-10s %9.2f %9.2f %12.0f %8s %14.2f" % (sys.argv[2], l["seconds"], l["phases"]["copy"],
      l["total_rows"] / l["phases"]["copy"], sys.argv[3], float(sys.argv[4]) / float(sys.argv[5])))
EOP
    done
done
echo "(CPU s: sampled every 0.2 s until the process ends, so the last 0.2 s may be missing)"
