"""Workflow generator for `smelt <item> [count]`: the target is the product (iron_ingot, stone,
cooked_beef, charcoal) or a raw input that is no product itself (raw_iron, beef).

Steps, each checkpointed (built by plan_builder's `smelt`, the tool before the work, which a
craft plan also uses for a missing ingot): the tool the
input's block needs (a stone pickaxe before iron ore), a furnace crafted when none is held
and the planner was told of none usable (facts["furnace"], as smelting.smelt_facts finds
one: in sight, or remembered and standing) - 8 cobblestone, so a wooden pickaxe first -,
then the input the bot can gather and lacks (cobblestone from stone, raw iron from iron
ore, logs for charcoal), logs as fuel when it holds none that covers the count, then one
`smelt` step that ensures the total wanted in the inventory. That step uses a furnace in
sight, or places the one held, or (a furnace gone since) crafts one. An input the bot cannot
gather yet (raw_gold, beef) must be held: the plan refuses with NO_SOURCE otherwise.
`settle` (a drive tick's food stock whose hunt found no more animals: agency.execution.replans):
as many as the input held makes, when some is held.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agency.execution.agents.plan_builder import WorkflowPlanError, planned
from agency.execution.workflows.models import WorkflowDef
from agency.game.furnace import SMELTING, held_inputs, output_of


def smelt_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    target = str(task.get("target") or "").lower()
    amount = int(task.get("amount") or 1)
    output = output_of(target)
    if output is None:
        raise WorkflowPlanError(
            "NO_RECIPE", f"nothing smelts into or from '{target}' (products: {', '.join(sorted(SMELTING))})"
        )
    facts = task.get("facts") or {}
    held_input = sum(held_inputs(inventory, output).values())
    if task.get("settle") and 0 < held_input < amount:
        amount = held_input
    steps = planned(
        inventory,
        lambda plan: plan.smelt(output, amount),
        table_known=bool(facts.get("craftingTable")),
        furnace_known=bool(facts.get("furnace")),
    )
    return WorkflowDef(
        id=f"{agent_id}-smelt-{output.replace('_', '-')}", description=f"smelt {amount} {output}", steps=steps
    )
