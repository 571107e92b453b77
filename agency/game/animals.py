"""The food animals: the kinds the bot hunts, and what each drops, from minecraft-data's
entity loot (mcdata.GameData.entity_loot). Which animals are hunted is ours: the passive
ones whose meat is food. A drop rarer than SURE_DROP is not planned on (a rabbit's foot,
one kill in ten).

minecraft-data's sheep loot lists mutton only; vanilla's sheep loot table also drops the
wool of the sheep's colour (LOOT_ADDED: white, the sheep the bot hunts for a bed). The drops
are the same at every version we claim (a unit test holds them), so one table answers."""

from __future__ import annotations

from functools import cache

from agency.game import mcdata

HUNTED = ("cow", "mooshroom", "pig", "chicken", "sheep", "rabbit")
SURE_DROP = 0.5
LOOT_ADDED: dict[str, tuple[str, ...]] = {"sheep": ("white_wool",)}


@cache
def animal_drops(version: str = mcdata.DEFAULT_VERSION) -> dict[str, tuple[str, ...]]:
    """What each hunted animal drops at `version`: meat first, then the rest, as minecraft-data lists them."""
    loot = mcdata.load(version).entity_loot
    out: dict[str, tuple[str, ...]] = {}
    for animal in HUNTED:
        sure = [str(d["item"]) for d in loot.get(animal, []) if float(d.get("dropChance", 0)) >= SURE_DROP]
        meat = [i for i in sure if i in mcdata.load(version).foods]
        out[animal] = (*meat, *(i for i in sure if i not in meat), *LOOT_ADDED.get(animal, ()))
    return out


# The most meat one kill drops, from vanilla's loot tables (minecraft-data lists a stack of 1
# for each; the embedded world's node/plugins/mobs.js drops as vanilla): which animal a food
# stock hunts first.
MEAT_PER_KILL: dict[str, int] = {"cow": 3, "mooshroom": 3, "pig": 3, "sheep": 2, "chicken": 1, "rabbit": 1}
# The least: a rabbit drops 0 or 1 raw rabbit, every other animal at least 1. With the most, the
# mean a kill, which animal's herd in sight feeds a stock (agency.cognition.survival_steps).
MEAT_LEAST: dict[str, int] = {"rabbit": 0}


def mean_meat(animal: str) -> float:
    return (MEAT_LEAST.get(animal, 1) + MEAT_PER_KILL.get(animal, 1)) / 2


# The keys are the kinds the bot hunts (agency.tools.hunting).
ANIMAL_DROPS: dict[str, tuple[str, ...]] = animal_drops()
ANIMALS: tuple[str, ...] = tuple(ANIMAL_DROPS)


def animal_for(item: str) -> str | None:
    """The animal a plan hunts for `item` (leather: cow), the first that drops it; None if none."""
    return next((a for a, drops in ANIMAL_DROPS.items() if item in drops), None)
