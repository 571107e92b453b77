"""Grounding (docs/contracts.md PROPERTY-1): does a goal or a thought claim only what the frame shows?

A goal grounds when the thing it names is in the frame, by these rules:
- collect / gather / mine / find: the target is a visible or known-nearby block, an item
  in the inventory, or a nearby entity; 'oak_log' is also grounded by a visible oak_log
  block, 'wood'/'log'/'tree' by any *_log, and an ore's drop by its ore ('coal' by
  coal_ore). Otherwise missing_item, or missing_entity when the target is a creature.
- attack: the target entity must be nearby (missing_entity). flee: a named target must
  be nearby; a generic one ('danger', 'hostiles') needs at least one hostile entity.
- hunt: the animal named must be nearby; a generic one ('animal') needs any food animal
  nearby (missing_entity).
- place / eat: the target must be in the inventory ('food' means any edible item).
- craft / smelt: grounded when the target is a known item (KNOWN_ITEMS, or anything
  minecraft-data has a recipe for: agency.game.recipes; for smelt also anything
  a furnace makes or smelts, agency.game.furnace); whether the
  ingredients are at hand is planning's question, not a fabrication.
- build: grounded when the target is a known structure (KNOWN_STRUCTURES).
- explore: always grounded: it claims nothing about the world.
- descend: grounded when the target is a level the staircase may reach (`y<N>`, N at least
  mining.SAFE_FLOOR_Y); it claims nothing about what lies below (missing_location otherwise).
- navigate: grounded for a direction or generic area, for anything in the frame, and for
  a location the frame lists; a named place the frame does not list ('village', 'home')
  is missing_location.
- sleep / pause / continue: no world claim, grounded.

A drive tick's goal and a user's goal (POST /api/goals) are held to the frame more strictly
(check_doable_goal): it must be doable now, from what the snapshot and the blocks in sight show.
- collect / gather / mine: the block named is in sight (the block region read around the
  bot, the collector's search box); logs in the inventory do not ground collecting more.
- craft: every ingredient is held, or its sources are (through the crafter's recipes:
  planks and sticks from logs, a crafting table from planks), where a raw material in
  sight counts as a source (cobblestone from stone). Otherwise missing_item naming it.
- anything else (build, explore): as check_goal.

Text claims are checked heuristically: a sentence that mentions a known creature absent
from the frame fails missing_entity; a sentence of possession ('I have', 'my inventory',
'holding', 'carrying') naming a known item absent from the inventory fails missing_item.
Sentences with a negation ('no', 'not', "don't", 'without', ...) are not claims of presence.

The frame and the result are agency.cognition.grounding_facts (FrameFacts, GroundingResult);
the names the rules know (KNOWN_ITEMS, KNOWN_STRUCTURES, BLOCK_DROPS...) are
agency.cognition.grounding_words.
"""

from __future__ import annotations

import re

from loguru import logger

from agency.blocks import is_log
from agency.cognition.grounding_facts import FrameFacts, GroundingReason, GroundingResult
from agency.cognition.grounding_words import (
    BLOCK_DROPS,
    EDIBLE,
    GENERIC_PLACES,
    KNOWN_ENTITIES,
    KNOWN_ITEMS,
    KNOWN_STRUCTURES,
    LOG_WORDS,
    NAMED_PLACES,
)
from agency.game import recipes
from agency.game.animals import ANIMALS
from agency.game.furnace import output_of
from agency.goal_tag import MAKE_ACTIONS, ExtractedGoal
from agency.names import GENERIC_THREATS, with_aliases
from agency.tools.hunting import animal_kind
from agency.tools.mining import SAFE_FLOOR_Y, parse_level

# FrameFacts, GroundingResult: where callers have always imported them from
__all__ = [
    "FrameFacts",
    "GroundingResult",
    "check",
    "check_doable_goal",
    "check_goal",
    "check_text",
    "log_grounding_fail",
]

MAX_RECIPE_DEPTH = 6  # deeper than any recipe chain the crafter knows (pickaxe <- stick <- planks <- log)

_NEGATION = re.compile(r"\b(no|not|none|nothing|never|without|don't|dont|can't|cannot|isn't|aren't|no longer)\b")
_POSSESSION = re.compile(r"\b(i have|i've got|i got|i'm holding|i am holding|holding|carrying|my inventory|in my)\b")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_WORD = re.compile(r"[a-z][a-z_]*")


