"""`gather_plan`: the gatherer's workflow for `collect|gather <block> <amount>` and `mine <block>`:
the tool first, then the work.

When the block drops nothing without a tool the inventory lacks (stone without a pickaxe,
iron ore without a stone one: agency.game.harvest), the crafter is asked for the cheapest
craftable one first (a delegate step, `craft <tool> 1` ensured: the crafter's plan makes
the tools that tool needs in turn, at a table it was told of). Then collect_block steps,
each ensuring a running total of the block's drop: one, unless the order is more than one
call gathers or than the tools held last (plan_builder counts their uses: the crafter is
asked for the next tool where the last breaks); or, for `mine`, one mine_block of the
nearest such block. Then a look at the inventory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agency.execution.agents.plan_builder import PlanBuilder, WorkflowPlanError, tool_to_make
from agency.execution.workflows.models import WorkflowDef
from agency.game.harvest import can_harvest
from agency.game.loot import chance_drop
from agency.tools.gathering import MAX_PER_CALL, drop_of

CRAFTER = "crafter"


class _AskCrafter(PlanBuilder):
    """A PlanBuilder whose tools come from the crafter: the gatherer crafts nothing itself."""

    batch = MAX_PER_CALL  # one collect per tool worn out: the order is the gatherer's own task

    def ensure_tool(self, block: str) -> None:
        if can_harvest(self.sim, block):
            return
        tool = tool_to_make(block)
        self.add(
            "get-tool",
            kind="delegate",
            agent=CRAFTER,
            description=f"a {tool} to dig {block} with",
            task={"action": "craft", "target": tool, "amount": 1, "ensure": True},
        )
        self.sim[tool] = self.sim.get(tool, 0) + 1


def gather_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    action = str(task.get("action") or "collect").lower()
    block = str(task.get("target") or "")
    amount = int(task.get("amount") or 1)
    if not block:
        raise WorkflowPlanError("NO_TARGET", f"{action} needs a block")
    plan = _AskCrafter(inventory)
    if action == "mine":
        plan.ensure_tool(block)
        plan.add("dig", tool="mine_block", description=f"dig the nearest {block}", args={"block": block})
    elif chance_drop(block) is not None:  # flint: its block (gravel) dug until enough drop
        plan.gather(block, amount, step_id="collect")
    else:
        plan.gather(drop_of(block), amount, step_id="collect", block=block)
    plan.add("check", tool="inventory")
    return WorkflowDef(id=f"{agent_id}-{action}", description=f"{action} {block}", steps=plan.steps)
