-- The five TPC-C transactions as stored procedures, MariaDB/MySQL dialect
-- (run.mode: procedure): one round trip per transaction.  Inputs come from the
-- client exactly as in client mode, and every procedure makes the same
-- database changes as the client-mode statements in statements.sql, in the
-- same order.  Each ends with a SELECT of what the PostgreSQL function
-- returns.  Installed by `tpccbench load` and
-- `tpccbench install-procedures`.
--
-- The loader runs this file piece by piece: a line holding only "-- go" ends
-- a piece (DELIMITER is a command of the mysql client, not SQL).  The client
-- runs with autocommit off and commits after the CALL, so no procedure
-- commits.  A procedure that changes data rolls its work back on any error
-- and re-raises the error unchanged (same SQLSTATE and error number, so a
-- deadlock stays retryable): a failed CALL leaves nothing behind, as a failed
-- PostgreSQL function call does.
DROP FUNCTION IF EXISTS tpcc_procedures_version;
-- go

-- The version of these procedures, which tpccbench checks before a run in
-- procedure mode: a database with older ones is told to install-procedures.
CREATE FUNCTION tpcc_procedures_version() RETURNS INT DETERMINISTIC NO SQL RETURN 3;
-- go
DROP PROCEDURE IF EXISTS tpcc_new_order;
-- go

-- New-Order.  Items arrive sorted by (i_id, supply w_id), the lock order, as
-- text lists {1,2,3}: element i is SUBSTRING_INDEX(SUBSTRING_INDEX(list, ',',
-- i), ',', -1) once the braces are gone.  An unused item (the 1 % of the spec)
-- raises SQLSTATE TPCRB after the valid lines: the whole order rolls back and
-- the client counts a rollback, not an error.  Ends with the outputs the
-- client checks: the total in cents, sum(ol_amount) x (1 - c_discount) x (1 +
-- w_tax + d_tax) in integer arithmetic (rates scaled by 10^4) rounded once,
-- half up, as the client computes it in client mode; and the brand-generic
-- flag per line ('B' when i_data and s_data both contain "ORIGINAL", else 'G');
-- and (version 3) the order's o_id, which the durability test looks up.
CREATE PROCEDURE tpcc_new_order(IN p_w INT, IN p_d INT, IN p_c INT, IN p_ol_cnt INT,
                                IN p_all_local INT, IN p_i_ids VARCHAR(400),
                                IN p_supply VARCHAR(400), IN p_qty VARCHAR(400))
