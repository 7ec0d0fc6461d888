-- Remove the TPC-C schema (load --drop).
DROP TABLE IF EXISTS warehouse, district, customer, history, new_order, orders, order_line, item, stock, tpcc_meta, tpcc_load_step, tpcc_load_part CASCADE;
