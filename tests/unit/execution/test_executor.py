"""Executor, stall taxonomy and reflexes on the real task store and agent runtime over a
fake block world (no node). Time is a FrozenClock advanced by a fake async sleep."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from loguru import logger

from agency.execution.agents import AgentRuntime, load_default_registry
from agency.execution.agents.generators import GENERATORS
from agency.execution.agents.task_spec import FollowUpSpec
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.executor import UNTOUCHED_COMEBACKS, Executor
from agency.execution.follow_up_watch import ASK_AGAIN_MS, IDLE_ASK_MS, QUEUE_CHECK_MS
from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.execution.reflexes.eat import EAT_RETRY_MAX_MS, EAT_RETRY_MS
from agency.execution.workflows import SqliteCheckpointStore
from agency.planning.stalls import classify_stall
from agency.planning.tasks.idempotency import GAVE_WAY, PREEMPTED
from agency.planning.tasks.models import NewTask, TaskOrigin, TaskStatus
from agency.tools.testing import FakeBody, FakeTime
from agency.world import EntityInfo, Vec3
from tests.unit.execution.world import add_task, executor_env, tick_task_done


class ArenaBody(FakeBody):
    """The fake world plus a fightable zombie."""

    def __init__(self, clock: Any, **kw: Any) -> None:
        super().__init__(clock, **kw)
        self.zombie_at: float | None = None

    def snapshot(self):
        snap = super().snapshot()
        if self.zombie_at is None:
            return snap
        z = EntityInfo(
            name="zombie",
            type="hostile",
            hostile=True,
            distance=self.zombie_at,
            position=Vec3(x=self.zombie_at, y=64, z=0),
        )
        return snap.model_copy(update={"entities": [z], "hostiles": 1})

    def _do_attack(self, a: dict[str, Any]) -> dict[str, Any]:
        self.zombie_at = None
        return {"target": "zombie", "hits": 3, "gone": True}


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = ArenaBody(ftime.clock, polls_to_finish=2)
    for x in range(3, 8):
        body.add_tree(x, 3)
    e = executor_env(tmp_path, ftime, body)
    yield e
    e["tasks"].close()


_add = add_task


async def _drive(ex, ftime, until, max_ticks=400):
    for _ in range(max_ticks):
        out = await ex.tick()
        if until(out):
            return out
        await ftime.sleep(0.1)
    raise AssertionError("executor did not reach the expected state")


def _captured():
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    return lines, sink


def test_executor_claims_a_pending_task_and_completes_it_in_the_world(env):
    ex, tasks, body = env["ex"], env["tasks"], env["body"]
    tid = _add(tasks, "collect", "oak_log", 3)
    lines, sink = _captured()
    try:
        asyncio.run(_drive(ex, env["ftime"], lambda o: o.startswith("finished")))
    finally:
        logger.remove(sink)
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.completed and task.progress == 1.0
    assert body.inventory["oak_log"] >= 3
    assert any(
        f"[Executor] claimed task={tid} goalKey=collect:oak_log" in line and "pending -> active" in line
        for line in lines
    )
    assert task.metadata.solver["agentId"] == "gatherer"


def test_executor_reports_progress_while_the_workflow_runs(env):
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    env["body"].polls_to_finish = 30  # long actions: the run spans many ticks
    tid = _add(tasks, "craft", "wooden_pickaxe")
    seen: list[float] = []
    busy: list[bool] = []

    async def go():
        for _ in range(3000):
            out = await ex.tick()
            seen.append(tasks.get_task(tid).progress)
            busy.append(ex.stats.last_busy_ms == ftime.clock())
            if out.startswith("finished"):
                return
            await ftime.sleep(0.1)

    asyncio.run(go())
    assert busy[0] is False and all(busy[1:])  # claimed on the first tick; busy (queue clock held) from then on
    mid = [p for p in seen if 0 < p < 1]
    assert mid and mid == sorted(mid)  # progress rose step by step before completion
    assert tasks.get_task(tid).status is TaskStatus.completed


def test_executor_fails_a_task_with_the_reason(env):
    ex, tasks = env["ex"], env["tasks"]
    env["body"].fail["collect"] = "no path to the tree"
    tid = _add(tasks, "collect", "oak_log", 2)
    asyncio.run(_drive(ex, env["ftime"], lambda o: o.startswith("finished")))
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.failed
    assert "no path to the tree" in task.metadata.solver["failureReason"]


def test_a_task_type_with_no_workflow_becomes_unplannable_never_stuck_pending(env):
    ex, tasks = env["ex"], env["tasks"]
    tid = _add(tasks, "dance", "floor")
    assert asyncio.run(ex.tick()) == "unplannable"
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.unplannable and "dance" in task.metadata.blockedReason
    assert classify_stall(task, env["ftime"].clock(), ex.stats.last_tick_ms) == "unplannable"


def test_a_planner_that_fails_fails_its_task_and_the_executor_goes_on(env, monkeypatch):
    """A bench bot's executor job failed twice in a row on a torch plan whose smelt burnt the
    charcoal it made (fixed in the planner): a planner's bug fails the task, logged, not the job."""
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]

    def broken(agent_id, task, inventory):
        raise AssertionError("no plan for torch gets its materials")

    monkeypatch.setitem(GENERATORS, "craft_plan", broken)
    tid = _add(tasks, "craft", "torch")
    lines, sink = _captured()
    try:
        assert asyncio.run(_drive(ex, ftime, lambda out: out.startswith("finished"))).startswith("finished")
    finally:
        logger.remove(sink)
    task = tasks.get_task(tid)
    assert task.status is TaskStatus.failed
    assert "planning craft torch 1 failed: AssertionError" in task.metadata.solver["failureReason"]
    assert any("craft torch 1: planning failed" in line for line in lines)


