-- Remove the TPC-C schema (load --drop), generic ANSI SQL dialect.  Standard
-- DROP TABLE has no IF EXISTS: every table must exist (a complete earlier
-- load); after a partial one, drop the leftovers by hand.
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
