"""The `[llm]` config section (LLM session runtime, specs/llm-agent-runtime-contract.md).

A mirror of agency/llm/settings.py's LlmSettings: bot.config.loader may not import agency (it
must stay light), so the schema is declared here too and tests/unit/llm/test_config_llm.py
keeps both identical. The CLI hands `cfg.llm.model_dump()` to LlmSettings.model_validate.
No targets = the LLM is not configured; the daemon runs fine without it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LlmOverrides(_Section):
    temperature: float | None = Field(None, ge=0, le=2)
    top_p: float | None = Field(None, gt=0, le=1)
    repeat_penalty: float | None = Field(None, gt=0)
    max_output_tokens: int | None = Field(None, ge=1)
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    thinking_budget_tokens: int | None = Field(None, ge=1024)
    context_window: int | None = Field(None, ge=256)
    context_window_buffer_tokens: int | None = Field(None, ge=0)


class LlmTarget(_Section):
    provider: Literal["openai", "ollama", "anthropic"]  # openai = any OpenAI-compatible server
    model: str = Field(min_length=1)
    base_url: str = ""
    api_key: str = ""  # e.g. "${OPENAI_API_KEY}"
    overrides: LlmOverrides = Field(default_factory=LlmOverrides)


class LlmQueue(_Section):
    concurrent: int = Field(1, ge=1)


class LlmMcpServer(_Section):
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)  # protected: never ${}-expanded
    queue: str = "default"
    enabled: bool = True
    startup_timeout_s: float = Field(30.0, gt=0)


class LlmBudgets(_Section):
    calls_per_hour: int = Field(120, ge=0)
    tokens_per_day: int = Field(2_000_000, ge=0)
    breaker_failures: int = Field(5, ge=0)
    breaker_cooldown_s: float = Field(300.0, ge=0)


class LlmSection(_Section):
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
    bot_queue: str = "default"
    targets: list[LlmTarget] = Field(default_factory=list)
    provider_overrides: dict[str, LlmOverrides] = Field(default_factory=dict)
    queues: dict[str, LlmQueue] = Field(default_factory=dict)
    mcp_servers: dict[str, LlmMcpServer] = Field(default_factory=dict)
    budgets: LlmBudgets = Field(default_factory=LlmBudgets)
