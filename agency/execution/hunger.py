"""When hunger keeps the bot from healing or from working, by the vitals alone.

The drive tick waits while health or food is under 16 (contract 3.1) and vanilla heals only
with food at 18 or more: a bot hurt with food at 15-17, or hungry, with nothing to eat held
would wait forever (seen in the survival bench: health 9.7 after a fight, idle to the end).
The reflexes close that gap:

- eat: something edible held, and food at or below eat_below_food, or health under
  heal_below_health with food under REGEN_FOOD (eating is the only way back to healing);
- forage: nothing edible held and hungry (food at or below eat_below_food) or unable to heal:
  hunt a food animal in sight, else explore for one; a forage that brings no food waits
  forage_retry_ms before the next.
"""

from __future__ import annotations

from agency.execution.settings import ReflexConfig
from agency.world import WorldSnapshot

REGEN_FOOD = 18  # vanilla: natural regeneration needs this much food
FOODS = ("cooked_beef", "cooked_porkchop", "bread", "cooked_chicken", "cooked_mutton", "baked_potato",
         "apple", "carrot", "beef", "porkchop", "chicken", "mutton", "potato", "rotten_flesh")  # eaten in this order


def food_held(snap: WorldSnapshot) -> str | None:
    """The edible item the bot would eat first, or None."""
    return next((f for f in FOODS if snap.count_of(f)), None)


def cannot_heal(snap: WorldSnapshot, cfg: ReflexConfig) -> bool:
    return snap.health < cfg.heal_below_health and snap.food < REGEN_FOOD


def should_eat(snap: WorldSnapshot, cfg: ReflexConfig) -> bool:
    return food_held(snap) is not None and (snap.food <= cfg.eat_below_food or cannot_heal(snap, cfg))


def should_forage(snap: WorldSnapshot, cfg: ReflexConfig) -> bool:
    """Nothing to eat held, and hungry or unable to heal (the caller adds when and where)."""
    return cfg.forage and food_held(snap) is None and (snap.food <= cfg.eat_below_food or cannot_heal(snap, cfg))


def vitals(snap: WorldSnapshot) -> str:
    return f"health {snap.health:.1f}, food {snap.food}"
