#!/bin/sh
# 0074-odbc-sqlite.sh - a third DBMS through the generic path: SQLite through
# Debian's ODBC driver (libsqliteodbc), the database file in the test's temp
# directory, the driver registered with unixODBC as tests/lib/odbc.sh does
# for the others (driver SQLite3, busy timeout 200 ms).  No dialect of its
# own: the ansi one, chosen from SQL_DBMS_NAME.
#
# What exists comes from ODBC's catalog (SQLTables), the types from
# SQLGetTypeInfo, the capabilities from SQLGetInfo (recorded in run.json's
# environment; SQLite has only serializable: the config sets no
# run.isolation, so the run takes serializable and its summary says why,
# while run.isolation read committed set is refused naming it; no parameter
# arrays, so the load goes row at a time and says so); SQLite's "database
# is locked" (HY000, native 5) is retried.  Load W=1 (two jobs refused, one resumed), all 12
# conditions and the keys, a 10 s run of 2 terminals
# whose New-Order count equals the database's, the conditions after it,
# then bench over a partial schema.  Prints TAP; the temp directory is removed on
# exit, pass or fail.  About 100 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0074 odbc
t_copy_bin
command -v sqlite3 >/dev/null 2>&1 || bail_out "sqlite3 is missing: scripts/deps.sh test installs it"

# cfg FILE [RUN]: SQLite through the registered driver, the file in $tmp,
# its busy timeout 200 ms, 1 warehouse, one load job (SQLite takes one
# writer at a time), run section RUN (default: empty, no isolation set, as a
# config started from config/default.yaml has).  A connection
# string, not odbc.ini's DSN tpcc-sqlite: the driver leaks what it reads of
# a DSN (a leak report under make test-asan, in the driver's own code).
cfg() {
    cat >"$1" <<EOF
database: {driver: odbc, managed: false, dsn: "Driver=SQLite3;Database=$tmp/tpcc.db;Timeout=200"}
schema: {warehouses: 1}
load: {jobs: 1}
run: {${2:-}}
results: {dir: "$tmp/results"}
EOF
}
cfg "$tmp/c.yaml"
sed 's|dsn: "[^"]*"|dsn: "DSN=tpcc-no-such-dsn"|' "$tmp/c.yaml" >"$tmp/nodsn.yaml"
SQLITE_TEST_DB=$tmp/tpcc.db
export SQLITE_TEST_DB
t_odbc_built "$tmp/nodsn.yaml"
t_odbc_up
[ -n "$ODBC_TEST_SQLITE_DRIVER" ] ||
    bail_out "the SQLite ODBC driver is missing: scripts/deps.sh test installs libsqliteodbc"
pass "SQLite ODBC driver registered: $ODBC_TEST_SQLITE_DRIVER, database $SQLITE_TEST_DB"

sq() {
    sqlite3 "$SQLITE_TEST_DB" "$1" 2>&1
}

# Two load jobs write at once: SQLite takes one writer, the other's insert
# answers "database is locked" after the busy timeout; the load stops,
# saying what to change, and --resume (its bookkeeping found through the
# catalog) finishes it with one job.
run load2 "$bin" load -c "$tmp/c.yaml" --jobs 2 --label load2
is "$rc" 1 "load with 2 jobs on SQLite: exit 1" || explain
like "$err" "*database is locked*the load's 2 jobs held each other's locks*needs load.jobs: 1*" \
    "the failure is SQLite's busy error, and the message says to load with one job"
like "$err" "*unknown DBMS 'SQLite': using the generic ANSI dialect*" "the DBMS is named and the ansi dialect chosen"
run load "$bin" load -c "$tmp/c.yaml" --resume --label load
is "$rc" 0 "load --resume W=1 with one job through SQLite's ODBC driver: exit 0" || explain
is "$(sq 'select sum(d_next_o_id), count(*) from district')" "30010|10" \
    "the load is in the file: sum(d_next_o_id) = 30010 over 10 districts"
is "$(sq "select count(*) from sqlite_master where type = 'index' and name in ('order_line_pkey',
    'stock_pkey', 'customer_pkey', 'customer_last_idx', 'orders_pkey', 'orders_customer_idx',
    'item_pkey', 'new_order_pkey', 'district_pkey', 'warehouse_pkey')")" "10" \
    "the 10 keys and indexes of the ansi dialect exist"
_r=$(rec_json load)
is "$(json "$_r" "r['load']['path'], r['load']['path_why']")" \
    "row at a time row at a time: SQL_PARAM_ARRAY_ROW_COUNTS has no answer (no parameter arrays)" \
    "run.json: the load went row at a time, and why"
