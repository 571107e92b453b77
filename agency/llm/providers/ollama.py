"""Ollama native chat API (/api/chat, non-streaming)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from agency.llm.errors import ProviderError
from agency.llm.messages import LlmRequest, LlmResponse, Message, TokenUsage, ToolCall
from agency.llm.providers.base import dump_args, load_args_obj, post_json
from agency.llm.settings import TargetConfig


def _message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "content": m.content, "tool_name": m.toolName or ""}
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.toolCalls:
        out["tool_calls"] = [
            {"function": {"name": c.name, "arguments": load_args_obj(c.arguments)}} for c in m.toolCalls
        ]
    if m.reasoning:
        out["thinking"] = m.reasoning
    return out


def build_body(req: LlmRequest) -> dict[str, Any]:
    s = req.sampling
    options: dict[str, Any] = {"num_predict": s.max_output_tokens}
    for key, value in (("temperature", s.temperature), ("top_p", s.top_p), ("repeat_penalty", s.repeat_penalty)):
        if value is not None:
            options[key] = value
    body: dict[str, Any] = {
        "model": req.model,
        "messages": [_message(m) for m in req.messages],
        "stream": False,
        "options": options,
    }
    if s.reasoning_effort:  # gpt-oss takes a level; other thinking models take true
        body["think"] = s.reasoning_effort
    if req.tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in req.tools
        ]
    return body


def parse_body(data: dict[str, Any]) -> LlmResponse:
    msg = data.get("message")
    if not isinstance(msg, dict):
        raise ProviderError("invalid_response", "no message in Ollama response")
    calls = []
    for raw in msg.get("tool_calls") or []:
        fn = raw.get("function") or {}
        if not fn.get("name"):
            raise ProviderError("invalid_response", "tool call without a function name")
        # Ollama gives no call ids; the conversation needs them to pair results.
        calls.append(
            ToolCall(
                id=raw.get("id") or f"call_{uuid.uuid4().hex[:12]}",
                name=fn["name"],
                arguments=dump_args(fn.get("arguments")),
            )
        )
    return LlmResponse(
        content=msg.get("content") or "",
        reasoning=msg.get("thinking") or "",
        tool_calls=calls,
        stop_reason=data.get("done_reason"),
        usage=TokenUsage.of(data.get("prompt_eval_count"), data.get("eval_count")),
        actual_model=data.get("model"),
    )


class OllamaProvider:
    name = "ollama"

    def __init__(self, client: httpx.AsyncClient, timeout_s: float = 120.0) -> None:
        self.client = client
        self.timeout_s = timeout_s

    async def complete(self, request: LlmRequest, target: TargetConfig) -> LlmResponse:
        headers = {"Authorization": f"Bearer {target.api_key}"} if target.api_key else {}
        data = await post_json(self.client, f"{target.url}/api/chat", build_body(request), headers, self.timeout_s)
        if data.get("error"):
            raise ProviderError("model", str(data["error"]))
        return parse_body(data)
