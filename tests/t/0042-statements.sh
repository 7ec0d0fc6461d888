#!/bin/sh
# 0042-statements.sh - top statements (src/run/msrc_stmts.c): the private
# PostgreSQL loads pg_stat_statements (track = all) and creates it; a run's
# counters over its window, each statement typed by its text:
#
#  1. procedure mode, 16 terminals at W=1: run.json "statements" is
#     available, with the window's length and the reader's cost; New-Order's
#     call (SELECT * FROM tpcc_new_order) is typed new_order and its calls
#     match the committed New-Orders over the same time (0.8 to 1.25 times
#     new_orders_client scaled from the run's window to the statements'),
#     its mean time is its total over its calls; a statement inside
#     tpcc_payment (the warehouse's UPDATE, seen with track = all) is typed
#     payment, not at top level; the summary shows five statements, by total
#     time, one of them New-Order's; the HTML report's table has ten, one of
#     them New-Order's;
#  2. client mode: New-Order's first statement (whose constants the server
#     shows as $n) is typed new_order, with calls;
#  3. the same server as a user's (database.managed false) without the
#     extension: the summary says once that it is not installed, and how to
#     install it; run.json says it unavailable with the same reason.
# Prints TAP.  About 60 s (the load).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_private t0042 pgdata
pg=$t_datadir
res=$tmp/results

run load "$bin" load --datadir "$pg" --warehouses 1 --results-dir "$res" --keep-server --label load
is "$rc" 0 "load W=1 on the private server, kept" || { explain; done_testing; exit 1; }

# 1. Procedure mode.
run proc "$bin" run --datadir "$pg" --results-dir "$res" --duration 6s --warmup 2s --vus 16 \
    --mode procedure --label proc
is "$rc" 0 "a run of 16 terminals at W=1 (procedure mode)" || explain
jcheck "$(rec_json proc)" '
s = rec.get("statements") or {}
check(s.get("available") is True and s.get("source") == "pg_stat_statements",
      "statements available from pg_stat_statements", {k: s.get(k) for k in ("available", "why")})
