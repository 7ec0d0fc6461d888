#!/bin/sh
# After a sanitizer test run: print every report the sanitizers wrote to
# DIR (ASAN_OPTIONS/UBSAN_OPTIONS/TSAN_OPTIONS log_path, set by the Makefile)
# and exit 1 if there is any, 0 if there is none.  A report counts even when
# the test that ran the process did not look at its exit status.
#   scripts/san-check.sh DIR
set -eu
dir=${1:?usage: scripts/san-check.sh DIR}
n=0
for f in "$dir"/*; do
    [ -f "$f" ] || continue
    # LSan writes an empty file when every leak was suppressed.
    [ -s "$f" ] || continue
    n=$((n + 1))
    echo "=== sanitizer report $f" >&2
    cat "$f" >&2
done
if [ "$n" -gt 0 ]; then
    echo "san-check: $n sanitizer report(s) in $dir" >&2
    exit 1
fi
echo "san-check: no sanitizer report"
