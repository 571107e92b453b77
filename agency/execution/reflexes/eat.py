"""The eat reflex: food low, or hurt and unable to heal, with something fit to eat held
(what to eat: agency.execution.hunger). An eat that did not take (neither food nor saturation
rose: the eat was cut short) is not tried again for EAT_RETRY_MS, so the task held for it gets the
body back meanwhile (one bench bot ate its mutton every 4 s for minutes at food 15)."""

from __future__ import annotations

from agency.execution.hunger import food_to_eat
from agency.execution.reflexes.base import ReflexBase
from agency.tools.results import ToolExecutionResult
from agency.world import WorldSnapshot

EAT_RETRY_MS = 15_000
NOT_TAKEN = "did not take"  # the consume action's word for an eat the food did not show (consume.js)


class EatReflex(ReflexBase):
    _food_chosen: str | None = None  # by _eat_due, while the task in hand (what it cooks) was known

    async def _eat(self, snap: WorldSnapshot) -> ToolExecutionResult:
        """Eat what food_to_eat picked when the eat was due (the task is held by now)."""
        food = self._food_chosen or food_to_eat(snap, self.config)
        result = await self.tools.execute("eat", {"item": food}, self.ctx)
        self.stats.ate += 1
        if not result.success and result.error is not None and NOT_TAKEN in result.error.message:
            self._eat_retry_at = self.clock() + EAT_RETRY_MS
        return result

    def _eat_due(self, snap: WorldSnapshot) -> bool:
        if self.clock() < self._eat_retry_at:
            return False
        self._food_chosen = food_to_eat(snap, self.config, self._cooking())
        return self._food_chosen is not None