def test_the_executor_claims_the_most_urgent_pending_task_then_the_oldest(env):
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    old = _add(tasks, "craft", "crafting_table")
    ftime.clock.advance(1000)
    urgent = _add(tasks, "dance", "floor")  # newer, and no workflow: claimed, then unplannable
    ftime.clock.advance(1000)
    tie = _add(tasks, "sing", "song")
    tasks.set_urgencies({old: 0.4, urgent: 0.9, tie: 0.4})
    assert asyncio.run(ex.tick()) == "unplannable"
    assert tasks.get_task(urgent).status is TaskStatus.unplannable
    assert asyncio.run(ex.tick()) == "claimed"  # 0.4 each: the older one first
    assert ex.current.task_id == old and tasks.get_task(tie).status is TaskStatus.pending


def test_an_active_task_with_no_run_in_flight_resumes_from_its_checkpoint(env, tmp_path):
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    env["body"].polls_to_finish = 30
    tid = _add(tasks, "craft", "wooden_pickaxe")

    async def until_two_steps():
        for _ in range(3000):
            await ex.tick()
            rec = ex.runtime.checkpoints.latest_run_for_task(tid)
            if rec and len(ex.runtime.checkpoints.history(rec.runId)) >= 2:
                ex.current = None  # the process dies mid-task: asyncio.run drops the run on exit
                return
            await ftime.sleep(0.1)

    asyncio.run(until_two_steps())
    assert tasks.get_task(tid).status is TaskStatus.active
    old = ex.runtime  # a new runtime and executor over the same files, as after a restart
    tools = default_tool_registry()
    runtime = AgentRuntime(
        load_default_registry(), tools, env["ctx"], checkpoints=SqliteCheckpointStore(tmp_path / "t.db")
    )
    assert old.checkpoints.latest_run_for_task(tid) is not None
    fresh = Executor(tasks, runtime, ftime.clock)

    async def restart():
        assert await fresh.tick() == "resumed"
        await _drive(fresh, ftime, lambda o: o.startswith("finished"), max_ticks=5000)

    asyncio.run(restart())
    assert tasks.get_task(tid).status is TaskStatus.completed
    assert tools.call_counts.get("collect_block", 0) == 0  # the completed gathering step was not redone
    assert tools.call_counts["craft"] >= 1


def test_preempt_pauses_with_reason_and_resume_puts_the_task_back(env):
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    env["body"].polls_to_finish = 30
    tid = _add(tasks, "craft", "wooden_pickaxe")

    async def go():
        assert await ex.tick() == "claimed"
        await ftime.sleep(0.5)
        paused = await ex.preempt("disconnected")
        assert paused == tid
        assert tasks.get_task(tid).status is TaskStatus.paused
        assert tasks.get_task(tid).metadata.blockedReason == "disconnected"
        assert classify_stall(tasks.get_task(tid), ftime.clock(), ex.stats.last_tick_ms) == "blocked_reason"
        assert ex.resume_paused("disconnected") == [tid]
        assert tasks.get_task(tid).status is TaskStatus.pending
        await _drive(ex, ftime, lambda o: o.startswith("finished"), max_ticks=5000)

    asyncio.run(go())
    assert tasks.get_task(tid).status is TaskStatus.completed


def test_the_goal_in_hand_is_the_running_one_else_the_one_a_reflex_paused_until_the_next_run(env):
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    env["body"].polls_to_finish = 30
    tid = _add(tasks, "craft", "wooden_pickaxe")

    async def go():
        assert ex.goal_in_hand() is None
        assert await ex.tick() == "claimed"
        assert ex.goal_in_hand() == ex.running_goal() == ("craft", "wooden_pickaxe")
        await ftime.sleep(0.5)
        assert await ex.preempt("preempted") == tid
        assert ex.running_goal() is None and ex.goal_in_hand() == ("craft", "wooden_pickaxe")
        ex.resume_paused("preempted")
        assert tasks.get_task(tid).status is TaskStatus.pending
        assert ex.goal_in_hand() == ("craft", "wooden_pickaxe")  # waiting to resume: still in hand
        assert await ex.tick() == "claimed"  # the next run: its own goal
        assert ex.goal_in_hand() == ex.running_goal() == ("craft", "wooden_pickaxe")
        await _drive(ex, ftime, lambda o: o.startswith("finished"), max_ticks=5000)
        assert tasks.get_task(tid).status is TaskStatus.completed
        assert ex.goal_in_hand() is None  # done: nothing in hand

    asyncio.run(go())


def test_a_preempted_task_failed_meanwhile_is_no_goal_in_hand(env):
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    env["body"].polls_to_finish = 30
    tid = _add(tasks, "smelt", "cooked_beef")

    async def go():
        assert await ex.tick() == "claimed"
        await ftime.sleep(0.5)
        assert await ex.preempt("preempted") == tid
        assert ex.goal_in_hand() == ("smelt", "cooked_beef")
        tasks.set_status(tid, TaskStatus.failed)  # cancelled by the user while it waits (a cancel fails it)
        assert ex.goal_in_hand() is None  # its beef is no longer spared

    asyncio.run(go())


