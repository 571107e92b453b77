"""The tech-tree progression of the drive tick, and digging down for ores.

The tech-tree progression stands where the plain `explore nearby` was: once the first five
rules of docs/contracts.md DRIVE-3 pass (logs, shelter at night, table, a pickaxe, 16 logs),
the next missing step toward an iron pickaxe is chosen from the inventory and the furnace
known nearby (in sight, or remembered and still standing: agency.places), first missing step
wins:

| rule | fires when | goal |
|---|---|---|
| no_cobblestone | short of 3 cobblestone (no stone pickaxe) + 2 (no sword) + 8 (no furnace) | collect stone <short> |
| no_stone_pickaxe | no stone (or better) pickaxe | craft stone_pickaxe 1 |
| no_sword | no sword (nor an iron pickaxe and the 2 ingots for an iron one) | craft stone_sword 1 |
| no_furnace | iron still to smelt, no furnace held, in sight or remembered standing | craft furnace 1 |
| no_coal | iron still to smelt and not yet in hand, no coal or charcoal | collect coal_ore 3 |
| no_iron_ore | raw iron (+ iron ore) held short of the ingots still to smelt | collect iron_ore <short> |
| no_iron_ingot | fewer than 3 iron ingots, the raw iron for them held | smelt iron_ingot <short> |
| no_iron_pickaxe | 3 iron ingots, no iron (or better) pickaxe | craft iron_pickaxe 1 |
| no_iron_sword | an iron pickaxe, no iron sword, 2 iron ingots held | craft iron_sword 1 |

The first three rules (STONE_AGE_RULES) come before the survival steps (hunting, cooking, a
bed: agency.cognition.survival_steps), the others after them: the furnace that cooks the
meat is made of the same stone. The sword is there because bare hands take 12 hits for a
zombie and cannot push a creeper back out of its fuse range (agency.execution.combat).

"Iron still to smelt" = no iron (or better) pickaxe and fewer than 3 iron ingots. A step
whose goal no workflow carries out (a craft the crafter has no recipe for, a smelt the
furnace table does not know) is never emitted (`routable`): the progression ends before it.

Coal and iron lie underground (below what a tick sees from the surface), so a collect of
either with none in sight digs down first (`dig_down_first`, rule `dig_down_first`): a
staircase to DIG_DOWN_BLOCKS below the bot for coal, to IRON_LEVEL (or DIG_DOWN_BLOCKS
lower, when already that deep) for iron, never below DIG_DOWN_FLOOR (y 12: the deeper ores
are a plan's, agency.tools.mining seek_ore):

| ore | goal |
|---|---|
| coal_ore | descend y<bot's y - 12> |
| iron_ore | descend y<min(40, bot's y - 12)> |

Once the ore is in sight the collect step grounds and takes over. At the floor (or with no
pickaxe) the collect is grounded into `explore nearby`, like any other goal out of sight.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from agency.cognition.drive_selection import DriveSelection
from agency.cognition.grounding import GroundingResult
from agency.cognition.survival_steps import SURVIVAL_ACTIONS
from agency.game.furnace import output_of
from agency.game.recipes import CRAFTABLE
from agency.tools.mining import MAX_DESCENT, level_target
from agency.world import WorldSnapshot

# The progression (module docstring): what each step needs.
STONE_PICKAXE_COBBLE = 3
STONE_SWORD_COBBLE = 2
FURNACE_COBBLE = 8
IRON_FOR_PICKAXE = 3  # ingots
IRON_FOR_SWORD = 2
COAL_BATCH = 3  # one vein's worth: fuel for 24 smelts, spare for torches
STONE_OR_BETTER = ("stone_pickaxe", "iron_pickaxe", "diamond_pickaxe", "netherite_pickaxe")
SWORDS = ("netherite_sword", "diamond_sword", "iron_sword", "stone_sword", "golden_sword", "wooden_sword")
STONE_AGE_RULES = frozenset({"no_cobblestone", "no_stone_pickaxe", "no_sword"})  # asked before the survival steps
IRON_OR_BETTER = ("iron_pickaxe", "diamond_pickaxe", "netherite_pickaxe")
# Digging down for ores out of sight: one descent brings DIG_DOWN_BLOCKS of new ground into
# the sight box (8 up and down); iron lies deeper than coal (the embedded world: iron below
# y 56, coal up to the surface; vanilla 1.18+: iron peaks at y 16, coal near y 96 and 0).
DIG_DOWN_ORES = ("coal_ore", "iron_ore")
DIG_DOWN_BLOCKS = 12
IRON_LEVEL = 40
DIG_DOWN_FLOOR = 12  # coal and iron lie above it in every world we run (agency.game.ores)
MIN_DESCENT = 4  # less than this above the floor: explore instead


def routable(action: str, target: str) -> bool:
    """Does a workflow carry this goal out? collect and descend: the gatherer (any block, any
    level); craft: the crafter's planner knows a recipe; smelt: the furnace table knows the item."""
    if action == "craft":
        return target in CRAFTABLE
    if action == "smelt":
        return output_of(target) is not None
    return action in ("collect", "descend") or action in SURVIVAL_ACTIONS


