# util.sh - helpers the integration scripts share.  POSIX sh; a script sets
# root (the top of the tree) and sources it, which sources tests/lib/tap.sh
# too; then t_begin (below) loads the server libraries, makes $tmp and the
# cleanup:
#
#     root=$(cd "$(dirname "$0")/../.." && pwd)
#     . "$root/tests/lib/util.sh"
#     t_begin t0030 pg
#
#     run NAME CMD...     run CMD (at most $RUN_TIMEOUT s, default 240, 480 under
#                         a sanitizer, whose builds run several times slower) with
#                         stdout in $RUN_DIR/NAME.out, stderr in
#                         $RUN_DIR/NAME.err ($RUN_DIR: default $tmp); sets rc,
#                         out, err and both (stdout, a newline, stderr)
#     run_watched NAME CMD...  as run, bounded on time without progress (a
#                         load serving --metrics-listen 127.0.0.1:0), not in all
#     explain             diag the last run's exit status, stdout and stderr
#     alive PID [START]   the process runs (a zombie does not count; with
#                         START, pid_start's, only the process that started then)
#     wait_gone PID SECS [START]  wait up to SECS for PID to end; 0 when it
#                         did (the seconds waited in waited_s)
#     pid_start PID       the process's start time, which names it with its pid
#     json FILE EXPR      print the python expression EXPR over r, FILE
#                         parsed as JSON (its errors printed too)
#     jcheck FILE PYTHON  run the checks in PYTHON against FILE parsed as JSON
#                         (body uses check(cond, desc, detail...) and rec)
#     rec LABEL           the results folder of the record labelled LABEL
#                         under $tmp/results
#     rec_json LABEL [DIR] the run.json of the newest record labelled LABEL
#     n_ok TEXT           how many "ok N" lines a check report TEXT has
#     db_sql KIND SQL     SQL through the native client of KIND (pg, maria)
#     db_wait SECS KIND SQL  until the query SQL returns true (t or 1)
#     series_outage LABEL the series.csv of the run LABEL shows an outage (a
#                         measured second with errors, connections down or
#                         lost) and throughput again 2 s after it
#
#     bg_listen NAME CMD...  CMD in the background until it says its port
#     bg_run LABEL ARGS...   `run -c $cfg ARGS` in the background ($bgpid)
#     bg_signal SIG PASS FAIL FILE  signal $bgpid, a test that it still ran
#     bg_wait SECS [WHAT] wait for $bgpid (a failure after SECS s); sets rc
#     bg_complete LABEL [NAME]  bg_wait 60, and the run exits 0 (a test)
#     bg_reap LABEL       wait for $bgpid; rc, out and err as run sets them
#     bad_args CMD PREFIX [ALL]  a table of bad arguments on stdin: exit 2 + message
#     restart_in_window LABEL  pg_restart_immediate 2 s into the run's window (a test)
#     promtool_check FILE...   promtool check metrics passes on each (a test each)
#     bg_endpoint NAME    the URL a background command's --metrics-listen 127.0.0.1:0 says
#     listen_port PID     the TCP port a process listens on
#     busy_port / busy_port_free  a port of 127.0.0.1 held open, then let go
#
# and the opening of a script: t_begin, t_helper, t_copy_bin, t_private,
# t_study, t_pg_up, t_pg, t_pg_cfg, t_pg_load, t_maria_up, t_odbc_up,
# t_odbc_built, t_load (each described below).

# tap.sh once: a second copy would count the tests from 1 again.
[ -n "${tap__n+set}" ] || . "$root/tests/lib/tap.sh"

