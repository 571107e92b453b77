"""Which tool a block must be dug with to drop anything: stone drops cobblestone only to a
pickaxe, iron ore raw iron only to a stone pickaxe or better.

The data is minecraft-data's (blocks[].harvestTools and the drops), for every version we
claim, generated into agency/harvest.json by scripts/harvest_data.js (a unit test holds the
file equal to what the script makes): agency plans offline, without node. A block absent
from it drops something to bare hands (logs, dirt, sand...).

Blocks are looked up by any version's name (agency.names). Unless a version is named, the
answers hold at every claimed version: a block needs a tool if it does at any of them, and
only the tools that harvest it at all of them count (iron doors need a pickaxe at 1.18.2).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Mapping

from agency.names import canonical

DATA_FILE = Path(__file__).with_name("harvest.json")
# Cheapest first: what a plan makes when it needs a tool. Golden tools harvest what wooden
# ones do and cost gold, so they come after iron.
TIERS = ("wooden", "stone", "iron", "golden", "diamond", "netherite")
PICKAXE_TIERS = tuple(f"{t}_pickaxe" for t in TIERS if t != "golden")


@cache
def _versions() -> dict[str, dict[str, tuple[frozenset[str], tuple[str, ...]]]]:
    """version -> canonical block name -> (tools that harvest it, what it drops)."""
    raw = json.loads(DATA_FILE.read_text(encoding="utf-8"))["versions"]
    return {version: {canonical(block): (frozenset(g["tools"]), tuple(drops))
                      for g in groups for block, drops in g["blocks"].items()}
            for version, groups in raw.items()}


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


def cheapest_tool(block: str, version: str | None = None) -> str | None:
    """The cheapest tool that harvests `block` (wooden_pickaxe for stone, stone_pickaxe for
    iron ore), None when it needs none or nothing harvests it."""
    tools = harvest_tools(block, version)
    return min(tools, key=lambda t: (tier(t), t)) if tools else None


def min_pickaxe(block: str, version: str | None = None) -> str | None:
    """The lowest pickaxe tier that harvests `block`, None when no pickaxe is needed or none does."""
    tools = harvest_tools(block, version)
    return next((p for p in PICKAXE_TIERS if p in tools), None)


def tool_held(inventory: Mapping[str, int], block: str, version: str | None = None) -> str | None:
    """A held item that harvests `block` (the cheapest), None when none is held."""
    tools = harvest_tools(block, version)
    held = [name for name, n in inventory.items() if n > 0 and name in tools]
    return min(held, key=lambda t: (tier(t), t)) if held else None


def can_harvest(inventory: Mapping[str, int], block: str, version: str | None = None) -> bool:
    """Will digging `block` with what `inventory` holds drop something?"""
    return not needs_tool(block, version) or tool_held(inventory, block, version) is not None
