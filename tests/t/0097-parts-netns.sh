#!/bin/sh
# 0097-parts-netns.sh - the parts of a scale-out run on hosts of their own:
# each part in a network namespace (its own address, its own hostname through
# a UTS namespace), reaching the test PostgreSQL over a veth pair.  W=3, 3 parts.
#
#  0. Three namespaces t0097-PID-K, each with a veth pair to the host: a /30
#     of 10.231.0.0/16 chosen from the test's PID (host side .1, namespace
#     side .2), no other route.  The server listens on 127.0.0.1 and the three
#     host-side addresses; pg_hba lets in tpcc from the three namespace
#     addresses only (scram-sha-256).  The server sees each namespace's own
#     address; a namespace's loopback is not the host's.
#  1. A part killed: 3 parts of run 'kill', each in its namespace; while all
#     measure, every client backend is a part's, from its namespace's address;
#     part 2 (the one process in its namespace) gets SIGKILL 3 s into the
#     window.  Parts 1 and 3 exit 0, exactly one prints "merged 2 of 3 parts
#     ...; missing: part 2 (never reported)", and the merged record is partial,
#     2 reported, part 2 missing, the database count not compared.
#  2. A link cut: 3 parts of run 'cut' (--max-outage 5s); 2 s into the
#     window part 3's host-side veth goes down.  Part 3 ends on its own (exit
#     1, max_outage, its record "aborted"); parts 1 and 2 exit 0 and the merge
#     is partial, naming part 3.  The conninfo sets TCP keepalives and
#     tcp_user_timeout: without them a cut-off part's VUs and its meeting's
#     beat wait in PQgetResult for the kernel's TCP timeouts (minutes), and
#     it neither reaches max_outage nor closes its window.
# Needs root (namespaces, veths); without root it says so and skips; a root
# that cannot make a namespace fails.  Everything is removed in the cleanup.
# Prints TAP.  About 60 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0097 pg
if [ "$(id -u)" != 0 ]; then
    skip "not root: network namespaces and veth pairs need root (CI runs as root)"
    done_testing
fi
PATH=$PATH:/usr/sbin:/sbin
export PATH
if ! command -v ip >/dev/null 2>&1; then
    fail "ip (iproute2) is installed" "ip not found: install it with sh scripts/deps.sh test"
    done_testing
fi

# Names carry the PID; addresses come from it: namespace K's /30 is block
# (PID % 4096) * 4 + K of 10.231.0.0/16 (16384 blocks of 4 addresses).
ns_of() { echo "t0097-$$-$1"; }
vh_of() { echo "t97-$$h$1"; } # host side of the veth pair (at most 15 characters)
vn_of() { echo "t97-$$n$1"; } # namespace side
blk_of() { echo $(((($$ % 4096) * 4 + $1) * 4)); }
hostaddr_of() { _b=$(blk_of "$1"); echo "10.231.$((_b / 256)).$((_b % 256 + 1))"; }
nsaddr_of() { _b=$(blk_of "$1"); echo "10.231.$((_b / 256)).$((_b % 256 + 2))"; }
netaddr_of() { _b=$(blk_of "$1"); echo "10.231.$((_b / 256)).$((_b % 256))"; }

# The cleanup (t_cleanup, after the background parts are killed, before the
# server stops): every process left in our namespaces, our veths, our namespaces.
netns_cleanup() {
    for _k in 1 2 3; do
        _ns=$(ns_of "$_k")
        if ip netns list 2>/dev/null | grep -q "^$_ns\\b"; then
            for _p in $(ip netns pids "$_ns" 2>/dev/null); do kill -KILL "$_p" 2>/dev/null; done
        fi
        ip link del "$(vh_of "$_k")" 2>/dev/null
        ip netns list 2>/dev/null | grep -q "^$_ns\\b" && ip netns del "$_ns"
    done
    # `ip netns add` made /run/netns a mount point when it was none: undo that
    # once no namespace is left in it, so the test leaves the machine as it was.
    if [ "$netns_was_mount" = 0 ] && mountpoint -q /run/netns 2>/dev/null &&
        [ -z "$(ls -A /run/netns 2>/dev/null)" ]; then
        umount -l /run/netns 2>/dev/null
        [ "$netns_existed" = 1 ] || rmdir /run/netns 2>/dev/null
    fi
}
netns_existed=0
[ -d /run/netns ] && netns_existed=1
netns_was_mount=0
mountpoint -q /run/netns 2>/dev/null && netns_was_mount=1
t_extra_cleanup=netns_cleanup

# in_ns NS CMD...: CMD in namespace NS's network only.  nsenter, not `ip netns
# exec` or `ip -n`: those also remount /sys in a mount namespace of their own,
# which fails in a chroot whose / is not a mount point (a fresh-machine check).
in_ns() {
    _ns=$1
    shift
    nsenter --net="/run/netns/$_ns" "$@"
}

