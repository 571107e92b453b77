"""What the HTTP API calls on one bot's agency: its API context, the blocks around the bot,
a user's goal, why a task waits and which tasks stall. No bot to serve a request with is
the API's BotUnavailable (a 503)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from agency.goals.user_goals import GoalDecision, GoalRequest
from agency.perception.reads import blocks_around
from agency.planning.stalls import stalled_tasks
from agency.planning.tasks.models import TaskStatus
from agency.planning.waiting import waiting_reason
from agency.world import BodyUnavailable
from bot.runtime.api import ApiContext, BotUnavailable
from bot.runtime.wiring_core import AgencyCore


class AgencyApi(AgencyCore):
    """One bot's side of the HTTP API (bot/runtime/api/)."""

    def api_context(self, daemon: Any) -> ApiContext:
        """This bot's HTTP API (bot/runtime/api/daemon_context.py)."""
        from bot.runtime.api.daemon_context import bot_api_context  # noqa: PLC0415 - it imports this module's users

        return bot_api_context(self, daemon)

    async def blocks_around(self, radius: int) -> dict[str, Any]:
        """Block counts by name in the cube of `radius` around the bot (agency.perception.reads)."""
        with _unavailable_is_503():
            return await blocks_around(self.body, radius)

    async def submit_goal(self, request: GoalRequest) -> GoalDecision:
        """A user's goal (agency.goals.intake)."""
        with _unavailable_is_503():
            return await self.intake.submit(request)

    def waiting_now(self) -> Callable[[Any], str | None]:
        """Why a task waits, in words (agency.planning.waiting), None when it does not: the
        bot's state read once, for a whole list of tasks."""
        mine = self.claim_as
        active = self.tasks.held_by(mine, TaskStatus.active) if mine else self.tasks.list_by_status(TaskStatus.active)
        held = self.reflexes.hold_reason if self.reflexes is not None else None
        running, connected = (active[0] if active else None), self._connected
        return lambda task: waiting_reason(task, held=held, running=running, connected=connected)

    def stalled(self) -> list[dict[str, Any]]:
        stats = self.executor.stats if self.executor else None
        return stalled_tasks(
            self.tasks.list_by_status(*TaskStatus),
            self.clock(),
            stats.last_tick_ms if stats is not None else None,
            self.cfg.drive_tick.stuck_timeout_ms,
            stats.last_busy_ms if stats is not None else None,
        )


@contextmanager
def _unavailable_is_503() -> Iterator[None]:
    """No bot to serve the request with is the API's BotUnavailable (a 503)."""
    try:
        yield
    except BodyUnavailable as e:
        raise BotUnavailable(str(e)) from None
