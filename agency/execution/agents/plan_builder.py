"""The steps of a generated workflow, built in order over a simulated inventory: the tool
before the work.

Every generator that gathers or crafts (craft_plan, smelt_plan, deliver_plan) appends its
steps through a PlanBuilder. A gather step whose block drops nothing without a tool the
simulated inventory lacks (stone without a pickaxe, iron ore without a stone one:
agency.game.harvest) is preceded by the steps that make the cheapest such tool, planned with
the same recipe planner, so a plan never starts a step whose preconditions it has not met.
Tools wear out (agency.execution.agents.plan_tools). Each craft/gather step ensures a total
held *after* it, computed from the simulation at that point, so re-running a step is a no-op.
The first gather of an ore that lies underground comes after a seek_ore step
(agency.execution.agents.plan_gathering).

PlanBuilder is built in layers, each the base of the next: plan_steps (the steps and the
simulated inventory), plan_tools (tools and their wear), plan_gathering (gather, seek_ore,
hunt, fill), plan_smelting (smelt); this module adds the crafts.

Logs come from the surface: a plan that would gather them after its first descent (the
sticks of an iron pickaxe, the fuel of its smelt) takes them down instead. `planned` builds
the plan once to count them, then again with that stock gathered just before the descent,
the logs a later craft needs kept out of the furnaces (the smelt step's `keep`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set as AbstractSet

from agency.execution.agents.plan_gathering import FUEL_LOG
from agency.execution.agents.plan_smelting import SmeltSteps
from agency.execution.agents.plan_steps import WorkflowPlanError
from agency.execution.agents.plan_tools import tool_to_make
from agency.execution.agents.sources import (
    SOURCE_BLOCK,
    gatherable,
    huntable,
    made_instead,
    smeltable,
    source_block,
)
from agency.execution.workflows.models import StepDef
from agency.game.fills import fill_source
from agency.game.harvest import can_harvest
from agency.game.ores import ore_level
from agency.game.recipes import any_planks, matches, recipe_for, spoken
from agency.tools.craft_planner import plan_craft, taking_order

# WorkflowPlanError, tool_to_make: where callers have always imported them from
__all__ = ["PlanBuilder", "WorkflowPlanError", "planned", "tool_to_make"]

STOCK_ROUNDS = 4  # builds of a plan at most, each taking down the logs the one before gathered below
GENERICS = ("log", "planks", "coal")  # words recipes use for any kind of a thing


class PlanBuilder(SmeltSteps):
    """A plan's steps (module docstring): the crafts, over the layers' tools, gathers and smelts."""

    def craft(self, item: str, amount: int) -> None:
        """Gather the raw materials (their tools first), then each intermediate craft, placing
        a crafting table when a 3x3 recipe needs one and none is known, then the item. A
        filled bucket (no recipe) is an empty one crafted and filled."""
        filled = fill_source(item) is not None
        with self.serving(f"{'fill' if filled else 'craft'} {item}"):
            if filled:
                self.fill(item, amount)
            else:
                self._craft(item, amount)

    def _craft(self, item: str, amount: int) -> None:
        # Bounded: a round gets one more tool, or gathers; what a tool remade mid-gather took of
        # what the plan meant for `item` (planks, sticks) is a few logs, gathered by hand.
        for _ in range(2 * len(SOURCE_BLOCK) + 2):
            plan = plan_craft(item, amount, self.sim, table_nearby=self.table)  # its keep: planks_by_name
            raws = sorted(plan.missing.items(), key=_surface_first)
            if not raws:
                break
            sources: dict[str, str] = {}
            smelts = []
            hunts = []
            fills = []
            for raw, short in raws:
                got = gatherable(raw)
                instead = made_instead(raw, self.absent)
                if instead is not None:  # charcoal for coal none of which was found
                    smelts.append((instead, short))
                elif got is not None:
                    sources[raw] = str(source_block(got))
                elif smeltable(raw):
                    smelts.append((raw, short))
                elif huntable(raw) is not None:
                    hunts.append((str(huntable(raw)), short))
                elif fill_source(raw) is not None:
                    fills.append((raw, short))
                else:
                    raise WorkflowPlanError(
                        "NO_SOURCE", f"'{spoken(raw)}' is needed for {item} and the bot cannot gather it yet"
                    )
            if smelts or hunts or fills:
                for raw, short in smelts:  # its tools, a furnace, the input and the fuel
                    self.smelt(raw, short)
                for drop, short in hunts:
                    self.hunt(drop, short)
                for raw, short in fills:
                    self.fill(raw, short)
                continue  # plan again from what the smelting used and the hunting got
            blocked = next((b for b in sources.values() if not can_harvest(self.sim, b)), None)
            if blocked is not None:
                # The tool first, then plan again: its leftovers (sticks, planks, the table) count.
                self.ensure_tool(blocked)
                continue
            start = len(self.steps)
            for raw, short in raws:
                self.gather(raw, short)
            if all(s.tool == "collect_block" for s in self.steps[start:]):
                break  # only the raws came: the plan stands
            # A tool worn out meanwhile was remade, perhaps of what the plan meant for `item`: plan again.
        else:
            raise AssertionError(f"no plan for {item} gets its materials")
        # One wood's planks a step needs by name (a birch door's) are left alone by the steps
        # of any planks (its sticks, the table): the craft action's `keep`.
        kept = plan.keep
        for st in plan.steps:
            if st.place_table:
                self.add(
                    "place-crafting-table",
                    tool="place_block",
                    description="place a crafting table",
                    args={"block": "crafting_table"},
                )
                _take(self.sim, "crafting_table", 1)
                self.table = True
                continue
            total = self.held(st.item) + st.makes
            keep = {"keep": kept} if kept and any_planks(st.item) else {}
            self.add(
                f"craft-{st.item.replace('_', '-')}",
                tool="craft",
                description=f"have {total} {st.item}",
                args={"item": st.item, "count": total, "ensure": True, **keep},
            )
            rec = recipe_for(st.item)
            assert rec is not None
            # as the craft plan took them: oak planks of the gathered logs of any wood ('log')
            for ing, n in st.ingredients or rec.ingredients:
                _take(self.sim, ing, n * st.crafts, frozenset(kept))
                if matches(FUEL_LOG, ing):  # a kept log used as it was kept for
                    self.unburnt = max(0, self.unburnt - n * st.crafts)
            self.sim[st.item] = self.sim.get(st.item, 0) + st.makes


def planned(
    inventory: Mapping[str, int],
    make: Callable[[PlanBuilder], None],
    *,
    table_known: bool = False,
    furnace_known: bool = False,
    absent: AbstractSet[str] = frozenset(),
) -> list[StepDef]:
    """The steps `make` adds to a PlanBuilder over `inventory`; built again with more logs
    taken down at the first descent while a build still gathers some below (module
    docstring). Logs are alike, so a stock can go to another use than the one it was
    counted for (a held oak log burnt where a kept one was meant): a few rounds settle it."""
    kept = fuel = 0
    for _ in range(STOCK_ROUNDS):
        plan = PlanBuilder(
            inventory, table_known=table_known, furnace_known=furnace_known, stock=(kept, fuel), absent=absent
        )
        make(plan)
        if not plan.logs_below:
            break
        kept += sum(n for n, as_fuel in plan.logs_below if not as_fuel)
        fuel += sum(n for n, as_fuel in plan.logs_below if as_fuel)
    return plan.steps


def _surface_first(item: tuple[str, int]) -> tuple[bool, bool, str]:
    """What grows or lies on the surface before what is dug down for (logs before deepslate:
    no climb back up), each group _specific_first."""
    block = source_block(gatherable(item[0]) or item[0])
    return (block is not None and ore_level(block) is not None, *_specific_first(item))


def _specific_first(item: tuple[str, int]) -> tuple[bool, str]:
    """oak_log before log: a gather step ensures a total, and oak logs count as logs too, so
    the generic step's total must include the specific ones gathered before it (else an
    empty inventory gathers 2 logs for a door that needs 3)."""
    raw = item[0]
    return (not any(g != raw and matches(g, raw) for g in GENERICS), raw)


def _take(sim: dict[str, int], generic: str, qty: int, keep: AbstractSet[str] = frozenset()) -> None:
    for name in taking_order(sim, generic, keep):
        used = min(qty, sim[name])
        sim[name] -= used
        qty -= used
        if not qty:
            return
