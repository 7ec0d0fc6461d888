#!/bin/bash
# bench/evloop.sh - does one thread driving N connections with epoll spend
# less client CPU per round trip than N threads blocking in libpq?  (The
# question behind the "driver CPU per 1000 tx" target of procedure mode.)
# Builds bench/evloop.c, starts a private PostgreSQL (tests/lib/pg.sh) and
# runs threads / epoll / epoll0 at N = 4, 8, 16 with three kinds of server
# work: trivial, ~1 ms of pg_sleep, ~0.5 ms of CPU (generate_series, GS).
# Prints one line per run: mode N us_cpu/req req/s ready/wakeup ...
# Not part of `make test`.  Environment: REPS (1), GS (5000).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib/pg.sh"
work=$(mktemp -d /tmp/tpcc-evloop.XXXXXX)
trap 'pg_stop; rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -I"$(pg_config --includedir)" -o "$work/evloop" "$root/bench/evloop.c" -lpq -lpthread
pg_start
export PGPASSWORD=$TPCC_TEST_PASSWORD CONNINFO=$PG_TEST_CONNINFO
REPS=${REPS:-1}
GS=${GS:-5000}
for rep in $(seq "$REPS"); do
    for kind in trivial sleep cpu; do
        case $kind in
        trivial) sql='SELECT $1::int' p=1 tot=40000 ;;
        sleep) sql='SELECT $1::int, pg_sleep(0.0003)' p=1 tot=8000 ;;
        cpu) sql='SELECT count(*) FROM generate_series(1, $1::int)' p=$GS tot=6000 ;;
        esac
        for n in 4 8 16; do
            for m in threads epoll epoll0; do
                echo "$rep $kind $("$work/evloop" "$m" "$n" "$tot" "$sql" "$p")"
            done
        done
    done
done
