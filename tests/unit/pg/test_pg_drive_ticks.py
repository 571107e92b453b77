"""Drive-tick memory per bot on both databases, and a SQLite file from before bots had names
keeping its one remembered tick for the default bot."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from agency.cognition.drive_memory import DriveTickMemory
from agency.db import MIGRATIONS, Database
from tests.unit.pg.dialects import DIALECTS, Databases


@pytest.fixture(params=DIALECTS)
def dbs(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Databases]:
    with Databases.for_test(request, tmp_path) as d:
        yield d


def test_each_bot_remembers_its_own_last_tick_across_connections(dbs):
    db = dbs.open()
    alice, bob, default = DriveTickMemory(db, bot="alice"), DriveTickMemory(db, bot="bob"), DriveTickMemory(db)
    alice.state().fired(1_000)
    default.state().fired(5)
    assert bob.state().last_fired_ms is None and bob.state().due(0, 60_000)
    restarted = dbs.open()  # the daemon started again, or another one driving alice now
    state = DriveTickMemory(restarted, bot="alice").state()
    assert state.last_fired_ms == 1_000 and not state.due(30_000, 60_000)
    state.fired(70_000)
    assert alice.state().last_fired_ms == 70_000 and DriveTickMemory(restarted).state().last_fired_ms == 5
    assert bob.state().last_fired_ms is None


def _file_before_bots(path: Any, remembered: int | None) -> None:
    """A file at migration 8, its one drive-tick row where the daemon had written one."""
    conn = sqlite3.connect(path, isolation_level=None)
    for version, _desc, sql in MIGRATIONS[:8]:
        conn.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
    if remembered is not None:
        conn.execute(
            "CREATE TABLE drive_tick_state (id INTEGER PRIMARY KEY CHECK (id = 1), last_fired_ms INTEGER NOT NULL)"
        )
        conn.execute("INSERT INTO drive_tick_state (id, last_fired_ms) VALUES (1, ?)", (remembered,))
    conn.close()


@pytest.mark.parametrize("remembered", [123, None])
def test_an_older_file_keeps_its_last_tick_for_the_default_bot(tmp_path, remembered):
    _file_before_bots(tmp_path / "old.db", remembered)
    with Database(tmp_path / "old.db") as db:
        assert DriveTickMemory(db).state().last_fired_ms == remembered
        assert DriveTickMemory(db, bot="alice").state().last_fired_ms is None
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'drive_tick_state'").fetchone() is None
