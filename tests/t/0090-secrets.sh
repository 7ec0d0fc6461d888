#!/bin/sh
# 0090-secrets.sh - the password is in nothing tpccbench writes, says or shows.
#
# A private PostgreSQL with password authentication (tests/lib/pg.sh) and a
# private MariaDB (tests/lib/mariadb.sh, reached through ODBC), both with a
# distinctive password full of the characters connection strings treat
# specially (blank, ';', '{', '}', '=', quotes, backslash).
#
#  (a) load, run (4 s), check through libpq; a private managed PostgreSQL
#      bench (load + run + check); compare and report over the records; a
#      connection through psqlODBC, and one with a password that needs no
#      braces (sent bare, PWD=value); load, run, check through MariaDB's ODBC
#      driver.  The PostgreSQL server carries secrets in its own settings too
#      (primary_conninfo with a password, ssl_passphrase_command), which the
#      fingerprint must record redacted.
#  (b) errors that echo connection strings: a wrong password (libpq, both ODBC
#      drivers; psqlODBC's also bare), a host that does not resolve, a libpq conninfo holding the
#      password as a stray word (libpq quotes it back), a DSN that does not
#      exist with PWD in the connection string, a driver that does not exist,
#      a password inside --conninfo or database.dsn (refused unseen).
#  (c) while runs go on (libpq, ODBC, managed), `ps -eo args` of every
#      process, again and again; for the managed server also the environment
#      of initdb, pg_ctl and every postgres process (the password's variable
#      must not be passed on to them).
# Then every file under the results folders (records, series.csv,
# delivery.log, report, the managed cluster and its server log) and every
# captured output, ps listing and environment is searched for each secret.
# Positive controls prove the search would find one: a file holding the
# password, and the environment of tpccbench itself, which holds it by design.
# (d), the redaction function itself, is tests/unit/test_secret.c.
# Prints TAP; servers and the temp directory are removed on exit (KEEP_TMP=1
# keeps the directory).  TPCC_T0090_BIN=PATH tests another build, e.g. an
# older one, to see what this test catches.  About 45 s.
set -u

# The secrets: set before the libraries read TPCC_TEST_PASSWORD.
TPCC_TEST_PASSWORD="Sx9-pw-$$ {a;b}}c=d} 'q\"\\z"
TPCC_WRONG_PW="Wq8-wrong-$$ }{;x"
TPCC_SIMPLE_PW="Simple7pw$$"
CONF_SECRET="Cf4-conf-secret-$$"
DECOY_SECRET="Dc3-decoy-$$"
export TPCC_TEST_PASSWORD TPCC_WRONG_PW TPCC_SIMPLE_PW

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

# run: at most 180 s, stdout and stderr into $tmp/out/NAME.out and .err.
# t_cleanup also stops the managed server of $datadir; KEEP_TMP=1 keeps $tmp.
RUN_TIMEOUT=180
t_private t0090 results/managed/pgdata mariadb odbc
bin=${TPCC_T0090_BIN:-$bin}
RUN_DIR=$tmp/out
mkdir "$tmp/out" "$tmp/ps" "$tmp/environ" "$tmp/results" "$tmp/control"
datadir=$t_datadir