check(3 < s.get("window_s", 0) < 12, "the window of the readings is about the run'"'"'s", s.get("window_s"))
c = s.get("cost") or {}
check(isinstance(c.get("driver_cpu_pct_of_core"), float), "the reader measured its own CPU", c)
lst = s.get("by_total_time") or []
check(len(lst) == s.get("count") and len(lst) >= 10, "every statement of the window is listed",
      len(lst), s.get("count"))
check(all(lst[i]["total_ms"] >= lst[i + 1]["total_ms"] for i in range(len(lst) - 1)),
      "the list is by total time, most first")
no = [x for x in lst if x["toplevel"] and "tpcc_new_order(" in x["query"]]
check(len(no) == 1 and no[0]["type"] == "new_order", "New-Order'"'"'s call is typed new_order",
      [(x["type"], x["query"][:60]) for x in no])
r = rec.get("run") or {}
if no:
    want = r.get("new_orders_client", 0) * s.get("window_s", 0) / max(r.get("measured_seconds", 1), 1e-9)
    check(want > 0 and 0.8 <= no[0]["calls"] / want <= 1.25,
          "its calls match the committed New-Orders over the window", no[0]["calls"], want)
    check(abs(no[0]["mean_ms"] * no[0]["calls"] - no[0]["total_ms"]) < 0.01 * no[0]["total_ms"] + 0.01,
          "its mean time is its total over its calls", no[0])
    check(no[0]["shared_blks_hit"] > 0, "its shared blocks hit are counted", no[0])
inner = [x for x in lst if not x["toplevel"] and x["query"].startswith("UPDATE warehouse")]
check(inner and inner[0]["type"] == "payment" and inner[0]["calls"] > 0,
      "the UPDATE of warehouse inside tpcc_payment is typed payment (track = all)",
      [(x["type"], x["calls"], x["query"][:60]) for x in inner])
'
head=$(printf '%s\n' "$out" | grep -c '^  top statements (pg_stat_statements, [0-9]* in the window, by total time):$')
is "$head" 1 "the summary has the top statements' heading once" || diag "$out"
lines=$(printf '%s\n' "$out" | sed -n '/^  top statements/,/^[^ ]/p' | grep -cE '^    [a-z_-]+ +[0-9.]+ ms +[0-9]+ calls +[0-9.]+ ms/call  ')
is "$lines" 5 "the summary lists the five costliest" || diag "$out"
printf '%s\n' "$out" | sed -n '/^  top statements/,/^[^ ]/p' | grep -qE '^    new_order +[0-9.]+ ms'
ok $? "one of them is New-Order's" || diag "$out"

run report "$bin" report "$(rec proc)" -o "$tmp/report.html"
is "$rc" 0 "a report of the run" || explain
python3 - "$tmp/report.html" >"$tmp/htmlcheck" 2>&1 <<'PYEOF'
import re, sys
html = open(sys.argv[1]).read()
sec = html[html.find('<section id="statements">'):]
sec = sec[:sec.find("</section>")]
rows = re.findall(r"<tr><td>([a-z_-]+)</td><td>(\d+)</td>", sec)
ok = sec and len(rows) == 10 and ("new_order" in [t for t, _ in rows])
print(("PASS" if ok else "FAIL") + "\tthe report's top statements: ten rows, New-Order's among them\t%s" % rows)
PYEOF
tap_from "$tmp/htmlcheck"

# 2. Client mode: constants the server shows as $n.
run client "$bin" run --datadir "$pg" --results-dir "$res" --duration 4s --warmup 1s --vus 8 \
    --mode client --label client
is "$rc" 0 "a run of 8 terminals (client mode)" || explain
jcheck "$(rec_json client)" '
lst = (rec.get("statements") or {}).get("by_total_time") or []
no = [x for x in lst if x["query"].startswith("WITH d AS (") and "d_next_o_id" in x["query"]]
check(no and no[0]["type"] == "new_order" and no[0]["calls"] > 0,
      "client mode: New-Order'"'"'s first statement is typed new_order",
      [(x["type"], x["calls"], x["query"][:60]) for x in no])
'

# 3. Without the extension, on the same server reached as a user's.
sock=$(sed -n 5p "$pg/postmaster.pid")
port=$(sed -n 4p "$pg/postmaster.pid")
cat >"$tmp/user.yaml" <<EOF
database: {driver: postgres, managed: false, conninfo: "host=$sock port=$port user=tpcc dbname=tpcc"}
results: {dir: "$res"}
EOF
run drop "$bin" run -c "$tmp/user.yaml" --duration 1s --warmup 0s --vus 2 --label probe
is "$rc" 0 "the private server reached as a user's server" || explain
PGHOST=$sock PGPORT=$port psql -X -q -U tpcc -d tpcc -c "DROP EXTENSION pg_stat_statements" \
    >"$tmp/drop.out" 2>&1
is "$?" 0 "the extension dropped" || diag "$(cat "$tmp/drop.out")"
run none "$bin" run -c "$tmp/user.yaml" --duration 2s --warmup 1s --vus 2 --label none
is "$rc" 0 "a run on a server without the extension" || explain
n=$(printf '%s\n' "$out" | grep -c 'pg_stat_statements')
is "$n" 1 "the summary names pg_stat_statements once" || diag "$out"
like "$out" "*top statements unavailable (pg_stat_statements is not installed in this database: set shared_preload_libraries = 'pg_stat_statements'*CREATE EXTENSION pg_stat_statements*" \
    "it says it is not installed, and how to install it"
jcheck "$(rec_json none)" '
s = rec.get("statements") or {}
check(s.get("available") is False and "not installed" in s.get("why", "") and
      "CREATE EXTENSION" in s.get("why", ""), "run.json: unavailable, saying why and how", s)
'
note "0049 took $(($(date +%s) - t_start)) s"
done_testing
