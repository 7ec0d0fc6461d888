#!/bin/bash
# bench/acid.sh - what the durability test costs (issue 40, docs/acid.md):
#  1. NOTPM of the same run on the private PostgreSQL with its data
#     directory on tpccbench-lazyfs (the power-loss file system) against
#     the plain directory, in one sitting: W=1, VUS virtual users,
#     DURATION, REPEAT rounds of plain then lazyfs.  The mount point's
#     path is long, so the server's socket goes to /tmp (a socket on FUSE
#     is not what is measured).
#  2. A crash cycle's time: `acid --tests durability --crash kill|power`
#     at W=1 and W=BIG_W (10), a 10 s window, the crash at 5 s: the
#     command's wall time after the crash instant (crash, restart and
#     recovery, the look-ups, the 12 conditions), and recovery_s from the
#     record (the crash to the first connection, to the first New-Order).
# Needs root, /dev/fuse, fusermount3 and ./tpccbench-lazyfs (make).  Prints
# figures.  Not part of `make test`.
# Environment: VUS (4), DURATION (20s), REPEAT (2), BIG_W (10).
. "$(dirname "$0")/lib.sh"
VUS=${VUS:-4}
DURATION=${DURATION:-20s}
REPEAT=${REPEAT:-2}
BIG_W=${BIG_W:-10}
make -s tpccbench-lazyfs
bench_begin benchacid
mnt=$work/lazyfs-mount-point-with-a-long-name-so-that-the-server-socket-is-not-on-fuse-0123456789
lzpid=
lz_down() {
    if [ -n "$lzpid" ]; then
        fusermount3 -u "$mnt" 2>/dev/null || true
        wait "$lzpid" 2>/dev/null || true
        lzpid=
    fi
}
bench_extra_cleanup=lz_down
bench_load 1
pg_stop_datadir "$work/pgdata"
mkdir -m 755 "$mnt"

# notpm LABEL: run.notpm of the newest record labelled LABEL.
notpm() {
    python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["run"]["notpm"]))' \
        "$(ls -t "$work"/results/*-"$1"/run.json | head -1)"
}

echo "NOTPM, W=1, $VUS VUs, $DURATION, warmup 5s, $REPEAT rounds (plain then lazyfs):"
for i in $(seq "$REPEAT"); do
    ./tpccbench run --results-dir "$work/results" --datadir "$work/pgdata" --vus "$VUS" \
        --warmup 5s --duration "$DURATION" --label plain >"$work/plain.out" 2>&1
    ./tpccbench-lazyfs "$work/pgdata" "$mnt" --foreground 2>"$work/lazyfs.log" &
    lzpid=$!
    for _t in $(seq 100); do grep -q " $mnt fuse.lazyfs " /proc/mounts && break; sleep 0.1; done
    ./tpccbench run --results-dir "$work/results" --datadir "$mnt" --vus "$VUS" \
        --warmup 5s --duration "$DURATION" --label lazyfs >"$work/lazyfs.out" 2>&1
    lz_down
    printf '  round %d: plain %s, lazyfs %s\n' "$i" "$(notpm plain)" "$(notpm lazyfs)"
done

# cycle W KIND: one durability test, its figures.
cycle() {
    _t0=$(date +%s.%N)
    ./tpccbench acid --results-dir "$work/results" --datadir "$work/pgdata" --label "dur-$1-$2" \
        --tests durability --crash "$2" --duration 10s --crash-at 5s --vus "$VUS" \
        >"$work/acid.out" 2>&1 || true
    _t1=$(date +%s.%N)
    python3 - "$(ls -t "$work"/results/*-"dur-$1-$2"/run.json | head -1)" "$_t0" "$_t1" "$1" "$2" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))["acid"]["durability"]
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
r = d["recovery_s"] or {}
print("  W=%-3s %-5s wall %5.1f s, after the crash %5.1f s; recovery: connection %s s, "
      "New-Order %s s; %d acknowledged, %d lost" % (
          sys.argv[4], sys.argv[5], t1 - t0, t1 - t0 - d["crash_at_s"],
          "%.1f" % r["connection"] if r else "-",
          "%.1f" % r["new_order"] if r.get("new_order") is not None else "-",
          d["acknowledged"], d["lost"]))
EOP
}

echo "crash cycles: acid --tests durability, 10 s window, crash at 5 s, $VUS terminals:"
cycle 1 kill
cycle 1 power
rm -rf "$work/pgdata"
_l0=$(date +%s)
bench_load "$BIG_W"
pg_stop_datadir "$work/pgdata"
echo "  (W=$BIG_W loaded in $(($(date +%s) - _l0)) s)"
cycle "$BIG_W" kill
cycle "$BIG_W" power
