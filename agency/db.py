"""The agency's SQLite file: one Database (one connection) per process, WAL, and an ordered
migrations list.

Durable agency state (tasks, thoughts, goals, goal keys, the world, workflow checkpoints,
drive-tick memory) lives in one file. The daemon opens it once as a `Database` and hands
that to every store; a store given a path instead (tests, tools) opens a Database of its
own. No lock guards the connection: the daemon's event loop is its one owner, and no store
method awaits inside a transaction, so nothing else runs on the connection half-way
through one. Other processes on the file have connections of their own, and what must hold
across them is enforced by the database itself: BEGIN IMMEDIATE write transactions and
unique (partial) indexes.

A new table is a new entry appended to MIGRATIONS, applied once and recorded in PRAGMA
user_version, so opening an older file upgrades it in place. Never edit an entry that has
shipped: append a new one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

TASK_STATUSES = ("pending", "pending_planning", "active", "completed", "failed", "paused", "unplannable")
_STATUS_LIST = ", ".join(f"'{s}'" for s in TASK_STATUSES)
# Which SQL a store speaks on a database; a store keeps its statements for both side by side.
Dialect = Literal["sqlite", "postgresql"]


def _goal_key_triggers(terminal: str) -> str:
    """Migration 3's goal_keys triggers with another expression for a row's `terminal`
    (later migrations recreate them; migration 3's own text never changes)."""
    derive = f"""
            INSERT INTO goal_keys (task_id, goal_type, key, is_alias, terminal)
            SELECT NEW.id, json_extract(NEW.data, '$.metadata.goalBinding.goalType'), k, MIN(a), ({terminal})
            FROM (SELECT json_extract(NEW.data, '$.metadata.goalBinding.goalKey') AS k, 0 AS a
                  UNION ALL
                  SELECT value, 1 FROM json_each(NEW.data, '$.metadata.goalBinding.goalKeyAliases'))
            WHERE k IS NOT NULL AND json_extract(NEW.data, '$.metadata.goalBinding') IS NOT NULL
            GROUP BY k;"""
    check = """
            SELECT RAISE(ABORT, 'goalBinding needs goalType and goalKey')
            WHERE json_extract(NEW.data, '$.metadata.goalBinding') IS NOT NULL
              AND (json_extract(NEW.data, '$.metadata.goalBinding.goalType') IS NULL
                   OR json_extract(NEW.data, '$.metadata.goalBinding.goalKey') IS NULL);"""
    return f"""
        CREATE TRIGGER trg_goal_keys_insert AFTER INSERT ON tasks
        WHEN json_extract(NEW.data, '$.metadata.goalBinding') IS NOT NULL
        BEGIN{check}{derive}
        END;
        CREATE TRIGGER trg_goal_keys_update AFTER UPDATE OF status, data ON tasks
        BEGIN
            DELETE FROM goal_keys WHERE task_id = OLD.id;{check}{derive}
        END;
        """


# (version, description, SQL). Versions are 1..N in order.
MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "tasks",
        f"""
        CREATE TABLE tasks (
            id         TEXT PRIMARY KEY,
            status     TEXT NOT NULL CHECK (status IN ({_STATUS_LIST})),
            -- TASK-3 (docs/contracts.md): '' is never a goal key, enforced here as the last layer
            goal_key   TEXT CHECK (goal_key IS NULL OR goal_key <> ''),
            progress   REAL NOT NULL CHECK (progress >= 0 AND progress <= 1),
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            data       TEXT NOT NULL  -- the whole task as camelCase JSON; columns above mirror it for queries
        );
        CREATE INDEX idx_tasks_goal_key_status ON tasks (goal_key, status) WHERE goal_key IS NOT NULL;
        CREATE INDEX idx_tasks_status ON tasks (status);
        """,
    ),
    (
        2,
        "thoughts (cognitive stream)",
        """
        CREATE TABLE thoughts (
            seq              INTEGER PRIMARY KEY AUTOINCREMENT,  -- publish order, never reused
            id               TEXT NOT NULL UNIQUE,
            ts               INTEGER NOT NULL,
            -- STREAM-3: a row is born unprocessed; only ack flips it, stamping who and when
            processed        INTEGER NOT NULL DEFAULT 0 CHECK (processed IN (0, 1)),
            convert_eligible INTEGER NOT NULL DEFAULT 0 CHECK (convert_eligible IN (0, 1)),
            processed_by     TEXT,
            processed_at     INTEGER,
            data             TEXT NOT NULL,  -- the thought as camelCase JSON
            CHECK (processed = 0 OR (processed_by IS NOT NULL AND processed_at IS NOT NULL))
        );
        CREATE INDEX idx_thoughts_actionable ON thoughts (seq) WHERE processed = 0 AND convert_eligible = 1;
        CREATE INDEX idx_thoughts_prune ON thoughts (processed, convert_eligible, seq);
        """,
    ),
    (
        3,
        "goal keys (goal binding uniqueness) and goals",
        # GOAL-4: at most one non-terminal task per (goalType, goalKey),
        # aliases included. Triggers derive goal_keys from every task write, so the unique
        # partial index rejects a duplicate inside the writer's own transaction, whichever
        # process or code path wrote the task.
        """
        CREATE TABLE goal_keys (
            task_id   TEXT NOT NULL,
            goal_type TEXT NOT NULL,
            key       TEXT NOT NULL,
            is_alias  INTEGER NOT NULL CHECK (is_alias IN (0, 1)),
            terminal  INTEGER NOT NULL CHECK (terminal IN (0, 1)),
            PRIMARY KEY (task_id, key)
        );
        CREATE UNIQUE INDEX ux_goal_keys_live ON goal_keys (goal_type, key) WHERE terminal = 0;
        CREATE INDEX idx_goal_keys_type ON goal_keys (goal_type, terminal);

        CREATE TRIGGER trg_goal_keys_insert AFTER INSERT ON tasks
        WHEN json_extract(NEW.data, '$.metadata.goalBinding') IS NOT NULL
        BEGIN
            SELECT RAISE(ABORT, 'goalBinding needs goalType and goalKey')
            WHERE json_extract(NEW.data, '$.metadata.goalBinding.goalType') IS NULL
               OR json_extract(NEW.data, '$.metadata.goalBinding.goalKey') IS NULL;
            INSERT INTO goal_keys (task_id, goal_type, key, is_alias, terminal)
            SELECT NEW.id, json_extract(NEW.data, '$.metadata.goalBinding.goalType'), k, MIN(a),
                   NEW.status IN ('completed', 'failed')
            FROM (SELECT json_extract(NEW.data, '$.metadata.goalBinding.goalKey') AS k, 0 AS a
                  UNION ALL
                  SELECT value, 1 FROM json_each(NEW.data, '$.metadata.goalBinding.goalKeyAliases'))
            WHERE k IS NOT NULL GROUP BY k;
        END;

        CREATE TRIGGER trg_goal_keys_update AFTER UPDATE OF status, data ON tasks
        BEGIN
            DELETE FROM goal_keys WHERE task_id = OLD.id;
            SELECT RAISE(ABORT, 'goalBinding needs goalType and goalKey')
            WHERE json_extract(NEW.data, '$.metadata.goalBinding') IS NOT NULL
              AND (json_extract(NEW.data, '$.metadata.goalBinding.goalType') IS NULL
                   OR json_extract(NEW.data, '$.metadata.goalBinding.goalKey') IS NULL);
            INSERT INTO goal_keys (task_id, goal_type, key, is_alias, terminal)
            SELECT NEW.id, json_extract(NEW.data, '$.metadata.goalBinding.goalType'), k, MIN(a),
                   NEW.status IN ('completed', 'failed')
            FROM (SELECT json_extract(NEW.data, '$.metadata.goalBinding.goalKey') AS k, 0 AS a
                  UNION ALL
                  SELECT value, 1 FROM json_each(NEW.data, '$.metadata.goalBinding.goalKeyAliases'))
            WHERE k IS NOT NULL AND json_extract(NEW.data, '$.metadata.goalBinding') IS NOT NULL
            GROUP BY k;
        END;

        CREATE TRIGGER trg_goal_keys_delete AFTER DELETE ON tasks
        BEGIN
            DELETE FROM goal_keys WHERE task_id = OLD.id;
        END;

        -- Goal side of the binding: strategic intent; status is derived from the bound
        -- task by the synchronization reducer (agency/goals/sync.py), never set freely.
        CREATE TABLE goals (
            id         TEXT PRIMARY KEY,
            type       TEXT NOT NULL,
            status     TEXT NOT NULL CHECK (status IN ('PENDING', 'ACTIVE', 'COMPLETED', 'FAILED', 'SUSPENDED')),
            updated_at INTEGER NOT NULL,
            data       TEXT NOT NULL  -- the goal as camelCase JSON
        );
        """,
    ),
    (
        4,
        "task urgency column and the claim index",
        # Task.urgency (written by the priority scorer) mirrored as a column so the claim
        # query orders pending tasks by urgency, then age, straight from an index.
        """
        ALTER TABLE tasks ADD COLUMN urgency REAL NOT NULL DEFAULT 0.5 CHECK (urgency >= 0 AND urgency <= 1);
        UPDATE tasks SET urgency = COALESCE(json_extract(data, '$.urgency'), 0.5);
        CREATE INDEX idx_tasks_claim ON tasks (status, urgency DESC, created_at);
        DROP INDEX idx_tasks_status;  -- status is idx_tasks_claim's first column
        """,
    ),
    (
        5,
        "world identity: the recorded world, and archived goals' keys are not live",
        # A store's memories belong to one world (agency/goals/world_identity.py). A goal archived
        # on entering another world keeps its row, marked goalBinding.archivedWorld, but its
        # keys stop being live: a new goal in the new world may take the same key.
        f"""
        CREATE TABLE world (
            slot        INTEGER PRIMARY KEY CHECK (slot = 1),  -- one row: the current world
            world_id    TEXT NOT NULL,
            recorded_at INTEGER NOT NULL
        );
        DROP TRIGGER trg_goal_keys_insert;
        DROP TRIGGER trg_goal_keys_update;
        {
            _goal_key_triggers(
                "NEW.status IN ('completed', 'failed') OR "
                "json_extract(NEW.data, '$.metadata.goalBinding.archivedWorld') IS NOT NULL"
            )
        }
        UPDATE goal_keys SET terminal = 1 WHERE task_id IN (
            SELECT id FROM tasks WHERE json_extract(data, '$.metadata.goalBinding.archivedWorld') IS NOT NULL);
        """,
    ),
    (
        6,
        "task lifecycle events",
        # agency/planning/tasks/events.py: one row per change, written in the change's transaction.
        # seq is global and never reused, so a watcher resumes after the last seq it saw.
        # No foreign key: a log row must never block deleting its task.
        """
        CREATE TABLE task_events (
            seq      INTEGER PRIMARY KEY AUTOINCREMENT,
            task_id  TEXT NOT NULL,
            at       INTEGER NOT NULL,
            event    TEXT NOT NULL,
            status   TEXT NOT NULL,  -- the task's status right after the event
            progress REAL NOT NULL,  -- and its progress
            data     TEXT NOT NULL   -- the event's details as camelCase JSON
        );
        CREATE INDEX idx_task_events_task ON task_events (task_id, seq);
        """,
    ),
    (
        7,
        "places: crafting tables, furnaces and beds the bot placed or saw, per world",
        # agency/places/store.py. One row per block position and world: a place of another
        # world is never listed (world identity), one found gone is deleted.
        """
        CREATE TABLE places (
            world_id   TEXT NOT NULL,
            x          INTEGER NOT NULL,
            y          INTEGER NOT NULL,
            z          INTEGER NOT NULL,
            kind       TEXT NOT NULL CHECK (kind IN ('crafting_table', 'furnace', 'bed')),
            block      TEXT NOT NULL,  -- the name as the game gave it (red_bed, furnace)
            source     TEXT NOT NULL CHECK (source IN ('placed', 'seen')),
            first_at   INTEGER NOT NULL,
            seen_at    INTEGER NOT NULL,  -- the last time a real block read confirmed it
            PRIMARY KEY (world_id, x, y, z)
        );
        CREATE INDEX idx_places_kind ON places (world_id, kind, seen_at);
        """,
    ),
    (
        8,
        "tasks: newest first without a scan (the dashboard asks every second)",
        """
        CREATE INDEX idx_tasks_created ON tasks (created_at);
        """,
    ),
    (
        9,
        "drive-tick memory per bot",
        # agency/cognition/drive_tick.py: when each bot's last drive tick fired. It kept one row
        # (id = 1) in a table of its own before a daemon drove several bots; that time becomes
        # the default bot's ('').
        """
        CREATE TABLE drive_ticks (
            bot           TEXT PRIMARY KEY,  -- the bot's name
            last_fired_ms INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS drive_tick_state (
            id INTEGER PRIMARY KEY CHECK (id = 1), last_fired_ms INTEGER NOT NULL);
        INSERT INTO drive_ticks (bot, last_fired_ms) SELECT '', last_fired_ms FROM drive_tick_state;
        DROP TABLE drive_tick_state;
        """,
    ),
]


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Apply pending migrations, each in its own transaction. Returns the new version."""
    for version, _desc, sql in MIGRATIONS:
        if version <= schema_version(conn):
            continue
        try:
            # isolation_level=None, so executescript adds no implicit COMMIT of its own.
            conn.executescript(f"BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {int(version)};\nCOMMIT;")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return schema_version(conn)


def open_database(path: str | Path) -> sqlite3.Connection:
    """Open (creating if needed) and migrate. Autocommit mode: stores open explicit
    BEGIN IMMEDIATE transactions so check-then-insert is atomic across processes."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    # check_same_thread=False: a connection may be opened on one thread and used on another
    # (an HTTP test client calls the API from its own thread), one at a time, never at once.
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode = WAL")
    # NORMAL under WAL survives a killed process; only a power cut can lose the last commit.
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA busy_timeout = 5000")
    conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn)
    return conn


