#!/bin/sh
# 0010-managed.sh - the managed (embedded default) PostgreSQL of
# src/db/managed.c, driven by tests/helper/managed_smoke.c, and the test
# server library tests/lib/pg.sh.  Prints TAP.  Runs as root (the server then
# runs as postgres) or as any other user.  Every server started here is
# stopped on exit, pass or fail.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0010 pg
chmod 755 "$tmp"
datadirs=
sock3=
spid=

# Stop whatever managed server is still up (SIGQUIT = immediate shutdown;
# this must not depend on the code under test); t_cleanup then stops the
# test server of pg.sh and removes $tmp.
managed_cleanup() {
    # A helper still starting a server finishes, then stops what it started.
    [ -n "$spid" ] && wait "$spid" 2>/dev/null
    for _d in $datadirs; do
        if [ -f "$_d/postmaster.pid" ]; then
            _pid=$(head -n 1 "$_d/postmaster.pid")
            _sock=$(sed -n 5p "$_d/postmaster.pid")
            case $_sock in /tmp/tpccbench-?*) sock3=$_sock ;; esac
            kill -QUIT "$_pid" 2>/dev/null
            _i=0
            while kill -0 "$_pid" 2>/dev/null && [ $_i -lt 50 ]; do
                sleep 0.1
                _i=$((_i + 1))
            done
        fi
    done
    case ${sock3:-} in /tmp/tpccbench-?*) rm -rf "$sock3" ;; esac
}
t_extra_cleanup=managed_cleanup

