"""What the bot eats: minecraft-data's foods (mcdata.GameData.foods) in the order it eats them,
the harmful ones, the raw meats a furnace cooks, and the food level natural regeneration
needs.

The order is best first by minecraft-data's effective quality (food points + saturation),
then the golden apples (RESERVED: worth more kept than eaten while anything else is held),
then the HARMFUL foods, best first, eaten only when nothing else is. minecraft-data lists no
food effects, so HARMFUL and NEVER_EATEN are vanilla's, stated here: Hunger (rotten flesh,
raw chicken), Poison (spider eye, poisonous potato, pufferfish, which also brings Nausea), a
random effect (suspicious stew; POISONOUS are those that can hurt); a chorus fruit teleports
the eater, an ominous bottle gives Bad Omen, and a bucket of fish (26.1's foods list them)
is not eaten at all. Every version we claim has the same foods but for the newer ones each
adds (a unit test holds the order's head), so one table answers, the newest version's."""

from __future__ import annotations

from agency.game import mcdata
from agency.game.animals import ANIMAL_DROPS
from agency.game.furnace import output_of

REGEN_FOOD = 18  # vanilla: natural regeneration needs this much food
HARMFUL = frozenset({"rotten_flesh", "chicken", "spider_eye", "poisonous_potato", "pufferfish", "suspicious_stew"})
# Harmful ones that can hurt (poison; the stew's effect may be poison or wither): never eaten to
# heal. The others' Hunger (30 s of it drains at most 0.75 food points) costs less than they give.
POISONOUS = frozenset({"spider_eye", "poisonous_potato", "pufferfish", "suspicious_stew"})
NEVER_EATEN = frozenset({"chorus_fruit", "ominous_bottle"})
RESERVED = ("golden_apple", "enchanted_golden_apple")


def _eating_order(foods: dict[str, dict[str, object]]) -> tuple[str, ...]:
    def best_first(names: list[str]) -> list[str]:
        return sorted(names, key=lambda n: (-float(str(foods[n]["effectiveQuality"])), n))

    edible = [n for n in foods if n not in NEVER_EATEN and not n.endswith("_bucket")]
    safe = [n for n in edible if n not in HARMFUL and n not in RESERVED]
    return (*best_first(safe), *(n for n in RESERVED if n in foods), *best_first([n for n in edible if n in HARMFUL]))


FOODS: tuple[str, ...] = _eating_order(mcdata.load(mcdata.DEFAULT_VERSION).foods)
# The hunted animals' meats that a furnace cooks into cooked_<meat> (the hunt tool brings them).
RAW_MEATS: tuple[str, ...] = tuple(
    m
    for m in dict.fromkeys(d for drops in ANIMAL_DROPS.values() for d in drops)
    if m in FOODS and (output_of(m) or "").startswith("cooked_")
)
