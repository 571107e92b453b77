"""Fighting and fleeing.

attack: fight one hostile with the best weapon held until it is gone, or for a number of
hits (one JS action): a given entity, the nearest hostile of a named kind, or the nearest
hostile.
flee: walk out of the threats' reach in legs directly away from them (another heading
when there is no ground that way, never one that comes closer), until every threat is
`distance` away or the legs run out; broken off when the bot is hurt `hurtBy` on the way, or
the threat comes within `breakWithin`.

A target names an entity in any version's form, plural or not ('zombies'), or is one of
the generic words goal grounding accepts for 'any hostile' ('hostiles', 'danger', ...).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field

from agency.blocks import natural_ground
from agency.names import GENERIC_THREATS, same
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED
from agency.tools.spatial import block_pos, surface_y
from agency.tools.walking import walk
from agency.world import EntityInfo, Vec3, WorldSnapshot

# Degrees off straight away from the threats, in the order tried.
FLEE_HEADINGS = (0, 45, -45, 90, -90)
FLEE_STALL_MS = 3000  # a flight leg 3 s without getting closer: the next heading (a plain walk waits 8 s)


class AttackInput(ToolInput):
    entityId: int | None = Field(default=None, description="entity to attack; none = nearest hostile")
    target: str | None = Field(default=None, description="kind of hostile to attack (e.g. zombie); generic = nearest")
    radius: float = Field(default=8.0, gt=0, le=32, description="how far to look for a hostile")
    hits: int | None = Field(
        default=None, ge=1, le=100, description="stop after this many hits; none = until it is gone"
    )
    stopAtHealth: float | None = Field(
        default=None, ge=0, le=20, description="break off at or below this health (an error: 'broke off: ...')"
    )
    creeperWithin: float | None = Field(
        default=None, gt=0, le=16, description="break off when a creeper (not the target) comes this close"
    )
    digThrough: bool = Field(
        default=False, description="the chase digs through natural ground (soil, rock, trees) where its path needs it"
    )


class FleeInput(ToolInput):
    threat: str | None = Field(
        default=None, description="what to run from (e.g. zombie); none or generic = every hostile"
    )
    radius: float = Field(default=16.0, gt=0, le=48, description="threats this close are fled from")
    distance: float = Field(default=16.0, ge=4, le=40, description="end at least this far from every threat")
    legs: int = Field(default=3, ge=1, le=6, description="walks at most")
    hurtBy: float | None = Field(
        default=None,
        gt=0,
        le=20,
        description="break off when health falls this much under its start (an error: 'broke off the flight ...')",
    )
    breakWithin: float | None = Field(
        default=None, gt=0, le=16, description="break off when the threat fled from comes this close"
    )


def is_generic(target: str | None) -> bool:
    return not target or target in GENERIC_THREATS or target == "hostile"


def _kinds(word: str) -> set[str]:
    """The word and its possible singulars ('zombies' -> zombie, 'witches' -> witch)."""
    forms = {word}
    if len(word) > 3 and word.endswith("s"):
        forms |= {word[:-1], word[:-2]} if word.endswith("es") else {word[:-1]}
    return forms


def matches(entity: EntityInfo, target: str | None) -> bool:
    """Is the entity what the target names (generic: any hostile)?"""
    if is_generic(target):
        return entity.hostile
    return any(same(entity.name, kind) for kind in _kinds(str(target)))


def _what(target: str | None) -> str:
    return "hostile" if is_generic(target) else str(target)


async def attack(ctx: ToolContext, p: AttackInput) -> dict[str, Any]:
    args: dict[str, Any] = {"radius": p.radius}
    if p.hits is not None:
        args["maxHits"] = p.hits
    if p.stopAtHealth is not None:
        args["stopAtHealth"] = p.stopAtHealth
    if p.creeperWithin is not None:
        args["creeperWithin"] = p.creeperWithin
    if p.digThrough:
        args["digOnly"] = list(natural_ground())
    if p.entityId is not None:
        args["entityId"] = p.entityId
    elif p.target is not None:
        near = [e for e in (await ctx.snapshot()).entities if e.distance <= p.radius and matches(e, p.target)]
        if not near:
            raise ToolFailure(PRECONDITION_FAILED, f"no {_what(p.target)} within {p.radius:g} blocks to attack")
        hostile = [e for e in near if e.hostile]
        if not hostile:
            raise ToolFailure(PRECONDITION_FAILED, f"{near[0].name} is not hostile: attack fights hostiles only")
        if not is_generic(p.target):
            args["name"] = hostile[0].name  # as the running version names it
    return await run_action(ctx, "attack", args)


def _horizontal(a: Vec3, x: float, z: float) -> float:
    return math.dist((a.x, a.z), (x, z))


def _away(ctx: ToolContext, pos: Vec3, threats: list[EntityInfo]) -> float:
    """Heading (radians) away from the threats, the nearer ones weighing more."""
    vx = vz = 0.0
    for t in threats:
        dx, dz = pos.x - t.position.x, pos.z - t.position.z
        d2 = max(dx * dx + dz * dz, 0.25)
        vx, vz = vx + dx / d2, vz + dz / d2
    if abs(vx) < 1e-9 and abs(vz) < 1e-9:  # standing on it: any way is away
        return ctx.rng.uniform(0, 2 * math.pi)
    return math.atan2(vz, vx)


async def _leg(
    ctx: ToolContext, snap: WorldSnapshot, threats: list[EntityInfo], p: FleeInput, floor: float | None
) -> dict[str, Any] | None:
    """One walk away from the threats; None when no heading had ground or a path. `floor`: the
    health the flight breaks off at (FleeInput.hurtBy), in a walk (move_to.js stopAtHealth) or
    between headings (_broke_off); so does the threat within p.breakWithin (breakOffNear)."""
    pos, here = snap.position, block_pos(snap.position)
    length = min(32.0, max(8.0, p.distance - threats[0].distance + 4))
    base = _away(ctx, pos, threats)
    nearest_now = min(_horizontal(pos, t.position.x, t.position.z) for t in threats)
    skipped: list[dict[str, Any]] = []
    for off in FLEE_HEADINGS:
        ctx.check()
        await _broke_off(ctx, floor, threats[0].name, p)
        a = base + math.radians(off)
        tx, tz = math.floor(pos.x + math.cos(a) * length), math.floor(pos.z + math.sin(a) * length)
        if min(math.dist((tx + 0.5, tz + 0.5), (t.position.x, t.position.z)) for t in threats) <= nearest_now:
            continue  # that way leads closer to one of them
        column = await ctx.region((tx, here[1] - 16, tz), (1, 33, 1))
        ty = surface_y(column, tx, tz, here[1])
        if ty is None:
            skipped.append({"heading": off, "why": "no standable ground"})
            continue
        try:
            # no time to dig or to wait on a blocked path (a creeper's fuse is 1.5 s): another heading
            near = None if p.breakWithin is None else (threats[0].name, p.breakWithin)
            await walk(
                ctx,
                tx + 0.5,
                ty,
                tz + 0.5,
                2,
                dig_out=False,
                stall_ms=FLEE_STALL_MS,
                sprint=True,
                stop_at_health=floor,
                break_off_near=near,
            )
        except ToolFailure as e:  # blocked that way: try the next heading
            skipped.append({"heading": off, "why": e.message})
            continue
        return {"x": tx, "y": ty, "z": tz, "heading": off, "skipped": skipped}
    return None


async def _broke_off(ctx: ToolContext, floor: float | None, name: str, p: FleeInput) -> None:
    """Raise when the bot's health has fallen to `floor` (None: never), or a threat fled from is
    within p.breakWithin: the flight is no way out, and its caller has better (a cover from an
    archer's arrows, a strike that pushes a creeper back)."""
    if floor is None and p.breakWithin is None:
        return
    snap = await ctx.snapshot()
    if floor is not None and snap.health <= floor:
        raise ToolFailure(EXECUTION_ERROR, f"broke off the flight from {name}: health {snap.health:g}, hurt on the way")
    if p.breakWithin is not None:
        near = [e.distance for e in snap.entities if matches(e, p.threat) and e.distance <= p.breakWithin]
        if near:
            raise ToolFailure(EXECUTION_ERROR, f"broke off the flight from {name}: it came to {min(near):.1f} blocks")


async def flee(ctx: ToolContext, p: FleeInput) -> dict[str, Any]:
    snap = await ctx.snapshot()
    threats = [e for e in snap.entities if e.distance <= p.radius and matches(e, p.threat)]
    if not threats:
        return {"threat": _what(p.threat), "fled": False, "from": None, "to": None, "legs": []}
    name, start = threats[0].name, threats[0].distance
    floor = None if p.hurtBy is None else snap.health - p.hurtBy
    legs: list[dict[str, Any]] = []
    for _ in range(p.legs):
        snap = await ctx.snapshot()
        near = [e for e in snap.entities if e.distance < p.distance and matches(e, p.threat)]
        if not near:
            break
        leg = await _leg(ctx, snap, near, p, floor)
        if leg is None:
            break
        legs.append(leg)
    await _broke_off(ctx, floor, name, p)
    seen = [e for e in (await ctx.snapshot()).entities if matches(e, p.threat)]
    end = seen[0].distance if seen else None  # None: out of sight
    if end is not None and end <= start:
        raise ToolFailure(
            EXECUTION_ERROR, f"could not get away from {name}: {start:.1f} -> {end:.1f} blocks", details={"legs": legs}
        )
    return {
        "threat": name,
        "fled": True,
        "from": round(start, 2),
        "to": None if end is None else round(end, 2),
        "legs": legs,
    }


TOOLS = [
    Tool(
        "attack",
        "Fight a hostile mob (the nearest, the nearest of a kind, or a given entity) until it is gone.",
        AttackInput,
        attack,
        timeout_s=25,
        queue=BODY_QUEUE,
    ),
    Tool(
        "flee",
        "Walk away from a threat (or every hostile) until out of its reach.",
        FleeInput,
        flee,
        timeout_s=90,
        queue=BODY_QUEUE,
    ),
]
