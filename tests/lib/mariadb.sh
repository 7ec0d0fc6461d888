# mariadb.sh - a throwaway MariaDB for integration tests.  POSIX sh; source it:
#
#     . "$root/tests/lib/mariadb.sh"
#     trap maria_stop EXIT
#     maria_start || exit 1
#     maria_sql 'select 1'
#     maria_session <fifo &     (a session kept open, SQL from stdin)
#     maria_admin 'GRANT ...'   (as the administrator)
#
# maria_start creates a data directory in a mktemp -d directory
# (mariadb-install-db), starts mariadbd on a Unix socket in that directory and
# on a free TCP port on 127.0.0.1, and makes database tpcc and user tpcc
# ('tpcc'@'%' and 'tpcc'@'localhost', password $TPCC_TEST_PASSWORD) with every
# privilege on tpcc.* (CREATE ROUTINE, ALTER ROUTINE and EXECUTE included, so
# tpccbench can install its procedures).  The administrator account is
# root@localhost with unix_socket authentication (the OS user that runs the
# tests when it is not root); the socket lives in a 0700 directory, so only
# the server's user and root reach it.  As root the server runs as the mysql
# user, as mariadbd refuses root.  InnoDB is kept small: buffer pool 256M,
# redo log 256M, innodb_flush_log_at_trx_commit=1 (durable commits).  It
# exports:
#
#     MARIA_TEST_DIR     the temporary directory (data in $MARIA_TEST_DIR/data)
#     MARIA_TEST_SOCKET  the Unix socket
#     MARIA_TEST_PORT    the TCP port on 127.0.0.1
#     TPCC_TEST_PASSWORD
#
# Set MARIA_TEST_OPTS to extra mariadbd options (--name=value, separated by
# spaces) before maria_start; they come after the defaults, so they win.
#
# The password never appears on a command line: it reaches the server as SQL
# on stdin (printf is a shell builtin) and maria_sql reads it from an option
# file of mode 600 in the temporary directory.  maria_stop stops the server
# (SIGTERM to the pid of the pid file, SIGKILL after 30 s) and removes the
# directory; it is safe to call twice, so callers can use `trap maria_stop EXIT`.

TPCC_TEST_PASSWORD=${TPCC_TEST_PASSWORD:-tpcc-secret-pw-123}
export TPCC_TEST_PASSWORD
# What this shell started (not inherited), so maria_stop never stops someone else's server.
maria__dir=
maria__pid=

# Print the path of a program: on PATH, else in /usr/sbin or /usr/bin.
maria__prog() {
    for _p in "$@"; do
        if command -v "$_p" >/dev/null 2>&1; then
            command -v "$_p"
            return 0
        fi
        for _d in /usr/sbin /usr/bin /usr/local/sbin /usr/local/bin; do
            if [ -x "$_d/$_p" ]; then
                echo "$_d/$_p"
                return 0
            fi
        done
    done
    return 1
}

. "${root:?mariadb.sh needs root, the checkout}/tests/lib/port.sh"

# A random port below the ephemeral range (port.sh says why).
maria__random_port() {
    test_port_random
}

# Run the client as the administrator over the socket; SQL on stdin.
maria__admin_sql() {
    "$maria__client" --no-defaults --protocol=socket --socket="$MARIA_TEST_SOCKET" \
        -u "$maria__admin" --batch --skip-column-names
}

# On failure maria_start says why on stderr and leaves nothing behind.
maria_start() {
    maria__start && return 0
    maria_stop
    return 1
}