MODIFIES SQL DATA
BEGIN
    DECLARE v_w_tax DECIMAL(4,4);
    DECLARE v_d_tax DECIMAL(4,4);
    DECLARE v_disc DECIMAL(4,4);
    DECLARE v_o_id INT;
    DECLARE v_price DECIMAL(5,2);
    DECLARE v_idata VARCHAR(50);
    DECLARE v_sdata VARCHAR(50);
    DECLARE v_dist CHAR(24);
    DECLARE v_sum BIGINT DEFAULT 0;
    DECLARE v_brands VARCHAR(15) DEFAULT '';
    DECLARE v_i INT DEFAULT 1;
    DECLARE v_item INT;
    DECLARE v_sup INT;
    DECLARE v_q INT;
    DECLARE v_msg VARCHAR(128);
    DECLARE v_ids VARCHAR(400) DEFAULT REPLACE(REPLACE(p_i_ids, '{', ''), '}', '');
    DECLARE v_sups VARCHAR(400) DEFAULT REPLACE(REPLACE(p_supply, '{', ''), '}', '');
    DECLARE v_qtys VARCHAR(400) DEFAULT REPLACE(REPLACE(p_qty, '{', ''), '}', '');
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;

    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
    SELECT d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id
    FROM district WHERE d_w_id = p_w AND d_id = p_d;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, NOW(6), NULL, p_ol_cnt, p_all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
    SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
    SELECT c_discount INTO v_disc FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
    IF v_disc IS NULL THEN
        SET v_msg = CONCAT('customer ', p_c, ' not found in w_id=', p_w, ' d_id=', p_d);
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
    END IF;
    WHILE v_i <= p_ol_cnt DO
        SET v_item = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_ids, ',', v_i), ',', -1) AS SIGNED);
        SET v_sup = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_sups, ',', v_i), ',', -1) AS SIGNED);
        SET v_q = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_qtys, ',', v_i), ',', -1) AS SIGNED);
        SET v_price = NULL;
        SELECT i_price, i_data INTO v_price, v_idata FROM item WHERE i_id = v_item;
        IF v_price IS NULL THEN
            SET v_msg = CONCAT('unused item ', v_item);
            SIGNAL SQLSTATE 'TPCRB' SET MESSAGE_TEXT = v_msg;
        END IF;
        UPDATE stock SET
            s_quantity = CASE WHEN s_quantity >= v_q + 10 THEN s_quantity - v_q
                              ELSE s_quantity - v_q + 91 END,
            s_ytd = s_ytd + v_q,
            s_order_cnt = s_order_cnt + 1,
            s_remote_cnt = s_remote_cnt + CASE WHEN v_sup <> p_w THEN 1 ELSE 0 END
        WHERE s_i_id = v_item AND s_w_id = v_sup;
        SELECT CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
                        WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                        WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
                        ELSE s_dist_10 END, s_data INTO v_dist, v_sdata
        FROM stock WHERE s_i_id = v_item AND s_w_id = v_sup;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o_id, p_d, p_w, v_i, v_item, v_sup, NULL, v_q, v_price * v_q, v_dist);
        SET v_sum = v_sum + CAST(v_price * 100 AS SIGNED) * v_q;
        SET v_brands = CONCAT(v_brands, IF(LOCATE('ORIGINAL', v_idata) > 0
                                           AND LOCATE('ORIGINAL', v_sdata) > 0, 'B', 'G'));
        SET v_i = v_i + 1;
    END WHILE;
    SELECT (v_sum * (10000 - CAST(v_disc * 10000 AS SIGNED))
            * (10000 + CAST(v_w_tax * 10000 AS SIGNED) + CAST(v_d_tax * 10000 AS SIGNED))
            + 50000000) DIV 100000000, v_brands, v_o_id;
END;
-- go
DROP PROCEDURE IF EXISTS tpcc_payment;
-- go

-- Payment.  p_c_id = 0: choose the customer by last name, position ceil(n/2)
-- in c_first order.  Returns the c_id of the customer.
CREATE PROCEDURE tpcc_payment(IN p_w INT, IN p_d INT, IN p_c_w INT, IN p_c_d INT, IN p_c_id INT,
                              IN p_c_last VARCHAR(16), IN p_amount DECIMAL(6,2))
MODIFIES SQL DATA
BEGIN
    DECLARE v_w_name VARCHAR(10);
    DECLARE v_d_name VARCHAR(10);
    DECLARE v_c INT DEFAULT p_c_id;
    DECLARE v_n INT;
    DECLARE v_off INT;
    DECLARE v_msg VARCHAR(128);
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;

    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
    SELECT w_name INTO v_w_name FROM warehouse WHERE w_id = p_w;
    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
    SELECT d_name INTO v_d_name FROM district WHERE d_w_id = p_w AND d_id = p_d;
    IF v_c = 0 THEN
        SELECT COUNT(*) INTO v_n FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
        SET v_off = GREATEST(v_n - 1, 0) DIV 2;
        SELECT c_id INTO v_c FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
        ORDER BY c_first, c_id LIMIT v_off, 1;
    END IF;
    UPDATE customer SET
        c_balance = c_balance - p_amount,
        c_ytd_payment = c_ytd_payment + p_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = CASE WHEN c_credit = 'BC'
                      THEN SUBSTRING(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', p_d, ' ', p_w,
                                            ' ', p_amount, ' ', c_data), 1, 500)
                      ELSE c_data END
    WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    IF ROW_COUNT() = 0 THEN
        SET v_msg = CONCAT('customer not found in w_id=', p_c_w, ' d_id=', p_c_d);
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
    END IF;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c, p_c_d, p_c_w, p_d, p_w, NOW(6), p_amount, CONCAT(v_w_name, '    ', v_d_name));
    SELECT v_c;
END;
-- go
DROP PROCEDURE IF EXISTS tpcc_order_status;
-- go

