#!/bin/sh
# 0020-load.sh - `tpccbench load` and `tpccbench check` against a real
# PostgreSQL (tests/lib/pg.sh): exact row counts, the run record, the 12
# consistency conditions, reproducible data per seed, the refusals (existing
# schema, wrong password, no server), detected corruption, and Ctrl-C during
# the copy.  Prints TAP.  Runs as root or as any other user.  The server and
# the temp directory are removed on exit, pass or fail.  About 30 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

# run: at most 180 s.  rec LABEL: the one run folder (every call has its own
# label).  t_cleanup kills the load started in the background ($bgpid).
RUN_TIMEOUT=180
t_begin t0020 pg
t_copy_bin

# jflat FILE: the JSON file's leaves, one "a.b.c=value" a line, sorted; exit 2 if it does not parse.
jflat() {
    python3 - "$1" <<'EOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        doc = json.load(f)
except Exception as ex:
    print("json error: %s" % ex, file=sys.stderr)
    sys.exit(2)
out = []
def walk(v, path):
    if isinstance(v, dict):
        if not v:
            out.append(path + "={}")
        for k, x in v.items():
            walk(x, path + "." + k if path else k)
    elif isinstance(v, list):
        out.append(path + "=" + json.dumps(v))
    elif isinstance(v, bool):
        out.append(path + "=" + ("true" if v else "false"))
    elif v is None:
        out.append(path + "=null")
    else:
        out.append(path + "=" + str(v))
walk(doc, "")
for line in sorted(out):
    print(line)
EOF
}

# jget FLAT KEY: the value of KEY in jflat output.
jget() {
    printf '%s\n' "$1" | sed -n "s/^$2=//p"
}

# jkeys FLAT PREFIX: the keys directly under PREFIX, sorted, comma-separated.
jkeys() {
    printf '%s\n' "$1" | sed -n "s/^$2\.\([^.=]*\)[.=].*/\1/p" | sort -u | paste -sd, -
}

# positive NUMBER: true when NUMBER > 0.
positive() {
    awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }'
}

# alive PID: the process runs (a zombie, exited but not yet waited for, does not).
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    case $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) in Z) return 1 ;; esac
    return 0
}

