"""Which tool a block must be dug with to drop anything: stone drops cobblestone only to a
pickaxe, iron ore raw iron only to a stone pickaxe or better.

The data is minecraft-data's (blocks[].harvestTools, the drops, the tools' durability, so a
plan makes a new tool before the old one breaks), for every version we claim, generated
into agency/game/harvest.json by scripts/harvest_data.js (a unit test holds the file equal to
what the script makes): agency plans offline, without node. A block absent from it drops
something to bare hands (logs, dirt, sand...).

Blocks are looked up by any version's name (agency.names). Unless a version is named, the
answers hold at every claimed version: a block needs a tool if it does at any of them, and
only the tools that harvest it at all of them count (iron doors need a pickaxe at 1.18.2).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from agency.names import canonical

DATA_FILE = Path(__file__).with_name("harvest.json")
# Cheapest first: what a plan makes when it needs a tool. Golden tools harvest what wooden
# ones do and cost gold, so they come after iron.
TIERS = ("wooden", "stone", "iron", "golden", "diamond", "netherite")
# Fastest first: the bot digs with the fastest held tool that harvests the block, so that is
# the one a plan wears out first.
FASTEST = ("golden", "netherite", "diamond", "iron", "stone", "wooden")


@cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return data


@cache
def _versions() -> dict[str, dict[str, tuple[frozenset[str], tuple[str, ...]]]]:
    """version -> canonical block name -> (tools that harvest it, what it drops)."""
    return {
        version: {
            canonical(block): (frozenset(g["tools"]), tuple(canonical(d) for d in drops))
            for g in groups
            for block, drops in g["blocks"].items()
        }
        for version, groups in _data()["versions"].items()
    }


def versions() -> tuple[str, ...]:
    return tuple(_versions())


@cache
def _entry(block: str, version: str | None) -> tuple[frozenset[str], tuple[str, ...]] | None:
    name = canonical(block)
    if version is not None:
        return _versions()[version].get(name)
    hits = [t[name] for t in _versions().values() if name in t]
    if not hits:
        return None
    tools = frozenset.intersection(*(tools for tools, _ in hits))
    drops = tuple(dict.fromkeys(d for _, ds in hits for d in ds))
    return tools, drops


def needs_tool(block: str, version: str | None = None) -> bool:
    """Does `block` drop nothing unless dug with a tool of harvest_tools(block)?"""
    return _entry(block, version) is not None


def harvest_tools(block: str, version: str | None = None) -> frozenset[str]:
    """The items that harvest `block`; empty when it needs none (or when none can)."""
    entry = _entry(block, version)
    return entry[0] if entry else frozenset()


def drops(block: str, version: str | None = None) -> tuple[str, ...]:
    """What a block that needs a tool drops to it (no silk touch); () for the others."""
    entry = _entry(block, version)
    return entry[1] if entry else ()


def tier(tool: str) -> int:
    """A tool's rank in TIERS (shears rank with iron: they are made of it)."""
    if tool == "shears":
        return TIERS.index("iron")
    return next((i for i, t in enumerate(TIERS) if tool.startswith(f"{t}_")), len(TIERS))


@cache
def ranked_tools(block: str, version: str | None = None) -> tuple[str, ...]:
    """The tools that harvest `block`, cheapest first (wooden_pickaxe first for stone)."""
    return tuple(sorted(harvest_tools(block, version), key=lambda t: (tier(t), t)))


def unless_dug_with(block: str) -> str:
    """Why digging `block` by hand is futile, naming its tools (for refusals)."""
    tools = ranked_tools(block)
    need = f"a {tools[0]} or better ({', '.join(tools)})" if tools else "a tool no one can hold"
    return f"{block} drops nothing unless dug with {need}"


def tool_held(inventory: Mapping[str, int], block: str, version: str | None = None) -> str | None:
    """A held item that harvests `block` (the cheapest), None when none is held."""
    return next((t for t in ranked_tools(block, version) if inventory.get(t, 0) > 0), None)


def can_harvest(inventory: Mapping[str, int], block: str, version: str | None = None) -> bool:
    """Will digging `block` with what `inventory` holds drop something?"""
    return not needs_tool(block, version) or tool_held(inventory, block, version) is not None


def durability(tool: str) -> int:
    """The uses a new `tool` has (the least any claimed version gives it); a block dug with
    it costs one (a sword spends two, but no plan digs with one)."""
    by_version: dict[str, dict[str, int]] = _data()["durability"]
    return min(uses[tool] for uses in by_version.values())


def wear_order(block: str) -> tuple[str, ...]:
    """The tools that harvest `block` in the order the bot wears them out: fastest first."""
    speed = {m: i for i, m in enumerate(FASTEST)}
    return tuple(sorted(ranked_tools(block), key=lambda t: speed.get(t.split("_")[0], len(FASTEST))))


def drop(block: str) -> str:
    """The item digging `block` gains: its one drop when it needs a tool (cobblestone for
    stone, raw_iron for iron ore), else the block itself, named as given."""
    dropped = drops(block)
    return dropped[0] if len(dropped) == 1 else block


@cache
def ore_for(item: str) -> str | None:
    """The ore a tool digs `item` out of (redstone_ore for redstone, diamond_ore for diamond,
    iron_ore for raw_iron): the shortest-named block ending in _ore that drops it at some
    claimed version, the deepslate and nether kinds aside; None when no ore drops it."""
    name = canonical(item)
    ores = {
        block
        for table in _versions().values()
        for block, (_tools, dropped) in table.items()
        if block.endswith("_ore") and not block.startswith(("deepslate_", "nether_")) and name in dropped
    }
    return min(ores, key=lambda b: (len(b), b)) if ores else None
