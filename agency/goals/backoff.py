"""Review timing for held goals (docs/contracts.md ACTIVATE-1, ACTIVATE-2): when a hold may
first be reviewed, and how far a failed review pushes the next one.

- repeated-reason ladder, per goalInstanceId per hold reason: the Nth hold for one reason
  waits 5 -> 15 -> 30 -> 60 min (cap) before its first review;
- exhaustion: the 3rd hold for one reason within an hour enters extended cooldown (60 min,
  whatever the ladder says) and is reported as exhausted;
- periodic review: a review that finds the goal still infeasible pushes nextReviewAt by
  5 -> 15 -> 30 min (cap), never below the extended cooldown once exhausted.
"""

from __future__ import annotations

from agency.goals.models import HoldRecord

MINUTE_MS = 60_000
HOUR_MS = 60 * MINUTE_MS
REASON_LADDER_MS = (5 * MINUTE_MS, 15 * MINUTE_MS, 30 * MINUTE_MS, 60 * MINUTE_MS)
EXTENDED_COOLDOWN_MS = 60 * MINUTE_MS
EXHAUSTION_COUNT = 3  # holds for one reason within an hour
REVIEW_LADDER_MS = (5 * MINUTE_MS, 15 * MINUTE_MS, 30 * MINUTE_MS)


def recent_history(history: list[HoldRecord], now_ms: int) -> list[HoldRecord]:
    return [h for h in history if now_ms - h.at < HOUR_MS]


def holds_within_hour(history: list[HoldRecord], reason: str, now_ms: int) -> int:
    return sum(1 for h in recent_history(history, now_ms) if h.reason == reason)


def initial_review_delay_ms(reason_holds: int, hold_count: int) -> int:
    """reason_holds: holds for this reason over the goal's life, this one included (the
    ladder step); hold_count: those within the last hour (exhaustion)."""
    if is_exhausted(hold_count):
        return EXTENDED_COOLDOWN_MS
    return REASON_LADDER_MS[min(max(reason_holds, 1), len(REASON_LADDER_MS)) - 1]


def is_exhausted(hold_count: int) -> bool:
    return hold_count >= EXHAUSTION_COUNT


def review_delay_ms(review_attempts: int, hold_count: int) -> int:
    """Delay after the (review_attempts+1)th infeasible review."""
    step = REVIEW_LADDER_MS[min(review_attempts, len(REVIEW_LADDER_MS) - 1)]
    return max(step, EXTENDED_COOLDOWN_MS) if is_exhausted(hold_count) else step
