# util.sh - helpers the integration scripts share.  POSIX sh; source it after
# tests/lib/tap.sh, with $tmp set to the script's temporary directory:
#
#     run NAME CMD...     run CMD (at most $RUN_TIMEOUT s, default 120) with
#                         stdout in $tmp/NAME.out, stderr in $tmp/NAME.err;
#                         sets rc, out and err
#     explain             diag the last run's exit status, stdout and stderr
#     alive PID           the process runs (a zombie does not count)
#     wait_gone PID SECS  wait up to SECS for PID to end; 0 when it did
#     jcheck FILE PYTHON  run the checks in PYTHON against FILE parsed as JSON
#                         (body uses check(cond, desc, detail...) and rec)
#     rec LABEL           the results folder of the record labelled LABEL
#                         under $tmp/results
#     series_outage LABEL the series.csv of the run LABEL shows an outage (a
#                         measured second with errors, connections down or
#                         lost) and throughput again 2 s after it

run() {
    _name=$1
    shift
    if command -v timeout >/dev/null 2>&1; then
        timeout -k 5 "${RUN_TIMEOUT:-120}" "$@" >"$tmp/$_name.out" 2>"$tmp/$_name.err" </dev/null
    else
        "$@" >"$tmp/$_name.out" 2>"$tmp/$_name.err" </dev/null
    fi
    rc=$?
    out=$(cat "$tmp/$_name.out")
    err=$(cat "$tmp/$_name.err")
}

explain() {
    diag "exit $rc; stdout:" "$out" "stderr:" "$err"
}

alive() {
    kill -0 "$1" 2>/dev/null || return 1
    case $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) in Z) return 1 ;; esac
    return 0
}

wait_gone() {
    _i=0
    while alive "$1" && [ $_i -lt $(($2 * 10)) ]; do
        sleep 0.1
        _i=$((_i + 1))
    done
    ! alive "$1"
}

rec() {
    ls -d "$tmp/results/"*-"$1" 2>/dev/null
}

# tap_from FILE: "PASS<TAB>desc" / "FAIL<TAB>desc<TAB>detail..." lines to TAP.
tap_from() {
    while IFS= read -r _l; do
        case $_l in
        PASS"	"*) pass "${_l#PASS	}" ;;
        FAIL"	"*)
            _rest=${_l#FAIL	}
            _desc=${_rest%%	*}
            if [ "$_desc" = "$_rest" ]; then
                fail "$_desc"
            else
                fail "$_desc" "$(printf '%s' "${_rest#*	}" | tr '\t' '\n')"
            fi
            ;;
        *) diag "$_l" ;;
        esac
    done <"$1"
}

jcheck() {
    python3 - "$1" "$2" >"$tmp/checks" 2>&1 <<'PYEOF'
import json, sys


def check(cond, desc, *details):
    print("\t".join(["PASS" if cond else "FAIL", desc] + ([] if cond else [str(x) for x in details])))


try:
    with open(sys.argv[1]) as f:
        rec = json.load(f)
    check(True, "%s parses" % sys.argv[1].rsplit("/", 2)[-1])
except Exception as ex:
    check(False, "%s parses" % sys.argv[1], ex)
    sys.exit(0)
exec(sys.argv[2])
PYEOF
    tap_from "$tmp/checks"
}

# t_begin NAME: the common start of a test script (after sourcing tap.sh,
# pg.sh and this file, with TPCC_BIN set): checks the binary and python3,
# sets bin, makes $tmp and an EXIT trap (t_cleanup) that kills the
# processes in $bgpid, $pxpid and $lockpid, runs $t_extra_cleanup, stops the
# test PostgreSQL and removes $tmp.  Signals end the script with 129/130/143.
t_begin() {
    bin=$TPCC_BIN
    [ -x "$bin" ] || bail_out "$bin is missing: run make first"
    command -v python3 >/dev/null 2>&1 || bail_out "python3 is needed to read run.json"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpcc-$1.XXXXXX") || bail_out "mktemp failed"
    bgpid=
    pxpid=
    lockpid=
    t_extra_cleanup=
    trap t_cleanup EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    LC_ALL=C
    export LC_ALL
}

t_cleanup() {
    for _p in $bgpid $pxpid $lockpid; do
        kill -KILL "$_p" 2>/dev/null
        wait "$_p" 2>/dev/null
    done
    [ -z "$t_extra_cleanup" ] || $t_extra_cleanup
    pg_stop
    rm -rf "$tmp"
}

# t_pg W: start the test PostgreSQL (bail out when it cannot) and write
# $cfg: that server, W warehouses, results under $tmp/results.
t_pg() {
    if ! pg_start 2>"$tmp/pg_start.err"; then
        cat "$tmp/pg_start.err" >&2
        bail_out "pg_start failed: $(tail -n 1 "$tmp/pg_start.err")"
    fi
    pass "pg_start: PostgreSQL on 127.0.0.1:$PG_TEST_PORT"
    cfg=$tmp/tpcc.yaml
    cat >"$cfg" <<CFGEOF
database: {driver: postgres, managed: false, conninfo: "$PG_TEST_CONNINFO", password_env: TPCC_TEST_PASSWORD}
schema: {warehouses: $1}
results: {dir: "$tmp/results"}
CFGEOF
}

series_outage() {
    _s=$(rec "$1")/series.csv
    _bad=$(awk -F, 'NR > 1 && $2 == "measure" && ($13 > 0 || $15 > 0 || $16 > 0) { print $1 }' "$_s" | head -n 1)
    isnt "$_bad" "" "$1: series.csv shows the outage (a second with errors or connections down)" ||
        diag "$(cat "$_s")"
    _after=$(awk -F, -v b="${_bad:-0}" 'NR > 1 && $2 == "measure" && $1 > b + 2 && $8 > 0' "$_s" | wc -l)
    ok "$([ "$_after" -ge 2 ] && echo 0 || echo 1)" "$1: throughput again after the outage ($_after seconds)" ||
        diag "$(cat "$_s")"
}
