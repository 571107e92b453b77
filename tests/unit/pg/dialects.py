"""Both agency databases for the stores that speak both dialects (stream, goals, places,
checkpoints, drive ticks). A test module's fixture over DIALECTS enters
`Databases.for_test(request, tmp_path)`: one fresh database of that dialect (a file, or a
server database of tests/pg_server.py), on which the test opens connections as daemons would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

import pytest

from agency.db import Database, SharedDatabase
from agency.pg.database import PgDatabase
from agency.pg.task_store import PgTaskStore
from agency.planning.tasks.store import SqliteTaskStore

DIALECTS = ("sqlite", "postgresql")


class Databases:
    def __init__(self, dialect: str, location: str) -> None:
        self.dialect = dialect
        self.location = location  # a file path or a URL
        self._opened: list[SharedDatabase] = []

    def open(self) -> SharedDatabase:
        """A shared database of its own on the one database, as a daemon (or a restarted one) has."""
        db = Database(self.location) if self.dialect == "sqlite" else PgDatabase(self.location)
        self._opened.append(db)
        return db

    def tasks(self, db: SharedDatabase, clock: Any, daemon_id: str = "daemon-a", **kw: Any) -> Any:
        """The task store of this dialect on db."""
        kw = {"dev_mode": False, "strict_finalize": False, **kw}
        if self.dialect == "sqlite":
            return SqliteTaskStore(db, clock=clock, **kw)  # type: ignore[arg-type]  # the other dialect's database is refused at run time
        return PgTaskStore(db, daemon_id=daemon_id, clock=clock, **kw)  # type: ignore[arg-type]  # the other dialect's database is refused at run time

    @classmethod
    def for_test(cls, request: pytest.FixtureRequest, tmp_path: Path) -> Self:
        """request.param names the dialect; PostgreSQL's cases skip where tests/pg_server.py does."""
        if request.param == "sqlite":
            return cls("sqlite", str(tmp_path / "agency.db"))
        return cls("postgresql", request.getfixturevalue("pg_url"))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        for db in self._opened:
            db.close()
