"""resolve_or_create_build_goal (docs/contracts.md GOAL-4..6): dedup, atomicity across threads and
processes, the uniqueness invariant, spatial scope, satisfaction and regression."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading

import pytest

from agency.goals import (
    BUILD_SHELTER,
    REGRESSION_DETECTED,
    GoalKeyConflictError,
    GoalKeyIndex,
    Outcome,
    VerificationResult,
    anchor_goal,
    basic_shelter,
    dump_binding,
    new_binding,
    read_binding,
    resolve_or_create_build_goal,
)
from agency.goals.resolver import score_candidate
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.planning.tasks.store import SqliteTaskStore

from . import race_worker
from .conftest import ORIGIN, completed_shelter, shelter_intent


def _live_goal_tasks(store):
    return [t for t in store.list_by_status() if t.metadata.goalBinding and not t.status.terminal]


def _assert_unique(index):
    holders = index.live_key_holders()
    assert holders and all(len(ids) == 1 for ids in holders.values()), holders


def test_dedup(store, index, world):
    first = resolve_or_create_build_goal(store, index, shelter_intent((2.0, 64.0, 2.0)), verify=world.verify)
    again = resolve_or_create_build_goal(store, index, shelter_intent((9.0, 64.0, 12.0)), verify=world.verify)
    assert first.outcome is Outcome.created
    assert again.outcome is Outcome.continued and again.task.id == first.task.id
    assert read_binding(again.task).goalKey == read_binding(first.task).goalKey
    assert len(_live_goal_tasks(store)) == 1


def test_dedup_nearby_chunk_continues_by_score(store, index, world):
    first = resolve_or_create_build_goal(store, index, shelter_intent((2.0, 64.0, 2.0)), verify=world.verify)
    near = resolve_or_create_build_goal(store, index, shelter_intent((22.0, 64.0, 2.0)), verify=world.verify)
    assert near.outcome is Outcome.continued and near.task.id == first.task.id
    assert 0.6 < near.score < 1.0


def test_atomic_resolve(db_path, store, index, clock):
    """Two simultaneous intents on two connections, forced to collide between lookup and
    insert: the database lets one insert win; the loser looks again and continues it."""
    barrier = threading.Barrier(2)
    results: list = []

    def worker() -> None:
        s, i = SqliteTaskStore(db_path, clock=clock, dev_mode=False), GoalKeyIndex(db_path)
        try:
            res = resolve_or_create_build_goal(
                s,
                i,
                shelter_intent((3.0, 64.0, 3.0)),
                verify=lambda *_: None,
                on_before_create=lambda attempt: barrier.wait(timeout=10) if attempt == 0 else None,
            )
            results.append((res.outcome, res.task.id))
        finally:
            i.close()
            s.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(o.value for o, _ in results) == ["continued", "created"]
    assert len({tid for _, tid in results}) == 1
    assert len(_live_goal_tasks(store)) == 1


def test_atomic_resolve_across_processes(db_path, store, index):
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=race_worker.race, args=(str(db_path), barrier, results)) for _ in range(2)]
    for p in procs:
        p.start()
    got = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    assert sorted(o for o, _ in got) == ["continued", "created"]
    assert len({tid for _, tid in got}) == 1
    assert len(_live_goal_tasks(store)) == 1
    _assert_unique(index)


def test_uniqueness_invariant(store, index, world):
    a = resolve_or_create_build_goal(store, index, shelter_intent((2.0, 64.0, 2.0)), verify=world.verify)
    anchor_goal(store, a.task.id, basic_shelter(ORIGIN).site)
    resolve_or_create_build_goal(store, index, shelter_intent((2.0, 64.0, 2.0)), verify=world.verify)  # by alias
    resolve_or_create_build_goal(store, index, shelter_intent((300.0, 64.0, 300.0)), verify=world.verify)  # far: new
    assert len(_live_goal_tasks(store)) == 2
    _assert_unique(index)
    # a writer that bypasses the resolver is refused by the database: goalKey taken as an alias
    alias = read_binding(store.get_task(a.task.id)).goalKeyAliases[0]
    clash = new_binding(BUILD_SHELTER, {}, (0, 64, 0), verifier="v").model_copy(update={"goalKey": alias})
    with pytest.raises(sqlite3.IntegrityError, match="goal_keys"):
        store.add_task(NewTask(title="dup", type="build", metadata={"goalBinding": dump_binding(clash)}))
    # ... but once the first task is terminal the key is free again
    store.set_status(a.task.id, TaskStatus.failed)
    store.add_task(NewTask(title="dup", type="build", metadata={"goalBinding": dump_binding(clash)}))
    _assert_unique(index)


def test_spatial_scope(store, index, lifecycle, world):
    """Completed shelter at 80 m + build shelter here -> a new task; never 'already
    satisfied', and the far shelter is not even verified."""
    done = completed_shelter(store, index, lifecycle, world)
    far = (ORIGIN[0] + 2 + 80.0, 64.0, ORIGIN[2] + 2.0)
    res = resolve_or_create_build_goal(store, index, shelter_intent(far), verify=world.verify, lifecycle=lifecycle)
    assert res.outcome is Outcome.created and res.task.id != done.id
    assert world.verifier_calls == []


