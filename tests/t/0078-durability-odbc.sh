#!/bin/sh
# 0078-durability-odbc.sh - `tpccbench acid --tests durability` on MariaDB
# through ODBC (issue 40, docs/acid.md), a user's server crashed and
# started again by its commands (acid.crash_command, acid.restart_command):
# tests/lib/mariadb.sh's throwaway server, 1 warehouse, 4 terminals, a 3 s
# window, the crash at 1.5 s (case 3: 2.5 s).
#
#  1. innodb_flush_log_at_trx_commit = 1 + kill: the crash command sends
#     SIGKILL to the server's process group (every process of it at once)
#     and waits for it to be gone, the restart command starts it again on
#     the same data directory, port and socket: durable, 0 lost,
#     New-Orders, Payments and Deliveries acknowledged, exit 0;
#  2. innodb_flush_log_at_trx_commit = 1 + power: the data directory on
#     tpccbench-lazyfs (mounted here over the loaded one); the crash
#     command kills the server, drops the unsynced writes (`echo crash >
#     MOUNT/.lazyfs-ctl`) and unmounts; the restart command mounts again
#     and starts the server: durable, 0 lost, crash "command";
#  3. innodb_flush_log_at_trx_commit = 2 + power, with nothing else that
#     flushes the redo log in the window (innodb_flush_log_at_timeout =
#     2700, the longest: the once-a-second flush; adaptive flushing off and
#     the dirty-page limits at 99 %, so no page is written, which would
#     flush the log up to its LSN first; the 256 MB log is far from a
#     checkpoint): every commit is written to the file system and never
#     fsync'd, so every one acknowledged in the window is dropped at the
#     crash: NOT DURABLE, lost > 0, exit 1, the setting named, and the
#     file system's counters at the crash (the crash command's log) show
#     unsynced bytes dropped.  What is left that flushes the log is the
#     page cleaner's idle flushing, which runs only when its once-a-second
#     look found no activity since the last: in the mix's first second at
#     the latest, never after, so with the crash at 2.5 s the last commits
#     before it are lost for certain (measured: 646 of 654 lost, the 8
#     kept acknowledged in the mix's first 0.1 s; 655 of 694, the first
#     lost at 0.2 s).
# Cases 1 and 2 check MariaDB's error log, from where the case began, for
# InnoDB's crash recovery ("Starting crash recovery"), so neither passes
# without a crash; case 3 for the server's second start (its recovery may
# find nothing to do: nothing of the window reached the disk).  Power cases
# are skipped without root, /dev/fuse, fusermount3 or tpccbench-lazyfs;
# the file without mariadbd, the MariaDB ODBC driver or the odbc driver in
# tpccbench.  Prints TAP.  About 60 s (one load, three crashes).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0078 mariadb odbc
t_copy_bin
maria__prog mariadbd mysqld >/dev/null || {
    echo "1..0 # SKIP no mariadbd (apt-get install mariadb-server)"
    exit 0
}
odbc_setup "$tmp/odbc-probe" 2>/dev/null
[ -n "${ODBC_TEST_MARIA_DRIVER:-}" ] || {
    echo "1..0 # SKIP no MariaDB ODBC driver (apt-get install odbc-mariadb)"
    exit 0
}
cfg=$tmp/maria.yaml
cat >"$cfg" <<CFGEOF
database: {driver: odbc, managed: false, dsn: "DSN=tpcc-maria", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: 1}
results: {dir: "$tmp/results"}
acid: {crash_command: "sh $tmp/crash.sh", restart_command: "sh $tmp/restart.sh", restart_timeout: 90s}
CFGEOF
t_maria_up
t_odbc_up
t_odbc_built "$cfg"
t_load "load W=1 through ODBC (MariaDB)"

t_lazyfs
data=$MARIA_TEST_DIR/data
mnt=$MARIA_TEST_DIR/lz
elog=$MARIA_TEST_DIR/error.log

