#!/bin/sh
# 0035-modes.sh - the three execution modes are the same benchmark.
#
# Equivalence: with one VU, a fixed run seed, inline delivery and a fixed
# number of transactions, client, pipeline and procedure mode must leave the
# database in the same state (checksums of every table without its date
# columns), and the terminals received the same outputs (the sum of
# New-Order totals in cents, the brand-generic "B" lines, Order-Status's
# lines).  Then each mode passes the run checks (client NOTPM equals the
# database's, conditions 1-4) and its round trips per transaction are what
# the mode promises.  Last, batches of several terminals' transactions per
# round trip: each ran exactly once, conditions 1-4 hold.  Prints TAP; the
# server and temp files go on exit.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0035 pg
t_copy_bin
t_pg_up
cat >"$tmp/t.yaml" <<EOY
database: {driver: postgres, managed: false, conninfo: "$PG_TEST_CONNINFO", password_env: TPCC_TEST_PASSWORD}
results: {dir: $tmp/results}
EOY

n_tx=400
for mode in client pipeline procedure; do
    "$bin" load -c "$tmp/t.yaml" --warehouses 2 --drop --label "load-$mode" >"$tmp/load.out" 2>&1
    ok $? "$mode: load W=2" || diag "$(tail -5 "$tmp/load.out")"
    before=$(pg_psql "select sum(d_next_o_id) from district")
    "$bin" run -c "$tmp/t.yaml" --mode "$mode" --vus 1 --seed 42 --transactions "$n_tx" \
        --warmup 0s --duration 120s --delivery inline --label "run-$mode" >"$tmp/run.out" 2>&1
    ok $? "$mode: $n_tx transactions with one VU" || diag "$(tail -5 "$tmp/run.out")"
    after=$(pg_psql "select sum(d_next_o_id) from district")
    # Every column but the date/time ones (they hold now()): tests/lib/pg.sh.
    pg_checksums >"$tmp/sum.$mode"
    rec=$(ls -d "$tmp"/results/*-run-"$mode")/run.json
    is "$(json "$rec" "r['run']['mode']")" "$mode" "$mode: the record states the mode"
    is "$(json "$rec" "r['run']['notpm_counts_agree']")" "True" "$mode: client NOTPM equals the database's"
    is "$(json "$rec" "r['run']['new_orders_client']")" "$((after - before))" \
        "$mode: committed New-Orders equal the increase of sum(d_next_o_id)"
    is "$(json "$rec" "sum(t['count'] + t['rolled_back'] for t in r['run']['transactions'].values())")" \
        "$n_tx" "$mode: exactly $n_tx transactions ran"
    "$bin" check -c "$tmp/t.yaml" --conditions 1-4 >"$tmp/check.out" 2>&1
    ok $? "$mode: conditions 1-4 hold after the run" || diag "$(cat "$tmp/check.out")"
    # The outputs the terminals received (New-Order's totals in cents and
    # brand-generic lines, Order-Status's lines): the same in every mode.
    json "$rec" "'new_order %(total_cents_sum)d cents, %(brand_generic_b_lines)d B lines' % r['run']['transactions']['new_order']['outputs'] + '; order_status %(lines)d lines' % r['run']['transactions']['order_status']['outputs']" >"$tmp/outputs.$mode"
    note "$mode outputs: $(cat "$tmp/outputs.$mode")"
    rts=$(json "$rec" "' '.join('%s=%.2f' % (k, v['round_trips_per_tx']) for k, v in sorted(r['run']['transactions'].items()))")
    note "$mode round trips per transaction: $rts"
    case $mode in
    procedure)
        # One call per transaction, each its own transaction: exactly 1.
        is "$(json "$rec" "all(abs(v['round_trips_per_tx'] - 1) < 1e-9 for v in r['run']['transactions'].values() if v['count'])")" \
            "True" "procedure: exactly 1 round trip per transaction of every type" ;;
    pipeline)
        # 1 per transaction; a rolled-back New-Order needs a second (ROLLBACK).
        is "$(json "$rec" "all(abs(v['round_trips_per_tx'] - 1) < 1e-9 for k, v in r['run']['transactions'].items() if v['count'] and k != 'new_order')")" \
            "True" "pipeline: 1 round trip per Payment, Order-Status, Delivery, Stock-Level"
        is "$(json "$rec" "(lambda t: abs(t['round_trips_per_tx'] * (t['count'] + t['rolled_back']) - (t['count'] + 2 * t['rolled_back'])) < 1e-6)(r['run']['transactions']['new_order'])")" \
            "True" "pipeline: New-Order takes 1 round trip, 2 when rolled back" ;;
    client)
        # BEGIN, header, one per line, COMMIT: about 13 for 10 lines.
        is "$(json "$rec" "r['run']['transactions']['new_order']['round_trips_per_tx'] > 9")" \
            "True" "client: New-Order takes a round trip per statement (more than 9)" ;;
    esac
done

differ=$(diff "$tmp/sum.client" "$tmp/sum.pipeline")
is "$differ" "" "pipeline leaves the database exactly as client mode does" || diag "$differ"
differ=$(diff "$tmp/sum.client" "$tmp/sum.procedure")
is "$differ" "" "procedure leaves the database exactly as client mode does" || diag "$differ"
differ=$(diff "$tmp/outputs.client" "$tmp/outputs.pipeline")
is "$differ" "" "pipeline: the same New-Order totals, brand-generic lines and Order-Status lines" || diag "$differ"
differ=$(diff "$tmp/outputs.client" "$tmp/outputs.procedure")
is "$differ" "" "procedure: the same New-Order totals, brand-generic lines and Order-Status lines" || diag "$differ"
# They must be there to be compared: totals, some 'B' lines (10 % of items
# and of stock rows contain ORIGINAL: about 1 % of lines), Order-Status lines.
set -- $(sed -n 's/^new_order \([0-9]*\) cents, \([0-9]*\) B lines; order_status \([0-9]*\) lines$/\1 \2 \3/p' "$tmp/outputs.client")
ok "$([ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ] && echo 0 || echo 1)" \
    "client: New-Order totals ${1:-?} cents, ${2:-?} 'B' lines, ${3:-?} Order-Status lines, all above 0"
# The checksums must cover changed data: the run moved them away from a fresh load.
"$bin" load -c "$tmp/t.yaml" --warehouses 2 --drop --label reload >/dev/null 2>&1
pg_checksums >"$tmp/sum.fresh"
isnt "$(diff "$tmp/sum.client" "$tmp/sum.fresh" | grep -c '^<')" "0" "the runs changed the tables the checksums cover"

# Batches (run.batch): 8 terminals over 2 connections, up to 4 transactions
# per round trip (inline Delivery too), 100 per terminal.  Each ran exactly
# once, whatever the server skipped after a failure and was sent again.
before=$(pg_psql "select sum(d_next_o_id) from district")
"$bin" run -c "$tmp/t.yaml" --mode procedure --terminals 8 --connections 2 --batch 4 \
    --transactions 100 --warmup 0s --duration 120s --delivery inline --label batch >"$tmp/run.out" 2>&1
ok $? "batch: 8 terminals x 100 transactions over 2 connections, batches of 4" || diag "$(tail -5 "$tmp/run.out")"
after=$(pg_psql "select sum(d_next_o_id) from district")
rec=$(ls -d "$tmp"/results/*-batch)/run.json
is "$(json "$rec" "sum(t['count'] + t['rolled_back'] for t in r['run']['transactions'].values())")" \
    "800" "batch: exactly 800 transactions ran, none twice, none lost"
is "$(json "$rec" "r['run']['new_orders_client']")" "$((after - before))" \
    "batch: committed New-Orders equal the increase of sum(d_next_o_id)"
is "$(json "$rec" "(lambda p: p['batch_max'] == 4 and p['per_round_trip'] > 1.5)(r['run']['terminals']['pipelining'])")" \
    "True" "batch: the record says transactions shared round trips" || diag "$(json "$rec" "r['run']['terminals']['pipelining']")"
"$bin" check -c "$tmp/t.yaml" --conditions 1-4 >"$tmp/check.out" 2>&1
ok $? "batch: conditions 1-4 hold after the run" || diag "$(cat "$tmp/check.out")"
done_testing
