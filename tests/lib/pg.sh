# pg.sh - a throwaway PostgreSQL for integration tests.  POSIX sh; source it:
#
#     . "$root/tests/lib/pg.sh"
#     trap pg_stop EXIT
#     pg_start || exit 1
#     pg_psql 'select 1'
#     pg_session <fifo &     (a session kept open, SQL from stdin)
#
# pg_start creates a cluster in a mktemp -d directory, starts it on a free TCP
# port on 127.0.0.1 and on a Unix socket in that directory, and makes role
# tpcc (LOGIN SUPERUSER, password $TPCC_TEST_PASSWORD) and database tpcc.
# Unix socket: trust (superuser postgres, for setup), but the socket is 0700,
# so only the server's user and root reach it; TCP: scram-sha-256.
# As root the server runs as the postgres user (runuser), as PostgreSQL
# refuses root.  It exports:
#
#     PG_TEST_DIR       the temporary directory (cluster in $PG_TEST_DIR/data)
#     PGHOST_TEST_DIR   the Unix socket directory
#     PG_TEST_PORT      the TCP port
#     PG_TEST_BINDIR    where initdb, pg_ctl and psql are
#     PG_TEST_CONNINFO  "host=127.0.0.1 port=PORT dbname=tpcc user=tpcc" (needs the password)
#     TPCC_TEST_PASSWORD
#
# Set PG_TEST_CONF to extra postgresql.conf lines before pg_start; they are
# appended after the defaults (shared_buffers 128MB, fsync on,
# max_connections 100), so they override them.  Set PG_TEST_HBA to extra
# pg_hba.conf lines (e.g. a test's own client addresses, with scram-sha-256);
# they are appended after initdb's, which let in 127.0.0.1 and ::1 only.
#
# The password never appears on a command line: it reaches psql as SQL on
# stdin (printf is a shell builtin) and pg_psql passes it as PGPASSWORD.
# pg_stop stops the server (-m immediate) and removes the directory; it is
# safe to call twice, so callers can use `trap pg_stop EXIT`.

TPCC_TEST_PASSWORD=${TPCC_TEST_PASSWORD:-tpcc-secret-pw-123}
export TPCC_TEST_PASSWORD
# What this shell started (not inherited), so pg_stop never stops someone else's server.
pg__dir=

# Print the server bindir: pg_config --bindir when it holds initdb, else the
# highest /usr/lib/postgresql/VERSION/bin.
pg__bindir() {
    _d=$(pg_config --bindir 2>/dev/null) || _d=
    if [ -n "$_d" ] && [ -x "$_d/initdb" ]; then
        echo "$_d"
        return 0
    fi
    for _d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -t/ -k5,5nr); do
        if [ -x "$_d/initdb" ]; then
            echo "$_d"
            return 0
        fi
    done
    echo "pg_start: initdb not found: install the PostgreSQL server with 'apt-get install postgresql'" >&2
    return 1
}

# Run a command as the server's user (postgres when we are root, else
# ourselves) in its own session: a Ctrl-C must not kill pg_ctl halfway through
# a start, or the server would come up after pg_stop looked for it.
pg__run() {
    if [ "$(id -u)" = 0 ]; then
        (cd / && setsid -w runuser -u postgres -- "$@")
    else
        setsid -w "$@"
    fi
}

. "${root:?pg.sh needs root, the checkout}/tests/lib/port.sh"

# A random port below the ephemeral range (port.sh says why).
pg__random_port() {
    test_port_random
}

# On failure pg_start says why on stderr and leaves nothing behind.
pg_start() {
    pg__start && return 0
    pg_stop
    return 1
}

