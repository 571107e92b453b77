"""Walking: move_to (one pathfinder action), explore (a bounded random walk that
prefers chunks not seen before, remembered in the workflow memory so a resumed run keeps
preferring new ground; in the area `nearby`, legs stay near the bot's home, its hut:
agency.places.home) and surface (up out of the water for air, then onto dry ground)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from loguru import logger
from pydantic import Field

from agency.blocks import DEEP_ROCK, ROCK, SOIL, natural_ground
from agency.places.home import EXPLORE_M as HOME_EXPLORE_M, HOOK as HOME_HOOK
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput, ToolTimeout
from agency.tools.climbing import CLIMB_RADIUS, WAYS, Column, along, clear_column_along, climb_columns
from agency.tools.mining import STAIRCASES_HOOK, descend_timeout_s
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import block_pos, chunk_of, surface_y
from agency.world import WorldSnapshot

SEEN_KEY = "seenChunks"
NEAR_HOME = "nearby"  # the area whose explore stays near home: the drive tick's last rule, `explore nearby`
NO_PROGRESS = "no progress toward"  # move_to.js's stall error
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
LEG_MIN = 4  # the shortest leg tried when no heading has ground at the full distance
DIG_UP_ROUNDS = 10  # climbs of up to SKY_CHECK blocks each: from the bottom of the world to y 320
DIG_OUT_STALL_MS = 20000  # digging up out of a pit gets no closer for a while: stone by hand is slow


class MoveToInput(ToolInput):
    x: float
    y: float
    z: float
    range: float = Field(default=1.0, ge=0, le=16)


class FollowInput(ToolInput):
    username: str = Field(min_length=1, max_length=64, description="the player (or entity name) to follow")
    distance: float = Field(default=2.0, ge=1, le=16, description="keep this close")
    duration_s: float = Field(default=60.0, gt=0, le=600, description="follow this long, then stop")


class ExploreInput(ToolInput):
    legs: int = Field(default=3, ge=1, le=10, description="how many walks")
    leg_distance: int = Field(default=16, ge=4, le=32)
    max_distance: int = Field(default=64, ge=8, le=256, description="never farther than this from the start")
    area: str = Field(
        default="",
        max_length=64,
        description=f"the goal's area: {NEAR_HOME!r} keeps the legs within {HOME_EXPLORE_M} blocks of the bot's home "
        "(its hut) if it has one; any other, anywhere (a drive tick looking for what is missing explores `farther`)",
    )


Box = tuple[int, int, int, int, int, int]  # x0 y0 z0 x1 y1 z1: min corner inclusive, max exclusive


def time_to_dig(ctx: ToolContext) -> bool:
    """Is there time left for a walk that digs (it may get no closer for DIG_OUT_STALL_MS)?"""
    remaining = ctx.remaining_ms()
    return remaining is None or remaining >= DIG_OUT_STALL_MS


async def dig_walk(
    ctx: ToolContext, x: float, y: float, z: float, rng: float = 1.0, keep_out: Box | None = None
) -> dict[str, Any]:
    """Walk digging through natural ground where the path needs it (out of a pit, through a
    hill), never in keep_out (a hut and its site: its floor stays whole)."""
    args: dict[str, Any] = {"x": x, "y": y, "z": z, "range": rng}
    args |= {"digOnly": list(natural_ground()), "stallMs": DIG_OUT_STALL_MS}
    if keep_out is not None:
        args["keepOut"] = list(keep_out)
    return await run_action(ctx, "move_to", args)


async def walk(
    ctx: ToolContext,
    x: float,
    y: float,
    z: float,
    rng: float = 1.0,
    *,
    dig_out: bool = True,
    stall_ms: int | None = None,
    sprint: bool = False,
) -> dict[str, Any]:
    """Walk without digging; a walk that makes no progress (in a pit the bot dug collecting
    stone, behind a tree) is tried once more through natural ground (dig_out). A caller
    whose path must not be dug anywhere says dig_out=False (one near a hut uses dig_walk with
    the hut kept out); one with no time to wait on a blocked path (a flight) gives up sooner
    (stall_ms; move_to.js: 8 s). Only a flight sprints (sprint; node/lib/walking.js: a metre
    sprinted costs food, one walked does not)."""
    args: dict[str, Any] = {"x": x, "y": y, "z": z, "range": rng}
    if stall_ms is not None:
        args["stallMs"] = stall_ms
    if sprint:
        args["sprint"] = True
    try:
        return await run_action(ctx, "move_to", args)
    except ToolFailure as e:
        if not dig_out or NO_PROGRESS not in e.message or not time_to_dig(ctx):
            raise  # (too little time left for a walk that may dig for 20 s)
        logger.info(
            "[Tools] move_to made no progress toward {:.0f} {:.0f} {:.0f}; trying again, "
            "digging through natural ground",
            x,
            y,
            z,
        )
    return await dig_walk(ctx, x, y, z, rng)


async def move_to(ctx: ToolContext, p: MoveToInput) -> dict[str, Any]:
    out = await walk(ctx, p.x, p.y, p.z, p.range)
    return {"target": {"x": p.x, "y": p.y, "z": p.z}, **out}


async def follow(ctx: ToolContext, p: FollowInput) -> dict[str, Any]:
    """Keep near a player for a while (a user's or MCP client's direct action; no workflow
    follows anyone). Fails when the target is not in view, or out of view for 5 s."""
    return await run_action(
        ctx, "follow", {"username": p.username, "distance": p.distance, "durationMs": int(p.duration_s * 1000)}
    )


def _seen(ctx: ToolContext) -> set[str]:
    return set(ctx.memory.get(SEEN_KEY, []))


def _remember(ctx: ToolContext, x: float, z: float) -> None:
    seen = _seen(ctx) | {chunk_of(x, z)}
    ctx.memory[SEEN_KEY] = sorted(seen)


Home = tuple[float, float]  # x, z


def home_of(ctx: ToolContext, p: ExploreInput, snap: WorldSnapshot) -> Home | None:
    """The home an explore `nearby` stays near: asked of ctx.hooks["home"] with the snapshot
    the explore started from."""
    find = ctx.hooks.get(HOME_HOOK) if p.area.strip().lower() == NEAR_HOME else None
    return None if find is None else find(snap)


def toward_home(target: tuple[int, int], here: tuple[int, int, int], home: Home | None) -> bool:
    """A leg may end within HOME_EXPLORE_M of home, or anywhere nearer to it than the bot is
    now (one that a forage or a hunt took farther off heads back)."""
    if home is None:
        return True
    d = math.dist(target, home)
    return d <= HOME_EXPLORE_M or d < math.dist((here[0], here[2]), home)


def leg_targets(
    ctx: ToolContext,
    here: tuple[int, int, int],
    start: tuple[int, int, int],
    p: ExploreInput,
    distance: int,
    home: Home | None = None,
) -> list[tuple[int, int]]:
    """The eight headings' targets `distance` away, in a seeded random order, those landing in
    an unseen chunk first; none farther than max_distance from the start nor away from home
    (toward_home; the start itself when every heading is)."""
    seen = _seen(ctx)
    headings = list(range(8))
    ctx.rng.shuffle(headings)
    targets = []
    for h in headings:
        a = h * math.pi / 4
        tx = here[0] + round(math.cos(a) * distance)
        tz = here[2] + round(math.sin(a) * distance)
        if math.dist((tx, tz), (start[0], start[2])) <= p.max_distance and toward_home((tx, tz), here, home):
            targets.append((tx, tz))
    targets.sort(key=lambda t: chunk_of(*t) in seen)  # stable: the seeded order within each kind
    return targets or [(start[0], start[2])]


async def pick_leg(
    ctx: ToolContext, here: tuple[int, int, int], start: tuple[int, int, int], p: ExploreInput, home: Home | None = None
) -> tuple[int, int, int | None]:
    """The next leg's target: the first of leg_targets with ground to stand on (over a sea, a
    ravine or a cliff there is none), at leg_distance, else at half of it; (x, z, None) when
    no heading has any (the first target, for the log)."""
    first: tuple[int, int] | None = None
    for distance in (p.leg_distance, max(LEG_MIN, p.leg_distance // 2)):
        for tx, tz in leg_targets(ctx, here, start, p, distance, home):
            first = first or (tx, tz)
            column = await ctx.region((tx, here[1] - 16, tz), (1, 33, 1))
            ty = surface_y(column, tx, tz, here[1])
            if ty is not None:
                return tx, tz, ty
    assert first is not None
    return first[0], first[1], None


async def _ground_over(ctx: ToolContext, here: tuple[int, int, int]) -> list[int]:
    """The heights of the soil and rock blocks over the bot's head (SKY_CHECK up)."""
    column = await ctx.region((here[0], here[1], here[2]), (1, SKY_CHECK, 1))
    return [y for y in range(here[1] + 2, here[1] + SKY_CHECK) if column.block_at(here[0], y, here[2]) in GROUND_ROOF]


