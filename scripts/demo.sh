#!/bin/sh
# make demo: a private PostgreSQL, 1 warehouse: load, check, print the summary.
set -eu
cd "$(dirname "$0")/.."
results=results
datadir=""
# PostgreSQL will not run as root; the server runs as user postgres, which must
# reach the data directory.  A checkout under /root is not reachable: use /tmp.
if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$PWD" 2>/dev/null; then
    datadir="${TMPDIR:-/tmp}/tpccbench-demo-pgdata"
fi
set -- --results-dir "$results" --label demo
[ -n "$datadir" ] && set -- "$@" --datadir "$datadir"
echo "== tpccbench demo: private PostgreSQL, 1 warehouse =="
./tpccbench load "$@" --warehouses 1 --drop
./tpccbench check "$@"
echo "TPC-C derived figures, not audited TPC-C results."