# 0. The namespaces.
setup_err=
for k in 1 2 3; do
    ns=$(ns_of $k) vh=$(vh_of $k) vn=$(vn_of $k) h=$(hostaddr_of $k) a=$(nsaddr_of $k)
    if ip -o -4 addr show | grep -q " inet \\($h\\|$a\\)/"; then
        setup_err="address $h or $a is in use already on this host: $(ip -o -4 addr show | grep " inet \\($h\\|$a\\)/")"
        break
    fi
    if ! ip netns add "$ns" 2>"$tmp/netns.err"; then
        setup_err="ip netns add $ns failed: $(cat "$tmp/netns.err") (network namespaces need CAP_SYS_ADMIN and a kernel with CONFIG_NET_NS)"
        break
    fi
    if ! { ip link add "$vh" type veth peer name "$vn" netns "$ns" &&
        ip addr add "$h/30" dev "$vh" && ip link set "$vh" up &&
        in_ns "$ns" ip addr add "$a/30" dev "$vn" && in_ns "$ns" ip link set "$vn" up &&
        in_ns "$ns" ip link set lo up; } 2>"$tmp/netns.err"; then
        setup_err="the veth pair of namespace $ns failed: $(cat "$tmp/netns.err") (needs veth support in the kernel)"
        break
    fi
    if ! in_ns "$ns" true 2>"$tmp/netns.err"; then
        setup_err="nsenter --net into $ns failed: $(cat "$tmp/netns.err")"
        break
    fi
done
if [ -n "$setup_err" ]; then
    fail "3 network namespaces with a veth pair each" "$setup_err"
    done_testing
fi
pass "3 network namespaces with a veth pair each ($(nsaddr_of 1), $(nsaddr_of 2), $(nsaddr_of 3))"
routes=$(in_ns "$(ns_of 2)" ip -4 route show | sed 's/ *$//')
is "$routes" "$(netaddr_of 2)/30 dev $(vn_of 2) proto kernel scope link src $(nsaddr_of 2)" \
    "namespace 2 has one route: its /30 to the host"

# The server: also on the host-side addresses, and the namespaces' addresses let in.
PG_TEST_CONF="listen_addresses = '127.0.0.1,$(hostaddr_of 1),$(hostaddr_of 2),$(hostaddr_of 3)'"
PG_TEST_HBA=
for k in 1 2 3; do
    PG_TEST_HBA="$PG_TEST_HBA
host tpcc tpcc $(nsaddr_of $k)/32 scram-sha-256"
done
t_pg 3

# ns_psql K CONNINFO SQL: psql inside namespace K (the password in the environment).
ns_psql() {
    PGPASSWORD=$TPCC_TEST_PASSWORD nsenter --net="/run/netns/$(ns_of "$1")" "$PG_TEST_BINDIR/psql" -X -q -tA \
        -v ON_ERROR_STOP=1 -d "$2" -c "$3"
}
for k in 1 2 3; do
    ci="host=$(hostaddr_of $k) port=$PG_TEST_PORT dbname=tpcc user=tpcc connect_timeout=10"
    seen=$(ns_psql $k "$ci" "SELECT host(inet_client_addr())" 2>"$tmp/ns_psql.err")
    is "$seen" "$(nsaddr_of $k)" "from namespace $k the server sees its address $(nsaddr_of $k)" ||
        diag "$(cat "$tmp/ns_psql.err")"
    cat >"$tmp/ns$k.yaml" <<CFGEOF
database: {driver: postgres, managed: false, password_env: TPCC_TEST_PASSWORD,
  conninfo: "host=$(hostaddr_of $k) port=$PG_TEST_PORT dbname=tpcc user=tpcc application_name=tpcc-ns$k keepalives_idle=1 keepalives_interval=1 keepalives_count=3 tcp_user_timeout=3000"}
schema: {warehouses: 3}
results: {dir: "$tmp/results"}
CFGEOF
done
ns_psql 1 "host=127.0.0.1 port=$PG_TEST_PORT dbname=tpcc user=tpcc connect_timeout=5" "SELECT 1" \
    >/dev/null 2>"$tmp/ns_psql.err"
like "$?:$(cat "$tmp/ns_psql.err")" "2:*127.0.0.1*Connection refused*" \
    "from namespace 1, 127.0.0.1 is the namespace's own loopback: no server there"

run load "$bin" load -c "$cfg" --label load
is "$rc" 0 "load W=3 from the host" || explain

