"""The goal stores on both databases: goals (GoalSync), the goal-key index, the recorded world
and what entering another world archives; and the goal-key conflicts the resolver, the
lifecycle and anchoring catch, whichever driver raised them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from agency.db import integrity_errors
from agency.execution.workflows.checkpoints import DatabaseCheckpointStore
from agency.goals import (
    BUILD_SHELTER,
    GoalKeyConflictError,
    GoalKeyIndex,
    GoalLifecycle,
    GoalSync,
    Outcome,
    VerificationResult,
    anchor_goal,
    assert_task_state,
    basic_shelter,
    dump_binding,
    new_binding,
    read_binding,
    resolve_or_create_build_goal,
)
from agency.goals.key_index import is_goal_key_conflict
from agency.goals.sync import Goal, GoalStatus
from agency.goals.world_identity import WorldRecord, enter_world
from agency.planning.tasks.models import NewTask, TaskStatus
from tests.unit.goals.conftest import ORIGIN, World, completed_shelter, shelter_intent
from tests.unit.goals.test_world_identity import A, B, _checkpointed_run
from tests.unit.pg.dialects import DIALECTS, Databases


@pytest.fixture(params=DIALECTS)
def dbs(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Databases]:
    with Databases.for_test(request, tmp_path) as d:
        yield d


@pytest.fixture
def db(dbs: Databases) -> Any:
    return dbs.open()


@pytest.fixture
def store(dbs: Databases, db: Any, clock: Any) -> Any:
    return dbs.tasks(db, clock, dev_mode=True, invariant_check=assert_task_state)


@pytest.fixture
def index(db: Any) -> GoalKeyIndex:
    return GoalKeyIndex(db)


@pytest.fixture
def goals(db: Any, clock: Any) -> GoalSync:
    return GoalSync(db, clock=clock)


@pytest.fixture
def events() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def lifecycle(store: Any, clock: Any, goals: GoalSync, events: list) -> GoalLifecycle:
    return GoalLifecycle(store, clock=clock, goals=goals, emit=events.append)


@pytest.fixture
def world() -> World:
    return World()


def _bound(key: str, aliases: list[str] | None = None) -> NewTask:
    binding = new_binding(BUILD_SHELTER, {}, (0, 64, 0), verifier="v").model_copy(
        update={"goalKey": key, "goalKeyAliases": aliases or []}
    )
    return NewTask(title="shelter", type="build", metadata={"goalBinding": dump_binding(binding)})


# -- goals, the key index -----------------------------------------------------------------------


def test_goals_are_upserted_and_follow_their_task(store, index, lifecycle, goals, world, clock):
    stored = goals.upsert(Goal(id="g1", type=BUILD_SHELTER, priority=0.8))
    assert goals.get("g1") == stored and stored.updatedAt == clock() and goals.get("nope") is None
    clock.advance(10)
    goals.upsert(stored.model_copy(update={"status": GoalStatus.FAILED}))
    assert goals.get("g1").status is GoalStatus.FAILED and goals.get("g1").updatedAt == clock()
    res = resolve_or_create_build_goal(
        store, index, shelter_intent((2.0, 64.0, 2.0), goal_id="g2"), verify=world.verify, lifecycle=lifecycle
    )
    assert goals.get("g2").status is GoalStatus.ACTIVE
    assert goals.get("g2").goalInstanceId == read_binding(res.task).goalInstanceId
    lifecycle.hold(res.task.id, "unsafe")  # the reducer writes the goal's status through GoalSync
    assert goals.get("g2").status is GoalStatus.SUSPENDED and goals.get("g2").suspendedReason == "unsafe"


def test_the_index_reads_live_and_terminal_keys_the_same_on_both(store, index):
    a = store.add_task(_bound("shelter@1", ["chunk:0:0", "Chunk:0:0"]))
    b = store.add_task(_bound("shelter@2"))
    assert index.live_task_id(BUILD_SHELTER, "chunk:0:0") == a.id  # an alias, matched exactly
    assert index.live_task_id(BUILD_SHELTER, "CHUNK:0:0") is None and index.live_task_id("other", "shelter@1") is None
    assert index.live_key_holders() == {(BUILD_SHELTER, k): [a.id] for k in ("shelter@1", "chunk:0:0", "Chunk:0:0")} | {
        (BUILD_SHELTER, "shelter@2"): [b.id]
    }
    store.set_status(b.id, TaskStatus.failed)
    assert index.task_ids(BUILD_SHELTER, terminal=False) == [a.id]
    assert index.task_ids(BUILD_SHELTER, terminal=True) == [b.id]
    assert index.live_task_id(BUILD_SHELTER, "shelter@2") is None


# -- goal-key conflicts, caught whichever database refused -------------------------------------


def test_a_writer_around_the_resolver_gets_a_goal_key_conflict(dbs, db, clock):
    store = dbs.tasks(db, clock)  # production mode: only the database stands in the way
    store.add_task(_bound("shelter@1", ["home"]))
    with pytest.raises(integrity_errors()) as dup:
        store.add_task(_bound("home"))  # taken as an alias
    assert is_goal_key_conflict(dup.value)
    with pytest.raises(integrity_errors()) as incomplete:  # refused by the trigger, not by the unique index
        store.add_task(NewTask(title="x", type="build", metadata={"goalBinding": {"goalType": BUILD_SHELTER}}))
    assert not is_goal_key_conflict(incomplete.value)


def test_a_duplicate_shelter_goal_through_two_connections_is_refused_not_raised(dbs, store, index, clock):
    """Two daemons (each its own connection) resolve one intent, forced to collide between
    lookup and insert: the database lets one insert win, the other looks again and continues it."""
    barrier = threading.Barrier(2)
    results: list[tuple[Outcome, str]] = []
    errors: list[BaseException] = []

    def daemon(name: str) -> None:
        db = dbs.open()
        try:
            res = resolve_or_create_build_goal(
                dbs.tasks(db, clock, daemon_id=name),
                GoalKeyIndex(db),
                shelter_intent((3.0, 64.0, 3.0)),
                verify=lambda *_: None,
                on_before_create=lambda attempt: barrier.wait(timeout=10) if attempt == 0 else None,
            )
            results.append((res.outcome, res.task.id))
        except BaseException as exc:  # noqa: BLE001 - the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=daemon, args=(f"daemon-{n}",)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert errors == []
    assert sorted(o.value for o, _ in results) == ["continued", "created"]
    assert len({tid for _, tid in results}) == 1
    assert [t.id for t in store.list_by_status() if not t.status.terminal] == [results[0][1]]
    assert all(len(ids) == 1 for ids in index.live_key_holders().values())


def test_reopening_onto_a_site_a_live_task_took_is_a_goal_key_conflict(store, index, lifecycle, world):
    done = completed_shelter(store, index, lifecycle, world)
    newer = resolve_or_create_build_goal(store, index, shelter_intent((300.0, 64.0, 300.0)), verify=world.verify)
    anchor_goal(store, newer.task.id, basic_shelter(ORIGIN).site)  # legal: the old goal is terminal
    with pytest.raises(GoalKeyConflictError):
        lifecycle.reopen(done.id, VerificationResult(done=False, blockers=["not_enclosed"]))
    assert store.get_task(done.id).status is TaskStatus.completed  # rolled back whole


def test_anchoring_onto_a_site_a_live_goal_holds_is_a_goal_key_conflict(store, index, world):
    site = basic_shelter(ORIGIN).site
    first = resolve_or_create_build_goal(store, index, shelter_intent((2.0, 64.0, 2.0)), verify=world.verify)
    anchor_goal(store, first.task.id, site)
    far = resolve_or_create_build_goal(store, index, shelter_intent((300.0, 64.0, 300.0)), verify=world.verify)
    with pytest.raises(GoalKeyConflictError):
        anchor_goal(store, far.task.id, site)
    assert read_binding(store.get_task(far.task.id)).anchors.siteSignature is None


# -- the recorded world ---------------------------------------------------------------------------


def test_entering_another_world_archives_its_goals_and_positional_runs(db, store, index, lifecycle, world, clock):
    checkpoints = DatabaseCheckpointStore(db, clock=clock)
    assert not enter_world(db, A, lifecycle=lifecycle, checkpoints=checkpoints).changed
    shelter = completed_shelter(store, index, lifecycle, world)
    craft = store.add_task(NewTask(title="craft", type="craft"))
    _checkpointed_run(checkpoints, shelter.id, {"placed": [{"x": 0, "y": 64, "z": 0}]}, clock)
    _checkpointed_run(checkpoints, craft.id, {"crafted": "oak_planks", "count": 4}, clock)

    entry = enter_world(db, B, lifecycle=lifecycle, checkpoints=checkpoints)

    assert entry.changed and entry.previous == A.id and entry.goals == [shelter.id]
    assert entry.runs == [f"{shelter.id}@{A.id}"] and checkpoints.archived_runs(A.id) == entry.runs
    assert read_binding(store.get_task(shelter.id)).archivedWorld == A.id
    assert index.live_task_id(BUILD_SHELTER, read_binding(shelter).goalKey) is None
    assert checkpoints.latest_run_for_task(craft.id).runId == craft.id  # carries on
    assert WorldRecord(db).current() == B.id


def test_every_daemon_on_the_database_is_in_the_recorded_world(dbs, db, lifecycle, clock):
    other = dbs.open()  # another daemon, started later
    enter_world(db, A, lifecycle=lifecycle, checkpoints=DatabaseCheckpointStore(db, clock=clock))
    assert WorldRecord(other).current() == A.id
    again = enter_world(other, A, lifecycle=lifecycle, checkpoints=DatabaseCheckpointStore(other, clock=clock))
    assert not again.changed and again.previous == A.id
