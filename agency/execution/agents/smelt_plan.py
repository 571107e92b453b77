"""Workflow generator for `smelt <item> [count]`: the target is the product (iron_ingot, stone,
cooked_beef, charcoal) or a raw input that is no product itself (raw_iron, beef).

Steps, each checkpointed: gather what the bot can gather and lacks (cobblestone from stone
for `smelt stone`, logs for charcoal, logs as fuel when it holds none that covers the count),
then one `smelt` step that ensures the total wanted in the inventory. That step uses a
furnace in sight, or places one from the inventory, or crafts one (8 cobblestone, a table
placed when none is near) through the craft tool's plan. An input the bot cannot gather
yet (raw_iron, beef) must be held: the plan refuses with NO_SOURCE otherwise.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from agency.execution.agents.planning import GATHER_BATCH, SOURCE_BLOCK, WorkflowPlanError
from agency.execution.tools.furnace_recipes import (
    FUEL_TICKS,
    SMELTING,
    choose_fuel,
    held_inputs,
    input_choice,
    inputs_for,
    output_of,
)
from agency.execution.tools.recipes import available
from agency.execution.workflows.models import StepDef, WorkflowDef

FUEL_LOG = "log"  # what to gather as fuel when none is held: any log burns 300 ticks


def smelt_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    target = str(task.get("target") or "").lower()
    amount = int(task.get("amount") or 1)
    output = output_of(target)
    if output is None:
        raise WorkflowPlanError("NO_RECIPE", f"nothing smelts into or from '{target}' (products: {', '.join(sorted(SMELTING))})")
    sim: dict[str, int] = dict(inventory)
    steps: list[StepDef] = []
    # The input: held, or gathered when a source block is known (cobblestone from stone, logs).
    _, have = input_choice(sim, output)
    short = amount - have
    if short > 0:
        source = next((i for i in inputs_for(output) if i in SOURCE_BLOCK), None)
        if source is None:
            raise WorkflowPlanError("NO_SOURCE", f"{amount} {output} needs {short} more "
                                    f"{' or '.join(inputs_for(output))} and the bot cannot gather it yet")
        total = available(sim, source) + short
        steps += _gather(source, available(sim, source), total, "input")
        sim[source] = sim.get(source, 0) + short
    # The fuel: what the inventory holds besides the input, else logs gathered for it.
    fuel = choose_fuel(sim, amount, reserve=_reserve(held_inputs(sim, output), amount))
    if not fuel.enough:
        logs = math.ceil(fuel.short_ticks / FUEL_TICKS["log"])
        held_logs = available(sim, FUEL_LOG)
        steps += _gather(FUEL_LOG, held_logs, held_logs + logs, "fuel")
        sim[FUEL_LOG] = sim.get(FUEL_LOG, 0) + logs
    total = sim.get(output, 0) + amount
    steps.append(StepDef(id=f"smelt-{output.replace('_', '-')}", tool="smelt", description=f"have {total} {output}",
                         args={"item": output, "count": total, "ensure": True, "craft_furnace": True}))
    return WorkflowDef(id=f"{agent_id}-smelt-{output.replace('_', '-')}", description=f"smelt {amount} {output}",
                       steps=steps)


def _gather(raw: str, held: int, total: int, why: str) -> list[StepDef]:
    """collect_block steps in batches, each ensuring a running total of `raw` held."""
    out = []
    for batch, upto in enumerate(range(held + GATHER_BATCH, total + GATHER_BATCH, GATHER_BATCH), start=1):
        out.append(StepDef(id=f"gather-{raw}-{why}" + (f"-{batch}" if batch > 1 else ""), tool="collect_block",
                           description=f"have {min(upto, total)} {raw} ({why})",
                           args={"block": SOURCE_BLOCK[raw], "count": min(upto, total), "ensure": True}))
    return out


def _reserve(inputs: Mapping[str, int], amount: int) -> dict[str, int]:
    """The held inputs the smelting uses (most held first), so they are not counted as fuel."""
    out: dict[str, int] = {}
    for name in sorted(inputs, key=lambda n: (-inputs[n], n)):
        if amount <= 0:
            break
        out[name] = min(amount, inputs[name])
        amount -= out[name]
    return out
