#!/bin/sh
# 0012-managed-auth.sh - the private PostgreSQL opens no door: with a TCP
# port it listens on 127.0.0.1 only and asks for scram-sha-256 with a random
# password made for this cluster, kept only in DATADIR/tpccbench.pgpass
# (0600); its Unix socket and the socket's directory are 0700.  Another local
# user (nobody) can connect neither over TCP (no password, a wrong one) nor
# through the socket, nor read the password; root's psql line of the README
# (the socket) and our own commands still can, and a conninfo naming the
# password file reaches it over TCP.  The password is nowhere in what the
# commands print or record, nor anywhere else in the datadir.  The first line
# of each command names the server it talks to.  Prints TAP; the server and
# temp files go on exit, pass or fail.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

command -v psql >/dev/null 2>&1 || bail_out "psql is missing: apt-get install postgresql-client"
t_private t0012 pg
pg=$t_datadir
pass=$pg/tpccbench.pgpass
# A free port: try a few, a port taken between the probe and the start is retried.
for i in 1 2 3 4 5; do
    port=$(pg__random_port)
    cat >"$tmp/cfg.yaml" <<EOF
database: {managed: true, port: $port, datadir: "$pg"}
results: {dir: "$tmp/results"}
EOF
    run load "$bin" load -c "$tmp/cfg.yaml" --keep-server
    case $err in *"could not bind"* | *"could not create any TCP"*) rm -rf "$pg"; continue ;; esac
    break
done
is "$rc" 0 "load on a private PostgreSQL with a TCP port" || explain
is "$(head -1 "$tmp/load.err")" "private PostgreSQL in $pg (and on 127.0.0.1:$port)" \
    "load's first line names the private server"
# The load ran on the private server restarted with its own settings (no WAL
# for the tables it truncated and the index builds), and gave the server
# back the run's settings.
jcheck "$(ls -td "$tmp"/results/*/ | head -1)run.json" "
l = rec.get('load', {})
check(l.get('settings') == {'wal_level': 'minimal', 'max_wal_senders': '0'}
      and 'wal_level minimal' in l.get('paths', []),
      'the private server loaded with wal_level minimal and max_wal_senders 0', l.get('settings'), l.get('paths'))
check((l.get('settings_after') or {}).get('wal_level') == 'replica',
      'it was restarted with the run settings after the load (wal_level replica)', l.get('settings_after'))
"
is "$(psql -X -q -t -A -w -h "$pg" -p "$port" -U tpcc -d tpcc -c 'show wal_level' 2>&1)" replica \
    "the kept server runs with wal_level replica again"

# The password file.
is "$(stat -c %a "$pass" 2>/dev/null)" 600 "tpccbench.pgpass is mode 0600"
if [ "$(id -u)" = 0 ]; then
    is "$(stat -c %U "$pass" 2>/dev/null)" postgres "tpccbench.pgpass belongs to the server's user"
fi
line=$(cat "$pass" 2>/dev/null)
case $line in
"*:*:*:tpcc:"*) pass "tpccbench.pgpass is a libpq password file for role tpcc" ;;
*) fail "tpccbench.pgpass is a libpq password file for role tpcc" "got: (not shown)" ;;
esac
pw=${line#*:*:*:tpcc:}
is "${#pw}" 32 "the password is 32 characters long"
case $pw in *[!A-Za-z0-9]*) fail "the password is letters and digits" ;; *) pass "the password is letters and digits" ;; esac
is "$(sed -n 6p "$pg/postmaster.pid" | tr -d ' ')" 127.0.0.1 "the server listens on 127.0.0.1 only"
is "$(stat -c %a "$pg" 2>/dev/null)" 700 "the socket's directory (the datadir) is 0700"
is "$(stat -c %a "$pg/.s.PGSQL.$port" 2>/dev/null)" 700 "the socket is 0700"

# Who can connect.
q() { psql -X -q -t -A -w "$@" -c 'select 1' 2>&1; }
is "$(q -h "$pg" -p "$port" -U tpcc -d tpcc)" 1 "the README's psql line (the socket) works"
is "$(q "host=127.0.0.1 port=$port dbname=tpcc user=tpcc passfile=$pass")" 1 \
    "TCP with the cluster's password file works"
like "$(PGPASSFILE=/dev/null q "host=127.0.0.1 port=$port dbname=tpcc user=tpcc")" \
    "*no password supplied*" "TCP without a password is refused"
like "$(PGPASSWORD=wrong-password q "host=127.0.0.1 port=$port dbname=tpcc user=tpcc")" \
    "*password authentication failed*" "TCP with a wrong password is refused"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    as_nobody() { (cd / && runuser -u nobody -- "$@"); }
    like "$(as_nobody env PGPASSFILE=/dev/null psql -X -q -t -A -w -h 127.0.0.1 -p "$port" -U tpcc \
        -d tpcc -c 'select 1' 2>&1)" "*no password supplied*" "nobody: TCP without a password is refused"
    like "$(as_nobody env PGPASSWORD=tpcc psql -X -q -t -A -w -h 127.0.0.1 -p "$port" -U tpcc \
        -d tpcc -c 'select 1' 2>&1)" "*password authentication failed*" \
        "nobody: TCP with a guessed password is refused"
    like "$(as_nobody psql -X -q -t -A -w -h "$pg" -p "$port" -U tpcc -d tpcc -c 'select 1' 2>&1)" \
        "*Permission denied*" "nobody: the socket is out of reach"
    as_nobody cat "$pass" >/dev/null 2>&1
    isnt "$?" 0 "nobody: the password file cannot be read"
    as_nobody psql -X -q -t -A -w "host=127.0.0.1 port=$port dbname=tpcc user=tpcc passfile=$pass" \
        -c 'select 1' >/dev/null 2>&1
    isnt "$?" 0 "nobody: naming the password file does not help"
else
    for i in 1 2 3 4 5; do skip "not root or no user nobody: another user's attempts are not tried"; done
fi

# Our own commands: over the socket (the config) and over TCP (a conninfo).
run check "$bin" check -c "$tmp/cfg.yaml" --conditions 1-4
is "$rc" 0 "check on the private server (reused, over its socket)" || explain
is "$(head -1 "$tmp/check.err")" "private PostgreSQL in $pg (and on 127.0.0.1:$port)" \
    "check's first line names the private server"
run tcp "$bin" check --conninfo "host=127.0.0.1 port=$port dbname=tpcc user=tpcc passfile=$pass" \
    --conditions 1-4 --results-dir "$tmp/results"
is "$rc" 0 "check over TCP with a conninfo naming the password file" || explain
is "$(head -1 "$tmp/tcp.err")" "server 127.0.0.1:$port db tpcc (libpq)" \
    "with a conninfo the first line names that server"
run nopw "$bin" check --conninfo "host=127.0.0.1 port=$port dbname=tpcc user=tpcc passfile=/dev/null" \
    --conditions 1 --results-dir "$tmp/results"
is "$rc" 2 "check over TCP without the password: exit 2" || explain

# The password is nowhere it should not be.
found=$(grep -rlaF -- "$pw" "$tmp/results" "$tmp"/*.out "$tmp"/*.err "$pg" 2>/dev/null | grep -v "/tpccbench.pgpass\$")
is "$found" "" "the password is in no record, output, log or other datadir file" ||
    diag "found in: $found"
[ ! -e "$pg/tpccbench-password.sql" ]
ok $? "the SQL file that set the password is gone"
done_testing
