-- Statements of the loader and of `check`: the consistency conditions of TPC-C
-- clause 3.3.2, row counts, schema probes.  Each condition query returns nothing
-- when it holds, else one row: a text naming the first offender.

-- name: cond1
SELECT 'w_id=' || w.w_id || ': w_ytd=' || w.w_ytd || ' but sum(d_ytd)=' || coalesce(d.s::text, 'none')
FROM warehouse w
LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE w.w_ytd IS DISTINCT FROM d.s
ORDER BY w.w_id LIMIT 1;

-- name: cond2
SELECT 'w_id=' || d.d_w_id || ' d_id=' || d.d_id || ': d_next_o_id-1=' || (d.d_next_o_id - 1)
       || ' max(o_id)=' || coalesce(o.m::text, 'none') || ' max(no_o_id)=' || coalesce(n.m::text, 'none')
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE o.m IS DISTINCT FROM d.d_next_o_id - 1 OR (n.m IS NOT NULL AND n.m <> d.d_next_o_id - 1)
ORDER BY d.d_w_id, d.d_id LIMIT 1;

-- name: cond3
SELECT 'w_id=' || no_w_id || ' d_id=' || no_d_id || ': max(no_o_id)-min(no_o_id)+1=' || (mx - mn + 1)
       || ' but count(new_order)=' || c
FROM (SELECT no_w_id, no_d_id, max(no_o_id) AS mx, min(no_o_id) AS mn, count(*) AS c
      FROM new_order GROUP BY no_w_id, no_d_id) x
WHERE mx - mn + 1 <> c
ORDER BY no_w_id, no_d_id LIMIT 1;

-- name: cond4
SELECT 'w_id=' || coalesce(o.o_w_id, l.ol_w_id) || ' d_id=' || coalesce(o.o_d_id, l.ol_d_id)
       || ': sum(o_ol_cnt)=' || coalesce(o.s::text, 'none') || ' but count(order_line)=' || coalesce(l.c::text, 'none')
FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o
FULL JOIN (SELECT ol_w_id, ol_d_id, count(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id) l
       ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
WHERE o.s IS DISTINCT FROM l.c
ORDER BY 1 LIMIT 1;

-- name: cond5
SELECT 'w_id=' || o.o_w_id || ' d_id=' || o.o_d_id || ' o_id=' || o.o_id || ': o_carrier_id '
       || CASE WHEN o.o_carrier_id IS NULL THEN 'is NULL but no new_order row' ELSE 'is set but a new_order row exists' END
FROM orders o
LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)
ORDER BY o.o_w_id, o.o_d_id, o.o_id LIMIT 1;

-- name: cond6
SELECT 'w_id=' || o.o_w_id || ' d_id=' || o.o_d_id || ' o_id=' || o.o_id || ': o_ol_cnt=' || o.o_ol_cnt
       || ' but ' || coalesce(l.c, 0) || ' order lines'
FROM orders o
LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS c FROM order_line
           GROUP BY ol_w_id, ol_d_id, ol_o_id) l
       ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
WHERE o.o_ol_cnt IS DISTINCT FROM l.c
ORDER BY o.o_w_id, o.o_d_id, o.o_id LIMIT 1;

-- name: cond7
SELECT 'w_id=' || l.ol_w_id || ' d_id=' || l.ol_d_id || ' o_id=' || l.ol_o_id || ' ol_number=' || l.ol_number
       || ': ol_delivery_d ' || CASE WHEN l.ol_delivery_d IS NULL THEN 'is NULL' ELSE 'is set' END
       || ' but o_carrier_id ' || CASE WHEN o.o_carrier_id IS NULL THEN 'is NULL' ELSE 'is set' END
FROM order_line l
JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id
WHERE (l.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)
ORDER BY l.ol_w_id, l.ol_d_id, l.ol_o_id LIMIT 1;

