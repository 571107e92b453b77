"""Climbing out: a bot underground (after digging down for ore, in a pit, under a lake's bed)
gets back to the surface, up the staircase it dug or up through the ground (a column near
that is clear to dig, or one farther along a level tunnel); a bot below the band an ore lies
in rises into it (rise_into_band)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from loguru import logger

from agency.blocks import DEEP_ROCK, ROCK, SOIL, is_liquid, natural_ground
from agency.game.ores import ore_floor, ore_level
from agency.tools.actions import run_action
from agency.tools.base import ToolContext, ToolFailure, ToolTimeout
from agency.tools.climbing import CLIMB_RADIUS, WAYS, Column, along, clear_column_along, climb_columns
from agency.tools.mining import STAIRCASES_HOOK, TUNNEL_BLOCKS, descend_timeout_s, has_pickaxe
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import block_pos
from agency.tools.walking import dig_walk, walk
from agency.world import night_approaching

SKY_CHECK = 40  # blocks read over the bot's head to tell underground from the surface
# Blocks read over the head for a column to climb: a lake's or a sea's water lies well over
# SKY_CHECK from a bot deep down (a 1.18.2 bench bot at y -4 dug up 41 blocks of a column
# that looked clear, to a lake bed's gravel at y 50 under water to y 62).
SKY_READ = 128
WORLD_TOP = 320  # the overworld's build limit (1.18+): nothing is read over it
MAX_TUNNELS = 2  # level tunnels to a clear column in one climb out (one may turn at a hazard)
GROUND_ROOF = SOIL | ROCK | DEEP_ROCK  # over the head: underground (leaves, logs or planks are not)
MIN_ROOF = 3  # blocks of it: a hut's dirt roof or an overhang is thinner
CLIMB_BACK_WITHIN = 96  # a staircase top farther than this is not walked back to
DIG_UP_ROUNDS = 10  # climbs of up to SKY_CHECK blocks each: from the bottom of the world to y 320


async def _ground_over(ctx: ToolContext, here: tuple[int, int, int]) -> list[int]:
    """The heights of the soil and rock blocks over the bot's head (SKY_CHECK up)."""
    column = await ctx.region((here[0], here[1], here[2]), (1, SKY_CHECK, 1))
    return [y for y in range(here[1] + 2, here[1] + SKY_CHECK) if column.block_at(here[0], y, here[2]) in GROUND_ROOF]


async def pillar_up(ctx: ToolContext, y: int, *, dam: bool = False) -> dict[str, Any]:
    """Straight up to feet height y where the bot stands, digging natural ground over the head
    and placing a block under the feet at each jump (node/lib/actions/pillar.js); it stops at a
    liquid (unless `dam`: walled off with blocks held first), something that falls or a block
    it may not dig, naming it."""
    args: dict[str, Any] = {"targetY": y, "digOnly": list(natural_ground())}
    return await run_action(ctx, "pillar", {**args, "dam": True} if dam else args)


async def _tunnel_to_clear_column(
    ctx: ToolContext, now: tuple[int, int, int], dig_from: Callable[[tuple[int, int, int]], bool]
) -> bool:
    """No column near is clear to dig up (water, lava, sand or gravel over them all: a lake's
    or a sea's bed): a level tunnel to the nearest clear one along the four ways, up to
    TUNNEL_REACH off. False when there is none (or the caller keeps it out)."""
    height = min(SKY_READ, WORLD_TOP - now[1])
    found: list[tuple[int, str, Column]] = []
    for way in WAYS:
        origin, size = along(now, way, height)
        hit = clear_column_along(await ctx.region(origin, size), now, way, GROUND_ROOF, dig_from)
        if hit is not None:
            found.append((hit[0], way, hit[1]))
    if not found:
        return False
    blocks, way, c = min(found)
    logger.info(
        "[Tools] no column within {} blocks of {} {} {} is clear to dig up (water, lava, sand or gravel over "
        "them); tunnelling {} {} blocks to one at {} {} (top y {})",
        CLIMB_RADIUS,
        *now,
        way,
        blocks,
        c.x,
        c.z,
        c.top,
    )
    timed = ctx.within_ms(int(descend_timeout_s(blocks) * 1000))
    try:
        await run_action(timed, "tunnel", {"blocks": blocks, "direction": way})
    except (ToolFailure, ToolTimeout) as e:
        ctx.check()  # the climb's own time is up: no more of it
        moved = block_pos((await ctx.snapshot()).position) != now
        then = "looking again from where it got to" if moved else "digging up from here"
        logger.info("[Tools] the tunnel {} stopped ({}); {}", way, e, then)
        return moved
    return True


