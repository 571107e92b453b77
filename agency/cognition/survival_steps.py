"""Survival steps of the drive tick: what keeps the bot fed and rested, asked for once the
first five DRIVE-3 rules pass and the progression's first step is had (progression.STONE_AGE_RULES:
a stone sword), before the rest of the progression. First match wins:

| rule | fires when | goal |
|---|---|---|
| low_food_stock | fewer than FOOD_STOCK edible items held, a food animal in sight | hunt animal <kills> |
| low_food_stock | the same, and a furnace held or nearby or 8 cobblestone | smelt cooked_<its meat> <short + held> |
| raw_meat | raw meat held, and a furnace held or nearby or 8 cobblestone to make one | smelt cooked_<meat> <held> |
| no_wool | no bed held or known, fewer than 3 white wool, as many sheep in sight as wool short | craft white_bed 1 |
| no_wool | the same, fewer sheep in sight | hunt sheep <in sight> |
| no_bed | no bed held or known, 3 white wool, planks or logs for them | craft white_bed 1 |

Where a furnace can be had, the food stock is one goal: the meat of an animal in sight,
cooked (its plan hunts it, then cooks what it brings and that meat held); the wool's
hunt is the bed's craft, whose plan hunts the sheep. Each was two goals, a drive tick apart
(docs/contracts.md DRIVE-1: 180 s), and the hunt took a few seconds: in the bench at 7e8bbcd
the bot stood idle for the interval 25 to 42 % of the daylight. The kind with the most meat in
sight goes first, counted up to what the stock is short (three sheep before a lone pig: the
pig's 1-3 porkchops leave a stock of 4 short, and "no pig within 32 blocks to hunt" after the
one pig was the commonest failed task of the 5-day benches of 2026-12-05), then the kind whose
kill gives more meat (a cow before a chicken: a stock of 4 is 4 chickens but 2 cows); a smelt goal held back after its
tasks failed (its animal out of reach) gives way to the next animal's, and then to the plain
hunt of any animal.

The drive tick fires only while food is at 16 or more (docs/contracts.md DRIVE-1), so the
food rule keeps a stock before hunger rather than reacting to it; the eat reflex eats cooked
food first. A plain hunt asks for half as many kills as items short: a cow, pig or sheep drops
1-3 meat. Rules needing an animal wait until one is in sight (HUNT_RADIUS, the radius the hunt searches),
for the day (from dusk the animals' surface is the hostiles') and for the surface (an animal
32 blocks off through the rock of a mine is no hunt from there): exploring for animals is the
progression's business, which runs when no step fires.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from agency.blocks import is_log
from agency.cognition.drive_selection import DriveSelection
from agency.execution.hunger import FOOD_STOCK, raw_meats_held
from agency.game.foods import FOODS, HARMFUL, RAW_MEATS
from agency.game.furnace import output_of
from agency.game.recipes import CRAFTABLE
from agency.tools.hunting import game_in_sight, meats_in_sight
from agency.world import WorldSnapshot, night_approaching, underground

SURVIVAL_ACTIONS: frozenset[str] = frozenset({"hunt"})  # actions beyond collect/craft/smelt a workflow carries out

# harmful food is eaten in need, never a stock; raw chicken is one, as it will be cooked
STOCK_FOODS = tuple(f for f in FOODS if f not in HARMFUL or f in RAW_MEATS)
FURNACE_COBBLE = 8
WOOL_FOR_BED = 3
PLANKS_FOR_BED = 3
BED = "white_bed"  # the bed sheep's wool makes
MAX_SMELT = 64


def next_survival_step(
    snapshot: WorldSnapshot,
    *,
    furnace_nearby: bool | None = None,
    bed_known: bool | None = None,
    held: Callable[[DriveSelection], bool] = lambda _sel: False,
) -> DriveSelection | None:
    """The first missing survival step (table in the module docstring), or None.
    furnace_nearby: a furnace in sight or remembered near; bed_known: a bed placed and
    remembered (None = unknown: only a bed held counts); held: a goal held back after its
    tasks failed (drive_rules.select_drive), which the food stock steps around."""
    for step in (_food(snapshot, furnace_nearby, held), _bed(snapshot, bed_known)):
        if step is not None and not held(step):  # a food goal held back does not hide the bed's
            return step
    return None


def food_stock(snapshot: WorldSnapshot) -> int:
    return sum(snapshot.count_of(f) for f in STOCK_FOODS)


def can_furnace(snapshot: WorldSnapshot, furnace_nearby: bool | None) -> bool:
    """A furnace held, standing nearby, or the cobblestone to make one."""
    return (
        snapshot.count_of("furnace") > 0 or furnace_nearby is True or snapshot.count_of("cobblestone") >= FURNACE_COBBLE
    )


def food_stock_step(
    snapshot: WorldSnapshot,
    furnace_nearby: bool | None = None,
    held: Callable[[DriveSelection], bool] = lambda _sel: False,
) -> DriveSelection | None:
    """The low_food_stock rule alone: a hunt while the stock is short and game is in sight, by
    day (the animals graze on the surface, where the night's hostiles are); with its cooking
    where a furnace can be had, unless every such goal is `held` back (its animal out of reach:
    then any animal, as the plain hunt takes)."""
    stock = food_stock(snapshot)
    if stock >= FOOD_STOCK or night_approaching(snapshot) or underground(snapshot):
        return None
    if not game_in_sight(snapshot.entities):
        return None
    kills = math.ceil((FOOD_STOCK - stock) / 2)
    hunt = DriveSelection(
        "hunt",
        "animal",
        kills,
        "low_food_stock",
        f"My food stock is low ({stock} to eat); I will hunt an animal nearby.",
    )
    return _cooked_stock(snapshot, hunt, held) if can_furnace(snapshot, furnace_nearby) else hunt


def _cooked_stock(
    snapshot: WorldSnapshot, hunt: DriveSelection, held: Callable[[DriveSelection], bool]
) -> DriveSelection:
    """The food stock's hunt as one goal with its cooking: the meat of an animal in sight that a
    plan hunts for it (the kind with the most meat in sight up to the stock's need first, then
    the most meat a kill, then the nearest), short of the stock plus that meat already held,
    cooked; the plain hunt when no such goal is left to ask."""
    stock = food_stock(snapshot)
    for animal, meat in meats_in_sight(snapshot.entities, FOOD_STOCK - stock):
        cooked = output_of(meat)
        assert cooked is not None  # every raw meat smelts (agency.game.furnace)
        amount = min(FOOD_STOCK - stock + snapshot.count_of(meat), MAX_SMELT)
        sel = DriveSelection(
            "smelt",
            cooked,
            amount,
            hunt.rule,
            f"My food stock is low ({stock} to eat); I will hunt the {animal.name} nearby and cook its {meat}.",
            planned=True,  # the plan hunts the meat: it is not held yet
        )
        if not held(sel):
            return sel
    return hunt


def _food(
    snapshot: WorldSnapshot, furnace_nearby: bool | None, held: Callable[[DriveSelection], bool]
) -> DriveSelection | None:
    stock = food_stock_step(snapshot, furnace_nearby, held)
    if stock is not None:
        return stock
    raw = raw_meats_held(snapshot)
    if raw and can_furnace(snapshot, furnace_nearby):
        count, meat = raw[0]
        cooked = output_of(meat)
        assert cooked is not None  # every raw meat smelts (agency.game.furnace)
        return DriveSelection(
            "smelt",
            cooked,
            min(count, MAX_SMELT),
            "raw_meat",
            f"Raw {meat} is worth more cooked; I will cook {min(count, MAX_SMELT)} in a furnace.",
        )
    return None


def waits_for_wool_hunt(step: DriveSelection, snapshot: WorldSnapshot, held: Callable[[DriveSelection], bool]) -> bool:
    """Is `step` a bed whose plan hunts sheep for wool while no_wool's hunt of sheep is held back
    (its tasks failed a moment ago: the sheep in sight out of reach)? The bed's plan would go
    for the same sheep, so it waits out that hold too."""
    if (step.action, step.target) != ("craft", BED) or snapshot.count_of("white_wool") >= WOOL_FOR_BED:
        return False
    return held(DriveSelection("hunt", "sheep", 1, "no_wool", ""))


def _bed(snapshot: WorldSnapshot, bed_known: bool | None) -> DriveSelection | None:
    if bed_known is True or snapshot.count_matching("_bed") > 0 or BED not in CRAFTABLE:
        return None
    wool = snapshot.count_of("white_wool")
    if wool < WOOL_FOR_BED:
        sheep = len(game_in_sight(snapshot.entities, "sheep"))
        if night_approaching(snapshot) or underground(snapshot) or not sheep:
            return None
        if sheep < WOOL_FOR_BED - wool:
            # fewer sheep in sight than wool short (a sheep drops one): those hunted, their wool
            # kept for the bed, a goal that can be done; the bed's goal hunted one sheep, found
            # no other within 32 blocks and failed (six of the failed tasks of the 5-day benches
            # of 2026-12-05)
            return DriveSelection(
                "hunt",
                "sheep",
                sheep,
                "no_wool",
                f"I need {WOOL_FOR_BED - wool} more white wool for a bed; I will hunt the sheep nearby for wool.",
            )
        return DriveSelection(
            "craft",
            BED,
            1,
            "no_wool",
            "I need white wool for a bed to sleep in; I will hunt sheep nearby and craft one.",
            planned=True,  # the plan hunts the sheep: the wool is not held yet
        )
    planks = snapshot.count_matching("_planks")
    logs = sum(i.count for i in snapshot.inventory if is_log(i.name))
    if planks < PLANKS_FOR_BED and logs == 0:
        return None
    return DriveSelection(
        "craft", BED, 1, "no_bed", "Three white wool and planks make a bed to sleep in; I will craft one."
    )
