"""Moving: move_to (one pathfinder walk, agency.tools.walking), explore (a bounded random walk that
prefers chunks not seen before, remembered in the workflow memory so a resumed run keeps
preferring new ground; in the area `nearby`, legs stay near the bot's home, its hut:
agency.places.home; from underground it climbs out first, agency.tools.climb_out) and surface
(up out of the water for air, then onto dry ground)."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field

from agency.places.home import EXPLORE_M as HOME_EXPLORE_M, HOOK as HOME_HOOK
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.climb_out import climb_out
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import block_pos, chunk_of, surface_y
from agency.tools.walking import walk
from agency.world import WorldSnapshot

SEEN_KEY = "seenChunks"
NEAR_HOME = "nearby"  # the area whose explore stays near home: the drive tick's last rule, `explore nearby`
LEG_MIN = 4  # the shortest leg tried when no heading has ground at the full distance


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
