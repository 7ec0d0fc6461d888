#!/bin/sh
# 0045-acid.sh - `tpccbench acid` against a real PostgreSQL (tests/lib/pg.sh),
# 1 warehouse: the atomicity tests (clause 3.2.2) and isolation tests 1-9
# (3.4.2) at read committed, repeatable read and serializable.
#
#  1. At each level (procedure mode, the default) the 13 lines, the exit
#     code, and for each test the verdict and the case PostgreSQL's
#     documented semantics give with our transactions (docs/acid.md says
#     why): at read committed tests 7 (P2) and 8 (P3) fail, exit 1; at
#     repeatable read and serializable all 13 pass, exit 0.  A database
#     that behaves otherwise fails this test.
#  2. Serializable passes whatever run.mode says (client, pipeline); in
#     client mode test 4's New-Order stalls before its own ROLLBACK with
#     its locks held (case A), where a procedure's or a pipeline's error
#     ended it at once.  In pipeline mode the stalled transaction is a
#     pipeline sent and read up to its COMMIT (tests 1-6, atomicity).
#  3. Broken transactions (build/tests/helper/tpccbench-broken, TPCC_BROKEN,
#     a test build only): a Payment that commits in place of its rollback
#     fails atomicity test 2; an Order-Status without its snapshot fails
#     isolation test 9 at read committed.  The release binary ignores
#     TPCC_BROKEN.
#  4. The record (kind acid, acid.tests[]) is read by report and compare;
#     the database is consistent after it all (check), item prices as
#     before; bad --tests exits 2; --tests durability on a server that
#     is not the private one is "not run" (exit 0); a bad --crash exits 2.
# Prints TAP.  About 30 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_helper broken tpccbench-broken

t_begin t0045 pg
t_pg_load 1 "load: exit 0"
prices=$(pg_psql "select sum(i_price) from item")

# verdicts LABEL: "VERDICT CASE" of each test of LABEL's record, one line
# ("pass - pass - ... FAIL D ..."; "-" for no case).
verdicts() {
    json "$(rec_json "$1")" "' '.join(t['verdict'].replace(' ', '_') + ' ' + (t['case'] or '-') for t in r['acid']['tests'])"
}

# acid LABEL WANT_RC WANT DESC ARGS...: acid with ARGS, its exit code, its
# 13 lines, and the verdicts and cases of its record (WANT, as verdicts prints).
acid() {
    _l=$1 _rc=$2 _want=$3 _d=$4
    shift 4
    run "$_l" "$bin" acid -c "$cfg" --label "$_l" "$@"
    is "$rc" "$_rc" "$_d: exit $_rc" || explain
    is "$(printf '%s\n' "$out" | grep -cE '^  (pass|FAIL|not run) +3\.[24]\.2\.[1-9] ')" 13 \
        "$_d: 13 lines, one per test"
    is "$(verdicts "$_l")" "$_want" "$_d: each test's verdict and case" || explain
}

atom="pass - pass - pass - pass -"
acid rc 1 "$atom pass D pass D pass A pass D pass A pass A FAIL D FAIL D pass D" \
    "read committed" --isolation "read committed"
like "$out" "*FAILED:*3.4.2.7*P2 (fuzzy read)*3.4.2.8*P3 (phantom)*" \
    "read committed: the summary names P2 (test 7) and P3 (test 8)"
like "$out" "*x: T1 *, T2 again *, T3 *, T4 *" "test 7's line shows the prices it compared"
snap="$atom pass D pass D pass C pass D pass C pass A pass D pass D pass D"
acid rr 0 "$snap" "repeatable read" --isolation "repeatable read"
acid ser 0 "$snap" "serializable" --isolation serializable
like "$out" "*isolation 7*mode client (the stall is inside a procedure's body)*" \
    "procedure mode: test 7 says it ran in client mode, and why"

# 2. Serializable in every mode.
acid ser-client 0 "$atom pass D pass D pass C pass A pass C pass A pass D pass D pass D" \
    "serializable, client mode" --isolation serializable --mode client
