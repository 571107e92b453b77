"""Task lifecycle events: the status mapping, the store writing each kind in the change's
own transaction, paging, and the migration that adds the log to an older file."""

from __future__ import annotations

import json
import sqlite3

import pytest

from agency.db import MIGRATIONS, schema_version
from agency.execution.workflows.engine import StepEvent
from agency.planning.tasks.events import (
    CANCELLED_REASON,
    EVENT_KINDS,
    STATUS_EVENTS,
    TERMINAL_EVENTS,
    TaskEvent,
    cancelled_patch,
    record_step,
    status_event,
)
from agency.planning.tasks.models import (
    TRANSITIONS,
    IllegalTransitionError,
    Task,
    TaskMetadata,
    TaskNotFoundError,
    TaskOrigin,
    TaskStatus,
)
from agency.planning.tasks.store import SqliteTaskStore

S = TaskStatus

# Every legal transition and the event it makes: a new entry in TRANSITIONS fails here
# until it has a kind.
EXPECTED_KIND = {
    (S.pending, S.pending_planning): "planning",
    (S.pending, S.active): "claimed",
    (S.pending, S.paused): "held",
    (S.pending, S.failed): "failed",
    (S.pending, S.unplannable): "unplannable",
    (S.pending, S.completed): "completed",
    (S.pending_planning, S.pending): "requeued",
    (S.pending_planning, S.active): "claimed",
    (S.pending_planning, S.paused): "held",
    (S.pending_planning, S.failed): "failed",
    (S.pending_planning, S.unplannable): "unplannable",
    (S.active, S.completed): "completed",
    (S.active, S.failed): "failed",
    (S.active, S.paused): "held",
    (S.active, S.pending): "requeued",
    (S.active, S.pending_planning): "requeued",
    (S.active, S.unplannable): "unplannable",
    (S.paused, S.pending): "resumed",
    (S.paused, S.failed): "failed",
    (S.unplannable, S.pending): "resumed",
    (S.unplannable, S.failed): "failed",
    (S.completed, S.active): "reopened",
}


def _task(status: TaskStatus = S.pending, **meta) -> Task:
    return Task(title="t", type="collect", status=status, metadata=TaskMetadata(createdAt=0, updatedAt=0, **meta))


def _draft(**meta):
    return {"title": "Collect oak log", "type": "collect", "metadata": meta}


def _kinds(store, task_id):
    return [e.event for e in store.events(task_id)]


# -- the mapping --------------------------------------------------------------------------


def test_every_legal_transition_maps_to_its_kind():
    legal = {(frm, to) for frm, tos in TRANSITIONS.items() for to in tos}
    assert legal == set(EXPECTED_KIND)
    for (frm, to), kind in EXPECTED_KIND.items():
        got = status_event(_task(frm), _task(to))
        assert got is not None and got[0] == kind, (frm, to, got)
        assert got[1]["from"] == frm.value
        assert kind in STATUS_EVENTS


def test_no_status_change_is_no_event():
    assert status_event(_task(S.active), _task(S.active, blockedReason="x")) is None


def test_created_names_origin_kind_and_goal_key():
    assert status_event(None, _task(goalKey="collect:oak_log", origin=TaskOrigin(kind="thought"))) == (
        "created",
        {"origin": "thought", "goalKey": "collect:oak_log"},
    )
    assert status_event(None, _task()) == ("created", {"origin": None, "goalKey": None})


def test_reasons_come_from_the_task_after_the_change():
    failed = _task(S.failed, blockedReason="no path", solver={"failureReason": "no recipe"})
    assert status_event(_task(S.active), failed)[1]["reason"] == "no recipe"  # solver's reason first
    assert status_event(_task(S.active), _task(S.failed, blockedReason="no path"))[1]["reason"] == "no path"
    assert "reason" not in status_event(_task(S.active), _task(S.failed))[1]
    assert status_event(_task(S.active), _task(S.paused, blockedReason="hold: night"))[1]["reason"] == "hold: night"
    assert status_event(_task(S.pending), _task(S.unplannable, blockedReason="no agent"))[1]["reason"] == "no agent"


def test_kind_sets():
    assert frozenset({"completed", "failed"}) == TERMINAL_EVENTS
    assert {"progress", "step_started", "step_finished", "step_failed"} <= EVENT_KINDS
    kinds = {"progress", "step_started", "step_finished", "step_failed", "replanned", "bridge_down"}
    assert STATUS_EVENTS | kinds == EVENT_KINDS


# -- the store writes them ----------------------------------------------------------------


