#!/bin/sh
# 0043-durability.sh - `tpccbench acid --tests durability` (issue 40,
# docs/acid.md) on the private PostgreSQL in $tmp/pgdata, 1 warehouse, 4
# terminals, a 4 s window: the ground truth.
#
#  1. defaults + kill (the crash at a random instant of the middle half,
#     recorded): durable, 0 lost of the acknowledged New-Orders, Payments
#     and Deliveries, 12 conditions, exit 0;
#  2. fsync = off + kill at 2 s: durable, 0 lost (the OS kept the writes);
#  3. defaults + power at 2 s (the data directory on tpccbench-lazyfs):
#     durable, 0 lost; the mount is gone afterwards;
#  4. synchronous_commit = off + power at 2 s, with the WAL writer kept
#     from flushing (wal_writer_delay 10 s, wal_writer_flush_after 1GB,
#     the background writer off, so no page write flushes the WAL either):
#     NOT DURABLE, lost > 0, exit 1, the setting named in the verdict.  The
#     WAL writer flushes at the first commit after its start, then not for
#     10 s; otherwise only a WAL segment finished (16 MB) is fsync'd.  Every
#     commit acknowledged after the last of those is lost: none would be
#     only if a segment ended in the millisecond between the last
#     acknowledgement and the kill (the odds of the WAL written in a
#     millisecond to 16 MB, about 1 in 3,000);
#  4b. fsync = off + power at 2 s: NOT DURABLE, exit 1: acknowledged
#     transactions lost (nothing is ever fsync'd, so what was written on
#     the mount is dropped), or a server that fails its recovery (either is
#     the verdict); the last case on the private server;
#  5. power without tpccbench-lazyfs beside tpccbench or on PATH: exit 2
#     before anything starts;
#  6. a user's server (tests/lib/pg.sh's, loaded here): acid.crash_command
#     (pg_ctl stop -m immediate) and acid.restart_command (pg_ctl start):
#     durable, 0 lost, crash "command"; --crash power refused there.
# Each crash case checks the server's own log, from where that case began:
# "database system was not properly shut down; automatic recovery in
# progress", so none passes without a crash.  Power cases are skipped
# without root, /dev/fuse, fusermount3 or tpccbench-lazyfs.  Prints TAP.
# About 6 minutes (two loads, then 30-50 s a case).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_private t0043 pgdata
pg=$t_datadir
cfg=$tmp/tpcc.yaml
cat >"$cfg" <<EOF
database: {managed: true, datadir: "$pg"}
schema: {warehouses: 1}
results: {dir: "$tmp/results"}
EOF
t_load "load: exit 0"
cp "$pg/postgresql.conf" "$tmp/postgresql.conf.orig"

t_lazyfs

# settings LINE...: postgresql.conf as loaded plus LINE... (the server is stopped).
settings() {
    cp "$tmp/postgresql.conf.orig" "$pg/postgresql.conf"
    for _l in "$@"; do
        printf '%s\n' "$_l" >>"$pg/postgresql.conf"
    done
}

# dur LABEL WANT_RC DESC ARGS...: acid --tests durability with ARGS (4 s,
# 4 terminals), its exit code; the server log written since it began must
# show a crash recovery.  Sets what run sets (the record is read
# through field and counts).
dur() {
    _l=$1 _rc=$2 _d=$3
    shift 3
    _off=$(wc -c <"$pg/server.log")
    run "$_l" "$bin" acid -c "$cfg" --label "$_l" --tests durability --duration 4s --vus 4 "$@"
    is "$rc" "$_rc" "$_d: exit $_rc" || explain
    like "$(tail -c +$((_off + 1)) "$pg/server.log" | tr -d '\000')" \
        "*database system was not properly shut down; automatic recovery in progress*" \
        "$_d: the server's log shows its crash recovery" ||
        diag "$(tail -c +$((_off + 1)) "$pg/server.log" | tr -d '\000' | tail -n 20)"
}

# field LABEL EXPR: a Python expression over d = the record's acid.durability.
field() {
    json "$(rec_json "$1")" "(lambda d: ($2))(r['acid']['durability'])"
}

