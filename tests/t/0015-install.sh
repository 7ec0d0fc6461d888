#!/bin/sh
# 0015-install.sh - `make install` and `make uninstall` as a C tool's: install
# the binary under test into a temp DESTDIR with PREFIX=/usr, run the
# installed copy from an empty folder (--version, version, --help, a load
# through the null driver, which needs no server), lint the installed man
# page (mandoc -T lint and groff -ww: no warning), check that it names every
# command, every option of every command's --help and every config key, then
# uninstall and check both files are gone and nothing else is.  The commit
# --version prints comes from scripts/commit.sh: checked in a `git archive`
# copy (no .git) and in an archive unpacked inside another repository.
# Prints TAP; removes its temp directory, pass or fail.  A few seconds.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0015

dest=$tmp/dest
bin=$dest/usr/bin/tpccbench
man=$dest/usr/share/man/man1/tpccbench.1
# make's own jobserver flags must not reach this make (prove runs under make test).
unset MAKEFLAGS MFLAGS MAKELEVEL

# --- install ---------------------------------------------------------------
# INSTALL_BIN: install the binary under test as it is; nothing is built.
run install make -s -C "$root" install DESTDIR="$dest" PREFIX=/usr INSTALL_BIN="$TPCC_BIN"
is "$rc" 0 "make install DESTDIR=... PREFIX=/usr exits 0" || explain
ok "$([ -f "$bin" ] && [ -x "$bin" ]; echo $?)" "installs bin/tpccbench, executable"
ok "$([ -f "$man" ]; echo $?)" "installs share/man/man1/tpccbench.1"
is "$(stat -c %a "$bin" 2>/dev/null) $(stat -c %a "$man" 2>/dev/null)" "755 644" \
    "modes: binary 755, man page 644"
ok "$(cmp -s "$TPCC_BIN" "$bin"; echo $?)" "the installed binary is the binary under test"
ok "$(cmp -s "$root/docs/tpccbench.1" "$man"; echo $?)" "the installed page is docs/tpccbench.1"
is "$(cd "$dest" && find . -type f | sort | tr '\n' ' ')" \
    "./usr/bin/tpccbench ./usr/share/man/man1/tpccbench.1 " "installs those two files and nothing else"
# The default prefix, without building or installing anything (make -n).
run dryrun make -s -n -C "$root" install DESTDIR="$tmp/d2" INSTALL_BIN="$TPCC_BIN"
like "$out" "*$tmp/d2/usr/local/bin/tpccbench*$tmp/d2/usr/local/share/man/man1/tpccbench.1*" \
    "PREFIX defaults to /usr/local" || explain

# --- the installed binary, away from the source tree -------------------------
mkdir "$tmp/cwd" || bail_out "mkdir failed"
cd "$tmp/cwd" || bail_out "cd failed"
run version "$bin" --version
is "$rc" 0 "tpccbench --version exits 0" || explain
like "$out" "tpccbench 0.1.0 (commit *)" "--version prints the version and the commit"
commit=${out#*commit }
commit=${commit%)}
case $commit in
unknown | *[!0-9a-f]* | '') fail "--version names a commit (hex)" "got: '$commit'" ;;
*) pass "--version names a commit (hex): $commit" ;;
esac
run version2 "$bin" version
is "$out" "tpccbench 0.1.0 (commit $commit)" "tpccbench version prints the same" || explain
run help "$bin" --help
is "$rc" 0 "tpccbench --help exits 0" || explain
like "$out" "usage: tpccbench COMMAND*" "--help prints the usage"
like "$out" "*  version *" "--help lists version"
run load "$bin" load --driver null --managed false --results-dir "$tmp/results" --label inst
is "$rc" 0 "the installed binary loads through the null driver (no server)" || explain
recf=$(ls "$tmp/results/"*-inst/run.json 2>/dev/null)
ok "$([ -n "$recf" ]; echo $?)" "the load wrote its record"
like "$(cat "$recf" 2>/dev/null)" "*\"commit\": \"$commit\"*\"status\": \"complete\"*" \
    "the record holds the commit --version prints, status complete"
is "$(ls -A "$tmp/cwd")" "" "nothing written to the current folder"

# --- the man page ------------------------------------------------------------
if command -v mandoc >/dev/null 2>&1; then
    mandoc -T lint -W warning "$man" >"$tmp/lint" 2>&1
    lrc=$?
    is "$lrc $(cat "$tmp/lint")" "0 " "mandoc -T lint: no warning or error" || diag "$(cat "$tmp/lint")"
    # Style notes too, except the lookup of .Xr pages, which depends on what is installed here.
    mandoc -T lint -W style "$man" 2>&1 | grep -v -e 'mandoc.db' -e 'referenced manual not found' >"$tmp/style"
    is "$(cat "$tmp/style")" "" "mandoc -T lint -W style: no style note"
    mandoc -T ascii "$man" 2>/dev/null | sed 's/.\x08//g' >"$tmp/page.txt"
else
    fail "mandoc -T lint" "mandoc is not installed: sh scripts/deps.sh test"
    : >"$tmp/page.txt"
