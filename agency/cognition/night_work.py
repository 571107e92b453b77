"""Work done underground at night: what a dug-in bot (agency.shelter.dig_in) or one met
underground at dusk may be asked for, and whether the drive tick's next goal is such work."""

from __future__ import annotations

from agency.cognition.drive_rules import select_drive
from agency.cognition.drive_selection import DriveSelection
from agency.world import WorldSnapshot

NIGHT_WORK_ACTIONS = frozenset({"craft", "smelt"})  # done wherever the bot is: a table or furnace placed there


def is_night_work(sel: DriveSelection) -> bool:
    """Work done underground: a progression step (its plan digs for its stone and ores) or a
    craft or smelt."""
    return sel.planned or sel.action in NIGHT_WORK_ACTIONS


def night_work_due(snapshot: WorldSnapshot) -> bool:
    """Would the drive tick's next goal keep the bot busy underground (a progression step, whose
    plan digs for its stone and ores, or a craft or smelt from what is held)? A night in the hut
    is then spent dug in under it (agency.shelter.dig_in); logs, a hunt or wool are not had
    underground, and exploring is not done in the dark. The shelter and a crafting table count as
    had (one stands in reach of the hut or is remembered: the tick's own reads are not at hand
    here, and judged by the inventory a tick for a table would be asked where the real tick
    counts the remembered one and asks for logs); the staircase down needs a pickaxe."""
    if snapshot.count_matching("_pickaxe") == 0:
        return False
    return is_night_work(select_drive(snapshot, True, True))
