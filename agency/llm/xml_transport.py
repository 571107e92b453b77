"""XML tool transport (docs/contracts.md LLM-15): modes native | xml | xml-final.

A session nonce stays fixed; numbered slots NONCE-0001, NONCE-0002... continue across
turns; NONCE-FINAL carries the final report; NONCE-PROGRESS (xml mode only, offered beside
the tool slots) carries a short progress report, which uses no numbered slot and gets no
response message. Tags are found by substring search (no XML
parser): `<ai-agent-NONCE-000X tool="...">payload</ai-agent-NONCE-000X>`. The per-turn
instructions (XML-NEXT) are ephemeral; tool responses return as user messages
`System Notice: tool response for NONCE-000X (tool)`, which also serve as XML-PAST."""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Literal

from loguru import logger

from agency.llm.final_report import FINAL_REPORT_TOOL
from agency.llm.messages import Message, ToolCall, ToolSchema

Mode = Literal["native", "xml", "xml-final"]
FINAL_XML_COMMAND = "agent__final_report_xml"
PROGRESS_TOOL = "agent__progress_report"
COMPLETE_STOPS = frozenset({"stop", "end_turn", "end", "eos"})
TRUNCATED_STOPS = frozenset({"length", "max_tokens"})
_ATTR = re.compile(r'([A-Za-z_][\w-]*)="([^"]*)"')


@dataclass
class XmlParse:
    calls: list[ToolCall] = field(default_factory=list)
    final_format: str | None = None
    final_payload: str | None = None
    final_truncated: bool = False  # opening final tag, no closing tag, stopReason says cut off
    progress: str | None = None  # the last progress report of the response

    @property
    def has_final(self) -> bool:
        return self.final_payload is not None

    @property
    def empty(self) -> bool:
        return not self.calls and not self.has_final and not self.final_truncated


class XmlTransport:
    def __init__(self, mode: Mode, nonce: str | None = None) -> None:
        self.mode = mode
        self.nonce = nonce or secrets.token_hex(4)
        self.next_slot = 1
        self.used: set[str] = set()

    @property
    def native_tools(self) -> bool:
        """xml mode withholds provider tool definitions; xml-final keeps them."""
        return self.mode != "xml"

    @property
    def final_slot(self) -> str:
        return f"{self.nonce}-FINAL"

    @property
    def progress_slot(self) -> str:
        return f"{self.nonce}-PROGRESS"

    def slot(self, n: int) -> str:
        return f"{self.nonce}-{n:04d}"

    def next_message(self, tools: list[ToolSchema], expected_format: str, final_only: bool, max_calls: int) -> Message:
        """XML-NEXT: the only place XML instructions and schemas live (ephemeral)."""
        lines = [f"XML transport. Session nonce: {self.nonce}."]
        if self.mode == "xml" and not final_only and tools:
            lines.append(
                f"To call tools, write one tag per call (at most {max_calls} this turn), "
                "with the arguments as a JSON object:"
            )
            for i, t in enumerate(tools):
                slot = self.slot(self.next_slot + i % max(1, max_calls))
                lines.append(
                    f"- {t.name}: {t.description}\n  schema: {json.dumps(t.parameters)}\n"
                    f'  <ai-agent-{slot} tool="{t.name}">{{...}}</ai-agent-{slot}>'
                )
            lines.append(f"Use slot numbers from {self.slot(self.next_slot)} upward, each once.")
            lines.append("Together with tool calls you may say what you are doing (at most 15 words):")
            lines.append(f'<ai-agent-{self.progress_slot} tool="{PROGRESS_TOOL}">...</ai-agent-{self.progress_slot}>')
        lines.append("When you have the answer, write the final report (raw content, no wrapper):")
        lines.append(
            f'<ai-agent-{self.final_slot} tool="{FINAL_REPORT_TOOL}" format="{expected_format}">'
            f"...</ai-agent-{self.final_slot}>"
        )
        return Message(role="user", content="\n".join(lines))

    def parse(self, content: str, stop_reason: str | None, allow_tools: bool) -> XmlParse:
        out = XmlParse()
        prefix = f"<ai-agent-{self.nonce}-"
        pos = 0
        while (start := content.find(prefix, pos)) >= 0:
            head_end = content.find(">", start)
            if head_end < 0:
                break
            head = content[start + len("<ai-agent-") : head_end]
            slot = head.split()[0] if head.split() else ""
            attrs = dict(_ATTR.findall(head))
            close = f"</ai-agent-{slot}>"
            end = content.find(close, head_end + 1)
            closed = end >= 0
            payload = content[head_end + 1 : end] if closed else content[head_end + 1 :]
            pos = end + len(close) if closed else len(content)
            if slot == self.final_slot and attrs.get("tool") == FINAL_REPORT_TOOL:
                self._final(out, attrs, payload, closed, stop_reason)
            elif (
                slot == self.progress_slot
                and attrs.get("tool") == PROGRESS_TOOL
                and self._progress_allowed(allow_tools, closed, payload)
            ):
                out.progress = payload.strip()  # last one wins
            elif allow_tools and self.mode == "xml" and closed and self._usable(slot) and attrs.get("tool"):
                out.calls.append(ToolCall(id=slot, name=attrs["tool"], arguments=payload.strip()))
            else:
                logger.debug("ignored XML tag {} (mismatched, used or incomplete)", slot)
        return out

    def _progress_allowed(self, allow_tools: bool, closed: bool, payload: str) -> bool:
        """xml mode only, and never once no new tools may run (final turns, LLM-10)."""
        return allow_tools and self.mode == "xml" and closed and bool(payload.strip())

    def _usable(self, slot: str) -> bool:
        number = slot.rsplit("-", 1)[-1]
        return number.isdigit() and int(number) >= self.next_slot and slot not in self.used

    def _final(self, out: XmlParse, attrs: dict[str, str], payload: str, closed: bool, stop: str | None) -> None:
        if not payload.strip():
            return
        if not closed:
            if stop in TRUNCATED_STOPS:
                out.final_truncated = True
                return
            if stop not in COMPLETE_STOPS:
                logger.warning("final report tag not closed and stopReason {!r} unknown; accepting content", stop)
        # Last valid final tag wins (structured output expects a single result).
        out.final_format = attrs.get("format")
        out.final_payload = payload.strip()
        out.final_truncated = False

    def commit(self, calls: list[ToolCall]) -> None:
        """Slots used this turn are spent; numbering continues after the highest one."""
        for c in calls:
            self.used.add(c.id)
            number = c.id.rsplit("-", 1)[-1]
            if number.isdigit():
                self.next_slot = max(self.next_slot, int(number) + 1)

    def final_args(self, parsed: XmlParse, expected_format: str) -> dict[str, object]:
        """Layer 1 -> 2: transport attributes never pollute the payload."""
        key = "content_json" if expected_format == "json" else "report_content"
        return {"format": parsed.final_format or expected_format, key: parsed.final_payload or ""}

    @staticmethod
    def response_message(slot: str, tool: str, ok: bool, latency_ms: int, request: str, response: str) -> Message:
        status = "ok" if ok else "failed"
        return Message(
            role="user",
            content=(
                f"System Notice: tool response for {slot} ({tool})\n"
                f"status: {status}, duration: {latency_ms} ms\n"
                f"<request>{request}</request>\n<response>{response}</response>"
            ),
        )
