#!/bin/sh
# 0024-load-parts.sh - a load in parts (load --part K/N) against one real
# PostgreSQL (tests/lib/pg.sh): the parts meet in the database, each loads
# its warehouse range, the last to finish its copy builds the indexes.
#
#  1. a single-process load of 4 warehouses, seed 5 (a table per transaction):
#     the reference checksums, which the parts (a step per table and
#     warehouse) must equal;
#  2. part 2/2 alone with --part-timeout 2s: exit 1 naming part 1 as missing,
#     the database untouched;
#  3. parts 1/2 and 2/2 started together (--drop, the same --seed and
#     --run-id): exit 0 both, the rows of the single-process load (checksums
#     of every table but the dates), one date, exactly one part built the
#     indexes (steps, tpcc_load_part and the records agree), each record says
#     its part and range;
#  4. a Kubernetes Indexed Job of 4 parts over 2 warehouses
#     (JOB_COMPLETION_INDEX 0..3, --parts 4, TPCC_RUN_ID): two parts with no
#     warehouse join and finish; the load is whole (the 12 conditions hold);
#  5. --resume of one part: part 2 of 2 interrupted mid-copy, part 1 ends,
#     part 2 --resume loads the rest and builds the indexes: the rows of (4);
#     part 1's --drop waits behind a reader of the bookkeeping, no deadlock;
#  6. refusals: part 1 --resume of another run (exit 2), --resume of a
#     complete load (exit 2).
# Prints TAP.  About 70 s (five loads, two of 4 warehouses).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0024 pg
# Test a copy: a `make` during the test must not swap the program between two parts.
cp "$TPCC_BIN" "$tmp/tpccbench" || bail_out "copying $TPCC_BIN failed"
bin=$tmp/tpccbench
# The parts this script started in the background, killed by pid on the way out.
pids=
kill_parts() {
    for _p in $pids; do
        kill -KILL "$_p" 2>/dev/null
        wait "$_p" 2>/dev/null
    done
}
t_extra_cleanup=kill_parts
t_pg 4
printf 'load: {jobs: 2}\n' >>"$cfg"

# start LABEL "VAR=value ..." ARGS...: a load in the background with those
# variables set (a launcher's; "" for none); its pid in $pid_LABEL.
start() {
    _l=$1
    _env=$2
    shift 2
    set -f
    # shellcheck disable=SC2086
    env $_env "$bin" load -c "$cfg" --label "$_l" "$@" >"$tmp/$_l.out" 2>"$tmp/$_l.err" </dev/null &
    eval "pid_$_l=$!"
    pids="$pids $!"
    set +f
}
# finish LABEL: wait for it (at most 120 s); rc, out, err as run sets them.
finish() {
    eval "_p=\$pid_$1"
    wait_gone "$_p" 120 || fail "$1: ended within 120 s"
    wait "$_p"
    rc=$?
    out=$(cat "$tmp/$1.out")
    err=$(cat "$tmp/$1.err")
}
# indexer_steps: the parts that committed index steps, "1", "2" ("": none).
indexer_steps() {
    pg_psql "select coalesce(string_agg(distinct load_part::text, ','), '') from tpcc_load_step
             where step like 'index:%'"
}
# indexer_mark: the parts marked as building the indexes in tpcc_load_part.
indexer_mark() {
    pg_psql "select coalesce(string_agg(part::text, ',' order by part), '') from tpcc_load_part
             where indexes"
}
full_check() {
    run "check-$1" "$bin" check -c "$cfg"
    is "$rc" 0 "$1: check (12 conditions, row counts): exit 0" || explain
    is "$(printf '%s\n' "$out" | grep -c '^  ok  *[0-9]')" 12 "$1: all 12 conditions ok"
}

# ---------------------------------------------------------------------------
# 1. The reference: one process, 4 warehouses, seed 5.
run single "$bin" load -c "$cfg" --seed 5 --label single
is "$rc" 0 "single-process load of 4 warehouses, seed 5: exit 0" || explain
sum_single=$(pg_checksums)
is "$(printf '%s\n' "$sum_single" | grep -c '^[a-z_]*=[0-9a-f]\{32\}$')" 9 \
    "checksums of the nine tables" || diag "$sum_single"
