"""One turn's LLM attempts (docs/contracts.md LLM-3, LLM-10..12): up to maxRetries attempts,
attempt N on targets[(N-1) % len]; context guard before every request; classified
failures; empty, plain-text and reasoning-only responses; synthetic retries with ephemeral
notices."""

from __future__ import annotations

import time

from loguru import logger

from agency.llm.accounting import llm_entry
from agency.llm.errors import BudgetExceeded, ProviderError
from agency.llm.final_report import process_final_report, text_fallback
from agency.llm.messages import LlmRequest, LlmResponse, Message
from agency.llm.providers import provider_for
from agency.llm.result import REASON_BUDGET, REASON_FATAL
from agency.llm.settings import TargetConfig
from agency.llm.state import SessionState
from agency.llm.tokens import estimate_messages
from agency.llm.tool_phase import handle_tool_calls, record_final_tool, record_progress
from agency.llm.xml_transport import FINAL_XML_COMMAND, XmlParse

EMPTY_NOTICE = (
    "System notice: plain text responses without tool calls are ignored. Use final_report to provide your answer."
)
XML_EMPTY_NOTICE = "System notice: no valid tag for this session's nonce was found. Use the slots given."
PROGRESS_ALONE_NOTICE = (
    "System notice: a progress report alone is not a step. Call a tool in a numbered slot, or write the final report."
)
TRUNCATED_NOTICE = "System notice: your final report was cut off (output limit). Write it again, shorter."


def _invalid_notice(e: ProviderError) -> str:
    return f"System notice: your previous response could not be used ({e.message}). Respond again."


async def run_turn(state: SessionState, turn: int) -> None:
    """Sets state.done when the session ends; returns normally when the turn is over."""
    retry_notices: list[Message] = []  # ephemeral: used for the next attempt only
    for attempt in range(1, state.settings.max_retries + 1):
        index, target = state.rotation.target_for(attempt)
        final_turn = state.final_turn(turn)
        context = _preflight(state, target, final_turn, retry_notices)
        final_turn = state.final_turn(turn)  # the guard may have forced it
        if state.budget is not None:
            try:
                state.budget.check_before_request()
            except BudgetExceeded as e:
                state.fail(REASON_BUDGET, f"LLM budget exhausted: {e}", str(e))
                return
        await state.rotation.wait_if_all_limited()
        messages = state.conversation + state.ephemeral(final_turn) + retry_notices
        request = LlmRequest(
            model=target.model,
            messages=messages,
            tools=state.native_tools(final_turn),
            tool_choice="auto",
            sampling=state.settings.sampling_for(target),
        )
        response = await _send(state, target, request, context)
        retry_notices = []
        if isinstance(response, ProviderError):
            if response.fatal:
                state.fail(REASON_FATAL, f"LLM provider failed fatally: {response}", str(response))
                return
            if response.kind == "rate_limit":
                state.rotation.note_rate_limit(index, response.retry_after_s)
            elif response.kind == "invalid_response":
                retry_notices = [Message(role="user", content=_invalid_notice(response))]
            state.error = str(response)
            continue
        state.rotation.note_ok(index)
        state.last_target = target
        notice = await _handle_response(state, response, final_turn, messages)
        if notice is None:
            return
        retry_notices = [Message(role="user", content=notice)]
    logger.warning("turn {} failed: {} attempts exhausted", turn, state.settings.max_retries)


def _preflight(state: SessionState, target: TargetConfig, final_turn: bool, notices: list[Message]) -> dict[str, int]:
    """turn_preflight; returns the request's token metrics (expected = ctx + new + schema).
    Over the limit, the session is forced into its final turn and the tool list shrinks to
    the final report; if even that does not fit, the request goes out best effort (LLM-10)
    after the post-shrink warning, and a provider that rejects it is handled like any
    other provider error."""
    guard = state.guard
    limit = state.settings.context_limit_for(target)
    pair = (target.provider, target.model)
    ephemeral = estimate_messages(state.ephemeral(final_turn) + notices)
    guard.schema = state.schema_tokens(final_turn)
    decision = guard.turn_preflight(limit, ephemeral, pair)
    if not decision.ok:
        state.force_final("context")
        guard.schema = state.schema_tokens(True)  # recomputed for the reduced tool set
        ephemeral = estimate_messages(state.ephemeral(True) + notices)
        decision = guard.turn_preflight(limit, ephemeral, pair)
        if not decision.ok:
            logger.warning(
                "context still over limit after shrinking tools: projected {} > limit {}; sending best effort",
                decision.projected,
                decision.limit,
            )
    return {
        "ctxTokens": guard.ctx,
        "newTokens": guard.pending + ephemeral,
        "schemaTokens": guard.schema,
        "expectedTokens": decision.projected,
        "limitTokens": decision.limit,
    }


