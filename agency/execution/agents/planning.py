"""Workflow generators: steps built from the task when a run starts, then stored with the
run so a resume replays exactly them.

`craft_plan` turns `craft <item> <amount>` into one checkpointed tool step per stage:
gather the raw materials, then each intermediate craft, placing a crafting table when a
3x3 recipe needs one, then the item itself. Every craft/gather step says how many the
inventory must hold *after* it (`ensure`), so re-running a step is a no-op.
"""

from __future__ import annotations

from typing import Any, Mapping

from agency.execution.tools.recipes import CRAFTABLE, available, matches, plan_craft, recipe_for
from agency.execution.workflows.models import StepDef, WorkflowDef
from agency.errors import AgencyError

GATHER_BATCH = 6  # per collect step: a big order (a shelter's 18 logs) is several checkpointed steps,
# each well inside collect_block's time limit, so a stop loses at most one batch
GENERICS = ("log", "planks", "coal")  # words recipes use for any kind of a thing
# Raw material -> the block that yields it.
SOURCE_BLOCK = {"log": "log", "oak_log": "oak_log", "cobblestone": "stone", "coal": "coal_ore"}


class WorkflowPlanError(AgencyError, ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def craft_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    item = str(task.get("target") or "")
    amount = int(task.get("amount") or 1)
    if item not in CRAFTABLE:
        raise WorkflowPlanError("NO_RECIPE", f"no recipe known for '{item}' (known: {', '.join(sorted(CRAFTABLE))})")
    # A table the planner was told of (nearby, or remembered and found standing:
    # crafting.table_facts) is used by the craft step itself: no new table is planned.
    table_known = bool((task.get("facts") or {}).get("craftingTable"))
    if task.get("ensure"):  # hold `amount` in all: make only what is missing
        amount -= available(inventory, item)
        if amount <= 0:
            return WorkflowDef(id=f"{agent_id}-craft-{item.replace('_', '-')}", description=f"{item}: enough held",
                               steps=[StepDef(id="held", tool="inventory", description=f"already hold {task.get('amount')} {item}")])
    plan = plan_craft(item, amount, inventory, table_nearby=table_known)
    sim: dict[str, int] = dict(inventory)
    steps: list[StepDef] = []
    for raw, short in sorted(plan.missing.items(), key=_specific_first):
        if raw not in SOURCE_BLOCK:
            raise WorkflowPlanError("NO_SOURCE", f"'{raw}' is needed for {item} and the bot cannot gather it yet")
        held = available(sim, raw)
        for batch, got in enumerate(range(GATHER_BATCH, short + GATHER_BATCH, GATHER_BATCH), start=1):
            total = held + min(got, short)
            steps.append(StepDef(id=f"gather-{raw}" + (f"-{batch}" if batch > 1 else ""), tool="collect_block",
                                 description=f"have {total} {raw}", args={"block": SOURCE_BLOCK[raw], "count": total, "ensure": True}))
        sim[raw] = sim.get(raw, 0) + short
    for st in plan.steps:
        if st.place_table:
            steps.append(StepDef(id="place-crafting-table", tool="place_block", description="place a crafting table",
                                 args={"block": "crafting_table"}))
            _take(sim, "crafting_table", 1)
            continue
        total = available(sim, st.item) + st.makes
        steps.append(StepDef(id=f"craft-{st.item.replace('_', '-')}", tool="craft", description=f"have {total} {st.item}",
                             args={"item": st.item, "count": total, "ensure": True}))
        rec = recipe_for(st.item)
        assert rec is not None
        for ing, n in rec.ingredients:
            _take(sim, ing, n * st.crafts)
        sim[st.item] = sim.get(st.item, 0) + st.makes
    return WorkflowDef(id=f"{agent_id}-craft-{item.replace('_', '-')}", description=f"craft {amount} {item}", steps=steps)


def _specific_first(item: tuple[str, int]) -> tuple[bool, str]:
    """oak_log before log: a gather step ensures a total, and oak logs count as logs too, so
    the generic step's total must include the specific ones gathered before it (else an
    empty inventory gathers 2 logs for a door that needs 3)."""
    raw = item[0]
    return (not any(g != raw and matches(g, raw) for g in GENERICS), raw)


def _take(sim: dict[str, int], generic: str, qty: int) -> None:
    for name in sorted((k for k in sim if matches(generic, k)), key=lambda k: -sim[k]):
        used = min(qty, sim[name])
        sim[name] -= used
        qty -= used
        if not qty:
            return

