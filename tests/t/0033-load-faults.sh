#!/bin/sh
# 0033-load-faults.sh - a load cut short by the database, then continued or
# started again, against a real PostgreSQL (tests/lib/pg.sh), 2 warehouses.
#
#  1. the server stopped mid-COPY of a text load (--copy text: a step per
#     table and warehouse): exit 1, a clear message naming --resume, a record
#     marked "failed"; with the server back, `load --resume` (the fast path:
#     binary COPY; a table per transaction where no step of it committed,
#     warehouse by warehouse where some did) loads only the steps not
#     committed, every row carries the one date of the load (text and binary
#     timestamps alike) and all 12 conditions and row counts hold;
#  2. the same cut in a fast load (a step per table), resumed: the same rows;
#  3. every loader backend killed (pg_terminate_backend) mid-COPY: the same
#     failure; `load --drop` afterwards starts again and completes, and its
#     table checksums equal those of the resumed loads and of a text load
#     of the same seed (the data is identical across load paths);
#  4. --resume on a complete load, and --resume with --drop: exit 2.
# Prints TAP.  About 60 s.
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
    pg_psql "select count(*) from tpcc_load_step where step ~ '^copy:(order_line|orders|customer|history)(:|$)'" 2>/dev/null
}

# tables_covered: the tables whose rows are all committed, each either as one
# step (copy:T) or as one step per warehouse (copy:T:W, item copy:item:0),
# never both; prints that count (9 when the copy is complete).
tables_covered() {
    pg_psql "select count(*) from (select t, bool_or(w is null) whole, count(w) n from
             (select split_part(step, ':', 2) t, nullif(split_part(step, ':', 3), '') w
              from tpcc_load_step where step like 'copy:%') s group by t) c
             where (whole and n = 0) or (not whole and n = case t when 'item' then 1 else 2 end)"
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
            # With HOLD_TABLE set: a session holds that table locked until the
            # halt, so its step (a TRUNCATE in a fast load) cannot commit
            # before it, however fast the other steps go.
            if [ -n "${HOLD_TABLE:-}" ] && [ -z "${holder:-}" ]; then
                # Its own lock only: the load's TRUNCATE of that table holds
                # the same lock for a moment.
                pg_holder true "$HOLD_TABLE" /dev/null
                _j=0
                until [ "$(pg_held "$HOLD_TABLE")" -ge 1 ] || [ $_j -ge 100 ]; do
                    sleep 0.05
                    _j=$((_j + 1))
                done
            fi
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
# 1. Server stopped mid-COPY of a text load, then --resume (the fast path).
# The warehouse table (the last step of each warehouse) is held locked until
# the halt, so the cut always falls inside the copy.
holder=
HOLD_TABLE=warehouse WANT_DATED=1 start_load cut --copy text
n_before=$(steps_done)
pg_halt
ok $? "server stopped mid-COPY ($n_before copy steps committed)"
wait "$holder" 2>/dev/null
holder=
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
check(l.get('paths', [None])[0] == 'binary COPY', 'resume: load.paths says binary COPY', l.get('paths'))
"
jcheck "$(rec cut)/run.json" "
check(rec.get('load', {}).get('paths') == ['text COPY'], 'cut: load.paths says text COPY',
      rec.get('load', {}).get('paths'))
"
full_check resume
is "$(tables_covered)" 9 "resume: every table's rows committed once, as one step or one per warehouse"
is "$(pg_load_dates)" 1 "resume: every row carries the one date of the load it continued"
sum_resumed=$(pg_checksums)

# ---------------------------------------------------------------------------
# 2. The same cut in a fast load (a step per table), then --resume, the
# warehouse table held as before (on a fast machine the other eight steps
# may all commit before the halt).
holder=
HOLD_TABLE=warehouse WANT_DATED=1 start_load fastcut --drop
n_before=$(steps_done)
pg_halt
ok $? "server stopped mid-COPY of a fast load ($n_before copy steps committed)"
wait "$holder" 2>/dev/null
holder=
finish_load fastcut
is "$rc" 1 "fastcut: exit 1" || explain
pg_resume
ok $? "server started again"
sleep 1.1
n_kept=$(steps_done)
ok "$([ "${n_kept:-0}" -ge 2 ] && [ "${n_kept:-0}" -lt 9 ] && echo 0 || echo 1)" \
    "fastcut: $n_kept of 9 table steps were committed and survived"
run fastresume "$bin" load -c "$cfg" --resume --label fastresume
is "$rc" 0 "fast load --resume: exit 0" || explain
jcheck "$(rec fastcut)/run.json" "
check(rec.get('load', {}).get('paths') == ['binary COPY', 'table per transaction: TRUNCATE, COPY FREEZE'],
      'fastcut: load.paths says binary COPY and a table per transaction', rec.get('load', {}).get('paths'))
"
full_check fastresume
is "$(pg_psql "select count(*) from tpcc_load_step where step ~ '^copy:[a-z_]+$'")" 9 \
    "fastresume: every table's step recorded once"
is "$(pg_load_dates)" 1 "fastresume: every row carries the one date of the load it continued"
is "$(pg_checksums)" "$sum_resumed" "fastresume: the same rows as the text load resumed fast"

# ---------------------------------------------------------------------------
# 3. Loader backends killed mid-COPY, then --drop.  The warehouse table is
# held locked as in the cuts (a fresh chroot's fast load had finished its
# copy before the kill); the holder's backend is killed with the loader's.
holder=
HOLD_TABLE=warehouse start_load killed --drop
n=$(pg_psql "select count(pg_terminate_backend(pid)) from pg_stat_activity
             where datname = 'tpcc' and pid <> pg_backend_pid() and backend_type = 'client backend'")
ok "$([ "${n:-0}" -ge 1 ] && echo 0 || echo 1)" "pg_terminate_backend ended $n loader backends"
wait "$holder" 2>/dev/null
holder=
finish_load killed
is "$rc" 1 "killed: exit 1" || explain
like "$err" "*load failed in the copy phase*" "killed: the message names the phase" || diag "$err"
run drop "$bin" load -c "$cfg" --drop --label drop
is "$rc" 0 "load --drop after the failed load: exit 0" || explain
full_check drop
is "$(pg_checksums)" "$sum_resumed" \
    "an uninterrupted load with the same seed equals the interrupted and resumed one (all columns but dates)"
is "$(pg_load_dates)" 1 "drop: one date for the whole load"
run text "$bin" load -c "$cfg" --drop --copy text --label text
is "$rc" 0 "load --drop --copy text: exit 0" || explain
is "$(pg_psql "select count(*) from tpcc_load_step where step like 'copy:%'")" 17 \
    "text: a step per table and warehouse"
is "$(pg_checksums)" "$sum_resumed" \
    "the text load's table checksums equal the fast load's for the same seed"

# ---------------------------------------------------------------------------
# 4. Errors.
run done "$bin" load -c "$cfg" --resume --label done
is "$rc" 2 "--resume on a complete load: exit 2" || explain
like "$err" "*the load completed already: nothing to resume*" "--resume on a complete load: says why"
run both "$bin" load -c "$cfg" --resume --drop --label both
is "$rc" 2 "--resume --drop: exit 2" || explain
like "$err" "*give one of them*" "--resume --drop: says why"
is "$(find "$tmp/results" -name '*.tmp*' | sort)" "" "no temp files left in results"

done_testing
