#!/bin/sh
# 0072-odbc-ansi.sh - the generic ANSI SQL dialect (schema/ansi/, the one an
# unknown DBMS falls back to) against real servers through ODBC, chosen with
# schema.dialect: ansi: PostgreSQL through psqlODBC, and MariaDB through
# Connector/ODBC with sql_mode ANSI (|| concatenates, "x" quotes names).
#
# For each DBMS: load 1 warehouse, all 12 consistency conditions, a 5 s
# client-mode run with 2 VUs whose New-Order count equals the database's
# (run.notpm_counts_agree), conditions 1-4 after it.  Then procedure mode is
# refused (the dialect has no procedures).  Prints TAP; the servers and the
# temp directory are removed on exit, pass or fail.  About 40 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# The binary under test: a sanitizer build sets TPCC_BIN (see the Makefile).
TPCC_BIN=${TPCC_BIN:-$root/tpccbench}
. "$root/tests/lib/tap.sh"
. "$root/tests/lib/pg.sh"
. "$root/tests/lib/mariadb.sh"
. "$root/tests/lib/odbc.sh"

[ -x "$TPCC_BIN" ] || bail_out "tpccbench is missing: run make first"
command -v python3 >/dev/null 2>&1 || bail_out "python3 is needed to read run.json (apt-get install python3)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpcc-t0072.XXXXXX") || bail_out "mktemp failed"
cp "$TPCC_BIN" "$tmp/tpccbench"
bin=$tmp/tpccbench
cleanup() {
    pg_stop
    maria_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
LC_ALL=C
export LC_ALL

if command -v timeout >/dev/null 2>&1; then to="timeout -k 5 120"; else to=; fi
run() {
    _name=$1
    shift
    # shellcheck disable=SC2086
    $to "$@" >"$tmp/$_name.out" 2>"$tmp/$_name.err" </dev/null
    rc=$?
    out=$(cat "$tmp/$_name.out")
    err=$(cat "$tmp/$_name.err")
    both=$(printf '%s\n%s' "$out" "$err")
}

explain() {
    diag "exit $rc; stdout:" "$out" "stderr:" "$err"
}

json() {
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1" 2>&1
}

rec() {
    _d=$(ls -d "$tmp/results/"*-"$1" 2>/dev/null | tail -n 1)
    echo "${_d:-$tmp/results/none-$1}/run.json"
}

n_ok() {
    printf '%s\n' "$1" | grep -cE '^ +ok +[0-9]+ '
}

# write_cfg FILE DSN
write_cfg() {
    cat >"$1" <<EOC
database: {driver: odbc, managed: false, dsn: "$2", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: 1, dialect: ansi}
load: {jobs: 2}
results: {dir: "$tmp/results"}
EOC
}

write_cfg "$tmp/nodsn.yaml" "DSN=tpcc-no-such-dsn"
run probe "$bin" run -c "$tmp/nodsn.yaml" --duration 2s --label probe
case $err in
*"unknown driver"* | *"not built"* | *"not yet"*)
    echo "1..0 # SKIP this tpccbench has no odbc driver"
    exit 0
    ;;
esac

if ! pg_start 2>"$tmp/pg_start.err"; then
    cat "$tmp/pg_start.err" >&2
    bail_out "pg_start failed: $(tail -n 1 "$tmp/pg_start.err")"
fi
if ! maria_start 2>"$tmp/maria_start.err"; then
    cat "$tmp/maria_start.err" >&2
    bail_out "maria_start failed: $(tail -n 1 "$tmp/maria_start.err")"
fi
odbc_setup "$tmp/odbc" 2>"$tmp/odbc_setup.err" || bail_out "odbc_setup: $(cat "$tmp/odbc_setup.err")"
# MariaDB in ANSI mode on every connection of the DSN (Connector/ODBC runs
# InitStmt after connecting): || concatenates, "x" quotes names.  The
# [tpcc-maria] section is the last one of odbc.ini.
printf "InitStmt=SET SESSION sql_mode='ANSI,STRICT_TRANS_TABLES'\n" >>"$tmp/odbc/odbc.ini"
pass "servers up: PostgreSQL on 127.0.0.1:$PG_TEST_PORT, MariaDB on 127.0.0.1:$MARIA_TEST_PORT"

db_sum() {
    case $1 in
    pg) pg_psql 'select sum(d_next_o_id) from district' ;;
    maria) maria_sql 'select sum(d_next_o_id) from district' ;;
    esac
}

# suite KIND DSN
suite() {
    k=$1
    write_cfg "$tmp/$k.yaml" "DSN=$2"

    run "load-$k" "$bin" load -c "$tmp/$k.yaml" --warehouses 1 --label "load-$k"
    is "$rc" 0 "$k ansi: load W=1 through ODBC ($2): exit 0" || {
        explain
        return 1
    }
    is "$(db_sum "$k")" "30010" "$k ansi: the load is committed: sum(d_next_o_id) = 30010"
    run "check-$k" "$bin" check -c "$tmp/$k.yaml" --conditions all
    is "$rc:$(n_ok "$both")" "0:12" "$k ansi: all 12 consistency conditions hold after the load" ||
        explain

    run "run-$k" "$bin" run -c "$tmp/$k.yaml" --mode client --vus 2 --duration 5s --warmup 0s \
        --label "run-$k"
    is "$rc" 0 "$k ansi: 5 s client-mode run with 2 VUs: exit 0" || explain
    _r=$(rec "run-$k")
    is "$(json "$_r" "r['status'], r['run']['notpm_counts_agree']")" "complete True" \
        "$k ansi: the record is complete and the client NOTPM equals the database's count"
    is "$(json "$_r" "r['run']['new_orders_client'] > 0")" "True" "$k ansi: New-Orders were done"
    is "$(json "$_r" "sum(t['errors']['other'] + t['errors']['connection'] for t in r['run']['transactions'].values())")" \
        "0" "$k ansi: no errors but retryable ones" ||
        diag "$(json "$_r" "r['run']['errors_by_sqlstate']")"
    is "$(json "$_r" "sum(t['count'] > 0 for t in r['run']['transactions'].values())")" "5" \
        "$k ansi: every transaction type completed"
    run "check14-$k" "$bin" check -c "$tmp/$k.yaml" --conditions 1-4
    is "$rc:$(n_ok "$both")" "0:4" "$k ansi: conditions 1-4 hold after the run" || explain
}

suite pg tpcc-pg
suite maria tpcc-maria

done_testing
