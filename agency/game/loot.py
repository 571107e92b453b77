"""Which block a raw item is dug from, by minecraft-data's block loot (mcdata.GameData.block_loot,
the tables the embedded world drops by: node/plugins/drops.js): a block that drops itself
(a birch log), or the one drop a block gives without silk touch (clay: 4 clay balls, a snow
block: 4 snowballs). Only sure drops count: a chance drop (flint from gravel, an apple from
leaves, seeds from grass) is never planned on, and the data's chances are not trusted beyond
"always" (it lists leaves dropping an apple every time).

A chance drop worth digging for is CHANCE_DROPS': vanilla's own figure, stated here (the data
says gravel drops flint a third of the time; vanilla, and node/plugins/drops.js, one in ten;
short grass seeds one in eight).
An apple (one oak leaf in 200) is not worth planning on."""

from __future__ import annotations

from functools import cache
from typing import Any

from agency.game import mcdata


def _sure(block: str, drops: list[dict[str, Any]]) -> list[str]:
    """What `block` surely drops when dug without silk touch."""
    unsilked = [d for d in drops if d.get("noSilkTouch")]
    if len(unsilked) == 1:
        low = (unsilked[0].get("stackSizeRange") or [None])[0]
        return [str(unsilked[0]["item"])] if isinstance(low, int) and low >= 1 else []
    itself = [d for d in drops if d.get("item") == block and not d.get("silkTouch") and d.get("dropChance") == 1]
    return [block] if len(drops) == 1 and itself else []


@cache
def _dropped_by(version: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for block, drops in mcdata.load(version).block_loot.items():
        for item in _sure(block, drops):
            out.setdefault(item, []).append(block)
    return {item: tuple(sorted(blocks, key=lambda b: (b != item, b))) for item, blocks in out.items()}


def block_dropping(item: str, version: str | None = None) -> str | None:
    """The block to dig for `item` (itself first when it drops itself), None when no block
    surely drops it."""
    blocks = _dropped_by(version or mcdata.current_version()).get(item)
    return blocks[0] if blocks else None


def sure_drop(block: str, version: str | None = None) -> str | None:
    """What digging `block` without silk touch surely gains (clay: clay_ball), None when the
    loot does not say for sure."""
    drops = mcdata.load(version or mcdata.current_version()).block_loot.get(block)
    got = _sure(block, drops) if drops else []
    return got[0] if got else None


# item -> (the block that drops it by chance, vanilla's chance without fortune)
CHANCE_DROPS: dict[str, tuple[str, float]] = {
    "flint": ("gravel", 0.1),
    "wheat_seeds": ("short_grass", 0.125),  # 1.18.2's `grass` (agency.names); node/plugins/drops.js alike
}


def chance_drop(item: str) -> tuple[str, float] | None:
    """The block that drops `item` by chance and the chance, None when none is planned on."""
    return CHANCE_DROPS.get(item)