def test_a_task_life_is_logged_in_order_with_status_progress_and_time(store, clock):
    start = clock()
    t = store.add_task(_draft(goalKey="collect:oak_log"), origin=TaskOrigin(kind="drive-tick"))
    clock.advance(10)
    store.set_status(t.id, S.pending_planning)
    store.set_status(t.id, S.pending)
    clock.advance(10)
    assert store.claim_next().id == t.id
    store.set_progress(t.id, 0.25)
    store.set_status(t.id, S.paused, metadata_patch={"blockedReason": "night hold"})
    store.set_status(t.id, S.pending)
    store.claim_next()
    store.set_progress(t.id, 1.0)
    clock.advance(10)
    store.set_status(t.id, S.completed)
    store.set_status(t.id, S.active)
    store.set_status(t.id, S.failed, metadata_patch={"solver": {"failureReason": "gave up"}})

    evs = store.events(t.id)
    assert [(e.event, e.status, e.progress) for e in evs] == [
        ("created", "pending", 0.0),
        ("planning", "pending_planning", 0.0),
        ("requeued", "pending", 0.0),
        ("claimed", "active", 0.0),
        ("progress", "active", 0.25),
        ("held", "paused", 0.25),
        ("resumed", "pending", 0.25),
        ("claimed", "active", 0.25),
        ("progress", "active", 1.0),
        ("completed", "completed", 1.0),
        ("reopened", "active", 1.0),
        ("failed", "failed", 1.0),
    ]
    assert [e.at for e in evs][:4] == [start, start + 10, start + 10, start + 20]
    assert evs[-3].at == start + 30
    assert evs[0].data == {"origin": "drive-tick", "goalKey": "collect:oak_log"}
    assert evs[4].data == {"progress": 0.25}
    assert evs[5].data == {"from": "active", "reason": "night hold"}
    assert evs[-1].data["reason"] == "gave up"
    assert [e.seq for e in evs] == sorted({e.seq for e in evs})  # strictly increasing
    assert all(e.taskId == t.id for e in evs)


def test_progress_is_logged_only_when_it_changes(store, clock):
    t = store.add_task(_draft())
    store.set_progress(t.id, 0.5)
    clock.advance(5)
    again = store.set_progress(t.id, 0.5)
    assert again.metadata.updatedAt == clock()  # the write itself still happens
    assert _kinds(store, t.id) == ["created", "progress"]


def test_metadata_urgency_and_finalize_writes_are_not_events(store):
    t = store.add_task(_draft(), allow_unfinalized=True)
    store.finalize_new_task(t.id, TaskOrigin(kind="manual"))
    store.update_task_metadata(t.id, {"blockedReason": "waiting"})
    assert store.set_urgencies({t.id: 0.9}) == [t.id]
    assert _kinds(store, t.id) == ["created"]


def test_a_refused_change_logs_nothing(store):
    t = store.add_task(_draft())
    store.set_status(t.id, S.failed)
    with pytest.raises(IllegalTransitionError):
        store.set_status(t.id, S.active)  # failed is terminal
    assert _kinds(store, t.id) == ["created", "failed"]


def test_the_event_and_the_change_commit_together(store):
    t = store.add_task(_draft())
    # the log refuses every row: each change must roll back with its event
    store._conn.execute("CREATE TRIGGER no_log BEFORE INSERT ON task_events BEGIN SELECT RAISE(ABORT, 'log down'); END")
    with pytest.raises(sqlite3.DatabaseError, match="log down"):
        store.set_status(t.id, S.active)
    with pytest.raises(sqlite3.DatabaseError, match="log down"):
        store.set_progress(t.id, 0.5)
    with pytest.raises(sqlite3.DatabaseError, match="log down"):
        store.claim_next()
    with pytest.raises(sqlite3.DatabaseError, match="log down"):
        store.add_task(_draft(goalKey="collect:dirt"))
    now = store.get_task(t.id)
    assert (now.status, now.progress) == (S.pending, 0.0)
    assert store.find_by_goal_key("collect:dirt") == []
    store._conn.execute("DROP TRIGGER no_log")
    store.set_status(t.id, S.active)
    assert _kinds(store, t.id) == ["created", "claimed"]


def test_an_invariant_check_that_refuses_a_write_drops_its_event_too(tmp_path, clock):
    def no_completed(task: Task) -> None:
        if task.status is S.completed:
            raise ValueError("not yet")

    s = SqliteTaskStore(tmp_path / "a.db", clock=clock, dev_mode=True, invariant_check=no_completed)
    try:
        t = s.add_task(_draft())
        with pytest.raises(ValueError):
            s.set_status(t.id, S.completed)
        assert _kinds(s, t.id) == ["created"]
    finally:
        s.close()


# -- record_event -------------------------------------------------------------------------


def test_record_event_stamps_the_current_status_and_progress(store, clock):
    t = store.add_task(_draft())
    store.claim_next()
    store.set_progress(t.id, 0.4)
    clock.advance(7)
    ev = store.record_event(t.id, "step_started", {"runId": "r", "stepId": "dig", "index": 0, "total": 2})
    assert (ev.event, ev.status, ev.progress, ev.at) == ("step_started", "active", 0.4, clock())
    assert store.events(t.id)[-1] == ev
    assert ev.seq > store.events(t.id)[-2].seq
    assert store.record_event(t.id, "step_finished").data == {}


