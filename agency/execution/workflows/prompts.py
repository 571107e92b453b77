"""Prompt steps talk to an LLM through a PromptRunner. The real runtime comes with the LLM
runtime issue; until one is configured, StubPromptRunner fails every prompt step clearly."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from agency.errors import AgencyError

NO_PROMPT_RUNNER = "NO_PROMPT_RUNNER"
PROMPT_FAILED = "PROMPT_FAILED"


class PromptRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    agentId: str
    stepId: str
    system: str  # abilities already injected (docs/contracts.md ABILITY-1)
    prompt: str
    abilityIds: list[str] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict)


class PromptResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class PromptRunnerMissing(AgencyError, RuntimeError):
    pass


@runtime_checkable
class PromptRunner(Protocol):
    async def run(self, request: PromptRequest) -> PromptResult: ...


class StubPromptRunner:
    async def run(self, request: PromptRequest) -> PromptResult:
        raise PromptRunnerMissing(
            f"prompt step '{request.stepId}' of agent '{request.agentId}' needs an LLM, and no PromptRunner "
            "is configured (the LLM runtime is not wired in yet)"
        )
