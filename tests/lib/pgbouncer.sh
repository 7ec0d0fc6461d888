# pgbouncer.sh - a throwaway PgBouncer in front of the test PostgreSQL.  POSIX
# sh; source it after tests/lib/pg.sh has started the server:
#
#     . "$root/tests/lib/pgbouncer.sh"
#     trap 'pgb_stop; pg_stop' EXIT
#     pgb_start transaction 2 || exit 1       # pool_mode, default_pool_size
#     tpccbench ... conninfo "$PGB_TEST_CONNINFO"
#
# pgb_start MODE POOL_SIZE writes a config into a mktemp -d directory and
# starts PgBouncer (package pgbouncer) there on a free TCP port of 127.0.0.1
# (no Unix socket), pool_mode MODE (session | transaction | statement) with
# default_pool_size POOL_SIZE server connections for database tpcc, user
# tpcc.  Clients log in with SCRAM; the auth_file holds the role's SCRAM
# secret read from pg_authid (not the password), which PgBouncer then also
# uses to log in to the server.  As root PgBouncer runs as the postgres user
# (it refuses root).  It exports:
#
#     PGB_TEST_DIR       the temporary directory (pgbouncer.ini, pgbouncer.log)
#     PGB_TEST_PORT      the TCP port
#     PGB_TEST_CONNINFO  "host=127.0.0.1 port=PORT dbname=tpcc user=tpcc"
#
# pgb_stop stops the PgBouncer this shell started (by the pid it wrote) and
# removes the directory; it is safe to call twice, so callers can use it in
# an EXIT trap.  pgb_show WHAT runs SHOW WHAT on the admin console (database
# pgbouncer, as tpcc, an admin user here).

pgb__dir=
pgb__pid=

pgb_start() {
    pgb__start "$@" && return 0
    pgb_stop
    return 1
}

pgb__start() {
    _mode=$1
    _pool=$2
    if ! command -v pgbouncer >/dev/null 2>&1; then
        echo "pgb_start: pgbouncer not found: apt-get install pgbouncer" >&2
        return 1
    fi
    PGB_TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tpcc-pgbtest.XXXXXX") || return 1
    pgb__dir=$PGB_TEST_DIR
    chmod 700 "$PGB_TEST_DIR" || return 1
    _secret=$(pg_psql "select rolpassword from pg_authid where rolname = 'tpcc'") || return 1
    case $_secret in
    SCRAM-SHA-256*) ;;
    *)
        echo "pgb_start: role tpcc has no SCRAM secret" >&2
        return 1
        ;;
    esac
    printf '"tpcc" "%s"\n' "$_secret" >"$PGB_TEST_DIR/userlist.txt" || return 1
    _secret=
    PGB_TEST_PORT=$(pg__random_port)
    _try=0
    while :; do
        cat >"$PGB_TEST_DIR/pgbouncer.ini" <<EOF
; tests/lib/pgbouncer.sh
[databases]
tpcc = host=127.0.0.1 port=$PG_TEST_PORT dbname=tpcc

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_TEST_PORT
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $PGB_TEST_DIR/userlist.txt
admin_users = tpcc
pool_mode = $_mode
default_pool_size = $_pool
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 200
max_db_connections = $_pool
server_round_robin = 0
ignore_startup_parameters = extra_float_digits
logfile = $PGB_TEST_DIR/pgbouncer.log
pidfile = $PGB_TEST_DIR/pgbouncer.pid
EOF
        if [ "$(id -u)" = 0 ]; then
            chown -R postgres:postgres "$PGB_TEST_DIR" || return 1
            (cd / && setsid runuser -u postgres -- pgbouncer "$PGB_TEST_DIR/pgbouncer.ini" \
                >>"$PGB_TEST_DIR/stdout.log" 2>&1 </dev/null) &
        else
            (cd / && setsid pgbouncer "$PGB_TEST_DIR/pgbouncer.ini" \
                >>"$PGB_TEST_DIR/stdout.log" 2>&1 </dev/null) &
        fi
        # Up when it answers on the port; down when its log says why.
        _i=0
        while [ $_i -lt 100 ]; do
            if [ -s "$PGB_TEST_DIR/pgbouncer.pid" ] &&
                PGPASSWORD=$TPCC_TEST_PASSWORD "$PG_TEST_BINDIR/psql" -X -q -tA \
                    -d "host=127.0.0.1 port=$PGB_TEST_PORT dbname=tpcc user=tpcc" \
                    -c 'select 1' >/dev/null 2>&1; then
                pgb__pid=$(cat "$PGB_TEST_DIR/pgbouncer.pid")
                break 2
            fi
            if grep -qE 'FATAL|Address already in use' "$PGB_TEST_DIR/pgbouncer.log" \
                "$PGB_TEST_DIR/stdout.log" 2>/dev/null; then
                break
            fi
            sleep 0.1
            _i=$((_i + 1))
        done
        if [ -s "$PGB_TEST_DIR/pgbouncer.pid" ]; then
            kill "$(cat "$PGB_TEST_DIR/pgbouncer.pid")" 2>/dev/null || true
        fi
        _try=$((_try + 1))
        if ! grep -q 'Address already in use' "$PGB_TEST_DIR/pgbouncer.log" \
            "$PGB_TEST_DIR/stdout.log" 2>/dev/null || [ $_try -ge 20 ]; then
            echo "pgb_start: pgbouncer did not start (port $PGB_TEST_PORT):" >&2
            tail -n 5 "$PGB_TEST_DIR/pgbouncer.log" "$PGB_TEST_DIR/stdout.log" >&2 2>/dev/null
            return 1
        fi
        rm -f "$PGB_TEST_DIR/pgbouncer.log" "$PGB_TEST_DIR/stdout.log" "$PGB_TEST_DIR/pgbouncer.pid"
        PGB_TEST_PORT=$(test_port_next "$PGB_TEST_PORT")
    done
    PGB_TEST_CONNINFO="host=127.0.0.1 port=$PGB_TEST_PORT dbname=tpcc user=tpcc"
    export PGB_TEST_DIR PGB_TEST_PORT PGB_TEST_CONNINFO
}

pgb_stop() {
    [ -n "$pgb__dir" ] || return 0
    # Each step may find the process gone already: no failure (set -e callers).
    if [ -n "$pgb__pid" ]; then
        kill "$pgb__pid" 2>/dev/null || true
        _i=0
        while kill -0 "$pgb__pid" 2>/dev/null && [ $_i -lt 50 ]; do
            sleep 0.1
            _i=$((_i + 1))
        done
        kill -9 "$pgb__pid" 2>/dev/null || true
    fi
    rm -rf "$pgb__dir"
    pgb__dir=
    pgb__pid=
}

# pgb_show WHAT: SHOW WHAT on the admin console, unaligned.
pgb_show() {
    PGPASSWORD=$TPCC_TEST_PASSWORD "$PG_TEST_BINDIR/psql" -X -q -tA \
        -d "host=127.0.0.1 port=$PGB_TEST_PORT dbname=pgbouncer user=tpcc" -c "SHOW $1"
}
