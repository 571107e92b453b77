"""Getting blocks and items: collect_block (find + collectblock; when nothing is in the sight
box, a block of the surface is looked for farther off in the chunks the bot has loaded and
walked to before it explores; for an ore, digging on down to its level or tunnelling there:
agency.tools.mining, or up into its band from below it: agency.tools.climb_out),
mine_block (walk within reach, dig one or more positions) and pick_up_items (walk onto the
item entities lying around a spot, e.g. what the bot dropped when it died).

collect_block, and mine_block given a kind of block to mine, refuse up front when the bot
holds no tool that makes the block drop anything (agency.game.harvest: stone by hand is 7.5 s a
block for nothing). mine_block at positions only clears them (a rollback taking back a
placed block, a path dug through): it digs with whatever is held."""

from __future__ import annotations

import math
import re
from typing import Any

from loguru import logger
from pydantic import Field, model_validator

from agency.blocks import DEEP_ROCK, ROCK
from agency.game.armour import is_armour
from agency.game.harvest import can_harvest, drop, needs_tool, ranked_tools, unless_dug_with
from agency.game.loot import sure_drop
from agency.game.mcdata import data
from agency.game.ores import ore_level
from agency.game.recipes import available, matches
from agency.names import canonical
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.climb_out import rise_into_band
from agency.tools.mining import NIGHT_REACH_UP, tunnel_for
from agency.tools.movement import ExploreInput, explore
from agency.tools.queries import FindBlocksInput, find_blocks_now
from agency.tools.results import PRECONDITION_FAILED, WAITS_FOR_MORNING
from agency.tools.walking import walk
from agency.world import BodyError, BodyLost, EntityInfo, Vec3, WorldSnapshot, under_cover_at_night, underground

# Blocks that need no tool and drop something else: the harvest data holds only the blocks
# that need one (and what they drop), by canonical name.
BARE_HAND_DROPS = {"grass_block": "dirt"}
MAX_PER_CALL = 64  # what one collect gathers at most (a total ensured may be more: a plan's batches)
REACH = 4.0
MAX_FUTILE = 3
# Looked for farther than the sight box (32 around, 8 up and down) before exploring: the chunks
# the bot has loaded reach 96 blocks (server.view_distance 6); node/lib/limits.js caps a scan at 64.
FAR_LOOK = 64
FAR_WALK_RANGE = 6  # walked to within this of what the far look saw: the sight box holds it then
FAR_DOWN = 8  # no deeper below the feet than the sight box reaches: a surface collect digs no shaft
# node/lib/actions/collect.js, under cover at night: those in sight all stand in the open
NONE_UNDER_COVER = "under cover within"
WALKED, UNSEEN, UNREACHED = "walked", "unseen", "unreached"
NONE_NEAR = re.compile(r"no (\w+) within \d+ blocks[^;]*\(explored \d+ times\)")  # collect_block's, below


def none_near(message: str) -> str | None:
    """The block a collect_block failure found none of after exploring (its message, below)."""
    found = NONE_NEAR.match(message)
    return found[1] if found else None


def drop_of(block: str) -> str:
    """The item collecting `block` gains (cobblestone for stone, dirt for grass_block, clay
    balls for clay: minecraft-data's loot, agency.game.loot, for a block that needs no tool)."""
    name = canonical(block)
    return BARE_HAND_DROPS.get(name) or (drop(block) if needs_tool(block) else sure_drop(name)) or block


class CollectBlockInput(ToolInput):
    block: str = Field(min_length=1, description="block name or generic 'log'")
    count: int = Field(default=1, ge=1, le=36 * 64)
    ensure: bool = Field(default=False, description="count is the total wanted in the inventory")
    radius: int = Field(default=32, ge=1, le=32)
    explore_attempts: int = Field(default=2, ge=0, le=5)
    item: str | None = Field(default=None, description="count this item, a chance drop of the block (flint)")
    chance: float = Field(default=1.0, gt=0, le=1, description="the chance one block drops `item`")

    @model_validator(mode="after")
    def _bounded(self) -> CollectBlockInput:
        if not self.ensure and self.count > MAX_PER_CALL:
            raise ValueError(f"count: at most {MAX_PER_CALL} more in one call (a larger total needs ensure)")
        return self


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
    def _one_target(self) -> MineBlockInput:
        has_xyz = None not in (self.x, self.y, self.z)
        if sum([has_xyz, bool(self.block), bool(self.positions)]) != 1:
            raise ValueError("give exactly one of: x,y,z / block / positions")
        return self


