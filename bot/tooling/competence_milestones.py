"""Competence's milestones and the game time they are stamped in (bot/tooling/competence.py
judges progress by them and makes these names importable beside its criteria): pure functions
over a run's samples, no clock read.

The tech tree's MILESTONES: reached the first time the item is seen in the bot's
inventory (any log, any planks, ..., any bed) or the event happens (a verified shelter),
stamped in game seconds since the run began (ticks / 20: a game day is 1200 s; counted
from the snapshots' time of day, day wraps and nights slept through included, so a fast
world's days count as days; a clock set back, as a restarted world's is, counts the time
the run's own clock says passed).

Also `daytime`: did a sample see day, by the same world clock (the idle share counts daylight).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from agency.names import canonical

TICKS_PER_DAY = 24_000
TICKS_PER_S = 20
GAME_S_PER_DAY = TICKS_PER_DAY / TICKS_PER_S  # 1200


def _item(name: str) -> Callable[[str], bool]:
    return lambda n: canonical(n) == name


def _suffix(suffix: str) -> Callable[[str], bool]:
    return lambda n: n.endswith(suffix)


# The tech tree, in order: milestone name -> which inventory item names reach it.
ITEM_MILESTONES: dict[str, Callable[[str], bool]] = {
    "log": _suffix("_log"),  # any wood's log (not stripped: that is the bot's own work on one)
    "planks": _suffix("_planks"),
    "crafting_table": _item("crafting_table"),
    "wooden_pickaxe": _item("wooden_pickaxe"),
    "cobblestone": _item("cobblestone"),
    "stone_pickaxe": _item("stone_pickaxe"),
    "furnace": _item("furnace"),
    "coal": _item("coal"),
    "iron_ore": lambda n: n in ("raw_iron", "iron_ore", "deepslate_iron_ore"),  # raw_iron from 1.17
    "iron_ingot": _item("iron_ingot"),
    "iron_pickaxe": _item("iron_pickaxe"),
    "bed": _suffix("_bed"),
    "diamond": _item("diamond"),
    "diamond_pickaxe": _item("diamond_pickaxe"),
}
EVENT_MILESTONES = ("verified_shelter",)
_ITEMS = list(ITEM_MILESTONES)
_SHELTER_AT = _ITEMS.index("bed")  # the verified shelter comes before the bed
MILESTONES: tuple[str, ...] = (*_ITEMS[:_SHELTER_AT], *EVENT_MILESTONES, *_ITEMS[_SHELTER_AT:])  # the tree's order


# -- game time --------------------------------------------------------------------------------

NIGHT_START, NIGHT_END = 13_000, 23_000  # mineflayer's isDay is false in between
NIGHT_FROM = 12_542  # vanilla: a bed can be slept in from this time of day (and through the night)
JITTER_TICKS = 200  # a sample's t and its snapshot's clock are read a moment apart


def tick_rate(samples: list[dict[str, Any]]) -> float | None:
    """World-clock ticks per run second: the median over consecutive readings that moved by
    less than a quarter day (20 in a real world, 200 in a --fast one); None with no pair."""
    clocked = [(s["t"], int(s["timeOfDay"])) for s in samples if isinstance(s.get("timeOfDay"), (int, float))]
    rates = sorted(
        d / (tb - ta)
        for (ta, a), (tb, b) in itertools.pairwise(clocked)
        if tb > ta and (d := (b - a) % TICKS_PER_DAY) < TICKS_PER_DAY / 4
    )
    return rates[len(rates) // 2] if rates else None


def _advance(dt: float, a: int, b: int, rate: float | None) -> float:
    """Ticks the world lived between two readings dt run seconds apart: what the clock
    moved (wraps counted), a night slept through included (from NIGHT_FROM on to the morning);
    a clock that moved further than the run's time explains otherwise was set back (a
    restarted world starts its day again): then the ticks the run's time explains."""
    moved = (b - a) % TICKS_PER_DAY
    if rate is None:
        return moved
    expected = rate * dt
    if moved <= 1.5 * expected + JITTER_TICKS:
        return moved
    if a >= NIGHT_FROM and b <= expected + JITTER_TICKS:  # slept through the night
        return moved
    return expected


def game_seconds(samples: list[dict[str, Any]]) -> list[float | None]:
    """Game seconds since the run's first world-clock reading, at each sample (None before
    it): the ticks the time of day moved between readings (see _advance), over 20. Samples
    without a clock carry the last value."""
    rate = tick_rate(samples)
    out: list[float | None] = []
    ticks, last = 0.0, None
    for s in samples:
        tod = s.get("timeOfDay")
        if isinstance(tod, (int, float)):
            if last is not None:
                ticks += _advance(s["t"] - last[0], last[1], int(tod), rate)
            last = (s["t"], int(tod))
        out.append(round(ticks / TICKS_PER_S, 2) if last is not None else None)
    return out


def milestones(samples: list[dict[str, Any]], game_s: list[float | None] | None = None) -> dict[str, float | None]:
    """Each milestone's game seconds when first reached (None: not reached). An item counts
    in the first sample whose inventory holds it; the verified shelter in the first sample
    showing a shelter task completed and verified (agency.goals: >= 2 consecutive passes)."""
    game_s = game_seconds(samples) if game_s is None else game_s
    reached: dict[str, float | None] = dict.fromkeys(MILESTONES)
    for s, g in zip(samples, game_s, strict=True):
        at = g if g is not None else 0.0  # before the first clock reading: the run's start
        for name in s.get("inventory") or {}:
            for ms, hit in ITEM_MILESTONES.items():
                if reached[ms] is None and hit(name):
                    reached[ms] = at
        if reached["verified_shelter"] is None and any(_verified_shelter(t) for t in s.get("tasks", [])):
            reached["verified_shelter"] = at
    return reached


def daytime(s: dict[str, Any]) -> bool:
    """Day by the sample's isDay, else by its time of day (the first half of the day)."""
    day = s.get("isDay")
    return bool(day) if day is not None else int(s.get("timeOfDay") or 0) % TICKS_PER_DAY < TICKS_PER_DAY // 2


def _verified_shelter(task: dict[str, Any]) -> bool:
    goal = task.get("goal") or {}
    shelter = (task.get("goalKey") or "").startswith("build:") or (goal.get("goalType") or "").startswith(
        "build_shelter"
    )
    return (
        bool(goal)
        and shelter
        and task.get("status") == "completed"
        and (goal.get("consecutivePasses") or 0) >= 2
        and goal.get("done") is True
    )