@contextmanager
def immediate_tx(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction taken up front (BEGIN IMMEDIATE), so writers on other
    connections - other processes on the file - serialise instead of failing mid-way.
    Entered inside another transaction on the same connection (one store's write called
    from another's, on a shared Database), it is a savepoint of that one: it commits with
    the outer transaction, and an error rolls back only its own part before propagating."""
    if conn.in_transaction:
        conn.execute("SAVEPOINT nested_tx")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK TO nested_tx")
            conn.execute("RELEASE nested_tx")
            raise
        conn.execute("RELEASE nested_tx")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class SharedDatabase:
    """The sharing rule every agency database keeps (this file's Database, agency.pg's
    PgDatabase): the composition root opens one and hands it to every store, and alone closes
    it; `of(source)` shares a database as is and opens a private one from anything else (a
    path, a URL), which the store's `release()` closes. A subclass opens `conn`, says what
    `tx()` is and which `dialect` its SQL is."""

    conn: Any
    dialect: Dialect
    # What a write a constraint refused raises in this dialect (its DB-API IntegrityError).
    integrity_error: ClassVar[type[Exception]]
    _private = False  # opened by `of` for one store alone
    _dialects: ClassVar[list[type[SharedDatabase]]] = []  # every dialect imported so far

    if TYPE_CHECKING:

        def __init__(self, source: Any) -> None: ...  # each dialect opens its own kind of source (`of`)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "integrity_error" in cls.__dict__:
            SharedDatabase._dialects.append(cls)

    @staticmethod
    def refused_by_unique_index(exc: BaseException, index: str, columns: str) -> bool:
        """Whether exc is this dialect's refusal of a write by the unique index `index`
        over `columns` ('table.a, table.b', as SQLite's message names them)."""
        raise NotImplementedError

    @classmethod
    def of(cls, source: Any) -> Self:
        if isinstance(source, cls):
            return source
        db = cls(source)
        db._private = True
        return db

    def tx(self) -> AbstractContextManager[Any]:
        """A write transaction yielding the connection; inside another, a savepoint of it."""
        raise NotImplementedError

    def execute(self, sql: str, params: Any = ()) -> Any:
        return self.conn.execute(sql, params)

    def release(self) -> None:
        """A store is done with it: closes a private database, leaves a shared one open."""
        if self._private:
            self.close()

    def close(self) -> None:
        self.conn.close()  # closing twice is harmless

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class Database(SharedDatabase):
    """The agency file, opened once: one connection, WAL, migrated (open_database), shared
    as SharedDatabase says."""

    dialect: Dialect = "sqlite"
    integrity_error = sqlite3.IntegrityError

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self.conn: sqlite3.Connection = open_database(path)

    def tx(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction (immediate_tx) on this connection."""
        return immediate_tx(self.conn)

    @staticmethod
    def refused_by_unique_index(exc: BaseException, index: str, columns: str) -> bool:
        """SQLite names the unique index's columns in its message, not the index."""
        return isinstance(exc, sqlite3.IntegrityError) and f"UNIQUE constraint failed: {columns}" in str(exc)


# What a store's constructor takes: a path (it opens a Database of its own) or a shared Database.
DatabaseSource = str | Path | Database
# What a store that speaks both dialects takes: a path, or any shared agency database (this
# file's Database, agency.pg's PgDatabase).
StoreSource = str | Path | SharedDatabase


def database_of(source: StoreSource) -> SharedDatabase:
    """The database a store works on: a shared one as is, whichever its dialect; from a path,
    a private Database (SharedDatabase.of)."""
    return source if isinstance(source, SharedDatabase) else Database.of(source)


def integrity_errors() -> tuple[type[Exception], ...]:
    """What a write a constraint refused raises, in every dialect loaded: SQLite's always,
    PostgreSQL's once agency.pg is imported (no PostgreSQL database exists without it), so
    a room catches both without importing psycopg. Read at the except clause, not cached."""
    return tuple(d.integrity_error for d in SharedDatabase._dialects)


def refused_by_unique_index(exc: BaseException, *, index: str, columns: str) -> bool:
    """Whether the unique index `index` over `columns` ('table.a, table.b') refused the
    write that raised exc, in whichever loaded dialect raised it."""
    return any(d.refused_by_unique_index(exc, index, columns) for d in SharedDatabase._dialects)


def json_value(column: Any) -> Any:
    """A JSON column's value (the stores keep objects there): SQLite hands back the text,
    PostgreSQL's jsonb the decoded value."""
    return json.loads(column) if isinstance(column, str) else column
