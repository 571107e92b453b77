"""Reads of the body made from the daemon's event loop. Each runs on a worker thread: a live
body's call waits on node, and the loop is shared by every bot, the HTTP API and the
scheduler."""

from __future__ import annotations

import asyncio
from typing import Any

from loguru import logger

from agency.world import BodyLost, BodyUnavailable, ConnectedBody, WorldSnapshot


async def snapshot_or_none(body: ConnectedBody, *, recent: bool = False) -> WorldSnapshot | None:
    """A snapshot, or None when the body went away between the connected check and the read
    (a dying world or bridge): the body gate says so once, not a stack trace a tick.
    recent: one at most 0.5 s old is good enough (a body with `recent_snapshot` reads it in
    bulk with the other bots'; any other reads now)."""
    read = getattr(body, "recent_snapshot", body.snapshot) if recent else body.snapshot
    try:
        return await asyncio.to_thread(read)
    except BodyLost as e:
        logger.debug("snapshot skipped: {}", e)
        return None


async def blocks_around(body: ConnectedBody | None, radius: int) -> dict[str, Any]:
    """Block counts by name in the cube of `radius` around the bot (air left out).
    BodyUnavailable when there is no bot to read."""
    if body is None or not body.connected:
        raise BodyUnavailable("bot is not connected")
    snap = await asyncio.to_thread(body.snapshot)
    c = (int(snap.position.x // 1), int(snap.position.y // 1), int(snap.position.z // 1))
    side = 2 * radius + 1
    region = await asyncio.to_thread(body.region, (c[0] - radius, c[1] - radius, c[2] - radius), (side, side, side))
    counts = region.counts()
    return {
        "center": {"x": c[0], "y": c[1], "z": c[2]},
        "radius": radius,
        "total": sum(counts.values()),
        "counts": counts,
    }
