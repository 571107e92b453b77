"""Provider-neutral request/response shapes. Conversation messages keep their camelCase field
names (role, content, toolCalls, toolCallId) because they are dumped into
AgentResult.conversation as-is (docs/contracts.md LLM-14)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """A tool call as the model sent it; `arguments` is the raw text (parsed later, so a
    malformed payload can be repaired or reported instead of failing the whole response)."""

    id: str
    name: str
    arguments: str = ""


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str = ""
    reasoning: str | None = None
    toolCalls: list[ToolCall] | None = None
    toolCallId: str | None = None
    toolName: str | None = None  # Ollama and Anthropic want the tool name on results

    def dump(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class ToolSchema(BaseModel):
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Sampling(BaseModel):
    """Settings sent on every request (LLM-7)."""

    temperature: float | None = None
    top_p: float | None = None
    repeat_penalty: float | None = None
    max_output_tokens: int = 4096
    reasoning_effort: str | None = None  # "low" | "medium" | "high" (OpenAI, Ollama think)
    thinking_budget_tokens: int | None = None  # Anthropic extended thinking


class LlmRequest(BaseModel):
    model: str
    messages: list[Message]
    tools: list[ToolSchema] = Field(default_factory=list)
    tool_choice: Literal["auto", "required"] = "auto"
    sampling: Sampling = Field(default_factory=Sampling)


class TokenUsage(BaseModel):
    inputTokens: int = 0
    outputTokens: int = 0
    cachedTokens: int = 0
    totalTokens: int = 0

    @classmethod
    def of(cls, inp: int | None, out: int | None, cached: int | None = None) -> TokenUsage:
        i, o, c = int(inp or 0), int(out or 0), int(cached or 0)
        return cls(inputTokens=i, outputTokens=o, cachedTokens=c, totalTokens=i + o)


class LlmResponse(BaseModel):
    content: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    stop_reason: str | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    actual_model: str | None = None

    @property
    def is_empty(self) -> bool:
        return not self.content.strip() and not self.tool_calls and not self.reasoning.strip()

    @property
    def reasoning_only(self) -> bool:
        return not self.content.strip() and not self.tool_calls and bool(self.reasoning.strip())