# watch NAME CMD...: like run, but in the background, and while CMD runs:
# `ps -eo pid,args` every 0.2 s into $tmp/ps/NAME.N, and the environment of
# the managed server's programs (initdb, pg_ctl, psql, createdb: by their
# command line naming $datadir; postgres: the postmaster of $datadir and its
# children) into $tmp/environ/NAME.PID.comm, and tpccbench's own into
# $tmp/environ/NAME.self (the positive control: it holds the password).
watch() {
    _name=$1
    shift
    # shellcheck disable=SC2086
    $to "$@" >"$tmp/out/$_name.out" 2>"$tmp/out/$_name.err" </dev/null &
    _pid=$!
    _i=0
    while kill -0 "$_pid" 2>/dev/null; do
        ps -eo pid,args >"$tmp/ps/$_name.$_i" 2>&1
        # tpccbench itself: the child of timeout, or the job when there is no timeout.
        if [ -n "$to" ]; then
            _self=$(ps -o pid= --ppid "$_pid" 2>/dev/null | head -n 1 | tr -d ' ')
        else
            _self=$_pid
        fi
        if [ -n "$_self" ] && [ "$(ps -o comm= -p "$_self" 2>/dev/null)" = tpccbench ]; then
            if cat "/proc/$_self/environ" >"$tmp/environ/$_name.self.tmp" 2>/dev/null; then
                mv "$tmp/environ/$_name.self.tmp" "$tmp/environ/$_name.self"
            else
                rm -f "$tmp/environ/$_name.self.tmp"
                : >"$tmp/environ/$_name.self.denied"
            fi
        fi
        _pids=$(pgrep -f -- "$datadir" 2>/dev/null)
        _pm=$(head -n 1 "$datadir/postmaster.pid" 2>/dev/null)
        case $_pm in
        '' | *[!0-9]*) ;;
        *) _pids="$_pids $_pm $(ps -o pid= --ppid "$_pm" 2>/dev/null)" ;;
        esac
        for _p in $_pids; do
            _comm=$(ps -o comm= -p "$_p" 2>/dev/null)
            case $_comm in
            postgres | initdb | pg_ctl | psql | createdb)
                # Only what was read: the process may be gone meanwhile.
                cat "/proc/$_p/environ" >"$tmp/environ/tmp" 2>/dev/null
                if [ -s "$tmp/environ/tmp" ]; then
                    mv "$tmp/environ/tmp" "$tmp/environ/$_name.$_p.$_comm"
                fi
                rm -f "$tmp/environ/tmp"
                ;;
            esac
        done
        _i=$((_i + 1))
        sleep 0.2
    done
    wait "$_pid"
    rc=$?
    out=$(cat "$tmp/out/$_name.out")
    err=$(cat "$tmp/out/$_name.err")
}

# leaks PATH...: the files under PATH holding any secret (NUL-separated
# environment files too: grep -a).
leaks() {
    grep -rlaF -e "$TPCC_TEST_PASSWORD" -e "$TPCC_WRONG_PW" -e "$TPCC_SIMPLE_PW" \
        -e "$CONF_SECRET" -e "$DECOY_SECRET" "$@" 2>/dev/null
}

# ---------------------------------------------------------------------------
# Servers.  The PostgreSQL server's own settings hold secrets as a standby's
# and an SSL setup's would: the fingerprint reads every non-default setting.

PG_TEST_CONF="primary_conninfo = 'host=192.0.2.1 user=replicator password=$CONF_SECRET application_name=s1'
ssl_passphrase_command = 'echo $CONF_SECRET'"
t_pg_up
pass "PostgreSQL up on 127.0.0.1:$PG_TEST_PORT with password authentication"
have_maria=1
if ! maria_start 2>"$tmp/maria_start.err"; then
    diag "maria_start failed: $(tail -n 1 "$tmp/maria_start.err")"
    have_maria=0
fi
have_odbc=1
odbc_setup "$tmp/odbc" 2>"$tmp/odbc_setup.err" || have_odbc=0

# The password really is required: without it the server refuses us.
cat >"$tmp/nopw.yaml" <<EOF
database: {driver: postgres, managed: false, conninfo: "$PG_TEST_CONNINFO"}
results: {dir: "$tmp/results/errors"}
EOF
run nopw env -u PGPASSWORD "$bin" check -c "$tmp/nopw.yaml"
is "$rc" 2 "no password: the server refuses the connection (exit 2)" || explain

# ---------------------------------------------------------------------------
# (a) + (c): libpq.

cat >"$tmp/pg.yaml" <<EOF
database: {driver: postgres, managed: false, conninfo: "$PG_TEST_CONNINFO", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: 1}
load: {jobs: 2}
run: {virtual_users: 2, warmup: 0s}
results: {dir: "$tmp/results/pg"}
EOF
run pg-load "$bin" load -c "$tmp/pg.yaml" --label pg-load
is "$rc" 0 "libpq: load W=1 with the password: exit 0" || explain
watch pg-run "$bin" run -c "$tmp/pg.yaml" --duration 4s --label pg-run
is "$rc" 0 "libpq: 4 s run: exit 0" || explain
r=$(rec_json pg-run "$tmp/results/pg")
is "$(json "$r" "r['status'], r['run']['new_orders_client'] > 0")" "complete True" \
    "libpq: the run record is complete and counted New-Orders"
