"""Tools wear out: a block dug costs the tool it is dug with one use (the fastest held that
harvests it; a wooden pickaxe has 59), so a large order makes the next tool where the last
one breaks, and no simulated dig (test_tool_first's simulation, which wears the tools the
bot would) finds no tool with uses left. And what a plan is told of the world: a table in
sight is used by the deliver plan's crafts as by the crafter's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.agents.deliver_plan import deliver_plan
from agency.execution.agents.gather_plan import gather_plan
from agency.execution.agents.generators import WORLD_FACTS
from agency.execution.agents.planning import craft_plan
from agency.execution.agents.smelt_plan import smelt_plan
from agency.execution.builtin_tools import default_tool_registry
from agency.tools import ToolContext
from agency.tools.testing import GROUND_Y, FakeBody
from tests.unit.conftest import run
from tests.unit.execution.test_tool_first import TABLE, simulate

TABLE_STEPS = {"craft-crafting-table", "place-crafting-table"}


def _counts(steps: list[Any]) -> list[tuple[str, Any]]:
    return [(s.id, s.args.get("count") if s.kind != "delegate" else s.task["target"]) for s in steps]


def test_deliver_70_cobblestone_makes_a_second_pickaxe_where_the_first_breaks() -> None:
    wf = deliver_plan("gatherer", {"target": "cobblestone", "amount": 70, "to": "b2"}, {})
    ids = [s.id for s in wf.steps]
    first, second = ids.index("craft-wooden-pickaxe"), ids.index("craft-wooden-pickaxe-2")
    assert [c for _, c in _counts(wf.steps)[first + 1 : second]] == [6, 12, 18, 24, 30, 36, 42, 48, 54, 59]
    assert _counts(wf.steps)[second:] == [
        ("craft-wooden-pickaxe-2", 1),
        ("collect-11", 65),
        ("collect-12", 70),
        ("give", 70),
    ]  # 1 in all: the first one broke on its 59th stone
    sim = simulate(wf.steps, {})
    assert sim.broken["wooden_pickaxe"] == 1 and sim.inv["wooden_pickaxe"] == 1 and sim.worn["wooden_pickaxe"] == 11


def test_collect_100_stone_asks_the_crafter_again_when_the_pickaxe_breaks() -> None:
    wf = gather_plan("gatherer", {"action": "collect", "target": "stone", "amount": 100}, {})
    assert _counts(wf.steps) == [
        ("get-tool", "wooden_pickaxe"),
        ("collect", 59),
        ("get-tool-2", "wooden_pickaxe"),
        ("collect-2", 100),
        ("check", None),
    ]
    assert simulate(wf.steps, {}).inv["cobblestone"] == 100
    # the uses of every tool held count, the fastest worn first (golden: 32), and one call gathers at most 64
    held = {"golden_pickaxe": 1, "wooden_pickaxe": 1}
    more = gather_plan("gatherer", {"action": "collect", "target": "stone", "amount": 100}, held)
    assert _counts(more.steps) == [
        ("collect", 64),
        ("collect-2", 91),
        ("get-tool", "wooden_pickaxe"),
        ("collect-3", 100),
        ("check", None),
    ]
    sim = simulate(more.steps, held)
    assert sim.broken == {"golden_pickaxe": 1, "wooden_pickaxe": 1}


def test_a_stone_pickaxe_worn_on_the_furnaces_stone_is_remade_before_the_ore_it_cannot_dig() -> None:
    held = {"stone_pickaxe": 1, "oak_log": 10, "coal": 64}
    wf = smelt_plan("crafter", {"target": "iron_ingot", "amount": 130}, held)
    counts = _counts(wf.steps)
    remade = [i for i, _ in counts].index("craft-stone-pickaxe")
    # 131 uses less the furnace's 8 stone: 123 ore, then a new one, at a table placed down there
    # (the one placed for the furnace is up at the surface)
    assert counts[remade - 7 : remade + 3] == [
        ("gather-raw_iron-input-21", 123),
        ("craft-oak-planks-2", 12),
        ("craft-crafting-table-2", 1),
        ("place-crafting-table-2", None),
        ("craft-stick", 4),
        ("craft-wooden-pickaxe", 1),
        ("gather-cobblestone-3", 3),
        ("craft-stone-pickaxe", 1),
        ("gather-raw_iron-input-22", 129),
        ("gather-raw_iron-input-23", 130),
    ]
    assert [i for i, _ in counts].index("craft-furnace") < remade and counts[-1] == ("smelt-iron-ingot", 130)
    sim = simulate(wf.steps, held)
    assert sim.broken["stone_pickaxe"] == 1 and sim.inv["iron_ingot"] == 130


ORDERS = st.one_of(
    st.tuples(
        st.just("deliver"),
        st.sampled_from(["cobblestone", "coal", "raw_iron", "cobbled_deepslate"]),
        st.integers(60, 400),
    ),
    st.tuples(
        st.sampled_from(["collect", "gather"]),
        st.sampled_from(["stone", "iron_ore", "coal_ore", "deepslate"]),
        st.integers(60, 400),
    ),
    st.tuples(st.just("smelt"), st.sampled_from(["iron_ingot", "stone"]), st.integers(60, 300)),
    st.tuples(
        st.just("craft"), st.sampled_from(["furnace", "stone_pickaxe", "stone_sword", "torch"]), st.integers(5, 40)
    ),
)
HELD = st.dictionaries(
    st.sampled_from(
        [
            "wooden_pickaxe",
            "stone_pickaxe",
            "golden_pickaxe",
            "iron_pickaxe",
            "oak_log",
            "oak_planks",
            "stick",
            "cobblestone",
            "coal",
        ]
    ),
    st.integers(0, 3),
    max_size=4,
)


def _plan(order: tuple[str, str, int], inventory: Mapping[str, int], facts: Mapping[str, Any]):
    action, target, n = order
    if action == "deliver":
        return deliver_plan("gatherer", {"target": target, "amount": n, "to": "b2", "facts": facts}, inventory)
    if action == "smelt":
        return smelt_plan("crafter", {"target": target, "amount": n, "facts": facts}, inventory)
    if action == "craft":
        return craft_plan("crafter", {"target": target, "amount": n, "facts": facts}, inventory)
    return gather_plan("gatherer", {"action": action, "target": target, "amount": n}, inventory)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=ORDERS, inventory=HELD, facts=st.sampled_from([{}, TABLE]))
def test_large_orders_never_dig_without_a_tool_with_uses_left(order, inventory, facts) -> None:
    wf = _plan(order, inventory, facts)
    try:
        sim = simulate(wf.steps, inventory, facts)  # each dig asserts a tool with uses left
    except AssertionError as e:
        raise AssertionError(f"{order} from {inventory} {facts}: {e}") from None
    if order[0] == "deliver":
        assert sim.inv[order[1]] == 0  # all of it gathered, and given


# ---- what a plan is told of the world --------------------------------------------------------


def test_deliver_with_a_table_known_makes_its_tools_and_items_there() -> None:
    for item in ("cobblestone", "stone_pickaxe", "furnace"):
        told = deliver_plan("gatherer", {"target": item, "amount": 3, "to": "b2", "facts": TABLE}, {})
        alone = deliver_plan("gatherer", {"target": item, "amount": 3, "to": "b2"}, {})
        assert not TABLE_STEPS & {s.id for s in told.steps} and {s.id for s in alone.steps} >= TABLE_STEPS, item
        simulate(told.steps, {}, TABLE)


def test_the_runtime_tells_craft_and_deliver_plans_of_a_table_in_sight(ctx: ToolContext, body: FakeBody) -> None:
    # a craft may smelt (an iron pickaxe's ingots), so it reads a furnace too; a delivery only a table
    assert WORLD_FACTS["craft_plan"] is WORLD_FACTS["smelt_plan"] and WORLD_FACTS["deliver_plan"] is not None
    body.inventory.clear()
    agents = load_default_registry()
    rt = AgentRuntime(agents, default_tool_registry(), ctx)
    tasks = {
        "crafter": TaskSpec(action="craft", target="wooden_pickaxe"),
        "gatherer": TaskSpec(action="deliver", target="cobblestone", amount=3, to="b2"),
    }

    def planned() -> dict[str, set[str]]:
        return {a: {s.id for s in run(rt.workflow_for(agents.require(a), t)).steps} for a, t in tasks.items()}

    assert all(ids >= TABLE_STEPS for ids in planned().values())
    body.blocks[(3, GROUND_Y, 0)] = "crafting_table"
    for agent, ids in planned().items():
        assert not TABLE_STEPS & ids and "craft-wooden-pickaxe" in ids, agent
