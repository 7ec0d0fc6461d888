#!/bin/sh
# 0062-bad-records.sh - damaged run records given to `tpccbench compare` and
# `tpccbench report`: truncated, not JSON, not an object, required fields
# missing, fields of the wrong type, a record_version newer than this
# tpccbench reads.  Each must exit 2 with one line on stderr naming the file
# (with line and column for a parse error), saying what is wrong and what to
# do; nothing on stdout, and no report written.  Two sound records compare
# fine (the control).  Needs no server.  Prints TAP; removes its temp
# directory, pass or fail.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0062
t_copy_bin
if command -v timeout >/dev/null 2>&1; then to="timeout -k 2 20"; else to=; fi
cd "$tmp" || bail_out "cd $tmp failed"

damaged="the record is damaged: leave it out, or run that step again"
cut="the run that wrote it was cut short or the file was damaged; leave it out, or run that step again"
notjson="is this a run.json written by tpccbench?"
v1='"tool": {"name": "tpccbench", "record_version": 1}, "label": "x"'

# rec NAME TEXT: the folder NAME holding run.json with TEXT (printf %b: \n, \0nnn).
rec() {
    mkdir -p "$1" && printf '%b' "$2" >"$1/run.json"
}
rec good "{$v1, \"status\": \"complete\", \"run\": {\"notpm\": 100, \"tps\": 10}}\n"
rec good2 "{$v1, \"status\": \"complete\", \"run\": {\"notpm\": 110, \"tps\": 11}}\n"

# bad NAME TEXT MESSAGE: NAME/run.json holds TEXT; both commands must say NAME/run.json + MESSAGE.
ncases=0
bad() {
    ncases=$((ncases + 1))
    rec "$1" "$2"
    for cmd in compare report; do
        if [ "$cmd" = report ]; then
            $to "$bin" report good "$1" -o "$tmp/$1.html" >"$tmp/out" 2>"$tmp/err" </dev/null
        else
            $to "$bin" compare good "$1" >"$tmp/out" 2>"$tmp/err" </dev/null
        fi
        rc=$?
        is "$rc" 2 "$cmd $1: exit 2"
        is "$(cat "$tmp/err")" "tpccbench $cmd: $1/run.json$3" "$cmd $1: stderr names the file and says why"
        is "$(cat "$tmp/out")" "" "$cmd $1: stdout is empty"
    done
    ok "$([ ! -e "$tmp/$1.html" ]; echo $?)" "report $1: no report written"
}

# --- not JSON, or cut short ---
bad trunc-number "{$v1, \"run\": {\"notpm\": 1" \
    ":1:85: truncated JSON ('}' expected near end of file): $cut"
bad trunc-lines "{\n  $v1,\n  \"run\": {\n    \"notpm\": 100," \
    ":4:17: truncated JSON (string or '}' expected near end of file): $cut"
bad trunc-string "{$v1, \"change\": \"shared_buf" \
    ":1:88: truncated JSON (premature end of input near '\"shared_buf'): $cut"
bad trunc-open "{" ":1:1: truncated JSON (string or '}' expected near end of file): $cut"
bad empty "" ": the file is empty: the run that wrote it did not finish; leave it out, or run that step again"
bad blank "  \n\n" ":3:1: truncated JSON ('[' or '{' expected near end of file): $cut"
bad text "this is not json\n" ":1:4: not valid JSON ('[' or '{' expected near 'this'): $notjson"
bad top-string "\"run\"\n" ":1:5: not valid JSON ('[' or '{' expected near '\"run\"'): $notjson"
bad trailing "{$v1}}\n" ":1:67: not valid JSON (end of file expected near '}'): $notjson"
bad binary "\0377\0376\0001\0002" ":1:1: not valid JSON (unable to decode byte 0xff): $notjson"
bad latin1 "{$v1, \"change\": \"caf\0351\"}" \
    ":1:81: not valid JSON (unable to decode byte 0xe9 near '\"caf'): $notjson"
bad nul-escape "{$v1, \"change\": \"a\\\\u0000b\"}" \
    ":1:87: not valid JSON (a string holds the NUL character \\u0000): $notjson"
bad duplicate "{$v1, \"label\": \"y\"}" ":1:74: not valid JSON (duplicate object key near '\"label\"'): $notjson"
bad big-integer "{$v1, \"run\": {\"tps\": 123456789012345678901234567890}}" \
    ":1:112: not valid JSON (too big integer): $notjson"
bad deep "$(head -c 3000 /dev/zero | tr '\0' '[')" \
    ":1:2049: not valid JSON (maximum parsing depth reached near '['): $notjson"

# --- JSON, but not a run record ---
bad array "[1, 2]\n" ": not a tpccbench run record: the JSON is an array, not an object; give a run folder or its run.json"
bad no-tool "{\"label\": \"x\"}\n" \
    ": not a tpccbench run record (no tool.record_version); give a run folder or its run.json"
bad no-version "{\"tool\": {\"name\": \"tpccbench\"}, \"label\": \"x\"}\n" \
    ": not a tpccbench run record (no tool.record_version); give a run folder or its run.json"
