-- Statements of the loader and of `check`, generic ANSI SQL dialect: the
-- consistency conditions of TPC-C clause 3.3.2, row counts, the load's
-- bookkeeping.  Each condition query returns nothing when it holds, else its
-- offenders in order, each a text naming it (check.c reads the first): no
-- LIMIT or FETCH FIRST, which not every DBMS has (SQLite has neither of the
-- standard's forms).  Standard SQL only: || concatenates (numbers CAST to
-- VARCHAR first), and the NULL-safe comparison a IS NOT DISTINCT FROM b (not
-- in every DBMS) is written out with CASE, as are comparisons of two truth
-- values.  Sums of money compare to the cent (ABS(a - b) < 0.005): equal
-- DECIMALs are, and a DBMS that keeps DECIMAL as binary floating point
-- (SQLite) adds its rounding.

-- What standard SQL cannot ask is absent on purpose (tpccbench reports each
-- unavailable with the reason on its line; the DBMS name and version come
-- from the ODBC driver, SQLGetInfo; which tables exist, from its catalog, SQLTables):
-- absent: schema_tables: the ODBC driver asks the catalog (SQLTables) which tables exist
-- absent: backend_id: standard SQL cannot ask which server session serves a connection, so a pooler is never detected (database.pooler can say so)
-- absent: fp_server: standard SQL cannot ask for the server's address, process, full version or data directory
-- absent: fp_settings: standard SQL has no view of server settings
-- absent: metrics_counters: standard SQL has no view of server statistics
-- absent: metrics_wal: standard SQL has no view of server statistics
-- absent: metrics_checkpoints: standard SQL has no view of server statistics
-- absent: metrics_sessions: standard SQL has no view of server statistics
-- absent: metrics_waits: standard SQL has no view of what a session waits for
-- absent: metrics_events: standard SQL has no view of checkpoints or autovacuum
-- absent: metrics_statements: standard SQL has no statistics of statements
-- absent: metrics_statements_text: standard SQL has no statistics of statements
-- absent: metrics_statements_track: standard SQL has no statistics of statements

-- name: cond1
SELECT 'w_id=' || CAST(w.w_id AS VARCHAR(11)) || ': w_ytd=' || CAST(w.w_ytd AS VARCHAR(20))
       || ' but sum(d_ytd)=' || COALESCE(CAST(d.s AS VARCHAR(20)), 'none')
FROM warehouse w
LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE CASE WHEN ABS(w.w_ytd - d.s) < 0.005 THEN 0 ELSE 1 END = 1
ORDER BY w.w_id;

-- name: cond2
SELECT 'w_id=' || CAST(d.d_w_id AS VARCHAR(11)) || ' d_id=' || CAST(d.d_id AS VARCHAR(6))
       || ': d_next_o_id-1=' || CAST(d.d_next_o_id - 1 AS VARCHAR(11))
       || ' max(o_id)=' || COALESCE(CAST(o.m AS VARCHAR(11)), 'none')
       || ' max(no_o_id)=' || COALESCE(CAST(n.m AS VARCHAR(11)), 'none')
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE CASE WHEN o.m = d.d_next_o_id - 1 THEN 0 ELSE 1 END = 1
   OR (n.m IS NOT NULL AND n.m <> d.d_next_o_id - 1)
ORDER BY d.d_w_id, d.d_id;

-- name: cond3
SELECT 'w_id=' || CAST(no_w_id AS VARCHAR(11)) || ' d_id=' || CAST(no_d_id AS VARCHAR(6))
       || ': max(no_o_id)-min(no_o_id)+1=' || CAST(mx - mn + 1 AS VARCHAR(11))
       || ' but count(new_order)=' || CAST(c AS VARCHAR(20))
FROM (SELECT no_w_id, no_d_id, MAX(no_o_id) AS mx, MIN(no_o_id) AS mn, COUNT(*) AS c
      FROM new_order GROUP BY no_w_id, no_d_id) x
WHERE mx - mn + 1 <> c
ORDER BY no_w_id, no_d_id;

-- name: cond4
-- The districts found in either table (FULL JOIN is optional in some
-- DBMSs), then both sides.
SELECT 'w_id=' || CAST(k.w AS VARCHAR(11)) || ' d_id=' || CAST(k.d AS VARCHAR(6))
       || ': sum(o_ol_cnt)=' || COALESCE(CAST(o.s AS VARCHAR(20)), 'none')
       || ' but count(order_line)=' || COALESCE(CAST(l.c AS VARCHAR(20)), 'none')
FROM (SELECT o_w_id AS w, o_d_id AS d FROM orders GROUP BY o_w_id, o_d_id
      UNION SELECT ol_w_id, ol_d_id FROM order_line GROUP BY ol_w_id, ol_d_id) k
LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = k.w AND o.o_d_id = k.d
LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id) l
       ON l.ol_w_id = k.w AND l.ol_d_id = k.d
