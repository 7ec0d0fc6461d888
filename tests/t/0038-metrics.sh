#!/bin/sh
# 0038-metrics.sh - the OS and database metrics beside a run (src/run/metrics.c)
# on a real PostgreSQL (W=1), and the live endpoint (--metrics-listen):
#
#  1. a 10 s run (2 s warm-up) with the endpoint: metrics.csv has one row a
#     second (consecutive seconds, intervals of about 1 s) and every
#     documented column; the CPU shares of each row sum to 100; WAL bytes/s
#     are > 0 and, summed over the rows, agree with the server's LSN
#     difference over the whole command within 5 %; the data directory's
#     device shows writes - or, where the data directory is on no block
#     device (tmpfs, a chroot), its columns are unavailable with a note,
#     which this test then accepts and says so; run.json's "metrics" has
#     mean, p95 and max; the summary prints the means; `report` draws CPU,
#     disk and WAL charts under the throughput charts (headless Chromium
#     renders it and a screenshot is taken);
#     lock waits (pg_locks) are a whole number in every row, data written
#     (pg_stat_bgwriter, a CHECKPOINT during the run) is > 0 and agrees with
#     the server's own difference within 5 %, and the summary has neither
#     unavailable;
#  2. the endpoint scraped twice during that run: the transaction counters
#     grow, both texts pass `promtool check metrics`, the OpenMetrics one
#     (Accept: application/openmetrics-text) ends with "# EOF" and names its
#     counter family without _total, no text holds the password or user;
#     2b. a third session holds a row a 4 s run's Payments update until the
#     endpoint shows tpccbench_db_lock_waits above 0; metrics.csv has it;
#  3. a port in use: exit 2 before anything runs (no record);
#  4. a user without pg_monitor, and with pg_current_wal_lsn() revoked: the
#     columns it can read are there, the WAL column is unavailable with the
#     server's "permission denied" as its note, the sessions of other users
#     it cannot see are said in the session columns' note; a device named
#     with --metrics-devices that is not there has its columns unavailable,
#     with a note;
#  5. run.metrics false: no metrics.csv, no "metrics" in run.json; compare's
#     CSV and JSON give the metrics of the run that has them and empty cells
#     with a note for the one that has not;
#  6. PostgreSQL 17's checkpoint statement runs against stand-in
#     pg_stat_checkpointer and pg_stat_io views and returns no buffers_backend.
# Prints TAP.  About 45 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0038 pg
command -v promtool >/dev/null 2>&1 || bail_out "promtool is needed (apt-get install prometheus)"
t_pg 1
run load "$bin" load -c "$cfg" --label load
is "$rc" 0 "load W=1" || explain

# scrape_twice URL DIR: in one process (python starts slowly on a loaded
# machine), wait for the endpoint to show a committed New-Order, then save
# DIR/scrape1 (Prometheus text), DIR/om1 (OpenMetrics, with its
# Content-Type in om1.type) and, at the monitor's next tick (a second or
# more later), DIR/scrape2.
scrape_twice() {
    python3 - "$1" "$2" <<'PYEOF'
import sys, time, urllib.request
url, d = sys.argv[1], sys.argv[2]


def get(accept=None):
    req = urllib.request.Request(url)
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.read(), r.headers.get("Content-Type", "")


NO = b'tpccbench_transactions_total{type="new_order",outcome="committed"} '


def new_orders(body):
    v = [l[len(NO):] for l in body.splitlines() if l.startswith(NO)]
    return float(v[0]) if v else 0.0


deadline = time.time() + 60
while True:
    try:
        body, _ = get()
        # A New-Order committed (on a loaded machine the first tick may hold
        # only other types' commits).
        if new_orders(body) > 0 and b'tpccbench_db_wal_bytes_per_second' in body:
            break
    except OSError:
        pass
    if time.time() > deadline:
        sys.exit("the endpoint never showed a committed New-Order")
    time.sleep(0.2)
open(d + "/scrape1", "wb").write(body)
body, ctype = get("application/openmetrics-text; version=1.0.0")
open(d + "/om1", "wb").write(body)
open(d + "/om1.type", "w").write(ctype)
# The text changes at the monitor's next tick: wait for it (at most 15 s).
first = [l for l in body.splitlines() if l.startswith(b'tpccbench_transactions_total{type="new_order",outcome="committed"}')]
deadline = time.time() + 15
time.sleep(1.1)
while True:
    body, _ = get()
    now = [l for l in body.splitlines() if l.startswith(b'tpccbench_transactions_total{type="new_order",outcome="committed"}')]
    if now != first or time.time() > deadline:
        break
    time.sleep(0.3)
open(d + "/scrape2", "wb").write(body)
PYEOF
}

