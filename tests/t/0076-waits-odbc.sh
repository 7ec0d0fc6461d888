#!/bin/sh
# 0076-waits-odbc.sh - the wait sampler on MariaDB through ODBC
# (src/run/msrc_waits.c, schema/mysql/admin.sql's metrics_waits), W=1:
#
#  1. the test user without PROCESS: waits are unavailable, the reason the
#     server's refusal naming PROCESS;
#  2. PROCESS and SELECT on performance_schema granted, 32 terminals, no
#     think time, procedure mode: samples at 10 Hz, and Payment's first wait
#     is a row lock (Lock:record: INNODB_TRX in LOCK WAIT on the warehouse
#     and district rows everybody updates), the statements inside the
#     procedures typed by their words (MariaDB shows them with
#     NAME_CONST('p_w', 1) for the variables); the server runs with
#     performance_schema on but its events_waits_current consumer off (its
#     default): the summary and run.json "not_seen" say so, once; the
#     sampler's share of the server's CPU is not told apart (threads);
#  3. the consumer and the wait instruments turned on: no "not_seen", and
#     performance_schema's waits (IO:..., LWLock:..., Client:...) appear
#     beside the row locks, no table I/O counted as IO (IO:handler: the
#     engine's row calls), Payment's first wait still a row lock;
#  4. the ansi dialect: unavailable, the reason naming the dialect.
# Asserts the events' presence and order, not a percentage to the point.
# Prints TAP.  About 110 s (MariaDB's start and the load).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0076 pg mariadb odbc
MARIA_TEST_OPTS="--performance-schema=ON"
export MARIA_TEST_OPTS
t_maria_up
note "maria_start: MariaDB on 127.0.0.1:$MARIA_TEST_PORT"
t_odbc_up
[ -n "$ODBC_TEST_MARIA_DRIVER" ] || bail_out "MariaDB Connector/ODBC is missing (apt-get install odbc-mariadb)"
cfg=$tmp/maria.yaml
cat >"$cfg" <<CFGEOF
database: {driver: odbc, managed: false, dsn: "DSN=tpcc-maria", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: 1}
results: {dir: "$tmp/results"}
CFGEOF
t_odbc_built "$cfg"
t_load "load W=1 through ODBC (MariaDB)"

# 1. No PROCESS: INNODB_TRX is refused.
run noproc "$bin" run -c "$cfg" --duration 2s --warmup 0s --vus 2 --label noproc
is "$rc" 0 "a run without the PROCESS privilege" || explain
jcheck "$(rec_json noproc)" '
w = rec.get("waits") or {}
check(w.get("available") is False and "PROCESS" in w.get("why", ""),
      "without PROCESS: waits unavailable, the reason names PROCESS", w)
'

# 2. With PROCESS and performance_schema readable.
maria_admin "GRANT PROCESS ON *.* TO 'tpcc'@'%'; GRANT SELECT ON performance_schema.* TO 'tpcc'@'%'" \
    >"$tmp/grant.out" 2>&1
is "$?" 0 "PROCESS and SELECT on performance_schema granted" || diag "$(cat "$tmp/grant.out")"
run proc "$bin" run -c "$cfg" --duration 8s --warmup 2s --vus 32 --mode procedure --label proc
is "$rc" 0 "a run of 32 terminals at W=1 (procedure mode)" || explain
jcheck "$(rec_json proc)" '
w = rec.get("waits") or {}
check(w.get("available") is True and w.get("rate_hz") == 10 and w.get("samples", 0) >= 20,
      "waits available at 10 Hz, with samples", {k: w.get(k) for k in ("available", "samples", "why")})
bt = w.get("by_type") or {}
p = (bt.get("payment") or {}).get("events") or {}
waits = sorted((k for k in p if k != "CPU"), key=lambda k: -p[k])
check(waits and waits[0] == "Lock:record", "payment: the first wait is a row lock",
      sorted(p.items(), key=lambda kv: -kv[1]))
typed = sum((bt.get(t) or {}).get("samples", 0) for t in bt)
check(typed > 4 * w.get("unattributed", 0), "most samples are typed by their statement",
      typed, w.get("unattributed"))
check("events_waits_current consumer is off" in w.get("not_seen", ""),
      "run.json says the events_waits_current consumer is off", w.get("not_seen"))
c = w.get("cost") or {}
check(c.get("server_cpu_pct_of_core") is None and "threads" in c.get("server_why", ""),
      "the server'"'"'s CPU for the sampler is not told apart, saying why", c)
'
printf '%s\n' "$out" | grep -qE '^ +payment +[0-9]+ +CPU +[0-9]+%  Lock:record [0-9]+%'
ok $? "the summary: payment's line with a row lock first" || diag "$out"
is "$(printf '%s\n' "$out" | grep -c 'events_waits_current consumer is off')" 1 \
    "the summary says once that the consumer is off" || diag "$out"

# 3. performance_schema's current waits on.
maria_admin "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'events_waits_current'; UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE 'wait/%'" \
    >"$tmp/ps.out" 2>&1
is "$?" 0 "the events_waits_current consumer and the wait instruments on" || diag "$(cat "$tmp/ps.out")"
run ps "$bin" run -c "$cfg" --duration 8s --warmup 2s --vus 32 --mode procedure --label ps
is "$rc" 0 "a run of 32 terminals with performance_schema's waits on" || explain
jcheck "$(rec_json ps)" '
w = rec.get("waits") or {}
check(w.get("available") is True and "not_seen" not in w, "nothing is said not seen", w.get("not_seen"))
bt = w.get("by_type") or {}
ps = sorted({k for t in bt for k in (bt[t].get("events") or {}) if k.split(":")[0] in ("IO", "LWLock", "Client") and ":" in k})
check(ps, "performance_schema waits (IO, LWLock, Client:...) appear", {t: bt[t].get("events") for t in bt})
check(not [k for t in bt for k in (bt[t].get("events") or {}) if k.startswith("IO:handler")],
      "a table I/O wait (the engine'"'"'s row calls) is no IO wait", {t: bt[t].get("events") for t in bt})
p = (bt.get("payment") or {}).get("events") or {}
waits = sorted((k for k in p if k != "CPU"), key=lambda k: -p[k])
check(waits and waits[0] == "Lock:record", "payment: the first wait is still a row lock",
      sorted(p.items(), key=lambda kv: -kv[1]))
'

# 4. The ansi dialect has no view of waits.
sed 's/schema: {warehouses: 1}/schema: {warehouses: 1, dialect: ansi}/' "$cfg" >"$tmp/ansi.yaml"
run ansi "$bin" run -c "$tmp/ansi.yaml" --duration 2s --warmup 0s --vus 2 --mode client --label ansi
is "$rc" 0 "a run in the ansi dialect" || explain
like "$out" "*waits unavailable (the ansi dialect: standard SQL has no view of what a session waits for)*" \
    "the ansi dialect: waits unavailable, saying why"
note "0076 took $(($(date +%s) - t_start)) s"
done_testing
