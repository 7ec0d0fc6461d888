# chrome.sh - headless Chromium on an HTML page a command wrote, for the
# tests that render one in a real browser (0061: report, 0066: report
# --history).  POSIX sh; `t_begin NAME chrome` sources it (after tap.sh and
# util.sh); the functions need $tmp:
#
#     chrome_need WHAT          sets chrome to the first browser on PATH
#                               (chromium, chromium-browser, google-chrome);
#                               without one a skip ("... to render WHAT") and
#                               done_testing: the script ends there
#     chrome_run NAME FILE ARGS...  headless Chromium with ARGS on FILE, at
#                               most 60 s, a profile of its own; stdout in
#                               $tmp/NAME.out, stderr in $tmp/NAME.err; returns
#                               its exit status
#     chrome_dom FILE           chrome_run dom FILE --dump-dom (the DOM after the
#                               page's script ran, in $tmp/dom.out), then two
#                               tests: it exits 0, and no script error while
#                               loading (none in Chromium's log)

chrome_need() {
    chrome=
    for _c in chromium chromium-browser google-chrome; do
        if command -v "$_c" >/dev/null 2>&1; then
            chrome=$_c
            break
        fi
    done
    if [ -z "$chrome" ]; then
        skip "no chromium: install it with 'apt-get install chromium' to render $1"
        done_testing
    fi
}

chrome_run() {
    _n=$1
    _f=$2
    shift 2
    _ud=$(mktemp -d "$tmp/chrome.XXXXXX")
    timeout -k 5 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$_ud" --enable-logging=stderr --v=0 "$@" "file://$_f" \
        >"$tmp/$_n.out" 2>"$tmp/$_n.err" </dev/null
}

chrome_dom() {
    chrome_run dom "$1" --dump-dom
    ok $? "chromium --dump-dom: exit 0" || diag "$(tail -5 "$tmp/dom.err")"
    if grep -qE 'Uncaught|CONSOLE.*(Error|error)' "$tmp/dom.err"; then
        fail "no script error while loading" "$(grep -E 'Uncaught|CONSOLE' "$tmp/dom.err" | head -5)"
    else
        pass "no script error while loading"
    fi
}
