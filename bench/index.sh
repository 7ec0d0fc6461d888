#!/bin/bash
# bench/index.sh [W] ["MEM:PAR ..."] [REPS]: load W warehouses (default 100)
# into a private server (kept), then time the index build alone:
# indexes.sql in 2 sessions (alternating, largest first), its indexes
# dropped before each, at each maintenance_work_mem:max_parallel_maintenance_workers
# pair (default "512MB:2 3GB:2 512MB:0 3GB:0"), REPS rounds (default 2).
# Prints one line per build.  Not part of `make test`.
. "$(dirname "$0")/lib.sh"
W=${1:-100}; SETS=${2:-"512MB:2 3GB:2 512MB:0 3GB:0"}; REPS=${3:-2}
bench_begin benchindex
bench_load "$W"
sock=$(sed -n "s/^unix_socket_directories = '\(.*\)'$/\1/p" "$work/pgdata/tpccbench.conf")
port=$(sed -n 's/^port = //p' "$work/pgdata/tpccbench.conf")
psql_() { PGOPTIONS="$PGO" "$(pg__bindir)/psql" -X -q -tA -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U tpcc -d tpcc "$@"; }
PGO=
grep -n 'index' "$work/load.out" | tail -2
drop_all() {
  psql_ -c "ALTER TABLE order_line DROP CONSTRAINT order_line_pk; ALTER TABLE stock DROP CONSTRAINT stock_pk; ALTER TABLE customer DROP CONSTRAINT customer_pk; DROP INDEX customer_last_idx; ALTER TABLE orders DROP CONSTRAINT orders_pk; DROP INDEX orders_customer_idx; ALTER TABLE item DROP CONSTRAINT item_pk; ALTER TABLE new_order DROP CONSTRAINT new_order_pk; ALTER TABLE district DROP CONSTRAINT district_pk; ALTER TABLE warehouse DROP CONSTRAINT warehouse_pk; CHECKPOINT;"
}
grep -v '^--' schema/postgresql/indexes.sql | grep -v '^ *$' >"$work/stmts"
awk 'NR % 2 == 1' "$work/stmts" >"$work/s0"
awk 'NR % 2 == 0' "$work/stmts" >"$work/s1"
for r in $(seq 1 "$REPS"); do
  for s in $SETS; do
    mem=${s%%:*}; par=${s##*:}
    drop_all >/dev/null
    sync
    PGO="-c maintenance_work_mem=$mem -c max_parallel_maintenance_workers=$par"
    t0=$(date +%s.%N)
    psql_ -f "$work/s0" & p0=$!
    psql_ -f "$work/s1" & p1=$!
    wait $p0 $p1
    t1=$(date +%s.%N)
    PGO=
    python3 -c "print('round $r  maintenance_work_mem %-6s parallel workers %s  index build %.2f s' % ('$mem', '$par', $t1 - $t0))"
  done
done
