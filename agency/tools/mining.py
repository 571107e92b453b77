"""descend: dig down to a level by a staircase (one JS `staircase` action), where coal and iron
lie below what the bot sees from the surface. Never straight down, never into a liquid: the
JS side checks every block before digging it and turns away from a hazard (see
node/lib/actions/staircase.js). seek_ore: staircases down to where an ore lies
(agency.game.ores) until one is in sight; tunnel_for: a level tunnel there, to look further.

A level is written `y<N>` in a goal (`descend y40`: a goal's target is a name, and a bare
number would read as its amount). Levels below SAFE_FLOOR_Y are refused: below y -54 the
caves of a 1.18+ world hold lava (node/plugins/underground.js LAVA_LEVEL, as vanilla lays
it). The wait is bounded by the number of steps.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from loguru import logger
from pydantic import Field, field_validator

from agency.blocks import is_solid, is_walkable
from agency.game.harvest import needs_tool
from agency.game.ores import FLUID_LEVELS, ORE_LEVELS, ROCK_LEVELS, ore_level
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.queries import FindBlocksInput, find_blocks_now
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED
from agency.tools.spatial import block_pos
from agency.world import under_cover_at_night

SAFE_FLOOR_Y = -48  # the sight box (8 down) stops above the lava
MAX_DESCENT = 48  # blocks in one call (the JS action allows 64)
STEP_S = 8.0  # one step: three blocks dug with a stone pickaxe, maybe a hole filled, a walk down
STAIRCASES_HOOK = "staircases"  # ToolContext.hooks: a list of the tops of the staircases dug, newest last
MAX_STAIRCASES = 8
# One leg of a seek: the sight box (8 up and down) at its foot takes in new rock from where the
# last look's stopped, so a seek stops as the ore comes in sight (with legs of 48 an integration
# test's bot dug 36 blocks on past the vein it was to find, 12 blocks down).
SEEK_LEG = 16
MAX_SEEK_LEGS = 9  # from y 96 to the floor
TUNNEL_BLOCKS = 24  # one look further at an ore's level: new rock for the sight box
BLOCKED = "staircase blocked at"  # staircase.js: every way on was a hazard (holes over a cave, a liquid)
CAVE_LOOK = 8  # a blocked staircase looks this far around for a cave floor below it
CAVE_DEPTH = 16  # and this far down
CAVE_TRIES = 3  # floors walked to at most
SIDESTEP_BLOCKS = 3  # with no cave floor to walk to: a level tunnel this long, then down again
SIDESTEP_TRIES = 2
DIRECTIONS = ("north", "east", "south", "west")
# Under cover at night: blocks at the feet's level or below (the pocket's walls, its floor),
# none higher: the drop of one at head height lies a step up, where the collect's path may not go.
NIGHT_REACH_UP = 0
_LEVEL = re.compile(r"^y(-?\d+)$")


def level_target(y: int) -> str:
    """The goal target naming a level: 40 -> 'y40'."""
    return f"y{y}"


def parse_level(value: object) -> int:
    """'y40' (a goal's target), 'Y40', '40' or 40 -> 40; anything else is a ValueError."""
    if isinstance(value, bool):
        raise ValueError(f"not a level: {value!r}")
    if isinstance(value, int):
        return value
    m = _LEVEL.match(str(value).strip().lower()) or re.match(r"^(-?\d+)$", str(value).strip())
    if m is None:
        raise ValueError(f"not a level: {value!r} (write it y<N>, e.g. y40)")
    return int(m.group(1))


def descend_timeout_s(blocks: int) -> float:
    return max(1, blocks) * STEP_S + 10


class DescendInput(ToolInput):
    target_y: int = Field(ge=SAFE_FLOOR_Y, description=f"the level to reach (y<N> or N), at least y {SAFE_FLOOR_Y}")
    direction: Literal["north", "east", "south", "west"] | None = Field(
        default=None, description="the way to dig first (default: the way the bot faces)"
    )

    @field_validator("target_y", mode="before")
    @classmethod
    def _level(cls, v: object) -> int:
        return parse_level(v)


async def has_pickaxe(ctx: ToolContext) -> bool:
    return any(i.name.endswith("_pickaxe") and i.count > 0 for i in (await ctx.snapshot()).inventory)


async def descend(ctx: ToolContext, p: DescendInput, *, new_staircase: bool = True) -> dict[str, Any]:
    """A staircase down to p.target_y; `new_staircase` False for a leg going on from the foot of
    the last (seek_ore): the way back up is the first one's top."""
    here = math.floor((await ctx.snapshot()).position.y)
    if here <= p.target_y:
        return {"steps": 0, "y": here, "turned": 0, "targetY": p.target_y}
    blocks = here - p.target_y
    if blocks > MAX_DESCENT:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"y {p.target_y} is {blocks} blocks down from y {here}; at most {MAX_DESCENT} in one descent",
            details={"y": here, "targetY": p.target_y},
        )
    if not await has_pickaxe(ctx):  # stone by hand: 7.5 s a block, and it drops nothing
        raise ToolFailure(PRECONDITION_FAILED, "no pickaxe to dig a staircase with")
    ctx.check()
    starts = ctx.hooks.get(STAIRCASES_HOOK)
    snap = await ctx.snapshot()
    # where the staircase starts: the way back up (agency.tools.climb_out), but not one started under
    # cover at night (from the pocket dug under the hut, or on from there): that led a bench bot
    # back into its closed pocket in the morning, out of reach of the animals it saw
    if starts is not None and new_staircase and not under_cover_at_night(snap):
        starts.append((snap.position.x, snap.position.y, snap.position.z))
        del starts[:-MAX_STAIRCASES]
    args: dict[str, Any] = {"targetY": p.target_y}
    if p.direction is not None:
        args["direction"] = p.direction
    timed = ctx.within_ms(int(descend_timeout_s(blocks) * 1000))
    try:
        out = await run_action(timed, "staircase", args)
    except ToolFailure as e:
        if BLOCKED not in e.message:
            raise
        out = await _down_through_the_cave(timed, args, e)
    y = math.floor((await ctx.snapshot()).position.y)
    if y > p.target_y:
        raise ToolFailure(
            EXECUTION_ERROR, f"the staircase ended at y {y}, above y {p.target_y}", details={"action": out}
        )
    return {
        "steps": out.get("steps"),
        "y": y,
        "turned": out.get("turned"),
        "torches": out.get("torches", 0),
        "targetY": p.target_y,
    }


