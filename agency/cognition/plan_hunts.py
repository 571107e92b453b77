"""Does a goal's plan hunt? The crafter's or the smelter's plan for a drive selection, from an
inventory, has a hunt step when something it needs comes from an animal (a bed's wool, raw
meat to cook). Such work is done on the surface by day: no animal grazes underground."""

from __future__ import annotations

from collections.abc import Mapping

from agency.cognition.drive_selection import DriveSelection
from agency.execution.agents.planning import WorkflowPlanError, craft_plan
from agency.execution.agents.smelt_plan import smelt_plan


def hunts(sel: DriveSelection, inventory: Mapping[str, int]) -> bool:
    """Does the plan the step becomes (from this inventory) have a hunt in it?"""
    make = {"craft": craft_plan, "smelt": smelt_plan}.get(sel.action)
    if make is None:
        return False
    try:
        steps = make("planner", {"action": sel.action, "target": sel.target, "amount": sel.amount}, inventory).steps
    except WorkflowPlanError:
        return False  # refused: the tick's own planning says so
    return any(s.tool == "hunt" for s in steps)