# The default bound of run: a hang, not a speed, is what it catches, and a
# sanitizer build (ASAN_OPTIONS or TSAN_OPTIONS set by the Makefile) among
# TEST_JOBS files at once may take twice as long as a plain one, which on a
# loaded 2-core machine may take twice its quiet time (a W=1 load through
# psqlODBC took over 120 s at load average 12).
run__timeout() {
    if [ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
        echo 480
    else
        echo 240
    fi
}

# run__collect: out, err and both from $_name's files (run, run_watched).
run__collect() {
    out=$(cat "$_name.out")
    err=$(cat "$_name.err")
    both=$(printf '%s\n%s' "$out" "$err")
}

run() {
    _name=${RUN_DIR:-$tmp}/$1
    shift
    if command -v timeout >/dev/null 2>&1; then
        timeout -k 5 "${RUN_TIMEOUT:-$(run__timeout)}" "$@" >"$_name.out" 2>"$_name.err" </dev/null
    else
        "$@" >"$_name.out" 2>"$_name.err" </dev/null
    fi
    rc=$?
    run__collect
}

# run_watched NAME CMD...: as run, for a command that serves its progress on
# an endpoint (a load with --metrics-listen 127.0.0.1:0): the bound is on
# time without progress (neither its stderr nor a tpccbench_load_ series
# changed; the same $RUN_TIMEOUT), not on its whole time.  A loaded machine
# slows a load through ODBC down without hanging it: a plain W=1 load through
# psqlODBC beside an ASan suite (load average 17) ran past 240 s.  A command
# ended for no progress exits 124, as under timeout, and $_name.watch says
# what it last saw.
run_watched() {
    _name=${RUN_DIR:-$tmp}/$1
    shift
    "$@" >"$_name.out" 2>"$_name.err" </dev/null &
    _wpid=$!
    python3 - "$_wpid" "$_name.err" "${RUN_TIMEOUT:-$(run__timeout)}" >"$_name.watch" 2>&1 <<'PYEOF'
import os, re, signal, sys, time, urllib.request
pid, errf, idle = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
def alive():
    try:
        st = open('/proc/%d/stat' % pid).read()
    except OSError:
        return False
    return st[st.rindex(')') + 2] != 'Z'
url, last, t_last = None, None, time.time()
while alive():
    try:
        txt = open(errf, errors='replace').read()
    except OSError:
        txt = ''
    if url is None:
        m = re.search(r'^metrics: (http://\S+/metrics)$', txt, re.M)
        url = m.group(1) if m else None
    body = ''
    if url:
        try:
            body = urllib.request.urlopen(url, timeout=5).read().decode()
        except OSError:
            pass
    seen = (len(txt), [l for l in body.splitlines()
                       if l.startswith('tpccbench_load_') and not l.startswith('tpccbench_load_elapsed')])
    if seen != last:
        last, t_last = seen, time.time()
    elif time.time() - t_last > idle:
        print('no progress in %.0f s; last seen: %r' % (idle, last))
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            if not alive():
                break
            time.sleep(0.1)
        if alive():
            os.kill(pid, signal.SIGKILL)
        sys.exit(1)
    time.sleep(1)
PYEOF
    _wrc=$?
    wait "$_wpid"
    rc=$?
    [ "$_wrc" = 0 ] || rc=124
    run__collect
}

explain() {
    diag "exit $rc; stdout:" "$out" "stderr:" "$err"
}

alive() {
    kill -0 "$1" 2>/dev/null || return 1
    case $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) in Z) return 1 ;; esac
    # With the start time, the process named, not one that took its pid.
    [ -z "${2:-}" ] || [ "$(pid_start "$1")" = "$2" ]
}

# pid_start PID: the start time of process PID (/proc/PID/stat's field 22,
# clock ticks since boot; the fields after the command's name, which may
# hold spaces), empty when there is none.  A pid and its start time name one
# process: a busy machine reuses a pid within seconds (0013 once waited 60 s
# on another process that had taken its postmaster's pid).
pid_start() {
    sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
}

wait_gone() {
    _i=0
    while alive "$1" "${3:-}" && [ $_i -lt $(($2 * 10)) ]; do
        sleep 0.1
        _i=$((_i + 1))
    done
    waited_s=$((_i / 10))
    ! alive "$1" "${3:-}"
}

rec() {
    ls -d "$tmp/results/"*-"$1" 2>/dev/null
}

# rec_json LABEL [DIR]: prints the run.json path of the newest record
# labelled LABEL under DIR (default $tmp/results); a path that does not
# exist when there is none, so a check on it fails rather than reads another
# file.  Exports nothing.
rec_json() {
    _rdir=${2:-$tmp/results}
    _d=$(ls -d "$_rdir/"*-"$1" 2>/dev/null | tail -n 1)
    echo "${_d:-$_rdir/none-$1}/run.json"
}