def test_reflex_preemption_pauses_the_task_fights_then_resumes_it(env):
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.polls_to_finish = 30
    body.inventory["stone_sword"] = 1  # armed: a fight (bare hands keep out of reach)
    tid = _add(tasks, "craft", "wooden_pickaxe")
    reflexes = Reflexes(env["tools"], env["ctx"], ex, ReflexConfig())

    async def go():
        assert await ex.tick() == "claimed"
        await ftime.sleep(0.5)
        body.zombie_at = 2.0
        assert await reflexes.tick(body.snapshot()) == "fight"
        assert reflexes.stats.preemptions == 1 and reflexes.stats.fought == 1
        assert body.zombie_at is None
        assert tasks.get_task(tid).status is TaskStatus.pending  # paused, then given back
        assert reflexes.stats.log[-1] == {"reflex": "fight", "pausedTask": tid}
        await _drive(ex, ftime, lambda o: o.startswith("finished"), max_ticks=5000)

    asyncio.run(go())
    assert tasks.get_task(tid).status is TaskStatus.completed


def test_reflex_eats_when_food_is_low_and_food_is_held(env):
    body = env["body"]
    body.inventory["bread"] = 2
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig(eat_below_food=14))
    snap = body.snapshot().model_copy(update={"food": 10})
    assert reflexes.choose(snap) == "eat"
    assert reflexes.choose(snap.model_copy(update={"food": 15})) is None
    assert reflexes.choose(snap.model_copy(update={"inventory": []})) == "forage"  # nothing to eat: find some


def test_an_eat_that_did_not_take_is_not_tried_again_at_once(env):
    body, ftime = env["body"], env["ftime"]
    body.inventory["bread"] = 3
    body.food = 15
    body.fail["consume"] = "the eat of bread did not take: food still 15"
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig(), clock=ftime.clock)
    snap = body.snapshot()
    assert asyncio.run(reflexes.tick(snap)) == "eat"
    assert reflexes.choose(snap) is None  # the task held for it gets the body back meanwhile
    ftime.clock.advance(EAT_RETRY_MS)
    assert reflexes.choose(snap) == "eat"
    del body.fail["consume"]
    assert asyncio.run(reflexes.tick(snap)) == "eat" and body.food == 20
    body.food = 15
    assert reflexes.choose(body.snapshot()) == "eat"  # after a good eat, the next one when due: no wait
    body.fail["consume"] = "no bread (food) in inventory"  # another failure: no wait either
    assert asyncio.run(reflexes.tick(body.snapshot())) == "eat"
    assert reflexes.choose(body.snapshot()) == "eat"


def test_eats_the_server_never_finishes_wait_longer_each_time_and_a_good_eat_starts_over(env):
    body, ftime = env["body"], env["ftime"]
    body.inventory["bread"] = 2
    body.food = 15
    body.fail["consume"] = "consume failed: Promise timed out."
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig(), clock=ftime.clock)
    waits = []
    for _ in range(6):
        assert asyncio.run(reflexes.tick(body.snapshot())) == "eat"
        waited = 0
        while reflexes.choose(body.snapshot()) != "eat":  # the other reflexes and the task have the body
            ftime.clock.advance(1000)
            waited += 1000
        waits.append(waited)
    assert waits == [EAT_RETRY_MS * n for n in (1, 2, 4, 8)] + [EAT_RETRY_MAX_MS] * 2
    del body.fail["consume"]
    assert asyncio.run(reflexes.tick(body.snapshot())) == "eat" and body.food > 15
    body.food = 15
    body.fail["consume"] = "consume failed: Promise timed out."
    assert asyncio.run(reflexes.tick(body.snapshot())) == "eat"
    ftime.clock.advance(EAT_RETRY_MS)
    assert reflexes.choose(body.snapshot()) == "eat"  # counted from one again


@pytest.mark.parametrize("mode", ["creative", "spectator"])
def test_no_reflex_attacks_in_creative_or_spectator(env, mode):
    body = env["body"]
    body.zombie_at = 1.5
    body.inventory["stone_sword"] = 1
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"])
    assert reflexes.choose(body.snapshot()) == "fight"
    assert reflexes.choose(body.snapshot().model_copy(update={"gameMode": mode})) is None


def test_a_resumed_run_that_no_longer_fits_the_world_is_replanned_once(env, tmp_path):
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.polls_to_finish = 30
    tid = _add(tasks, "craft", "wooden_pickaxe")

    async def until_first_checkpoint():
        for _ in range(3000):
            await ex.tick()
            rec = ex.runtime.checkpoints.latest_run_for_task(tid)
            if rec and len(ex.runtime.checkpoints.history(rec.runId)) >= 1:
                ex.current = None  # the process dies mid-task
                return
            await ftime.sleep(0.1)

    asyncio.run(until_first_checkpoint())
    body.inventory["oak_log"] = 0  # the crash lost what the checkpoint says was gathered
    tools = default_tool_registry()
    runtime = AgentRuntime(
        load_default_registry(), tools, env["ctx"], checkpoints=SqliteCheckpointStore(tmp_path / "t.db")
    )
    fresh = Executor(tasks, runtime, ftime.clock)
    outcomes = []

    async def restart():
        for _ in range(6000):
            out = await fresh.tick()
            outcomes.append(out)
            if out.startswith("finished"):
                return
            await ftime.sleep(0.1)

    asyncio.run(restart())
    assert outcomes[0] == "resumed" and "replanned" in outcomes
    assert tasks.get_task(tid).status is TaskStatus.completed
    assert tools.call_counts["collect_block"] >= 1  # the fresh plan gathered again


def _sword_after(tasks, sword_total=1):
    then = [{"action": "craft", "target": "wooden_sword", "total": sword_total, "amount": 1}]
    return _add(tasks, "craft", "wooden_pickaxe", then=then)


async def _until_the_sword_follows_up(ex, ftime, lines):
    """Tick until _sword_after's task has started its follow-up (its log line)."""
    for _ in range(5000):
        if any("follow-up 1/1 craft wooden_sword 1" in line for line in lines):
            return
        await ex.tick()
        await ftime.sleep(0.1)
    raise AssertionError("no follow-up started")


