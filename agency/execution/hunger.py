"""When hunger keeps the bot from healing or from working, by the vitals alone.

The drive tick waits while health or food is under 16 (docs/contracts.md DRIVE-1) and vanilla heals only
with food at 18 or more: a bot hurt with food at 15-17, or hungry, with nothing to eat held
would wait forever (seen in the survival bench: health 9.7 after a fight, idle to the end).
The reflexes close that gap:

- eat: food at or below eat_below_food and anything edible held (FOODS, best first); or
  health under heal_below_health with food under REGEN_FOOD (eating is the only way back to
  healing) and a food that does no harm held; with no food animal in sight to hunt instead
  whose meat does no harm (a chicken's does), rotten flesh or raw chicken too, as their Hunger
  drains less than they give (a bot at 4 health holding only raw chicken stayed hurt, the
  drive tick waiting on it, in the caves survival bench); never a poisonous one;
- the raw food the task in hand is cooking (a smelt of cooked beef: the beef; running, or paused a
  moment ago by a reflex) is spared while
  food is above URGENT_FOOD and health above URGENT_HEALTH, and no forage starts meanwhile,
  held or not (the task is getting the food): eaten raw, the smelt fell short of its input,
  replanned a hunt, and the bot ate that meat too, again and again (a survival bench bot,
  judged wedged); a 1.18.2 bench bot's `smelt cooked_beef`, hunting cows for its beef, was
  held 12 times in 10 minutes by forages hunting cows and pigs, each eaten raw at once;
- cook: hurt and unable to heal with only raw food to eat (COOKS_TO), food above URGENT_FOOD
  and no task in hand, by day on the surface: up to COOK_AT_ONCE cooked in a furnace in sight or held, then
  eaten (a failed cook waits, and the raw food is eaten meanwhile);
- forage: nothing fit to eat now, and hungry or unable to heal: hunt a food animal in
  sight (as many as the healing needs, up to MAX_FORAGE_KILLS: forage_kills), else explore
  nearby for one. A forage that brings no food waits forage_retry_ms
  before the next, doubling after each fruitless one up to MAX_BACKOFF times (a bot only
  unable to heal, with no animal around, does not drag the running task off every 30 s).
"""

from __future__ import annotations

import math

from agency.execution.settings import ReflexConfig
from agency.game import mcdata
from agency.game.animals import ANIMAL_DROPS
from agency.game.foods import FOODS, HARMFUL, POISONOUS, RAW_MEATS, REGEN_FOOD, RESERVED
from agency.game.furnace import inputs_for, output_of
from agency.tools.hunting import game_in_sight
from agency.world import DUSK_START, WorldSnapshot

MAX_BACKOFF = 8  # the longest wait between fruitless forages: 8 x forage_retry_ms
FOOD_STOCK = 4  # edible items the bot keeps in hand before it is hungry (agency.cognition.survival_steps)
URGENT_FOOD = 6  # at 6 or less vanilla stops the sprint: the meat being cooked is eaten raw
URGENT_HEALTH = 8.0  # hurt this much, whatever is held is eaten now
# Before dusk a bot holding nothing to eat forages for something: the night's work underground
# waits on the drive tick, which waits for food 16 (docs/contracts.md DRIVE-1), and by night no
# forage goes out (a 26.1 bench bot dug in under its hut with nothing to eat did no work all
# night and came up at food 14).
STOCK_UP_BEFORE_DUSK = 2_000  # ticks: the last 100 s of the day
FULL_FOOD = 20
NOTHING: frozenset[str] = frozenset()


def _first(snap: WorldSnapshot, foods: tuple[str, ...]) -> str | None:
    return next((f for f in foods if snap.count_of(f)), None)


def raw_meats_held(snap: WorldSnapshot) -> list[tuple[int, str]]:
    """(count, name) of each raw meat held, the most first: what a smelt of food cooks."""
    return sorted(((snap.count_of(m), m) for m in RAW_MEATS if snap.count_of(m)), reverse=True)


def cannot_heal(snap: WorldSnapshot, cfg: ReflexConfig) -> bool:
    return snap.health < cfg.heal_below_health and snap.food < REGEN_FOOD


def cooked_by(action: str, target: str) -> frozenset[str]:
    """The raw foods a task cooks: a smelt whose product is food (named by the product or
    by the raw food), else none."""
    product = output_of(target) if action == "smelt" else None
    if product is None or product not in FOODS:
        return NOTHING
    return frozenset(i for i in inputs_for(product) if i in FOODS)


def _spared(snap: WorldSnapshot, cooking: frozenset[str]) -> frozenset[str]:
    urgent = snap.food <= URGENT_FOOD or snap.health <= URGENT_HEALTH
    return NOTHING if urgent else cooking


def food_to_eat(snap: WorldSnapshot, cfg: ReflexConfig, cooking: frozenset[str] = NOTHING) -> str | None:
    """What to eat now (module docstring), or None. cooking: the raw foods the task in hand
    cooks (cooked_by); while one of them is held and spared, only a food fit to eat anyway is
    eaten meanwhile (no golden apple, nothing harmful: the cooked meat is on its way)."""
    spared = _spared(snap, cooking)
    if any(snap.count_of(f) for f in spared):
        spared |= HARMFUL | frozenset(RESERVED)
    if snap.food <= cfg.eat_below_food:
        return _first(snap, tuple(f for f in FOODS if f not in spared))
    if cannot_heal(snap, cfg):
        spared |= HARMFUL if better_game_in_sight(snap) else POISONOUS
        return _first(snap, tuple(f for f in FOODS if f not in spared))
    return None


