#!/bin/bash
# bench/odbc.sh - the ODBC path against the native one: on the same
# PostgreSQL, W=2, load seconds and NOTPM (4 VUs, DURATION, default 60s)
# through libpq and through psqlODBC, then the same through MariaDB with
# Connector/ODBC; in client mode (the portable path) and in procedure mode.
# Not part of `make test`.  Environment: W (2), VUS (4), DURATION (60s).
. "$(dirname "$0")/lib.sh"
W=${W:-2}
VUS=${VUS:-4}
DURATION=${DURATION:-60s}
. tests/lib/mariadb.sh
. tests/lib/odbc.sh
bench_begin benchodbc
bench_extra_cleanup=maria_stop
pg_start
maria_start
odbc_setup "$work/odbc"
export TPCC_PASSWORD=$TPCC_TEST_PASSWORD
cfg() { # name, database line
    printf 'database: %s\nresults: {dir: %s/results}\n' "$2" "$work" >"$work/$1.yaml"
}
cfg libpq "{driver: postgres, managed: false, conninfo: \"$PG_TEST_CONNINFO\", password_env: TPCC_PASSWORD}"
cfg psqlodbc "{driver: odbc, managed: false, dsn: \"DSN=tpcc-pg\", password_env: TPCC_PASSWORD}"
cfg mariadb "{driver: odbc, managed: false, dsn: \"DSN=tpcc-maria\", password_env: TPCC_PASSWORD}"
printf '%-22s %10s %10s %10s\n' path "load s" "client NOTPM" "proc NOTPM"
for p in libpq psqlodbc mariadb; do
    ./tpccbench load -c "$work/$p.yaml" --warehouses "$W" --drop --label "load-$p" >"$work/out" 2>&1
    load=$(python3 -c "import json,glob,os; f=max(glob.glob('$work/results/*-load-$p/run.json'), key=os.path.getmtime); print('%.1f' % json.load(open(f))['load']['seconds'])")
    res=""
    for m in client procedure; do
        ./tpccbench run -c "$work/$p.yaml" --mode "$m" --vus "$VUS" --warmup 10s --duration "$DURATION" \
            --label "$p-$m" >"$work/out" 2>&1
        res="$res $(python3 -c "import json,glob,os; f=max(glob.glob('$work/results/*-$p-$m/run.json'), key=os.path.getmtime); print('%.0f' % json.load(open(f))['run']['notpm'])")"
    done
    # shellcheck disable=SC2086
    printf '%-22s %10s %10s %10s\n' "$p" "$load" $res
done
echo "(NOTPM: TPC-C derived, not audited; procedure mode through ODBC is CALL + COMMIT)"