def _forms(word: str) -> frozenset[str]:
    """The word and its possible singulars ('zombies' -> zombie, 'berries' -> berry,
    'torches' -> torch); lookups intersect these with a known set."""
    forms = {word}
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        forms.add(word[:-1])
        if word.endswith("es"):
            forms.add(word[:-2])
        if word.endswith("ies"):
            forms.add(word[:-3] + "y")
    return frozenset(forms)


def _present(target: str, facts: FrameFacts) -> bool:
    names = _forms(target)
    if names & (facts.blocks | facts.inventory | facts.entities):
        return True
    everything = facts.blocks | facts.inventory
    if target in LOG_WORDS and any(is_log(n) for n in everything):
        return True
    return any(BLOCK_DROPS.get(b) in names for b in facts.blocks)


def _is_creature(target: str) -> bool:
    return bool(_forms(target) & KNOWN_ENTITIES)


def _fail(reason: GroundingReason, detail: str, scenario_id: str | None) -> GroundingResult:
    result = GroundingResult(False, reason, detail)
    if scenario_id is not None:  # None: judged quietly, the caller logs if it publishes
        log_grounding_fail(result, scenario_id)
    return result


def log_grounding_fail(result: GroundingResult, scenario_id: str) -> None:
    logger.info("[Grounding] fail scenario={} reason={}", scenario_id, result.reason)


def check_goal(goal: ExtractedGoal, facts: FrameFacts, *, scenario_id: str | None) -> GroundingResult:
    """Ground one extracted goal against the frame (rules in the module docstring)."""
    action, target = goal.action, goal.target
    forms = _forms(target)
    if action in ("collect", "gather", "mine", "find"):
        if _present(target, facts):
            return GroundingResult(True, detail=f"{target} in frame")
        kind: GroundingReason = "missing_entity" if _is_creature(target) else "missing_item"
        return _fail(kind, f"{action} {target}: not in frame", scenario_id)
    if action == "attack":
        if forms & facts.entities:
            return GroundingResult(True, detail=f"{target} nearby")
        return _fail("missing_entity", f"attack {target}: not nearby", scenario_id)
    if action == "hunt":
        animal = animal_kind(target)
        if animal is not None and with_aliases(ANIMALS if animal == "animal" else (animal,)) & facts.entities:
            return GroundingResult(True, detail=f"{target} nearby")
        return _fail("missing_entity", f"hunt {target}: no such animal nearby", scenario_id)
    if action == "flee":
        if forms & facts.entities or (target in GENERIC_THREATS and facts.hostiles > 0):
            return GroundingResult(True, detail="threat in frame")
        return _fail("missing_entity", f"flee {target}: no such threat in frame", scenario_id)
    if action in ("place", "eat"):
        if forms & facts.inventory or (target == "food" and facts.inventory & EDIBLE):
            return GroundingResult(True, detail=f"{target} in inventory")
        return _fail("missing_item", f"{action} {target}: not in inventory", scenario_id)
    if action in MAKE_ACTIONS:
        if (
            forms & KNOWN_ITEMS
            or any(f in recipes.CRAFTABLE for f in forms)
            or (action == "smelt" and any(output_of(f) for f in forms))
        ):
            return GroundingResult(True, detail=f"{target} is a known item")
        return _fail("missing_item", f"{action} {target}: unknown item", scenario_id)
    if action == "build":
        if target in KNOWN_STRUCTURES:
            return GroundingResult(True, detail=f"{target} is a known structure")
        return _fail("missing_item", f"build {target}: unknown structure", scenario_id)
    if action == "descend":
        try:
            if parse_level(target) >= SAFE_FLOOR_Y:
                return GroundingResult(True, detail=f"{target} is a level above the safe floor")
        except ValueError:
            pass
        return _fail("missing_location", f"descend {target}: not a level at or above y{SAFE_FLOOR_Y}", scenario_id)
    if action == "navigate":
        if target in GENERIC_PLACES or target in facts.locations or _present(target, facts):
            return GroundingResult(True, detail=f"{target} reachable from frame")
        if forms & NAMED_PLACES:
            return _fail("missing_location", f"navigate {target}: location not in frame", scenario_id)
        return GroundingResult(True, detail=f"{target}: no location claim")
    return GroundingResult(True, detail=f"{action}: no world claim")


