"""The plan an `obtain ITEM N` goal becomes, offline: the goal it resolves to
(agency.goals.obtain) and that goal's generated workflow from a given inventory. Used by
`mcbot plan` and the planning bench (bot/tooling/bench_plans.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agency.execution.agents.build_plan import build_plan
from agency.execution.agents.gather_plan import gather_plan
from agency.execution.agents.plan_builder import WorkflowPlanError
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.smelt_plan import smelt_plan
from agency.execution.workflows.models import StepDef, WorkflowDef
from agency.goal_tag import ExtractedGoal
from agency.goals.obtain import Unobtainable, resolve_obtain

MAKERS: dict[str, Callable[[str, Mapping[str, Any], Mapping[str, int]], WorkflowDef]] = {
    "craft": craft_plan,
    "smelt": smelt_plan,
    "collect": gather_plan,
    "build": build_plan,
}


@dataclass(frozen=True)
class ObtainPlan:
    goal: ExtractedGoal  # what `obtain` became
    steps: tuple[StepDef, ...]  # its workflow; () for a goal planned when it runs (hunt)


def plan_obtain(item: str, amount: int, inventory: Mapping[str, int]) -> ObtainPlan | Unobtainable:
    """The plan, or why there is none (the obtain's refusal, or the planner's NO_SOURCE...)."""
    goal = resolve_obtain(ExtractedGoal(action="obtain", target=item, amount=amount), inventory)
    if isinstance(goal, Unobtainable):
        return goal
    maker = MAKERS.get(goal.action)
    if maker is None:
        return ObtainPlan(goal, ())
    task = {"action": goal.action, "target": goal.target, "amount": goal.amount}
    try:
        return ObtainPlan(goal, tuple(maker("planner", task, inventory).steps))
    except WorkflowPlanError as e:
        return Unobtainable(f"{e.code}: {e}")
