#!/bin/sh
# 0041-bench-iobench.sh - `bench --iobench "..."` measures the disk of the
# data directory (here a private PostgreSQL's cluster) before the step and
# keeps the result in run.json; the test file is removed afterwards.
# Prints TAP; the server and temp files go on exit.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_private t0041 pg

timeout -k 5 180 "$bin" bench --results-dir "$tmp/results" --datadir "$tmp/pg" --warehouses 1 \
    --label io --duration 2s --warmup 1s --vus 2 --iobench "-i SW,RR -s 4M -b 4K" \
    >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "bench --iobench exits 0" || diag "$(tail -20 "$tmp/err")"
like "$(cat "$tmp/out")" "*Target*$tmp/pg/tpccbench-iobench.tmp*" "the target is in the data directory"
rec=$(ls -d "$tmp"/results/*-io | head -1)/run.json
is "$(json "$rec" "r['status']")" "complete" "the step's record is complete"
is "$(json "$rec" "[t['type'] for t in r['iobench']['tests']]")" "['SW', 'RR']" \
    "run.json holds the SW and RR results"
is "$(json "$rec" "[t['bytes'] for t in r['iobench']['tests']]")" "[4194304, 4194304]" \
    "each test moved exactly -s bytes"
is "$(json "$rec" "r['iobench']['target']['removed']")" "True" "the test file was removed"
is "$(ls "$tmp/pg" | grep -c iobench)" "0" "no test file left in the data directory"
"$bin" bench --results-dir "$tmp/results" --datadir "$tmp/pg" --label bad --iobench "-T 0" \
    >/dev/null 2>"$tmp/err2"
is "$?" 2 "a bad --iobench option is refused with exit 2"
like "$(cat "$tmp/err2")" "*--iobench*" "the message names --iobench"
done_testing