-- Order-Status (read-only).  p_c_id = 0: by last name.  Ends with the
-- outputs of clause 2.6.3, one row per line of the customer's most recent
-- order in ol_number order: c_id, c_first, c_middle, c_last, c_balance, o_id,
-- o_entry_d, o_carrier_id, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount,
-- ol_delivery_d.  The client opens a read-only repeatable-read transaction
-- before the CALL, so every SELECT here reads one snapshot.
CREATE PROCEDURE tpcc_order_status(IN p_w INT, IN p_d INT, IN p_c_id INT, IN p_c_last VARCHAR(16))
READS SQL DATA
BEGIN
    DECLARE v_c INT DEFAULT p_c_id;
    DECLARE v_n INT;
    DECLARE v_off INT;
    DECLARE v_o INT;
    DECLARE v_entry DATETIME(6);
    DECLARE v_carrier INT;
    DECLARE v_balance DECIMAL(12,2);
    DECLARE v_first VARCHAR(16);
    DECLARE v_middle CHAR(2);
    DECLARE v_last VARCHAR(16);

    IF v_c = 0 THEN
        SELECT COUNT(*) INTO v_n FROM customer
        WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last;
        SET v_off = GREATEST(v_n - 1, 0) DIV 2;
        SELECT c_id INTO v_c FROM customer
        WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last
        ORDER BY c_first, c_id LIMIT v_off, 1;
    END IF;
    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
    SELECT o_id, o_entry_d, o_carrier_id INTO v_o, v_entry, v_carrier
    FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c
    ORDER BY o_id DESC LIMIT 1;
    -- (between the order and its lines: tests/t/0073-odbc-order-status.sh pauses here)
    SELECT v_c, v_first, v_middle, v_last, v_balance, v_o, v_entry, v_carrier,
           ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
    FROM order_line
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o
    ORDER BY ol_number;
END;
-- go
DROP PROCEDURE IF EXISTS tpcc_delivery;
-- go

-- Delivery of all 10 districts.  Returns the order id delivered per district
-- as text {o1,...,o10} (0 = no new order: skipped).  The oldest new order is
-- read with a lock (at repeatable read a plain read would keep showing an
-- order a concurrent delivery deleted); should the delete still find
-- nothing, look again.
CREATE PROCEDURE tpcc_delivery(IN p_w INT, IN p_carrier INT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_res VARCHAR(200) DEFAULT '';
    DECLARE v_d INT DEFAULT 1;
    DECLARE v_o INT;
    DECLARE v_c INT;
    DECLARE v_sum DECIMAL(12,2);
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;

    WHILE v_d <= 10 DO
        take: LOOP
            SET v_o = NULL;
            SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
            ORDER BY no_o_id LIMIT 1 FOR UPDATE;
            IF v_o IS NULL THEN
                LEAVE take;
            END IF;
            DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
            IF ROW_COUNT() = 1 THEN
                LEAVE take;
            END IF;
        END LOOP;
        IF v_o IS NULL THEN
            SET v_res = CONCAT(v_res, IF(v_d > 1, ',', ''), '0');
        ELSE
            UPDATE orders SET o_carrier_id = p_carrier
            WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
            SELECT o_c_id INTO v_c FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
            UPDATE order_line SET ol_delivery_d = NOW(6)
            WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
            SELECT COALESCE(SUM(ol_amount), 0) INTO v_sum FROM order_line
            WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
            UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
            WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
            SET v_res = CONCAT(v_res, IF(v_d > 1, ',', ''), v_o);
        END IF;
        SET v_d = v_d + 1;
    END WHILE;
    SELECT CONCAT('{', v_res, '}');
END;
-- go
DROP PROCEDURE IF EXISTS tpcc_stock_level;
-- go

-- Stock-Level (read-only): distinct items of the last 20 orders of the
-- district whose stock is below the threshold.
CREATE PROCEDURE tpcc_stock_level(IN p_w INT, IN p_d INT, IN p_threshold INT)
READS SQL DATA
BEGIN
    SELECT COUNT(DISTINCT s.s_i_id)
    FROM district d
    JOIN order_line ol ON ol.ol_w_id = d.d_w_id AND ol.ol_d_id = d.d_id
                      AND ol.ol_o_id >= d.d_next_o_id - 20 AND ol.ol_o_id < d.d_next_o_id
    JOIN stock s ON s.s_w_id = d.d_w_id AND s.s_i_id = ol.ol_i_id
    WHERE d.d_w_id = p_w AND d.d_id = p_d AND s.s_quantity < p_threshold;
END;