maria__start() {
    maria__server=$(maria__prog mariadbd mysqld) || {
        echo "maria_start: mariadbd not found: install it with 'apt-get install mariadb-server'" >&2
        return 1
    }
    maria__install=$(maria__prog mariadb-install-db mysql_install_db) || {
        echo "maria_start: mariadb-install-db not found: install mariadb-server" >&2
        return 1
    }
    maria__client=$(maria__prog mariadb mysql) || {
        echo "maria_start: the mariadb client not found: install mariadb-client" >&2
        return 1
    }
    MARIA_TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tpcc-mariatest.XXXXXX") || return 1
    maria__dir=$MARIA_TEST_DIR
    chmod 755 "$MARIA_TEST_DIR" || return 1
    mkdir "$MARIA_TEST_DIR/run" "$MARIA_TEST_DIR/client" || return 1
    chmod 700 "$MARIA_TEST_DIR/run" "$MARIA_TEST_DIR/client" || return 1
    MARIA_TEST_SOCKET=$MARIA_TEST_DIR/run/mysqld.sock
    _data=$MARIA_TEST_DIR/data
    if [ "$(id -u)" = 0 ]; then
        id mysql >/dev/null 2>&1 || {
            echo "maria_start: running as root needs the mysql user (apt-get install mariadb-server)" >&2
            return 1
        }
        chown mysql "$MARIA_TEST_DIR/run" || return 1
        # The server's user must be able to create the data directory.
        chown mysql "$MARIA_TEST_DIR" || return 1
        maria__user="--user=mysql"
        maria__admin=root
    else
        maria__user=
        maria__admin=$(id -un)
    fi

    # Up to 3 tries: several test files at once (make test's TEST_JOBS) on a
    # loaded machine have seen one bootstrap fail; each try starts anew.
    _itry=1
    # shellcheck disable=SC2086
    while ! (cd / && "$maria__install" --no-defaults --datadir="$_data" $maria__user \
        --auth-root-authentication-method=socket --auth-root-socket-user="$maria__admin" \
        --skip-test-db --skip-name-resolve >"$MARIA_TEST_DIR/install.log" 2>&1); do
        if [ "$_itry" -ge 3 ]; then
            echo "maria_start: mariadb-install-db failed ($_itry tries):" >&2
            tail -n 5 "$MARIA_TEST_DIR/install.log" >&2
            return 1
        fi
        _itry=$((_itry + 1))
        rm -rf "$_data" && mkdir -p "$_data" || return 1
        [ "$(id -u)" != 0 ] || chown mysql:mysql "$_data" 2>/dev/null || true
        sleep 1
    done

    # Try ports from a random start until one binds; any other failure is final.
    MARIA_TEST_PORT=$(maria__random_port)
    _try=0
    while :; do
        # The server's user creates its log (the directory is its own as root).
        rm -f "$MARIA_TEST_DIR/error.log" "$MARIA_TEST_DIR/mariadbd.pid"
        # In its own session: a Ctrl-C of the test must not hit the server
        # halfway through its start, after maria_stop looked for it.  The
        # options again in maria_start_script: keep the two lists alike.
        # shellcheck disable=SC2086
        (cd / && exec setsid "$maria__server" --no-defaults $maria__user --datadir="$_data" \
            --socket="$MARIA_TEST_SOCKET" --pid-file="$MARIA_TEST_DIR/mariadbd.pid" \
            --log-error="$MARIA_TEST_DIR/error.log" --skip-networking=0 \
            --bind-address=127.0.0.1 --port="$MARIA_TEST_PORT" --skip-name-resolve \
            --innodb-buffer-pool-size=256M --innodb-log-file-size=256M \
            --innodb-flush-log-at-trx-commit=1 --max-connections=200 \
            --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
            ${MARIA_TEST_OPTS:-} </dev/null >"$MARIA_TEST_DIR/stdout.log" 2>&1) &
        maria__pid=$!
        # Ready when the client gets an answer; the start has failed when the
        # process is gone.  At most 60 s.
        _n=0
        _up=0
        while [ "$_n" -lt 600 ]; do
            if echo 'SELECT 1' | maria__admin_sql >/dev/null 2>&1; then
                _up=1
                break
            fi
            kill -0 "$maria__pid" 2>/dev/null || break
            sleep 0.1
            _n=$((_n + 1))
        done
        [ "$_up" = 1 ] && break
        if kill -0 "$maria__pid" 2>/dev/null; then
            echo "maria_start: mariadbd did not answer within 60 s:" >&2
            tail -n 5 "$MARIA_TEST_DIR/error.log" >&2
            return 1
        fi
        wait "$maria__pid" 2>/dev/null
        maria__pid=
        _try=$((_try + 1))
        if ! grep -qsE 'Bind on TCP/IP port|Address already in use' "$MARIA_TEST_DIR/error.log" ||
            [ "$_try" -ge 20 ]; then
            echo "maria_start: mariadbd failed to start (port $MARIA_TEST_PORT):" >&2
            tail -n 5 "$MARIA_TEST_DIR/error.log" >&2
            return 1
        fi
        MARIA_TEST_PORT=$(test_port_next "$MARIA_TEST_PORT")
    done

    # The password goes in on stdin, as an SQL literal: backslashes and single
    # quotes escaped.
    _pw=$(printf '%s' "$TPCC_TEST_PASSWORD" | sed -e 's/\\/\\\\/g' -e "s/'/\\\\'/g")
    if ! printf "CREATE DATABASE tpcc;
CREATE USER 'tpcc'@'%%' IDENTIFIED BY '%s';
CREATE USER 'tpcc'@'localhost' IDENTIFIED BY '%s';
GRANT ALL PRIVILEGES ON tpcc.* TO 'tpcc'@'%%';
GRANT ALL PRIVILEGES ON tpcc.* TO 'tpcc'@'localhost';
FLUSH PRIVILEGES;
" "$_pw" "$_pw" | maria__admin_sql >"$MARIA_TEST_DIR/setup.log" 2>&1; then
        _pw=
        echo "maria_start: creating user and database tpcc failed:" >&2
        tail -n 5 "$MARIA_TEST_DIR/setup.log" >&2
        return 1
    fi
    _pw=

    # maria_sql's option file: only this user may read it.  Double quotes and
    # backslashes escaped for the option file syntax.
    _pw=$(printf '%s' "$TPCC_TEST_PASSWORD" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
    (
        umask 077
        printf '[client]\nuser=tpcc\npassword="%s"\nhost=127.0.0.1\nport=%s\nprotocol=tcp\ndatabase=tpcc\n' \
            "$_pw" "$MARIA_TEST_PORT" >"$MARIA_TEST_DIR/client/my.cnf"
    ) || return 1
    _pw=
    chmod 600 "$MARIA_TEST_DIR/client/my.cnf" || return 1

    export MARIA_TEST_DIR MARIA_TEST_SOCKET MARIA_TEST_PORT
}

maria_stop() {
    [ -n "$maria__dir" ] || return 0
    _pid=
    if [ -f "$maria__dir/mariadbd.pid" ]; then
        _pid=$(cat "$maria__dir/mariadbd.pid" 2>/dev/null)
    fi
    # Before the pid file exists, the process we started (setsid execs it).
    [ -n "$_pid" ] || _pid=$maria__pid
    case $_pid in
    '' | *[!0-9]*) ;;
    *)
        if kill -TERM "$_pid" 2>/dev/null; then
            _n=0
            while kill -0 "$_pid" 2>/dev/null && [ "$_n" -lt 300 ]; do
                sleep 0.1
                _n=$((_n + 1))
            done
            kill -KILL "$_pid" 2>/dev/null || true
        fi
        ;;
    esac
    if [ -n "$maria__pid" ]; then
        wait "$maria__pid" 2>/dev/null || true
    fi
    rm -rf "$maria__dir"
    maria__dir=
    maria__pid=
}