async def _dig_up(
    ctx: ToolContext,
    now: tuple[int, int, int],
    top: int,
    dig_from: Callable[[tuple[int, int, int]], bool],
    *,
    may_tunnel: bool = True,
) -> bool:
    """Pillar up to the surface through the nearest column safe to dig (climbing.climb_columns,
    SKY_READ blocks of it read) and allowed (`dig_from`: not under a hut's floor), the next
    when one fails; with none near, a level tunnel to one farther (`may_tunnel`; True when the
    bot tunnelled: the caller looks again from there). Then the bot's own column (to its top
    `top`), water and lava in the way walled off with blocks held: a 26.1 bench bot at the foot
    of a flooded ravine, every walk to a column near refused, never tried its own and stayed
    there three and a half game days. A column beside the bot's is reached by a digging walk at
    the bot's level first."""
    r = CLIMB_RADIUS
    height = min(SKY_READ, WORLD_TOP - now[1])
    region = await ctx.region((now[0] - r, now[1], now[2] - r), (2 * r + 1, height, 2 * r + 1))
    near = [c for c in climb_columns(region, now, GROUND_ROOF, limit=9) if dig_from((c.x, now[1], c.z))][:3]
    if not near and may_tunnel and await _tunnel_to_clear_column(ctx, now, dig_from):
        return True
    own_clear = any((c.x, c.z) == (now[0], now[2]) for c in near)
    columns = near if own_clear else [*near, Column(now[0], now[2], top)]
    # no dam up into a lake or a sea over the column's top: the pillar would wall the bot in a
    # tube under it (the tunnel out from under it is _tunnel_to_clear_column's)
    under_water = any(is_liquid(region.block_at(now[0], y, now[2])) for y in range(top + 1, top + 4))
    for i, c in enumerate(columns):
        here = block_pos((await ctx.snapshot()).position)
        dam = not own_clear and not under_water and i == len(columns) - 1
        try:
            if dam:
                logger.info(
                    "[Tools] digging up its own column at {} {} (top y {}), walling off water or lava in the way "
                    "with blocks held",
                    c.x,
                    c.z,
                    c.top,
                )
            elif (c.x, c.z) != (here[0], here[2]):
                logger.info(
                    "[Tools] digging up at {} {} (top y {}), {:.1f} blocks off: the column overhead has water, "
                    "lava, sand or gravel in the way",
                    c.x,
                    c.z,
                    c.top,
                    math.dist((c.x, c.z), (now[0], now[2])),
                )
            if (c.x, c.z) != (here[0], here[2]):
                await dig_walk(ctx, c.x + 0.5, here[1], c.z + 0.5, 0)
            await pillar_up(ctx, c.top + 1, dam=dam)
            return False
        except (ToolFailure, ToolTimeout) as e:
            if i < len(columns) - 1:
                logger.info("[Tools] no way up at {} {} ({}); trying the next column", c.x, c.z, e)
                continue
            # the pathfinder may find a way around what stopped the pillars (a pocket of gravel,
            # a flow, an ore the pillar may not dig)
            logger.info("[Tools] no way straight up at {} {} ({}); walking up, digging", c.x, c.z, e)
            await walk(ctx, c.x + 0.5, c.top + 1, c.z + 0.5, 1)
    return False


