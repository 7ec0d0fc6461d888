#!/bin/sh
# fnlen.sh - list every C function over a length, and fail if there is one.
#   scripts/fnlen.sh [-n LINES] [DIR]     (default: 120 lines, src/)
# A function's length runs from the first line of its signature (the last
# line at column 0 that starts with a name before the opening brace) to its
# closing brace: clang-format (our .clang-format, Linux braces) puts a
# function's braces, and only a function's, at column 0.  Prints
# "file:line: name: N lines" per offender, longest first; exit 1 if any.
set -eu
lim=120
if [ "${1:-}" = "-n" ]; then
    lim=$2
    shift 2
fi
dir=${1:-src}
out=$(find "$dir" -name '*.c' | sort | xargs awk -v lim="$lim" '
    FNR == 1 { start = 0 }
    /^[A-Za-z_]/ { sig = FNR; name = $0 }
    /^\{/ { start = sig; nm = name; next }
    /^\}/ && start {
        n = FNR - start + 1
        if (n > lim) {
            sub(/\(.*/, "", nm)
            k = split(nm, w, /[ *]+/)
            printf "%d %s:%d: %s: %d lines\n", n, FILENAME, start, w[k], n
        }
        start = 0
    }' | sort -rn | cut -d' ' -f2-)
if [ -n "$out" ]; then
    echo "functions over $lim lines (split them into named steps):"
    printf '%s\n' "$out"
    exit 1
fi
echo "no function in $dir over $lim lines"