WHERE CASE WHEN o.s = l.c THEN 0 ELSE 1 END = 1
ORDER BY k.w, k.d;

-- name: cond5
SELECT 'w_id=' || CAST(o.o_w_id AS VARCHAR(11)) || ' d_id=' || CAST(o.o_d_id AS VARCHAR(6))
       || ' o_id=' || CAST(o.o_id AS VARCHAR(11)) || ': o_carrier_id '
       || CASE WHEN o.o_carrier_id IS NULL THEN 'is NULL but no new_order row'
               ELSE 'is set but a new_order row exists' END
FROM orders o
LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
WHERE CASE WHEN o.o_carrier_id IS NULL THEN 1 ELSE 0 END
   <> CASE WHEN n.no_o_id IS NOT NULL THEN 1 ELSE 0 END
ORDER BY o.o_w_id, o.o_d_id, o.o_id;

-- name: cond6
SELECT 'w_id=' || CAST(o.o_w_id AS VARCHAR(11)) || ' d_id=' || CAST(o.o_d_id AS VARCHAR(6))
       || ' o_id=' || CAST(o.o_id AS VARCHAR(11)) || ': o_ol_cnt=' || CAST(o.o_ol_cnt AS VARCHAR(6))
       || ' but ' || CAST(COALESCE(l.c, 0) AS VARCHAR(20)) || ' order lines'
FROM orders o
LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS c FROM order_line
           GROUP BY ol_w_id, ol_d_id, ol_o_id) l
       ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
WHERE CASE WHEN o.o_ol_cnt = l.c THEN 0 ELSE 1 END = 1
ORDER BY o.o_w_id, o.o_d_id, o.o_id;

-- name: cond7
SELECT 'w_id=' || CAST(l.ol_w_id AS VARCHAR(11)) || ' d_id=' || CAST(l.ol_d_id AS VARCHAR(6))
       || ' o_id=' || CAST(l.ol_o_id AS VARCHAR(11)) || ' ol_number=' || CAST(l.ol_number AS VARCHAR(6))
       || ': ol_delivery_d ' || CASE WHEN l.ol_delivery_d IS NULL THEN 'is NULL' ELSE 'is set' END
       || ' but o_carrier_id ' || CASE WHEN o.o_carrier_id IS NULL THEN 'is NULL' ELSE 'is set' END
FROM order_line l
JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id
WHERE CASE WHEN l.ol_delivery_d IS NULL THEN 1 ELSE 0 END
   <> CASE WHEN o.o_carrier_id IS NULL THEN 1 ELSE 0 END
ORDER BY l.ol_w_id, l.ol_d_id, l.ol_o_id;

-- name: cond8
SELECT 'w_id=' || CAST(w.w_id AS VARCHAR(11)) || ': w_ytd=' || CAST(w.w_ytd AS VARCHAR(20))
       || ' but sum(h_amount)=' || COALESCE(CAST(h.s AS VARCHAR(20)), 'none')
FROM warehouse w
LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE CASE WHEN ABS(w.w_ytd - h.s) < 0.005 THEN 0 ELSE 1 END = 1
ORDER BY w.w_id;

-- name: cond9
SELECT 'w_id=' || CAST(d.d_w_id AS VARCHAR(11)) || ' d_id=' || CAST(d.d_id AS VARCHAR(6))
       || ': d_ytd=' || CAST(d.d_ytd AS VARCHAR(20))
       || ' but sum(h_amount)=' || COALESCE(CAST(h.s AS VARCHAR(20)), 'none')
FROM district d
LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
       ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
WHERE CASE WHEN ABS(d.d_ytd - h.s) < 0.005 THEN 0 ELSE 1 END = 1
ORDER BY d.d_w_id, d.d_id;

-- name: cond10
-- The sums per customer are grouped once each (derived tables), not looked
-- up per customer.
SELECT 'w_id=' || CAST(c.c_w_id AS VARCHAR(11)) || ' d_id=' || CAST(c.c_d_id AS VARCHAR(6))
       || ' c_id=' || CAST(c.c_id AS VARCHAR(11)) || ': c_balance=' || CAST(c.c_balance AS VARCHAR(20))
       || ' but delivered ol_amount - h_amount='
       || CAST(COALESCE(ol.s, 0) - COALESCE(h.s, 0) AS VARCHAR(20))
FROM customer c
LEFT JOIN (SELECT o.o_w_id AS w, o.o_d_id AS d, o.o_c_id AS cid, SUM(l.ol_amount) AS s
           FROM orders o JOIN order_line l
             ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
           WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) ol
       ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.cid = c.c_id
