"""smelt: find a furnace in sight, or a remembered one still standing within the places' reuse
distance (walked to; agency.places), or place one from the inventory, or craft one when asked;
load the input and the best fuel for the count (sparing what `keep` names: logs a later step
needs), wait for the outputs and take them (one JS
`smelt` action through mineflayer's bot.openFurnace), then check the inventory gained them.

The wait is bounded by the count (10 s an item plus a margin, smelt_planner.cook_timeout_s);
the JS side also fails early when the furnace stops making progress. A stop while it cooks (the
reflex arbiter preempting, a deadline) takes back what is not smelted yet, the fuel in its slot
and the outputs before the window closes; what a furnace still holds from before (a crash) the
next call takes out and counts.
"""

from __future__ import annotations

from typing import Any

from loguru import logger
from pydantic import Field, field_validator

from agency.game.furnace import COOK_TICKS, SMELTING, held_inputs, inputs_for, output_of
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.building import place_near_bot
from agency.tools.crafting import (
    STATIONS_JUDGED,
    CraftInput,
    craft,
    found_or_remembered,
    held,
    reach,
    reach_or_replace,
    stations_near,
    table_facts,
)
from agency.tools.results import EXECUTION_ERROR, PRECONDITION_FAILED
from agency.tools.smelt_planner import choose_fuel, cook_timeout_s, fuel_reserve, input_choice

FURNACE_SEARCH_RADIUS = 16
MAX_SMELT = 64  # one output stack; also bounds the wait (64 x 10 s)
STALL_MS = 20_000  # no cook progress and no output for this long: the furnace is stuck


class SmeltInput(ToolInput):
    item: str = Field(
        min_length=1, description="what to make (iron_ingot, stone, cooked_beef, charcoal) or what to smelt (raw_iron)"
    )
    count: int = Field(default=1, ge=1, le=MAX_SMELT)
    ensure: bool = Field(default=False, description="count is the total wanted in the inventory")
    craft_furnace: bool = Field(
        default=False, description="craft a furnace (8 cobblestone, at a table) when none is near or held"
    )
    keep: dict[str, int] = Field(
        default_factory=dict,
        description="held items not to burn, e.g. {'log': 2}: what a later step needs (any log for 'log')",
    )

    @field_validator("item")
    @classmethod
    def _smeltable(cls, v: str) -> str:
        name = v.strip().lower().removeprefix("minecraft:")
        if output_of(name) is None:
            raise ValueError(f"nothing smelts into or from '{v}' (products: {', '.join(sorted(SMELTING))})")
        return name


async def furnaces_near(ctx: ToolContext, count: int = STATIONS_JUDGED) -> list[dict[str, Any]]:
    """Furnaces within FURNACE_SEARCH_RADIUS, nearest first, at most `count`."""
    return await stations_near(ctx, "furnace", FURNACE_SEARCH_RADIUS, count)


async def nearby_furnace(ctx: ToolContext) -> dict[str, Any] | None:
    furnaces = await furnaces_near(ctx, 1)
    return furnaces[0] if furnaces else None


async def usable_furnace(ctx: ToolContext) -> dict[str, Any] | None:
    """The furnace a smelt would use: one within FURNACE_SEARCH_RADIUS, else the nearest
    remembered one within the places' reuse distance whose block is still there (read now,
    never taken on trust; marked `remembered`: the smelter walks to it), else None."""
    return await found_or_remembered(ctx, await furnaces_near(ctx), "furnace")


async def smelt_facts(ctx: ToolContext) -> dict[str, Any]:
    """What a smelt workflow's planner may know: a usable furnace (in sight, or remembered and
    standing), so it crafts no new one, and a usable crafting table, so the furnace or a
    pickaxe it does craft needs no new table. {} when there is neither."""
    furnace = await usable_furnace(ctx)
    facts = {} if furnace is None else {"furnace": {k: furnace[k] for k in ("x", "y", "z")}}
    return {**facts, **await table_facts(ctx)}


async def _get_furnace(ctx: ToolContext, p: SmeltInput) -> tuple[dict[str, Any], str | None]:
    """A furnace to use: the nearest one in sight or remembered and standing, else one placed
    from the inventory, else (craft_furnace) one crafted and placed. Returns it and how it came
    ('remembered', 'placed', 'crafted'; None: in sight)."""
    found = await usable_furnace(ctx)
    if found is not None:
        if found.get("remembered"):
            logger.info(
                "[Places] reusing furnace at {} {} {} ({} m away) instead of placing a new one",
                found["x"],
                found["y"],
                found["z"],
                found["distance"],
            )
            return found, "remembered"
        return found, None
    how = "placed"
    if (await held(ctx)).get("furnace", 0) < 1:
        if not p.craft_furnace:
            raise ToolFailure(
                PRECONDITION_FAILED, f"no furnace within {FURNACE_SEARCH_RADIUS} blocks and none in the inventory"
            )
        await craft(ctx, CraftInput(item="furnace", count=1, ensure=True))
        how = "crafted"
    placed = await place_near_bot(ctx, "furnace")
    return {"x": placed["x"], "y": placed["y"], "z": placed["z"], "name": "furnace"}, how


