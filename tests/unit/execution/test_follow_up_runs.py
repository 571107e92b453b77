"""A drive tick's follow-ups in the runtime (AgentRuntime.run_task over the fake block world):
done after the task's own goal, each for what is still short of its total and never more
than its own amount; one already held is passed over, one that fails or a stop ends them and
the task's goal stands done; one whose plan now hunts is not started; a task resumed after
its goal's run completed goes on with the follow-ups not done yet, its goal not made again."""

from __future__ import annotations

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.agents.follow_up_runs import follow_up_run_id, no_hunt_here, parse_then, unfit_to_go_on
from agency.execution.agents.plan_gathering import DRIVE_HUNT_EXPLORES, HUNT_EXPLORES
from agency.execution.agents.task_spec import FollowUpSpec
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.execution.workflows.checkpoints import Checkpoint
from agency.tools import ToolContext
from agency.tools.base import StopFlag
from agency.tools.results import WAITS_FOR_SURFACE
from agency.tools.testing import GROUND_Y, CoveredNightBody, FakeBody, FakeTime, Mob
from tests.unit.conftest import run
from tests.unit.tools.test_hunting import HuntBody

PLANKS_PER_CRAFT, STICKS_PER_CRAFT = 4, 4


def _runtime(ctx: ToolContext, store: SqliteCheckpointStore) -> AgentRuntime:
    return AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)


def _pickaxe_then(task_id: str, *then: tuple[str, str, int, int]) -> TaskSpec:
    return TaskSpec(action="craft", target="wooden_pickaxe", id=task_id, then=then)


def test_the_follow_ups_are_made_after_the_goal_each_up_to_its_total(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    task = _pickaxe_then("t1", ("craft", "stick", 6, 4), ("craft", "wooden_sword", 1, 1))
    assert run(_runtime(ctx, store).run_task(task)).ok
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["wooden_sword"] == 1
    # 2 sticks left by the pickaxe, 4 more (one craft) to hold 6, one into the sword
    assert body.inventory["stick"] == 6 - 1
    assert store.get_run(follow_up_run_id("t1", 2)).status == "completed"  # a run of the task's own


def test_a_follow_up_already_held_is_passed_over_and_one_that_fails_ends_them(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    task = _pickaxe_then("t2", ("craft", "stick", 2, 2), ("craft", "iron_sword", 1, 1), ("craft", "stick", 8, 6))
    res = run(_runtime(ctx, store).run_task(task))
    assert res.ok and res.status == "completed"  # the task's goal is done, whatever its follow-ups did
    assert body.inventory["wooden_pickaxe"] == 1
    assert body.inventory["stick"] == 2  # the 2 held: none made; no iron for the sword: the sticks after it wait
    assert store.get_run(follow_up_run_id("t2", 1)) is None


def test_a_follow_up_never_asks_for_more_than_its_own_amount(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    """A table placed meanwhile, ingots crafted, food eaten: what was used up stays used up."""
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 2, "oak_log": 2})
    task = _pickaxe_then("t3", ("craft", "oak_planks", 30, 4))
    assert run(_runtime(ctx, store).run_task(task)).ok
    assert body.inventory["oak_planks"] == 12 - 3 + PLANKS_PER_CRAFT  # one craft, not six
    assert body.inventory["oak_log"] == 1


def test_a_follow_up_whose_plan_now_hunts_is_not_started(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 2, "furnace": 1, "coal": 4})
    task = _pickaxe_then("t4", ("smelt", "cooked_beef", 2, 2), ("craft", "wooden_sword", 1, 1))
    assert run(_runtime(ctx, store).run_task(task)).ok
    assert body.inventory["wooden_pickaxe"] == 1 and not body.inventory.get("wooden_sword")
    assert store.get_run(follow_up_run_id("t4", 1)) is None  # no beef held: its plan would hunt, never run


