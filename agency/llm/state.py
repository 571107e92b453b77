"""Mutable state of one session, owned by the session task (no locks needed)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger

from agency.clock import Clock
from agency.llm.budgets import AutonomyBudget
from agency.llm.context_guard import ContextGuard
from agency.llm.final_report import final_report_schema, synthetic_failure
from agency.llm.messages import Message, TokenUsage, ToolSchema
from agency.llm.providers import Provider
from agency.llm.rotation import TargetRotation
from agency.llm.settings import LlmSettings, TargetConfig
from agency.llm.tokens import estimate_message, estimate_messages, estimate_schema
from agency.llm.toolbox import ToolBox
from agency.llm.xml_transport import XmlTransport

FINAL_INSTRUCTION = (
    "This is the final turn: no more tools can run. Call agent__final_report now with the information already gathered."
)
XML_FINAL_INSTRUCTION = "This is the final turn: no more tools can run. Write the final report tag now."


@dataclass
class SessionState:
    settings: LlmSettings
    toolbox: ToolBox
    providers: dict[str, Provider]
    rotation: TargetRotation
    clock: Clock
    expected_format: str
    output_schema: dict[str, Any] | None
    xml: XmlTransport
    budget: AutonomyBudget | None = None
    agent_id: str | None = None
    txn_id: str | None = None
    on_progress: Callable[[str], None] | None = None  # live progress reports (XML-NEXT progress slot)
    conversation: list[Message] = field(default_factory=list)
    accounting: list[dict[str, Any]] = field(default_factory=list)
    guard: ContextGuard = field(default_factory=ContextGuard)
    tool_budget_exceeded: bool = False  # set by an overflow drop: no NEW tools from then on
    forced_final_reason: str | None = None
    final_report: dict[str, Any] | None = None
    error: str | None = None
    done: bool = False
    last_target: TargetConfig | None = None

    # ---- conversation ------------------------------------------------------------------
    def append(self, message: Message) -> None:
        """A permanent message: its tokens enter the next prompt as `new`."""
        self.conversation.append(message)
        self.guard.new += estimate_message(message)

    def commit_response(self, usage: TokenUsage, sent: list[Message], message: Message) -> None:
        """A successful response: stored, and the guard's ctx set from reported usage."""
        self.conversation.append(message)
        self.guard.commit(usage, estimate_messages(sent) + estimate_message(message))

    # ---- offered tools -----------------------------------------------------------------
    def final_turn(self, turn: int) -> bool:
        return turn >= self.settings.max_turns or self.forced_final_reason is not None

    def native_tools(self, final_turn: bool) -> list[ToolSchema]:
        if not self.xml.native_tools:
            return []
        final = [final_report_schema(self.expected_format, self.output_schema)] if self.xml.mode == "native" else []
        return final if final_turn else self.toolbox.schemas() + final

    def ephemeral(self, final_turn: bool) -> list[Message]:
        """Per-request messages never stored: final-turn instruction and XML-NEXT."""
        out: list[Message] = []
        if self.xml.mode != "native":
            tools = self.toolbox.schemas()
            out.append(
                self.xml.next_message(tools, self.expected_format, final_turn, self.settings.max_tool_calls_per_turn)
            )
        if final_turn:
            out.append(
                Message(
                    role="system" if self.xml.mode == "native" else "user",
                    content=FINAL_INSTRUCTION if self.xml.mode == "native" else XML_FINAL_INSTRUCTION,
                )
            )
        return out

    def schema_tokens(self, final_turn: bool) -> int:
        return estimate_schema(self.native_tools(final_turn))

    def force_final(self, reason: str) -> None:
        if self.forced_final_reason is None:
            self.forced_final_reason = reason
            logger.warning("forced final turn: forcedFinalTurnReason={}", reason)

    # ---- endings -----------------------------------------------------------------------
    def finish(self, report: dict[str, Any]) -> None:
        self.final_report = report
        self.done = True

    def fail(self, reason: str, message: str, error: str | None = None) -> None:
        self.final_report = synthetic_failure(reason, message, self.expected_format, self.clock())
        self.error = error or message
        self.done = True
