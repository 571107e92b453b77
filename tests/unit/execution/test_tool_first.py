"""The tool before the work: every generated plan gets the tool a block needs to drop
anything before it gathers or mines it (a wooden pickaxe before stone, a stone one before
iron ore), and collect_block/mine_block refuse up front without one; tools wear out, so a
large order makes the next tool before the last one breaks.

The property tests run each plan's steps over a simulated inventory the way the tools would
(a craft replans from what is held, as the craft tool does), checking every step's
precondition at its point of the plan (a block is dug with the fastest held tool that
harvests it, which loses a use and breaks at its durability), and that each ensure-step
does work once and is a no-op when run again."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from agency.blocks import is_log
from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.agents.build_plan import build_plan
from agency.execution.agents.deliver_plan import deliver_plan
from agency.execution.agents.gather_plan import gather_plan
from agency.execution.agents.plan_builder import WorkflowPlanError
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.smelt_plan import smelt_plan
from agency.execution.agents.sources import SOURCE_BLOCK
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.game.furnace import SMELTING, output_of
from agency.game.harvest import can_harvest, durability, needs_tool, wear_order
from agency.game.recipes import CRAFTABLE, available
from agency.tools import ToolContext
from agency.tools.craft_planner import plan_craft
from agency.tools.gathering import drop_of
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.smelt_planner import choose_fuel, input_choice, kept_names
from agency.tools.testing import GROUND_Y, FakeBody
from tests.unit.conftest import run

# A generic log gathered is an oak log (the embedded world's trees), and the starting inventories
# hold oak only: which wood a generic log turns out to be is not what these tests are about.
WORLD_LOG = "oak_log"
TABLE = {"craftingTable": {"x": 3, "y": 64, "z": 0}}
FURNACE = {"furnace": {"x": 4, "y": 64, "z": 0}}


# ---- the simulation ------------------------------------------------------------------------


class Sim:
    def __init__(self, inventory: Mapping[str, int], facts: Mapping[str, Any]) -> None:
        self.inv: Counter[str] = Counter({k: v for k, v in inventory.items() if v > 0})
        self.table = bool(facts.get("craftingTable"))
        self.furnace = bool(facts.get("furnace"))
        self.dug: list[tuple[str, frozenset[str]]] = []  # (block, the pickaxes held), in order
        self.worn: Counter[str] = Counter()  # tool -> uses spent on the held copy in use
        self.broken: Counter[str] = Counter()

    def run(self, steps: list[Any]) -> None:
        for step in steps:
            self.step(step)

    def step(self, s: Any) -> None:
        if s.kind == "delegate":  # the crafter's own plan for the delegated craft, from here
            task = {**s.task, "facts": {**(TABLE if self.table else {}), **(FURNACE if self.furnace else {})}}
            self.run(craft_plan("crafter", task, dict(self.inv)).steps)
            return
        a = s.args
        if s.tool in ("collect_block", "mine_block"):
            block = a["block"]
            assert can_harvest(self.inv, block), f"{s.id}: digs {block} holding {dict(self.inv)}"
            self.dug.append((block, frozenset(t for t in self.inv if t.endswith("_pickaxe"))))
            item = drop_of(block)
            item = WORLD_LOG if item == "log" else item
            digs = a.get("count", 1)
            if a.get("ensure"):
                before = available(self.inv, item)
                assert before < a["count"], f"{s.id}: already holds {before} {item}, the step does nothing"
                digs = a["count"] - before
            for n in range(digs):
                self.dig(block, f"{s.id} (block {n + 1} of {digs})")
            self.inv[item] += digs
        elif s.tool == "craft":
            item = a["item"]
            held = available(self.inv, item)
            assert held < a["count"], f"{s.id}: already holds {held} {item}, the step does nothing"
            plan = plan_craft(item, a["count"] - held, self.inv, table_nearby=self.table, keep=a.get("keep", ()))
            assert plan.feasible, f"{s.id}: {item} is missing {plan.missing} holding {dict(self.inv)}"
            self.table = self.table or any(x.place_table for x in plan.steps)
            self.inv = Counter({k: v for k, v in plan.after.items() if v > 0})
            assert available(self.inv, item) == a["count"], f"{s.id}: the total is not what the craft makes"
        elif s.tool == "place_block":
            assert self.inv[a["block"]] >= 1, f"{s.id}: no {a['block']} to place"
            self.inv[a["block"]] -= 1
            self.table = self.table or a["block"] == "crafting_table"
        elif s.tool == "smelt":
            out = output_of(a["item"])
            need = a["count"] - self.inv[out]
            assert need > 0, f"{s.id}: already holds {self.inv[out]} {out}"
            assert self.furnace or self.inv["furnace"] >= 1, f"{s.id}: no furnace held or known"
            kind, have = input_choice(self.inv, out)
            assert kind is not None and have >= need, f"{s.id}: {have} {kind} to smelt {need} {out}"
            fuel = choose_fuel(self.inv, need, reserve={kind: need} | kept_names(self.inv, a.get("keep", {})))
            assert fuel.enough, f"{s.id}: fuel {fuel.short_ticks} ticks short holding {dict(self.inv)}"
            if not self.furnace:
                self.inv["furnace"] -= 1
                self.furnace = True
            self.inv[kind] -= need
            for pick in fuel.picks:
                self.inv[pick.name] -= pick.count
            self.inv[out] += need
        elif s.tool == "hunt":  # kills until the drop is held (the hunt tool counts them at run time)
            item = a["until_item"]
            assert self.inv[item] < a["until_count"], f"{s.id}: already holds {self.inv[item]} {item}"
            self.inv[item] = a["until_count"]
        elif s.tool == "seek_ore":  # a staircase down: a pickaxe digs it
            assert any(t.endswith("_pickaxe") for t in self.inv), f"{s.id}: no pickaxe to dig down with"
            self.table = self.furnace = False  # left up there, beyond the places' reuse distance
        elif s.tool == "give":
            item = a["item"]
            assert self.inv[item] >= a["count"], f"{s.id}: {self.inv[item]} {item} to give {a['count']}"
            self.inv[item] -= a["count"]
        self.inv = +self.inv

    def dig(self, block: str, where: str) -> None:
        if not needs_tool(block):
            return
        tool = next((t for t in wear_order(block) if self.inv[t] > 0), None)
        assert tool is not None, f"{where}: digs {block} with no tool left holding {dict(+self.inv)}"
        self.worn[tool] += 1
        if self.worn[tool] == durability(tool):
            self.inv[tool] -= 1
            self.worn[tool] = 0
            self.broken[tool] += 1


def simulate(steps: list[Any], inventory: Mapping[str, int], facts: Mapping[str, Any] | None = None) -> Sim:
    sim = Sim(inventory, facts or {})
    sim.run(steps)
    return sim


# ---- what the plans are asked for ----------------------------------------------------------------

SMELT_TARGETS = [*sorted(SMELTING), "raw_iron", "beef", "oak_log", "cobblestone"]
# concrete items only: a give hands over a named item (`deliver planks` is no order a bot asks for)

GATHER_BLOCKS = ["stone", "iron_ore", "coal_ore", "deepslate", "obsidian", "log", "oak_log", "dirt", "sand"]
REFUSALS = {"NO_SOURCE", "NO_TOOL"}  # what the bot cannot get yet (iron for an iron pickaxe, white wool)


# The tools and the progression's items, and every 25th of the rest of the recipe book: all
# 866 of them for each start is minutes (the whole book plans from empty hands in
# tests/unit/game/test_mcdata_recipes.py).
CORE_CRAFTS = ("planks", "stick", "crafting_table", "furnace", "torch", "chest", "oak_door", "white_bed", "compass")


def craft_targets() -> list[str]:
    book = sorted(CRAFTABLE)
    return sorted({*CORE_CRAFTS, *(i for i in book if i.endswith(("_pickaxe", "_sword", "_axe"))), *book[::25]})


def deliver_targets() -> list[str]:
    return sorted(i for i in {*craft_targets(), *SOURCE_BLOCK, "dirt"} if i not in ("planks", "log"))


def plans(inventory: Mapping[str, int], facts: Mapping[str, Any]):
    """(name, steps) of every plan the generators make for every target they accept."""
    for item in craft_targets():
        yield (
            f"craft {item}",
            lambda i=item: craft_plan("crafter", {"target": i, "amount": 2, "facts": facts}, inventory),
        )
    for item in SMELT_TARGETS:
        yield (
            f"smelt {item}",
            lambda i=item: smelt_plan("crafter", {"target": i, "amount": 3, "facts": facts}, inventory),
        )
    for item in deliver_targets():
        yield (
            f"deliver {item}",
            lambda i=item: deliver_plan("gatherer", {"target": i, "amount": 5, "to": "b2", "facts": facts}, inventory),
        )
    for action in ("collect", "gather", "mine"):
        for block in GATHER_BLOCKS:
            yield (
                f"{action} {block}",
                lambda a=action, b=block: gather_plan("gatherer", {"action": a, "target": b, "amount": 3}, inventory),
            )
    yield "build basic_shelter", lambda: build_plan("builder", {"target": "basic_shelter", "facts": facts}, inventory)


def check_all(inventory: Mapping[str, int], facts: Mapping[str, Any]) -> int:
    made = 0
    for name, make in plans(inventory, facts):
        try:
            wf = make()
        except WorkflowPlanError as e:
            assert e.code in REFUSALS | {"NO_MATERIALS"}, f"{name}: {e.code} {e}"
            continue
        steps = [s for s in wf.steps if s.tool not in _SHELTER_TOOLS]
        try:
            assert not logs_gathered_below(steps), f"logs gathered after the descent: {logs_gathered_below(steps)}"
            simulate(steps, inventory, facts)
        except AssertionError as e:
            raise AssertionError(f"{name} from {dict(inventory)} {facts}: {e}") from None
        made += 1
    return made


def logs_gathered_below(steps: list[Any]) -> list[str]:
    """The log-gathering steps after a plan's first seek_ore: logs grow on the surface."""
    first = next((i for i, s in enumerate(steps) if s.tool == "seek_ore"), len(steps))
    return [s.id for s in steps[first:] if s.tool == "collect_block" and _log(str(s.args.get("block")))]