steps_single=$(pg_psql "select count(*) || ' steps, parts ' || string_agg(distinct load_part::text, ',')
                        from tpcc_load_step")
is "$steps_single" "20 steps, parts 0" \
    "single: 20 steps (plan, 9 tables of one transaction each, 10 indexes), all of part 0 (one process)"

# ---------------------------------------------------------------------------
note "$(($(date +%s) - t_start)) s"
# 2. Part 2/2 alone: part 1 never comes.
run lone "$bin" load -c "$cfg" --seed 5 --part 2/2 --run-id lone --part-timeout 2s --label lone
is "$rc" 1 "part 2/2 alone with --part-timeout 2s: exit 1" || explain
like "$err" "*part 2/2 of run 'lone' waited 2 s (run.part_timeout) for part 1, which creates the schema and the plan the parts share: part 1 is missing; the database holds a TPC-C schema without a plan of parts*start part 1 (--part 1/2 --run-id lone, with the same --warehouses and --seed) within the timeout, or give more time with --part-timeout; this part loaded nothing" \
    "lone: the message names part 1 as missing, what the database holds and what to do" || explain
jcheck "$(rec lone)/run.json" "
l = rec.get('load', {}); p = l.get('part', {})
check(rec.get('status') == 'failed', 'lone: status failed', rec.get('status'))
check('part 1 is missing' in rec.get('error', ''), 'lone: the record carries the error', rec.get('error'))
check((p.get('k'), p.get('n'), p.get('run_id'), p.get('first'), p.get('last'), p.get('joined')) == (2, 2, 'lone', 3, 4, False),
      'lone: load.part says part 2/2 of run lone, warehouses 3-4, not joined', p)
check(l.get('phase_reached') == 'schema' and sum(l.get('rows', {}).values()) == 0,
      'lone: phase schema, no rows loaded', l)
"
is "$(pg_psql "select count(*) || ' steps, parts ' || string_agg(distinct load_part::text, ',') from tpcc_load_step")" \
    "$steps_single" "lone: the database is untouched: no step added"
is "$(pg_psql "select to_regclass('tpcc_load_part') is null")|$(pg_psql "select count(*) from tpcc_meta")" "t|1" \
    "lone: no tpcc_load_part made, the single-process load still complete"

# ---------------------------------------------------------------------------
note "$(($(date +%s) - t_start)) s"
# 3. Two parts at once, part 2 first: it waits until part 1 has dropped the
# old schema and made the plan.
start p2 "" --seed 5 --drop --part 2/2 --run-id two
start p1 "" --seed 5 --drop --part 1/2 --run-id two
finish p1
rc1=$rc err1=$err
finish p2
is "$rc1" 0 "part 1/2: exit 0" || diag "$err1"
is "$rc" 0 "part 2/2: exit 0" || explain
like "$err" "*part 2/2 of run 'two': joined after*" "part 2/2: says it joined the plan" || explain
is "$(pg_checksums)" "$sum_single" \
    "two parts: every table holds the rows of the single-process load (all columns but the dates)"
is "$(pg_load_dates)" 1 "two parts: one date for every row"
idx=$(indexer_steps)
ok "$(case $idx in 1 | 2) echo 0 ;; *) echo 1 ;; esac)" "two parts: the index steps are one part's ($idx)"
is "$(indexer_mark)" "$idx" "two parts: tpcc_load_part marks the same part as building the indexes"
is "$(pg_psql "select string_agg(load_part || '=' || n, ' ' order by load_part) from (select load_part, count(*) n
                from tpcc_load_step where step like 'copy:%' group by load_part) s")" "1=17 2=16" \
    "two parts: copy steps by part: 1 + 2 x 8 for part 1 (item, warehouses 1-2), 2 x 8 for part 2"
is "$(pg_psql "select part || ':' || w_first || '-' || w_last || ':' || copied from tpcc_load_part order by part" | paste -sd' ' -)" \
    "1:1-2:true 2:3-4:true" "two parts: tpcc_load_part has both parts, their ranges, copied"
is "$(pg_psql "select warehouses || ' ' || seed from tpcc_meta")" "4 5" \
    "two parts: tpcc_meta written once: 4 warehouses, seed 5"
for k in 1 2; do
    first=$((2 * k - 1))
    jcheck "$(rec p$k)/run.json" "
l = rec.get('load', {}); p = l.get('part', {}); top = rec.get('part', {})
check(rec.get('status') == 'complete', 'p$k: status complete', rec.get('status'))
check((top.get('k'), top.get('n'), top.get('source')) == ($k, 2, '--part'), 'p$k: part $k/2 from --part', top)
check((p.get('k'), p.get('n'), p.get('run_id'), p.get('first'), p.get('last'), p.get('warehouses'), p.get('item'))
      == ($k, 2, 'two', $first, $((first + 1)), 2, $k == 1),
      'p$k: load.part: part $k/2 of run two, warehouses $first-$((first + 1)), item only in part 1', p)
check(l.get('warehouses') == 4 and l.get('seed') == 5, 'p$k: the load of 4 warehouses, seed 5', l.get('warehouses'), l.get('seed'))
rows = l.get('rows', {})
check((rows.get('stock'), rows.get('warehouse'), rows.get('item')) == (200000, 2, 100000 if $k == 1 else 0),
      'p$k: rows of its range only', rows)
if $k == $idx:
    check(p.get('indexes') == 'built' and p.get('indexes_by') == $k and p.get('parts_copied') == 2,
          'p$k: built the indexes, the last to finish its copy', p)
    check(l.get('phases', {}).get('index', 0) > 0 and l.get('phase_reached') == 'done', 'p$k: an index phase', l.get('phases'))
else:
    check(p.get('indexes') == 'left to the last part' and p.get('indexes_by') is None
          and p.get('parts_copied') == 1 and p.get('parts_still_copying') == [$idx],
          'p$k: indexes left to the last part (part $idx still copying)', p)
    check(l.get('phases', {}).get('index') == 0 and l.get('phase_reached') == 'done', 'p$k: no index phase', l.get('phases'))
"
done

# ---------------------------------------------------------------------------
note "$(($(date +%s) - t_start)) s"
# 4. A Kubernetes Indexed Job: 4 parts over 2 warehouses; parts 1 and 3 have none.
for i in 3 2 1 0; do
    start "k$i" "JOB_COMPLETION_INDEX=$i TPCC_RUN_ID=k8s-job" --seed 5 --drop --warehouses 2 --parts 4
done
for i in 0 1 2 3; do
    finish "k$i"
    is "$rc" 0 "Indexed Job, JOB_COMPLETION_INDEX=$i: exit 0" || explain
done
for i in 0 1 2 3; do
    k=$((i + 1))
    # part_range of 4 parts over 2 warehouses: first, last, and the items in part 1.
    case $k in
    1) first=1 last=0 item=True ;;
    2) first=1 last=1 item=False ;;
    3) first=2 last=1 item=False ;;
    *) first=2 last=2 item=False ;;
    esac
    jcheck "$(rec k$i)/run.json" "
