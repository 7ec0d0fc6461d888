#!/bin/sh
# 0002-house.sh - the house rules of docs/ARCHITECTURE.md, checked on src/:
# no function over 120 lines (scripts/fnlen.sh) and every #include within
# the folder's layer, with no cycle among the layers (scripts/layers.sh).
# Each check is also shown to fail on a small tree made to break it.
# Prints TAP; removes its temp directory.  Under a second.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"
t_begin t0002

# --- the real tree -----------------------------------------------------------
run fnlen sh "$root/scripts/fnlen.sh" "$root/src"
is "$rc" 0 "no function in src/ is over 120 lines" || explain
run layers sh "$root/scripts/layers.sh" "$root/docs/ARCHITECTURE.md" "$root/src"
is "$rc" 0 "every include in src/ follows the layers of docs/ARCHITECTURE.md" || explain

# --- a tree that breaks each rule --------------------------------------------
mkdir -p "$tmp/src/core" "$tmp/src/db"
{
    echo '/* a.c */'
    echo '#include "db/db.h"'
    echo 'int short_one(void)'
    echo '{'
    echo '    return 0;'
    echo '}'
    echo 'static int long_one(int a,'
    echo '                    int b)'
    echo '{'
    i=0
    while [ $i -lt 118 ]; do
        echo '    a++;'
        i=$((i + 1))
    done
    echo '    return a + b;'
    echo '}'
} >"$tmp/src/core/a.c"
printf '#include "core/a.h"\n' >"$tmp/src/db/db.h"
run fnlen sh "$root/scripts/fnlen.sh" "$tmp/src"
is "$rc" 1 "fnlen: a function of 123 lines fails" || explain
like "$out" "*src/core/a.c:7: long_one: 123 lines*" "fnlen: names it, where it starts and its length" ||
    explain
unlike "$out" "*short_one*" "fnlen: a short one is not listed"
run fnlen122 sh "$root/scripts/fnlen.sh" -n 123 "$tmp/src"
is "$rc" 0 "fnlen -n 123: 123 lines pass" || explain

printf '## Layers\n\n    core: (nothing of ours)\n    db: core\n\n## Next\n    x: y\n' >"$tmp/ok.md"
run layers sh "$root/scripts/layers.sh" "$tmp/ok.md" "$tmp/src"
is "$rc" 1 "layers: core/ including db/ fails" || explain
like "$out" "*src/core/a.c:2: core includes db/db.h (allowed: (nothing of ours))*" \
    "layers: names the file, line and include" || explain
printf '## Layers\n\n    core: db\n    db: core\n' >"$tmp/cycle.md"
run cycle sh "$root/scripts/layers.sh" "$tmp/cycle.md" "$tmp/src"
is "$rc" 1 "layers: rules with a cycle fail" || explain
like "$out" "*have a cycle among: core db*" "layers: names the folders of the cycle" || explain
rm "$tmp/src/core/a.c"
run clean sh "$root/scripts/layers.sh" "$tmp/ok.md" "$tmp/src"
is "$rc" 0 "layers: db/ including core/ passes" || explain
mkdir -p "$tmp/src/extra" && : >"$tmp/src/extra/x.c"
run norule sh "$root/scripts/layers.sh" "$tmp/ok.md" "$tmp/src"
is "$rc" 1 "layers: a folder without a rule fails" || explain
like "$out" "*folder 'extra' has no rule*" "layers: says which folder" || explain

done_testing
