#!/bin/sh
# 0061-report.sh - `tpccbench report` rendered by a real browser.
#
# Four synthetic run records with known figures (a baseline run twice, then
# shared_buffers, then synchronous_commit = off; each with a series.csv) go
# into one report.  Checked: the file is written atomically and needs no
# network (no URL, no external script, style, font or image); headless
# Chromium loads it without a script error, its script ran (body
# data-ready="1"), and every chart is drawn with the expected number of
# series (bars: one per step; lines over time: one per run; latency: one per
# step); the step table shows the study's gain (load 50 s -> 4.5 s is
# +1011.1 %) and what changed names each step's setting.  The last run's
# record also has what a run keeps second by second (waits per second by
# class and type, a checkpoint, an autovacuum, a stall, an outage, New-Order's
# latency bands): its panel draws each mark at its window seconds (a
# checkpoint under way past the window not at all), the waits of all types
# with the per-type groups hidden (#waits=payment in the address, what a
# click does, shows Payment's alone), and a heatmap cell per second and band
# with New-Orders.  It also prints to PDF.  A truncated series.csv makes report exit 2 naming the file.
# Set TPCC_REPORT_SHOT=FILE.png to keep the screenshot.  Prints TAP; the temp
# directory goes on exit.  About 5 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0061 chrome
t_copy_bin

# Four records: baseline twice (repeats), shared_buffers, synchronous_commit.
python3 - "$tmp/results" <<'EOF'
import json, math, os, sys