is "$(json "$r" "r['environment']['dbms']['settings'].get('primary_conninfo')")" \
    "host=192.0.2.1 user=replicator password=*** application_name=s1" \
    "the fingerprint records primary_conninfo with its password masked"
is "$(json "$r" "r['environment']['dbms']['settings'].get('ssl_passphrase_command')")" "***" \
    "the fingerprint records ssl_passphrase_command masked whole"
like "$(cat "$tmp/ps/pg-run".*)" "*tpccbench run -c $tmp/pg.yaml*" \
    "ps saw the run while it went on ($(ls "$tmp/ps/" | grep -c '^pg-run\.') listings)"
[ -s "$(dirname "$r")/series.csv" ] && [ -f "$(dirname "$r")/delivery.log" ]
ok $? "libpq: the run wrote series.csv and delivery.log (searched below)"
run pg-check "$bin" check -c "$tmp/pg.yaml"
is "$rc" 0 "libpq: check: exit 0" || explain

# A managed private PostgreSQL: bench (load + run + check), the password in
# a variable of its own that the server's programs must not inherit.
TPCC_T90_MANAGED_PW=$TPCC_TEST_PASSWORD
TPCC_LIB_MARK=passed-on-$$
export TPCC_T90_MANAGED_PW TPCC_LIB_MARK
cat >"$tmp/managed.yaml" <<EOF
database: {driver: postgres, managed: true, datadir: "$datadir", password_env: TPCC_T90_MANAGED_PW}
schema: {warehouses: 1}
load: {jobs: 2}
run: {virtual_users: 2, warmup: 0s}
results: {dir: "$tmp/results/managed"}
EOF
# The other secrets of this test are no business of this run: not in its environment.
watch managed-bench env -u TPCC_WRONG_PW -u TPCC_SIMPLE_PW \
    "$bin" bench -c "$tmp/managed.yaml" --duration 4s --label managed-bench
is "$rc" 0 "managed: bench (initdb, start, load, 4 s run, check, stop): exit 0" || explain
mr=$(rec_json managed-bench "$tmp/results/managed")
is "$(json "$mr" "r['status']")" "complete" "managed: the bench record is complete"
# Backends write their ps title over the environment they inherited; the
# postmaster's (and initdb's, pg_ctl's) stays as it was given.
n_env=$(ls "$tmp/environ/" | grep -c '^managed-bench\.[0-9]*\.postgres$')
isnt "$n_env" 0 "managed: the environment of $n_env postgres processes was read"
like "$(cat "$tmp/environ/"managed-bench.*.postgres | tr '\0' '\n' | grep -c '^PATH=')" "[1-9]*" \
    "managed: the postmaster's environment was among them (it has PATH)"
is "$(cat "$tmp/environ/"managed-bench.*.postgres | tr '\0' '\n' | grep -c '^TPCC_T90_MANAGED_PW=')" 0 \
    "managed: no postgres process inherited TPCC_T90_MANAGED_PW (database.password_env)"
is "$(cat "$tmp/environ/"managed-bench.*.postgres | tr '\0' '\n' | grep -c '^TPCC_TEST_PASSWORD=')" 0 \
    "managed: nor TPCC_TEST_PASSWORD, the same password under another name"
like "$(cat "$tmp/environ/"managed-bench.*.postgres | tr '\0' '\n' | grep -c '^TPCC_LIB_MARK=')" "[1-9]*" \
    "managed: other variables are passed on (TPCC_LIB_MARK)"