async def _held(ctx: ToolContext, item: str) -> int:
    return available(await held_items(ctx), item)


async def held_items(ctx: ToolContext) -> dict[str, int]:
    inv: dict[str, int] = {}
    for it in (await ctx.snapshot()).inventory:
        inv[it.name] = inv.get(it.name, 0) + it.count
    return inv


async def require_harvest_tool(ctx: ToolContext, block: str) -> None:
    """PRECONDITION_FAILED naming the tools when none held makes `block` drop anything."""
    if can_harvest(await held_items(ctx), block):
        return
    raise ToolFailure(
        PRECONDITION_FAILED,
        f"{unless_dug_with(block)}, and the bot holds none",
        details={"block": block, "tools": list(ranked_tools(block))},
    )


async def collect_block(ctx: ToolContext, p: CollectBlockInput) -> dict[str, Any]:
    await require_harvest_tool(ctx, p.block)
    item = p.item or drop_of(p.block)
    futile_limit = math.ceil(MAX_FUTILE / p.chance)  # a chance drop: many blocks dug for nothing
    start = await _held(ctx, item)
    goal = p.count if p.ensure else start + p.count
    have, futile, explored, looked, missed, kinds, wet_seen = start, 0, 0, 0, False, [], False
    while have < goal:
        ctx.check()
        snap = await ctx.snapshot()
        # Under cover at night (dug in, underground) only blocks at the bot's level or below: a
        # dug-in bench bot walked up to stone on a hillside, into the dark, and back to its hut.
        below = under_cover_at_night(snap)
        find = FindBlocksInput(block=p.block, radius=min(p.radius, 32), count=1, up=NIGHT_REACH_UP if below else None)
        # A block dug with a tool (ore, stone) with water or lava on a face is left alone: its
        # hole floods as it opens, and under water the bot digs five times slower (a 1.18.2
        # bench bot spent 8 minutes on iron ore in its flooded tunnel, none taken).
        dry = needs_tool(p.block)
        hits = (await find_blocks_now(ctx, find, dry=dry))["blocks"]
        wet_seen = wet_seen or (dry and not hits and bool((await find_blocks_now(ctx, find))["blocks"]))
        surface_kind = ore_level(p.block) is None and p.block not in ROCK | DEEP_ROCK
        if not hits:
            if below and surface_kind:
                raise ToolFailure(
                    WAITS_FOR_MORNING,
                    f"no {p.block} at this level or below; up in the dark it waits for the morning",
                    details={"have": have, "goal": goal},
                )
            underground_kind = ore_level(p.block) is not None or below or p.block in ROCK | DEEP_ROCK
            # once from where it stood and once from each place it explored to; not from a mine
            # (the explore climbs out first)
            if not underground_kind and not underground(snap) and looked <= explored:
                looked += 1
                far = await walk_to_far(ctx, p.block, snap.position)
                if far == WALKED:
                    continue
                missed = missed or far == UNREACHED
            if explored >= p.explore_attempts:
                farther = ""
                if looked:
                    farther = " (one seen farther off could not be walked to)"
                    farther = farther if missed else f" nor in sight within {FAR_LOOK}"
                raise ToolFailure(
                    PRECONDITION_FAILED,
                    f"no {p.block} within {p.radius} blocks{farther} (explored {explored} times)"
                    + ("; those seen lie beside water or lava, left alone" if wet_seen else ""),
                    details={"have": have, "goal": goal},
                )
            explored += 1
            if ore_level(p.block) is not None or below:  # it lies underground: dig on down or along, not back up
                # (up only from below the ore's band, as coal's in the deepslate; never out of the night's cover)
                if below or await rise_into_band(ctx, p.block) is None:
                    await tunnel_for(ctx, p.block)
            else:
                await explore(ctx, ExploreInput(legs=2, leg_distance=24))
            continue
        name = hits[0]["name"]
        kinds.append(name)
        # The sight box is a box (32 around, 8 up and down); the JS search is a sphere: reach
        # as far as the block seen (an ore in a corner of the box, 40 blocks off, was "not
        # within 32 blocks" to the collect three times over, and the diamond pickaxe failed).
        reach = max(p.radius, math.ceil(hits[0]["distance"]) + 1)
        try:
            out = await run_action(
                ctx,
                "collect",
                {
                    "block": name,
                    "count": goal - have,
                    "maxDistance": reach,
                    "item": p.item or drop_of(name),
                    **({"dryOnly": True} if dry else {}),
                    **({"maxY": math.floor(snap.position.y) + NIGHT_REACH_UP, "covered": True} if below else {}),
                },
            )
            why = None
            if out.get("staleTasks"):  # node/lib/actions/collect.js forgetStaleTask
                logger.info("[Tools] collect {}: a collectblock task that never ended was let go of first", name)
            if tossed := out.get("tossed"):  # node/lib/room.js: no slot was free
                logger.info(
                    "[Tools] collect {}: the inventory was full; tossed {}",
                    name,
                    ", ".join(f"{t['count']} {t['name']}" for t in tossed),
                )
        except ToolFailure as e:  # e.g. an unreachable treetop: what counts is what we now hold
            why = e.message
            if below and surface_kind and NONE_UNDER_COVER in why:  # a tree in a valley below the pocket
                raise ToolFailure(
                    WAITS_FOR_MORNING,
                    f"no {p.block} under cover at this level or below (those seen stand in the open); "
                    "up in the dark it waits for the morning",
                    details={"have": have, "goal": goal},
                ) from e
        now = await _held(ctx, item)
        futile = futile + 1 if now <= have else 0
        have = now
        if futile >= futile_limit:
            raise ToolFailure(
                PRECONDITION_FAILED,
                f"collecting {name} made no progress {MAX_FUTILE} times (last: {why})",
                details={"have": have, "goal": goal},
            )
    return {"block": p.block, "item": item, "gained": have - start, "have": have, "kinds": sorted(set(kinds))}


