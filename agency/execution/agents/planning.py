"""Workflow generators: steps built from the task when a run starts, then stored with the
run so a resume replays exactly them.

`craft_plan` turns `craft <item> <amount>` into one checkpointed tool step per stage:
gather the raw materials - after the tool a block needs to drop them (a wooden pickaxe
before stone: plan_builder) -, smelt the ones a furnace makes (iron ingots from iron ore, a
furnace first), then each intermediate craft, placing a crafting table when
a 3x3 recipe needs one, then the item itself. Every craft/gather step says how many the
inventory must hold *after* it (`ensure`), so re-running a step is a no-op.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agency.execution.agents.plan_builder import PlanBuilder, WorkflowPlanError
from agency.execution.workflows.models import StepDef, WorkflowDef
from agency.game.fills import fill_source
from agency.game.recipes import CRAFTABLE, available

__all__ = ["WorkflowPlanError", "craft_plan"]  # WorkflowPlanError: where callers have always imported it from


def craft_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    item = str(task.get("target") or "")
    amount = int(task.get("amount") or 1)
    if item not in CRAFTABLE and fill_source(item) is None:
        raise WorkflowPlanError("NO_RECIPE", f"no recipe known for '{item}' (minecraft-data has none)")
    # A table the planner was told of (nearby, or remembered and found standing:
    # crafting.table_facts) is used by the craft step itself: no new table is planned.
    facts = task.get("facts") or {}
    table_known = bool(facts.get("craftingTable"))
    if task.get("ensure"):  # hold `amount` in all: make only what is missing
        amount -= available(inventory, item)
        if amount <= 0:
            return WorkflowDef(
                id=f"{agent_id}-craft-{item.replace('_', '-')}",
                description=f"{item}: enough held",
                steps=[StepDef(id="held", tool="inventory", description=f"already hold {task.get('amount')} {item}")],
            )
    plan = PlanBuilder(inventory, table_known=table_known, furnace_known=bool(facts.get("furnace")))
    plan.craft(item, amount)
    return WorkflowDef(
        id=f"{agent_id}-craft-{item.replace('_', '-')}", description=f"craft {amount} {item}", steps=plan.steps
    )
