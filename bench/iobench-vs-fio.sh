#!/bin/bash
# bench/iobench-vs-fio.sh - `tpccbench iobench` against fio on the same file
# with the same jobs: 8K blocks over 256M, O_DIRECT + O_SYNC, pread/pwrite
# (fio's psync engine), each of SW, SR, RR, RW with 1 and 4 threads; prints
# the Mbytes/sec (2^20 bytes) of each tool and the ratio tpccbench / fio.
# Target: every ratio within 0.9 - 1.1.
#
# The jobs match in what they do: sequential jobs split the file into one
# contiguous share per thread (fio: size + offset_increment), random jobs
# draw block-aligned offsets uniformly over the whole file with repeats
# (fio: norandommap) and split the I/O count (fio: io_size), from a new seed
# each run (tpccbench: no -S; fio: randrepeat=0), so neither tool re-reads
# the blocks its previous run warmed in a cache under the disk; both drop the
# file's cached pages before each job (fio: invalidate=1), both use threads.
# The file is laid out once, fully written, so no job measures allocation.
# Each pair runs REPS times back to back, the two tools alternating which goes
# first; the table shows the median Mbytes/sec of each and the median of the
# per-pair ratios (a pair shares the disk's state of the moment, which on a
# shared or virtual disk drifts by more than 10 % from minute to minute).
# Installs fio (apt-get) if it is missing.
# Not part of `make test`.
#
# Environment: DIR (a directory on the disk to measure; default build/; on
# tmpfs it measures memory copies, not a disk), SIZE (256M), BS (8K),
# THREADS ("1 4"), TYPES ("SW SR RR RW"), REPS (5).  Run it on a quiet
# machine: other I/O on the same disk moves single runs by 2x.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

SIZE=${SIZE:-256M}
BS=${BS:-8K}
THREADS=${THREADS:-1 4}
TYPES=${TYPES:-SW SR RR RW}
REPS=${REPS:-5}
DIR=${DIR:-$root/build}

if ! command -v fio >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        echo "iobench-vs-fio: fio is missing: apt-get install -y fio (as root)" >&2
        exit 2
    fi
    echo "installing fio" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq fio >&2 || { apt-get update -qq >&2 && apt-get install -y -qq fio >&2; }
fi
command -v python3 >/dev/null 2>&1 || { echo "iobench-vs-fio: python3 is needed to read the JSON" >&2; exit 2; }
make -s tpccbench

mkdir -p "$DIR"
work=$(mktemp -d "$DIR/iobench-vs-fio.XXXXXX")
trap 'rm -rf "$work"' EXIT
file=$work/bench.dat
# Run a copy: a `make` meanwhile must not swap the program between runs.
cp tpccbench "$work/tpccbench"
bin=$work/tpccbench

# Sizes in bytes for fio's per-thread shares.
to_bytes() {
    python3 -c 'import sys
s = sys.argv[1].upper(); m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))' "$1"
}
size_b=$(to_bytes "$SIZE")
bs_b=$(to_bytes "$BS")

# Lay the file out once, fully written (untimed for both tools).
"$bin" iobench -t "$file" -s "$SIZE" -b 1M -i SW -F O_DIRECT -k >/dev/null

# ours TYPE T -> Mbytes/sec
ours() {
    "$bin" iobench -t "$file" -f -k -s "$SIZE" -b "$BS" -F O_DIRECT -F O_SYNC -i "$1" -T "$2" \
        --json >"$work/ours.json"
    python3 -c 'import json, sys; print("%.2f" % json.load(open(sys.argv[1]))["tests"][0]["mbytes_per_sec"])' \
        "$work/ours.json"
}

# fio_run TYPE T -> Mbytes/sec
fio_run() {
    local rw share=$((size_b / $2)) dir
    case $1 in
    SW) rw=write dir=write ;;
    SR) rw=read dir=read ;;
    RW) rw=randwrite dir=write ;;
    RR) rw=randread dir=read ;;
    esac
    local place=(--size="$share" --offset_increment="$share")
    case $1 in RW | RR) place=(--size="$size_b" --io_size="$share" --norandommap --randrepeat=0) ;; esac
    fio --name=j --filename="$file" --rw="$rw" --bs="$bs_b" --direct=1 --sync=1 --ioengine=psync \
        --numjobs="$2" --thread --group_reporting --invalidate=1 --allow_file_create=0 \
        "${place[@]}" --output-format=json >"$work/fio.json"
    python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]
print("%.2f" % (j["bw_bytes"] / 1048576.0))' "$work/fio.json" "$dir"
}

median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

fs=$(df -T "$work" | awk 'NR == 2 { print $2 " on " $1 }')
echo "iobench vs fio: $SIZE in $BS blocks, O_DIRECT|O_SYNC, psync, $REPS runs each"
echo "file: $file ($fs); kernel $(uname -r); $(fio --version); tpccbench $("$bin" --version | awk '{ print $2 }')"
printf '%-4s %3s %16s %12s %7s   %s\n' type T "tpccbench MB/s" "fio MB/s" ratio \
    "(medians; ratio: median of the pairs' ratios)  runs: tpccbench / fio"
bad=0
for T in $THREADS; do
    for ty in $TYPES; do
        o=() f=() q=()
        for r in $(seq 1 "$REPS"); do
            if [ $((r % 2)) = 1 ]; then
                a=$(ours "$ty" "$T")
                b=$(fio_run "$ty" "$T")
            else
                b=$(fio_run "$ty" "$T")
                a=$(ours "$ty" "$T")
            fi
            o+=("$a") f+=("$b")
            q+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')")
        done
        mo=$(median "${o[@]}")
        mf=$(median "${f[@]}")
        ratio=$(median "${q[@]}")
        flag=$(awk -v x="$ratio" 'BEGIN { print (x >= 0.9 && x <= 1.1) ? "" : "  <- outside 0.9-1.1" }')
        [ -n "$flag" ] && bad=$((bad + 1))
        printf '%-4s %3s %16s %12s %7s   %s / %s%s\n' "$ty" "$T" "$mo" "$mf" "$ratio" \
            "${o[*]}" "${f[*]}" "$flag"
    done
done
echo "pairs outside 0.9-1.1: $bad"
