"""The drive tick's progression: a list of what to have, in order, each asked for as a whole
`obtain` (agency.execution.agents.obtain) whose plan gets everything it needs.

It stands where the plain `explore nearby` was: once the first five rules of
docs/contracts.md DRIVE-3 pass (logs, shelter at night, table, a pickaxe, 16 logs), the first
step of PROGRESSION the bot does not have yet is its goal. A step is had when the inventory
holds `amount` of its item or of one at least as good (`had_by`: a diamond pickaxe has the iron
pickaxe's step), or, for a furnace or a bed, when one stands nearby.

| step | had by |
|---|---|
| stone_sword | any sword |
| iron_pickaxe | an iron, diamond or netherite pickaxe |
| furnace | one held, in sight or remembered standing |
| iron_sword | an iron, diamond or netherite sword |
| shield | a shield |
| torch 16 | 16 torches |
| white_bed | any bed held, or one placed and remembered |
| bucket | a bucket, empty or filled |
| iron_chestplate, iron_helmet, iron_leggings, iron_boots | that piece in iron, diamond or netherite |
| diamond_pickaxe | a diamond or netherite pickaxe |
| diamond_sword | a diamond or netherite sword |
| diamond_chestplate, diamond_helmet, diamond_leggings, diamond_boots | that piece in diamond or netherite |

Armour is put on when it is made (node/lib/wear.js), and what is worn counts as held. The
shield, taken up in the off-hand and raised in a fight while an archer is near (node/lib/shield.js),
comes right after the iron sword, for an ingot: skeletons shot the bench bots dead more than
anything else (4 of 5 deaths at 4a15ade), most of them in their first nights' mines.

A step's goal is what `obtain ITEM N` resolves to from what is held (`craft iron_pickaxe 1`:
its plan gathers the logs, mines the stone, makes a stone pickaxe and a furnace, digs down
for the iron and smelts it), so one tick's goal is minutes of work and the bot works
between ticks (at 180 s, a stone pickaxe as a step of its own left the bot idle for most of
the interval after it). A step is as big as it can be without putting off what keeps the
bot alive: the sword comes first, on its own.
The goal is planned (`DriveSelection.planned`): the plan gets its materials itself, so what
is in sight does not decide it. A step the bot cannot obtain ends the progression: a later
step would skip the one it builds on. Underground (and from dusk to morning, as the survival
steps' hunts wait), a step whose plan hunts (a bed's wool) is passed over for the next: no
animal grazes in a mine, and a 1.18.2 bench bot asked for its bed at y 35 hunted down there
until the dusk (the hunt's climb out failed). No later step builds on a bed; it is asked
again once the bot is on the surface by day. On the surface with none of the
animals it hunts in sight, it waits behind the later steps and is asked when none of them is
left: in the bench at c13238d, a bed's hunt for sheep that were nowhere near explored for two
minutes, failed, and was asked again 20 s later, five of the eight wedges of six runs. The
bot's other work walks it about, and a sheep in sight asks for the bed again, or for those
sheep's wool when fewer are in sight than wool short (the survival steps' no_wool; while that
hunt is held back, the bed waits too: survival_steps.waits_for_wool_hunt).

The first step (STONE_AGE_RULES) comes before the survival steps (hunting, cooking, a bed
when sheep are in sight: agency.cognition.survival_steps); the iron pickaxe (IRON_AGE_RULES)
after the food stock (hunted, and cooked in the same goal where a furnace can be had) and
before the cooking of other meat held and the bed; the others after them all.
The sword is first because bare hands take 12 hits for a zombie and cannot push a creeper back
out of its fuse range (agency.execution.combat). The iron pickaxe comes before the cooking and
the bed because a daylight holds three drive ticks (docs/contracts.md DRIVE-1): a tick for the
meat held and one for the bed put the iron step off by most of a game day, and raw meat is
food too.
"""

from __future__ import annotations

from dataclasses import dataclass

from agency.cognition.drive_selection import DriveSelection
from agency.cognition.plan_hunts import plan_reach
from agency.cognition.survival_steps import SURVIVAL_ACTIONS
from agency.execution.agents.obtain import Unobtainable, resolve_obtain
from agency.game.furnace import output_of
from agency.game.recipes import CRAFTABLE
from agency.goal_tag import ExtractedGoal
from agency.tools.hunting import game_in_sight
from agency.world import WorldSnapshot, night_approaching, underground

TIERS = ("wooden", "golden", "stone", "iron", "diamond", "netherite")  # weakest first (golden: wood's tier)


def at_least(tier: str, kind: str) -> tuple[str, ...]:
    """The items of `kind` (pickaxe, sword, chestplate...) of `tier` or better."""
    return tuple(f"{t}_{kind}" for t in TIERS[TIERS.index(tier) :])


