"""toolResponseMaxBytes: cut a tool response to at most Y bytes of valid UTF-8, the
notice of docs/contracts.md LLM-4 first (`[TRUNCATED] Original size X bytes; truncated to Y bytes.`)."""

from __future__ import annotations

from loguru import logger


def notice(original: int, limit: int) -> str:
    return f"[TRUNCATED] Original size {original} bytes; truncated to {limit} bytes.\n"


def truncate_response(text: str, max_bytes: int, tool: str = "") -> tuple[str, bool]:
    """(text, truncated). The result, notice included, is at most max_bytes bytes."""
    raw = text.encode("utf-8")
    if len(raw) <= max_bytes:
        return text, False
    head = notice(len(raw), max_bytes)
    room = max(0, max_bytes - len(head.encode("utf-8")))
    # errors="ignore" drops a multi-byte character cut in half, keeping valid UTF-8.
    body = raw[:room].decode("utf-8", errors="ignore")
    logger.warning("tool response truncated: tool={} actual_bytes={} limit_bytes={}", tool, len(raw), max_bytes)
    logger.trace("original response of {} before truncation: {}", tool, text)  # TRACE = traceTools
    return (head + body).encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore"), True
