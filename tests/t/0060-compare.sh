#!/bin/sh
# 0060-compare.sh - `tpccbench compare` on real run records.
#
# First the errors that need no server: a bad --fail-if rule (exit 2, the
# column and a caret under it), a truncated run.json, a record from a future
# record_version, too few runs, an unknown format.  Then two 3 s runs on a
# PostgreSQL from tests/lib/pg.sh with one setting changed between them
# (ALTER SYSTEM SET work_mem = '8MB' + pg_reload_conf()): the fingerprint in
# run.json must hold it, and compare must name that setting and nothing else
# (not the config hash, the time, the label or the change note).  Then the
# regression gate (trips: exit 1, one line per rule; a missing metric: exit
# 2), runs with different virtual users (refused, or warned with --force),
# and `run --repeat 2` grouped into one step.  Prints TAP; the server and the
# temp directory are removed on exit, pass or fail.  About 20 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0060 pg
t_copy_bin

# recs LABEL: the run folders results/<stamp>-LABEL[-N], oldest first.
recs() {
    ls -d "$tmp/results/"*-"$1" "$tmp/results/"*-"$1"-[0-9] 2>/dev/null
}
# py EXPR FILE...: print a python expression over the parsed JSON files r[0], r[1], ...
py() {
    _e=$1
    shift
    python3 -c "import json,sys; r=[json.load(open(f)) for f in sys.argv[1:]]; print($_e)" "$@"
}

# ---------------------------------------------------------------------------
# 1. Errors that need no server.

mkdir -p "$tmp/fake/a" "$tmp/fake/b" "$tmp/fake/trunc" "$tmp/fake/future"
printf '{"tool": {"record_version": 1}, "label": "a", "run": {"notpm": 100, "tps": 10}}\n' >"$tmp/fake/a/run.json"
printf '{"tool": {"record_version": 1}, "label": "b", "run": {"notpm": 100, "tps": 10}}\n' >"$tmp/fake/b/run.json"
printf '{"tool": {"record_version": 1}, "label": "t", "run": {"notpm": 1' >"$tmp/fake/trunc/run.json"
printf '{"tool": {"record_version": 2}, "label": "f"}\n' >"$tmp/fake/future/run.json"

run rule "$bin" compare "$tmp/fake/a" "$tmp/fake/b" --fail-if 'notpm << -5%'
is "$rc" 2 "a bad --fail-if rule: exit 2" || explain
is "$(sed -n 1p "$tmp/rule.err")" \
    "tpccbench compare: --fail-if 'notpm << -5%': column 8: the operator is a single '<' or '>'" \
    "the message names the rule, the column and the fault"
is "$(sed -n 2p "$tmp/rule.err")" "  notpm << -5%" "then the rule"
is "$(sed -n 3p "$tmp/rule.err")" "         ^" "then a caret under column 8"
is "$out" "" "nothing on stdout"

run rule2 "$bin" compare "$tmp/fake/a" "$tmp/fake/b" --fail-if 'notpm < 5%'
is "$rc" 2 "a rule without a sign: exit 2" || explain
like "$err" "*column 9: expected a sign '+' or '-'*" "the sign is required (column 9)"
run rule3 "$bin" compare "$tmp/fake/a" "$tmp/fake/b" --fail-if 'p90.neworder > +5%'
like "$err" "*column 5: unknown transaction type 'neworder'*" "an unknown transaction type (column 5)"

run trunc "$bin" compare "$tmp/fake/a" "$tmp/fake/trunc"
is "$rc" 2 "a truncated run.json: exit 2" || explain
is "$err" "tpccbench compare: $tmp/fake/trunc/run.json:1:64: truncated JSON ('}' expected near end of file): the run that wrote it was cut short or the file was damaged; leave it out, or run that step again" \
    "the message names the truncated file, the line and column, and what to do"
run future "$bin" compare "$tmp/fake/future/run.json" "$tmp/fake/a"
is "$rc" 2 "a future record_version: exit 2" || explain
is "$err" "tpccbench compare: $tmp/fake/future/run.json: record_version 2 is newer than this tpccbench reads (1); upgrade tpccbench" \
    "the message names the file and the version"
run report_trunc "$bin" report "$tmp/fake/trunc" -o "$tmp/r.html"
is "$rc" 2 "report of a truncated run.json: exit 2" || explain
like "$err" "tpccbench report: $tmp/fake/trunc/run.json:1:64: truncated JSON *" "report names the file too"
run one "$bin" compare "$tmp/fake/a"
is "$rc" 2 "one run only: exit 2" || explain
run fmt "$bin" compare "$tmp/fake/a" "$tmp/fake/b" --format yaml
is "$rc" 2 "an unknown --format: exit 2" || explain
is "$err" "tpccbench compare: unknown format 'yaml' (text, markdown, csv or json)" "it says which formats exist"