# n_ok TEXT: prints how many lines of TEXT, the report of `tpccbench check`,
# say "ok N" (conditions that hold).  Exports nothing.
n_ok() {
    printf '%s\n' "$1" | grep -cE '^ +ok +[0-9]+ '
}

# db_sql KIND SQL: runs SQL on the test server of KIND through its own
# client, pg (pg.sh's pg_psql, fields split by |) or maria (mariadb.sh's
# maria_sql, by tabs), and prints the rows.  Exports nothing.
db_sql() {
    case $1 in
    pg) pg_psql "$2" ;;
    maria) maria_sql "$2" ;;
    *)
        echo "db_sql: unknown kind '$1' (pg or maria)" >&2
        return 2
        ;;
    esac
}

# db_wait SECS KIND SQL: runs the query SQL through db_sql KIND every 0.05 s
# until it returns true (t from PostgreSQL, 1 from MariaDB), at most SECS
# s; 0 when it did.  Exports nothing.
db_wait() {
    _i=0
    while [ $_i -lt $(($1 * 20)) ]; do
        case $(db_sql "$2" "$3" 2>/dev/null) in t | 1) return 0 ;; esac
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# json FILE EXPR: prints the python expression EXPR evaluated over r, the
# JSON of FILE ("a, b" prints "a b"); python's errors go to stdout too, so a
# missing key never compares equal to an empty value.  Exports nothing.
json() {
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1" 2>&1
}

# tap_from FILE: "PASS<TAB>desc" / "FAIL<TAB>desc<TAB>detail..." lines to TAP.
tap_from() {
    while IFS= read -r _l; do
        case $_l in
        PASS"	"*) pass "${_l#PASS	}" ;;
        FAIL"	"*)
            _rest=${_l#FAIL	}
            _desc=${_rest%%	*}
            if [ "$_desc" = "$_rest" ]; then
                fail "$_desc"
            else
                fail "$_desc" "$(printf '%s' "${_rest#*	}" | tr '\t' '\n')"
            fi
            ;;
        *) diag "$_l" ;;
        esac
    done <"$1"
}

jcheck() {
    python3 - "$1" "$2" >"$tmp/checks" 2>&1 <<'PYEOF'
import json, sys


def check(cond, desc, *details):
    print("\t".join(["PASS" if cond else "FAIL", desc] + ([] if cond else [str(x) for x in details])))


try:
    with open(sys.argv[1]) as f:
        rec = json.load(f)
    check(True, "%s parses" % sys.argv[1].rsplit("/", 2)[-1])
except Exception as ex:
    check(False, "%s parses" % sys.argv[1], ex)
    sys.exit(0)
exec(sys.argv[2])
PYEOF
    tap_from "$tmp/checks"
}

# t_begin NAME [LIB...]: the common start of a test script: sources
# tests/lib/LIB.sh for each LIB (pg, mariadb, odbc, pgbouncer, ostatus),
# takes the binary under test from TPCC_BIN (a sanitizer build sets it, see
# the Makefile; default $root/tpccbench), checks it and python3, makes $tmp
# (tpcc-NAME.XXXXXX), sets LC_ALL=C and an EXIT trap (t_cleanup).  Signals
# end the script with 129/130/143, so the trap runs.  Exports LC_ALL and
# what the libraries export; sets TPCC_BIN, bin=$TPCC_BIN, tmp, to (the
# prefix that bounds a command as run does, "timeout -k 5 $RUN_TIMEOUT" or
# empty without timeout(1), for the commands a script starts itself),
# t_start (the start, in seconds since the epoch, for a note of the time
# taken) and empties bgpid, bgpids, pxpid, lockpid, t_extra_cleanup and
# t_datadir for the script to fill.
t_begin() {
    _name=$1
    shift
    for _lib in "$@"; do
        . "$root/tests/lib/$_lib.sh"
    done
    t_start=$(date +%s)
    TPCC_BIN=${TPCC_BIN:-$root/tpccbench}
    bin=$TPCC_BIN
    if command -v timeout >/dev/null 2>&1; then to="timeout -k 5 ${RUN_TIMEOUT:-$(run__timeout)}"; else to=; fi
    [ -x "$bin" ] || bail_out "$bin is missing: run make first"
    command -v python3 >/dev/null 2>&1 || bail_out "python3 is needed to read run.json"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpcc-$_name.XXXXXX") || bail_out "mktemp failed"
    bgpid=
    bgpids=
    pxpid=
    lockpid=
    t_extra_cleanup=
    t_datadir=
    trap t_cleanup EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    LC_ALL=C
    export LC_ALL
}