pg__start() {
    PG_TEST_BINDIR=$(pg__bindir) || return 1
    PG_TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tpcc-pgtest.XXXXXX") || return 1
    pg__dir=$PG_TEST_DIR
    chmod 755 "$PG_TEST_DIR" || return 1
    if [ "$(id -u)" = 0 ]; then
        chown postgres:postgres "$PG_TEST_DIR" || return 1
    fi
    _data=$PG_TEST_DIR/data
    if ! pg__run "$PG_TEST_BINDIR/initdb" -D "$_data" -U postgres --auth-local=trust \
        --auth-host=scram-sha-256 -E UTF8 --locale=C >"$PG_TEST_DIR/initdb.log" 2>&1; then
        echo "pg_start: initdb failed:" >&2
        tail -n 5 "$PG_TEST_DIR/initdb.log" >&2
        return 1
    fi
    cat >>"$_data/postgresql.conf" <<EOF

# tests/lib/pg.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PG_TEST_DIR'
unix_socket_permissions = 0700
shared_buffers = 128MB
fsync = on
max_connections = 100
logging_collector = off
EOF
    # Callers' own settings come last, so they win.
    if [ -n "${PG_TEST_CONF:-}" ]; then
        printf '%s\n' "$PG_TEST_CONF" >>"$_data/postgresql.conf"
    fi
    if [ -n "${PG_TEST_HBA:-}" ]; then
        printf '%s\n' "$PG_TEST_HBA" >>"$_data/pg_hba.conf"
    fi

    # Try ports from a random start until one binds; any other failure is final.
    # A server that bound only some of its listen_addresses (PostgreSQL starts
    # when one binds, and a test of two addresses would then be refused on the
    # other) is stopped and tried again on the next port too.
    PG_TEST_PORT=$(pg__random_port)
    _try=0
    while :; do
        if pg__run "$PG_TEST_BINDIR/pg_ctl" -D "$_data" -l "$PG_TEST_DIR/server.log" \
            -o "-p $PG_TEST_PORT" -w -t 60 start >>"$PG_TEST_DIR/pg_ctl.log" 2>&1; then
            grep -qE 'could not bind' "$PG_TEST_DIR/server.log" || break
            pg__run "$PG_TEST_BINDIR/pg_ctl" -D "$_data" -m immediate -w stop >/dev/null 2>&1
        fi
        _try=$((_try + 1))
        if ! grep -qE 'could not bind|could not create any TCP/IP sockets' "$PG_TEST_DIR/server.log" ||
            [ "$_try" -ge 20 ]; then
            echo "pg_start: pg_ctl start failed (port $PG_TEST_PORT):" >&2
            tail -n 5 "$PG_TEST_DIR/server.log" >&2
            return 1
        fi
        : >"$PG_TEST_DIR/server.log"
        PG_TEST_PORT=$(test_port_next "$PG_TEST_PORT")
    done

    # The password goes in on stdin, with single quotes doubled for the SQL literal.
    _pw=$(printf '%s' "$TPCC_TEST_PASSWORD" | sed "s/'/''/g")
    if ! printf "CREATE ROLE tpcc LOGIN SUPERUSER PASSWORD '%s';\nCREATE DATABASE tpcc OWNER tpcc;\n" "$_pw" |
        "$PG_TEST_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_TEST_DIR" -p "$PG_TEST_PORT" \
            -U postgres -d postgres >"$PG_TEST_DIR/setup.log" 2>&1; then
        echo "pg_start: creating role and database tpcc failed:" >&2
        tail -n 5 "$PG_TEST_DIR/setup.log" >&2
        return 1
    fi
    _pw=

    PGHOST_TEST_DIR=$PG_TEST_DIR
    PG_TEST_CONNINFO="host=127.0.0.1 port=$PG_TEST_PORT dbname=tpcc user=tpcc"
    export PG_TEST_DIR PGHOST_TEST_DIR PG_TEST_PORT PG_TEST_BINDIR PG_TEST_CONNINFO
}

pg_stop() {
    [ -n "$pg__dir" ] || return 0
    if [ -f "$pg__dir/data/postmaster.pid" ]; then
        pg__run "$PG_TEST_BINDIR/pg_ctl" -D "$pg__dir/data" -m immediate -w stop >/dev/null 2>&1 ||
            true
    fi
    rm -rf "$pg__dir"
    pg__dir=
}

# pg_psql SQL: run SQL as tpcc over TCP with the password; prints unaligned tuples.
pg_psql() {
    PGPASSWORD=$TPCC_TEST_PASSWORD "$PG_TEST_BINDIR/psql" -X -q -tA -v ON_ERROR_STOP=1 \
        -d "$PG_TEST_CONNINFO" -c "$1"
}

# pg_holder WHEN TABLE OUT [NAME]: in the background, a session named NAME
# (default tpcc-holder) that looks every 10 ms, committing each look so that it holds nothing
# between them, until the SQL boolean expression WHEN is true (an error,
# such as a table not there yet, counts as false); then, in the transaction
# of the look that saw it, it locks TABLE in access exclusive mode and keeps
# it 600 s or until pg_holder_end.  Its output in OUT; sets holder (the pid
# of its psql).  The name tells its lock from a DDL's or a TRUNCATE's.
pg_holder() {
    pg_psql "do \$\$ declare ok boolean; begin
  perform set_config('application_name', '${4:-tpcc-holder}', false);
  loop
    begin
      execute 'select ' || \$w\$$1\$w\$ into ok;
    exception when others then ok := false;
    end;
    exit when ok;
    commit;
    perform pg_sleep(0.01);
  end loop;
  lock table $2 in access exclusive mode;
  perform pg_sleep(600);
end \$\$" >"$3" 2>&1 &
    holder=$!
}

# pg_held TABLE [NAME]: prints 1 when the holder session NAME (default
# tpcc-holder) holds TABLE, else 0.
pg_held() {
    pg_psql "select count(*) from pg_locks l join pg_class c on c.oid = l.relation
             join pg_stat_activity a on a.pid = l.pid
             where c.relname = '$1' and l.mode = 'AccessExclusiveLock' and l.granted
               and a.application_name = '${2:-tpcc-holder}'"
}