# ---------------------------------------------------------------------------
# 2. Two real runs, work_mem changed between them.

t_pg_up
t_pg_cfg 1
t_load "load 1 warehouse: exit 0"
run base "$bin" run -c "$cfg" --vus 2 --duration 3s --warmup 1s --label baseline --change defaults
is "$rc" 0 "run baseline: exit 0" || explain
pg_psql "ALTER SYSTEM SET work_mem = '8MB'" >/dev/null && pg_psql "SELECT pg_reload_conf()" >/dev/null
ok $? "ALTER SYSTEM SET work_mem = '8MB' and reload"
run wm "$bin" run -c "$cfg" --vus 2 --duration 3s --warmup 1s --label work-mem --change "work_mem = 8MB"
is "$rc" 0 "run work-mem: exit 0" || explain
a=$(recs baseline)
b=$(recs work-mem)
[ -f "$a/run.json" ] && [ -f "$b/run.json" ] || bail_out "no run records"

# The fingerprint in run.json.
is "$(py 'r[0]["environment"]["dbms"]["settings"]["work_mem"], r[1]["environment"]["dbms"]["settings"]["work_mem"]' "$a/run.json" "$b/run.json")" \
    "4MB 8MB" "environment.dbms.settings.work_mem: 4MB, then 8MB"
is "$(py 'r[0]["environment"]["dbms"]["settings_source"]["work_mem"], r[1]["environment"]["dbms"]["settings_source"]["work_mem"]' "$a/run.json" "$b/run.json")" \
    "default configuration file" "its source: default, then configuration file"
is "$(py 'r[0]["environment"]["dbms"]["local"], r[0]["environment"]["dbms"]["connection"]' "$a/run.json")" \
    "True 127.0.0.1" "the server is local, reached on 127.0.0.1"
is "$(py 'r[0]["environment"]["storage"]["data_directory"]' "$a/run.json")" "$PG_TEST_DIR/data" \
    "environment.storage.data_directory is the server's"
isnt "$(py 'r[0]["environment"]["storage"]["fstype"]' "$a/run.json")" "unknown" "its filesystem type is known"
like "$(py 'r[0]["environment"]["storage"]["mount_options"]' "$a/run.json")" "rw*" "and its mount options"
like "$(py 'r[0]["environment"]["dbms"]["settings"]["shared_buffers"], r[0]["environment"]["dbms"]["settings"]["fsync"], r[0]["environment"]["sysctl"]["vm.swappiness"], r[0]["environment"]["transparent_hugepage"]["enabled"]' "$a/run.json")" \
    "128MB on [0-9]* *" "key settings, sysctls and transparent huge pages are recorded"
is "$(py 'r[0]["environment"]["config_hash"] == r[1]["environment"]["config_hash"], r[0]["environment"]["config_hash"][:8], len(r[0]["environment"]["config_hash"])' "$a/run.json" "$b/run.json")" \
    "True fnv1a64: 24" "the same config hash in both runs (fnv1a64, 16 hex digits)"
if grep -q "$TPCC_TEST_PASSWORD" "$a/run.json" "$b/run.json"; then
    fail "no run.json holds the password"
else
    pass "no run.json holds the password"
fi

run cmp "$bin" compare "$a" "$b"
is "$rc" 0 "compare baseline work-mem: exit 0" || explain
changed=$(sed -n '/^what changed/,/^$/p' "$tmp/cmp.out" | sed '1d;/^$/d')
is "$changed" "  2 work-mem (against 1 baseline):
      work_mem: 4MB -> 8MB" "what changed: work_mem 4MB -> 8MB and nothing else"
unlike "$out" "*config_hash*" "the config hash is not shown as a change"
like "$(sed -n '/^where the time went/,$p' "$tmp/cmp.out")" "where the time went (waits: *
  2 work-mem (against 1 baseline):
      new_order: * % -> * %*, CPU * % -> * %*" "then where the time went: new_order's waits that changed most, then CPU"
unlike "$err" "*changed 2 things*" "no warning of several changes"
like "$out" "*   2  work-mem  work_mem = 8MB *" "the step table shows the step and its change note"
run cmpj "$bin" compare --format json "$a/run.json" "$b/run.json"
is "$rc" 0 "compare --format json: exit 0" || explain
is "$(py '[(c["key"], c["old"], c["new"], c["derived"]) for c in r[0]["steps"][1]["changes"]], r[0]["steps"][1]["n_changes"], len(r[0]["steps"])' "$tmp/cmpj.out")" \
    "[('work_mem', '4MB', '8MB', False)] 1 2" "json: one change, work_mem, in the second of two steps"
