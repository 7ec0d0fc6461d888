-- The statements of `tpccbench acid` (src/tpcc/acid.c) around the real
-- transactions: reading the rows a test compares, the price change of
-- isolation test 7, the new-order rows test 8 sets aside, and which session
-- waits for a lock.  The transactions themselves are statements.sql's.
-- Placeholders are $1..$n; every value is a bound parameter.

-- name: acid_warehouse
SELECT w_ytd FROM warehouse WHERE w_id = $1;

-- name: acid_district
SELECT d_ytd, d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2;

-- name: acid_customer
SELECT c_balance, c_ytd_payment, c_payment_cnt, c_credit, c_data, c_delivery_cnt
FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;

-- name: acid_bc_customer
-- A customer with bad credit, whose c_data a Payment changes (clause 2.5.2.2).
SELECT min(c_id) FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_credit = 'BC';

-- name: acid_stock
SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_i_id = $1 AND s_w_id = $2;

-- name: acid_order
SELECT o_c_id, o_ol_cnt, o_all_local, o_carrier_id FROM orders
WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3;

-- name: acid_order_lines
SELECT ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount FROM order_line
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 ORDER BY ol_number;

-- name: acid_new_order
SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3;

-- name: acid_oldest
-- The order a Delivery takes next in a district, its customer and amount.
SELECT o_id, o_c_id, (SELECT sum(ol_amount) FROM order_line
                      WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id)
FROM orders WHERE o_w_id = $1 AND o_d_id = $2
  AND o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2);

-- name: acid_price
SELECT i_price FROM item WHERE i_id = $1;

-- name: acid_set_price
-- Isolation test 7's T3 (and the price put back after it).
UPDATE item SET i_price = $2 WHERE i_id = $1;

-- name: acid_aside
-- Isolation test 8: the district's new-order rows moved out of it (to
-- district d + 100, which no transaction names) ...
UPDATE new_order SET no_d_id = no_d_id + 100 WHERE no_w_id = $1 AND no_d_id = $2;

-- name: acid_back
-- ... and back, also those a test that died left there.
UPDATE new_order SET no_d_id = no_d_id - 100 WHERE no_d_id > 100;

-- name: acid_backend
SELECT CONNECTION_ID();

-- name: acid_waiting
-- 1 when the session of connection id $1 waits for a row lock (InnoDB's
-- transaction state): the database's own answer.  The user needs PROCESS
-- to see other sessions here; without it this fails, and acid takes a
-- transaction still running after 10 s as waiting.
SELECT count(*) FROM information_schema.innodb_trx
WHERE trx_mysql_thread_id = $1 AND trx_state = 'LOCK WAIT';

-- name: acid_wait_poll_ms
-- How often acid_waiting may be asked, in ms: InnoDB answers
-- information_schema.innodb_trx from a cache it refreshes only when nobody
-- read it in the last 0.1 s, so questions 2 ms apart would read the same
-- stale answer for ever (and a session waiting in the previous test would
-- seem to wait still).  150 ms leaves every question a fresh cache.
SELECT 150;
