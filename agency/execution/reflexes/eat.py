"""The eat reflex: food low, or hurt and unable to heal, with something fit to eat held
(what to eat: agency.execution.hunger). An eat that did not take (neither food nor saturation
rose: the eat was cut short) or that the server never finished (timed out) is not tried again for
EAT_RETRY_MS, doubled for each such eat in a row up to EAT_RETRY_MAX_MS, so the task held for it
and the other reflexes get the body back meanwhile. One bench bot ate its mutton every 4 s for
minutes at food 15; another's eats timed out 127 times in a row, 9 s apart, and the night's
shelter never had its turn."""

from __future__ import annotations

from loguru import logger

from agency.execution.hunger import food_to_eat
from agency.execution.reflexes.base import ReflexBase
from agency.tools.results import ToolExecutionResult
from agency.world import WorldSnapshot

EAT_RETRY_MS = 15_000
EAT_RETRY_MAX_MS = 240_000
NOT_TAKEN = "did not take"  # the consume action's word for an eat the food did not show (consume.js)
TIMED_OUT = "timed out"  # the server never finished the eat (mineflayer's consume, or the tool's timeout)


class EatReflex(ReflexBase):
    _food_chosen: str | None = None  # by _eat_due, while the task in hand (what it cooks) was known

    async def _eat(self, snap: WorldSnapshot) -> ToolExecutionResult:
        """Eat what food_to_eat picked when the eat was due (the task is held by now)."""
        food = self._food_chosen or food_to_eat(snap, self.config)
        result = await self.tools.execute("eat", {"item": food}, self.ctx)
        self.stats.ate += 1
        message = result.error.message if not result.success and result.error is not None else ""
        if NOT_TAKEN in message or TIMED_OUT in message.lower():
            self._eats_not_taken += 1
            wait_ms = min(EAT_RETRY_MAX_MS, EAT_RETRY_MS * 2 ** (self._eats_not_taken - 1))
            self._eat_retry_at = self.clock() + wait_ms
            logger.info(
                "[Reflex] eat of {}: {} eat(s) in a row did not take ({}); next try in {} s",
                food,
                self._eats_not_taken,
                message,
                wait_ms // 1000,
            )
        elif result.success:
            self._eats_not_taken = 0
        return result

    def _eat_due(self, snap: WorldSnapshot) -> bool:
        if self.clock() < self._eat_retry_at:
            return False
        self._food_chosen = food_to_eat(snap, self.config, self._cooking())
        return self._food_chosen is not None