def _in_sight(generic: str, facts: FrameFacts) -> bool:
    """A block in the frame is `generic`, or drops it when mined (stone -> cobblestone)."""
    matches = recipes.matches
    return any(matches(generic, b) or matches(generic, BLOCK_DROPS.get(b, "")) for b in facts.blocks)


def _missing_source(item: str, facts: FrameFacts, depth: int = 0) -> str | None:
    """None when `item` is held, or can be made from what is held or in sight; else the
    raw material that is missing. A 3x3 recipe also needs a table, placed in sight or made."""
    if any(recipes.matches(item, n) for n in facts.inventory):
        return None
    recipe = recipes.recipe_for(item)
    if recipe is None or depth >= MAX_RECIPE_DEPTH:
        return None if _in_sight(item, facts) else item
    return _missing_ingredient(item, facts, depth)


def _missing_ingredient(item: str, facts: FrameFacts, depth: int = 0) -> str | None:
    recipe = recipes.recipe_for(item)
    if recipe is None:
        return item  # the crafter has no recipe: nothing at hand makes it
    needs = [name for name, _ in recipe.ingredients]
    if recipe.needs_table and not _in_sight("crafting_table", facts):
        needs.append("crafting_table")
    for name in needs:
        missing = _missing_source(name, facts, depth + 1)
        if missing is not None:
            return missing
    return None


def check_doable_goal(goal: ExtractedGoal, facts: FrameFacts, *, scenario_id: str | None) -> GroundingResult:
    """Is the goal doable from this frame (a drive tick's or a user's goal; rules in the
    module docstring)? Same result and log line as check_goal."""
    action, target = goal.action, goal.target
    if action in ("collect", "gather", "mine"):
        if _in_sight(target, facts):
            return GroundingResult(True, detail=f"{target} in sight")
        return _fail("missing_item", f"{action} {target}: none in sight", scenario_id)
    if action == "craft":
        missing = _missing_ingredient(target, facts)
        if missing is None:
            return GroundingResult(True, detail=f"{target}: ingredients at hand")
        return _fail("missing_item", f"craft {target}: no {recipes.spoken(missing)} at hand", scenario_id)
    return check_goal(goal, facts, scenario_id=scenario_id)


def _tokens(sentence: str) -> list[str]:
    """Words, with two-word item names merged ('cooked chicken' -> 'cooked_chicken') so a
    food is not read as a creature."""
    words = _WORD.findall(sentence)
    known = KNOWN_ITEMS | EDIBLE
    out: list[str] = []
    i = 0
    while i < len(words):
        pairs = {f"{words[i]}_{f}" for f in _forms(words[i + 1])} if i + 1 < len(words) else set()
        if pairs & known:
            out.append(min(pairs & known))
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


def check_text(text: str, facts: FrameFacts, *, scenario_id: str) -> GroundingResult:
    """Flag fabricated presence claims in free text (heuristic; see module docstring)."""
    for sentence in _SENTENCE.findall(text.lower()):
        if sentence.rstrip().endswith("?") or _NEGATION.search(sentence):
            continue  # a question or a negation claims no presence
        words = _tokens(sentence)
        possession = _POSSESSION.search(sentence) is not None
        for w in words:
            forms = _forms(w)
            if possession and forms & EDIBLE:
                continue  # 'I have chicken' is about food, checked below
            creature = forms & KNOWN_ENTITIES - {"player"}
            if creature and not forms & facts.entities:
                return _fail("missing_entity", f"claims {w} nearby", scenario_id)
        if possession:
            for w in words:
                forms = _forms(w)
                if forms & (KNOWN_ITEMS | EDIBLE) and not forms & facts.inventory:
                    return _fail("missing_item", f"claims to hold {w}", scenario_id)
    return GroundingResult(True, detail="no fabricated claims found")


def check(
    facts: FrameFacts,
    *,
    scenario_id: str,
    goal: ExtractedGoal | None = None,
    text: str | None = None,
) -> GroundingResult:
    """Goal first, then text claims; the first failure wins. Nothing to check passes."""
    if goal is not None:
        result = check_goal(goal, facts, scenario_id=scenario_id)
        if not result.passed:
            return result
    if text:
        result = check_text(text, facts, scenario_id=scenario_id)
        if not result.passed:
            return result
    return GroundingResult(True, detail="grounded")
