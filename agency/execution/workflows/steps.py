"""Running one step: a validated tool call, a delegation to another agent, or a prompt for
an LLM with abilities injected first. Every failure comes back as a StepOutcome."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from loguru import logger

from agency.execution.workflows.delegation import DelegationChain
from agency.execution.workflows.models import (
    StepDef,
    StepError,
    StepOutcome,
    StepStatus,
    WorkflowDef,
    WorkflowRunResult,
)
from agency.execution.workflows.prompts import (
    NO_PROMPT_RUNNER,
    PROMPT_FAILED,
    PromptRequest,
    PromptRunner,
    PromptRunnerMissing,
    StubPromptRunner,
)
from agency.execution.workflows.templating import TemplateError, render
from agency.tools.base import StopFlag, ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.results import CANCELLED, thaw

TEMPLATE_ERROR = "TEMPLATE_ERROR"
NO_DELEGATE = "NO_DELEGATE"
DELEGATION_FAILED = "DELEGATION_FAILED"


@dataclass
class RunState:
    run_id: str
    workflow: WorkflowDef
    agent_id: str
    chain: DelegationChain
    context: dict[str, Any]  # holds 'task' and 'compensations'; checkpointed
    memory: dict[str, Any]  # shared tool memory; checkpointed as memorySnapshot
    stop: StopFlag
    outputs: dict[str, Any] = field(default_factory=dict)

    def scope(self) -> dict[str, Any]:
        return {
            "task": self.context.get("task", {}),
            "context": self.context,
            "memory": self.memory,
            "steps": self.outputs,
        }

    def task_text(self) -> str:
        t = self.context.get("task", {})
        return " ".join(str(t[k]) for k in ("action", "target", "amount") if t.get(k) not in (None, ""))


@dataclass(frozen=True)
class DelegationRequest:
    target: str
    task: dict[str, Any]
    chain: DelegationChain  # already extended with target
    parent_run_id: str
    step_id: str
    stop: StopFlag


DelegateFn = Callable[[DelegationRequest], Awaitable[WorkflowRunResult]]


class Injection(Protocol):
    system_prompt: str
    ability_ids: list[str]


# (agent id, task text, base system prompt) -> system prompt with abilities prepended.
InjectFn = Callable[[str, str, str], Injection]


def failed(step: StepDef, code: str, message: str, status: StepStatus = "failed") -> StepOutcome:
    return StepOutcome(stepId=step.id, status=status, error=StepError(code=code, message=message))


class StepExecutor:
    def __init__(
        self,
        tools: ToolRegistry,
        tool_context: ToolContext,
        *,
        prompt_runner: PromptRunner | None = None,
        inject: InjectFn | None = None,
        delegate: DelegateFn | None = None,
    ) -> None:
        self.tools = tools
        self.tool_context = tool_context
        self.prompt_runner = prompt_runner or StubPromptRunner()
        self.inject = inject
        self.delegate = delegate

    def context_for(self, state: RunState) -> ToolContext:
        return replace(self.tool_context, memory=state.memory, stop=state.stop)

    async def execute(self, step: StepDef, state: RunState) -> tuple[StepOutcome, dict[str, Any] | None]:
        """(outcome, compensating call or None)."""
        try:
            if step.kind == "tool":
                return await self._tool(step, state)
            if step.kind == "delegate":
                return await self._delegate(step, state), None
            return await self._prompt(step, state), None
        except TemplateError as e:
            return failed(step, TEMPLATE_ERROR, f"step '{step.id}': {e}"), None

    async def _tool(self, step: StepDef, state: RunState) -> tuple[StepOutcome, dict[str, Any] | None]:
        args = render(step.args, state.scope())
        res = await self.tools.execute(step.tool or "", args, self.context_for(state), timeout_s=step.timeoutS)
        if not res.success:
            assert res.error is not None
            status: StepStatus = "cancelled" if res.error.code == CANCELLED else "failed"
            return failed(step, res.error.code, res.error.message, status), None
        output = thaw(res.output)
        comp = thaw(res.compensation)
        if step.compensate is not None:
            scope = {**state.scope(), "output": output}
            comp = {"tool": step.compensate.tool, "args": render(step.compensate.args, scope)}
        return StepOutcome(stepId=step.id, status="completed", output=output), comp

    async def _delegate(self, step: StepDef, state: RunState) -> StepOutcome:
        target = str(step.agent)
        refusal = state.chain.check(target)  # DELEGATE-1, DELEGATE-2: an error, never an exception
        if refusal is not None:
            logger.warning("step {}: {}", step.id, refusal.message)
            return failed(step, refusal.code, refusal.message)
        if self.delegate is None:
            return failed(step, NO_DELEGATE, f"step '{step.id}': no delegation handler configured")
        task = render(step.task or {}, state.scope())
        req = DelegationRequest(target, task, state.chain.extended(target), state.run_id, step.id, state.stop)
        try:
            result = await self.delegate(req)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a broken delegate is a step failure
            return failed(step, DELEGATION_FAILED, f"delegation to '{target}' raised {type(e).__name__}: {e}")
        if result.ok:
            return StepOutcome(
                stepId=step.id,
                status="completed",
                output={"agentId": target, "runId": result.runId, "outputs": result.outputs},
            )
        err = (
            result.errors[0]
            if result.errors
            else StepError(code=DELEGATION_FAILED, message=f"'{target}' {result.status}")
        )
        return failed(
            step,
            err.code,
            f"delegated to '{target}': {err.message}",
            "cancelled" if result.status == "stopped" else "failed",
        )

    async def _prompt(self, step: StepDef, state: RunState) -> StepOutcome:
        prompt = render(step.prompt or "", state.scope())
        system, ability_ids = step.system, []
        if self.inject is not None:  # ABILITY-1 (docs/contracts.md): injected before the runner runs
            inj = self.inject(state.agent_id, state.task_text(), step.system)
            system, ability_ids = inj.system_prompt, list(inj.ability_ids)
        req = PromptRequest(
            agentId=state.agent_id,
            stepId=step.id,
            system=system,
            prompt=prompt,
            abilityIds=ability_ids,
            context={"task": state.context.get("task", {})},
        )
        try:
            res = await self.prompt_runner.run(req)
        except PromptRunnerMissing as e:
            return failed(step, NO_PROMPT_RUNNER, str(e))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - whatever the prompt runner raises fails the step, not the run
            return failed(step, PROMPT_FAILED, f"prompt step '{step.id}': {type(e).__name__}: {e}")
        return StepOutcome(
            stepId=step.id, status="completed", output={"text": res.text, "data": res.data, "abilityIds": ability_ids}
        )
