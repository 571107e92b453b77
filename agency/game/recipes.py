"""The crafts the bot needs, as a small Python table (the planner that expands a wanted item
into its intermediate crafts is agency.tools.craft_planner).

Why a Python table and not minecraft-data: planning must run offline (unit tests, replay,
workflow generation before the bot has the logs). Only what a plan needs lives here; the JS
`craft` action picks the concrete recipe variant with bot.recipesFor from minecraft-data
(bot.registry), so wood kinds and recipe shapes come from the game data at run time.

Generic names: 'log' = any *_log, 'planks' = any *_planks, 'coal' = coal or charcoal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agency.blocks import WOODS, is_log
from agency.names import same


@dataclass(frozen=True)
class Recipe:
    makes: int
    ingredients: tuple[tuple[str, int], ...]
    needs_table: bool  # a 3x3 recipe: needs a placed crafting table


RECIPES: dict[str, Recipe] = {
    "planks": Recipe(4, (("log", 1),), False),
    "stick": Recipe(4, (("planks", 2),), False),
    "crafting_table": Recipe(1, (("planks", 4),), False),
    "wooden_pickaxe": Recipe(1, (("planks", 3), ("stick", 2)), True),
    "stone_pickaxe": Recipe(1, (("cobblestone", 3), ("stick", 2)), True),
    "stone_sword": Recipe(1, (("cobblestone", 2), ("stick", 1)), True),
    "iron_pickaxe": Recipe(1, (("iron_ingot", 3), ("stick", 2)), True),
    "iron_sword": Recipe(1, (("iron_ingot", 2), ("stick", 1)), True),
    "torch": Recipe(4, (("coal", 1), ("stick", 1)), False),  # coal or charcoal
    "white_bed": Recipe(1, (("white_wool", 3), ("planks", 3)), True),  # 3 planks of one wood kind
    "oak_door": Recipe(3, (("oak_planks", 6),), True),
    "furnace": Recipe(1, (("cobblestone", 8),), True),
    "chest": Recipe(1, (("planks", 8),), True),
}
CRAFTABLE = frozenset(RECIPES) | {f"{wood}_planks" for wood in WOODS}


def matches(generic: str, name: str) -> bool:
    """Is `name` (as the running version names it) an instance of `generic` (a generic
    word, or any version's name of one thing)?"""
    if same(generic, name):
        return True
    if generic == "log":
        return is_log(name)
    if generic == "planks":
        return name.endswith("_planks")
    if generic == "coal":
        return name in ("coal", "charcoal")
    return False


def available(inventory: Mapping[str, int], generic: str) -> int:
    return sum(n for name, n in inventory.items() if matches(generic, name))


def recipe_for(name: str) -> Recipe | None:
    if name in RECIPES:
        return RECIPES[name]
    if name.endswith("_planks"):  # oak_planks <- oak_log
        return Recipe(4, ((name.removesuffix("_planks") + "_log", 1),), False)
    return None
