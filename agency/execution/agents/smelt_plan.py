"""Workflow generator for `smelt <item> [count]`: the target is the product (iron_ingot, stone,
cooked_beef, charcoal) or a raw input that is no product itself (raw_iron, beef).

Steps, each checkpointed (built by plan_builder, the tool before the work): the tool the
input's block needs (a stone pickaxe before iron ore), a furnace crafted when none is held
and the planner was told of none usable (facts["furnace"], as smelting.smelt_facts finds
one: in sight, or remembered and standing) - 8 cobblestone, so a wooden pickaxe first -,
then the input the bot can gather and lacks (cobblestone from stone, raw iron from iron
ore, logs for charcoal), logs as fuel when it holds none that covers the count, then one
`smelt` step that ensures the total wanted in the inventory. That step uses a furnace in
sight, or places the one held, or (a furnace gone since) crafts one. An input the bot cannot
gather yet (raw_gold, beef) must be held: the plan refuses with NO_SOURCE otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from agency.execution.agents.plan_builder import SOURCE_BLOCK, PlanBuilder, WorkflowPlanError
from agency.execution.workflows.models import WorkflowDef
from agency.game.furnace import FUEL_TICKS, SMELTING, held_inputs, inputs_for, output_of
from agency.tools.smelt_planner import choose_fuel, input_choice

FUEL_LOG = "log"  # what to gather as fuel when none is held: any log burns 300 ticks
FURNACE = "furnace"


def smelt_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    target = str(task.get("target") or "").lower()
    amount = int(task.get("amount") or 1)
    output = output_of(target)
    if output is None:
        raise WorkflowPlanError(
            "NO_RECIPE", f"nothing smelts into or from '{target}' (products: {', '.join(sorted(SMELTING))})"
        )
    facts = task.get("facts") or {}
    plan = PlanBuilder(inventory, table_known=bool(facts.get("craftingTable")))
    # The input: held, or gathered when a source block is known (cobblestone from stone, logs).
    kind, have = input_choice(plan.sim, output)
    short = amount - have
    source = None
    if short > 0:
        source = next((i for i in inputs_for(output) if i in SOURCE_BLOCK), None)
        if source is None:
            raise WorkflowPlanError(
                "NO_SOURCE",
                f"{amount} {output} needs {short} more "
                f"{' or '.join(inputs_for(output))} and the bot cannot gather it yet",
            )
    with plan.reserved({kind: min(have, amount)} if kind else {}):  # neither is made of the input held
        if source is not None:
            plan.ensure_tool(SOURCE_BLOCK[source])  # at the table, before walking off to the ore
        if plan.sim.get(FURNACE, 0) < 1 and not facts.get(FURNACE):
            plan.craft(FURNACE, 1)
    if source is not None:
        plan.gather(source, short, step_id=f"gather-{source}-input", note="input")
    # The fuel: what the inventory holds besides the input, else logs gathered for it.
    fuel = choose_fuel(plan.sim, amount, reserve=_reserve(held_inputs(plan.sim, output), amount))
    if not fuel.enough:
        plan.gather(
            FUEL_LOG, math.ceil(fuel.short_ticks / FUEL_TICKS["log"]), step_id=f"gather-{FUEL_LOG}-fuel", note="fuel"
        )
    total = plan.sim.get(output, 0) + amount
    plan.add(
        f"smelt-{output.replace('_', '-')}",
        tool="smelt",
        description=f"have {total} {output}",
        args={"item": output, "count": total, "ensure": True, "craft_furnace": True},
    )
    return WorkflowDef(
        id=f"{agent_id}-smelt-{output.replace('_', '-')}", description=f"smelt {amount} {output}", steps=plan.steps
    )


def _reserve(inputs: Mapping[str, int], amount: int) -> dict[str, int]:
    """The held inputs the smelting uses (most held first), so they are not counted as fuel."""
    out: dict[str, int] = {}
    for name in sorted(inputs, key=lambda n: (-inputs[n], n)):
        if amount <= 0:
            break
        out[name] = min(amount, inputs[name])
        amount -= out[name]
    return out
