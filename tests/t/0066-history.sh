#!/bin/sh
# 0066-history.sh - `tpccbench history` over real runs: a study on the
# private PostgreSQL makes 6 short runs at synchronous_commit = on, then 6
# at off (order sequential, W=1, 3 s each).  history finds exactly one
# NOTPM change point, at the first 'off' run, and names synchronous_commit
# (on -> off) as what changed there; it leaves the study's load record out
# and says so; it builds the study folder's index (saying so), reads
# through it the next time (silent), and a record written next to them
# appends its line (still silent).  The gate: a rule the change breaks
# exits 1 naming the run, the change and synchronous_commit; a rule it does
# not break exits 0; on synthetic records with three levels, --window 1
# judges only the newest change point and --window 13 the one before it
# too.  --min-runs 7 makes the series too short to judge; --metric, --since
# and --until.  A long series of 300 copies of a real record with a step at
# run 211, where shared_buffers changes: found at that run, naming it,
# without the index and through it; the constant p90 has no change point.
# The formats: json (asserted), markdown and csv (their lines), and the
# HTML of report --history in headless Chromium: no script error, the
# script ran, a chart per figure with its 12 runs drawn and the change
# point marked.  Then the refusals of bad arguments (exit 2).  Prints TAP.
#
# The premise: at synchronous_commit on each commit waits for its WAL
# flush, at off it does not.  Alone, that step is at the mercy of the
# machine: short runs on a shared 2-core machine swing by tens of percent
# between sittings, and under a load average of 10 the CPU-starved off
# runs were no faster than on (measured while writing this test: on 5250
# to 13384, off 7249 to 15238, no change point; on a quiet machine on
# 12955 to 16019, off 42313 to 65357).  So every run has commit_delay 100 ms
# with commit_siblings 0 (set in the first step, kept in the second): at on
# each committing transaction sleeps 100 ms before its flush, so on's NOTPM
# is bound by the sleep (about 2 VUs x 10 commits/s, steady whatever the
# machine does) and off, which waits for no flush, is free of it (measured
# with 20 ms under a load average of 10: on 1822 to 2052, off 28275 to
# 52355).  Free,
# off is at the mercy of the machine again: a fresh Debian's suite beside an
# ASan suite and stress-ng --cpu 2 gave off 2747 to 21087 NOTPM, too spread
# for p < 0.01.  So both sides are bound: the terminals are offered 60
# transactions a second (run.rate, Poisson arrivals), which off carries
# (its slowest run under that load did 105 a second), and on cannot (the
# sleep is 100 ms: 2 terminals commit about 20 a second).  Off's NOTPM is
# the offered rate's, about 1560, on's the sleep's, about 500, whatever the
# machine does.  The one
# difference between run 6 and run 7 is still synchronous_commit.  With 6
# runs a side Welch's p < 0.001 needs t of about 5.4 at the few degrees of
# freedom the off side's spread gives; history runs here at --alpha 0.01
# (t about 3.5), which cannot add a second point (a segment of 6 runs has
# no split with 4 runs on each side).  The NOTPM of the 12 runs is a note.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_study t0066 chrome

study_run sync "a 2-step study with 6 runs each exits 0" <<'EOF2'
study: { name: sync, repeat: 6, order: sequential, reset: none }
workload: { warehouses: 1, virtual_users: 2, warmup: 1s, duration: 4s, rate: 60 }
steps:
  - label: sync-on
    set: { synchronous_commit: "on", commit_delay: 100000, commit_siblings: 0 }
  - label: sync-off
    set: { synchronous_commit: "off" }
EOF2

run h1 "$bin" history "$res" --format json --alpha 0.01
is "$rc" 0 "history over the results folder: exit 0" || explain
like "$err" "*'$sdir/history.idx' is missing: built from the 13 records*" \
    "the study folder's index is built, and said so"
is "$(json "$tmp/h1.out" '(len(r["series"]), r["series"][0]["n_runs"], [s["why"] for s in r["skipped"]], [x["label"] for x in r["series"][0]["runs"]] == ["sync-on"] * 6 + ["sync-off"] * 6)')" \
    "(1, 12, [\"a load's record (no run)\"], True)" \
    "one series of the 12 runs in time order, the study's load left out"
note "NOTPM: $(json "$tmp/h1.out" '[round(x["values"]["notpm"]) for x in r["series"][0]["runs"]]')"
is "$(json "$tmp/h1.out" '
[(c["run_index"], c["label"], c["runs_before"], c["runs_after"], c["p_value"] < 0.01, c["change_pct"] > 0,
  c["ci_low_pct"] <= c["change_pct"] <= c["ci_high_pct"],
  [(d["key"], d["old"], d["new"]) for d in c["changes"] if not d["derived"]])
 for m in r["series"][0]["metrics"] if m["metric"] == "notpm" for c in m["change_points"]]')" \
    "[(7, 'sync-off', 6, 6, True, True, True, [('synchronous_commit', 'on', 'off')])]" \
    "exactly one NOTPM change point, at the first off run (run 7), a gain with p < 0.01, synchronous_commit on -> off"
