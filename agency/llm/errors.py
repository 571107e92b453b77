"""One errors module for the LLM runtime: control-flow signals, configuration
errors and run errors are distinct types, each carrying the fields a caller branches on."""

from __future__ import annotations

from typing import Literal

from agency.errors import AgencyError

# How a provider failure is handled (docs/contracts.md LLM-9, LLM-12):
#   auth, quota           -> fatal, no retry
#   rate_limit            -> next target; sleep only when every target is rate limited
#   network, timeout, model -> next target at once
#   invalid_response      -> synthetic retry (the model is told what was wrong)
ErrorKind = Literal["auth", "quota", "rate_limit", "network", "timeout", "model", "invalid_response"]
FATAL_KINDS = frozenset({"auth", "quota"})


class LlmError(AgencyError):
    """Base of every error raised by agency.llm."""


class ProviderError(LlmError):
    """One failed LLM attempt, classified. Never escapes run_session."""

    def __init__(self, kind: ErrorKind, message: str, *, status: int | None = None, retry_after_s: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s

    @property
    def fatal(self) -> bool:
        return self.kind in FATAL_KINDS

    def __str__(self) -> str:
        status = f" (HTTP {self.status})" if self.status else ""
        return f"{self.kind}{status}: {self.message}"


class LlmConfigError(LlmError):
    """Invalid runtime configuration (unknown provider, queue binding to a missing queue).
    The CLI maps it to exit code 4."""


class ToolSetupError(LlmError):
    """A tool source could not start (an MCP server that fails to launch). CLI exit 3."""


class BudgetExceeded(LlmError):
    """An autonomy cap was hit (UsageLimits-style: names the limit and what was measured)."""

    def __init__(self, limit_name: str, limit: float, measured: float):
        super().__init__(f"{limit_name} exceeded: limit {limit:g}, measured {measured:g}")
        self.limit_name = limit_name
        self.limit = limit
        self.measured = measured
