#!/bin/sh
# make demo: a private PostgreSQL, 1 warehouse, 4 virtual users, 60 s:
# load, run, check, print the summary and where the record is.
set -eu
cd "$(dirname "$0")/.."
datadir=""
# PostgreSQL will not run as root; the server runs as user postgres, which must
# reach the data directory.  A checkout it cannot enter (under /root): use /tmp.
if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$PWD/results" 2>/dev/null; then
    datadir="${TMPDIR:-/tmp}/tpccbench-demo-pgdata"
fi
set -- --results-dir results --label demo --change "make demo"
[ -n "$datadir" ] && set -- "$@" --datadir "$datadir"
echo "== tpccbench demo: private PostgreSQL, 1 warehouse, 4 VUs, 60 s =="
./tpccbench bench "$@" --warehouses 1 --vus 4 --warmup 5s --duration "${DEMO_DURATION:-60s}"
echo "Figures are TPC-C derived, not audited TPC-C results."
