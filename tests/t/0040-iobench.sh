#!/bin/sh
# 0040-iobench.sh - `tpccbench iobench` end to end on small files in a temp
# directory: option errors (exit 2 + message), every test type with 1 and 3
# threads (exact byte and I/O counts, thread totals summing to -s, the file
# size), O_DIRECT (a 1000-byte block refused; a real run where the
# filesystem supports it), -k keeps and the default removes, an existing file
# is not written without -f, no space is refused, -o writes the same report,
# the slow-disk warning follows its rule, Ctrl-C exits 130 and removes the
# file.  As root with loop devices: a block device is not written without -f,
# a formatted one not without --destroy-data, a mounted one is refused.
# Prints TAP; removes its temp directory and loop device, pass or fail.
# A few seconds.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0040
t_copy_bin
busypid=
loop=
mnt=
ddir=
# After t_cleanup killed $bgpid: only what this script started or made, by
# its pid or name.
io_cleanup() {
    if [ -n "$busypid" ]; then
        kill -KILL "$busypid" 2>/dev/null
        wait "$busypid" 2>/dev/null
    fi
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
    [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
    [ -n "$ddir" ] && rm -rf "$ddir"
}
t_extra_cleanup=io_cleanup
if command -v timeout >/dev/null 2>&1; then to="timeout -k 5 60"; else to=; fi

# run ARGS...: tpccbench iobench ARGS in $tmp/cwd; sets rc, out, err.
mkdir "$tmp/cwd" "$tmp/w" || bail_out "mkdir failed"
run() {
    # shellcheck disable=SC2086
    (cd "$tmp/cwd" && exec $to "$bin" iobench "$@") >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}
explain() {
    diag "exit $rc; stdout:" "$out" "stderr:" "$err"
}
files_in() {
    ls -A "$1" | wc -l | tr -d ' '
}
# size FILE: its size in bytes.
size() {
    wc -c <"$1" | tr -d ' '
}
# summary: per test of the JSON report in $tmp/out, "TYPE bytes ios threadsum nthreads".
summary() {
    awk '
        /^      "type": / { t = $2; gsub(/[",]/, "", t) }
        /^      "bytes": / { b = $2; sub(/,/, "", b) }
        /^      "ios": / { n = $2; sub(/,/, "", n) }
        /^          "bytes": / { v = $2; sub(/,/, "", v); s += v; k++ }
        /^    },?$/ { print t, b, n, s, k; s = 0; k = 0 }
    ' "$tmp/out"
}

# --- option errors: arguments -> exit 2 and the message, nothing else ---
tab=$(printf '\t')
while IFS=$tab read -r args msg; do
    [ -z "$args" ] && continue
    set -f
    # shellcheck disable=SC2086
    run $args
    set +f
    is "$rc" 2 "iobench $args: exit 2" || explain
    is "$err" "tpccbench iobench: $msg" "iobench $args: the message"
    is "$out" "" "iobench $args: nothing on stdout"
done <<EOF
-b 0	'-b' must be a block size from 1 byte to 64M, like 512, 4K, 8K or 1M (got "0")
-b 12Q	'-b' must be a block size from 1 byte to 64M, like 512, 4K, 8K or 1M (got "12Q")
-s -5	'-s' must be a total size from 1 byte to 1P, like 256M or 1G (got "-5")
-s 1000 -b 512	'-s' 1000 (1000 bytes) must be a multiple of the block size '-b' 512 (512 bytes)
-F O_FOO	'-F' must be one of O_DIRECT, O_SYNC, O_DSYNC, O_TRUNC, O_NONBLOCK (got "O_FOO")
-i XX	'-i' must be SW, SR, RR, RW, SEQ, RND or ALL, or a comma list of them (got "XX")
-T 0	'-T' must be a number of threads from 1 to 256 (got "0")
-T 1000	'-T' must be a number of threads from 1 to 256 (got "1000")
-S abc	'-S' must be a random seed from 0 to 18446744073709551615 (got "abc")
-q	unknown option '-q' (see 'tpccbench iobench --help')
--fast	unknown option '--fast' (see 'tpccbench iobench --help')
-T	option '-T' needs a value (see 'tpccbench iobench --help')
-o nodir/x	'-o' nodir/x: cannot write in 'nodir': No such file or directory
EOF
is "$(files_in "$tmp/cwd")" 0 "option errors created no file"

run --help
is "$rc" 0 "--help: exit 0"
like "$out" "usage: tpccbench iobench *" "--help: usage on stdout"
like "$out" "*pick block-aligned offsets uniformly over the whole -s area*" "--help: states the random semantics"
like "$out" "*--destroy-data*" "--help: names --destroy-data"
is "$err" "" "--help: nothing on stderr"

# --- every type, 1 and 3 threads: exact counts ---
for T in 1 3; do
    run -t "$tmp/w/all$T" -s 4M -b 4K -T "$T" -i ALL -k --json -S 7
    is "$rc" 0 "-i ALL -T $T: exit 0" || explain
    is "$(summary)" "SW 4194304 1024 4194304 $T
SR 4194304 1024 4194304 $T
RW 4194304 1024 4194304 $T
RR 4194304 1024 4194304 $T" "-i ALL -T $T: each test moved 4M in 1024 I/Os, threads sum to 4M"
    is "$(size "$tmp/w/all$T")" 4194304 "-i ALL -T $T -k: the file has 4M"
    like "$out" '*"status": "complete"*' "-i ALL -T $T: status complete"
done
rm -f "$tmp/w/"*

# Each type alone on a new file (read types and RW fill it first, untimed).
for ty in SW SR RW RR; do
    run -t "$tmp/w" -s 1M -b 4K -T 3 -i $ty --json
    is "$rc" 0 "-i $ty alone: exit 0" || explain
    is "$(summary)" "$ty 1048576 256 1048576 3" "-i $ty alone: 1M in 256 I/Os over 3 threads"
    is "$(files_in "$tmp/w")" 0 "-i $ty alone: the file it created is removed"
done

# The text report: header and the tbiobench table.
run -s 1M -b 8K -T 2 -i SEQ -S 99
is "$rc" 0 "text report: exit 0" || explain
like "$out" "*Target       : iobench-??????.tmp (file created by this run, removed at the end)*" "header: target"
like "$out" "*Block size   : 8K (8192 bytes)*Total size   : 1M (1048576 bytes)*Open flags   : O_SYNC*Threads      : 2*Random seed  : 99*" "header: block, total, flags, threads, seed"
like "$out" "*?SW? sequential write*Thread#           ms       Mbytes   Mbytes/sec*      0 *      1 *  Total *1.00 *IOPS *p50 *p99 *max *?SR? sequential read*" "tables with thread rows and a Total row"
is "$(files_in "$tmp/cwd")" 0 "default target in the current directory: removed"

# --- -k keeps, the default removes ---
run -t "$tmp/w/gone" -s 64K -b 4K -i SW
is "$rc" 0 "-t new file: exit 0" || explain
ok "$([ ! -e "$tmp/w/gone" ]; echo $?)" "-t new file: removed at the end"
run -t "$tmp/w/kept" -s 64K -b 4K -i SW -k
is "$rc" 0 "-k: exit 0" || explain
is "$(size "$tmp/w/kept" 2>/dev/null)" 65536 "-k: the file is kept with 64K"

# --- an existing file we did not create ---
printf 'precious data\n' >"$tmp/w/precious"
dd if=/dev/zero bs=1024 count=64 2>/dev/null | tr '\0' 'x' >>"$tmp/w/precious"
cp "$tmp/w/precious" "$tmp/precious.orig"
run -t "$tmp/w/precious" -s 64K -b 4K -i SW
is "$rc" 2 "existing file without -f: exit 2" || explain
is "$err" "tpccbench iobench: '$tmp/w/precious' exists and tpccbench did not create it: iobench would overwrite it; give -f to allow that" "existing file without -f: the message"
ok "$(cmp -s "$tmp/w/precious" "$tmp/precious.orig"; echo $?)" "existing file without -f: unchanged"
run -t "$tmp/w/precious" -s 64K -b 4K -i SR,RR
is "$rc" 0 "existing full file, read tests only, no -f: exit 0" || explain
ok "$(cmp -s "$tmp/w/precious" "$tmp/precious.orig"; echo $?)" "read tests: the file is unchanged"
run -t "$tmp/w/precious" -s 64K -b 4K -i SW -f
is "$rc" 0 "existing file with -f: exit 0" || explain
ok "$([ -f "$tmp/w/precious" ]; echo $?)" "existing file with -f: not removed afterwards"
like "$out" "*(existing file, kept)*" "existing file with -f: the header says so"
rm -f "$tmp/w/"*

# -f re-creates a file that cannot be opened for writing (a running program: ETXTBSY).
cp "$(command -v sleep)" "$tmp/w/busy" || bail_out "copying sleep failed"
"$tmp/w/busy" 30 &
busypid=$!
sleep 0.2
run -t "$tmp/w/busy" -s 64K -b 4K -i SW -f
is "$rc" 0 "-f on a file that cannot be opened: exit 0 (re-created)" || explain
is "$(size "$tmp/w/busy")" 65536 "-f re-created it with 64K and kept it"
kill "$busypid" 2>/dev/null
wait "$busypid" 2>/dev/null
busypid=
rm -f "$tmp/w/"*

# --- free space ---
run -t "$tmp/w" -s 1P -b 1M -i SW
is "$rc" 2 "-s 1P: exit 2" || explain
like "$err" "tpccbench iobench: not enough free space for '*': '-s' 1P needs 1.0P more and the filesystem has * free; give a smaller -s or a target elsewhere (-t)" "-s 1P: refused before writing"
is "$(files_in "$tmp/w")" 0 "-s 1P: nothing left behind"

# --- -o writes the same report, atomically ---
run -s 256K -b 4K -i SW -o "$tmp/report.txt"
is "$rc" 0 "-o: exit 0" || explain
ok "$(cmp -s "$tmp/out" "$tmp/report.txt"; echo $?)" "-o: the file holds the report printed"
run -s 256K -b 4K -i RR --json -o "$tmp/report.json"
is "$rc" 0 "-o --json: exit 0" || explain
ok "$(cmp -s "$tmp/out" "$tmp/report.json"; echo $?)" "-o --json: the file holds the JSON printed"
is "$(ls -A "$tmp" | grep -c '^\.report')" 0 "-o: no temp file left"

# --- the slow-disk warning: present exactly for write tests under 10 Mbytes/sec ---
run -s 128K -b 512 -i SW,RW,SR
is "$rc" 0 "512-byte O_SYNC writes: exit 0" || explain
verdict=$(printf '%s\n' "$out" | awk '
    /^\[/ { t = substr($1, 2, 2); warned[t] = 0 }
    /^  Total / { rate[t] = $4 }
    /^warning: / { warned[substr($2, 1, 2)] = 1 }
    END {
        for (t in rate) {
            want = (t == "SW" || t == "RW") && rate[t] < 10
            if (want != warned[t]) print t " " rate[t] " warned=" warned[t]
        }
    }')
is "$verdict" "" "a warning line iff a write test ran under 10 Mbytes/sec"

# --- O_DIRECT: on a filesystem that supports it ---
for d in "$tmp" "$root/build"; do
    mkdir -p "$d" 2>/dev/null
    probe=$(mktemp "$d/tpcc-t0040-probe.XXXXXX" 2>/dev/null) || continue
    if dd if=/dev/zero of="$probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
        rm -f "$probe"
        ddir=$(mktemp -d "$d/tpcc-t0040-direct.XXXXXX") || ddir=
        [ -n "$ddir" ] && break
    fi
    rm -f "$probe"
done
if [ -n "$ddir" ]; then
    run -t "$ddir" -F O_DIRECT -b 1000 -s 1000000 -k
    is "$rc" 2 "O_DIRECT -b 1000: exit 2" || explain
    like "$err" "tpccbench iobench: O_DIRECT needs '-b' to be a multiple of * bytes, the direct I/O alignment of '$ddir/iobench-??????.tmp' (from *): -b 1000 is not" "O_DIRECT -b 1000: the message"
    is "$(files_in "$ddir")" 0 "O_DIRECT -b 1000: the file it created is removed, -k or not"
    run -t "$ddir" -F O_DIRECT -F O_SYNC -s 2M -b 4K -T 2 -i ALL --json
    is "$rc" 0 "O_DIRECT|O_SYNC -i ALL -T 2: exit 0" || explain
    is "$(summary)" "SW 2097152 512 2097152 2
SR 2097152 512 2097152 2
RW 2097152 512 2097152 2
RR 2097152 512 2097152 2" "O_DIRECT: exact counts"
    like "$out" '*"direct_align": {*"bytes": *' "O_DIRECT: the alignment is reported"
else
    skip "no directory here supports O_DIRECT (tmpfs?): O_DIRECT -b 1000"
    skip "no directory here supports O_DIRECT: O_DIRECT message"
    skip "no directory here supports O_DIRECT: O_DIRECT cleanup"
    skip "no directory here supports O_DIRECT: O_DIRECT run"
    skip "no directory here supports O_DIRECT: O_DIRECT counts"
    skip "no directory here supports O_DIRECT: O_DIRECT alignment"
    # Where it is not supported, the refusal must say so.
    run -t "$tmp/w" -F O_DIRECT -s 64K -b 4K
    is "$rc" 2 "O_DIRECT on a filesystem without it: exit 2" || explain
    like "$err" "*does not support O_DIRECT*" "O_DIRECT unsupported: a clear message"
fi

# --- Ctrl-C: exit 130 and the file removed ---
mkdir "$tmp/intr"
(cd "$tmp/cwd" && exec "$bin" iobench -t "$tmp/intr" -s 256M -b 512 -i ALL) >"$tmp/intr.out" 2>"$tmp/intr.err" </dev/null &
bgpid=$!
n=0
while [ "$(files_in "$tmp/intr")" = 0 ] && [ $n -lt 100 ]; do
    sleep 0.05
    n=$((n + 1))
done
sleep 0.2
kill -INT "$bgpid"
bg_reap intr
is "$rc" 130 "SIGINT: exit 130" || explain
like "$err" "*tpccbench iobench: interrupted: the file it created was removed*" "SIGINT: says so"
is "$(files_in "$tmp/intr")" 0 "SIGINT: the file it created is removed"

# --- block devices (root, loop devices) ---
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null 2>&1 && command -v mkfs.ext4 >/dev/null 2>&1 &&
    truncate -s 16M "$tmp/disk.img" && mkfs.ext4 -q -F "$tmp/disk.img" >/dev/null 2>&1 &&
    loop=$(losetup -f --show "$tmp/disk.img" 2>/dev/null) && [ -b "$loop" ]; then
    run -t "$loop" -s 1M -b 4K -i SW
    is "$rc" 2 "device without -f: exit 2" || explain
    is "$err" "tpccbench iobench: '$loop' is a block device and tpccbench did not create it: writing it destroys the data on it; give -f if that is what you want" "device without -f: the message"
    run -t "$loop" -s 1M -b 4K -i SR,RR --json
    is "$rc" 0 "device, read tests only, no -f: exit 0" || explain
    like "$out" '*"kind": "block device"*' "device: reported as a block device"
    run -t "$loop" -s 1M -b 4K -i SW -f
    is "$rc" 2 "ext4 device with -f: exit 2" || explain
    is "$err" "tpccbench iobench: '$loop' carries an ext2/ext3/ext4 filesystem: writing it would destroy the data on it; add --destroy-data (with -f) only if that is what you want" "ext4 device with -f: the message"
    mnt=$tmp/mnt
    mkdir "$mnt"
    if mount "$loop" "$mnt" 2>/dev/null; then
        run -t "$loop" -s 1M -b 4K -i SW -f
        is "$rc" 2 "mounted device with -f: exit 2" || explain
        like "$err" "tpccbench iobench: '$loop' is mounted on $mnt: writing it would destroy the data on it; add --destroy-data*" "mounted device: the message names the mount point"
        umount "$mnt"
    else
        skip "mount of a loop device failed here: mounted device exit"
        skip "mount of a loop device failed here: mounted device message"
    fi
    mnt=
    run -t "$loop" -s 32M -b 4K -i SR
    is "$rc" 2 "-s larger than the device: exit 2" || explain
    like "$err" "*'-s' 32M is larger than the device '$loop' (16.0M)*" "-s larger than the device: the message"
    run -t "$loop" -b 1000 -i SR -F O_DIRECT -s 1000000
    is "$rc" 2 "device O_DIRECT -b 1000: exit 2" || explain
    like "$err" "*O_DIRECT needs '-b' to be a multiple of * bytes*(from BLKSSZGET): -b 1000 is not" "device O_DIRECT -b 1000: the message"
    run -t "$loop" -s 1M -b 4K -i ALL -f --destroy-data -S 1 --json
    is "$rc" 0 "ext4 device with -f --destroy-data: exit 0" || explain
    is "$(summary)" "SW 1048576 256 1048576 1
SR 1048576 256 1048576 1
RW 1048576 256 1048576 1
RR 1048576 256 1048576 1" "device: exact counts"
    run -t "$loop" -s 1M -b 4K -i SW -f
    is "$rc" 0 "a device only iobench wrote: -f is enough" || explain
    ok "$([ -b "$loop" ]; echo $?)" "the device is still there"
else
    n=0
    while [ $n -lt 16 ]; do
        skip "needs root, losetup, mkfs.ext4 and a free loop device"
        n=$((n + 1))
    done
fi

done_testing
