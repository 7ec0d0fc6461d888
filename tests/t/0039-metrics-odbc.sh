#!/bin/sh
# 0039-metrics-odbc.sh - the database metrics through ODBC (src/run/metrics.c):
# a 4 s run on MariaDB (DSN tpcc-maria, dialect mysql) fills the columns
# SHOW GLOBAL STATUS has (commits, buffer hit %, redo log bytes, data
# written, lock waits now (a gauge), sessions) and marks the ones it has not
# (checkpoints) unavailable with a note naming the dialect, and those the
# test user may not read (InnoDB's transaction tables need PROCESS) with the
# server's refusal as the note; the OS columns are there as for any server.  Prints TAP.  About 40 s (MariaDB's start).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0039 pg mariadb odbc
t_maria_up
note "maria_start: MariaDB on 127.0.0.1:$MARIA_TEST_PORT"
t_odbc_up
[ -n "$ODBC_TEST_MARIA_DRIVER" ] || bail_out "MariaDB Connector/ODBC is missing (apt-get install odbc-mariadb)"
cfg=$tmp/maria.yaml
cat >"$cfg" <<CFGEOF
database: {driver: odbc, managed: false, dsn: "DSN=tpcc-maria", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: 1}
results: {dir: "$tmp/results"}
CFGEOF
run load "$bin" load -c "$cfg" --label load
is "$rc" 0 "load W=1 through ODBC (MariaDB)" || explain
run it "$bin" run -c "$cfg" --vus 2 --duration 4s --warmup 1s --label it
is "$rc" 0 "run 4 s through ODBC (MariaDB): exit 0" || explain
like "$out" "*metrics (means, * host*): CPU user*" "the summary prints the metrics, naming the host"
d=$(rec it)
ok "$([ -s "$d/metrics.csv" ]; echo $?)" "metrics.csv is written"
jcheck "$d/run.json" "
cols = rec.get('metrics', {}).get('columns', {})
for c in ('db_commits_per_s', 'db_buffer_hit_pct', 'db_wal_bytes_per_s', 'db_data_written_mb_per_s',
          'db_lock_waits', 'db_sessions_active', 'cpu_user_pct'):
    col = cols.get(c, {})
    check(col.get('available') is True and col.get('n', 0) >= 3, '%s is filled' % c, col)
# A gauge (Innodb_row_lock_current_waits): whole numbers >= 0, no PROCESS needed.
import csv, os
lw = [r['db_lock_waits'] for r in csv.DictReader(open(os.path.dirname(sys.argv[1]) + '/metrics.csv'))]
check(all(x != '' and float(x) >= 0 and float(x) == int(float(x)) for x in lw),
      'db_lock_waits is a whole number >= 0 in every row', lw)
check(cols.get('db_commits_per_s', {}).get('mean', 0) > 0, 'Com_commit counts commits', cols.get('db_commits_per_s'))
check(cols.get('db_wal_bytes_per_s', {}).get('mean', 0) > 0, 'the redo log grows', cols.get('db_wal_bytes_per_s'))
# The test user has no PROCESS privilege: InnoDB's transaction tables are refused.
lt = cols.get('db_longest_tx_s', {})
check(lt.get('available') is False and 'PROCESS' in lt.get('note', ''),
      'without PROCESS the oldest transaction is unavailable, the note says why', lt)
ck = cols.get('db_checkpoints_per_s', {})
check(ck.get('available') is False and 'mysql' in ck.get('note', ''),
      'checkpoints: unavailable, the note names the dialect', ck)
"
done_testing
