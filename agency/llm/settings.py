"""Runtime settings of the LLM session loop: snake_case versions of the names used in
docs/contracts.md LLM-1..15.

The one schema of the `[llm]` TOML section: bot.config.schema's McbotConfig uses LlmSettings
as the section's type (nothing mirrors it), so this module stays light (pydantic and the
llm room's errors and messages). Resolution order for sampling and context settings:
session defaults < provider_overrides[provider] < target.overrides.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agency.llm.errors import LlmConfigError
from agency.llm.messages import Sampling

Provider = Literal["openai", "ollama", "anthropic"]
DEFAULT_QUEUE = "default"
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "ollama": "http://127.0.0.1:11434",
    "anthropic": "https://api.anthropic.com",
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Overrides(_Model):
    """Per-provider or per-model (target) values; None = inherit."""

    temperature: float | None = Field(None, ge=0, le=2)
    top_p: float | None = Field(None, gt=0, le=1)
    repeat_penalty: float | None = Field(None, gt=0)
    max_output_tokens: int | None = Field(None, ge=1)
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    thinking_budget_tokens: int | None = Field(None, ge=1024)
    context_window: int | None = Field(None, ge=256)
    context_window_buffer_tokens: int | None = Field(None, ge=0)


class TargetConfig(_Model):
    provider: Provider
    model: str = Field(min_length=1)
    base_url: str = ""  # "" = the provider's public default
    api_key: str = ""  # e.g. "${OPENAI_API_KEY}"; "" = no auth header (local servers)
    overrides: Overrides = Field(default_factory=Overrides)

    @property
    def url(self) -> str:
        return (self.base_url or DEFAULT_BASE_URLS[self.provider]).rstrip("/")

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}"


class QueueConfig(_Model):
    concurrent: int = Field(1, ge=1)


class McpServerConfig(_Model):
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)  # passed verbatim to the child
    queue: str = DEFAULT_QUEUE
    enabled: bool = True
    startup_timeout_s: float = Field(30.0, gt=0)


class BudgetConfig(_Model):
    """Caps for the daemon's autonomous LLM use; 0 = no cap."""

    calls_per_hour: int = Field(120, ge=0)
    tokens_per_day: int = Field(2_000_000, ge=0)
    breaker_failures: int = Field(5, ge=0)  # consecutive provider failures that open the breaker
    breaker_cooldown_s: float = Field(300.0, ge=0)


class LlmSettings(_Model):
    max_turns: int = Field(10, ge=1)
    max_tool_calls_per_turn: int = Field(10, ge=1)
    max_retries: int = Field(3, ge=1)
    tool_response_max_bytes: int = Field(12288, ge=256)
    tool_timeout_ms: int = Field(60000, ge=1)
    context_window: int = Field(32768, ge=256)
    context_window_buffer_tokens: int = Field(256, ge=0)
    max_output_tokens: int = Field(4096, ge=1)
    temperature: float = Field(0.2, ge=0, le=2)
    top_p: float = Field(0.95, gt=0, le=1)
    repeat_penalty: float | None = Field(None, gt=0)
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    thinking_budget_tokens: int | None = Field(None, ge=1024)
    tool_transport: Literal["native", "xml", "xml-final"] = "native"
    request_timeout_s: float = Field(120.0, gt=0)
    bot_queue: str = DEFAULT_QUEUE  # queue the `bot` server's tools are bound to
    targets: list[TargetConfig] = Field(default_factory=list)
    provider_overrides: dict[str, Overrides] = Field(default_factory=dict)
    queues: dict[str, QueueConfig] = Field(default_factory=dict)
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    budgets: BudgetConfig = Field(default_factory=BudgetConfig)

    @property
    def configured(self) -> bool:
        """No targets = the LLM is not configured; the daemon runs without it."""
        return bool(self.targets)

    def _pick(self, target: TargetConfig, name: str) -> Any:
        for layer in (target.overrides, self.provider_overrides.get(target.provider)):
            value = getattr(layer, name, None) if layer is not None else None
            if value is not None:
                return value
        return getattr(self, name)

    def sampling_for(self, target: TargetConfig) -> Sampling:
        return Sampling(
            temperature=self._pick(target, "temperature"),
            top_p=self._pick(target, "top_p"),
            repeat_penalty=self._pick(target, "repeat_penalty"),
            max_output_tokens=self._pick(target, "max_output_tokens"),
            reasoning_effort=self._pick(target, "reasoning_effort"),
            thinking_budget_tokens=self._pick(target, "thinking_budget_tokens"),
        )

    def context_limit_for(self, target: TargetConfig) -> int:
        """LLM-10: limit = contextWindow - contextWindowBufferTokens - maxOutputTokens."""
        limit: int = (
            self._pick(target, "context_window")
            - self._pick(target, "context_window_buffer_tokens")
            - self._pick(target, "max_output_tokens")
        )
        return limit

    def effective_queues(self) -> dict[str, int]:
        """Configured queues plus `default` when missing (LLM-8)."""
        queues = {name: q.concurrent for name, q in self.queues.items()}
        queues.setdefault(DEFAULT_QUEUE, 1)
        return queues

    def validate_bindings(self) -> None:
        """Every queue binding must name an existing queue; checked at startup."""
        queues = self.effective_queues()
        bindings = {"bot_queue": self.bot_queue} | {
            f"mcp_servers.{n}.queue": s.queue for n, s in self.mcp_servers.items()
        }
        for where, queue in bindings.items():
            if queue not in queues:
                raise LlmConfigError(f"llm.{where} = {queue!r}: no such queue (known: {', '.join(sorted(queues))})")