# t_cleanup: the EXIT trap of t_begin.  Kills (SIGCONT, then SIGKILL: a
# stopped one too) and reaps the processes in $bgpid, $bgpids, $pxpid and
# $lockpid, runs $t_extra_cleanup (a command, split on blanks), stops a
# private server left on $t_datadir, then whichever of the test PgBouncer,
# MariaDB and PostgreSQL the script sourced the library of, and removes
# $tmp (kept when KEEP_TMP is set).  Takes nothing; exports nothing.
t_cleanup() {
    for _p in $bgpid $bgpids $pxpid $lockpid; do
        kill -CONT "$_p" 2>/dev/null
        kill -KILL "$_p" 2>/dev/null
        wait "$_p" 2>/dev/null
    done
    [ -z "$t_extra_cleanup" ] || $t_extra_cleanup
    [ -z "$t_datadir" ] || pg_stop_datadir "$t_datadir" 2>/dev/null
    for _stop in pgb_stop maria_stop pg_stop; do
        if command -v "$_stop" >/dev/null 2>&1; then
            "$_stop"
        fi
    done
    [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}

# t_helper VAR NAME: sets VAR to the path of the test helper NAME
# (tests/helper/NAME.c, built in $TPCC_HELPERS, default
# $root/build/tests/helper); bails out when it is not there.
t_helper() {
    _h=${TPCC_HELPERS:-$root/build/tests/helper}/$2
    [ -x "$_h" ] || bail_out "$_h is missing: run make build/tests/helper/$2"
    eval "$1=\$_h"
}

# t_copy_bin: test a copy of the binary in $tmp, so that a `make` during the
# test cannot swap the program between two calls.  Call after t_begin; sets
# bin=$tmp/tpccbench (bails out when the copy fails).
t_copy_bin() {
    cp "$TPCC_BIN" "$tmp/tpccbench" || bail_out "copying $TPCC_BIN failed"
    bin=$tmp/tpccbench
}

# t_private NAME DIR [LIB...]: t_begin NAME pg LIB... and t_copy_bin for a
# script whose commands start tpccbench's private (managed) PostgreSQL in
# $tmp/DIR: $tmp is made 0755, so the server's user reaches it, and
# t_cleanup stops a server left running there.  Sets what t_begin sets,
# bin, and t_datadir=$tmp/DIR.
t_private() {
    _pname=$1
    _pdir=$2
    shift 2
    t_begin "$_pname" pg "$@"
    chmod 755 "$tmp"
    t_copy_bin
    t_datadir=$tmp/$_pdir
}

# t_study NAME [LIB...]: t_private NAME results/pgdata study LIB... for a
# script that runs `tpccbench study` on the private PostgreSQL, which a
# study with --results-dir $res keeps in $res/pgdata (t_cleanup stops it
# there; `pg_stop_datadir "$t_datadir"` earlier).  Sets what t_private
# sets and res=$tmp/results; study.sh gives study_run.
t_study() {
    _sname=$1
    shift
    t_private "$_sname" results/pgdata study "$@"
    res=$tmp/results
}

# t_lazyfs: can this test crash a server by power loss?  Sets power to
# "yes" (and copies tpccbench-lazyfs beside the test's tpccbench, in $tmp)
# or to the reason it cannot (not root, no /dev/fuse, no fusermount3, not
# built), for a skip; lz is where tpccbench-lazyfs was looked for.
t_lazyfs() {
    power=yes
    lz=$(dirname "$TPCC_BIN")/tpccbench-lazyfs
    if [ "$(id -u)" != 0 ]; then power="not root"
    elif [ ! -c /dev/fuse ]; then power="no /dev/fuse"
    elif ! command -v fusermount3 >/dev/null 2>&1; then power="no fusermount3"
    elif [ ! -x "$lz" ]; then power="no $lz (make, with libfuse3-dev)"
    else cp "$lz" "$tmp/tpccbench-lazyfs"
    fi
}

# t_pg_up: start the test PostgreSQL of pg.sh, bailing out with its reason
# when it cannot.  Call after t_begin (t_cleanup stops it).  Exports what
# pg_start exports (PG_TEST_PORT, PG_TEST_CONNINFO, ...).
t_pg_up() {
    if ! pg_start 2>"$tmp/pg_start.err"; then
        cat "$tmp/pg_start.err" >&2
        bail_out "pg_start failed: $(tail -n 1 "$tmp/pg_start.err")"
    fi
}

# t_pg W: t_pg_up, a note that says where, and t_pg_cfg W.  Sets
# what those set.
t_pg() {
    t_pg_up
    note "pg_start: PostgreSQL on 127.0.0.1:$PG_TEST_PORT"
    t_pg_cfg "$1"
}

# t_pg_cfg W: writes $cfg ($tmp/tpcc.yaml): the test PostgreSQL (password
# from TPCC_TEST_PASSWORD), W warehouses, results under $tmp/results.
# Sets cfg.
t_pg_cfg() {
    cfg=$tmp/tpcc.yaml
    cat >"$cfg" <<CFGEOF
database: {driver: postgres, managed: false, conninfo: "$PG_TEST_CONNINFO", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: $1}
results: {dir: "$tmp/results"}
CFGEOF
}

# t_maria_up: start the test MariaDB of mariadb.sh, bailing out with its
# reason when it cannot.  Call after t_begin (t_cleanup stops it).  Exports
# what maria_start exports (MARIA_TEST_PORT, ...).
t_maria_up() {
    if ! maria_start 2>"$tmp/maria_start.err"; then
        cat "$tmp/maria_start.err" >&2
        bail_out "maria_start failed: $(tail -n 1 "$tmp/maria_start.err")"
    fi
}

# t_odbc_up: odbc.sh's odbc_setup in $tmp/odbc for the servers started so
# far, bailing out with its message when it fails.  Exports what odbc_setup
# exports (ODBCSYSINI, ODBCINI, ODBC_TEST_*_DRIVER).
t_odbc_up() {
    odbc_setup "$tmp/odbc" 2>"$tmp/odbc_setup.err" || bail_out "odbc_setup: $(cat "$tmp/odbc_setup.err")"
}

# t_odbc_built CFG: a short run on CFG (an odbc config naming a DSN that
# exists nowhere, so it fails in the driver manager); when tpccbench says it
# has no odbc driver, the whole script is skipped ("1..0 # SKIP", exit 0).
# Sets what run sets (its output in $RUN_DIR/probe.*).
t_odbc_built() {
    run probe "$bin" run -c "$1" --duration 2s --label probe
    case $err in
    *"unknown driver"* | *"not built"* | *"not yet"*)
        echo "1..0 # SKIP this tpccbench has no odbc driver"
        exit 0
        ;;
    esac
}