# compare and report over the records, written into the results folder.
run compare "$bin" compare "$(dirname "$r")" "$(dirname "$mr")" --force
is "$rc" 0 "compare of the libpq run and the managed bench: exit 0" || explain
run compare-json "$bin" compare "$(dirname "$r")" "$(dirname "$mr")" --force --format json
is "$rc" 0 "compare --format json: exit 0" || explain
run report "$bin" report "$(dirname "$r")" "$(dirname "$mr")" --force -o "$tmp/results/report.html"
is "$rc" 0 "report: exit 0" || explain
[ -s "$tmp/results/report.html" ]
ok $? "report: report.html written (searched below)"

# ---------------------------------------------------------------------------
# (a) + (c): ODBC.

if [ "$have_odbc" = 1 ] && [ -n "$ODBC_TEST_PG_DRIVER" ]; then
    cat >"$tmp/pg-odbc.yaml" <<EOF
database: {driver: odbc, managed: false, dsn: "DSN=tpcc-pg", password_env: TPCC_TEST_PASSWORD}
results: {dir: "$tmp/results/pg-odbc"}
EOF
    run pg-odbc-check "$bin" check -c "$tmp/pg-odbc.yaml" --conditions 1-4
    is "$rc" 0 "psqlODBC: the password with '}' and ';' in it logs in (check 1-4: exit 0)" || explain
    # A password that needs no braces goes bare (PWD=value): a role of its
    # own has it, made through psql's standard input (never its arguments).
    printf "CREATE ROLE tpcc_simple LOGIN SUPERUSER PASSWORD '%s';\n" "$TPCC_SIMPLE_PW" |
        PGPASSWORD=$TPCC_TEST_PASSWORD "$PG_TEST_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 \
            -d "$PG_TEST_CONNINFO" >"$tmp/out/simple-role.out" 2>&1 ||
        diag "creating tpcc_simple: $(cat "$tmp/out/simple-role.out")"
    cat >"$tmp/pg-odbc-simple.yaml" <<EOF
database: {driver: odbc, managed: false, dsn: "DSN=tpcc-pg;UID=tpcc_simple", password_env: TPCC_SIMPLE_PW}
results: {dir: "$tmp/results/pg-odbc"}
EOF
    run pg-odbc-simple "$bin" check -c "$tmp/pg-odbc-simple.yaml" --conditions 1-4
    is "$rc" 0 "psqlODBC: a password that needs no braces logs in bare (check 1-4: exit 0)" || explain
else
    skip "psqlODBC is not installed"
    skip "psqlODBC bare password"
fi

if [ "$have_maria" = 1 ] && [ "$have_odbc" = 1 ] && [ -n "$ODBC_TEST_MARIA_DRIVER" ]; then
    cat >"$tmp/maria.yaml" <<EOF
database: {driver: odbc, managed: false, dsn: "DSN=tpcc-maria", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: 1}
load: {jobs: 2}
run: {virtual_users: 2, warmup: 0s, mode: client}
results: {dir: "$tmp/results/maria"}
EOF
    run maria-load "$bin" load -c "$tmp/maria.yaml" --label maria-load
    is "$rc" 0 "MariaDB ODBC: load W=1 with the password: exit 0" || explain
    watch maria-run "$bin" run -c "$tmp/maria.yaml" --duration 4s --label maria-run
    is "$rc" 0 "MariaDB ODBC: 4 s run: exit 0" || explain
    is "$(json "$(rec_json maria-run "$tmp/results/maria")" "r['status']")" "complete" \
        "MariaDB ODBC: the run record is complete"
    like "$(cat "$tmp/ps/maria-run".*)" "*tpccbench run -c $tmp/maria.yaml*" \
        "ps saw the ODBC run while it went on"
    run maria-check "$bin" check -c "$tmp/maria.yaml" --conditions 1-4
    is "$rc" 0 "MariaDB ODBC: check 1-4: exit 0" || explain
else
    skip "MariaDB or its ODBC driver is not available"
    skip "MariaDB ODBC run"
    skip "MariaDB ODBC record"
    skip "MariaDB ODBC ps"
    skip "MariaDB ODBC check"
fi

# ---------------------------------------------------------------------------
# (b) Errors that echo connection strings.

# errcfg NAME DATABASE-MAPPING
errcfg() {
    printf 'database: %s\nresults: {dir: "%s/results/errors"}\n' "$2" "$tmp" >"$tmp/$1.yaml"
}

