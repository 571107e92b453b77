"""The builder's walks at a site: to a spot (through trees, or natural ground outside the
site, when the plain path is blocked) and to the ring cell that reaches the next placements."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

from loguru import logger

from agency.shelter.blueprint import SIZE
from agency.shelter.earthwork import PATH_DIGGABLE, keep_box
from agency.shelter.models import Pos
from agency.shelter.site_finder import ring_cells
from agency.tools.actions import run_action
from agency.tools.base import ToolContext, ToolFailure
from agency.tools.climb_out import climb_out
from agency.tools.results import EXECUTION_ERROR
from agency.tools.spatial import block_pos
from agency.tools.walking import NO_PROGRESS, dig_walk, time_to_dig, walk

NEAR_SITE = 8  # blocks from a site's middle: its chunks loaded and its cells in reach soon
EYE_HEIGHT = 1.62
PLACE_REACH = 4.5  # survival reach, measured from the eyes


def in_reach(stand: tuple[float, float, float], target: tuple[int, int, int]) -> bool:
    eye = (stand[0], stand[1] + EYE_HEIGHT, stand[2])
    return math.dist(eye, (target[0] + 0.5, target[1] + 0.5, target[2] + 0.5)) <= PLACE_REACH


async def _never() -> bool:
    return False


async def walk_site(
    ctx: ToolContext,
    origin: Pos,
    spot: tuple[float, float, float],
    rng: float,
    good_enough: Callable[[], Awaitable[bool]] = _never,
) -> None:
    """Walk to a spot at the site at origin. If the path is blocked (a bot coming back out of
    the canopy, a leaf wall round a clearing), try again digging through leaves and logs only;
    if that fails too (a bot in the pit its collect of stone left, under a cliff the site is
    on), once more digging through natural ground anywhere but the site (earthwork.keep_box:
    never its floor); underground with none of these getting there, up to the surface first
    and the last once more (`_climbed_out`). A walk that fails where the bot can already do
    its job (`good_enough`) is no failure."""
    x, y, z = spot
    trees = {"x": x, "y": y, "z": z, "range": rng, "digOnly": list(PATH_DIGGABLE)}
    tries: tuple[tuple[str, Callable[[], Awaitable[Any]]], ...] = (
        ("", lambda: walk(ctx, x, y, z, rng, dig_out=False)),  # never through soil: that holes the site's floor
        ("digging through trees only", lambda: run_action(ctx, "move_to", trees)),
        ("digging through natural ground outside the site", lambda: dig_walk(ctx, x, y, z, rng, keep_box(origin))),
    )
    for n, (_, go) in enumerate(tries):
        try:
            await go()
            return
        except ToolFailure as e:
            if e.code != EXECUTION_ERROR:
                raise
            if await good_enough():
                return
            last = n == len(tries) - 1
            if last and NO_PROGRESS in e.message and time_to_dig(ctx) and await _climbed_out(ctx, origin, spot, e):
                try:
                    await tries[-1][1]()
                except ToolFailure:
                    if not await good_enough():
                        raise
                return
            if last or (n > 0 and (NO_PROGRESS not in e.message or not time_to_dig(ctx))):
                raise
            logger.info(f"[Builder] path to {x:.1f},{y:.1f},{z:.1f} blocked ({e.message}); retrying, {tries[n + 1][0]}")


async def _climbed_out(ctx: ToolContext, origin: Pos, spot: tuple[float, float, float], failed: ToolFailure) -> bool:
    """Underground (a bot that worked the night on from its pocket under the hut, out in its
    own tunnels in the morning), no walk reaches the site: every way up goes through the
    site's keep-out box or rock a path does not dig through. A 1.18.2 bench hut failed so at
    its door. Up to the surface first (agency.tools.climb_out: up the staircase it
    came down by day, else straight up its column through natural ground); from under the site
    and its ring only up such a staircase: that column's climb would dig through the hut's
    floor, or its roof if that is of earth. False when the bot is not underground or the climb
    failed."""
    climbed = await climb_out(ctx, for_what="builder", dig_from=_beside(origin))
    if climbed is None:
        return False
    logger.info(
        "[Builder] path to {:.1f},{:.1f},{:.1f} blocked from underground ({}); climbed out: {}",
        *spot,
        failed.message,
        climbed["failed"] or "ok",
    )
    return climbed["failed"] is None


def _beside(origin: Pos) -> Callable[[tuple[int, int, int]], bool]:
    """Is a bot's feet cell outside the site's keep-out box (earthwork.keep_box)? Where a climb
    out may dig up from: one under the site would dig through its floor, or its earth roof."""
    x0, _, z0, x1, _, z1 = keep_box(origin)
    return lambda feet: not (x0 <= feet[0] < x1 and z0 <= feet[2] < z1)


APPROACH_CELLS = 3  # ring cells tried in turn before a placement's walk fails


async def approach(
    ctx: ToolContext, origin: tuple[int, int, int], target: tuple[int, int, int], upcoming: list[tuple[int, int, int]]
) -> None:
    """Stay put if the target is within reach from outside the footprint; else walk to the
    ring cell that reaches it and as many of the upcoming placements as possible (fewest
    walks), the nearest such cell first. A cell the walk cannot get to (a crater beside a hut
    being repaired, a step too high) gives way to the next best, APPROACH_CELLS in all: a
    1.18.2 bench bot's repair failed on the one cell it tried, 1 block from where it stood."""
    pos = (await ctx.snapshot()).position
    feet = block_pos(pos)
    x0, _, z0 = origin
    inside = x0 <= feet[0] < x0 + 5 and z0 <= feet[2] < z0 + 5
    if not inside and in_reach((pos.x, pos.y, pos.z), target):
        return
    cells = [c for c in ring_cells(origin) if in_reach((c[0] + 0.5, c[1], c[2] + 0.5), target)] or ring_cells(origin)

    def score(c: tuple[int, int, int]) -> tuple[int, float]:
        stand = (c[0] + 0.5, c[1], c[2] + 0.5)
        covered = sum(1 for u in upcoming if in_reach(stand, u))
        return (-covered, math.dist(c, feet))

    spots = sorted(cells, key=score)[:APPROACH_CELLS]

    async def placeable_from_here() -> bool:
        p = (await ctx.snapshot()).position
        f = block_pos(p)
        return not (x0 <= f[0] < x0 + 5 and z0 <= f[2] < z0 + 5) and in_reach((p.x, p.y, p.z), target)

    for n, spot in enumerate(spots):
        try:
            await walk_site(ctx, origin, (spot[0] + 0.5, spot[1], spot[2] + 0.5), 0, placeable_from_here)
            return
        except ToolFailure as e:
            if e.code != EXECUTION_ERROR or n == len(spots) - 1:
                raise
            logger.info(
                f"[Builder] no way to the ring cell {list(spot)} for {list(target)} ({e.message}); "
                f"trying {list(spots[n + 1])}"
            )


async def back_to_site(ctx: ToolContext, origin: Pos, why: str) -> None:
    """Walk back to a site out of the bot's loaded chunks (a build resumed after a night in a
    hut 95 blocks away: a 26.1 bench bot's failed on the unloaded site); from under ground, up
    to the surface first (agency.tools.climb_out, never up through the site): a walk that digs
    its way up throws its path away at every block (a 26.1 bench bot at cbab503, seed 3185,
    took six minutes from its mine at y 4 up to its hut's repair at y 87, judged a wedge)."""
    x, y, z = origin
    logger.info("[Shelter] the site at {} is out of the bot's sight ({}): walking back to it", list(origin), why)
    await climb_out(ctx, for_what="builder", dig_from=_beside(origin))
    await walk(ctx, x + SIZE / 2, y, z + SIZE / 2, NEAR_SITE)
