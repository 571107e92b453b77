"""LLM-backed keep-alive thoughts (docs/contracts.md KEEPALIVE-1, KEEPALIVE-2, AUTONOMY-1).

One single-turn text completion per introspection, through the provider layer of
agency.llm (not run_session: a thought is plain text, not a tool-driven session with a
final report). The prompt states the frame's facts and the reply FORMAT only: a short
first-person thought, an optional `[GOAL: ...]` tag the model may add of its own accord,
and a final `INTENT:` line. It never lists candidate activities or advises anything (AUTONOMY-1),
and it says outright that doing nothing is a complete answer (AUTONOMY-2). The reply is returned
raw; keep-alive (or the eval harness) sanitizes, grounds and routes it.

Budgets: every attempt goes through AutonomyBudget.check_before_request; a cap or an open
circuit breaker means no call at all and `generate` returns None (logged). Targets are
tried in order; a non-fatal provider failure falls through to the next one.

Counting: KeepAlive already counts llmCalls around generate()/agenerate(), so the daemon
builds this generator without counters; the eval harness, which calls it directly, passes
its own.

The daemon awaits `agenerate` on its event loop (KeepAlive.atick). `generate` and
`complete` block, for synchronous callers (tests, KeepAlive.tick).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.cognition.counters import AgencyCounters
from agency.cognition.situation_frame import SituationFrame
from agency.llm.budgets import AutonomyBudget
from agency.llm.errors import BudgetExceeded, ProviderError
from agency.llm.messages import LlmRequest, Message, Sampling
from agency.llm.providers import Provider, open_providers, provider_for
from agency.llm.settings import LlmSettings, TargetConfig

THOUGHT_MAX_OUTPUT_TOKENS = 512  # a thought is a few sentences; room left for a short reasoning preamble

# Format instructions only. No activity names, no advice, no candidate list (AUTONOMY-1); the
# KEEPALIVE-1-style test in tests/unit/eval scans this text for action verbs.
THOUGHT_SYSTEM_PROMPT = (
    "You are the inner voice of a Minecraft player, thinking quietly to yourself.\n"
    "Write one to three short sentences in the first person about your situation.\n"
    "Use only the facts you are given: do not invent items, creatures or places they do not mention.\n"
    "Doing nothing is a complete answer; no tag is needed for it.\n"
    "Only if you yourself decide on something to do, add one tag in the form "
    "[GOAL: <action> <target> <amount>].\n"
    "End with a final line of the form: INTENT: <one word naming what the thought is about, or none>"
)

GenerationStatus = Literal["ok", "silent", "budget_exceeded", "error", "not_configured"]


@dataclass
class Generation:
    """One generate() call as the eval harness records it."""

    status: GenerationStatus
    text: str | None = None
    target: str | None = None  # provider/model that answered
    actual_model: str | None = None
    latency_ms: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    system_prompt: str = THOUGHT_SYSTEM_PROMPT
    user_prompt: str = ""


def render_prompt(frame: SituationFrame) -> str:
    """The user turn: the frame exactly as rendered under its profile, nothing added."""
    return "Your situation right now:\n" + frame.text


def thought_sampling(settings: LlmSettings, target: TargetConfig) -> Sampling:
    s = settings.sampling_for(target)
    return s.model_copy(update={"max_output_tokens": min(s.max_output_tokens, THOUGHT_MAX_OUTPUT_TOKENS)})


class LlmThoughtGenerator:
    """A keep-alive ThoughtGenerator: generate(frame) -> raw reply text or None."""

    def __init__(
        self,
        settings: LlmSettings,
        *,
        budget: AutonomyBudget | None = None,
        counters: AgencyCounters | None = None,
        clock: Clock = system_clock_ms,
        providers: dict[str, Provider] | None = None,
        system_prompt: str = THOUGHT_SYSTEM_PROMPT,
        max_output_tokens: int = THOUGHT_MAX_OUTPUT_TOKENS,
    ) -> None:
        self.settings = settings
        self.budget = budget if budget is not None else AutonomyBudget(settings.budgets, clock)
        self._counters = counters
        self._providers = providers
        self._system = system_prompt
        self._max_output = max_output_tokens

    @property
    def model_ids(self) -> list[str]:
        return [t.label for t in self.settings.targets]

    def generate(self, frame: SituationFrame) -> str | None:
        return _text(self.complete(frame))

    async def agenerate(self, frame: SituationFrame) -> str | None:
        """generate() for the event loop: awaits the model instead of blocking."""
        return _text(await self.acomplete(frame))

    def complete(self, frame: SituationFrame) -> Generation:
        """Blocking, for synchronous callers. Called from a thread that runs an event loop,
        it runs the request on a helper thread rather than fail, and waits for it, so
        nothing runs alongside; code on the loop should await acomplete instead."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.acomplete(frame))
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.acomplete(frame)).result()

    async def acomplete(
        self, frame: SituationFrame, *, counters: AgencyCounters | None = None, note: str = ""
    ) -> Generation:
        """counters: where this call counts llmCalls (default: the constructor's, if any);
        note: a line after the frame (a player's words in chat, agency.chat.talk)."""
        counters = counters if counters is not None else self._counters
        user = render_prompt(frame) + (f"\n\n{note}" if note else "")
        gen = Generation(status="not_configured", system_prompt=self._system, user_prompt=user)
        if not self.settings.configured:
            gen.error = "no [[llm.targets]] configured"
            return gen
        messages = [Message(role="system", content=self._system), Message(role="user", content=user)]
        started = time.perf_counter()
        async with open_providers(self.settings.request_timeout_s, self._providers) as providers:
            for target in self.settings.targets:
                if not self._admit(gen, counters):
                    break
                done = await self._attempt(gen, providers, target, messages)
                if done:
                    break
        gen.latency_ms = int((time.perf_counter() - started) * 1000)
        return gen

    def _admit(self, gen: Generation, counters: AgencyCounters | None) -> bool:
        """Budget check before each request: a cap hit means no call (and no llmCalls)."""
        try:
            self.budget.check_before_request()
        except BudgetExceeded as e:
            logger.info("[KeepAlive] llm_skipped reason=budget limit={} measured={:g}", e.limit_name, e.measured)
            gen.status, gen.error = "budget_exceeded", str(e)
            return False
        if counters is not None:
            counters.increment("llmCalls")
        return True

    async def _attempt(
        self, gen: Generation, providers: dict[str, Provider], target: TargetConfig, messages: list[Message]
    ) -> bool:
        """One request to one target; True when the generation is settled (answer or fatal)."""
        sampling = thought_sampling(self.settings, target)
        if sampling.max_output_tokens > self._max_output:
            sampling = sampling.model_copy(update={"max_output_tokens": self._max_output})
        request = LlmRequest(model=target.model, messages=messages, sampling=sampling)
        t0 = time.perf_counter()
        try:
            response = await provider_for(providers, target.provider).complete(request, target)
        except ProviderError as e:
            self.budget.record(False)
            gen.attempts.append(
                {
                    "target": target.label,
                    "ok": False,
                    "error": str(e),
                    "latency_ms": int((time.perf_counter() - t0) * 1000),
                }
            )
            logger.warning("[KeepAlive] llm_failed target={} {}", target.label, e)
            gen.status, gen.error = "error", str(e)
            return e.fatal
        usage = response.usage.model_dump()
        self.budget.record(True, response.usage.totalTokens)
        gen.attempts.append(
            {
                "target": target.label,
                "ok": True,
                "latency_ms": int((time.perf_counter() - t0) * 1000),
                "usage": usage,
                "stop_reason": response.stop_reason,
            }
        )
        gen.target, gen.actual_model, gen.usage, gen.error = target.label, response.actual_model, usage, None
        text = response.content.strip()
        gen.status, gen.text = ("ok", response.content) if text else ("silent", None)
        return True


def _text(gen: Generation) -> str | None:
    return gen.text if gen.status == "ok" else None


def build_thought_generator(
    llm_config: Any,
    clock: Clock = system_clock_ms,
    system_prompt: str = THOUGHT_SYSTEM_PROMPT,
    max_output_tokens: int = THOUGHT_MAX_OUTPUT_TOKENS,
    budget: AutonomyBudget | None = None,
) -> LlmThoughtGenerator | None:
    """From the `[llm]` section (bot.config.llm.LlmSection or a dict): None when no targets,
    so keep-alive keeps publishing nothing (AUTONOMY-2)."""
    data = llm_config if isinstance(llm_config, dict) else llm_config.model_dump()
    settings = LlmSettings.model_validate(data)
    if not settings.configured:
        return None
    return LlmThoughtGenerator(
        settings, budget=budget, clock=clock, system_prompt=system_prompt, max_output_tokens=max_output_tokens
    )
