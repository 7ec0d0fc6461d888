#!/bin/sh
# 0021-load-metrics.sh - the live endpoint during a load (--metrics-listen,
# run.metrics_listen) on a real PostgreSQL:
#  1. a port in use, given as run.metrics_listen in the config: exit 2
#     before the load starts (no record, no table created);
#  2. `load --metrics-listen` scraped twice while it copies: the rows sent per
#     table grow, the committed rows never shrink, the phase is "copy", the
#     OS and database figures are there, both texts pass `promtool check
#     metrics`, the OpenMetrics text ends in "# EOF"; the load's own record
#     agrees with the rows it served;
#  3. `bench --metrics-listen`: the same endpoint shows the load, then the
#     run's transactions;
#  4. study and sweep refuse run.metrics_listen (they do not serve it).
# Prints TAP.  About 60 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0021 pg
command -v promtool >/dev/null 2>&1 || bail_out "promtool is needed (apt-get install prometheus)"
t_pg 3

# scrape_load URL DIR WANT1 WANT2: in one process, wait until the text holds
# WANT1 (a line prefix) and some rows sent, save DIR/scrape1 and DIR/om1 (OpenMetrics, its
# Content-Type in om1.type), then wait for a later text holding WANT2 whose
# rows sent differ from the first one's (or that has none: a run's text) and
# save it as DIR/scrape2.
scrape_load() {
    python3 - "$@" <<'PYEOF'
import sys, time, urllib.request
url, d, want1, want2 = sys.argv[1:5]


def get(accept=None):
    req = urllib.request.Request(url)
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.read(), r.headers.get("Content-Type", "")


def sent(body):
    return sum(float(l.split()[-1]) for l in body.decode().splitlines()
               if l.startswith("tpccbench_load_rows_sent_total{"))


def wait_for(want, differ=None, limit=90):
    deadline = time.time() + limit
    while True:
        try:
            body, _ = get()
            # The first text waits for a row sent, not only for the copy
            # phase: a slow (sanitized) load can be scraped between the
            # two, and the rows sent would not grow from 0.
            if differ is None and sent(body) == 0:
                raise OSError("no row sent yet")
            # A run's text has no load rows at all: that differs too (the
            # first text may have been taken before the copy sent a row).
            if any(l.startswith(want) for l in body.decode().splitlines()) and \
                    (differ is None or sent(body) != differ or
                     b"tpccbench_load_rows_sent_total{" not in body):
                return body
        except OSError:
            pass
        if time.time() > deadline:
            sys.exit("the endpoint never showed %r" % want)
        time.sleep(0.2)


body = wait_for(want1)
open(d + "/scrape1", "wb").write(body)
om, ctype = get("application/openmetrics-text; version=1.0.0")
open(d + "/om1", "wb").write(om)
open(d + "/om1.type", "w").write(ctype)
open(d + "/scrape2", "wb").write(wait_for(want2, sent(body)))
PYEOF
}

okc() {
    if eval "$1"; then
        pass "$2"
    else
        fail "$2" "failed: $1"
    fi
}

# sum_of FILE PREFIX: the sum of the samples whose lines start with PREFIX.
sum_of() {
    awk -v p="$2" 'index($0, p) == 1 { s += $NF } END { printf "%d\n", s }' "$1"
}

ntables() {
    pg_psql "select count(*) from pg_tables where tablename in ('warehouse', 'stock', 'tpcc_load_step')"
}

# ---------------------------------------------------------------------------
# 1. A port in use, from the config file: exit 2 before the load starts.
busy_port
busycfg=$tmp/busy.yaml
cp "$cfg" "$busycfg"
printf 'run: {metrics_listen: "127.0.0.1:%s"}\n' "$busy" >>"$busycfg"
run busy "$bin" load -c "$busycfg" --label busy
is "$rc" 2 "load with run.metrics_listen on a port in use ($busy): exit 2" || explain
like "$err" "*cannot listen on 127.0.0.1:$busy (run.metrics_listen)*in use*choose another*" \
    "... naming the address, the key and what to do"
is "$(rec busy)" "" "... before the load starts (no record)"
is "$(ntables)" 0 "... and before any table is created"
busy_port_free

