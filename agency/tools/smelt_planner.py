"""What the bot puts in a furnace and how long it waits: the input to smelt, the fuel that
covers a batch, the cook's time-out; on the tables of agency.game.furnace.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from agency.game.furnace import COOK_SECONDS, COOK_TICKS, FUEL_ORDER, FUEL_TICKS, fuel_kind, held_inputs
from agency.game.recipes import matches


def input_choice(inventory: Mapping[str, int], output: str) -> tuple[str | None, int]:
    """The held input to smelt (the one held most; a furnace input slot takes one kind), and how many."""
    held = held_inputs(inventory, output)
    if not held:
        return None, 0
    name = max(sorted(held), key=lambda n: held[n])
    return name, held[name]


@dataclass(frozen=True)
class FuelPick:
    name: str
    count: int
    ticks: int  # burn ticks of one


@dataclass
class FuelPlan:
    items: int  # items the plan smelts
    picks: list[FuelPick] = field(default_factory=list)
    short_ticks: int = 0  # burn time still missing when the inventory runs out of fuel

    @property
    def enough(self) -> bool:
        return self.short_ticks <= 0

    @property
    def ticks(self) -> int:
        return sum(p.count * p.ticks for p in self.picks)


def choose_fuel(inventory: Mapping[str, int], items: int, reserve: Mapping[str, int] | None = None) -> FuelPlan:
    """The fuel to smelt `items` items: the best kinds first (coal/charcoal, planks/logs,
    sticks), within a kind the name held most, as few of each as cover the rest. `reserve`
    is held but not to be burnt (logs that are the input when making charcoal)."""
    left = {n: c - (reserve or {}).get(n, 0) for n, c in inventory.items()}
    need = items * COOK_TICKS
    picks: list[FuelPick] = []
    for kind in FUEL_ORDER:
        names = sorted((n for n, c in left.items() if c > 0 and fuel_kind(n) == kind), key=lambda n: (-left[n], n))
        for name in names:
            if need <= 0:
                break
            ticks = FUEL_TICKS[kind]
            use = min(left[name], math.ceil(need / ticks))
            picks.append(FuelPick(name, use, ticks))
            need -= use * ticks
    return FuelPlan(items, picks, max(0, need))


def kept_names(inventory: Mapping[str, int], keep: Mapping[str, int]) -> dict[str, int]:
    """`keep` ('log': any log) as the held names it spares, the ones held most first."""
    out: dict[str, int] = {}
    for generic, n in keep.items():
        for name in sorted((k for k in inventory if matches(generic, k)), key=lambda k: (-inventory[k], k)):
            spared = min(n, inventory[name] - out.get(name, 0))
            out[name] = out.get(name, 0) + spared
            n -= spared
            if n <= 0:
                break
    return out


def fuel_reserve(
    inventory: Mapping[str, int], smelted: Mapping[str, int], keep: Mapping[str, int], making: str = ""
) -> dict[str, int]:
    """What a smelt must not burn: its input (`smelted`, by held name), what `keep` spares of
    the rest (kept_names), added up (logs smelted into charcoal and logs kept for a later craft
    are not the same logs), and the product it is `making` held: charcoal burnt to make
    charcoal is none gained (a 1.18.2 bench bot's smelt of 2 charcoal, 1 held, ended with 1, and
    its plan looped). The smelt tool and the planner's smelt step both ask this."""
    spare = {n: c - smelted.get(n, 0) for n, c in inventory.items()}
    kept = kept_names(spare, keep)
    out = {n: smelted.get(n, 0) + kept.get(n, 0) for n in {*smelted, *kept}}
    if inventory.get(making, 0) > 0:
        out[making] = out.get(making, 0) + inventory[making]
    return out


def cook_timeout_s(items: int, margin_s: float = 20.0) -> float:
    """How long smelting `items` may take: 10 s each, plus a margin for a busy server (half
    the cook time, at least margin_s)."""
    cook = items * COOK_SECONDS
    return cook + max(margin_s, cook / 2)