# t_pg_load W DESC [ARGS...]: t_pg W, then t_load DESC ARGS: the test
# PostgreSQL with W warehouses loaded (or the script bails out).  Sets what
# those set.
t_pg_load() {
    t_pg "$1"
    shift
    t_load "$@"
}

# t_load DESC ARGS...: `load -c $cfg ARGS... --label load`, which must exit
# 0 (the test DESC); else its output is shown and the script bails out, as
# there is nothing to run on.  Sets what run sets.
t_load() {
    _desc=$1
    shift
    run load "$bin" load -c "$cfg" "$@" --label load
    is "$rc" 0 "$_desc" || {
        explain
        bail_out "no data to run on"
    }
}

# bg_listen NAME CMD...: CMD in the background (stdout in $tmp/NAME.out,
# stderr in $tmp/NAME.err) until its output says the port it listens on
# ("listening on ADDR port N", as netbench server and proxy print it, or a
# JSON "port":N), at most 5 s; 0 when it did, 1 when it ended or did not
# say.  Sets bg_pid and bg_port (empty when it did not say); adds the pid
# to $bgpids (t_cleanup kills it).
bg_listen() {
    _name=$1
    shift
    # Empty it first: the child truncates it only after the fork, and the
    # loop below must not read an earlier process's port.
    : >"$tmp/$_name.out"
    "$@" >"$tmp/$_name.out" 2>"$tmp/$_name.err" </dev/null &
    bg_pid=$!
    bgpids="$bgpids $bg_pid"
    bg_port=
    _i=0
    while [ $_i -lt 100 ]; do
        bg_port=$(sed -n 's/.*listening on [^,]* port \([0-9][0-9]*\).*/\1/p; s/.*"port":\([0-9][0-9]*\).*/\1/p' \
            "$tmp/$_name.out" | head -n 1)
        [ -n "$bg_port" ] && return 0
        kill -0 "$bg_pid" 2>/dev/null || return 1
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# bg_run LABEL ARGS...: `$bin run -c $cfg ARGS... --label LABEL` in the
# background, stdout in $tmp/LABEL.out, stderr in $tmp/LABEL.err.  Sets
# bgpid (t_cleanup kills it).
bg_run() {
    _l=$1
    shift
    "$bin" run -c "$cfg" "$@" --label "$_l" >"$tmp/$_l.out" 2>"$tmp/$_l.err" </dev/null &
    bgpid=$!
}

# bg_window LABEL [SECS]: waits up to SECS (default 60) for the run LABEL of
# bg_run to open its measured window (its first "measure]" live line on
# stderr), so that a fault lands in the window however slowly the machine
# starts the run; a failed test when it did not (or the run ended first).
# Sets nothing.
bg_window() {
    _w=0
    while ! grep -q 'measure\]' "$tmp/$1.err" 2>/dev/null; do
        if ! alive "$bgpid" || [ "$_w" -ge "$((${2:-60} * 10))" ]; then
            fail "$1: the run's window opened" "$(cat "$tmp/$1.err" 2>/dev/null)"
            return 1
        fi
        sleep 0.1
        _w=$((_w + 1))
    done
}

# bg_signal SIG PASS FAIL FILE: when the process $bgpid still runs, sends
# it SIG and passes the test PASS; else fails the test FAIL, showing FILE
# (its stderr, say).  Sets nothing.
bg_signal() {
    if alive "$bgpid"; then
        kill "-$1" "$bgpid"
        pass "$2"
    else
        fail "$3" "$(cat "$4")"
    fi
}

# bg_wait SECS [WHAT]: waits up to SECS for the process $bgpid to end; when
# it did not, that is a failure ("WHAT ended within SECS s", WHAT default
# "the run") and it is killed.  Then reaps it.  Sets rc to its exit status,
# waited_s to the seconds waited (wait_gone), and empties bgpid.
bg_wait() {
    if ! wait_gone "$bgpid" "$1"; then
        fail "${2:-the run} ended within $1 s"
        kill -KILL "$bgpid" 2>/dev/null
    fi
    wait "$bgpid"
    rc=$?
    bgpid=
}

# bad_args CMD PREFIX [ALL]: for each line "ARGS|MESSAGE" of stdin (empty
# lines and lines starting with # are passed over), `$bin CMD ARGS` (ARGS
# split on blanks, not globbed) must exit 2 (a test) and print PREFIX
# MESSAGE on stderr (a test), and with ALL also nothing on stdout (a test).
# Sets what run sets.
bad_args() {
    _cmd=$1
    _prefix=$2
    _all=${3:-}
    while IFS='|' read -r _args _want; do
        case $_args in '#'*) continue ;; esac
        [ -n "$_args$_want" ] || continue
        set -f
        # shellcheck disable=SC2086
        run bad "$bin" "$_cmd" $_args
        set +f
        is "$rc" 2 "$_cmd $_args: exit 2" || explain
        is "$err" "$_prefix$_want" "$_cmd $_args: the message"
        [ -z "$_all" ] || is "$out" "" "$_cmd $_args: nothing on stdout"
    done
}