# sampled URL: wait (at most 60 s) until the endpoint shows a database's WAL
# rate above 0: the run's sampler has read the database twice, and the run
# has dirtied pages.
sampled() {
    python3 - "$1" <<'PYEOF'
import sys, time, urllib.request
deadline = time.time() + 60
W = b"tpccbench_db_wal_bytes_per_second "
while True:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
            if any(l.startswith(W) and float(l[len(W):]) > 0 for l in r.read().splitlines()):
                break
    except (OSError, ValueError):
        pass
    if time.time() > deadline:
        sys.exit("the endpoint never showed the database's WAL rate")
    time.sleep(0.1)
PYEOF
}

# okc CMD DESC: pass when the shell command CMD succeeds.
okc() {
    if eval "$1"; then
        pass "$2"
    else
        fail "$2" "failed: $1"
    fi
}

lsn() {
    pg_psql "select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint"
}

# written: the server's bytes written to data files (pg_stat_bgwriter).
written() {
    pg_psql "select (buffers_checkpoint + buffers_clean + buffers_backend) *
                    current_setting('block_size')::bigint from pg_stat_bgwriter"
}

# ---------------------------------------------------------------------------
# 1 and 2. A 10 s run with the endpoint, scraped twice.
pg_psql "checkpoint" >/dev/null
l0=$(lsn)
w0=$(written)
"$bin" run -c "$cfg" --vus 4 --duration 10s --warmup 2s --label it \
    --metrics-listen "127.0.0.1:0" >"$tmp/it.out" 2>"$tmp/it.err" </dev/null &
bgpid=$!
bg_endpoint it
port=$(echo "$endpoint" | sed -n 's|^http://127.0.0.1:\([0-9]*\)/metrics$|\1|p')
# The scrapes, and beside them a checkpoint that writes the run's dirty
# pages while the run goes on, once the sampler has read the database: the
# checkpointer counts its buffers when it ends, so it must end between the
# run's first and last samples for the rows to hold its writes (taken after
# the scrapes, a loaded machine's checkpoint outlasted the run).  The load's
# pages were written before the command by the checkpoint above.
scraped=1
if [ -n "$port" ]; then
    scrape_twice "http://127.0.0.1:$port/metrics" "$tmp" 2>"$tmp/scrape.err" &
    scraper=$!
    sampled "http://127.0.0.1:$port/metrics" && pg_psql "checkpoint" >/dev/null &&
        alive "$bgpid" && echo ended >"$tmp/ckpt"
    wait "$scraper"
    scraped=$?
fi
if [ "$scraped" = 0 ]; then
    pass "the endpoint answered three scrapes during the run"
else
    fail "the endpoint answered three scrapes during the run" "$(tail -3 "$tmp/scrape.err")"
fi
is "$(cat "$tmp/ckpt" 2>/dev/null)" ended "the checkpoint ended while the run went on"
wait "$bgpid"
rc=$?
bgpid=
l1=$(lsn)
w1=$(written)
out=$(cat "$tmp/it.out")
err=$(cat "$tmp/it.err")
is "$rc" 0 "run --vus 4 --duration 10s --metrics-listen 127.0.0.1:0: exit 0" || explain
d=$(rec it)
[ -n "$d" ] && [ -f "$d/run.json" ] || bail_out "no run record results/*-it/run.json"
okc "[ -s '$d/metrics.csv' ]" "metrics.csv is written beside series.csv"
like "$out" "*metrics (means, driver and db host: one host): CPU user*" "the summary prints the CPU means, naming the host (one: the server is local)"
like "$out" "*WAL * MB/s*checkpoints*" "the summary prints WAL MB/s and checkpoints"
like "$port" "[1-9]*" "run says where the endpoint is, on the port the system chose (127.0.0.1:$port)"
unlike "$out" "*unavailable: db_lock_waits*" "PostgreSQL: the summary has no lock waits unavailable"
unlike "$out" "*unavailable: db_data_written_mb_per_s*" "... nor data written"

