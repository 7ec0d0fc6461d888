#!/bin/sh
# 0075-pooler.sh - runs through PgBouncer (tests/lib/pgbouncer.sh) in front of
# the test PostgreSQL.
#
# Transaction mode, default_pool_size 2, while tpccbench opens 6 connections
# (4 VUs, a delivery worker, the monitor): with run.statements prepared the
# run fails at once with the message naming the pooler and
# run.statements: unnamed, exit 2, in every mode; with unnamed it completes
# in client, pipeline and procedure mode, its New-Order count equals the
# database's, conditions 1-4 hold, and the record says unnamed and that a
# pooler was seen (6 connections on at most 2 server processes).  Session
# mode with prepared statements works and no pooler is seen (at isolation
# repeatable read, with the warning that a transaction pooler would not keep
# that session setting).  prepared and unnamed are the same benchmark: one
# VU, a fixed seed and a fixed number of transactions leave identical table
# checksums (every column but the load's clock), the unnamed one run
# through the transaction pooler.  ("simple" is refused by the config;
# 0005-cli-errors.sh has that.)  Prints TAP; PgBouncer, the server and the
# temp files go on exit, pass or fail.  About 90 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0075 pg pgbouncer
t_copy_bin
command -v pgbouncer >/dev/null 2>&1 || bail_out "pgbouncer is missing: apt-get install pgbouncer"
t_pg 2

# pooled [POOLER]: $tmp/pgb.yaml, the config through PgBouncer (with
# database.pooler POOLER when given); $cfg goes to the server directly.
pooled() {
    _p=
    [ -z "${1:-}" ] || _p=", pooler: $1"
    cat >"$tmp/pgb.yaml" <<EOY
database: {driver: postgres, managed: false, conninfo: "$PGB_TEST_CONNINFO", password_env: TPCC_TEST_PASSWORD$_p}
results: {dir: "$tmp/results"}
EOY
}

run load "$bin" load -c "$cfg" --warehouses 2 --label load
is "$rc" 0 "load W=2 directly" || explain

# ---- transaction mode, a pool of 2 for 6 connections ----
if ! pgb_start transaction 2 2>"$tmp/pgb.err"; then
    cat "$tmp/pgb.err" >&2
    bail_out "pgb_start failed: $(tail -n 1 "$tmp/pgb.err")"
fi
pass "PgBouncer in transaction mode on 127.0.0.1:$PGB_TEST_PORT, default_pool_size 2"
pgb_pid=$pgb__pid
pooled

for mode in client pipeline procedure; do
    run "prep-$mode" "$bin" run -c "$tmp/pgb.yaml" --mode "$mode" --vus 4 --warmup 1s \
        --duration 5s --label "prep-$mode"
    is "$rc" 2 "$mode, prepared, transaction pooler: exit 2 (a usage error)" || explain
    like "$err" "*prepared statement \"s*\" *exist*pooler in transaction mode*run.statements: unnamed*" \
        "$mode, prepared: the message names the pooler and run.statements: unnamed" || explain
    jcheck "$(rec "prep-$mode")/run.json" '
check(rec["status"] == "failed", "'"$mode"', prepared: the record says failed", rec["status"])
check("run.statements: unnamed" in rec.get("error", ""), "'"$mode"', prepared: the record has the message", rec.get("error"))
check(rec["config"]["run"]["statements"] == "prepared", "'"$mode"', prepared: the config says prepared")
'
done

for mode in client pipeline procedure; do
    before=$(pg_psql "select sum(d_next_o_id) from district")
    run "unn-$mode" "$bin" run -c "$tmp/pgb.yaml" --mode "$mode" --statements unnamed --vus 4 \
        --warmup 1s --duration 5s --label "unn-$mode"
    is "$rc" 0 "$mode, unnamed, transaction pooler: the run completes" || explain
    after=$(pg_psql "select sum(d_next_o_id) from district")
    like "$out" "*statements unnamed*" "$mode, unnamed: the summary names the statements" || explain
    like "$out" "*pooler: seen (6 connections on *" "$mode, unnamed: the summary says a pooler was seen" || explain
    jcheck "$(rec "unn-$mode")/run.json" '
run = rec["run"]
p = run["pooler"]
check(rec["status"] == "complete", "'"$mode"', unnamed: status complete", rec["status"])
check(run["statements"] == "unnamed" and rec["config"]["run"]["statements"] == "unnamed", "'"$mode"', unnamed: the record says unnamed", run["statements"])
check(run["mode"] == "'"$mode"'", "'"$mode"', unnamed: the record states the mode", run["mode"])
check(run["new_orders_client"] > 0, "'"$mode"', unnamed: New-Orders committed", run["new_orders_client"])
check(run["notpm_counts_agree"] and run["new_orders_client"] == run["new_orders_db"], "'"$mode"', unnamed: client NOTPM equals the database count", run["new_orders_client"], run["new_orders_db"])
check(run["new_orders_client"] <= '"$((after - before))"', "'"$mode"', unnamed: the window holds no more New-Orders than sum(d_next_o_id) grew", run["new_orders_client"], '"$((after - before))"')
check(sum(t["errors"]["other"] + t["errors"]["connection"] for t in run["transactions"].values()) == 0, "'"$mode"', unnamed: no errors", run["transactions"])
check(p["seen"] is True and p["declared"] is None, "'"$mode"', unnamed: a pooler seen, none declared", p)
check(p["connections"] == 6 and 1 <= p["server_processes"] <= 2, "'"$mode"', unnamed: 6 connections on at most 2 server processes", p)
'
    run "check-$mode" "$bin" check -c "$cfg" --conditions 1-4
    is "$rc" 0 "$mode, unnamed: conditions 1-4 hold after the run" || explain