def test_in_scope_satisfaction(store, index, lifecycle, world):
    done = completed_shelter(store, index, lifecycle, world)
    near = (ORIGIN[0] + 2 + 10.0, 64.0, ORIGIN[2] + 2.0)
    res = resolve_or_create_build_goal(store, index, shelter_intent(near), verify=world.verify, lifecycle=lifecycle)
    assert res.outcome is Outcome.already_satisfied and res.task.id == done.id
    assert res.verification.done and world.verifier_calls == [done.id]
    assert len(store.list_by_status()) == 1  # no new task


def test_regression_detection(store, index, lifecycle, world):
    """Completed shelter + creeper damage + build shelter -> verifier fails -> the existing
    goal is re-opened (active, passes reset), not duplicated."""
    done = completed_shelter(store, index, lifecycle, world)
    for y in (64, 65):  # a creeper blew two blocks out of the north wall
        world.blocks[(2, y, 0)] = "air"
    near = (ORIGIN[0] + 2 + 10.0, 64.0, ORIGIN[2] + 2.0)
    res = resolve_or_create_build_goal(store, index, shelter_intent(near), verify=world.verify, lifecycle=lifecycle)
    assert res.outcome is Outcome.reactivated and res.task.id == done.id
    assert "not_enclosed" in res.verification.blockers
    binding = read_binding(res.task)
    assert res.task.status is TaskStatus.active
    assert binding.reopened.reason == REGRESSION_DETECTED and binding.completion.consecutivePasses == 0
    assert len(store.list_by_status()) == 1
    _assert_unique(index)


def test_scoring(store, index, world, clock):
    intent = shelter_intent((0.0, 64.0, 0.0))
    res = resolve_or_create_build_goal(store, index, shelter_intent((64.0, 64.0, 0.0)), verify=world.verify)
    task, binding = res.task, read_binding(res.task)
    clock.advance(31 * 60_000)  # no recency bonus
    assert score_candidate(task, binding, intent, clock()) == pytest.approx(0.5)
    store.update_task_metadata(task.id, {"build": {"moduleCursor": 3, "totalModules": 6, "lastWorkedAt": clock()}})
    task = store.get_task(task.id)
    assert score_candidate(task, binding, intent, clock()) == pytest.approx(0.5 + 0.1 + 0.1)
    far = shelter_intent((200.0, 64.0, 0.0))
    assert score_candidate(task, binding, far, clock()) == 0.0  # progress never outweighs distance
    anchored = read_binding(anchor_goal(store, task.id, basic_shelter((60, 64, 0)).site))
    same_site = shelter_intent((500.0, 64.0, 0.0), site=basic_shelter((60, 64, 0)).site)
    assert score_candidate(task, anchored, same_site, clock()) == 1.0


def test_created_goal_gets_a_goal_row(store, index, lifecycle, goals, world):
    res = resolve_or_create_build_goal(
        store, index, shelter_intent((2.0, 64.0, 2.0), goal_id="g-new"), verify=world.verify, lifecycle=lifecycle
    )
    goal = goals.get("g-new")
    assert goal.status.value == "ACTIVE" and goal.goalInstanceId == read_binding(res.task).goalInstanceId


def test_reopen_refused_when_a_live_task_took_the_site(store, index, lifecycle, world):
    done = completed_shelter(store, index, lifecycle, world)
    newer = resolve_or_create_build_goal(store, index, shelter_intent((300.0, 64.0, 300.0)), verify=world.verify)
    anchor_goal(store, newer.task.id, basic_shelter(ORIGIN).site)  # legal: the old goal is terminal
    with pytest.raises(GoalKeyConflictError):
        lifecycle.reopen(done.id, VerificationResult(done=False, blockers=["not_enclosed"]))
    assert store.get_task(done.id).status is TaskStatus.completed  # rolled back whole
    _assert_unique(index)
