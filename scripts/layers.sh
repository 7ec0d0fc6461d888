#!/bin/sh
# layers.sh - check that each folder of src/ includes only the folders
# docs/ARCHITECTURE.md allows it, that those rules have no cycle, and that
# no modules include each other in a circle.
#   scripts/layers.sh [ARCHITECTURE.md [SRC_DIR]]
# The rules are the lines of its "## Layers" section that read
# "    FOLDER: OTHER OTHER ..." ("(nothing of ours)" for none).  Every
# #include "X/..." in src/FOLDER/*.[ch] (and in src/main.c, folder main.c)
# must name FOLDER itself or one of its OTHERs.  Prints each break as
# "file:line: FOLDER includes X/... (allowed: ...)"; exit 1 on any.
# A module is FOLDER/NAME: NAME.c with NAME.h, or a header alone (run_int.h);
# it depends on every module whose header its .c or .h includes.  A cycle
# of those (compare -> record -> history -> compare) is printed as
# "layers.sh: include cycle: A -> B -> A"; exit 1.
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
files=$(find "$src" -name '*.[ch]' | sort)
# Each folder (or top-level file) with a rule; an empty file counts too.
for folder in $(printf '%s\n' "$files" | sed "s|^$src/||; s|/.*||" | sort -u); do
    if ! printf '%s\n' "$rules" | grep -q "^$folder:"; then
        echo "$src/$folder: folder '$folder' has no rule in $doc (## Layers)"
        bad=1
    fi
done
# One awk over every file (a process a file was minutes under load): each
# include of another folder checked against the folder's rule ("P" lines),
# and the modules' include graph, "FROM TO" per include of another module's
# header ("E" lines).
scan=$(printf '%s\n' "$files" | xargs awk -v src="$src/" -v rules="$rules" '
    BEGIN {
        n = split(rules, r, "\n")
        for (i = 1; i <= n; i++) {
            k = index(r[i], ":")
            if (!k) continue
            d = substr(r[i], 1, k - 1); al = substr(r[i], k + 1); sub(/^ */, "", al)
            has[d] = 1; allowed[d] = al
        }
    }
    FNR == 1 {
        rel = substr(FILENAME, length(src) + 1)
        folder = rel; sub(/\/.*/, "", folder)
        mod = rel; sub(/\.[ch]$/, "", mod)
        split("", ok); m = split(allowed[folder], a, / +/)
        for (i = 1; i <= m; i++) ok[a[i]] = 1
        ok[folder] = 1
    }
    /^#include "[a-z_]+\// {
        x = $0; sub(/^#include "/, "", x); dir = x; sub(/\/.*/, "", dir); sub(/".*/, "", x)
        if ((folder in has) && !(dir in ok))
            printf "P %s:%d: %s includes %s (allowed: %s)\n", FILENAME, FNR, folder, x, allowed[folder]
    }
    /^#include "[a-z_]+\/[a-z_0-9]+\.h"/ {
        x = $0; sub(/^#include "/, "", x); sub(/\.h".*/, "", x)
        if (x != mod) print "E", mod, x
    }')
problems=$(printf '%s\n' "$scan" | sed -n 's/^P //p')
if [ -n "$problems" ]; then
    printf '%s\n' "$problems"
    bad=1
fi
edges=$(printf '%s\n' "$scan" | sed -n 's/^E //p' | sort -u)
cycle=$(printf '%s\n' "$edges" | awk '
    NF == 2 { n[$1]++; to[$1, n[$1]] = $2 }
    # Depth-first: a module met again while on the path closes a cycle.
    function dfs(v,    i, w) {
        state[v] = 1; path[++depth] = v
        for (i = 1; i <= n[v]; i++) {
            w = to[v, i]
            if (state[w] == 1) { found = w; return 1 }
            if (!state[w] && dfs(w)) return 1
        }
        state[v] = 2; depth--
        return 0
    }
    END {
        for (v in n) if (!state[v] && dfs(v)) {
            s = ""; on = 0
            for (i = 1; i <= depth; i++) { if (path[i] == found) on = 1; if (on) s = s path[i] " -> " }
            print s found
            exit
        }
    }')
if [ -n "$cycle" ]; then
    echo "layers.sh: include cycle: $cycle (a module is NAME.c with NAME.h, or a header alone:" \
        "move what the lower one needs into a header of its own)"
    bad=1
fi
[ "$bad" = 0 ] && echo "layers: every include of $src/ follows $doc"
exit "$bad"