fi
if command -v groff >/dev/null 2>&1; then
    groff -mandoc -ww -z "$man" >"$tmp/groff" 2>&1
    grc=$?
    is "$grc $(cat "$tmp/groff")" "0 " "groff -mandoc -ww -z: no warning" || diag "$(cat "$tmp/groff")"
else
    fail "groff -ww" "groff is not installed: sh scripts/deps.sh test"
fi
like "$(head -n 3 "$tmp/page.txt")" "TPCCBENCH(1)*" "the page renders as TPCCBENCH(1)"

# Everything --help names is in the page: commands, and each command's options.
cmds=$(sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' "$tmp/help.out")
ok "$([ "$(echo "$cmds" | wc -w)" -ge 11 ]; echo $?)" "--help lists the commands ($(echo $cmds))"
missing=
for c in $cmds; do
    grep -qw -e "$c" "$tmp/page.txt" || missing="$missing $c"
done
is "$missing" "" "the page names every command"
missing=
nopts=0
for c in $cmds; do
    [ "$c" = version ] && continue
    "$bin" "$c" --help >"$tmp/h" 2>&1 </dev/null || missing="$missing $c:(--help failed)"
    # Option lines start with blanks and a dash: "  -j, --jobs X", "  -b SIZE", "      --json".
    for o in $(grep -E '^ +-' "$tmp/h" | grep -oE '(^| |,)--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u); do
        nopts=$((nopts + 1))
        grep -qF -e "$o" "$tmp/page.txt" || missing="$missing $c:$o"
    done
done
ok "$([ "$nopts" -gt 100 ]; echo $?)" "the commands' --help list their options ($nopts)"
is "$missing" "" "the page holds every option of every command's --help"
# Every key of the config key table (src/core/config.c), by its last part under its section.
keys=$(sed -n 's/^ *\(KEY(\|{ \)"\([a-z_.]*\)", *K_.*/\2/p' "$root/src/core/config.c")
ok "$([ "$(echo "$keys" | wc -w)" -gt 30 ]; echo $?)" "the key table has its keys ($(echo "$keys" | wc -w))"
missing=
for k in $keys; do
    grep -qw -e "${k##*.}" "$tmp/page.txt" || missing="$missing $k"
done
is "$missing" "" "the page holds every config key"
for s in "EXIT STATUS" ENVIRONMENT FILES EXAMPLES CONFIGURATION; do
    grep -q "^$s" "$tmp/page.txt" || missing="$missing $s"
done
for f in run.json series.csv delivery.log password_env TPCC_BIN 130; do
    grep -qF -e "$f" "$tmp/page.txt" || missing="$missing $f"
done
is "$missing" "" "the page has exit codes, environment, files and examples"
cd "$root" || bail_out "cd failed"

# --- uninstall ---------------------------------------------------------------
echo keep >"$dest/usr/bin/other-tool"
run uninstall make -s -C "$root" uninstall DESTDIR="$dest" PREFIX=/usr
is "$rc" 0 "make uninstall exits 0" || explain
ok "$([ ! -e "$bin" ] && [ ! -e "$man" ]; echo $?)" "make uninstall removes both files"
ok "$([ -f "$dest/usr/bin/other-tool" ]; echo $?)" "and nothing else"
run uninstall2 make -s -C "$root" uninstall DESTDIR="$dest" PREFIX=/usr
is "$rc" 0 "make uninstall again (nothing to remove) exits 0" || explain

# --- the commit without .git ---------------------------------------------------
if command -v git >/dev/null 2>&1 && git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    full=$(git -C "$root" rev-parse HEAD)
    mkdir "$tmp/arch" && git -C "$root" archive HEAD | tar -x -C "$tmp/arch"
    got=$(sh "$tmp/arch/scripts/commit.sh")
    case $got in
    ????*[!0-9a-f]* | '' | ? | ?? | ???) fail "a git archive tree (no .git) knows its commit" "got: '$got'" ;;
    *)
        case $full in
        "$got"*) pass "a git archive tree (no .git) knows its commit: $got" ;;
        *) fail "a git archive tree (no .git) knows its commit" "got: '$got'" "HEAD: $full" ;;
        esac
        ;;
    esac
    # Inside another repository, an archive whose .commit was not filled in says
    # "unknown" rather than the outer repository's commit.
    mkdir -p "$tmp/outer/inner/scripts" && cp "$root/scripts/commit.sh" "$tmp/outer/inner/scripts/" &&
        printf '%s\n' '$Format:%h$' >"$tmp/outer/inner/.commit" &&
        git -C "$tmp/outer" init -q && git -C "$tmp/outer" add . &&
        git -C "$tmp/outer" -c user.name=t -c user.email=t@t commit -q -m outer
    is "$(sh "$tmp/outer/inner/scripts/commit.sh")" unknown \
        "inside another repository the commit is unknown, not the outer one's"
else
    skip "not a git checkout: the archive checks need git"
    skip "not a git checkout: the archive checks need git"
fi

done_testing
