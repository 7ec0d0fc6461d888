# ostatus.sh - the Order-Status gap that tests 0036 (libpq) and 0073 (ODBC)
# set up: the probe of tests/helper/txn_probe.c runs one Order-Status on the
# oldest undelivered order of warehouse 1, district 1, and is held between
# that order and its lines (client mode: the db_exec() test hook and a go
# file; procedure mode: a lock the server-side function waits for, held by
# a third session) while a second session commits a Delivery of that very
# order; then the probe's output is judged.  POSIX sh; source it after
# tap.sh, util.sh and the server libraries, with $tmp set and $probe the
# probe's path:
#
#     os_target KIND               sets os_o, os_c: that order and its customer
#     os_probe_bg LABEL ARGS...    the probe in the background; sets bgpid
#     os_wait_paused FILE SECS     until the probe printed "paused" into FILE
#     os_deliver LABEL KIND        the second session's Delivery of $os_o (a test)
#     os_judge FILE WANT           the output FILE shows $os_o as WANT says
#     os_finish LABEL WANT DESC    wait for the probe (a test), judge it (a test)
#     os_lock_open KIND / os_lock_close   the third session, fed on fd 3
#     os_lock_set NAME LOCK UNLOCK HELD WAITING   what os_paused_proc uses
#     os_paused_proc LABEL KIND SECS ARGS...      procedure mode, held at the lock
#
# KIND is pg or maria (util.sh's db_sql).

# os_target KIND: the oldest undelivered order of warehouse 1, district 1
# (after a load, its customer's only order), read through KIND's client.
# Sets os_o (its o_id) and os_c (its c_id).
os_target() {
    set -- $(db_sql "$1" "select o_id, o_c_id from orders where o_w_id = 1 and o_d_id = 1
        and o_id = (select min(no_o_id) from new_order where no_w_id = 1 and no_d_id = 1)" |
        tr '|\t' '  ')
    os_o=${1:-}
    os_c=${2:-}
}

# os_probe_bg LABEL ARGS...: $probe ARGS in the background, stdout in
# $tmp/LABEL.out, stderr in $tmp/LABEL.err.  Sets bgpid (t_cleanup kills it).
os_probe_bg() {
    _l=$1
    shift
    "$probe" "$@" >"$tmp/$_l.out" 2>"$tmp/$_l.err" </dev/null &
    bgpid=$!
}

# os_wait_paused FILE SECS: wait up to SECS for the probe to print "paused
# before" into FILE; 0 when it did.  Exports nothing.
os_wait_paused() {
    _i=0
    while [ $_i -lt $(($2 * 20)) ]; do
        grep -q '^paused before' "$1" 2>/dev/null && return 0
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# os_deliver LABEL KIND: the second session commits a Delivery (carrier 7)
# through KIND's own client, which delivers the oldest new order of each
# district; the test "LABEL: a second session delivered order $os_o" passes
# when that order now has carrier 7.  Exports nothing.
os_deliver() {
    case $2 in
    pg) pg_psql "select tpcc_delivery(1, 7)" >/dev/null ;;
    maria) maria_sql "call tpcc_delivery(1, 7)" >/dev/null ;;
    esac
    if [ "$(db_sql "$2" "select o_carrier_id from orders where o_w_id = 1 and o_d_id = 1
        and o_id = $os_o")" = 7 ]; then
        pass "$1: a second session delivered order $os_o meanwhile (carrier 7)"
    else
        fail "$1: a second session delivered order $os_o meanwhile"
    fi
}

# os_judge FILE WANT: 0 when the probe's output FILE shows order $os_o with
# carrier NULL and at least 5 lines, and WANT is "undelivered" (no line
# delivered: one snapshot) or "mixed" (every line delivered: two
# snapshots).  Exports nothing.
os_judge() {
    _order=$(sed -n 's/^order \([0-9]*\) .* \([0-9A-Z]*\)$/\1 \2/p' "$1")
    _n=$(grep -c '^line ' "$1")
    _d=$(grep -c '^line .* delivered$' "$1")
    [ "$_order" = "$os_o NULL" ] && [ "$_n" -ge 5 ] || return 1
    case $2 in
    undelivered) [ "$_d" = 0 ] ;;
    mixed) [ "$_d" = "$_n" ] ;;
    *) return 1 ;;
    esac
}

# os_finish LABEL WANT DESC: waits for the probe of LABEL ($bgpid), which
# must exit 0 (a test), then the test DESC: os_judge of its output and WANT
# (its output shown when it fails).  Empties bgpid.
os_finish() {
    wait "$bgpid"
    is "$?" 0 "$1: the probe finished: exit 0" || diag "$(cat "$tmp/$1.err")"
    bgpid=
    if os_judge "$tmp/$1.out" "$2"; then
        pass "$3"
    else
        fail "$3" "$(cat "$tmp/$1.out")"
    fi
}

# os_lock_open KIND: the third session, KIND's client (pg.sh's pg_session,
# mariadb.sh's maria_session) reading SQL from the FIFO $tmp/lock.fifo,
# which fd 3 of this shell writes to; its output in $tmp/lock.out.  Sets
# lockpid (t_cleanup kills it).
os_lock_open() {
    mkfifo "$tmp/lock.fifo"
    case $1 in
    pg) pg_session <"$tmp/lock.fifo" >"$tmp/lock.out" 2>&1 & ;;
    maria) maria_session <"$tmp/lock.fifo" >"$tmp/lock.out" 2>&1 & ;;
    esac
    lockpid=$!
    exec 3>"$tmp/lock.fifo"
}

# os_lock_close: closes fd 3, so the third session ends, and waits for it.
# Empties lockpid.
os_lock_close() {
    exec 3>&-
    wait "$lockpid" 2>/dev/null
    lockpid=
}

# os_lock_set NAME LOCK UNLOCK HELD WAITING: the lock of os_paused_proc:
# NAME says which in the tests' names ("advisory lock 36036"), LOCK and
# UNLOCK are the statements the third session takes and releases it with,
# HELD and WAITING the queries that return true (t or 1) once it holds it
# and once another session waits for it.  Sets os_lock_name, os_lock,
# os_unlock, os_held and os_waiting.
os_lock_set() {
    os_lock_name=$1
    os_lock=$2
    os_unlock=$3
    os_held=$4
    os_waiting=$5
}

# os_paused_proc LABEL KIND SECS ARGS...: procedure mode held inside the
# function: the third session (os_lock_open) takes the lock of os_lock_set
# (a failure if it does not hold it within 10 s), the probe runs with ARGS
# and --c of the target's customer (os_target KIND), the test that the
# function waits for the lock within SECS s, the second session's Delivery
# (os_deliver), then the lock is released.  os_finish judges the outcome.
# Sets os_o, os_c and bgpid.
os_paused_proc() {
    _l=$1
    _k=$2
    _secs=$3
    shift 3
    os_target "$_k"
    echo "$os_lock" >&3
    db_wait 10 "$_k" "$os_held" || fail "$_l: a third session holds $os_lock_name"
    os_probe_bg "$_l" "$@" --c "$os_c"
    if db_wait "$_secs" "$_k" "$os_waiting"; then
        pass "$_l: tpcc_order_status waits for the lock, after reading order $os_o (customer $os_c)"
    else
        fail "$_l: tpcc_order_status waits for the lock" "$(cat "$tmp/$_l.err")"
    fi
    os_deliver "$_l" "$_k"
    echo "$os_unlock" >&3
}
