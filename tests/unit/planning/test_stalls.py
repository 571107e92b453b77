"""Every stall class of docs/contracts.md SOAK-2 produced and classified."""

from __future__ import annotations

from agency.clock import FrozenClock
from agency.planning.stalls import STALL_CLASSES, classify_stall, stalled_tasks
from agency.planning.tasks.idempotency import GAVE_WAY
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.planning.tasks.store import SqliteTaskStore


def _store(tmp_path):
    clock = FrozenClock(1_700_000_000_000)
    return SqliteTaskStore(tmp_path / "s.db", clock=clock, dev_mode=False, strict_finalize=False), clock


def _add(store, **meta):
    src = meta.pop("source", "drive-tick")
    return store.add_task(
        NewTask(
            title="collect oak_log 8",
            type="collect",
            source=src,
            parameters={"target": "oak_log", "amount": 8},
            metadata=meta,
        ),
        allow_unfinalized=True,
    )


def test_each_stall_class_is_produced_and_classified(tmp_path):
    store, clock = _store(tmp_path)
    now = clock()
    fresh_tick = now

    t = _add(store, goalKey="collect:oak_log")
    store.set_status(t.id, TaskStatus.unplannable)
    assert classify_stall(store.get_task(t.id), now, fresh_tick) == "unplannable"

    t = _add(store, goalKey="a:b", blockedReason="materials_missing")
    assert classify_stall(t, now, fresh_tick) == "blocked_reason"

    t = _add(store, goalKey="a:c")
    assert classify_stall(t, now, None) == "executor_unavailable"
    assert classify_stall(t, now, now - 61_000) == "executor_unavailable"

    t = _add(store)
    assert classify_stall(t, now, fresh_tick) == "goalKey_missing"

    t = _add(store, goalKey="a:d", convertEligible=False)
    assert classify_stall(t, now, fresh_tick) == "convertEligible_gate"

    t = _add(store, goalKey="a:e")
    assert classify_stall(t, now + 299_999, now + 299_999) is None
    assert classify_stall(t, now + 300_000, now + 300_000) == "stuck_pending"

    produced = {s["stallClass"] for s in stalled_tasks(store.list_by_status(*TaskStatus), now + 300_000, None)}
    assert "executor_unavailable" in produced and "unplannable" in produced
    assert set(STALL_CLASSES) >= produced
    store.close()


def test_terminal_and_moving_tasks_are_not_stalled(tmp_path):
    store, clock = _store(tmp_path)
    t = _add(store, goalKey="collect:oak_log")
    store.set_status(t.id, TaskStatus.active)
    assert classify_stall(store.get_task(t.id), clock(), clock()) is None
    store.set_status(t.id, TaskStatus.completed)
    assert classify_stall(store.get_task(t.id), clock() + 10**9, None) is None
    store.close()


def test_a_task_that_gave_way_to_queued_work_waits_its_turn_and_is_no_stall(tmp_path):
    store, clock = _store(tmp_path)
    t = _add(store, goalKey="collect:oak_log", blockedReason=GAVE_WAY)
    store.set_status(t.id, TaskStatus.paused)
    assert classify_stall(store.get_task(t.id), clock() + 10**9, clock()) is None
    store.update_task_metadata(t.id, {"blockedReason": "preempted"})  # any other hold is one
    assert classify_stall(store.get_task(t.id), clock(), clock()) == "blocked_reason"
    store.close()


def test_a_task_queued_behind_a_running_one_is_waiting_not_stuck_until_the_executor_is_free_that_long(tmp_path):
    store, clock = _store(tmp_path)
    now = clock()
    t = _add(store, goalKey="craft:crafting_table")
    # ten minutes pending, but the executor was busy with a shelter build until a moment ago
    later = now + 600_000
    assert classify_stall(t, later, later, executor_busy_ms=later - 1_000) is None
    assert classify_stall(t, later + 298_999, later + 298_999, executor_busy_ms=later - 1_000) is None
    assert classify_stall(t, later + 299_000, later + 299_000, executor_busy_ms=later - 1_000) == "stuck_pending"
    # an executor that never ran anything: the clock starts at creation, as before
    assert classify_stall(t, now + 300_000, now + 300_000, executor_busy_ms=None) == "stuck_pending"
    store.close()
