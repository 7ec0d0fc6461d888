#!/bin/sh
# 0099-image.sh - the Dockerfile built into an image with podman
# (scripts/image.sh: a debootstrap minbase imported as debian:bookworm-slim,
# then podman build --isolation=chroot --pull=never), and the image's
# tpccbench run against a PostgreSQL on this host (tests/lib/pg.sh, on
# 127.0.0.1):
#
#  1. the image builds; its config says user 10001:10001, entrypoint
#     tpccbench, working directory /home/tpccbench;
#  2. its `tpccbench --version` prints what the binary under test prints
#     (same version, same commit: the build got this tree's);
#  3. its `tpccbench load` loads 1 warehouse, and its `tpccbench run`
#     (5 s, no warm-up) completes: run.json written by uid 10001, status
#     complete, New-Orders committed by the client = counted in the database
#     by tpccbench = the growth of sum(d_next_o_id) that psql sees here, > 0.
#
# How the image's binary is started: `podman run --network host` when podman
# can start a container here.  Where it cannot (crun refused by the
# sandbox: cgroups, setrlimit), a skip says so with podman's error, and every
# later test says that it ran the image's filesystem through a chroot
# instead: `podman image mount`, then in a private mount namespace /proc,
# /sys, /dev, a tmpfs /tmp and the work folder on /home/tpccbench (as
# `podman run -v` would), and chroot --userspec=10001:10001, the image's
# user.  The chroot shares the host's network, as --network host does.
#
# The whole file is skipped, saying why, where podman cannot build an image:
# not root, podman or debootstrap missing, `podman info` failing, or a tiny
# image that cannot be imported and mounted (a chroot without the kernel's
# overlay, say).  Prints TAP; removes its image, server and temp directory,
# pass or fail.  The first call on a machine makes the base (debootstrap,
# about 2.5 min) and the build stage's packages (about 3 min); later ones
# rebuild from the make step (about 40 s), and the whole file takes about a
# minute.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

# skip_all WHY: the whole file skipped ("1..0 # SKIP WHY", exit 0).
skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}
[ "$(id -u)" = 0 ] || skip_all "not root: podman build --isolation=chroot and podman image mount need root"
for p in podman debootstrap unshare; do
    command -v $p >/dev/null 2>&1 || skip_all "$p is not installed (make deps-image installs podman and debootstrap)"
done

t_begin t0099 pg
image=tpccbench-t0099:$$
probe=tpccbench-t0099-probe:$$
mnt=''
# The image and the probe, unmounted and removed on the way out (the
# layers the build cached stay, so the next build is quick).
rm_image() {
    [ -z "$mnt" ] || podman image unmount "$image" >/dev/null 2>&1
    podman rmi -f "$image" "$probe" >/dev/null 2>&1
}
t_extra_cleanup=rm_image

# Can podman store and mount an image here at all?  A one-file image.
podman info >"$tmp/info.out" 2>&1 || skip_all "podman info fails: $(grep -m 1 -i error "$tmp/info.out")"
mkdir "$tmp/probe" && echo probe >"$tmp/probe/probe"
tar -C "$tmp/probe" -cf "$tmp/probe.tar" probe &&
    podman import "$tmp/probe.tar" "$probe" >"$tmp/probe.out" 2>&1 &&
    pmnt=$(podman image mount "$probe" 2>>"$tmp/probe.out") &&
    [ "$(cat "$pmnt/probe" 2>>"$tmp/probe.out")" = probe ] ||
    skip_all "podman cannot import and mount an image here: $(grep -m 1 -i error "$tmp/probe.out")"
podman image unmount "$probe" >/dev/null 2>&1
podman rmi -f "$probe" >/dev/null 2>&1

# --- 1. the build ------------------------------------------------------------------
t0=$(date +%s)
# The first call on a machine makes the base too: minutes, not a hang.
RUN_TIMEOUT=1800 IMAGE_LOG=$tmp/build.log run build sh "$root/scripts/image.sh" "$image"
is "$rc $out" "0 $image" "scripts/image.sh builds the Dockerfile with podman ($(($(date +%s) - t0)) s)" || {
    explain
    diag "the build's last lines:" "$(tail -n 30 "$tmp/build.log")"
    bail_out "no image to run"
}
is "$(podman image inspect --format '{{.Config.User}} {{.Config.Entrypoint}} {{.Config.WorkingDir}}' "$image")" \
    "10001:10001 [tpccbench] /home/tpccbench" "the image: user 10001:10001, entrypoint tpccbench, in /home/tpccbench"