async def climb_out(
    ctx: ToolContext,
    min_roof: int = MIN_ROOF,
    *,
    for_what: str = "explore",
    dig: bool = True,
    dig_from: Callable[[tuple[int, int, int]], bool] = lambda feet: True,
) -> dict[str, Any] | None:
    """Underground (min_roof, by default MIN_ROOF, or more blocks of soil or rock over the bot's
    head: after digging down for ore), get back to the surface: up the staircase it dug (the
    newest descent start within CLIMB_BACK_WITHIN, walked without digging), else, or when that
    walk fails, (`dig`) up to the top of its column, digging through natural ground (of a column
    near when its own has water, lava, sand or gravel in the way, or of one farther along a
    level tunnel when none near is clear: _dig_up).
    Best effort: a failed climb is logged (as `for_what`'s: an explore, a hunt, the builder) and
    its caller goes on from where the bot is. `dig_from`: may the bot dig up from where it
    stands (not under a hut's floor)? None when the bot is not underground."""
    here = block_pos((await ctx.snapshot()).position)
    ground = await _ground_over(ctx, here)
    if len(ground) < min_roof:
        return None
    logger.info(
        "[Tools] {}: underground at {} {} {} (ground over the head up to y {}); climbing out first",
        for_what,
        here[0],
        here[1],
        here[2],
        max(ground),
    )
    how, why, last_y, tunnelled = "staircase", None, here[1], False
    starts = [
        s
        for s in ctx.hooks.get(STAIRCASES_HOOK, ())
        if math.dist((s[0], s[2]), (here[0], here[2])) <= CLIMB_BACK_WITHIN
    ]
    try:
        if starts:
            sx, sy, sz = starts[-1]
            try:
                await walk(ctx, sx, sy, sz, 1, dig_out=False)
            except (ToolFailure, ToolTimeout) as e:
                if not dig:
                    raise
                # dug straight up instead: a 26.1 bench bot in a pit failed the walk to a
                # staircase 86 blocks off, and with it every climb for a night
                logger.info("[Tools] {}: no way to the staircase at {} {} {} ({}); digging up", for_what, sx, sy, sz, e)
        # no staircase known, its top underground or not got to: up through the ground, a sight
        # of it (SKY_CHECK) at a time, while each round gets higher
        tunnels = 0
        for _ in range(DIG_UP_ROUNDS):
            now = block_pos((await ctx.snapshot()).position)
            ground = await _ground_over(ctx, now)
            stalled = how == "dug" and now[1] <= last_y and not tunnelled
            if len(ground) < min_roof or not dig or not dig_from(now) or stalled:
                break
            how, last_y = "dug", now[1]
            tunnelled = await _dig_up(ctx, now, max(ground), dig_from, may_tunnel=tunnels < MAX_TUNNELS)
            tunnels += tunnelled
        now = block_pos((await ctx.snapshot()).position)
        left = await _ground_over(ctx, now)
        if len(left) >= min_roof:
            why = f"still under ground at {now[0]} {now[1]} {now[2]} (up to y {max(left)})"
    except (ToolFailure, ToolTimeout) as e:
        why = str(e.message if isinstance(e, ToolFailure) else e)
    if why is not None:
        logger.info("[Tools] {}: could not climb out ({}); going on from here", for_what, why)
    end = (await ctx.snapshot()).position
    return {"from": list(here), "to": [end.x, end.y, end.z], "how": how, "failed": why}


def band_to_rise_to(block: str, y: int) -> int | None:
    """For a bot at level `y` below the lowest level the world places `block` at
    (agency.game.ores.ore_floor: coal and copper): the level to rise to, TUNNEL_BLOCKS into the
    band (at most the ore's own level), where the sight box takes in the band's foot; else None."""
    floor, level = ore_floor(block), ore_level(block)
    if floor is None or level is None or y >= floor:
        return None
    return min(level, floor + TUNNEL_BLOCKS)


async def rise_into_band(ctx: ToolContext, block: str) -> dict[str, Any] | None:
    """Below `block`'s band (band_to_rise_to), up into it: straight up where the bot stands
    (pillar_up, digging natural ground), else, that stopped, out to the surface (climb_out),
    whence a look further digs down to the ore's level. None when the bot is in the band."""
    here = block_pos((await ctx.snapshot()).position)
    target = band_to_rise_to(block, here[1])
    if target is None:
        return None
    if not await has_pickaxe(ctx):
        raise ToolFailure(PRECONDITION_FAILED, f"no pickaxe to dig up out of the deep, where no {block} lies")
    logger.info(
        "[Tools] {}: none lies as deep as y {} (none below y {}); rising to y {}",
        block,
        here[1],
        ore_floor(block),
        target,
    )
    try:
        out = await pillar_up(ctx.within_ms(int(descend_timeout_s(target - here[1]) * 1000)), target)
        return {"how": "pillar", "from": list(here), "y": out.get("y"), "steps": out.get("steps")}
    except (ToolFailure, ToolTimeout) as e:
        ctx.check()  # the call's own time up or a stop: no climb with none left
        if night_approaching(await ctx.snapshot()):
            # never out to the surface in the dark: a cave's roof 16 blocks up reads as no cover,
            # and the pillar stopped in the deep (water, lava, gravel) is no reason to go up
            logger.info("[Tools] {}: no way straight up ({}); not climbing out at night", block, e)
            return {"how": "stayed", "from": list(here), "failed": str(e)}
        logger.info("[Tools] {}: no way straight up ({}); climbing out", block, e)
    climbed = await climb_out(ctx, min_roof=1, for_what=f"a look for {block}")
    return {"how": "climbed out", "from": list(here), **(climbed or {})}
