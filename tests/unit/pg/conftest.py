"""Task store tests run against both stores: SQLite (the embedded default) and PostgreSQL on
a real server started once per session from the Debian package (tests/pg_server.py). Without
PostgreSQL binaries the PostgreSQL cases skip, saying what is missing; SQLite's still run.

A `Backend` makes stores on one database (each test has a fresh one) and speaks its raw SQL,
so a test can go around the store and show the database itself holds a rule."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from loguru import logger

from agency.clock import FrozenClock
from agency.pg.task_store import PgTaskStore
from agency.planning.tasks.store import SqliteTaskStore
from tests.pg_server import MISSING, PgServer, find_binaries

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    bin_dir = find_binaries()
    if bin_dir is None:
        pytest.skip(MISSING)
    server = PgServer(bin_dir).start()
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    return pg_server.create_database()


class Backend:
    name: str
    integrity_error: type[Exception]
    location: str  # what a store in another process opens: a file path or a URL

    def make(self, clock: Any, daemon_id: str = "daemon-a", **kw: Any) -> Any:
        raise NotImplementedError

    def raw(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run SQL on a connection of its own (autocommit), the store nowhere in the way."""
        raise NotImplementedError

    json_param = "%s"  # how raw SQL passes a JSON document

    def insert_raw_task(self, task_id: str, data: dict[str, Any], status: str = "pending") -> None:
        """A task row written around the store, as another program on the database could."""
        self.raw(
            "INSERT INTO tasks (id, status, goal_key, progress, created_at, updated_at, data) "
            f"VALUES (%s, %s, NULL, 0, 0, 0, {self.json_param})",
            (task_id, status, json.dumps(data)),
        )


class SqliteBackend(Backend):
    name = "sqlite"
    integrity_error = sqlite3.IntegrityError

    def __init__(self, path: Path) -> None:
        self.location = str(path)

    def make(self, clock: Any, daemon_id: str = "daemon-a", **kw: Any) -> SqliteTaskStore:
        return SqliteTaskStore(self.location, clock=clock, **{"dev_mode": False, "strict_finalize": False, **kw})

    def raw(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(self.location, isolation_level=None)
        try:
            return conn.execute(sql.replace("%s", "?"), params).fetchall()
        finally:
            conn.close()


class PgBackend(Backend):
    name = "postgresql"
    integrity_error = psycopg.IntegrityError
    json_param = "%s::jsonb"

    def __init__(self, url: str) -> None:
        self.location = url

    def make(self, clock: Any, daemon_id: str = "daemon-a", **kw: Any) -> PgTaskStore:
        return PgTaskStore(
            self.location, daemon_id=daemon_id, clock=clock, **{"dev_mode": False, "strict_finalize": False, **kw}
        )

    def raw(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.location, autocommit=True) as conn:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description else []


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return SqliteBackend(tmp_path / "agency.db")
    return PgBackend(request.getfixturevalue("pg_url"))


@pytest.fixture
def pg(pg_url: str) -> PgBackend:
    """PostgreSQL alone, for what only it has (leases, row locks, migrations)."""
    return PgBackend(pg_url)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(1_700_000_000_000)


@pytest.fixture
def store(backend: Backend, clock: FrozenClock) -> Iterator[Any]:
    s = backend.make(clock, dev_mode=True)
    yield s
    s.close()


@pytest.fixture
def logs() -> Iterator[list[tuple[str, str]]]:
    """Loguru records captured through a sink: (level name, message)."""
    records: list[tuple[str, str]] = []
    sink_id = logger.add(lambda m: records.append((m.record["level"].name, m.record["message"])), level="DEBUG")
    yield records
    logger.remove(sink_id)