# --- 2. how to start it, and --version -------------------------------------------------
work=$tmp/work
mkdir -p "$work/results" && chown -R 10001:10001 "$work"
run prun podman run --rm --network host "$image" --version
if [ "$rc" = 0 ]; then
    how="podman run"
    pass "podman run starts the image"
else
    how="the image's filesystem by chroot (podman run cannot start a container here)"
    skip "podman run cannot start a container here ($(printf '%s\n' "$err" | grep -m 1 -i error)): the image's filesystem is run by chroot instead"
    mnt=$(podman image mount "$image" 2>"$tmp/mount.err")
    [ -n "$mnt" ] && [ -x "$mnt/usr/local/bin/tpccbench" ] ||
        bail_out "podman image mount $image: $(cat "$tmp/mount.err")"
fi

# in_image NAME ARGS...: the image's `tpccbench ARGS` (in /home/tpccbench, the
# work folder; the password in TPCC_TEST_PASSWORD) as `run NAME` runs a command.
in_image() {
    _n=$1
    shift
    if [ -z "$mnt" ]; then
        run "$_n" podman run --rm --network host -v "$work:/home/tpccbench" -e TPCC_TEST_PASSWORD "$image" "$@"
        return
    fi
    # shellcheck disable=SC2016
    run "$_n" unshare --mount --propagation private sh -c '
        m=$1 w=$2
        shift 2
        mount -t proc proc "$m/proc" && mount --bind /sys "$m/sys" && mount --bind /dev "$m/dev" &&
            mount -t tmpfs tmpfs "$m/tmp" && mount --bind "$w" "$m/home/tpccbench" || exit 125
        exec chroot --userspec=10001:10001 "$m" env -i -C /home/tpccbench HOME=/home/tpccbench \
            PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C TPCC_TEST_PASSWORD="$TPCC_TEST_PASSWORD" tpccbench "$@"
    ' sh "$mnt" "$work" "$@"
}

in_image version --version
is "$rc $out" "0 $("$bin" --version)" "tpccbench --version from $how: this tree's version and commit" || explain

# --- 3. load and run against a PostgreSQL on this host --------------------------------------
t_pg_up
pass "pg_start: PostgreSQL on 127.0.0.1:$PG_TEST_PORT"
cat >"$work/tpcc.yaml" <<EOF
database: {driver: postgres, managed: false, conninfo: "$PG_TEST_CONNINFO", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: 1}
results: {dir: results}
EOF
chown 10001:10001 "$work/tpcc.yaml"
in_image load load -c tpcc.yaml --label load
is "$rc" 0 "tpccbench load -w 1 from $how" || {
    explain
    bail_out "no data to run on"
}
is "$(pg_psql 'select count(*) from warehouse')" 1 "the database holds the image's 1 warehouse"

s0=$(pg_psql 'select sum(d_next_o_id) from district')
in_image run run -c tpcc.yaml --duration 5s --warmup 0s --vus 2 --label image
is "$rc" 0 "tpccbench run --duration 5s from $how: exit 0" || explain
s1=$(pg_psql 'select sum(d_next_o_id) from district')
case "$s0$s1" in '' | *[!0-9]*) growth=-1 ;; *) growth=$((s1 - s0)) ;; esac
j=$(rec_json image "$work/results")
is "$(stat -c %u "$j" 2>&1)" 10001 "the run's record: $(basename "$(dirname "$j")")/run.json, written by uid 10001"
jcheck "$j" "
run = rec.get('run', {})
no = run.get('transactions', {}).get('new_order', {}).get('count')
n_client, n_db = run.get('new_orders_client'), run.get('new_orders_db')
check(rec.get('status') == 'complete', 'run.json: status complete', 'got: %r' % rec.get('status'))
check((run.get('notpm') or 0) > 0, 'run.json: notpm %r > 0' % run.get('notpm'))
check(n_client == n_db == no == $growth and no > 0,
      'New-Orders: client = tpccbench\\'s database count = d_next_o_id growth seen here (%r)' % no,
      'client %r, db %r, new_order.count %r, d_next_o_id growth %d' % (n_client, n_db, no, $growth))
"
note "0099-image: $(($(date +%s) - t_start)) s in all"

done_testing