l = rec.get('load', {}); p = l.get('part', {}); top = rec.get('part', {})
check(rec.get('status') == 'complete', 'k$i: status complete', rec.get('status'))
check(top.get('source') == 'Kubernetes Indexed Job (JOB_COMPLETION_INDEX=$i, --parts 4)' and (top.get('k'), top.get('n')) == ($k, 4),
      'k$i: part $k/4 from the Indexed Job', top)
check((p.get('k'), p.get('run_id'), p.get('first'), p.get('last'), p.get('warehouses'), p.get('item'))
      == ($k, 'k8s-job', $first, $last, $last - $first + 1, $item),
      'k$i: load.part: part $k of run k8s-job, warehouses $first..$last ($((last - first + 1)))', p)
check(p.get('joined') is True, 'k$i: joined', p)
"
done
is "$(pg_psql "select string_agg(part || ':' || (w_last - w_first + 1) || ':' || copied, ' ' order by part) from tpcc_load_part")" \
    "1:0:true 2:1:true 3:0:true 4:1:true" "Indexed Job: all 4 parts joined and copied, two with no warehouse"
idx=$(indexer_steps)
ok "$(case $idx in [1-4]) echo 0 ;; *) echo 1 ;; esac)" "Indexed Job: the index steps are one part's ($idx)"
is "$(indexer_mark)" "$idx" "Indexed Job: tpcc_load_part agrees"
is "$(pg_psql "select warehouses || ' ' || seed from tpcc_meta")" "2 5" "Indexed Job: tpcc_meta: 2 warehouses, seed 5"
full_check k8s
sum_w2=$(pg_checksums)

