"""WorkflowEngine: runs a workflow's steps, checkpoints after each successful step,
resumes after the last checkpoint, stops safely, and applies the failure strategy.

Sequential workflows iterate the step array (docs/contracts.md WORKFLOW-1). Workflows with `parallel` run
as a DAG: a step starts when its own dependencies completed, at most maxConcurrency at a
time, cycles rejected before anything runs (PARALLEL-1, PARALLEL-2); failFast / continueOnError /
rollback decide what a failure does (PARALLEL-3).

An optional on_step observer hears each step of a task's run start and end (the task's
event log, agency/planning/tasks/events.py); it watches and never steers: an observer that raises
is logged and the run goes on.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loguru import logger

from agency.clock import Clock
from agency.execution.workflows.checkpoints import Checkpoint, CheckpointStore
from agency.execution.workflows.dag import WorkflowCycleError, validate_dag
from agency.execution.workflows.delegation import DelegationChain
from agency.execution.workflows.models import (
    StepDef,
    StepError,
    StepOutcome,
    StopReport,
    WorkflowDef,
    WorkflowRunResult,
)
from agency.execution.workflows.steps import RunState, StepExecutor
from agency.planning.tasks.events import STEP_FAILED, STEP_FINISHED, STEP_STARTED
from agency.tools.base import StopFlag

WORKFLOW_CYCLE = "WORKFLOW_CYCLE"
RESUME_MISMATCH = "RESUME_MISMATCH"
STOP_GRACE_EXCEEDED = "STOP_GRACE_EXCEEDED"


@dataclass(frozen=True)
class StepEvent:
    """A step of a task's run started (step_started) or ended (step_finished, step_failed)."""

    kind: str
    run_id: str
    task_id: str
    step_id: str
    index: int  # the step's place in the workflow's step list
    total: int  # steps in the workflow
    error_code: str | None = None  # step_failed only
    error_message: str | None = None


class WorkflowEngine:
    def __init__(
        self,
        executor: StepExecutor,
        checkpoints: CheckpointStore | None = None,
        *,
        stop_grace_s: float = 5.0,
        on_step: Callable[[StepEvent], None] | None = None,
    ) -> None:
        self.executor = executor
        self.checkpoints = checkpoints
        self.stop_grace_s = stop_grace_s  # how long a stopped step may take to wind down
        self.on_step = on_step

    @property
    def clock(self) -> Clock:
        return self.executor.tool_context.clock

    async def run(
        self,
        workflow: WorkflowDef,
        *,
        run_id: str,
        agent_id: str,
        task: dict[str, Any] | None = None,
        task_id: str | None = None,
        chain: DelegationChain | None = None,
        stop: StopFlag | None = None,
        memory: dict[str, Any] | None = None,
    ) -> WorkflowRunResult:
        base = WorkflowRunResult(runId=run_id, workflowId=workflow.id, agentId=agent_id, status="failed")
        if workflow.parallel is not None:
            try:
                validate_dag(workflow)
            except WorkflowCycleError as e:
                return base.model_copy(update={"errors": [StepError(code=WORKFLOW_CYCLE, message=str(e))]})
        chain = chain or DelegationChain((agent_id,))
        context = {"task": task or {}, "agentId": agent_id, "chain": list(chain.agents), "compensations": {}}
        state = RunState(
            run_id, workflow, agent_id, chain, context, memory if memory is not None else {}, stop or StopFlag()
        )
        cp: Checkpoint | None = None
        if self.checkpoints is not None:
            rec = self.checkpoints.start_run(run_id, workflow, agent_id, task_id, context)
            if rec.workflow != workflow:
                msg = f"run '{run_id}' was started with a different definition of '{workflow.id}'"
                return base.model_copy(update={"errors": [StepError(code=RESUME_MISMATCH, message=msg)]})
            cp = self.checkpoints.latest(run_id)
            self.checkpoints.set_run_status(run_id, "running")
        run = _Run(self, state, cp, task_id)
        result = await run.go()
        if self.checkpoints is not None:
            self.checkpoints.set_run_status(run_id, result.status)
        return result