LEFT JOIN (SELECT h_c_w_id AS w, h_c_d_id AS d, h_c_id AS cid, SUM(h_amount) AS s
           FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
       ON h.w = c.c_w_id AND h.d = c.c_d_id AND h.cid = c.c_id
WHERE ABS(c.c_balance - (COALESCE(ol.s, 0) - COALESCE(h.s, 0))) >= 0.005
ORDER BY c.c_w_id, c.c_d_id, c.c_id;

-- name: cond11
SELECT 'w_id=' || CAST(d.d_w_id AS VARCHAR(11)) || ' d_id=' || CAST(d.d_id AS VARCHAR(6))
       || ': count(orders)-count(new_order)='
       || CAST(COALESCE(o.c, 0) - COALESCE(n.c, 0) AS VARCHAR(20)) || ' but must be 2100'
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE COALESCE(o.c, 0) - COALESCE(n.c, 0) <> 2100
ORDER BY d.d_w_id, d.d_id;

-- name: cond11_run
-- Condition 11 generalized, for after transactions: each delivery removes one
-- new_order row of a district and adds 1 to c_delivery_cnt of one of its
-- customers, so count(orders) - count(new_order) = 2100 + sum(c_delivery_cnt)
-- per district holds always (the spec's form is this with no delivery yet).
SELECT 'w_id=' || CAST(d.d_w_id AS VARCHAR(11)) || ' d_id=' || CAST(d.d_id AS VARCHAR(6))
       || ': count(orders)-count(new_order)='
       || CAST(COALESCE(o.c, 0) - COALESCE(n.c, 0) AS VARCHAR(20))
       || ' but 2100+sum(c_delivery_cnt)=' || CAST(2100 + COALESCE(c.s, 0) AS VARCHAR(20))
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
LEFT JOIN (SELECT c_w_id, c_d_id, SUM(c_delivery_cnt) AS s FROM customer GROUP BY c_w_id, c_d_id) c
       ON c.c_w_id = d.d_w_id AND c.c_d_id = d.d_id
WHERE COALESCE(o.c, 0) - COALESCE(n.c, 0) <> 2100 + COALESCE(c.s, 0)
ORDER BY d.d_w_id, d.d_id;

-- name: cond12
SELECT 'w_id=' || CAST(c.c_w_id AS VARCHAR(11)) || ' d_id=' || CAST(c.c_d_id AS VARCHAR(6))
       || ' c_id=' || CAST(c.c_id AS VARCHAR(11)) || ': c_balance+c_ytd_payment='
       || CAST(c.c_balance + c.c_ytd_payment AS VARCHAR(20))
       || ' but delivered ol_amount=' || CAST(COALESCE(ol.s, 0) AS VARCHAR(20))
FROM customer c
LEFT JOIN (SELECT o.o_w_id AS w, o.o_d_id AS d, o.o_c_id AS cid, SUM(l.ol_amount) AS s
           FROM orders o JOIN order_line l
             ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
           WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) ol
       ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.cid = c.c_id
WHERE ABS(c.c_balance + c.c_ytd_payment - COALESCE(ol.s, 0)) >= 0.005
ORDER BY c.c_w_id, c.c_d_id, c.c_id;

-- name: counts
-- One row of ten counts: each derived table has exactly one row (a SELECT
-- without FROM is not standard).
SELECT w.n, d.n, c.n, h.n, nw.n, o.n, ol.n, i.n, s.n, o.l
FROM (SELECT COUNT(*) AS n FROM warehouse) w, (SELECT COUNT(*) AS n FROM district) d,
     (SELECT COUNT(*) AS n FROM customer) c, (SELECT COUNT(*) AS n FROM history) h,
     (SELECT COUNT(*) AS n FROM new_order) nw,
     (SELECT COUNT(*) AS n, COALESCE(SUM(o_ol_cnt), 0) AS l FROM orders) o,
     (SELECT COUNT(*) AS n FROM order_line) ol, (SELECT COUNT(*) AS n FROM item) i,
     (SELECT COUNT(*) AS n FROM stock) s;

-- name: fresh
-- 1 while no transaction has changed the data since the load.
SELECT CASE WHEN COALESCE(SUM(d_next_o_id), 0) = 3001 * COUNT(*)
             AND (SELECT COUNT(*) FROM history) = 3000 * COUNT(*)
             AND (SELECT COUNT(*) FROM new_order) = 900 * COUNT(*) THEN 1 ELSE 0 END
FROM district;

-- name: meta_insert
INSERT INTO tpcc_meta (warehouses, seed, c_last, c_id, ol_i_id) VALUES ($1, $2, $3, $4, $5);

-- name: step_insert
INSERT INTO tpcc_load_step (step, warehouses, seed, n_rows, load_epoch) VALUES ($1, $2, $3, $4, $5);

-- name: steps_get
SELECT step, warehouses, seed, n_rows, load_epoch FROM tpcc_load_step;

-- name: meta_get
SELECT warehouses, seed, c_last, c_id, ol_i_id FROM tpcc_meta;
