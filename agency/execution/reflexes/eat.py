"""The eat reflex: food low, or hurt and unable to heal, with something fit to eat held
(what to eat: agency.execution.hunger)."""

from __future__ import annotations

from agency.execution.hunger import food_to_eat
from agency.execution.reflexes.base import ReflexBase
from agency.tools.results import ToolExecutionResult
from agency.world import WorldSnapshot


class EatReflex(ReflexBase):
    async def _eat(self, snap: WorldSnapshot) -> ToolExecutionResult:
        """Eat what food_to_eat picks, inside the task held by the arbiter."""
        result = await self.tools.execute("eat", {"item": food_to_eat(snap, self.config)}, self.ctx)
        self.stats.ate += 1
        return result