def _held(snapshot: WorldSnapshot, names: Iterable[str]) -> int:
    return sum(snapshot.count_of(n) for n in names)


def next_progression_step(snapshot: WorldSnapshot, furnace_nearby: bool | None = None) -> DriveSelection | None:
    """The first missing step toward an iron pickaxe (table in the module docstring), or
    None when there is none left that a workflow can carry out."""
    stone_pick = _held(snapshot, STONE_OR_BETTER) > 0
    iron_pick = _held(snapshot, IRON_OR_BETTER) > 0
    ingots = snapshot.count_of("iron_ingot")
    # no stone sword when the iron for an iron one is in hand (its own step, below)
    sword = _held(snapshot, SWORDS) > 0 or (iron_pick and ingots >= IRON_FOR_SWORD)
    raw = _held(snapshot, ("raw_iron", "iron_ore"))
    cobble = snapshot.count_of("cobblestone")
    coal = _held(snapshot, ("coal", "charcoal"))
    has_furnace = snapshot.count_of("furnace") > 0 or furnace_nearby is True
    to_smelt = 0 if iron_pick else max(0, IRON_FOR_PICKAXE - ingots)
    furnace_needed = to_smelt > 0 and not has_furnace
    steps: list[tuple[bool, DriveSelection]] = []
    need = (
        (0 if stone_pick else STONE_PICKAXE_COBBLE)
        + (0 if sword else STONE_SWORD_COBBLE)
        + (FURNACE_COBBLE if furnace_needed else 0)
    )
    if cobble < need:
        short = need - cobble
        steps.append(
            (
                True,
                DriveSelection(
                    "collect",
                    "stone",
                    short,
                    "no_cobblestone",
                    f"I need {short} more cobblestone for stone tools and a furnace; I will mine stone.",
                ),
            )
        )
    steps += [
        (
            not stone_pick,
            DriveSelection(
                "craft",
                "stone_pickaxe",
                1,
                "no_stone_pickaxe",
                "A wooden pickaxe is not enough for iron; I will make a stone pickaxe.",
            ),
        ),
        (
            not sword,
            DriveSelection(
                "craft", "stone_sword", 1, "no_sword", "I fight with bare hands; I will make a stone sword."
            ),
        ),
        (
            furnace_needed,
            DriveSelection(
                "craft",
                "furnace",
                1,
                "no_furnace",
                "There is iron to smelt ahead and no furnace nearby; I will make one.",
            ),
        ),
        (
            to_smelt > 0 and raw + ingots < IRON_FOR_PICKAXE and coal == 0,
            DriveSelection(
                "collect", "coal_ore", COAL_BATCH, "no_coal", "I will need fuel to smelt iron; I should find some coal."
            ),
        ),
        (
            raw < to_smelt,
            DriveSelection(
                "collect",
                "iron_ore",
                max(1, to_smelt - raw),
                "no_iron_ore",
                "I need iron for an iron pickaxe; I should find some iron ore.",
            ),
        ),
        (
            to_smelt > 0,
            DriveSelection(
                "smelt",
                "iron_ingot",
                max(1, to_smelt),
                "no_iron_ingot",
                "I have the raw iron; I will smelt it into ingots.",
            ),
        ),
        (
            not iron_pick,
            DriveSelection(
                "craft", "iron_pickaxe", 1, "no_iron_pickaxe", "I have the iron ingots; I will make an iron pickaxe."
            ),
        ),
        (
            iron_pick and snapshot.count_of("iron_sword") == 0 and ingots >= IRON_FOR_SWORD,
            DriveSelection(
                "craft", "iron_sword", 1, "no_iron_sword", "I have iron to spare; I will make an iron sword."
            ),
        ),
    ]
    for missing, sel in steps:
        if missing:
            # The first missing step decides: one no workflow can carry out ends the progression
            # (a later step would skip the one it builds on).
            return sel if routable(sel.action, sel.target) else None
    return None


def dig_down_first(
    ungrounded: DriveSelection, snapshot: WorldSnapshot, grounding: GroundingResult
) -> DriveSelection | None:
    """For coal or iron out of sight: a staircase down to where it lies (module docstring),
    or None (not an ore found below, no pickaxe to dig with, too close to the floor)."""
    if ungrounded.action != "collect" or ungrounded.target not in DIG_DOWN_ORES:
        return None
    if snapshot.count_matching("_pickaxe") == 0:
        return None
    y = math.floor(snapshot.position.y)
    level = y - DIG_DOWN_BLOCKS
    if ungrounded.target == "iron_ore":
        level = min(level, IRON_LEVEL)
    level = max(level, DIG_DOWN_FLOOR, y - MAX_DESCENT)
    if y - level < MIN_DESCENT:
        return None
    why = grounding.detail.split(": ", 1)[-1]
    return DriveSelection(
        "descend",
        level_target(level),
        1,
        "dig_down_first",
        f"I cannot {ungrounded.action} {ungrounded.target} from here ({why}); it lies deeper, "
        f"so I will dig a staircase down to y {level}.",
    )
