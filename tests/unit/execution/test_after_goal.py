"""A goal-bound hut's follow-ups queued as a task once it is verified
(agency.execution.after_goal, FollowUpWatch.queue_after) on the real task store and the fake
body: what is queued and for whom, each reason none is, once only, and what DRIVE-2 sees of
them meanwhile (agency.cognition.follow_ups.following). The whole way from a drive tick
through the goal-bound build is tests/unit/goals/test_goal_wiring.py."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from agency.cognition.follow_ups import following
from agency.execution.after_goal import HANDLED, follow_up_task
from agency.execution.agents.task_spec import FollowUpSpec
from agency.execution.follow_up_watch import FollowUpWatch
from agency.planning.follow_up_params import after_parameters
from agency.planning.tasks.idempotency import GAVE_WAY, STUCK_PENDING_TIMEOUT_MS, find_blocking_task
from agency.planning.tasks.models import NewTask, Task, TaskOrigin, TaskStatus
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools import ToolContext
from agency.tools.testing import FakeBody, FakeTime
from agency.world import BodyLost, WorldSnapshot

TABLE = {"action": "craft", "target": "crafting_table", "total": 1, "amount": 1}
LOGS = {"action": "collect", "target": "log", "total": 9, "amount": 8}


class DuskBody(FakeBody):
    def snapshot(self) -> WorldSnapshot:
        return super().snapshot().model_copy(update={"timeOfDay": 11_500})


class GoneBody(FakeBody):
    def snapshot(self) -> WorldSnapshot:
        raise BodyLost("the bot was kicked")


@pytest.fixture
def ftime():
    return FakeTime()


@pytest.fixture
def tasks(tmp_path, ftime):
    store = SqliteTaskStore(tmp_path / "t.db", clock=ftime.clock, dev_mode=True, strict_finalize=False)
    yield store
    store.close()


def _hut(tasks, bot=None, status=TaskStatus.completed) -> Task:
    hut = tasks.add_task(
        NewTask(
            title="Build basic shelter",
            type="build",
            source="drive-tick",
            parameters={"target": "basic_shelter", "amount": 1, **after_parameters([TABLE, LOGS], bot)},
            metadata={"goalKey": "build:basic_shelter", "sourceThoughtId": "thought-1"},
        ),
        origin=TaskOrigin(kind="drive-tick", sourceId="thought-1"),
    )
    if status is not TaskStatus.pending:
        tasks.set_status(hut.id, TaskStatus.active)
    if status not in (TaskStatus.pending, TaskStatus.active):
        tasks.set_status(hut.id, status)
    return tasks.get_task(hut.id)


def _queue(tasks, ftime, hut, body=None, bot=None, given_way=None) -> str | None:
    ctx = ToolContext(body=body or FakeBody(ftime.clock), clock=ftime.clock, sleep=ftime.sleep)
    runtime = SimpleNamespace(tool_context=ctx, follow_up_goals={}, given_way=dict(given_way or {}))
    watch = FollowUpWatch(tasks, runtime, ftime.clock, bot=bot)  # type: ignore[arg-type]
    return asyncio.run(watch.queue_after(hut))


def _pending(tasks) -> list[Task]:
    return tasks.list_by_status(TaskStatus.pending)


def test_the_first_follow_up_not_held_is_the_goal_for_what_is_missing_the_rest_its_then():
    hut = Task.model_validate(
        {
            "title": "Build basic shelter",
            "type": "build",
            "parameters": {"target": "basic_shelter", "amount": 1, **after_parameters([TABLE, LOGS], "b1")},
            "metadata": {"createdAt": 0, "updatedAt": 0},
        }
    )
    draft = follow_up_task(hut, {"crafting_table": 1, "birch_log": 3})
    assert draft is not None
    # what is missing of its total (any log counts), never more than its amount; bound to the tick's bot
    assert (draft.type, draft.parameters, draft.metadata["bot"]) == (
        "collect",
        {"target": "log", "amount": 6, "then": []},
        "b1",
    )
    assert follow_up_task(hut, {"crafting_table": 1, "oak_log": 9}) is None


def test_a_follow_up_marked_as_a_hunt_is_no_queued_goal_where_it_may_not_hunt_and_keeps_its_mark():
    bed = {"action": "craft", "target": "white_bed", "total": 1, "amount": 1, "hunts": True}
    hut = Task.model_validate(
        {
            "title": "Build basic shelter",
            "type": "build",
            "parameters": {"target": "basic_shelter", "amount": 1, **after_parameters([bed, TABLE, bed], "b1")},
            "metadata": {"createdAt": 0, "updatedAt": 0},
        }
    )
    here = follow_up_task(hut, {})
    assert here is not None and (here.type, here.parameters["target"]) == ("craft", "white_bed")
    assert here.parameters["then"] == [TABLE, bed]  # the mark rides along for the runner
    down = follow_up_task(hut, {}, may_hunt=False)  # underground or at dusk: the table first
    assert down is not None and (down.type, down.parameters["target"]) == ("craft", "crafting_table")
    assert down.parameters["then"] == [bed]


def test_follow_ups_that_gave_way_to_queued_work_are_queued_first_with_the_ticks_queued_ones(tasks, ftime):
    hut = _hut(tasks, bot="b1")
    sword = FollowUpSpec("craft", "wooden_sword", 1, 1)
    queued = tasks.get_task(_queue(tasks, ftime, hut, bot="b1", given_way={hut.id: (sword,)}))
    assert (queued.type, queued.parameters["target"], queued.metadata.bot) == ("craft", "wooden_sword", "b1")
    assert queued.parameters["then"] == [TABLE, LOGS]
    # another bot's tick's queued ones stay with it; what gave way in this bot's run is its own
    other, hoe = _hut(tasks, bot="b2"), FollowUpSpec("craft", "wooden_hoe", 1, 1)
    mine = tasks.get_task(_queue(tasks, ftime, other, bot="b1", given_way={other.id: (hoe,)}))
    assert (mine.parameters["target"], mine.parameters["then"], mine.metadata.bot) == ("wooden_hoe", [], "b1")


def test_a_task_with_nothing_left_and_none_queued_queues_nothing(tasks, ftime):
    hut = _hut(tasks)
    plain = tasks.get_task(hut.id).model_copy(update={"parameters": {"target": "basic_shelter", "amount": 1}})
    assert _queue(tasks, ftime, plain, given_way={}) is None and not _pending(tasks)


def test_a_fleet_bots_hut_queues_its_follow_ups_bound_to_it_and_once_only(tasks, ftime):
    hut = _hut(tasks, bot="b1")
    assert _queue(tasks, ftime, hut, bot="b2") is None  # b2 verified the hut b1's tick asked for
    queued_id = _queue(tasks, ftime, hut, bot="b1")
    queued = tasks.get_task(queued_id)
    assert queued.metadata.bot == "b1" and queued.metadata.origin.parentTaskId == hut.id
    assert queued.metadata.sourceThoughtId == "thought-1" and queued.source == "drive-tick"
    tasks.set_status(queued_id, TaskStatus.active)
    tasks.set_status(queued_id, TaskStatus.completed)
    repaired = tasks.get_task(hut.id)  # re-opened by drift and verified again: its follow-ups are old
    assert repaired.metadata.childTaskIds == [queued_id]
    assert _queue(tasks, ftime, repaired, bot="b1") is None and not _pending(tasks)


@pytest.mark.parametrize(
    ("body", "held"),
    [(DuskBody, {}), (GoneBody, {}), (FakeBody, {"crafting_table": 1, "oak_log": 9})],
    ids=["dusk", "no body", "all held"],
)
def test_no_follow_up_task_is_queued_at_dusk_without_a_body_or_with_every_one_held(tasks, ftime, body, held):
    hut = _hut(tasks)
    assert _queue(tasks, ftime, hut, body=body(ftime.clock, inventory=dict(held))) is None
    assert not _pending(tasks) and not tasks.get_task(hut.id).metadata.childTaskIds


def _craft(tasks, target: str) -> Task:
    return tasks.add_task(
        NewTask(title=f"Craft {target}", type="craft", metadata={"goalKey": f"craft:{target}"}),
        origin=TaskOrigin(kind="drive-tick"),
    )


def test_follow_ups_not_queued_when_the_hut_was_verified_are_not_queued_at_a_later_repair(tasks, ftime):
    hut = _hut(tasks)
    assert _queue(tasks, ftime, hut, body=DuskBody(ftime.clock)) is None  # dusk: they wait for their ticks
    repaired = tasks.get_task(hut.id)  # re-opened by drift, verified again the next morning
    assert HANDLED in repaired.metadata.tags
    assert _queue(tasks, ftime, repaired) is None and not _pending(tasks)


def test_no_follow_up_task_is_queued_when_an_open_task_has_its_goal(tasks, ftime):
    table = _craft(tasks, "crafting_table")
    tasks.set_status(table.id, TaskStatus.active)  # claimed by a daemon's other executor, say
    assert _queue(tasks, ftime, _hut(tasks)) is None and not _pending(tasks)


def test_with_other_work_waiting_the_follow_up_task_is_queued_paused_behind_it_and_counts_in_flight(tasks, ftime):
    """Dropped, they were lost: the next tick's chain had stopped at them (DRIVE-2) while the
    task that carried them was open, and the bot stood idle after the work that waited."""
    sword = _craft(tasks, "stone_sword")
    queued = tasks.get_task(_queue(tasks, ftime, _hut(tasks)))
    assert [t.id for t in _pending(tasks)] == [sword.id]
    assert queued.status is TaskStatus.paused and queued.metadata.blockedReason == GAVE_WAY
    # a tick's goal of the same kind is a duplicate while it waits its turn, long after too
    ftime.clock.advance(2 * STUCK_PENDING_TIMEOUT_MS)
    assert find_blocking_task(tasks, queued.metadata.goalKey, ftime.clock()).id == queued.id


def test_a_fleet_bots_follow_ups_queued_paused_are_its_turn_once_its_queue_is_empty(tasks, ftime):
    """Never claimed, no bot holds them: bound to the bot, they are its to give back."""
    _craft(tasks, "stone_sword")
    queued_id = _queue(tasks, ftime, _hut(tasks, bot="b1"), bot="b1")
    assert tasks.get_task(queued_id).metadata.heldBy is None
    ctx = ToolContext(body=FakeBody(ftime.clock), clock=ftime.clock, sleep=ftime.sleep)
    runtime = SimpleNamespace(tool_context=ctx, follow_up_goals={}, given_way={})
    turn = {bot: FollowUpWatch(tasks, runtime, ftime.clock, bot=bot).next_turn() for bot in ("b1", "b2")}  # type: ignore[arg-type]
    assert turn["b1"].id == queued_id and turn["b2"] is None


def test_while_a_hut_is_open_its_follow_ups_are_in_flight_for_its_bot_only_and_until_queued(tasks, ftime):
    hut = _hut(tasks, bot="b1", status=TaskStatus.active)
    now = ftime.clock()
    key = "craft:crafting_table"
    assert following(tasks, key, now, STUCK_PENDING_TIMEOUT_MS, "b1").id == hut.id
    assert following(tasks, key, now, STUCK_PENDING_TIMEOUT_MS, "b2") is None  # b2's own tick may ask
    tasks.update_task_metadata(hut.id, {"tags": [HANDLED]})  # queued (or not) once; the hut re-opened
    assert following(tasks, key, now, STUCK_PENDING_TIMEOUT_MS, "b1") is None
