"""The head-free reflex in the embedded world through the real bridge: a block placed at the
bot's head (the world suffocates it there, 1 health every 10 ticks: node/plugins/hazards.js)
shows in its snapshot (`inWall`), and the reflex digs it; a column of gravel over it falls
into the cell dug and is dug in turn until the head is in the open."""

from __future__ import annotations

import asyncio
import math

import pytest

from agency.execution.reflexes import ReflexConfig
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import block_at, fill, give, reflexes_on, restore_vitals, teleport

NAME = "walled"


@pytest.fixture
def walled(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, NAME)
    yield body
    body.close()


def test_a_block_at_the_head_and_the_gravel_over_it_are_dug_until_the_head_is_free(walled, tmp_path):
    body = walled
    spawn = body.snapshot().position
    x, y, z = math.floor(spawn.x) + 40, math.floor(spawn.y), math.floor(spawn.z) - 40  # away from the others
    # a shaft of bedrock around the bot's cells; stone at its head and four gravel over that
    fill(body, (x - 1, y - 1, z - 1), (x + 1, y + 8, z + 1), "bedrock")
    fill(body, (x, y, z), (x, y + 7, z), "air")
    body.chat("/time set 1000")
    teleport(body, NAME, x, y, z)
    restore_vitals(body, NAME)
    give(body, NAME, {"iron_pickaxe": 1, "iron_shovel": 1})  # a miner's tools: stone by hand takes 7.5 s, 15 health
    wait_until(lambda: body.snapshot().health == 20, 10, "the bot at full health")
    fill(body, (x, y + 1, z), (x, y + 1, z), "stone")
    fill(body, (x, y + 2, z), (x, y + 5, z), "gravel")  # held up by the stone under it
    wait_until(lambda: body.snapshot().inWall, 10, "the head in the stone")
    wait_until(lambda: body.snapshot().health < 20, 10, "the world suffocating the bot")

    # the reflexes' own clock: a dig that failed is tried again 5 s later on it
    reflexes = reflexes_on(body, tmp_path / "t.db", ReflexConfig(shelter_at_night=False, forage=False))
    said = []

    def free() -> bool:
        said.append(asyncio.run(reflexes.tick(body.snapshot())))
        # the column gone (dug, or fallen into the feet cell) and the eyes in the open
        column = [block_at(body, x, y + dy, z) for dy in range(2, 6)]
        return not body.snapshot().inWall and column == ["air"] * 4

    wait_until(free, 90, "the head dug free of the stone and every gravel", poll_s=0.5)
    assert "free_head" in said, said
    # the stone and the gravel that fell into the cell dug (one may land in the feet cell instead)
    dug = sum(entry.get("dug", 0) for entry in reflexes.stats.log if entry.get("reflex") == "free_head")
    assert dug >= 2 and reflexes.stats.heads_freed >= 1, reflexes.stats.log
    assert body.snapshot().health > 0