acid ser-pipe 0 "$atom pass D pass D pass C pass D pass C pass A pass D pass D pass D" \
    "serializable, pipeline mode" --isolation serializable --mode pipeline
like "$out" "*isolation 3*case C*mode pipeline (sent and read up to the stall)*" \
    "pipeline mode: T1 stalls inside its pipeline, holding the row T2 then waits for"
like "$out" "*payment rolled back (rolled back in place of its commit: no row changed); mode pipeline*" \
    "pipeline mode: a ROLLBACK queued in place of the pipeline's COMMIT"
like "$out" "*isolation 7*mode client (the stall is inside one of the pipeline's statements)*" \
    "pipeline mode: tests 7-9 stall inside a statement, so in client mode, and say why"

# 3. Broken transactions make their tests fail.
run brk-pay env TPCC_BROKEN=payment-commits "$broken" acid -c "$cfg" --label brk-pay --tests atomicity
is "$rc" 1 "broken Payment (commits in place of its rollback): exit 1" || explain
is "$(verdicts brk-pay)" "pass - FAIL - pass - pass - not_run - not_run - not_run - not_run - not_run - not_run - not_run - not_run - not_run -" \
    "broken Payment: atomicity test 2 fails, the others pass or were not run"
like "$out" "*3.2.2.2 atomicity: payment rolled back: a rolled-back Payment changed its rows*" \
    "broken Payment: the summary says what broke"
run brk-os env TPCC_BROKEN=os-no-snapshot "$broken" acid -c "$cfg" --label brk-os --tests isolation \
    --isolation "read committed"
is "$rc" 1 "broken Order-Status (no snapshot) at read committed: exit 1" || explain
is "$(json "$(rec_json brk-os)" "r['acid']['tests'][12]['verdict']")" "FAIL" \
    "broken Order-Status: isolation test 9 fails (P3)"
run rel-pay env TPCC_BROKEN=payment-commits "$bin" acid -c "$cfg" --label rel-pay --tests atomicity
is "$rc" 0 "the release binary has no TPCC_BROKEN: atomicity passes" || explain

# 4. The record, the database afterwards, bad input.
is "$(json "$(rec_json ser)" "r['kind'], r['status'], r['acid']['isolation'], r['acid']['passed'], r['acid']['tests'][10]['clause']")" \
    "acid complete serializable 13 3.4.2.7" "run.json: kind acid, complete, 13 passed, clauses"
run report "$bin" report "$(dirname "$(rec_json ser)")" -o "$tmp/acid.html"
is "$rc" 0 "report reads the acid record" || explain
run compare "$bin" compare "$(dirname "$(rec_json ser)")" "$(dirname "$(rec_json ser-client)")"
is "$rc" 0 "compare reads acid records" || explain
run check "$bin" check -c "$cfg"
is "$rc" 0 "check: the database is consistent after the tests" || explain
is "$(pg_psql "select sum(i_price) from item")" "$prices" "item prices as before test 7"
is "$(pg_psql "select count(*) from new_order where no_d_id > 10")" 0 \
    "no new-order row left set aside by test 8"
run bad "$bin" acid -c "$cfg" --tests consistency
is "$rc" 2 "--tests consistency: exit 2" || explain
like "$err" "*'consistency' is not a test group*" "it names the bad value"
run dur "$bin" acid -c "$cfg" --tests durability --label dur
is "$rc" 0 "--tests durability on a server not ours to crash: exit 0 (not run)" || explain
like "$out" "*durability: not run: needs acid.crash_command*" "it says what it needs"
is "$(json "$(rec_json dur)" "r['acid']['durability']['verdict']")" "not run" \
    "run.json: acid.durability not run"
run crash "$bin" acid -c "$cfg" --tests durability --crash reboot
is "$rc" 2 "--crash reboot: exit 2" || explain
like "$err" "*'reboot' is not a crash: give kill or power*" "it names the bad value and the good ones"
done_testing