async def smelt(ctx: ToolContext, p: SmeltInput) -> dict[str, Any]:
    output = output_of(p.item)
    assert output is not None  # the input model checked it
    inv = await held(ctx)
    start = inv.get(output, 0)
    need = max(0, p.count - start) if p.ensure else p.count
    if need == 0:
        return {"item": output, "smelted": 0, "have": start, "furnace": None}
    kind, have_input = input_choice(inv, output)
    furnace_near = await usable_furnace(ctx) is not None
    # A furnace in sight (or remembered) may still hold a stopped call's input or outputs (the
    # JS action counts them); a new one holds nothing, so the inventory must have it all.
    if not furnace_near:
        if kind is None:
            raise ToolFailure(
                PRECONDITION_FAILED,
                f"nothing to smelt: no {' or '.join(inputs_for(output))} in the inventory to make {output}",
                details={"item": output, "inputs": list(inputs_for(output))},
            )
        if have_input < need:
            raise ToolFailure(
                PRECONDITION_FAILED,
                f"only {have_input} {kind} to smelt, {need} {output} wanted",
                details={"have": have_input, "need": need, "input": kind},
            )
    smelted = {kind: need} if kind else {}
    fuel = choose_fuel(inv, need, reserve=fuel_reserve(inv, smelted, p.keep, making=output))
    if not fuel.enough and p.keep:  # better the later step gathers again than no smelt at all
        logger.info("[Smelt] burning what was kept for later ({}): no other fuel covers {} {}", p.keep, need, output)
        fuel = choose_fuel(inv, need, reserve=fuel_reserve(inv, smelted, {}, making=output))
    if not fuel.enough and not furnace_near:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"not enough fuel for {need} {output}: {fuel.short_ticks} burn ticks "
            f"short (coal or charcoal 1600, planks or logs 300, sticks 100; an item takes {COOK_TICKS})",
            details={"shortTicks": fuel.short_ticks, "fuel": [f.__dict__ for f in fuel.picks]},
        )
    ctx.check()
    furnace, how = await _get_furnace(ctx, p)
    # one put down in its stead holds nothing: only with all of the input and fuel held
    if kind is not None and have_input >= need and fuel.enough and (p.craft_furnace or "furnace" in await held(ctx)):
        if (instead := await reach_or_replace(ctx, furnace, "furnace")) is not None:
            furnace, how = instead, "placed"
    else:
        await reach(ctx, furnace)
    # The wait is bounded by the count, inside whatever the call itself has left.
    timed = ctx.within_ms(int(cook_timeout_s(need) * 1000) + 1000)
    args = {
        "x": furnace["x"],
        "y": furnace["y"],
        "z": furnace["z"],
        "output": output,
        "want": need,
        "inputs": [i for i in inputs_for(output) if i != "log"] + sorted(held_inputs(inv, output)),
        "anyLog": "log" in inputs_for(output),
        "fuels": [{"name": f.name, "count": f.count, "ticks": f.ticks} for f in fuel.picks],
        "cookTicks": COOK_TICKS,
        "stallMs": STALL_MS,
    }
    out = await run_action(timed, "smelt", args)
    status = out.get("status")
    if status == "nothing_to_smelt":
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"nothing to smelt: no {' or '.join(inputs_for(output))} in the inventory "
            f"or the furnace at {furnace['x']},{furnace['y']},{furnace['z']}",
            details=out,
        )
    if status == "short_input":
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"only {out.get('have')} {out.get('input') or 'input'} to smelt, "
            f"{need - int(out.get('gained') or 0)} {output} still wanted",
            details=out,
        )
    if status == "short_fuel":
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"not enough fuel for {need} {output}: {out.get('missingTicks')} burn ticks short",
            details=out,
        )
    have = (await held(ctx)).get(output, 0)
    if have < start + need:
        raise ToolFailure(
            EXECUTION_ERROR,
            f"smelting ended with {have} {output} in the inventory, wanted {start + need}",
            details={"action": out},
        )
    return {
        "item": output,
        "smelted": have - start,
        "have": have,
        "input": out.get("input"),
        "fuel": out.get("fuel"),
        "furnace": {"x": furnace["x"], "y": furnace["y"], "z": furnace["z"]},
        "furnaceFrom": how,
    }


TOOLS = [
    # 64 items at 10 s each plus the margin, and time to craft and place a furnace first.
    Tool(
        "smelt",
        "Smelt in a furnace (one in sight, else placed from the inventory): raw_iron -> iron_ingot, "
        "cobblestone -> stone, raw meat -> cooked, logs -> charcoal.",
        SmeltInput,
        smelt,
        timeout_s=cook_timeout_s(MAX_SMELT) + 180,
        queue=BODY_QUEUE,
    ),
]
