-- The five TPC-C transactions (clause 2) as prepared statements, PostgreSQL
-- dialect.  src/tpcc/txn.c runs them in order; this file holds their text only.
-- Placeholders are $1..$n; every value is a bound parameter.

-- name: iso_read_committed
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- name: iso_repeatable_read
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- name: iso_serializable
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE;

-- name: no_header
-- New-Order, first step: take the district's next order id, insert the
-- order and new_order rows, and read the taxes and the customer, in one round
-- trip.  $1 w_id, $2 d_id, $3 c_id, $4 o_ol_cnt, $5 o_all_local.
WITH d AS (
    UPDATE district SET d_next_o_id = d_next_o_id + 1
    WHERE d_w_id = $1 AND d_id = $2
    RETURNING d_tax, d_next_o_id - 1 AS o_id),
o AS (
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    SELECT d.o_id, $2, $1, $3, now(), NULL, $4, $5 FROM d
    RETURNING o_id),
n AS (
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT o.o_id, $2, $1 FROM o)
SELECT w.w_tax, d.d_tax, d.o_id, c.c_discount, c.c_last, c.c_credit
FROM d, warehouse w, customer c
WHERE w.w_id = $1 AND c.c_w_id = $1 AND c.c_d_id = $2 AND c.c_id = $3;

-- name: no_line
-- New-Order, one order line: read the item, update the stock row (quantity
-- rule of clause 2.4.2.2) and insert the order line, in one round trip.  No
-- row back means the item does not exist: the spec's 1 % rollback.
-- $1 i_id, $2 supply w_id, $3 quantity, $4 remote (0/1), $5 d_id, $6 w_id,
-- $7 o_id, $8 ol_number.
WITH i AS (
    SELECT i_price, i_name, i_data FROM item WHERE i_id = $1),
s AS (
    UPDATE stock SET
        s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3
                          ELSE s_quantity - $3 + 91 END,
        s_ytd = s_ytd + $3,
        s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + $4
    WHERE s_i_id = $1 AND s_w_id = $2 AND EXISTS (SELECT 1 FROM i)
    RETURNING s_quantity, s_data,
        CASE $5::int WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
            WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
            WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
            ELSE s_dist_10 END AS dist),
ol AS (
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
    SELECT $7, $5, $6, $8, $1, $2, NULL, $3, i.i_price * $3, s.dist FROM i, s
    RETURNING ol_amount)
SELECT i.i_price, i.i_data, s.s_quantity, s.s_data, ol.ol_amount FROM i, s, ol;