bad tool-string "{\"tool\": \"tpccbench\", \"label\": \"x\"}\n" ": 'tool' must be an object (got \"tpccbench\"): $damaged"
bad version-string "{\"tool\": {\"record_version\": \"1\"}, \"label\": \"x\"}\n" \
    ": 'tool.record_version' must be an integer (got \"1\"): $damaged"
bad version-real "{\"tool\": {\"record_version\": 1.5}, \"label\": \"x\"}\n" \
    ": 'tool.record_version' must be an integer (got 1.5): $damaged"
bad version-0 "{\"tool\": {\"record_version\": 0}, \"label\": \"x\"}\n" \
    ": record_version 0 is not valid (they start at 1): $damaged"
bad version-negative "{\"tool\": {\"record_version\": -3}, \"label\": \"x\"}\n" \
    ": record_version -3 is not valid (they start at 1): $damaged"
bad version-7 "{\"tool\": {\"record_version\": 7}, \"label\": \"x\"}\n" \
    ": record_version 7 is newer than this tpccbench reads (1); upgrade tpccbench"
bad version-huge "{\"tool\": {\"record_version\": 9223372036854775807}, \"label\": \"x\"}\n" \
    ": record_version 9223372036854775807 is newer than this tpccbench reads (1); upgrade tpccbench"

# --- required fields missing, fields of the wrong type ---
bad no-label "{\"tool\": {\"record_version\": 1}, \"run\": {\"notpm\": 1}}\n" ": 'label' is missing: $damaged"
bad label-number "{\"tool\": {\"record_version\": 1}, \"label\": 42}\n" ": 'label' must be a string (got 42): $damaged"
bad status-object "{$v1, \"status\": {\"ok\": true}}\n" ": 'status' must be a string (got {\"ok\":true}): $damaged"
bad change-array "{$v1, \"change\": [\"a\"]}\n" ": 'change' must be a string (got [\"a\"]): $damaged"
bad started-number "{$v1, \"started\": 1700000000}\n" ": 'started' must be a string (got 1700000000): $damaged"
bad config-string "{$v1, \"config\": \"default.yaml\"}\n" \
    ": 'config' must be an object (got \"default.yaml\"): $damaged"
bad environment-null "{$v1, \"environment\": null}\n" ": 'environment' must be an object (got null): $damaged"
bad run-array "{$v1, \"run\": [100, 10]}\n" ": 'run' must be an object (got [100,10]): $damaged"
bad notpm-string "{$v1, \"run\": {\"notpm\": \"21555\"}}\n" \
    ": 'run.notpm' must be a number (got \"21555\"): $damaged"
bad tps-bool "{$v1, \"run\": {\"tps\": true}}\n" ": 'run.tps' must be a number (got true): $damaged"
bad transactions-array "{$v1, \"run\": {\"transactions\": [1]}}\n" \
    ": 'run.transactions' must be an object (got [1]): $damaged"
bad p90-string "{$v1, \"run\": {\"transactions\": {\"new_order\": {\"p90_ms\": \"fast\"}}}}\n" \
    ": 'run.transactions.new_order.p90_ms' must be a number (got \"fast\"): $damaged"
bad valid-string "{$v1, \"run\": {\"validity\": {\"valid\": \"yes\"}}}\n" \
    ": 'run.validity.valid' must be true or false (got \"yes\"): $damaged"
bad load-number "{$v1, \"load\": 50}\n" ": 'load' must be an object (got 50): $damaged"
bad load-seconds "{$v1, \"load\": {\"phase_reached\": \"done\", \"seconds\": \"50\"}}\n" \
    ": 'load.seconds' must be a number (got \"50\"): $damaged"
bad long-value "{$v1, \"run\": {\"notpm\": \"$(head -c 200 /dev/zero | tr '\0' 9)\"}}\n" \
    ": 'run.notpm' must be a number (got \"$(head -c 36 /dev/zero | tr '\0' 9)...): $damaged"

# --- a run.json that is not a file ---
mkdir -p folder/run.json
for cmd in compare report; do
    $to "$bin" $cmd good folder >"$tmp/out" 2>"$tmp/err" </dev/null
    is "$?" 2 "$cmd folder: exit 2 for a run.json that is a folder"
    is "$(cat "$tmp/err")" "tpccbench $cmd: folder/run.json: not a file: give a run folder or its run.json" \
        "$cmd folder: it says so"
done

# --- the control: sound records compare and report ---
$to "$bin" compare good good2 >"$tmp/out" 2>"$tmp/err" </dev/null
is "$?" 0 "compare of two sound records: exit 0" || diag "$(cat "$tmp/err")"
like "$(cat "$tmp/out")" "*110*" "the table shows the second run's NOTPM"
$to "$bin" report good good2 -o "$tmp/good.html" >"$tmp/out" 2>"$tmp/err" </dev/null
is "$?" 0 "report of two sound records: exit 0" || diag "$(cat "$tmp/err")"
ok "$([ -s "$tmp/good.html" ]; echo $?)" "the report is written"

note "$ncases damaged records"
done_testing
