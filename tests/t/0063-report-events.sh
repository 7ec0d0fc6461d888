#!/bin/sh
# 0063-report-events.sh - a real run second by second, in run.json and in
# the report rendered by Chromium (issue 41).
#
# On a real PostgreSQL (W=1, autovacuum_naptime 1 s, new_order's autovacuum
# thresholds at zero), a run of 8 terminals; once its measured window opened
# (its first "measure]" line: an event, not a sleep) the test issues a
# CHECKPOINT, then waits, for at most 15 live lines, for the server to
# autovacuum or autoanalyze new_order (pg_stat_user_tables' counts), then
# two live lines more (the sampler polls once a second), and ends the run
# with SIGINT.  Checked in
# run.json: "events" lists one checkpoint, inside the measured window and
# no longer than the run, with where its start and end came from; the
# autovacuum of new_order the server ran; waits.per_second has a row per
# second of the run with the seven classes for all and the five types;
# run.new_order_heatmap counts, over the measured seconds, as many
# New-Orders as the run's histogram.  Then `tpccbench report` in headless
# Chromium: the run's throughput chart carries the checkpoint's mark at the
# same seconds (and the autovacuum's), its waits chart the seven stacked
# areas and a group per type, the heatmap cells: the rendered page compared
# by structure (its DOM after the script ran), not pixels (0061 takes the
# screenshot).  Prints TAP.  About 90 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

PG_TEST_CONF="autovacuum_naptime = 1"
export PG_TEST_CONF
t_begin t0063 pg chrome
t_copy_bin
t_pg_load 1 "load W=1"
pg_psql "ALTER TABLE new_order SET (autovacuum_vacuum_threshold = 0,
    autovacuum_vacuum_scale_factor = 0, autovacuum_analyze_threshold = 0,
    autovacuum_analyze_scale_factor = 0)" >/dev/null
ok $? "new_order's autovacuum thresholds at zero"

av_count() {
    pg_psql "SELECT autovacuum_count + autoanalyze_count FROM pg_stat_user_tables
             WHERE relname = 'new_order'" | tr -d ' '
}

# live N: waits, while the run lasts, until its stderr has N live lines of
# the measured window (one a second); 1 when it ended first.
live() {
    while [ "$(grep -c 'measure\]' "$tmp/ev.err")" -lt "$1" ]; do
        alive "$bgpid" || return 1
        sleep 0.1
    done
}

# A long window, ended by SIGINT once what is checked happened (events).
bg_run ev --duration 120s --warmup 2s --vus 8
bg_window ev || bail_out "the run's window did not open"
c0=$(date +%s.%N)
pg_psql "CHECKPOINT" >/dev/null
ok $? "CHECKPOINT in the measured window"
ck_s=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$c0" "$(date +%s.%N)")
note "CHECKPOINT took $ck_s s"
# At most 15 more seconds of the window for an autovacuum of new_order.
av0=$(av_count)
av=$av0
n=$(($(grep -c 'measure\]' "$tmp/ev.err") + 15))
while [ "$av" = "$av0" ] && [ "$(grep -c 'measure\]' "$tmp/ev.err")" -lt "$n" ] && alive "$bgpid"; do
    sleep 0.2
    av=$(av_count)
done
if [ "$av" != "$av0" ]; then
    av_seen=1
    note "the server autovacuumed new_order during the run ($av0 -> $av)"
else
    av_seen=0
    note "the server ran no autovacuum of new_order during the run"
fi
# Two more seconds: the sampler's once-a-second poll has seen them.
live $(($(grep -c 'measure\]' "$tmp/ev.err") + 2))
bg_signal INT "SIGINT once the checkpoint and autovacuum were over" "the run still ran" "$tmp/ev.err"
bg_wait 60 "after SIGINT, the run"
is "$rc" 130 "the run stopped at SIGINT (exit 130)" || diag "$(cat "$tmp/ev.err")"
j=$(rec_json ev)

python3 - "$j" "$(rec ev)/series.csv" "$av_seen" "$ck_s" >"$tmp/jc" 2>&1 <<'EOF'
import csv, json, sys
rec = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
av_seen = sys.argv[3] == "1"
ck_s = float(sys.argv[4])
def check(cond, desc, *d):
    print("PASS\t" + desc if cond else "\t".join(["FAIL", desc] + [str(x) for x in d]))
m = [int(r["second"]) for r in rows if r["phase"] == "measure"]
first, last = m[0], m[-1]
ev = rec.get("events") or {}
lst = ev.get("list") or []
check(ev.get("available") is True, "events available", ev)
ck = [e for e in lst if e["kind"] == "checkpoint"]
check(len(ck) == 1 and ck[0]["end_s"] is not None, "one checkpoint, completed: the test's", lst)
if ck:
    c = ck[0]
    # The control file keeps the start to the second: up to 1 s early.
    check(first - 2 <= c["start_s"] <= c["end_s"] <= last + 1,
          "the checkpoint lies in the measured window (seconds %d..%d)" % (first - 1, last), c)
    # Seen busy: within a sample of the truth; from the control file and
    # the poll: up to 1 s early (its second, truncated) and 1 s late.
    check(c["end_s"] - c["start_s"] <= ck_s + 2.0,
          "the checkpoint lasts no longer than the CHECKPOINT took (%.2f s), give or take "
          "the poll's second and the control file's" % ck_s, c)
    check(c["start_from"] in ("pg_stat_activity", "pg_control_checkpoint") and
          c["end_from"] in ("pg_stat_activity", "pg_control_checkpoint"),
          "the checkpoint says where its start and end came from", c)