# Animals whose meat does harm raw (a chicken's: Hunger): hunting them for food that does no
# harm only brings more of it.
HARMFUL_GAME = frozenset(a for a, drops in ANIMAL_DROPS.items() if drops and drops[0] in HARMFUL)
# Harmful raw, food once cooked (raw chicken): held, it is food for the night, cooked or in need.
COOKED_LATER = frozenset(f for f in HARMFUL if output_of(f) in FOODS and output_of(f) not in HARMFUL)


def better_game_in_sight(snap: WorldSnapshot) -> bool:
    """An animal in sight whose meat does no harm raw: worth hunting rather than eating a
    harmful food to heal. Chickens only are not: a 26.1 bench bot hunted chicken after chicken,
    each raw one spared to heal for the next it saw, and never healed."""
    return any(e.name not in HARMFUL_GAME for e in game_in_sight(snap.entities))


def should_forage(snap: WorldSnapshot, cfg: ReflexConfig, cooking: frozenset[str] = NOTHING) -> bool:
    """Nothing fit to eat now, and hungry or unable to heal (the caller adds when and where);
    never while the task in hand is getting food to cook, unless urgent (it is on its way)."""
    hungry = snap.food <= cfg.eat_below_food
    on_its_way = bool(_spared(snap, cooking))
    return (
        cfg.forage and not on_its_way and food_to_eat(snap, cfg, cooking) is None and (hungry or cannot_heal(snap, cfg))
    )


# What feeds the bot when it needs food: anything but the harmful foods, and raw chicken (cooked,
# or eaten in need, it feeds; counted as nothing, a 26.1 bench bot hunted eight chickens in a
# minute before dusk, eating each raw at food 15). Rotten flesh or a spider eye do not.
FEEDING = tuple(f for f in FOODS if f not in HARMFUL or f in COOKED_LATER)


def holds_food(snap: WorldSnapshot) -> bool:
    """Something held that feeds the bot when it gets hungry (FEEDING)."""
    return any(snap.count_of(f) for f in FEEDING)


def needs_food_for_the_night(snap: WorldSnapshot, cfg: ReflexConfig) -> bool:
    """The last STOCK_UP_BEFORE_DUSK ticks of the day, not full, nothing that feeds held (FEEDING)."""
    if not cfg.forage or not snap.isDay or not DUSK_START - STOCK_UP_BEFORE_DUSK <= snap.timeOfDay < DUSK_START:
        return False
    return snap.food < FULL_FOOD and not holds_food(snap)


# Raw foods a furnace makes into far better food (minecraft-data's foods: raw beef gives 3 food
# and 1.8 saturation, cooked beef 8 and 12.8): raw -> cooked.
COOKS_TO: dict[str, str] = {
    raw: cooked for raw in FOODS if (cooked := output_of(raw)) not in (None, raw) and cooked in FOODS
}
COOK_AT_ONCE = 2  # a furnace's 10 s an item: within the cook's budget with the walk to it


def food_to_cook(snap: WorldSnapshot, cfg: ReflexConfig, cooking: frozenset[str] = NOTHING) -> tuple[str, int] | None:
    """Hurt and unable to heal, not starving, and what the eat would pick is raw food a furnace
    cooks: (the cooked food, how many) to cook first, else None. Healing 12 health takes 18
    food and saturation; raw beef gives 4.8 of them, cooked beef 20.8: a 26.1 bench bot at health
    4 ate each animal its forages brought raw and stood 8 minutes of daylight under the drive
    tick's health gate."""
    if not cfg.forage or not cannot_heal(snap, cfg) or snap.food <= URGENT_FOOD:
        return None
    raw = food_to_eat(snap, cfg, cooking)
    if raw is None or raw not in COOKS_TO:
        return None
    return COOKS_TO[raw], min(COOK_AT_ONCE, snap.count_of(raw))


HERD_HUNT = 2  # animals one forage hunts when no healing needs more (a herd's, within the reflex job's time)
MAX_FORAGE_KILLS = 4
FULL_HEALTH = 20.0
UNITS_PER_HEALTH = 1.5  # food and saturation a health point healed costs (vanilla: 6 exhaustion, 4 a unit)


def _least_raw_meat() -> float:
    foods = mcdata.load(mcdata.DEFAULT_VERSION).foods
    return min(float(str(foods[m]["foodPoints"])) + float(str(foods[m]["saturation"])) for m in RAW_MEATS)


RAW_KILL_UNITS = _least_raw_meat()  # food and saturation one kill's raw meat gives at least (mutton, chicken: 3.2)


def forage_kills(snap: WorldSnapshot, cfg: ReflexConfig) -> int:
    """How many animals a forage hunts: HERD_HUNT, or as many raw kills as take a bot that
    cannot heal back to food 18 and whole health, up to MAX_FORAGE_KILLS. A 1.18.2 bench bot at
    health 3 foraged one sheep, ate it, foraged a chicken 20 blocks off, ate it, and went on so
    every few seconds, its task held each time."""
    if not cannot_heal(snap, cfg):
        return HERD_HUNT
    need = max(0, REGEN_FOOD - snap.food) + UNITS_PER_HEALTH * (FULL_HEALTH - snap.health)
    return max(HERD_HUNT, min(MAX_FORAGE_KILLS, math.ceil(need / RAW_KILL_UNITS)))


def fed_by(gained: dict[str, int] | None) -> bool:
    """Did a forage bring something to eat?"""
    return any(n in FOODS and c > 0 for n, c in (gained or {}).items())


def forage_wait_ms(cfg: ReflexConfig, fruitless: int) -> int:
    """The wait after `fruitless` forages in a row that brought no food."""
    return cfg.forage_retry_ms * min(MAX_BACKOFF, 1 << max(0, fruitless - 1))  # 2 ** (fruitless - 1)


def vitals(snap: WorldSnapshot) -> str:
    return f"health {snap.health:.1f}, food {snap.food}"