# counts LABEL: "ACKNOWLEDGED PRESENT LOST", the totals of LABEL's record.
counts() {
    field "$1" "'%d %d %d' % (d['acknowledged'], d['present'], d['lost'])"
}

# --- 1. defaults + kill ------------------------------------------------------
dur kill 0 "defaults + kill"
like "$out" "*durable: 0 of * acknowledged transactions lost, recovered in * s, 12 conditions hold*" \
    "defaults + kill: the verdict line"
set -- $(counts kill)
ok "$([ "${1:-0}" -gt 0 ] && [ "$1" = "${2:-}" ] && [ "${3:-}" = 0 ]; echo $?)" \
    "defaults + kill: 0 lost ($2 of $1 acknowledged present)"
is "$(field kill "all(d['by_type'][t]['acknowledged'] > 0 for t in ('new_order', 'payment'))")" \
    True "defaults + kill: New-Orders and Payments were acknowledged"
is "$(field kill "1.0 <= d['crash_at_s'] <= 3.0 and d['crash'] == 'kill' and d['durable'] and d['first_lost'] is None")" \
    True "defaults + kill: crash_at_s recorded in the middle half of the window, durable"
is "$(field kill "d['recovery_s']['connection'] > 0 and d['recovery_s']['new_order'] >= d['recovery_s']['connection'] and d['conditions']['ok']")" \
    True "defaults + kill: recovery times recorded, conditions hold"
note "defaults + kill: $(field kill "d['summary']")"

# --- 2. fsync = off + kill ---------------------------------------------------
settings "fsync = off"
dur fsync-kill 0 "fsync = off + kill" --crash kill --crash-at 2s
set -- $(counts fsync-kill)
ok "$([ "${1:-0}" -gt 0 ] && [ "${3:-}" = 0 ]; echo $?)" \
    "fsync = off + kill: 0 lost ($2 of $1 present): the OS kept the writes"
is "$(field fsync-kill "d['crash_at_s'], d['durable'], d['settings']")" "(2.0, True, 'fsync = off')" \
    "fsync = off + kill: at 2 s, durable, the setting recorded"
note "fsync = off + kill: $(field fsync-kill "d['summary']")"
settings

if [ "$power" != yes ]; then
    for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do
        skip "power cases: $power"
    done
else
    # --- 3. defaults + power -------------------------------------------------
    dur power 0 "defaults + power" --crash power --crash-at 2s
    set -- $(counts power)
    ok "$([ "${1:-0}" -gt 0 ] && [ "$1" = "${2:-}" ] && [ "${3:-}" = 0 ]; echo $?)" \
        "defaults + power: 0 lost ($2 of $1 acknowledged present)"
    is "$(grep -c " $pg.lazyfs-" /proc/mounts; ls -d "$pg".lazyfs-* 2>/dev/null | wc -l)" "0
0" "defaults + power: unmounted, the mount point removed"
    note "defaults + power: $(field power "d['summary']")"

    # --- 4. synchronous_commit = off + power ---------------------------------
    settings "synchronous_commit = off" "wal_writer_delay = 10s" "wal_writer_flush_after = 1GB" \
        "bgwriter_lru_maxpages = 0"
    dur async-power 1 "synchronous_commit = off + power" --crash power --crash-at 2s
    set -- $(counts async-power)
    ok "$([ "${3:-0}" -gt 0 ] && [ "$(($2 + $3))" = "$1" ]; echo $?)" \
        "synchronous_commit = off + power: acknowledged transactions lost ($3 of $1)"
    like "$out" "*NOT DURABLE: * of * acknowledged * lost*(synchronous_commit = off)*" \
        "synchronous_commit = off + power: the verdict names the loss and the setting"
    is "$(field async-power "d['durable'], d['first_lost'] is not None, d['by_type']['new_order']['lost'] > 0")" \
        "(False, True, True)" "synchronous_commit = off + power: New-Orders lost, the first recorded"
    note "synchronous_commit = off + power: $(field async-power "d['summary']")"

    # --- 4b. fsync = off + power ---------------------------------------------
    # Not dur(): nothing on the mount was synced, pg_control and server.log
    # included, so the restarted server finds pg_control as it was before the
    # mount ("shut down"), starts without a recovery, and the log lines
    # written since are gone.  The crash shows as that start, at the crash's
    # instant, and as the loss.
    settings "fsync = off"
    _off=$(wc -c <"$pg/server.log")
    run fsync-power "$bin" acid -c "$cfg" --label fsync-power --tests durability --duration 4s \
        --vus 4 --crash power --crash-at 2s
    is "$rc" 1 "fsync = off + power: exit 1" || explain
    ok "$(tail -c +$((_off + 1)) "$pg/server.log" | tr -d '\000' |
        grep -qE 'database system was (shut down at|not properly shut down)'; echo $?)" \
        "fsync = off + power: the server's log shows its start after the crash"
    like "$out" "*NOT DURABLE: *" "fsync = off + power: NOT DURABLE"
    is "$(field fsync-power "not d['durable'] and d['crash_at_s'] == 2.0 and (d['lost'] > 0 or d['recovery_s'] is None)")" True \
        "fsync = off + power: acknowledged transactions lost, or no recovery"
    note "fsync = off + power: $(field fsync-power "d['summary']")"
    settings