# ---------------------------------------------------------------------------
# 2. load --metrics-listen, scraped twice while it copies (W=3, one job).
# The copy (a table at a time, biggest first: stock, order_line, customer,
# ..., warehouse last) is held twice so that both scrapes fall inside it
# (its 6 s ended before a loaded machine's scraper had its first text):
# on customer until the first text is saved, then on warehouse until the
# second one is.
pg_holder "to_regclass('customer') is not null" customer "$tmp/h1.out" tpcc-holder-1
h1=$holder
pg_holder "to_regclass('warehouse') is not null" warehouse "$tmp/h2.out" tpcc-holder-2
h2=$holder
"$bin" load -c "$cfg" --jobs 1 --label live --metrics-listen "127.0.0.1:0" \
    >"$tmp/live.out" 2>"$tmp/live.err" </dev/null &
bgpid=$!
bg_endpoint live
port=$(echo "$endpoint" | sed -n 's|^http://127.0.0.1:\([0-9]*\)/metrics$|\1|p')
scraped=1
if [ -n "$port" ]; then
    scrape_load "http://127.0.0.1:$port/metrics" "$tmp" 'tpccbench_load_phase{phase="copy"} 1' \
        'tpccbench_load_phase{phase="copy"} 1' 2>"$tmp/scrape.err" &
    scraper=$!
    while [ ! -s "$tmp/om1.type" ] && alive "$scraper"; do sleep 0.05; done
    is "$(pg_held customer tpcc-holder-1)" 1 "the copy was held on customer at the first text"
    pg_holder_end tpcc-holder-1
    while [ ! -s "$tmp/scrape2" ] && alive "$scraper"; do sleep 0.05; done
    pg_holder_end tpcc-holder-2
    wait "$scraper"
    scraped=$?
fi
pg_holder_end tpcc-holder-1
pg_holder_end tpcc-holder-2
wait "$h1" "$h2" 2>/dev/null
if [ "$scraped" = 0 ]; then
    pass "the endpoint answered three scrapes during the copy"
else
    fail "the endpoint answered three scrapes during the copy" "$(tail -3 "$tmp/scrape.err")"
fi
bg_reap live
is "$rc" 0 "load --jobs 1 --metrics-listen 127.0.0.1:0: exit 0" || explain
like "$port" "[1-9]*" "... saying where the endpoint is, on the port the system chose (127.0.0.1:$port)"
s1=$(sum_of "$tmp/scrape1" 'tpccbench_load_rows_sent_total{')
s2=$(sum_of "$tmp/scrape2" 'tpccbench_load_rows_sent_total{')
ok "$([ "$s1" -gt 0 ] && [ "$s2" -gt "$s1" ]; echo $?)" \
    "the rows sent grow between scrapes ($s1 -> $s2)"
c1=$(sum_of "$tmp/scrape1" 'tpccbench_load_rows_total{')
c2=$(sum_of "$tmp/scrape2" 'tpccbench_load_rows_total{')
ok "$([ "$c2" -ge "$c1" ] && [ "$c2" -le "$s2" ]; echo $?)" \
    "the committed rows do not shrink and stay within the rows sent ($c1 -> $c2, sent $s2)"
for t in warehouse district customer history new_order orders order_line item stock; do
    okc "grep -q '^tpccbench_load_rows_total{table=\"$t\"} [0-9]' '$tmp/scrape2'" \
        "rows by table: $t"
done
is "$(grep -c '^tpccbench_load_phase{' "$tmp/scrape2")" 6 "the phase: one sample per phase"
is "$(grep '^tpccbench_load_phase{' "$tmp/scrape2" | awk '{s += $NF} END {print s}')" 1 \
    "... exactly one of them 1"
is "$(grep '^tpccbench_load_warehouses ' "$tmp/scrape2" | cut -d' ' -f2)" 3 "warehouses: 3"
p1=$(grep '^tpccbench_load_phase_planned ' "$tmp/scrape2" | cut -d' ' -f2)
# W=3: 3 x (1 + 10 + 30000 + 30000 + 9000 + 30000 + 300000 + 100000) + 100000 items
# (order_line: 10 a order on average, the spec's 5 to 15).
is "$p1" 1597033 "the copy's planned rows: 1597033 for W=3"
for fam in tpccbench_cpu_percent tpccbench_memory_bytes tpccbench_process_cpu_percent \
    tpccbench_db_commits_per_second tpccbench_db_wal_bytes_per_second tpccbench_db_sessions; do
    okc "grep -q '^$fam' '$tmp/scrape2'" "the OS and database figures: $fam"
done
promtool_check scrape1 scrape2
like "$(cat "$tmp/om1.type")" "application/openmetrics-text*" "OpenMetrics when asked for it"
is "$(tail -n 1 "$tmp/om1")" "# EOF" "... ending in # EOF"
okc "grep -q '^# TYPE tpccbench_load_rows counter' '$tmp/om1'" \
    "... the rows a counter family without _total"
