#!/bin/sh
# 0071-odbc-modes.sh - client and procedure mode are the same benchmark on
# MariaDB through ODBC too: one VU, a fixed run seed, inline delivery and 300
# transactions leave identical table checksums (date columns left out) in both
# modes and in client mode with run.statements unnamed, the terminals
# received the same outputs (New-Order totals in cents and brand-generic
# lines, Order-Status lines), and each run's New-Order count equals the
# database's.  Prints TAP;
# the server and the temp directory are removed on exit, pass or fail.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_begin t0071 mariadb odbc
t_copy_bin
t_maria_up
t_odbc_up
odbc_cfg "$tmp/m.yaml" "DSN=tpcc-maria"

checksums() {
    maria_sql "
    SELECT 'warehouse', md5(group_concat(md5(concat_ws('|', w_id, w_name, w_ytd)) ORDER BY w_id SEPARATOR '')) FROM warehouse
    UNION ALL SELECT 'district', md5(group_concat(md5(concat_ws('|', d_w_id, d_id, d_ytd, d_next_o_id)) ORDER BY d_w_id, d_id SEPARATOR '')) FROM district
    UNION ALL SELECT 'customer', md5(group_concat(md5(concat_ws('|', c_w_id, c_d_id, c_id, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data)) ORDER BY c_w_id, c_d_id, c_id SEPARATOR '')) FROM customer
    UNION ALL SELECT 'history', md5(group_concat(x ORDER BY x SEPARATOR '')) FROM (SELECT md5(concat_ws('|', h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_data)) x FROM history) h
    UNION ALL SELECT 'new_order', md5(group_concat(md5(concat_ws('|', no_w_id, no_d_id, no_o_id)) ORDER BY no_w_id, no_d_id, no_o_id SEPARATOR '')) FROM new_order
    UNION ALL SELECT 'orders', md5(group_concat(md5(concat_ws('|', o_w_id, o_d_id, o_id, o_c_id, ifnull(o_carrier_id, 'null'), o_ol_cnt, o_all_local)) ORDER BY o_w_id, o_d_id, o_id SEPARATOR '')) FROM orders
    UNION ALL SELECT 'order_line', md5(group_concat(md5(concat_ws('|', ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d IS NULL, ol_quantity, ol_amount, ol_dist_info)) ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number SEPARATOR '')) FROM order_line
    UNION ALL SELECT 'stock', md5(group_concat(md5(concat_ws('|', s_w_id, s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt)) ORDER BY s_w_id, s_i_id SEPARATOR '')) FROM stock
    ORDER BY 1"
}

# group_concat must hold a whole table's hashes.
maria_sql "SET GLOBAL group_concat_max_len = 1073741824" >/dev/null 2>&1
n_tx=300
# "unnamed": client mode with run.statements unnamed (SQLExecDirect, nothing prepared).
for mode in client procedure unnamed; do
    how="--mode $mode"
    [ "$mode" = unnamed ] && how="--mode client --statements unnamed"
    "$bin" load -c "$tmp/m.yaml" --warehouses 1 --drop --label "load-$mode" >"$tmp/load.out" 2>&1
    ok $? "$mode: load W=1 through Connector/ODBC" || diag "$(tail -5 "$tmp/load.out")"
    # shellcheck disable=SC2086
    "$bin" run -c "$tmp/m.yaml" $how --vus 1 --seed 42 --transactions "$n_tx" \
        --warmup 0s --duration 120s --delivery inline --label "run-$mode" >"$tmp/run.out" 2>&1
    ok $? "$mode: $n_tx transactions with one VU" || diag "$(tail -5 "$tmp/run.out")"
    rec=$(ls -d "$tmp"/results/*-run-"$mode")/run.json
    is "$(json "$rec" "r['run']['notpm_counts_agree']")" "True" "$mode: client NOTPM equals the database's"
    is "$(json "$rec" "sum(t['count'] + t['rolled_back'] for t in r['run']['transactions'].values())")" \
        "$n_tx" "$mode: exactly $n_tx transactions ran" ||
        diag "$(json "$rec" "{k: (v['count'], v['rolled_back'], v['errors']) for k, v in r['run']['transactions'].items()}")" "$(json "$rec" "r['run']['errors_by_sqlstate']")"
    checksums >"$tmp/sum.$mode"
    is "$(wc -l <"$tmp/sum.$mode" | tr -d ' ')" "8" "$mode: a checksum for each of 8 tables"
    json "$rec" "'new_order %(total_cents_sum)d cents, %(brand_generic_b_lines)d B lines' % r['run']['transactions']['new_order']['outputs'] + '; order_status %(lines)d lines' % r['run']['transactions']['order_status']['outputs']" >"$tmp/outputs.$mode"
    note "$mode outputs: $(cat "$tmp/outputs.$mode")"
done
differ=$(diff "$tmp/sum.client" "$tmp/sum.procedure")
is "$differ" "" "procedure mode leaves MariaDB exactly as client mode does" || diag "$differ"
differ=$(diff "$tmp/outputs.client" "$tmp/outputs.procedure")
is "$differ" "" "procedure mode: the same New-Order totals in cents, brand-generic lines and Order-Status lines" ||
    diag "$differ"
set -- $(sed -n 's/^new_order \([0-9]*\) cents, \([0-9]*\) B lines; order_status \([0-9]*\) lines$/\1 \2 \3/p' "$tmp/outputs.client")
ok "$([ "${1:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ] && echo 0 || echo 1)" \
    "client: New-Order totals ${1:-?} cents (${2:-?} 'B' lines), ${3:-?} Order-Status lines"
differ=$(diff "$tmp/sum.client" "$tmp/sum.unnamed")
is "$differ" "" "unnamed statements leave MariaDB exactly as prepared ones do" || diag "$differ"
is "$(json "$(ls -d "$tmp"/results/*-run-unnamed)/run.json" "r['run']['statements']")" "unnamed" \
    "unnamed: the record says so"
done_testing