# Number of listening TCP sockets the process pid holds.
tcp_listeners() {
    _c=0
    for _fd in /proc/"$1"/fd/*; do
        _l=$(readlink "$_fd" 2>/dev/null) || continue
        case $_l in
        socket:\[*\])
            _ino=${_l#socket:\[}
            _ino=${_ino%\]}
            ;;
        *) continue ;;
        esac
        if awk -v ino="$_ino" '$4 == "0A" && $10 == ino { f = 1 } END { exit !f }' \
            /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
            _c=$((_c + 1))
        fi
    done
    echo "$_c"
}

# 0 when pid is gone (or a zombie) within 5 s.
gone() {
    _i=0
    while [ -d /proc/"$1" ] && [ $_i -lt 50 ]; do
        case $(cut -d' ' -f3 /proc/"$1"/stat 2>/dev/null) in Z) return 0 ;; esac
        sleep 0.1
        _i=$((_i + 1))
    done
    [ ! -d /proc/"$1" ]
}

pmpid() {
    head -n 1 "$1/postmaster.pid" 2>/dev/null
}

# q CONNINFO SQL: one value over the socket (trust)
q() {
    "$bindir/psql" -X -tA -d "$1" -c "$2" 2>&1
}

# --- the test driver -------------------------------------------------------

# tests/helper/managed_smoke.c, built by the Makefile beside the binary
# under test (the same sanitizer flavour).
smoke=${TPCC_HELPERS:-$root/build/tests/helper}/managed_smoke
if [ -x "$smoke" ]; then
    pass "managed_smoke is built ($smoke)"
else
    fail "managed_smoke is built" "$smoke is missing: run make build/tests/helper/managed_smoke"
    done_testing
fi

bindir=$("$smoke" bindir 2>&1)
if [ -x "$bindir/initdb" ] && [ -x "$bindir/pg_ctl" ] && [ -x "$bindir/psql" ]; then
    pass "managed_find_bindir finds initdb, pg_ctl and psql ($bindir)"
else
    fail "managed_find_bindir finds initdb, pg_ctl and psql" "got: '$bindir'"
    done_testing
fi

# --- a new cluster on the Unix socket only ---------------------------------

d1=$tmp/m1/pg
datadirs="$datadirs $d1"
# Started from its own process group, which then gets SIGINT as a Ctrl-C
# would: the server must live on.
# shellcheck disable=SC2016 # expanded by the inner sh
setsid -w sh -c '"$1" "$2" start >"$3" 2>"$4"; echo $? >"$5"; kill -INT 0' sh \
    "$smoke" "$d1" "$tmp/out" "$tmp/err" "$tmp/rc" 2>/dev/null
is "$(cat "$tmp/rc")" 0 "start: a new cluster in a missing directory (mkdir -p, initdb, start)"
[ "$(cat "$tmp/rc")" = 0 ] || echo "#   $(cat "$tmp/err")"
ci=$(cat "$tmp/out")
is "$ci" "host=$d1 port=5432 dbname=tpcc user=tpcc" "start: conninfo names the datadir as socket directory"
like "$(cat "$tmp/err")" "*started=1*" "start: reports that it started the server"
pid=$(pmpid "$d1")
sleep 0.3
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    pass "the server survives SIGINT to the starter's process group"
else
    fail "the server survives SIGINT to the starter's process group" "postmaster pid '$pid'"
fi
is "$(q "$ci" 'select 1')" 1 "psql over the Unix socket: select 1"
is "$(q "$ci" "select current_user || ',' || current_database()")" "tpcc,tpcc" \
    "connected as user tpcc to database tpcc"
is "$(q "$ci" 'show listen_addresses')" "" "listen_addresses is empty"
is "$(tcp_listeners "$pid")" 0 "the postmaster holds no listening TCP socket"
is "$(q "$ci" 'show max_connections')|$(q "$ci" 'show shared_buffers')|$(q "$ci" 'show fsync')" \
    "200|256MB|on" "settings: max_connections 200, shared_buffers 256MB, fsync on"
if [ "$(id -u)" = 0 ]; then
    is "$(stat -c %U "$d1")|$(ps -o user= -p "$pid")" "postgres|postgres" \
        "as root: the datadir and the server belong to postgres"
else
    is "$(stat -c %u "$d1")" "$(id -u)" "the datadir belongs to us"
fi

# A second start finds the running server and reuses it.
"$smoke" "$d1" start >"$tmp/out" 2>"$tmp/err"
is "$?|$(cat "$tmp/out")" "0|$ci" "start again: reuses the running server, same conninfo"
like "$(cat "$tmp/err")" "*started=0*" "start again: reports that it did not start it"
is "$(pmpid "$d1")" "$pid" "start again: same postmaster"

"$smoke" "$d1" stop >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "stop: exit 0"
if gone "$pid" && [ ! -e "$d1/postmaster.pid" ] && [ ! -e "$d1/.s.PGSQL.5432" ]; then
    pass "stop: the postmaster, its pid file and its socket are gone"
else
    fail "stop: the postmaster, its pid file and its socket are gone" "$(ls -a "$d1" | tr '\n' ' ')"
fi

# An existing cluster that is not running is started.
"$smoke" "$d1" start >"$tmp/out" 2>"$tmp/err"
is "$?|$(cat "$tmp/out")" "0|$ci" "start an existing stopped cluster"
like "$(cat "$tmp/err")" "*started=1*" "start an existing cluster: reports that it started it"
is "$(q "$ci" 'select 1')" 1 "existing cluster: select 1"
"$smoke" "$d1" stop >/dev/null 2>&1
is "$?|$(pmpid "$d1")" "0|" "existing cluster: stopped"

# --- TCP on 127.0.0.1 --------------------------------------------------------

d2=$tmp/m2/pg
datadirs="$datadirs $d2"
port=$(pg__random_port)
i=0
while :; do
    "$smoke" "$d2" start "$port" >"$tmp/out" 2>"$tmp/err" && break
    i=$((i + 1))
    case $(cat "$tmp/err") in
    *"could not bind"* | *"could not create any TCP"*) [ $i -lt 10 ] && port=$((port + 1)) && continue ;;
    esac
    break
done
ci2=$(cat "$tmp/out")
is "$ci2" "host=$d2 port=$port dbname=tpcc user=tpcc" "start with a TCP port: conninfo"
[ -n "$ci2" ] || echo "#   $(cat "$tmp/err")"
is "$(q "host=127.0.0.1 port=$port dbname=tpcc user=tpcc passfile=$d2/tpccbench.pgpass" 'select 1')" 1 \
    "psql over TCP on 127.0.0.1:$port with the cluster's password file: select 1"
is "$(q "$ci2" 'show listen_addresses')" "127.0.0.1" "listen_addresses is 127.0.0.1"
pid2=$(pmpid "$d2")
like "$(tcp_listeners "$pid2")" "[1-9]*" "the postmaster holds a listening TCP socket"
"$smoke" "$d2" stop >/dev/null 2>&1
rc=$?
if [ $rc = 0 ] && gone "$pid2"; then
    pass "TCP server stopped"
else
    fail "TCP server stopped" "rc $rc, postmaster '$pid2'"
fi

# --- a datadir too long for a socket path -------------------------------------

d3=$tmp/m3/$(printf '%060d' 0)/$(printf '%050d' 0)/pg
datadirs="$datadirs $d3"
"$smoke" "$d3" start >"$tmp/out" 2>"$tmp/err"
rc=$?
ci3=$(cat "$tmp/out")
sock3=${ci3#host=}
sock3=${sock3%% *}
like "$rc|$ci3" "0|host=/tmp/tpccbench-* port=5432 dbname=tpcc user=tpcc" \
    "long datadir: the socket goes into a mkdtemp directory under /tmp"
is "$(q "$ci3" 'select 1')" 1 "long datadir: select 1"
"$smoke" "$d3" stop >/dev/null 2>&1
rc=$?
if [ $rc = 0 ] && [ -n "$sock3" ] && [ ! -e "$sock3" ]; then
    pass "long datadir: stop removes the socket directory"
else
    fail "long datadir: stop removes the socket directory" "rc $rc, '$sock3' $(ls -ld "$sock3" 2>&1)"
fi

# --- Ctrl-C while starting -----------------------------------------------------

# The helper handles SIGINT as tpccbench does: managed_start() finishes (its
# children are in their own session and do not see the signal), then the
# caller stops what it started.
d4=$tmp/m4/pg
datadirs="$datadirs $d4"
"$smoke" "$d4" start >/dev/null 2>"$tmp/err" &
spid=$!
# The moment the test names: initdb has begun (PG_VERSION is its first
# file), so the helper's handler is in place (a background job of sh starts
# with SIGINT ignored until then) and managed_start has not returned (initdb
# and the server's start take seconds more).
i=0
while [ ! -f "$d4/PG_VERSION" ] && kill -0 "$spid" 2>/dev/null && [ $i -lt 600 ]; do
    sleep 0.05
    i=$((i + 1))
done
kill -INT "$spid"
wait "$spid"
rc=$?
spid=
is "$rc" 130 "SIGINT during start: the caller exits 130 after managed_start returns"
if [ -f "$d4/PG_VERSION" ] && [ ! -e "$d4/postmaster.pid" ]; then
    pass "SIGINT during start: initdb completed and the server was stopped again"
else
    fail "SIGINT during start: initdb completed and the server was stopped again" \
        "$(cat "$tmp/err")" "$(ls "$d4" 2>&1 | tr '\n' ' ')"
fi

# --- refusals ------------------------------------------------------------------

mkdir "$tmp/full" && : >"$tmp/full/something"
"$smoke" "$tmp/full" start >/dev/null 2>"$tmp/err"
is "$?" 2 "a non-empty directory without PG_VERSION: exit 2"
like "$(cat "$tmp/err")" "*'$tmp/full' is not empty and holds no PostgreSQL cluster*" \
    "a non-empty directory: the message names it"

if [ "$(id -u)" = 0 ]; then
    mkdir -m 700 "$tmp/locked"
    "$smoke" "$tmp/locked/x/pg" start >/dev/null 2>"$tmp/err"
    is "$?" 2 "as root: a datadir postgres cannot reach: exit 2"
    like "$(cat "$tmp/err")" "*user 'postgres'*cannot enter '$tmp/locked'*--datadir under /tmp*chmod*" \
        "as root: the message names the directory and what to do"
else
    skip "a datadir postgres cannot reach (needs root)"
    skip "the message names the directory (needs root)"
fi

"$smoke" "$tmp/a\"b" start >/dev/null 2>"$tmp/err"
is "$?" 2 "a datadir with a double quote: exit 2"

# --- tests/lib/pg.sh ---------------------------------------------------------------

PG_TEST_CONF="work_mem = 7MB"
if pg_start 2>"$tmp/pgstart.err"; then
    pass "pg_start"
else
    fail "pg_start" "$(cat "$tmp/pgstart.err")"
fi
is "$PG_TEST_CONNINFO" "host=127.0.0.1 port=$PG_TEST_PORT dbname=tpcc user=tpcc" "pg_start: PG_TEST_CONNINFO"
is "$(pg_psql 'select 1' 2>&1)" 1 "pg_psql: select 1 over TCP with the password"
is "$(pg_psql "select current_user || ',' || current_database() || ',' || current_setting('shared_buffers')" 2>&1)" \
    "tpcc,tpcc,128MB" "pg_psql: user tpcc, database tpcc, shared_buffers 128MB"
is "$(pg_psql 'show work_mem' 2>&1)" "7MB" "pg_start: PG_TEST_CONF lines are applied"
out=$(PGPASSWORD=wrong-password "$PG_TEST_BINDIR/psql" -X -w -tA -d "$PG_TEST_CONNINFO" -c 'select 1' 2>&1)
like "$?|$out" "2|*password authentication failed for user \"tpcc\"*" "a wrong password is refused over TCP"
out=$(env -u PGPASSWORD "$PG_TEST_BINDIR/psql" -X -w -tA -d "$PG_TEST_CONNINFO" -c 'select 1' 2>&1)
like "$?|$out" "2|*password*" "no password is refused over TCP"
pgdir=$PG_TEST_DIR
pgpid=$(pmpid "$pgdir/data")
pg_stop
if [ -n "$pgpid" ] && gone "$pgpid" && [ ! -e "$pgdir" ]; then
    pass "pg_stop: the server is gone and its directory removed"
else
    fail "pg_stop: the server is gone and its directory removed" "pid '$pgpid', dir $(ls -ld "$pgdir" 2>&1)"
fi

done_testing
