"""Crafting recipes, from minecraft-data (agency.game.mcdata) for the version the bot plays:
every item the game can craft, not a list of ours. The craft planner
(agency.tools.craft_planner) expands a wanted item into its intermediate crafts over them;
the JS `craft` action picks the concrete recipe with bot.recipesFor at run time.

minecraft-data lists one recipe per variant (a crafting table of oak planks, one of birch
planks...). Variants that differ only in which item fills the same slots are merged into one
recipe whose ingredient is a group, named by a word when there is one: 'planks' (any planks),
'log' (any log), 'coal' (coal or charcoal), a wood's own log, else the members joined by
'|' ('blackstone|cobbled_deepslate|cobblestone' for a stone pickaxe; it counts its most-held
member, as one variant fills every cell with one item). An item's recipe is the one with
the most variants (sticks from any planks before bamboo), then the one with fewer
crafted ingredients (sugar of sugar cane, not of honey bottles), a recipe that dyes
another of the same (white wool from blue wool) last, a dye recipe taking the white one
(blue wool of white wool and blue dye, where minecraft-data names a tag by another colour:
_white_to_dye); the planner takes another of them when what is held covers it
(recipes_for: sugar of the honey bottles held); a recipe that unpacks a storage block (iron
ingots from an iron block, wheat from hay) is not used to make the item: those go both ways
and the planner would loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Set as AbstractSet
from dataclasses import dataclass
from functools import cache
from typing import Any

from agency.blocks import WOODS, is_log
from agency.game import mcdata
from agency.game.animals import ANIMAL_DROPS
from agency.game.furnace import SMELTING
from agency.names import canonical, same

LOGISH = ("_log", "_wood", "_stem", "_hyphae")  # a trunk and its bark and stripped forms
# Smelted, mined or taken from animals, never crafted: ingots from nuggets, wool from string.
GOTTEN_OTHERWISE = frozenset(SMELTING) | {d for drops in ANIMAL_DROPS.values() for d in drops}


@dataclass(frozen=True)
class Recipe:
    makes: int
    ingredients: tuple[tuple[str, int], ...]  # (item or group, count)
    needs_table: bool  # a 3x3 recipe: needs a placed crafting table
    variants: int = 1  # minecraft-data recipes merged into this one


GENERIC_PLANKS = Recipe(4, (("log", 1),), False)
GENERIC_WORDS = frozenset(
    {"planks", "log", "coal"}
)  # words a goal or recipe may use for any of a kind  # 'craft planks': of whatever log is held


def group_name(choices: frozenset[str]) -> str:
    """The word for 'any of these' in a recipe (module docstring)."""
    if len(choices) == 1:
        return next(iter(choices))
    if all(c.endswith("_planks") for c in choices):
        return "planks"
    if choices == {"coal", "charcoal"}:
        return "coal"
    if all(c.endswith(LOGISH) for c in choices):
        logs = sorted(c for c in choices if is_log(c))
        return logs[0] if len(logs) == 1 else "log"
    return "|".join(sorted(choices))


def spoken(group: str) -> str:
    """A group as a player reads it: 'blackstone or cobbled_deepslate or cobblestone'."""
    return " or ".join(members(group))


def members(group: str) -> tuple[str, ...]:
    """The items of a '|' group (the group itself when it is one item or a word)."""
    return tuple(group.split("|"))


def matches(generic: str, name: str) -> bool:
    """Is `name` (as the running version names it) an instance of `generic` (a generic
    word, a group, or any version's name of one thing)?"""
    if same(generic, name):
        return True
    if "|" in generic:
        return any(same(m, name) for m in members(generic))
    if generic == "log":
        return is_log(name)
    if generic == "planks":
        return name.endswith("_planks")
    if generic == "coal":
        return name in ("coal", "charcoal")
    # An ore and its deepslate kind are one thing to look for: below y 0 iron ore is deepslate
    # iron ore, dug with the same tools for the same drop (agency.game.harvest).
    return generic.endswith("_ore") and canonical(name) == f"deepslate_{canonical(generic)}"


def available(inventory: Mapping[str, int], generic: str) -> int:
    """How many of `generic` a recipe can take: a '|' group's most-held member (each game
    variant fills every cell with one item: 3 cobblestone, not 2 deepslate and 1 cobble),
    the sum for a word (any planks: vanilla's tags mix)."""
    if "|" in generic:
        return max((n for name, n in inventory.items() if matches(generic, name)), default=0)
    return sum(n for name, n in inventory.items() if matches(generic, name))


@dataclass
class _Variants:
    """minecraft-data recipes of one shape: the items seen in each of its slots."""

    makes: int
    per_slot: list[int]  # how many cells each slot (a distinct ingredient) fills
    table: bool
    choices: list[set[str]]
    count: int = 0


def _cells(recipe: Mapping[str, Any]) -> tuple[list[str | None], bool]:
    """A recipe's cells in reading order, and whether it needs the 3x3 grid of a table."""
    if "shape" in recipe:
        rows = recipe["shape"]
        return [c for row in rows for c in row], len(rows) > 2 or any(len(row) > 2 for row in rows)
    cells = list(recipe["ingredients"])
    return cells, len(cells) > 4


def _merged(item: str, raw: list[dict[str, Any]]) -> list[Recipe]:
    """minecraft-data's recipes for one item, variants merged, in the order the planner
    prefers them (module docstring)."""
    shapes: dict[tuple[bool, tuple[int, ...], int], _Variants] = {}
    for r in raw:
        cells, table = _cells(r)
        order: list[str] = []
        for c in cells:
            if c is not None and c not in order:
                order.append(c)
        if not order:
            continue  # every ingredient an id the version's item list lacks
        labels = tuple(-1 if c is None else order.index(c) for c in cells)
        key = ("shape" in r, labels, int(r["count"]))
        if key not in shapes:
            per_slot = [labels.count(i) for i in range(len(order))]
            shapes[key] = _Variants(int(r["count"]), per_slot, table, [set() for _ in order])
        v = shapes[key]
        for i, name in enumerate(order):
            v.choices[i].add(name)
        v.count += 1
    out = [
        Recipe(
            v.makes,
            tuple((group_name(frozenset(cs)), v.per_slot[i]) for i, cs in enumerate(v.choices)),
            v.table,
            v.count,
        )
        for v in shapes.values()
    ]
    return sorted(out, key=lambda rec: (_recolours(item, rec), -rec.variants, sum(n for _, n in rec.ingredients)))


def _recolours(item: str, rec: Recipe) -> bool:
    """A recipe that dyes another of the same thing (white wool from any wool and a dye): a
    way to change an item, never to get one, so it comes last."""
    kind = item.split("_", 1)[-1]
    return any(m != item and m.endswith(f"_{kind}") for ing, _ in rec.ingredients for m in members(ing))


@cache
def _book(version: str) -> dict[str, Recipe]:
    """item -> the recipe the planner uses by default, for one version (_resolved)."""
    return _resolved(version)[0]


@cache
def _alternatives(version: str) -> dict[str, tuple[Recipe, ...]]:
    """item -> its recipes the planner may choose between by cost (the default first): the
    others of its candidates that neither dye another of the same nor use an item whose own
    recipe uses this one (iron ingots and an iron block), so no choice makes a loop."""
    chosen, candidates = _resolved(version)
    out: dict[str, tuple[Recipe, ...]] = {}
    for item, rec in chosen.items():
        others = [
            r
            for r in candidates[item]
            if r is not rec
            and not _recolours(item, r)
            and not any(
                item in kinds(i) for ing, _n in r.ingredients for m in kinds(ing) for i, _k in _ings(chosen.get(m))
            )
        ]
        out[item] = (rec, *others)
    return out


def _ings(rec: Recipe | None) -> tuple[tuple[str, int], ...]:
    return rec.ingredients if rec is not None else ()


def _resolved(version: str) -> tuple[dict[str, Recipe], dict[str, list[Recipe]]]:
    """(item -> the recipe the planner uses, item -> every candidate recipe), for one
    version. What a furnace makes (ingots, coal, redstone...) or an animal drops (wool,
    leather) is got that way, never crafted (from a storage block, nuggets, string).
    Where two items are each made of the other (iron_block and iron_ingot, hay and wheat),
    the one that unpacks (makes more than it takes) takes its next recipe, if any."""
    game = mcdata.load(version)
    book = {item: [_white_to_dye(item, r, game.items) for r in rs] for item, rs in game.recipes.items()}

    def made(rec: Recipe) -> int:  # ingredients that are themselves crafted: the rawer recipe wins a tie
        return sum(1 for ing, _ in rec.ingredients if any(m in book for m in kinds(ing)))

    candidates = {
        item: sorted(_merged(item, rs), key=lambda r: (_recolours(item, r), -r.variants, made(r)))
        for item, rs in book.items()
        if item not in GOTTEN_OTHERWISE
    }
    pick = {item: 0 for item, recs in candidates.items() if recs}

    def chosen(item: str) -> Recipe | None:
        i = pick.get(item)
        return None if i is None else candidates[item][i]

    def uses(rec: Recipe, item: str) -> bool:
        return any(item in kinds(ing) for ing, _ in rec.ingredients)

    def ratio(rec: Recipe) -> float:
        return rec.makes / sum(n for _, n in rec.ingredients)

    for _ in range(8):
        changed = False
        for item in list(pick):
            rec = chosen(item)
            if rec is None:
                continue
            for ing, _n in rec.ingredients:
                for other in kinds(ing):
                    theirs = chosen(other)
                    if other == item or theirs is None or not uses(theirs, item):
                        continue
                    loser = item if ratio(rec) >= ratio(theirs) else other
                    # A variant makes the cycle (sandstone slabs of chiseled sandstone too): drop
                    # that variant and keep the recipe; else the loser takes its next recipe.
                    trimmed = _without(candidates[loser][pick[loser]], other if loser == item else item)
                    if trimmed is not None:
                        candidates[loser][pick[loser]] = trimmed
                    else:
                        pick[loser] += 1
                        if pick[loser] >= len(candidates[loser]):
                            del pick[loser]
                    changed = True
                    break
                if changed:
                    break
        if not changed:
            break
    return {item: candidates[item][i] for item, i in pick.items()}, candidates


def _white_to_dye(item: str, recipe: dict[str, Any], items: Mapping[str, Any]) -> dict[str, Any]:
    """A dye recipe as every version makes it: the dye and the white one. minecraft-data (1.21.4,
    26.1) lists vanilla's 'any wool (carpet, bed) but this colour' by one member (blue wool of
    black wool, black wool of blue): two colours then made each other, the resolver dropped
    one, and red wool was planned of black wool of a wither rose. White is in that tag in every
    version (and 1.18's only one)."""
    ings = recipe.get("ingredients")
    if "shape" in recipe or not ings or len(ings) != 2:
        return recipe
    dye = next((i for i in ings if i.endswith("_dye")), None)
    other = next((i for i in ings if i != dye), None)
    if dye is None or other is None or not item.startswith(dye.removesuffix("dye")):
        return recipe
    white = "white_" + item.removeprefix(dye.removesuffix("dye"))
    if other == white or white == item or white not in items or not other.endswith(white.removeprefix("white")):
        return recipe
    return {**recipe, "ingredients": [dye, white]}


def _without(rec: Recipe, member: str) -> Recipe | None:
    """`rec` with `member` dropped from the '|' group it is one of; None when it is an
    ingredient of its own or of a generic word (planks, log)."""
    out = []
    for ing, n in rec.ingredients:
        ms = kinds(ing)
        if member in ms:
            rest = frozenset(m for m in ms if m != member)
            if "|" not in ing or not rest:
                return None
            ing = group_name(rest)
        out.append((ing, n))
    return Recipe(rec.makes, tuple(out), rec.needs_table, rec.variants)


def kinds(group: str) -> tuple[str, ...]:
    """The items a recipe's group or word stands for ('coal': coal and charcoal)."""
    if "|" in group:
        return members(group)
    if group == "planks":
        return tuple(f"{w}_planks" for w in WOODS)
    if group == "log":
        return tuple(f"{w}_log" for w in WOODS)
    if group == "coal":
        return ("coal", "charcoal")
    return (group,)


def recipe_for(name: str) -> Recipe | None:
    """The recipe the planner makes `name` by, at the version in use (None: not crafted)."""
    if name == "planks":
        return GENERIC_PLANKS
    return _book(mcdata.current_version()).get(name)


def recipes_for(name: str) -> tuple[Recipe, ...]:
    """Every recipe the planner may make `name` by (recipe_for's first), at the version in use."""
    if name == "planks":
        return (GENERIC_PLANKS,)
    return _alternatives(mcdata.current_version()).get(name, ())


def any_planks(item: str) -> bool:
    """Is `item` made of any planks (sticks, a table, a chest)?"""
    rec = recipe_for(item)
    return rec is not None and not item.endswith("_planks") and any(ing == "planks" for ing, _ in rec.ingredients)


def planks_by_name(items: Iterable[str]) -> list[str]:
    """The planks of one wood that the recipes of `items` take by name (a birch door's birch
    planks), which a craft of any planks is to leave alone."""
    named = set()
    for item in items:
        rec = recipe_for(item)
        if rec is not None:
            named |= {ing for ing, _ in rec.ingredients if ing.endswith("_planks") and "|" not in ing}
    return sorted(named)


class _Craftable(AbstractSet[str]):
    """The items with a recipe at the version in use, plus 'planks' (of any log): a set
    that follows `mcdata.use_version`."""

    @classmethod
    def _from_iterable(cls, it: Iterable[Any]) -> frozenset[Any]:
        return frozenset(it)

    def _names(self) -> frozenset[str]:
        return _craftable(mcdata.current_version())

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


@cache
def _craftable(version: str) -> frozenset[str]:
    return frozenset(_book(version)) | {"planks"}


CRAFTABLE = _Craftable()
