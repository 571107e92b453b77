"""run_session: one LLM session under docs/contracts.md LLM-1..15. It always returns an
AgentResult; a model, provider or tool failure never escapes as an exception."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.llm.attempts import run_turn
from agency.llm.budgets import AutonomyBudget
from agency.llm.errors import LlmConfigError
from agency.llm.final_report import synthetic_failure
from agency.llm.messages import Message
from agency.llm.providers import Provider, make_providers
from agency.llm.result import REASON_INTERNAL, REASON_MAX_TURNS, REASON_NOT_CONFIGURED, AgentResult
from agency.llm.rotation import Sleep, TargetRotation
from agency.llm.settings import LlmSettings
from agency.llm.state import SessionState
from agency.llm.toolbox import ToolBox, ToolSpec
from agency.llm.xml_transport import XmlTransport

DEFAULT_SYSTEM_PROMPT = "You are mcbot, an agent living in a Minecraft world. Use tools to find facts; do not guess."
NATIVE_FINAL_HINT = "When done, call agent__final_report exactly once with your answer (format: {fmt})."


async def run_session(
    prompt: str,
    settings: LlmSettings,
    *,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    toolbox: ToolBox | None = None,
    tools: list[ToolSpec] | None = None,
    expected_format: str = "markdown",
    output_schema: dict[str, Any] | None = None,
    http_client: httpx.AsyncClient | None = None,
    providers: dict[str, Provider] | None = None,
    sleep: Sleep = asyncio.sleep,
    clock: Clock = system_clock_ms,
    budget: AutonomyBudget | None = None,
    agent_id: str | None = None,
    txn_id: str | None = None,
    nonce: str | None = None,
    on_progress: Callable[[str], None] | None = None,
) -> AgentResult:
    """One session. `tools` (specs) are wrapped in a ToolBox built from `settings`; pass
    `toolbox` instead to share queues across sessions. `on_progress` receives the model's
    progress reports as they arrive (xml transport). Never raises for model, provider or
    tool failures: they end in the result (success false, finalReport, error)."""
    if not settings.configured:
        return _failed(REASON_NOT_CONFIGURED, "LLM not configured: [[llm.targets]] is empty", expected_format, clock)
    own_client = http_client is None and providers is None
    client = http_client or httpx.AsyncClient()
    try:
        state = SessionState(
            settings=settings,
            toolbox=toolbox
            or ToolBox(
                list(tools or []),
                settings.effective_queues(),
                settings.tool_timeout_ms,
                settings.tool_response_max_bytes,
            ),
            providers=providers or make_providers(client, settings.request_timeout_s),
            rotation=TargetRotation(settings.targets, sleep, clock),
            clock=clock,
            expected_format=expected_format,
            output_schema=output_schema,
            xml=XmlTransport(settings.tool_transport, nonce),
            budget=budget,
            agent_id=agent_id,
            txn_id=txn_id,
            on_progress=on_progress,
        )
        return await _loop(state, prompt, system_prompt)
    except asyncio.CancelledError:
        raise
    except LlmConfigError as e:
        return _failed(REASON_NOT_CONFIGURED, str(e), expected_format, clock)
    except Exception as e:  # noqa: BLE001 - LLM-9: never crash without a result
        logger.exception("LLM session crashed")
        return _failed(REASON_INTERNAL, f"internal error: {type(e).__name__}: {e}", expected_format, clock)
    finally:
        if own_client:
            await client.aclose()


async def _loop(state: SessionState, prompt: str, system_prompt: str) -> AgentResult:
    system = system_prompt
    if state.xml.mode == "native":  # XML modes keep tool text out of the system prompt (LLM-15)
        system += "\n" + NATIVE_FINAL_HINT.format(fmt=state.expected_format)
    state.append(Message(role="system", content=system))
    state.append(Message(role="user", content=prompt))
    for turn in range(1, state.settings.max_turns + 1):
        await run_turn(state, turn)
        if state.done:
            break
    if not state.done:
        last_error = state.error
        state.fail(
            REASON_MAX_TURNS,
            f"max turns ({state.settings.max_turns}) reached without a final report",
            last_error or "max turns exhausted without a final report",
        )
    report = state.final_report or {}
    return AgentResult(
        success=report.get("status") == "success",
        finalReport=report,
        conversation=[m.dump() for m in state.conversation],
        accounting=state.accounting,
        error=None if report.get("status") == "success" else state.error,
    )


def _failed(reason: str, message: str, fmt: str, clock: Clock) -> AgentResult:
    return AgentResult(success=False, finalReport=synthetic_failure(reason, message, fmt, clock()), error=message)