-- name: cond8
SELECT 'w_id=' || w.w_id || ': w_ytd=' || w.w_ytd || ' but sum(h_amount)=' || coalesce(h.s::text, 'none')
FROM warehouse w
LEFT JOIN (SELECT h_w_id, sum(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE w.w_ytd IS DISTINCT FROM h.s
ORDER BY w.w_id LIMIT 1;

-- name: cond9
SELECT 'w_id=' || d.d_w_id || ' d_id=' || d.d_id || ': d_ytd=' || d.d_ytd || ' but sum(h_amount)=' || coalesce(h.s::text, 'none')
FROM district d
LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
       ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
WHERE d.d_ytd IS DISTINCT FROM h.s
ORDER BY d.d_w_id, d.d_id LIMIT 1;

-- name: cond10
-- MATERIALIZED CTEs keep the planner from nested loops chosen for the LIMIT.
WITH ol AS MATERIALIZED (
    SELECT o.o_w_id AS w, o.o_d_id AS d, o.o_c_id AS cid, sum(l.ol_amount) AS s
    FROM orders o JOIN order_line l
      ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
    WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id),
h AS MATERIALIZED (
    SELECT h_c_w_id AS w, h_c_d_id AS d, h_c_id AS cid, sum(h_amount) AS s
    FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id),
bad AS MATERIALIZED (
    SELECT c.c_w_id, c.c_d_id, c.c_id, c.c_balance, coalesce(ol.s, 0) - coalesce(h.s, 0) AS want
    FROM customer c
    LEFT JOIN ol ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.cid = c.c_id
    LEFT JOIN h ON h.w = c.c_w_id AND h.d = c.c_d_id AND h.cid = c.c_id
    WHERE c.c_balance <> coalesce(ol.s, 0) - coalesce(h.s, 0))
SELECT 'w_id=' || c_w_id || ' d_id=' || c_d_id || ' c_id=' || c_id || ': c_balance=' || c_balance
       || ' but delivered ol_amount - h_amount=' || want
FROM bad ORDER BY c_w_id, c_d_id, c_id LIMIT 1;

-- name: cond11
SELECT 'w_id=' || d.d_w_id || ' d_id=' || d.d_id || ': count(orders)-count(new_order)='
       || (coalesce(o.c, 0) - coalesce(n.c, 0)) || ' but must be 2100'
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE coalesce(o.c, 0) - coalesce(n.c, 0) <> 2100
ORDER BY d.d_w_id, d.d_id LIMIT 1;

-- name: cond11_run
-- Condition 11 generalized, for after transactions: each delivery removes one
-- new_order row of a district and adds 1 to c_delivery_cnt of one of its
-- customers, so count(orders) - count(new_order) = 2100 + sum(c_delivery_cnt)
-- per district holds always (the spec's form is this with no delivery yet).
SELECT 'w_id=' || d.d_w_id || ' d_id=' || d.d_id || ': count(orders)-count(new_order)='
       || (coalesce(o.c, 0) - coalesce(n.c, 0)) || ' but 2100+sum(c_delivery_cnt)='
       || (2100 + coalesce(c.s, 0))
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o
       ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n
       ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
LEFT JOIN (SELECT c_w_id, c_d_id, sum(c_delivery_cnt) AS s FROM customer GROUP BY c_w_id, c_d_id) c
       ON c.c_w_id = d.d_w_id AND c.c_d_id = d.d_id
WHERE coalesce(o.c, 0) - coalesce(n.c, 0) <> 2100 + coalesce(c.s, 0)
ORDER BY d.d_w_id, d.d_id LIMIT 1;

-- name: cond12
-- MATERIALIZED CTEs keep the planner from nested loops chosen for the LIMIT.
WITH ol AS MATERIALIZED (
    SELECT o.o_w_id AS w, o.o_d_id AS d, o.o_c_id AS cid, sum(l.ol_amount) AS s
    FROM orders o JOIN order_line l
      ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
    WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id),
bad AS MATERIALIZED (
    SELECT c.c_w_id, c.c_d_id, c.c_id, c.c_balance + c.c_ytd_payment AS got, coalesce(ol.s, 0) AS want
    FROM customer c
    LEFT JOIN ol ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.cid = c.c_id
    WHERE c.c_balance + c.c_ytd_payment <> coalesce(ol.s, 0))
SELECT 'w_id=' || c_w_id || ' d_id=' || c_d_id || ' c_id=' || c_id || ': c_balance+c_ytd_payment='
       || got || ' but delivered ol_amount=' || want
FROM bad ORDER BY c_w_id, c_d_id, c_id LIMIT 1;

-- name: counts
SELECT (SELECT count(*) FROM warehouse), (SELECT count(*) FROM district),
       (SELECT count(*) FROM customer), (SELECT count(*) FROM history),
       (SELECT count(*) FROM new_order), (SELECT count(*) FROM orders),
       (SELECT count(*) FROM order_line), (SELECT count(*) FROM item),
       (SELECT count(*) FROM stock), (SELECT coalesce(sum(o_ol_cnt), 0) FROM orders);

-- name: fresh
-- 1 while no transaction has changed the data since the load.
SELECT CASE WHEN coalesce(sum(d_next_o_id), 0) = 3001 * count(*)
             AND (SELECT count(*) FROM history) = 3000 * count(*)
             AND (SELECT count(*) FROM new_order) = 900 * count(*) THEN 1 ELSE 0 END
FROM district;

-- name: schema_tables
SELECT count(*) FROM information_schema.tables
WHERE table_schema = current_schema()
  AND table_name IN ('warehouse', 'district', 'customer', 'history', 'new_order', 'orders',
                     'order_line', 'item', 'stock');

-- name: meta_insert
INSERT INTO tpcc_meta (warehouses, seed, c_last, c_id, ol_i_id) VALUES ($1, $2, $3, $4, $5);

-- name: step_insert
INSERT INTO tpcc_load_step (step, warehouses, seed, n_rows, load_epoch) VALUES ($1, $2, $3, $4, $5);

-- name: steps_get
SELECT step, warehouses, seed, n_rows, load_epoch FROM tpcc_load_step;

-- name: meta_get
SELECT warehouses, seed, c_last, c_id, ol_i_id FROM tpcc_meta LIMIT 1;

-- name: backend_id
-- The server process (backend) serving this connection now.  The monitor
-- samples it each second: a pooler in transaction mode shows itself by
-- handing one client connection different backends over time.
SELECT pg_backend_pid();

-- name: fp_server
-- The environment fingerprint (src/results/fingerprint.c): the server's address
-- on this connection (NULL over a Unix socket), this backend's pid, the full
-- version string, and the data directory when this user may see it (superuser or
-- pg_read_all_settings; else no row in pg_settings, so NULL).
SELECT host(inet_server_addr()), pg_backend_pid(), version(),
       (SELECT setting FROM pg_settings WHERE name = 'data_directory');

-- name: fp_settings
-- Every setting not at its built-in default, plus the ones a tuning study looks at
-- whatever their source.  Paths derived from the data directory and our own
-- application_name are left out (the data directory is recorded on its own).
SELECT name, current_setting(name), source
FROM pg_settings
WHERE (source <> 'default'
       OR name IN ('shared_buffers', 'wal_buffers', 'max_wal_size', 'min_wal_size',
                   'checkpoint_timeout', 'checkpoint_completion_target', 'synchronous_commit',
                   'fsync', 'full_page_writes', 'wal_compression', 'wal_level', 'wal_sync_method',
                   'wal_writer_delay', 'commit_delay', 'commit_siblings',
                   'effective_io_concurrency', 'maintenance_io_concurrency', 'work_mem',
                   'maintenance_work_mem', 'effective_cache_size', 'random_page_cost', 'huge_pages',
                   'max_connections', 'autovacuum', 'default_transaction_isolation', 'jit',
                   'max_parallel_workers_per_gather', 'bgwriter_delay', 'bgwriter_lru_maxpages',
                   'data_checksums', 'block_size', 'wal_segment_size', 'shared_preload_libraries',
                   'track_io_timing', 'io_method', 'io_workers'))
  AND name NOT IN ('data_directory', 'config_file', 'hba_file', 'ident_file', 'application_name')
ORDER BY name;

-- name: study_setting
-- A server setting a study sets (src/study/pgset.c): does it exist, how it may be
-- changed (context: postmaster means a restart), and what it takes.
SELECT name, setting, coalesce(unit, ''), vartype, context, coalesce(min_val, ''),
       coalesce(max_val, ''), coalesce(array_to_string(enumvals, ','), '')
FROM pg_settings WHERE name = $1;

-- name: study_try
-- Check a value by setting it for this transaction only (the caller rolls back):
-- for the settings a session may change (context user or superuser).
SELECT set_config($1, $2, true);

-- name: study_alter_set
-- The text of ALTER SYSTEM SET, which takes no parameters: the name quoted as an
-- identifier and the value as a literal, by the server.
SELECT format('ALTER SYSTEM SET %I = %L', $1::text, $2::text);

-- name: study_alter_reset
SELECT format('ALTER SYSTEM RESET %I', $1::text);

-- name: study_reload
SELECT pg_reload_conf(), extract(epoch FROM pg_conf_load_time())::text;

-- name: study_conf_time
-- When this backend last read the configuration, and what a reload left waiting
-- for a restart.
SELECT extract(epoch FROM pg_conf_load_time())::text,
       coalesce((SELECT string_agg(name, ',' ORDER BY name) FROM pg_settings
                 WHERE pending_restart), '');

-- name: study_db
-- This database's name, the server's version number, and whether the template exists.
SELECT current_database(), current_setting('server_version_num')::int,
       (SELECT count(*) FROM pg_database WHERE datname = $1);

-- name: study_drop_db
SELECT format('DROP DATABASE IF EXISTS %I WITH (FORCE)', $1::text);

-- name: study_create_db
-- CREATE DATABASE ... TEMPLATE ...; STRATEGY FILE_COPY from PostgreSQL 15 on
-- (a checkpoint and a copy of the files, not the WAL-logged copy block by block).
SELECT CASE WHEN current_setting('server_version_num')::int >= 150000
            THEN format('CREATE DATABASE %I TEMPLATE %I STRATEGY FILE_COPY', $1::text, $2::text)
            ELSE format('CREATE DATABASE %I TEMPLATE %I', $1::text, $2::text) END;

-- name: study_rename_db
-- The freshly loaded database becomes the template: a rename, not a copy.
SELECT format('ALTER DATABASE %I RENAME TO %I', $1::text, $2::text);

-- The per-second database metrics (src/run/metrics.c), read on the metrics'
-- own connection and thread.  Each returns rows (name, value); metrics.c knows
-- which statement each name is expected from, so one that fails (no privilege,
-- a view this server version lacks) is named in exactly its columns' notes.  Counters are
-- turned into rates there.  The statistics views are visible to every user;
-- pg_stat_activity hides other users' sessions (state NULL) from a user without
-- pg_read_all_stats (part of pg_monitor): those are counted as sessions_hidden.

-- name: metrics_counters
-- pg_stat_database of this database (the views' counters lag up to about 1 s:
-- backends flush their statistics at most once a second), and lock_waits, a
-- gauge: the lock requests the whole server's sessions wait for now
-- (pg_locks not granted; PostgreSQL counts no lock waits over time).
SELECT v.name, v.value
FROM pg_stat_database d
CROSS JOIN LATERAL (VALUES ('commits', d.xact_commit::float8),
                           ('rollbacks', d.xact_rollback::float8),
                           ('buffer_hits', d.blks_hit::float8),
                           ('buffer_reads', d.blks_read::float8),
                           ('temp_bytes', d.temp_bytes::float8),
                           ('deadlocks', d.deadlocks::float8),
                           ('lock_waits', (SELECT count(*) FROM pg_locks
                                           WHERE NOT granted)::float8)) AS v(name, value)
WHERE d.datname = current_database();

-- name: metrics_wal
-- The WAL insert position as bytes since 0/0: its difference is WAL bytes written.
SELECT 'wal_bytes', pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8;

-- name: metrics_checkpoints
-- pg_stat_bgwriter up to PostgreSQL 16.  metrics.c picks this or
-- metrics_checkpoints_17 by metrics_server_version (read once per connection).
-- data_written_bytes: the whole server's buffers written to data files, by
-- checkpoints, the background writer and backends, in bytes.
SELECT v.name, v.value
FROM pg_stat_bgwriter b
CROSS JOIN LATERAL (VALUES ('checkpoints', (b.checkpoints_timed + b.checkpoints_req)::float8),
                           ('buffers_checkpoint', b.buffers_checkpoint::float8),
                           ('buffers_backend', b.buffers_backend::float8),
                           ('data_written_bytes',
                            (b.buffers_checkpoint + b.buffers_clean + b.buffers_backend)::float8 *
                            current_setting('block_size')::float8)) AS v(name, value);

-- name: metrics_checkpoints_17
-- PostgreSQL 17 and later: the checkpoint counters moved to pg_stat_checkpointer
-- (checkpoints_timed -> num_timed, checkpoints_req -> num_requested,
-- buffers_checkpoint -> buffers_written), and buffers_backend is gone (backends'
-- writes are in pg_stat_io): that column is marked unavailable, not zero.
-- data_written_bytes from pg_stat_io: every process's writes of relation
-- blocks (checkpointer, background writer, backends), in bytes.
SELECT v.name, v.value
FROM pg_stat_checkpointer c
CROSS JOIN LATERAL (VALUES ('checkpoints', (c.num_timed + c.num_requested)::float8),
                           ('buffers_checkpoint', c.buffers_written::float8),
                           ('data_written_bytes',
                            (SELECT sum(writes) FROM pg_stat_io WHERE object = 'relation')::float8 *
                            current_setting('block_size')::float8)) AS v(name, value);

-- name: metrics_server_version
-- Which statistics views this server has: server_version_num (170002 for 17.2).
SELECT 'server_version_num', current_setting('server_version_num')::float8;

-- name: metrics_sessions
-- Client sessions of this database but the monitor's own.  A session this user
-- may not see shows NULL even for backend_type: counted as hidden.
SELECT v.name, v.value
FROM (SELECT count(*) FILTER (WHERE c AND state = 'active') AS active,
             count(*) FILTER (WHERE c AND state LIKE 'idle in transaction%') AS idle_tx,
             count(*) FILTER (WHERE c AND wait_event_type = 'Lock') AS waiting,
             coalesce(extract(epoch FROM max(now() - xact_start) FILTER (WHERE c)), 0) AS longest,
             count(*) FILTER (WHERE backend_type IS NULL) AS hidden
      FROM (SELECT *, backend_type = 'client backend' AS c FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()) a) s
CROSS JOIN LATERAL (VALUES ('sessions_active', s.active::float8),
                           ('sessions_idle_in_tx', s.idle_tx::float8),
                           ('sessions_waiting_lock', s.waiting::float8),
                           ('longest_tx_s', s.longest::float8),
                           ('sessions_hidden', s.hidden::float8)) AS v(name, value);

-- name: metrics_waits
-- The wait sampler (run.wait_sampling, run/msrc_waits.c), one statement a
-- sample: our backends ($1, their pids as '{1,2,3}') inside a transaction,
-- and the server's background processes doing something (an Activity wait
-- is a process idle in its main loop).  pid, backend_type, state, wait
-- event type and name, the transaction's start (us since the epoch), the
-- statement's text, which names its transaction type (an autovacuum
-- worker's, the table it works on), and whether the process is in this
-- database (an autovacuum of another database's tables is not ours).
SELECT pid, backend_type, state, wait_event_type, wait_event,
       (extract(epoch FROM xact_start) * 1000000)::bigint, query,
       (datname = current_database())::int
FROM pg_stat_activity
WHERE (pid = ANY ($1::int[]) AND state <> 'idle')
   OR (backend_type <> 'client backend' AND wait_event_type IS DISTINCT FROM 'Activity');

-- name: metrics_events
-- The run's events (run/msrc_waits.c), read once a second on the wait
-- sampler's connection: the latest checkpoint's start as the control file
-- keeps it (it changes when a checkpoint completes: PostgreSQL 15 has no
-- counter of a checkpoint's start), and per table of the schema its
-- autovacuum and autoanalyze count and the latest one's end; each row with
-- the server's clock now, to put its times on the driver's.
SELECT 'checkpoint', '', 0::bigint, extract(epoch FROM checkpoint_time)::float8,
       extract(epoch FROM clock_timestamp())::float8
FROM pg_control_checkpoint()
UNION ALL
SELECT 'autovacuum', relname, autovacuum_count + autoanalyze_count,
       extract(epoch FROM greatest(last_autovacuum, last_autoanalyze))::float8,
       extract(epoch FROM clock_timestamp())::float8
FROM pg_stat_user_tables
WHERE relname IN ('warehouse', 'district', 'customer', 'history', 'new_order', 'orders',
                  'order_line', 'item', 'stock');

-- name: metrics_statements
-- Top statements (run/msrc_stmts.c): pg_stat_statements' counters of this
-- database, without the texts (reading them reads the server's whole text
-- file), once a second until the window closes.  queryid, whether the
-- statement ran at top level (0: inside a function, seen with
-- pg_stat_statements.track = all), calls, total time (us), rows, shared
-- blocks read and hit.  Needs the extension in this database and its
-- library in shared_preload_libraries; PostgreSQL 14 or later (toplevel).
SELECT queryid, toplevel::int, calls, (total_exec_time * 1000)::bigint, rows,
       shared_blks_read, shared_blks_hit
FROM pg_stat_statements(false)
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND queryid IS NOT NULL;

-- name: metrics_statements_text
-- The texts of the statements metrics_statements found new: read once each.
SELECT queryid, toplevel::int, query
FROM pg_stat_statements(true)
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND queryid IS NOT NULL;

-- name: metrics_statements_track
-- Which statements pg_stat_statements sees: 'all' takes in those inside our
-- functions, 'top' only the calls (NULL: the library is not loaded).
SELECT current_setting('pg_stat_statements.track', true);
