#!/bin/sh
# 0005-cli-errors.sh - every command-line and config error, table-driven:
# tests/data/cli-errors.tsv lists arguments -> exit code + message, and the
# config files it names live in tests/data/config.  Runs against the null
# driver (or fails before any connection): no server is needed and none is
# started.  Prints TAP; removes its temp directory, pass or fail.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"
# The binary under test (a sanitizer build sets TPCC_BIN), as a copy: a
# `make` during the test must not swap the program between two cases.
t_begin t0005
t_copy_bin
table=$root/tests/data/cli-errors.tsv
[ -r "$table" ] || bail_out "$table is missing"

# The cases run in $tmp/cwd, next to a copy of every config file, so messages
# name the file as the table writes it ("jobs-0.yaml:3:9: ...").
mkdir "$tmp/cwd" || bail_out "mkdir failed"
cp "$root"/tests/data/config/*.yaml "$tmp/cwd/" || bail_out "copying tests/data/config failed"

# Messages are plain ASCII and English whatever the caller's locale.
LC_ALL=C
export LC_ALL

# A case that gets past its error would go on to work (a 60 s run, say): cut it short.
if command -v timeout >/dev/null 2>&1; then to="timeout -k 5 30"; else to=; fi

tab=$(printf '\t')
ncases=0
# Read from fd 3 so nothing the program does can eat the table.
while IFS=$tab read -r want_rc stream match args expect <&3; do
    case $want_rc in '#'* | '') continue ;; esac
    ncases=$((ncases + 1))
    [ "$args" = - ] && args=
    # Split args on spaces, with globbing off so '*' or '?' stay literal.
    set -f
    # shellcheck disable=SC2086
    (cd "$tmp/cwd" && exec $to "$bin" $args) >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    set +f
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
    if [ "$stream" = out ]; then got=$out other=$err other_name=stderr; else got=$err other=$out other_name=stdout; fi
    name="tpccbench $args"

    is "$rc" "$want_rc" "$name: exit $want_rc"
    case $match in
    =) is "$got" "$expect" "$name: $stream is exactly the message" ;;
    '~')
        case $got in
        *"$expect"*) pass "$name: $stream contains '$expect'" ;;
        *) fail "$name: $stream contains '$expect'" "got:      '$got'" "expected: '$expect' in it" ;;
        esac
        ;;
    *) fail "$table: bad match column '$match' (want = or ~)" ;;
    esac
    # Errors go to stderr only; help and version to stdout only.
    is "$other" "" "$name: $other_name is empty"
done 3<"$table"

# Every case line was read (a last line without a newline is lost by read).
is "$ncases" "$(grep -c -v -e '^#' -e '^$' "$table")" "all $ncases cases of the table ran"
# No case may have left anything behind (no results folder, no server data).
left=$(cd "$tmp/cwd" && ls -A | grep -v '\.yaml$')
is "$left" "" "no case created files in its working directory"

done_testing