async def _down_through_the_cave(ctx: ToolContext, args: dict[str, Any], blocked: ToolFailure) -> dict[str, Any]:
    """A staircase blocked on every side (the bot at a cave's edge, holes all round with nothing
    to fill them against) goes down the cave instead: the bot walks to the lowest floor in reach
    below it and digs on from there, once; with none, it steps aside (_aside_and_down)."""
    here = block_pos((await ctx.snapshot()).position)
    for floor in await _cave_floor(ctx, here):
        ctx.check()
        try:
            await run_action(ctx, "move_to", {"x": floor[0] + 0.5, "y": floor[1], "z": floor[2] + 0.5, "range": 1})
        except ToolFailure:
            continue  # not reachable without digging: the next
        y = math.floor((await ctx.snapshot()).position.y)
        if y >= here[1]:
            continue
        logger.info(
            "[Tools] descend: staircase blocked at {} {} {} (a cave all round); walked down the cave to y {}",
            *here,
            y,
        )
        if y <= args["targetY"]:
            return {"steps": 0, "y": y, "turned": 0, "cave": True}
        return {**await run_action(ctx, "staircase", args), "cave": True}
    return await _aside_and_down(ctx, args, blocked, here)


async def _aside_and_down(
    ctx: ToolContext, args: dict[str, Any], blocked: ToolFailure, here: tuple[int, int, int]
) -> dict[str, Any]:
    """No cave floor to walk down to: a short level tunnel a way the staircase did not find
    blocked (SIDESTEP_BLOCKS), and the staircase on from there that way, once. A Voyager task's
    staircase met ore too hard for its pickaxe on two sides and gravel overhead on the third."""
    named = {d for d in DIRECTIONS if f"{d}:" in blocked.message}
    for way in [d for d in DIRECTIONS if d not in named][:SIDESTEP_TRIES]:
        ctx.check()
        try:
            await run_action(ctx, "tunnel", {"blocks": SIDESTEP_BLOCKS, "direction": way})
        except ToolFailure:
            continue
        now = block_pos((await ctx.snapshot()).position)
        if math.dist((now[0], now[2]), (here[0], here[2])) < SIDESTEP_BLOCKS - 1:
            continue
        logger.info(
            "[Tools] descend: staircase blocked at {} {} {}; stepped {} blocks {} and digging on",
            *here,
            SIDESTEP_BLOCKS,
            way,
        )
        try:
            return {**await run_action(ctx, "staircase", {**args, "direction": way}), "aside": way}
        except ToolFailure:
            continue
    raise blocked