def test_paused_in_its_follow_ups_a_task_goes_on_with_them_when_resumed_its_goal_not_made_again(env):
    """Nor is it given up (a way under water met in a follow-up): its goal was made."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.polls_to_finish = 30
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    tid = _sword_after(tasks)
    tasks.finalize_new_task(tid, TaskOrigin(kind="drive-tick"))
    lines, sink = _captured()

    async def go():
        assert await ex.tick() == "claimed"
        assert ex.give_up(tid, "a test") is False  # running: a run is stopped first
        await _until_the_sword_follows_up(ex, ftime, lines)
        assert ex.running_goal() == ("craft", "wooden_sword")  # what the reflexes spare is the follow-up's
        assert await ex.preempt("preempted") == tid
        assert tasks.get_task(tid).status is TaskStatus.paused
        assert ex.give_up(tid, "its way led under water") is False
        ex.resume_paused("preempted")
        await _drive(ex, ftime, lambda o: o.startswith("finished"), max_ticks=5000)

    try:
        asyncio.run(go())
    finally:
        logger.remove(sink)
    assert tasks.get_task(tid).status is TaskStatus.completed
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["wooden_sword"] == 1


def test_a_run_done_as_the_stop_comes_finishes_its_task_instead_of_pausing_it(env):
    """Paused, its resume would make its goal again (a task with no follow-ups)."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    tid = _add(tasks, "craft", "wooden_pickaxe")

    async def go():
        assert await ex.tick() == "claimed"
        for _ in range(5000):
            if ex.current is not None and ex.current.handle.task.done():
                break
            await ftime.sleep(0.1)
        assert await ex.preempt("preempted") is None  # nothing paused

    asyncio.run(go())
    assert tasks.get_task(tid).status is TaskStatus.completed and body.inventory["wooden_pickaxe"] == 1


async def _completes_then_the_queued_task_runs(ex, tasks, ftime, tid: str, queued: str) -> None:
    """The task that gave way completes (its goal is done) and the queued one is claimed next."""
    await _drive(ex, ftime, lambda o: o.startswith("finished"))
    assert tasks.get_task(tid).status is TaskStatus.completed
    assert await ex.tick() == "claimed" and ex.current.task_id == queued


def test_a_drive_ticks_follow_ups_give_way_to_a_task_waiting_in_the_queue(env):
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    tid = _sword_after(tasks)
    lines, sink = _captured()

    async def go():
        assert await ex.tick() == "claimed"
        queued = _add(tasks, "collect", "oak_log", 1)  # the next tick's goal, queued while the pickaxe is made
        await _completes_then_the_queued_task_runs(ex, tasks, ftime, tid, queued)
        assert not body.inventory.get("wooden_sword")
        await _the_sword_follows_behind(ex, tasks, ftime)

    try:
        asyncio.run(go())
    finally:
        logger.remove(sink)
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["wooden_sword"] == 1
    assert any("follow-up 1/1 craft wooden_sword not started: other work waits in the queue" in line for line in lines)
    assert any("paused behind the work waiting in the queue" in line for line in lines)


async def _the_sword_follows_behind(ex, tasks, ftime) -> None:
    """The sword that gave way was queued paused behind the queued work (GAVE_WAY); that work
    done, it is claimed and made (a bench bot's sword, stopped for a hut, was dropped)."""
    [later] = tasks.list_by_status(TaskStatus.paused)
    assert later.metadata.blockedReason == GAVE_WAY
    assert (later.type, later.parameters["target"], later.parameters["amount"]) == ("craft", "wooden_sword", 1)
    await _drive(ex, ftime, lambda o: o.startswith("finished"))  # the queued work
    assert await ex.tick() == "claimed" and ex.current.task_id == later.id
    await _drive(ex, ftime, lambda o: o.startswith("finished"), max_ticks=5000)
    assert tasks.get_task(later.id).status is TaskStatus.completed


def test_the_follow_ups_after_a_tasks_own_are_queued_as_a_task_once_it_completes(env):
    """agency.execution.after_goal: its run stays short (the soaks of make test see it
    complete), and the bot goes on at once."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    sword = {"action": "craft", "target": "wooden_sword", "total": 1, "amount": 1}
    hoe = {"action": "craft", "target": "wooden_hoe", "total": 1, "amount": 1}
    tid = _add(tasks, "craft", "wooden_pickaxe", after=[sword, hoe])

    async def go():
        assert await ex.tick() == "claimed"
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        assert tasks.get_task(tid).status is TaskStatus.completed and not body.inventory.get("wooden_sword")
        [queued] = tasks.list_by_status(TaskStatus.pending)
        assert (queued.type, queued.parameters["target"], queued.parameters["then"]) == ("craft", "wooden_sword", [hoe])
        assert await ex.tick() == "claimed" and ex.current.task_id == queued.id
        await _drive(ex, ftime, lambda o: o.startswith("finished"))

    asyncio.run(go())
    assert body.inventory["wooden_sword"] == 1 and body.inventory["wooden_hoe"] == 1


def _asking(ftime, *chain) -> tuple[list[int], Any]:
    """A stand-in for DriveJob.goals_now answering `chain`, and when it was asked."""
    asked: list[int] = []

    async def next_goals():
        asked.append(ftime.clock())
        return chain

    return asked, next_goals


def test_a_ticks_task_done_with_nothing_after_it_asks_the_next_ticks_goals_and_does_them(env):
    """A bench bot at 592ef65 stood 50-110 s after such a task, waiting for the tick."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    sword, hoe = FollowUpSpec("craft", "wooden_sword", 1, 1), FollowUpSpec("craft", "wooden_hoe", 1, 1)
    asked, ex.follow_ups.next_goals = _asking(ftime, sword, hoe)
    tid = _add(tasks, "craft", "wooden_pickaxe")
    lines, sink = _captured()

    async def go():
        assert await ex.tick() == "claimed"
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        [queued] = tasks.list_by_status(TaskStatus.pending)
        assert (queued.type, queued.parameters["target"], queued.parameters["then"]) == (
            "craft",
            "wooden_sword",
            [hoe.as_dict()],
        )
        assert queued.metadata.origin.parentTaskId == tid and queued.source == "drive-tick"
        assert await ex.tick() == "claimed" and ex.current.task_id == queued.id
        await _drive(ex, ftime, lambda o: o.startswith("finished"), max_ticks=5000)

    try:
        asyncio.run(go())
    finally:
        logger.remove(sink)
    assert body.inventory["wooden_sword"] == 1 and body.inventory["wooden_hoe"] == 1
    assert asked and any("done with nothing after it: the next tick's goals, asked now" in line for line in lines)
    assert not tasks.list_by_status(TaskStatus.pending)  # both held when asked again: nothing queued


