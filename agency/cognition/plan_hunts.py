"""Does a goal's plan hunt? The crafter's or the smelter's plan for a drive selection, from an
inventory, has a hunt step when something it needs comes from an animal (a bed's wool, raw
meat to cook), and a seek_ore step when it digs down for an ore. Hunting is done on the
surface by day: no animal grazes underground."""

from __future__ import annotations

from collections.abc import Mapping

from agency.cognition.drive_selection import DriveSelection
from agency.execution.agents.planning import WorkflowPlanError, craft_plan
from agency.execution.agents.smelt_plan import smelt_plan


def plan_tools(sel: DriveSelection, inventory: Mapping[str, int]) -> frozenset[str]:
    """The tools of the plan a craft or smelt step becomes from this inventory (none: another
    action, or a plan refused, which the tick's own planning reports)."""
    make = {"craft": craft_plan, "smelt": smelt_plan}.get(sel.action)
    if make is None:
        return frozenset()
    try:
        steps = make("planner", {"action": sel.action, "target": sel.target, "amount": sel.amount}, inventory).steps
    except WorkflowPlanError:
        return frozenset()
    return frozenset(s.tool for s in steps if s.tool is not None)


def hunts(sel: DriveSelection, inventory: Mapping[str, int]) -> bool:
    """Does the plan the step becomes (from this inventory) have a hunt in it?"""
    return "hunt" in plan_tools(sel, inventory)


def descends(sel: DriveSelection, inventory: Mapping[str, int]) -> bool:
    """Does the plan the step becomes dig down for an ore it lacks (agency.tools.mining's seek_ore)?"""
    return "seek_ore" in plan_tools(sel, inventory)