def test_a_follow_up_the_chain_chose_as_a_hunt_hunts_for_what_it_needs(
    ftime: FakeTime, store: SqliteCheckpointStore
) -> None:
    """On the surface, with its animal in sight, the chain marks a follow-up whose plan hunts
    (agency.cognition.follow_ups): the runner lets that one hunt (unmarked, it is not started:
    test_a_follow_up_whose_plan_now_hunts_is_not_started)."""
    body = HuntBody(ftime.clock, {"oak_planks": 12, "crafting_table": 1, "stick": 2})
    body.mobs += [Mob("sheep", hostile=False, x=4.5 + i, z=0.5) for i in range(3)]
    hctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    task = _pickaxe_then("t4h", FollowUpSpec("craft", "white_bed", 1, 1, hunts=True))
    assert run(_runtime(hctx, store).run_task(task)).ok
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["white_bed"] == 1
    assert not [m for m in body.mobs if m.name == "sheep"]  # three sheep for three wool
    assert store.get_run(follow_up_run_id("t4h", 1)).status == "completed"


def test_a_follow_up_marked_as_a_hunt_is_not_started_underground(ftime: FakeTime, store: SqliteCheckpointStore) -> None:
    body = HuntBody(ftime.clock, {"oak_planks": 12, "crafting_table": 1, "stick": 2})
    body.mobs += [Mob("sheep", hostile=False, x=4.5 + i, z=0.5) for i in range(3)]
    seen = body.snapshot
    body.snapshot = lambda: seen().model_copy(update={"cover": 6})  # type: ignore[method-assign]
    hctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    task = _pickaxe_then("t4u", FollowUpSpec("craft", "white_bed", 1, 1, hunts=True))
    assert run(_runtime(hctx, store).run_task(task)).ok
    assert body.inventory["wooden_pickaxe"] == 1 and not body.inventory.get("white_bed")
    assert len([m for m in body.mobs if m.name == "sheep"]) == 3
    assert store.get_run(follow_up_run_id("t4u", 1)) is None


def test_under_cover_at_night_a_follow_up_collect_waits_for_the_morning(
    ftime: FakeTime, store: SqliteCheckpointStore
) -> None:
    """Dug in under the hut, a task given back for its craft carries a collect of logs: one at
    the bot's level may lie through the side of a hill, out in the dark."""
    body = CoveredNightBody(ftime.clock, inventory={"oak_planks": 12, "crafting_table": 1, "stick": 2})
    body.blocks[(3, GROUND_Y, 0)] = "oak_log"  # at the bot's level
    nctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    task = _pickaxe_then("t4n", ("collect", "log", 8, 8), ("craft", "stick", 6, 4))
    assert run(_runtime(nctx, store).run_task(task)).ok
    assert body.inventory["wooden_pickaxe"] == 1 and body.block(3, GROUND_Y, 0) == "oak_log"
    assert store.get_run(follow_up_run_id("t4n", 1)) is None
    assert not body.inventory.get("stick")  # the chain ended at the collect: no sticks after it


def test_a_drive_ticks_smelt_whose_plan_now_hunts_is_refused_underground_not_climbed_out_for(
    ftime: FakeTime, store: SqliteCheckpointStore
) -> None:
    """Bench bots' smelts of pork, claimed 18-34 blocks down with the meat eaten, climbed out
    for 90-190 s and hunted five minutes for nothing (three wedges)."""
    held = {"furnace": 1, "coal": 4, "crafting_table": 1}
    body = HuntBody(ftime.clock, dict(held))
    body.mobs += [Mob("pig", hostile=False, x=4.5, z=0.5)]
    seen = body.snapshot
    body.snapshot = lambda: seen().model_copy(update={"cover": 6})  # type: ignore[method-assign]
    hctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    rt = _runtime(hctx, store)
    smelt = TaskSpec(action="smelt", target="cooked_porkchop", id="s1", drive=True)
    res = run(rt.run_task(smelt))
    assert res.status == "failed" and res.errors[0].code == WAITS_FOR_SURFACE
    assert res.errors[0].message == (
        "its plan hunts (pig) and the bot is underground: a drive tick's hunt is for the surface"
    )
    assert [m.name for m in body.mobs] == ["pig"]  # nothing hunted
    steps = run(rt.workflow_for(rt.choose_agent(smelt), smelt)).steps
    assert run(rt._hunts_underground(smelt, steps)).startswith("its plan hunts (pig)")
    players = TaskSpec(action="smelt", target="cooked_porkchop", id="s3")
    assert run(rt._hunts_underground(players, steps)) is None  # a player's goal: done as asked, climb and all
    wf = run(rt.workflow_for(rt.choose_agent(smelt), smelt))
    store.start_run("s1r", wf, "standard", "s1r", {})
    assert "pig" in run(rt._hunts_underground(smelt, rt._steps_left(store.get_run("s1r"))))  # not begun
    hunt = next(s for s in wf.steps if s.tool == "hunt")
    store.save(
        Checkpoint(
            runId="s1r",
            workflowId=wf.id,
            stepIndex=wf.steps.index(hunt),
            completedStepId=hunt.id,
            stepOutputs={hunt.id: {}},
            context={},
            memorySnapshot={},
            createdAt=0,
        ),
        wf,
    )
    left = rt._steps_left(store.get_run("s1r"))  # resumed past its hunt: the rest is done down here
    assert hunt not in left and run(rt._hunts_underground(smelt, left)) is None
    body.inventory["porkchop"] = 1  # the meat held: nothing to hunt, smelted where it is
    assert run(rt._hunts_underground(smelt, steps)) is None  # a hunt step of a run resumed: done already
    assert run(rt._hunts_underground(smelt, run(rt.workflow_for(rt.choose_agent(smelt), smelt)).steps)) is None


