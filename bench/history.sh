#!/usr/bin/env bash
# bench/history.sh - how long `tpccbench history` takes over 1,000 and
# 10,000 real run records (issue 37: at most 2 s through the index and 20 s
# without, at 10,000).  The records are copies of one real run.json (about
# 220 KB: histograms, settings, metrics), made by a 60 s bench on a private
# server unless --record names one, each with its start time, NOTPM and TPS
# changed: a nightly series with 2 % noise, an 8 % drop at 70 % of the way
# where shared_buffers changes and a 6 % rise at 90 % where the kernel
# changes; load time and New-Order p90 are the same in every record.  For
# each size it prints the time of the first history (no index: every record
# read and the index built) and of the second (through the index), each the
# best of 3 by wall time with its CPU time (user + system: on a loaded
# machine the wall time is mostly waiting for a CPU), and checks the two
# change points at their runs naming shared_buffers and kernel, and none in
# the constant figures.
#
#     bench/history.sh                       1000 and 10000, a record made here
#     bench/history.sh --record R/run.json 500 2000
. "$(dirname "$0")/lib.sh"
bench_begin history

record=
if [ "${1:-}" = --record ]; then
    record=$2
    shift 2
fi
if [ -z "$record" ]; then
    ./tpccbench bench "${common[@]}" --warehouses 1 --vus 4 --duration 60s --label real \
        >"$work/bench.out" 2>&1 || { cat "$work/bench.out"; exit 1; }
    record=$(ls "$work"/results/*-real/run.json)
fi
echo "records made from $record ($(wc -c <"$record") bytes)"

# make_records DIR N: N copies of $record in DIR, one series (see above).
make_records() {
    python3 - "$record" "$1" "$2" <<'PY2'
import json, os, random, re, sys, time
tmpl, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = json.load(open(tmpl))
base, ratio = doc["run"]["notpm"], doc["run"]["tps"] / doc["run"]["notpm"]
doc["label"] = "nightly"
for path, mark in ((("started",), "STARTED"), (("ended",), "ENDED"), (("run", "notpm"), "NOTPM"),
                   (("run", "tps"), "TPS"), (("environment", "dbms", "settings", "shared_buffers"), "SB"),
                   (("environment", "kernel"), "KERNEL")):
    o = doc
    for k in path[:-1]:
        o = o[k]
    o[path[-1]] = "@@%s@@" % mark
pieces = re.split(r'"@@([A-Z]+)@@"', json.dumps(doc, indent=2))
random.seed(37)
drop, rise = n * 7 // 10, n * 9 // 10
os.makedirs(d, exist_ok=True)
for i in range(n):
    t = 946684800 + i * 86400  # one a night from 2000-01-01
    notpm = base * (0.92 if i >= drop else 1) * (1.06 if i >= rise else 1) * (1 + random.gauss(0, 0.02))
    val = {"STARTED": time.strftime('"%Y-%m-%dT%H:%M:%SZ"', time.gmtime(t)),
           "ENDED": time.strftime('"%Y-%m-%dT%H:%M:%SZ"', time.gmtime(t + 90)),
           "NOTPM": repr(notpm), "TPS": repr(notpm * ratio),
           "SB": '"1GB"' if i >= drop else '"256MB"', "KERNEL": '"6.19.2"' if i >= rise else '"6.18.44"'}
    name = time.strftime("%Y%m%d-%H%M%S", time.gmtime(t)) + "-nightly"
    os.makedirs(os.path.join(d, name))
    with open(os.path.join(d, name, "run.json"), "w") as f:
        f.write("".join(p if k % 2 == 0 else val[p] for k, p in enumerate(pieces)))
PY2
}

# timed CMD...: "WALL CPU" seconds of one run of CMD (CPU: user + system), its output dropped.
timed() {
    local TIMEFORMAT='%R %U %S'
    { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{printf "%.3f %.3f\n", $1, $2 + $3}'
}

# best3 CMD...: the least wall time of 3 runs of CMD with its CPU time ("WALL CPU").
best3() {
    for _i in 1 2 3; do timed "$@"; done | sort -n | head -1
}

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)
for n in "${sizes[@]}"; do
    d=$work/r$n
    make_records "$d" "$n"
    first=$(for _i in 1 2 3; do # the first history, no index: three times from none
        rm -f "$d/history.idx"
        timed ./tpccbench history "$d" --format json
    done | sort -n | head -1)
    rm -f "$d/history.idx"
    ./tpccbench history "$d" --format json >"$work/out$n.json" 2>"$work/err$n"
    grep -q 'is missing: built from' "$work/err$n" || { echo "history did not say it built the index"; exit 1; }
    indexed=$(best3 ./tpccbench history "$d" --format json)
    found=$(python3 -c '
import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
ms = {m["metric"]: m for m in d["series"][0]["metrics"]}
cps = [(c["run_index"], [x["key"] for x in c["changes"] if not x["derived"]]) for c in ms["notpm"]["change_points"]]
want = [(n * 7 // 10 + 1, ["shared_buffers"]), (n * 9 // 10 + 1, ["kernel"])]
flat = [(k, len(ms[k]["change_points"])) for k in ("load_time", "p90.new_order")]
print("notpm change points %s (%s), constant figures %s (%s)" % (cps, "right" if cps == want else "WRONG: want %s" % want,
      flat, "right" if all(c == 0 for _, c in flat) else "WRONG"))' "$work/out$n.json" "$n")
    read -r fw fc <<<"$first"
    read -r iw ic <<<"$indexed"
    printf '%6d records: first (index built) %.3f s (CPU %.3f s), indexed %.3f s (CPU %.3f s); %s\n' \
        "$n" "$fw" "$fc" "$iw" "$ic" "$found"
done
