#!/bin/bash
# bench/rtfloor.sh - the client CPU of one blocking libpq round trip on this
# machine: the floor under the driver CPU per transaction of procedure mode
# (one round trip each).  Builds bench/rtfloor.c, starts a private
# PostgreSQL (tests/lib/pg.sh) and runs it with a trivial query and with
# ~0.5 ms of server sleep per request (a TPC-C call takes 0.3-1 ms), 1 and
# 4 clients at once.  Not part of `make test`.  Environment: N (20000).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. tests/lib/pg.sh
N=${N:-20000}
work=$(mktemp -d /tmp/tpcc-rtfloor.XXXXXX)
trap 'pg_stop; rm -rf "$work"' EXIT
pg_start
export PGPASSWORD=$TPCC_TEST_PASSWORD
for q in "SELECT \$1::int" "SELECT \$1::int, pg_sleep(0.0005)"; do
    src=$work/rtfloor.c
    # The query is the one line that differs.
    sed "s|\"SELECT \\\$1::int\"|\"${q//\$/\\\$}\"|" bench/rtfloor.c >"$src"
    cc -O2 -I"$(pg_config --includedir)" -o "$work/rtfloor" "$src" -lpq
    n=$N
    case $q in *pg_sleep*) n=$((N / 4)) ;; esac
    echo "== $q: 1 client"
    "$work/rtfloor" "$PG_TEST_CONNINFO" "$n"
    echo "== $q: 4 clients at once"
    for i in 1 2 3 4; do "$work/rtfloor" "$PG_TEST_CONNINFO" "$n" >"$work/c$i.out" & done
    wait
    cat "$work"/c?.out
done
