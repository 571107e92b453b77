"""A chance drop obtained in the world: `collect flint` (what `obtain flint` becomes) digs the
gravel beside the bot until a flint drops (the embedded world drops one in ten, as vanilla,
drawn from the seed, the cell and the blocks dug there before: node/plugins/drops.js, so a
bank gives the same flint every run). 110 gravel blocks: all dug for none is a chance of 1 in
100 000 for a seed.
`collect wheat_seeds` cuts short grass (`grass` at 1.18.2) until a seed drops, one in eight:
105 tufts all cut for none is a chance of 1 in 1 000 000. Both are blocks a ray goes through
(no collision box), as are the flowers picked for dyes (node/lib/actions/pick_plant.js).
The seeds and the low block at every version; the flint at one (its draw is the embedded
world's, node/plugins/drops.js, and 17 blocks dug take a minute of make test's 25)."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

import pytest

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.tools import ToolContext
from agency.tools.actions import run_action
from tests.conftest import make_body
from tests.integration.world_setup import block_at, fill, stone_pad


@contextmanager
def on_pad(bridge, embedded_server, name, x, y, z, headroom=3):
    """A bot of its own on a stone pad of its own (r 8), logged out after the test."""
    body = make_body(bridge, embedded_server.port, name)
    try:
        stone_pad(body, name, x, y, z, r=8, headroom=headroom)
        yield body
    finally:
        body.close()


def collect(body, target, amount, task_id):
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), ToolContext(body=body, poll_interval_s=0.1))
    res = asyncio.run(rt.run_task(TaskSpec(action="collect", target=target, amount=amount, id=task_id)))
    assert res.status == "completed", res.errors


@pytest.mark.one_version(reason="the chance drop's draw is the embedded world's; a collect is tested per version")
def test_flint_is_collected_by_digging_gravel_until_one_drops(bridge, embedded_server):
    x, y, z = 760, 70, 760
    with on_pad(bridge, embedded_server, "flint_bot", x, y, z) as body:
        fill(body, (x + 2, y, z - 5), (x + 6, y + 1, z + 5), "gravel")
        collect(body, "flint", 1, "task-flint-1")
        snap = body.snapshot()
        assert snap.count_of("flint") >= 1
        print(f"flint after digging: {snap.count_of('gravel')} gravel picked up on the way")


def test_wheat_seeds_and_poppies_are_collected_where_a_ray_goes_through_the_block(bridge, embedded_server):
    x, y, z = 880, 70, 760
    with on_pad(bridge, embedded_server, "seeds_bot", x, y, z) as body:
        fill(body, (x + 1, y - 1, z - 7), (x + 7, y - 1, z + 7), "grass_block")
        fill(body, (x + 1, y, z - 7), (x + 7, y, z + 7), "short_grass")
        collect(body, "wheat_seeds", 1, "task-seeds-1")
        assert body.snapshot().count_of("wheat_seeds") >= 1
        fill(body, (x - 5, y - 1, z - 2), (x - 3, y - 1, z + 2), "grass_block")
        fill(body, (x - 5, y, z - 2), (x - 3, y, z + 2), "poppy")
        collect(body, "poppy", 3, "task-poppy-1")
        assert body.snapshot().count_of("poppy") >= 3


def test_a_collect_under_a_ceiling_takes_the_low_block_past_nearer_ones_above_it(bridge, embedded_server):
    # Under cover at night a collect takes nothing over the bot's head + 1 (agency/tools/gathering.py):
    # 21 sponges floating 3 over the pad, the nearest; one on the pad 7 blocks off (no sponge
    # grows in the overworld: no other in reach). mineflayer's findBlocks keeps the nearest
    # `count` it finds: the ceiling must be part of the search.
    x, y, z = 940, 70, 760
    with on_pad(bridge, embedded_server, "ceiling_bot", x, y, z, headroom=4) as body:
        fill(body, (x - 3, y + 3, z - 1), (x + 3, y + 3, z + 1), "sponge")
        fill(body, (x - 7, y, z), (x - 7, y, z), "sponge")
        ctx = ToolContext(body=body, poll_interval_s=0.1)
        out = asyncio.run(run_action(ctx, "collect", {"block": "sponge", "count": 1, "maxDistance": 32, "maxY": y + 1}))
        assert out["gained"] == 1, out
        assert block_at(body, x - 7, y, z) == "air"
        assert all(block_at(body, x + dx, y + 3, z) == "sponge" for dx in range(-3, 4))
