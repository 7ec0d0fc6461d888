-- The five TPC-C transactions (clause 2) as prepared statements, generic ANSI
-- SQL dialect: the fallback for a DBMS without a dialect of its own.
-- src/tpcc/txn.c runs them in order and reads result columns by position:
-- they are those of schema/postgresql, in the same order.  Placeholders are
-- $1..$n (the ODBC driver sends them as ?); every value is a bound parameter.
--
-- Standard SQL only: no RETURNING and no data-modifying WITH, so a block that
-- changes rows and returns values is a step: several statements run in order
-- on one connection within the transaction, and the last one's rows are the
-- block's result (a transaction sees its own changes).  No LIMIT and no FETCH
-- FIRST (SQLite has neither standard form): MIN/MAX, no vendor functions (|| concatenates, CASE/COALESCE),
-- no session variables, CAST(... AS ...) only, CURRENT_TIMESTAMP for the
-- time.  Parameters in a select list or a concatenation are CAST to their
-- type, so a DBMS that cannot infer it (or would take them as text) still
-- knows it; to INTEGER, not SMALLINT, and NULL stays untyped, as MariaDB's
-- CAST knows neither SMALLINT nor TIMESTAMP.
--
-- Text is cut with ODBC's scalar function escape {fn SUBSTRING(s, start,
-- length)}, which the driver translates into its DBMS's own (the standard's
-- SUBSTRING(s FROM a FOR b) is not in SQLite); for a driver that translates
-- no escape (SQLite's), tpccbench's ODBC driver writes the call plain.
--
-- Pipeline mode (PostgreSQL's libpq) and procedure mode (no procedures.sql
-- here) are not available in this dialect.  Their statements that have a
-- standard equivalent are here; the others are absent, for the reason below
-- (tpccbench refuses those modes with it):
-- absent: dl_district: Delivery of one district in one block needs session variables to carry the order id from the DELETE to the updates, which standard SQL lacks (pipeline mode)
-- absent: proc_new_order: stored procedures are vendor syntax (no procedures.sql): use run.mode client
-- absent: proc_payment: stored procedures are vendor syntax (no procedures.sql): use run.mode client
-- absent: proc_order_status: stored procedures are vendor syntax (no procedures.sql): use run.mode client
-- absent: proc_delivery: stored procedures are vendor syntax (no procedures.sql): use run.mode client
-- absent: proc_stock_level: stored procedures are vendor syntax (no procedures.sql): use run.mode client
-- absent: proc_version: stored procedures are vendor syntax (no procedures.sql): use run.mode client

-- name: iso_read_committed
-- Standard SQL sets the isolation level per transaction; some DBMSs apply it
-- to the next transaction only (then the DBMS's default level holds).
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- name: iso_repeatable_read
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- name: iso_serializable
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;

-- name: no_header
-- New-Order, first step: take the next order id of the district, insert the
-- order and new_order rows, read the taxes and the customer.  The order id is
-- read back from the district row we just updated and hold locked.
-- $1 w_id, $2 d_id, $3 c_id, $4 o_ol_cnt, $5 o_all_local.
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2;
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
SELECT d_next_o_id - 1, CAST($2 AS INTEGER), CAST($1 AS INTEGER), CAST($3 AS INTEGER),
       CURRENT_TIMESTAMP, CAST(NULL AS INTEGER), CAST($4 AS INTEGER), CAST($5 AS INTEGER)
FROM district WHERE d_w_id = $1 AND d_id = $2;
INSERT INTO new_order (no_o_id, no_d_id, no_w_id)
SELECT d_next_o_id - 1, CAST($2 AS INTEGER), CAST($1 AS INTEGER)
FROM district WHERE d_w_id = $1 AND d_id = $2;
SELECT w.w_tax, d.d_tax, d.d_next_o_id - 1, c.c_discount, c.c_last, c.c_credit
FROM district d, warehouse w, customer c
WHERE d.d_w_id = $1 AND d.d_id = $2 AND w.w_id = $1
  AND c.c_w_id = $1 AND c.c_d_id = $2 AND c.c_id = $3;

-- name: no_line
-- New-Order, one order line: update the stock row (quantity rule of clause
-- 2.4.2.2), insert the order line, read item, stock and line back.  When the
-- item does not exist (the 1 % rollback of the spec) the UPDATE and the INSERT
-- change nothing and the SELECT returns no row.
-- $1 i_id, $2 supply w_id, $3 quantity, $4 remote (0/1), $5 d_id, $6 w_id,
-- $7 o_id, $8 ol_number.
UPDATE stock SET
    s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3
                      ELSE s_quantity - $3 + 91 END,
    s_ytd = s_ytd + $3,
    s_order_cnt = s_order_cnt + 1,
    s_remote_cnt = s_remote_cnt + $4
WHERE s_i_id = $1 AND s_w_id = $2 AND EXISTS (SELECT 1 FROM item WHERE i_id = $1);
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                        ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT CAST($7 AS INTEGER), CAST($5 AS INTEGER), CAST($6 AS INTEGER), CAST($8 AS INTEGER),
       CAST($1 AS INTEGER), CAST($2 AS INTEGER), NULL, CAST($3 AS INTEGER),
       i.i_price * CAST($3 AS INTEGER),
       CASE CAST($5 AS INTEGER) WHEN 1 THEN s.s_dist_01 WHEN 2 THEN s.s_dist_02
           WHEN 3 THEN s.s_dist_03 WHEN 4 THEN s.s_dist_04 WHEN 5 THEN s.s_dist_05
           WHEN 6 THEN s.s_dist_06 WHEN 7 THEN s.s_dist_07 WHEN 8 THEN s.s_dist_08
           WHEN 9 THEN s.s_dist_09 ELSE s.s_dist_10 END
FROM item i, stock s WHERE i.i_id = $1 AND s.s_i_id = $1 AND s.s_w_id = $2;
SELECT i.i_price, i.i_data, s.s_quantity, s.s_data, ol.ol_amount
FROM item i, stock s, order_line ol
WHERE i.i_id = $1 AND s.s_i_id = $1 AND s.s_w_id = $2
  AND ol.ol_w_id = $6 AND ol.ol_d_id = $5 AND ol.ol_o_id = $7 AND ol.ol_number = $8;

-- name: pay_warehouse_district
-- Payment, first step: warehouse and district year-to-date, then their
-- names and addresses.  $1 w_id, $2 d_id, $3 amount.
UPDATE warehouse SET w_ytd = w_ytd + CAST($3 AS DECIMAL(6,2)) WHERE w_id = $1;
UPDATE district SET d_ytd = d_ytd + CAST($3 AS DECIMAL(6,2)) WHERE d_w_id = $1 AND d_id = $2;
SELECT w.w_name, d.d_name, w.w_street_1, w.w_street_2, w.w_city, w.w_state, w.w_zip,
       d.d_street_1, d.d_street_2, d.d_city, d.d_state, d.d_zip
FROM warehouse w, district d
WHERE w.w_id = $1 AND d.d_w_id = $1 AND d.d_id = $2;

-- name: pay_customers_by_name
SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first, c_id;

-- name: pay_customer_history
-- Payment, customer and history: balance, year-to-date, count, and for bad
-- credit (BC) the c_data rule of clause 2.5.2.2 (c_id c_d_id c_w_id d_id
-- w_id amount in front, kept to 500 characters); then the history row with
-- h_data = w_name + 4 spaces + d_name; then the customer row.
-- $1 c_w_id, $2 c_d_id, $3 c_id, $4 amount, $5 d_id, $6 w_id.
UPDATE customer SET
    c_balance = c_balance - CAST($4 AS DECIMAL(6,2)),
    c_ytd_payment = c_ytd_payment + CAST($4 AS DECIMAL(6,2)),
    c_payment_cnt = c_payment_cnt + 1,
    c_data = CASE WHEN c_credit = 'BC'
                  THEN {fn SUBSTRING(CAST(c_id AS VARCHAR(11)) || ' ' || CAST(c_d_id AS VARCHAR(6))
                                 || ' ' || CAST(c_w_id AS VARCHAR(11))
                                 || ' ' || CAST(CAST($5 AS INTEGER) AS VARCHAR(11))
                                 || ' ' || CAST(CAST($6 AS INTEGER) AS VARCHAR(11))
                                 || ' ' || CAST(CAST($4 AS DECIMAL(6,2)) AS VARCHAR(12))
                                 || ' ' || c_data, 1, 500)}
                  ELSE c_data END
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
SELECT c_id, CAST($2 AS INTEGER), CAST($1 AS INTEGER), CAST($5 AS INTEGER), CAST($6 AS INTEGER),
       CURRENT_TIMESTAMP, CAST($4 AS DECIMAL(6,2)),
       (SELECT w_name FROM warehouse WHERE w_id = $6) || '    '
       || (SELECT d_name FROM district WHERE d_w_id = $6 AND d_id = $5)
FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;
SELECT c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
       c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance,
       CASE WHEN c_credit = 'BC' THEN {fn SUBSTRING(c_data, 1, 200)} ELSE '' END AS c_data_200
FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;

-- name: pay_customer_history_by_name
-- The same with the customer chosen by last name in SQL (used by pipeline
-- mode, which this dialect lacks; kept equivalent): position ceil(n/2) of
-- those with c_last = $3 in c_first order, found again by each statement
-- (c_first and c_last do not change).  rn = ceil(n/2) is written
-- 2*rn >= n AND 2*rn < n + 2, as integer division differs between DBMSs.
-- $1 c_w_id, $2 c_d_id, $3 c_last, $4 amount, $5 d_id, $6 w_id.
UPDATE customer SET
    c_balance = c_balance - CAST($4 AS DECIMAL(6,2)),
    c_ytd_payment = c_ytd_payment + CAST($4 AS DECIMAL(6,2)),
    c_payment_cnt = c_payment_cnt + 1,
    c_data = CASE WHEN c_credit = 'BC'
                  THEN {fn SUBSTRING(CAST(c_id AS VARCHAR(11)) || ' ' || CAST(c_d_id AS VARCHAR(6))
                                 || ' ' || CAST(c_w_id AS VARCHAR(11))
                                 || ' ' || CAST(CAST($5 AS INTEGER) AS VARCHAR(11))
                                 || ' ' || CAST(CAST($6 AS INTEGER) AS VARCHAR(11))
                                 || ' ' || CAST(CAST($4 AS DECIMAL(6,2)) AS VARCHAR(12))
                                 || ' ' || c_data, 1, 500)}
                  ELSE c_data END
WHERE c_w_id = $1 AND c_d_id = $2
  AND c_id = (SELECT x.c_id FROM (
                  SELECT c_id, ROW_NUMBER() OVER (ORDER BY c_first, c_id) AS rn, COUNT(*) OVER () AS n
                  FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) x
              WHERE 2 * x.rn >= x.n AND 2 * x.rn < x.n + 2);
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
SELECT x.c_id, CAST($2 AS INTEGER), CAST($1 AS INTEGER), CAST($5 AS INTEGER),
       CAST($6 AS INTEGER), CURRENT_TIMESTAMP, CAST($4 AS DECIMAL(6,2)),
       (SELECT w_name FROM warehouse WHERE w_id = $6) || '    '
       || (SELECT d_name FROM district WHERE d_w_id = $6 AND d_id = $5)
FROM (SELECT c_id, ROW_NUMBER() OVER (ORDER BY c_first, c_id) AS rn, COUNT(*) OVER () AS n
      FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) x
WHERE 2 * x.rn >= x.n AND 2 * x.rn < x.n + 2;
SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance
FROM customer c
JOIN (SELECT c_id, ROW_NUMBER() OVER (ORDER BY c_first, c_id) AS rn, COUNT(*) OVER () AS n
      FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) x ON x.c_id = c.c_id
WHERE c.c_w_id = $1 AND c.c_d_id = $2 AND 2 * x.rn >= x.n AND 2 * x.rn < x.n + 2;

-- name: os_customers_by_name
SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first, c_id;

-- name: os_get_customer
SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;

-- name: os_last_order
SELECT o_id, o_entry_d, o_carrier_id FROM orders
WHERE o_w_id = $1 AND o_d_id = $2
  AND o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3);

-- name: os_order_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 ORDER BY ol_number;

-- name: dl_oldest_new_order
-- No row (or NULL) means no new order.  Not a locking read (SELECT ... FOR
-- UPDATE is not standard outside cursors): when a concurrent delivery took
-- the order, our DELETE removes nothing (or the DBMS reports a serialization
-- failure) and txn.c looks again.
SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2;

-- name: dl_delete_new_order
-- Zero rows deleted means a concurrent delivery took this order first.
DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3;

-- name: dl_update_order
UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3;
SELECT o_c_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3;

-- name: dl_update_order_lines
UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3;
SELECT COALESCE(SUM(ol_amount), 0) FROM order_line
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3;

-- name: dl_update_customer
UPDATE customer SET c_balance = c_balance + CAST($4 AS DECIMAL(12,2)),
                    c_delivery_cnt = c_delivery_cnt + 1
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;

-- name: sl_next_order_id
SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2;

-- name: sl_low_stock
SELECT COUNT(DISTINCT s_i_id) FROM order_line
JOIN stock ON s_i_id = ol_i_id AND s_w_id = ol_w_id
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id >= $3 - 20 AND ol_o_id < $3
  AND s_quantity < $4;

-- name: no_line_pipe
-- Pipeline mode is PostgreSQL-only (libpq) and not available in this
-- dialect; this is the equivalent step for completeness: as no_line, with
-- the order id taken from the district row this transaction updated.
-- $1 i_id, $2 supply w_id, $3 quantity, $4 remote (0/1), $5 d_id, $6 w_id, $7 ol_number.
UPDATE stock SET
    s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3
                      ELSE s_quantity - $3 + 91 END,
    s_ytd = s_ytd + $3,
    s_order_cnt = s_order_cnt + 1,
    s_remote_cnt = s_remote_cnt + $4
WHERE s_i_id = $1 AND s_w_id = $2 AND EXISTS (SELECT 1 FROM item WHERE i_id = $1);
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                        ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT d.d_next_o_id - 1, CAST($5 AS INTEGER), CAST($6 AS INTEGER), CAST($7 AS INTEGER),
       CAST($1 AS INTEGER), CAST($2 AS INTEGER), NULL, CAST($3 AS INTEGER),
       i.i_price * CAST($3 AS INTEGER),
       CASE CAST($5 AS INTEGER) WHEN 1 THEN s.s_dist_01 WHEN 2 THEN s.s_dist_02
           WHEN 3 THEN s.s_dist_03 WHEN 4 THEN s.s_dist_04 WHEN 5 THEN s.s_dist_05
           WHEN 6 THEN s.s_dist_06 WHEN 7 THEN s.s_dist_07 WHEN 8 THEN s.s_dist_08
           WHEN 9 THEN s.s_dist_09 ELSE s.s_dist_10 END
FROM item i, stock s, district d
WHERE i.i_id = $1 AND s.s_i_id = $1 AND s.s_w_id = $2 AND d.d_w_id = $6 AND d.d_id = $5;
SELECT i.i_price, i.i_data, s.s_quantity, s.s_data, ol.ol_amount
FROM item i, stock s, district d, order_line ol
WHERE i.i_id = $1 AND s.s_i_id = $1 AND s.s_w_id = $2 AND d.d_w_id = $6 AND d.d_id = $5
  AND ol.ol_w_id = $6 AND ol.ol_d_id = $5 AND ol.ol_o_id = d.d_next_o_id - 1 AND ol.ol_number = $7;

-- name: os_all_by_id
-- Order-Status in one statement (pipeline mode, not available in this
-- dialect; equivalent here): the customer, its most recent order and the
-- lines of that order, one row per line.  $1 w_id, $2 d_id, $3 c_id.
SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance, o.o_id, o.o_entry_d,
       o.o_carrier_id, ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount,
       ol.ol_delivery_d
FROM customer c, orders o, order_line ol
WHERE c.c_w_id = $1 AND c.c_d_id = $2 AND c.c_id = $3
  AND o.o_w_id = $1 AND o.o_d_id = $2
  AND o.o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3)
  AND ol.ol_w_id = $1 AND ol.ol_d_id = $2 AND ol.ol_o_id = o.o_id
