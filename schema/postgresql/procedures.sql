-- The five TPC-C transactions as server-side functions (run.mode: procedure):
-- one round trip per transaction.  Inputs come from the client exactly as in
-- client mode, and every function makes the same database changes as the
-- client-mode statements in statements.sql, in the same order.  Installed by
-- `tpccbench load` and `tpccbench install-procedures`.  This file runs as one
-- script (dollar-quoted bodies contain semicolons).

-- The version of these functions, which tpccbench checks before a run in
-- procedure mode: a database with older ones is told to install-procedures.
CREATE OR REPLACE FUNCTION tpcc_procedures_version() RETURNS int LANGUAGE sql IMMUTABLE AS
$$ SELECT 3 $$;

-- Return types changed in versions 2 and 3: CREATE OR REPLACE cannot change them.
DROP FUNCTION IF EXISTS tpcc_new_order(int, int, int, int, int, int[], int[], int[]);
DROP FUNCTION IF EXISTS tpcc_order_status(int, int, int, text);

-- New-Order.  Items arrive sorted by (i_id, supply w_id): the lock order.
-- An unused item (the spec's 1 %) raises SQLSTATE TPCRB after the valid lines:
-- the whole order rolls back and the client counts a rollback, not an error.
-- Returns the outputs of clause 2.4.3.3 the client checks: the total amount
-- in cents, sum(ol_amount) x (1 - c_discount) x (1 + w_tax + d_tax) in
-- integer arithmetic (rates scaled by 10^4) rounded once, half up, as the
-- client computes it in the other modes; and the brand-generic flag of each
-- line, 'B' when both i_data and s_data contain "ORIGINAL", else 'G'; and
-- (version 3) the order's o_id, which the durability test looks up after a
-- crash.
CREATE FUNCTION tpcc_new_order(p_w int, p_d int, p_c int, p_ol_cnt int, p_all_local int,
                               p_i_ids int[], p_supply int[], p_qty int[],
                               OUT total_cents bigint, OUT brand_generic text, OUT new_o_id int)
LANGUAGE plpgsql AS $$
DECLARE
    v_w_tax numeric;
    v_d_tax numeric;
    v_o_id int;
    v_disc numeric;
    v_price numeric;
    v_idata text;
    v_sdata text;
    v_dist char(24);
    v_sum bigint := 0;
BEGIN
    brand_generic := '';
    UPDATE district SET d_next_o_id = d_next_o_id + 1
    WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id;
    new_o_id := v_o_id;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, now(), NULL, p_ol_cnt, p_all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
    SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
    SELECT c_discount INTO v_disc FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'customer % not found in w_id=% d_id=%', p_c, p_w, p_d;
    END IF;
    FOR i IN 1..p_ol_cnt LOOP
        SELECT i_price, i_data INTO v_price, v_idata FROM item WHERE i_id = p_i_ids[i];
        IF NOT FOUND THEN
            RAISE EXCEPTION 'unused item %', p_i_ids[i] USING ERRCODE = 'TPCRB';
        END IF;
        UPDATE stock SET
            s_quantity = CASE WHEN s_quantity >= p_qty[i] + 10 THEN s_quantity - p_qty[i]
                              ELSE s_quantity - p_qty[i] + 91 END,
            s_ytd = s_ytd + p_qty[i],
            s_order_cnt = s_order_cnt + 1,
            s_remote_cnt = s_remote_cnt + CASE WHEN p_supply[i] <> p_w THEN 1 ELSE 0 END
        WHERE s_i_id = p_i_ids[i] AND s_w_id = p_supply[i]
        RETURNING CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
                      WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                      WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
                      ELSE s_dist_10 END, s_data INTO v_dist, v_sdata;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o_id, p_d, p_w, i, p_i_ids[i], p_supply[i], NULL, p_qty[i],
                v_price * p_qty[i], v_dist);
        v_sum := v_sum + (v_price * 100)::bigint * p_qty[i];
        brand_generic := brand_generic
            || CASE WHEN strpos(v_idata, 'ORIGINAL') > 0 AND strpos(v_sdata, 'ORIGINAL') > 0
                    THEN 'B' ELSE 'G' END;
    END LOOP;
    total_cents := (v_sum * (10000 - (v_disc * 10000)::bigint)
                    * (10000 + (v_w_tax * 10000)::bigint + (v_d_tax * 10000)::bigint)
                    + 50000000) / 100000000;
END $$;

-- Payment.  p_c_id = 0: choose the customer by last name, position ceil(n/2)
-- in c_first order.  Returns the customer's c_id.
CREATE OR REPLACE FUNCTION tpcc_payment(p_w int, p_d int, p_c_w int, p_c_d int, p_c_id int,
                                        p_c_last text, p_amount numeric)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    v_w_name text;
    v_d_name text;
    v_c int := p_c_id;
    v_n int;
