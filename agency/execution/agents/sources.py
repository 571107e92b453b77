"""Where a raw material comes from: the block the bot digs for it (SOURCE_BLOCK, an ore's drop,
the loot's block, a chance drop), whether a furnace makes it of something gatherable, which
animal drops it, and so whether a plan can get it at all (agency.execution.agents.plan_builder
builds the steps; obtain resolves a goal with it)."""

from __future__ import annotations

from collections.abc import Set
from functools import cache

from agency.blocks import FLOWERS
from agency.game import mcdata
from agency.game.animals import animal_for
from agency.game.elsewhere import found_only_in
from agency.game.fills import fill_source
from agency.game.furnace import inputs_for, output_of
from agency.game.harvest import ore_for
from agency.game.loot import block_dropping, chance_drop
from agency.game.recipes import CRAFTABLE, kinds, members
from agency.tools.craft_planner import plan_craft

# Raw material -> the block that yields it (agency.game.harvest says which tool that block needs).
SOURCE_BLOCK = {
    "log": "log",
    "oak_log": "oak_log",
    "cobblestone": "stone",
    "coal": "coal_ore",
    "raw_iron": "iron_ore",
    # the ground a player takes by hand (an ore's drop is found by ore_for)
    "sand": "sand",
    "red_sand": "red_sand",
    "gravel": "gravel",
    "dirt": "dirt",
    "sugar_cane": "sugar_cane",
    "cactus": "cactus",
    "pumpkin": "pumpkin",
    "bamboo": "bamboo",
    # below y 0 (agency.game.ores: dug down for)
    "cobbled_deepslate": "deepslate",
    "tuff": "tuff",
    # the flowers a dye is made of (picked by hand)
    **{flower: flower for flower in FLOWERS},
}


def source_block(raw: str) -> str | None:
    """The block the bot digs for `raw`: SOURCE_BLOCK's, else the ore that drops it
    (redstone_ore for redstone: agency.game.harvest), else the block minecraft-data's loot
    says surely drops it (a birch log itself, clay for clay balls: agency.game.loot), else None."""
    return SOURCE_BLOCK.get(raw) or ore_for(raw) or _dug_for(raw) or _by_chance(raw)


def _by_chance(raw: str) -> str | None:
    """The block dug again and again for a chance drop (gravel for flint: agency.game.loot)."""
    found = chance_drop(raw)
    return found[0] if found else None


def _dug_for(raw: str) -> str | None:
    """The loot's block for a raw item of the overworld: not one a recipe or a furnace
    makes (a crafting table drops itself, but it is crafted), nor one an animal gives (wool
    blocks drop themselves, but nature places none), nor one of the nether or the end. A log
    of one wood is (more spruce planks for a spruce shelter), but not for a plan that also
    makes something of any planks (`_any_planks`)."""
    if raw in CRAFTABLE or output_of(raw) == raw or animal_for(raw) is not None or found_only_in(raw) is not None:
        return None
    return block_dropping(raw)


def gatherable(raw: str) -> str | None:
    """What to gather for `raw`: itself, or for a recipe's group ('blackstone|cobbled_deepslate|
    cobblestone', agency.game.recipes) the member the bot can gather, SOURCE_BLOCK's first
    (sand before red sand), else one an ore drops, else one the loot says a block drops (None: none)."""
    ms = members(raw)
    return (
        next((m for m in SOURCE_BLOCK if m in ms), None)
        or next((m for m in ms if ore_for(m)), None)
        or next((m for m in ms if _dug_for(m)), None)
        or next((m for m in ms if _by_chance(m)), None)
    )


def smeltable(raw: str) -> bool:
    """Is `raw` a furnace's product whose input the bot can gather (iron_ingot from raw iron),
    hunt (cooked_beef from a cow's beef), or make first (smooth stone of stone smelted from
    cobblestone; terracotta of a clay block crafted from clay balls)?"""
    return _smeltable(raw, mcdata.current_version(), MAKE_DEPTH)


# How many furnaces or crafts an input may pass through before the furnace that wants it
# (smooth stone: stone, smelted of cobblestone; terracotta: a clay block, crafted of clay balls).
MAKE_DEPTH = 3


@cache
def _smeltable(raw: str, version: str, depth: int) -> bool:
    return output_of(raw) == raw and any(_input_at_hand(i, version, depth) for i in inputs_for(raw))


def _input_at_hand(item: str, version: str, depth: int) -> bool:
    """Can the bot get a furnace's input `item`: gathered, hunted, or (depth left) smelted or
    crafted of what it can get."""
    if source_block(item) or huntable(item):
        return True
    return depth > 0 and (_smeltable(item, version, depth - 1) or _crafted_input(item, version, depth - 1))


@cache
def _crafted_input(item: str, version: str, depth: int) -> bool:
    if item not in CRAFTABLE:
        return False
    raws = plan_craft(item, 1, {}).missing
    return all(gatherable(r) is not None or huntable(r) is not None or _smeltable(r, version, depth) for r in raws)


def made_input(output: str) -> str | None:
    """The input of `output` to smelt or craft first when none can be gathered or hunted
    (stone for smooth stone, clay for terracotta), None when there is none."""
    version = mcdata.current_version()
    return next((i for i in inputs_for(output) if _input_at_hand(i, version, MAKE_DEPTH)), None)


def made_instead(raw: str, absent: Set[str]) -> str | None:
    """Another kind of `raw` a furnace makes, for a raw whose block a step explored for and
    found none of (`absent`): charcoal of logs for a torch's coal. None: the game has no other."""
    got = gatherable(raw)
    if got is None or source_block(got) not in absent:
        return None
    return next((k for k in kinds(raw) if k != got and smeltable(k)), None)


def huntable(raw: str) -> str | None:
    """The drop to hunt for `raw` (leather; white_wool for any wool), None when no animal drops it."""
    return next((m for m in members(raw) if animal_for(m) is not None), None)


def obtainable(raw: str) -> bool:
    return gatherable(raw) is not None or smeltable(raw) or huntable(raw) is not None or fill_source(raw) is not None
