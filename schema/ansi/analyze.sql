-- Statistics after the load, generic ANSI SQL dialect.  The standard has no
-- statement for optimizer statistics (ANALYZE, UPDATE STATISTICS, RUNSTATS
-- are all vendor syntax), so each table gets a harmless full count instead:
-- it reads the table once (warming the cache) and changes nothing.  Gather
-- statistics with the DBMS's own tool after the load if it needs them.
SELECT COUNT(*) FROM order_line;
SELECT COUNT(*) FROM stock;
SELECT COUNT(*) FROM customer;
SELECT COUNT(*) FROM orders;
SELECT COUNT(*) FROM history;
SELECT COUNT(*) FROM item;
SELECT COUNT(*) FROM new_order;
SELECT COUNT(*) FROM district;
SELECT COUNT(*) FROM warehouse;
