-- Statistics after the load, biggest tables first (run in parallel by the jobs).
ANALYZE TABLE order_line;
ANALYZE TABLE stock;
ANALYZE TABLE customer;
ANALYZE TABLE orders;
ANALYZE TABLE history;
ANALYZE TABLE item;
ANALYZE TABLE new_order;
ANALYZE TABLE district;
ANALYZE TABLE warehouse;