py 'abs(r[0]["steps"][1]["gain_pct"]["tps"] - 100 * (r[2]["run"]["tps"] / r[1]["run"]["tps"] - 1)) < 1e-6' \
    "$tmp/cmpj.out" "$a/run.json" "$b/run.json" >"$tmp/gain"
is "$(cat "$tmp/gain")" "True" "json: the TPS gain is new/old - 1 of the two records"
is "$(py 'r[0]["steps"][1]["load_s"]["median"]' "$tmp/cmpj.out")" "None" "a run without a load has no load time"
like "$(sed -n '/^step /,/^$/p' "$tmp/cmp.out" | sed -n 2p)" "*defaults  *-  *-  *-  *" \
    "text: '-' for its load time and gains"
run cmpm "$bin" compare --format markdown "$a" "$b"
like "$out" "*| 2 | work-mem | work_mem = 8MB | - | - | - |*" "markdown: the step row"
like "$out" "*\`work_mem\`: 4MB → 8MB*" "markdown: what changed"
like "$out" "*\*\*Where the time went\*\* (waits: *- step 2 work-mem:*  - \`new_order\`: * % -> * %*" "markdown: where the time went"
run cmpc "$bin" compare --format csv "$a" "$b"
like "$(sed -n 3p "$tmp/cmpc.out")" "2,work-mem,work_mem = 8MB,1,*,work_mem: 4MB -> 8MB" "csv: the step row ends with the change"

# ---------------------------------------------------------------------------
# 3. The regression gate.

run gate0 "$bin" compare "$a" "$b" --fail-if 'notpm < -99%' --fail-if 'p90.new_order > +1000%'
is "$rc" 0 "rules that hold: exit 0" || explain
run gate1 "$bin" compare "$a" "$b" --fail-if 'notpm < -99%' --fail-if 'tps > -100%'
is "$rc" 1 "a rule that trips: exit 1" || explain
is "$(grep -c 'tripped' "$tmp/gate1.err")" 1 "one line per tripped rule"
like "$err" "*tpccbench compare: --fail-if 'tps > -100%' tripped: tps * -> * is *%*" "the line names the rule and the figures"
run gate2 "$bin" compare "$a" "$b" --fail-if 'load_time > +10%'
is "$rc" 2 "a rule on a figure the runs lack: exit 2" || explain
like "$err" "*--fail-if 'load_time > +10%': run '*baseline' (baseline) has no load_time*" "it says which run lacks it"

# ---------------------------------------------------------------------------
# 4. Incomparable runs.

mkdir "$tmp/vus3"
python3 - "$b/run.json" "$tmp/vus3/run.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["config"]["run"]["virtual_users"] = 3
json.dump(r, open(sys.argv[2], "w"))
EOF
run inc "$bin" compare "$a" "$tmp/vus3"
is "$rc" 2 "different virtual users: refused, exit 2" || explain
like "$err" "tpccbench compare: runs are not comparable: virtual users is 2 in '$a/run.json' but 3 in '$tmp/vus3/run.json'*--force" \
    "the refusal says what differs and where"
run incf "$bin" compare --force "$a" "$tmp/vus3"
is "$rc" 0 "--force compares them: exit 0" || explain
like "$err" "*warning: virtual users differs (2 in *, 3 in 'vus3'): compared anyway (--force)*" "with a warning"

# ---------------------------------------------------------------------------
# 5. Repeats: run --repeat 2 records two runs under one label, one step.

run rep "$bin" run -c "$cfg" --vus 2 --duration 1s --warmup 0s --label rep --repeat 2
is "$rc" 0 "run --repeat 2: exit 0" || explain
set -- $(recs rep)
is "$#" 2 "two run folders labelled rep"
if [ "$#" = 2 ]; then
    is "$(py '[x.get("repeat") for x in r]' "$1/run.json" "$2/run.json")" \
        "[{'index': 1, 'of': 2}, {'index': 2, 'of': 2}]" "each record says which repeat it is"
    # Their duration differs from the others': --force.
    run cmpr "$bin" compare --force --format json "$a" "$b" "$1" "$2"
    is "$(py '[len(s["runs"]) for s in r[0]["steps"]]' "$tmp/cmpr.out")" "[1, 1, 2]" \
        "compare groups the repeats into one step"
    py 'r[0]["steps"][2]["tps"]["min"] <= r[0]["steps"][2]["tps"]["median"] <= r[0]["steps"][2]["tps"]["max"] and abs(r[0]["steps"][2]["tps"]["median"] - (r[1]["run"]["tps"] + r[2]["run"]["tps"]) / 2) < 1e-6 * r[1]["run"]["tps"]' \
        "$tmp/cmpr.out" "$1/run.json" "$2/run.json" >"$tmp/med"
    is "$(cat "$tmp/med")" "True" "the step's TPS is the median of its repeats, within min..max"