python3 - "$d" "$l0" "$l1" "$w0" "$w1" >"$tmp/checks" 2>&1 <<'PYEOF'
import csv, json, math, sys

d, l0, l1, w0, w1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])


def check(cond, desc, *details):
    print("\t".join(["PASS" if cond else "FAIL", desc] + ([] if cond else [str(x) for x in details])))


rows = list(csv.DictReader(open(d + "/metrics.csv")))
rec = json.load(open(d + "/run.json"))
m = rec.get("metrics", {})
documented = ["second", "phase", "interval_s",
              "cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct", "cpu_steal_pct", "cpu_idle_pct",
              "procs_running", "context_switches_per_s",
              "mem_free_mb", "mem_cached_mb", "mem_dirty_mb", "mem_writeback_mb",
              "disk_data_reads_per_s", "disk_data_writes_per_s", "disk_data_read_mb_per_s",
              "disk_data_write_mb_per_s", "disk_data_await_ms", "disk_data_util_pct",
              "net_lo_rx_bytes_per_s", "net_lo_tx_bytes_per_s",
              "self_cpu_pct", "self_rss_mb", "metrics_cpu_ms",
              "db_commits_per_s", "db_rollbacks_per_s", "db_buffer_hit_pct", "db_wal_bytes_per_s",
              "db_checkpoints_per_s", "db_buffers_checkpoint_per_s", "db_buffers_backend_per_s",
              "db_temp_bytes_per_s", "db_deadlocks_per_s", "db_lock_waits",
              "db_data_written_mb_per_s", "db_sessions_active", "db_sessions_idle_in_tx",
              "db_sessions_waiting_lock", "db_longest_tx_s"]
header = list(rows[0].keys()) if rows else []
missing = [c for c in documented if c not in header]
check(not missing, "metrics.csv has every documented column", missing)
# Rows are series.csv's seconds: the window's opening closes the warm-up's
# last second in series.csv only, so there the next row spans two seconds.
secs = [int(r["second"]) for r in rows]
check(len(rows) >= 11, "metrics.csv has a row for each second of the 12 s run", len(rows))
gaps = [b - a for a, b in zip(secs, secs[1:])]
check(all(g == 1 for g in gaps) or (gaps.count(2) == 1 and all(g in (1, 2) for g in gaps)),
      "its seconds are consecutive (but for the window's opening)", secs)
# The window's first row waits up to 1 s for the workers' counts from after
# the edge (monitor.c, await_snapshots): its interval may be that much longer.
off = [(r["second"], r["interval_s"]) for r, g in zip(rows[1:-1], gaps)
       if not -0.3 <= float(r["interval_s"]) - g <= (1.3 if g == 2 else 0.3)]
check(not off, "each row's interval is the time since the row before it", off)
ser = {int(r["second"]): r.get("phase") for r in csv.DictReader(open(d + "/series.csv"))}
check(all(int(r["second"]) in ser for r in rows[:-1]), "every row but the last is a second of "
      "series.csv", [r["second"] for r in rows], sorted(ser))
check(rows and rows[-1]["phase"] == "s" and sum(r["phase"] == "m" for r in rows) >= 9,
      "the measured rows are marked m, the sample after the run s",
      [r["phase"] for r in rows])
bad = []
for r in rows:
    s = sum(float(r[c]) for c in ("cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct",
                                  "cpu_steal_pct", "cpu_idle_pct"))
    if abs(s - 100) > 0.5:
        bad.append((r["second"], s))
check(not bad, "CPU shares sum to 100 in every row", bad)
wal = [float(r["db_wal_bytes_per_s"]) for r in rows if r["db_wal_bytes_per_s"] != ""]
check(len(wal) == len(rows) and all(x > 0 for x in wal),
      "WAL bytes/s is there and > 0 in every row", wal)
# A rate times the time between the database's two readings it is over
# (db_interval_s) is the counter's difference, whatever the row's interval.
span = [r["db_interval_s"] for r in rows]
check(all(x != "" and float(x) > 0 for x in span),
      "db_interval_s is there and > 0 in every row", span)
