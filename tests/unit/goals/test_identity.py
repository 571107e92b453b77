"""Goal identity (docs/contracts.md GOAL-3) and the binding's life in the task store (GOAL-1)."""

from __future__ import annotations

import sqlite3

import pytest

from agency.goals import (
    BUILD_SHELTER,
    BUILD_STRUCTURE,
    AlreadyAnchoredError,
    GoalKeyConflictError,
    IllegalGoalStateError,
    anchor_goal,
    anchored_goal_key,
    basic_shelter,
    chunk_of,
    dump_binding,
    new_binding,
    provisional_goal_key,
    read_binding,
    resolve_or_create_build_goal,
)
from agency.planning.tasks.models import NewTask, TaskOrigin
from agency.planning.tasks.store import SqliteTaskStore

from .conftest import ORIGIN, shelter_intent


def _add_bound(store, binding):
    return store.add_task(
        NewTask(title="build shelter", type="build", metadata={"goalBinding": dump_binding(binding)}),
        origin=TaskOrigin(kind="goal"),
    )


def test_goalInstanceId_stability(store, index, world):
    res = resolve_or_create_build_goal(store, index, shelter_intent((1.0, 64.0, 1.0)), verify=world.verify)
    before = read_binding(res.task)
    anchored = anchor_goal(store, res.task.id, basic_shelter(ORIGIN).site)
    after = read_binding(anchored)
    assert before.goalInstanceId == after.goalInstanceId
    assert read_binding(store.get_task(res.task.id)).goalInstanceId == before.goalInstanceId
    assert before.goalKey != after.goalKey


def test_goalKey_transition(store, index, world):
    res = resolve_or_create_build_goal(store, index, shelter_intent((1.0, 64.0, 1.0)), verify=world.verify)
    old = read_binding(res.task).goalKey
    assert ":A:" in old and read_binding(res.task).goalKeyAliases == []
    site = basic_shelter(ORIGIN).site
    after = read_binding(anchor_goal(store, res.task.id, site))
    assert after.goalKeyAliases == [old]
    assert after.goalKey == anchored_goal_key(BUILD_SHELTER, site)
    assert after.anchors.siteSignature == site
    # the database mirrors it: both keys point at the task while it is live
    assert index.live_task_id(BUILD_SHELTER, old) == res.task.id
    assert index.live_task_id(BUILD_SHELTER, after.goalKey) == res.task.id


def test_anchoring_happens_once(store, index, world):
    res = resolve_or_create_build_goal(store, index, shelter_intent((1.0, 64.0, 1.0)), verify=world.verify)
    site = basic_shelter(ORIGIN).site
    first = anchor_goal(store, res.task.id, site)
    assert anchor_goal(store, res.task.id, site).metadata.goalBinding == first.metadata.goalBinding  # idempotent
    with pytest.raises(AlreadyAnchoredError):
        anchor_goal(store, res.task.id, basic_shelter((40, 64, 40)).site)


def test_resolver_finds_by_alias(store, index, world):
    intent = shelter_intent((1.0, 64.0, 1.0))
    created = resolve_or_create_build_goal(store, index, intent, verify=world.verify)
    anchor_goal(store, created.task.id, basic_shelter((60, 64, 60)).site)  # far away: only the alias can match
    again = resolve_or_create_build_goal(store, index, intent, verify=world.verify)
    assert again.outcome.value == "continued" and again.task.id == created.task.id
    assert again.score == 1.0


def test_shelter_identity_excludes_template(store):
    site = basic_shelter(ORIGIN).site
    hut = basic_shelter(ORIGIN, wall_block="dirt").digest()
    stone = basic_shelter(ORIGIN, wall_block="cobblestone").digest()
    assert hut != stone
    assert anchored_goal_key(BUILD_SHELTER, site, hut) == anchored_goal_key(BUILD_SHELTER, site, stone)
    # same goal instance: a second shelter task at the site cannot be anchored beside the first
    a = _add_bound(store, new_binding(BUILD_SHELTER, {"template": "dirt"}, (1, 64, 1), verifier="verify_shelter_v0"))
    b = _add_bound(store, new_binding(BUILD_SHELTER, {"template": "stone"}, (1, 64, 1), verifier="verify_shelter_v0"))
    anchor_goal(store, a.id, site, hut)
    with pytest.raises(GoalKeyConflictError):
        anchor_goal(store, b.id, site, stone)


def test_structure_identity_includes_template(store):
    site = basic_shelter(ORIGIN).site
    d1 = basic_shelter(ORIGIN, wall_block="dirt").digest()
    d2 = basic_shelter(ORIGIN, wall_block="cobblestone").digest()
    assert anchored_goal_key(BUILD_STRUCTURE, site, d1) != anchored_goal_key(BUILD_STRUCTURE, site, d2)
    a = _add_bound(store, new_binding(BUILD_STRUCTURE, {"t": 1}, (1, 64, 1), verifier="v"))
    b = _add_bound(store, new_binding(BUILD_STRUCTURE, {"t": 2}, (1, 64, 1), verifier="v"))
    key_a = read_binding(anchor_goal(store, a.id, site, d1)).goalKey
    assert key_a != read_binding(anchor_goal(store, b.id, site, d2)).goalKey  # both live: distinct goals
    with pytest.raises(ValueError):
        anchored_goal_key(BUILD_STRUCTURE, site)


def test_provisional_key_is_sticky_within_a_chunk():
    params = {"template": "basic_shelter"}
    assert chunk_of((15.9, 70, -0.1)) == (0, -1)
    here = provisional_goal_key(BUILD_SHELTER, params, (1, 64, 1))
    assert here == provisional_goal_key(BUILD_SHELTER, params, (14, 80, 9))
    assert here != provisional_goal_key(BUILD_SHELTER, params, (17, 64, 1))
    assert here != provisional_goal_key(BUILD_SHELTER, {"x": 1}, (1, 64, 1))


def test_goalBinding_survives_add_task_and_store_updates(store):
    binding = new_binding(BUILD_SHELTER, {"template": "basic_shelter"}, (1, 64, 1), verifier="verify_shelter_v0")
    task = _add_bound(store, binding)
    assert read_binding(task) == binding
    assert read_binding(store.get_task(task.id)) == binding
    patched = binding.model_copy(update={"goalId": "goal-7"})
    store.update_task_metadata(task.id, {"goalBinding": dump_binding(patched)})
    assert read_binding(store.get_task(task.id)).goalId == "goal-7"


def test_binding_without_key_is_refused(store, db_path, clock):
    bad = NewTask(title="x", type="build", metadata={"goalBinding": {"goalType": BUILD_SHELTER}})
    with pytest.raises(IllegalGoalStateError, match="invalid_binding"):  # dev mode: the hook
        store.add_task(bad)
    prod = SqliteTaskStore(db_path, clock=clock, dev_mode=False)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="goalType and goalKey"):  # always: the trigger
            prod.add_task(bad)
    finally:
        prod.close()