def test_a_bot_idle_by_day_asks_the_next_ticks_goals_rather_than_wait_for_the_interval(env):
    """A 26.1 bench bot at c64bde5 fired its hut at dusk, slept the night through in 35 s and
    stood 83 s of the morning until the tick's interval (counted from that fire) was up. Its
    last tick's task long done and nothing open, an idle executor asks once in IDLE_ASK_MS,
    and not at night."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    sword = FollowUpSpec("craft", "wooden_sword", 1, 1)
    asked, ex.follow_ups.next_goals = _asking(ftime)  # the gates shut at first: nothing to do
    hut = tick_task_done(tasks, "build", "basic_shelter", 1)
    night = body.snapshot

    async def go():
        body.snapshot = lambda: night().model_copy(update={"timeOfDay": 13_000, "isDay": False})
        assert await ex.tick() == "idle" and asked == []  # at night the morning's reflexes decide
        await ftime.sleep(IDLE_ASK_MS / 1000)
        body.snapshot = night  # the morning
        assert await ex.tick() == "idle" and len(asked) == 1  # asked: nothing now
        assert await ex.tick() == "idle" and len(asked) == 1  # not again within IDLE_ASK_MS
        ex.follow_ups.next_goals = _asking(ftime, sword)[1]
        await ftime.sleep(IDLE_ASK_MS / 1000)
        assert await ex.tick() == "claimed"
        queued = tasks.get_task(ex.current.task_id)
        assert (queued.type, queued.parameters["target"], queued.source) == ("craft", "wooden_sword", "drive-tick")
        assert queued.metadata.origin.parentTaskId == hut and queued.metadata.sourceThoughtId == "thought-dusk"
        await _drive(ex, ftime, lambda o: o.startswith("finished"), max_ticks=5000)

    asyncio.run(go())
    assert body.inventory["wooden_sword"] == 1


def test_with_every_step_had_the_last_rules_explore_is_done_between_ticks_too(env):
    """A 1.18.2 bench bot at d20bcc9 with every milestone stood 120-180 s after each explore's
    one leg, waiting for the tick (idle 34 % of the day): asked as the next tick's goal, the
    explore is queued and claimed at once."""
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    _, ex.follow_ups.next_goals = _asking(ftime, FollowUpSpec("explore", "nearby", 1, 1))
    before = tick_task_done(tasks, "explore", "nearby", 1)

    async def go():
        assert await ex.tick() == "claimed"
        queued = tasks.get_task(ex.current.task_id)
        assert (queued.type, queued.parameters["target"], queued.source) == ("explore", "nearby", "drive-tick")
        assert queued.metadata.origin.parentTaskId == before

    asyncio.run(go())


def test_the_next_ticks_goals_are_not_asked_after_a_users_task_nor_with_work_waiting(env):
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    asked, ex.follow_ups.next_goals = _asking(ftime, FollowUpSpec("craft", "wooden_sword", 1, 1))
    mine = tasks.add_task(
        NewTask(title="craft wooden_pickaxe 1", type="craft", source="user", parameters={"target": "wooden_pickaxe"}),
        allow_unfinalized=True,
    )

    async def go():
        assert await ex.tick() == "claimed" and ex.current.task_id == mine.id
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        assert asked == []  # a player's goal: the ticks go on as ever
        _add(tasks, "craft", "wooden_hoe")
        assert await ex.tick() == "claimed"
        _add(tasks, "craft", "stick", 4)  # queued meanwhile: its turn comes first
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        assert asked == []

    asyncio.run(go())


def test_a_task_with_follow_ups_reports_its_progress_through_them(env):
    """Its goal's run is its first share: the follow-ups' steps go on raising it (the bench's
    idle judge and the dashboard read it)."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.polls_to_finish = 30
    body.inventory.update({"oak_planks": 3, "crafting_table": 1, "stick": 2})  # the pickaxe's, no more
    tid = _sword_after(tasks)  # its plan: logs, planks, sticks, the sword
    seen: list[float] = []

    async def go():
        for _ in range(5000):
            out = await ex.tick()
            seen.append(tasks.get_task(tid).progress)
            if out.startswith("finished"):
                return
            await ftime.sleep(0.1)

    asyncio.run(go())
    mid = [p for p in seen if 0 < p < 1]
    assert mid == sorted(mid)  # only rises
    # the goal's run is the first half; each of the sword's steps (logs, planks, sticks) raises it on
    assert min(mid) <= 0.5 < max(mid) and len(set(mid)) >= 4, sorted(set(mid))
    assert tasks.get_task(tid).status is TaskStatus.completed and body.inventory["wooden_sword"] == 1