fi

# --- 5. power without the file system ---------------------------------------
mkdir "$tmp/nolz"
cp "$bin" "$tmp/nolz/tpccbench"
run nolz env PATH=/usr/bin:/bin "$tmp/nolz/tpccbench" acid -c "$cfg" --tests durability --crash power
is "$rc" 2 "power without tpccbench-lazyfs: exit 2" || explain
like "$err" "*--crash power needs tpccbench-lazyfs beside tpccbench or on PATH*" \
    "it says what is missing and how to build it"

# --- 6. a user's server: its commands crash and restart it -------------------
t_pg_up
t_pg_cfg 1
if [ "$(id -u)" = 0 ]; then as_pg="runuser -u postgres --"; else as_pg=; fi
printf 'cd / && %s "%s/pg_ctl" -D "%s/data" -m immediate -w stop\n' \
    "$as_pg" "$PG_TEST_BINDIR" "$PG_TEST_DIR" >"$tmp/crash.sh"
printf 'cd / && %s "%s/pg_ctl" -D "%s/data" -l "%s/server.log" -o "-p %s" -w -t 60 start\n' \
    "$as_pg" "$PG_TEST_BINDIR" "$PG_TEST_DIR" "$PG_TEST_DIR" "$PG_TEST_PORT" >"$tmp/restart.sh"
printf 'acid: {crash_command: "sh %s/crash.sh", restart_command: "sh %s/restart.sh", restart_timeout: 90s}\n' \
    "$tmp" "$tmp" >>"$cfg"
t_load "load on a user's server: exit 0"
_off=$(wc -c <"$PG_TEST_DIR/server.log")
run cmd "$bin" acid -c "$cfg" --label cmd --tests durability --duration 4s --vus 4 --crash-at 2s
is "$rc" 0 "acid.crash_command + acid.restart_command: exit 0" || explain
like "$(tail -c +$((_off + 1)) "$PG_TEST_DIR/server.log")" \
    "*database system was not properly shut down; automatic recovery in progress*" \
    "acid.crash_command: the server's log shows its crash recovery"
set -- $(counts cmd)
ok "$([ "${1:-0}" -gt 0 ] && [ "$1" = "${2:-}" ] && [ "${3:-}" = 0 ]; echo $?)" \
    "acid.crash_command: 0 lost ($2 of $1 acknowledged present)"
is "$(field cmd "d['crash'], d['durable']")" "('command', True)" \
    "acid.crash_command: run.json says crash command, durable"
note "acid.crash_command: $(field cmd "d['summary']")"
run cmdpower "$bin" acid -c "$cfg" --tests durability --crash power
is "$rc" 2 "--crash power on a user's server: exit 2" || explain
like "$err" "*--crash power is for the private server*tpccbench-lazyfs*.lazyfs-ctl: docs/acid.md)*" \
    "it says why, and how a power loss goes through the commands"
done_testing
