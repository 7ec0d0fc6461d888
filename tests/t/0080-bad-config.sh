#!/bin/sh
# 0080-bad-config.sh - malformed and hostile config files: each of
# tests/data/bad-config/*.yaml (syntax errors, aliases and alias bombs, tags,
# deep nesting, NUL bytes, bad UTF-8 and BOMs, several documents, wrong types
# and out-of-range values for every key, unknown keys...) plus a few huge ones
# made here (10 MB, 1 MB values, 1 MB of '[') goes through the config loader
# with 'tpccbench load -c FILE stop-here'.  The config is read and checked
# before the stray argument is, so nothing connects or starts, and a file that
# loads shows up as "unexpected argument 'stop-here'".  Each must end within
# 10 s, exit 2 (not a crash), and print on stderr exactly the line that
# tests/data/bad-config.tsv gives for it, naming the file.  Then the valid
# configs (tests/data/config/ok-null.yaml and config/*.yaml) must still load.
# Prints TAP; removes its temp directory, pass or fail.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

corpus=$root/tests/data/bad-config
table=$root/tests/data/bad-config.tsv
[ -r "$table" ] || bail_out "$table is missing"
command -v timeout >/dev/null 2>&1 || bail_out "timeout (coreutils) is missing"
t_begin t0080
t_copy_bin

# check DIR FILE WANT [loads]: run the loader on DIR/FILE (from DIR, so the message names
# FILE as given) and compare with WANT, the whole of stderr, which must name FILE unless
# the file is valid (loads).  Shell builtins only around the
# one run: hundreds of cases must stay fast on a busy machine.
check() {
    cd "$1" || bail_out "cd $1 failed"
    timeout -k 2 10 "$bin" load -c "$2" stop-here >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    err='' extra=''
    { IFS= read -r err; IFS= read -r extra; } <"$tmp/err"
    case $rc in
    2) pass "$2: exit 2" ;;
    124 | 137) fail "$2: exit 2" "no answer within 10 s (a hang or a runaway)" ;;
    *) fail "$2: exit 2" "exit $rc$([ "$rc" -ge 128 ] && echo " (killed by signal $((rc - 128)))")" "stderr: $err" ;;
    esac
    if [ -n "$extra" ]; then
        fail "$2: stderr is one line" "got:" "$err" "$extra"
    elif [ "${4:-}" = loads ]; then
        is "$err" "$3" "$2: stderr is exactly the message"
    else
        case $err in
        "tpccbench load: $2"*) is "$err" "$3" "$2: stderr names the file and says what is wrong" ;;
        *) fail "$2: stderr names the file and says what is wrong" "got:      '$err'" "expected: '$3'" ;;
        esac
    fi
    if [ -s "$tmp/out" ]; then fail "$2: stdout is empty" "got: $(cat "$tmp/out")"; else pass "$2: stdout is empty"; fi
}

# --- the committed corpus, against the table ---
tab=$(printf '\t')
nrows=0
while IFS=$tab read -r file msg <&3; do
    case $file in '#'* | '') continue ;; esac
    nrows=$((nrows + 1))
    if [ -f "$corpus/$file" ]; then
        check "$corpus" "$file" "tpccbench load: $msg"
    else
        fail "$file: in the table but not in $corpus"
    fi
