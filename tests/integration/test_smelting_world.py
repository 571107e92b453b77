"""Smelting in the embedded world through the real bridge: a `smelt` task planned by the
crafter and carried out by the smelt tool (a furnace placed from the inventory, raw iron and
coal in, ingots out), and a smelt stopped half-way that takes back what it had not smelted and a
second call that smelts it."""

from __future__ import annotations

import asyncio

import pytest

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.tools import ToolContext
from agency.tools.results import CANCELLED
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import block_at, give, stone_pad


@pytest.fixture(scope="module")
def smelter(bridge, embedded_server):  # one login for the module: quick relogs get refused
    body = make_body(bridge, embedded_server.port, "smelter_bot")
    yield body
    body.close()


def test_a_smelt_task_places_a_furnace_and_smelts_two_iron_ingots(smelter):
    body = smelter
    stone_pad(body, "smelter_bot", 700, 70, 700, r=4, headroom=3)
    give(body, "smelter_bot", {"raw_iron": 2, "coal": 1, "furnace": 1})
    tools = default_tool_registry()
    rt = AgentRuntime(load_default_registry(), tools, ToolContext(body=body, poll_interval_s=0.1))
    task = TaskSpec(action="smelt", target="iron_ingot", amount=2, id="task-smelt-1")
    assert rt.choose_agent(task).id == "crafter"
    res = asyncio.run(rt.run_task(task))
    assert res.status == "completed", res.errors
    assert tools.call_counts["smelt"] == 1
    snap = body.snapshot()
    assert snap.count_of("iron_ingot") == 2
    assert snap.count_of("raw_iron") == 0 and snap.count_of("coal") == 0 and snap.count_of("furnace") == 0
    out = next(o.output for o in res.steps if o.stepId == "smelt-iron-ingot")
    f = out["furnace"]
    assert out["smelted"] == 2 and out["furnaceFrom"] == "placed"
    assert [dict(x) for x in out["fuel"]] == [{"name": "coal", "count": 1}]
    # a real block in the world, still standing (read again while the bot's chunk is (re)sent: None is unloaded)
    wait_until(lambda: block_at(body, f["x"], f["y"], f["z"]) == "furnace", 10, f"a furnace block at {f}")


def test_a_stopped_smelt_takes_back_what_is_not_smelted_and_the_next_call_smelts_it(smelter):
    """Stopped while it cooks (a reflex, the night's shelter), the input not smelted yet and what
    is done come back to the inventory: left in the furnace, a bench bot's raw iron was lost to
    it once it slept elsewhere, and its plan mined the iron again."""
    body = smelter
    x, y, z = 760, 70, 700
    stone_pad(body, "smelter_bot", x, y, z, r=4, headroom=3)
    body.chat(f"/mcbot setblock {x + 2} {y} {z} furnace[facing=west]")
    wait_until(lambda: block_at(body, x + 2, y, z) == "furnace", 10, "a furnace beside the bot")
    give(body, "smelter_bot", {"cobblestone": 3, "coal": 2})
    tools = default_tool_registry()
    ctx = ToolContext(body=body, poll_interval_s=0.1)

    async def stopped_after_loading():
        call = asyncio.ensure_future(tools.execute("smelt", {"item": "stone", "count": 3}, ctx))
        await asyncio.sleep(0.2)
        while body.snapshot().count_of("cobblestone") > 0 and not call.done():  # loaded into the furnace
            await asyncio.sleep(0.1)
        await asyncio.sleep(2)
        ctx.stop.set("reflex: a zombie")  # what the reflex arbiter's preemption does to a running tool
        return await call

    first = asyncio.run(stopped_after_loading())
    assert not first.success and first.error.code == CANCELLED, first.error
    assert body.snapshot().count_of("cobblestone") < 3  # it was in the furnace when the stop came

    def taken_back() -> bool:
        snap = body.snapshot()
        return snap.count_of("cobblestone") + snap.count_of("stone") == 3

    wait_until(taken_back, 10, "the cobblestone and the stone back in the inventory")
    assert body.snapshot().count_of("coal") == 1  # one coal burns for 8 items: it was burning
    # a resumed task smelts what the bot holds again, in the same furnace
    res = asyncio.run(
        tools.execute(
            "smelt", {"item": "stone", "count": 3, "ensure": True}, ToolContext(body=body, poll_interval_s=0.1)
        )
    )
    assert res.success, res.error
    assert res.output["furnaceFrom"] is None and res.output["furnace"] == {"x": x + 2, "y": y, "z": z}
    assert body.snapshot().count_of("stone") == 3 and body.snapshot().count_of("cobblestone") == 0


def test_smooth_stone_is_smelted_twice_cobblestone_to_stone_to_smooth_stone_in_one_furnace(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, "smooth_bot")  # empty hands: no stone held from above
    try:
        stone_pad(body, "smooth_bot", 820, 70, 700, r=4, headroom=3)
        # a coal for each smelt: the plan does not count on the first one's coal still burning
        # one of each: two smelts of one item show the chain as well as two of two, 20 s sooner
        give(body, "smooth_bot", {"cobblestone": 1, "coal": 2, "furnace": 1})
        tools = default_tool_registry()
        rt = AgentRuntime(load_default_registry(), tools, ToolContext(body=body, poll_interval_s=0.1))
        res = asyncio.run(rt.run_task(TaskSpec(action="smelt", target="smooth_stone", amount=1, id="task-smelt-3")))
        assert res.status == "completed", res.errors
        assert [o.stepId for o in res.steps] == ["smelt-stone", "smelt-smooth-stone"]
        assert tools.call_counts["smelt"] == 2
        snap = body.snapshot()
        assert snap.count_of("smooth_stone") == 1
        assert snap.count_of("cobblestone") == 0 and snap.count_of("stone") == 0
    finally:
        body.close()
