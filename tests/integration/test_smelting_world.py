"""Smelting in the embedded world through the real bridge: a `smelt` task planned by the
crafter and carried out by the smelt tool (a furnace placed from the inventory, raw iron and
coal in, ingots out), and a smelt stopped half-way that a second call finishes."""

from __future__ import annotations

import asyncio

import pytest

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.tools import ToolContext
from agency.execution.tools.results import CANCELLED
from tests.conftest import make_body, wait_until


def _block(body, x, y, z):
    return body.region((x, y, z), (1, 1, 1)).block_at(x, y, z)


def _pad(body, name, x, y, z, r=4):
    """A stone floor with clear air above, the bot standing in its middle."""
    body.chat(f"/mcbot fill {x - r} {y - 1} {z - r} {x + r} {y - 1} {z + r} stone")
    body.chat(f"/mcbot fill {x - r} {y} {z - r} {x + r} {y + 3} {z + r} air")
    for attempt in range(3):  # a loaded machine can be slow to move the bot far: ask again
        body.chat(f"/mcbot tp {name} {x} {y} {z}")
        try:
            wait_until(lambda: abs(body.snapshot().position.x - (x + 0.5)) < 1.5
                       and abs(body.snapshot().position.z - (z + 0.5)) < 1.5, 10, f"{name} teleported")
            break
        except AssertionError:
            if attempt == 2:
                raise
    wait_until(lambda: _block(body, x, y - 1, z) == "stone" and _block(body, x + r, y, z + r) == "air", 10, "the pad")
    if body.snapshot().position.y < y - 0.5:  # the chunks came before the fill: back on top
        body.chat(f"/mcbot tp {name} {x} {y} {z}")
    wait_until(lambda: abs(body.snapshot().position.y - y) < 0.5, 10, f"{name} on the pad")


def _give(body, name, item, n):
    before = body.snapshot().count_of(item)
    body.chat(f"/give {name} {item} {n}")
    wait_until(lambda: body.snapshot().count_of(item) >= before + n, 10, f"{n} {item} given")


@pytest.fixture(scope="module")
def smelter(bridge, embedded_server):  # one login for the module: quick relogs get refused
    body = make_body(bridge, embedded_server.port, "smelter_bot")
    yield body
    body.close()


def test_a_smelt_task_places_a_furnace_and_smelts_two_iron_ingots(smelter):
    body = smelter
    _pad(body, "smelter_bot", 700, 70, 700)
    for item, n in (("raw_iron", 2), ("coal", 1), ("furnace", 1)):
        _give(body, "smelter_bot", item, n)
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
    assert _block(body, f["x"], f["y"], f["z"]) == "furnace"  # a real block in the world, still standing


def test_a_stopped_smelt_leaves_its_items_in_the_furnace_and_the_next_call_takes_them_out(smelter):
    body = smelter
    x, y, z = 760, 70, 700
    _pad(body, "smelter_bot", x, y, z)
    body.chat(f"/mcbot setblock {x + 2} {y} {z} furnace[facing=west]")
    wait_until(lambda: _block(body, x + 2, y, z) == "furnace", 10, "a furnace beside the bot")
    for item, n in (("cobblestone", 3), ("coal", 2)):
        _give(body, "smelter_bot", item, n)
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
    snap = body.snapshot()
    assert snap.count_of("cobblestone") == 0 and snap.count_of("stone") == 0  # all in the furnace
    assert snap.count_of("coal") == 1  # one coal burns for 8 items
    # a resumed task: the items come out of the furnace, the coal already burning is counted
    res = asyncio.run(tools.execute("smelt", {"item": "stone", "count": 3, "ensure": True}, ToolContext(body=body, poll_interval_s=0.1)))
    assert res.success, res.error
    assert res.output["furnaceFrom"] is None and res.output["furnace"] == {"x": x + 2, "y": y, "z": z}
    assert res.output["fuel"] == ()  # nothing more put in: the burning coal covers the rest
    assert body.snapshot().count_of("stone") == 3 and body.snapshot().count_of("coal") == 1