def test_a_follow_up_in_flight_gives_way_to_a_task_queued_meanwhile(env):
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.polls_to_finish = 30
    body.inventory.update({"oak_planks": 3, "crafting_table": 1, "stick": 2})  # the pickaxe's, no more
    tid = _sword_after(tasks)  # its plan: logs, planks, sticks, the sword
    lines, sink = _captured()

    async def go():
        assert await ex.tick() == "claimed"
        await _until_the_sword_follows_up(ex, ftime, lines)
        queued = _add(tasks, "collect", "oak_log", 1)  # the night's shelter, say, asked for meanwhile
        await _completes_then_the_queued_task_runs(ex, tasks, ftime, tid, queued)
        assert not body.inventory.get("wooden_sword")
        await _the_sword_follows_behind(ex, tasks, ftime)

    try:
        asyncio.run(go())
    finally:
        logger.remove(sink)
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["wooden_sword"] == 1
    assert any("follow-up stopped: other work waits in the queue" in line for line in lines)
    gave_way = "ended stopped (other work waits in the queue); the rest are queued behind that work"
    assert any(gave_way in line for line in lines)


async def _follow_up_gives_way(env, action: str, target: str, amount: int = 1) -> tuple[str, str]:
    """The task run first completes; the task of its queued follow-ups (a collect spanning many
    ticks) is claimed and gives way to `action target amount`, queued meanwhile. Their ids."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    assert await ex.tick() == "claimed"
    await _drive(ex, ftime, lambda o: o.startswith("finished"))
    [follow_up] = tasks.list_by_status(TaskStatus.pending)
    body.polls_to_finish = 30
    assert await ex.tick() == "claimed" and ex.current.task_id == follow_up.id
    queued = _add(tasks, action, target, amount=amount)
    assert await _drive(ex, ftime, lambda o: o.startswith("paused")) == f"paused:{GAVE_WAY}"
    return follow_up.id, queued


async def _queued_then_its_turn(env, queued: str, follow_up: str, between=lambda: True) -> None:
    """The queued task runs to its end (`between` holds then), then the follow-up's turn comes."""
    ex, ftime = env["ex"], env["ftime"]
    assert await ex.tick() == "claimed" and ex.current.task_id == queued
    await _drive(ex, ftime, lambda o: o.startswith("finished"))
    assert between()
    assert await ex.tick() == "claimed" and ex.current.task_id == follow_up  # its turn again
    await _drive(ex, ftime, lambda o: o.startswith("finished"), max_ticks=5000)


def test_a_task_of_queued_follow_ups_gives_way_in_its_own_goal_and_runs_when_the_queue_is_empty(env):
    """agency.execution.follow_up_watch: its goal is not done, so it is paused (GAVE_WAY), not
    completed, and claimed again once the work queued meanwhile is done."""
    tasks, body = env["tasks"], env["body"]
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    logs = {"action": "collect", "target": "oak_log", "total": 3, "amount": 3}
    tid = _add(tasks, "craft", "wooden_pickaxe", after=[logs])
    lines, sink = _captured()

    async def go():
        # the night's shelter, say, asked for meanwhile
        follow_up, queued = await _follow_up_gives_way(env, "craft", "wooden_sword")
        paused = tasks.get_task(follow_up)
        assert paused.status is TaskStatus.paused and paused.metadata.blockedReason == GAVE_WAY
        await _queued_then_its_turn(env, queued, follow_up)
        assert tasks.get_task(queued).status is TaskStatus.completed
        return follow_up

    try:
        fid = asyncio.run(go())
    finally:
        logger.remove(sink)
    assert tasks.get_task(tid).status is TaskStatus.completed
    assert tasks.get_task(fid).status is TaskStatus.completed and body.inventory["oak_log"] >= 3
    assert any(f"task={fid} (queued follow-ups) gives way: other work waits in the queue" in line for line in lines)
    assert any(f"resumed task={fid} after {GAVE_WAY}" in line for line in lines)


def test_a_task_that_gave_way_before_doing_anything_is_planned_afresh_when_its_turn_comes_back(env):
    """The work that went first used the logs its plan counted on: planned as "have 5" with 2
    held, resumed as planned it would gather 5; planned afresh it gathers the 3 asked for."""
    tasks, body = env["tasks"], env["body"]
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4, "oak_log": 2})
    logs = {"action": "collect", "target": "oak_log", "total": 5, "amount": 5}
    _add(tasks, "craft", "wooden_pickaxe", after=[logs])
    lines, sink = _captured()

    async def go():
        follow_up, queued = await _follow_up_gives_way(env, "craft", "oak_planks", 8)  # takes the 2 logs held
        assert body.inventory["oak_log"] == 2  # nothing of it done
        await _queued_then_its_turn(env, queued, follow_up, lambda: body.inventory.get("oak_log", 0) == 0)
        return follow_up

    try:
        fid = asyncio.run(go())
    finally:
        logger.remove(sink)
    assert tasks.get_task(fid).status is TaskStatus.completed and body.inventory["oak_log"] == 3
    assert any(f"task={fid} comes back with no step of its run done: planned afresh" in line for line in lines)


def test_a_follow_up_in_flight_reads_the_queue_once_a_second_not_every_tick(env):
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.polls_to_finish = 30
    body.inventory.update({"oak_planks": 3, "crafting_table": 1, "stick": 2})
    _sword_after(tasks)
    lines, sink = _captured()
    reads: list[int] = []
    ticks: list[int] = []
    list_by_status = tasks.list_by_status

    def counted(status):
        if status is TaskStatus.pending:
            reads.append(ftime.clock())
        return list_by_status(status)

    async def go():
        assert await ex.tick() == "claimed"
        await _until_the_sword_follows_up(ex, ftime, lines)
        tasks.list_by_status = counted
        for _ in range(30):
            await ex.tick()
            await ftime.sleep(0.1)
            ticks.append(ftime.clock())

    try:
        asyncio.run(go())
    finally:
        logger.remove(sink)
    assert 2 <= len(reads) <= (ticks[-1] - ticks[0]) // QUEUE_CHECK_MS + 1 < len(ticks), (reads, ticks)
    assert all(b - a >= QUEUE_CHECK_MS for a, b in itertools.pairwise(reads))