is "$(python3 -c '
import json, statistics as st, sys
r = json.load(open(sys.argv[1]))
runs = r["series"][0]["runs"]; c = [m for m in r["series"][0]["metrics"] if m["metric"] == "notpm"][0]["change_points"][0]
b = st.median(x["values"]["notpm"] for x in runs[:6]); a = st.median(x["values"]["notpm"] for x in runs[6:])
print(abs(c["median_before"] - b) < 1e-6 * b, abs(c["median_after"] - a) < 1e-6 * a, abs(c["change_pct"] - (a / b - 1) * 100) < 1e-6)' "$tmp/h1.out" 2>&1)" \
    "True True True" "its medians and change follow from the recorded NOTPM of the runs either side"

# The waits at the change point: the largest change of a wait's share between
# run 6 and run 7, as their records have it (or that none is beyond the
# sampling error: 2 terminals for 4 s give few samples).
python3 - "$tmp/h1.out" >"$tmp/h1waits" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["series"][0]
c = ([m for m in s["metrics"] if m["metric"] == "notpm"][0]["change_points"] or [{}])[0]
w = c.get("waits") or {}
big = w.get("largest")
if big:
    def share(i):
        bt = json.load(open(s["runs"][i]["dir"] + "/run.json"))["waits"]["by_type"]
        e = bt[big["type"]]["events"]
        return e.get(big["event"], 0) / sum(e.values())
    ok = abs(big["old_share"] - share(5)) < 1e-9 and abs(big["new_share"] - share(6)) < 1e-9 and \
        big["beyond_noise"] is True and big["event"] != "CPU"
else:
    ok = w.get("why") == "no wait's share changed beyond the sampling error"
print("\t".join(["PASS" if ok else "FAIL",
                 "the change point's waits: the largest change of a wait's share from run 6 to 7, the records' shares"]
                + ([] if ok else [json.dumps(w)])))
print("measured: %s" % json.dumps(w))
PYEOF
tap_from "$tmp/h1waits"

run h2 "$bin" history "$res" --alpha 0.01
is "$rc" 0 "history again (text): exit 0" || explain
is "$err" "" "through the index: nothing said"
like "$out" "*13 run records read, 12 in 1 series; 1 left out: 1 a load's record (no run)*" \
    "the text says what was read and what was left out"
like "$out" "*at run 7 '*-sync-off' (sync-off): notpm * -> *, +*p = *what changed: synchronous_commit: on -> off*" \
    "the text names the change point and what changed"
like "$out" "*what changed: synchronous_commit: on -> off
      waits: *" "and under it the waits' largest change"

