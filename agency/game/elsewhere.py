"""What only the nether or the end has: the items no overworld source gives (their blocks,
mobs and structures generate nowhere else), so a goal for one is refused at once, naming
where it is. A table of ours from vanilla's world generation and loot, kept to items every
version we claim has (tests/unit/game/test_elsewhere.py checks the names)."""

from __future__ import annotations

NETHER = "the nether"
END = "the end"

FOUND_ONLY_IN: dict[str, str] = {
    **dict.fromkeys(
        (
            "blaze_rod",
            "ghast_tear",
            "nether_wart",
            "quartz",
            "nether_quartz_ore",
            "netherrack",
            "soul_sand",
            "soul_soil",
            "glowstone_dust",
            "glowstone",
            "ancient_debris",
            "netherite_scrap",
            "crimson_stem",
            "warped_stem",
            "crimson_fungus",
            "warped_fungus",
            "shroomlight",
            "basalt",
            "gilded_blackstone",
            "wither_skeleton_skull",
            "nether_star",
            "nether_gold_ore",
        ),
        NETHER,
    ),
    **dict.fromkeys(
        (
            "chorus_fruit",
            "popped_chorus_fruit",
            "chorus_flower",
            "end_stone",
            "shulker_shell",
            "elytra",
            "dragon_egg",
            "dragon_breath",
            "dragon_head",
        ),
        END,
    ),
}


def found_only_in(item: str) -> str | None:
    """Where `item` (or every member of a recipe's '|' group) is found, when that is not the
    overworld; None when the overworld has it."""
    places = {FOUND_ONLY_IN.get(m) for m in item.split("|")}
    return places.pop() if len(places) == 1 else None