is "$(json "$_r" "r['environment']['dbms']['name'], r['environment']['dbms']['capabilities']['isolation_levels'], r['environment']['dbms']['capabilities']['transactions'], r['environment']['dbms']['capabilities']['max_identifier_len']")" \
    "SQLite serializable DML and DDL 255" \
    "run.json environment: the DBMS and what SQLGetInfo answered (isolation, transactions, identifier length)"
is "$(json "$_r" "r['environment']['dbms']['unavailable']['settings']")" \
    "standard SQL has no view of server settings" \
    "run.json environment: the server settings are unavailable, with the reason"

run again "$bin" load -c "$tmp/c.yaml" --label again
is "$rc" 2 "load over a loaded file: exit 2" || explain
like "$err" "*already holds a TPC-C schema (9 of 9 tables)*" \
    "the catalog (SQLTables) found the 9 tables"
run resume "$bin" load -c "$tmp/c.yaml" --resume --label resume
is "$rc:$(printf '%s' "$err" | grep -c 'the load completed already')" "2:1" \
    "load --resume of a complete load: exit 2, nothing to resume (tpcc_meta found)"

run check "$bin" check -c "$tmp/c.yaml" --conditions all
is "$rc:$(n_ok "$both")" "0:12" "all 12 consistency conditions hold after the load" || explain

# The keys, from the catalog (SQLStatistics): there after the load, and
# missed in a copy without one (through a connection string of its own).
run keys "$bin" check -c "$tmp/c.yaml"
like "$out" "*ok       keys: a unique index on each table's key (the catalog, SQLStatistics)*" \
    "check finds every table's key in the catalog" || explain
cp "$SQLITE_TEST_DB" "$tmp/nokey.db" && sqlite3 "$tmp/nokey.db" 'drop index stock_pkey'
sed "s|Database=$tmp/tpcc.db|Database=$tmp/nokey.db|" "$tmp/c.yaml" >"$tmp/nokey.yaml"
run nokey "$bin" check -c "$tmp/nokey.yaml"
is "$rc" 1 "check of a copy without stock's key: exit 1" || explain
like "$out" "*stock has no unique index on (s_w_id, s_i_id)*" "the missing key is named"
rm -f "$tmp/nokey.db"

cfg "$tmp/rc.yaml" "isolation: read committed"
run rc "$bin" run -c "$tmp/rc.yaml" --mode client --vus 2 --duration 2s --warmup 0s --label rc
is "$rc" 2 "run.isolation read committed on SQLite: exit 2" || explain
like "$err" "*run.isolation 'read committed': DBMS 'SQLite' offers serializable*" \
    "the refusal names the level, the DBMS and the levels it has"

run proc "$bin" run -c "$tmp/c.yaml" --mode procedure --vus 1 --duration 2s --warmup 0s --label proc
is "$rc" 2 "procedure mode on SQLite: exit 2 (no server-side functions)" || explain

run run "$bin" run -c "$tmp/c.yaml" --mode client --vus 2 --duration 10s --warmup 0s --label run
is "$rc" 0 "10 s client-mode run, 2 terminals: exit 0" || explain
_r=$(rec_json run)
# The window's New-Orders equal the database's count over the window
# (notpm_counts_agree, the run's own reading before and after it); seen from
# outside, the increase of sum(d_next_o_id) also holds those the 2 terminals
# finished before the window opened, at most one each (as in 0070: the
# window opens at a barrier right after the start; a loaded CI run had one).
_db=$(sq 'select sum(d_next_o_id) - 30010 from district')
_n=$(json "$_r" "r['run']['new_orders_client']")
is "$(json "$_r" "r['status'], r['run']['notpm_counts_agree']")|$(python3 -c "print(0 <= ${_db:-0} - ${_n:-0} <= 2)")" \
    "complete True|True" \
    "the record is complete, its $_n New-Orders equal the database's over the window, and the increase of sum(d_next_o_id) ($_db) but for at most one per terminal before it"
is "$(json "$_r" "r['run']['new_orders_client'] > 20")" "True" "New-Orders were done (more than 20 in 10 s)"
like "$out" "*, isolation serializable (SQLite offers no other)
*" "run.isolation unset: the summary names the level SQLite offers, and why" || explain
is "$(json "$_r" "r['run']['isolation'], r['run']['isolation_why'], r['config']['run']['isolation']")" \
    "serializable run.isolation is not set, and SQLite offers no other serializable" \
    "run.json: the run's isolation serializable, and why" || diag "$(json "$_r" "r['run']")"
