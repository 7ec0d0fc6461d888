#!/bin/bash
# fresh-check.sh - the README's two commands on a fresh Debian 12, as a new
# user's machine has them: a minimal bookworm (debootstrap minbase plus gcc,
# make, git, libc6-dev, ca-certificates, procps, and nothing else) with a copy
# of the committed tree (git archive HEAD), then `make demo` and `make test`
# inside it under chroot.  Each must install what it needs by itself.
#
#   scripts/fresh-check.sh [demo|test|both]    as root, from the checkout
#
# The bare base is built once and kept in $FRESH_BASE (default
# /var/tmp/tpccbench-fresh-base, outside the clone, so later runs skip it);
# every call works in a new copy of it ($FRESH_RUN), so every call starts
# from nothing.  DEMO_DURATION (default 10s) shortens the demo's run;
# FRESH_TESTS (default: all) names the test files `make test` runs there
# (its TESTS; the unit tests run all the same).  The whole logs go to
# $FRESH_LOGS; the last lines of each command are printed.
# Exit 0 when both commands exited 0, 1 when one failed, 2 on bad usage.
set -u
what=${1:-both}
case "$what" in demo | test | both) ;; *)
    echo "fresh-check: unknown argument '$what' (demo, test or both)" >&2
    exit 2
    ;;
esac
base=${FRESH_BASE:-/var/tmp/tpccbench-fresh-base}
run=${FRESH_RUN:-/var/tmp/tpccbench-fresh-run}
logs=${FRESH_LOGS:-/var/tmp/tpccbench-fresh-logs}
demo_duration=${DEMO_DURATION:-10s}
# shellcheck disable=SC2086 # one space between names
fresh_tests=$(echo ${FRESH_TESTS:-})
case "$fresh_tests" in *[!0-9a-z_\ -]*)
    echo "fresh-check: FRESH_TESTS holds '$fresh_tests': test names only (0030-run 0047-lazyfs)" >&2
    exit 2
    ;;
esac
[ "$(id -u)" = 0 ] || {
    echo "fresh-check: run as root (debootstrap and chroot need it)" >&2
    exit 2
}
top=$(git rev-parse --show-toplevel 2>/dev/null) || {
    echo "fresh-check: run inside the project's git checkout" >&2
    exit 2
}
mkdir -p "$logs"
t_all=$SECONDS

# The machine's own Debian mirror, so the chroot reaches the same registry.
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
if [ ! -f "$base/.tpccbench-base-ok" ]; then
    echo "fresh-check: building the bare base in $base (once; a few minutes)"
    t0=$SECONDS
    command -v debootstrap >/dev/null || {
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
    } >"$logs/debootstrap-install.log" 2>&1
    rm -rf "$base"
    debootstrap --variant=minbase bookworm "$base" ${mirror:+"$mirror"} >"$logs/debootstrap.log" 2>&1 || {
        echo "fresh-check: debootstrap failed, see $logs/debootstrap.log" >&2
        exit 1
    }
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        cp /etc/apt/sources.list.d/debian.sources "$base/etc/apt/sources.list.d/"
        rm -f "$base/etc/apt/sources.list"
    fi
    cp /etc/resolv.conf "$base/etc/" 2>/dev/null
    mount -t proc proc "$base/proc"
    chroot "$base" bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends make gcc libc6-dev git ca-certificates procps' >"$logs/base.log" 2>&1
    umount "$base/proc"
    [ -x "$base/usr/bin/make" ] || {
        echo "fresh-check: could not prepare the base, see $logs/base.log" >&2
        exit 1
    }
    touch "$base/.tpccbench-base-ok"
    echo "fresh-check: base built in $((SECONDS - t0)) s"
fi

# The copy is bind-mounted on itself, so the chroot's / is a mount point as
# a machine's is: `ip netns exec` (tests/t/0097-parts-netns.sh) makes / a
# slave mount and fails on a plain directory.  `ip netns add` bind-mounts
# the chroot's /run/netns on itself and leaves it; the last umount -l takes
# it and every other mount below with it, so nothing stops the rm -rf.
undo() {
    for m in run/netns dev/shm dev/pts dev sys proc; do umount -l "$run/$m" 2>/dev/null; done
    mountpoint -q "$run" 2>/dev/null && umount -l "$run"
}
undo
rm -rf "$run"
cp -a "$base" "$run"
# A fresh machine has an empty package list until its first apt-get update.
rm -rf "$run"/var/lib/apt/lists/*_Packages "$run"/var/cache/apt/*.bin
mount --bind "$run" "$run"
mount -t proc proc "$run/proc"
mount --bind /sys "$run/sys"
mount --bind /dev "$run/dev"
mount --bind /dev/pts "$run/dev/pts"
mount -t tmpfs shm "$run/dev/shm"
trap 'undo; rm -rf "$run"' EXIT
mkdir -p "$run/root/project"
(cd "$top" && git archive HEAD) | tar -x -C "$run/root/project"
echo "fresh-check: $(cd "$top" && git rev-parse --short HEAD) in a fresh bookworm ($run)"

rc=0
for cmd in demo test; do
    [ "$what" = both ] || [ "$what" = "$cmd" ] || continue
    t0=$SECONDS
    args=$cmd
    [ "$cmd" = test ] && [ -n "$fresh_tests" ] && args="test TESTS=\"$fresh_tests\""
    # env -i: nothing of this machine's environment leaks into the new one.
    chroot "$run" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 DEMO_DURATION="$demo_duration" \
        bash -c "cd /root/project && make $args" >"$logs/$cmd.log" 2>&1
    r=$?
    echo "=== fresh Debian 12: make $args: exit $r after $((SECONDS - t0)) s (log: $logs/$cmd.log)"
    if [ "$cmd" = test ] && grep -q '^=== time per test file' "$logs/$cmd.log"; then
        # The slowest files, then prove's summary (make test prints both last).
        awk '/^=== time per test file/ { p = 1; n = 0 } p && n++ < 16' "$logs/$cmd.log"
        tail -n 4 "$logs/$cmd.log"
    else
        tail -n 12 "$logs/$cmd.log"
    fi
    [ $r = 0 ] || rc=1
done
echo "fresh-check: $((SECONDS - t_all)) s in all, exit $rc"
exit $rc