done

# 1 VU, fixed seed, a fixed count: the state unnamed leaves through the pooler.
n_tx=300
run reload1 "$bin" load -c "$cfg" --warehouses 2 --drop --label reload1
is "$rc" 0 "reload W=2 for the unnamed checksum run" || explain
run sum-unnamed "$bin" run -c "$tmp/pgb.yaml" --mode client --statements unnamed --vus 1 \
    --seed 42 --transactions "$n_tx" --warmup 0s --duration 120s --delivery inline --label sum-unnamed
is "$rc" 0 "unnamed through the pooler: $n_tx transactions with one VU" || explain
# Every column but the load's clock: tests/lib/pg.sh.
pg_checksums >"$tmp/sum.unnamed"

pgb_stop
if kill -0 "$pgb_pid" 2>/dev/null; then
    fail "PgBouncer (pid $pgb_pid) is gone after pgb_stop"
else
    pass "PgBouncer (pid $pgb_pid) is gone after pgb_stop"
fi

# ---- session mode: a server connection per client, prepared statements work ----
if ! pgb_start session 10 2>"$tmp/pgb.err"; then
    cat "$tmp/pgb.err" >&2
    bail_out "pgb_start session failed: $(tail -n 1 "$tmp/pgb.err")"
fi
pass "PgBouncer in session mode on 127.0.0.1:$PGB_TEST_PORT"
pooled pgbouncer
run sess "$bin" run -c "$tmp/pgb.yaml" --mode client --vus 4 --warmup 1s --duration 5s \
    --isolation "repeatable read" --label sess
is "$rc" 0 "session pooler, prepared: the run completes" || explain
like "$err" "*warning: isolation repeatable read is set per session*pooler in transaction mode does not keep it*" \
    "a declared pooler and an isolation other than read committed: a warning" || explain
like "$out" "*pooler: not seen, database.pooler says pgbouncer (6 connections on 6 server processes*" \
    "session pooler: the summary says what the user declared and that none was seen" || explain
jcheck "$(rec sess)/run.json" '
run = rec["run"]
p = run["pooler"]
check(run["statements"] == "prepared", "session: the record says prepared", run["statements"])
check(run["notpm_counts_agree"] and run["new_orders_client"] == run["new_orders_db"] and run["new_orders_client"] > 0, "session: client NOTPM equals the database count", run["new_orders_client"], run["new_orders_db"])
check(p["declared"] == "pgbouncer" and rec["config"]["database"]["pooler"] == "pgbouncer", "session: the record keeps database.pooler", p)
check(p["seen"] is False and p["connections"] == 6 and p["server_processes"] == 6, "session: no pooler seen, one server process per connection", p)
check(any("isolation repeatable read is set per session" in w for w in rec["warnings"]), "session: the record keeps the isolation warning", rec["warnings"])
'
pgb_stop

# The same state with prepared statements, directly.
run reload2 "$bin" load -c "$cfg" --warehouses 2 --drop --label reload2
is "$rc" 0 "reload W=2 for the prepared checksum run" || explain
run sum-prepared "$bin" run -c "$cfg" --mode client --statements prepared --vus 1 \
    --seed 42 --transactions "$n_tx" --warmup 0s --duration 120s --delivery inline --label sum-prepared
is "$rc" 0 "prepared directly: $n_tx transactions with one VU" || explain
jcheck "$(rec sum-prepared)/run.json" '
run = rec["run"]
check(run["pooler"]["seen"] is False, "directly: no pooler seen", run["pooler"])
check(sum(t["count"] + t["rolled_back"] for t in run["transactions"].values()) == '"$n_tx"', "directly: exactly '"$n_tx"' transactions ran")
'
pg_checksums >"$tmp/sum.prepared"
differ=$(diff "$tmp/sum.prepared" "$tmp/sum.unnamed")
is "$differ" "" "unnamed through the pooler leaves the tables exactly as prepared does" || diag "$differ"
run reload3 "$bin" load -c "$cfg" --warehouses 2 --drop --label reload3
pg_checksums >"$tmp/sum.fresh"
isnt "$(diff "$tmp/sum.prepared" "$tmp/sum.fresh" | grep -c '^<')" "0" \
    "the runs changed the tables the checksums cover"
done_testing