async def walk_to_far(ctx: ToolContext, block: str, feet: Vec3) -> str:
    """Look for `block` up to FAR_LOOK blocks off in the loaded chunks (node/lib/actions/find.js),
    no deeper than FAR_DOWN under the feet, and walk toward the nearest one seen, digging
    nothing: WALKED, UNSEEN, or UNREACHED (the walk failed). Best effort: the caller explores
    instead. A bench bot spawned on a strip of plains by a desert found its one tree, then 'no
    log within 32 blocks' twice over, with a wood 60 blocks off and 12 blocks up a hill, out
    of the sight box."""
    names = sorted(n for n in data().blocks if matches(block, n))
    if not names:
        return UNSEEN
    look = {"names": names, "maxDistance": FAR_LOOK, "count": 1, "minY": math.floor(feet.y) - FAR_DOWN}
    try:
        seen = (await run_action(ctx, "find", look))["blocks"]
    except BodyLost:
        raise
    except (ToolFailure, BodyError) as e:  # an older bridge, a recording without it: explore as before
        logger.info("[Tools] collect {}: no look farther ({})", block, e)
        return UNSEEN
    if not seen:
        return UNSEEN
    b = seen[0]
    logger.info(
        "[Tools] collect {}: none in sight; {} seen {:.0f} blocks off, walking there", block, b["name"], b["distance"]
    )
    try:
        await walk(ctx, b["x"] + 0.5, b["y"], b["z"] + 0.5, FAR_WALK_RANGE, dig_out=False)
    except ToolFailure as e:
        logger.info(
            "[Tools] collect {}: the walk to {} {} {} failed ({}); exploring", block, b["x"], b["y"], b["z"], e.message
        )
        return UNREACHED
    return WALKED


async def dig_at(ctx: ToolContext, x: int, y: int, z: int) -> dict[str, Any]:
    pos = (await ctx.snapshot()).position
    if pos.distance_to(type(pos)(x=x + 0.5, y=y + 0.5, z=z + 0.5)) > REACH:
        await walk(ctx, x + 0.5, y, z + 0.5, 2.5)
    return await run_action(ctx, "dig", {"x": x, "y": y, "z": z})


async def mine_block(ctx: ToolContext, p: MineBlockInput) -> dict[str, Any]:
    if p.block:  # a kind to mine: its drop is the point (positions are only cleared)
        await require_harvest_tool(ctx, p.block)
        hits = (await find_blocks_now(ctx, FindBlocksInput(block=p.block, count=1)))["blocks"]
        if not hits:
            raise ToolFailure(PRECONDITION_FAILED, f"no {p.block} nearby to mine")
        targets = [(hits[0]["x"], hits[0]["y"], hits[0]["z"])]
    elif p.positions:
        targets = [(q.x, q.y, q.z) for q in p.positions]
    else:
        targets = [(p.x, p.y, p.z)]
    dug = []
    for x, y, z in targets:
        ctx.check()
        out = await dig_at(ctx, x, y, z)
        dug.append({"x": x, "y": y, "z": z, "block": out.get("dug")})
    return {"dug": dug}


