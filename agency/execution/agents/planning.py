"""Workflow generators: steps built from the task when a run starts, then stored with the
run so a resume replays exactly them.

`craft_plan` turns `craft <item> <amount>` into one checkpointed tool step per stage:
gather the raw materials - after the tool a block needs to drop them (a wooden pickaxe
before stone: plan_builder) -, smelt the ones a furnace makes (iron ingots from iron ore, a
furnace first), then each intermediate craft, placing a crafting table when
a 3x3 recipe needs one, then the item itself. Every craft/gather step says how many the
inventory must hold *after* it (`ensure`), so re-running a step is a no-op.

In a fleet (task["facts"]["helpers"]: the other bots that deliver; "helpersHold": what they
hold), a craft short of one of its recipe's own ingredients or raw materials that a helper
holds asks for it first (request_delivery, bound to the helper holding it:
agency.planning.delivery), waits for it (await_delivery), then makes the item as if the
deliveries came; one that did not leaves a craft step short, and the executor plans the
task again from what is held: a team's items get to the bot that crafts. What no helper holds is not asked for: each bot
gets that itself, rather than wait while another gathers it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from agency.execution.agents.plan_builder import WorkflowPlanError, planned
from agency.execution.workflows.models import StepDef, WorkflowDef
from agency.game.fills import fill_source
from agency.game.recipes import CRAFTABLE, available, matches, recipe_for
from agency.tools.craft_planner import plan_craft

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
    absent = frozenset(task.get("absent") or ())  # blocks none of which was found: TaskSpec.absent
    helpers = list(facts.get("helpers") or [])
    if helpers and not task.get("ensure"):
        hold = facts.get("helpersHold") or {}
        asked = fleet_craft(
            agent_id, item, amount, inventory, helpers, hold, table_known, bool(facts.get("furnace")), absent
        )
        if asked is not None:
            return asked
    steps = planned(
        inventory,
        lambda plan: plan.craft(item, amount),
        table_known=table_known,
        furnace_known=bool(facts.get("furnace")),
        absent=absent,
    )
    return WorkflowDef(
        id=f"{agent_id}-craft-{item.replace('_', '-')}", description=f"craft {amount} {item}", steps=steps
    )


def fleet_craft(
    agent_id: str,
    item: str,
    amount: int,
    inventory: Mapping[str, int],
    helpers: list[str],
    helpers_hold: Mapping[str, int],
    table_known: bool = False,
    furnace_known: bool = False,
    absent: frozenset[str] = frozenset(),
) -> WorkflowDef | None:
    """Ask the helpers for the recipe's ingredients and raw materials the bot is short of and
    they hold, wait for them, then make the item (module docstring); None when none is asked for."""
    rec = recipe_for(item)
    if rec is None:
        return None
    crafts = math.ceil(amount / rec.makes)
    # The recipe's own ingredients first (a helper's iron ingots), then the raw materials
    # the plan would gather (a helper's logs for the planks); a word or group ('planks',
    # 'log', 'a|b') is asked for as the member a helper holds most of.
    wanted = [(ing, n * crafts - available(inventory, ing)) for ing, n in rec.ingredients]
    wanted += list(plan_craft(item, amount, inventory).missing.items())
    short: list[tuple[str, int]] = []
    for ing, n in wanted:
        held = sorted(((c, h) for h, c in helpers_hold.items() if c > 0 and matches(ing, h)), reverse=True)
        if n <= 0 or not held or any(h == held[0][1] for h, _ in short):
            continue
        short.append((held[0][1], min(n, held[0][0])))
    if not short:
        return None
    who = ", ".join(helpers)
    key = {ing: ing.replace("_", "-") for ing, _ in short}
    steps = [
        StepDef(
            id=f"ask-{key[ing]}",
            tool="request_delivery",
            description=f"ask {who} for {n} {ing}",
            args={"taskId": "${task.id}", "item": ing, "count": n},
            serves=f"craft {item}",
        )
        for ing, n in short
    ]
    steps += [
        StepDef(
            id=f"await-{key[ing]}",
            tool="await_delivery",
            description=f"wait to hold {available(inventory, ing) + n} {ing}",
            args={
                "item": ing,
                "total": available(inventory, ing) + n,
                "deliveryTaskId": f"${{steps.ask-{key[ing]}.deliveryTaskId}}",
            },
            serves=f"craft {item}",
        )
        for ing, n in short
    ]
    # The rest is planned as if the deliveries came; one that did not leaves its craft step
    # short, and the executor plans the task again from what is held (without asking again).
    assumed = dict(inventory)
    for ing, n in short:
        assumed[ing] = assumed.get(ing, 0) + n
    steps += planned(
        assumed,
        lambda plan: plan.craft(item, amount),
        table_known=table_known,
        furnace_known=furnace_known,
        absent=absent,
    )
    return WorkflowDef(
        id=f"{agent_id}-craft-{item.replace('_', '-')}",
        description=f"craft {amount} {item} with the fleet",
        steps=steps,
    )
