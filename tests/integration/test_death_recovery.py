"""Death recovery in the embedded world through the real bridge: a bot holding planks falls to
its death; the reflexes record the death with its cause (from the server's death message),
the bot respawns, walks back and picks its planks up again."""

from __future__ import annotations

import asyncio
import math

import pytest

from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.world import EventType
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import reflexes_on

NAME = "faller"
PLANKS = 12


@pytest.fixture
def faller(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, NAME)
    yield body
    body.close()


def _reflexes(body, tmp_path) -> Reflexes:
    return reflexes_on(body, tmp_path / "t.db", ReflexConfig(shelter_at_night=False))


def test_a_bot_that_fell_to_its_death_records_the_cause_respawns_and_picks_its_items_up(faller, tmp_path):
    body = faller
    spawn = body.snapshot().position
    x, y, z = math.floor(spawn.x) + 8, math.floor(spawn.y) + 1, math.floor(spawn.z)
    # a stone floor near the spawn with 14 blocks of air above it: a fall of 12 kills a bot at 4 hp
    body.chat(f"/mcbot fill {x - 6} {y - 1} {z - 6} {x + 6} {y - 1} {z + 6} stone")
    body.chat(f"/mcbot fill {x - 6} {y} {z - 6} {x + 6} {y + 14} {z + 6} air")
    wait_until(lambda: body.region((x, y - 1, z), (1, 1, 1)).block_at(x, y - 1, z) == "stone", 15, "the floor")
    body.chat("/time set 1000")
    body.chat(f"/give {NAME} oak_planks {PLANKS}")
    wait_until(lambda: body.snapshot().count_of("oak_planks") >= PLANKS, 15, "planks in hand")
    body.chat(f"/mcbot health {NAME} 4")
    wait_until(lambda: body.snapshot().health <= 4, 10, "4 hp")
    body.events()
    reflexes = _reflexes(body, tmp_path)
    seen = []

    def died():
        seen.extend(body.events())
        return any(e.type is EventType.death for e in seen)

    body.chat(f"/mcbot tp {NAME} {x} {y + 12} {z}")
    wait_until(died, 30, "the death event")
    death = next(e for e in seen if e.type is EventType.death)
    assert death.data["cause"] == "fall", death.data
    asyncio.run(reflexes.on_events(seen))
    assert reflexes.stats.deaths == 1 and reflexes.stats.death_causes == {"fall": 1}
    assert reflexes.death is not None and reflexes.holding_tasks
    assert abs(reflexes.death.position.x - (x + 0.5)) < 2 and abs(reflexes.death.position.z - (z + 0.5)) < 2
    wait_until(lambda: body.snapshot().health > 0, 30, "the respawn")
    assert body.snapshot().count_of("oak_planks") == 0  # dropped where it died

    outcomes = []

    def recovered():
        outcomes.append(asyncio.run(reflexes.tick(body.snapshot())))
        return reflexes.death is None

    wait_until(recovered, 120, "the walk back for the items", poll_s=0.5)
    assert "recover" in outcomes
    assert body.snapshot().count_of("oak_planks") == PLANKS
    assert reflexes.stats.items_recovered >= PLANKS and not reflexes.holding_tasks