async def _cave_floor(ctx: ToolContext, here: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """Up to CAVE_TRIES cells to stand on below the bot's feet, within CAVE_LOOK blocks around
    and CAVE_DEPTH down, the lowest first (the nearest among equals)."""
    r, depth = CAVE_LOOK, CAVE_DEPTH
    region = await ctx.region((here[0] - r, here[1] - depth - 1, here[2] - r), (2 * r + 1, depth + 2, 2 * r + 1))
    cells = []
    for x in range(here[0] - r, here[0] + r + 1):
        for z in range(here[2] - r, here[2] + r + 1):
            for y in range(here[1] - depth, here[1]):
                below, feet, head = (region.block_at(x, y + d, z) for d in (-1, 0, 1))
                if is_solid(below) and is_walkable(feet) and is_walkable(head):
                    cells.append((x, y, z))
    cells.sort(key=lambda c: (c[1], math.dist((c[0], c[2]), (here[0], here[2]))))
    return cells[:CAVE_TRIES]


DUG_FOR = {**ORE_LEVELS, **FLUID_LEVELS, **ROCK_LEVELS}


class SeekOreInput(ToolInput):
    block: str = Field(description=f"an ore (or lava) that lies underground: {', '.join(sorted(DUG_FOR))}")

    @field_validator("block")
    @classmethod
    def _ore(cls, v: str) -> str:
        if ore_level(v) is None:
            raise ValueError(f"{v} is not an ore found by digging down (one of {', '.join(sorted(DUG_FOR))})")
        return v


async def in_sight(ctx: ToolContext, block: str) -> bool:
    """Is a `block` in the sight box a collect searches (agency.tools.gathering)? Under cover at
    night that box stops at the feet's level, as the collect's does: an iron ore up in a hillside by
    the hut stopped a dug-in bench bot's descent, and its collect walked out of the hut for it."""
    up = NIGHT_REACH_UP if under_cover_at_night(await ctx.snapshot()) else None
    find = FindBlocksInput(block=block, radius=32, count=1, up=up)
    # one beside water or lava does not count: the collect leaves it alone (agency.tools.gathering)
    return bool((await find_blocks_now(ctx, find, dry=needs_tool(block)))["blocks"])


async def seek_ore(ctx: ToolContext, p: SeekOreInput) -> dict[str, Any]:
    """Staircases down toward the ore's level, SEEK_LEG blocks at a time, until one is in sight;
    nothing when one is in sight already or the bot is that deep. Reaching the level with none in sight is no
    failure: the collect after it looks further (tunnel_for)."""
    level = ore_level(p.block)
    assert level is not None  # the input's validator
    level = max(level, SAFE_FLOOR_Y)
    legs: list[dict[str, Any]] = []
    for _ in range(MAX_SEEK_LEGS):
        if await in_sight(ctx, p.block):
            break
        here = math.floor((await ctx.snapshot()).position.y)
        if here <= level:
            break
        legs.append(await descend(ctx, DescendInput(target_y=max(level, here - SEEK_LEG)), new_staircase=not legs))
    y = math.floor((await ctx.snapshot()).position.y)
    return {"block": p.block, "level": level, "y": y, "inSight": await in_sight(ctx, p.block), "descents": legs}


async def tunnel_for(ctx: ToolContext, block: str) -> dict[str, Any]:
    """Look further for an ore out of sight: a staircase on down while above its level, else a
    level tunnel of TUNNEL_BLOCKS through new rock (never the climb to the surface an explore
    makes)."""
    level = max(ore_level(block) or SAFE_FLOOR_Y, SAFE_FLOOR_Y)
    here = math.floor((await ctx.snapshot()).position.y)
    if here > level:
        return await descend(ctx, DescendInput(target_y=max(level, here - TUNNEL_BLOCKS)))
    if not await has_pickaxe(ctx):
        raise ToolFailure(PRECONDITION_FAILED, "no pickaxe to dig a tunnel with")
    timed = ctx.within_ms(int(descend_timeout_s(TUNNEL_BLOCKS) * 1000))
    out = await run_action(timed, "tunnel", {"blocks": TUNNEL_BLOCKS})
    return {
        "steps": out.get("steps"),
        "y": out.get("y"),
        "turned": out.get("turned"),
        "torches": out.get("torches", 0),
        "tunnel": True,
    }


TOOLS = [
    Tool(
        "seek_ore",
        "Dig staircases down to where an ore lies until one is in sight (nothing if one is); needs a pickaxe.",
        SeekOreInput,
        seek_ore,
        timeout_s=MAX_SEEK_LEGS * descend_timeout_s(SEEK_LEG) + 30,
        queue=BODY_QUEUE,
    ),
    Tool(
        "descend",
        "Dig a staircase down to a level (target_y, at least y 12), turning away from water, lava "
        "and falling blocks; needs a pickaxe.",
        DescendInput,
        descend,
        timeout_s=descend_timeout_s(MAX_DESCENT) + 30,
        queue=BODY_QUEUE,
    ),
]
