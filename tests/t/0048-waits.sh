#!/bin/sh
# 0048-waits.sh - the wait sampler (src/run/msrc_waits.c, run.wait_sampling)
# on a real PostgreSQL (W=1, fsync on, synchronous_commit = on from
# PG_TEST_CONF), with ground truth the workload makes certain:
#
#  1. 32 terminals, no think time, procedure mode: Payment's first wait is a
#     Lock event (the warehouse and district rows every Payment updates);
#     run.json "waits" has rate_hz 10, samples, the sampler's cost, by_type
#     for the five types with samples and events, and background; the
#     summary has a line per type with CPU and its waits; metrics.csv has
#     the wait_*_sessions columns with values in the measured rows, and
#     their lock column is above 0;
#  2. client mode: Payment's first wait is a Lock event there too, and the
#     samples of idle-in-transaction backends are "Client";
#  3. synchronous_commit on (the server's) and then off (ALTER SYSTEM, a
#     reload, and a new session seen with it): New-Order's share of WAL
#     waits (LWLock:WALWrite, IO:WALSync, IO:WALWrite) is present with on
#     and higher than with off; `compare` of the two names a WAL wait first
#     on its new_order line, and its JSON has that wait first with the two
#     records' shares (measured: LWLock:WALWrite 43 % -> 0 %, IO:WALSync
#     6.9 % -> 0 %, then a Lock wait within the sampling error, CPU 29 % ->
#     63 %);
#  4. --wait-sampling 0: "waits" is unavailable, saying run.wait_sampling is
#     0, and compare against it says so in one line; the null driver:
#     unavailable, no database.
# Asserts the events' presence and order, not a percentage to the point.
# Prints TAP.  About 60 s (170 s at a load average of 13).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

PG_TEST_CONF="synchronous_commit = on"
export PG_TEST_CONF
t_begin t0048 pg
t_pg_load 1 "load W=1"

# 1. 32 terminals, no think time, procedure mode.
run proc "$bin" run -c "$cfg" --duration 8s --warmup 2s --vus 32 --mode procedure --label proc
is "$rc" 0 "a run of 32 terminals at W=1 (procedure mode)" || explain
jcheck "$(rec_json proc)" '
w = rec.get("waits") or {}
check(w.get("available") is True and w.get("rate_hz") == 10, "waits available at 10 Hz",
      {k: w.get(k) for k in ("available", "rate_hz", "why")})
check(w.get("samples", 0) >= 20, "the sampler took samples in the window", w.get("samples"))
c = w.get("cost") or {}
check(isinstance(c.get("driver_cpu_pct_of_core"), float) and
      0 <= c["driver_cpu_pct_of_core"] < 50, "the sampler measured its own CPU", c)
bt = w.get("by_type") or {}
check(sorted(bt) == sorted(["new_order", "payment", "order_status", "delivery",
                            "stock_level"]), "by_type has the five types", sorted(bt))
p = bt.get("payment") or {}
ev = p.get("events") or {}
check(p.get("samples", 0) == sum(ev.values()) and p.get("samples", 0) > 0,
      "payment: samples are the sum of its events", p)
waits = sorted((k for k in ev if k != "CPU"), key=lambda k: -ev[k])
check(waits and waits[0].startswith("Lock:"), "payment: the first wait is a Lock event",
      sorted(ev.items(), key=lambda kv: -kv[1]))
check(isinstance(w.get("background"), dict), "background is there", w.get("background"))
check("waits" not in (rec.get("metrics") or {}), "waits is the record member, not metrics")
'
payline=$(printf '%s\n' "$out" | grep -E '^ +payment +[0-9]+ +CPU +[0-9]+%  Lock:')
ok $? "the summary: payment's line with its CPU share and a Lock wait first" || diag "$out"
note "summary: $payline"
csv=$(rec proc)/metrics.csv
python3 - "$csv" >"$tmp/csvcheck" 2>&1 <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ["wait_%s_sessions" % c for c in ("cpu", "client", "lock", "lwlock", "io", "ipc", "other")]
miss = [c for c in cols if c not in rows[0]]
print("PASS\tmetrics.csv has the wait columns" if not miss else "FAIL\tmetrics.csv has the wait columns\t%s" % miss)
m = [r for r in rows if r["phase"] == "m"]
vals = [r["wait_lock_sessions"] for r in m]
ok = m and all(v != "" for v in vals) and max(float(v) for v in vals) > 0
print(("PASS" if ok else "FAIL") + "\tthe measured rows have lock sessions, some above 0\t%s" % vals)
PYEOF
tap_from "$tmp/csvcheck"

# 2. Client mode: a COMMIT's waits by the transaction it ends; Client samples.
run client "$bin" run -c "$cfg" --duration 6s --warmup 1s --vus 16 --mode client --label client
is "$rc" 0 "a run of 16 terminals at W=1 (client mode)" || explain
jcheck "$(rec_json client)" '
bt = (rec.get("waits") or {}).get("by_type") or {}
ev = (bt.get("payment") or {}).get("events") or {}
waits = sorted((k for k in ev if k != "CPU"), key=lambda k: -ev[k])
check(waits and waits[0].startswith("Lock:"), "client mode: payment waits on a Lock first",
      sorted(ev.items(), key=lambda kv: -kv[1]))