-- name: pay_warehouse_district
-- Payment, first step: warehouse and district year-to-date, one round trip.
-- $1 w_id, $2 d_id, $3 amount.
WITH w AS (
    UPDATE warehouse SET w_ytd = w_ytd + $3 WHERE w_id = $1
    RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
d AS (
    UPDATE district SET d_ytd = d_ytd + $3 WHERE d_w_id = $1 AND d_id = $2
    RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip)
SELECT w.w_name, d.d_name, w.w_street_1, w.w_street_2, w.w_city, w.w_state, w.w_zip,
       d.d_street_1, d.d_street_2, d.d_city, d.d_state, d.d_zip
FROM w, d;

-- name: pay_customers_by_name
SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first, c_id;

-- name: pay_customer_history
-- Payment, customer and history: balance, year-to-date, count, and for bad
-- credit ("BC") the c_data rule of clause 2.5.2.2 (c_id c_d_id c_w_id d_id
-- w_id amount in front, kept to 500 characters); then the history row with
-- h_data = w_name + 4 spaces + d_name.
-- $1 c_w_id, $2 c_d_id, $3 c_id, $4 amount, $5 d_id, $6 w_id.
WITH c AS (
    UPDATE customer SET
        c_balance = c_balance - $4,
        c_ytd_payment = c_ytd_payment + $4,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = CASE WHEN c_credit = 'BC'
                      THEN substr(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || $5::int || ' ' || $6::int
                                  || ' ' || $4::numeric(6,2) || ' ' || c_data, 1, 500)
                      ELSE c_data END
    WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3
    RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
        c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance,
        CASE WHEN c_credit = 'BC' THEN substr(c_data, 1, 200) ELSE '' END AS c_data_200),
h AS (
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    SELECT c.c_id, $2, $1, $5, $6, now(), $4,
           (SELECT w_name FROM warehouse WHERE w_id = $6) || '    '
           || (SELECT d_name FROM district WHERE d_w_id = $6 AND d_id = $5)
    FROM c)
SELECT * FROM c;

-- name: pay_customer_history_by_name
-- The same, with the customer chosen by last name in SQL (pipeline mode):
-- position ceil(n/2) of those with c_last = $3 in c_first order.
WITH pick AS (
    SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3
    ORDER BY c_first, c_id
    OFFSET (SELECT (count(*) - 1) / 2 FROM customer
            WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) LIMIT 1),
c AS (
    UPDATE customer SET
        c_balance = c_balance - $4,
        c_ytd_payment = c_ytd_payment + $4,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = CASE WHEN c_credit = 'BC'
                      THEN substr(customer.c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || $5::int
                                  || ' ' || $6::int
                                  || ' ' || $4::numeric(6,2) || ' ' || c_data, 1, 500)
                      ELSE c_data END
    FROM pick
    WHERE c_w_id = $1 AND c_d_id = $2 AND customer.c_id = pick.c_id
    RETURNING customer.c_id, c_first, c_middle, c_last, c_balance),
h AS (
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    SELECT c.c_id, $2, $1, $5, $6, now(), $4,
           (SELECT w_name FROM warehouse WHERE w_id = $6) || '    '
           || (SELECT d_name FROM district WHERE d_w_id = $6 AND d_id = $5)
    FROM c)
SELECT * FROM c;

-- name: os_customers_by_name
SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first, c_id;

-- name: os_get_customer
SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;

-- name: os_last_order
SELECT o_id, o_entry_d, o_carrier_id FROM orders
WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1;

-- name: os_order_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 ORDER BY ol_number;

-- name: dl_oldest_new_order
SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2;

-- name: dl_delete_new_order
-- Zero rows deleted means a concurrent delivery took this order first.
DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3;

-- name: dl_update_order
UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3
RETURNING o_c_id;

-- name: dl_update_order_lines
WITH u AS (
    UPDATE order_line SET ol_delivery_d = now()
    WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3
    RETURNING ol_amount)
SELECT coalesce(sum(ol_amount), 0) FROM u;

-- name: dl_update_customer
UPDATE customer SET c_balance = c_balance + $4, c_delivery_cnt = c_delivery_cnt + 1
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;

-- name: sl_next_order_id
SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2;

-- name: sl_low_stock
SELECT count(DISTINCT s_i_id) FROM order_line
JOIN stock ON s_i_id = ol_i_id AND s_w_id = ol_w_id
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id >= $3 - 20 AND ol_o_id < $3
  AND s_quantity < $4;

-- name: no_line_pipe
-- New-Order line for pipeline mode: as no_line, but the order id comes from
-- the district row this transaction already updated (the client has not seen
-- it yet), and a missing item raises division_by_zero (22012) through a
-- one-time filter, so the pipelined COMMIT after it never runs.
-- $1 i_id, $2 supply w_id, $3 quantity, $4 remote (0/1), $5 d_id, $6 w_id, $7 ol_number.
WITH i AS (
    SELECT i_price, i_name, i_data FROM item WHERE i_id = $1),
s AS (
    UPDATE stock SET
        s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3
                          ELSE s_quantity - $3 + 91 END,
        s_ytd = s_ytd + $3,
        s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + $4
    WHERE 1 / (SELECT count(*)::int FROM i) = 1 AND s_i_id = $1 AND s_w_id = $2
    RETURNING s_quantity, s_data,
        CASE $5::int WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
            WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
            WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
            ELSE s_dist_10 END AS dist),
ol AS (
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
    SELECT (SELECT d_next_o_id - 1 FROM district WHERE d_w_id = $6 AND d_id = $5),
           $5, $6, $7, $1, $2, NULL, $3, i.i_price * $3, s.dist FROM i, s
    RETURNING ol_amount)
SELECT i.i_price, i.i_data, s.s_quantity, s.s_data, ol.ol_amount FROM i, s, ol;

-- name: os_all_by_id
-- Order-Status in one statement (pipeline mode): the customer, its most
-- recent order and that order's lines, one row per line in ol_number order,
-- with the outputs of clause 2.6.3 (the columns tpcc_order_status returns).
-- $1 w_id, $2 d_id, $3 c_id.
WITH c AS (
    SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
    WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3),
o AS (
    SELECT o_id, o_entry_d, o_carrier_id FROM orders, c
    WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = c.c_id ORDER BY o_id DESC LIMIT 1)
SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance, o.o_id, o.o_entry_d,
       o.o_carrier_id, ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount,
       ol.ol_delivery_d
FROM c, o, order_line ol
WHERE ol.ol_w_id = $1 AND ol.ol_d_id = $2 AND ol.ol_o_id = o.o_id
ORDER BY ol.ol_number;

-- name: os_all_by_name
-- The same with the customer chosen by last name ($3): position ceil(n/2).
WITH c AS (
    SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
    WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3
    ORDER BY c_first, c_id
    OFFSET (SELECT (count(*) - 1) / 2 FROM customer
            WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) LIMIT 1),
o AS (
    SELECT o_id, o_entry_d, o_carrier_id FROM orders, c
    WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = c.c_id ORDER BY o_id DESC LIMIT 1)
SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance, o.o_id, o.o_entry_d,
       o.o_carrier_id, ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount,
       ol.ol_delivery_d
FROM c, o, order_line ol
WHERE ol.ol_w_id = $1 AND ol.ol_d_id = $2 AND ol.ol_o_id = o.o_id
ORDER BY ol.ol_number;

-- name: dl_district
-- Delivery of one district in one statement (pipeline mode): the oldest new
-- order is deleted, its order gets the carrier, its lines the delivery date,
-- its customer the amount.  Returns the order id delivered (NULL: none) and
-- how many new orders the district had in this statement's snapshot: NULL
-- with a count above 0 means a concurrent delivery took the order first.
-- $1 w_id, $2 d_id, $3 carrier.
WITH no AS (
    DELETE FROM new_order
    WHERE no_w_id = $1 AND no_d_id = $2
      AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2)
    RETURNING no_o_id),
