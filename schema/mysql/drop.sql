-- Remove the TPC-C schema (load --drop), the procedures with it.
DROP TABLE IF EXISTS warehouse, district, customer, history, new_order, orders, order_line, item, stock, tpcc_meta, tpcc_load_step;
DROP PROCEDURE IF EXISTS tpcc_new_order;
DROP PROCEDURE IF EXISTS tpcc_payment;
DROP PROCEDURE IF EXISTS tpcc_order_status;
DROP PROCEDURE IF EXISTS tpcc_delivery;
DROP PROCEDURE IF EXISTS tpcc_stock_level;