# A record written beside the indexed ones appends its line: still fresh.
run nullrun "$bin" run --driver null --duration 1s --warmup 0s --results-dir "$sdir"
is "$rc" 0 "a null-driver run into the study folder: exit 0" || explain
is "$(tail -1 "$sdir/history.idx" | cut -f1,4)" "$(basename "$(ls -d "$sdir"/*-run | tail -1)")	ok" \
    "its record appended its line to the index"
run h3 "$bin" history "$res" --format json --alpha 0.01
is "$err" "" "history after it: the index is fresh, nothing said"
is "$(json "$tmp/h3.out" '[s["n_runs"] for s in r["series"]]')" "[12, 1]" \
    "the null run is a series of its own (another DBMS)"

# The gate.
run gate "$bin" history "$res" --label 'sync-*' --alpha 0.01 --fail-if 'notpm > +0%'
is "$rc" 1 "--fail-if 'notpm > +0%': the change breaks it, exit 1" || explain
like "$err" "*--fail-if 'notpm > +0%' tripped: series 1 (run, W=1, *): change point at run 7 '*-sync-off' (sync-off): notpm * -> *what changed there: synchronous_commit: on -> off*" \
    "the message names the run, the change and what changed"
run gate2 "$bin" history "$res" --label 'sync-*' --alpha 0.01 --fail-if 'notpm < -3%'
is "$rc" 0 "--fail-if 'notpm < -3%': a gain does not break it, exit 0" || explain
like "$err" "*'notpm < -3%': no significant change point in effect over the newest 1 run of any series breaks it*" \
    "and it says so"
run short "$bin" history "$res" --label 'sync-*' --min-runs 7
like "$out" "*notpm: too short to judge: 12 runs, needs at least 14 (7 on each side of a change, --min-runs)*" \
    "--min-runs 7: too short to judge, not 'no change'"
run md "$bin" history "$res" --label 'sync-*' --alpha 0.01 --format markdown
like "$out" "*## Series 1: run, W=1*| 7 ◆ | *-sync-off |*- at run 7*  - what changed: synchronous_commit: on -> off*" \
    "markdown: the table marks run 7 and lists the change point"
run csv "$bin" history "$res" --label 'sync-*' --alpha 0.01 --format csv
is "$(printf '%s\n' "$out" | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["metric"] == "notpm"]
print([(r["state"], r["runs"], r["run_index"], r["label"], r["what_changed"]) for r in rows])')" \
    "[('changed', '12', '7', 'sync-off', 'synchronous_commit: on -> off')]" "csv: the NOTPM change point row"

run met "$bin" history "$res" --label 'sync-*' --alpha 0.01 --metric run.tps --format json
is "$(json "$tmp/met.out" '[(m["metric"], [c["run_index"] for c in m["change_points"]]) for m in r["series"][0]["metrics"] if m["metric"] in ("tps", "run.tps")]')" \
    "[('tps', [7]), ('run.tps', [7])]" "--metric run.tps: judged as TPS is, the same change point"
today=$(date -u +%Y-%m-%d)
run since "$bin" history "$res" --label 'sync-*' --since "$today" --until "${today}T23:59:59Z" --format json
is "$(json "$tmp/since.out" 'r["series"][0]["n_runs"]')" "12" "--since/--until today: all 12 runs"
run until "$bin" history "$res" --until 2000-01-01
is "$rc" 2 "--until 2000-01-01: no run is that old, exit 2"
like "$err" "*13 outside --label/--since/--until*" "and it says why"

# The window, on synthetic records with known levels: 12 runs at 1000, 12
# at 900 (tool.commit b), 12 at 950 (commit c), noise 0.5 %.  Window 1: the
# newest change point (+5.6 %) is judged and 'notpm < -3%' holds; window
# 13 reaches the drop (-10 %) at run 13 too, and it trips.
python3 - "$tmp/syn" <<'EOF2'
import json, os, random, sys
random.seed(66)
for i in range(36):
    lvl, commit = (1000, "a") if i < 12 else (900, "b") if i < 24 else (950, "c")
    name = "20260101-%02d0000-nightly" % i if i < 24 else "20260102-%02d0000-nightly" % (i - 24)
    started = "2026-01-01T%02d:00:00Z" % i if i < 24 else "2026-01-02T%02d:00:00Z" % (i - 24)
    notpm = lvl * (1 + random.gauss(0, 0.005))
    rec = {"tool": {"name": "tpccbench", "version": "0.1.0", "commit": commit, "record_version": 1},
           "kind": "run", "status": "complete", "started": started, "label": "nightly",
           "config": {"schema": {"warehouses": 1}, "run": {"duration_s": 60.0}},
           "environment": {"dbms": {"name": "PostgreSQL"}},
           "run": {"notpm": notpm, "tps": notpm / 21.6}}
    os.makedirs(os.path.join(sys.argv[1], name))
    json.dump(rec, open(os.path.join(sys.argv[1], name, "run.json"), "w"))
EOF2
run w1 "$bin" history "$tmp/syn" --fail-if 'notpm < -3%'
is "$rc" 0 "synthetic: window 1, the newest change point is a gain: exit 0" || explain
like "$out" "*at run 13 '20260101-120000-nightly' (nightly): notpm * -> *, -10.? %*tool.commit: a -> b*at run 25 '20260102-000000-nightly' (nightly): notpm * -> *, +5.*tool.commit: b -> c*" \
    "both change points found, each with its commit"
run w13 "$bin" history "$tmp/syn" --fail-if 'notpm < -3%' --window 13
is "$rc" 1 "window 13 reaches the drop at run 13: exit 1" || explain
like "$err" "*tripped: series 1 (*): change point at run 13 '20260101-120000-nightly' (nightly): notpm * -> *, -10.? %*what changed there: tool.commit: a -> b*" \
    "the message names run 13 and the commit"

# A step inside a long series of real records: 300 copies of the first
# sync-on run's record (histograms, settings, metrics and all), NOTPM 2 %
# noise (uniform, so the levels either side stay apart), -8 % from run 211
# on, where shared_buffers changes; New-Order p90, the same in every
# copy, have no spread and so no change point.  history reads them whole the
# first time (no index) and finds the step at run 211, the first run of the
# new setting, naming shared_buffers; then again through the index.
first_on=$(ls -d "$sdir"/*-sync-on | head -1)
python3 - "$first_on/run.json" "$tmp/long" <<'EOF2'
import json, os, random, sys
doc = json.load(open(sys.argv[1]))
base = doc["run"]["notpm"]
random.seed(37)
for i in range(300):
    doc["started"] = "2025-%02d-%02dT02:00:00Z" % (1 + i // 28, 1 + i % 28)
    doc["label"] = "nightly"
    doc["run"]["notpm"] = base * (0.92 if i >= 210 else 1) * (1 + random.uniform(-0.02, 0.02))
    doc["environment"]["dbms"]["settings"]["shared_buffers"] = "1GB" if i >= 210 else "128MB"
    d = os.path.join(sys.argv[2], "r%03d-nightly" % i)
    os.makedirs(d)
    json.dump(doc, open(os.path.join(d, "run.json"), "w"), indent=2)
EOF2
for pass in noindex index; do
    run "long$pass" "$bin" history "$tmp/long" --format json
    is "$(json "$tmp/long$pass.out" '[(m["metric"], [(c["run_index"], c["runs_before"], [(d["key"], d["old"], d["new"]) for d in c["changes"] if not d["derived"]]) for c in m["change_points"]]) for m in r["series"][0]["metrics"] if m["metric"] in ("notpm", "p90.new_order")]')" \
        "[('notpm', [(211, 210, [('shared_buffers', '128MB', '1GB')])]), ('p90.new_order', [])]" \
        "300 real records ($pass): the step at run 211, its first run, names shared_buffers; the constant p90 has none"
done

# report --history in a real browser.
html=$tmp/history.html
run rep "$bin" report --history "$res" --label 'sync-*' --alpha 0.01 -o "$html"
is "$rc" 0 "report --history: exit 0" || explain
is "$(grep -c -E '(src|href)="(https?:)?//' "$html")" "0" "the page loads nothing from elsewhere"
chrome_need "the page"
chrome_dom "$html"
is "$(python3 - "$tmp/dom.out" <<'EOF2'
import re, sys
dom = open(sys.argv[1]).read()
body = dict(re.findall(r'([\w-]+)="([^"]*)"', re.search(r"<body([^>]*)>", dom).group(1)))
charts = {}
for m in re.finditer(r"<svg ([^>]*)>", dom):
    a = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))
    if "chart" in a.get("class", ""):
        charts[a["data-chart"]] = (a.get("data-drawn"), a.get("data-changes"))
cp = re.search(r'<svg class="chart" data-chart="s1-notpm".*?</svg>', dom, re.S).group(0)
print(body.get("data-ready"), body.get("data-charts"), charts.get("s1-notpm"), charts.get("s1-tps")[0],
      charts.get("s1-p90.new_order")[0], re.findall(r'<line class="cp" data-run="(\d+)"', cp),
      "synchronous_commit: on -&gt; off" in dom)
EOF2
)" "1 3 ('12', '1') 12 12 ['7'] True" \
    "the script ran; 3 charts (NOTPM, TPS, New-Order p90; no load times) of 12 runs each, NOTPM's change point at run 7, what changed"

# Refusals.
mkdir -p "$tmp/empty"
bad_args history "tpccbench history: " <<EOF2
$res --alpha 2|--alpha '2': must be a p-value above 0 and at most 0.5, e.g. 0.001
$res --min-runs 1|--min-runs '1': must be a whole number of runs from 2 to 100000
$res --min-runs 2.5|--min-runs '2.5': must be a whole number of runs
$res --window 0|--window '0': must be a whole number of runs from 1 to 100000
$res --min-change lots|--min-change 'lots': must be a percentage from 0 to 1000, e.g. 2 or 2%
$res --since 2026-13|--since '2026-13': must be a UTC date or time: 2026-01-31, 2026-01-31T08, 2026-01-31T08:00, 2026-01-31T08:00:00 or 2026-01-31T08:00:00Z
$res --format pdf|--format 'pdf': unknown format (text, markdown, csv, json or html)
$tmp/none|'$tmp/none': no such file or folder (give run folders, run.json files or folders of them)
$tmp/empty|'$tmp/empty' holds no run folders (folders with a run.json), at any depth
$res --label nothing-*|no usable run records: 14 read; 1 a load's record (no run); 13 outside --label/--since/--until (history reads the records of complete runs and benches)
EOF2
run badrule "$bin" history "$res" --fail-if 'notpm < 3%'
is "$rc" 2 "--fail-if without a sign: exit 2"
like "$err" "tpccbench history: --fail-if 'notpm < 3%': column 9: expected a sign*" "compare's rule message"
note "took $(($(date +%s) - t_start)) s"
done_testing
