#!/bin/sh
# 0030-run.sh - `tpccbench run` against a real PostgreSQL (tests/lib/pg.sh),
# 2 warehouses, 4 VUs, 10 s measured: the run record's figures are checked
# against what the database holds.
#
# The window opens at a barrier (every VU idle), so the New-Orders of the
# measured window are exactly the newest run.new_orders_db orders; every
# New-Order figure is compared with those rows.  A Payment's window is known
# only up to the barrier's instant, which lies between the last warm-up and
# the first measured order: the figures must lie between the two counts.
# The deferred deliveries in delivery.log must be exactly the orders the
# database shows delivered.  A second run at isolation serializable with no
# warm-up checks the New-Order count against our own before/after reading.
# Condition 11 holds after the run in its generalized form and fails when one
# customer's c_delivery_cnt is off by one.
# Prints TAP.  Runs as root or as any other user; the server and the temp
# directory are removed on exit, pass or fail.  About 40 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0030 pg
t_pg_load 2 "load --warehouses 2 --jobs 2: exit 0" --warehouses 2 --jobs 2

# ---------------------------------------------------------------------------
# 1. A 10 s run at read committed.

s0=$(pg_psql 'select sum(d_next_o_id) from district')
t0=$(pg_psql 'select localtimestamp')
run it "$bin" run -c "$cfg" --vus 4 --duration 10s --warmup 2s --label it
is "$rc" 0 "run --vus 4 --duration 10s --warmup 2s: exit 0" || explain
s1=$(pg_psql 'select sum(d_next_o_id) from district')
d=$(rec it)
[ -n "$d" ] && [ -f "$d/run.json" ] || bail_out "no run record results/*-it/run.json"
like "$out" "*NOTPM*" "run prints its NOTPM"
is "$(printf '%s\n' "$out" | tail -n 1)" "record: $d/run.json" "run names its record on stdout"

# What the database holds: orders of the run, delivered orders, new payments,
# the load's NURand constants, and counts.
pg_psql "select o_w_id, o_d_id, o_id, o_ol_cnt, o_all_local,
        (extract(epoch from o_entry_d) * 1000000)::bigint,
        (select count(*) from order_line where ol_w_id = o_w_id and ol_d_id = o_d_id
            and ol_o_id = o_id),
        (select count(*) from order_line where ol_w_id = o_w_id and ol_d_id = o_d_id
            and ol_o_id = o_id and ol_supply_w_id <> ol_w_id)
    from orders where o_id > 3000" >"$tmp/db_orders" 2>&1
pg_psql "select o_w_id, o_d_id, o_id, o_carrier_id from orders
    where o_carrier_id is not null and o_id >= 2101" >"$tmp/db_delivered" 2>&1
pg_psql "select (extract(epoch from h_date) * 1000000)::bigint, h_w_id, h_d_id, h_c_w_id, h_c_d_id
    from history where h_date >= '$t0'" >"$tmp/db_history" 2>&1
pg_psql "select 'meta', c_last, c_id, ol_i_id from tpcc_meta
    union all select 'new_order', count(*), 0, 0 from new_order
    union all select 'delivery_cnt', sum(c_delivery_cnt), 0, 0 from customer
    union all select 'history', count(*), 0, 0 from history
    union all select 'remote_lines', count(*), 0, 0 from order_line
        where ol_o_id > 3000 and ol_supply_w_id <> ol_w_id" >"$tmp/db_facts" 2>&1

python3 - "$d" "$tmp" "$s0" "$s1" "$TPCC_TEST_PASSWORD" >"$tmp/checks" 2>&1 <<'EOF'
import json, os, sys

d, tmp, s0, s1, password = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
TYPES = ["new_order", "payment", "order_status", "delivery", "stock_level"]


def check(cond, desc, *details):
    if cond:
        print("PASS\t" + desc)
    else:
        print("\t".join(["FAIL", desc] + [str(x) for x in details]))
    return cond


def rows(name):
    with open(os.path.join(tmp, name)) as f:
        return [line.rstrip("\n").split("|") for line in f if line.strip()]


