-- Statements of the loader and of `check`, MariaDB/MySQL dialect: the
-- consistency conditions of TPC-C clause 3.3.2, row counts, the load's
-- bookkeeping, the environment fingerprint, the metrics.  Each condition query returns nothing when it
-- holds, else one row: a text naming the first offender.  These run as whole
-- blocks (one statement each); a <=> b is the NULL-safe equality that
-- PostgreSQL writes a IS NOT DISTINCT FROM b.
--
-- What this dialect cannot ask is absent, for the reason on its line:
-- absent: schema_tables: the ODBC driver asks the catalog (SQLTables) which tables exist
-- absent: metrics_events: not yet: MariaDB has no checkpoint or autovacuum events of this kind sampled
-- absent: metrics_statements: MariaDB has no pg_stat_statements (performance_schema's statement digests are not read yet)
-- absent: metrics_statements_text: MariaDB has no pg_stat_statements
-- absent: metrics_statements_track: MariaDB has no pg_stat_statements
-- absent: metrics_checkpoints: InnoDB counts no checkpoints (it checkpoints continuously; the redo log's bytes are db_wal_bytes_per_s)

-- name: cond1
SELECT CONCAT('w_id=', w.w_id, ': w_ytd=', w.w_ytd, ' but sum(d_ytd)=', COALESCE(d.s, 'none'))
FROM warehouse w
LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE NOT (w.w_ytd <=> d.s)
ORDER BY w.w_id LIMIT 1;

-- name: cond2
SELECT CONCAT('w_id=', d.d_w_id, ' d_id=', d.d_id, ': d_next_o_id-1=', d.d_next_o_id - 1,
              ' max(o_id)=', COALESCE(o.m, 'none'), ' max(no_o_id)=', COALESCE(n.m, 'none'))
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE NOT (o.m <=> d.d_next_o_id - 1) OR (n.m IS NOT NULL AND n.m <> d.d_next_o_id - 1)
ORDER BY d.d_w_id, d.d_id LIMIT 1;

-- name: cond3
SELECT CONCAT('w_id=', no_w_id, ' d_id=', no_d_id, ': max(no_o_id)-min(no_o_id)+1=', mx - mn + 1,
              ' but count(new_order)=', c)
FROM (SELECT no_w_id, no_d_id, MAX(no_o_id) AS mx, MIN(no_o_id) AS mn, COUNT(*) AS c
      FROM new_order GROUP BY no_w_id, no_d_id) x
WHERE mx - mn + 1 <> c
ORDER BY no_w_id, no_d_id LIMIT 1;

-- name: cond4
-- No FULL JOIN in MySQL: the districts found in either table, then both sides.
SELECT CONCAT('w_id=', k.w, ' d_id=', k.d, ': sum(o_ol_cnt)=', COALESCE(o.s, 'none'),
              ' but count(order_line)=', COALESCE(l.c, 'none'))
FROM (SELECT o_w_id AS w, o_d_id AS d FROM orders GROUP BY o_w_id, o_d_id
      UNION SELECT ol_w_id, ol_d_id FROM order_line GROUP BY ol_w_id, ol_d_id) k
LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = k.w AND o.o_d_id = k.d
LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id) l
       ON l.ol_w_id = k.w AND l.ol_d_id = k.d
WHERE NOT (o.s <=> l.c)
ORDER BY k.w, k.d LIMIT 1;

-- name: cond5
SELECT CONCAT('w_id=', o.o_w_id, ' d_id=', o.o_d_id, ' o_id=', o.o_id, ': o_carrier_id ',
              CASE WHEN o.o_carrier_id IS NULL THEN 'is NULL but no new_order row'
                   ELSE 'is set but a new_order row exists' END)
FROM orders o
LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)
ORDER BY o.o_w_id, o.o_d_id, o.o_id LIMIT 1;

-- name: cond6
SELECT CONCAT('w_id=', o.o_w_id, ' d_id=', o.o_d_id, ' o_id=', o.o_id, ': o_ol_cnt=', o.o_ol_cnt,
              ' but ', COALESCE(l.c, 0), ' order lines')
FROM orders o
LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS c FROM order_line
           GROUP BY ol_w_id, ol_d_id, ol_o_id) l
       ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
WHERE NOT (o.o_ol_cnt <=> l.c)
ORDER BY o.o_w_id, o.o_d_id, o.o_id LIMIT 1;

