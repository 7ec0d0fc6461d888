#!/bin/sh
# test-times.sh - the time each test file took, slowest first, from the log
# of `prove --timer` (make test), then prove's own closing lines again.
#   scripts/test-times.sh PROVE_LOG
set -eu
log=$1
echo "=== time per test file, slowest first (wall; prove -j runs several at once)"
sed -n -E 's/^\[[0-9:]+\] ([^ ]+) \.+ ?(ok|[A-Za-z].*)? +([0-9]+) ms.*/\3 \1/p' "$log" |
    sort -rn | awk '{ printf "%8.1f s  %s\n", $1 / 1000, $2 }'
grep -E '^(Files=|Result:)' "$log" || true
