"""A drive tick's follow-ups in the runtime (agency.cognition.follow_ups chooses them): after
the task's own goal, each goal it carries in `then`, for what is still short of its total.

Each follow-up runs as a run of the task's own (`<task id>~then-<n>`: its steps are the
task's events and its progress, and `${task.id}` in its plan is the task's), planned when it
starts. It is passed over when its total is held, or when its run completed before (a task
paused or restarted in its follow-ups goes on from where they were: the runtime does not make
its goal again, AgentRuntime._run_goal). The chain ends, the rest left to their own ticks,
when a follow-up fails, the run is asked to stop, other work waits in the queue (they fill the
gap before the next tick: those left, the one stopped first, are handed back to be queued as a
task behind that work, agency.execution.follow_up_watch), its plan now hunts (the meat it was
to cook was eaten meanwhile) though the chain did not choose it as a hunt, or it is one
(marked `hunts`: a bed's sheep, a food stock's animal, chosen on the surface with the animal
in sight) and the bot is now underground or the dusk has come, or it is a collect and the bot
is under cover at night (dug in under its hut: logs wait for the morning), or the bot is hurt or hungry
(under DRIVE-1's 16) with nothing that feeds held. It never asks for more than the goal's own
amount: what was used up meanwhile (a table placed, ingots crafted) is not made again."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from loguru import logger

from agency.execution.agents.planning import WorkflowPlanError
from agency.execution.agents.profile import AgentProfile
from agency.execution.agents.task_spec import FollowUpSpec, TaskSpec
from agency.execution.hunger import holds_food
from agency.execution.workflows.checkpoints import CheckpointStore, RunRecord
from agency.execution.workflows.models import StepError, WorkflowDef, WorkflowRunResult
from agency.game.furnace import output_of
from agency.game.recipes import available
from agency.goal_tag import MAKE_ACTIONS
from agency.tools.base import StopFlag, ToolContext
from agency.world import (
    SAFE_FOOD,
    SAFE_HEALTH,
    BodyLost,
    WorldSnapshot,
    night_approaching,
    under_cover_at_night,
    underground,
)


class FollowUpRuntime(Protocol):
    """What of AgentRuntime the follow-ups use (it calls run_follow_ups with itself)."""

    checkpoints: CheckpointStore | None
    tool_context: ToolContext
    follow_up_goals: dict[str, tuple[str, str]]
    given_way: dict[str, tuple[FollowUpSpec, ...]]

    def choose_agent(self, task: TaskSpec) -> AgentProfile: ...

    async def workflow_for(self, profile: AgentProfile, task: TaskSpec) -> WorkflowDef: ...

    async def run_workflow(
        self, profile: AgentProfile, workflow: WorkflowDef, task: TaskSpec, run_id: str, stop: StopFlag
    ) -> WorkflowRunResult: ...

    async def resume_run(self, rec: RunRecord, task_id: str | None, stop: StopFlag) -> WorkflowRunResult: ...


FOLLOW_UP_RUN_ACTIONS = MAKE_ACTIONS | {"collect"}
LEAD_ACTIONS = FOLLOW_UP_RUN_ACTIONS | {"hunt", "explore"}  # a chain's first, queued as its task's own goal
RUN_MARK = "~then-"
HUNT_TOOL = "hunt"
GIVE_WAY = "other work waits in the queue"  # the reason a follow-up in flight is stopped for queued work


def held_of(action: str, target: str, inventory: Mapping[str, int]) -> int:
    """How much of a goal's item the inventory holds: a smelt's output; any log for `log`."""
    item = (output_of(target) or target) if action == "smelt" else target
    return available(inventory, item)


def short_of(total: int, amount: int, held: int) -> int:
    """What a follow-up asks for with `held` of its item: what is missing of its total, never
    more than its own amount (what was used up meanwhile stays used); 0 when the total is held."""
    return 0 if held >= total else min(total - held, amount)


def parse_then(raw: Any, *, lead: bool = False) -> tuple[FollowUpSpec, ...]:
    """A task's `then` parameter as follow-ups; an entry that is not one is left out (a task
    stored by hand or by an older daemon must still run its own goal). `lead`: a chain to be
    queued as a task (agency.execution.after_goal), whose first may be the food stock's hunt
    (agency.cognition.follow_ups.as_first): it becomes the task's own goal, never a follow-up."""
    out: list[FollowUpSpec] = []
    for i, f in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(f, Mapping):
            continue
        action, target, total, amount = f.get("action"), f.get("target"), f.get("total"), f.get("amount")
        allowed = LEAD_ACTIONS if lead and i == 0 else FOLLOW_UP_RUN_ACTIONS
        if action not in allowed or not isinstance(target, str) or not target:
            continue
        if isinstance(total, int) and total > 0 and isinstance(amount, int) and amount > 0:
            out.append(FollowUpSpec(action, target, total, amount, f.get("hunts") is True))
    return tuple(out)


def follow_up_run_id(task_id: str | None, n: int) -> str | None:
    return f"{task_id}{RUN_MARK}{n}" if task_id else None


def is_follow_up_run(run_id: str) -> bool:
    return RUN_MARK in run_id


def follow_up_index(run_id: str) -> int:
    """n of a task's follow-up run `<task id>~then-<n>`; 0 for any other run (its goal's)."""
    tail = run_id.rpartition(RUN_MARK)[2] if is_follow_up_run(run_id) else ""
    return int(tail) if tail.isdigit() else 0


