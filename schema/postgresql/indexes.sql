-- Keys and indexes, built after the data.  One statement per entry; the
-- loader runs them in parallel on its job connections, largest first.
ALTER TABLE order_line ADD CONSTRAINT order_line_pk PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);
ALTER TABLE stock ADD CONSTRAINT stock_pk PRIMARY KEY (s_w_id, s_i_id);
ALTER TABLE customer ADD CONSTRAINT customer_pk PRIMARY KEY (c_w_id, c_d_id, c_id);
CREATE INDEX customer_last_idx ON customer (c_w_id, c_d_id, c_last, c_first);
ALTER TABLE orders ADD CONSTRAINT orders_pk PRIMARY KEY (o_w_id, o_d_id, o_id);
CREATE UNIQUE INDEX orders_customer_idx ON orders (o_w_id, o_d_id, o_c_id, o_id);
ALTER TABLE item ADD CONSTRAINT item_pk PRIMARY KEY (i_id);
ALTER TABLE new_order ADD CONSTRAINT new_order_pk PRIMARY KEY (no_w_id, no_d_id, no_o_id);
ALTER TABLE district ADD CONSTRAINT district_pk PRIMARY KEY (d_w_id, d_id);
ALTER TABLE warehouse ADD CONSTRAINT warehouse_pk PRIMARY KEY (w_id);
