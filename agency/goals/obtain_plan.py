"""The plan an `obtain ITEM N` goal becomes, offline: the goal it resolves to
(agency.execution.agents.obtain) and that goal's generated workflow from a given inventory. Used by
`mcbot plan` and the planning bench (bot/tooling/bench_plans.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agency.execution.agents.build_plan import build_plan
from agency.execution.agents.gather_plan import gather_plan
from agency.execution.agents.obtain import Unobtainable, resolve_obtain
from agency.execution.agents.plan_builder import WorkflowPlanError
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.smelt_plan import smelt_plan
from agency.execution.workflows.models import StepDef, WorkflowDef
from agency.goal_tag import ExtractedGoal

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


def plan_tree(steps: tuple[StepDef, ...] | list[StepDef]) -> dict[str, Any]:
    """The steps as a tree of what they serve (StepDef.serves): {"what", "steps", "children"},
    each step {"n", "id", "tool", "description"} numbered in the order it runs."""
    root: dict[str, Any] = {"what": "", "steps": [], "children": []}
    for n, step in enumerate(steps, 1):
        node = root
        for part in [p for p in step.serves.split(" > ") if p]:
            last = node["children"][-1] if node["children"] else None
            if last is None or last["what"] != part or _after(last, node, n):
                last = {"what": part, "steps": [], "children": []}
                node["children"].append(last)
            node = last
        node["steps"].append({"n": n, "id": step.id, "tool": step.tool or step.kind, "description": step.description})
    return root


def _after(child: dict[str, Any], parent: dict[str, Any], n: int) -> bool:
    """Did a step of `parent` itself run after `child`'s last one (so a later part of the
    same name is a new node)?"""
    own = [s["n"] for s in parent["steps"]]
    return bool(own) and max(own) > _last(child)


def _last(node: dict[str, Any]) -> int:
    return max([s["n"] for s in node["steps"]] + [_last(c) for c in node["children"]], default=0)


def tree_lines(node: dict[str, Any], depth: int = 0) -> list[str]:
    """The tree as indented lines: a part's name, then its steps and parts in the order they run."""
    lines = [f"{'  ' * depth}{node['what']}"] if node["what"] else []
    inner = depth + (1 if node["what"] else 0)
    items = [(s["n"], "step", s) for s in node["steps"]] + [(_first(c), "part", c) for c in node["children"]]
    for _, kind, x in sorted(items, key=lambda t: t[0]):
        if kind == "step":
            lines.append(f"{'  ' * inner}{x['n']:>2} {x['id']:<26} {x['tool']:<14} {x['description']}")
        else:
            lines.extend(tree_lines(x, inner))
    return lines


def _first(node: dict[str, Any]) -> int:
    return min([s["n"] for s in node["steps"]] + [_first(c) for c in node["children"]], default=0)
