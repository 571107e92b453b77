"""Review timing for held goals (protocol D): when a hold may first be reviewed, and how
far a failed review pushes the next one.

Two ladders, both per goalInstanceId:
- repeated-reason: the Nth hold for the same reason within an hour waits 5, 15 min; the
  3rd within the hour enters extended cooldown (60 min) and is reported as exhausted;
- periodic review: a review that finds the goal still infeasible pushes nextReviewAt by
  5 -> 15 -> 30 min (cap), never below the extended cooldown once exhausted.
"""

from __future__ import annotations

from agency.goals.models import HoldRecord

MINUTE_MS = 60_000
HOUR_MS = 60 * MINUTE_MS
REASON_LADDER_MS = (5 * MINUTE_MS, 15 * MINUTE_MS)
EXTENDED_COOLDOWN_MS = 60 * MINUTE_MS
EXHAUSTION_COUNT = 3  # holds for one reason within an hour
REVIEW_LADDER_MS = (5 * MINUTE_MS, 15 * MINUTE_MS, 30 * MINUTE_MS)


def recent_history(history: list[HoldRecord], now_ms: int) -> list[HoldRecord]:
    return [h for h in history if now_ms - h.at < HOUR_MS]


def holds_within_hour(history: list[HoldRecord], reason: str, now_ms: int) -> int:
    return sum(1 for h in recent_history(history, now_ms) if h.reason == reason)


def initial_review_delay_ms(hold_count: int) -> int:
    """hold_count counts this hold: 1 -> 5 min, 2 -> 15 min, >= 3 -> 60 min."""
    if hold_count >= EXHAUSTION_COUNT:
        return EXTENDED_COOLDOWN_MS
    return REASON_LADDER_MS[max(hold_count, 1) - 1]


def is_exhausted(hold_count: int) -> bool:
    return hold_count >= EXHAUSTION_COUNT


def review_delay_ms(review_attempts: int, hold_count: int) -> int:
    """Delay after the (review_attempts+1)th infeasible review."""
    step = REVIEW_LADDER_MS[min(review_attempts, len(REVIEW_LADDER_MS) - 1)]
    return max(step, EXTENDED_COOLDOWN_MS) if is_exhausted(hold_count) else step