out = sys.argv[1]
TYPES = ["new_order", "payment", "order_status", "delivery", "stock_level"]
steps = [
    # label, folder, change, load s, tps, settings
    ("baseline", "20260101-100000-baseline", "defaults", 49.0, 800.0, {}),
    ("baseline", "20260101-100100-baseline", "defaults", 51.0, 820.0, {}),
    ("shared-buffers", "20260101-100200-shared-buffers", "shared_buffers = 1GB", 4.5, 1100.0,
     {"shared_buffers": "1GB", "wal_buffers": "16MB"}),
    ("sync-off", "20260101-100300-sync-off", "synchronous_commit = off", 4.4, 1650.0,
     {"shared_buffers": "1GB", "wal_buffers": "16MB", "synchronous_commit": "off"}),
]
for i, (label, folder, change, load_s, tps, changed) in enumerate(steps):
    settings = {"shared_buffers": "128MB", "wal_buffers": "4MB", "synchronous_commit": "on",
                "work_mem": "4MB", "fsync": "on"}
    settings.update(changed)
    source = {k: "default" for k in settings}
    source.update({k: "configuration file" for k in changed if k != "wal_buffers"})
    scale = 800.0 / tps
    tx = {}
    for j, t in enumerate(TYPES):
        base = [0.8, 1.6, 2.0, 3.5, 6.0]
        tx[t] = {"count": 1000, "p50_ms": base[0] * scale * (1 + j / 5),
                 "p90_ms": base[1] * scale * (1 + j / 5), "p95_ms": base[2] * scale * (1 + j / 5),
                 "p99_ms": base[3] * scale * (1 + j / 5), "p99_9_ms": base[4] * scale * (1 + j / 5)}
    rec = {
        "tool": {"name": "tpccbench", "version": "0.1.0", "commit": "abc1234", "record_version": 1},
        "kind": "bench", "status": "complete", "started": "2026-01-01T10:0%d:00Z" % i,
        "label": label, "change": change,
        "config": {"file": "", "schema": {"warehouses": 1},
                   "run": {"virtual_users": 4, "duration_s": 20.0, "isolation": "read committed",
                           "mix": {"new_order": 45, "payment": 43, "order_status": 4,
                                   "delivery": 4, "stock_level": 4}},
                   "results": {"dir": out}},
        "environment": {"kernel": "6.1.0", "hostname": "db1", "cpu_model": "Test CPU",
                        "cpu_count": 8, "memory_kb": 16 * 1048576, "os": "Debian 12",
                        "config_hash": "fnv1a64:00000000000000%02d" % i,
                        "sysctl": {"vm.swappiness": "60", "vm.dirty_ratio": "20"},
                        "transparent_hugepage": {"enabled": "madvise", "defrag": "madvise"},
                        "dbms": {"name": "PostgreSQL", "version": "15.18", "local": True,
                                 "connection": "unix socket", "settings": settings,
                                 "settings_source": source},
                        "storage": {"data_directory": "/srv/pg", "fstype": "ext4",
                                    "mount_options": "rw,noatime", "disk": "sda",
                                    "scheduler": "mq-deadline", "rotational": "0"}},
        "load": {"seconds": load_s, "phase_reached": "done"},
        "run": {"notpm": tps * 0.45 * 60, "tps": tps, "transactions": tx,
                "validity": {"valid": True}},
    }
    if label == "sync-off":
        # What a run records second by second (issue 41): seconds 1-2 warm-up,
        # 3-22 measured.  Waits per second (all, and per type), a checkpoint
        # at seconds 7.5-9.2 and one still under way from 20.5, an
        # autovacuum of stock at 12-13, a stall at 15-16, an outage at 18,
        # New-Order's latency bands per second.
        secs = list(range(1, 24))
        row = lambda k: [round(k * x, 3) for x in (1.0, 0.2, 0.5, 0.3, 0.4, 0.05, 0.01)]
        rec["waits"] = {"available": True, "rate_hz": 10, "per_second": {
            "classes": ["cpu", "client", "lock", "lwlock", "io", "ipc", "other"],
            "second": secs, "samples": [10] * len(secs),
            "all": [row(2 + (s % 3)) for s in secs],
            "by_type": {t: [row(1 + j * 0.1) if s != 5 else None for s in secs]
                        for j, t in enumerate(TYPES)}}}
        rec["events"] = {"available": True, "sampled_at_hz": 10, "list": [
            {"kind": "checkpoint", "start_s": 9.5, "end_s": 11.2, "start_from": "pg_stat_activity",
             "end_from": "pg_control_checkpoint"},
            {"kind": "autovacuum", "table": "stock", "what": "VACUUM", "start_s": 14.0,
             "end_s": 15.0, "start_from": "pg_stat_activity", "end_from": "pg_stat_activity"},
            {"kind": "checkpoint", "start_s": 22.5, "end_s": None, "start_from": "pg_stat_activity",
             "end_from": "still under way at the run's end"}]}
        rec["run"]["stalls"] = [{"from_s": 17, "to_s": 18, "seconds": 2}]
        rec["run"]["outage"] = {"windows": [{"from_second": 20, "to_second": 20}]}
        rec["run"]["new_order_heatmap"] = {
            "upper_ms": [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, None],
            "second": secs,
            "counts": [[0, 0, 5, 30 + s, 10, 2, 0, 0, 0, 0, 0, 0, 0, 1 if s == 12 else 0]
                       for s in secs]}
    d = os.path.join(out, folder)
    os.makedirs(d)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump(rec, f, indent=2)
    with open(os.path.join(d, "series.csv"), "w") as f:
        f.write("second,phase,new_order_tps,payment_tps,order_status_tps,delivery_tps,"
                "stock_level_tps,total_tps,new_order_p50_ms,new_order_p90_ms,new_order_p99_ms,"
                "all_p99_ms,errors,vus_in_tx\n")
        for s in range(1, 24):
            phase = "warmup" if s <= 2 else "measure" if s <= 22 else "stop"
            v = tps * (1 + 0.06 * math.sin(s / 2.0 + i))
            f.write("%d,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,1.0,2.0,3.0,4.0,0,4\n"
                    % (s, phase, v * 0.45, v * 0.43, v * 0.04, v * 0.04, v * 0.04, v))
EOF
[ -d "$tmp/results" ] || bail_out "could not write the synthetic records"

mkdir "$tmp/out"
"$bin" report "$tmp/results" -o "$tmp/out/report.html" --title "Tuning study" >"$tmp/rep.out" 2>"$tmp/rep.err"
rc=$?
is "$rc" 0 "report over a results folder: exit 0" || diag "$(cat "$tmp/rep.err")"
is "$(cat "$tmp/rep.out")" "report: $tmp/out/report.html" "it names the file"
is "$(ls -A "$tmp/out")" "report.html" "written atomically: no temp file left beside it"
html=$tmp/out/report.html
[ -s "$html" ] || bail_out "no report.html"

# Self-contained: nothing refers to the network or to other files.
if grep -qiE 'https?://|<link|<img|src=|@import|url\(' "$html"; then
    fail "the report refers to nothing outside itself" "$(grep -oiE '.{20}(https?://|<link|<img|src=|@import|url\().{20}' "$html" | head -3)"