# part K RUNID LABEL [options]: part K/3 in namespace K, its hostname t0097-hostK
# (a UTS namespace of its own); ip, unshare and sh exec in turn, so $! is
# tpccbench itself; its pid in pid_<LABEL><K> and $bgpid.
part() {
    _k=$1 _id=$2 _l=$3
    shift 3
    # nsenter itself, not in_ns: $! must be the part (nsenter execs it).
    nsenter --net="/run/netns/$(ns_of "$_k")" unshare --uts sh -c \
        'printf %s "$1" >/proc/sys/kernel/hostname && shift && exec "$@"' sh "t0097-host$_k" \
        "$bin" run -c "$tmp/ns$_k.yaml" --part "$_k/3" --run-id "$_id" --label "$_l" --vus 2 \
        --metrics false --warmup 1s --part-timeout 60s "$@" \
        >"$tmp/$_l.$_k.out" 2>"$tmp/$_l.$_k.err" </dev/null &
    bgpid="$bgpid $!"
    eval "pid_$_l$_k=$!"
}

# until_sql SECS SQL PID...: poll SQL (as tpcc, from the host) every 0.2 s
# until it prints t: 0; 1 after SECS s; 2 as soon as one of the PIDs ended.
until_sql() {
    _end=$(($(date +%s) + $1))
    _sql=$2
    shift 2
    while [ "$(date +%s)" -lt "$_end" ]; do
        for _p in "$@"; do alive "$_p" || return 2; done
        [ "$(pg_psql "$_sql" 2>/dev/null)" = t ] && return 0
        sleep 0.2
    done
    return 1
}

