"""craft (plans intermediates with agency.tools.craft_planner, places a crafting table when a 3x3
recipe needs one, then runs one JS `craft` action per step), equip and eat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from loguru import logger
from pydantic import Field, model_validator

from agency.game.recipes import CRAFTABLE, available
from agency.places.memory import HOOK as PLACES_HOOK
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.building import place_near_bot
from agency.tools.craft_planner import plan_craft
from agency.tools.gathering import REACH
from agency.tools.queries import FindBlocksInput, find_blocks_now
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED
from agency.tools.walking import NO_PROGRESS, walk
from agency.world import under_cover_at_night

TABLE_SEARCH_RADIUS = 8
FULL_FOOD = 20


class CraftInput(ToolInput):
    item: str = Field(min_length=1, description="e.g. wooden_pickaxe, stick, or generic 'planks'")
    count: int = Field(default=1, ge=1, le=256)
    ensure: bool = Field(default=False, description="count is the total wanted in the inventory")
    keep: list[str] = Field(
        default_factory=list,
        max_length=16,
        description="items a later craft needs by name (a birch door's birch_planks): another variant first",
    )


class EquipInput(ToolInput):
    item: str = Field(min_length=1)
    destination: Literal["hand", "off-hand", "head", "torso", "legs", "feet"] = "hand"


class EatInput(ToolInput):
    item: str | None = Field(default=None, description="a food item; none = the best food held")
    prefer: str | None = Field(default=None, description="eat this food when held, else the best food held")
    count: int = Field(default=1, ge=1, le=10_000, description="eat up to this many times, stopping once full")

    @model_validator(mode="after")
    def _one_choice(self) -> EatInput:
        if self.item and self.prefer:
            raise ValueError("give item (that food only) or prefer (that food when held), not both")
        return self


async def held(ctx: ToolContext) -> dict[str, int]:
    inv: dict[str, int] = {}
    for it in (await ctx.snapshot()).inventory:
        inv[it.name] = inv.get(it.name, 0) + it.count
    return inv


STATIONS_JUDGED = 4  # in sight, the nearest few: one over the head under the night's cover is passed over


async def stations_near(
    ctx: ToolContext, block: str, radius: int, count: int = STATIONS_JUDGED
) -> list[dict[str, Any]]:
    """Placed `block`s (a crafting table, a furnace) within `radius`, nearest first, at most `count`."""
    hits = await find_blocks_now(ctx, FindBlocksInput(block=block, radius=radius, count=count, vertical=4))
    return list(hits["blocks"])


async def tables_near(ctx: ToolContext, count: int = STATIONS_JUDGED) -> list[dict[str, Any]]:
    """Placed crafting tables within TABLE_SEARCH_RADIUS, nearest first, at most `count`."""
    return await stations_near(ctx, "crafting_table", TABLE_SEARCH_RADIUS, count)


async def nearby_table(ctx: ToolContext) -> dict[str, Any] | None:
    """A placed crafting table the crafter would use (within TABLE_SEARCH_RADIUS), or None."""
    tables = await tables_near(ctx, 1)
    return tables[0] if tables else None


async def usable_table(ctx: ToolContext) -> dict[str, Any] | None:
    """The crafting table a 3x3 craft would use: one within TABLE_SEARCH_RADIUS, else the
    nearest remembered one within the places' reuse distance whose block is still there
    (ctx.hooks["places"]; read now, never taken on trust), else None. A remembered table
    is marked `remembered` (the crafter walks to it)."""
    return await found_or_remembered(ctx, await tables_near(ctx), "crafting_table")


async def _within_the_night_cover(ctx: ToolContext, found: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """Those of `found` the bot may walk to. Under cover at night, one in sight out of reach
    and over the bot's head is not walked to: a 26.1 bench bot dug in under its hut for the
    night's work (seed 3052 at c13238d) walked from its pocket toward a table 4 blocks up,
    digging when the walk made no progress, and spent the rest of the night in its hut, its
    work held. Another in sight down there is used; with none, one is put down where it is."""
    if all(f.get("distance", 0.0) <= REACH for f in found):
        return found
    snap = await ctx.snapshot()
    if not under_cover_at_night(snap):
        return found
    over = [f for f in found if f.get("distance", 0.0) > REACH and f["y"] > snap.position.y + 1]
    if over and over[0] is found[0]:  # the nearest passed over (another may still be used)
        logger.info(
            "[Places] the {} at {} {} {} is {:.1f} m off and over the bot's head, out of the night's cover; "
            "not walking to it{}",
            kind,
            over[0]["x"],
            over[0]["y"],
            over[0]["z"],
            over[0]["distance"],
            f" ({len(over)} such in sight)" if len(over) > 1 else "",
        )
    return [f for f in found if f not in over]


async def found_or_remembered(ctx: ToolContext, found: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    """The nearest block of `kind` found near the bot that it may walk to (then remembered in
    places), else, none found, the nearest remembered one still standing within the reuse
    distance, marked `remembered` (not under cover at night), else None."""
    places = ctx.hooks.get(PLACES_HOOK)
    usable = await _within_the_night_cover(ctx, found, kind)
    if found and not usable:
        return None
    if usable or places is None:
        if usable and places is not None:
            places.saw(usable[0].get("name", kind), usable[0]["x"], usable[0]["y"], usable[0]["z"])
        return usable[0] if usable else None
    snap = await ctx.snapshot()
    if under_cover_at_night(snap):
        # Under cover at night (dug in, underground) one is placed where the bot is: the walk to
        # a remembered one on the surface took a bench bot out of its pocket into the dark.
        return None
    pos = snap.position
    here = (pos.x, pos.y, pos.z)

    async def block_at(pos: tuple[int, int, int]) -> str | None:
        return (await ctx.region(pos, (1, 1, 1))).block_at(*pos)

    hit = await places.standing_read(block_at, kind, here)
    if hit is None:
        return None
    return {
        "x": hit.x,
        "y": hit.y,
        "z": hit.z,
        "name": hit.block,
        "distance": round(hit.distance_to(here), 2),
        "remembered": True,
    }


async def table_facts(ctx: ToolContext) -> dict[str, Any]:
    """What a craft workflow's planner may know: a usable table (nearby or remembered and
    standing), so it plans no new table. {} when there is none."""
    table = await usable_table(ctx)
    return {} if table is None else {"craftingTable": {k: table[k] for k in ("x", "y", "z")}}


async def reach(ctx: ToolContext, station: dict[str, Any]) -> None:
    """Walk within reach of a block to use (a table, a furnace) unless the bot is."""
    pos = (await ctx.snapshot()).position
    if pos.distance_to(type(pos)(x=station["x"] + 0.5, y=station["y"] + 0.5, z=station["z"] + 0.5)) > REACH:
        await walk(ctx, station["x"] + 0.5, station["y"], station["z"] + 0.5, 2.5)


async def reach_or_replace(ctx: ToolContext, station: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """Walk within reach of a table or furnace (`kind`) in sight or remembered. When no walk
    gets there (behind rock it may not dig, across water), one is put down by the bot instead,
    from the inventory or crafted, and returned; None when it was reached. A 1.18.2 bench bot at
    8fd0a28 failed eight armour crafts in a row on the walk to a furnace 8-12 blocks off."""
    try:
        await reach(ctx, station)
        return None
    except ToolFailure as e:
        if NO_PROGRESS not in e.message:
            raise
        logger.info(
            "[Places] no way to the {} at {} {} {} ({}); putting one down here instead",
            kind,
            station["x"],
            station["y"],
            station["z"],
            e.message,
        )
    if (await held(ctx)).get(kind, 0) < 1:
        await craft(ctx, CraftInput(item=kind, count=1, ensure=True))
    placed = await place_near_bot(ctx, kind)
    return {"x": placed["x"], "y": placed["y"], "z": placed["z"], "name": kind}


async def craft(ctx: ToolContext, p: CraftInput) -> dict[str, Any]:
    if p.item not in CRAFTABLE:
        raise ToolFailure(PRECONDITION_FAILED, f"no recipe known for '{p.item}' (minecraft-data has none)")
    inv = await held(ctx)
    start = available(inv, p.item)
    need = max(0, p.count - start) if p.ensure else p.count
    if need == 0:
        return {"item": p.item, "crafted": 0, "have": start, "steps": [], "placedTable": None}
    # Look for a table only when a step needs one (a remembered one costs block reads).
    table = await usable_table(ctx) if plan_craft(p.item, need, inv).needs_table else None
    if table is not None and table.get("remembered"):
        logger.info(
            "[Places] reusing crafting_table at {} {} {} ({} m away) instead of placing a new one",
            table["x"],
            table["y"],
            table["z"],
            table["distance"],
        )
    plan = plan_craft(p.item, need, inv, table_nearby=table is not None, keep=p.keep)
    if plan.missing:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"missing materials for {need} {p.item}: {plan.missing}",
            details={"missing": plan.missing},
        )
    done: list[dict[str, Any]] = []
    placed_table = None
    for step in plan.steps:
        ctx.check()
        if step.place_table:
            placed_table = await place_near_bot(ctx, "crafting_table")
            table = placed_table
            done.append({"placed": "crafting_table", "at": [table["x"], table["y"], table["z"]]})
            continue
        args: dict[str, Any] = {"item": step.item, "times": step.crafts}
        if plan.keep:
            args["keep"] = plan.keep
        if step.needs_table:
            assert table is not None  # the plan placed one when none was near
            if (instead := await reach_or_replace(ctx, table, "crafting_table")) is not None:
                table = placed_table = instead
                done.append({"placed": "crafting_table", "at": [table["x"], table["y"], table["z"]]})
            args["table"] = {"x": table["x"], "y": table["y"], "z": table["z"]}
        out = await run_action(ctx, "craft", args)
        if tossed := out.get("tossed"):  # node/lib/room.js: no slot was free for what is made
            logger.info(
                "[Tools] craft {}: the inventory was full; tossed {}",
                step.item,
                ", ".join(f"{t['count']} {t['name']}" for t in tossed),
            )
        if worn := out.get("worn"):  # node/lib/wear.js: armour made is put on
            logger.info("[Tools] craft {}: put on {}", step.item, ", ".join(worn))
        done.append({"item": step.item, "times": step.crafts, "result": out})
    have = available(await held(ctx), p.item)
    if have < start + need:
        raise ToolFailure(
            EXECUTION_ERROR, f"crafting ended with {have} {p.item}, wanted {start + need}", details={"steps": done}
        )
    return {"item": p.item, "crafted": have - start, "have": have, "steps": done, "placedTable": placed_table}


def _undo_craft(_p: CraftInput, out: Mapping[str, Any]) -> dict[str, Any] | None:
    # Crafts cannot be undone; a crafting table this call placed can be picked up again.
    t = out.get("placedTable")
    return {"tool": "mine_block", "args": {"x": t["x"], "y": t["y"], "z": t["z"]}} if t else None


async def equip(ctx: ToolContext, p: EquipInput) -> dict[str, Any]:
    if (await held(ctx)).get(p.item, 0) < 1:
        raise ToolFailure(PRECONDITION_FAILED, f"no {p.item} in the inventory to equip")
    out = await run_action(ctx, "equip", {"item": p.item, "destination": p.destination})
    return {"item": p.item, "destination": p.destination, **out}


async def eat(ctx: ToolContext, p: EatInput) -> dict[str, Any]:
    """The body knows what is edible (minecraft-data): with no item named it eats the held
    food restoring the most. A full bot cannot eat, so that is a failed precondition."""
    snap = await ctx.snapshot()
    if snap.food >= FULL_FOOD:
        raise ToolFailure(PRECONDITION_FAILED, f"not hungry (food {snap.food}/{FULL_FOOD}): nothing to eat for")
    before, out = snap.food, {}
    ate: list[str | None] = []
    for _ in range(p.count):
        if ate and snap.food >= FULL_FOOD:
            break
        item = p.item or (p.prefer if p.prefer and snap.count_of(p.prefer) else None)
        try:
            out = await run_action(ctx, "consume", {"item": item} if item else {})
        except ToolFailure:
            if not ate:
                raise
            break  # the food ran out after eating: what was eaten stands
        ate.append(out.get("ate", item))
        snap = await ctx.snapshot()
    return {**out, "ate": ate, "foodBefore": before, "foodAfter": snap.food}


TOOLS = [
    Tool(
        "craft",
        "Craft an item, crafting intermediates and placing a table as needed.",
        CraftInput,
        craft,
        timeout_s=120,
        queue=BODY_QUEUE,
        compensate=_undo_craft,
    ),
    Tool("equip", "Hold or wear an item.", EquipInput, equip, timeout_s=10, queue=BODY_QUEUE),
    # Up to 20 one-point foods at about 1.6 s each before the bot is full.
    Tool(
        "eat", "Eat a food item (the best one held when none is named).", EatInput, eat, timeout_s=40, queue=BODY_QUEUE
    ),
]
