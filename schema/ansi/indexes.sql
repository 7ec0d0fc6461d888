-- Keys and indexes, built after the data, generic ANSI SQL dialect.  One
-- statement per entry; the loader runs them in parallel on its job
-- connections, largest first.  The keys are unique indexes (every key column
-- is NOT NULL, so they hold what a primary key would): ALTER TABLE ... ADD
-- PRIMARY KEY is standard but not in every DBMS (SQLite cannot add a key to a
-- table), and CREATE INDEX, though not in the standard, is in every SQL DBMS
-- in this plain form.  Names fit SQL_MAX_IDENTIFIER_LEN 19 and up.
CREATE UNIQUE INDEX order_line_pkey ON order_line (ol_w_id, ol_d_id, ol_o_id, ol_number);
CREATE UNIQUE INDEX stock_pkey ON stock (s_w_id, s_i_id);
CREATE UNIQUE INDEX customer_pkey ON customer (c_w_id, c_d_id, c_id);
CREATE INDEX customer_last_idx ON customer (c_w_id, c_d_id, c_last, c_first);
CREATE UNIQUE INDEX orders_pkey ON orders (o_w_id, o_d_id, o_id);
CREATE UNIQUE INDEX orders_customer_idx ON orders (o_w_id, o_d_id, o_c_id, o_id);
CREATE UNIQUE INDEX item_pkey ON item (i_id);
CREATE UNIQUE INDEX new_order_pkey ON new_order (no_w_id, no_d_id, no_o_id);
CREATE UNIQUE INDEX district_pkey ON district (d_w_id, d_id);
CREATE UNIQUE INDEX warehouse_pkey ON warehouse (w_id);
