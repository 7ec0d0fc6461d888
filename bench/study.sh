#!/bin/sh
# study.sh - what a study adds per run over the runs themselves: a 2-step
# study (baseline, synchronous_commit off) x 2 repeats at W=4 with reset
# template on the private PostgreSQL.  Overhead per run = (the study's wall
# time - its initial load - runs x (warmup + duration)) / runs: settings,
# reloads, the template copy, server connects, fingerprints, records; then
# the phases from study.log (copy, settings, each run's own overhead).
# DURATION (default 10s) and WAREHOUSES (4) may be set.  Prints figures.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TPCC_BIN:-$root/tpccbench}
d=${DURATION:-10s}
w=${WAREHOUSES:-4}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpcc-bench-study.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/s.yaml" <<EOF2
study: { name: bench, repeat: 2, order: interleaved, reset: template }
workload: { warehouses: $w, virtual_users: 4, warmup: 1s, duration: $d }
steps:
  - label: baseline
  - label: sync-off
    set: { synchronous_commit: "off" }
EOF2
t0=$(date +%s.%N)
"$bin" study "$tmp/s.yaml" --results-dir "$tmp/r" >"$tmp/out" 2>"$tmp/err" || { tail "$tmp/err"; exit 1; }
t1=$(date +%s.%N)
python3 - "$tmp" "$t0" "$t1" "$w" <<'EOF2'
import json, glob, sys, re
tmp, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
s = json.load(open(glob.glob(tmp + "/r/*-study-bench/study.json")[0]))
load = json.load(open(glob.glob(tmp + "/r/*-study-bench/*-study-load/run.json")[0]))["load"]["seconds"]
runs = len(s["runs"])
cfg = json.load(open(s["runs"][0]["dir"] + "/run.json"))["config"]["run"]
def secs(v):
    if isinstance(v, (int, float)): return float(v)
    m = re.match(r"([\d.]+)(ms|s|m|h)?$", str(v)); x = float(m.group(1))
    return x * {"ms": 1e-3, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]
per = float(cfg["warmup_s"]) + float(cfg["duration_s"])
wall = t1 - t0
over = (wall - load - runs * per) / runs
print("study W=%s: wall %.1f s, initial load %.1f s, %d runs x %.1f s measured+warmup" % (sys.argv[4] if len(sys.argv) > 4 else "4", wall, load, runs, per))
print("overhead per run: %.2f s (server start/stop, settings, template copy, records, check-free runs)" % over)
# Where it goes, from the phase times study.log gives (a build that logs them).
log = open(glob.glob(tmp + "/r/*-study-bench/study.log")[0]).read()
def times(pat): return [float(x) for x in re.findall(pat, log)]
copy = times(r"database \S+ copied from \S+ in ([\d.]+) s")
ren = times(r"renamed to \S+ in ([\d.]+) s")
sets = times(r"settings in ([\d.]+) s")
run = times(r"run \d+: complete in ([\d.]+) s")
def mean(v): return sum(v) / len(v) if v else float("nan")
if run:
    print("per run: copy %.2f s, settings %.2f s, the run over its warmup+duration %.2f s; "
          "once: template %.2f s (%s)" % (mean(copy[-runs:]), mean(sets), mean(run) - per,
          (ren or copy[:1] or [float("nan")])[0], "rename" if ren else "copy"))
EOF2
