# tap.sh - a tiny TAP producer for the shell tests in tests/t.  POSIX sh; source it:
#
#     . "$root/tests/lib/tap.sh"
#     is "$(cmd)" "expected" "cmd prints expected"
#     ok $? "cmd exits 0"
#     done_testing
#
#     plan N               print the plan first (else done_testing prints it last)
#     ok STATUS DESC       pass when STATUS is 0 (a shell exit status: `ok $? ...`)
#     is GOT WANT DESC     pass when the strings are equal; prints both on failure
#     isnt GOT BAD DESC    pass when the strings differ
#     like GOT PAT DESC    pass when GOT matches the case pattern PAT (*, ?, [...])
#     unlike GOT PAT DESC  pass when it does not
#     pass DESC / fail DESC [LINE...]   an explicit result; fail prints each LINE as a diag
#     skip DESC            a test that could not run here ("ok N # skip DESC")
#     diag LINE...         each LINE as "# LINE" on stderr (prove shows it without -v)
#     note LINE...         each LINE as "# LINE" on stdout (shown with prove -v)
#     bail_out TEXT        this file cannot go on: a failed "cannot go on: TEXT",
#                          the plan, exit 255 (not TAP's "Bail out!", which
#                          stops every other file of a prove run too)
#     done_testing         print the plan if not printed yet; then `exit $(tap_status)`
#
# Every test function returns 0 when it passed and 1 when it failed, so
# `is "$rc" 0 "exit 0" || diag "$err"` adds details to a failure only.
# A failure's details go to stderr, one "#   " line per line of the value.
# The exit status of done_testing is the number of failures (at most 254).

tap__n=0
tap__failed=0
tap__planned=

plan() {
    tap__planned=$1
    echo "1..$1"
}

diag() {
    printf '%s\n' "$@" | sed 's/^/# /' >&2
}

note() {
    printf '%s\n' "$@" | sed 's/^/# /'
}

pass() {
    tap__n=$((tap__n + 1))
    echo "ok $tap__n - $1"
}

fail() {
    tap__n=$((tap__n + 1))
    tap__failed=$((tap__failed + 1))
    echo "not ok $tap__n - $1"
    shift
    for tap__l in "$@"; do
        printf '%s\n' "$tap__l" | sed 's/^/#   /' >&2
    done
    return 1
}

skip() {
    tap__n=$((tap__n + 1))
    echo "ok $tap__n # skip $1"
}

ok() {
    if [ "$1" = 0 ]; then
        pass "$2"
    else
        fail "$2" "status: $1 (expected 0)"
    fi
}

is() {
    if [ "$1" = "$2" ]; then
        pass "$3"
    else
        fail "$3" "got:      '$1'" "expected: '$2'"
    fi
}

isnt() {
    if [ "$1" != "$2" ]; then
        pass "$3"
    else
        fail "$3" "got:      '$1'" "expected anything else"
    fi
}

like() {
    case $1 in
    $2) pass "$3" ;;
    *) fail "$3" "got:      '$1'" "expected: '$2' (a pattern)" ;;
    esac
}

unlike() {
    case $1 in
    $2) fail "$3" "got:      '$1'" "expected no match of '$2'" ;;
    *) pass "$3" ;;
    esac
}

bail_out() {
    fail "cannot go on: $*"
    [ -n "$tap__planned" ] || echo "1..$tap__n"
    exit 255
}

tap_status() {
    if [ "$tap__failed" -gt 254 ]; then echo 254; else echo "$tap__failed"; fi
}

done_testing() {
    if [ -z "$tap__planned" ]; then
        echo "1..$tap__n"
    elif [ "$tap__planned" != "$tap__n" ]; then
        diag "planned $tap__planned tests but ran $tap__n"
    fi
    exit "$(tap_status)"
}
