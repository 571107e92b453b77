"""Agent profiles: the schema every profile passes before registration (docs/contracts.md
AGENT-1).

Profiles live in config/agents/*.toml. A profile owns one workflow per task action it
handles (e.g. crafter owns `craft`): either static steps (with ${task.*} templates) or a
named generator that builds the steps from the task at start (e.g. `craft_plan`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agency.errors import InvalidInputError
from agency.execution.workflows.dag import WorkflowCycleError, validate_dag
from agency.execution.workflows.delegation import DEFAULT_MAX_DEPTH
from agency.execution.workflows.models import ParallelConfig, StepDef, WorkflowDef

AGENT_ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"


class ProfileValidationError(InvalidInputError):
    """A profile that does not pass the schema; the message names the source and fields."""

    def __init__(self, message: str, source: str | None = None) -> None:
        super().__init__(f"{source}: {message}" if source else message)
        self.source = source


class WorkflowSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    generator: Literal["craft_plan", "build_plan", "smelt_plan", "deliver_plan", "gather_plan"] | None = None
    steps: list[StepDef] = Field(default_factory=list)
    parallel: ParallelConfig | None = None

    @model_validator(mode="after")
    def _one_source(self) -> WorkflowSpec:
        if bool(self.generator) == bool(self.steps):
            raise ValueError("a workflow has either 'steps' or a 'generator', not both or neither")
        return self

    def static(self, workflow_id: str) -> WorkflowDef:
        return WorkflowDef(id=workflow_id, description=self.description, steps=self.steps, parallel=self.parallel)


class AgentProfile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=AGENT_ID_PATTERN, max_length=64)
    displayName: str = Field(min_length=1)
    description: str = Field(min_length=1)
    enabled: bool = True
    exampleTasks: list[str] = Field(min_length=1)
    notForTasks: list[str] = Field(default_factory=list)
    coreAbilities: list[str] = Field(default_factory=list)
    abilities: list[str] = Field(default_factory=list, description="task-matched candidates; empty = whole library")
    abilityTokenBudget: int = Field(default=600, ge=50, le=8000)
    maxDelegationDepth: int = Field(default=DEFAULT_MAX_DEPTH, ge=0, le=20)
    workflows: dict[str, WorkflowSpec] = Field(default_factory=dict)

    @field_validator("exampleTasks", "notForTasks")
    @classmethod
    def _no_blank(cls, v: list[str]) -> list[str]:
        if any(not s.strip() for s in v):
            raise ValueError("task phrases must not be blank")
        return v

    @model_validator(mode="after")
    def _workflows_valid(self) -> AgentProfile:
        for action, spec in self.workflows.items():
            if action != action.lower() or not action.isidentifier():
                raise ValueError(f"workflow key '{action}' must be a lowercase task action")
            if spec.steps:
                wf = spec.static(f"{self.id}-{action}")
                if wf.parallel is not None:
                    try:
                        validate_dag(wf)
                    except WorkflowCycleError as e:
                        raise ValueError(str(e)) from None
        return self

    def owns(self, action: str) -> bool:
        return action.lower() in self.workflows


# The schema's entry point (AGENT-1), under its usual name.
AgentProfileSchema = AgentProfile


def parse_profile(data: Mapping[str, Any] | AgentProfile, source: str | None = None) -> AgentProfile:
    if isinstance(data, AgentProfile):
        data = data.model_dump()
    try:
        return AgentProfile.model_validate(dict(data))
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(profile)'}: {err['msg']}" for err in e.errors()
        )
        raise ProfileValidationError(f"invalid agent profile: {problems}", source) from None


def load_profile_file(path: str | Path) -> AgentProfile:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ProfileValidationError(f"cannot read profile: {e}", str(path)) from None
    return parse_profile(data, str(path))
