"""What a goal's plan does that ties it to a place: the crafter's or the smelter's plan for a
drive selection, from an inventory, has a hunt step when something it needs comes from an
animal (a bed's wool, raw meat to cook), and a seek_ore step when it digs down for an ore.
Hunting is done on the surface by day: no animal grazes underground."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agency.cognition.drive_selection import DriveSelection
from agency.execution.agents.planning import WorkflowPlanError, craft_plan
from agency.execution.agents.smelt_plan import smelt_plan

HUNT_TOOL = "hunt"
SEEK_ORE_TOOL = "seek_ore"


@dataclass(frozen=True)
class PlanReach:
    hunted: frozenset[str] = frozenset()  # the animals its hunt steps go for
    descends: bool = False  # a staircase down for an ore it lacks (agency.tools.mining's seek_ore)

    @property
    def hunts(self) -> bool:
        return bool(self.hunted)


def plan_reach(sel: DriveSelection, inventory: Mapping[str, int]) -> PlanReach:
    """What the plan the step becomes from this inventory hunts and whether it goes down (none:
    another action, or a plan refused, which the tick's own planning reports)."""
    make = {"craft": craft_plan, "smelt": smelt_plan}.get(sel.action)
    if make is None:
        return PlanReach()
    try:
        steps = make("planner", {"action": sel.action, "target": sel.target, "amount": sel.amount}, inventory).steps
    except WorkflowPlanError:
        return PlanReach()
    hunted = frozenset(str(s.args.get("target")) for s in steps if s.tool == HUNT_TOOL)
    return PlanReach(hunted, any(s.tool == SEEK_ORE_TOOL for s in steps))


def hunts(sel: DriveSelection, inventory: Mapping[str, int]) -> bool:
    """Does the plan the step becomes (from this inventory) have a hunt in it?"""
    return plan_reach(sel, inventory).hunts