def unfit_to_go_on(snap: WorldSnapshot) -> str | None:
    """Why no follow-up (a later tick's goal) starts now, or None: hurt or hungry under DRIVE-1's
    16 with nothing that feeds held, when no tick would fire and the reflexes forage first (a
    bench bot's follow-up took it down for iron at food 15 with nothing to eat; it starved
    there). Rotten flesh is no food for the way down: eaten, it drains more than it gives."""
    if (snap.health < SAFE_HEALTH or snap.food < SAFE_FOOD) and not holds_food(snap):
        return f"health {snap.health:.4g}, food {snap.food}, nothing that feeds held"
    return None


def night_collect(action: str, snap: WorldSnapshot) -> str | None:
    """Why a follow-up collect does not start now, or None: under cover at night (dug in under
    the hut) its logs wait for the morning, and those at the bot's level may lie through the side
    of a hill, out in the dark."""
    if action == "collect" and under_cover_at_night(snap):
        return "a collect under cover at night waits for the morning"
    return None


async def run_follow_ups(
    rt: FollowUpRuntime, task: TaskSpec, stop: StopFlag, waiting: Callable[[], bool]
) -> tuple[FollowUpSpec, ...]:
    """The task's follow-ups in order (module docstring). Best effort: its goal is done.
    Returns those left when they gave way to work waiting in the queue (the one not started
    or stopped first), to be queued behind it; () when they ended otherwise."""
    for n, (action, target, total, amount, hunting) in enumerate(task.then, 1):
        step = f"{n}/{len(task.then)} {action} {target}"
        if stop.is_set() or waiting():
            why = stop.reason if stop.is_set() else GIVE_WAY
            logger.info("[Executor] task={} follow-up {} not started: {}", task.id, step, why)
            return task.then[n - 1 :] if why == GIVE_WAY else ()
        run_id = follow_up_run_id(task.id, n)
        earlier = rt.checkpoints.get_run(run_id) if run_id and rt.checkpoints is not None else None
        if earlier is not None and earlier.status == "completed":
            continue  # done before a pause or a restart
        snap = await rt.tool_context.snapshot()
        if why := (unfit_to_go_on(snap) or (no_hunt_here(snap) if hunting else None) or night_collect(action, snap)):
            logger.info(
                "[Executor] task={} follow-up {} not started: {}; the rest wait for their ticks", task.id, step, why
            )
            return ()
        held = held_of(action, target, snap.held())
        if not (short := short_of(total, amount, held)):
            logger.info("[Executor] task={} follow-up {}: {} held, nothing to do", task.id, step, held)
            continue
        spec = TaskSpec(action=action, target=target, amount=short, id=task.id, drive=task.drive)
        rt.follow_up_goals[task.id or ""] = (action, target)
        try:
            if earlier is not None:  # stopped part way (a pause): on from its last checkpoint
                logger.info("[Executor] task={} follow-up {} resumed", task.id, step)
                done = await rt.resume_run(earlier, task.id, stop)
            else:
                logger.info(
                    "[Executor] task={} follow-up {} {} (a later tick's goal, done now)", task.id, step, spec.amount
                )
                done = await _run(rt, spec, run_id, stop, hunting=hunting)
        finally:
            rt.follow_up_goals.pop(task.id or "", None)
        if done.status != "completed":
            stopped = done.status == "stopped" and stop.is_set()
            why = stop.reason if stopped else "; ".join(e.message for e in done.errors) or done.status
            gave_way = stopped and why == GIVE_WAY
            logger.info(
                "[Executor] task={} follow-up {} ended {} ({}); {}",
                task.id,
                step,
                done.status,
                why,
                "the rest are queued behind that work" if gave_way else "the rest wait for their ticks",
            )
            return task.then[n - 1 :] if gave_way else ()
    return ()


def no_hunt_here(snap: WorldSnapshot) -> str | None:
    """Why a follow-up that hunts does not start now, or None: the animals graze on the surface
    by day (from the dusk it is the hostiles')."""
    if night_approaching(snap):
        return "its plan hunts, and the dusk has come"
    if underground(snap):
        return "its plan hunts, and the bot is underground"
    return None


async def _run(
    rt: FollowUpRuntime, spec: TaskSpec, run_id: str | None, stop: StopFlag, *, hunting: bool = False
) -> WorkflowRunResult:
    """One follow-up, planned now, as a run of the task's (its steps are the task's events);
    `hunting`: the chain chose it as one whose plan hunts."""
    profile = rt.choose_agent(spec)
    rid = run_id or f"follow-up-{uuid.uuid4().hex[:12]}"
    try:
        workflow = await rt.workflow_for(profile, spec)
    except (WorkflowPlanError, BodyLost) as e:
        return _ended(rid, profile.id, f"not planned: {e}")
    if not hunting and any(s.tool == HUNT_TOOL for s in workflow.steps):
        return _ended(rid, profile.id, "its plan now hunts (what it was to use is gone)")
    return await rt.run_workflow(profile, workflow, spec, rid, stop)


def _ended(run_id: str, agent_id: str, why: str) -> WorkflowRunResult:
    return WorkflowRunResult(
        runId=run_id,
        workflowId="none",
        agentId=agent_id,
        status="failed",
        errors=[StepError(code="FOLLOW_UP", message=why)],
    )
