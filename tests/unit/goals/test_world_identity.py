"""World identity: a store opened for another world archives the old world's places (goal
bindings with their holds, checkpoints that carry positions) and keeps the rest. Real
SQLite file, frozen clock; the lookups asked are the ones the daemon uses."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agency.execution.workflows.checkpoints import Checkpoint, SqliteCheckpointStore
from agency.execution.workflows.models import WorkflowDef
from agency.goals import GoalBinding, Outcome, read_binding, resolve_or_create_build_goal
from agency.goals.lifecycle import ArchivedGoalError
from agency.goals.models import HOLD_WORLD_CHANGED
from agency.goals.reactor import ActivationReactor
from agency.goals.world_identity import WorldIdentity, WorldRecord, carries_position, enter_world
from agency.planning.tasks.models import NewTask, TaskOrigin, TaskStatus
from agency.world import WorldSnapshot
from bot.config.loader import McbotConfig, ServerConfig
from bot.runtime.wiring import Agency, GoalWiring
from bot.runtime.world_id import world_identity
from tests.unit.goals.conftest import ORIGIN, completed_shelter, shelter_intent

A = WorldIdentity.in_memory(1337, "aaaa")
B = WorldIdentity.in_memory(1337, "bbbb")
TWO_STEPS = WorkflowDef.model_validate({"id": "w", "steps": [{"id": "one", "tool": "t"}, {"id": "two", "tool": "t"}]})


def _snap_at(x: float, y: float, z: float) -> WorldSnapshot:
    return WorldSnapshot(
        health=20,
        food=20,
        gameMode="survival",
        dimension="overworld",
        timeOfDay=12000,
        isDay=False,
        position={"x": x, "y": y, "z": z},
        hostiles=0,
        ts=1,
    )


def _plain(store, action: str):
    task = store.add_task(
        NewTask(title=f"{action} oak_planks 4", type=action, parameters={"item": "oak_planks"}),
        origin=TaskOrigin(kind="goal"),
    )
    return store.set_status(task.id, "active")


def _checkpointed_run(checkpoints: SqliteCheckpointStore, task_id: str, output: dict, clock) -> None:
    checkpoints.start_run(task_id, TWO_STEPS, "agent", task_id, {"task": {"action": "x"}})
    checkpoints.set_run_status(task_id, "stopped")
    checkpoints.save(
        Checkpoint(
            runId=task_id,
            workflowId="w",
            stepIndex=0,
            completedStepId="one",
            stepOutputs={"one": output},
            context={},
            memorySnapshot={},
            createdAt=clock(),
        ),
        TWO_STEPS,
    )


@pytest.fixture
def checkpoints(db_path, clock, store):
    c = SqliteCheckpointStore(db_path, clock=clock)
    yield c
    c.close()


@pytest.fixture
def wiring(db_path, clock, store):
    cfg = McbotConfig.model_validate({"storage": {"db_path": str(db_path)}})
    w = GoalWiring(cfg, store, clock, last_snapshot=lambda: None)
    yield w
    w.close()


@pytest.fixture
def world_a(db_path, store, index, lifecycle, world, checkpoints, clock):
    """World A's memories: a verified shelter, a shelter goal still being built (with a
    checkpoint holding its placements), a craft and a gather task mid-run."""
    assert not enter_world(db_path, A, lifecycle=lifecycle, checkpoints=checkpoints).changed
    shelter = completed_shelter(store, index, lifecycle, world)
    far = (ORIGIN[0] + 300, ORIGIN[1], ORIGIN[2])
    building = resolve_or_create_build_goal(
        store, index, shelter_intent(far, goal_id="g2"), verify=world.verify, lifecycle=lifecycle
    ).task
    store.set_status(building.id, "active")
    _checkpointed_run(checkpoints, building.id, {"placed": [{"x": 300, "y": 64, "z": 0}]}, clock)
    craft, gather = _plain(store, "craft"), _plain(store, "gather")
    _checkpointed_run(checkpoints, craft.id, {"crafted": "oak_planks", "count": 4}, clock)
    _checkpointed_run(checkpoints, gather.id, {"dug": [{"x": 5, "y": 64, "z": 9, "block": "oak_log"}]}, clock)
    return SimpleNamespace(shelter=shelter, building=building, craft=craft, gather=gather, far=far)


def test_a_new_world_archives_the_old_shelters_and_positional_checkpoints_and_keeps_plain_tasks(
    db_path, store, index, lifecycle, world, checkpoints, wiring, world_a, events
):
    near_shelter = _snap_at(ORIGIN[0] + 2.5, ORIGIN[1], ORIGIN[2] + 7.5)  # where the bot asked for it
    assert wiring.nearest_verified_shelter(near_shelter) is not None  # world A: the reflex would walk there

    entry = enter_world(db_path, B, lifecycle=lifecycle, checkpoints=checkpoints)

    assert entry.changed and entry.previous == A.id
    assert sorted(entry.goals) == sorted([world_a.shelter.id, world_a.building.id])
    # the night reflex's lookup, drive ticks' shelter_nearby and the review see no shelter
    assert wiring.nearest_verified_shelter(near_shelter) is None
    assert wiring.shelter_nearby(near_shelter) is False
    assert wiring.finished_shelters() == []
    # kept and marked, never failed: the finished one stays completed, the live one is held for good
    shelter = store.get_task(world_a.shelter.id)
    assert shelter.status is TaskStatus.completed and read_binding(shelter).archivedWorld == A.id
    building = store.get_task(world_a.building.id)
    held = read_binding(building)
    assert building.status is TaskStatus.paused and held.archivedWorld == A.id
    assert held.hold.reason == HOLD_WORLD_CHANGED and building.metadata.blockedReason == HOLD_WORLD_CHANGED
    assert ActivationReactor(lifecycle).held() == []  # never woken, never reconsidered
    with pytest.raises(ArchivedGoalError, match="archived"):
        lifecycle.resume(building.id)  # a ValueError: the HTTP resume answers 409
    with pytest.raises(ArchivedGoalError):
        lifecycle.reactivate(building.id)
    assert [e["event"] for e in events].count("goal_archived") == 2
    # its keys are no longer live: a shelter asked for at the same place in world B is a new goal
    res = resolve_or_create_build_goal(
        store, index, shelter_intent(world_a.far, goal_id="g3"), verify=world.verify, lifecycle=lifecycle
    )
    assert res.outcome is Outcome.created and res.task.id != world_a.building.id
    at_old_shelter = (ORIGIN[0] + 2.5, ORIGIN[1], ORIGIN[2] + 7.5)
    res = resolve_or_create_build_goal(
        store, index, shelter_intent(at_old_shelter, goal_id="g4"), verify=world.verify, lifecycle=lifecycle
    )
    assert res.outcome is Outcome.created  # not "already satisfied" by the old world's shelter
    assert world.verifier_calls == []  # the old shelter was not even verified
    # plain tasks carry on; only the checkpoint that names places is archived
    assert store.get_task(world_a.craft.id).status is TaskStatus.active
    assert store.get_task(world_a.gather.id).status is TaskStatus.active
    assert checkpoints.latest_run_for_task(world_a.craft.id).runId == world_a.craft.id  # resumes as before
    assert checkpoints.latest_run_for_task(world_a.gather.id) is None  # starts a fresh run
    assert checkpoints.latest_run_for_task(world_a.building.id) is None
    assert sorted(entry.runs) == sorted([f"{world_a.gather.id}@{A.id}", f"{world_a.building.id}@{A.id}"])
    assert checkpoints.history(f"{world_a.gather.id}@{A.id}")[0].stepOutputs["one"]["dug"][0]["x"] == 5  # kept


def test_archived_stays_archived_when_the_old_world_comes_back(db_path, lifecycle, checkpoints, wiring, world_a, store):
    enter_world(db_path, B, lifecycle=lifecycle, checkpoints=checkpoints)
    again = enter_world(db_path, A, lifecycle=lifecycle, checkpoints=checkpoints)
    assert again.changed and again.goals == [] and again.runs == []  # nothing of B's to archive
    assert wiring.finished_shelters() == []
    assert read_binding(store.get_task(world_a.shelter.id)).archivedWorld == A.id


def test_the_same_world_archives_nothing(db_path, lifecycle, checkpoints, wiring, world_a):
    entry = enter_world(db_path, A, lifecycle=lifecycle, checkpoints=checkpoints)
    assert not entry.changed and entry.goals == [] and entry.runs == []
    assert len(wiring.finished_shelters()) == 1


def test_an_unrecorded_store_is_adopted_by_a_persistent_world_and_archived_by_an_in_memory_one(
    db_path, store, index, lifecycle, world, checkpoints
):
    shelter = completed_shelter(store, index, lifecycle, world)  # a store from before world identity
    assert not enter_world(
        db_path, WorldIdentity.server("play.example.net", 25565), lifecycle=lifecycle, checkpoints=checkpoints
    ).changed
    assert read_binding(store.get_task(shelter.id)).archivedWorld is None
    # a fresh in-memory world never saw anything stored before it started

    rec = WorldRecord(db_path)
    rec._conn.execute("DELETE FROM world")
    rec.close()
    entry = enter_world(db_path, A, lifecycle=lifecycle, checkpoints=checkpoints)
    assert entry.changed and entry.goals == [shelter.id]
    assert read_binding(store.get_task(shelter.id)).archivedWorld == "unrecorded"


def test_world_identity_from_config():
    memory = ServerConfig(world_folder="")
    one, two = world_identity(memory, "127.0.0.1", 25565), world_identity(memory, "127.0.0.1", 25565)
    assert one.ephemeral and one.id != two.id  # a fresh in-memory world every start, same seed or not
    saved = ServerConfig(world_folder="/srv/world", seed=7)
    assert world_identity(saved, "127.0.0.1", 25565) == world_identity(saved, "127.0.0.1", 40000)
    assert world_identity(saved, "127.0.0.1", 1).id == "embedded:7:/srv/world"
    remote = ServerConfig(host="Play.Example.net", port=25570)
    assert world_identity(remote, "Play.Example.net", 25570).id == "server:play.example.net:25570"
    # `mcbot run --host` elsewhere: that server, not the embedded world
    assert world_identity(memory, "10.0.0.5", 25565).id == "server:10.0.0.5:25565"


def test_carries_position():
    assert carries_position({"one": {"legs": [{"x": 1, "z": 2, "ok": True}]}})
    assert carries_position({"one": [{"placed": "crafting_table", "at": [1, 64, 2]}]})
    assert not carries_position({"one": {"crafted": "oak_planks", "count": 4, "x": "not a number"}})
    assert not carries_position({"ok": True, "flag": [True, False, True]})


def test_the_archived_binding_round_trips():
    b = GoalBinding.model_validate(
        {"goalKey": "k", "goalType": "build_shelter", "completion": {"verifier": "v"}, "archivedWorld": "memory:1:x"}
    )
    assert b.archived and GoalBinding.model_validate(b.model_dump()).archivedWorld == "memory:1:x"


def test_a_server_on_loopback_the_daemon_did_not_start_is_that_server_not_an_in_memory_world():
    """`mcbot run --host 127.0.0.1` with the default config: a local Paper server, whose
    memories must be kept from start to start."""
    default = McbotConfig().server
    one = world_identity(default, "127.0.0.1", 25565, embedded=False)
    assert one.id == "server:127.0.0.1:25565" and not one.ephemeral
    assert world_identity(default, "127.0.0.1", 25565, embedded=False) == one
    # the embedded world is kept by default (server.world_folder "auto"): one world from start to start
    kept = world_identity(default, "127.0.0.1", 25565, embedded=True)
    assert not kept.ephemeral and kept == world_identity(default, "127.0.0.1", 40000, embedded=True)
    memory = ServerConfig(world_folder="")
    assert world_identity(memory, "127.0.0.1", 25565, embedded=True).ephemeral


def test_an_in_memory_world_restarted_by_the_supervisor_is_a_new_world(tmp_path):
    cfg = McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "a.db")}, "server": {"world_folder": ""}})
    agency = Agency(cfg)
    try:
        agency.body = SimpleNamespace(settings=SimpleNamespace(host="127.0.0.1", port=25565))
        agency._embedded = True
        agency._enter_world(agency.body.settings)
        first = agency.world.world
        agency.world_restarted()
        assert agency.world.world != first and agency.world.changed
        kept = McbotConfig.model_validate(
            {"storage": {"db_path": str(tmp_path / "b.db")}, "server": {"world_folder": str(tmp_path / "w")}}
        )
        folder = Agency(kept)
        try:
            folder.body, folder._embedded = agency.body, True
            folder._enter_world(folder.body.settings)
            before = folder.world.world
            folder.world_restarted()  # a folder-backed world comes back with its blocks: same world
            assert folder.world.world == before
        finally:
            folder.close()
    finally:
        agency.close()
