"""The crafts the bot needs, as a small Python table, and a planner that expands a wanted
item into the intermediate crafts (planks from logs, sticks from planks, a crafting table
placed when a 3x3 recipe needs one).

Why a Python table and not minecraft-data: planning must run offline (unit tests, replay,
workflow generation before the bot has the logs). Only the *plan* lives here; the JS
`craft` action picks the concrete recipe variant with bot.recipesFor from minecraft-data
(bot.registry), so wood kinds and recipe shapes come from the game data at run time.

Generic names: 'log' = any *_log, 'planks' = any *_planks, 'coal' = coal or charcoal.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping

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


@dataclass(frozen=True)
class CraftStep:
    item: str  # concrete when known ('oak_planks'); generic 'planks' when no log is known yet
    crafts: int  # how many times the recipe runs
    makes: int  # items produced
    needs_table: bool
    place_table: bool = False  # a 'place crafting_table' step, not a craft


@dataclass
class CraftPlan:
    item: str
    count: int
    steps: list[CraftStep] = field(default_factory=list)
    missing: dict[str, int] = field(default_factory=dict)  # raw materials to gather first
    needs_table: bool = False
    after: dict[str, int] = field(default_factory=dict)  # simulated inventory at the end

    @property
    def feasible(self) -> bool:
        return not self.missing


class _Sim:
    def __init__(self, inventory: Mapping[str, int]) -> None:
        self.have: Counter[str] = Counter({k: v for k, v in inventory.items() if v > 0})
        self.steps: list[CraftStep] = []
        self.missing: Counter[str] = Counter()
        self.table = False

    def concrete(self, generic: str) -> str:
        if generic == "planks":
            logs = sorted(((n, k) for k, n in self.have.items() if matches("log", k) and k != "log"), reverse=True)
            return logs[0][1].removesuffix("_log") + "_planks" if logs else "planks"
        return generic

    def take(self, generic: str, qty: int) -> None:
        for name in sorted((k for k in self.have if matches(generic, k)), key=lambda k: -self.have[k]):
            used = min(qty, self.have[name])
            self.have[name] -= used
            qty -= used
            if not qty:
                break
        self.have += Counter()  # drop zeros

    def ensure(self, generic: str, qty: int) -> None:
        short = qty - available(self.have, generic)
        if short <= 0:
            return
        rec = recipe_for(generic)
        if rec is None:
            self.missing[generic] += short
            self.have[generic] += short  # pretend gathered, so the rest of the plan is sized
            return
        crafts = math.ceil(short / rec.makes)
        out = self.concrete(generic)  # before taking: the wood kind comes from the logs held
        for ing, n in rec.ingredients:
            self.ensure(ing, n * crafts)
            self.take(ing, n * crafts)
        self.table = self.table or rec.needs_table
        self.steps.append(CraftStep(out, crafts, crafts * rec.makes, rec.needs_table))
        self.have[out] += crafts * rec.makes


def plan_craft(item: str, count: int, inventory: Mapping[str, int], *, table_nearby: bool = False) -> CraftPlan:
    """Steps to end with `count` more of `item` than `inventory` holds (raw shortfalls in
    `missing`). A crafting table is crafted and placed first when any step needs one and
    none is nearby. Same-item steps are merged at their first position (producing an
    intermediate earlier never hurts)."""
    target = Counter(inventory)
    wanted = available(target, item) + count
    probe = _Sim(inventory)
    probe.ensure(item, wanted)
    sim = _Sim(inventory)
    if probe.table and not table_nearby and item != "crafting_table":
        sim.ensure("crafting_table", 1)
        sim.take("crafting_table", 1)
        sim.steps.append(CraftStep("crafting_table", 0, 0, False, place_table=True))
    sim.ensure(item, wanted)
    return CraftPlan(item, count, _merge(sim.steps), dict(sim.missing), probe.table, dict(sim.have))


def _merge(steps: list[CraftStep]) -> list[CraftStep]:
    order: list[tuple[str, bool]] = []
    total: dict[tuple[str, bool], CraftStep] = {}
    for s in steps:
        key = (s.item, s.place_table)
        if key not in total:
            order.append(key)
            total[key] = s
        else:
            t = total[key]
            total[key] = CraftStep(s.item, t.crafts + s.crafts, t.makes + s.makes, s.needs_table, s.place_table)
    return [total[k] for k in order]
