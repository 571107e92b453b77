"""Context guard (docs/contracts.md LLM-10).

Counters: ctx (committed by the last successful response, provider-reported), pending
(appended since the last request), new (tool outputs of the current turn, flushed into
pending at every evaluation), schema (tool definitions of the upcoming request).
projected = ctx + pending + new + schema; limit = window - buffer - maxOutputTokens.
Shaped like pydantic-ai's UsageLimits: `check_*` methods return a decision carrying the
limit and the measured value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from loguru import logger

from agency.llm.messages import TokenUsage


@dataclass(frozen=True)
class GuardDecision:
    ok: bool
    projected: int
    limit: int
    where: str  # "turn_preflight" | "tool_preflight"

    @property
    def remaining(self) -> int:
        return self.limit - self.projected


@dataclass
class ContextGuard:
    ctx: int = 0
    pending: int = 0
    new: int = 0
    schema: int = 0
    blocked: list[tuple[str, str]] = field(default_factory=list)  # (provider, model) pairs that tripped

    def flush(self) -> None:
        """Move `new` into `pending` so nothing is lost across retries."""
        self.pending += self.new
        self.new = 0

    def add_pending(self, tokens: int) -> None:
        self.pending += tokens

    def projected(self, extra: int = 0) -> int:
        return self.ctx + self.pending + self.new + self.schema + extra

    def commit(self, usage: TokenUsage, estimate: int) -> None:
        """After a successful response: ctx = input + output + cached as reported (the
        estimate when a server reports no usage); everything pending is now inside ctx."""
        reported = usage.inputTokens + usage.outputTokens + usage.cachedTokens
        self.ctx = reported if reported > 0 else estimate
        self.pending = 0
        self.new = 0

    def turn_preflight(self, limit: int, ephemeral: int = 0, target: tuple[str, str] | None = None) -> GuardDecision:
        self.flush()
        projected = self.projected(ephemeral)
        decision = GuardDecision(projected <= limit, projected, limit, "turn_preflight")
        logger.debug(
            "LLM request prepared: ctx {} new {} schema {} expected {} limit {}",
            self.ctx,
            self.pending + ephemeral,
            self.schema,
            projected,
            limit,
        )
        if not decision.ok and target is not None:
            self.blocked.append(target)
        return decision

    def tool_preflight(self, tokens: int, limit: int) -> GuardDecision:
        """Would committing a tool output of `tokens` overflow? Commits it when it fits."""
        self.flush()
        projected = self.projected(tokens)
        decision = GuardDecision(projected <= limit, projected, limit, "tool_preflight")
        if decision.ok:
            self.new += tokens
        else:
            logger.warning(
                "tool output dropped: projected_tokens={} limit_tokens={} remaining_tokens={}",
                projected,
                limit,
                max(0, limit - self.projected()),
            )
        return decision
