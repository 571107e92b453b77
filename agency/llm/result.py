"""AgentResult (docs/contracts.md LLM-9: the session always returns one) and the exit code the
CLI derives from it (EXIT-1: 0 ok, 1 failure, 3 init, 4 config, 5 schema; never 0 on failure)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

# finalReport.metadata.reason values set by the runtime itself.
REASON_MAX_TURNS = "max_turns_exhausted"
REASON_FATAL = "fatal_provider_error"
REASON_BUDGET = "budget_exceeded"
REASON_FINAL_INVALID = "final_report_invalid"
REASON_FINAL_SCHEMA = "final_report_schema_invalid"
REASON_NOT_CONFIGURED = "llm_not_configured"
REASON_INTERNAL = "internal_error"
REASON_INIT = "initialization_failed"

_EXIT_BY_REASON = {REASON_FINAL_SCHEMA: 5, REASON_NOT_CONFIGURED: 4, REASON_INIT: 3}


class AgentResult(BaseModel):
    success: bool
    finalReport: dict[str, Any] | None = None
    conversation: list[dict[str, Any]] = Field(default_factory=list)
    accounting: list[dict[str, Any]] = Field(default_factory=list)
    error: str | None = None

    @property
    def reason(self) -> str | None:
        return ((self.finalReport or {}).get("metadata") or {}).get("reason")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def exit_code(result: AgentResult) -> int:
    if result.success:
        return 0
    return _EXIT_BY_REASON.get(result.reason or "", 1)
