"""`obtain ITEM [N]` (also `get`, `acquire`): the goal a player means, whatever the item is.
It becomes the goal that gets it: `collect` its block (stone for cobblestone, the ore for
redstone or diamonds), `craft` it (its recipe tree from minecraft-data: the planner gathers,
smelts and makes the tools first), `smelt` it (ingots), or `hunt` the animal that drops it.
What the overworld does not have is refused at once naming where it is (a blaze rod: the
nether), also when it is an ingredient (blaze powder needs a blaze rod), and what survival
never gives (a spawn egg, bedrock) saying so; a name the game
does not have is refused with the nearest names. A craft or smelt it becomes is not held to
what is in sight (the plan gathers, smelts and makes the tools itself); a collect or a hunt is.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

from agency.execution.agents.plan_builder import WorkflowPlanError
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.sources import gatherable, obtainable, smeltable, source_block
from agency.game import mcdata
from agency.game.animals import ANIMAL_DROPS
from agency.game.creative import creative_only
from agency.game.elsewhere import found_only_in
from agency.game.fills import EMPTY, fill_source
from agency.game.loot import chance_drop
from agency.game.recipes import CRAFTABLE, GENERIC_WORDS, spoken
from agency.goal_tag import MAKE_ACTIONS, ExtractedGoal
from agency.tools.craft_planner import plan_craft

OBTAIN_WORDS = frozenset({"obtain", "get", "acquire"})
PLANNED = MAKE_ACTIONS  # goals whose plan gets every material itself: no frame check


@dataclass(frozen=True)
class Unobtainable:
    reason: str


def resolve_obtain(goal: ExtractedGoal, inventory: Mapping[str, int] | None = None) -> ExtractedGoal | Unobtainable:
    """The concrete goal that obtains goal.target, goal.amount of it; or why none does. What
    is held counts: a cake's egg the bot holds needs no source."""
    item, amount = goal.target, goal.amount
    items = mcdata.data().items
    if item not in items and item not in GENERIC_WORDS:
        near = difflib.get_close_matches(item, list(items), n=3, cutoff=0.75)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        return Unobtainable(f"{item} is not an item of Minecraft {mcdata.current_version()}{hint}")
    if creative_only(item):
        return Unobtainable(f"{item} cannot be had in survival: only creative mode or a command gives it")
    where = found_only_in(item)
    if where is not None:
        return Unobtainable(f"{item} is found only in {where}, and the bot stays in the overworld")
    raw = gatherable(item)
    if raw is not None:  # its block; a chance drop (flint) is collected by its own name, its block dug until enough
        target = raw if chance_drop(raw) is not None else str(source_block(raw))
        return ExtractedGoal(action="collect", target=target, amount=amount)
    if item in CRAFTABLE or fill_source(item) is not None:  # a filled bucket: the craft plan fills one
        raws = sorted(plan_craft(EMPTY if fill_source(item) else item, amount, inventory or {}).missing)
        for raw in raws:
            where = found_only_in(raw)
            if where is not None:
                return Unobtainable(f"{item} needs {raw}, which is found only in {where}")
        for raw in raws:
            if not obtainable(raw):
                return Unobtainable(f"{item} needs {spoken(raw)}, which the bot cannot get on its own yet")
        refused = _no_source(item, amount, inventory or {})
        if refused is not None:
            return Unobtainable(refused)
        return ExtractedGoal(action="craft", target=item, amount=amount)
    if smeltable(item):
        return ExtractedGoal(action="smelt", target=item, amount=amount)
    animal = next((a for a, drops in ANIMAL_DROPS.items() if item in drops), None)
    if animal is not None:
        return ExtractedGoal(action="hunt", target=animal, amount=min(amount, 10))
    if item in mcdata.data().blocks:
        return ExtractedGoal(action="collect", target=item, amount=amount)  # a block: collected where seen
    return Unobtainable(f"the bot knows no way to get {item} on its own yet")


def _no_source(item: str, amount: int, inventory: Mapping[str, int]) -> str | None:
    """Why the craft's plan cannot get a material (its NO_SOURCE: a birch fence's birch log,
    agency.execution.agents.plan_builder), else None: refused now, not as a task that fails."""
    try:
        craft_plan("planner", {"action": "craft", "target": item, "amount": amount}, inventory)
    except WorkflowPlanError as e:
        return str(e) if e.code == "NO_SOURCE" else None
    return None
