"""The craft planner: expands a wanted item into the intermediate crafts (planks from logs,
sticks from planks, a crafting table placed when a 3x3 recipe needs one), on the recipes of
agency.game.recipes (minecraft-data's). An item whose recipe comes back to itself (a chain
of recipes that loops) is a raw need, not expanded again.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Set as AbstractSet
from dataclasses import dataclass, field

from agency.game.recipes import Recipe, available, matches, members, planks_by_name, recipe_for, recipes_for


@dataclass(frozen=True)
class CraftStep:
    item: str  # concrete when known ('oak_planks'); generic 'planks' when no log is known yet
    crafts: int  # how many times the recipe runs
    makes: int  # items produced
    needs_table: bool
    place_table: bool = False  # a 'place crafting_table' step, not a craft
    # what one craft takes, as the plan counted it (oak planks of any log held), for a caller
    # that follows the plan's inventory (agency.execution.agents.plan_builder)
    ingredients: tuple[tuple[str, int], ...] = field(default=(), compare=False)


@dataclass
class CraftPlan:
    item: str
    count: int
    steps: list[CraftStep] = field(default_factory=list)
    missing: dict[str, int] = field(default_factory=dict)  # raw materials to gather first
    needs_table: bool = False
    after: dict[str, int] = field(default_factory=dict)  # simulated inventory at the end
    keep: list[str] = field(default_factory=list)  # one wood's planks a step takes by name: any-planks steps leave them

    @property
    def feasible(self) -> bool:
        return not self.missing


class _Sim:
    def __init__(self, inventory: Mapping[str, int], wood: str | None = None, keep: Iterable[str] = ()) -> None:
        self.wood = wood  # the wood any planks are made of when no log is held (the plan needs it anyway)
        self.keep = frozenset(keep)  # taken for 'any' only when nothing else will do (the craft action's keep)
        self.have: Counter[str] = Counter({k: v for k, v in inventory.items() if v > 0})
        self.steps: list[CraftStep] = []
        self.missing: Counter[str] = Counter()
        self.table = False
        self.making: set[str] = set()  # items being expanded: a recipe that needs its own result is a raw need

    def concrete(self, generic: str) -> str:
        if generic == "planks":
            logs = sorted(((n, k) for k, n in self.have.items() if matches("log", k) and k != "log"), reverse=True)
            if logs:
                return logs[0][1].removesuffix("_log") + "_planks"
            return f"{self.wood}_planks" if self.wood else "planks"
        if "|" in generic:
            return self.member(generic) or generic
        return generic

    def member(self, group: str) -> str | None:
        """The member of a group of wooden things to make of planks (any wooden slab: a
        composter's), of the wood the plan's planks are, else oak's; None for any other group
        (any wool is a sheep's, not four strings)."""
        made = [m for m in members(group) if _of_planks(recipe_for(m))]
        wood = self.concrete("planks").removesuffix("planks")
        if not wood:  # no log held nor named: the planks held most (spruce planks make spruce slabs)
            held = taking_order(self.have, "planks", self.keep)
            wood = held[0].removesuffix("planks") if held else ""
        return next((m for m in made if wood and m.startswith(wood)), None) or next(
            (m for m in made if m.startswith("oak_")), made[0] if made else None
        )

    def cheapest(self, generic: str, short: int) -> Recipe | None:
        """The recipe to make `short` of `generic` by: one whose ingredients are all held
        (sugar of the honey bottles held, not of sugar cane to gather) costs nothing to
        gather, so it wins; else the default (recipe_for)."""
        recipes = recipes_for(generic)
        for rec in recipes[1:]:
            crafts = math.ceil(short / rec.makes)
            if all(available(self.have, ing) >= n * crafts for ing, n in rec.ingredients):
                return rec
        return recipes[0] if recipes else recipe_for(generic)

    def take(self, generic: str, qty: int) -> None:
        for name in taking_order(self.have, generic, self.keep):
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
        rec = self.cheapest(generic, short)
        if rec is None and "|" in generic and (member := self.member(generic)) is not None:
            rec = recipe_for(member)
        if rec is None or generic in self.making:
            self.missing[generic] += short
            self.have[generic] += short  # pretend gathered, so the rest of the plan is sized
            return
        out = self.concrete(generic)  # before taking: the wood kind comes from the logs held
        if out != generic and (generic != "planks" or not any(matches("log", k) for k in self.have)):
            # a wood named (oak planks) or hinted with no log held: that wood's log. Planks
            # of any wood take any log held (a birch and an oak log make a chest's planks).
            rec = recipe_for(out) or rec
        crafts = math.ceil(short / rec.makes)
        if generic == "planks" and rec.ingredients == (("log", 1),):
            self._planks_of_each_log(crafts, rec)
            return
        self.making.add(generic)
        try:
            for ing, n in rec.ingredients:
                self.ensure(ing, n * crafts)
                self.take(ing, n * crafts)
        finally:
            self.making.discard(generic)
        self.table = self.table or rec.needs_table
        self.steps.append(CraftStep(out, crafts, crafts * rec.makes, rec.needs_table, ingredients=rec.ingredients))
        self.have[out] += crafts * rec.makes

    def _planks_of_each_log(self, crafts: int, rec: Recipe) -> None:
        """Any planks from the logs held, a step per wood: a wood's planks are crafted of its
        own logs only, so 3 oak and 2 birch logs make 12 oak and 4 birch planks for 2 chests
        (one 'oak planks x4' step failed on its fourth craft). Logs still to gather (any wood,
        unknown yet) go to the step of the wood held most, as a single step did (the craft tool
        plans again from the logs held when it runs)."""
        main = self.concrete("planks")
        self.ensure("log", crafts)
        made: Counter[str] = Counter()
        any_log = False  # the main step takes logs still to gather too
        left = crafts
        for log in taking_order(self.have, "log", self.keep):
            n = min(left, self.have[log])
            made[main if log == "log" else log.removesuffix("_log") + "_planks"] += n
            any_log = any_log or log == "log"
            self.have[log] -= n
            left -= n
            if not left:
                break
        self.have += Counter()
        for wood, n in sorted(made.items(), key=lambda m: m[0] != main):  # the main one first, as before
            # that wood's own logs, as the game takes them (any log for a step of gathered ones)
            own = None if wood == main and any_log else recipe_for(wood)
            ingredients = own.ingredients if own is not None else rec.ingredients
            self.steps.append(CraftStep(wood, n, n * rec.makes, False, ingredients=ingredients))
            self.have[wood] += n * rec.makes


def _of_planks(rec: Recipe | None) -> bool:
    return rec is not None and all(matches("planks", ing) for ing, _ in rec.ingredients)


def taking_order(have: Mapping[str, int], generic: str, keep: AbstractSet[str] = frozenset()) -> list[str]:
    """Which held items a recipe's `generic` ingredient takes, in order: the most held first, a
    kept one (a later step needs it by name) last, as node/lib/actions/craft.js chooses."""
    return sorted((k for k in have if matches(generic, k) and have[k] > 0), key=lambda k: (k in keep, -have[k]))


def plan_craft(
    item: str,
    count: int,
    inventory: Mapping[str, int],
    *,
    table_nearby: bool = False,
    keep: Iterable[str] = (),
) -> CraftPlan:
    """Steps to end with `count` more of `item` than `inventory` holds (raw shortfalls in
    `missing`). A crafting table is crafted and placed first when any step needs one and
    none is nearby. Same-item steps are merged at their first position (producing an
    intermediate earlier never hurts). The planks of one wood a step takes by name (a birch
    fence's), and those in `keep` (a later craft's), are the last any-planks steps take."""
    target = Counter(inventory)
    wanted = available(target, item) + count
    probe = _Sim(inventory)
    probe.ensure(item, wanted)
    kept = sorted(set(keep) | set(planks_by_name(s.item for s in probe.steps)))
    # A recipe that wants one wood (oak planks for a fence) makes all the plan's planks of it:
    # 'any planks' made first of nothing held would be the other kind's logs, gathered twice.
    woods = sorted(
        k.removesuffix("_log")
        for k in probe.missing
        if k.endswith("_log") and k != "log" and not k.startswith("stripped_")
    )
    sim = _Sim(inventory, woods[0] if woods else None, kept)
    if probe.table and not table_nearby and item != "crafting_table":
        sim.ensure("crafting_table", 1)
        sim.take("crafting_table", 1)
        sim.steps.append(CraftStep("crafting_table", 0, 0, False, place_table=True))
    sim.ensure(item, wanted)
    return CraftPlan(item, count, _merge(sim.steps), dict(sim.missing), probe.table, dict(sim.have), kept)


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
            total[key] = CraftStep(
                s.item, t.crafts + s.crafts, t.makes + s.makes, s.needs_table, s.place_table, t.ingredients
            )
    return [total[k] for k in order]
