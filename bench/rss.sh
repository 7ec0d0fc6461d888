#!/bin/bash
# bench/rss.sh - does tpccbench's memory stay flat during a long run?  On the
# private PostgreSQL: W=4 (loaded once), then one run of DURATION (10m) with
# VUS (32) virtual users, sampling the tpccbench process's resident set
# (VmRSS of /proc/PID/status) every INTERVAL (5) seconds.  Prints the series
# (seconds since start, KiB), then the RSS at the end of the warm-up (the
# first WARMUP_S = 60 seconds), at the end and its maximum, and the growth
# after the warm-up in KiB.  Memory is fixed-size by design (per-VU stats and
# histograms, a bounded delivery queue), so the growth should stay within
# LIMIT_KIB (1024); the script exits 1 when it does not.
# Not part of `make test`.  Environment: W (4), VUS (32), DURATION (10m),
# INTERVAL (5), WARMUP_S (60), LIMIT_KIB (1024).
. "$(dirname "$0")/lib.sh"
W=${W:-4}
VUS=${VUS:-32}
DURATION=${DURATION:-10m}
INTERVAL=${INTERVAL:-5}
WARMUP_S=${WARMUP_S:-60}
LIMIT_KIB=${LIMIT_KIB:-1024}
run_pid=
stop_run() {
    [ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null || true
}
# The server is kept running between load and run (--keep-server); bench_cleanup stops it.
bench_begin benchrss
bench_extra_cleanup=stop_run
bench_load "$W"

# The run in the background: $! is tpccbench itself, whose RSS is sampled.
./tpccbench run "${common[@]}" --keep-server --vus "$VUS" --warmup 10s --duration "$DURATION" \
    --label rss >"$work/run.out" 2>&1 &
run_pid=$!
t0=$SECONDS
: >"$work/rss"
while kill -0 "$run_pid" 2>/dev/null; do
    kib=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$run_pid/status" 2>/dev/null || true)
    # Empty once the process is a zombie (exited, not yet reaped).
    [ -n "$kib" ] && echo "$((SECONDS - t0)) $kib" >>"$work/rss"
    sleep "$INTERVAL"
done
rc=0
wait "$run_pid" || rc=$?
run_pid=
if [ "$rc" != 0 ]; then
    echo "bench/rss.sh: tpccbench run failed (exit $rc):" >&2
    tail -n 20 "$work/run.out" >&2
    exit 1
fi
grep -E '^run: |^  NOTPM |^  TPS |driver CPU' "$work/run.out" | sed 's/^ */# /'

echo "# VmRSS of tpccbench run, W=$W, $VUS VUs, $DURATION measured, sample every $INTERVAL s"
printf '%6s %10s\n' s KiB
awk '{ printf "%6d %10d\n", $1, $2 }' "$work/rss"
awk -v warm="$WARMUP_S" -v limit="$LIMIT_KIB" '
    { t[NR] = $1; k[NR] = $2 }
    END {
        for (i = 1; i <= NR && t[i] < warm; i++) ;
        if (i > NR) { print "too few samples after the warm-up"; exit 1 }
        base = k[i]; max = base
        for (j = i; j <= NR; j++) if (k[j] > max) max = k[j]
        printf "RSS after warm-up (%d s): %d KiB, at the end (%d s): %d KiB, max after warm-up: %d KiB\n",
            t[i], base, t[NR], k[NR], max
        printf "growth after warm-up: %d KiB at the end, %d KiB at the max (limit %d KiB)\n",
            k[NR] - base, max - base, limit
        exit (max - base > limit) ? 1 : 0
    }' "$work/rss"