# ---------------------------------------------------------------------------
note "$(($(date +%s) - t_start)) s"
# 5. Part 2 of 2 interrupted mid-copy, then --resume.  Before the parts, a
# reader of the bookkeeping as a waiting part's poll reads it (tpcc_load_step,
# then tpcc_meta) takes tpcc_load_step and holds it until part 1's --drop waits
# for it: the drop waits holding nothing, so the reader's tpcc_meta is free (a
# drop that took tpcc_meta first deadlocked with the poll: CI's ASan run, part
# 1 exit 1 "dropping the old schema").
pg_psql "begin; lock table tpcc_load_step in access share mode;
do \$\$ begin for i in 1..2400 loop
  exit when exists (select 1 from pg_locks where not granted and relation = 'tpcc_load_step'::regclass);
  perform pg_sleep(0.05); end loop; end \$\$;
select exists (select 1 from pg_locks where not granted and relation = 'tpcc_load_step'::regclass)
       || '|' || count(*) from tpcc_meta; commit" >"$tmp/reader.out" 2>&1 &
reader=$!
pids="$pids $reader"
i=0
until [ "$(pg_psql "select count(*) from pg_locks where granted and relation = 'tpcc_load_step'::regclass")" = 1 ] ||
    [ $i -ge 600 ]; do
    sleep 0.05
    i=$((i + 1))
done
# Once the new schema is there (run res registered, its warehouse table made),
# a session holds the warehouse table (the last copy step of each warehouse)
# until part 2 is interrupted: the interrupt falls inside part 2's copy
# however fast its other steps go (a loaded CI ran all 8 between the look
# at the steps and the signal).  The session watches for the schema itself,
# every 10 ms, committing each look so that it holds nothing the drop waits
# for; a process a look from here was too slow (part 2 copies in 3 s).
pg_holder "to_regclass('warehouse') is not null and
    exists (select 1 from tpcc_load_part where run_id = 'res')" warehouse "$tmp/holder.out"
