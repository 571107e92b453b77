"""AgentRuntime: how a task {action, target, amount} becomes a workflow run.

1. A run already stored for the task id (and not completed) is resumed with the workflow
   definition and agent it started with, from its last checkpoint (a new process works).
2. Otherwise agents are ranked by select_agents; the best-ranked one that owns a workflow
   for the action runs it (`standard` when none does).
3. The workflow is the profile's static steps (templated with ${task.*}) or built by its
   generator from the task, the current inventory and what it is told of the world
   (generators.WORLD_FACTS, then the daemon's plan_facts).
Delegation steps come back here: the target agent runs its own workflow for the delegated
task, with the chain extended (depth and cycles already checked by the step). A resumed
parent resumes its child's stored run; if that fails on a precondition, the child is
planned once more from the current inventory.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from loguru import logger

from agency.execution.agents.abilities import InjectionResult, inject_abilities
from agency.execution.agents.follow_up_runs import HUNT_TOOL, is_follow_up_run, run_follow_ups
from agency.execution.agents.generators import GENERATORS, WORLD_FACTS
from agency.execution.agents.plan_gathering import drive_hunts
from agency.execution.agents.planning import WorkflowPlanError
from agency.execution.agents.profile import AgentProfile
from agency.execution.agents.registry import STANDARD_AGENT, AgentRegistry
from agency.execution.agents.selection import AgentSelection, select_agents
from agency.execution.agents.stock_meat import stock_in_sight
from agency.execution.agents.task_spec import FollowUpSpec, TaskSpec as TaskSpec
from agency.execution.workflows.checkpoints import CheckpointStore, RunRecord
from agency.execution.workflows.delegation import DelegationChain
from agency.execution.workflows.engine import StepEvent, WorkflowEngine
from agency.execution.workflows.models import StepDef, StepError, WorkflowDef, WorkflowRunResult
from agency.execution.workflows.prompts import PromptRunner
from agency.execution.workflows.steps import DelegationRequest, StepExecutor
from agency.game.recipes import available
from agency.goal_tag import MAKE_ACTIONS
from agency.tools.base import StopFlag, ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.results import BODY_LOST, PRECONDITION_FAILED, WAITS_FOR_SURFACE
from agency.world import BodyLost, underground

NO_WORKFLOW = "NO_WORKFLOW"
HUNTING_PLANS = MAKE_ACTIONS  # goals whose plan may hunt for what it lacks
# Plans a failed step's task is planned again with (the executor's replan, for what is still
# short); a goal-bound build gets a fresh build plan instead (agency.execution.replans), and
# deliveries are the fleet's.
REPLANNED_GENERATORS = frozenset({"craft_plan", "smelt_plan", "gather_plan"})
AGENT_UNAVAILABLE = "AGENT_UNAVAILABLE"
# The planner itself failed (a bug: a plan that never gets its materials): the task fails with
# the reason, logged with its trace, and the executor's job goes on (a bench bot's job failed on
# such a torch plan twice in a row).
PLAN_FAILED = "PLAN_FAILED"


@dataclass
class RunHandle:
    """A running task: ask it to stop, then await where it stopped (result().stop)."""

    task: asyncio.Task[WorkflowRunResult]
    stop_flag: StopFlag

    def stop(self, reason: str = "stop requested") -> None:
        self.stop_flag.set(reason)

    async def result(self) -> WorkflowRunResult:
        return await self.task


class AgentRuntime:
    def __init__(
        self,
        agents: AgentRegistry,
        tools: ToolRegistry,
        tool_context: ToolContext,
        *,
        checkpoints: CheckpointStore | None = None,
        prompt_runner: PromptRunner | None = None,
        stop_grace_s: float = 5.0,
        plan_facts: Callable[[TaskSpec], dict[str, Any] | Awaitable[dict[str, Any]]] | None = None,
        on_step: Callable[[StepEvent], None] | None = None,
    ) -> None:
        self.agents = agents
        # What a generator may know beyond task and inventory (e.g. the blocks still
        # missing at an anchored build site); handed to it as task["facts"].
        self.plan_facts = plan_facts
        self.tools = tools
        self.checkpoints = checkpoints
        executor = StepExecutor(
            tools, tool_context, prompt_runner=prompt_runner, inject=self.inject, delegate=self.delegate
        )
        # on_step hears the steps of task runs (delegated child runs have no task id).
        self.engine = WorkflowEngine(executor, checkpoints, stop_grace_s=stop_grace_s, on_step=on_step)
        self.tool_context = tool_context
        self.follow_up_goals: dict[str, tuple[str, str]] = {}  # task id -> the follow-up in flight (run_follow_ups)
        # task id -> its follow-ups left when they gave way to queued work (run_follow_ups), for
        # the executor to queue behind that work once the task completes (FollowUpWatch.queue_after)
        self.given_way: dict[str, tuple[FollowUpSpec, ...]] = {}

    # ---- choosing ----------------------------------------------------------------------
    def select(self, task: TaskSpec) -> list[AgentSelection]:
        return select_agents(task.text(), self.agents.list(), {"action": task.action.lower()})

    def plans_afresh(self, task: TaskSpec) -> bool:
        """Is the task's workflow a plan made from what the bot holds (a craft, smelt or
        gather plan), so planning it again after a failed step routes around what failed?"""
        spec = self.choose_agent(task).workflows.get(task.action.lower())
        return spec is not None and spec.generator in REPLANNED_GENERATORS

    def untouched(self, task: TaskSpec) -> bool:
        """The task's stored run, a plan made from what the bot holds, has done none of its
        steps yet (none has a checkpointed output): planned again, it loses nothing."""
        if not task.id or self.checkpoints is None or not self.plans_afresh(task):
            return False
        rec = self.checkpoints.latest_run_for_task(task.id)
        if rec is None or rec.status == "completed" or is_follow_up_run(rec.runId):
            return False
        return len(self._steps_left(rec)) == len(rec.workflow.steps)

    def in_follow_ups(self, task_id: str) -> bool:
        """Is the task's goal done and its latest run one of its follow-ups (or done)?"""
        rec = self.checkpoints.latest_run_for_task(task_id) if self.checkpoints is not None else None
        return rec is not None and (rec.status == "completed" or is_follow_up_run(rec.runId))

    def choose_agent(self, task: TaskSpec) -> AgentProfile:
        """The best-ranked agent owning a workflow for the action; else any owner (one a
        notForTasks phrase scored down to 0 is still the one that can do it), so an action
        in routable_actions() is always planned; else `standard`."""
        for sel in self.select(task):
            profile = self.agents.require(sel.agentId)
            if profile.owns(task.action):
                return profile
        owners = self.agents.owners(task.action)
        return owners[0] if owners else self.agents.ensure_standard()

    async def workflow_for(self, profile: AgentProfile, task: TaskSpec) -> WorkflowDef:
        spec = profile.workflows.get(task.action.lower())
        if spec is None:
            raise WorkflowPlanError(NO_WORKFLOW, f"agent '{profile.id}' has no workflow for '{task.action}'")
        if spec.generator:
            inventory: dict[str, int] = {}
            for it in (await self.tool_context.snapshot()).inventory:
                inventory[it.name] = inventory.get(it.name, 0) + it.count
            context = task.as_context()
            facts: dict[str, Any] = {}
            if (read := WORLD_FACTS.get(spec.generator)) is not None:
                facts.update(await read(self.tool_context))
            if self.plan_facts is not None:
                told = self.plan_facts(task)
                facts.update((await told if inspect.isawaitable(told) else told) or {})
            context["facts"] = facts
            workflow = GENERATORS[spec.generator](profile.id, context, inventory)
        else:
            workflow = spec.static(f"{profile.id}-{task.action.lower()}")
        return drive_hunts(workflow) if task.drive else workflow

    # ---- running -----------------------------------------------------------------------
    async def run_task(
        self,
        task: TaskSpec,
        *,
        stop: StopFlag | None = None,
        agent_id: str | None = None,
        fresh: bool = False,
        replan: bool = False,
        waiting: Callable[[], bool] | None = None,
    ) -> WorkflowRunResult:
        """fresh=True never resumes the task's stored run (e.g. a rescan found its
        checkpointed work gone from the world): a new run of a newly planned workflow.
        replan=True (fresh too) plans the task again after a failed step, for what is still
        short of the goal its stored run was planned for (`_still_short`). `waiting`: is other
        work queued for the bot? Then a drive tick's follow-ups give way to it."""
        stop = stop or StopFlag()
        self.given_way.pop(task.id or "", None)
        result = await self._run_goal(task, stop, agent_id=agent_id, fresh=fresh, replan=replan)
        if result.status != "completed" or not task.then:
            return result
        if left := await run_follow_ups(self, task, stop, waiting or (lambda: False)):
            self.given_way[task.id or ""] = left
        return result

    async def _run_goal(
        self, task: TaskSpec, stop: StopFlag, *, agent_id: str | None, fresh: bool, replan: bool
    ) -> WorkflowRunResult:
        earlier = None
        if replan and task.id and self.checkpoints is not None:
            rec = self.checkpoints.latest_run_for_task(task.id)
            earlier = rec.workflow if rec is not None else None
            fresh = True
        if task.id and self.checkpoints is not None and not fresh:
            rec = self.checkpoints.latest_run_for_task(task.id)
            if rec is not None and task.then and (rec.status == "completed" or is_follow_up_run(rec.runId)):
                # paused or restarted in its follow-ups: the goal is done, they go on (run_follow_ups)
                return WorkflowRunResult(
                    runId=rec.runId, workflowId=rec.workflow.id, agentId=rec.agentId, status="completed"
                )
            if rec is not None and rec.status != "completed":  # resume, same steps, same agent
                if why := await self._hunts_underground(task, self._steps_left(rec)):
                    return _refused(rec.runId, rec.agentId, WAITS_FOR_SURFACE, why)
                return await self.resume_run(rec, task.id, stop)
        task = await stock_in_sight(self.tool_context, task)
        profile = self.agents.require(agent_id) if agent_id else self.choose_agent(task)
        run_id = task.id or f"run-{uuid.uuid4().hex[:12]}"
        if task.id and self.checkpoints is not None and self.checkpoints.latest_run_for_task(task.id) is not None:
            # The task ran to completion before and is back (a re-opened goal's repair): a
            # fresh run, since the old one would resume at its end and do nothing.
            run_id = f"{task.id}~{uuid.uuid4().hex[:8]}"
        workflow = await self._planned(profile, task, run_id, earlier)
        if isinstance(workflow, WorkflowRunResult):
            return workflow
        if why := await self._hunts_underground(task, workflow.steps):
            return _refused(run_id, profile.id, WAITS_FOR_SURFACE, why)
        return await self.run_workflow(profile, workflow, task, run_id, stop)

    async def _planned(
        self, profile: AgentProfile, task: TaskSpec, run_id: str, earlier: WorkflowDef | None = None
    ) -> WorkflowDef | WorkflowRunResult:
        """The task's workflow (cut to what is still short of `earlier`'s goal: _still_short), or
        the run refused when it cannot be planned."""
        try:
            workflow = await self.workflow_for(profile, task)
            if earlier is not None:
                workflow = await self._still_short(profile, task, workflow, earlier)
            return workflow
        except WorkflowPlanError as e:
            return _refused(run_id, profile.id, e.code, str(e))
        except BodyLost as e:  # planning reads the inventory: no body, no plan, no fault of the task
            return _refused(run_id, profile.id, BODY_LOST, str(e))
        except Exception as e:  # noqa: BLE001 - PLAN_FAILED: the task fails, not the executor's job
            logger.exception("[Executor] task={} {}: planning failed: {!r}", task.id, task.text(), e)
            return _refused(run_id, profile.id, PLAN_FAILED, f"planning {task.text()} failed: {e!r}")

    async def _hunts_underground(self, task: TaskSpec, steps: list[StepDef]) -> str | None:
        """Why a drive tick's craft or smelt waits for the surface now (its task held until the
        bot is up: WAITS_FOR_SURFACE), or None: underground, the steps it is about to run hunt
        (the raw meat it was to cook eaten meanwhile, a bed's wool). The animals graze on the
        surface: bench bots' smelts of pork and chicken, claimed 18-34 blocks down in their
        mines, spent 90-190 s climbing out and five minutes hunting, and failed (three wedges)."""
        if not task.drive or task.action not in HUNTING_PLANS:
            return None
        hunts = [s for s in steps if s.tool == HUNT_TOOL]
        if not hunts:
            return None
        try:
            snap = await self.tool_context.snapshot()
        except BodyLost:
            return None  # the run reads the body again and reports it
        held = snap.held()
        # a hunt whose drop is held by now does nothing (agency.tools.hunting: `enough`)
        hunted = sorted({str(s.args.get("target")) for s in hunts if not _hunt_done(s, held)})
        if not hunted or not underground(snap):
            return None
        return (
            f"its plan hunts ({', '.join(hunted)}) and the bot is underground: a drive tick's hunt is for the surface"
        )

    def _steps_left(self, rec: RunRecord) -> list[StepDef]:
        """The steps a resumed run has still to run (those its checkpoints have no output for)."""
        done = self.checkpoints.latest(rec.runId) if self.checkpoints is not None else None
        return [s for s in rec.workflow.steps if done is None or s.id not in done.stepOutputs]

    async def run_workflow(
        self, profile: AgentProfile, workflow: WorkflowDef, task: TaskSpec, run_id: str, stop: StopFlag
    ) -> WorkflowRunResult:
        """A new run of `workflow` by `profile` for `task` (its steps are the task's events)."""
        return await self.engine.run(
            workflow,
            run_id=run_id,
            agent_id=profile.id,
            task=task.as_context(),
            task_id=task.id,
            chain=DelegationChain((profile.id,), profile.maxDelegationDepth),
            stop=stop,
        )

    async def resume_run(self, rec: RunRecord, task_id: str | None, stop: StopFlag) -> WorkflowRunResult:
        """A stored run on from its last checkpoint: same steps, same agent."""
        return await self.engine.run(
            rec.workflow,
            run_id=rec.runId,
            agent_id=rec.agentId,
            task=rec.context.get("task"),
            task_id=task_id,
            chain=DelegationChain((rec.agentId,), self.agents.require(rec.agentId).maxDelegationDepth),
            stop=stop,
        )

    async def _still_short(
        self, profile: AgentProfile, task: TaskSpec, workflow: WorkflowDef, earlier: WorkflowDef
    ) -> WorkflowDef:
        """A plan asks for `amount` more of its item than is held when it is made (its last
        step holds the total: count with ensure). Planned again after a failed step, what the
        earlier runs got counts: the amount is cut by what the total grew by since the earlier
        plan, so a collect of 8 that got 4 asks for 4 more, not 8."""
        now, before = _goal_total(workflow), _goal_total(earlier)
        if now is None or before is None or now[0] != before[0] or now[1] <= before[1]:
            return workflow
        short = max(1, task.amount - (now[1] - before[1]))
        logger.info(
            "[Executor] task={} planned again for {} more {} (the earlier runs got {})",
            task.id,
            short,
            now[0],
            now[1] - before[1],
        )
        return await self.workflow_for(profile, task.model_copy(update={"amount": short}))

    def start_task(self, task: TaskSpec, **kw: Any) -> RunHandle:
        flag = StopFlag()
        return RunHandle(asyncio.ensure_future(self.run_task(task, stop=flag, **kw)), flag)

    async def delegate(self, req: DelegationRequest) -> WorkflowRunResult:
        run_id = f"{req.parent_run_id}/{req.step_id}"
        profile = self.agents.get(req.target)
        if profile is None or not profile.enabled:
            return _refused(
                run_id, req.target, AGENT_UNAVAILABLE, f"agent '{req.target}' is not registered or disabled"
            )
        task = TaskSpec(
            action=str(req.task.get("action", "")) or "noop",
            target=str(req.task.get("target", "")),
            amount=int(req.task.get("amount") or 1),
            ensure=bool(req.task.get("ensure")),
        )
        replan_id = f"{run_id}~replan"  # the child planned afresh once: a later resume finds it first
        stored = None
        if self.checkpoints is not None:
            stored = self.checkpoints.get_run(replan_id) or self.checkpoints.get_run(run_id)
        if stored is not None and stored.agentId == profile.id:
            # A resumed parent resumes its child with the steps the child started with: a
            # generator re-run now would plan from today's inventory (fewer logs to gather).
            resumed = await self.engine.run(
                stored.workflow,
                run_id=stored.runId,
                agent_id=profile.id,
                task=stored.context.get("task") or task.as_context(),
                chain=req.chain,
                stop=req.stop,
            )
            if not _no_longer_fits(resumed) or stored.runId == replan_id:
                return resumed  # done, stopped, failed otherwise, or already planned afresh once
            # The child's world is not its checkpoint's (a table placed as a pause cut the
            # step, before its checkpoint): plan it once more from today's inventory, as
            # the executor replans a resumed task (agency/execution/replans.py).
            why = "; ".join(e.message for e in resumed.errors)
            logger.warning("[Delegation] resumed child run={} no longer fits the world ({}); replanning", run_id, why)
            run_id = replan_id
        workflow = await self._planned(profile, task, run_id)
        if isinstance(workflow, WorkflowRunResult):
            return workflow
        return await self.engine.run(
            workflow, run_id=run_id, agent_id=profile.id, task=task.as_context(), chain=req.chain, stop=req.stop
        )

    def inject(self, agent_id: str, task_text: str, base_system: str) -> InjectionResult:
        profile = self.agents.get(agent_id) or self.agents.ensure_standard()
        return inject_abilities(
            self.agents.abilities,
            profile.coreAbilities,
            profile.abilities or None,
            task_text,
            base_system,
            profile.abilityTokenBudget,
        )


def _no_longer_fits(result: WorkflowRunResult) -> bool:
    """A resumed run that failed on a precondition: the world moved on from its checkpoint."""
    return result.status == "failed" and any(e.code == PRECONDITION_FAILED for e in result.errors)


def _goal_total(workflow: WorkflowDef) -> tuple[str, int] | None:
    """(item, total to hold) of a generated plan's last step that holds a total (ensure)."""
    for step in reversed(workflow.steps):
        item = step.args.get("item") or step.args.get("block")
        if step.args.get("ensure") and isinstance(step.args.get("count"), int) and isinstance(item, str):
            return item, step.args["count"]
    return None


def _hunt_done(step: StepDef, held: dict[str, int]) -> bool:
    item, count = step.args.get("until_item"), step.args.get("until_count")
    return isinstance(item, str) and isinstance(count, int) and available(held, item) >= count


def _refused(run_id: str, agent_id: str, code: str, message: str) -> WorkflowRunResult:
    return WorkflowRunResult(
        runId=run_id,
        workflowId="none",
        agentId=agent_id or STANDARD_AGENT,
        status="failed",
        errors=[StepError(code=code, message=message)],
    )
