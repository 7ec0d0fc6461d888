-- The statements of `tpccbench acid --tests durability` (src/tpcc/durab.c)
-- around the mix it crashes: where the run starts (each district's next
-- order and oldest undelivered one, the server's clock), and after the
-- recovery what the acknowledged transactions wrote, looked up in bulk.
-- Placeholders are $1..$n; every value is a bound parameter.

-- name: dur_district
-- d_next_o_id and the oldest undelivered order (NULL when none) of a district.
SELECT d_next_o_id, (SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2)
FROM district WHERE d_w_id = $1 AND d_id = $2;

-- name: dur_now
-- The server's clock, as text the dur_history parameter takes back: a
-- Payment's history row is one with h_date at or after it.
SELECT CAST(NOW(6) AS CHAR);

-- name: dur_orders
-- A district's orders from o_id $3 on, with what identifies each: customer,
-- carrier (NULL: not delivered), line count, and the lines' count and sums.
SELECT o_id, o_c_id, o_carrier_id, o_ol_cnt, count(ol_number), coalesce(sum(ol_i_id), 0),
       coalesce(sum(ol_quantity), 0)
FROM orders LEFT JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
WHERE o_w_id = $1 AND o_d_id = $2 AND o_id >= $3
GROUP BY o_id, o_c_id, o_carrier_id, o_ol_cnt ORDER BY o_id;

-- name: dur_history
-- The history rows Payments wrote since the run started ($1: dur_now's text).
SELECT h_w_id, h_d_id, h_c_w_id, h_c_d_id, h_amount FROM history
WHERE h_date >= CAST($1 AS DATETIME(6));

-- name: dur_settings
-- The settings that trade durability for speed, where they are not the
-- default: the verdict names them.
SELECT CONCAT_WS(', ',
    IF(@@innodb_flush_log_at_trx_commit <> 1,
       CONCAT('innodb_flush_log_at_trx_commit = ', @@innodb_flush_log_at_trx_commit), NULL),
    IF(@@sync_binlog <> 1 AND @@log_bin = 1, CONCAT('sync_binlog = ', @@sync_binlog), NULL));
