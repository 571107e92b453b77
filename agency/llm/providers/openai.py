"""OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp server, LM Studio)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from agency.llm.errors import ProviderError
from agency.llm.messages import LlmRequest, LlmResponse, Message, TokenUsage, ToolCall
from agency.llm.providers.base import dump_args, post_json
from agency.llm.settings import TargetConfig


def _message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.toolCallId, "content": m.content}
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.reasoning:  # a reasoning-only turn is kept for the next turn (docs/contracts.md LLM-11)
        out["reasoning_content"] = m.reasoning
    if m.toolCalls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
            for c in m.toolCalls
        ]
    return out


def build_body(req: LlmRequest) -> dict[str, Any]:
    s = req.sampling
    body: dict[str, Any] = {
        "model": req.model,
        "messages": [_message(m) for m in req.messages],
        "max_tokens": s.max_output_tokens,
        "stream": False,
    }
    if s.temperature is not None:
        body["temperature"] = s.temperature
    if s.top_p is not None:
        body["top_p"] = s.top_p
    if s.repeat_penalty is not None:
        # vLLM reads repetition_penalty, llama.cpp / LM Studio read repeat_penalty.
        body["repetition_penalty"] = body["repeat_penalty"] = s.repeat_penalty
    if s.reasoning_effort:
        body["reasoning_effort"] = s.reasoning_effort
    if req.tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in req.tools
        ]
        body["tool_choice"] = req.tool_choice
    return body


def parse_body(data: dict[str, Any]) -> LlmResponse:
    try:
        choice = data["choices"][0]
        msg = choice["message"]
    except (KeyError, IndexError, TypeError):
        raise ProviderError("invalid_response", "no choices[0].message in response") from None
    calls = []
    for raw in msg.get("tool_calls") or []:
        fn = raw.get("function") or {}
        if not fn.get("name"):
            raise ProviderError("invalid_response", "tool call without a function name")
        calls.append(
            ToolCall(
                id=raw.get("id") or f"call_{uuid.uuid4().hex[:12]}",
                name=fn["name"],
                arguments=dump_args(fn.get("arguments")),
            )
        )
    usage = data.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    return LlmResponse(
        content=msg.get("content") or "",
        reasoning=msg.get("reasoning_content") or msg.get("reasoning") or "",
        tool_calls=calls,
        stop_reason=choice.get("finish_reason"),
        usage=TokenUsage.of(usage.get("prompt_tokens"), usage.get("completion_tokens"), cached),
        actual_model=data.get("model"),
    )


class OpenAIProvider:
    name = "openai"

    def __init__(self, client: httpx.AsyncClient, timeout_s: float = 120.0) -> None:
        self.client = client
        self.timeout_s = timeout_s

    async def complete(self, request: LlmRequest, target: TargetConfig) -> LlmResponse:
        headers = {"Authorization": f"Bearer {target.api_key}"} if target.api_key else {}
        data = await post_json(
            self.client, f"{target.url}/chat/completions", build_body(request), headers, self.timeout_s
        )
        return parse_body(data)
