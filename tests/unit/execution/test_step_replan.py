"""A plan whose step fails on the world is planned again from what the bot holds, at most
MAX_STEP_REPLANS times per task, each time a `replanned` event with the step and the reason;
what the first run got is not fetched again. Over the fake block world (no node)."""

from __future__ import annotations

import asyncio

import pytest
from loguru import logger

from agency.execution.agents.runtime import TaskSpec
from agency.execution.agents.smelt_plan import smelt_plan
from agency.execution.replans import MAX_STEP_REPLANS, Replanner
from agency.execution.runs import Running
from agency.execution.workflows.models import StepError, StepOutcome, WorkflowRunResult
from agency.planning.tasks.events import REPLANNED
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.testing import FakeBody, FakeTime
from bot.cli.goal import format_event
from tests.unit.execution.world import add_task, executor_env


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = FakeBody(ftime.clock, polls_to_finish=2)
    body.add_tree(3, 3)  # 4 logs
    e = executor_env(tmp_path, ftime, body)
    yield e
    e["tasks"].close()


def _run(env, tid, on_outcome=lambda out: None, max_ticks=6000):
    ex, ftime = env["ex"], env["ftime"]
    outcomes: list[str] = []

    async def go():
        for _ in range(max_ticks):
            out = await ex.tick()
            outcomes.append(out)
            on_outcome(out)
            if out.startswith("finished"):
                return
            await ftime.sleep(0.1)
        raise AssertionError(f"the task did not finish: {outcomes[-5:]}")

    asyncio.run(go())
    return outcomes


def _replans(tasks, tid):
    return [e.data for e in tasks.events(tid) if e.event == REPLANNED]


def test_a_step_failing_as_before_its_fresh_plan_fails_the_task_without_a_third_run(env):
    """A 1.18.2 bench bot's hunt of a cow that had strolled off explored 80 s in each of three
    runs of its task, none found."""
    tasks = env["tasks"]
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="WARNING")
    try:
        tid = add_task(tasks, "collect", "oak_log", 8)  # 4 logs in the world
        outcomes = _run(env, tid)
    finally:
        logger.remove(sink)
    assert outcomes.count("replanned") == 1
    assert tasks.get_task(tid).status is TaskStatus.failed
    replans = _replans(tasks, tid)
    assert [(r["replan"], r["of"]) for r in replans] == [(1, 2)]
    assert all(r["step"] and r["reason"] for r in replans)
    assert sum("planning again from what the bot holds (1 of 2)" in line for line in lines) == 1
    assert any("failed as before its last fresh plan (no oak_log within 32" in line for line in lines), lines
    assert env["body"].inventory.get("oak_log") == 4  # what the world had, gathered once
    # `mcbot goal --follow` shows each replan with its step and reason
    shown = [format_event(e.event, e.model_dump()) for e in tasks.events(tid) if e.event == REPLANNED]
    assert "replanned 1/2 after collect (no oak_log within 32 blocks" in shown[0]


def test_a_step_failing_a_new_way_each_time_is_planned_again_at_most_twice(env):
    tasks, body = env["tasks"], env["body"]
    ways = iter(["gravel", "sand", "water", "lava"])
    body.fail["collect"] = f"blocked by {next(ways)}"

    def next_way(out: str) -> None:
        if out == "replanned":
            body.fail["collect"] = f"blocked by {next(ways)}"

    tid = add_task(tasks, "collect", "oak_log", 8)
    outcomes = _run(env, tid, next_way)
    assert outcomes.count("replanned") == MAX_STEP_REPLANS == 2
    assert tasks.get_task(tid).status is TaskStatus.failed
    assert [(r["replan"], r["of"]) for r in _replans(tasks, tid)] == [(1, 2), (2, 2)]


def test_a_replan_goes_on_from_what_the_first_run_got(env):
    tasks, body = env["tasks"], env["body"]
    tid = add_task(tasks, "collect", "oak_log", 8)

    def trees_grow(out: str) -> None:
        if out == "replanned" and (9, 9, 9) not in body.blocks:
            # new ground in reach of where the explores left the bot: the fresh plan finds the rest
            body.add_tree(int(body.position.x) + 4, int(body.position.z))
            body.blocks[(9, 9, 9)] = "stone"  # once

    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        _run(env, tid, trees_grow)
    finally:
        logger.remove(sink)
    assert tasks.get_task(tid).status is TaskStatus.completed
    assert f"[Executor] task={tid} planned again for 4 more oak_log (the earlier runs got 4)" in lines
    assert len(_replans(tasks, tid)) == 1
    assert body.inventory.get("oak_log") == 8  # the 4 of the first run, and 4 more: not 8 more