async def pillar_up(ctx: ToolContext, y: int) -> dict[str, Any]:
    """Straight up to feet height y where the bot stands, digging natural ground over the head
    and placing a block under the feet at each jump (node/lib/actions/pillar.js); it stops at a
    liquid, something that falls or a block it may not dig, naming it."""
    return await run_action(ctx, "pillar", {"targetY": y, "digOnly": list(natural_ground())})


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
    bot tunnelled: the caller looks again from there); else the bot's own column (to its top
    `top`). A column beside the bot's is reached by a digging walk at the bot's level first."""
    r = CLIMB_RADIUS
    height = min(SKY_READ, WORLD_TOP - now[1])
    region = await ctx.region((now[0] - r, now[1], now[2] - r), (2 * r + 1, height, 2 * r + 1))
    near = [c for c in climb_columns(region, now, GROUND_ROOF, limit=9) if dig_from((c.x, now[1], c.z))][:3]
    if not near and may_tunnel and await _tunnel_to_clear_column(ctx, now, dig_from):
        return True
    columns = near or [Column(now[0], now[2], top)]
    for i, c in enumerate(columns):
        here = block_pos((await ctx.snapshot()).position)
        try:
            if (c.x, c.z) != (here[0], here[2]):
                logger.info(
                    "[Tools] digging up at {} {} (top y {}), {:.1f} blocks off: the column overhead has water, "
                    "lava, sand or gravel in the way",
                    c.x,
                    c.z,
                    c.top,
                    math.dist((c.x, c.z), (now[0], now[2])),
                )
                await dig_walk(ctx, c.x + 0.5, here[1], c.z + 0.5, 0)
            await pillar_up(ctx, c.top + 1)
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


async def explore(ctx: ToolContext, p: ExploreInput) -> dict[str, Any]:
    climbed = await climb_out(ctx)
    snap = await ctx.snapshot()
    start = block_pos(snap.position)
    _remember(ctx, start[0], start[2])
    home = home_of(ctx, p, snap)
    legs: list[dict[str, Any]] = []
    for _ in range(p.legs):
        ctx.check()
        here = block_pos((await ctx.snapshot()).position)
        tx, tz, ty = await pick_leg(ctx, here, start, p, home)
        if ty is None:
            legs.append({"x": tx, "z": tz, "ok": False, "why": "no standable ground in any direction"})
            continue
        try:
            await walk(ctx, tx + 0.5, ty, tz + 0.5, 2)
            ok, why = True, None
        except ToolFailure as e:  # one blocked leg is fine: a walk is best effort
            ok, why = False, e.message
        pos = (await ctx.snapshot()).position
        _remember(ctx, pos.x, pos.z)
        legs.append({"x": tx, "y": ty, "z": tz, "ok": ok, "why": why})
    if not any(leg["ok"] for leg in legs):
        stuck = f" (underground; climbing out failed: {climbed['failed']})" if climbed and climbed["failed"] else ""
        whys = sorted({str(leg["why"]) for leg in legs})  # the log says why, not only that
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"explore: no leg could be walked{stuck}: {'; '.join(whys)[:300]}",
            details={"legs": legs, "climbedOut": climbed},
        )
    end = (await ctx.snapshot()).position
    return {
        "legs": legs,
        "end": {"x": end.x, "y": end.y, "z": end.z},
        "seenChunks": len(_seen(ctx)),
        "climbedOut": climbed,
        "home": None if home is None else {"x": home[0], "z": home[1], "within": HOME_EXPLORE_M},
    }


class SurfaceInput(ToolInput):
    pass


async def surface(ctx: ToolContext, _p: SurfaceInput) -> dict[str, Any]:
    """Up out of the water for air and onto the nearest dry ground (the JS `surface` action:
    onLand says whether it got there; a bot left in deep water sinks and drowns)."""
    return await run_action(ctx, "surface", {})


TOOLS = [
    Tool("move_to", "Walk to x,y,z (within range).", MoveToInput, move_to, timeout_s=60, queue=BODY_QUEUE),
    Tool(
        "surface",
        "Swim up for air and toward the nearest dry ground (16 blocks around, else a shore up to 64 away).",
        SurfaceInput,
        surface,
        timeout_s=45,
        queue=BODY_QUEUE,
    ),
    Tool(
        "follow",
        "Follow a player (or entity) in view for a while, keeping within distance.",
        FollowInput,
        follow,
        timeout_s=610,
        queue=BODY_QUEUE,
    ),
    Tool(
        "explore",
        "Bounded random walk preferring unseen chunks.",
        ExploreInput,
        explore,
        timeout_s=240,
        queue=BODY_QUEUE,
    ),
]
