"""Getting blocks: collect_block (find + collectblock, exploring when nothing is near) and
mine_block (walk within reach, dig one or more positions)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from agency.names import canonical
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.movement import ExploreInput, explore, walk
from agency.tools.queries import FindBlocksInput, find_blocks_now
from agency.tools.recipes import available
from agency.tools.results import PRECONDITION_FAILED

# What a block drops when it is not itself (no silk touch), by canonical name.
DROPS = {"stone": "cobblestone", "grass_block": "dirt", "coal_ore": "coal", "deepslate": "cobbled_deepslate",
         "iron_ore": "raw_iron", "deepslate_iron_ore": "raw_iron", "deepslate_coal_ore": "coal"}
REACH = 4.0
MAX_FUTILE = 3


class CollectBlockInput(ToolInput):
    block: str = Field(min_length=1, description="block name or generic 'log'")
    count: int = Field(default=1, ge=1, le=64)
    ensure: bool = Field(default=False, description="count is the total wanted in the inventory")
    radius: int = Field(default=32, ge=1, le=32)
    explore_attempts: int = Field(default=2, ge=0, le=5)


class Pos(ToolInput):
    x: int
    y: int
    z: int


class MineBlockInput(ToolInput):
    x: int | None = None
    y: int | None = None
    z: int | None = None
    block: str | None = Field(default=None, description="dig the nearest block of this kind")
    positions: list[Pos] = Field(default_factory=list, max_length=256)

    @model_validator(mode="after")
    def _one_target(self) -> "MineBlockInput":
        has_xyz = None not in (self.x, self.y, self.z)
        if sum([has_xyz, bool(self.block), bool(self.positions)]) != 1:
            raise ValueError("give exactly one of: x,y,z / block / positions")
        return self


def _held(ctx: ToolContext, item: str) -> int:
    inv: dict[str, int] = {}
    for it in ctx.body.snapshot().inventory:
        inv[it.name] = inv.get(it.name, 0) + it.count
    return available(inv, item)


async def collect_block(ctx: ToolContext, p: CollectBlockInput) -> dict[str, Any]:
    drop_of = lambda name: DROPS.get(canonical(name), name)  # noqa: E731
    item = drop_of(p.block)
    start = _held(ctx, item)
    goal = p.count if p.ensure else start + p.count
    have, futile, explored, kinds = start, 0, 0, []
    while have < goal:
        ctx.check()
        hits = find_blocks_now(ctx, FindBlocksInput(block=p.block, radius=min(p.radius, 32), count=1))["blocks"]
        if not hits:
            if explored >= p.explore_attempts:
                raise ToolFailure(PRECONDITION_FAILED, f"no {p.block} within {p.radius} blocks (explored {explored} times)",
                                  details={"have": have, "goal": goal})
            explored += 1
            await explore(ctx, ExploreInput(legs=2, leg_distance=24))
            continue
        name = hits[0]["name"]
        kinds.append(name)
        try:
            await run_action(ctx, "collect", {"block": name, "count": goal - have, "maxDistance": p.radius, "item": drop_of(name)})
            why = None
        except ToolFailure as e:  # e.g. an unreachable treetop: what counts is what we now hold
            why = e.message
        now = _held(ctx, item)
        futile = futile + 1 if now <= have else 0
        have = now
        if futile >= MAX_FUTILE:
            raise ToolFailure(PRECONDITION_FAILED, f"collecting {name} made no progress {MAX_FUTILE} times (last: {why})",
                              details={"have": have, "goal": goal})
    return {"block": p.block, "item": item, "gained": have - start, "have": have, "kinds": sorted(set(kinds))}


async def dig_at(ctx: ToolContext, x: int, y: int, z: int) -> dict[str, Any]:
    pos = ctx.body.snapshot().position
    if pos.distance_to(type(pos)(x=x + 0.5, y=y + 0.5, z=z + 0.5)) > REACH:
        await walk(ctx, x + 0.5, y, z + 0.5, 2.5)
    return await run_action(ctx, "dig", {"x": x, "y": y, "z": z})


async def mine_block(ctx: ToolContext, p: MineBlockInput) -> dict[str, Any]:
    if p.block:
        hits = find_blocks_now(ctx, FindBlocksInput(block=p.block, count=1))["blocks"]
        if not hits:
            raise ToolFailure(PRECONDITION_FAILED, f"no {p.block} nearby to mine")
        targets = [(hits[0]["x"], hits[0]["y"], hits[0]["z"])]
    elif p.positions:
        targets = [(q.x, q.y, q.z) for q in p.positions]
    else:
        targets = [(p.x, p.y, p.z)]  # type: ignore[list-item]
    dug = []
    for x, y, z in targets:
        ctx.check()
        out = await dig_at(ctx, x, y, z)
        dug.append({"x": x, "y": y, "z": z, "block": out.get("dug")})
    return {"dug": dug}


TOOLS = [
    Tool("collect_block", "Find and collect blocks (explores when none are near).", CollectBlockInput, collect_block,
         timeout_s=300, queue=BODY_QUEUE),
    Tool("mine_block", "Dig a block at x,y,z, the nearest of a kind, or a list of positions.", MineBlockInput, mine_block,
         timeout_s=120, queue=BODY_QUEUE),
]