total = sum(float(r["db_wal_bytes_per_s"]) * float(r["db_interval_s"]) for r in rows
            if r["db_wal_bytes_per_s"] != "")
lsn = l1 - l0
check(lsn > 0 and abs(total - lsn) <= 0.05 * lsn,
      "WAL bytes summed over the rows agree with the server's LSN difference within 5 %",
      "rows %.0f" % total, "lsn %d" % lsn)
check(all(r["db_commits_per_s"] != "" for r in rows[1:]) and
      sum(float(r["db_commits_per_s"]) for r in rows if r["db_commits_per_s"]) > 0,
      "commits/s is there, > 0 over the run")
cols = m.get("columns", {})
dev = m.get("devices", {}).get("data")
w = [float(r["disk_data_writes_per_s"]) for r in rows if r["disk_data_writes_per_s"] != ""]
if dev:
    check(len(w) == len(rows) and sum(w) > 0,
          "disk writes > 0 on the data directory's device %s" % dev, w)
else:
    note = cols.get("disk_data_writes_per_s", {}).get("note", "")
    check(not w and note, "no block device under the data directory: its disk columns are "
          "unavailable, with the note: %s" % note, w, note)
    print("# accepted: the data directory has no block device here (%s)" % note)
cu = cols.get("cpu_user_pct", {})
check(all(isinstance(cu.get(k), float) for k in ("mean", "p95", "max")) and
      cu["mean"] <= cu["p95"] + 1e-9 <= cu["max"] + 2e-9,
      "run.json's metrics has mean <= p95 <= max of cpu_user_pct", cu)
for c in ("db_checkpoints_per_s", "db_buffers_checkpoint_per_s", "db_buffers_backend_per_s"):
    check(cols.get(c, {}).get("available") is True,
          "PostgreSQL %s (pg_stat_bgwriter): %s is filled" % (rec["dbms"]["version"], c), cols.get(c))
lw = [r["db_lock_waits"] for r in rows]
check(cols.get("db_lock_waits", {}).get("available") is True and
      all(x != "" and float(x) >= 0 and float(x) == int(float(x)) for x in lw),
      "db_lock_waits (pg_locks not granted) is a whole number >= 0 in every row", lw,
      cols.get("db_lock_waits"))
dw = sum(float(r["db_data_written_mb_per_s"]) * float(r["db_interval_s"]) * 1e6 for r in rows
         if r["db_data_written_mb_per_s"] != "")
check(cols.get("db_data_written_mb_per_s", {}).get("available") is True and
      all(r["db_data_written_mb_per_s"] != "" for r in rows[1:]),
      "db_data_written_mb_per_s (pg_stat_bgwriter) is there in every row but the first",
      cols.get("db_data_written_mb_per_s"))
# As for the WAL: the rows' rates are over the database's own readings.
check(w1 > w0 and dw > 0 and abs(dw - (w1 - w0)) <= 0.05 * (w1 - w0),
      "data written summed over the rows is > 0 (a CHECKPOINT in the run) and agrees with "
      "the server's pg_stat_bgwriter difference over the command within 5 %",
      "rows %.0f" % dw, "server %d" % (w1 - w0))
print("# data written: rows %.0f bytes, pg_stat_bgwriter over the command %d" % (dw, w1 - w0))
samp = m.get("sampling_cpu_pct_of_core")
check(isinstance(samp, float) and samp < 1.0, "sampling takes under 1 % of a core", samp)
PYEOF
tap_from "$tmp/checks"

# 2. The endpoint.
n1=$(grep '^tpccbench_transactions_total{type="new_order",outcome="committed"}' "$tmp/scrape1" | cut -d' ' -f2)
n2=$(grep '^tpccbench_transactions_total{type="new_order",outcome="committed"}' "$tmp/scrape2" | cut -d' ' -f2)
okc "[ '${n1:-0}' -gt 0 ] && [ '${n2:-0}' -gt '${n1:-0}' ]" \
    "the New-Order committed counter grows between scrapes ($n1 -> $n2)"
promtool_check scrape1 scrape2
for fam in tpccbench_response_seconds_bucket tpccbench_notpm tpccbench_tps tpccbench_connections_down \
    tpccbench_terminals_in_transaction tpccbench_cpu_percent tpccbench_db_wal_bytes_per_second; do
    okc "grep -q '^$fam' '$tmp/scrape2'" "the endpoint serves $fam"