else
    pass "the report refers to nothing outside itself"
fi
like "$(grep -c '<svg class="chart' "$html")" 12 "twelve charts: 2 bars, 2 over time, 3 of the last run second by second, 5 latency"
like "$(cat "$html")" "*<td class=\"num good\">+1011.1 %</td>*" "the step table shows load 50 s -> 4.5 s as +1011.1 %"

# A truncated series.csv: exit 2, naming it.
cp -r "$tmp/results" "$tmp/bad"
f=$(ls -d "$tmp/bad/"*-sync-off)/series.csv
head -c -5 "$f" >"$f.cut" && mv "$f.cut" "$f" # cut inside its last line
"$bin" report "$tmp/bad" -o "$tmp/bad.html" >"$tmp/bad.out" 2>"$tmp/bad.err"
is "$?" 2 "a truncated series.csv: exit 2"
like "$(cat "$tmp/bad.err")" "tpccbench report: '$f' is truncated*" "the message names the file"
[ ! -e "$tmp/bad.html" ]
ok $? "and no report is written"

chrome_need "the report"
chrome_dom "$html"
python3 - "$tmp/dom.out" >"$tmp/checks" 2>&1 <<'EOF'
import re, sys
dom = open(sys.argv[1]).read()

def check(cond, desc, *details):
    print("PASS\t" + desc if cond else "\t".join(["FAIL", desc] + [str(x) for x in details]))

body = re.search(r"<body([^>]*)>", dom)
attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1) if body else ""))
check(attrs.get("data-ready") == "1", "the page's script ran (body data-ready=1)", attrs)
check(attrs.get("data-charts") == "12", "the script found 12 charts", attrs.get("data-charts"))
want = {"load": 3, "tps": 3, "tps-time": 4, "notpm-time": 4, "run4-throughput": 1,
        "run4-waits": 7, "run4-heatmap": 1, "latency-new_order": 3,
        "latency-payment": 3, "latency-order_status": 3, "latency-delivery": 3,
        "latency-stock_level": 3}
charts = {}
for m in re.finditer(r"<svg ([^>]*)>", dom):
    a = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))
    if "chart" in a.get("class", "").split():
        charts[a.get("data-chart")] = a
for name, n in want.items():
    a = charts.get(name, {})
    check(a.get("data-series") == str(n) and a.get("data-drawn") == str(n),
          "chart %s: %d series, %d drawn in the browser" % (name, n, n),
          "data-series %r, data-drawn %r" % (a.get("data-series"), a.get("data-drawn")))
steps = re.search(r'<table class="steps">.*?</table>', dom, re.S)
rows = re.findall(r"<tr data-step=", steps.group(0)) if steps else []
check(len(rows) == 3, "the step table has 3 steps", len(rows))
ch = re.search(r'<section id="changes">.*?</section>', dom, re.S)
ch = ch.group(0) if ch else ""
check("<code>shared_buffers</code></td><td class=\"old\">128MB</td><td class=\"new\">1GB</td>" in ch,
      "what changed: shared_buffers 128MB -> 1GB")
check("<code>synchronous_commit</code></td><td class=\"old\">on</td><td class=\"new\">off</td>" in ch,
      "what changed: synchronous_commit on -> off")
check(ch.count("more than one change") == 0, "no step is flagged with more than one change")
check('class="derived"' in ch and "wal_buffers" in ch, "wal_buffers is shown as following shared_buffers")
panels = re.findall(r'<figure class="chart-box panel" data-panel="(r\d+)"', dom)
check(panels == ["r4"], "one run second by second: the one that recorded it", panels)
marks = [dict(re.findall(r'([\w-]+)="([^"]*)"', m))
         for m in re.findall(r'<rect (class="mark[^>]*)>', dom)]
got = sorted((a["data-kind"], a["data-x0"], a["data-x1"]) for a in marks)
# Series second 3 is the window's first: 9.5-11.2 -> 7.5-9.2; the checkpoint
# still under way from 22.5 lies past the window's 20 s and is not drawn.
check(got == [("autovacuum", "12.00", "13.00"), ("checkpoint", "7.50", "9.20"),
              ("outage", "17.00", "18.00"), ("stall", "14.00", "16.00")],
      "the marks over the throughput: a checkpoint, an autovacuum, a stall, an outage", got)
