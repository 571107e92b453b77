"""Offline token estimates (no tokenizer downloads). Deliberately simple: the guard only
needs a consistent estimate, and each provider response resets `ctx` to reported usage."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from agency.llm.messages import Message, ToolSchema

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4  # role markers and separators per message


def estimate_text(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_message(m: Message) -> int:
    n = MESSAGE_OVERHEAD + estimate_text(m.content) + estimate_text(m.reasoning or "")
    for c in m.toolCalls or []:
        n += estimate_text(c.name) + estimate_text(c.arguments) + MESSAGE_OVERHEAD
    return n


def estimate_messages(msgs: Iterable[Message]) -> int:
    return sum(estimate_message(m) for m in msgs)


def estimate_schema(tools: Iterable[ToolSchema]) -> int:
    return sum(estimate_text(json.dumps(t.model_dump(), ensure_ascii=False)) for t in tools)


def estimate_json(value: Any) -> int:
    return estimate_text(json.dumps(value, ensure_ascii=False, default=str))