def _log(block: str) -> bool:
    return block == "log" or is_log(block)  # "log": any log


# the builder's own steps (site, modules...) use materials the simulation does not model
_SHELTER_TOOLS = {
    "shelter_site",
    "prepare_shelter_site",
    "build_shelter_module",
    "place_shelter_bed",
    "request_delivery",
    "await_delivery",
}

STARTS = [
    {},
    {"oak_log": 5},
    {"wooden_pickaxe": 1},
    {"golden_pickaxe": 1},
    {"stone_pickaxe": 1, "oak_planks": 2},
    {"cobblestone": 8, "stick": 3},
    {"crafting_table": 1, "oak_log": 2},
    {"furnace": 1, "coal": 2},
    {"raw_iron": 2, "oak_planks": 9},
    {"iron_pickaxe": 1, "oak_log": 1},
    {"cobblestone": 20, "oak_log": 1, "beef": 3},
]


@pytest.mark.parametrize("facts", [{}, TABLE, {**TABLE, **FURNACE}], ids=["nothing-known", "table", "table-furnace"])
@pytest.mark.parametrize("inventory", STARTS, ids=[",".join(s) or "empty" for s in STARTS])
def test_no_plan_digs_a_block_before_it_holds_the_tool_and_every_step_can_run(inventory, facts) -> None:
    assert check_all(inventory, facts) > 40


