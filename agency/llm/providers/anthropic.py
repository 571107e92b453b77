"""Anthropic messages API (/v1/messages)."""

from __future__ import annotations

from typing import Any

import httpx

from agency.llm.errors import ProviderError
from agency.llm.messages import LlmRequest, LlmResponse, Message, TokenUsage, ToolCall
from agency.llm.providers.base import dump_args, load_args_obj, post_json
from agency.llm.settings import TargetConfig

API_VERSION = "2023-06-01"


def _messages(msgs: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """System text goes to `system`; consecutive tool results merge into one user turn."""
    system = "\n\n".join(m.content for m in msgs if m.role == "system")
    out: list[dict[str, Any]] = []
    for m in msgs:
        if m.role == "system":
            continue
        if m.role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.toolCallId, "content": m.content}
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            continue
        if m.role == "assistant" and m.toolCalls:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": load_args_obj(c.arguments)}
                for c in m.toolCalls
            ]
            out.append({"role": "assistant", "content": blocks})
            continue
        out.append({"role": m.role, "content": m.content or "(empty)"})
    return system, out


def build_body(req: LlmRequest) -> dict[str, Any]:
    s = req.sampling
    system, messages = _messages(req.messages)
    body: dict[str, Any] = {"model": req.model, "messages": messages, "max_tokens": s.max_output_tokens}
    if system:
        body["system"] = system
    if s.thinking_budget_tokens:
        # Extended thinking forbids temperature/top_p changes, so they are not sent then.
        body["thinking"] = {"type": "enabled", "budget_tokens": s.thinking_budget_tokens}
    else:
        if s.temperature is not None:
            body["temperature"] = s.temperature
        if s.top_p is not None:
            body["top_p"] = s.top_p
    if req.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in req.tools
        ]
        body["tool_choice"] = {"type": "any" if req.tool_choice == "required" else "auto"}
    return body


def parse_body(data: dict[str, Any]) -> LlmResponse:
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise ProviderError("invalid_response", "no content blocks in Anthropic response")
    text, thinking, calls = [], [], []
    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            text.append(b.get("text") or "")
        elif kind == "thinking":
            thinking.append(b.get("thinking") or "")
        elif kind == "tool_use":
            calls.append(ToolCall(id=b.get("id") or "", name=b.get("name") or "", arguments=dump_args(b.get("input"))))
    usage = data.get("usage") or {}
    return LlmResponse(
        content="".join(text),
        reasoning="".join(thinking),
        tool_calls=calls,
        stop_reason=data.get("stop_reason"),
        usage=TokenUsage.of(
            usage.get("input_tokens"), usage.get("output_tokens"), usage.get("cache_read_input_tokens")
        ),
        actual_model=data.get("model"),
    )


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, client: httpx.AsyncClient, timeout_s: float = 120.0) -> None:
        self.client = client
        self.timeout_s = timeout_s

    async def complete(self, request: LlmRequest, target: TargetConfig) -> LlmResponse:
        headers = {"anthropic-version": API_VERSION}
        if target.api_key:
            headers["x-api-key"] = target.api_key
        data = await post_json(self.client, f"{target.url}/v1/messages", build_body(request), headers, self.timeout_s)
        return parse_body(data)
