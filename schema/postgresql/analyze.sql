-- Statistics after the load, biggest tables first (run in parallel by the jobs).
ANALYZE order_line;
ANALYZE stock;
ANALYZE customer;
ANALYZE orders;
ANALYZE history;
ANALYZE item;
ANALYZE new_order;
ANALYZE district;
ANALYZE warehouse;
