"""Accounting entries (docs/contracts.md LLM-13): one per LLM attempt, one per tool execution.
Plain dicts with camelCase keys, since they are the observable output."""

from __future__ import annotations

from typing import Any

from agency.llm.messages import TokenUsage


def llm_entry(
    *,
    provider: str,
    model: str,
    ok: bool,
    latency_ms: int,
    timestamp: int,
    usage: TokenUsage | None = None,
    error: str | None = None,
    stop_reason: str | None = None,
    actual_model: str | None = None,
    agent_id: str | None = None,
    txn_id: str | None = None,
    **context: int,
) -> dict[str, Any]:
    """`context` carries the guard's request metrics (ctxTokens, newTokens, schemaTokens,
    expectedTokens, limitTokens) so the context guard (LLM-10) is observable in accounting."""
    entry: dict[str, Any] = {
        "type": "llm",
        "provider": provider,
        "model": model,
        "status": "ok" if ok else "failed",
        "latency": latency_ms,
        "tokens": (usage or TokenUsage()).model_dump(),
        "timestamp": timestamp,
        "actualProvider": provider,
        "actualModel": actual_model or model,
    }
    _optional(entry, error=error, stopReason=stop_reason, agentId=agent_id, txnId=txn_id, **context)
    return entry


def tool_entry(
    *,
    server: str,
    command: str,
    ok: bool,
    latency_ms: int,
    timestamp: int,
    chars_in: int,
    chars_out: int,
    error: str | None = None,
    source: str = "native",
    agent_id: str | None = None,
    txn_id: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": "tool",
        "mcpServer": server,
        "command": command,
        "status": "ok" if ok else "failed",
        "latency": latency_ms,
        "timestamp": timestamp,
        "charactersIn": chars_in,
        "charactersOut": chars_out,
        "source": source,
    }
    _optional(entry, error=error, agentId=agent_id, txnId=txn_id, **extra)
    return entry


def _optional(entry: dict[str, Any], **fields: Any) -> None:
    entry.update({k: v for k, v in fields.items() if v is not None})