done
is "$(tail -n 1 "$tmp/om1")" "# EOF" "the OpenMetrics text ends with # EOF"
like "$(cat "$tmp/om1.type")" "application/openmetrics-text*" "... and says so in Content-Type"
okc "grep -q '^# TYPE tpccbench_transactions counter' '$tmp/om1'" \
    "OpenMetrics names the counter family without _total"
okc "! grep -q -e '$TPCC_TEST_PASSWORD' -e 'user=' -e 'conninfo' '$tmp/scrape2' '$tmp/om1'" \
    "the endpoint shows no password, user or connection string"

# 2b. A lock wait: a third session holds warehouse 1's row, so the run's
# Payments wait for it; it lets go once the endpoint has shown
# tpccbench_db_lock_waits above 0 (at most 60 s), and the record has that
# second.
mkfifo "$tmp/lock.fifo"
pg_session <"$tmp/lock.fifo" >"$tmp/lock.out" 2>&1 &
lockpid=$!
exec 3>"$tmp/lock.fifo"
echo "begin; update warehouse set w_ytd = w_ytd where w_id = 1; select 'held';" >&3
wait_for_file_text() { # FILE TEXT: at most 30 s
    _n=0
    while ! grep -q "$2" "$1" 2>/dev/null && [ $_n -lt 300 ]; do
        sleep 0.1
        _n=$((_n + 1))
    done
    grep -q "$2" "$1"
}
okc "wait_for_file_text '$tmp/lock.out' held" "a third session holds warehouse 1's row"
"$bin" run -c "$cfg" --vus 4 --duration 4s --warmup 0s --label lockwait \
    --metrics-listen "127.0.0.1:0" >"$tmp/lockwait.out" 2>"$tmp/lockwait.err" </dev/null &
bgpid=$!
bg_endpoint lockwait
python3 - "$endpoint" >"$tmp/lockwait.scrape" 2>&1 <<'PYEOF2'
import sys, time, urllib.request
deadline = time.time() + 60
while time.time() < deadline:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
            for l in r.read().decode().splitlines():
                if l.startswith("tpccbench_db_lock_waits ") and float(l.split()[1]) > 0:
                    print(l)
                    sys.exit(0)
    except OSError:
        pass
    time.sleep(0.2)
sys.exit("the endpoint never showed tpccbench_db_lock_waits above 0")
PYEOF2
_lw=$?
echo "rollback;" >&3
exec 3>&-
wait "$lockpid" 2>/dev/null
lockpid=
wait "$bgpid"
rc=$?
bgpid=
is "$_lw" 0 "the endpoint showed the lock wait: $(cat "$tmp/lockwait.scrape")"
is "$rc" 0 "the run whose Payments waited for the lock: exit 0" || cat "$tmp/lockwait.err" >&2
jcheck "$(rec lockwait)/run.json" "
import csv, os
rows = list(csv.DictReader(open(os.path.dirname(sys.argv[1]) + '/metrics.csv')))
lw = [r['db_lock_waits'] for r in rows]
check(all(x != '' and float(x) >= 0 for x in lw) and max(float(x) for x in lw) >= 1,
      'metrics.csv: db_lock_waits is >= 1 in a second the lock was held', lw)
"

# The report's charts of the metrics, under the throughput charts.
run report "$bin" report "$d" -o "$tmp/report.html"
is "$rc" 0 "report on the run: exit 0" || explain
for ch in cpu-time disk-time wal-time; do
    okc "grep -q 'data-chart=\"$ch\" data-series=\"1\"' '$tmp/report.html'" \
        "the report has the $ch chart with the run's line"
done
metrics_after_time() {
    python3 - "$1" <<'PYEOF'
import sys
h = open(sys.argv[1]).read()
sys.exit(0 if 0 <= h.find('id="time"') < h.find('id="metrics"') else 1)
PYEOF
}
okc "metrics_after_time '$tmp/report.html'" "... under the throughput charts"
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chrome" ]; then
    _ud=$(mktemp -d "$tmp/chrome.XXXXXX")
    timeout -k 5 60 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --user-data-dir="$_ud" --window-size=1300,2600 \
        --screenshot="$tmp/report.png" "file://$tmp/report.html" >/dev/null 2>&1 </dev/null
    okc "[ -s '$tmp/report.png' ]" "headless Chromium renders the report (a screenshot is taken)"
