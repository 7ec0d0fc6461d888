#!/bin/sh
# layers.sh - check that each folder of src/ includes only the folders
# docs/ARCHITECTURE.md allows it, and that those rules have no cycle.
#   scripts/layers.sh [ARCHITECTURE.md [SRC_DIR]]
# The rules are the lines of its "## Layers" section that read
# "    FOLDER: OTHER OTHER ..." ("(nothing of ours)" for none).  Every
# #include "X/..." in src/FOLDER/*.[ch] (and in src/main.c, folder main.c)
# must name FOLDER itself or one of its OTHERs.  Prints each break as
# "file:line: FOLDER includes X/... (allowed: ...)"; exit 1 on any.
set -eu
doc=${1:-docs/ARCHITECTURE.md}
src=${2:-src}
rules=$(awk '/^## /{ on = ($0 == "## Layers") } on && /^    [a-z_.]+:/ { sub(/^    /, ""); print }' "$doc")
if [ -z "$rules" ]; then
    echo "layers.sh: $doc has no '## Layers' section with '    FOLDER: ...' lines" >&2
    exit 2
fi
bad=0
# A cycle: repeatedly drop folders that depend on nothing left; what stays is a cycle.
left=$(printf '%s\n' "$rules" | sed 's/(nothing of ours)//')
while :; do
    leaves=$(printf '%s\n' "$left" | awk -F': *' 'NF && ($2 == "" || $2 ~ /^ *$/) { print $1 }')
    [ -n "$leaves" ] || break
    for l in $leaves; do
        left=$(printf '%s\n' "$left" | awk -F': *' -v l="$l" '$1 != l {
            n = split($2, d, / +/); s = ""
            for (i = 1; i <= n; i++) if (d[i] != l && d[i] != "") s = s " " d[i]
            print $1 ":" s }')
    done
done
if [ -n "$(printf '%s' "$left" | tr -d '\n ')" ]; then
    echo "layers.sh: the rules of $doc have a cycle among: $(printf '%s\n' "$left" | cut -d: -f1 | tr '\n' ' ')"
    bad=1
fi
for f in $(find "$src" -name '*.[ch]' | sort); do
    rel=${f#"$src"/}
    case $rel in
        */*) folder=${rel%%/*} ;;
        *) folder=$rel ;;
    esac
    allowed=$(printf '%s\n' "$rules" | awk -F': *' -v d="$folder" '$1 == d { print $2 }')
    if ! printf '%s\n' "$rules" | grep -q "^$folder:"; then
        echo "$f: folder '$folder' has no rule in $doc (## Layers)"
        bad=1
        continue
    fi
    out=$(awk -v folder="$folder" -v allowed="$allowed" '
        BEGIN { n = split(allowed, a, / +/); for (i = 1; i <= n; i++) ok[a[i]] = 1; ok[folder] = 1 }
        /^#include "[a-z_]+\// {
            x = $0; sub(/^#include "/, "", x); dir = x; sub(/\/.*/, "", dir); sub(/".*/, "", x)
            if (!(dir in ok)) printf "%s:%d: %s includes %s (allowed: %s)\n", FILENAME, FNR, folder, x, allowed
        }' "$f")
    if [ -n "$out" ]; then
        printf '%s\n' "$out"
        bad=1
    fi
done
[ "$bad" = 0 ] && echo "layers: every include of $src/ follows $doc"
exit "$bad"