-- name: cond7
SELECT CONCAT('w_id=', l.ol_w_id, ' d_id=', l.ol_d_id, ' o_id=', l.ol_o_id, ' ol_number=', l.ol_number,
              ': ol_delivery_d ', CASE WHEN l.ol_delivery_d IS NULL THEN 'is NULL' ELSE 'is set' END,
              ' but o_carrier_id ', CASE WHEN o.o_carrier_id IS NULL THEN 'is NULL' ELSE 'is set' END)
FROM order_line l
JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id
WHERE (l.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)
ORDER BY l.ol_w_id, l.ol_d_id, l.ol_o_id LIMIT 1;

-- name: cond8
SELECT CONCAT('w_id=', w.w_id, ': w_ytd=', w.w_ytd, ' but sum(h_amount)=', COALESCE(h.s, 'none'))
FROM warehouse w
LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE NOT (w.w_ytd <=> h.s)
ORDER BY w.w_id LIMIT 1;

-- name: cond9
SELECT CONCAT('w_id=', d.d_w_id, ' d_id=', d.d_id, ': d_ytd=', d.d_ytd, ' but sum(h_amount)=',
              COALESCE(h.s, 'none'))
FROM district d
LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
       ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
WHERE NOT (d.d_ytd <=> h.s)
ORDER BY d.d_w_id, d.d_id LIMIT 1;

-- name: cond10
-- The sums per customer are grouped once each (derived tables, which the
-- optimizer materializes with a key), not looked up per customer.
SELECT CONCAT('w_id=', c.c_w_id, ' d_id=', c.c_d_id, ' c_id=', c.c_id, ': c_balance=', c.c_balance,
              ' but delivered ol_amount - h_amount=', COALESCE(ol.s, 0) - COALESCE(h.s, 0))
FROM customer c
LEFT JOIN (SELECT o.o_w_id AS w, o.o_d_id AS d, o.o_c_id AS cid, SUM(l.ol_amount) AS s
           FROM orders o JOIN order_line l
             ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
           WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) ol
       ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.cid = c.c_id
