"""hunt: kill animals for food and wool, and pick up what they drop.

Each kill is one JS `hunt` action (the nearest living animal of the kinds asked, best weapon
held, hits until the server reports it dead), bounded by KILL_TIMEOUT_S; then the bot walks
over the drops (pick_up_items; with fewer than two slots free the JS side tosses filler
first, as a collect does, so a drop held no stack of still has a slot). A stop (the reflex
arbiter preempting, a deadline) cancels the action at once: hunting never holds the body
against a reflex.

The target is an animal kind ('cow', 'sheep', plural or not) or a generic word ('animal'):
any food animal. Underground (after a night dug in, or digging for ore), the bot climbs out
first (agency.tools.climb_out): the animals it sees are on the surface over the rock, and the hunt's
walk does not dig; at night it does not go up into the dark (a plan's hunt waits for the day).
No animal within the radius is a precondition failure naming it; when some
kills were made and no more animals are left, the result says how many fell short.

A plan that needs a drop (leather for a book: agency.execution.agents.plan_builder) hunts
`until_item` is held `until_count` times, `count` kills at most (drops are random), exploring
`explore_attempts` times when no animal is in sight (or only ones given up on as out of
reach); short of it at the end is a failure. A `hunt` goal explores as often
(config/agents/survivor.toml): an animal seen from 30 blocks when the goal was set may have
strolled off before the task ran (two of a bench's hunt tasks failed so).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from loguru import logger
from pydantic import Field, field_validator

from agency.game.animals import ANIMAL_DROPS, ANIMALS, MEAT_PER_KILL, animal_for, mean_meat
from agency.game.foods import RAW_MEATS
from agency.game.recipes import available
from agency.names import same
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput, ToolTimeout
from agency.tools.climb_out import climb_out
from agency.tools.crafting import held
from agency.tools.gathering import PickUpItemsInput, items_near, pick_up_items
from agency.tools.movement import ExploreInput, explore
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED, WAITS_FOR_MORNING
from agency.world import EntityInfo, Vec3, night_approaching, underground

GENERIC_ANIMAL = frozenset({"animal", "animals", "food", "meat", "game"})
HUNT_RADIUS = 32.0  # how far the bot looks for game (and how far a survival step counts it in sight)
MAX_HUNT = 10
KILL_TIMEOUT_S = 30.0  # reach and kill one animal (a cow takes 10 hits bare-handed, ~7 s)
GIVE_UP_S = 25.0  # the JS side gives up on an animal it cannot reach first, naming it
DROP_RADIUS = 4.0  # loot pops out of the body with a little speed
DROP_WAIT_S = 2.0  # for the loot's item entities to reach the client
MAX_MISSES = 2  # targets lost (out of reach, wandered off) before the hunt gives up
# One look elsewhere when no animal is in sight: the herds near a base get eaten, and the next
# are further off (bench hunts failed after 2 looks of 2 x 24 blocks), so 2 legs of 32.
HUNT_LOOK = ExploreInput(legs=2, leg_distance=32)


def animal_kind(word: str) -> str | None:
    """The huntable kind a word names ('cows' -> cow), 'animal' for a generic word, else None."""
    w = word.strip().lower().removeprefix("minecraft:")
    if w in GENERIC_ANIMAL:
        return "animal"
    forms = {w, w[:-1]} if len(w) > 3 and w.endswith("s") else {w}
    return next((a for a in ANIMALS if any(same(a, f) for f in forms)), None)


def is_game(entity: EntityInfo, kind: str) -> bool:
    """Is this entity game of that kind ('animal': any food animal)?"""
    if entity.hostile:
        return False
    return any(same(entity.name, a) for a in (ANIMALS if kind == "animal" else (kind,)))


def game_in_sight(entities: list[EntityInfo], kind: str = "animal", radius: float = HUNT_RADIUS) -> list[EntityInfo]:
    return [e for e in entities if e.distance <= radius and is_game(e, kind)]


def meats_in_sight(entities: list[EntityInfo], short: int) -> list[tuple[EntityInfo, str]]:
    """The animals in sight whose raw meat a food stock `short` items of it would be cooked
    from, best first, one of each kind, with that meat: the kind with the most meat in sight up
    to what is short (three sheep before a lone pig), then the most meat a kill (a cow before a
    chicken), then the nearest. Kinds whose meat a plan hunts on another animal (a mooshroom's
    beef: cows) are left out."""
    game = game_in_sight(entities)
    herds = Counter(e.name for e in game)
    order = sorted(
        game, key=lambda e: (-min(short, herds[e.name] * mean_meat(e.name)), -MEAT_PER_KILL.get(e.name, 1), e.distance)
    )
    out: dict[str, tuple[EntityInfo, str]] = {}
    for animal in order:
        meat = next((m for m in ANIMAL_DROPS.get(animal.name, ()) if m in RAW_MEATS), None)
        if meat is not None and animal_for(meat) == animal.name and animal.name not in out:
            out[animal.name] = (animal, meat)
    return list(out.values())


class HuntInput(ToolInput):
    target: str = Field(
        default="animal", min_length=1, description=f"an animal kind ({', '.join(ANIMALS)}) or 'animal' for any of them"
    )
    count: int = Field(default=1, ge=1, le=MAX_HUNT, description="animals to kill")
    radius: float = Field(default=HUNT_RADIUS, gt=0, le=48, description="how far to look for them")
    until_item: str | None = Field(default=None, min_length=1, description="hunt until this many of it are held")
    until_count: int = Field(default=1, ge=1, le=36 * 64)
    explore_attempts: int = Field(default=0, ge=0, le=5, description="explores when no animal is in sight")

    @field_validator("target")
    @classmethod
    def _huntable(cls, v: str) -> str:
        kind = animal_kind(v)
        if kind is None:
            raise ValueError(f"'{v}' is not an animal the bot hunts (animals: {', '.join(ANIMALS)}, or 'animal')")
        return kind


def _gained(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in sorted(after) if after[k] > before.get(k, 0)}


async def _total(ctx: ToolContext) -> int:
    return sum((await held(ctx)).values())


async def _pick_up_drops(ctx: ToolContext, at: dict[str, Any], held_before: int) -> dict[str, Any]:
    """Walk over the loot lying around where the animal died. Standing next to it, the server
    may already have given it: the wait ends on loot in sight or the inventory grown."""
    spot = Vec3(x=float(at["x"]), y=float(at["y"]), z=float(at["z"]))

    waited = 0.0
    while (
        waited < DROP_WAIT_S
        and not items_near(await ctx.snapshot(), spot, DROP_RADIUS)
        and await _total(ctx) <= held_before
    ):
        await ctx.pause()
        waited += ctx.poll_interval_s
    out = await pick_up_items(ctx, PickUpItemsInput(x=spot.x, y=spot.y, z=spot.z, radius=DROP_RADIUS, max_walks=6))
    return {
        "at": {k: round(float(at[k]), 1) for k in "xyz"},
        "gained": await _total(ctx) - held_before,
        "itemsLeft": out["itemsLeft"],
    }


async def _sweep(ctx: ToolContext, drops: list[dict[str, Any]]) -> None:
    """Loot that reached the client late (after its kill's pick-up): one more walk over each
    death spot where some still lies."""
    for d in drops:
        spot = Vec3(**d["at"])
        if items_near(await ctx.snapshot(), spot, DROP_RADIUS):
            held_before = await _total(ctx)
            out = await pick_up_items(
                ctx, PickUpItemsInput(x=spot.x, y=spot.y, z=spot.z, radius=DROP_RADIUS, max_walks=6)
            )
            d.update(gained=d["gained"] + await _total(ctx) - held_before, itemsLeft=out["itemsLeft"])


def _at(p: dict[str, float]) -> str:
    return " ".join(f"{p[k]:g}" for k in "xyz")


def _loot_line(drops: list[dict[str, Any]], gained: dict[str, int]) -> str:
    """What the kills gave, for a hunt that fell short: a bench bot's sheep hunt "hunted 2
    sheep" and held no wool, and nothing said whether loot dropped, was left lying or never came."""
    got = ", ".join(f"{n} {k}" for k, n in gained.items()) or "nothing"
    left = [f"{d['itemsLeft']} at {_at(d['at'])}" for d in drops if d.get("itemsLeft")]
    return f"; picked up {got}" + (f", loot left lying: {'; '.join(left)}" if left else "")


async def hunt(ctx: ToolContext, p: HuntInput) -> dict[str, Any]:
    kinds = list(ANIMALS) if p.target == "animal" else [p.target]
    before = await held(ctx)
    kills: list[str] = []
    drops: list[dict[str, Any]] = []  # per kill: what was picked up, what was left lying
    hits, misses, weapon = 0, 0, None
    lost: list[int] = []  # animals given up on (out of reach): never chased again by this hunt
    explored = 0

    async def enough() -> bool:
        return p.until_item is not None and available(await held(ctx), p.until_item) >= p.until_count

    snap = await ctx.snapshot()
    if night_approaching(snap) and underground(snap) and not await enough():
        raise ToolFailure(
            WAITS_FOR_MORNING, f"no {p.target} down here: the animals graze on the surface, and at night they wait"
        )
    # any ground over the head: the animals are up there (two blocks of it kept a bench bot from them)
    climbed = None if await enough() else await climb_out(ctx, min_roof=1, for_what="hunt")

    while len(kills) < p.count and not await enough():
        ctx.check()
        if not game_in_sight((await ctx.snapshot()).entities, p.target, p.radius):
            if explored < p.explore_attempts:
                explored += 1
                await explore(ctx, HUNT_LOOK)
                continue
            if not kills:
                raise ToolFailure(
                    PRECONDITION_FAILED,
                    f"no {p.target} within {p.radius:g} blocks to hunt",
                    details={"target": p.target, "radius": p.radius},
                )
            break
        # One kill, bounded inside what the call itself has left.
        held_before = await _total(ctx)
        kill_ctx = ctx.within_ms(int(KILL_TIMEOUT_S * 1000))
        try:
            out = await run_action(
                kill_ctx,
                "hunt",
                {"kinds": kinds, "radius": p.radius, "skip": list(lost), "giveUpMs": int(GIVE_UP_S * 1000)},
            )
        except ToolTimeout:
            ctx.check()  # the call's own deadline: that ends the hunt
            out = {"killed": False, "why": f"not killed within {KILL_TIMEOUT_S:g} s"}
        except ToolFailure as e:
            if not lost or "to hunt" not in e.message:
                raise
            # Only animals given up on are left in sight (across water, up a cliff): look
            # elsewhere as when none is in sight, else the hunt ends as if none were.
            if explored < p.explore_attempts:
                explored += 1
                await explore(ctx, HUNT_LOOK)
                continue
            if not kills:
                raise ToolFailure(
                    PRECONDITION_FAILED,
                    f"no {p.target} within reach to hunt ({len(lost)} out of reach given up on)",
                    details={"target": p.target, "lost": len(lost)},
                ) from e
            break
        if out.get("tossed"):  # node/lib/actions/hunt.js: fewer than 2 slots free, room made for the loot
            made = ", ".join(
                f"nothing ({t['failed']})" if "failed" in t else f"{t['count']} {t['name']}" for t in out["tossed"]
            )
            logger.info("[Tools] hunt: the inventory nearly full; tossed {} for room for the {}'s loot", made, p.target)
        hits += int(out.get("hits") or 0)
        weapon = out.get("weapon") or weapon
        if not out.get("killed"):
            if out.get("targetId") is not None:
                lost.append(int(out["targetId"]))
            misses += 1
            if misses > MAX_MISSES:
                raise ToolFailure(
                    EXECUTION_ERROR,
                    f"lost {misses} {p.target} before killing them ({len(kills)} of {p.count} killed)",
                    details={"kills": kills, "last": out},
                )
            continue
        kills.append(str(out.get("target")))
        drops.append(await _pick_up_drops(ctx, out["at"], held_before))
    await _sweep(ctx, drops)
    gained = _gained(before, await held(ctx))
    if p.until_item is not None and not await enough():
        have = available(await held(ctx), p.until_item)
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"{len(kills)} {p.target} hunted (explored {explored} times): {have} of {p.until_count} {p.until_item}"
            f"{_loot_line(drops, gained)}",
            details={"kills": kills, "gained": gained, "drops": drops},
        )
    return {
        "target": p.target,
        "requested": p.count,
        "kills": len(kills),
        "killed": kills,
        "short": p.count - len(kills),
        "gained": gained,
        "hits": hits,
        "weapon": weapon,
        "drops": drops,
        **({"climbedOut": climbed} if climbed is not None else {}),
    }


TOOLS = [
    Tool(
        "hunt",
        "Hunt animals (a kind, or 'animal' for any): kill the nearest with the best weapon held, pick up "
        "the drops (meat, leather, wool, feathers); `count` kills.",
        HuntInput,
        hunt,
        timeout_s=MAX_HUNT * (KILL_TIMEOUT_S + 20),
        queue=BODY_QUEUE,
    ),
]
