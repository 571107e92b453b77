"""The foreground loop of `mcbot run`: keep the bot connected, log what happens to it."""

from __future__ import annotations

import time
from typing import Callable

from loguru import logger

from agency.world import BodyError, EventType
from bot.bridge import BridgeDead, BridgeError
from bot.session import Session

STATUS_EVERY_S = 30.0


def run_forever(s: Session, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> int:
    body = s.body
    snap = body.snapshot()
    logger.info(
        "bot spawned at ({:.0f}, {:.0f}, {:.0f}) in {} mode, health {}, food {}",
        snap.position.x, snap.position.y, snap.position.z, snap.gameMode, snap.health, snap.food,
    )
    next_status = clock() + STATUS_EVERY_S
    while True:
        if s.server is not None and not s.server.running:
            logger.error("embedded server exited; stopping")
            return 1
        try:
            if body.maintain():
                for ev in body.events():
                    if ev.type in (EventType.death, EventType.spawn, EventType.chat, EventType.kicked):
                        logger.info("event {}: {}", ev.type.value, ev.data)
                if clock() >= next_status:
                    snap = body.snapshot()
                    logger.info(
                        "status: health {} food {} pos ({:.0f}, {:.0f}, {:.0f}) time {} hostiles {}",
                        snap.health, snap.food, snap.position.x, snap.position.y, snap.position.z,
                        snap.timeOfDay, snap.hostiles,
                    )
                    next_status = clock() + STATUS_EVERY_S
        except (BodyError, BridgeError, BridgeDead) as e:
            logger.warning("body: {}", e)
        sleep(0.25)
