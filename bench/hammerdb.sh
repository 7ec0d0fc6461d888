# bench/hammerdb.sh - HammerDB's TPROC-C on the private PostgreSQL of a bench
# script, measured the way tpccbench's record measures itself: the driver
# process's CPU (user + system, every thread) over the timed window, divided
# by the transactions committed in that window.  Sourced by bench/run.sh
# after bench_load; not a script of its own.
#
#     hammerdb_measure DIR W VUS MINUTES    prints one line; sets hammerdb_us
#
# DIR is a HammerDB (v4.x) directory: its hammerdbcli, with bin/tclsh8.6 and
# what its Tcl needs (a HammerDB release tarball has them).  A source checkout
# works too, given bin/tclsh8.6 (a link to Debian's tclsh8.6), Debian's
# tcl-thread, tcllib and libsqlite3-tcl, and lib/ holding HammerDB's Pgtcl
# (pgtclng, built against libpq) and ticklecharts: lib/ is put on TCLLIBPATH.
#
# The schema is HammerDB's own (buildschema: W warehouses, its functions) in
# a database of its own, hdb, owned by a role hdb, beside tpccbench's tpcc;
# built once per work folder.  The run is its timed driver, VUS virtual users,
# no keying or think time, a ramp-up of 1 minute and MINUTES timed; the
# window is from its "Rampup complete" to its "Test complete" (the lines its
# monitor prints as it takes its own transaction counts), sampled every 50 ms:
# /proc/PID/stat of the HammerDB process, and hdb's xact_commit in
# pg_stat_database.  Both servers' figures are TPC-C derived, not audited.

# hammerdb_tcl DIR SCRIPT: run HammerDB's CLI on SCRIPT in the background
# (from DIR, as it must be); sets hdb_pid, its output in $work/hammerdb.log.
hammerdb_tcl() {
    (cd "$1" && TCLLIBPATH="$1/lib" exec ./hammerdbcli auto "$2") >"$work/hammerdb.log" 2>&1 &
    hdb_pid=$!
}

# hammerdb_settings W: the dbset/diset lines both scripts share.
hammerdb_settings() {
    cat <<EOF
dbset db pg
dbset bm TPC-C
diset connection pg_host $work/pgdata
diset connection pg_port 5432
diset connection pg_sslmode disable
diset tpcc pg_superuser tpcc
diset tpcc pg_superuserpass unused
diset tpcc pg_defaultdbase tpcc
diset tpcc pg_user hdb
diset tpcc pg_pass hdb
diset tpcc pg_dbase hdb
diset tpcc pg_count_ware $1
diset tpcc pg_num_vu 2
EOF
}

# hammerdb_wait_line TEXT: wait (at most 30 minutes) for TEXT in HammerDB's
# output while it runs; 1 when it ended without it.
hammerdb_wait_line() {
    local n=0
    until grep -q "$1" "$work/hammerdb.log"; do
        kill -0 "$hdb_pid" 2>/dev/null || return 1
        n=$((n + 1))
        [ "$n" -lt 36000 ] || return 1
        sleep 0.05
    done
}

# hammerdb_sample: "CPU-TICKS COMMITS SECONDS" of the HammerDB process now.
hammerdb_sample() {
    local u s c
    read -r u s < <(awk '{print $14, $15}' "/proc/$hdb_pid/stat")
    c=$(psql -h "$work/pgdata" -U tpcc -d tpcc -Atc \
        "SELECT xact_commit FROM pg_stat_database WHERE datname = 'hdb'")
    echo "$((u + s)) $c $(date +%s.%N)"
}

hammerdb_measure() {
    local dir=$1 w=$2 vus=$3 minutes=$4 a b
    [ -x "$dir/hammerdbcli" ] || { echo "HAMMERDB: no hammerdbcli in $dir" >&2; return 2; }
    dir=$(cd "$dir" && pwd)
    if [ ! -e "$work/hammerdb.built" ]; then
        { hammerdb_settings "$w"; echo buildschema; } >"$work/hdb-build.tcl"
        hammerdb_tcl "$dir" "$work/hdb-build.tcl"
        wait "$hdb_pid" || true
        grep -q "SCHEMA COMPLETE" "$work/hammerdb.log" ||
            { tail -20 "$work/hammerdb.log" >&2; echo "HAMMERDB: its buildschema failed" >&2; return 1; }
        touch "$work/hammerdb.built"
    fi
    {
        hammerdb_settings "$w"
        cat <<EOF
diset tpcc pg_driver timed
diset tpcc pg_rampup 1
diset tpcc pg_duration $minutes
diset tpcc pg_keyandthink false
diset tpcc pg_timeprofile false
loadscript
vuset vu $vus
vuset logtotemp 0
vucreate
vurun
EOF
    } >"$work/hdb-run.tcl"
    hammerdb_tcl "$dir" "$work/hdb-run.tcl"
    hammerdb_wait_line "Rampup complete" || { tail -20 "$work/hammerdb.log" >&2; return 1; }
    a=$(hammerdb_sample)
    hammerdb_wait_line "Test complete" || { tail -20 "$work/hammerdb.log" >&2; return 1; }
    b=$(hammerdb_sample)
    wait "$hdb_pid" || true
    hammerdb_us=$(python3 - "$a" "$b" "$(getconf CLK_TCK)" "$vus" <<'EOP'
import sys
(ca, xa, ta), (cb, xb, tb) = (map(float, s.split()) for s in sys.argv[1:3])
cpu, tx, el = (cb - ca) / float(sys.argv[3]), xb - xa, tb - ta
print("%.1f" % (cpu / tx * 1e6))
sys.stderr.write("HammerDB, %s virtual users: %d commits in %.1f s (%.1f TPS), driver CPU %.2f s "
                 "= %.1f us per committed transaction, %.1f %% of a core\n"
                 % (sys.argv[4], tx, el, tx / el, cpu, cpu / tx * 1e6, cpu / el * 100))
EOP
    )
    grep -o "TEST RESULT.*" "$work/hammerdb.log" | sed 's/^/HammerDB: /'
}
