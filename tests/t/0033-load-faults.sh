#!/bin/sh
# 0033-load-faults.sh - a load cut short by the database, then continued or
# started again, against a real PostgreSQL (tests/lib/pg.sh), 2 warehouses.
#
#  1. the server stopped mid-COPY: exit 1, a clear message naming --resume,
#     a record marked "failed"; with the server back, `load --resume` loads
#     only the steps not committed and all 12 conditions and row counts hold;
#  2. every loader backend killed (pg_terminate_backend) mid-COPY: the same
#     failure; `load --drop` afterwards starts again and completes;
#  3. --resume on a complete load, and --resume with --drop: exit 2.
# Prints TAP.  About 40 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0033 pg
t_pg 2
printf 'load: {jobs: 2}\n' >>"$cfg"

# steps_done: load steps committed so far (empty while the table is missing).
steps_done() {
    pg_psql "select count(*) from tpcc_load_step where step like 'copy:%'" 2>/dev/null
}

steps_dated() {
    pg_psql "select count(*) from tpcc_load_step where step ~ '^copy:(order_line|orders|customer|history):'" 2>/dev/null
}

# start_load LABEL [ARGS]: a load in the background; waits until it has
# created its schema and committed at least 2 copy steps.
start_load() {
    _l=$1
    shift
    "$bin" load -c "$cfg" --label "$_l" "$@" >"$tmp/$_l.out" 2>"$tmp/$_l.err" </dev/null &
    bgpid=$!
    _i=0
    # The schema is new (an old one may be dropped first), then 2 steps.
    while alive "$bgpid" && [ $_i -lt 600 ]; do
        if grep -q '^schema  *created' "$tmp/$_l.err" 2>/dev/null; then
            _n=$(steps_done)
            # With WANT_DATED set: also a step of a table with dates, so that the
            # resume has dated rows on both sides of the cut.
            [ "${_n:-0}" -ge 2 ] && { [ -z "${WANT_DATED:-}" ] || [ "$(steps_dated)" -ge 1 ]; } && break
        fi
        sleep 0.05
        _i=$((_i + 1))
    done
}

# finish_load LABEL: wait for the background load; sets rc.
finish_load() {
    wait_gone "$bgpid" 60 || fail "$1: the load ended within 60 s of the fault"
    bg_reap "$1"
}

full_check() {
    run "check-$1" "$bin" check -c "$cfg"
    is "$rc" 0 "$1: check (12 conditions, row counts): exit 0" || explain
    is "$(printf '%s\n' "$out" | grep -c '^  ok  *[0-9]')" 12 "$1: all 12 conditions ok" || explain
}

# ---------------------------------------------------------------------------
# 1. Server stopped mid-COPY, then --resume.
WANT_DATED=1 start_load cut
n_before=$(steps_done)
pg_halt
ok $? "server stopped mid-COPY ($n_before copy steps committed)"
finish_load cut
is "$rc" 1 "cut: exit 1" || explain
like "$err" "*load failed in the copy phase*--resume*" "cut: the message names the phase and --resume" ||
    explain
jcheck "$(rec cut)/run.json" "
check(rec.get('status') == 'failed', 'cut: status failed', rec.get('status'))
check('copy' in rec.get('error', ''), 'cut: the record carries the error', rec.get('error'))
check(rec.get('load', {}).get('phase_reached') == 'copy', 'cut: phase_reached copy', rec.get('load'))
"
pg_resume
ok $? "server started again"
# The resume must write the dates of the load it continues, not its own: let the clock move on.
sleep 1.1
n_kept=$(steps_done)
ok "$([ "${n_kept:-0}" -ge 2 ] && [ "${n_kept:-0}" -lt 17 ] && echo 0 || echo 1)" \
    "cut: $n_kept of 17 copy steps were committed and survived"

run resume "$bin" load -c "$cfg" --resume --label resume
is "$rc" 0 "load --resume: exit 0" || explain
like "$err" "*resume: 2 warehouses, seed 1: $n_kept steps committed before*" \
    "resume: says what it continues" || explain
jcheck "$(rec resume)/run.json" "
l = rec.get('load', {})
check(rec.get('status') == 'complete', 'resume: status complete', rec.get('status'))
check(l.get('resumed') is True and l.get('steps_skipped') == $n_kept,
      'resume: load.resumed true, steps_skipped = $n_kept', l)
check(l.get('rows', {}).get('item', -1) in (0, 100000), 'resume: item loaded at most once', l.get('rows'))
"
full_check resume
is "$(pg_psql "select count(*) from tpcc_load_step where step like 'copy:%'")" 17 \
    "resume: every copy step recorded once"
is "$(pg_load_dates)" 1 "resume: every row carries the one date of the load it continued"
sum_resumed=$(pg_checksums)

# ---------------------------------------------------------------------------
# 2. Loader backends killed mid-COPY, then --drop.
start_load killed --drop
n=$(pg_psql "select count(pg_terminate_backend(pid)) from pg_stat_activity
             where datname = 'tpcc' and pid <> pg_backend_pid() and backend_type = 'client backend'")
ok "$([ "${n:-0}" -ge 1 ] && echo 0 || echo 1)" "pg_terminate_backend ended $n loader backends"
finish_load killed
is "$rc" 1 "killed: exit 1" || explain
like "$err" "*load failed in the copy phase*" "killed: the message names the phase" || diag "$err"
run drop "$bin" load -c "$cfg" --drop --label drop
is "$rc" 0 "load --drop after the failed load: exit 0" || explain
full_check drop
is "$(pg_checksums)" "$sum_resumed" \
    "an uninterrupted load with the same seed equals the interrupted and resumed one (all columns but dates)"
is "$(pg_load_dates)" 1 "drop: one date for the whole load"

# ---------------------------------------------------------------------------
# 3. Errors.
run done "$bin" load -c "$cfg" --resume --label done
is "$rc" 2 "--resume on a complete load: exit 2" || explain
like "$err" "*the load completed already: nothing to resume*" "--resume on a complete load: says why"
run both "$bin" load -c "$cfg" --resume --drop --label both
is "$rc" 2 "--resume --drop: exit 2" || explain
like "$err" "*give one of them*" "--resume --drop: says why"
is "$(find "$tmp/results" -name '*.tmp*' | sort)" "" "no temp files left in results"

done_testing