av = [e for e in lst if e["kind"] == "autovacuum"]
check(all(e["table"] in ("warehouse", "district", "customer", "history", "new_order", "orders",
                         "order_line", "item", "stock")
          and (e["start_s"] <= e["end_s"] if e["end_s"] is not None
               else e["end_from"] == "still under way at the run's end")
          for e in av), "autovacuums: of the schema's tables, each ending after it starts "
      "(or under way at the end)", av)
if av_seen:
    check(any(e["table"] == "new_order" for e in av),
          "the autovacuum of new_order the server ran is an event", av)
ps = (rec.get("waits") or {}).get("per_second") or {}
check(ps.get("classes") == ["cpu", "client", "lock", "lwlock", "io", "ipc", "other"],
      "waits.per_second: the seven classes", ps.get("classes"))
secs = ps.get("second") or []
# A row a sample of the metrics (a loaded machine may skip a second).
check(secs == sorted(set(secs)) and set(secs) <= set(int(r["second"]) for r in rows)
      and set(secs) & set(m), "waits.per_second: seconds of series.csv, the window's among them",
      secs)
bt = ps.get("by_type") or {}
check(sorted(bt) == sorted(["new_order", "payment", "order_status", "delivery", "stock_level"])
      and all(len(v) == len(secs) for v in bt.values()) and len(ps.get("all", [])) == len(secs),
      "waits.per_second: all and the five types, a row per second", {k: len(v) for k, v in bt.items()})
no = [r for r in bt.get("new_order", []) if r]
check(no and sum(sum(r) for r in no) > 0, "New-Order has sessions in its rows")
hm = (rec.get("run") or {}).get("new_order_heatmap") or {}
check(len(hm.get("upper_ms", [])) == 14 and hm["upper_ms"][-1] is None,
      "new_order_heatmap: 14 bands, the last open", hm.get("upper_ms"))
cnt = {s: sum(c) for s, c in zip(hm.get("second", []), hm.get("counts", []))}
tps = {int(r["second"]): float(r["new_order_tps"]) for r in rows}
check(cnt and sum(cnt.get(s, 0) for s in m) > 0, "the heatmap has New-Orders in the window")
no = rec["run"]["transactions"]["new_order"]
check(sum(cnt.get(s, 0) for s in m) == no["count"] + no["rolled_back"],
      "the heatmap's measured New-Orders are the run's, committed and rolled back (%d)"
      % sum(cnt.get(s, 0) for s in m), no["count"], no["rolled_back"])
EOF
prc=$?
tap_from "$tmp/jc"
is "$prc" 0 "the checks of run.json ran to their end"

"$bin" report "$(rec ev)" -o "$tmp/report.html" >"$tmp/rep.out" 2>"$tmp/rep.err"
is "$?" 0 "report over the run: exit 0" || diag "$(cat "$tmp/rep.err")"
chrome_need "the report"
chrome_dom "$tmp/report.html"
python3 - "$tmp/dom.out" "$j" >"$tmp/dc" 2>&1 <<'EOF'
import json, re, sys
dom = open(sys.argv[1]).read()
rec = json.load(open(sys.argv[2]))
def check(cond, desc, *d):
    print("PASS\t" + desc if cond else "\t".join(["FAIL", desc] + [str(x) for x in d]))
p = re.search(r'<figure class="chart-box panel" data-panel="(r\d+)">(.*?)</figure>', dom, re.S)
check(p is not None, "the run has its second-by-second panel")
body = p.group(2) if p else ""
marks = [dict(re.findall(r'([\w-]+)="([^"]*)"', a)) for a in re.findall(r"<rect (class=\"mark[^>]*)>", body)]
ck = [a for a in marks if a.get("data-kind") == "checkpoint"]
ev = [e for e in rec["events"]["list"] if e["kind"] == "checkpoint"]
check(len(ck) == 1, "the throughput chart shows the checkpoint", marks)
if ck and ev:
    # Window second x of record second s: x = s - (first measured second - 1).
    import csv, os
    rows = list(csv.DictReader(open(os.path.join(os.path.dirname(sys.argv[2]), "series.csv"))))
    off = [int(r["second"]) for r in rows if r["phase"] == "measure"][0] - 1
    x0, x1 = float(ck[0]["data-x0"]), float(ck[0]["data-x1"])
    check(abs(x0 - (ev[0]["start_s"] - off)) < 0.01 and abs(x1 - (ev[0]["end_s"] - off)) < 0.01,
          "its mark spans the event's seconds (%.2f..%.2f)" % (x0, x1), ck[0], ev[0])
nav = len([e for e in rec["events"]["list"] if e["kind"] == "autovacuum"])
lg = dict(re.findall(r'<li data-marks="(\w+)" data-n="(\d+)"', body))
check(lg.get("checkpoint") == "1", "the legend counts one checkpoint", lg)
check(int(lg.get("autovacuum", -1)) <= nav, "the legend's autovacuums are the record's (or fewer: outside the window)", lg, nav)
w = re.search(r'<svg ([^>]*data-chart="r?u?n?\d*-?waits"[^>]*)>(.*?)</svg>', body, re.S)
groups = re.findall(r'<g class="wstack" data-wtype="(\w+)"', w.group(2) if w else "")
check(groups == ["all", "new_order", "payment", "order_status", "delivery", "stock_level"],
      "the waits chart: all types and one group per type", groups)
areas = re.findall(r'<path class="series area" data-class="(\w+)" fill="[^"]*" d="M', w.group(2) if w else "")
check(len(areas) == 7, "seven stacked areas drawn", areas)
cells = len(re.findall(r'<rect class="cell"', body))
check(cells >= 5, "the heatmap has cells (%d)" % cells)
EOF
prc=$?
tap_from "$tmp/dc"
is "$prc" 0 "the checks of the page ran to their end"
note "0063 took $(($(date +%s) - t_start)) s"
done_testing