else
    skip "no chromium: install it with 'apt-get install chromium' to render the report"
fi

# ---------------------------------------------------------------------------
# 3. A port in use: exit 2 before anything runs.
busy_port
run busy "$bin" run -c "$cfg" --duration 2s --label busy --metrics-listen "127.0.0.1:$busy"
is "$rc" 2 "a port in use ($busy): exit 2" || explain
like "$err" "*cannot listen on 127.0.0.1:$busy*in use*" "... saying the port is in use"
is "$(rec busy)" "" "... before anything runs (no record)"
busy_port_free

# ---------------------------------------------------------------------------
# 4. A user without pg_monitor, pg_current_wal_lsn() revoked from PUBLIC, and
# a session of another user open (its state is hidden from this user).
pw=$(printf '%s' "$TPCC_TEST_PASSWORD" | sed "s/'/''/g")
pg_psql "CREATE ROLE tpcc_low LOGIN PASSWORD '$pw';
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO tpcc_low;
REVOKE EXECUTE ON FUNCTION pg_current_wal_lsn() FROM PUBLIC;" >/dev/null 2>"$tmp/grant.err" ||
    bail_out "cannot make the user tpcc_low: $(cat "$tmp/grant.err")"
low=$tmp/low.yaml
sed "s/user=tpcc/user=tpcc_low/" "$cfg" >"$low"
pg_psql "select pg_sleep(12)" >/dev/null 2>&1 &
bgpid=$!
run low "$bin" run -c "$low" --vus 2 --duration 4s --warmup 1s --label low --metrics-devices tpcc-gone0
is "$rc" 0 "a user without pg_monitor: the run works (exit 0)" || explain
like "$out" "*unavailable: db_wal_bytes_per_s*permission denied*" \
    "the summary names the WAL column unavailable, with the server's reason"
kill "$bgpid" 2>/dev/null
wait "$bgpid" 2>/dev/null
bgpid=
jcheck "$(rec low)/run.json" "
cols = rec.get('metrics', {}).get('columns', {})
w = cols.get('db_wal_bytes_per_s', {})
check(w.get('available') is False and 'permission denied' in w.get('note', ''),
      'db_wal_bytes_per_s: unavailable, the note says permission denied', w)
for c in ('db_commits_per_s', 'db_buffer_hit_pct', 'db_checkpoints_per_s', 'db_sessions_active',
          'cpu_user_pct', 'disk_data_writes_per_s' if rec['metrics']['devices'].get('data') else 'cpu_idle_pct'):
    check(cols.get(c, {}).get('available') is True, '%s: what it can read is there' % c, cols.get(c))
g = cols.get('disk_tpcc-gone0_writes_per_s', {})
check(g.get('available') is False and 'not in /proc/diskstats' in g.get('note', ''),
      'a named device that is not there: its columns are unavailable, with a note', g)
