"""The cook reflex: hurt and unable to heal, with only raw food to eat held and no task in
hand or waiting, by day on the surface, cook it in a furnace in sight (or one held, placed)
before eating it (what and how many: agency.execution.hunger.food_to_cook). The drive tick
waits for health 16 (docs/contracts.md DRIVE-1), so a bot that heals on raw food stands idle
the longer. A remembered furnace farther off is not walked to (the threats go unanswered while
a reflex holds the body), nor is one cooked at by night or under attack. A cook that fails (no
furnace, no fuel) waits COOK_RETRY_MS, the raw food eaten meanwhile."""

from __future__ import annotations

from loguru import logger

from agency.execution.hunger import food_to_cook, vitals
from agency.execution.reflexes.base import ReflexBase
from agency.tools.smelting import nearby_furnace
from agency.world import WorldSnapshot, night_approaching, underground

COOK_BUDGET_S = 60.0  # a walk to a furnace in sight and its 10 s an item, well within the reflex job's 120 s
COOK_RETRY_MS = 120_000


class CookReflex(ReflexBase):
    _cook_chosen: tuple[str, int] | None = None  # by _cook_due

    def _cook_due(self, snap: WorldSnapshot) -> bool:
        """By day on the surface, no task in hand or waiting (a running one is work, not idling
        under the health gate), not in the night's shelter or burrow, no death's items waiting,
        no hostile near nor a hit taken a moment ago, not just tried."""
        if self.sheltered is not None or self._burrowed or self._dug_in or self.death is not None:
            return False
        if self.clock() < self._cook_retry_at:
            return False
        if night_approaching(snap) or underground(snap) or self._under_attack() or self._hostile_near(snap):
            return False
        if self.executor.goal_in_hand() is not None or self.executor.work_waiting():
            return False
        self._cook_chosen = food_to_cook(snap, self.config)
        return self._cook_chosen is not None

    async def _cook(self, snap: WorldSnapshot) -> None:
        assert self._cook_chosen is not None
        item, count = self._cook_chosen
        if snap.count_of("furnace") == 0 and await nearby_furnace(self.ctx) is None:
            self._cook_retry_at = self.clock() + COOK_RETRY_MS
            logger.info(
                "[Reflex] cook: {}, only raw food held, no furnace in sight or held; next look in {} s",
                vitals(snap),
                COOK_RETRY_MS // 1000,
            )
            return
        logger.info("[Reflex] cook: {}, only raw food held -> cooking {} {} before eating", vitals(snap), count, item)
        async with self._task_held() as paused:
            args = {"item": item, "count": count}
            result, stopped = await self._watched("smelt", args, snap, timeout_s=COOK_BUDGET_S)
        if stopped is not None:  # a threat on the way: answered first, cooked again once safe
            logger.info("[Reflex] cook stopped: {}", stopped)
            self._log({"reflex": "cook", "pausedTask": paused, "ok": False})
            return
        if not result.success:
            self._cook_retry_at = self.clock() + COOK_RETRY_MS
        logger.info(
            "[Reflex] cook -> {} {}",
            "ok" if result.success else "failed",
            result.output
            if result.success
            else f"{result.error}; next cook in {COOK_RETRY_MS // 1000} s at the earliest",
        )
        self._log({"reflex": "cook", "pausedTask": paused, "ok": result.success})