@dataclass(frozen=True)
class Step:
    item: str  # what to obtain
    why: str  # the first-person reason, the thought's text
    had_by: tuple[str, ...] = ()  # held items that count as it (default: the item itself)
    amount: int = 1
    placed: bool = False  # one standing nearby counts (a furnace, a bed)

    @property
    def rule(self) -> str:
        return f"have_{self.item}"

    def held(self, snapshot: WorldSnapshot) -> int:
        return sum(snapshot.count_of(n) for n in self.had_by or (self.item,))


PROGRESSION: tuple[Step, ...] = (
    Step("stone_sword", "I fight with bare hands; I will make a stone sword.", at_least("wooden", "sword")),
    Step(
        "iron_pickaxe",
        "I will make an iron pickaxe: a stone one first, then I will dig for iron and smelt it.",
        at_least("iron", "pickaxe"),
    ),
    Step("furnace", "I have nothing to smelt or cook in nearby; I will make a furnace.", placed=True),
    Step("iron_sword", "A stone sword is weak; I will make an iron sword.", at_least("iron", "sword")),
    Step("shield", "A shield would stop arrows and blasts; I will make one.", ("shield",)),
    Step("torch", "I have too few torches for the dark; I will make some.", amount=16),
    Step("white_bed", "I have no bed to sleep through the night; I will make one.", placed=True),
    Step(
        "bucket",
        "A bucket of water puts out fire and stops falls; I will make a bucket.",
        ("bucket", "water_bucket", "lava_bucket", "milk_bucket"),
    ),
    *(
        Step(f"iron_{piece}", f"I have no armour {where}; I will make an iron {piece}.", at_least("iron", piece))
        for piece, where in (
            ("chestplate", "on my body"),
            ("helmet", "on my head"),
            ("leggings", "on my legs"),
            ("boots", "on my feet"),
        )
    ),
    Step(
        "diamond_pickaxe",
        "I will make a diamond pickaxe: I will dig deep for diamonds.",
        at_least("diamond", "pickaxe"),
    ),
    Step("diamond_sword", "I will make a diamond sword.", at_least("diamond", "sword")),
    *(
        Step(f"diamond_{piece}", f"Diamond armour is stronger; I will make a {piece}.", at_least("diamond", piece))
        for piece in ("chestplate", "helmet", "leggings", "boots")
    ),
)
STONE_AGE_RULES = frozenset({"have_stone_sword"})  # asked before the survival steps
IRON_AGE_RULES = frozenset({"have_iron_pickaxe"})  # asked after a food stock, before other cooking and the bed
BEDS = "_bed"


def routable(action: str, target: str) -> bool:
    """Does a workflow carry this goal out? collect and descend: the gatherer (any block, any
    level); craft: the crafter's planner knows a recipe; smelt: the furnace table knows the item."""
    if action == "craft":
        return target in CRAFTABLE
    if action == "smelt":
        return output_of(target) is not None
    return action in ("collect", "descend") or action in SURVIVAL_ACTIONS


def next_progression_step(
    snapshot: WorldSnapshot, furnace_nearby: bool | None = None, bed_known: bool | None = None
) -> DriveSelection | None:
    """The goal of the first step not had (table in the module docstring). Underground or from
    dusk, a step whose plan hunts is passed over, and on the surface one with none of its animals in sight
    waits behind the later steps (module docstring): it is the goal when every later step is had
    or the first one missing cannot be obtained from here. None when no step is left to ask."""
    nearby = {"furnace": furnace_nearby is True, "white_bed": bed_known is True}
    # underground, or from dusk (the animals' surface is the hostiles', as the survival steps'
    # hunts wait: a bed asked at dusk was held over the night and its one sheep was gone by
    # morning, 1.18.2 seed 6841 at a6804fe)
    below = underground(snapshot) or night_approaching(snapshot)
    waiting: DriveSelection | None = None  # the first hunting step with none of its animals in sight
    for step in PROGRESSION:
        if _had(step, snapshot, nearby.get(step.item, False)):
            continue
        short = step.amount - step.held(snapshot)
        goal = resolve_obtain(ExtractedGoal(action="obtain", target=step.item, amount=short), snapshot.held())
        if isinstance(goal, Unobtainable) or not routable(goal.action, goal.target):
            return waiting
        sel = DriveSelection(goal.action, goal.target, goal.amount, step.rule, step.why, planned=True)
        hunted = plan_reach(sel, snapshot.held()).hunted
        if hunted and below:
            continue
        if hunted and not any(game_in_sight(snapshot.entities, animal) for animal in hunted):
            waiting = waiting or sel
            continue
        return sel
    return waiting


def _had(step: Step, snapshot: WorldSnapshot, standing: bool) -> bool:
    if step.placed and standing:
        return True
    if step.item.endswith(BEDS):
        return snapshot.count_matching(BEDS) > 0
    return step.held(snapshot) >= step.amount