pids="$pids $holder"
start r2 "" --seed 5 --drop --warehouses 2 --part 2/2 --run-id res
start r1 "" --seed 5 --drop --warehouses 2 --part 1/2 --run-id res
# r2_steps: copy steps part 2 of run res committed (not the Indexed Job's part 2).
r2_steps() {
    _n=$(pg_psql "select count(*) from tpcc_load_step where load_part = 2 and step like 'copy:%'
                  and exists (select 1 from tpcc_load_part where run_id = 'res')" 2>/dev/null)
    echo "${_n:-0}"
}
i=0
until [ "$(pg_held warehouse)" = 1 ] || ! alive "$holder" || [ $i -ge 2400 ]; do
    sleep 0.05
    i=$((i + 1))
done
is "$(pg_held warehouse)" 1 "a session holds the new warehouse table (part 2's last copy step waits for it)" || {
    diag "holder: $(alive "$holder" && echo alive || echo gone) after $i looks; it printed:" "$(cat "$tmp/holder.out")"
    diag "locks on warehouse, tpcc_load_part, tpcc_load_step:" "$(pg_psql "select c.relname, l.mode, l.granted, l.pid
             from pg_locks l join pg_class c on c.oid = l.relation
             where c.relname in ('warehouse', 'tpcc_load_part', 'tpcc_load_step') order by 1, 4" 2>&1)"
    diag "sessions:" "$(pg_psql "select pid, state, wait_event_type, wait_event, left(query, 80)
             from pg_stat_activity where backend_type = 'client backend'" 2>&1)"
    diag "server log, last lines:" "$(tail -n 15 "$PG_TEST_DIR/server.log")"
}
i=0
while [ "$(r2_steps)" -lt 1 ] && alive "$pid_r2" && [ $i -lt 1200 ]; do
    sleep 0.05
    i=$((i + 1))
done
kill -INT "$pid_r2"
finish r2
pg_holder_end
wait "$holder" 2>/dev/null
is "$rc" 130 "part 2/2 interrupted mid-copy: exit 130" || explain
like "$err" "*part 2/2 interrupted during the copy phase*start this part again with --resume*" \
    "interrupted part: says to resume it" || explain
finish r1
is "$rc" 0 "part 1/2 of run res: exit 0" || explain
wait "$reader"
is "$?|$(cat "$tmp/reader.out")" "0|true|1" \
    "the reader held tpcc_load_step until the drop waited for it, then read tpcc_meta: no deadlock" ||
    diag "$(cat "$tmp/r1.err")"
like "$out" "*keys, indexes and ANALYZE are left to the last part to finish its copy (1 of 2 parts done; still copying: 2)*" \
    "part 1/2: left the indexes to the last part, part 2 still copying" || explain
kept=$(pg_psql "select count(*) from tpcc_load_step where load_part = 2 and step like 'copy:%'")
ok "$([ "${kept:-0}" -ge 1 ] && [ "${kept:-0}" -lt 8 ] && echo 0 || echo 1)" \
    "part 2 committed $kept of its 8 copy steps before the interrupt"
is "$(pg_psql "select count(*) from tpcc_meta")" 0 "the load is not complete: no tpcc_meta"
run r2resume "$bin" load -c "$cfg" --seed 5 --warehouses 2 --part 2/2 --run-id res --resume --label r2resume
is "$rc" 0 "part 2/2 --resume: exit 0" || explain
like "$err" "*resume: part 2/2, 2 warehouses, seed 5:*steps committed before*" "resume: says what it continues" ||
    explain
jcheck "$(rec r2resume)/run.json" "
l = rec.get('load', {}); p = l.get('part', {})
check(rec.get('status') == 'complete', 'r2resume: status complete', rec.get('status'))
check(l.get('resumed') is True and l.get('steps_skipped') == $kept, 'r2resume: resumed, $kept steps skipped', l)
check(p.get('indexes') == 'built' and p.get('indexes_by') == 2, 'r2resume: the last part: built the indexes', p)
"
is "$(indexer_steps)" 2 "resume: the index steps are part 2's"
is "$(pg_checksums)" "$sum_w2" "resume: the rows of the 4-part load of 2 warehouses, seed 5"
is "$(pg_load_dates)" 1 "resume: one date for every row"

# ---------------------------------------------------------------------------
note "$(($(date +%s) - t_start)) s"
# 6. Refusals.
run other "$bin" load -c "$cfg" --warehouses 2 --part 1/2 --run-id other --resume --label other
is "$rc" 2 "part 1 --resume of a run not in the database: exit 2" || explain
like "$err" "*cannot resume part 1/2 of run 'other': the database holds the load of run 'res' in 2 parts*" \
    "it names the run the database holds" || explain
run done2 "$bin" load -c "$cfg" --warehouses 2 --part 2/2 --run-id res --resume --label done2
is "$rc" 2 "part 2 --resume of a complete load: exit 2" || explain
like "$err" "*the load of run 'res' completed already: nothing to resume*" "it says the load is complete" ||
    explain
is "$(pg_checksums)" "$sum_w2" "the refusals changed nothing"
is "$(find "$tmp/results" -name '.*tmp*' | sort)" "" "no temp files left in results"

note "elapsed: $(($(date +%s) - t_start)) s"
done_testing