s = cols.get('db_sessions_active', {})
check('not visible' in s.get('note', ''), 'the session columns say other users\\' sessions were hidden', s)
"

# ---------------------------------------------------------------------------
# 5. Metrics off.
run off "$bin" run -c "$cfg" --vus 1 --duration 1s --warmup 0s --label off --metrics false
is "$rc" 0 "--metrics false: exit 0" || explain
okc "[ ! -e '$(rec off)/metrics.csv' ]" "... no metrics.csv"
jcheck "$(rec off)/run.json" "check('metrics' not in rec, 'no metrics in run.json', list(rec))"

# compare's CSV and JSON carry the metrics columns of the step table; the run
# without metrics has empty cells and a note saying why.
run cmpcsv "$bin" compare --force --format csv "$d" "$(rec off)"
is "$rc" 0 "compare --format csv (a run with metrics, one without): exit 0" || explain
python3 - "$tmp/cmpcsv.out" "$d/run.json" >"$tmp/checks" 2>&1 <<'PYEOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rec = json.load(open(sys.argv[2]))
cols = rec["metrics"]["columns"]
def check(cond, desc, *details):
    print("\t".join(["PASS" if cond else "FAIL", desc] + ([] if cond else [str(x) for x in details])))
check(len(rows) == 2, "csv: one row per step", rows)
a, b = rows[0], rows[1]
want = cols["cpu_user_pct"]["mean"] + cols["cpu_system_pct"]["mean"]
check(abs(float(a["cpu_pct"]) - want) < 1e-3 * max(1, want),
      "csv: cpu_pct is the record's mean user + system CPU", a["cpu_pct"], want)
check(abs(float(a["iowait_pct"]) - cols["cpu_iowait_pct"]["mean"]) < 1e-3 + 1e-3 * cols["cpu_iowait_pct"]["mean"],
      "csv: iowait_pct is the record's mean", a["iowait_pct"], cols["cpu_iowait_pct"]["mean"])
if cols["disk_data_write_mb_per_s"]["mean"] is not None:
    disk = cols["disk_data_read_mb_per_s"]["mean"] + cols["disk_data_write_mb_per_s"]["mean"]
    check(a["disk_mb_per_s"] != "" and abs(float(a["disk_mb_per_s"]) - disk) < 1e-3 + 1e-3 * disk,
          "csv: disk_mb_per_s is the record's mean read + write", a["disk_mb_per_s"], disk)
    check(a["metrics_note"] == "", "csv: no note for the run with metrics", a["metrics_note"])
else:
    check(a["disk_mb_per_s"] == "" and a["metrics_note"].startswith("data disk: "),
          "csv: no block device here: disk_mb_per_s empty, the note says why", a)
check(b["cpu_pct"] == "" and b["iowait_pct"] == "" and b["disk_mb_per_s"] == "",
      "csv: the run without metrics has empty cells", b)
check("run.metrics false" in b["metrics_note"], "csv: ... and a note saying why", b["metrics_note"])
PYEOF
tap_from "$tmp/checks"
run cmpjson "$bin" compare --force --format json "$d" "$(rec off)"
is "$rc" 0 "compare --format json: exit 0" || explain
printf '%s' "$out" >"$tmp/cmp.json"
jcheck "$tmp/cmp.json" "
m = [s['metrics'] for s in rec['steps']]
check(m[0]['cpu_pct']['median'] is not None and 'note' not in m[0], 'json: the metrics of the run with them', m[0])
check(m[1]['cpu_pct']['median'] is None and 'run.metrics false' in m[1].get('note', ''),
      'json: null and a note for the run without', m[1])
"

# ---------------------------------------------------------------------------
# 6. PostgreSQL 17's statement, against a stand-in pg_stat_checkpointer (no
# PostgreSQL 17 here: the version choice itself is unit-tested in
# tests/unit/test_metrics.c): on this server the name resolves to a view of
# the columns 17 has, so the statement's text runs and returns checkpoints
# and the buffers they wrote, and no buffers_backend row.
admin_stmt() {
    awk -v n="-- name: $1" '$0 == n { on = 1; next } /^-- name: / { on = 0 } on && !/^--/' \
        "$root/schema/postgresql/admin.sql"
}
pg_psql "CREATE VIEW public.pg_stat_checkpointer AS
    SELECT 7::bigint AS num_timed, 2::bigint AS num_requested, 40::bigint AS buffers_written,
           0::bigint AS restartpoints_timed;
CREATE VIEW public.pg_stat_io AS
    SELECT * FROM (VALUES ('relation', 3::bigint), ('relation', 2), ('wal', 100))
    AS io(object, writes)" >/dev/null 2>"$tmp/view.err" ||
    bail_out "cannot make the stand-in views: $(cat "$tmp/view.err")"
is "$(pg_psql "$(admin_stmt metrics_checkpoints_17)" | tr '\n' ' ')" \
    "checkpoints|9 buffers_checkpoint|40 data_written_bytes|$((5 * $(pg_psql 'show block_size'))) " \
    "metrics_checkpoints_17 reads num_timed + num_requested and buffers_written, no buffers_backend, and pg_stat_io's relation writes in bytes"
pg_psql "DROP VIEW public.pg_stat_checkpointer; DROP VIEW public.pg_stat_io" >/dev/null
is "$(pg_psql "$(admin_stmt metrics_server_version)")" \
    "server_version_num|$(pg_psql 'show server_version_num')" \
    "metrics_server_version returns server_version_num"

done_testing
