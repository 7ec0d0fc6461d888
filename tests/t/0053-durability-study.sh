#!/bin/sh
# 0053-durability-study.sh - a durability check on every step of a tuning
# study (issue 40, docs/acid.md, docs/study-and-compare.md): `tpccbench
# study --durability power --fail-if 'lost > 0'` with two steps,
# defaults and synchronous_commit = off (the WAL writer kept from flushing
# as in 0043 case 4), W=1, 2 terminals, 3 s runs, one repeat, a 4 s
# durability mix (acid.durability_window) after each run:
#  1. the study's step table has the column durable: "yes" for the
#     defaults, "LOST n" (n > 0) for synchronous_commit = off, as each
#     record's acid.durability says; the server's log shows two crash
#     recoveries (no verdict without a crash);
#  2. --fail-if 'lost > 0' trips on the last step: exit 1, said, the
#     step named;
#  3. compare of the two records shows the same column, and so do its
#     --format csv (durable, lost) and json (steps[].durable, .lost); its
#     --fail-if 'lost > 0' exits 1 with the lossy step last and with it
#     first (any step that lost trips it), naming that step; a rule with a
#     '%' is refused (exit 2); history refuses the rule.
# Skipped without root, /dev/fuse, fusermount3 or tpccbench-lazyfs.
# About 2 minutes (a load, two runs, two crash cycles).  Prints TAP.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_study t0053
lz=$(dirname "$TPCC_BIN")/tpccbench-lazyfs
why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ ! -c /dev/fuse ]; then why="no /dev/fuse"
elif ! command -v fusermount3 >/dev/null 2>&1; then why="no fusermount3"
elif [ ! -x "$lz" ]; then why="no $lz (make, with libfuse3-dev)"
fi
if [ -n "$why" ]; then
    echo "1..0 # SKIP power crashes: $why"
    exit 0
fi
cp "$lz" "$(dirname "$bin")/tpccbench-lazyfs"

py() {
    _code=$1
    shift
    python3 -c "import json,sys,glob; $_code" "$@"
}

cfg=$tmp/dur.yaml
printf 'acid: {durability_window: 4s}\n' >"$cfg"
cat >"$tmp/dur.yaml.study" <<'EOF2'
study: { name: dur, repeat: 1, reset: template }
workload: { warehouses: 1, virtual_users: 2, warmup: 1s, duration: 3s }
steps:
  - label: defaults
  - label: sync-off
    set: { synchronous_commit: "off", wal_writer_delay: 10s, wal_writer_flush_after: 1GB,
           bgwriter_lru_maxpages: 0 }
EOF2
timeout -k 5 600 "$bin" study "$tmp/dur.yaml.study" -c "$cfg" --results-dir "$res" \
    --durability power --fail-if 'lost > 0' >"$tmp/dur.out" 2>"$tmp/dur.err"
is "$?" 1 "study --durability power --fail-if 'lost > 0': exit 1 (the last step lost)" ||
    diag "$(tail -20 "$tmp/dur.err")"
sdir=$(ls -d "$res"/*-study-dur 2>/dev/null | head -1)
sj=$sdir/study.json
[ -n "$sdir" ] || bail_out "the study left no folder: $(tail -n 3 "$tmp/dur.err")"

# 1. the column, and the records it comes from.
tab=$(sed -n '/^step  *label/,/^$/p' "$tmp/dur.out")
like "$tab" "*durable*" "the step table has the column durable" || diag "$(cat "$tmp/dur.out")"
is "$(printf '%s\n' "$tab" | awk '$2 == "defaults" { print $NF }')" yes "defaults: durable yes"
lost=$(py '
d=json.load(open(sys.argv[1]))
print(" ".join(str(json.load(open(r["dir"]+"/run.json"))["acid"]["durability"]["lost"]) for r in d["runs"]))' "$sj")
set -- $lost
is "${1:-}" 0 "defaults: the record's acid.durability lost 0"
ok "$([ "${2:-0}" -gt 0 ]; echo $?)" "sync-off: the record's acid.durability lost ${2:-?} > 0"
n=$(printf '%s' "${2:-0}" | sed -e :a -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/;ta')
like "$(printf '%s\n' "$tab" | grep ' sync-off ')" "*LOST $n" "sync-off: durable LOST $n, as recorded"
is "$(py '
d=json.load(open(sys.argv[1]))
print([(j["acid"]["durability"]["crash"], j["status"]) for j in (json.load(open(r["dir"]+"/run.json")) for r in d["runs"])])' "$sj")" \
    "[('power', 'complete'), ('power', 'complete')]" "both records: crash power, status complete"
is "$(tr -d '\000' <"$res/pgdata/server.log" | grep -c 'database system was not properly shut down; automatic recovery in progress')" \
    2 "the server's log shows two crash recoveries"
like "$(cat "$tmp/dur.err")" "*--fail-if 'lost > 0' tripped: step 2 'sync-off': a run lost $2 acknowledged transactions*" \
    "the study says the rule tripped, on which step, and what was lost"
is "$(grep -c " $res/pgdata.lazyfs-" /proc/mounts)" 0 "no lazyfs mount is left"

# 2. compare of the same records.
lostn=$2
set -- $(py 'd=json.load(open(sys.argv[1])); print(" ".join(r["dir"] for r in d["runs"]))' "$sj")
run cmp "$bin" compare "$1" "$2"
is "$rc" 0 "compare: exit 0" || explain
like "$out" "*durable*yes*LOST $n*" "compare's table: durable yes, then LOST $n"
run cmpcsv "$bin" compare "$1" "$2" --format csv
is "$(printf '%s\n' "$out" | python3 -c 'import csv,sys; print([(r["label"], r["durable"], r["lost"]) for r in csv.DictReader(sys.stdin)])')" \
    "[('defaults', 'yes', '0'), ('sync-off', 'LOST $n', '$lostn')]" \
    "compare --format csv: durable and lost of each step" || explain
run cmpjson "$bin" compare "$1" "$2" --format json
is "$(printf '%s\n' "$out" | python3 -c 'import json,sys; print([(s["label"], s["durable"], s["lost"]) for s in json.load(sys.stdin)["steps"]])')" \
    "[('defaults', 'yes', 0), ('sync-off', 'LOST $n', $lostn)]" \
    "compare --format json: durable and lost of each step" || explain
run cmpfail "$bin" compare "$1" "$2" --fail-if 'lost > 0'
is "$rc" 1 "compare --fail-if 'lost > 0', the lossy step last: exit 1" || explain
like "$err" "*tripped: step 2 'sync-off': a run lost $lostn acknowledged*" "it names the step"
run cmpfirst "$bin" compare "$2" "$1" --fail-if 'lost > 0'
is "$rc" 1 "compare --fail-if 'lost > 0', the lossy step first: exit 1 too" || explain
like "$err" "*tripped: step 1 'sync-off': a run lost $lostn acknowledged*" "it names the step"
run cmpbad "$bin" compare "$1" "$2" --fail-if 'lost > 0%'
is "$rc" 2 "--fail-if 'lost > 0%': exit 2" || explain
like "$err" "*column 9:*the count has no '%'*" "the message points at the '%'"
run hist "$bin" history "$res" --fail-if 'lost > 0'
is "$rc" 2 "history --fail-if 'lost > 0': exit 2" || explain
like "$err" "*the durability rule is for compare and study*" "history says why"

done_testing
