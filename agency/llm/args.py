"""Tool-argument parsing (docs/contracts.md LLM-5): json.loads, then
json_repair + re-parse; the repair is logged with both payloads; failures carry the
reason the model is told."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import json_repair
from loguru import logger


@dataclass(frozen=True)
class ParsedArgs:
    value: dict[str, Any] | None
    repaired: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def _as_object(value: Any) -> dict[str, Any] | None:
    if isinstance(value, str):  # double-encoded: "{\"a\": 1}"
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, dict) else None


def parse_arguments(raw: str, tool: str = "") -> ParsedArgs:
    if not raw.strip():
        return ParsedArgs({})
    try:
        obj = _as_object(json.loads(raw))
        if obj is not None:
            return ParsedArgs(obj)
        return ParsedArgs(None, error="arguments must be a JSON object")
    except json.JSONDecodeError as first:
        first_error = str(first)
    repaired: Any = None
    if "{" in raw:  # json_repair turns any text into *something*; only repair object-like input
        try:
            repaired = json_repair.loads(raw)
        except Exception:  # noqa: BLE001 - a repair library bug is just a failed repair
            repaired = None
    obj = _as_object(repaired)
    if obj is None:
        logger.error("tool {} arguments unparseable, call dropped; raw payload: {}", tool, raw)
        return ParsedArgs(None, error=f"arguments are not valid JSON ({first_error})")
    logger.warning(
        "tool {} arguments repaired: steps=json.loads failed ({}) -> json_repair; original={!r} repaired={}",
        tool,
        first_error,
        raw,
        json.dumps(obj, ensure_ascii=False),
    )
    return ParsedArgs(obj, repaired=True)
