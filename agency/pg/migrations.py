"""The PostgreSQL schema as an ordered list of migrations, recorded in `schema_version`.

The tables mirror agency/db.py's (same names, same columns, same constraints) so the stores'
SQL reads alike; the task itself is JSONB and the columns beside it mirror it for queries.
What differs is what several daemons on one database need: a task's claim carries a lease
(claimed_by, lease_until), a thought belongs to the daemon that published it (daemon_id),
and insertion order is an identity column (SQLite has rowid). The other stores' tables are
shared by every daemon on the database as they are by every process on a SQLite file.

A new table is a new entry appended here, applied once. Never edit an entry that has
shipped: append a new one.
"""

from __future__ import annotations

from agency.db import TASK_STATUSES

_STATUS_LIST = ", ".join(f"'{s}'" for s in TASK_STATUSES)

# (version, description, SQL). Versions are 1..N in order.
MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "tasks with claim leases, and their lifecycle events",
        f"""
        CREATE TABLE tasks (
            seq         BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,  -- insertion order: the tie-break among equals
            id          TEXT PRIMARY KEY,
            status      TEXT NOT NULL CHECK (status IN ({_STATUS_LIST})),
            -- TASK-3 (docs/contracts.md): '' is never a goal key, enforced here as the last layer
            goal_key    TEXT CHECK (goal_key IS NULL OR goal_key <> ''),
            progress    DOUBLE PRECISION NOT NULL CHECK (progress >= 0 AND progress <= 1),
            urgency     DOUBLE PRECISION NOT NULL DEFAULT 0.5 CHECK (urgency >= 0 AND urgency <= 1),
            created_at  BIGINT NOT NULL,
            updated_at  BIGINT NOT NULL,
            -- the daemon working on an active task, until when (ms); another daemon takes the
            -- task back to pending once the lease has run out (its owner died)
            claimed_by  TEXT,
            lease_until BIGINT,
            data        JSONB NOT NULL,  -- the whole task, camelCase; the columns above mirror it
            CONSTRAINT active_tasks_hold_a_lease
                CHECK ((status = 'active') = (claimed_by IS NOT NULL AND lease_until IS NOT NULL))
        );
        CREATE INDEX idx_tasks_goal_key_status ON tasks (goal_key, status) WHERE goal_key IS NOT NULL;
        CREATE INDEX idx_tasks_claim ON tasks (status, urgency DESC, created_at, seq);
        CREATE INDEX idx_tasks_created ON tasks (created_at, seq);
        CREATE INDEX idx_tasks_lease ON tasks (lease_until) WHERE status = 'active';

        -- One row per change, written in the change's transaction. seq is global and never
        -- reused; a task's events commit in seq order because every write that logs one holds
        -- the task's row lock, so a watcher of a task resumes after the last seq it saw.
        CREATE TABLE task_events (
            seq      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            task_id  TEXT NOT NULL,  -- no foreign key: a log row never blocks deleting its task
            at       BIGINT NOT NULL,
            event    TEXT NOT NULL,
            status   TEXT NOT NULL,  -- the task's status right after the event
            progress DOUBLE PRECISION NOT NULL,  -- and its progress
            data     JSONB NOT NULL
        );
        CREATE INDEX idx_task_events_task ON task_events (task_id, seq);
        """,
    ),
    (
        2,
        "goal keys: at most one live task per (goalType, key), aliases included",
        # agency/db.py migrations 3 and 5 in plpgsql: a trigger derives goal_keys from every
        # task write, so the unique partial index refuses a duplicate inside the writer's own
        # transaction, whichever daemon or code path wrote the task. A task is not live when
        # terminal (completed, failed) or archived with another world.
        """
        CREATE TABLE goal_keys (
            task_id   TEXT NOT NULL,
            goal_type TEXT NOT NULL,
            key       TEXT NOT NULL,
            is_alias  BOOLEAN NOT NULL,
            terminal  BOOLEAN NOT NULL,
            PRIMARY KEY (task_id, key)
        );
        CREATE UNIQUE INDEX ux_goal_keys_live ON goal_keys (goal_type, key) WHERE terminal = false;
        CREATE INDEX idx_goal_keys_type ON goal_keys (goal_type, terminal);

        CREATE FUNCTION tasks_goal_keys() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            binding jsonb;
            aliases jsonb;
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                DELETE FROM goal_keys WHERE task_id = OLD.id;
            END IF;
            IF TG_OP = 'DELETE' THEN
                RETURN NULL;
            END IF;
            -- JSON null counts as absent, as json_extract reads it in SQLite
            binding := NULLIF(NEW.data #> '{metadata,goalBinding}', 'null'::jsonb);
            IF binding IS NULL THEN
                RETURN NULL;
            END IF;
            IF NULLIF(binding -> 'goalType', 'null'::jsonb) IS NULL
               OR NULLIF(binding -> 'goalKey', 'null'::jsonb) IS NULL THEN
                RAISE EXCEPTION 'goalBinding needs goalType and goalKey' USING ERRCODE = 'check_violation';
            END IF;
            aliases := NULLIF(binding -> 'goalKeyAliases', 'null'::jsonb);
            INSERT INTO goal_keys (task_id, goal_type, key, is_alias, terminal)
            SELECT NEW.id, binding ->> 'goalType', k, bool_and(alias),
                   NEW.status IN ('completed', 'failed')
                   OR NULLIF(binding -> 'archivedWorld', 'null'::jsonb) IS NOT NULL
            FROM (SELECT binding ->> 'goalKey' AS k, false AS alias
                  UNION ALL
                  SELECT v, true FROM jsonb_array_elements_text(
                      CASE WHEN jsonb_typeof(aliases) = 'array' THEN aliases ELSE '[]'::jsonb END) AS v
                  UNION ALL  -- a single alias given bare, as SQLite's json_each reads a scalar
                  SELECT aliases #>> '{}', true WHERE jsonb_typeof(aliases) IN ('string', 'number')) AS keys
            WHERE k IS NOT NULL
            GROUP BY k;
            RETURN NULL;
        END
        $$ SET search_path FROM CURRENT;  -- goal_keys is found whichever search_path the writer has

        CREATE TRIGGER trg_goal_keys AFTER INSERT OR DELETE OR UPDATE OF status, data ON tasks
        FOR EACH ROW EXECUTE FUNCTION tasks_goal_keys();
        """,
    ),
    (
        3,
        "thoughts (cognitive stream), each daemon's own",
        # agency/db.py migration 2 plus daemon_id: a daemon reads, acks, counts and prunes only
        # its own thoughts, so two daemons' planning never converts one thought twice.
        """
        CREATE TABLE thoughts (
            seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- publish order
            daemon_id        TEXT NOT NULL,
            id               TEXT NOT NULL,
            ts               BIGINT NOT NULL,
            -- STREAM-3: a row is born unprocessed; only ack flips it, stamping who and when
            processed        BOOLEAN NOT NULL DEFAULT false,
            convert_eligible BOOLEAN NOT NULL DEFAULT false,
            processed_by     TEXT,
            processed_at     BIGINT,
            data             JSONB NOT NULL,  -- the thought, camelCase
            UNIQUE (daemon_id, id),
            CHECK (NOT processed OR (processed_by IS NOT NULL AND processed_at IS NOT NULL))
        );
        CREATE INDEX idx_thoughts_actionable ON thoughts (daemon_id, seq) WHERE NOT processed AND convert_eligible;
        CREATE INDEX idx_thoughts_prune ON thoughts (daemon_id, processed, convert_eligible, seq);
        """,
    ),
    (
        4,
        "goals, the recorded world and places",
        # agency/db.py migrations 3 (goals), 5 (world) and 7 (places): shared by every daemon
        # on the database, which all live in the one world recorded here.
        """
        CREATE TABLE goals (
            id         TEXT PRIMARY KEY,
            type       TEXT NOT NULL,
            status     TEXT NOT NULL CHECK (status IN ('PENDING', 'ACTIVE', 'COMPLETED', 'FAILED', 'SUSPENDED')),
            updated_at BIGINT NOT NULL,
            data       JSONB NOT NULL  -- the goal, camelCase
        );

        CREATE TABLE world (
            slot        INTEGER PRIMARY KEY CHECK (slot = 1),  -- one row: the current world
            world_id    TEXT NOT NULL,
            recorded_at BIGINT NOT NULL
        );

        CREATE TABLE places (
            world_id   TEXT NOT NULL,
            x          INTEGER NOT NULL,
            y          INTEGER NOT NULL,
            z          INTEGER NOT NULL,
            kind       TEXT NOT NULL CHECK (kind IN ('crafting_table', 'furnace', 'bed')),
            block      TEXT NOT NULL,
            source     TEXT NOT NULL CHECK (source IN ('placed', 'seen')),
            first_at   BIGINT NOT NULL,
            seen_at    BIGINT NOT NULL,
            PRIMARY KEY (world_id, x, y, z)
        );
        CREATE INDEX idx_places_kind ON places (world_id, kind, seen_at);
        """,
    ),
    (
        5,
        "workflow runs and their checkpoints",
        # The tables agency/execution/workflows/checkpoints.py creates in SQLite. Keyed by run
        # (a task's id): a daemon taking over a dead daemon's task resumes from its checkpoint.
        """
        CREATE TABLE workflow_runs (
            seq        BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,  -- insertion order: the tie-break among equals
            run_id     TEXT PRIMARY KEY,
            task_id    TEXT,
            agent_id   TEXT NOT NULL,
            workflow   JSONB NOT NULL,  -- the WorkflowDef the run started with
            context    JSONB NOT NULL,
            status     TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'stopped')),
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        );
        CREATE INDEX idx_workflow_runs_task ON workflow_runs (task_id, created_at);
        CREATE TABLE workflow_checkpoints (
            run_id            TEXT NOT NULL REFERENCES workflow_runs (run_id) ON DELETE CASCADE,
            seq               INTEGER NOT NULL,
            step_index        INTEGER NOT NULL CHECK (step_index >= 0),
            completed_step_id TEXT NOT NULL,
            data              JSONB NOT NULL,  -- the whole Checkpoint
            created_at        BIGINT NOT NULL,
            PRIMARY KEY (run_id, seq)
        );
        CREATE TABLE workflow_run_archive (
            run_id      TEXT PRIMARY KEY REFERENCES workflow_runs (run_id) ON DELETE CASCADE,
            original_id TEXT NOT NULL,
            world_id    TEXT NOT NULL,
            archived_at BIGINT NOT NULL
        );
        """,
    ),
    (
        6,
        "drive-tick memory per bot",
        # agency/db.py migration 9: bot names are unique in a world, so daemons share the table.
        """
        CREATE TABLE drive_ticks (
            bot           TEXT PRIMARY KEY,
            last_fired_ms BIGINT NOT NULL
        );
        """,
    ),
]