# maria_start_script FILE [DATADIR [OPTION...]]: write FILE, a sh script
# that starts the test server again, detached (in its own session, so a
# kill of its process group is a kill of every process of the server), on
# DATADIR (default the one maria_start made) with maria_start's options and
# port, then OPTION...; it returns at once (whoever runs it waits for the
# server to answer).  For a test that crashes the server and has a command
# start it again (acid.restart_command); maria_stop still stops it (the pid
# file).  The options are maria__start's: keep the two lists alike.
maria_start_script() {
    _f=$1
    _sd=${2:-$MARIA_TEST_DIR/data}
    shift
    [ "$#" -eq 0 ] || shift
    {
        printf '#!/bin/sh\n# The test MariaDB again (tests/lib/mariadb.sh maria_start_script).\n'
        printf 'cd / && exec setsid %s --no-defaults %s --datadir=%s --socket=%s --pid-file=%s' \
            "$maria__server" "$maria__user" "$_sd" "$MARIA_TEST_SOCKET" "$MARIA_TEST_DIR/mariadbd.pid"
        printf ' --log-error=%s --skip-networking=0 --bind-address=127.0.0.1 --port=%s' \
            "$MARIA_TEST_DIR/error.log" "$MARIA_TEST_PORT"
        printf ' --skip-name-resolve --innodb-buffer-pool-size=256M --innodb-log-file-size=256M'
        printf ' --innodb-flush-log-at-trx-commit=1 --max-connections=200'
        printf ' --character-set-server=utf8mb4 --collation-server=utf8mb4_bin %s %s' \
            "${MARIA_TEST_OPTS:-}" "$*"
        printf ' </dev/null >>%s 2>&1 &\n' "$MARIA_TEST_DIR/stdout.log"
    } >"$_f"
}

# maria_admin SQL: run SQL as the administrator over the socket (grants
# the tpcc user has not, such as PROCESS); output as maria_sql.
maria_admin() {
    printf '%s\n' "$1" | maria__admin_sql
}

# maria_session: the client as tpcc over TCP in database tpcc, SQL from stdin
# (a session a test keeps open by feeding it from a FIFO); output as maria_sql.
maria_session() {
    "$maria__client" --defaults-file="$MARIA_TEST_DIR/client/my.cnf" --batch \
        --skip-column-names
}

# maria_sql SQL: run SQL as tpcc over TCP in database tpcc; prints tab-separated
# rows without headers (NULL as "NULL").
maria_sql() {
    "$maria__client" --defaults-file="$MARIA_TEST_DIR/client/my.cnf" --batch \
        --skip-column-names -e "$1"
}