is "$(json "$_r" "sum(t['retries'] for t in r['run']['transactions'].values()) > 0")" "True" \
    "SQLite's busy errors (database is locked) were retried" ||
    diag "$(json "$_r" "r['run']['transactions']")"
is "$(json "$_r" "sum(t['errors']['other'] + t['errors']['connection'] for t in r['run']['transactions'].values())")" \
    "0" "no errors but retryable ones" || diag "$(json "$_r" "r['run']['errors_by_sqlstate']")"
is "$(json "$_r" "sum(t['count'] > 0 for t in r['run']['transactions'].values())")" "5" \
    "every transaction type completed"
is "$(json "$_r" "r['run']['pooler']['detection_unavailable']")" \
    "standard SQL cannot ask which server session serves a connection, so a pooler is never detected (database.pooler can say so)" \
    "run.json: pooler detection unavailable, with the reason"
is "$(json "$_r" "r['metrics']['columns']['db_commits_per_s']['note']")" \
    "'metrics_counters' is not available in the ansi dialect: standard SQL has no view of server statistics" \
    "run.json: the database metrics are unavailable, with the reason" ||
    diag "$(json "$_r" "r['metrics']['columns'].get('db_commits_per_s')")"

run check2 "$bin" check -c "$tmp/c.yaml" --conditions all
is "$rc:$(n_ok "$both")" "0:12" "all 12 conditions hold after the run (11 generalized)" || explain

# A COMMIT refused as busy: a reader holds SQLite's shared lock for 1 s at a
# time (0.1 s apart), so a writer's COMMIT, which needs the exclusive lock,
# waits its 200 ms and fails.  SQLite keeps that transaction open; the
# driver must roll it back before the retry, or the retry commits the
# failed attempt's New-Order with its own (one more in the database than
# counted).  One terminal (no other writer), 12 transactions: the
# database's New-Orders are exactly the client's.
rm -f "$tmp/hold.stop" "$tmp/hold.on"
python3 - "$SQLITE_TEST_DB" "$tmp/hold" <<'PYEOF' &
import os, sqlite3, sys, time
db, stem = sys.argv[1], sys.argv[2]
while not os.path.exists(stem + ".stop"):
    c = sqlite3.connect(db, isolation_level=None, timeout=30)
    c.execute("BEGIN")
    c.execute("SELECT count(*) FROM warehouse").fetchall()
    open(stem + ".on", "a").close()
    time.sleep(1.0)
    c.execute("COMMIT")
    c.close()
    time.sleep(0.1)
PYEOF
hold=$!
bgpids="$bgpids $hold"
until [ -f "$tmp/hold.on" ] || ! alive "$hold"; do sleep 0.05; done
_before=$(sq 'select sum(d_next_o_id) from district')
run busy "$bin" run -c "$tmp/c.yaml" --mode client --vus 1 --transactions 12 --duration 300s \
    --warmup 0s --label busy
touch "$tmp/hold.stop"
wait "$hold"
is "$rc" 0 "12 transactions beside a reader holding the shared lock: exit 0" || explain
_r=$(rec_json busy)
_n=$(($(sq 'select sum(d_next_o_id) from district') - _before))
is "$(json "$_r" "(sum(t['retries'] for t in r['run']['transactions'].values()) > 0, r['run']['new_orders_client'])")" \
    "(True, $_n)" "COMMITs refused as busy were retried, and the database has exactly the client's $_n New-Orders" ||
    diag "$(json "$_r" "r['run']['transactions']")"

# A partial schema: stock gone (DROP TABLE stock answers HY000 "no such
# table" on SQLite, which the catalog tells apart).  bench drops the rest.
sq 'drop table stock' >/dev/null
run bench "$bin" bench -c "$tmp/c.yaml" --label bench --mode client --vus 2 --duration 5s
is "$rc" 0 "bench over a partial schema (drop, load, 5 s run, check): exit 0" || explain
_r=$(rec_json bench)
is "$(json "$_r" "r['status'], r['run']['notpm_counts_agree'], r['check']['ok']")" \
    "complete True True" "bench: complete, NOTPM equal to the database's count, consistency passed" ||
    diag "$(json "$_r" "r.get('check'), {k: r['run'].get(k) for k in ('new_orders_client', 'new_orders_db', 'unfinished', 'db_count_note', 'errors_by_sqlstate')}, r['run']['transactions'].get('new_order')")"

done_testing