async def _send(
    state: SessionState, target: TargetConfig, request: LlmRequest, context: dict[str, int]
) -> LlmResponse | ProviderError:
    provider = provider_for(state.providers, target.provider)
    started = time.perf_counter()
    timestamp = state.clock()
    response: LlmResponse | ProviderError
    try:
        response = await provider.complete(request, target)
    except ProviderError as e:
        response = e
    latency = int((time.perf_counter() - started) * 1000)
    ok = response if not isinstance(response, ProviderError) else None
    state.accounting.append(
        llm_entry(
            provider=target.provider,
            model=target.model,
            ok=ok is not None,
            latency_ms=latency,
            timestamp=timestamp,
            usage=ok.usage if ok is not None else None,
            error=None if ok is not None else str(response),
            stop_reason=ok.stop_reason if ok is not None else None,
            actual_model=ok.actual_model if ok is not None else None,
            agent_id=state.agent_id,
            txn_id=state.txn_id,
            **context,
        )
    )
    if state.budget is not None:
        state.budget.record(ok is not None, ok.usage.totalTokens if ok is not None else 0)
    return response


async def _handle_response(state: SessionState, r: LlmResponse, final_turn: bool, sent: list[Message]) -> str | None:
    """Returns None when the turn is over, else the notice for a synthetic retry."""
    xml = state.xml
    parsed = xml.parse(r.content, r.stop_reason, allow_tools=not final_turn) if xml.mode != "native" else XmlParse()
    if parsed.final_truncated:
        return TRUNCATED_NOTICE
    if r.is_empty:
        return EMPTY_NOTICE  # not added to the conversation; counts as an attempt
    if r.reasoning_only:
        state.commit_response(r.usage, sent, Message(role="assistant", content="", reasoning=r.reasoning))
        return None  # the turn proceeds; reasoning is kept for the next turn
    if parsed.has_final:
        state.commit_response(
            r.usage, sent, Message(role="assistant", content=r.content, reasoning=r.reasoning or None)
        )
        args = xml.final_args(parsed, state.expected_format)
        outcome = process_final_report(args, state.expected_format, state.output_schema, state.clock())
        record_final_tool(state, FINAL_XML_COMMAND, args, outcome, source="xml")
        return None
    if r.tool_calls or parsed.calls:
        xml_mode = bool(parsed.calls)
        calls = parsed.calls if xml_mode else r.tool_calls
        state.commit_response(
            r.usage,
            sent,
            Message(
                role="assistant",
                content=r.content,
                reasoning=r.reasoning or None,
                toolCalls=None if xml_mode else calls,
            ),
        )
        if parsed.progress is not None:  # it rides along with the calls it describes
            record_progress(state, parsed.progress, "xml")
        await handle_tool_calls(state, calls, xml_mode, final_turn)
        return None
    if xml.mode == "xml" and not final_turn:
        return PROGRESS_ALONE_NOTICE if parsed.progress is not None else XML_EMPTY_NOTICE
    if final_turn:  # LLM-6: text on the final turn is the report
        outcome = text_fallback(r.content, state.expected_format, state.output_schema, state.clock())
        if outcome.report is not None:
            state.commit_response(
                r.usage, sent, Message(role="assistant", content=r.content, reasoning=r.reasoning or None)
            )
            state.finish(outcome.report)
            return None
        return f"System notice: {outcome.error}. Call agent__final_report with a valid report."
    return EMPTY_NOTICE