okc "! grep -q -e '$TPCC_TEST_PASSWORD' -e 'user=' -e 'conninfo' '$tmp/scrape2' '$tmp/om1'" \
    "no password, user or connection string in the text"
d=$(rec live)
jcheck "$d/run.json" "
rows = rec.get('load', {}).get('rows', {})
check(rec.get('status') == 'complete', 'the load record is complete', rec.get('status'))
check(sum(v for t, v in rows.items() if t != 'order_line') == 697033,
      'the record holds the rows the endpoint planned (order_line aside)', rows)
check('metrics' not in rec, 'a load writes no run metrics', list(rec))
"
okc "[ ! -e '$d/metrics.csv' ]" "... and no metrics.csv"

# ---------------------------------------------------------------------------
# 3. bench --metrics-listen: the load, then the run, on the same endpoint.
# The bench's copy is held until the endpoint has shown it: a session
# (tpcc-holder) waits for the new warehouse table (the bench drops the old
# one) and locks it, so the copy's last unit, the warehouse rows, waits; the
# holder ends once the first text is saved (a copy of a few seconds was
# missed by a loaded machine's scrapes).
old_wh=$(pg_psql "select coalesce(to_regclass('warehouse')::oid, 0)")
pg_holder "coalesce(to_regclass('warehouse')::oid, 0) not in (0, ${old_wh:-0})" warehouse \
    "$tmp/bholder.out"
"$bin" bench -c "$cfg" --label bench --duration 3s --warmup 1s --vus 2 \
    --metrics-listen "127.0.0.1:0" >"$tmp/bench.out" 2>"$tmp/bench.err" </dev/null &
bgpid=$!
bg_endpoint bench
scraped=1
if [ -n "$endpoint" ]; then
    rm -f "$tmp/scrape1" "$tmp/om1" "$tmp/om1.type" "$tmp/scrape2"
    scrape_load "$endpoint" "$tmp" 'tpccbench_load_phase{phase="copy"} 1' \
        'tpccbench_transactions_total{type="new_order",outcome="committed"}' 2>"$tmp/bscrape.err" &
    scraper=$!
    while [ ! -s "$tmp/om1.type" ] && alive "$scraper"; do sleep 0.05; done
    is "$(pg_held warehouse)" 1 \
        "bench: the new warehouse table was held while the endpoint showed the copy"
    pg_holder_end
    wait "$scraper"
    scraped=$?
fi
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
if [ "$scraped" = 0 ]; then
    pass "bench: the endpoint showed the load, then the run"
else
    fail "bench: the endpoint showed the load, then the run" "$(tail -3 "$tmp/bscrape.err")" \
        "holder: $(cat "$tmp/bholder.out")"
fi
wait "$bgpid"
rc=$?
bgpid=
out=$(cat "$tmp/bench.out")
err=$(cat "$tmp/bench.err")
is "$rc" 0 "bench --metrics-listen: exit 0" || explain
okc "grep -q '^tpccbench_load_rows_sent_total{table=\"stock\"}' '$tmp/scrape1'" \
    "... during its load: the load's rows"
okc "! grep -q '^tpccbench_load_' '$tmp/scrape2' && grep -q '^tpccbench_notpm ' '$tmp/scrape2'" \
    "... during its run: the run's figures, not the load's"
okc "promtool check metrics <'$tmp/scrape1' >/dev/null 2>&1" "... promtool check metrics passes"

# ---------------------------------------------------------------------------
# 4. study and sweep do not serve the endpoint: run.metrics_listen is refused
# (exit 2, nothing run), not ignored.
printf 'study: { name: ml, reset: none }\nworkload: { duration: 1s, warmup: 0s }\nsteps:\n  - label: baseline\n' \
    >"$tmp/ml.yaml"
run mlstudy "$bin" study "$tmp/ml.yaml" -c "$root/tests/data/config/metrics-listen.yaml" \
    --results-dir "$tmp/mlres"
is "$rc" 2 "study with run.metrics_listen: exit 2" || explain
like "$err" "*'run.metrics_listen': study does not serve the live endpoint*remove it*" \
    "... saying it is not served there and what to do"
okc "[ ! -e '$tmp/mlres' ]" "... before anything runs"
run mlsweep "$bin" sweep -c "$root/tests/data/config/metrics-listen.yaml" --rtt 0
is "$rc" 2 "sweep with run.metrics_listen: exit 2" || explain

done_testing
