"""The head-free reflex: the bot's eyes inside a block it suffocates in (the snapshot's
`inWall`) are answered before anything but drowning by digging it free (agency.tools.head_free).
A dig that failed (a block too hard for the tools held, bedrock) is not tried again for
RETRY_MS, so the task held for it gets the body back meanwhile; the world hurts the bot either
way. A 1.18.2 bench bot digging for coal at y 13 suffocated with no reflex answering."""

from __future__ import annotations

from loguru import logger

from agency.execution.reflexes.base import ReflexBase
from agency.world import WorldSnapshot

RETRY_MS = 5_000


class HeadFreeReflex(ReflexBase):
    _head_free_retry_at = 0

    def _head_free_due(self, snap: WorldSnapshot) -> bool:
        return snap.inWall and snap.health > 0 and self.clock() >= self._head_free_retry_at

    async def _free_head(self) -> None:
        try:
            fresh = await self.ctx.snapshot()  # the tick's reading may be half a second old
        except Exception:  # noqa: BLE001 - no reading: the tool reads again
            fresh = None
        if fresh is not None and not fresh.inWall:
            return  # the gravel fell on, or was dug by a step: nothing to do
        async with self._task_held() as paused:
            result = await self.tools.execute("free_head", {}, self.ctx)
        if result.success:
            self.stats.heads_freed += 1
        else:
            self._head_free_retry_at = self.clock() + RETRY_MS
        logger.log(
            "INFO" if result.success else "WARNING",
            "[Reflex] the head in a block (suffocating) -> dug free: {} {}",
            "ok" if result.success else "failed",
            result.output if result.success else f"{result.error}; not tried again for {RETRY_MS // 1000} s",
        )
        dug = (result.output or {}).get("dug", []) if result.success else []
        self._log({"reflex": "free_head", "pausedTask": paused, "ok": result.success, "dug": len(dug)})