# gone PID: wait for the server's process to be gone: no /proc entry, or a
# zombie (the first server is this shell's child, reaped only by it) whose
# other threads have ended too (a zombie leader's threads may still hold
# its files and port).  Sourced by the crash commands.
cat >"$tmp/gone.sh" <<'EOF'
gone() {
    while [ -d "/proc/$1" ]; do
        if grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null &&
            [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -le 1 ]; then
            break
        fi
        sleep 0.05
    done
}
EOF

# kill_cmd: the crash command's kill: SIGKILL to the server's process group
# (its session: maria_start_script's setsid), then its end waited for.
kill_cmd() {
    printf '. %s/gone.sh\npid=$(cat %s/mariadbd.pid)\n' "$tmp" "$MARIA_TEST_DIR"
    printf 'kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" || exit 1\ngone "$pid"\n'
}

# power_cmds [OPTION...]: crash.sh and restart.sh of a power loss on the
# mount: kill, the counters, the unsynced writes dropped, unmounted; and
# mounted again, the server started on it with OPTION....
power_cmds() {
    {
        kill_cmd
        printf 'echo crash >%s/.lazyfs-ctl || exit 1\ncat %s/.lazyfs-ctl\n' "$mnt" "$mnt"
        printf 'until fusermount3 -u %s; do sleep 0.1; done\n' "$mnt"
    } >"$tmp/crash.sh"
    maria_start_script "$tmp/start.sh" "$mnt" "$@"
    printf '%s/tpccbench-lazyfs %s %s || exit 1\nsh %s/start.sh\n' "$tmp" "$data" "$mnt" \
        "$tmp" >"$tmp/restart.sh"
}

# up: wait for the server to answer (at most 60 s).
up() {
    _n=0
    while ! maria_sql 'SELECT 1' >/dev/null 2>&1 && [ "$_n" -lt 600 ]; do
        sleep 0.1
        _n=$((_n + 1))
    done
    maria_sql 'SELECT 1' >/dev/null 2>&1
}

# stop: a clean shutdown (SIGTERM), its end waited for.
stop() {
    _pid=$(cat "$MARIA_TEST_DIR/mariadbd.pid")
    kill -TERM "$_pid"
    . "$tmp/gone.sh"
    gone "$_pid"
}

# The mount (when a case made it) goes before maria_stop removes the
# directory: the server stopped first, else the mount is busy.
unmount() {
    if grep -q " $mnt fuse" /proc/mounts 2>/dev/null; then
        _pid=$(cat "$MARIA_TEST_DIR/mariadbd.pid" 2>/dev/null)
        if [ -n "$_pid" ] && kill -KILL "$_pid" 2>/dev/null; then
            . "$tmp/gone.sh"
            gone "$_pid"
        fi
        fusermount3 -u "$mnt" || fusermount3 -uz "$mnt"
    fi
}

# dur LABEL AT WANT_RC DESC WANT_LOG: acid --tests durability (a 3 s window,
# 4 terminals, the crash at AT), its exit code; MariaDB's error log written
# since OFF (set by the caller) must match WANT_LOG.
dur() {
    _l=$1 _at=$2 _rc=$3 _d=$4 _want=$5
    run "$_l" "$bin" acid -c "$cfg" --label "$_l" --tests durability --duration 3s --vus 4 \
        --crash-at "$_at"
    is "$rc" "$_rc" "$_d: exit $_rc" || explain
    like "$(tail -c +$((off + 1)) "$elog")" "$_want" "$_d: MariaDB's error log shows it" ||
        diag "$(tail -c +$((off + 1)) "$elog" | tail -n 20)"
}

field() {
    json "$(rec_json "$1")" "(lambda d: ($2))(r['acid']['durability'])"
}

# crashlog LABEL: the crash and restart commands' output of LABEL's run.
crashlog() {
    cat "$(dirname "$(rec_json "$1")")/crash.log" 2>&1
}

counts() {
    field "$1" "'%d %d %d' % (d['acknowledged'], d['present'], d['lost'])"
}