def test_a_task_that_completes_is_never_replanned(env):
    tid = add_task(env["tasks"], "collect", "oak_log", 3)
    assert "replanned" not in _run(env, tid)
    assert env["tasks"].get_task(tid).status is TaskStatus.completed and _replans(env["tasks"], tid) == []


@pytest.mark.parametrize(
    ("action", "afresh"),
    [("craft", True), ("smelt", True), ("collect", True), ("build", False), ("explore", False)],
)
def test_only_plans_made_from_the_inventory_are_planned_again(env, action, afresh):
    assert env["ex"].runtime.plans_afresh(TaskSpec(action=action, target="x")) is afresh


class _Runtime:
    """What the Replanner asks of AgentRuntime: a plan made afresh, and a run started."""

    def __init__(self) -> None:
        self.started: list[dict] = []
        self.specs: list[TaskSpec] = []

    def plans_afresh(self, spec) -> bool:
        return True

    def start_task(self, spec, **kw):
        self.started.append(kw)
        self.specs.append(spec)
        return object()


def _running(env, action: str, target: str, agent: str = "crafter") -> tuple[str, Running]:
    """An active task of 8 `target` and its run, as the executor hands a failed one to the Replanner."""
    tasks, ftime = env["tasks"], env["ftime"]
    tid = add_task(tasks, action, target, 8)
    tasks.set_status(tid, TaskStatus.active)
    return tid, Running(tid, object(), ftime.clock(), agent)  # type: ignore[arg-type]


def _failed(step: str, why: str, *done: str) -> WorkflowRunResult:
    steps = [StepOutcome(stepId=s, status="completed") for s in done]
    steps.append(StepOutcome(stepId=step, status="failed", error=StepError(code=PRECONDITION_FAILED, message=why)))
    return WorkflowRunResult(
        runId="r",
        workflowId="w",
        agentId="a",
        status="failed",
        steps=steps,
        errors=[StepError(code=PRECONDITION_FAILED, message=why)],
    )


def test_the_same_failure_after_steps_done_or_a_hold_is_planned_again(env):
    """A fresh plan that got somewhere before failing as the last did (a collect that gathered
    more, then ran out again), or one after a hold (a night, a death), is no loop."""
    tasks, ftime = env["tasks"], env["ftime"]
    tid, run = _running(env, "collect", "oak_log", "gatherer")
    runtime = _Runtime()
    replanner = Replanner(tasks, runtime, ftime.clock, None)  # type: ignore[arg-type]
    why = "no oak_log within 32 blocks (explored 2 times)"
    assert replanner.replan(run, _failed("collect", why)) is not None  # the first replan
    assert replanner.replan(run, _failed("collect", why, "craft-planks")) is not None  # got somewhere first
    assert len(_replans(tasks, tid)) == 2
    other = add_task(tasks, "collect", "birch_log", 8)
    tasks.set_status(other, TaskStatus.active)
    run = Running(other, object(), ftime.clock(), "gatherer")  # type: ignore[arg-type]
    assert replanner.replan(run, _failed("collect", why)) is not None
    tasks.set_status(other, TaskStatus.paused)  # held for the night, given back in the morning
    tasks.set_status(other, TaskStatus.pending)
    tasks.set_status(other, TaskStatus.active)
    assert replanner.replan(run, _failed("collect", why)) is not None
    assert replanner.replan(run, _failed("collect", why)) is None  # MAX_STEP_REPLANS


