"""Tasks held for the morning.

A run that fails on surface work met under cover at night (WAITS_FOR_MORNING: no log at the
bot's level, no animal down here) is held as `morning` instead of failed, a goal-bound one
through its goal's hold (whose review waits for the day: agency.goals.runtime): the reflexes
put it back in the queue once the day is back (agency.execution.reflexes.arbiter), or the
executor after MORNING_MAX_HOLD_MS (a bot without reflexes); meanwhile it counts as in flight
(agency.planning.tasks.idempotency) and the drive tick lets the next goal have its turn
(agency.planning.tasks.retry_backoff).
"""

from __future__ import annotations

from agency.clock import Clock
from agency.planning.tasks.idempotency import MORNING_MAX_HOLD_MS


class MorningHold:
    """Whether a task of this bot's is held for the morning, and since when."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.waiting = False
        self._since = 0  # when the last one was held

    def held(self) -> None:
        self.waiting = True
        self._since = self.clock()

    def overdue(self) -> bool:
        """No morning seen for MORNING_MAX_HOLD_MS since the last hold: the night is long over."""
        return self.waiting and self.clock() - self._since >= MORNING_MAX_HOLD_MS