o AS (
    UPDATE orders SET o_carrier_id = $3 FROM no
    WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = no.no_o_id
    RETURNING o_c_id),
ol AS (
    UPDATE order_line SET ol_delivery_d = now() FROM no
    WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = no.no_o_id
    RETURNING ol_amount),
c AS (
    UPDATE customer SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM ol),
                        c_delivery_cnt = c_delivery_cnt + 1
    FROM o
    WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = o.o_c_id
    RETURNING c_id)
SELECT (SELECT no_o_id FROM no), (SELECT count(*) FROM c),
       (SELECT count(*) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2);

-- name: sl_all
-- Stock-Level in one statement (pipeline mode).  $1 w_id, $2 d_id, $3 threshold.
SELECT count(DISTINCT s.s_i_id)
FROM district d
JOIN order_line ol ON ol.ol_w_id = d.d_w_id AND ol.ol_d_id = d.d_id
                  AND ol.ol_o_id >= d.d_next_o_id - 20 AND ol.ol_o_id < d.d_next_o_id
JOIN stock s ON s.s_w_id = d.d_w_id AND s.s_i_id = ol.ol_i_id
WHERE d.d_w_id = $1 AND d.d_id = $2 AND s.s_quantity < $3;

-- name: proc_new_order
-- Returns total_cents and brand_generic (one 'B' or 'G' per line).  The casts
-- name each argument's type: a driver that binds integers as bigint
-- (psqlODBC's SQLExecDirect, run.statements unnamed) finds the functions too.
SELECT * FROM tpcc_new_order($1::int, $2::int, $3::int, $4::int, $5::int, $6::int[], $7::int[],
                             $8::int[]);

-- name: proc_payment
SELECT tpcc_payment($1::int, $2::int, $3::int, $4::int, $5::int, $6::text, $7::numeric);

-- name: proc_order_status
-- One row per order line, the columns of os_all_by_id.
SELECT * FROM tpcc_order_status($1::int, $2::int, $3::int, $4::text);

-- name: proc_delivery
SELECT tpcc_delivery($1::int, $2::int);

-- name: proc_stock_level
SELECT tpcc_stock_level($1::int, $2::int, $3::int);

-- name: run_new_orders
-- The database's own count of committed New-Orders: sum(d_next_o_id).
SELECT sum(d_next_o_id) FROM district;

-- name: run_ping
SELECT 1;

-- name: os_begin
-- Order-Status's transaction on a connection whose statements autocommit
-- (libpq): one snapshot for all its reads, as clause 3.4 asks (level 3
-- against New-Order, Payment and Delivery).  At read committed every
-- statement, and every statement inside a PL/pgSQL function, sees a snapshot
-- of its own.
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;

-- name: os_snapshot
-- The same for a connection that opens its transactions itself (ODBC with
-- autocommit off: psqlODBC sends BEGIN before the first statement): the
-- first statement of the transaction.
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY;

-- name: proc_version
-- The version of the installed functions (procedures.sql); a database loaded
-- by an older tpccbench has none.
SELECT tpcc_procedures_version();