# A TCP port on 127.0.0.1 that nothing listens on.
port_listening() {
    _hex=$(printf '%04X' "$1")
    awk -v p=":$_hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

t_pg 2

tables="warehouse district customer history new_order orders order_line item stock"

# counts: "table=N" for the nine tables and "sum_ol_cnt=N", one a line, sorted.
counts() {
    pg_psql "select 'warehouse=' || (select count(*) from warehouse)
        union all select 'district=' || (select count(*) from district)
        union all select 'customer=' || (select count(*) from customer)
        union all select 'history=' || (select count(*) from history)
        union all select 'new_order=' || (select count(*) from new_order)
        union all select 'orders=' || (select count(*) from orders)
        union all select 'order_line=' || (select count(*) from order_line)
        union all select 'item=' || (select count(*) from item)
        union all select 'stock=' || (select count(*) from stock)
        union all select 'sum_ol_cnt=' || (select sum(o_ol_cnt) from orders)" 2>&1 | sort
}

# The load's clock: the only columns whose values differ between two loads.
clock_cols="'c_since', 'h_date', 'o_entry_d', 'ol_delivery_d'"

# checksums: "table=md5" for the nine tables (sorted) over every column but the
# clock's, row order ignored: tests/lib/pg.sh's pg_checksums.
checksums() {
    pg_checksums 2>&1
}

# ---------------------------------------------------------------------------
# 1. A fresh load of 2 warehouses with 2 jobs.

run first "$bin" load -c "$cfg" --warehouses 2 --jobs 2 --label first
is "$rc" 0 "load --warehouses 2 --jobs 2: exit 0" || explain

c1=$(counts)
for kv in warehouse=2 district=20 customer=60000 history=60000 new_order=18000 orders=60000 \
    item=100000 stock=200000; do
    is "$(printf '%s\n' "$c1" | grep "^${kv%%=*}=")" "$kv" "rows: $kv"
done
ol=$(printf '%s\n' "$c1" | sed -n 's/^order_line=//p')
sum_ol=$(printf '%s\n' "$c1" | sed -n 's/^sum_ol_cnt=//p')
if [ -n "$ol" ] && [ "$ol" -ge 594000 ] && [ "$ol" -le 606000 ]; then
    pass "rows: order_line=$ol is within 1 % of 600000"
else
    fail "rows: order_line within 1 % of 600000" "got: '$ol'" "counts: $c1"
fi
is "$ol" "$sum_ol" "rows: order_line = sum(o_ol_cnt)"

# The run record.
d1=$(rec first)
like "$d1" "$tmp/results/[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]-first" \
    "record: one folder results/<YYYYmmdd-HHMMSS>-first"
is "$(printf '%s\n' "$out" | tail -n 1)" "record: $d1/run.json" "load names its record on stdout"
if [ -f "$d1/run.json" ]; then pass "record: run.json exists"; else fail "record: run.json exists"; fi
j1=$(jflat "$d1/run.json" 2>"$tmp/jflat.err")
is "$?" 0 "record: run.json parses as JSON" || diag "$(cat "$tmp/jflat.err")"
is "$(jget "$j1" status)" complete "record: status complete"
is "$(jget "$j1" kind)" load "record: kind load"
is "$(jget "$j1" tool.name) $(jget "$j1" tool.version) (commit $(jget "$j1" tool.commit))" \
    "$("$bin" --version)" "record: tool.name, tool.version and tool.commit (= tpccbench --version)"
secs=$(jget "$j1" load.seconds)
if positive "$secs"; then pass "record: load.seconds > 0 ($secs)"; else fail "record: load.seconds > 0" "got: '$secs'"; fi
is "$(jkeys "$j1" load.phases)" "analyze,copy,index,schema" "record: load.phases has schema, copy, index, analyze"
for ph in schema copy index analyze; do
    v=$(jget "$j1" "load.phases.$ph")
    if positive "$v"; then pass "record: load.phases.$ph > 0 ($v)"; else fail "record: load.phases.$ph > 0" "got: '$v'"; fi
done
for t in $tables; do
    is "$(jget "$j1" "load.rows.$t")" "$(printf '%s\n' "$c1" | sed -n "s/^$t=//p")" \
        "record: load.rows.$t matches the table"
done
is "$(jget "$j1" config.database.conninfo)|$(jget "$j1" config.database.password_env)" \
    "$PG_TEST_CONNINFO|TPCC_TEST_PASSWORD" "record: config names the conninfo and password_env"
is "$(jget "$j1" load.warehouses)|$(jget "$j1" load.jobs)|$(jget "$j1" load.seed)" "2|2|1" \
    "record: load.warehouses 2, jobs 2, seed 1 (the default)"

# ---------------------------------------------------------------------------
# 2. check after a fresh load: 12 conditions and the counts.

run check1 "$bin" check -c "$cfg"
is "$rc" 0 "check after the load: exit 0" || explain
is "$(printf '%s\n' "$out" | sed -n 's/^  ok  *\([0-9][0-9]*\)  .*/\1/p' | paste -sd' ' -)" \
    "1 2 3 4 5 6 7 8 9 10 11 12" "check: 12 'ok' condition lines, 1 to 12"
like "$out" "*
  ok       row counts: warehouse=2 district=20 customer=60000 history=60000 new_order=18000 orders=60000 order_line=$ol item=100000 stock=200000
*" "check: the row counts are ok"
is "$(printf '%s\n' "$out" | tail -n 1)" "consistency: all passed" "check: 'all passed'"
unlike "$out" "*FAIL*" "check: no FAIL"

# ---------------------------------------------------------------------------
# 3. Same seed, same rows; another seed, other rows.

s1=$(checksums)
is "$(printf '%s\n' "$s1" | grep -c '=[0-9a-f]\{32\}$')" 9 "checksums of the nine tables" ||
    diag "$s1"
is "$(pg_psql "select string_agg(column_name, ',' order by column_name) from information_schema.columns
    where table_schema = current_schema() and column_name in ($clock_cols)")" \
    "c_since,h_date,o_entry_d,ol_delivery_d" "checksums: the four clock columns left out exist"

# A second load without --drop refuses, and leaves the data alone.
run nodrop "$bin" load -c "$cfg" --label nodrop
is "$rc" 2 "a second load without --drop: exit 2"
like "$err" "*already holds a TPC-C schema*'tpccbench load --drop'*" "it says to use --drop"
is "$(checksums)" "$s1" "the refused load changed nothing"
is "$(jflat "$(rec nodrop)/run.json" | sed -n 's/^status=//p')" failed "its record: status failed"

# --drop with the same seed (1, the default, now given) and another job count.
run seed1 "$bin" load -c "$cfg" --drop --seed 1 --jobs 3 --label seed1
is "$rc" 0 "load --drop --seed 1 --jobs 3: exit 0" || explain
is "$(checksums)" "$s1" "seed 1 again (3 jobs instead of 2): every table identical"

run seed2 "$bin" load -c "$cfg" --drop --seed 2 --label seed2
is "$rc" 0 "load --drop --seed 2: exit 0" || explain
s2=$(checksums)
for t in customer stock; do
    isnt "$(printf '%s\n' "$s2" | grep "^$t=")" "$(printf '%s\n' "$s1" | grep "^$t=")" \
        "seed 2: $t differs from seed 1"
done
is "$(jflat "$(rec seed2)/run.json" | sed -n 's/^load\.seed=//p')" 2 "seed 2: the record says seed 2"

# ---------------------------------------------------------------------------
# 4. Connection failures.

wrongpw=wrong-Pw-7731q
run wrongpw env TPCC_TEST_PASSWORD=$wrongpw "$bin" load -c "$cfg" --drop --label wrongpw
is "$rc" 2 "a wrong password: exit 2"
like "$err" "*cannot connect to PostgreSQL (host=127.0.0.1 port=$PG_TEST_PORT user=tpcc)*password authentication failed*" \
    "a wrong password: the message names host 127.0.0.1, the port and user tpcc"
unlike "$out$err" "*$wrongpw*" "a wrong password: the output does not hold the wrong password"
unlike "$out$err" "*$TPCC_TEST_PASSWORD*" "a wrong password: the output does not hold the real password"

port=$((PG_TEST_PORT + 1))
while port_listening "$port"; do port=$((port + 1)); done
run noserver "$bin" load -c "$cfg" --conninfo "host=127.0.0.1 port=$port dbname=tpcc user=tpcc" --label noserver
if [ "$rc" != 0 ] && [ "$rc" -lt 128 ]; then
    pass "no server on port $port: exit $rc (not 0)"
else
    fail "no server: a non-zero exit" "exit $rc"
fi
like "$err" "*cannot connect to PostgreSQL (host=127.0.0.1 port=$port user=tpcc)*Connection refused*" \
    "no server: the message names host, port and user and says 'Connection refused'"
is "$(jflat "$(rec noserver)/run.json" | sed -n 's/^status=//p')" failed "no server: record status failed"

# ---------------------------------------------------------------------------
# 5. Ctrl-C while copying: exit 130, an 'interrupted' record, no temp files.

"$bin" load -c "$cfg" --drop --warehouses 2 --label intr >"$tmp/intr.out" 2>"$tmp/intr.err" </dev/null &
bgpid=$!
# The schema line comes before the copy starts; the copy of 2 warehouses takes seconds.
i=0
while ! grep -q '^schema ' "$tmp/intr.err" && alive "$bgpid" && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.5
bg_signal INT "SIGINT sent while the load runs, 0.5 s after its schema phase" \
    "the load was still running to get SIGINT" "$tmp/intr.err"
# Wait at most 60 s for it to stop.
bg_wait 60 "after SIGINT, the load"
is "$rc" 130 "Ctrl-C during load: exit 130 (within $waited_s s)"
like "$(cat "$tmp/intr.err")" "*interrupted during the copy phase*'tpccbench load --drop'*" \
    "Ctrl-C: the message says it was copying and to load --drop"
ji=$(jflat "$(rec intr)/run.json")
is "$?" 0 "Ctrl-C: run.json parses"
is "$(jget "$ji" status)|$(jget "$ji" load.phase_reached)" "interrupted|copy" \
    "Ctrl-C: record status interrupted, phase copy"
is "$(find "$tmp/results" -name '.*tmp*' | sort)" "" "no temp files (.run.json.tmp*) left in results"

run afterintr "$bin" load -c "$cfg" --drop --label afterintr
is "$rc" 0 "load --drop after the interrupted load: exit 0" || explain
is "$(counts)" "$c1" "the same row counts as the first load"
is "$(checksums)" "$s1" "the same rows as the first load (seed 1)"

# ---------------------------------------------------------------------------
# 6. check finds a corrupted warehouse.

pg_psql 'update warehouse set w_ytd = w_ytd + 1 where w_id = 2' >/dev/null
run check2 "$bin" check -c "$cfg"
is "$rc" 1 "check after w_ytd + 1 on warehouse 2: exit 1"
is "$(printf '%s\n' "$out" | sed -n 's/^  FAIL  *\([0-9][0-9]*\)  .*/\1/p' | paste -sd' ' -)" "1 8" \
    "check: FAIL on conditions 1 and 8"
is "$(printf '%s\n' "$out" | sed -n 's/^  ok  *\([0-9][0-9]*\)  .*/\1/p' | paste -sd' ' -)" \
    "2 3 4 5 6 7 9 10 11 12" "check: the other ten conditions ok"
is "$(printf '%s\n' "$out" | grep -c 'first offender: w_id=2: ')" 2 "check: two offender lines name w_id=2"
is "$(printf '%s\n' "$out" | tail -n 1)" "consistency: FAILED" "check: 'consistency: FAILED'"

# ---------------------------------------------------------------------------
# 7. The password is nowhere: not in any record, not in any output.

found=$(grep -rlF -- "$TPCC_TEST_PASSWORD" "$tmp/results" "$tmp"/*.out "$tmp"/*.err 2>/dev/null)
is "$found" "" "the password is in no file of results/ and no output"
found=$(grep -rlF -- "$wrongpw" "$tmp/results" 2>/dev/null)
is "$found" "" "the wrong password is in no record either"
is "$(ls "$tmp/results" | wc -l | tr -d ' ')" 8 "one record folder per load (8)"

note "elapsed: $(($(date +%s) - t_start)) s"
done_testing