def get(doc, path):
    for k in path.split("."):
        if not isinstance(doc, dict) or k not in doc:
            return None
        doc = doc[k]
    return doc


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


try:
    with open(os.path.join(d, "run.json")) as f:
        rec = json.load(f)
    check(True, "run.json parses")
except Exception as ex:
    check(False, "run.json parses", ex)
    sys.exit(0)
run = rec.get("run", {})
tx = run.get("transactions", {})

# -- The record's fields.
check(rec.get("status") == "complete", "status complete", "got: %r" % rec.get("status"))
check(rec.get("label") == "it" and rec.get("change") == "" and rec.get("kind") == "run",
      "label it, change \"\", kind run",
      "got: %r %r %r" % (rec.get("label"), rec.get("change"), rec.get("kind")))
check(get(rec, "tool.name") == "tpccbench" and isinstance(get(rec, "tool.version"), str),
      "tool.name and tool.version", "got: %r" % rec.get("tool"))
check(isinstance(rec.get("config"), dict) and get(rec, "config.run.virtual_users") == 4
      and get(rec, "config.run.duration_s") == 10 and get(rec, "config.run.warmup_s") == 2,
      "config: virtual_users 4, duration_s 10, warmup_s 2", "got: %r" % get(rec, "config.run"))
check(isinstance(rec.get("environment"), dict) and rec["environment"],
      "environment is a non-empty object", "got: %r" % rec.get("environment"))
check(get(rec, "dbms.name") == "PostgreSQL" and bool(get(rec, "dbms.version")),
      "dbms.name PostgreSQL and a dbms.version", "got: %r" % rec.get("dbms"))
missing = [k for k in ("notpm", "notpm_db", "tps", "measured_seconds", "rtt_median_ms",
                       "new_orders_client", "new_orders_db") if not num(run.get(k))]
check(not missing, "run.notpm, notpm_db, tps, measured_seconds, rtt_median_ms are numbers",
      "missing: %s" % missing)
