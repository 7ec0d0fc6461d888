#!/usr/bin/env bash
# bench/history.sh - how long `tpccbench history` takes over 1,000 and
# 10,000 run records (issue 30: under 2 s at 10,000).  The records are
# synthetic: small run.json files of one series (NOTPM 1000 +- 2 % noise,
# a 5 % step two thirds of the way, where synchronous_commit changes), so
# the time is history's own (reading, the index, the search, what changed)
# and not that of parsing 100 KB records.  For each size it prints the time
# of the first history (no index yet: every record read and the index
# built) and of the second (through the index), each the best of 3 by
# wall time with its CPU time (user + system: on a loaded machine the wall
# time is mostly waiting for a CPU), and checks the step was found at its
# run.
#
#     bench/history.sh            1000 and 10000
#     bench/history.sh 500 2000   other sizes
. "$(dirname "$0")/lib.sh"
bench_begin history

# make_records DIR N: N run folders of one series in DIR.
make_records() {
    python3 - "$1" "$2" <<'PY'
import json, os, random, sys
d, n = sys.argv[1], int(sys.argv[2])
random.seed(30)
step = n * 2 // 3
os.makedirs(d, exist_ok=True)
for i in range(n):
    t = 1767225600 + i * 86400 // 4          # 4 runs a day from 2026-01-01
    import time
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
    name = time.strftime("%Y%m%d-%H%M%S", time.gmtime(t)) + "-nightly"
    level = 1000.0 * (1.05 if i >= step else 1.0)
    notpm = level * (1 + random.gauss(0, 0.02))
    rec = {
        "tool": {"name": "tpccbench", "version": "0.1.0", "commit": "bench", "record_version": 1},
        "kind": "run", "status": "complete", "started": started, "label": "nightly", "change": "",
        "config": {"schema": {"warehouses": 1},
                   "run": {"virtual_users": 2, "duration_s": 60.0, "think_time": False,
                           "isolation": "read committed",
                           "mix": {"new_order": 10, "payment": 10, "order_status": 1,
                                   "delivery": 1, "stock_level": 1}}},
        "environment": {"kernel": "6.1", "dbms": {"name": "PostgreSQL", "version": "16.4",
                        "settings": {"synchronous_commit": "off" if i >= step else "on"}}},
        "run": {"notpm": notpm, "tps": notpm / 21.6, "mode": "procedure",
                "terminals": {"count": 2, "connections": 2},
                "transactions": {"new_order": {"p90_ms": 5.0 * (1 + random.gauss(0, 0.03))}}},
    }
    os.makedirs(os.path.join(d, name))
    with open(os.path.join(d, name, "run.json"), "w") as f:
        json.dump(rec, f)
PY
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
d = json.load(open(sys.argv[1]))
m = [m for m in d["series"][0]["metrics"] if m["metric"] == "notpm"][0]
cps = sorted(m["change_points"], key=lambda c: -abs(c["change_pct"]))
c = cps[0] if cps else None
print("%d change point(s); the largest at run %s (step at %d): %+.1f %%, changes: %s" % (
    len(cps), c["run_index"] if c else "-", int(sys.argv[2]) * 2 // 3 + 1,
    c["change_pct"] if c else 0, [x["key"] for x in c["changes"]] if c else []))' "$work/out$n.json" "$n")
    read -r fw fc <<<"$first"
    read -r iw ic <<<"$indexed"
    printf '%6d records: first (index built) %.3f s (CPU %.3f s), indexed %.3f s (CPU %.3f s); %s\n' \
        "$n" "$fw" "$fc" "$iw" "$ic" "$found"
done
