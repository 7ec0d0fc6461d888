-- Keys and indexes, built after the data, generic ANSI SQL dialect.  One
-- statement per entry; the loader runs them in parallel on its job
-- connections, largest first.  Primary keys are standard (ALTER TABLE ... ADD
-- PRIMARY KEY); CREATE INDEX is not in the standard but every SQL DBMS has it
-- in this plain form.
ALTER TABLE order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);
ALTER TABLE stock ADD PRIMARY KEY (s_w_id, s_i_id);
ALTER TABLE customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id);
CREATE INDEX customer_last_idx ON customer (c_w_id, c_d_id, c_last, c_first);
ALTER TABLE orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id);
CREATE UNIQUE INDEX orders_customer_idx ON orders (o_w_id, o_d_id, o_c_id, o_id);
ALTER TABLE item ADD PRIMARY KEY (i_id);
ALTER TABLE new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id);
ALTER TABLE district ADD PRIMARY KEY (d_w_id, d_id);
ALTER TABLE warehouse ADD PRIMARY KEY (w_id);