# --- 1. innodb_flush_log_at_trx_commit = 1 + kill ----------------------------
kill_cmd >"$tmp/crash.sh"
maria_start_script "$tmp/restart.sh"
off=$(wc -c <"$elog")
dur kill 1.5s 0 "flush_log_at_trx_commit = 1 + kill" "*InnoDB: Starting crash recovery*"
like "$out" "*durable: 0 of * acknowledged transactions lost, recovered in * s, 12 conditions hold*" \
    "flush_log_at_trx_commit = 1 + kill: the verdict line"
set -- $(counts kill)
ok "$([ "${1:-0}" -gt 0 ] && [ "$1" = "${2:-}" ] && [ "${3:-}" = 0 ]; echo $?)" \
    "flush_log_at_trx_commit = 1 + kill: 0 lost ($2 of $1 acknowledged present)"
is "$(field kill "[d['by_type'][t]['acknowledged'] > 0 for t in ('new_order', 'payment', 'delivery')], d['crash'], d['durable'], d['crash_at_s'], d['settings']")" \
    "([True, True, True], 'command', True, 1.5, '')" \
    "flush_log_at_trx_commit = 1 + kill: each type acknowledged, crash command, durable, no setting named"
note "flush_log_at_trx_commit = 1 + kill: $(field kill "d['summary']")"
t_extra_cleanup=unmount

if [ "$power" != yes ]; then
    for _i in 1 2 3 4 5 6 7 8 9 10; do
        skip "power cases: $power"
    done
else
    # --- 2. innodb_flush_log_at_trx_commit = 1 + power -----------------------
    stop
    mkdir "$mnt" && chmod 755 "$mnt"
    "$tmp/tpccbench-lazyfs" "$data" "$mnt"
    power_cmds
    off=$(wc -c <"$elog")
    sh "$tmp/start.sh"
    up
    is "$?$(maria_sql 'SELECT @@datadir')" "0$mnt/" "the server runs on tpccbench-lazyfs ($mnt)"
    dur power 1.5s 0 "flush_log_at_trx_commit = 1 + power" "*InnoDB: Starting crash recovery*"
    set -- $(counts power)
    ok "$([ "${1:-0}" -gt 0 ] && [ "$1" = "${2:-}" ] && [ "${3:-}" = 0 ]; echo $?)" \
        "flush_log_at_trx_commit = 1 + power: 0 lost ($2 of $1 acknowledged present)"
    like "$(crashlog power)" "*crashed 1*" \
        "flush_log_at_trx_commit = 1 + power: the file system took the crash" ||
        diag "$(crashlog power)"
    note "flush_log_at_trx_commit = 1 + power: $(field power "d['summary']")"

    # --- 3. innodb_flush_log_at_trx_commit = 2 + power -----------------------
    stop
    power_cmds --innodb-flush-log-at-trx-commit=2 --innodb-flush-log-at-timeout=2700 \
        --innodb-adaptive-flushing=OFF --innodb-max-dirty-pages-pct=99 \
        --innodb-max-dirty-pages-pct-lwm=99
    off=$(wc -c <"$elog")
    sh "$tmp/start.sh"
    up
    dur async 2.5s 1 "flush_log_at_trx_commit = 2 + power" "*ready for connections*ready for connections*"
    set -- $(counts async)
    ok "$([ "${3:-0}" -gt 0 ] && [ "$(($2 + $3))" = "$1" ]; echo $?)" \
        "flush_log_at_trx_commit = 2 + power: acknowledged transactions lost ($3 of $1)"
    like "$out" "*NOT DURABLE: * of * acknowledged * lost*(innodb_flush_log_at_trx_commit = 2)*" \
        "flush_log_at_trx_commit = 2 + power: the verdict names the loss and the setting"
    _dropped=$(sed -n 's/^dropped_bytes //p' "$(dirname "$(rec_json async)")/crash.log")
    ok "$([ "${_dropped:-0}" -gt 0 ]; echo $?)" \
        "flush_log_at_trx_commit = 2 + power: the crash dropped $_dropped unsynced bytes"
    note "flush_log_at_trx_commit = 2 + power: $(field async "d['summary']")"
fi
note "0078 took $(($(date +%s) - t_start)) s"
done_testing
