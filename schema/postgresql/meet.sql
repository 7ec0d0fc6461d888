-- Statements of a scale-out run's meeting (src/run/meet.c): the parts of one
-- run register in tpcc_run_part, wait for each other, agree on the start, pause
-- together at the window's edges (part 1 takes the database's count there),
-- and leave their summaries for the part that merges them.  Row part = 0 is
-- the run's own (its start, the counts, whether it was merged).  One
-- attempt of a run is (run_id, gen); an attempt that started or lost a part
-- is never joined again: the next attempt takes gen + 1.

-- name: meet_lock_table
-- Serializes the CREATE TABLE IF NOT EXISTS of parts starting together.
SELECT pg_advisory_xact_lock(7731, 0);

-- name: meet_create
CREATE TABLE IF NOT EXISTS tpcc_run_part (
    run_id        text        NOT NULL,
    gen           integer     NOT NULL,
    part          integer     NOT NULL,
    parts         integer     NOT NULL,
    host          text        NOT NULL,
    state         text        NOT NULL,
    first_w       integer     NOT NULL,
    last_w        integer     NOT NULL,
    registered_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    start_at      timestamptz,
    count_open    bigint,
    count_close   bigint,
    summary       text,
    PRIMARY KEY (run_id, gen, part)
);

-- name: meet_lock
-- One run's meeting steps, one at a time (the key: the run id's hash).
SELECT pg_advisory_xact_lock(7731, hashtext($1));

-- name: meet_latest
-- The run's latest attempt: gen, its number of parts, whether this part is in
-- it already, whether it started or lost a part (then it is not joined).
SELECT gen, max(parts), bool_or(part = $2),
       bool_or(start_at IS NOT NULL OR state IN ('done', 'failed', 'gave_up', 'merged'))
FROM tpcc_run_part
WHERE run_id = $1 AND gen = (SELECT max(gen) FROM tpcc_run_part WHERE run_id = $1)
GROUP BY gen;

-- name: meet_insert
INSERT INTO tpcc_run_part (run_id, gen, part, parts, host, state, first_w, last_w)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8);

-- name: meet_rows
-- Every row of the attempt: part, state, host, seconds since its last beat,
-- the agreed start (microseconds since the epoch, database clock), counts.
SELECT part, state, host, extract(epoch FROM clock_timestamp() - updated_at)::float8,
       (extract(epoch FROM start_at) * 1000000)::bigint, count_open, count_close,
       first_w, last_w
FROM tpcc_run_part
WHERE run_id = $1 AND gen = $2
ORDER BY part;

-- name: meet_set_start
-- The start, agreed once: two seconds from the database's now.
UPDATE tpcc_run_part SET start_at = clock_timestamp() + interval '2 seconds'
WHERE run_id = $1 AND gen = $2 AND part = 0 AND start_at IS NULL;

-- name: meet_state
-- A part's state, and its beat.
UPDATE tpcc_run_part SET state = $4, updated_at = clock_timestamp()
WHERE run_id = $1 AND gen = $2 AND part = $3;

-- name: meet_count_open
UPDATE tpcc_run_part SET count_open = $3, state = 'open_counted', updated_at = clock_timestamp()
WHERE run_id = $1 AND gen = $2 AND part = 0;

-- name: meet_count_close
UPDATE tpcc_run_part SET count_close = $3, state = 'close_counted', updated_at = clock_timestamp()
WHERE run_id = $1 AND gen = $2 AND part = 0;

-- name: meet_summary
UPDATE tpcc_run_part SET state = $4, summary = $5, updated_at = clock_timestamp()
WHERE run_id = $1 AND gen = $2 AND part = $3;

-- name: meet_summaries
SELECT part, summary FROM tpcc_run_part
WHERE run_id = $1 AND gen = $2 AND part > 0 AND summary IS NOT NULL
ORDER BY part;

-- name: meet_now
-- The database's clock, microseconds since the epoch.
SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;

-- name: meet_beat
-- A part's beat: its state stays, only the time it was last heard of.
UPDATE tpcc_run_part SET updated_at = clock_timestamp()
WHERE run_id = $1 AND gen = $2 AND part = $3;