ORDER BY ol.ol_number;

-- name: os_all_by_name
-- The same with the customer chosen by last name ($3): position ceil(n/2).
SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance, o.o_id, o.o_entry_d,
       o.o_carrier_id, ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount,
       ol.ol_delivery_d
FROM (SELECT c_id, c_first, c_middle, c_last, c_balance,
             ROW_NUMBER() OVER (ORDER BY c_first, c_id) AS rn, COUNT(*) OVER () AS n
      FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) c,
     orders o, order_line ol
WHERE 2 * c.rn >= c.n AND 2 * c.rn < c.n + 2
  AND o.o_w_id = $1 AND o.o_d_id = $2
  AND o.o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = c.c_id)
  AND ol.ol_w_id = $1 AND ol.ol_d_id = $2 AND ol.ol_o_id = o.o_id
ORDER BY ol.ol_number;

-- name: sl_all
-- Stock-Level in one statement (pipeline mode).  $1 w_id, $2 d_id, $3 threshold.
SELECT COUNT(DISTINCT s.s_i_id)
FROM district d
JOIN order_line ol ON ol.ol_w_id = d.d_w_id AND ol.ol_d_id = d.d_id
                  AND ol.ol_o_id >= d.d_next_o_id - 20 AND ol.ol_o_id < d.d_next_o_id
JOIN stock s ON s.s_w_id = d.d_w_id AND s.s_i_id = ol.ol_i_id
WHERE d.d_w_id = $1 AND d.d_id = $2 AND s.s_quantity < $3;

-- name: run_new_orders
-- The count of committed New-Orders the database holds: sum(d_next_o_id).
SELECT SUM(d_next_o_id) FROM district;

-- name: run_ping
-- A cheap round trip (a SELECT without FROM is not standard).
SELECT COUNT(*) FROM warehouse WHERE 1 = 0;

-- name: os_begin
-- Order-Status's transaction: one read-only repeatable-read transaction, so
-- all its reads see one snapshot (clause 3.4).  This form is for a
-- connection whose statements autocommit; through ODBC (autocommit off)
-- os_snapshot is used.
START TRANSACTION READ ONLY, ISOLATION LEVEL REPEATABLE READ;

-- name: os_snapshot
-- The same with autocommit off: the characteristics of the transaction
-- Order-Status's first read opens (standard SQL: before any statement of it).
SET TRANSACTION READ ONLY, ISOLATION LEVEL REPEATABLE READ;
