"""One owner of the agency file: a shared Database (one connection) for every store, a
private one for a store given a path, uniqueness and write serialisation still enforced by
the database across connections, and keep-alive awaiting its model on the event loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from agency.clock import FrozenClock
from agency.cognition.drive_memory import DriveTickMemory
from agency.cognition.keepalive import KeepAlive
from agency.cognition.llm_thoughts import LlmThoughtGenerator
from agency.db import Database
from agency.execution.workflows import SqliteCheckpointStore
from agency.goals import BUILD_SHELTER, GoalKeyIndex, GoalSync, dump_binding, new_binding
from agency.goals.key_index import is_goal_key_conflict
from agency.goals.models import read_binding
from agency.goals.sync import Goal
from agency.goals.world_identity import WorldRecord
from agency.llm.settings import LlmSettings
from agency.llm.testing import ScriptedLLM, text
from agency.perception.stimuli import Perception
from agency.planning.tasks.models import NewTask
from agency.planning.tasks.store import SqliteTaskStore
from agency.stream.cognitive_stream import CognitiveStream


def _bound_task() -> NewTask:
    binding = new_binding(BUILD_SHELTER, {"template": "basic_shelter"}, (1, 64, 1), verifier="verify_shelter_v0")
    return NewTask(title="shelter", type="build", metadata={"goalBinding": dump_binding(binding)})


def _goal_ids(db: Database) -> set[str]:
    return {r["id"] for r in db.execute("SELECT id FROM goals")}


def _insert_goal(db: Database, goal_id: str) -> None:
    db.execute("INSERT INTO goals (id, type, status, updated_at, data) VALUES (?, 'x', 'PENDING', 0, '{}')", (goal_id,))


# ---- the shared Database ---------------------------------------------------------------


def test_every_store_given_one_database_uses_its_one_connection(tmp_path):
    clock = FrozenClock()
    with Database(tmp_path / "agency.db") as db:
        tasks = SqliteTaskStore(db, clock=clock, dev_mode=False)
        stream = CognitiveStream(db, clock=clock)
        checkpoints = SqliteCheckpointStore(db, clock=clock)
        world = WorldRecord(db, clock=clock)
        index, goals, drive = GoalKeyIndex(db), GoalSync(db, clock=clock), DriveTickMemory(db)
        assert tasks._conn is stream._conn is checkpoints.conn is world._conn is db.conn
        assert index._db is goals._db is drive._db is db

        task = tasks.add_task(_bound_task())
        key = read_binding(task).goalKey
        assert index.live_task_id(BUILD_SHELTER, key) == task.id  # the trigger's rows, seen by the index
        goals.upsert(Goal(id="g1", type=BUILD_SHELTER))
        drive.state().fired(123)
        world.record("server:a:1")
        assert DriveTickMemory(db).state().last_fired_ms == 123
        assert WorldRecord(db).current() == "server:a:1" and _goal_ids(db) == {"g1"}

        for store in (tasks, stream, checkpoints, world, index, goals, drive):
            store.close()  # a store never closes the shared Database: its owner does
        assert db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0] == 1
    with pytest.raises(sqlite3.ProgrammingError):
        db.execute("SELECT 1")


def test_a_shared_in_memory_database_is_one_database(clock):
    """':memory:' per store would be one empty database each; shared, it is the agency's."""
    with Database(":memory:") as db:
        tasks, index = SqliteTaskStore(db, clock=clock, dev_mode=False), GoalKeyIndex(db)
        task = tasks.add_task(_bound_task())
        assert index.live_key_holders() == {(BUILD_SHELTER, read_binding(task).goalKey): [task.id]}


def test_a_store_given_a_path_opens_and_closes_its_own_connection(tmp_path):
    path = tmp_path / "agency.db"
    a, b = SqliteTaskStore(path, dev_mode=False), CognitiveStream(path)
    assert a._conn is not b._conn
    a.close()
    with pytest.raises(sqlite3.ProgrammingError):
        a._conn.execute("SELECT 1")
    assert b.count() == 0  # the other store's connection is its own
    b.close()


def test_a_write_nested_in_a_transaction_is_a_savepoint_of_it(tmp_path):
    with Database(tmp_path / "agency.db") as db:
        with db.tx():
            _insert_goal(db, "outer")
            with pytest.raises(RuntimeError), db.tx():
                _insert_goal(db, "rolled-back")
                raise RuntimeError("inner fails")
            with db.tx():
                _insert_goal(db, "inner")
        assert _goal_ids(db) == {"outer", "inner"}
        with pytest.raises(RuntimeError), db.tx():
            _insert_goal(db, "gone")
            with db.tx():
                _insert_goal(db, "gone too")  # committed with the outer one only
            raise RuntimeError("outer fails")
        assert _goal_ids(db) == {"outer", "inner"} and not db.conn.in_transaction


# ---- across connections the database still decides ------------------------------------------