LEFT JOIN (SELECT h_c_w_id AS w, h_c_d_id AS d, h_c_id AS cid, SUM(h_amount) AS s
           FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
       ON h.w = c.c_w_id AND h.d = c.c_d_id AND h.cid = c.c_id
WHERE c.c_balance <> COALESCE(ol.s, 0) - COALESCE(h.s, 0)
ORDER BY c.c_w_id, c.c_d_id, c.c_id LIMIT 1;

-- name: cond11
SELECT CONCAT('w_id=', d.d_w_id, ' d_id=', d.d_id, ': count(orders)-count(new_order)=',
              COALESCE(o.c, 0) - COALESCE(n.c, 0), ' but must be 2100')
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE COALESCE(o.c, 0) - COALESCE(n.c, 0) <> 2100
ORDER BY d.d_w_id, d.d_id LIMIT 1;

-- name: cond11_run
-- Condition 11 generalized, for after transactions: each delivery removes one
-- new_order row of a district and adds 1 to c_delivery_cnt of one of its
-- customers, so count(orders) - count(new_order) = 2100 + sum(c_delivery_cnt)
-- per district holds always (the spec's form is this with no delivery yet).
SELECT CONCAT('w_id=', d.d_w_id, ' d_id=', d.d_id, ': count(orders)-count(new_order)=',
              COALESCE(o.c, 0) - COALESCE(n.c, 0), ' but 2100+sum(c_delivery_cnt)=',
              2100 + COALESCE(c.s, 0))
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
LEFT JOIN (SELECT c_w_id, c_d_id, SUM(c_delivery_cnt) AS s FROM customer GROUP BY c_w_id, c_d_id) c
       ON c.c_w_id = d.d_w_id AND c.c_d_id = d.d_id
WHERE COALESCE(o.c, 0) - COALESCE(n.c, 0) <> 2100 + COALESCE(c.s, 0)
ORDER BY d.d_w_id, d.d_id LIMIT 1;

-- name: cond12
SELECT CONCAT('w_id=', c.c_w_id, ' d_id=', c.c_d_id, ' c_id=', c.c_id, ': c_balance+c_ytd_payment=',
              c.c_balance + c.c_ytd_payment, ' but delivered ol_amount=', COALESCE(ol.s, 0))
FROM customer c
LEFT JOIN (SELECT o.o_w_id AS w, o.o_d_id AS d, o.o_c_id AS cid, SUM(l.ol_amount) AS s
           FROM orders o JOIN order_line l
             ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
           WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) ol
       ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.cid = c.c_id
WHERE c.c_balance + c.c_ytd_payment <> COALESCE(ol.s, 0)
ORDER BY c.c_w_id, c.c_d_id, c.c_id LIMIT 1;

-- name: counts
SELECT (SELECT COUNT(*) FROM warehouse), (SELECT COUNT(*) FROM district),
       (SELECT COUNT(*) FROM customer), (SELECT COUNT(*) FROM history),
       (SELECT COUNT(*) FROM new_order), (SELECT COUNT(*) FROM orders),
       (SELECT COUNT(*) FROM order_line), (SELECT COUNT(*) FROM item),
       (SELECT COUNT(*) FROM stock), (SELECT COALESCE(SUM(o_ol_cnt), 0) FROM orders);

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
SELECT warehouses, seed, c_last, c_id, ol_i_id FROM tpcc_meta LIMIT 1;

-- name: backend_id
-- The server thread serving this connection now (see postgresql/admin.sql):
-- a proxy that multiplexes connections shows itself when it changes.
SELECT CONNECTION_ID();

-- name: fp_server
-- The environment fingerprint (src/results/fingerprint.c): the address of the
-- server on this connection (NULL over a Unix socket), a server process id,
-- the full version string, the data directory.  MariaDB shows neither the
-- server address of a connection nor its process id: the client address of
-- this connection (processlist) tells socket (host localhost without a port)
-- from loopback TCP (then the server is on this machine too) from remote
-- (then the host name of the server, never a loopback address); the process
-- id is NULL, so no /proc lookup is made from a thread id.
SELECT CASE WHEN p.host = 'localhost' THEN NULL
            WHEN p.host LIKE '127.%' OR p.host LIKE 'localhost:%' OR p.host LIKE '::1%'
                 OR p.host LIKE '[::1]%' THEN '127.0.0.1'
            ELSE @@hostname END,
       NULL,
       CONCAT(VERSION(), ' (', @@version_comment, ') on ', @@version_compile_machine, '-',
              @@version_compile_os),
       @@datadir
FROM information_schema.processlist p WHERE p.id = CONNECTION_ID();

-- name: fp_settings
-- Every server variable not at its compiled-in default, plus the ones a tuning
-- study looks at whatever their origin.  Paths and per-server identities are
-- left out (the data directory is recorded on its own).
SELECT LOWER(variable_name), COALESCE(global_value, ''), LOWER(global_value_origin)
FROM information_schema.system_variables
WHERE (global_value_origin <> 'COMPILE-TIME'
       OR LOWER(variable_name) IN ('innodb_buffer_pool_size', 'innodb_buffer_pool_instances',
           'innodb_log_file_size', 'innodb_log_buffer_size', 'innodb_flush_log_at_trx_commit',
           'innodb_flush_method', 'innodb_doublewrite', 'innodb_io_capacity',
           'innodb_io_capacity_max', 'innodb_read_io_threads', 'innodb_write_io_threads',
           'innodb_purge_threads', 'innodb_flush_neighbors', 'innodb_adaptive_hash_index',
           'innodb_change_buffering', 'innodb_lock_wait_timeout', 'innodb_deadlock_detect',
           'innodb_page_size', 'innodb_checksum_algorithm', 'innodb_use_native_aio',
           'innodb_max_dirty_pages_pct', 'innodb_autoinc_lock_mode', 'innodb_file_per_table',
           'log_bin', 'sync_binlog', 'binlog_format', 'max_connections', 'thread_handling',
           'thread_pool_size', 'table_open_cache', 'query_cache_type', 'query_cache_size',
           'performance_schema', 'transaction_isolation', 'tx_isolation', 'character_set_server',
           'collation_server', 'skip_name_resolve', 'tmp_table_size', 'max_heap_table_size',
           'sort_buffer_size', 'join_buffer_size', 'version'))
  AND LOWER(variable_name) NOT IN ('datadir', 'pid_file', 'socket', 'log_error', 'basedir',
           'general_log_file', 'slow_query_log_file', 'tmpdir', 'hostname', 'server_uid',
           'innodb_data_home_dir', 'innodb_log_group_home_dir', 'plugin_dir', 'lc_messages_dir',
           'character_sets_dir', 'log_bin_basename', 'log_bin_index', 'relay_log_basename',
           'relay_log_index', 'pseudo_thread_id', 'timestamp', 'rand_seed1', 'rand_seed2',
           'insert_id', 'last_insert_id', 'identity', 'warning_count', 'error_count',
           'gtid_seq_no', 'in_transaction', 'last_gtid')
ORDER BY 1;

-- The per-second database metrics (src/run/metrics.c), read on the metrics'
-- own connection: rows (name, value), names as metrics.c knows them.
-- SHOW GLOBAL STATUS as a table (information_schema.GLOBAL_STATUS); lock_waits
-- is a gauge (Innodb_row_lock_current_waits: row lock waits now).  Not
-- here: checkpoints and buffers written by them (InnoDB flushes continuously;
-- no counter of checkpoints), temp bytes, deadlocks (only the latest one is
-- shown, in SHOW ENGINE INNODB STATUS).

-- name: metrics_counters
SELECT CASE variable_name
           WHEN 'COM_COMMIT' THEN 'commits'
           WHEN 'COM_ROLLBACK' THEN 'rollbacks'
           WHEN 'INNODB_BUFFER_POOL_READS' THEN 'buffer_reads'
           WHEN 'INNODB_ROW_LOCK_CURRENT_WAITS' THEN 'lock_waits'
           WHEN 'INNODB_DATA_WRITTEN' THEN 'data_written_bytes'
       END,
       CAST(variable_value AS DECIMAL(30, 0))
FROM information_schema.global_status
WHERE variable_name IN ('COM_COMMIT', 'COM_ROLLBACK', 'INNODB_BUFFER_POOL_READS',
                        'INNODB_ROW_LOCK_CURRENT_WAITS', 'INNODB_DATA_WRITTEN')
UNION ALL
-- Threads_running counts this monitor too: one less.  Here, not in
-- metrics_sessions, as it needs no privilege.
SELECT 'sessions_active', CAST(variable_value AS DECIMAL(30, 0)) - 1
FROM information_schema.global_status WHERE variable_name = 'THREADS_RUNNING'
UNION ALL
-- Pages served from the buffer pool: read requests less those read from disk.
SELECT 'buffer_hits',
       SUM(CASE WHEN variable_name = 'INNODB_BUFFER_POOL_READ_REQUESTS'
                THEN CAST(variable_value AS DECIMAL(30, 0))
                ELSE -CAST(variable_value AS DECIMAL(30, 0)) END)
FROM information_schema.global_status
WHERE variable_name IN ('INNODB_BUFFER_POOL_READ_REQUESTS', 'INNODB_BUFFER_POOL_READS');

-- name: metrics_wal
-- The redo log: bytes written to it.
SELECT 'wal_bytes', CAST(variable_value AS DECIMAL(30, 0))
FROM information_schema.global_status WHERE variable_name = 'INNODB_OS_LOG_WRITTEN';

-- name: metrics_sessions
-- Lock waits and the oldest transaction from InnoDB's own tables: these need
-- the PROCESS privilege; without it the server refuses, and the columns say so.
SELECT 'sessions_waiting_lock', COUNT(*) FROM information_schema.innodb_lock_waits
UNION ALL
SELECT 'longest_tx_s', COALESCE(MAX(TIMESTAMPDIFF(SECOND, trx_started, NOW())), 0)
FROM information_schema.innodb_trx;

-- name: metrics_waits
-- The wait sampler (run.wait_sampling, run/msrc_waits.c), one statement a
-- sample, in the columns of postgresql/admin.sql's: our sessions ($1, their
-- CONNECTION_ID()s as '{1,2,3}') with an open InnoDB transaction
-- (information_schema.INNODB_TRX: the PROCESS privilege).  A transaction in
-- LOCK WAIT is a Lock wait on a row ('Lock:record') or a table, from
-- INNODB_LOCKS; else none: CPU (metrics_waits_ps sees more where it can).  A
-- transaction running no statement waits for the driver (Client).  The
-- sixth column tells the transactions apart: the InnoDB transaction's id
-- (trx_started counts whole seconds).  No background processes: MariaDB's
-- are threads that only performance_schema shows.
SELECT t.trx_mysql_thread_id, 'client backend',
       CASE WHEN t.trx_query IS NULL THEN 'idle in transaction' ELSE 'active' END,
       CASE WHEN t.trx_state = 'LOCK WAIT' THEN 'Lock' END,
       CASE WHEN t.trx_state = 'LOCK WAIT' THEN COALESCE(LOWER(l.lock_type), 'row') END,
       CAST(t.trx_id AS SIGNED), t.trx_query
FROM information_schema.INNODB_TRX t
LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = t.trx_requested_lock_id
WHERE FIND_IN_SET(t.trx_mysql_thread_id, REPLACE(REPLACE($1, '{', ''), '}', '')) > 0;

-- name: metrics_waits_ps
-- metrics_waits where performance_schema's current waits are on and
-- readable (metrics_waits_note says nothing): a transaction not in LOCK
-- WAIT takes its thread's current wait, the instrument's last name as the
-- event: IO (a file: the redo log, a data file), Client (the client's
-- socket, or idle), LWLock (a mutex, an rwlock), Lock (a table lock).  A
-- table I/O wait (wait/io/table: the engine's row calls, in memory as a
-- rule) is no wait: executing, CPU.
SELECT t.trx_mysql_thread_id, 'client backend',
       CASE WHEN t.trx_query IS NULL THEN 'idle in transaction' ELSE 'active' END,
       CASE WHEN t.trx_state = 'LOCK WAIT' THEN 'Lock'
            WHEN w.ev LIKE 'wait/io/file/%' THEN 'IO'
            WHEN w.ev LIKE 'wait/io/socket/%' OR w.ev = 'idle' THEN 'Client'
            WHEN w.ev LIKE 'wait/synch/%' THEN 'LWLock'
            WHEN w.ev LIKE 'wait/lock/%' THEN 'Lock'
            WHEN w.ev LIKE 'wait/io/table/%' THEN NULL
            WHEN w.ev IS NOT NULL THEN 'Other' END,
       CASE WHEN t.trx_state = 'LOCK WAIT' THEN COALESCE(LOWER(l.lock_type), 'row')
            WHEN w.ev NOT LIKE 'wait/io/table/%' THEN SUBSTRING_INDEX(w.ev, '/', -1) END,
       CAST(t.trx_id AS SIGNED), t.trx_query
FROM information_schema.INNODB_TRX t
LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = t.trx_requested_lock_id
LEFT JOIN (SELECT th.PROCESSLIST_ID AS pid, e.EVENT_NAME AS ev
           FROM performance_schema.events_waits_current e
           JOIN performance_schema.threads th ON th.THREAD_ID = e.THREAD_ID
           WHERE e.END_EVENT_ID IS NULL
             AND e.EVENT_ID = (SELECT MAX(e2.EVENT_ID) FROM performance_schema.events_waits_current e2
                               WHERE e2.THREAD_ID = e.THREAD_ID AND e2.END_EVENT_ID IS NULL)) w
       ON w.pid = t.trx_mysql_thread_id
WHERE FIND_IN_SET(t.trx_mysql_thread_id, REPLACE(REPLACE($1, '{', ''), '}', '')) > 0;

-- name: metrics_waits_note
-- What the wait sampler cannot see on this server, once (NULL: nothing, and
-- metrics_waits_ps is used): performance_schema's waits are off by default
-- on MariaDB.  Reading setup_consumers needs SELECT on performance_schema:
-- without it this fails, and the sampler says so.
SELECT CASE
  WHEN @@performance_schema = 0 THEN
    'performance_schema is off (MariaDB''s default): only row-lock waits (INNODB_TRX in LOCK WAIT) are seen, the rest of a statement''s time counts as CPU; start the server with performance_schema = ON and performance-schema-consumer-events-waits-current = ON to see its I/O and mutex waits'
  WHEN (SELECT ENABLED FROM performance_schema.setup_consumers
        WHERE NAME = 'events_waits_current') <> 'YES' THEN
    'performance_schema''s events_waits_current consumer is off (its default): only row-lock waits (INNODB_TRX in LOCK WAIT) are seen, the rest of a statement''s time counts as CPU; UPDATE performance_schema.setup_consumers SET ENABLED = ''YES'' WHERE NAME = ''events_waits_current'' to see its I/O and mutex waits'
  END;
