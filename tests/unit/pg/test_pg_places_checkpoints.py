"""The place store and the workflow checkpoint store on both databases; on PostgreSQL a run
written by one daemon is resumed by another (its task taken over after the first one died)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agency.execution.workflows import Checkpoint, CheckpointInvalid, WorkflowEngine
from agency.execution.workflows.checkpoints import DatabaseCheckpointStore, SqliteCheckpointStore
from agency.execution.workflows.steps import StepExecutor
from agency.places.store import PlaceStore
from agency.tools.base import ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.testing import FakeBody, FakeTime
from tests.unit.conftest import Probe, probe_tools, run
from tests.unit.execution.test_workflow_invariants import wf, work
from tests.unit.pg.dialects import DIALECTS, Databases

# The SQLite place store's own tests, collected here again with this module's `store`: once per dialect.
from tests.unit.places.test_place_memory import (  # noqa: F401 - collected here again, see above
    WORLD_A,
    test_a_placed_table_seen_again_stays_placed_and_its_sighting_moves_on,
    test_an_unknown_kind_is_refused,
    test_each_kind_keeps_only_its_most_recently_confirmed_places,
    test_places_are_scoped_to_their_world,
    test_remembered_places_come_back_nearest_first_within_the_distance,
)


@pytest.fixture(params=DIALECTS)
def dbs(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Databases]:
    with Databases.for_test(request, tmp_path) as d:
        yield d


@pytest.fixture
def store(dbs: Databases, clock: Any) -> PlaceStore:
    return PlaceStore(dbs.open(), clock=clock)


# -- places --------------------------------------------------------------------------------------


def test_a_place_is_touched_found_in_its_box_and_forgotten_through_another_connection(dbs, store, clock):
    store.remember(WORLD_A, "furnace", (3, 60, -4), "furnace", "placed")
    store.remember(WORLD_A, "bed", (8, 60, -4), "red_bed", "seen")
    clock.advance(500)
    store.touch(WORLD_A, (3, 60, -4))
    other = PlaceStore(dbs.open(), clock=clock)  # a restarted daemon, or another one on the database
    assert other.get(WORLD_A, (3, 60, -4)).seen_at == clock()
    assert sorted(p.kind for p in other.in_box(WORLD_A, (0, 59, -5), (9, 3, 3))) == ["bed", "furnace"]
    assert [p.kind for p in other.in_box(WORLD_A, (0, 59, -5), (8, 3, 3))] == ["furnace"]  # x 0..7
    gone = other.forget(WORLD_A, (3, 60, -4))
    assert (gone.kind, gone.source) == ("furnace", "placed")
    assert store.get(WORLD_A, (3, 60, -4)) is None and other.forget(WORLD_A, (3, 60, -4)) is None


# -- checkpoints -----------------------------------------------------------------------------------

TWO = wf([work("one", value=1), work("two")], wid="two-steps")


def _checkpoint(run_id: str, step: int, clock: Any) -> Checkpoint:
    done = ["one", "two"][: step + 1]
    return Checkpoint(
        runId=run_id,
        workflowId="two-steps",
        stepIndex=step,
        completedStepId=done[-1],
        stepOutputs={s: {"name": s, "at": [step, 64, 0], "ratio": 0.1} for s in done},
        context={"task": {"action": "x"}},
        memorySnapshot={"done": done},
        createdAt=clock(),
    )


def test_runs_and_checkpoints_round_trip(dbs, clock):
    cps = DatabaseCheckpointStore(dbs.open(), clock=clock)
    cps.start_run("r0", TWO, "crafter", "task-1", {})
    first = cps.start_run("r1", TWO, "crafter", "task-1", {"task": {"action": "craft", "amount": 2}})
    assert cps.latest_run_for_task("task-1").runId == "r1"  # the same millisecond: the later run wins
    assert cps.start_run("r1", TWO, "other", "task-1", {}) == first  # started once: a retry changes nothing
    assert (first.workflow, first.context, first.status, first.createdAt) == (
        TWO,
        {"task": {"action": "craft", "amount": 2}},
        "running",
        clock(),
    )
    cps.save(_checkpoint("r1", 0, clock), TWO)
    clock.advance(10)
    cps.save(_checkpoint("r1", 1, clock), TWO)
    assert [c.stepIndex for c in cps.history("r1")] == [0, 1] and cps.latest("r1") == _checkpoint("r1", 1, clock)
    assert cps.get_run("r1").updatedAt == clock() and cps.latest("nope") is None and cps.history("nope") == []
    with pytest.raises(CheckpointInvalid):
        cps.save(_checkpoint("r1", 1, clock).model_copy(update={"stepIndex": 0}), TWO)
    cps.set_run_status("r0", "completed")
    assert [r.runId for r in cps.unfinished_runs()] == ["r1"] and cps.get_run("r0").status == "completed"


def test_an_archived_run_keeps_its_checkpoints_under_its_new_name(dbs, clock):
    cps = DatabaseCheckpointStore(dbs.open(), clock=clock)
    cps.start_run("r1", TWO, "crafter", "task-1", {})
    cps.save(_checkpoint("r1", 0, clock), TWO)
    cps.start_run("r2", TWO, "crafter", "task-2", {})
    assert cps.archive_run("r1", "memory:1:a") == "r1@memory:1:a"
    cps.archive_run("r2", "memory:1:b")
    assert cps.latest_run_for_task("task-1") is None and [r.runId for r in cps.unfinished_runs()] == []
    assert cps.history("r1@memory:1:a")[0].stepOutputs["one"]["at"] == [0, 64, 0]
    assert cps.archived_runs("memory:1:a") == ["r1@memory:1:a"]
    assert cps.archived_runs() == ["r1@memory:1:a", "r2@memory:1:b"]


def test_a_run_written_by_one_daemon_is_resumed_by_another(dbs):
    """The first daemon dies at step s4; the daemon that takes its task over opens its own
    connection, finds the run by task id and resumes after the last checkpoint."""
    time, probe = FakeTime(), Probe()
    tools = ToolRegistry()
    for tool in probe_tools(probe):
        tools.register(tool)
    ctx = ToolContext(body=FakeBody(time.clock), clock=time.clock, sleep=time.sleep, poll_interval_s=0.1)
    flow = wf([work("s1", value=41), work("s2"), work("s3"), work("s4", value="${steps.s1.value}")])
    probe.fail_once.add("s4")
    first = SqliteCheckpointStore(dbs.open(), clock=time.clock)  # the old name still works, on either database
    assert (
        run(
            WorkflowEngine(StepExecutor(tools, ctx), first).run(
                flow, run_id="task-7", agent_id="standard", task_id="task-7"
            )
        ).status
        == "failed"
    )

    taker = DatabaseCheckpointStore(dbs.open(), clock=time.clock)
    assert taker.latest_run_for_task("task-7").workflow == flow
    resumed = run(
        WorkflowEngine(StepExecutor(tools, ctx), taker).run(
            flow, run_id="task-7", agent_id="standard", task_id="task-7"
        )
    )
    assert resumed.ok and resumed.resumedFrom == 2 and resumed.outputs["s4"]["value"] == 41
    assert probe.calls == {"s1": 1, "s2": 1, "s3": 1, "s4": 2}  # s1..s3 never re-run
    assert first.get_run("task-7").status == "completed"  # seen from the first connection too