def test_goal_key_uniqueness_holds_across_two_databases_on_one_file(tmp_path):
    path = tmp_path / "agency.db"
    with Database(path) as one, Database(path) as two:
        first = SqliteTaskStore(one, dev_mode=False).add_task(_bound_task())
        with pytest.raises(sqlite3.IntegrityError) as refused:
            SqliteTaskStore(two, dev_mode=False).add_task(_bound_task())
        assert is_goal_key_conflict(refused.value)
        assert [t.id for t in SqliteTaskStore(two, dev_mode=False).list_by_status()] == [first.id]


def test_write_transactions_on_two_databases_serialise(tmp_path):
    path = tmp_path / "agency.db"
    with Database(path) as one, Database(path) as two:
        two.execute("PRAGMA busy_timeout = 0")
        with one.tx():
            _insert_goal(one, "a")
            # BEGIN IMMEDIATE: refused up front, not half-way through
            with pytest.raises(sqlite3.OperationalError, match="locked"), two.tx():
                pass
        with two.tx():
            _insert_goal(two, "b")
        assert _goal_ids(one) == {"a", "b"}


# ---- keep-alive on the event loop ------------------------------------------------------------


class AwaitedModel:
    """A generator whose answer is awaited: atick must await it, never call generate."""

    def __init__(self) -> None:
        self.answer = asyncio.Event()
        self.blocking_calls = 0

    def generate(self, frame):
        self.blocking_calls += 1
        return "A blocking answer."

    async def agenerate(self, frame):
        await self.answer.wait()
        return "The meadow is quiet."


def _keepalive(stream, generator, clock):
    return KeepAlive(
        stream=stream, perception=Perception(clock, publish=stream.publish), clock=clock, generator=generator
    )


@pytest.fixture
def stream(tmp_path, clock):
    s = CognitiveStream(tmp_path / "agency.db", clock=clock)
    yield s
    s.close()


def test_atick_awaits_the_model_and_leaves_the_loop_free(stream, clock, make_snapshot):
    async def main():
        model = AwaitedModel()
        ka = _keepalive(stream, model, clock)
        tick = asyncio.create_task(ka.atick(make_snapshot({"oak_log": 1})))
        for _ in range(5):
            await asyncio.sleep(0)
        assert not tick.done()  # waiting on the model; the loop runs other work meanwhile
        model.answer.set()
        return model, await tick

    model, out = asyncio.run(main())
    assert out.status == "published" and out.thought.content.startswith("The meadow is quiet.")
    assert stream.get(out.thought.id) is not None and model.blocking_calls == 0


def test_apoke_bypasses_the_cooldown(stream, clock, make_snapshot):
    async def main():
        model = AwaitedModel()
        model.answer.set()
        ka = _keepalive(stream, model, clock)
        first = await ka.atick(make_snapshot())
        return first, await ka.atick(make_snapshot()), await ka.apoke(make_snapshot())

    first, cooled, poked = asyncio.run(main())
    assert first.status == "published" and cooled.status == "skipped"
    assert poked.status == "published" and poked.bypass == "eval_poke"


def test_tick_runs_the_same_body_on_the_callers_thread_even_inside_a_loop(stream, clock, make_snapshot):
    seen: list[int] = []

    class Blocking:
        def generate(self, frame):
            seen.append(threading.get_ident())
            return "Calm."

    async def main():
        return _keepalive(stream, Blocking(), clock).tick(make_snapshot())

    out = asyncio.run(main())
    assert out.status == "published" and seen == [threading.get_ident()]
    model = AwaitedModel()  # tick calls generate, the blocking answer, even when agenerate exists
    assert _keepalive(stream, model, clock).poke(make_snapshot()).status == "published"
    assert model.blocking_calls == 1


def test_atick_with_the_llm_generator_awaits_the_http_call(stream, clock, make_snapshot):
    def slow(_req):
        time.sleep(0.3)
        return text("Birds overhead.\nINTENT: none")

    with ScriptedLLM(default=slow) as llm:
        settings = LlmSettings.model_validate(
            {"targets": [{"provider": "openai", "model": "scripted-1", "base_url": llm.url()}], "request_timeout_s": 5}
        )

        async def main():
            ticks = 0

            async def ticker():
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0.02)

            other = asyncio.create_task(ticker())
            out = await _keepalive(stream, LlmThoughtGenerator(settings), clock).atick(make_snapshot())
            other.cancel()
            return out, ticks

        out, ticks = asyncio.run(main())
    assert out.status == "published" and out.thought.content.startswith("Birds overhead.")
    assert ticks >= 5  # the loop kept running while the model answered
    assert len(llm.requests) == 1 and not llm.errors


def test_the_stores_hold_no_locks():
    root = Path(__file__).resolve().parents[3] / "agency"
    stores = [
        "db.py",
        "planning/tasks/store.py",
        "planning/tasks/store_core.py",
        "planning/tasks/store_reads.py",
        "planning/tasks/store_writes.py",
        "planning/tasks/store_base.py",
        "planning/tasks/sqlite_store.py",
        "goals/sync.py",
        "goals/key_index.py",
        "goals/world_identity.py",
        "stream/cognitive_stream.py",
        "execution/workflows/checkpoints.py",
        "cognition/drive_tick.py",
        "cognition/keepalive.py",
        "cognition/llm_thoughts.py",
    ]
    for rel in stores:
        assert "threading" not in (root / rel).read_text(), rel