BEGIN
    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w RETURNING w_name INTO v_w_name;
    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_name INTO v_d_name;
    IF v_c = 0 THEN
        SELECT count(*) INTO v_n FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
        SELECT c_id INTO v_c FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
        ORDER BY c_first, c_id OFFSET (v_n - 1) / 2 LIMIT 1;
    END IF;
    UPDATE customer SET
        c_balance = c_balance - p_amount,
        c_ytd_payment = c_ytd_payment + p_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = CASE WHEN c_credit = 'BC'
                      THEN substr(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || p_d || ' ' || p_w
                                  || ' ' || p_amount::numeric(6,2) || ' ' || c_data, 1, 500)
                      ELSE c_data END
    WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'customer not found in w_id=% d_id=%', p_c_w, p_c_d;
    END IF;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c, p_c_d, p_c_w, p_d, p_w, now(), p_amount, v_w_name || '    ' || v_d_name);
    RETURN v_c;
END $$;

-- Order-Status (read-only).  p_c_id = 0: by last name.  Returns the outputs
-- of clause 2.6.3, one row per line of the customer's most recent order (in
-- ol_number order): the customer (c_id, c_first, c_middle, c_last,
-- c_balance), the order (o_id, o_entry_d, o_carrier_id) and the line
-- (ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d).  Its
-- statements see one snapshot only inside a transaction that has one: the
-- client calls it in a read-only repeatable-read transaction (at read
-- committed each statement of a PL/pgSQL function takes its own).
CREATE FUNCTION tpcc_order_status(p_w int, p_d int, p_c_id int, p_c_last text)
RETURNS TABLE (r_c_id int, r_c_first varchar, r_c_middle char(2), r_c_last varchar,
               r_c_balance numeric, r_o_id int, r_o_entry_d timestamp, r_o_carrier_id int,
               r_ol_i_id int, r_ol_supply_w_id int, r_ol_quantity int, r_ol_amount numeric,
               r_ol_delivery_d timestamp)
LANGUAGE plpgsql AS $$
DECLARE
    v_c int := p_c_id;
    v_n int;
    v_first varchar;
    v_middle char(2);
    v_last varchar;
    v_balance numeric;
    v_o int;
    v_entry timestamp;
    v_carrier int;
BEGIN
    IF v_c = 0 THEN
        SELECT count(*) INTO v_n FROM customer
        WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last;
        SELECT c_id INTO v_c FROM customer
        WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last
        ORDER BY c_first, c_id OFFSET (v_n - 1) / 2 LIMIT 1;
    END IF;
    SELECT c_first, c_middle, c_last, c_balance INTO v_first, v_middle, v_last, v_balance
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
    SELECT o_id, o_entry_d, o_carrier_id INTO v_o, v_entry, v_carrier
    FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c
    ORDER BY o_id DESC LIMIT 1;
    -- (between the order and its lines: tests/t/0036-order-status.sh pauses here)
    RETURN QUERY
    SELECT v_c, v_first, v_middle, v_last, v_balance, v_o, v_entry, v_carrier,
           ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity::int, ol.ol_amount, ol.ol_delivery_d
    FROM order_line ol
    WHERE ol.ol_w_id = p_w AND ol.ol_d_id = p_d AND ol.ol_o_id = v_o
    ORDER BY ol.ol_number;
END $$;

-- Delivery of all 10 districts.  Returns the order id delivered per district
-- (0 = no new order: skipped).  A concurrent delivery that deleted the oldest
-- new order first makes our delete find nothing: then look again.
CREATE OR REPLACE FUNCTION tpcc_delivery(p_w int, p_carrier int)
RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
    v_res int[] := '{}';
    v_o int;
    v_c int;
    v_sum numeric;
BEGIN
    FOR d IN 1..10 LOOP
        LOOP
            SELECT min(no_o_id) INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = d;
            EXIT WHEN v_o IS NULL;
            DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = d AND no_o_id = v_o;
            EXIT WHEN FOUND;
        END LOOP;
        IF v_o IS NULL THEN
            v_res := v_res || 0;
            CONTINUE;
        END IF;
        UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = d AND o_id = v_o
        RETURNING o_c_id INTO v_c;
        UPDATE order_line SET ol_delivery_d = now()
        WHERE ol_w_id = p_w AND ol_d_id = d AND ol_o_id = v_o;
        SELECT coalesce(sum(ol_amount), 0) INTO v_sum FROM order_line
        WHERE ol_w_id = p_w AND ol_d_id = d AND ol_o_id = v_o;
        UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = p_w AND c_d_id = d AND c_id = v_c;
        v_res := v_res || v_o;
    END LOOP;
    RETURN v_res;
END $$;

-- Stock-Level (read-only): distinct items of the district's last 20 orders
-- whose stock is below the threshold.
CREATE OR REPLACE FUNCTION tpcc_stock_level(p_w int, p_d int, p_threshold int)
RETURNS int LANGUAGE sql STABLE AS $$
    SELECT count(DISTINCT s.s_i_id)::int
    FROM district d
    JOIN order_line ol ON ol.ol_w_id = d.d_w_id AND ol.ol_d_id = d.d_id
                      AND ol.ol_o_id >= d.d_next_o_id - 20 AND ol.ol_o_id < d.d_next_o_id
    JOIN stock s ON s.s_w_id = d.d_w_id AND s.s_i_id = ol.ol_i_id
    WHERE d.d_w_id = p_w AND d.d_id = p_d AND s.s_quantity < p_threshold
$$;