# reap PID SECS: wait up to SECS s for PID to end; its exit status in $st
# ("still running after SECS s" when it did not, and then it is killed).
reap() {
    if wait_gone "$1" "$2"; then
        wait "$1" 2>/dev/null
        st=$?
    else
        # Where it is stuck, for the failure's diag (gdb where it is installed).
        { for _t in /proc/"$1"/task/*; do
            echo "thread $(cat "$_t/comm") state $(cut -d' ' -f3 "$_t/stat") in $(cat "$_t/wchan")"
        done
          ! command -v gdb >/dev/null || gdb -batch -p "$1" -ex 'thread apply all bt 12' 2>&1 |
            grep -E '^(Thread|#)'; } >"$tmp/stuck.$1" 2>&1
        kill -KILL "$1" 2>/dev/null
        wait "$1" 2>/dev/null
        st="still running after $2 s"
    fi
}

# measuring RUNID: every part of RUNID measures (past the window's opening edge).
measuring() {
    echo "SELECT count(*) = 3 FROM tpcc_run_part WHERE run_id = '$1' AND part > 0 AND state = 'measuring'"
}

# 1. A part killed.
t_run=$(date +%s)
for k in 1 2 3; do part $k kill kill --duration 16s; done
until_sql 90 "$(measuring kill)" "$pid_kill1" "$pid_kill2" "$pid_kill3"
is "$?" 0 "run 'kill': the 3 parts meet and open the window" ||
    diag "$(tail -n 3 "$tmp"/kill.*.err)"
# Every client backend but ours is a part's, from its own namespace's address.
is "$(pg_psql "SELECT string_agg(DISTINCT c, ', ' ORDER BY c) FROM (
                 SELECT application_name || ' ' || coalesce(host(client_addr), 'local') AS c
                 FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()) x")" \
    "tpcc-ns1 $(nsaddr_of 1), tpcc-ns2 $(nsaddr_of 2), tpcc-ns3 $(nsaddr_of 3)" \
    "while they measure, the server's clients are the 3 parts, each from its namespace's address"
is "$(ip netns pids "$(ns_of 2)" | tr '\n' ' ')" "$pid_kill2 " "namespace 2 holds one process: part 2"
sleep 3
is "$(pg_psql "SELECT state FROM tpcc_run_part WHERE run_id = 'kill' AND part = 2")" measuring \
    "3 s later part 2 is still measuring"
kill -KILL $(ip netns pids "$(ns_of 2)")
reap "$pid_kill2" 10
is "$st" 137 "part 2 killed (SIGKILL) inside the window"
for k in 1 3; do
    eval "reap \$pid_kill$k 90"
    is "$st" 0 "part $k finishes: exit 0" || diag "$(tail -n 5 "$tmp/kill.$k.err")"
done
bgpid=
note "run 'kill': $(($(date +%s) - t_run)) s"
line="merged 2 of 3 parts of run 'kill'; missing: part 2 (never reported)"
merger=$(grep -lFx "$line" "$tmp/kill.1.out" "$tmp/kill.3.out")
is "$(echo "$merger" | grep -c .)" 1 "exactly one of parts 1 and 3 prints: $line" ||
    diag "$(cat "$tmp/kill.1.out" "$tmp/kill.3.out")"
mk=$(echo "$merger" | sed -n 's/.*kill\.\([0-9]\)\.out$/\1/p')
jcheck "$(rec kill)/run.json" "
run = rec['run']
check(rec.get('status') == 'partial', 'kill: the merged record is partial', rec.get('status'))
m = rec.get('merged', {})
check(m.get('reported') == 2 and m.get('parts') == 3 and m.get('missing') == 'part 2 (never reported)', 'kill: 2 of 3 reported, part 2 missing (never reported)', m)
check(m.get('by') == 'the last part to finish (${mk:-?}/3)', 'kill: merged by the part that printed it', m.get('by'))
parts = rec.get('parts', [])
check([p.get('k') for p in parts] == [1, 2, 3] and [p.get('missing') for p in parts] == [None, 'never reported', None], 'kill: parts 1 to 3, part 2 missing', parts)
check([p.get('host') for p in parts] == ['t0097-host1', 't0097-host2', 't0097-host3'], 'kill: each part registered from a host of its own', [p.get('host') for p in parts])
check([p.get('warehouses') for p in parts] == [[1, 1], [2, 2], [3, 3]], 'kill: one warehouse a part', [p.get('warehouses') for p in parts])
check('new_orders_db' in run and run['new_orders_db'] is None and run.get('db_count_note', '').startswith('not every part reported'), 'kill: the database count is not compared (not every part reported)', run.get('new_orders_db'), run.get('db_count_note'))
import glob
own = sorted((json.load(open(d + '/run.json')) for d in glob.glob('$tmp/results/*-kill-part[13]of3')), key=lambda o: o['part']['k'])
check([o['part']['host'] for o in own] == ['t0097-host1', 't0097-host3'] and [o['status'] for o in own] == ['complete', 'complete'], 'kill: parts 1 and 3 each left a complete record of their own, host t0097-host1 and t0097-host3', [(o['part'].get('host'), o['status']) for o in own])
check(run['transactions']['new_order']['count'] == sum(o['run']['transactions']['new_order']['count'] for o in own), 'kill: the merged New-Order count is parts 1 and 3 added', run['transactions']['new_order']['count'])
"

# 2. A link cut.
t_run=$(date +%s)
for k in 1 2 3; do part $k cut cut --duration 20s --max-outage 5s; done
until_sql 90 "$(measuring cut)" "$pid_cut1" "$pid_cut2" "$pid_cut3"
is "$?" 0 "run 'cut': the 3 parts meet and open the window" ||
    diag "$(tail -n 3 "$tmp"/cut.*.err)"
sleep 2
ip link set "$(vh_of 3)" down
is "$?" 0 "2 s into the window, namespace 3's link goes down"
t_cut=$(date +%s)
reap "$pid_cut3" 60
is "$st" 1 "part 3, cut off, ends on its own: exit 1" ||
    diag "$(tail -n 5 "$tmp/cut.3.err")" "$(cat "$tmp"/stuck.* 2>/dev/null | head -n 80)"
note "part 3 ended $(($(date +%s) - t_cut)) s after the cut"
like "$(cat "$tmp/cut.3.err")" "*the database was unreachable for more than 5 s (run.max_outage): run aborted*" \
    "part 3 says the database was unreachable for run.max_outage"
for k in 1 2; do
    eval "reap \$pid_cut$k 90"
    is "$st" 0 "part $k finishes: exit 0" || diag "$(tail -n 5 "$tmp/cut.$k.err")"
done
bgpid=
note "run 'cut': $(($(date +%s) - t_run)) s"
line="merged 2 of 3 parts of run 'cut'; missing: part 3 (never reported)"
is "$(grep -lFx "$line" "$tmp/cut.1.out" "$tmp/cut.2.out" | grep -c .)" 1 \
    "exactly one of parts 1 and 2 prints: $line" || diag "$(cat "$tmp/cut.1.out" "$tmp/cut.2.out")"
jcheck "$(rec cut)/run.json" "
run = rec['run']
check(rec.get('status') == 'partial', 'cut: the merged record is partial', rec.get('status'))
m = rec.get('merged', {})
check(m.get('reported') == 2 and m.get('missing') == 'part 3 (never reported)', 'cut: 2 of 3 reported, part 3 missing (never reported)', m)
check([p.get('missing') for p in rec.get('parts', [])] == [None, None, 'never reported'], 'cut: parts 1 and 2 in it, part 3 missing', rec.get('parts'))
check('new_orders_db' in run and run['new_orders_db'] is None and run.get('db_count_note', '').startswith('not every part reported'), 'cut: the database count is not compared', run.get('new_orders_db'), run.get('db_count_note'))
"
jcheck "$(rec cut-part3of3)/run.json" "
check(rec.get('status') == 'aborted' and rec['part'].get('host') == 't0097-host3', 'cut: part 3 left its own record, aborted', rec.get('status'), rec.get('part', {}).get('host'))
"

done_testing
