"""Work done underground at night: what a dug-in bot (agency.shelter.dig_in) or one met
underground at dusk may be asked for, and whether the drive tick's next goal is such work."""

from __future__ import annotations

from collections.abc import Mapping

from agency.cognition.drive_rules import select_drive
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.plan_hunts import hunts
from agency.execution.agents.task_spec import TaskSpec
from agency.goal_tag import MAKE_ACTIONS
from agency.world import WorldSnapshot

NIGHT_WORK_ACTIONS = MAKE_ACTIONS  # done wherever the bot is: a table or furnace placed there


def is_night_work(sel: DriveSelection, inventory: Mapping[str, int] | None = None) -> bool:
    """Work done underground: a progression step (its plan digs for its stone and ores) or a
    craft or smelt, but not one whose plan hunts for what the inventory lacks (a bed's wool, raw
    meat to cook: a bench bot's bed failed three times in one night, no sheep down there)."""
    if not (sel.planned or sel.action in NIGHT_WORK_ACTIONS):
        return False
    return not hunts(sel, inventory or {})


def held_task_works_underground(task: TaskSpec, inventory: Mapping[str, int]) -> bool:
    """Is a task held at dusk work for a night dug in (its goal a craft or smelt whose plan does
    not hunt from this inventory)? Then it goes on down there at once instead of in the morning.
    Its follow-ups that are not such work end its chain down there (a hunt does not start at
    night, a collect of logs waits for the morning: agency.execution.agents.follow_up_runs), left
    to their ticks: a 26.1 bench bot's shield, its iron held raw, carried a collect of logs and
    waited the dusk out on the hut's floor."""
    goal = DriveSelection(task.action, task.target, task.amount, rule="held", reason="")
    return is_night_work(goal, inventory)


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
    return is_night_work(select_drive(snapshot, True, True), snapshot.held())