def test_of_the_tasks_waiting_their_turn_only_the_oldest_is_given_back_on_an_idle_tick(env):
    """Given back together, the first claimed would give way again to the others at once."""
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    waiting = []
    for target in ("wooden_pickaxe", "wooden_sword"):
        tid = _add(tasks, "craft", target)
        tasks.update_task_metadata(tid, {"blockedReason": GAVE_WAY})
        tasks.set_status(tid, TaskStatus.paused)
        waiting.append(tid)
        ftime.clock.advance(1_000)  # the sword's turn comes after the pickaxe's
    lines, sink = _captured()
    try:
        out = asyncio.run(ex.tick())
    finally:
        logger.remove(sink)
    assert out == "claimed" and ex.current.task_id == waiting[0]
    assert tasks.get_task(waiting[1]).status is TaskStatus.paused  # still waits its turn
    resumed = [line for line in lines if "resumed task=" in line]
    assert resumed == [f"[Executor] resumed task={waiting[0]} after {GAVE_WAY}"]


class _NightFall(ArenaBody):
    """The fake world with a clock of day: `time_of_day`, night from 13000 to 23000."""

    time_of_day = 20_000

    def snapshot(self):
        t = self.time_of_day
        return super().snapshot().model_copy(update={"timeOfDay": t, "isDay": not 13_000 <= t < 23_000})


def test_a_hunt_asked_between_ticks_is_queued_and_claimed_as_a_ticks_would_be(env):
    """The food stock's plain hunt, asked at a completion (agency.cognition.follow_ups.as_first),
    no longer waits for its tick."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    asked, ex.follow_ups.next_goals = _asking(ftime, FollowUpSpec("hunt", "animal", 2, 2, True))
    _add(tasks, "craft", "wooden_pickaxe")

    async def go():
        assert await ex.tick() == "claimed"
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        assert await ex.tick() == "claimed" and ex.current is not None

    asyncio.run(go())
    hunt = tasks.get_task(ex.current.task_id)
    assert (hunt.type, hunt.parameters["target"], hunt.parameters["amount"]) == ("hunt", "animal", 2)
    assert len(asked) == 1


def test_a_ticks_task_done_with_a_gate_shut_asks_the_next_ticks_goals_again_while_idle(env):
    """A hurt bot's task done with the drive gate shut (health under 16) left it idle until
    the tick once it had healed: the ask is made again while the bot has nothing to do."""
    ex, tasks, ftime, body = env["ex"], env["tasks"], env["ftime"], env["body"]
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    answers = [(), (), (FollowUpSpec("craft", "wooden_sword", 1, 1),)]
    asked: list[int] = []

    async def next_goals():
        asked.append(ftime.clock())
        return answers[min(len(asked), len(answers)) - 1]

    ex.follow_ups.next_goals = next_goals
    _add(tasks, "craft", "wooden_pickaxe")

    async def go():
        assert await ex.tick() == "claimed"
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        assert len(asked) == 1  # asked at the completion: the gate shut
        for _ in range(3):
            assert await ex.tick() == "idle"  # within ASK_AGAIN_MS: not asked again yet
        assert len(asked) == 1
        outcome = "idle"
        for _ in range(3 * ASK_AGAIN_MS // 1_000):  # idle ticks a second apart
            ftime.clock.advance(1_000)
            if (outcome := await ex.tick()) != "idle":
                break
        assert outcome == "claimed" and len(asked) == 3  # asked each ASK_AGAIN_MS until a goal came
        assert asked[1] - asked[0] >= ASK_AGAIN_MS and asked[2] - asked[1] >= ASK_AGAIN_MS
        assert tasks.get_task(ex.current.task_id).parameters["target"] == "wooden_sword"

    asyncio.run(go())


def _run_night(go, sink, tasks) -> None:
    """Run a night test's coroutine, then drop its log sink and close its store."""
    try:
        asyncio.run(go())
    finally:
        logger.remove(sink)
        tasks.close()


class _NightUnderCover(_NightFall):
    """The same night, the bot with rock over its head (a pocket, a burrow, a cave)."""

    def snapshot(self):
        return super().snapshot().model_copy(update={"cover": 5})


