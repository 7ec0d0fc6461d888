-- Remove the TPC-C schema (load --drop), generic ANSI SQL dialect.  Standard
-- DROP TABLE has no IF EXISTS: the loader runs each statement on its own and
-- passes over a table that does not exist (after a partial load).
DROP TABLE warehouse;
DROP TABLE district;
DROP TABLE customer;
DROP TABLE history;
DROP TABLE new_order;
DROP TABLE orders;
DROP TABLE order_line;
DROP TABLE item;
DROP TABLE stock;
DROP TABLE tpcc_meta;
DROP TABLE tpcc_load_step;