def test_record_event_refuses_unknown_tasks_and_non_step_kinds(store):
    t = store.add_task(_draft())
    with pytest.raises(TaskNotFoundError):
        store.record_event("task-nope", "step_started", {})
    for kind in ("completed", "progress", "banana"):
        with pytest.raises(ValueError):
            store.record_event(t.id, kind, {})
    assert _kinds(store, t.id) == ["created"]
    assert store.events("task-nope") == []


def test_record_step_writes_engine_step_events(store):
    t = store.add_task(_draft())
    observe = record_step(store)
    observe(StepEvent("step_started", "run-1", t.id, "dig", 1, 3))
    observe(StepEvent("step_failed", "run-1", t.id, "dig", 1, 3, "BOOM", "dig failed"))
    started, failed = store.events(t.id)[1:]
    assert started.data == {"runId": "run-1", "stepId": "dig", "index": 1, "total": 3}
    assert failed.event == "step_failed"
    assert failed.data["error"] == {"code": "BOOM", "message": "dig failed"}


# -- paging and JSON ----------------------------------------------------------------------


def test_events_pages_after_a_seq_and_keeps_tasks_apart(store):
    a = store.add_task(_draft())
    b = store.add_task(_draft())
    for i in range(1, 6):
        store.set_progress(a.id, i / 10)
        store.set_progress(b.id, i / 10)
    all_a = store.events(a.id)
    assert len(all_a) == 6 and {e.taskId for e in all_a} == {a.id}
    first = store.events(a.id, limit=2)
    assert first == all_a[:2]
    rest = store.events(a.id, after_seq=first[-1].seq, limit=3)
    assert rest == all_a[2:5]
    assert store.events(a.id, after_seq=all_a[-1].seq) == []
    # seq is global: b's events fall between a's
    assert any(all_a[0].seq < e.seq < all_a[-1].seq for e in store.events(b.id))
    with pytest.raises(ValueError):
        store.events(a.id, limit=0)


def test_task_event_json_is_camelCase(store):
    t = store.add_task(_draft())
    dumped = json.loads(store.events(t.id)[0].model_dump_json())
    assert set(dumped) == {"seq", "taskId", "at", "event", "status", "progress", "data"}
    assert TaskEvent.model_validate(dumped) == store.events(t.id)[0]


# -- migration ----------------------------------------------------------------------------


def test_a_version_5_file_keeps_its_tasks_and_gains_the_log(tmp_path, clock):
    path = tmp_path / "v5.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for version, _desc, sql in MIGRATIONS[:5]:
        conn.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
    assert schema_version(conn) == 5
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'task_events'").fetchone() is None
    old = Task(
        title="old", type="collect", status=S.active, progress=0.3, metadata=TaskMetadata(createdAt=1, updatedAt=2)
    )
    conn.execute(
        "INSERT INTO tasks (id, status, goal_key, progress, urgency, created_at, updated_at, data) "
        "VALUES (?, 'active', NULL, 0.3, 0.5, 1, 2, ?)",
        (old.id, old.model_dump_json()),
    )
    conn.close()

    s = SqliteTaskStore(path, clock=clock, dev_mode=False)
    try:
        assert schema_version(s._conn) == MIGRATIONS[-1][0] >= 6
        assert s.get_task(old.id) == old
        assert s.events(old.id) == []  # no history invented for the past
        s.set_status(old.id, S.completed)
        ev = s.events(old.id)
        assert [(e.event, e.status, e.progress, e.data) for e in ev] == [
            ("completed", "completed", 0.3, {"from": "active"})
        ]
        plan = " ".join(
            r[3]
            for r in s._conn.execute(
                "EXPLAIN QUERY PLAN SELECT seq FROM task_events WHERE task_id = ? AND seq > ? ORDER BY seq", ("x", 0)
            )
        )
        assert "idx_task_events_task" in plan
    finally:
        s.close()


def test_a_user_cancel_fails_the_task_with_its_reason_and_keeps_the_solver(store):
    t = store.add_task(_draft(solver={"plan": "p1"}))
    store.claim_next()
    after = store.set_status(t.id, S.failed, metadata_patch=cancelled_patch(store.get_task(t.id)))
    assert after.metadata.solver == {"plan": "p1", "failureReason": CANCELLED_REASON}
    last = store.events(t.id)[-1]
    assert (last.event, last.data["reason"]) == ("failed", CANCELLED_REASON)


def test_a_new_hold_reason_on_a_paused_task_is_held_again_and_the_same_one_is_not(store):
    task = store.add_task(_draft(), origin=TaskOrigin(kind="user"))
    store.set_status(task.id, S.paused, metadata_patch={"blockedReason": "disconnected"})
    store.update_task_metadata(task.id, {"blockedReason": "manual_pause"})  # the user's pause over it
    store.update_task_metadata(task.id, {"blockedReason": "manual_pause", "tags": ["x"]})  # nothing new
    held = [e for e in store.events(task.id) if e.event == "held"]
    assert [e.data.get("reason") for e in held] == ["disconnected", "manual_pause"]
    assert held[-1].data["from"] == "paused" and held[-1].status == "paused"