errcfg wrongpw "{driver: postgres, managed: false, conninfo: \"$PG_TEST_CONNINFO\", password_env: TPCC_WRONG_PW}"
run wrongpw "$bin" load -c "$tmp/wrongpw.yaml"
is "$rc" 2 "libpq, wrong password: exit 2" || explain
like "$err" "*password authentication failed*" "libpq, wrong password: the server's reason is shown"

errcfg badhost "{driver: postgres, managed: false, conninfo: \"host=tpcc-no-such-host.invalid port=$PG_TEST_PORT dbname=tpcc user=tpcc\", password_env: TPCC_TEST_PASSWORD}"
run badhost "$bin" run -c "$tmp/badhost.yaml" --duration 2s
like "$rc" "[12]" "libpq, a host that does not resolve: exit 1 or 2" || explain
like "$err" "*tpcc-no-such-host.invalid*" "libpq, bad host: the message names the host"

# The password typed into the conninfo without its key: libpq quotes the
# word back ('missing "=" after "..."'); it is the password, so it goes.
errcfg strayword "{driver: postgres, managed: false, conninfo: \"host=127.0.0.1 port=$PG_TEST_PORT user=tpcc $TPCC_SIMPLE_PW\", password_env: TPCC_SIMPLE_PW}"
run strayword "$bin" load -c "$tmp/strayword.yaml"
is "$rc" 2 "libpq, the password as a stray conninfo word: exit 2" || explain
like "$err" '*missing "=" after "\*\*\*"*' "libpq quoted the word back, and it reads ***"

# A libpq URI that it cannot parse is quoted back whole.
errcfg baduri "{driver: postgres, managed: false, conninfo: \"postgresql://tpcc@[::1/tpcc\", password_env: TPCC_TEST_PASSWORD}"
run baduri "$bin" check -c "$tmp/baduri.yaml"
like "$rc" "[12]" "libpq, an unparsable URI: exit 1 or 2" || explain
like "$err" "*postgresql://tpcc@\[::1/tpcc*" "libpq, unparsable URI: quoted back (without a password)"

# Passwords inside connection strings are refused before anything connects.
run uripw "$bin" check --driver postgres --managed false \
    --conninfo "postgresql://tpcc:$DECOY_SECRET@127.0.0.1:$PG_TEST_PORT/tpcc"
is "$rc:$err" "2:tpccbench check: --conninfo: 'database.conninfo' holds a password (not shown): remove it, and put the password in the environment variable named by database.password_env" \
    "a password inside --conninfo (a URI): refused without showing it"
errcfg dsnpw "{driver: odbc, managed: false, dsn: \"DSN=tpcc-maria;PWD={$DECOY_SECRET}\"}"
run dsnpw "$bin" check -c "$tmp/dsnpw.yaml"
like "$rc:$err" "2:*'database.dsn' holds a password (not shown)*" \
    "a password inside database.dsn: refused without showing it"

