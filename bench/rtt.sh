#!/bin/bash
# bench/rtt.sh - the stretched-cluster study on this machine: W=2, 8 VUs,
# DURATION (default 60s) per point at RTT 0, 0.3, 0.6 and 6.5 ms, through
# `tpccbench sweep` on a private PostgreSQL.  Prints the sweep's table
# (compare with the study: ~100 %, 98-99 %, 85-95 % of co-located).
# Not part of `make test`.  Environment: W (2), VUS (8), DURATION (60s), MODE.
. "$(dirname "$0")/lib.sh"
bench_begin benchrtt
./tpccbench sweep "${common[@]}" \
    --warehouses "${W:-2}" --rtt 0,0.3ms,0.6ms,6.5ms --vus "${VUS:-8}" \
    --warmup 10s --duration "${DURATION:-60s}" ${MODE:+--mode "$MODE"} 2>"$work/err" |
    sed -n '/^sweep/,$p'