# bg_reap LABEL: waits for the process $bgpid, whose stdout and stderr are
# $tmp/LABEL.out and .err.  Sets rc (its exit status), out and err (as run
# does) and empties bgpid.
bg_reap() {
    wait "$bgpid"
    rc=$?
    bgpid=
    out=$(cat "$tmp/$1.out")
    err=$(cat "$tmp/$1.err")
}

# bg_complete LABEL [NAME]: bg_wait 60 for the run LABEL of bg_run, then
# the test "NAME: the run completes, exit 0" (NAME default LABEL; its
# stderr shown when it fails).  Sets what bg_wait sets.
bg_complete() {
    bg_wait 60
    is "$rc" 0 "${2:-$1}: the run completes, exit 0" || diag "$(cat "$tmp/$1.err")"
}

# restart_in_window LABEL: once the run LABEL of bg_run has opened its
# window (bg_window), 2 s into it, restarts the test PostgreSQL with -m
# immediate (pg.sh's pg_restart_immediate; a test that it did) and says how
# long the restart took.  For a 20 s window: 18 s are left for recovery and
# the throughput after it (0032, 0098).
restart_in_window() {
    bg_window "$1"
    sleep 2
    _t0=$(date +%s)
    pg_restart_immediate
    ok $? "pg_ctl restart -m immediate during the run"
    diag "the restart took $(($(date +%s) - _t0)) s (the window had 18 s left)"
}

