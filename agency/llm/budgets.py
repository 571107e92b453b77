"""Autonomy budgets: caps on LLM calls per hour and tokens per day, and a circuit breaker
after consecutive provider failures, so an autonomous loop can never run away with a paid
API. Shaped like pydantic-ai's UsageLimits: `check_before_request` raises BudgetExceeded naming the
limit and the measured value; `stats()` is flat numbers for /metrics."""

from __future__ import annotations

from collections import deque

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.llm.errors import BudgetExceeded
from agency.llm.settings import BudgetConfig

HOUR_MS = 3_600_000
DAY_MS = 86_400_000


class AutonomyBudget:
    def __init__(self, config: BudgetConfig, clock: Clock = system_clock_ms) -> None:
        self.config = config
        self.clock = clock
        self._calls: deque[int] = deque()  # timestamps of attempts in the last hour
        self._tokens: deque[tuple[int, int]] = deque()  # (timestamp, tokens) in the last day
        self.consecutive_failures = 0
        self.breaker_open_until_ms = 0
        self.caps_hit: dict[str, int] = {"calls_per_hour": 0, "tokens_per_day": 0, "circuit_breaker": 0}

    def _prune(self, now: int) -> None:
        while self._calls and self._calls[0] <= now - HOUR_MS:
            self._calls.popleft()
        while self._tokens and self._tokens[0][0] <= now - DAY_MS:
            self._tokens.popleft()

    def calls_last_hour(self) -> int:
        self._prune(self.clock())
        return len(self._calls)

    def tokens_last_day(self) -> int:
        self._prune(self.clock())
        return sum(t for _, t in self._tokens)

    def breaker_open(self) -> bool:
        return self.clock() < self.breaker_open_until_ms

    def check_before_request(self) -> None:
        now = self.clock()
        self._prune(now)
        c = self.config
        if self.breaker_open():
            self._hit("circuit_breaker", c.breaker_failures, self.consecutive_failures)
        if c.calls_per_hour and len(self._calls) >= c.calls_per_hour:
            self._hit("calls_per_hour", c.calls_per_hour, len(self._calls))
        used = sum(t for _, t in self._tokens)
        if c.tokens_per_day and used >= c.tokens_per_day:
            self._hit("tokens_per_day", c.tokens_per_day, used)
        self._calls.append(now)

    def _hit(self, name: str, limit: float, measured: float) -> None:
        self.caps_hit[name] += 1
        logger.warning("LLM budget cap hit: {} (limit {}, measured {})", name, limit, measured)
        raise BudgetExceeded(name, limit, measured)

    def record(self, ok: bool, tokens: int = 0) -> None:
        """After each attempt. A success closes the breaker; N failures in a row open it."""
        now = self.clock()
        if tokens:
            self._tokens.append((now, tokens))
        if ok:
            self.consecutive_failures = 0
            return
        self.consecutive_failures += 1
        c = self.config
        if c.breaker_failures and self.consecutive_failures >= c.breaker_failures and not self.breaker_open():
            self.breaker_open_until_ms = now + int(c.breaker_cooldown_s * 1000)
            logger.warning(
                "LLM circuit breaker open for {} s after {} consecutive failures",
                c.breaker_cooldown_s,
                self.consecutive_failures,
            )

    def stats(self) -> dict[str, float]:
        """Flat numbers for /metrics (e.g. mcbot_llm_<key>)."""
        return {
            "calls_last_hour": self.calls_last_hour(),
            "calls_per_hour_cap": self.config.calls_per_hour,
            "tokens_last_day": self.tokens_last_day(),
            "tokens_per_day_cap": self.config.tokens_per_day,
            "consecutive_failures": self.consecutive_failures,
            "breaker_open": int(self.breaker_open()),
            **{f"cap_hits_{k}": v for k, v in self.caps_hit.items()},
        }