lg = dict(re.findall(r'<li data-marks="(\w+)" data-n="(\d+)"', dom))
check(lg == {"checkpoint": "1", "autovacuum": "1", "stall": "1", "outage": "1"},
      "the marks' legend counts them", lg)
w = re.search(r'<svg [^>]*data-chart="run4-waits".*?</svg>', dom, re.S)
w = w.group(0) if w else ""
groups = re.findall(r'<g class="wstack" data-wtype="(\w+)"( style="[^"]*")?', w)
check([g for g, _ in groups] == ["all", "new_order", "payment", "order_status", "delivery",
                                 "stock_level"], "the waits: all types, then one per type", groups)
check([g for g, st in groups if "none" not in st] == ["all"], "all types shown, the others hidden",
      groups)
areas = re.findall(r'<path class="series area" data-class="(\w+)"', w)
check(areas == ["cpu", "client", "lock", "lwlock", "io", "ipc", "other"],
      "all types: one area per wait class, stacked in order", areas)
hm = re.search(r'<svg [^>]*data-chart="run4-heatmap".*?</svg>', dom, re.S)
cells = re.findall(r'<rect class="cell"', hm.group(0) if hm else "")
# 20 measured seconds x 4 bands with New-Orders, and one second over 5000 ms.
check(len(cells) == 81, "the heatmap: a cell per measured second and band with New-Orders",
      len(cells))
check(re.search(r"<title>second 10: 1 New-Orders over 5000 ms</title>", dom) is not None,
      "the heatmap's slow cell is series second 12, the window's 10th")
EOF
prc=$?
while IFS= read -r l; do
    case $l in
    PASS"	"*) pass "${l#PASS	}" ;;
    FAIL"	"*) fail "$(printf '%s' "${l#FAIL	}" | cut -f1)" "$(printf '%s' "$l" | cut -f3-)" ;;
    *) diag "$l" ;;
    esac
done <"$tmp/checks"
is "$prc" 0 "the checks of the page ran to their end"

# A click's function, from the address: #waits=payment shows Payment's waits.
chrome_run domw "$html#waits=payment" --dump-dom
python3 - "$tmp/domw.out" >"$tmp/checksw" 2>&1 <<'EOF'
import re, sys
dom = open(sys.argv[1]).read()
w = re.search(r'<svg ([^>]*data-chart="run4-waits"[^>]*)>(.*?)</svg>', dom, re.S)
shown = re.search(r'data-shown="(\w+)"', w.group(1)).group(1) if w else None
vis = [g for g, st in re.findall(r'<g class="wstack" data-wtype="(\w+)"( style="[^"]*")?',
                                 w.group(2) if w else "") if "none" not in st]
on = re.findall(r'<button type="button" data-wtype="(\w+)" class="on"', dom)
ok = shown == "payment" and vis == ["payment"] and on == ["payment"]
print(("PASS" if ok else "FAIL") + "\t#waits=payment: Payment's waits shown, its button on"
      + ("" if ok else "\t" + repr((shown, vis, on))))
EOF
prc=$?
tap_from "$tmp/checksw"
is "$prc" 0 "the checks of #waits=payment ran to their end"

chrome_run shot "$html" --hide-scrollbars --window-size=1280,2600 --screenshot="$tmp/shot.png"
ok $? "chromium --screenshot: exit 0" || diag "$(tail -5 "$tmp/shot.err")"
size=$(wc -c <"$tmp/shot.png" 2>/dev/null || echo 0)
[ "$size" -gt 50000 ] && [ "$(head -c 4 "$tmp/shot.png" | tail -c 3)" = PNG ]
ok $? "the screenshot is a PNG with content ($size bytes)"
if [ -n "${TPCC_REPORT_SHOT:-}" ]; then
    cp "$tmp/shot.png" "$TPCC_REPORT_SHOT" && note "screenshot kept in $TPCC_REPORT_SHOT"
fi
chrome_run pdf "$html" --print-to-pdf="$tmp/report.pdf" --no-pdf-header-footer
[ "$(head -c 4 "$tmp/report.pdf" 2>/dev/null)" = "%PDF" ]
ok $? "it prints to PDF (print CSS)"

done_testing
