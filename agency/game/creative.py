"""What survival never gives: the items vanilla hands out only in creative mode or by command
(spawn eggs, command blocks, the debug stick, bedrock...). A goal for one is refused at once,
saying so, rather than as 'the bot knows no way'. A table of ours from vanilla's survival rules
(none of these drops, is crafted or generates as an item anywhere), checked against the item
names of every version we claim (tests/unit/game/test_creative.py)."""

from __future__ import annotations

SPAWN_EGG = "_spawn_egg"

CREATIVE_ONLY = frozenset(
    {
        "barrier",
        "bedrock",
        "budding_amethyst",
        "chain_command_block",
        "command_block",
        "command_block_minecart",
        "debug_stick",
        "dirt_path",
        "end_portal_frame",
        "farmland",
        "jigsaw",
        "knowledge_book",
        "light",
        "petrified_oak_slab",
        "player_head",
        "reinforced_deepslate",
        "repeating_command_block",
        "spawner",
        "structure_block",
        "structure_void",
        "trial_spawner",
        "vault",
    }
)
INFESTED = "infested_"  # silverfish blocks: silk touch gives the plain stone


def creative_only(item: str) -> bool:
    """Does survival never give `item` (only creative mode or a command does)?"""
    return item.endswith(SPAWN_EGG) or item.startswith(INFESTED) or item in CREATIVE_ONLY