fi

# ---------------------------------------------------------------------------
# 6. Significance of repeats outside a study: rep (2 runs) against rep2 (2 runs).

run rep2 "$bin" run -c "$cfg" --vus 2 --duration 1s --warmup 0s --label rep2 --repeat 2
is "$rc" 0 "run --repeat 2 --label rep2: exit 0" || explain
set -- $(recs rep) $(recs rep2)
is "$#" 4 "four run folders: rep twice, rep2 twice"
run sigj "$bin" compare --format json "$@" --fail-if 'notpm < -99%' --fail-if 'notpm > +1000%'
is "$rc" 0 "compare of two steps with repeats: exit 0" || explain
# Every verdict follows from its interval; each gain is the gain of the
# recorded medians (2 runs: the mean of the two); p90 is a change (+ slower).
python3 -c '
import json, sys
r = [json.load(open(f)) for f in sys.argv[1:]]
d = r[0]; runs = r[1:]; bad = []
sig = d["steps"][1].get("significance", [])
def med(v): return sum(v) / len(v)
for s in sig:
    lo, hi, v = s["ci_low"], s["ci_high"], s["verdict"]
    up = s["metric"] in ("notpm", "tps")
    want = ("significant gain" if (lo > 0) == up else "significant loss") if lo > 0 or hi < 0 else "within noise"
    if v != want: bad.append((s, want))
    if s["against"] != 1 or s["n_old"] != 2 or s["n_new"] != 2: bad.append(("sides", s))
    if s["metric"] == "notpm":
        g = med([x["run"]["notpm"] for x in runs[2:]]) / med([x["run"]["notpm"] for x in runs[:2]]) - 1
        if abs(g - s["gain"]) > 1e-9: bad.append(("gain", s, g))
print(sorted(s["metric"] for s in sig), bad)' "$tmp/sigj.out" "$1/run.json" "$2/run.json" "$3/run.json" "$4/run.json" >"$tmp/sigchk" 2>&1
is "$(cat "$tmp/sigchk")" "['notpm', 'p90.new_order', 'tps'] []" \
    "json: NOTPM, TPS and New-Order p90 of step 2 with intervals and verdicts that follow from them (no load: no load time)"
is "$(py '[(g["judged_by"], g["tripped"], g["ci_low_pct"] <= g["change_pct"] <= g["ci_high_pct"]) for g in r[0]["gate"]]' "$tmp/sigj.out")" \
    "[('interval', False, True), ('interval', False, True)]" "the gate judges repeats by the interval"
note "measured: $(py '[(s["metric"], round(s["gain"] * 100, 1), round(s["ci_low"] * 100, 1), round(s["ci_high"] * 100, 1), s["verdict"]) for s in r[0]["steps"][1]["significance"]]' "$tmp/sigj.out")"
run sigt "$bin" compare "$@"
is "$rc" 0 "text: exit 0" || explain
like "$out" "*significance: the gain of the medians and its 95 % confidence interval*" "text: the significance table"
like "$out" "*   2  rep2   1 rep *NOTPM *\\[*, *\\]*" "text: step 2 against step 1 with its interval"
run sigm "$bin" compare --format markdown "$@"
like "$out" "*| 2 | rep2 | 1 rep | NOTPM | *| \\[*, *\\] | *" "markdown: the significance table"
run sigc "$bin" compare --format csv "$@"
is "$(printf '%s\n' "$out" | python3 -c "import csv,sys; r=list(csv.DictReader(sys.stdin)); print(len(r), r[0]['notpm_verdict'], r[1]['notpm_verdict'] in ('within noise', 'significant gain', 'significant loss'), float(r[1]['notpm_ci_low_pct']) <= float(r[1]['notpm_gain_pct']) <= float(r[1]['notpm_ci_high_pct']))")" \
    "2  True True" "csv: the interval and verdict of each step's gain (none for step 1)"
mkdir -p "$tmp/rep-report"
run sigr "$bin" report "$@" -o "$tmp/rep-report/report.html"
is "$rc" 0 "report of the repeats: exit 0" || explain
like "$(cat "$tmp/rep-report/report.html")" '*<section id="significance"><h2>Significance</h2>*<tr data-step="s2" data-verdict="*"><td>2</td><td>rep2</td><td>1 rep</td><td>NOTPM</td>*' \
    "report.html: the significance table"
run single "$bin" compare "$a" "$b"
unlike "$out" "*significance*" "single runs per step: no significance table, as before"

done_testing
