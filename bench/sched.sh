#!/bin/bash
# bench/sched.sh - the timer queue's cost per take + put at 10^4, 10^5 and
# 10^6 terminals (bench/sched.c), this tree against BASE (a git revision,
# default HEAD~1: the queue before the last change), pair by pair in one
# sitting so that both see the same machine.  Prints one line per N:
#   N  base_ns  this_ns  this/base
# (medians of REPS (5) pairs).  Not part of `make test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BASE=${BASE:-HEAD~1}
REPS=${REPS:-5}
OPS=${OPS:-2000000}
work=$(mktemp -d /tmp/tpcc-sched.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base"
git archive "$BASE" src | tar -x -C "$work/base"
build() { # src_dir out
    cc -O2 -D_GNU_SOURCE -I"$1" -o "$2" bench/sched.c "$1/run/sched.c" "$1/core/clock.c" -pthread
}
build "$work/base/src" "$work/sched-base"
build src "$work/sched-this"
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "N base_ns this_ns this/base (BASE=$BASE, medians of $REPS pairs, $OPS take+put each)"
for n in 10000 100000 1000000; do
    : >"$work/b" && : >"$work/t"
    for _ in $(seq "$REPS"); do
        "$work/sched-base" "$n" "$OPS" 2>/dev/null | awk '{print $2}' >>"$work/b"
        "$work/sched-this" "$n" "$OPS" 2>/dev/null | awk '{print $2}' >>"$work/t"
    done
    b=$(median <"$work/b")
    t=$(median <"$work/t")
    awk -v n="$n" -v b="$b" -v t="$t" 'BEGIN {printf "%d %.1f %.1f %.2f\n", n, b, t, t / b}'
done
