"""`deliver_plan`: a helper bot's workflow for `deliver <item> <amount>` (to the bot named in
the task's `to`): have the items - crafted with the crafter's steps when there is a recipe,
collected otherwise, after the tool their block needs (plan_builder) -, then walk back to
where the bot that asked was (facts["near"], from the task's parameters) and up to it, and
hand them over. The have-steps say how many the inventory must hold after them, counting
what is already held, so items the helper happened to carry are given first and a resumed
run gathers nothing twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agency.execution.agents.plan_builder import PlanBuilder, WorkflowPlanError
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.sources import SOURCE_BLOCK
from agency.execution.workflows.models import StepDef, WorkflowDef
from agency.game.recipes import CRAFTABLE


def deliver_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    item = str(task.get("target") or "")
    amount = int(task.get("amount") or 1)
    to = str(task.get("to") or "")
    if not item or not to:
        raise WorkflowPlanError("NO_TARGET", "deliver needs an item and the bot to deliver to (parameters.to)")
    short = amount - int(inventory.get(item, 0))
    steps: list[StepDef] = []
    if short > 0 and item in CRAFTABLE:
        steps += craft_plan(
            agent_id, {"target": item, "amount": short, "facts": task.get("facts") or {}}, inventory
        ).steps
    elif short > 0:  # a raw material: dug from its block (cobblestone from stone), else from a block of its name
        plan = PlanBuilder(inventory, table_known=bool((task.get("facts") or {}).get("craftingTable")))
        plan.gather(item, short, step_id="collect", block=SOURCE_BLOCK.get(item, item))
        steps += plan.steps
    near = (task.get("facts") or {}).get("near")
    if near:  # where the bot that asked was: out of sight from where the items were got, perhaps
        steps.append(
            StepDef(
                id="go-near",
                tool="move_to",
                description=f"walk back towards {to}",
                args={"x": near[0], "y": near[1], "z": near[2], "range": 6},
            )
        )
    steps.append(
        StepDef(
            id="give",
            tool="give",
            description=f"hand {amount} {item} to {to}",
            args={"player": to, "item": item, "count": amount},
        )
    )
    return WorkflowDef(
        id=f"{agent_id}-deliver-{item.replace('_', '-')}", description=f"deliver {amount} {item} to {to}", steps=steps
    )