def test_a_ticks_task_done_under_cover_at_night_asks_the_nights_work_at_once(tmp_path):
    """A 1.18.2 bench bot working the night underground at a6804fe stood between 180 s ticks
    that each asked a 2-second craft (seed 7186): under cover the night's work is asked now."""
    ftime = FakeTime()
    body = _NightUnderCover(ftime.clock, polls_to_finish=2)
    e = executor_env(tmp_path, ftime, body)
    ex, tasks = e["ex"], e["tasks"]
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    answers = (FollowUpSpec("craft", "wooden_sword", 1, 1), FollowUpSpec("craft", "wooden_shovel", 1, 1))
    asked: list[int] = []

    async def next_goals():
        asked.append(ftime.clock())
        return (answers[min(len(asked), len(answers)) - 1],)

    ex.follow_ups.next_goals = next_goals
    _add(tasks, "craft", "wooden_pickaxe")
    lines, sink = _captured()

    async def go():
        assert await ex.tick() == "claimed"
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        assert len(asked) == 1  # asked at the completion, in the night
        assert await ex.tick() == "claimed" and ex.current is not None
        assert tasks.get_task(ex.current.task_id).parameters["target"] == "wooden_sword"
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        # the sword took under ASK_AGAIN_MS: not asked at its completion, but once that is up
        outcome = "idle"
        for _ in range(3 * ASK_AGAIN_MS // 1_000):  # idle ticks a second apart
            ftime.clock.advance(1_000)
            if (outcome := await ex.tick()) != "idle":
                break
        assert outcome == "claimed" and len(asked) == 2 and asked[1] - asked[0] >= ASK_AGAIN_MS
        assert tasks.get_task(ex.current.task_id).parameters["target"] == "wooden_shovel"

    _run_night(go, sink, tasks)
    assert body.inventory["wooden_sword"] == 1
    assert any("done under cover at night: the next tick's goals, asked now: craft:wooden_sword" in x for x in lines)


def test_a_ticks_task_done_at_night_asks_the_next_ticks_goals_at_daylight_if_idle_then(tmp_path):
    """A 26.1 bench bot finished its iron sword dug in at 23800 and stood 150 s of the morning
    until the tick: asked at night, the goals could not be queued (the night's ticks choose)."""
    ftime = FakeTime()
    body = _NightFall(ftime.clock, polls_to_finish=2)
    e = executor_env(tmp_path, ftime, body)
    ex, tasks = e["ex"], e["tasks"]
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    asked, ex.follow_ups.next_goals = _asking(ftime, FollowUpSpec("craft", "wooden_sword", 1, 1))
    _add(tasks, "craft", "wooden_pickaxe")
    lines, sink = _captured()

    async def go():
        assert await ex.tick() == "claimed"
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        for _ in range(5):
            assert await ex.tick() == "idle"  # still night: nothing asked, nothing queued
        assert asked == [] and not tasks.list_by_status(TaskStatus.pending)
        body.time_of_day = 0  # the morning
        assert await ex.tick() == "claimed" and ex.current is not None
        assert tasks.get_task(ex.current.task_id).parameters["target"] == "wooden_sword"
        await _drive(ex, ftime, lambda o: o.startswith("finished"))
        assert len(asked) == 1

    _run_night(go, sink, tasks)
    assert body.inventory["wooden_sword"] == 1
    assert any("done at night with nothing after it: the next tick's goals are asked at daylight" in x for x in lines)


def _held_by_reflexes(env, tid: str, times: int, every_s: float, reason: str = PREEMPTED) -> list[str]:
    """The task claimed, then held by a reflex's moment and given back, `times` times, one every
    `every_s`; the executor's tick outcomes (one more at the end)."""
    ex, ftime = env["ex"], env["ftime"]

    async def go():
        outs = []
        for _ in range(times):
            outs.append(await ex.tick())
            await ftime.sleep(every_s)
            assert await ex.preempt(reason) == tid  # a fight, say
            ex.resume_paused(reason)
        outs.append(await ex.tick())
        return outs

    return asyncio.run(go())


def _slow_task(env, kind: str = "drive-tick") -> str:
    env["body"].polls_to_finish = 400  # the first step (logs) is never done meanwhile
    tid = _add(env["tasks"], "craft", "wooden_pickaxe")
    env["tasks"].finalize_new_task(tid, TaskOrigin(kind=kind))
    return tid


def test_a_task_a_reflex_takes_the_bot_off_again_and_again_before_a_step_is_done_is_given_up(env):
    """A 26.1 bench bot's diamond pickaxe, deep among caves, was preempted nine times by cave
    mobs over 8 minutes of daylight and planned afresh each time, no step done."""
    tid = _slow_task(env)
    lines, sink = _captured()
    try:
        outs = _held_by_reflexes(env, tid, UNTOUCHED_COMEBACKS, every_s=40)
    finally:
        logger.remove(sink)
    assert outs == ["claimed"] * UNTOUCHED_COMEBACKS + ["failed"]  # 5 comebacks planned afresh, the 6th given up
    task = env["tasks"].get_task(tid)
    assert task.status is TaskStatus.failed
    why = f"taken off it by a reflex {UNTOUCHED_COMEBACKS} times in a row before a step of it was done"
    assert task.metadata.solver["failureReason"] == why
    assert sum("comes back with no step of its run done" in line for line in lines) == UNTOUCHED_COMEBACKS - 1
    assert any(f"failed task={tid} goalKey=craft:wooden_pickaxe reason={why}" in line for line in lines)


def test_holds_close_together_a_fight_with_meals_between_do_not_give_a_task_up(env):
    tid = _slow_task(env)
    outs = _held_by_reflexes(env, tid, UNTOUCHED_COMEBACKS, every_s=5)  # all within a minute
    assert "failed" not in outs and env["tasks"].get_task(tid).status is TaskStatus.active


def test_a_users_task_held_again_and_again_is_not_given_up(env):
    tid = _slow_task(env, kind="user")
    outs = _held_by_reflexes(env, tid, UNTOUCHED_COMEBACKS + 1, every_s=40)
    assert "failed" not in outs and env["tasks"].get_task(tid).status is TaskStatus.active


def test_a_task_waiting_its_turn_again_and_again_is_not_given_up(env):
    """Only a reflex's holds count: giving way to queued work is the queue's order, not a way
    that goes nowhere."""
    tid = _slow_task(env)
    outs = _held_by_reflexes(env, tid, UNTOUCHED_COMEBACKS + 1, every_s=40, reason=GAVE_WAY)
    assert outs == ["claimed"] * (UNTOUCHED_COMEBACKS + 2)
    assert env["tasks"].get_task(tid).status is TaskStatus.active
