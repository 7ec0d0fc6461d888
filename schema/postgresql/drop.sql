-- Remove the TPC-C schema (load --drop).  The bookkeeping first, in the order
-- a part waiting for the plan reads it (load_part_plan: tpcc_load_step,
-- tpcc_load_part, tpcc_meta): a drop that holds none of them while it waits
-- cannot deadlock with that read.
DROP TABLE IF EXISTS tpcc_load_step, tpcc_load_part, tpcc_meta, warehouse, district, customer, history, new_order, orders, order_line, item, stock CASCADE;