def test_a_follow_up_that_hunts_waits_for_the_surface_and_the_day(make_snapshot) -> None:
    assert no_hunt_here(make_snapshot()) is None
    assert "underground" in no_hunt_here(make_snapshot(cover=6))
    assert "dusk" in no_hunt_here(make_snapshot(timeOfDay=12_500))
    assert no_hunt_here(make_snapshot(cover=2)) is None  # a tree's or a hut's roof


def test_a_stop_before_the_follow_ups_leaves_them_and_the_goal_done(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    stop = StopFlag()
    stop.set("a hostile near")
    res = run(_runtime(ctx, store).run_task(_pickaxe_then("t5", ("craft", "wooden_sword", 1, 1)), stop=stop))
    assert res.status == "stopped" and not body.inventory.get("wooden_pickaxe")  # stopped in its goal: not done
    go_on = StopFlag()
    assert run(_runtime(ctx, store).run_task(_pickaxe_then("t6", ("craft", "wooden_sword", 1, 1)), stop=go_on)).ok
    assert body.inventory["wooden_sword"] == 1


def test_resumed_after_its_goal_ran_a_task_goes_on_with_its_follow_ups_without_making_its_goal_again(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    rt = _runtime(ctx, store)
    task = _pickaxe_then("t7", ("craft", "stick", 10, 8), ("craft", "wooden_sword", 1, 1))
    waiting = iter([False, True])  # the first follow-up, then other work queued: the sword waits
    assert run(rt.run_task(task, waiting=lambda: next(waiting))).ok
    assert body.inventory["stick"] == 10 and not body.inventory.get("wooden_sword")
    body.inventory["stick"] = 0  # used up meanwhile: the done follow-up is not made again
    assert run(rt.run_task(task)).ok  # resumed (a pause, a restart)
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["wooden_sword"] == 1
    assert body.inventory["stick"] == STICKS_PER_CRAFT - 1  # the sword's sticks only


def test_follow_ups_give_way_to_work_waiting_in_the_queue(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 12, "crafting_table": 1, "stick": 4})
    task = _pickaxe_then("t8", ("craft", "stick", 6, 4), ("craft", "wooden_sword", 1, 1))
    queued = []

    def waiting() -> bool:
        if body.inventory.get("stick", 0) >= 6:
            queued.append("build basic_shelter")  # the next tick's shelter, queued while the sticks were made
        return bool(queued)

    rt = _runtime(ctx, store)
    assert run(rt.run_task(task, waiting=waiting)).ok
    assert body.inventory["stick"] == 6 and not body.inventory.get("wooden_sword")
    # the sword is handed back to be queued behind the shelter (FollowUpWatch.queue_after)
    assert rt.given_way == {"t8": (FollowUpSpec("craft", "wooden_sword", 1, 1),)}


def test_a_then_parameter_that_is_no_follow_up_is_left_out():
    raw = [
        {"action": "craft", "target": "torch", "total": 16, "amount": 16},
        {"action": "hunt", "target": "sheep", "total": 1, "amount": 1},
        {"action": "craft", "target": "", "total": 1, "amount": 1},
        {"action": "craft", "target": "stick", "total": "4", "amount": 4},
        {"action": "craft", "target": "stick", "total": 4},
        "craft torch",
    ]
    assert parse_then(raw) == (("craft", "torch", 16, 16, False),)
    assert parse_then(None) == () and parse_then({"action": "craft"}) == ()
    # a chain to queue as a task may lead with the food stock's hunt (its own goal), no later one
    hunt = {"action": "hunt", "target": "animal", "total": 2, "amount": 2, "hunts": True}
    assert parse_then([hunt, *raw], lead=True) == (("hunt", "animal", 2, 2, True), ("craft", "torch", 16, 16, False))
    assert parse_then([hunt, *raw]) == (("craft", "torch", 16, 16, False),)


def test_no_follow_up_starts_hungry_with_nothing_to_eat_held_as_no_tick_would_fire(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.inventory.update({"oak_planks": 20, "crafting_table": 1, "stick": 8})
    body.food = 15  # under DRIVE-1's 16
    assert run(_runtime(ctx, store).run_task(_pickaxe_then("t9", ("craft", "wooden_sword", 1, 1)))).ok
    assert body.inventory["wooden_pickaxe"] == 1 and not body.inventory.get("wooden_sword")  # the goal only
    body.inventory["rotten_flesh"] = 3  # no food for the way down
    assert run(_runtime(ctx, store).run_task(_pickaxe_then("t11", ("craft", "wooden_sword", 1, 1)))).ok
    assert not body.inventory.get("wooden_sword")
    body.inventory["bread"] = 1  # something that feeds held: the eat reflex answers the hunger
    assert run(_runtime(ctx, store).run_task(_pickaxe_then("t10", ("craft", "wooden_sword", 1, 1)))).ok
    assert body.inventory["wooden_sword"] == 1


def test_a_drive_ticks_goal_hunts_with_one_look_elsewhere_and_a_players_with_all(
    ftime: FakeTime, store: SqliteCheckpointStore
) -> None:
    """A bench bed asked for a sheep in sight explored four times for its third wool and did
    nothing else for six minutes: the drive tick's next goal takes over after one look."""
    body = HuntBody(ftime.clock, {"white_wool": 2, "oak_planks": 3})
    rt = _runtime(ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1), store)

    def explores(task: TaskSpec) -> list[int]:
        steps = run(rt.workflow_for(rt.choose_agent(task), task)).steps
        return [s.args["explore_attempts"] for s in steps if s.tool == "hunt"]

    assert explores(TaskSpec(action="craft", target="white_bed", id="b1", drive=True)) == [DRIVE_HUNT_EXPLORES]
    assert explores(TaskSpec(action="craft", target="white_bed", id="b2")) == [HUNT_EXPLORES]
    assert DRIVE_HUNT_EXPLORES < HUNT_EXPLORES
    # the food stock's plain hunt (a static workflow) too
    assert explores(TaskSpec(action="hunt", target="animal", amount=2, id="h1", drive=True)) == [DRIVE_HUNT_EXPLORES]
    assert explores(TaskSpec(action="hunt", target="animal", amount=2, id="h2"))[0] > DRIVE_HUNT_EXPLORES


def test_a_drive_ticks_follow_up_hunts_with_one_look_elsewhere_too(
    ftime: FakeTime, store: SqliteCheckpointStore
) -> None:
    body = HuntBody(ftime.clock, {"oak_planks": 12, "crafting_table": 1, "stick": 2})
    body.mobs += [Mob("sheep", hostile=False, x=4.5 + i, z=0.5) for i in range(3)]
    hctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    task = _pickaxe_then("t5h", FollowUpSpec("craft", "white_bed", 1, 1, hunts=True)).model_copy(update={"drive": True})
    assert run(_runtime(hctx, store).run_task(task)).ok
    hunts = [s for s in store.get_run(follow_up_run_id("t5h", 1)).workflow.steps if s.tool == "hunt"]
    assert [s.args["explore_attempts"] for s in hunts] == [DRIVE_HUNT_EXPLORES]


def test_a_follow_up_not_started_says_the_health_as_it_is(ftime: FakeTime) -> None:
    """Armour's fractions leave a health just under DRIVE-1's 16: said as 15.73, never rounded up
    to the gate it is under."""
    snap = FakeBody(ftime.clock).snapshot().model_copy(update={"health": 15.733333587646484, "food": 17})
    assert unfit_to_go_on(snap) == "health 15.73, food 17, nothing that feeds held"
    assert unfit_to_go_on(snap.model_copy(update={"health": 16.0})) is None
