"""The steps of a generated workflow, built in order over a simulated inventory: the tool
before the work.

Every generator that gathers or crafts (craft_plan, smelt_plan, deliver_plan) appends its
steps through a PlanBuilder. A gather step whose block drops nothing without a tool the
simulated inventory lacks (stone without a pickaxe, iron ore without a stone one:
agency.game.harvest) is preceded by the steps that make the cheapest such tool, planned with
the same recipe planner, so a plan never starts a step whose preconditions it has not met.
Tools wear out: each block dug costs the tool the bot digs it with one use (the fastest held
that harvests it), so a batch stops where the last tool breaks and a new one is made before
the next. Tools held at the start count as new: the inventory says nothing of their wear.
Each craft/gather step ensures a total held *after* it, computed from the simulation at
that point, so re-running a step is a no-op. The first gather of an ore that lies
underground comes after a seek_ore step (staircases down to its level unless one is in
sight: agency.tools.mining).

Logs come from the surface: a plan that would gather them after its first descent (the
sticks of an iron pickaxe, the fuel of its smelt) takes them down instead. `planned` builds
the plan once to count them, then again with that stock gathered just before the descent,
the logs a later craft needs kept out of the furnaces (the smelt step's `keep`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Set as AbstractSet
from contextlib import contextmanager
from functools import cache
from typing import Any

from agency.errors import AgencyError
from agency.execution.agents.sources import (
    SOURCE_BLOCK,
    gatherable,
    huntable,
    made_input,
    obtainable,
    smeltable,
    source_block,
)
from agency.execution.workflows.models import StepDef
from agency.game import mcdata
from agency.game.animals import animal_for
from agency.game.fills import EMPTY, fill_source
from agency.game.furnace import FUEL_TICKS, held_inputs, inputs_for
from agency.game.harvest import (
    can_harvest,
    durability,
    harvest_tools,
    needs_tool,
    ranked_tools,
    unless_dug_with,
    wear_order,
)
from agency.game.loot import chance_drop
from agency.game.ores import ore_level
from agency.game.recipes import CRAFTABLE, any_planks, available, matches, recipe_for, spoken
from agency.tools.craft_planner import plan_craft, taking_order
from agency.tools.hunting import MAX_HUNT
from agency.tools.smelt_planner import choose_fuel, fuel_reserve, input_choice

FURNACE = "furnace"
FUEL_LOG = "log"  # what to gather as fuel when none is held: any log burns 300 ticks
HUNT_EXPLORES = 2  # explores a plan's hunt makes when no animal is in sight
GATHER_BATCH = 6  # per collect step: a big order (a shelter's 18 logs) is several checkpointed steps,
# each well inside collect_block's time limit, so a stop loses at most one batch
STOCK_ROUNDS = 4  # builds of a plan at most, each taking down the logs the one before gathered below
GENERICS = ("log", "planks", "coal")  # words recipes use for any kind of a thing


def _makeable(tool: str) -> bool:
    return _makeable_at(tool, mcdata.current_version())


@cache
def _makeable_at(tool: str, version: str) -> bool:
    return tool in CRAFTABLE and all(obtainable(raw) for raw in plan_craft(tool, 1, {}).missing)


class WorkflowPlanError(AgencyError, ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def tool_to_make(block: str) -> str:
    """The cheapest tool that harvests `block` and that the bot can make from nothing: a
    recipe whose raw materials it can gather (NO_TOOL when there is none: a diamond
    pickaxe has a recipe, and no diamond source yet)."""
    tool = next((t for t in ranked_tools(block) if _makeable(t)), None)
    if tool is None:
        raise WorkflowPlanError("NO_TOOL", f"{unless_dug_with(block)}, and the bot cannot craft one yet")
    return tool


class PlanBuilder:
    batch = GATHER_BATCH  # the most one collect step gathers

    def __init__(
        self,
        inventory: Mapping[str, int],
        *,
        table_known: bool = False,
        furnace_known: bool = False,
        stock: tuple[int, int] = (0, 0),
    ) -> None:
        self.sim: dict[str, int] = dict(inventory)
        self.table = table_known  # a crafting table the craft steps can use (told of, or placed by this plan)
        self.furnace = furnace_known  # a furnace the smelt steps can use (told of, or placed by this plan)
        self.steps: list[StepDef] = []
        self.kept: dict[str, int] = {}  # held but out of the planner's reach (reserved), still counted in totals
        self._making: set[str] = set()  # tools being planned: a tool that needs itself is refused
        self.worn: dict[str, int] = {}  # tool -> uses spent on the held copy being worn out
        self._for: list[str] = []  # what the steps being added serve, outermost first (StepDef.serves)
        self.stock = stock  # logs to take down at the first descent: (for crafts, as fuel) (planned)
        self.unburnt = 0  # logs held that the smelts must not burn: a later craft needs them
        self.logs_below: list[tuple[int, bool]] = []  # log batches gathered after a descent: (count, as fuel)

    def add(self, step_id: str, **fields: Any) -> StepDef:
        """Append a step; an id already taken gets -2, -3... (batches, a second round of planks)."""
        taken = {s.id for s in self.steps}
        sid, n = step_id, 2
        while sid in taken:
            sid, n = f"{step_id}-{n}", n + 1
        step = StepDef(id=sid, serves=" > ".join(self._for), **fields)
        self.steps.append(step)
        return step

    @contextmanager
    def serving(self, what: str) -> Iterator[None]:
        """The steps added inside serve `what` (the plan's tree: agency.goals.obtain_plan)."""
        self._for.append(what)
        try:
            yield
        finally:
            self._for.pop()

    def held(self, generic: str) -> int:
        """What the inventory holds at this point of the plan (reserved items included): the
        totals the steps ensure."""
        return available(self.sim, generic) + available(self.kept, generic)

    @contextmanager
    def reserved(self, keep: Mapping[str, int]) -> Iterator[None]:
        """Plan inside this block without using `keep` (the input a smelt needs, while the
        furnace is planned): it is neither crafted with nor counted as there to use."""
        moved = {k: min(n, self.sim.get(k, 0)) for k, n in keep.items()}
        for k, n in moved.items():
            self.sim[k] -= n
            self.kept[k] = self.kept.get(k, 0) + n
        try:
            yield
        finally:
            for k, n in moved.items():
                self.kept[k] -= n
                self.sim[k] = self.sim.get(k, 0) + n

    # ---- tools --------------------------------------------------------------------------
    def ensure_tool(self, block: str) -> None:
        """Make the cheapest craftable tool that harvests `block` when none is held."""
        if can_harvest(self.sim, block):
            return
        tool = tool_to_make(block)
        if tool in self._making:
            raise WorkflowPlanError("NO_TOOL", f"making a {tool} needs a {tool} first")
        self._making.add(tool)
        try:
            with self.serving(f"a tool for {block}"):
                self.craft(tool, 1)
        finally:
            self._making.discard(tool)
        assert can_harvest(self.sim, block), f"{tool} was planned and {block} is still not harvestable"

    def uses_left(self, block: str) -> int:
        """How many `block` the held tools dig before the last breaks."""
        return sum(
            self.sim[t] * durability(t) - self.worn.get(t, 0) for t in harvest_tools(block) if self.sim.get(t, 0) > 0
        )

    def _wear(self, block: str, digs: int) -> None:
        """Spend `digs` uses on the tools the bot digs `block` with, fastest first; a tool
        broken leaves the inventory."""
        if not needs_tool(block):
            return
        for tool in wear_order(block):
            while digs and self.sim.get(tool, 0) > 0:
                spent = min(digs, durability(tool) - self.worn.get(tool, 0))
                self.worn[tool] = self.worn.get(tool, 0) + spent
                digs -= spent
                if self.worn[tool] == durability(tool):
                    self.sim[tool] -= 1
                    self.worn[tool] = 0
        assert not digs, f"{digs} {block} dug with no tool left"

    # ---- gathering ------------------------------------------------------------------------
    def gather(
        self, raw: str, short: int, *, step_id: str | None = None, note: str = "", block: str | None = None
    ) -> None:
        """collect_block steps for `short` more `raw` in batches, each ensuring a running total,
        each after a tool with uses left for it: a batch ends where the last tool breaks."""
        raw = (gatherable(raw) or raw) if block is None else raw  # a group: the member gathered
        block = block or source_block(raw)
        if block is None:
            raise WorkflowPlanError("NO_SOURCE", f"the bot knows no block to gather {raw} from")
        while short > 0:
            self.ensure_tool(block)
            self._seek(block)
            by_chance = chance_drop(raw)
            chance = by_chance[1] if by_chance is not None and by_chance[0] == block else 1.0
            uses = int(self.uses_left(block) * chance) if needs_tool(block) else short  # digs per item: 1 / chance
            batch = min(self.batch, short, max(1, uses))
            total = self.held(raw) + batch
            self.add(
                step_id or f"gather-{raw}",
                tool="collect_block",
                description=f"have {total} {raw}" + (f" ({note})" if note else ""),
                args={"block": block, "count": total, "ensure": True}
                | ({"item": raw, "chance": chance} if chance < 1 else {}),
            )
            self._wear(block, math.ceil(batch / chance))
            if block == FUEL_LOG and self._descended():
                self.logs_below.append((batch, note == "fuel"))
            self.sim[raw] = self.sim.get(raw, 0) + batch
            short -= batch

    def _seek(self, block: str) -> None:
        """Before the first gather of an ore that lies underground (agency.game.ores): a
        seek_ore step, staircases down to its level unless one is in sight by then."""
        if ore_level(block) is None or any(s.tool == "seek_ore" and s.args.get("block") == block for s in self.steps):
            return
        if not self._descended():
            self._stock_up()
        # A table or furnace placed above is out of reach at an ore's level (the places' reuse
        # distance is 48 m, an ore's level as far below): the crafts and smelts there get their own.
        self.table = self.furnace = False
        self.add(
            f"seek-{block.replace('_', '-')}",
            tool="seek_ore",
            description=f"dig down to where {block} lies, unless one is in sight",
            args={"block": block},
        )

    def _descended(self) -> bool:
        return any(s.tool == "seek_ore" for s in self.steps)

    def _stock_up(self) -> None:
        """Before the first descent: the logs the rest of the plan needs (self.stock)."""
        kept, fuel = self.stock
        if kept + fuel <= 0:
            return
        with self.serving("after the descent"):
            self.gather(FUEL_LOG, kept + fuel, step_id="gather-log-stock", note="taken down")
        self.unburnt += kept

    # ---- hunting ------------------------------------------------------------------------
    def hunt(self, drop: str, short: int) -> None:
        """A hunt step until `short` more `drop` are held (drops are random: the kills are
        counted at run time, MAX_HUNT at most), exploring when no animal is in sight."""
        animal = animal_for(drop)
        assert animal is not None, drop
        total = self.held(drop) + short
        self.add(
            f"hunt-{animal}",
            tool="hunt",
            description=f"have {total} {drop}, hunting {animal}",
            args={
                "target": animal,
                "count": MAX_HUNT,
                "until_item": drop,
                "until_count": total,
                "explore_attempts": HUNT_EXPLORES,
            },
        )
        self.sim[drop] = self.sim.get(drop, 0) + short

    # ---- buckets ------------------------------------------------------------------------
    def fill(self, filled: str, short: int) -> None:
        """`short` more `filled` buckets: the empty buckets crafted first when too few are held
        (lava is dug down for: agency.tools.buckets), then one fill_bucket step ensuring the total."""
        fluid = str(fill_source(filled))
        empty = self.sim.get(EMPTY, 0)
        if empty < short:
            self.craft(EMPTY, short - empty)
        if fluid == "lava":
            self.ensure_tool("stone")  # the staircase down needs a pickaxe
            self._seek("lava")
        total = self.sim.get(filled, 0) + short
        self.add(
            f"fill-{fluid}",
            tool="fill_bucket",
            description=f"have {total} {filled}",
            args={"fluid": fluid, "count": total},
        )
        self.sim[EMPTY] -= short
        self.sim[filled] = total

    # ---- smelting ------------------------------------------------------------------------
    def smelt(self, output: str, amount: int) -> None:
        """Have `amount` more `output` from a furnace: the input held, or gathered after the
        tool its block needs; a furnace crafted when none is held or known; logs as fuel when
        what is held does not cover the count; then one `smelt` step ensuring the total."""
        with self.serving(f"smelt {output}"):
            self._smelt(output, amount)

    def _smelt(self, output: str, amount: int) -> None:
        kind, have = input_choice(self.sim, output)
        short = amount - have
        source = game = None
        if short > 0:
            source = next((i for i in inputs_for(output) if source_block(i)), None)
            # meat to cook: the furnace first (its stone is at hand), then the hunt, then the smelt
            game = None if source is not None else next((i for i in inputs_for(output) if huntable(i)), None)
            made = None if source is not None or game is not None else made_input(output)
            if made is not None and made not in self._making:
                # an input made first (stone smelted for smooth stone, a clay block crafted for
                # terracotta), then this smelt of what is then held
                self._making.add(made)
                try:
                    self.smelt(made, short) if smeltable(made) else self.craft(made, short)
                finally:
                    self._making.discard(made)
                self._smelt(output, amount)
                return
            if source is None and game is None:
                raise WorkflowPlanError(
                    "NO_SOURCE",
                    f"{amount} {output} needs {short} more "
                    f"{' or '.join(inputs_for(output))} and the bot cannot gather it yet",
                )
        with self.reserved({kind: min(have, amount)} if kind else {}):  # neither is made of the input held
            if source is not None:
                self.ensure_tool(str(source_block(source)))  # at the table, before walking off to the ore
            if self.sim.get(FURNACE, 0) < 1 and not self.furnace:
                self.craft(FURNACE, 1)
        if source is not None:
            self.gather(source, short, step_id=f"gather-{source}-input", note="input")
            if self.sim.get(FURNACE, 0) < 1 and not self.furnace:  # the one known is up above (_seek)
                with self.reserved({source: self.held(source)}):
                    self.craft(FURNACE, 1)
        if game is not None:
            self.hunt(str(huntable(game)), short)
        # The fuel: what the inventory holds besides the input and the logs kept, else logs gathered for it.
        keep = {FUEL_LOG: self.unburnt} if self.unburnt else {}
        fuel = choose_fuel(
            self.sim, amount, reserve=fuel_reserve(self.sim, _reserve(held_inputs(self.sim, output), amount), keep)
        )
        if not fuel.enough:
            logs = math.ceil(fuel.short_ticks / FUEL_TICKS["log"])
            self.gather(FUEL_LOG, logs, step_id=f"gather-{FUEL_LOG}-fuel", note="fuel")
            fuel = choose_fuel(
                self.sim, amount, reserve=fuel_reserve(self.sim, _reserve(held_inputs(self.sim, output), amount), keep)
            )
        total = self.sim.get(output, 0) + amount
        if not self.furnace and self.sim.get(FURNACE, 0) > 0:
            self.sim[FURNACE] -= 1  # the smelt step places the one held
        self.add(
            f"smelt-{output.replace('_', '-')}",
            tool="smelt",
            description=f"have {total} {output}",
            args={"item": output, "count": total, "ensure": True, "craft_furnace": True}
            | ({"keep": keep} if keep else {}),
        )
        used = _reserve(held_inputs(self.sim, output), amount)
        for name, n in used.items():
            self.sim[name] -= n
        for pick in fuel.picks:
            self.sim[pick.name] = self.sim.get(pick.name, 0) - pick.count
        self.sim[output] = self.sim.get(output, 0) + amount
        self.furnace = True  # the smelt step placed one (or used one in sight)

    # ---- crafting -------------------------------------------------------------------------
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
                if got is not None:
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
) -> list[StepDef]:
    """The steps `make` adds to a PlanBuilder over `inventory`; built again with more logs
    taken down at the first descent while a build still gathers some below (module
    docstring). Logs are alike, so a stock can go to another use than the one it was
    counted for (a held oak log burnt where a kept one was meant): a few rounds settle it."""
    kept = fuel = 0
    for _ in range(STOCK_ROUNDS):
        plan = PlanBuilder(inventory, table_known=table_known, furnace_known=furnace_known, stock=(kept, fuel))
        make(plan)
        if not plan.logs_below:
            break
        kept += sum(n for n, as_fuel in plan.logs_below if not as_fuel)
        fuel += sum(n for n, as_fuel in plan.logs_below if as_fuel)
    return plan.steps


def _reserve(inputs: Mapping[str, int], amount: int) -> dict[str, int]:
    """The held inputs a smelting uses (most held first), so they are not counted as fuel."""
    out: dict[str, int] = {}
    for name in sorted(inputs, key=lambda n: (-inputs[n], n)):
        if amount <= 0:
            break
        out[name] = min(amount, inputs[name])
        amount -= out[name]
    return out


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