n = sum((bt.get(t) or {}).get("events", {}).get("Client", 0) for t in bt)
check(n > 0, "client mode: idle-in-transaction samples are Client", n)
'

# 3. synchronous_commit on, then off.
wal_share() {
    json "$(rec_json "$1")" "(lambda e: sum(e.get(k, 0) for k in ('LWLock:WALWrite', 'IO:WALSync', 'IO:WALWrite')) / max(1, sum(e.values())))(r['waits']['by_type']['new_order']['events'])"
}
run on "$bin" run -c "$cfg" --duration 6s --warmup 1s --vus 16 --mode procedure --label sync-on
is "$rc" 0 "a run with synchronous_commit on" || explain
pg_psql "ALTER SYSTEM SET synchronous_commit = off" >/dev/null
pg_psql "SELECT pg_reload_conf()" >/dev/null
db_wait 30 pg "SELECT current_setting('synchronous_commit') = 'off'"
ok $? "synchronous_commit is off for a new session" || diag "$(pg_psql 'SHOW synchronous_commit')"
run off "$bin" run -c "$cfg" --duration 6s --warmup 1s --vus 16 --mode procedure --label sync-off
is "$rc" 0 "a run with synchronous_commit off" || explain
on=$(wal_share sync-on)
off=$(wal_share sync-off)
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)" "$on" 2>/dev/null
ok $? "synchronous_commit on: New-Order waits for the WAL (share $on)"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "$on" "$off" 2>/dev/null
ok $? "New-Order's share of WAL waits is higher with on ($on) than off ($off)"

# compare: New-Order's waits that changed most, a WAL wait first.
run cmpw "$bin" compare "$(rec sync-on)" "$(rec sync-off)"
is "$rc" 0 "compare sync-on sync-off: exit 0" || explain
noline=$(printf '%s\n' "$out" | sed -n '/^where the time went/,$p' | grep -E '^ +new_order: ')
note "compare: $noline"
case $(printf '%s\n' "$noline" | sed -E 's/^ +new_order: ([^ ]+) .*/\1/') in
LWLock:WALWrite | IO:WALSync | IO:WALWrite) pass "compare names a WAL wait first for new_order" ;;
*) fail "compare names a WAL wait first for new_order" "$out" ;;
esac
like "$noline" "*, CPU * % -> * %" "the new_order line ends with CPU's share"
run cmpwj "$bin" compare --format json "$(rec sync-on)" "$(rec sync-off)"
is "$rc" 0 "compare --format json: exit 0" || explain
python3 - "$tmp/cmpwj.out" "$(rec_json sync-on)" "$(rec_json sync-off)" >"$tmp/cmpwcheck" 2>&1 <<'PYEOF'
import json, sys
d, a, b = (json.load(open(f)) for f in sys.argv[1:])
def check(cond, desc, detail):
    print("\t".join(["PASS" if cond else "FAIL", desc] + ([] if cond else [str(detail)])))
w = d["steps"][1].get("waits") or {}
no = (w.get("by_type") or {}).get("new_order") or [{}]
first = no[0]
def share(r, k):
    e = r["waits"]["by_type"]["new_order"]["events"]
    return e.get(k, 0) / sum(e.values())
ok = first.get("event") in ("LWLock:WALWrite", "IO:WALSync", "IO:WALWrite")
check(ok, "json: new_order's first change is a WAL wait", no)
check(ok and abs(first["old_share"] - share(a, first["event"])) < 1e-9 and
      abs(first["new_share"] - share(b, first["event"])) < 1e-9 and
      first["old_share"] > first["new_share"] and first["beyond_noise"] is True,
      "json: its shares are the records', falling beyond the sampling error", first)
check(no[-1].get("event") == "CPU" and w.get("against") == 1 and isinstance(w.get("largest"), dict),
      "json: CPU last, against step 1, the largest change named", w)
PYEOF
tap_from "$tmp/cmpwcheck"

# 4. Off, and no database.
run zero "$bin" run -c "$cfg" --duration 1s --warmup 0s --vus 2 --wait-sampling 0 --label zero
is "$rc" 0 "a run with --wait-sampling 0" || explain
jcheck "$(rec_json zero)" '
w = rec.get("waits") or {}
check(w.get("available") is False and "run.wait_sampling is 0" in w.get("why", ""),
      "--wait-sampling 0: waits unavailable, saying why", w)
'
run cmpz "$bin" compare --force "$(rec sync-off)" "$(rec zero)"
is "$rc" 0 "compare of a run with waits and one without: exit 0" || explain
is "$(printf '%s\n' "$out" | sed -n '/^where the time went/,$p' | sed 1,2d)" \
    "      step 2 has no waits: run.wait_sampling is 0: off" "it says in one line why there is no diff"
cat >"$tmp/null.yaml" <<EOF
database: {driver: "null"}
results: {dir: "$tmp/results"}
EOF
run null "$bin" run -c "$tmp/null.yaml" --duration 1s --warmup 0s --vus 2 --label null
is "$rc" 0 "a run on the null driver" || explain
jcheck "$(rec_json null)" '
w = rec.get("waits") or {}
check(w.get("available") is False and "null" in w.get("why", ""),
      "the null driver: waits unavailable, saying why", w)
'
note "0048 took $(($(date +%s) - t_start)) s"
done_testing