class _Run:
    """One execution of one workflow (mutable bookkeeping kept out of the engine)."""

    def __init__(self, engine: WorkflowEngine, state: RunState, cp: Checkpoint | None, task_id: str | None) -> None:
        self.e = engine
        self.s = state
        self.task_id = task_id  # None for a delegated child run: its steps belong to no task's log
        self.observer_warned = False
        self.wf = state.workflow
        self.cp = cp
        self.outcomes: list[StepOutcome] = []
        self.errors: list[StepError] = []
        self.order: list[str] = []  # completed step ids, completion order (restored first)
        self.last_index = -1
        self.running: dict[asyncio.Task[tuple[StepOutcome, Any]], StepDef] = {}
        self.interrupted: str | None = None
        self.in_flight_at_stop = 0
        if cp is not None:  # CHECKPOINT-2: restore, never recompute
            state.outputs.update(copy.deepcopy(cp.stepOutputs))
            state.context.update(copy.deepcopy(cp.context))
            state.memory.clear()
            state.memory.update(copy.deepcopy(cp.memorySnapshot))
            self.last_index = cp.stepIndex
            for sid, out in cp.stepOutputs.items():
                self.order.append(sid)
                self.outcomes.append(StepOutcome(stepId=sid, status="restored", output=out))

    # ---- shared pieces ---------------------------------------------------------------
    def notify(self, kind: str, step_id: str, error: StepError | None = None) -> None:
        if self.e.on_step is None or self.task_id is None:
            return
        event = StepEvent(
            kind,
            self.s.run_id,
            self.task_id,
            step_id,
            self.wf.index_of(step_id),
            len(self.wf.steps),
            error.code if error else None,
            error.message if error else None,
        )
        try:
            self.e.on_step(event)
        except Exception as e:  # noqa: BLE001 - a watcher's fault must not fail the work it watches
            if not self.observer_warned:  # once per run: a broken observer would repeat every step
                self.observer_warned = True
                logger.warning(
                    "run {}: step observer failed on {} of {} ({}: {}); the run goes on",
                    self.s.run_id,
                    kind,
                    step_id,
                    type(e).__name__,
                    e,
                )

    def launch(self, step: StepDef) -> None:
        async def body() -> tuple[StepOutcome, Any]:
            try:
                return await self.e.executor.execute(step, self.s)
            except asyncio.CancelledError:  # our own cancel (failFast, stop grace): an outcome, not a crash
                why = self.s.stop.reason or "cancelled after another step failed"
                return StepOutcome(
                    stepId=step.id, status="cancelled", error=StepError(code="CANCELLED", message=why)
                ), None

        self.notify(STEP_STARTED, step.id)
        self.running[asyncio.ensure_future(body())] = step

    def record_success(self, step: StepDef, outcome: StepOutcome, comp: Any) -> None:
        self.s.outputs[step.id] = outcome.output
        if comp:
            self.s.context["compensations"][step.id] = comp
        self.order.append(step.id)
        self.outcomes.append(outcome)
        index = self.wf.index_of(step.id)
        if self.e.checkpoints is not None:  # CHECKPOINT-1: after a successful step only, validated
            self.e.checkpoints.save(
                Checkpoint(
                    runId=self.s.run_id,
                    workflowId=self.wf.id,
                    stepIndex=index,
                    completedStepId=step.id,
                    stepOutputs=copy.deepcopy(self.s.outputs),
                    context=copy.deepcopy(self.s.context),
                    memorySnapshot=copy.deepcopy(self.s.memory),
                    createdAt=self.e.clock(),
                ),
                self.wf,
            )
        self.last_index = index
        logger.debug("run {} step {} completed (checkpoint at {})", self.s.run_id, step.id, index)
        self.notify(STEP_FINISHED, step.id)

    def record_failure(self, outcome: StepOutcome) -> None:
        self.outcomes.append(outcome)
        self.notify(STEP_FAILED, outcome.stepId, outcome.error)
        if outcome.status == "cancelled" and self.s.stop.is_set():
            self.interrupted = outcome.stepId
        elif outcome.error is not None:
            self.errors.append(outcome.error)

    async def watch_stop(self) -> None:
        """After a stop request, give running steps stop_grace_s (injected clock) to wind
        down through their own poll checks, then cancel them."""
        await self.s.stop.wait()
        self.in_flight_at_stop = len(self.running)  # no step starts after a stop: these are all it costs
        ctx = self.e.executor.tool_context
        deadline = ctx.clock() + int(self.e.stop_grace_s * 1000)
        while self.running and ctx.clock() < deadline:
            await ctx.sleep(ctx.poll_interval_s)
        for t in list(self.running):
            t.cancel()

    async def wait_some(self) -> list[tuple[StepDef, StepOutcome, Any]]:
        done, _ = await asyncio.wait(list(self.running), return_when=asyncio.FIRST_COMPLETED)
        finished = sorted(done, key=lambda t: self.wf.index_of(self.running[t].id))
        out = []
        for t in finished:
            step = self.running.pop(t)
            outcome, comp = t.result()
            out.append((step, outcome, comp))
        return out

    def result(self, status: str, compensated: list[str] | None = None) -> WorkflowRunResult:
        stop = None
        if status == "stopped":
            stop = StopReport(
                stepIndex=self.last_index,
                lastStepId=self.order[-1] if self.order else None,
                atCheckpointBoundary=self.interrupted is None,
                interruptedStepId=self.interrupted,
                reason=self.s.stop.reason or "",
                stepsAfterStop=self.in_flight_at_stop,
            )
        return WorkflowRunResult(
            runId=self.s.run_id,
            workflowId=self.wf.id,
            agentId=self.s.agent_id,
            status=status,
            outputs=dict(self.s.outputs),
            steps=self.outcomes,
            errors=self.errors,
            compensated=compensated or [],
            resumedFrom=self.cp.stepIndex if self.cp else None,
            stop=stop,
        )

    async def go(self) -> WorkflowRunResult:
        watcher = asyncio.ensure_future(self.watch_stop())
        try:
            return await (self.sequential() if self.wf.parallel is None else self.dag())
        finally:
            watcher.cancel()
            for t, step in self.running.items():  # still running as the run ends (a stop past its grace)
                t.cancel()
                self.notify(
                    "step_failed", step.id, StepError(code="CANCELLED", message="the run ended with it running")
                )

    # ---- sequential: array order, one at a time ---------------------------------------
    async def sequential(self) -> WorkflowRunResult:
        for index in range(self.last_index + 1, len(self.wf.steps)):
            step = self.wf.steps[index]
            if self.s.stop.is_set():
                return self.result("stopped")
            self.launch(step)
            ((step, outcome, comp),) = await self.wait_some()
            if outcome.status != "completed":
                self.record_failure(outcome)
                return self.result("stopped" if self.interrupted else "failed")
            self.record_success(step, outcome, comp)
        return self.result("completed")

    # ---- parallel: a DAG with maxConcurrency and a failure strategy ---------------------
    async def dag(self) -> WorkflowRunResult:
        cfg = self.wf.parallel
        assert cfg is not None
        done = set(self.s.outputs)
        failed: set[str] = set()
        skipped: set[str] = set()
        halted = False
        while True:
            if not halted and not self.s.stop.is_set():
                for step in self.wf.steps:
                    sid = step.id
                    if sid in done or sid in failed or sid in skipped or step in self.running.values():
                        continue
                    if any(d in failed or d in skipped for d in step.dependsOn):
                        skipped.add(sid)  # continueOnError: dependents of a failure never run
                        self.outcomes.append(
                            StepOutcome(
                                stepId=sid,
                                status="skipped",
                                error=StepError(code="DEPENDENCY_FAILED", message=f"a dependency of '{sid}' failed"),
                            )
                        )
                        continue
                    if all(d in done for d in step.dependsOn) and len(self.running) < cfg.maxConcurrency:
                        self.launch(step)
            if not self.running:
                break
            for step, outcome, comp in await self.wait_some():
                if outcome.status == "completed":
                    done.add(step.id)
                    self.record_success(step, outcome, comp)
                    continue
                failed.add(step.id)
                self.record_failure(outcome)
                if cfg.strategy != "continueOnError" and not halted and not self.s.stop.is_set():
                    halted = True  # failFast / rollback: stop everything now
                    for t in self.running:
                        t.cancel()
        if self.s.stop.is_set() and not halted:
            return self.result("stopped")
        if not failed and len(done) == len(self.wf.steps):
            return self.result("completed")
        compensated = await self.rollback() if cfg.strategy == "rollback" else []
        return self.result("failed", compensated)

    async def rollback(self) -> list[str]:
        """Compensate completed steps in reverse completion order (when they can be)."""
        compensated = []
        ctx = self.e.executor.context_for(self.s)
        ctx.stop = StopFlag()  # compensation must run even though the run is halting
        for sid in reversed(self.order):
            comp = self.s.context["compensations"].get(sid)
            if not comp:
                continue
            res = await self.e.executor.tools.execute(comp["tool"], comp.get("args", {}), ctx)
            if res.success:
                compensated.append(sid)
                self.outcomes.append(StepOutcome(stepId=sid, status="compensated", output=res.to_json()["output"]))
            else:
                assert res.error is not None
                self.errors.append(StepError(code=res.error.code, message=f"compensating '{sid}': {res.error.message}"))
        return compensated
