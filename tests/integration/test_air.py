"""The air reflex in the embedded world through the real bridge: a bot on the floor of a pool
five blocks deep loses its air (plugins/hazards.js, the air bubbles mineflayer reads as
bot.oxygenLevel), the reflex swims it up and onto the pool's dry rim, and it never drowns."""

from __future__ import annotations

import asyncio
import math

import pytest

from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.world import EventType
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import reflexes_on

NAME = "diver"
DEPTH = 5


@pytest.fixture
def diver(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, NAME)
    yield body
    body.close()


def _reflexes(body, tmp_path) -> Reflexes:
    return reflexes_on(body, tmp_path / "t.db", ReflexConfig(shelter_at_night=False, forage=False))


def test_a_bot_on_a_pools_floor_swims_up_for_air_and_out_before_it_drowns(diver, tmp_path):
    body = diver
    spawn = body.snapshot().position
    x, y, z = math.floor(spawn.x) - 30, math.floor(spawn.y), math.floor(spawn.z) + 30  # away from the others
    # a stone basin 7 wide inside, DEPTH deep, its rim at the ground's level, dry stone around it
    body.chat(f"/mcbot fill {x - 8} {y - DEPTH - 1} {z - 8} {x + 8} {y - 1} {z + 8} stone")
    body.chat(f"/mcbot fill {x - 8} {y} {z - 8} {x + 8} {y + 4} {z + 8} air")
    body.chat(f"/mcbot fill {x - 3} {y - DEPTH} {z - 3} {x + 3} {y - 1} {z + 3} water")
    floor = y - DEPTH
    wait_until(lambda: body.region((x, floor, z), (1, 1, 1)).block_at(x, floor, z) == "water", 15, "the pool")
    body.chat("/time set 1000")
    body.chat(f"/mcbot tp {NAME} {x} {floor} {z}")
    wait_until(lambda: body.snapshot().position.y < y - 2, 15, "the bot on the pool's floor")
    body.events()
    reflexes = _reflexes(body, tmp_path)
    seen, outcomes, air = [], [], []

    def out_and_dry() -> bool:
        seen.extend(body.events())
        snap = body.snapshot()
        if snap.oxygen is not None:
            air.append(snap.oxygen)
        outcomes.append(asyncio.run(reflexes.tick(snap)))
        feet = body.region(
            (math.floor(snap.position.x), math.floor(snap.position.y), math.floor(snap.position.z)), (1, 2, 1)
        )
        p = snap.position
        wet = {feet.block_at(math.floor(p.x), math.floor(p.y) + d, math.floor(p.z)) for d in (0, 1)} & {"water"}
        return "surface" in outcomes and not wet and snap.position.y >= y - 0.5

    # 300 ticks of air (15 s), then 2 damage a second: 40 s is well past a drowning
    wait_until(out_and_dry, 40, "the bot out of the pool, dry", poll_s=0.25)
    assert not [e for e in seen if e.type is EventType.death], seen
    assert air and min(air) <= ReflexConfig().surface_below_air, air  # it waited for its air to run low
    assert body.snapshot().health > 0 and reflexes.stats.surfaced >= 1
