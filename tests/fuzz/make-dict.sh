#!/bin/sh
# make-dict.sh - print a libFuzzer dictionary for tests/fuzz/fuzz_config.c:
# every key of the key table in src/core/config.c (dotted names and their
# parts, so the dictionary follows the table), the values the keys take, and
# YAML's own tokens.
#   sh tests/fuzz/make-dict.sh src/core/config.c > build/fuzz/config.dict
set -eu
src=${1:-src/core/config.c}
[ -r "$src" ] || { echo "make-dict.sh: cannot read '$src'" >&2; exit 2; }
# Rows look like: KEY("run.duration", K_DUR, ...) or { "load.seed", K_I64, ... }.
keys=$(sed -n 's/^ *\(KEY(\|{ \)"\([a-z_.]*\)", *K_.*/\2/p' "$src")
[ -n "$keys" ] || { echo "make-dict.sh: no key table rows found in '$src'" >&2; exit 2; }
{
    printf '%s\n' "$keys"
    printf '%s\n' "$keys" | tr '.' '\n'
    # Values: booleans, choices, numbers at and past the limits, durations.
    printf '%s\n' true false yes no on off postgres odbc null deferred inline client pipeline \
        procedure serializable password password_env 0 1 -1 100 65535 65536 100000 \
        9223372036854775807 9223372036854775808 4611686018427387904 1.5 500ms 30s 5m 1h 24h 25h \
        250us '~'
    printf '%s\n' "read committed" "repeatable read" "repeat" "45,43,4,4,4"
} | sort -u | sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&"/'
# YAML's syntax: indicators, document markers, directives, escapes, byte order marks.
cat <<'DICT'
": "
"- "
"? "
", "
"{"
"}"
"["
"]"
"---"
"..."
"&a "
"*a"
"!!str "
"!"
"|"
">"
"|-"
"# "
"'"
"\""
"\\0"
"\\x00"
"\\u00e9"
"%YAML 1.1"
"%TAG ! tag:x,1:"
"<<"
"\x09"
"\x0d\x0a"
"\xef\xbb\xbf"
"\xff\xfe"
"\xfe\xff"
"\xc3\xa9"
"\xed\xa0\x80"
DICT
