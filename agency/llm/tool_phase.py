"""The tool phase of a turn: the assistant's calls are checked (final report first, then
maxToolCallsPerTurn, availability, argument parsing), valid ones run concurrently through
the ToolBox, and every output passes tool_preflight before it is committed. Every call
gets an answer in the conversation, in call order."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from loguru import logger

from agency.llm.accounting import tool_entry
from agency.llm.args import parse_arguments
from agency.llm.final_report import FINAL_REPORT_TOOL, ReportOutcome, process_final_report
from agency.llm.messages import Message, ToolCall
from agency.llm.result import REASON_FINAL_INVALID, REASON_FINAL_SCHEMA
from agency.llm.state import SessionState
from agency.llm.tokens import estimate_text
from agency.llm.toolbox import ToolOutcome, failed
from agency.llm.xml_transport import PROGRESS_TOOL

OVERFLOW_STUB = failed("context window budget exceeded")


def record_final_tool(state: SessionState, command: str, args: Any, outcome: ReportOutcome, source: str) -> None:
    payload = json.dumps(args, ensure_ascii=False, default=str)
    state.accounting.append(
        tool_entry(
            server="agent",
            command=command,
            ok=outcome.report is not None,
            latency_ms=0,
            timestamp=state.clock(),
            chars_in=len(payload),
            chars_out=0,
            error=outcome.error,
            source=source,
            agent_id=state.agent_id,
            txn_id=state.txn_id,
        )
    )
    if outcome.report is not None:
        state.finish(outcome.report)
        return
    # docs/contracts.md LLM-6: a failed final report collapses the remaining turns, payload logged.
    logger.error("agent__final_report failed ({}); payload: {}", outcome.error, payload)
    reason = REASON_FINAL_SCHEMA if outcome.schema_error else REASON_FINAL_INVALID
    state.fail(reason, f"final report rejected: {outcome.error}", outcome.error)


def record_progress(state: SessionState, text: str, source: str) -> None:
    """A progress report: accounted like any tool execution, logged, handed to the caller."""
    state.accounting.append(
        tool_entry(
            server="agent",
            command=PROGRESS_TOOL,
            ok=True,
            latency_ms=0,
            timestamp=state.clock(),
            chars_in=len(text),
            chars_out=0,
            source=source,
            agent_id=state.agent_id,
            txn_id=state.txn_id,
        )
    )
    logger.info("progress: {}", text)
    if state.on_progress is not None:
        try:
            state.on_progress(text)
        except Exception:  # noqa: BLE001 - a caller's display bug must not end the session
            logger.exception("progress callback raised")


async def handle_tool_calls(state: SessionState, calls: list[ToolCall], xml_mode: bool, final_turn: bool) -> None:
    """`calls` come from the assistant message already committed to the conversation."""
    finals = [c for c in calls if c.name == FINAL_REPORT_TOOL]
    if finals and not xml_mode:
        final = finals[-1]  # the last one wins when a single result is expected
        args = parse_arguments(final.arguments, final.name)
        outcome = (
            process_final_report(args.value, state.expected_format, state.output_schema, state.clock())
            if args.value is not None
            else ReportOutcome(None, args.error)
        )
        record_final_tool(state, FINAL_REPORT_TOOL, final.arguments if not args.ok else args.value, outcome, "native")
        return
    answers: dict[str, str] = {}
    runnable: list[tuple[ToolCall, dict[str, Any]]] = []
    limit = state.settings.max_tool_calls_per_turn
    for i, call in enumerate(calls):
        if i >= limit:
            answers[call.id] = failed(
                f"dropped: more than maxToolCallsPerTurn={limit} calls in one turn; only the first {limit} ran"
            )
        elif final_turn or state.tool_budget_exceeded:
            answers[call.id] = failed("no new tools may run now; call agent__final_report with what you have")
        elif not state.toolbox.has(call.name):
            answers[call.id] = failed(f"unknown tool {call.name!r}; available: {', '.join(state.toolbox.names())}")
        else:
            args = parse_arguments(call.arguments, call.name)
            if args.ok:
                runnable.append((call, args.value or {}))
            else:
                answers[call.id] = failed(f"invalid arguments: {args.error}. Retry with a valid JSON object")
    outcomes = await asyncio.gather(*(state.toolbox.execute(c.name, a) for c, a in runnable))
    by_id = {c.id: (c, a, o) for (c, a), o in zip(runnable, outcomes, strict=True)}
    for call in calls:
        if call.id in by_id:
            _commit_output(state, *by_id[call.id], xml_mode=xml_mode)
        else:
            _answer(state, call, answers[call.id], ok=False, latency=0, xml_mode=xml_mode)
    if xml_mode:
        state.xml.commit(calls)
    return None


def _commit_output(state: SessionState, call: ToolCall, args: dict[str, Any], out: ToolOutcome, xml_mode: bool) -> None:
    text, extra = out.text, {}
    target = state.last_target
    limit = state.settings.context_limit_for(target) if target else state.settings.context_window
    tokens = estimate_text(text)
    if not state.guard.tool_preflight(tokens, limit).ok:
        # LLM-10: dropped at once, deterministic stub, no NEW tools from here on.
        text = OVERFLOW_STUB
        state.tool_budget_exceeded = True
        state.force_final("context")
        extra = {"originalTokens": tokens, "replacementTokens": estimate_text(text), "droppedForContext": True}
        state.guard.new += extra["replacementTokens"]
    state.accounting.append(
        tool_entry(
            server=out.server,
            command=out.command,
            ok=out.ok,
            latency_ms=out.latency_ms,
            timestamp=state.clock(),
            chars_in=out.chars_in,
            chars_out=out.chars_out,
            error=out.error,
            source="xml" if xml_mode else "native",
            agent_id=state.agent_id,
            txn_id=state.txn_id,
            truncated=out.truncated or None,
            **extra,
        )
    )
    _answer(state, call, text, ok=out.ok, latency=out.latency_ms, xml_mode=xml_mode, request=args, counted=True)


def _answer(
    state: SessionState,
    call: ToolCall,
    text: str,
    ok: bool,
    latency: int,
    xml_mode: bool,
    request: Any = None,
    counted: bool = False,
) -> None:
    if xml_mode:
        msg = state.xml.response_message(
            call.id,
            call.name,
            ok,
            latency,
            json.dumps(request, ensure_ascii=False) if request is not None else call.arguments,
            text,
        )
    else:
        msg = Message(role="tool", content=text, toolCallId=call.id, toolName=call.name)
    state.conversation.append(msg)
    if not counted:  # committed outputs were already added to `new` by tool_preflight
        state.guard.new += estimate_text(text)