done 3<"$table"
nfiles=0
for f in "$corpus"/*.yaml; do nfiles=$((nfiles + 1)); done
is "$nrows" "$nfiles" "every file of tests/data/bad-config has a row in the table ($nfiles files)"
ok "$([ "$nfiles" -ge 200 ]; echo $?)" "the corpus holds at least 200 files"
missing=$(cd "$corpus" && for f in *.yaml; do grep -q "^$f$tab" "$table" || echo "$f"; done)
is "$missing" "" "no file lacks a row"

# --- huge files, made here rather than committed ---
big=$tmp/big
mkdir "$big" || bail_out "mkdir failed"
# N bytes of character C.
fill() { head -c "$1" /dev/zero | tr '\0' "$2"; }
{ printf 'results:\n  label: '; fill 10485760 x; printf '\n'; } >"$big/string-10mb.yaml"
fill 1048577 '#' >"$big/one-byte-too-many.yaml"
{ printf 'results:\n  label: '; fill 1000000 x; printf '\n'; } >"$big/label-1mb.yaml"
{ printf 'results:\n  change: "'; fill 1000000 y; printf '"\n'; } >"$big/quoted-1mb.yaml"
{ printf 'schema:\n  warehouses: '; fill 1000000 9; printf '\n'; } >"$big/number-1mb.yaml"
{ printf 'load:\n  seed: '; fill 100000 0; printf '1x\n'; } >"$big/number-trailing.yaml"
fill 1048576 '[' >"$big/flow-seq-1mb.yaml"
fill 1048000 '{' >"$big/flow-map-1mb.yaml"
awk 'BEGIN { for (i = 0; i < 1000; i++) { s = ""; for (j = 0; j < i; j++) s = s " "; print s "k" i ":" } }' \
    >"$big/block-1000-levels.yaml"
awk 'BEGIN { print "x:"; for (i = 0; i < 250000; i++) print "- 1" }' >"$big/items-250000.yaml"
awk 'BEGIN { for (i = 0; i < 500000; i++) print "#" }' >"$big/comments-500000.yaml"
awk 'BEGIN { printf "results:\n  change: w\n"; for (i = 0; i < 100000; i++) print "   word" }' \
    >"$big/plain-100000-lines.yaml"
awk 'BEGIN { printf "lol: &a [x]\n"; for (i = 0; i < 60; i++) printf "l%d: &a [*a, *a, *a, *a]\n", i }' \
    >"$big/alias-bomb-60.yaml"
long=$(fill 200 n).yaml
printf 'schema:\n  warehouses: -3\n' >"$big/$long"

check "$big" string-10mb.yaml \
    "tpccbench load: string-10mb.yaml: the config file is larger than 1048576 bytes; is this the right file?"
check "$big" one-byte-too-many.yaml \
    "tpccbench load: one-byte-too-many.yaml: the config file is larger than 1048576 bytes; is this the right file?"
check "$big" label-1mb.yaml \
    "tpccbench load: label-1mb.yaml:2:10: 'results.label' must be at most 255 bytes long (got 1000000)"
check "$big" quoted-1mb.yaml \
    "tpccbench load: quoted-1mb.yaml:2:11: 'results.change' must be at most 255 bytes long (got 1000000)"
check "$big" number-1mb.yaml \
    "tpccbench load: number-1mb.yaml:2:15: 'schema.warehouses' must be an integer from 1 to 100000 (got \"$(fill 64 9)...\")"
check "$big" number-trailing.yaml \
    "tpccbench load: number-trailing.yaml:2:9: 'load.seed' must be an integer from 0 to 4611686018427387904 (got \"$(fill 64 0)...\")"
check "$big" flow-seq-1mb.yaml "tpccbench load: flow-seq-1mb.yaml:1:33: the config nests deeper than 32 levels"
check "$big" flow-map-1mb.yaml "tpccbench load: flow-map-1mb.yaml:1:33: the config nests deeper than 32 levels"
check "$big" block-1000-levels.yaml \
    "tpccbench load: block-1000-levels.yaml:33:33: the config nests deeper than 32 levels"
check "$big" items-250000.yaml \
    "tpccbench load: items-250000.yaml:9999:3: the config holds more than 10000 keys and values; is this the right file?"
check "$big" comments-500000.yaml \
    "tpccbench load: comments-500000.yaml: the config file is empty (expected a mapping with database, schema, load, run, acid, results)"
check "$big" plain-100000-lines.yaml \
    "tpccbench load: plain-100000-lines.yaml:2:11: 'results.change' must be at most 255 bytes long (got 500001)"
check "$big" alias-bomb-60.yaml \
    "tpccbench load: alias-bomb-60.yaml:2:9: YAML aliases such as '*a' are not supported; write the value out in full"
check "$big" "$long" "tpccbench load: $long:2:15: 'schema.warehouses' must be an integer from 1 to 100000 (got \"-3\")"

# --- the control: valid configs still load (and fail only at the stray argument) ---
for f in "$root"/tests/data/config/ok-null.yaml "$root"/config/*.yaml; do
    check "$(dirname "$f")" "$(basename "$f")" "tpccbench load: unexpected argument 'stop-here'" loads
done

done_testing
