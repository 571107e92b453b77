"""`gather_plan`: the gatherer's workflow for `collect|gather <block> <amount>` and `mine <block>`:
the tool first, then the work.

When the block drops nothing without a tool the inventory lacks (stone without a pickaxe,
iron ore without a stone one: agency.harvest), the crafter is asked for the cheapest
craftable one first (a delegate step, `craft <tool> 1` ensured: the crafter's plan makes
the tools that tool needs in turn, at a table it was told of). Then one collect_block step
(`amount` more of the block's drop) or, for `mine`, one mine_block of the nearest such
block, and a look at the inventory.
"""

from __future__ import annotations

from typing import Any, Mapping

from agency.execution.agents.plan_builder import WorkflowPlanError, tool_to_make
from agency.execution.workflows.models import StepDef, WorkflowDef
from agency.harvest import can_harvest

CRAFTER = "crafter"


def tool_step(block: str, inventory: Mapping[str, int]) -> StepDef | None:
    """The delegate step that gets a tool harvesting `block`, None when one is held or none is needed."""
    if can_harvest(inventory, block):
        return None
    tool = tool_to_make(block)
    return StepDef(id="get-tool", kind="delegate", agent=CRAFTER, description=f"a {tool} to dig {block} with",
                   task={"action": "craft", "target": tool, "amount": 1, "ensure": True})


def gather_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    action = str(task.get("action") or "collect").lower()
    block = str(task.get("target") or "")
    amount = int(task.get("amount") or 1)
    if not block:
        raise WorkflowPlanError("NO_TARGET", f"{action} needs a block")
    first = tool_step(block, inventory)
    steps = [first] if first else []
    if action == "mine":
        steps.append(StepDef(id="dig", tool="mine_block", description=f"dig the nearest {block}", args={"block": block}))
    else:
        steps.append(StepDef(id="collect", tool="collect_block", description=f"{amount} more of what {block} drops",
                             args={"block": block, "count": amount}))
    steps.append(StepDef(id="check", tool="inventory"))
    return WorkflowDef(id=f"{agent_id}-{action}", description=f"{action} {block}", steps=steps)