ITEM_ENTITY = "item"  # a dropped item stack, as mineflayer names the entity
PICKUP_WAIT_S = 1.5  # a dropped stack cannot be picked up at once (vanilla: 2 s after a death drop)
TRIES_PER_ITEM = 2


class PickUpItemsInput(ToolInput):
    x: float
    y: float
    z: float
    radius: float = Field(default=8.0, ge=1, le=16, description="items this close to x,y,z are picked up")
    max_walks: int = Field(default=16, ge=1, le=64)
    dig: bool = Field(default=True, description="a walk that makes no progress may dig through natural ground")


def items_near(snap: WorldSnapshot, spot: Vec3, radius: float) -> list[EntityInfo]:
    """Item entities within radius of spot, the nearest to the bot first."""
    return [e for e in snap.entities if e.name.lower() == ITEM_ENTITY and e.position.distance_to(spot) <= radius]


async def _inventory_total(ctx: ToolContext) -> int:
    return sum(i.count for i in (await ctx.snapshot()).inventory)


async def pick_up_items(ctx: ToolContext, p: PickUpItemsInput) -> dict[str, Any]:
    """Walk to the spot, then onto each item lying near it (walking onto an item picks it
    up: no JS of our own). An item that stays after TRIES_PER_ITEM visits is left."""
    spot = Vec3(x=p.x, y=p.y, z=p.z)
    before = await _inventory_total(ctx)
    armour_before = await _armour_held(ctx)
    try:
        await walk(ctx, p.x, p.y, p.z, 1.0, dig_out=p.dig)
    except ToolFailure as e:  # the spot itself (a ledge, water) may not be reachable; its items may
        if e.code == PRECONDITION_FAILED:
            raise
    tries: dict[tuple[int, int, int], int] = {}
    walks = 0
    while walks < p.max_walks:
        ctx.check()
        left = [e for e in items_near(await ctx.snapshot(), spot, p.radius) if tries.get(_cell(e), 0) < TRIES_PER_ITEM]
        if not left:
            break
        item = left[0]
        tries[_cell(item)] = tries.get(_cell(item), 0) + 1
        walks += 1
        try:
            # not worth digging for
            await walk(ctx, item.position.x, item.position.y, item.position.z, 0, dig_out=False)
        except ToolFailure as e:  # unreachable (in a hole, on a ledge): the others may not be
            if e.code == PRECONDITION_FAILED:
                raise
            continue
        waited = 0.0
        while waited < PICKUP_WAIT_S and any(
            _cell(e) == _cell(item) for e in items_near(await ctx.snapshot(), spot, p.radius)
        ):
            await ctx.pause()
            waited += ctx.poll_interval_s
    remaining = len(items_near(await ctx.snapshot(), spot, p.radius))
    picked = await _inventory_total(ctx) - before
    worn = await _wear_armour(ctx) if await _armour_held(ctx) > armour_before else {}
    return {"pickedUp": picked, "walks": walks, "itemsLeft": remaining, **worn}


async def _armour_held(ctx: ToolContext) -> int:
    """Pieces of armour held or worn (the snapshot counts both)."""
    return sum(i.count for i in (await ctx.snapshot()).inventory if is_armour(i.name))


async def _wear_armour(ctx: ToolContext) -> dict[str, Any]:
    """A death's items hold the armour it wore: put it back on (node/lib/wear.js). A failure
    leaves it held; the pick-up stands."""
    try:
        out = await run_action(ctx, "wear", {})
    except ToolFailure as e:
        logger.warning("[Tools] pick_up_items: the armour picked up was not put on: {}", e)
        return {}
    worn = out.get("worn", [])
    if worn:
        logger.info("[Tools] pick_up_items: put on {}", ", ".join(worn))
    return {"worn": worn}


def _cell(e: EntityInfo) -> tuple[int, int, int]:
    return (int(e.position.x // 1), int(e.position.y // 1), int(e.position.z // 1))


TOOLS = [
    Tool(
        "collect_block",
        "Find and collect blocks (explores when none are near).",
        CollectBlockInput,
        collect_block,
        timeout_s=300,
        queue=BODY_QUEUE,
    ),
    Tool(
        "mine_block",
        "Dig a block at x,y,z, the nearest of a kind, or a list of positions.",
        MineBlockInput,
        mine_block,
        timeout_s=120,
        queue=BODY_QUEUE,
    ),
    Tool(
        "pick_up_items",
        "Walk to x,y,z and pick up the items lying around it (e.g. dropped on a death).",
        PickUpItemsInput,
        pick_up_items,
        timeout_s=120,
        queue=BODY_QUEUE,
    ),
]
