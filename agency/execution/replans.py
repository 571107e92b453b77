"""When a failed run earns its task a new plan instead of a failure (agency.execution.executor's
module docstring): a resumed run the world no longer fits is planned afresh once per hold,
and a plan made from what the bot holds (a craft, smelt or gather plan) whose step the world
refused is planned again from what it holds now, at most MAX_STEP_REPLANS times per task; a
goal-bound build's gets a fresh build plan instead. A fresh plan that fails the same step the
same way as the one before it (numbers aside), with no step of it done and no hold between,
ends there: a third run would too. A step that explored for a block and found none (no coal ore
within 32 blocks) has every fresh plan of its task make what that block gives another way where
the game has one (charcoal of logs for a torch's coal: TaskSpec.absent). A drive tick's smelt
whose hunt found no more animals settles for what the meat held makes (TaskSpec.settle): it is
a food stock, not a count."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from loguru import logger

from agency.clock import Clock
from agency.execution.agents.runtime import AgentRuntime
from agency.execution.agents.sources import made_instead
from agency.execution.agents.task_spec import TaskSpec
from agency.execution.runs import Running, task_spec
from agency.execution.workflows.models import WorkflowRunResult
from agency.execution.workflows.steps import DELEGATION_FAILED
from agency.planning.tasks.events import HELD, REPLANNED
from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.store import TaskStore
from agency.tools.gathering import drop_of, none_near
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED, TIMEOUT

if TYPE_CHECKING:
    from agency.execution.runs import GoalHooks

MAX_STEP_REPLANS = 2  # a failed step's task is planned afresh at most this often (module docstring)
REPLAN_CODES = frozenset({EXECUTION_ERROR, PRECONDITION_FAILED, TIMEOUT, DELEGATION_FAILED})  # the world refused

# The steps of a build at its anchored site, the same on every fresh plan (its gathering
# steps are not: a collect looks further each time).
SITE_STEPS = ("site", "prepare", "module-")


def _same(last: dict[str, Any], step: str, why: str) -> bool:
    """The newest replan was for this step failing this way (numbers aside: a walk's distance,
    a search's node count)."""
    return last.get("step") == step and _shape(str(last.get("reason", ""))) == _shape(why)


def _settled(task: Task, failed_step: str) -> TaskSpec:
    """The task's spec, settled (TaskSpec.settle) when it is a drive tick's smelt whose hunt
    failed: the stock of 4 beef of a cow that gave 3, no other cow near, cooks the 3 (the
    commonest failed task of the 5-day benches: "no cow within 32 blocks to hunt" on the replan)."""
    spec = task_spec(task)
    if not (spec.drive and spec.action == "smelt" and failed_step.startswith("hunt-")):
        return spec
    logger.info(
        "[Executor] task={} {}: the hunt found no more; cooking what the meat held makes, if any",
        task.id,
        spec.text(),
    )
    return spec.model_copy(update={"settle": True})


def made_otherwise(reasons: Iterable[str]) -> tuple[str, ...]:
    """The blocks failures (`reasons`) explored for and found none of (collect_block's message)
    whose drop the game makes another way (charcoal for coal ore's coal: made_instead)."""
    found = {b for r in reasons if (b := none_near(r)) is not None}
    return tuple(sorted(b for b in found if made_instead(drop_of(b), {b}) is not None))


def _shape(message: str) -> str:
    return re.sub(r"-?\d[\d,.]*", "#", message)


class Replanner:
    def __init__(
        self,
        tasks: TaskStore,
        runtime: AgentRuntime,
        clock: Clock,
        goals: GoalHooks | None,
        waiting: Callable[[], bool] = lambda: False,
    ) -> None:
        self.tasks = tasks
        self.runtime = runtime
        self.clock = clock
        self.goals = goals
        self.waiting = waiting  # work queued for the bot: a drive tick's follow-ups give way to it
        self._replanned: set[str] = set()  # tasks given their fresh plan since their last hold

    def forget(self, task_id: str) -> None:
        """The task was held (a second death, ...): its next resume earns one fresh plan."""
        self._replanned.discard(task_id)

    def replan(self, run: Running, result: WorkflowRunResult) -> Running | None:
        """The run that replaces a failed one, or None when the task fails on its merits."""
        return self._after_resume(run, result) or self._after_failed_step(run, result)

    def _after_resume(self, run: Running, result: WorkflowRunResult) -> Running | None:
        """A run resumed from a checkpoint can find the world no longer as the checkpoint
        says (a crash lost the last item pickup, a block changed): when it fails on a
        precondition, plan once more from the current state instead of failing the task.
        Once per resume: a fresh plan that fails the same way fails the task, and every hold
        (a second death) gives the next resume its own fresh plan."""
        if result.status != "failed" or result.resumedFrom is None or run.task_id in self._replanned:
            return None
        if not any(e.code == "PRECONDITION_FAILED" for e in result.errors):
            return None
        task = self.tasks.get_task(run.task_id)
        if task is None or task.status is not TaskStatus.active:
            return None
        self._replanned.add(run.task_id)
        why = "; ".join(e.message for e in result.errors)
        logger.warning("[Executor] resumed run of task={} no longer fits the world ({}); replanning", task.id, why)
        step = next((s.stepId for s in reversed(result.steps) if s.status == "failed"), "")
        handle = self.runtime.start_task(self.fresh_spec(task, step), fresh=True, waiting=self.waiting)
        return Running(task.id, handle, self.clock(), run.agent_id, run.bridge_mark, run.goal)

    def fresh_spec(self, task: Task, failed_step: str = "") -> TaskSpec:
        """The spec a fresh plan of the task is made from: settled (_settled), and with the
        blocks its failed steps explored for and found none of, where the game makes what they
        give another way (TaskSpec.absent; the module docstring). Every fresh plan of it: after a
        failed step, a resume, or a comeback with no step done (the executor's)."""
        spec = _settled(task, failed_step)
        absent = made_otherwise(self._replans(task.id)[2])
        return spec.model_copy(update={"absent": absent}) if absent else spec

    def _after_failed_step(self, run: Running, result: WorkflowRunResult) -> Running | None:
        """A plan's step failed on the world (module docstring): plan the task again from
        what the bot holds, unless it was planned afresh MAX_STEP_REPLANS times already."""
        if result.status != "failed" or not any(e.code in REPLAN_CODES for e in result.errors):
            return None
        task = self.tasks.get_task(run.task_id)
        if task is None or task.status is not TaskStatus.active:
            return None
        goal_bound = self.goals is not None and self.goals.owns(task)
        if not goal_bound and not self.runtime.plans_afresh(task_spec(task)):
            return None
        done, last, _ = self._replans(task.id)
        if done >= MAX_STEP_REPLANS:
            return None
        step = next((s.stepId for s in reversed(result.steps) if s.status == "failed"), "")
        why = next(e.message for e in result.errors if e.code in REPLAN_CODES)
        # the fresh plan failed the same step the same way, no step of it done (a build's site
        # steps, the same on every fresh plan, whatever it gathered first): a third run would
        # too (a 1.18.2 bench bot's hunt of a cow that had strolled off explored 80 s in each of
        # three runs)
        progressed = any(o.status == "completed" for o in result.steps)
        site = goal_bound and step.startswith(SITE_STEPS)
        if last is not None and (site or not progressed) and _same(last, step, why):
            logger.warning(
                "[Executor] task={} goalKey={} step {} failed as before its last fresh plan ({}): no further plan",
                task.id,
                task.metadata.goalKey,
                step or "?",
                why,
            )
            return None
        self.tasks.record_event(
            task.id, REPLANNED, {"step": step, "reason": why, "replan": done + 1, "of": MAX_STEP_REPLANS}
        )
        logger.warning(
            "[Executor] task={} goalKey={} step {} failed ({}); planning again from what the bot holds ({} of {})",
            task.id,
            task.metadata.goalKey,
            step or "?",
            why,
            done + 1,
            MAX_STEP_REPLANS,
        )
        spec = self.fresh_spec(task, step)
        for block in made_otherwise([why]):
            drop = drop_of(block)
            logger.info(
                "[Executor] task={} {}: none of {} found near; its fresh plans make {} for its {} instead",
                task.id,
                spec.text(),
                block,
                made_instead(drop, {block}),
                drop,
            )
        # a goal-bound build's plan is made afresh: it brings what is missing now and its
        # modules skip what stands (a bench's first huts failed on one stalled walk or collect)
        handle = self.runtime.start_task(
            spec, waiting=self.waiting, **({"fresh": True} if goal_bound else {"replan": True})
        )
        return Running(task.id, handle, self.clock(), run.agent_id, run.bridge_mark, run.goal)

    def _replans(self, task_id: str) -> tuple[int, dict[str, Any] | None, list[str]]:
        """How often the task was planned afresh after a failed step (its `replanned` events),
        the newest such event's data, and every one's reason."""
        n, after, last, reasons = 0, 0, None, []
        while page := self.tasks.events(task_id, after_seq=after):
            for e in page:
                if e.event == REPLANNED:
                    n, last = n + 1, e.data
                    reasons.append(str(e.data.get("reason", "")))
                elif e.event == HELD:
                    last = None  # held since (a night, a death): the world it failed in is gone
            after = page[-1].seq
        return n, last, reasons