if [ "$have_odbc" = 1 ]; then
    # Our PWD={...} goes into each of these connection strings.
    errcfg nodsn "{driver: odbc, managed: false, dsn: \"DSN=tpcc-no-such-dsn;UID=tpcc\", password_env: TPCC_TEST_PASSWORD}"
    run nodsn "$bin" check -c "$tmp/nodsn.yaml"
    is "$rc" 2 "ODBC, a DSN that does not exist (PWD in the connection string): exit 2" || explain
    like "$err" "*tpcc-no-such-dsn*IM002*" "ODBC, unknown DSN: the driver manager's diagnostic"
    errcfg nodriver "{driver: odbc, managed: false, dsn: \"DRIVER={tpcc no such driver};SERVER=127.0.0.1;UID=tpcc\", password_env: TPCC_TEST_PASSWORD}"
    run nodriver "$bin" check -c "$tmp/nodriver.yaml"
    is "$rc" 2 "ODBC, a driver that does not exist: exit 2" || explain
    if [ -n "$ODBC_TEST_PG_DRIVER" ]; then
        errcfg pgodbc-wrongpw "{driver: odbc, managed: false, dsn: \"DSN=tpcc-pg\", password_env: TPCC_WRONG_PW}"
        run pgodbc-wrongpw "$bin" check -c "$tmp/pgodbc-wrongpw.yaml"
        like "$rc:$err" "2:*password authentication failed*" "psqlODBC, wrong password: exit 2, the reason shown"
        # The bare form (PWD=value) wrong: the same, and searched below.
        errcfg pgodbc-wrongbare "{driver: odbc, managed: false, dsn: \"DSN=tpcc-pg\", password_env: TPCC_SIMPLE_PW}"
        run pgodbc-wrongbare "$bin" check -c "$tmp/pgodbc-wrongbare.yaml"
        like "$rc:$err" "2:*password authentication failed*" \
            "psqlODBC, wrong password sent bare: exit 2, the reason shown"
    else
        skip "psqlODBC is not installed"
        skip "psqlODBC is not installed (bare)"
    fi
    if [ "$have_maria" = 1 ] && [ -n "$ODBC_TEST_MARIA_DRIVER" ]; then
        errcfg maria-wrongpw "{driver: odbc, managed: false, dsn: \"DSN=tpcc-maria\", password_env: TPCC_WRONG_PW}"
        run maria-wrongpw "$bin" check -c "$tmp/maria-wrongpw.yaml"
        like "$rc:$err" "2:*Access denied*" "MariaDB ODBC, wrong password: exit 2, the reason shown"
        errcfg maria-badport "{driver: odbc, managed: false, dsn: \"DRIVER=MariaDB;SERVER=127.0.0.1;PORT=1;UID=tpcc;DATABASE=tpcc\", password_env: TPCC_TEST_PASSWORD}"
        run maria-badport "$bin" check -c "$tmp/maria-badport.yaml"
        like "$rc:$err" "2:*Can't connect*" "MariaDB ODBC, nothing listening: exit 2, the reason shown"
    else
        skip "MariaDB ODBC wrong password"
        skip "MariaDB ODBC bad port"
    fi
else
    for _s in nodsn nodsn-msg nodriver pgodbc maria-wrongpw maria-badport; do
        skip "ODBC is not set up ($_s)"
    done
fi

# ---------------------------------------------------------------------------
# The search.  First the controls: the search finds a secret where one is.

printf 'x%sx\n' "$TPCC_TEST_PASSWORD" >"$tmp/control/pw.txt"
is "$(leaks "$tmp/control")" "$tmp/control/pw.txt" "control: the search finds the password in a file"
ctl=$(ls "$tmp/environ/"*.self 2>/dev/null | head -n 1)
if [ "$(id -u)" = 0 ] && [ -n "$ctl" ]; then
    is "$(leaks "$ctl")" "$ctl" \
        "control: the search finds the password in tpccbench's own environment (it holds it there)"
elif [ "$(id -u)" = 0 ]; then
    fail "control: tpccbench's own environment was captured"
else
    # Not dumpable once it holds a password: the same user may not read it.
    like "$(ls "$tmp/environ/" | grep -c '\.self\.denied$')" "[1-9]*" \
        "tpccbench's environment cannot be read by its own user once it holds the password (not dumpable)"
fi
rm -f "$tmp/environ/"*.self "$tmp/environ/"*.self.denied

is "$(leaks "$tmp/results")" "" \
    "no file under the results folders holds a secret (records, series.csv, delivery.log, report, managed cluster)"
is "$(leaks "$tmp/out")" "" "no stdout or stderr of any command holds a secret"
is "$(leaks "$tmp/ps")" "" "no ps listing taken during the runs holds a secret"
is "$(leaks "$tmp/environ")" "" "the managed server's programs hold no secret in their environment"
n_files=$(find "$tmp/results" -type f | wc -l | tr -d ' ')
like "$(find "$tmp/results" -name series.csv | wc -l | tr -d ' '):$(find "$tmp/results" -name delivery.log | wc -l | tr -d ' ')" \
    "[2-9]:[2-9]" "series.csv and delivery.log of the runs were among the $n_files files searched"
done_testing