# promtool_check FILE...: `promtool check metrics` passes on each FILE of
# $tmp (a test each; the lint's text shown when it fails).
promtool_check() {
    for _f in "$@"; do
        if promtool check metrics <"$tmp/$_f" >"$tmp/$_f.lint" 2>&1; then
            pass "promtool check metrics passes on $_f"
        else
            fail "promtool check metrics passes on $_f" "$(cat "$tmp/$_f.lint")"
        fi
    done
}

# bg_endpoint NAME: waits (at most 60 s, while $bgpid lives) until the
# command started in the background with its stderr in $tmp/NAME.err, and
# --metrics-listen 127.0.0.1:0, says where its endpoint is ("metrics:
# http://ADDR/metrics": the port the system chose).  No port is picked
# first and bound later, where another test could take it in between.
# Sets endpoint (the URL; empty when it did not say); 0 when it said.
bg_endpoint() {
    endpoint=
    _i=0
    while [ $_i -lt 600 ]; do
        endpoint=$(sed -n 's|^metrics: \(http://[^ ]*/metrics\)$|\1|p' "$tmp/$1.err" 2>/dev/null | head -n 1)
        [ -n "$endpoint" ] && return 0
        kill -0 "$bgpid" 2>/dev/null || return 1
        sleep 0.1
        _i=$((_i + 1))
    done
    return 1
}

# listen_port PID: prints the TCP port the process PID listens on (its
# first listening socket, from ss), empty when it listens on none yet.
listen_port() {
    ss -Hltnp 2>/dev/null | sed -n "s/.*:\([0-9][0-9]*\) .*pid=$1,.*/\1/p" | head -n 1
}

# busy_port: a process that listens on a port of 127.0.0.1 (for at most
# 60 s), so that a test can ask for that port in use.  Sets busy (the port,
# empty when the holder did not say it within 5 s) and lockpid (t_cleanup
# kills it; busy_port_free ends it earlier).
busy_port() {
    python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$tmp/holder" &
    lockpid=$!
    _i=0
    while [ ! -s "$tmp/holder" ] && [ $_i -lt 50 ]; do
        sleep 0.1
        _i=$((_i + 1))
    done
    busy=$(cat "$tmp/holder")
}

# busy_port_free: ends the holder of busy_port and reaps it.  Empties lockpid.
busy_port_free() {
    kill "$lockpid" 2>/dev/null
    wait "$lockpid" 2>/dev/null
    lockpid=
}

series_outage() {
    _s=$(rec "$1")/series.csv
    _bad=$(awk -F, 'NR > 1 && $2 == "measure" && ($13 > 0 || $15 > 0 || $16 > 0) { print $1 }' "$_s" | head -n 1)
    isnt "$_bad" "" "$1: series.csv shows the outage (a second with errors or connections down)" ||
        diag "$(cat "$_s")"
    _after=$(awk -F, -v b="${_bad:-0}" 'NR > 1 && $2 == "measure" && $1 > b + 2 && $8 > 0' "$_s" | wc -l)
    ok "$([ "$_after" -ge 2 ] && echo 0 || echo 1)" "$1: throughput again after the outage ($_after seconds)" ||
        diag "$(cat "$_s")"
}
