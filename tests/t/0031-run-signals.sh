#!/bin/sh
# 0031-run-signals.sh - an interrupted `tpccbench run` and a `tpccbench bench`
# step against a real PostgreSQL (tests/lib/pg.sh), 2 warehouses.
#
# Ctrl-C a second into a 30 s run's window: exit 130, a complete record with status
# "interrupted" and the figures of the part that was measured (the counts
# still exact), no temp files, and a consistent database.  Then one bench
# step (load + run + check in one record).  Prints TAP.  Runs as root or as
# any other user; the server, the background run and the temp directory are
# removed on exit, pass or fail.  About 30 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

# t_cleanup kills the run started in the background ($bgpid), by its pid.
t_begin t0031 pg
t_pg_load 2 "load --warehouses 2 --jobs 2: exit 0" --warehouses 2 --jobs 2

# ---------------------------------------------------------------------------
# 1. Ctrl-C a second into a 30 s run's measured window (waited for: a
# sanitized run on a loaded machine can take over 3 s to open it).

bg_run intr --duration 30s --warmup 1s --vus 4
bg_window intr
sleep 1
bg_signal INT "SIGINT sent 1 s into the measured window" "the run was still running in its window" \
    "$tmp/intr.err"
# It must stop promptly: wait at most 30 s.
bg_wait 30 "after SIGINT, the run"
is "$rc" 130 "Ctrl-C: exit 130 (stopped $waited_s s after the signal)" ||
    diag "stderr:" "$(cat "$tmp/intr.err")"
d=$(rec intr)
if [ -n "$d" ] && [ -f "$d/run.json" ]; then pass "Ctrl-C: results/*-intr/run.json exists"; else
    fail "Ctrl-C: results/*-intr/run.json exists" "$(ls -R "$tmp/results" 2>&1)"
fi
jcheck "$d/run.json" '
run = rec.get("run", {})
tx = run.get("transactions", {})
check(rec.get("status") == "interrupted", "Ctrl-C: status interrupted", "got: %r" % rec.get("status"))
check(sorted(tx) == sorted(["new_order", "payment", "order_status", "delivery", "stock_level"]),
      "Ctrl-C: run.transactions has the five types", "got: %r" % sorted(tx))
ms = run.get("measured_seconds", -1)
check(0 < ms < 10, "Ctrl-C: 0 < measured_seconds %r < 10" % ms)
n = tx.get("new_order", {}).get("count", 0)
check(n > 0, "Ctrl-C: New-Orders were measured (%r)" % n)
check(run.get("notpm_counts_agree") is True and run.get("new_orders_client") == run.get("new_orders_db"),
      "Ctrl-C: the client and database New-Order counts still agree",
      "client %r, db %r" % (run.get("new_orders_client"), run.get("new_orders_db")))
'
is "$(find "$tmp/results" -name '*.tmp*' | sort)" "" "Ctrl-C: no temp files (*.tmp*) in results"

run check1 "$bin" check -c "$cfg" --conditions 1-4
is "$rc" 0 "check --conditions 1-4 after the interrupted run: exit 0" || explain
is "$(printf '%s\n' "$out" | sed -n 's/^  ok  *\([0-9][0-9]*\)  .*/\1/p' | paste -sd' ' -)" \
    "1 2 3 4" "check: conditions 1 to 4 ok"

# ---------------------------------------------------------------------------
# 2. bench: load + run + check, one record.

# A mark that only a fresh load removes (no transaction writes item).
pg_psql "update item set i_name = 'MARK-0031' where i_id = 1" >/dev/null
run bench "$bin" bench -c "$cfg" --label b1 --change "test" --duration 3s --warmup 1s --vus 2
is "$rc" 0 "bench --label b1 --change test --duration 3s: exit 0" || explain
is "$(printf '%s\n' "$out" | tail -n 1)" "record: $(rec b1)/run.json" "bench names its record"
is "$(rec b1 | wc -l | tr -d ' ')" 1 "bench: one record folder for the step"
jcheck "$(rec b1)/run.json" '
check(rec.get("status") == "complete", "bench: status complete", "got: %r" % rec.get("status"))
check(rec.get("label") == "b1" and rec.get("change") == "test",
      "bench: label b1, change test", "got: %r %r" % (rec.get("label"), rec.get("change")))
for k in ("load", "run", "check"):
    check(isinstance(rec.get(k), dict) and rec[k], "bench: the record has a %s section" % k,
          "keys: %r" % sorted(rec))
check(rec.get("check", {}).get("ok") is True, "bench: check.ok true",
      "check: %r" % rec.get("check"))
run = rec.get("run", {})
check(run.get("transactions", {}).get("new_order", {}).get("count", 0) > 0
      and run.get("notpm_counts_agree") is True,
      "bench: New-Orders ran and the counts agree", "run: %r" % {k: run.get(k) for k in
      ("new_orders_client", "new_orders_db", "notpm_counts_agree")})
check(2.9 < run.get("measured_seconds", 0) < 4.5, "bench: measured_seconds about 3",
      "got: %r" % run.get("measured_seconds"))
'
# The bench step loaded afresh: the mark is gone.
is "$(pg_psql "select count(*) from item where i_name = 'MARK-0031'")" 0 \
    "bench: loaded afresh (the mark set in item before the step is gone)"

note "elapsed: $(($(date +%s) - t_start)) s"
done_testing