ITEMS = st.sampled_from(
    [
        "oak_log",
        "oak_planks",
        "stick",
        "cobblestone",
        "coal",
        "raw_iron",
        "beef",
        "crafting_table",
        "furnace",
        "wooden_pickaxe",
        "stone_pickaxe",
        "golden_pickaxe",
        "iron_ingot",
        "white_wool",
        "oak_door",
        "torch",
        "charcoal",
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inventory=st.dictionaries(ITEMS, st.integers(min_value=0, max_value=20), max_size=6),
    facts=st.sampled_from([{}, TABLE, FURNACE, {**TABLE, **FURNACE}]),
)
def test_any_starting_inventory_gets_its_tools_first(inventory, facts) -> None:
    check_all(inventory, facts)


def test_a_first_hut_whose_logs_leave_the_nights_four_has_no_step_to_keep_them() -> None:
    # Found by the property above: with 20 logs held the walls' planks left plenty, and the
    # plan's keep-logs step did nothing.
    inventory = {"oak_log": 20, "oak_planks": 20, "oak_door": 1}
    check_all(inventory, {})
    steps = [s.id for s in build_plan("builder", {"action": "build", "target": "basic_shelter"}, inventory).steps]
    assert "get-pickaxe" in steps and "keep-logs" not in steps
    few = [s.id for s in build_plan("builder", {"action": "build", "target": "basic_shelter"}, {"oak_log": 12}).steps]
    assert "keep-logs" in few  # the walls take most of 12: the night's four are gathered


def test_planks_of_one_wood_made_of_logs_gathered_as_any_wood_are_counted_off_those_logs() -> None:
    # Found by the property above: the craft plan made oak planks of the logs gathered for the
    # descent ('log', any wood) while the plan builder counted them off the one oak log held, so
    # a later craft's log was burnt as fuel and missing.
    steps = deliver_plan(
        "gatherer", {"target": "golden_sword", "amount": 5, "to": "b2", "facts": TABLE}, {"oak_log": 3}
    )
    sim = simulate([s for s in steps.steps if s.tool not in _SHELTER_TOOLS], {"oak_log": 3}, TABLE)
    assert sim.inv["golden_sword"] == 0 and sim.inv["gold_ingot"] == 0  # made and given


def test_from_empty_hands_the_targets_the_bot_can_reach_are_all_planned() -> None:
    for item in ("stone_pickaxe", "stone_sword", "furnace", "torch", "chest", "wooden_pickaxe"):
        craft_plan("crafter", {"target": item, "amount": 1}, {})
    for item in ("iron_ingot", "stone", "charcoal"):
        smelt_plan("crafter", {"target": item, "amount": 1}, {})
    # iron is smelted inside the craft plan (a furnace first); a diamond is dug with an iron pickaxe
    for item in ("iron_pickaxe", "compass", "bucket", "diamond_pickaxe"):
        steps = craft_plan("crafter", {"target": item, "amount": 1}, {}).steps
        assert steps[-1].args["item"] == item and any(s.tool == "smelt" for s in steps), item
    obsidian = gather_plan("gatherer", {"action": "collect", "target": "obsidian", "amount": 1}, {}).steps
    assert obsidian[0].task["target"] == "diamond_pickaxe"
    # an animal's drop is hunted for (until held: drops are random), exploring when none is in sight
    book = craft_plan("crafter", {"target": "book", "amount": 1}, {}).steps
    hunt = next(s for s in book if s.tool == "hunt")
    assert hunt.args == {"target": "cow", "count": 10, "until_item": "leather", "until_count": 1, "explore_attempts": 4}
    assert simulate(book, {}).inv["book"] == 1
    # what only a hostile drops has no source in a plan yet: refused, naming it
    with pytest.raises(WorkflowPlanError) as e:
        craft_plan("crafter", {"target": "lead", "amount": 1}, {})
    assert e.value.code == "NO_SOURCE" and "'string' is needed for lead" in str(e.value)


# ---- the concrete orders ---------------------------------------------------------------------


def test_a_stone_pickaxe_from_empty_hands_makes_a_wooden_one_first() -> None:
    wf = craft_plan("crafter", {"target": "stone_pickaxe", "amount": 1}, {})
    assert [(s.id, s.tool, s.args.get("block") or s.args.get("item"), s.args.get("count")) for s in wf.steps] == [
        ("gather-log", "collect_block", "log", 3),
        ("craft-planks", "craft", "planks", 12),
        ("craft-crafting-table", "craft", "crafting_table", 1),
        ("place-crafting-table", "place_block", "crafting_table", None),
        ("craft-stick", "craft", "stick", 4),
        ("craft-wooden-pickaxe", "craft", "wooden_pickaxe", 1),
        ("gather-cobblestone", "collect_block", "stone", 3),
        ("craft-stone-pickaxe", "craft", "stone_pickaxe", 1),  # the wooden pickaxe's spare sticks
    ]
    sim = simulate(wf.steps, {})
    assert sim.inv == {"oak_planks": 3, "wooden_pickaxe": 1, "stone_pickaxe": 1}  # the tool and what it used, accounted


def test_a_stone_pickaxe_with_a_wooden_one_held_digs_at_once() -> None:
    wf = craft_plan(
        "crafter", {"target": "stone_pickaxe", "amount": 1, "facts": TABLE}, {"wooden_pickaxe": 1, "stick": 2}
    )
    assert [s.id for s in wf.steps] == ["gather-cobblestone", "craft-stone-pickaxe"]


def test_smelting_iron_from_empty_hands_gets_both_pickaxes_and_a_furnace_before_the_ore() -> None:
    wf = smelt_plan("crafter", {"target": "iron_ingot", "amount": 1}, {})
    assert [(s.id, s.args.get("block") or s.args.get("item"), s.args.get("count")) for s in wf.steps] == [
        ("gather-log", "log", 3),
        ("craft-planks", "planks", 12),
        ("craft-crafting-table", "crafting_table", 1),
        ("place-crafting-table", "crafting_table", None),
        ("craft-stick", "stick", 4),
        ("craft-wooden-pickaxe", "wooden_pickaxe", 1),
        ("gather-cobblestone", "stone", 3),
        ("craft-stone-pickaxe", "stone_pickaxe", 1),
        ("gather-cobblestone-2", "stone", 6),  # the furnace's 8, in batches
        ("gather-cobblestone-3", "stone", 8),
        ("craft-furnace", "furnace", 1),
        ("seek-iron-ore", "iron_ore", None),  # down to where iron lies, unless some is in sight
        ("gather-raw_iron-input", "iron_ore", 1),
        ("smelt-iron-ingot", "iron_ingot", 1),  # the spare planks burn
    ]
    sim = simulate(wf.steps, {})
    assert sim.dug == [
        ("log", frozenset()),
        ("stone", {"wooden_pickaxe"}),
        ("stone", {"wooden_pickaxe", "stone_pickaxe"}),
        ("stone", {"wooden_pickaxe", "stone_pickaxe"}),
        ("iron_ore", {"wooden_pickaxe", "stone_pickaxe"}),
    ]
    assert sim.inv["iron_ingot"] == 1 and sim.inv["stone_pickaxe"] == 1


def test_a_smelt_with_a_furnace_known_crafts_none_and_the_input_is_never_made_into_one() -> None:
    near = smelt_plan("crafter", {"target": "stone", "amount": 1, "facts": FURNACE}, {"cobblestone": 1, "coal": 1})
    assert [s.id for s in near.steps] == ["smelt-stone"]
    # the ore is dug for: the furnace up there is beyond the places' reuse distance at its level,
    # so one is made down there, of the staircase's stone, at a table of the log taken down
    deep = smelt_plan(
        "crafter", {"target": "iron_ingot", "amount": 1, "facts": FURNACE}, {"stone_pickaxe": 1, "coal": 1}
    )
    assert [s.id for s in deep.steps] == [
        "gather-log-stock",
        "seek-iron-ore",
        "gather-raw_iron-input",
        "gather-cobblestone",
        "gather-cobblestone-2",
        "craft-planks",
        "craft-crafting-table",
        "place-crafting-table",
        "craft-furnace",
        "smelt-iron-ingot",
    ]
    # 8 cobblestone held to smelt into stone: the furnace gets 8 more, dug with a pickaxe made first
    wf = smelt_plan("crafter", {"target": "stone", "amount": 8}, {"cobblestone": 8, "oak_log": 3, "coal": 1})
    counts = {s.id: s.args.get("count") for s in wf.steps}
    assert counts["gather-cobblestone-2"] == 16 and "gather-cobblestone-input" not in counts
    assert simulate(wf.steps, {"cobblestone": 8, "oak_log": 3, "coal": 1}).inv["stone"] == 8


def test_a_gatherer_asks_the_crafter_for_the_pickaxe_first() -> None:
    wf = gather_plan("gatherer", {"action": "collect", "target": "iron_ore", "amount": 2}, {"wooden_pickaxe": 1})
    assert [(s.id, s.kind) for s in wf.steps] == [
        ("get-tool", "delegate"),
        ("seek-iron-ore", "tool"),  # after the pickaxe that digs the staircase
        ("collect", "tool"),
        ("check", "tool"),
    ]
    assert wf.steps[0].agent == "crafter"
    assert wf.steps[0].task == {"action": "craft", "target": "stone_pickaxe", "amount": 1, "ensure": True}
    logs = gather_plan("gatherer", {"action": "collect", "target": "oak_log", "amount": 2}, {})
    assert [s.id for s in logs.steps] == ["collect", "check"] and logs.id == "gatherer-collect"
    mine = gather_plan("gatherer", {"action": "mine", "target": "stone", "amount": 1}, {})
    assert [(s.id, s.tool) for s in mine.steps] == [("get-tool", None), ("dig", "mine_block"), ("check", "inventory")]
    assert load_default_registry().require("gatherer").workflows["collect"].generator == "gather_plan"


# ---- the runtime guard -----------------------------------------------------------------------


def test_collect_block_refuses_stone_without_a_pickaxe_naming_the_tool(ctx: ToolContext, body: FakeBody) -> None:
    body.blocks[(3, GROUND_Y, 0)] = "stone"
    res = run(default_tool_registry().execute("collect_block", {"block": "stone", "count": 1}, ctx))
    assert res.error.code == PRECONDITION_FAILED
    assert res.error.message.startswith("stone drops nothing unless dug with a wooden_pickaxe or better")
    assert "wooden_pickaxe" in res.error.details["tools"] and body.started == []  # refused before moving
    iron = run(default_tool_registry().execute("collect_block", {"block": "iron_ore"}, ctx))
    assert "a stone_pickaxe or better" in iron.error.message
    body.inventory["wooden_pickaxe"] = 1
    ok = run(default_tool_registry().execute("collect_block", {"block": "stone", "count": 1}, ctx))
    assert ok.success and body.inventory["cobblestone"] == 1


def test_mine_block_refuses_a_kind_without_the_tool_but_clears_positions_with_bare_hands(
    ctx: ToolContext, body: FakeBody
) -> None:
    body.blocks[(1, GROUND_Y, 0)] = "stone"
    reg = default_tool_registry()
    res = run(reg.execute("mine_block", {"block": "stone"}, ctx))
    assert res.error.code == PRECONDITION_FAILED and "wooden_pickaxe" in res.error.message
    cleared = run(reg.execute("mine_block", {"positions": [{"x": 1, "y": GROUND_Y, "z": 0}]}, ctx))
    assert cleared.success and body.block(1, GROUND_Y, 0) == "air"  # a rollback or a path: the drop does not matter


# ---- on the fake world, through the agents -----------------------------------------------------


def test_craft_stone_pickaxe_from_nothing_runs_to_the_end(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.add_tree(4, 2, height=5)
    for dx in range(3):
        body.blocks[(-3 - dx, GROUND_Y, 2)] = "stone"
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)
    res = run(rt.run_task(TaskSpec(action="craft", target="stone_pickaxe", amount=1, id="task-stone-pick")))
    assert res.ok, res.errors
    assert body.inventory["stone_pickaxe"] == 1 and body.inventory["wooden_pickaxe"] == 1


def test_collect_stone_from_nothing_has_the_crafter_make_the_pickaxe(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    body.add_tree(4, 2, height=5)
    for dx in range(3):
        body.blocks[(-3 - dx, GROUND_Y, 2)] = "stone"
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)
    res = run(rt.run_task(TaskSpec(action="collect", target="stone", amount=2, id="task-stone")))
    assert res.ok, res.errors
    assert res.agentId == "gatherer" and [s.stepId for s in res.steps] == ["get-tool", "collect", "check"]
    assert body.inventory["cobblestone"] == 2 and body.inventory["wooden_pickaxe"] == 1
    assert [a["block"] for k, a in body.started if k == "collect"] == ["oak_log", "stone"]  # the logs, then the stone
