-- The parts of one load (tpccbench load --part K/N) meet here: src/tpcc/loadpart.c.
-- Part 1 creates the schema, this table and the plan (tpcc_load_step "plan")
-- in one transaction, with its own row beside the plan: the run id the parts
-- share and how many there are.  Every other part waits for that plan, then
-- adds its row (joins), loads its warehouses, and marks its row copied.  Joins
-- and ends take the plan's row lock first, so they run one at a time: the part
-- whose end finds every part copied claims the keys, indexes and ANALYZE, and
-- writes tpcc_meta after them.  A dialect without this file has no part loads.

-- name: load_part_table
-- One row per part that joined the load.
CREATE TABLE tpcc_load_part (
    part       integer     NOT NULL PRIMARY KEY,  -- K, 1 .. parts
    run_id     varchar(63) NOT NULL,              -- the name the parts share
    parts      integer     NOT NULL,              -- N
    w_first    integer     NOT NULL,              -- its warehouses: w_first .. w_last
    w_last     integer     NOT NULL,              -- (w_last < w_first: none)
    copied     boolean     NOT NULL DEFAULT false, -- every unit of its range committed
    indexes    boolean     NOT NULL DEFAULT false, -- it builds keys, indexes, ANALYZE, tpcc_meta
    load_date  varchar(24),                       -- part 1: the rows' date, as the parts write it
    joined_at  timestamptz NOT NULL DEFAULT now(),
    copied_at  timestamptz
)

-- name: load_part_plan
-- What a waiting part $1 looks for: the plan and part 1's row beside it (run id,
-- parts, and the date text every part writes: formatted once, by part 1, so a
-- part in another time zone writes the same rows), whether part $1 has joined it
-- already, and whether the load is complete (tpcc_meta written).  No row: no plan
-- of parts; an undefined table: no schema yet.
SELECT p.run_id, p.parts, s.warehouses, s.seed, s.load_epoch, p.load_date,
       (SELECT count(*) FROM tpcc_load_part q WHERE q.part = $1),
       (SELECT count(*) FROM tpcc_meta)
FROM tpcc_load_step s JOIN tpcc_load_part p ON p.part = 1
WHERE s.step = 'plan'

-- name: load_part_lock
-- The plan's row, locked until the transaction ends: joins and ends one at a time.
SELECT p.run_id, p.parts, s.warehouses, s.seed, s.load_epoch, p.load_date
FROM tpcc_load_step s JOIN tpcc_load_part p ON p.part = 1
WHERE s.step = 'plan'
FOR UPDATE OF s

-- name: load_part_join
-- Part $1 joins ($6: the date, part 1 only); no row back when a part $1 has joined already.
INSERT INTO tpcc_load_part (part, run_id, parts, w_first, w_last, load_date)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (part) DO NOTHING
RETURNING part

-- name: load_part_copied
UPDATE tpcc_load_part SET copied = true, copied_at = coalesce(copied_at, now()) WHERE part = $1

-- name: load_part_state
-- How many parts have committed their ranges, how many joined, and which builds
-- the indexes (0: none yet); and the parts of 1 .. $1 not copied yet, for messages.
SELECT count(*) FILTER (WHERE copied), count(*),
       coalesce(max(part) FILTER (WHERE indexes), 0),
       coalesce((SELECT string_agg(k::text, ',' ORDER BY k) FROM generate_series(1, $1) AS k
                 WHERE NOT EXISTS (SELECT 1 FROM tpcc_load_part c WHERE c.part = k AND c.copied)),
                '')
FROM tpcc_load_part

-- name: load_part_claim
UPDATE tpcc_load_part SET indexes = true WHERE part = $1

-- name: load_part_step
-- A committed step of part $6 (admin.sql's step_insert, with the part).
INSERT INTO tpcc_load_step (step, warehouses, seed, n_rows, load_epoch, load_part)
VALUES ($1, $2, $3, $4, $5, $6)
