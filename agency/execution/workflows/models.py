"""Workflow definitions and run results (camelCase fields: they are stored as JSON).

A workflow is an ordered list of steps. Without `parallel` the steps run one by one in
array order (docs/contracts.md WORKFLOW-1); with `parallel` they form a DAG through `dependsOn`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ID_PATTERN = r"^[a-z0-9]+([_-][a-z0-9]+)*$"
Strategy = Literal["failFast", "continueOnError", "rollback"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolCall(_Frozen):
    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class StepDef(_Frozen):
    id: str = Field(pattern=ID_PATTERN)
    kind: Literal["tool", "delegate", "prompt"] = "tool"
    description: str = ""
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)  # may hold ${...} templates
    agent: str | None = None  # delegate: the agent asked to do `task`
    task: dict[str, Any] | None = None  # delegate: {action, target, amount}
    prompt: str | None = None  # prompt: the user message (templated)
    system: str = ""  # prompt: base system prompt; abilities are prepended to it
    dependsOn: list[str] = Field(default_factory=list)
    timeoutS: float | None = Field(default=None, gt=0)
    compensate: ToolCall | None = None  # overrides the tool's own compensation on rollback
    serves: str = ""  # in a generated plan, what the step is for: "craft iron_pickaxe > smelt iron_ingot"

    @model_validator(mode="after")
    def _kind_fields(self) -> StepDef:
        need = {"tool": "tool", "delegate": "agent", "prompt": "prompt"}[self.kind]
        if not getattr(self, need):
            raise ValueError(f"step '{self.id}': a {self.kind} step needs '{need}'")
        if self.kind == "delegate" and not self.task:
            raise ValueError(f"step '{self.id}': a delegate step needs 'task'")
        return self


class ParallelConfig(_Frozen):
    maxConcurrency: int = Field(default=2, ge=1, le=16)
    strategy: Strategy = "failFast"


class WorkflowDef(_Frozen):
    id: str = Field(pattern=ID_PATTERN)
    description: str = ""
    steps: list[StepDef] = Field(min_length=1)
    parallel: ParallelConfig | None = None

    @model_validator(mode="after")
    def _references(self) -> WorkflowDef:
        seen: set[str] = set()
        ids = {s.id for s in self.steps}
        for s in self.steps:
            if s.id in seen:
                raise ValueError(f"workflow '{self.id}': duplicate step id '{s.id}'")
            seen.add(s.id)
            for d in s.dependsOn:
                if d not in ids:
                    raise ValueError(f"workflow '{self.id}': step '{s.id}' depends on unknown step '{d}'")
                if self.parallel is None and d not in seen - {s.id}:
                    raise ValueError(f"workflow '{self.id}': sequential step '{s.id}' depends on later step '{d}'")
        return self

    def index_of(self, step_id: str) -> int:
        return next(i for i, s in enumerate(self.steps) if s.id == step_id)


StepStatus = Literal["completed", "restored", "failed", "skipped", "cancelled", "compensated"]


class StepError(_Frozen):
    code: str
    message: str


class StepOutcome(_Frozen):
    stepId: str
    status: StepStatus
    output: Any = None
    error: StepError | None = None


class StopReport(_Frozen):
    """Where a stopped run is: resume continues after `stepIndex` (the last checkpoint)."""

    stepIndex: int  # index of the last checkpointed step, -1 when none
    lastStepId: str | None  # last step that completed
    atCheckpointBoundary: bool  # True: nothing was cut short; False: `interruptedStepId` was cancelled
    interruptedStepId: str | None = None
    reason: str = ""
    stepsAfterStop: int = 0  # steps in flight when the stop came: each finished or was cut short


class WorkflowRunResult(_Frozen):
    runId: str
    workflowId: str
    agentId: str
    status: Literal["completed", "failed", "stopped"]
    outputs: dict[str, Any] = Field(default_factory=dict)
    steps: list[StepOutcome] = Field(default_factory=list)  # in the order they ended
    errors: list[StepError] = Field(default_factory=list)
    compensated: list[str] = Field(default_factory=list)  # step ids, in compensation order
    resumedFrom: int | None = None  # checkpoint stepIndex the run resumed after
    stop: StopReport | None = None

    @property
    def ok(self) -> bool:
        return self.status == "completed"
