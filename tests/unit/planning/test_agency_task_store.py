"""docs/contracts.md TASK-1..5: task store metadata control plane, origin, goalKey, statuses,
persistence."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import sqlite3

import pytest

from agency.cognition.dev_injection import apply_dev_injection
from agency.db import MIGRATIONS, schema_version
from agency.planning.tasks.models import (
    PROPAGATED_META_KEYS,
    REBUILT_META_KEYS,
    TRANSITIONS,
    IllegalTransitionError,
    InvalidProgressError,
    TaskMetadata,
    TaskNotFoundError,
    TaskOrigin,
    TaskStatus,
)
from agency.planning.tasks.projection import project_incoming_metadata
from agency.planning.tasks.sqlite_store import SQL_BY_GOAL_KEY_STATUS, SQL_BY_STATUS, SQL_CLAIM_NEXT
from agency.planning.tasks.store import SqliteTaskStore
from tests.unit.pg.task_helpers import PATH_TO, add_pending, draft
from tests.unit.planning import claim_worker

S = TaskStatus


def _warnings(logs):
    return [m for level, m in logs if level == "WARNING"]


# -- TASK-1 projection allowlist ---------------------------------------------------


def test_propagated_meta_keys_are_fields_of_task_metadata():
    assert set(PROPAGATED_META_KEYS) | set(REBUILT_META_KEYS) <= set(TaskMetadata.model_fields)
    assert "origin" not in PROPAGATED_META_KEYS


def test_addTask_keeps_only_propagated_meta_keys(store):
    t = store.add_task(draft(goalKey="collect:oak_log", sourceThoughtId="th-1", secret="x", debugBlob={"a": 1}))
    dumped = t.metadata.model_dump(exclude_none=True)
    assert dumped["goalKey"] == "collect:oak_log" and dumped["sourceThoughtId"] == "th-1"
    assert "secret" not in dumped and "debugBlob" not in dumped
    assert set(dumped) <= set(PROPAGATED_META_KEYS) | set(REBUILT_META_KEYS)


def test_addTask_rebuilds_metadata_keys_from_scratch(store, clock):
    t = store.add_task(
        draft(
            createdAt=1,
            updatedAt=2,
            retryCount=9,
            maxRetries=99,
            childTaskIds=["x"],
            tags=["a", 3],
            category="cat",
            solver={"s": 1},
        )
    )
    m = t.metadata
    assert (m.createdAt, m.updatedAt, m.retryCount, m.maxRetries, m.childTaskIds) == (clock(), clock(), 0, 3, [])
    assert (m.tags, m.category, m.solver) == (["a"], "cat", {"s": 1})
    assert store.add_task(draft()).metadata.category == "collect"


def test_addTask_drops_empty_string_goalKey_never_reaches_task_metadata(store):
    t = store.add_task(draft(goalKey=""))
    assert t.metadata.goalKey is None
    stored = json.loads(store._conn.execute("SELECT data FROM tasks WHERE id = ?", (t.id,)).fetchone()[0])
    assert "goalKey" not in stored["metadata"]
    assert store._conn.execute("SELECT goal_key FROM tasks WHERE id = ?", (t.id,)).fetchone()[0] is None


def test_projection_boundary_coerces_empty_goalKey_to_skip():
    dropped: list[str] = []
    out = project_incoming_metadata({"goalKey": "", "sourceThoughtId": "t", "nope": 1}, on_dropped=dropped.append)
    assert out == {"sourceThoughtId": "t"}
    assert dropped == ["nope"]


def test_updateTaskMetadata_never_stores_empty_goalKey(store):
    t = store.add_task(draft(goalKey="collect:oak_log"))
    assert store.update_task_metadata(t.id, {"goalKey": ""}).metadata.goalKey == "collect:oak_log"


def test_database_rejects_empty_goal_key_as_last_layer(store):
    with pytest.raises(sqlite3.IntegrityError):
        store._conn.execute(
            "INSERT INTO tasks (id, status, goal_key, progress, created_at, updated_at, data) "
            "VALUES ('x', 'pending', '', 0, 0, 0, '{}')"
        )


def test_dev_mode_warns_once_per_dropped_key_per_store_session(store, logs, tmp_path, clock):
    store.add_task(draft(foo=1, bar=2))
    store.add_task(draft(foo=3))
    store.update_task_metadata(store.add_task(draft()).id, {"foo": 4})
    warned = _warnings(logs)
    assert sum("'foo'" in m for m in warned) == 1
    assert sum("'bar'" in m for m in warned) == 1
    fresh = SqliteTaskStore(tmp_path / "other.db", clock=clock, dev_mode=True)
    fresh.add_task(draft(foo=1))
    fresh.close()
    assert sum("'foo'" in m for m in _warnings(logs)) == 2  # a new session warns again


def test_rebuilt_keys_are_not_reported_as_dropped(store, logs):
    store.add_task(draft(tags=["x"], category="c", createdAt=5))
    assert _warnings(logs) == []


def test_production_mode_drops_keys_without_warning(tmp_path, clock, logs):
    s = SqliteTaskStore(tmp_path / "p.db", clock=clock, dev_mode=False)
    t = s.add_task(draft(foo=1))
    s.close()
    assert _warnings(logs) == []
    assert "foo" not in t.metadata.model_dump()


ENVS = [None, "", "production", "staging", "development", "Development", " development "]


def _set_env(monkeypatch, env):
    if env is None:
        monkeypatch.delenv("MCBOT_ENV", raising=False)
    else:
        monkeypatch.setenv("MCBOT_ENV", env)


@pytest.mark.parametrize("env", ENVS)
def test_dev_mode_is_on_only_when_MCBOT_ENV_is_development(tmp_path, clock, logs, monkeypatch, env):
    """Unset means production (DEV-1): no dropped-key warnings and no
    invariant check; MCBOT_ENV=development turns both on."""
    _set_env(monkeypatch, env)
    checked: list[str] = []
    s = SqliteTaskStore(tmp_path / "e.db", clock=clock, invariant_check=lambda t: checked.append(t.id))
    t = s.add_task(draft(foo=1))
    s.close()
    development = env is not None and env.strip().lower() == "development"
    assert bool(_warnings(logs)) is development
    assert checked == ([t.id] if development else [])


@pytest.mark.parametrize("env", ENVS)
def test_the_store_and_dev_injection_read_MCBOT_ENV_the_same_way(tmp_path, clock, logs, monkeypatch, env):
    _set_env(monkeypatch, env)
    s = SqliteTaskStore(tmp_path / "e.db", clock=clock)
    s.add_task(draft(foo=1))
    s.close()
    store_dev = bool(_warnings(logs))
    thought = apply_dev_injection({"content": "hi", "convertEligible": True}, os.environ, now_ms=clock())
    assert thought.convertEligible is store_dev


# -- TASK-2 origin ---------------------------------------------------------------------


def test_origin_is_stamped_by_finalize_new_task(store, clock):
    t = store.add_task(draft(), allow_unfinalized=True)
    assert t.metadata.origin is None
    f = store.finalize_new_task(t.id, TaskOrigin(kind="thought", sourceId="th-1"))
    assert f.metadata.origin == TaskOrigin(kind="thought", sourceId="th-1", stampedAt=clock())
    assert store.get_task(t.id).metadata.origin == f.metadata.origin


def test_origin_is_immutable_after_creation(store):
    t = store.add_task(draft(), origin=TaskOrigin(kind="drive-tick"))
    again = store.finalize_new_task(t.id, TaskOrigin(kind="manual"))
    assert again.metadata.origin.kind == "drive-tick"


def test_updateTaskMetadata_never_overwrites_origin(store):
    t = store.add_task(draft(), origin=TaskOrigin(kind="thought", sourceId="th-1"))
    u = store.update_task_metadata(t.id, {"origin": {"kind": "evil"}, "blockedReason": "waiting"})
    assert u.metadata.origin.kind == "thought"
    assert u.metadata.blockedReason == "waiting"
    assert store.get_task(t.id).metadata.origin.kind == "thought"


def test_origin_in_caller_metadata_is_dropped_only_finalize_stamps_it(store):
    assert store.add_task(draft(origin={"kind": "forged"})).metadata.origin is None


def test_strict_finalize_warns_when_task_stored_without_origin(tmp_path, clock, logs):
    s = SqliteTaskStore(tmp_path / "s.db", clock=clock, strict_finalize=True, dev_mode=False)
    t = s.add_task(draft())
    s.close()
    assert any("strict finalize" in m and t.id in m for m in _warnings(logs))


def test_strict_finalize_silent_with_origin_or_allow_unfinalized(tmp_path, clock, logs):
    s = SqliteTaskStore(tmp_path / "s.db", clock=clock, strict_finalize=True, dev_mode=False)
    s.add_task(draft(), origin=TaskOrigin(kind="manual"))
    s.add_task(draft(), allow_unfinalized=True)
    s.close()
    assert _warnings(logs) == []


def test_strict_finalize_off_never_warns(store, logs):
    store.add_task(draft())
    assert not any("strict finalize" in m for m in _warnings(logs))


def test_strict_finalize_flag_reads_env(tmp_path, clock, logs, monkeypatch):
    monkeypatch.setenv("MCBOT_PLANNING_STRICT_FINALIZE", "1")
    s = SqliteTaskStore(tmp_path / "s.db", clock=clock, dev_mode=False)
    s.add_task(draft())
    s.close()
    assert any("strict finalize" in m for m in _warnings(logs))


# -- statuses and progress ---------------------------------------------------------------


@pytest.mark.parametrize(("frm", "to"), list(itertools.product(TaskStatus, TaskStatus)))
def test_status_transitions_follow_the_explicit_table(store, frm, to):
    t = store.add_task(draft())
    for step in PATH_TO[frm]:
        store.set_status(t.id, step)
    if to in TRANSITIONS[frm]:
        assert store.set_status(t.id, to).status is to
    else:
        with pytest.raises(IllegalTransitionError) as err:
            store.set_status(t.id, to)
        assert (err.value.from_status, err.value.to_status) == (frm, to)
        assert store.get_task(t.id).status is frm


def test_failed_is_terminal():
    assert TRANSITIONS[TaskStatus.failed] == frozenset()


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan"), True])
def test_progress_must_be_within_0_and_1(store, bad):
    t = store.add_task(draft())
    with pytest.raises(InvalidProgressError):
        store.set_progress(t.id, bad)
    assert store.set_progress(t.id, 0.5).progress == 0.5
    assert store.set_progress(t.id, 1).progress == 1.0


def test_unknown_task_raises_typed_not_found(store):
    assert store.get_task("nope") is None
    with pytest.raises(TaskNotFoundError):
        store.set_status("nope", "active")


# -- queries and persistence -----------------------------------------------------------------


def test_find_by_goal_key_and_status(store):
    a = store.add_task(draft(goalKey="collect:oak_log"))
    b = store.add_task(draft(goalKey="collect:oak_log"))
    store.add_task(draft(goalKey="craft:crafting_table"))
    store.set_status(b.id, "active")
    assert [t.id for t in store.find_by_goal_key("collect:oak_log")] == [a.id, b.id]
    assert [t.id for t in store.find_by_goal_key("collect:oak_log", [S.active])] == [b.id]
    assert [t.id for t in store.list_by_status(S.active)] == [b.id]
    assert store.find_by_goal_key("") == []


def test_goal_key_and_status_queries_are_backed_by_indexes(store):
    def plan(sql, params):
        return " ".join(r[-1] for r in store._conn.execute("EXPLAIN QUERY PLAN " + sql, params))

    assert "idx_tasks_goal_key_status" in plan(SQL_BY_GOAL_KEY_STATUS.format(marks="?, ?"), ["k", "pending", "active"])
    assert "idx_tasks_claim (status=?)" in plan(SQL_BY_STATUS.format(marks="?"), ["pending"])


def test_task_store_survives_reopening_the_database_file(tmp_path, clock):
    path = tmp_path / "persist.db"
    s = SqliteTaskStore(path, clock=clock)
    t = s.add_task(draft(goalKey="collect:oak_log"), origin=TaskOrigin(kind="thought"))
    s.set_status(t.id, "active")
    s.set_progress(t.id, 0.25)
    s.close()
    reopened = SqliteTaskStore(path, clock=clock)
    got = reopened.get_task(t.id)
    reopened.close()
    assert got is not None
    assert (got.status, got.progress, got.metadata.goalKey, got.metadata.origin.kind) == (
        S.active,
        0.25,
        "collect:oak_log",
        "thought",
    )


def test_database_runs_in_wal_mode_and_records_schema_version(store, tmp_path, clock):
    assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert schema_version(store._conn) == MIGRATIONS[-1][0]
    again = SqliteTaskStore(tmp_path / "agency.db", clock=clock)  # reopening migrates nothing twice
    assert schema_version(again._conn) == MIGRATIONS[-1][0]
    again.close()


def test_task_json_uses_camelCase_keys(store):
    t = store.add_task(
        {
            "title": "Collect oak log",
            "type": "collect",
            "source": "drive-tick",
            "metadata": {"goalKey": "collect:oak_log"},
        }
    )
    data = t.model_dump(mode="json")
    assert {"id", "title", "type", "status", "progress", "priority", "urgency", "source", "metadata"} <= set(data)
    assert {"goalKey", "createdAt", "updatedAt", "retryCount", "maxRetries", "childTaskIds"} <= set(data["metadata"])


# -- urgency and the claim -------------------------------------------------------------------
# (The claim order and two stores claiming are in the contract, tests/unit/pg/
# test_task_store_contract.py, which runs them on SQLite as well.)


def test_claim_query_is_backed_by_an_index(store):
    plan = " ".join(r[-1] for r in store._conn.execute("EXPLAIN QUERY PLAN " + SQL_CLAIM_NEXT))
    assert "idx_tasks_claim" in plan and "TEMP B-TREE" not in plan  # no sort outside the index


def test_claims_across_processes_take_each_task_exactly_once(tmp_path, clock):
    path = tmp_path / "claims.db"
    s = SqliteTaskStore(path, clock=clock, dev_mode=False)
    ids = {add_pending(s, clock, f"t{i}", (i % 5) / 4) for i in range(40)}
    s.close()
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=claim_worker.claim_all, args=(str(path), results)) for _ in range(3)]
    for p in procs:
        p.start()
    claimed = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    every = [tid for batch in claimed for tid, _urgency in batch]
    assert sorted(every) == sorted(ids)  # each task exactly once, none lost
    for batch in claimed:  # and each daemon took its share most urgent first
        urgencies = [u for _tid, u in batch]
        assert urgencies == sorted(urgencies, reverse=True)


def test_urgency_has_one_writer_the_scorer(store, clock):
    t = store.add_task({"title": "x", "type": "collect", "urgency": 0.9})  # a creator cannot set it
    assert t.urgency == 0.5 and store.get_task(t.id).urgency == 0.5
    clock.advance(5000)
    assert store.set_urgencies({t.id: 0.75, "no-such-task": 0.1}) == [t.id]
    after = store.get_task(t.id)
    assert after.urgency == 0.75
    assert after.metadata.updatedAt == t.metadata.updatedAt  # a ranking, not a change to the task
    assert store.set_urgencies({t.id: 0.75}) == []  # unchanged: nothing written
    store.set_status(t.id, S.failed)
    assert store.set_urgencies({t.id: 0.2}) == [] and store.get_task(t.id).urgency == 0.75  # terminal: left alone
    with pytest.raises(ValueError):
        store.set_urgencies({t.id: 1.5})


def test_an_older_database_gets_the_urgency_column_from_its_tasks(tmp_path, clock):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for version, _desc, sql in MIGRATIONS[:3]:  # a file written before task urgency was a column
        conn.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
    s = SqliteTaskStore(tmp_path / "scratch.db", clock=clock, dev_mode=False)
    ids = [s.add_task({"title": f"t{i}", "type": "collect"}) for i in range(2)]
    s.close()
    for task, urgency in zip(ids, (0.3, 0.7), strict=True):
        row = task.model_copy(update={"urgency": urgency})
        conn.execute(
            "INSERT INTO tasks (id, status, goal_key, progress, created_at, updated_at, data) "
            "VALUES (?, 'pending', NULL, 0, ?, ?, ?)",
            (row.id, row.metadata.createdAt, row.metadata.updatedAt, row.model_dump_json()),
        )
    conn.close()
    upgraded = SqliteTaskStore(path, clock=clock, dev_mode=False)
    try:
        assert schema_version(upgraded._conn) == MIGRATIONS[-1][0]
        assert upgraded.claim_next().id == ids[1].id  # its stored urgency, 0.7, now in the column
    finally:
        upgraded.close()
