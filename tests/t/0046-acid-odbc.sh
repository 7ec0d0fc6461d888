#!/bin/sh
# 0046-acid-odbc.sh - `tpccbench acid` against a real MariaDB through
# Connector/ODBC (tests/lib/mariadb.sh, odbc.sh), 1 warehouse: the
# atomicity tests (clause 3.2.2) and isolation tests 1-9 (3.4.2).
#
#  1. At repeatable read, MariaDB's default, in procedure and client mode:
#     the 13 lines, exit 0, and for each test the verdict and the case
#     InnoDB's documented semantics give with our transactions
#     (docs/acid.md says why): all pass; the second transaction waits for
#     the stalled one's row, gap or next-key lock in tests 3 and 5-8 (and
#     4 in client mode, where the New-Order holds its locks until its own
#     ROLLBACK), and the database, not the 10 s bound, says it waits (the
#     tpcc user is granted PROCESS, which information_schema.innodb_trx
#     wants).  A database that behaves otherwise fails this test.
#  2. At read committed tests 7 (P2) and 8 (P3) fail, exit 1, and the
#     summary names them; at serializable all pass, Order-Status's plain
#     reads being locking reads there (tests 1 and 9 wait).
#  3. The database is consistent afterwards (check), item prices as
#     before test 7, no new-order row left set aside by test 8.
# Prints TAP; the server and the temp directory are removed on exit, pass
# or fail.  About 40 s (twice that on a loaded machine).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0046 mariadb odbc
t_copy_bin

# The driver must be built in, else skip everything.
odbc_cfg "$tmp/nodsn.yaml" "DSN=tpcc-no-such-dsn"
t_odbc_built "$tmp/nodsn.yaml"

t_maria_up
t_odbc_up
# innodb_trx, where acid_waiting asks whether a session waits for a lock,
# shows other sessions' transactions only to a user with PROCESS.
maria_admin "GRANT PROCESS ON *.* TO 'tpcc'@'%'; GRANT PROCESS ON *.* TO 'tpcc'@'localhost';" ||
    bail_out "granting PROCESS to tpcc failed"
cfg=$tmp/m.yaml
odbc_cfg "$cfg" "DSN=tpcc-maria"
t_load "load W=1 through Connector/ODBC: exit 0" --warehouses 1
prices=$(maria_sql "select sum(i_price) from item")

# verdicts LABEL: "VERDICT CASE" of each test of LABEL's record, one line.
verdicts() {
    json "$(rec_json "$1")" "' '.join(t['verdict'].replace(' ', '_') + ' ' + (t['case'] or '-') for t in r['acid']['tests'])"
}

# acid LABEL WANT_RC WANT DESC ARGS...: as 0045's.
acid() {
    _l=$1 _rc=$2 _want=$3 _d=$4
    shift 4
    run "$_l" "$bin" acid -c "$cfg" --label "$_l" "$@"
    is "$rc" "$_rc" "$_d: exit $_rc" || explain
    is "$(printf '%s\n' "$out" | grep -cE '^  (pass|FAIL|not run) +3\.[24]\.2\.[1-9] ')" 13 \
        "$_d: 13 lines, one per test"
    is "$(verdicts "$_l")" "$_want" "$_d: each test's verdict and case" || explain
}

# waits LABEL: how many isolation tests the database showed waiting, and
# how many were taken as waiting after 10 s.
waits() {
    json "$(rec_json "$1")" "'%d %d' % (sum('the database showed it waiting' in t['values'] for t in r['acid']['tests']), sum('after 10 s' in t['values'] for t in r['acid']['tests']))"
}

atom="pass - pass - pass - pass -"
# 1. Repeatable read.
acid rr 0 "$atom pass D pass D pass A pass D pass A pass A pass A pass A pass D" \
    "repeatable read" --isolation "repeatable read"
like "$out" "*isolation repeatable read, mode procedure*" "the header states level and mode"
is "$(waits rr)" "5 0" "repeatable read: the database showed the 5 waits (none taken after 10 s)"
like "$out" "*isolation 7*case A*x: T1 *, T2 again *, T3 *, T4 *" \
    "test 7: the price change waited for New-Order's shared lock on item x"
acid rr-client 0 "$atom pass D pass D pass A pass A pass A pass A pass A pass A pass D" \
    "repeatable read, client mode" --isolation "repeatable read" --mode client
is "$(waits rr-client)" "6 0" "client mode: the database showed the 6 waits"

# 2. Read committed and serializable.
acid rc 1 "$atom pass D pass D pass A pass D pass A pass A FAIL D FAIL D pass D" \
    "read committed" --isolation "read committed"
like "$out" "*FAILED:*3.4.2.7*P2 (fuzzy read)*3.4.2.8*P3 (phantom)*" \
    "read committed: the summary names P2 (test 7) and P3 (test 8)"
acid ser 0 "$atom pass A pass D pass A pass D pass A pass A pass A pass A pass A" \
    "serializable" --isolation serializable
is "$(json "$(rec_json ser)" "r['kind'], r['acid']['isolation'], r['acid']['passed'], r['environment']['dbms']['name']")" \
    "acid serializable 13 MariaDB" "run.json: kind acid, the level, 13 passed, the DBMS"

# 3. The database afterwards.
run check "$bin" check -c "$cfg"
is "$rc" 0 "check: the database is consistent after the tests" || explain
is "$(maria_sql "select sum(i_price) from item")" "$prices" "item prices as before test 7"
is "$(maria_sql "select count(*) from new_order where no_d_id > 10")" 0 \
    "no new-order row left set aside by test 8"
done_testing
