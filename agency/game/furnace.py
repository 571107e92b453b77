"""What a furnace makes and what it burns, as a compact Python table (what the bot puts in a
furnace and how long it waits is agency.tools.smelt_planner).

minecraft-data has neither smelting recipes nor fuel values, so both live here, mirroring
the vanilla tables the embedded world smelts with (node/plugins/furnace.js; a unit test
holds the two equal). Planning must run offline (unit tests, workflow generation), so this
is Python; names are the newest spelling, as in agency.names.

Left out on purpose: iron/gold tools and armour -> nuggets (the bot must never melt down a
tool it holds because a goal named it), and fuels other than coal, charcoal, planks, logs
and sticks (the bot does not burn its tables, tools or boats).
"""

from __future__ import annotations

from collections.abc import Mapping

from agency.blocks import is_log

COOK_TICKS = 200  # every furnace recipe: 10 s at 20 ticks/s
COOK_SECONDS = COOK_TICKS / 20

# output <- inputs (vanilla furnace recipes). 'log' is any log that burns (below).
SMELTING: dict[str, tuple[str, ...]] = {
    "iron_ingot": ("raw_iron", "iron_ore", "deepslate_iron_ore"),
    "gold_ingot": ("raw_gold", "gold_ore", "deepslate_gold_ore", "nether_gold_ore"),
    "copper_ingot": ("raw_copper", "copper_ore", "deepslate_copper_ore"),
    "coal": ("coal_ore", "deepslate_coal_ore"),
    "diamond": ("diamond_ore", "deepslate_diamond_ore"),
    "emerald": ("emerald_ore", "deepslate_emerald_ore"),
    "lapis_lazuli": ("lapis_ore", "deepslate_lapis_ore"),
    "redstone": ("redstone_ore", "deepslate_redstone_ore"),
    "quartz": ("nether_quartz_ore",),
    "netherite_scrap": ("ancient_debris",),
    "cooked_beef": ("beef",),
    "cooked_porkchop": ("porkchop",),
    "cooked_chicken": ("chicken",),
    "cooked_mutton": ("mutton",),
    "cooked_rabbit": ("rabbit",),
    "cooked_cod": ("cod",),
    "cooked_salmon": ("salmon",),
    "baked_potato": ("potato",),
    "dried_kelp": ("kelp",),
    "stone": ("cobblestone",),
    "smooth_stone": ("stone",),
    "deepslate": ("cobbled_deepslate",),
    "glass": ("sand", "red_sand"),
    "brick": ("clay_ball",),
    "terracotta": ("clay",),
    "nether_brick": ("netherrack",),
    "smooth_sandstone": ("sandstone",),
    "smooth_red_sandstone": ("red_sandstone",),
    "smooth_quartz": ("quartz_block",),
    "smooth_basalt": ("basalt",),
    "cracked_stone_bricks": ("stone_bricks",),
    "cracked_nether_bricks": ("nether_bricks",),
    "cracked_deepslate_bricks": ("deepslate_bricks",),
    "cracked_deepslate_tiles": ("deepslate_tiles",),
    "cracked_polished_blackstone_bricks": ("polished_blackstone_bricks",),
    "green_dye": ("cactus",),
    "lime_dye": ("sea_pickle",),
    "sponge": ("wet_sponge",),
    "popped_chorus_fruit": ("chorus_fruit",),
    "charcoal": ("log",),
}

# Burn ticks of the fuels the bot uses, best first (coal and charcoal, then planks and logs,
# then sticks): FUEL_ORDER ranks them, fuel_ticks() values any name.
FUEL_TICKS = {"coal": 1600, "charcoal": 1600, "planks": 300, "log": 300, "stick": 100}
FUEL_ORDER = ("coal", "charcoal", "planks", "log", "stick")


def burns_as_log(name: str) -> bool:
    """A log that smelts into charcoal and burns (vanilla #logs_that_burn: not crimson/warped)."""
    return (is_log(name) or name.endswith("_wood")) and not any(w in name for w in ("crimson", "warped"))


def fuel_kind(name: str) -> str | None:
    """The FUEL_ORDER entry a held item counts as, or None (not a fuel the bot burns)."""
    if name in FUEL_TICKS:  # a kind's own generic name ('log' gathered for fuel) too
        return name
    if name.endswith("_planks") and not any(w in name for w in ("crimson", "warped")):
        return "planks"
    if burns_as_log(name):
        return "log"
    return None


def fuel_ticks(name: str) -> int:
    kind = fuel_kind(name)
    return FUEL_TICKS[kind] if kind else 0


def output_of(item: str) -> str | None:
    """What smelting `item` gives. A product's own name ('iron_ingot', 'stone') names that
    product; a raw input that is no product itself ('raw_iron', 'beef', 'oak_log') names
    what it smelts into. None when the furnace does nothing with it."""
    if item in SMELTING:
        return item
    return next((out for out, ins in SMELTING.items() if any(is_input(item, i) for i in ins)), None)


def is_input(name: str, entry: str) -> bool:
    return name == entry or (entry == "log" and burns_as_log(name))


def inputs_for(output: str) -> tuple[str, ...]:
    return SMELTING.get(output, ())


def held_inputs(inventory: Mapping[str, int], output: str) -> dict[str, int]:
    """Held items that smelt into `output`, by name."""
    return {n: c for n, c in inventory.items() if c > 0 and any(is_input(n, e) for e in inputs_for(output))}