# pg_holder_end [NAME]: ends the holder session NAME (default tpcc-holder)
# on the server (its psql then exits with an error the caller ignores).
pg_holder_end() {
    pg_psql "select pg_terminate_backend(pid) from pg_stat_activity
             where application_name = '${1:-tpcc-holder}'" >/dev/null
}

# pg_session: psql as tpcc over TCP, SQL from stdin (a session a test keeps
# open by feeding it from a FIFO); output as pg_psql's, but a failing
# statement does not end it.  Exports nothing.
pg_session() {
    PGPASSWORD=$TPCC_TEST_PASSWORD "$PG_TEST_BINDIR/psql" -X -q -tA -d "$PG_TEST_CONNINFO"
}

# pg_terminate_clients: ends every client backend of database tpcc but this
# query's own (pg_terminate_backend); prints how many.  Exports nothing.
pg_terminate_clients() {
    pg_psql "select count(pg_terminate_backend(pid)) from pg_stat_activity
             where datname = 'tpcc' and pid <> pg_backend_pid() and backend_type = 'client backend'"
}

# pg_stop_datadir DIR: stop a server still running on cluster DIR (a private
# server tpccbench left up, e.g. after a failure or --keep-server), as its
# owner.  Safe to call when nothing runs there.
pg_stop_datadir() {
    [ -f "$1/postmaster.pid" ] || return 0
    _b=$(pg__bindir) || return 1
    pg__run "$_b/pg_ctl" -D "$1" -m immediate -w stop >/dev/null 2>&1
}

# pg_restart_immediate: crash-stop the server (-m immediate: every backend
# killed, crash recovery at start) and start it again on the same port.
pg_restart_immediate() {
    pg__run "$PG_TEST_BINDIR/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" \
        -m immediate -w -t 60 restart >>"$PG_TEST_DIR/pg_ctl.log" 2>&1
}

# pg_restart: stop the server cleanly (-m fast: a shutdown checkpoint, no
# recovery at start) and start it again on the same port: its shared
# buffers empty.
pg_restart() {
    pg__run "$PG_TEST_BINDIR/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" \
        -o "-p $PG_TEST_PORT" -m fast -w -t 60 restart >>"$PG_TEST_DIR/pg_ctl.log" 2>&1
}

# pg_halt: stop the server (-m immediate) but keep the cluster; pg_resume
# starts it again on the same port.
pg_halt() {
    pg__run "$PG_TEST_BINDIR/pg_ctl" -D "$PG_TEST_DIR/data" -m immediate -w stop \
        >>"$PG_TEST_DIR/pg_ctl.log" 2>&1
}

pg_resume() {
    pg__run "$PG_TEST_BINDIR/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" \
        -o "-p $PG_TEST_PORT" -w -t 60 start >>"$PG_TEST_DIR/pg_ctl.log" 2>&1
}

# pg_checksums: one line "table=md5" per TPC-C table, sorted, over every
# column of every row but the load's clock (c_since, h_date, o_entry_d and
# ol_delivery_d, which a later load or a transaction sets to its own time;
# whether ol_delivery_d is NULL, which says the line is delivered, is kept).
# Row order is ignored (history has no key).  The columns come from the
# catalog, so a column added later is covered too.  Needs pg_start's server
# and a loaded schema; nonzero when a query fails.
pg_checksums() {
    _sql=
    for _t in warehouse district customer history new_order orders order_line item stock; do
        _cols=$(pg_psql "select string_agg(column_name, ', ' order by ordinal_position)
            from information_schema.columns where table_schema = current_schema()
            and table_name = '$_t'
            and column_name not in ('c_since', 'h_date', 'o_entry_d', 'ol_delivery_d')") || return 1
        [ -n "$_cols" ] || return 1
        [ "$_t" = order_line ] && _cols="$_cols, ol_delivery_d is null"
        _sql="$_sql${_sql:+ union all }select '$_t=' || md5(string_agg(h, '' order by h))
            from (select md5(row($_cols)::text) as h from $_t) s"
    done
    # UNION ALL keeps no order (parallel append): sort the lines.
    _sums=$(pg_psql "$_sql") || return 1
    printf '%s\n' "$_sums" | sort
}

# pg_load_dates: prints how many distinct load dates the rows carry (the
# clock columns pg_checksums leaves out: o_entry_d, h_date, c_since and the
# ol_delivery_d of delivered lines).  Exports nothing.
pg_load_dates() {
    pg_psql "select count(distinct d) from (select o_entry_d d from orders union select h_date from history
             union select c_since from customer
             union select ol_delivery_d from order_line where ol_delivery_d is not null) s"
}