@pytest.mark.parametrize(
    ("source", "action", "target", "step", "settles"),
    [
        ("drive-tick", "smelt", "cooked_beef", "hunt-cow", True),
        ("drive-tick", "smelt", "iron_ingot", "gather-raw_iron-input", False),
        ("drive-tick", "collect", "oak_log", "collect", False),
        ("user", "smelt", "cooked_beef", "hunt-cow", False),  # a user's count is the count
    ],
)
def test_a_drive_ticks_food_stock_whose_hunt_found_no_more_settles_for_the_meat_held(
    env, source, action, target, step, settles
):
    """The stock of 4 beef of a cow that gave 3, no other cow near: the commonest failed task of
    the 5-day benches ("no cow within 32 blocks to hunt" on the replan)."""
    tasks, ftime = env["tasks"], env["ftime"]
    tid = tasks.add_task(
        NewTask(title=f"{action} {target} 4", type=action, source=source, parameters={"target": target, "amount": 4}),
        allow_unfinalized=True,
    ).id
    tasks.set_status(tid, TaskStatus.active)
    runtime = _Runtime()
    replanner = Replanner(tasks, runtime, ftime.clock, None)  # type: ignore[arg-type]
    run = Running(tid, object(), ftime.clock(), "crafter")  # type: ignore[arg-type]
    why = "1 cow hunted (explored 1 times): 3 of 4 beef; picked up 3 beef, 2 leather"
    assert replanner.replan(run, _failed(step, why, "craft-furnace")) is not None
    assert runtime.specs[-1].settle is settles and runtime.specs[-1].amount == 4


def test_a_block_a_step_found_none_of_is_absent_from_every_fresh_plan_of_the_task(env):
    """A torch's "no coal_ore within 32 blocks" makes its fresh plans burn charcoal
    (test_smelting.py), the second one too after it failed elsewhere; a hunt's or another
    failure's message names no absent block."""
    tasks, ftime = env["tasks"], env["ftime"]
    tid, run = _running(env, "craft", "torch")
    runtime = _Runtime()
    replanner = Replanner(tasks, runtime, ftime.clock, None)  # type: ignore[arg-type]
    none = "no coal_ore within 32 blocks nor in sight within 64 (explored 2 times)"
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        assert replanner.replan(run, _failed("gather-coal", none, "seek-coal-ore")) is not None
    finally:
        logger.remove(sink)
    said = "craft torch 8: none of coal_ore found near; its fresh plans make charcoal for its coal instead"
    assert any(said in line for line in lines), lines
    assert runtime.specs[-1].absent == ("coal_ore",)
    assert runtime.specs[-1].as_context()["absent"] == ["coal_ore"]
    assert replanner.replan(run, _failed("gather-log-input", "collect stalled", "craft-furnace")) is not None
    assert runtime.specs[-1].absent == ("coal_ore",)
    # held, it comes back with no step done: the executor's fresh plan of it too
    assert replanner.fresh_spec(tasks.get_task(tid)).absent == ("coal_ore",)
    _, run = _running(env, "craft", "oak_planks")  # no other way to logs: nothing absent
    assert replanner.replan(run, _failed("gather-oak_log", "no oak_log within 32 blocks (explored 2 times)"))
    assert runtime.specs[-1].absent == ()
    _, run = _running(env, "smelt", "cooked_beef")
    assert replanner.replan(run, _failed("hunt-cow", "no cow within 32 blocks to hunt")) is not None
    assert runtime.specs[-1].absent == ()


@pytest.mark.parametrize(
    ("settle", "held", "smelts", "hunts"), [(True, 3, 3, False), (False, 3, 4, True), (True, 0, 4, True)]
)
def test_a_settled_smelt_plans_what_the_input_held_makes(settle, held, smelts, hunts):
    task = {"target": "cooked_beef", "amount": 4} | ({"settle": True} if settle else {})
    wf = smelt_plan("crafter", task, {"beef": held, "furnace": 1, "coal": 4})
    assert any(s.tool == "hunt" for s in wf.steps) is hunts
    last = wf.steps[-1]
    assert last.tool == "smelt" and last.args["count"] == smelts, last


def test_a_resumed_food_stock_whose_hunt_fails_settles_too(env):
    """Held for the night and resumed from its checkpoint, the stock's hunt finds the herd gone:
    its fresh plan cooks the meat held as a failed step's replan does."""
    tasks, ftime = env["tasks"], env["ftime"]
    tid = add_task(tasks, "smelt", "cooked_beef", 4)  # a drive tick's
    tasks.set_status(tid, TaskStatus.active)
    runtime = _Runtime()
    replanner = Replanner(tasks, runtime, ftime.clock, None)  # type: ignore[arg-type]
    run = Running(tid, object(), ftime.clock(), "crafter")  # type: ignore[arg-type]
    resumed = _failed("hunt-cow", "no cow within 32 blocks to hunt").model_copy(update={"resumedFrom": "ckpt-1"})
    assert replanner.replan(run, resumed) is not None
    assert runtime.started[-1] == {"fresh": True, "waiting": replanner.waiting}
    assert runtime.specs[-1].settle