check(sorted(tx) == sorted(TYPES), "run.transactions has the five types", "got: %s" % sorted(tx))
for t in TYPES:
    o = tx.get(t, {})
    keys = ["count", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p99_9_ms", "max_ms", "retries"]
    bad = [k for k in keys if not num(o.get(k))]
    errs = o.get("errors")
    check(not bad and isinstance(errs, dict)
          and all(num(errs.get(k)) for k in ("retryable", "connection", "other")),
          "%s: count, p50..p99_9, max, retries, errors{retryable,connection,other}" % t,
          "missing: %s" % bad, "errors: %r" % errs)
    if bad:
        continue
    pcts = [o[k] for k in ("p50_ms", "p90_ms", "p95_ms", "p99_ms", "p99_9_ms", "max_ms")]
    check(all(a <= b for a, b in zip(pcts, pcts[1:])) and pcts[0] > 0,
          "%s: 0 < p50 <= p90 <= p95 <= p99 <= p99.9 <= max" % t, "got: %s" % pcts)
    check(sum(errs.values()) == 0, "%s: no errors at read committed" % t, "errors: %r" % errs)
check(num(get(run, "connect.total_s")) and get(run, "connect.total_s") > 0,
      "run.connect.total_s > 0", "got: %r" % run.get("connect"))
check(num(run.get("rtt_median_ms")) and run["rtt_median_ms"] > 0, "run.rtt_median_ms > 0",
      "got: %r" % run.get("rtt_median_ms"))
ms = run.get("measured_seconds", 0)
check(10 <= ms < 11.5, "measured_seconds in [10, 11.5)", "got: %r" % ms)

# NURand: c_load is the load's (tpcc_meta), c_run differs as clause 2.1.6.1 says.
facts = {r[0]: r[1:] for r in rows("db_facts")}
cl, cr = run.get("nurand_c_load", {}), run.get("nurand_c_run", {})
meta = [int(x) for x in facts.get("meta", [-1, -1, -1])]
check([cl.get("c_last"), cl.get("c_id"), cl.get("ol_i_id")] == meta,
      "nurand_c_load is the load's (tpcc_meta)", "record: %r" % cl, "tpcc_meta: %r" % meta)
delta = abs(cr.get("c_last", -1000) - cl.get("c_last", 0))
check(65 <= delta <= 119 and delta not in (96, 112),
      "|nurand_c_run.c_last - nurand_c_load.c_last| = %d: in 65..119, not 96 or 112" % delta,
      "c_load %r, c_run %r" % (cl, cr))
check(0 <= cr.get("c_id", -1) <= 1023 and 0 <= cr.get("ol_i_id", -1) <= 8191,
      "nurand_c_run.c_id in 0..1023, ol_i_id in 0..8191", "got: %r" % cr)

# -- Counts: the client, the tool's database reading and ours.
no = tx.get("new_order", {})
n_client, n_db = run.get("new_orders_client"), run.get("new_orders_db")
check(run.get("notpm_counts_agree") is True, "run.notpm_counts_agree is true",
      "got: %r" % run.get("notpm_counts_agree"))
check(n_client == n_db == no.get("count") and n_db > 0,
      "new_orders_client = new_orders_db = transactions.new_order.count (%r)" % n_db,
      "client %r, db %r, count %r" % (n_client, n_db, no.get("count")))
warm = s1 - s0 - n_db
check(0 < warm < n_db / 2,
      "our sum(d_next_o_id) rose by %d: the window's %d plus %d of the 2 s warm-up"
      % (s1 - s0, n_db, warm), "before %d, after %d" % (s0, s1))
check(abs(run.get("notpm", 0) - n_client * 60.0 / ms) < 1e-6 * max(1, n_client)
      and abs(run.get("notpm_db", 0) - n_db * 60.0 / ms) < 1e-6 * max(1, n_db),
      "notpm = count x 60 / measured_seconds (notpm_db likewise)",
      "notpm %r notpm_db %r count %r seconds %r" % (run.get("notpm"), run.get("notpm_db"),
                                                  n_client, ms))
committed = sum(tx.get(t, {}).get("count", 0) for t in TYPES)
check(abs(run.get("tps", 0) - committed / ms) < 1e-6 * max(1, committed),
      "tps = committed transactions / measured_seconds",
      "tps %r, committed %d, seconds %r" % (run.get("tps"), committed, ms))

# -- The mix.
for t in TYPES:
    o = tx.get(t, {})
    check(o.get("count", 0) > 0, "%s ran (count %r)" % (t, o.get("count")))
    share, mix = o.get("share_pct", -99), o.get("mix_pct", -99)
    check(abs(share - mix) <= 3, "%s: share %.2f %% within 3 points of mix %r %%" % (t, share, mix))

# -- The deck: the spec's 23 cards by default, 10/10/1/1/1.  Each VU deals
# whole decks; only the partial deck at each end of its window is off, by at
# most k cards of a type with k in the deck: the counts are within 2 x k x 4
# VUs of the deck's share of all of them.
deck = run.get("deck", {})
check([deck.get(k) for k in ["cards"] + TYPES] == [23, 10, 10, 1, 1, 1],
      "run.deck: 23 cards, 10/10/1/1/1 (the default)", "got: %r" % deck)
executed = sum(tx.get(t, {}).get("count", 0) + tx.get(t, {}).get("rolled_back", 0) for t in TYPES)
for t in TYPES:
    o = tx.get(t, {})
    k = deck.get(t, 0)
    n = o.get("count", 0) + o.get("rolled_back", 0)
    check(abs(n - executed * k / 23.0) <= 2 * k * 4 and abs(o.get("mix_pct", 0) - 100.0 * k / 23) < 1e-6,
          "%s: %d of %d transactions, within %d of the deck's %.3f %%" % (t, n, executed, 2 * k * 4,
                                                                        100.0 * k / 23),
          "mix_pct %r" % o.get("mix_pct"))

# -- Rollbacks.
rb = no.get("rolled_back", -1)
rb_pct = 100.0 * rb / (no.get("count", 0) + rb) if rb > 0 else 0
check(rb > 0 and 0.2 <= rb_pct <= 3,
      "New-Order rollbacks: %r, %.2f %% of %r orders (in 0.2..3 %%)" % (rb, rb_pct,
                                                                       no.get("count", 0) + rb))

# -- Validity: every item has value/min/max/ok, the verdict follows the bounds.
val = run.get("validity", {})
items = ["new_order_rollback_pct", "new_order_mean_lines", "remote_order_line_pct",
         "remote_payment_pct", "payment_by_last_name_pct", "order_status_by_last_name_pct",
         "skipped_delivery_pct", "new_order_p90_s", "payment_p90_s", "order_status_p90_s",
         "delivery_p90_s", "stock_level_p90_s"]
for k in items:
    it = val.get(k)
    okf = isinstance(it, dict) and all(num(it.get(x)) for x in ("value", "min", "max")) \
        and isinstance(it.get("ok"), bool)
    check(okf, "validity.%s has value, min, max, ok" % k, "got: %r" % (it,))
    if okf:
        inside = it["min"] <= it["value"] <= it["max"]
        check(it["ok"] == (inside or it.get("applies") is False),
              "validity.%s: ok %s agrees with %g in [%g, %g]" % (k, it["ok"], it["value"],
                                                                it["min"], it["max"]))
check(isinstance(val.get("valid"), bool)
      and val.get("valid") == all(v.get("ok") for v in val.values() if isinstance(v, dict)),
      "validity.valid is the and of every ok", "got: %r" % val.get("valid"))
# The mix minimums of clause 5.2.3 over the window, the 90th percentile not
# under the mean, and n, target and standard error on every line.
for k, lo in (("payment_share_pct", 43.0), ("order_status_share_pct", 4.0),
              ("delivery_share_pct", 4.0), ("stock_level_share_pct", 4.0)):
    it = val.get(k) or {}
    t = k[:-len("_share_pct")]
    check(it.get("min") == lo and it.get("max") is None and it.get("rule") == ">= %.1f" % lo
          and abs(it.get("value", -1) - tx.get(t, {}).get("share_pct", -2)) < 1e-9
          and it.get("n") == executed,
          "validity.%s: the window's share %.3f %% of %r, rule >= %.1f" % (k, it.get("value", -1),
                                                                          it.get("n"), lo),
          "got: %r" % (it,))
    check(it.get("ok") is True and it.get("verdict") == "ok",
          "validity.%s: the default deck clears its minimum" % k, "got: %r" % (it,))
for t in TYPES:
    it = val.get(t + "_p90_vs_mean_ms") or {}
    o = tx.get(t, {})
    check(abs(it.get("value", -1) - o.get("p90_ms", -2)) < 1e-6
          and abs(it.get("min", -1) - o.get("mean_ms", -2)) < 1e-6
          and it.get("ok") == (o.get("p90_ms", 0) >= o.get("mean_ms", 0) - 1.0),
          "validity.%s_p90_vs_mean_ms: p90 %.3f ms against the mean %.3f ms, to 1 ms" % (
              t, o.get("p90_ms", -1), o.get("mean_ms", -1)), "got: %r" % (it,))
bad = [k for k, it in val.items() if isinstance(it, dict) and not (
    isinstance(it.get("n"), int) and (it.get("se") is None or num(it.get("se")))
    and it.get("verdict") in ("ok", "n/a", "too few to judge", "out of bounds"))]
check(not bad, "every validity line has n, se (a number or null) and a verdict", "bad: %r" % bad)
se = (val.get("new_order_rollback_pct") or {}).get("se") or 0
n_no = (val.get("new_order_rollback_pct") or {}).get("n") or 1
check(abs(se - 100 * (0.01 * 0.99 / n_no) ** 0.5) < 1e-9,
      "validity.new_order_rollback_pct.se = 100 sqrt(0.01 x 0.99 / n) with n = %r" % n_no,
      "got: %r" % se)
want = ("NOT valid" if any(it.get("verdict") == "out of bounds" for it in val.values()
                           if isinstance(it, dict))
        else "undetermined: run longer" if any(it.get("verdict") == "too few to judge"
                                                for it in val.values() if isinstance(it, dict))
        else "valid")
check(val.get("verdict") == want, "validity.verdict %r follows the lines' verdicts" % want,
      "got: %r" % val.get("verdict"))
v = {k: (val.get(k) or {}).get("value", -1) for k in items}
check(abs(v["new_order_rollback_pct"] - rb_pct) < 1e-6,
      "validity.new_order_rollback_pct = rolled_back / (count + rolled_back)",
      "got %r, want %r" % (v["new_order_rollback_pct"], rb_pct))
for t in ("new_order", "payment", "order_status", "stock_level"):
    check(abs(v[t + "_p90_s"] * 1000 - tx.get(t, {}).get("p90_ms", -1)) < 0.01,
          "validity.%s_p90_s = transactions.%s.p90_ms / 1000" % (t, t),
          "got %r s vs %r ms" % (v[t + "_p90_s"], tx.get(t, {}).get("p90_ms")))

# -- The New-Orders of the window in the database: the newest n_db orders.
orders = [[int(x) for x in r] for r in rows("db_orders")]
check(len(orders) == s1 - s0, "the database holds %d orders with o_id > 3000 (our count)"
      % len(orders), "got: %d" % len(orders))
bad = [o for o in orders if o[6] != o[3] or o[4] != (1 if o[7] == 0 else 0)]
check(not bad, "every new order: o_ol_cnt = its lines, o_all_local = no remote line",
      "first offenders (w,d,o,ol_cnt,all_local,t,lines,remote): %r" % bad[:3])
orders.sort(key=lambda o: o[5])
meas, warmo = orders[len(orders) - n_db:], orders[:len(orders) - n_db]
check(len(meas) == n_db and warmo and meas and warmo[-1][5] < meas[0][5],
      "the window's orders all started after the warm-up's (a barrier between them)",
      "last warm-up at %r, first measured at %r" % (warmo[-1][5] if warmo else None,
                                                   meas[0][5] if meas else None))
lines_db = sum(o[3] for o in meas)
remote_db = sum(o[7] for o in meas)
n_orders = n_db + rb
lines_client = v["new_order_mean_lines"] * n_orders
# The client also counts the lines of its rolled-back orders (5..15 each).
check(lines_db + 5 * rb - 0.01 <= lines_client <= lines_db + 15 * rb + 0.01,
      "new_order_mean_lines %.4f x %d orders = %.1f lines: the database's %d (mean %.4f) plus "
      "5..15 per rollback" % (v["new_order_mean_lines"], n_orders, lines_client, lines_db,
                              lines_db / max(1, n_db)))
remote_client = v["remote_order_line_pct"] / 100.0 * lines_client
check(remote_db > 0 and remote_db - 0.01 <= remote_client <= remote_db + 15 * rb + 0.01,
      "remote_order_line_pct %.3f %% = %.1f remote lines: the database's %d in the window "
      "(plus at most those of rollbacks)" % (v["remote_order_line_pct"], remote_client,
                                             remote_db))
all_remote = int(facts.get("remote_lines", [0])[0])
check(all_remote > 0, "order_line rows with ol_supply_w_id <> ol_w_id, ol_o_id > 3000: %d"
      % all_remote)

# -- Payments: the barrier lies between the last warm-up and the first measured order.
hist = [[int(x) for x in r] for r in rows("db_history")]
check(len(hist) == int(facts.get("history", [0])[0]) - 60000,
      "every new history row is newer than the run's start (%d)" % len(hist))
remote_all = sum(1 for h in hist if h[3] != h[1])
check(remote_all > 0 and all(h[3] != h[1] or h[4] == h[2] for h in hist),
      "history: %d remote payments (h_c_w_id <> h_w_id); a home customer is in h_d_id"
      % remote_all)
if warmo and meas:
    lo_t, hi_t = warmo[-1][5], meas[0][5]
    sure = [h for h in hist if h[0] >= hi_t]
    maybe = [h for h in hist if h[0] > lo_t]
    pay = tx.get("payment", {}).get("count", -1)
    check(len(sure) <= pay <= len(maybe),
          "payment.count %d: between the database's %d and %d payments of the window"
          % (pay, len(sure), len(maybe)))
    rp = v["remote_payment_pct"] / 100.0 * pay
    r_lo = sum(1 for h in sure if h[3] != h[1])
    r_hi = sum(1 for h in maybe if h[3] != h[1])
    check(r_lo - 0.01 <= rp <= r_hi + 0.01,
          "remote_payment_pct %.3f %% = %.1f payments: between the database's %d and %d"
          % (v["remote_payment_pct"], rp, r_lo, r_hi))

# -- Deferred deliveries: delivery.log is exactly what the database delivered.
dl = run.get("delivery", {})
check(dl.get("mode") == "deferred" and dl.get("completed", 0) > 0,
      "run.delivery: deferred, completed %r > 0" % dl.get("completed"))
check(dl.get("completed") == tx.get("delivery", {}).get("count") and dl.get("pending_at_end") == 0,
      "every delivery queued in the window completed (completed = delivery.count, none pending)",
      "completed %r, count %r, pending %r" % (dl.get("completed"),
                                             tx.get("delivery", {}).get("count"),
                                             dl.get("pending_at_end")))
dtx = tx.get("delivery", {})
check(dtx.get("database_work_of") == "delivery workers"
      and abs(dtx.get("round_trips_per_tx", 0) - 1.0) < 1e-9 and dtx.get("mean_in_tx_ms", 0) > 0,
      "deferred Delivery: the record gives the workers' round trips (1 per call in procedure "
      "mode) and time in transaction (> 0)",
      "got %r" % {k: dtx.get(k) for k in ("database_work_of", "round_trips_per_tx", "mean_in_tx_ms")})
logged, dup, badl, n_lines = {}, [], [], 0
try:
    with open(os.path.join(d, "delivery.log")) as f:
        for line in f:
            n_lines += 1
            fields = dict(p.split("=", 1) for p in line.split() if "=" in p)
            try:
                w, carrier = int(fields["w_id"]), int(fields["carrier"])
                pairs = [p.split(":") for p in fields["delivered"].split(",")]
                pairs = [(int(a), int(b)) for a, b in pairs]
                skipped = int(fields["skipped"])
                ok = (1 <= w <= 2 and 1 <= carrier <= 10 and [p[0] for p in pairs] == list(range(1, 11))
                      and skipped == sum(1 for p in pairs if p[1] == 0)
                      and "queued" in fields and "completed" in fields)
            except (KeyError, ValueError):
                ok = False
            if not ok:
                badl.append(line.strip())
                continue
            for dd, o in pairs:
                if o > 0:
                    key = (w, dd, o)
                    if key in logged:
                        dup.append(key)
                    logged[key] = carrier
    check(True, "delivery.log exists (%d lines)" % n_lines)
except OSError as ex:
    check(False, "delivery.log exists", ex)
check(n_lines >= dl.get("completed", 0) and not badl,
      "delivery.log: %d lines (>= completed), each with w_id, carrier, 10 district:o_id pairs"
      % n_lines, "bad lines: %r" % badl[:3])
check(not dup, "no (w_id, d_id, o_id) delivered twice in delivery.log", "twice: %r" % dup[:5])
delivered = {(int(r[0]), int(r[1]), int(r[2])): int(r[3]) for r in rows("db_delivered")}
check(set(logged) == set(delivered) and logged,
      "delivery.log names exactly the %d orders the database shows delivered" % len(delivered),
      "only in the log: %r" % sorted(set(logged) - set(delivered))[:5],
      "only in the database: %r" % sorted(set(delivered) - set(logged))[:5])
wrong = [k for k in logged if k in delivered and delivered[k] != logged[k]]
check(not wrong, "each delivered order has the carrier of its delivery.log line",
      "differ: %r" % wrong[:5])
n_new_order = int(facts.get("new_order", [0])[0])
check(n_new_order == 18000 + (s1 - s0) - len(delivered),
      "new_order rows: 18000 + %d new - %d delivered = %d" % (s1 - s0, len(delivered),
                                                             n_new_order))
check(int(facts.get("delivery_cnt", [0])[0]) == len(delivered),
      "sum(c_delivery_cnt) = the %d delivered orders" % len(delivered),
      "got: %r" % facts.get("delivery_cnt"))

# -- series.csv: one row a second.
try:
    with open(os.path.join(d, "series.csv")) as f:
        lines = f.read().splitlines()
    head = lines[0].split(",")
    srows = [dict(zip(head, l.split(","))) for l in lines[1:]]
    check("second" in head and "phase" in head and "new_order_tps" in head,
          "series.csv has a header with second, phase, new_order_tps", "header: %r" % head)
    secs = [int(r["second"]) for r in srows]
    check(secs == list(range(1, len(secs) + 1)), "series.csv: seconds 1, 2, 3, ...",
          "got: %r" % secs)
    m = [r for r in srows if r["phase"] == "measure"]
    check(9 <= len(m) <= 11, "series.csv: %d rows with phase measure (9..11)" % len(m),
          "phases: %r" % [r["phase"] for r in srows])
    phases = "".join("m" if r["phase"] == "measure" else "w" for r in srows)
    check(phases.startswith("w") and "wm" in phases and "mw" not in phases,
          "series.csv: warmup rows, then measure rows", "phases: %s" % phases)
    tot = sum(float(r["new_order_tps"]) for r in m)
    check(abs(tot - n_client) <= 0.15 * n_client,
          "series.csv: sum of new_order_tps x 1 s over the measure rows %.0f within 15 %% of %d"
          % (tot, n_client))
except (OSError, IndexError, KeyError, ValueError) as ex:
    check(False, "series.csv exists and parses", ex)

# -- The password is in no file of the results.
leaks = []
for base, _, files in os.walk(os.path.dirname(d)):
    for name in files:
        with open(os.path.join(base, name), "rb") as f:
            if password.encode() in f.read():
                leaks.append(os.path.join(base, name))
check(not leaks, "the password is in no file of results/", "in: %r" % leaks)
EOF
tap_from "$tmp/checks"
found=$(grep -rlF -- "$TPCC_TEST_PASSWORD" "$tmp/results" "$tmp"/*.out "$tmp"/*.err 2>/dev/null)
is "$found" "" "grep -rF finds the password in no record and no output"

run check1 "$bin" check -c "$cfg" --conditions 1-4
is "$rc" 0 "check --conditions 1-4 after the run: exit 0" || explain
is "$(printf '%s\n' "$out" | sed -n 's/^  ok  *\([0-9][0-9]*\)  .*/\1/p' | paste -sd' ' -)" \
    "1 2 3 4" "check: conditions 1 to 4 ok"

# Condition 11 after the run: generalized, count(orders) - count(new_order) =
# 2100 + sum(c_delivery_cnt) per district; one customer's delivery count off
# by one breaks it for that district, and the offender is named.
run check11 "$bin" check -c "$cfg" --conditions 11
is "$rc" 0 "check --conditions 11 after the run: exit 0" || explain
like "$out" "*ok   11  count(orders) - count(new_order) = 2100 + sum(c_delivery_cnt) per district (11 generalized)*" \
    "check: condition 11 in its generalized form after the run"
pg_psql "update customer set c_delivery_cnt = c_delivery_cnt + 1 where c_w_id = 2 and c_d_id = 7 and c_id = 5" >/dev/null
run check11b "$bin" check -c "$cfg" --conditions 11
is "$rc" 1 "check --conditions 11 with one c_delivery_cnt raised by 1: exit 1" || explain
like "$out" "*FAIL 11  *first offender: w_id=2 d_id=7: count(orders)-count(new_order)=* but 2100+sum(c_delivery_cnt)=*" \
    "check: condition 11 fails and names w_id=2 d_id=7"
pg_psql "update customer set c_delivery_cnt = c_delivery_cnt - 1 where c_w_id = 2 and c_d_id = 7 and c_id = 5" >/dev/null

# ---------------------------------------------------------------------------
# 2. Serializable, no warm-up: retries counted once, the counts still exact.

s0=$(pg_psql 'select sum(d_next_o_id) from district')
run ser "$bin" run -c "$cfg" --isolation serializable --vus 4 --duration 5s --warmup 0s --label ser
is "$rc" 0 "run --isolation serializable --vus 4 --duration 5s: exit 0" || explain
s1=$(pg_psql 'select sum(d_next_o_id) from district')
ds=$(rec ser)
python3 - "$ds/run.json" "$s0" "$s1" >"$tmp/checks2" 2>&1 <<'EOF'
import json, sys


def check(cond, desc, *details):
    print("\t".join(["PASS" if cond else "FAIL", desc] + ([] if cond else [str(x) for x in details])))


try:
    with open(sys.argv[1]) as f:
        rec = json.load(f)
except Exception as ex:
    check(False, "serializable: run.json parses", ex)
    sys.exit(0)
s0, s1 = int(sys.argv[2]), int(sys.argv[3])
run = rec.get("run", {})
tx = run.get("transactions", {})
check(rec.get("status") == "complete", "serializable: status complete",
      "got: %r" % rec.get("status"))
check(run.get("isolation") == "serializable", "serializable: run.isolation serializable",
      "got: %r" % run.get("isolation"))
retries = sum(t.get("retries", 0) for t in tx.values())
print("retries at serializable: %d (%s)" % (retries, ", ".join(
    "%s %d" % (k, t.get("retries", 0)) for k, t in sorted(tx.items()))))
check(retries >= 0 and all(isinstance(t.get("retries"), int) for t in tx.values()) and len(tx) == 5,
      "serializable: retries reported for the five types (%d in all)" % retries)
n_client, n_db = run.get("new_orders_client"), run.get("new_orders_db")
check(run.get("notpm_counts_agree") is True and n_client == n_db and n_db > 0,
      "serializable: new_orders_client = new_orders_db = %r" % n_db,
      "client %r, db %r" % (n_client, n_db))
# With no warm-up only a VU that began before the barrier went up can add
# a New-Order outside the window: at most one per VU.
check(0 <= s1 - s0 - n_db <= 4,
      "serializable: our sum(d_next_o_id) rose by %d, the window's %r (+ at most 1 per VU)"
      % (s1 - s0, n_db))
EOF
tap_from "$tmp/checks2"

run check2 "$bin" check -c "$cfg" --conditions 1-4
is "$rc" 0 "check --conditions 1-4 after the serializable run: exit 0" || explain

# ---------------------------------------------------------------------------
# 3. A deck under a minimum: --mix 45,44,3,4,4 deals 3 Order-Status in 100,
#    and the run is not valid on that line however short it is.

run mix3 "$bin" run -c "$cfg" --vus 2 --duration 3s --warmup 0s --mix 45,44,3,4,4 --label mix3
is "$rc" 0 "run --mix 45,44,3,4,4: exit 0 (validity is reported, not an error)" || explain
like "$err" "*warning: mix: order_status 3.0% is under the TPC-C minimum of 4%*" \
    "run --mix 45,44,3,4,4 warns that order_status is under its minimum"
like "$out" "*order_status_share_pct * >= 4.0 * OUT OF BOUNDS*" \
    "the summary prints order_status_share_pct out of bounds against >= 4.0"
like "$out" "*input validity (TPC-C 5.5.1.5, 5.2.3): NOT valid*" "the summary says NOT valid"
jcheck "$(rec mix3)/run.json" '
val = rec.get("run", {}).get("validity", {})
os_ = val.get("order_status_share_pct") or {}
check(os_.get("ok") is False and os_.get("verdict") == "out of bounds" and os_.get("min") == 4.0,
      "mix3: validity.order_status_share_pct out of bounds against min 4", "got: %r" % (os_,))
check(val.get("verdict") == "NOT valid" and val.get("valid") is False,
      "mix3: validity.verdict NOT valid", "got: %r %r" % (val.get("verdict"), val.get("valid")))
deck = rec.get("run", {}).get("deck", {})
check(deck.get("cards") == 100 and deck.get("order_status") == 3,
      "mix3: run.deck has 100 cards, 3 of them Order-Status", "got: %r" % (deck,))
'

note "elapsed: $(($(date +%s) - t_start)) s"
done_testing
