# bench/lib.sh - the opening the bench/ scripts share.  Bash; a script
# sources it first thing and then calls bench_begin:
#
#     . "$(dirname "$0")/lib.sh"
#     bench_begin benchrun
#     bench_load "$W"
#
#     bench_begin NAME          build, the work folder $work, the EXIT trap
#     bench_load W [ARGS...]    W warehouses into the private server, kept up
#     bench_scrape_start PORT / bench_scrape_stop   a Prometheus stand-in
#
# Sourcing it sets -euo pipefail, sets root (the top of the tree), goes
# there (cd), so the script names files from the top (./tpccbench,
# tests/lib/...), and sources tests/lib/pg.sh (pg_start, pg_stop_datadir,
# ...).  It runs nothing else; the functions below are what a script calls.

set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=../tests/lib/pg.sh
. tests/lib/pg.sh

# bench_begin NAME: build ./tpccbench (make -s), make the work folder
# /tmp/tpcc-NAME.XXXXXX (mode 0755: the private server's user must reach its
# data directory there) and an EXIT trap (bench_cleanup).  Sets work,
# common (the options that put a command's records under $work/results and
# its private server in $work/pgdata), and empties scraper and
# bench_extra_cleanup, a command the script may set to stop what it started.
bench_begin() {
    make -s tpccbench
    work=$(mktemp -d "/tmp/tpcc-$1.XXXXXX")
    chmod 755 "$work"
    common=(--results-dir "$work/results" --datadir "$work/pgdata")
    bench_extra_cleanup=
    scraper=
    trap bench_cleanup EXIT
}

# bench_cleanup: the EXIT trap of bench_begin.  Stops the scraper, runs
# $bench_extra_cleanup, stops a private server left running on
# $work/pgdata (--keep-server) and the test PostgreSQL of pg_start, if any,
# and removes $work.  Takes nothing; exports nothing.
bench_cleanup() {
    bench_scrape_stop
    if [ -n "${bench_extra_cleanup:-}" ]; then
        $bench_extra_cleanup || true
    fi
    pg_stop_datadir "$work/pgdata" || true
    pg_stop
    rm -rf "$work"
}

# bench_load W [ARGS...]: load W warehouses with 2 jobs into the private
# server of "${common[@]}" and keep it running for the runs that follow;
# the output in $work/load.out.  Sets nothing.
bench_load() {
    _w=$1
    shift
    ./tpccbench load "${common[@]}" --warehouses "$_w" --jobs 2 --keep-server "$@" \
        >"$work/load.out" 2>&1
}

# bench_scrape_start PORT: scrape http://127.0.0.1:PORT/metrics once a
# second in the background, as a Prometheus at scrape_interval 1s would,
# adding a line to $work/scrapes for each scrape answered (the file is
# emptied first).  Sets scraper (its pid).
bench_scrape_start() {
    : >"$work/scrapes"
    (while true; do
        python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2).read()' \
            "http://127.0.0.1:$1/metrics" 2>/dev/null && echo x >>"$work/scrapes"
        sleep 1
    done) &
    scraper=$!
}

# bench_scrape_stop: ends the scraper of bench_scrape_start, if one runs.
# Empties scraper.
bench_scrape_stop() {
    if [ -n "${scraper:-}" ]; then
        kill "$scraper" 2>/dev/null || true
        wait "$scraper" 2>/dev/null || true
        scraper=
    fi
}
