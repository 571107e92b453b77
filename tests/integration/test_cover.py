"""The cover reflex in the embedded world through the real bridge: a hurt bot in a cell at the
end of a deep trench, a skeleton shooting down it, retreats, finds no way off, closes the cell
with the blocks it holds (agency.shelter.cover), and takes no arrow while the skeleton
stands outside; healed and with the skeleton gone it digs the blocks again. Not healed in time
with a hostile still near, it digs up through the rock instead (leave_cover_up). Under ground,
no way away from a creeper, the bot walls off its side and the creeper never swells."""

from __future__ import annotations

import asyncio
import math

import pytest

from agency.clock import FrozenClock
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.tools import ToolContext
from agency.world import EventType
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import block_at, fill, give, reflexes_on, teleport

NAME = "coverer"
TUNNEL = 9  # blocks of trench in front of the bot; the skeleton stands 7 down it


@pytest.fixture
def coverer(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, NAME)
    yield body
    body.chat("/mcbot killall skeleton")
    body.close()


def _tick(reflexes, body) -> str | None:
    return asyncio.run(reflexes.tick(body.snapshot()))


def _into_cover(body, tmp_path, reflex: str, front: list[tuple[int, int, int]]) -> Reflexes:
    """Reflexes ticked until the bot is in cover after `reflex`, its `front` cells filled. Their
    time is the test's: the cover's waits (20 s at the least; out then when not healing) do
    not run out while the test watches on a loaded machine."""
    body.events()
    config = ReflexConfig(shelter_at_night=False, forage=False)
    reflexes = reflexes_on(body, tmp_path / "t.db", config, FrozenClock())
    said: list[str | None] = []

    def in_cover() -> bool:
        said.append(_tick(reflexes, body))
        return reflexes.stats.covers == 1

    wait_until(in_cover, 60, "the bot in cover", poll_s=0.25)
    assert reflex in said, said
    assert [block_at(body, *c) for c in front] == ["cobblestone", "cobblestone"]
    assert reflexes.holding_tasks
    return reflexes


def test_a_hurt_bot_cornered_by_a_skeleton_takes_cover_and_comes_out_healed(coverer, tmp_path):
    body = coverer
    spawn = body.snapshot().position
    x, y, z = math.floor(spawn.x) - 60, math.floor(spawn.y), math.floor(spawn.z) - 60  # away from the others
    # Bedrock: no way off by digging either (a flee digs through stone), and no sky (no skeleton
    # burns). In front of the bot's cell a trench 1 wide, 5 long and 11 deep, too deep to drop
    # into; beyond it the skeleton's ledge behind a wall to its waist, 7 blocks off, in sight and
    # out of reach.
    fill(body, (x - 2, y - 12, z - 2), (x + TUNNEL + 2, y + 3, z + 2), "bedrock")
    fill(body, (x, y, z), (x, y + 1, z), "air")
    fill(body, (x + 1, y - 10, z), (x + TUNNEL, y + 1, z), "air")
    fill(body, (x + 7, y - 10, z), (x + TUNNEL, y - 1, z), "bedrock")  # its ledge
    fill(body, (x + 6, y, z), (x + 6, y, z), "bedrock")  # and a wall to its waist: it stays, in sight
    body.chat("/time set 1000")
    teleport(body, NAME, x, y, z)
    give(body, NAME, {"cobblestone": 16})
    body.chat(f"/mcbot food {NAME} 17 0")  # below 18: no natural healing until the test heals it
    body.chat(f"/mcbot health {NAME} 5")
    wait_until(lambda: body.snapshot().health == 5, 10, "the bot hurt")
    body.chat(f"/mcbot summon skeleton {x + 7} {y} {z}")
    wait_until(lambda: any(e.name == "skeleton" for e in body.snapshot().entities), 15, "the skeleton in sight")
    front = [(x + 1, y, z), (x + 1, y + 1, z)]  # the cell's two open faces, over the trench
    reflexes = _into_cover(body, tmp_path, "retreat", front)
    health = body.snapshot().health
    assert health > 0

    # 100 game ticks (5 s) in cover with the skeleton outside: it never sees the bot, so it shoots no arrow
    start = body.snapshot().timeOfDay

    def waited() -> bool:
        _tick(reflexes, body)
        return body.snapshot().timeOfDay - start >= 100

    wait_until(waited, 60, "100 game ticks", poll_s=0.25)
    seen = body.snapshot().entities
    assert any(e.name == "skeleton" and e.distance <= 10 for e in seen), seen  # still there, on its ledge
    assert not [e for e in body.events() if e.type is EventType.death]
    assert body.snapshot().health >= health and reflexes.holding_tasks

    body.chat("/mcbot killall skeleton")
    body.chat(f"/mcbot health {NAME} 20")
    wait_until(lambda: _tick(reflexes, body) == "leave_cover", 30, "out of cover", poll_s=0.25)
    assert [block_at(body, *c) for c in front] == ["air", "air"]  # the way on as it was
    assert not reflexes.holding_tasks and reflexes.stats.log[-1] == {"reflex": "leave_cover", "ok": True}


def test_out_of_cover_upward_the_bot_digs_up_through_the_rock_to_the_surface(coverer):
    """leave_cover_up (the cover reflex's way out when not healed with a hostile still near):
    the placed roof dug, then up through six blocks of stone to the open sky; the cell's walls
    stay between the bot and what waits outside."""
    body = coverer
    spawn = body.snapshot().position
    x, y, z = math.floor(spawn.x) + 24, math.floor(spawn.y), math.floor(spawn.z) + 24  # away from the others
    fill(body, (x - 2, y - 1, z - 2), (x + 2, y + 8, z + 2), "stone")
    fill(body, (x - 2, y + 9, z - 2), (x + 2, y + 12, z + 2), "air")
    fill(body, (x, y, z), (x, y + 1, z), "air")
    fill(body, (x, y + 2, z), (x, y + 2, z), "cobblestone")  # the roof take_cover placed
    body.chat("/time set 1000")
    teleport(body, NAME, x, y, z)
    give(body, NAME, {"stone_pickaxe": 1, "cobblestone": 16})
    wait_until(lambda: body.snapshot().count_of("cobblestone") >= 16, 10, "the blocks held")
    tools = default_tool_registry()
    res = asyncio.run(
        tools.execute("leave_cover_up", {"cells": [[x, y + 2, z]]}, ToolContext(body=body, poll_interval_s=0.1))
    )
    assert res.success, res.error
    assert res.output["top"] == y + 8
    wait_until(lambda: body.snapshot().position.y >= y + 9, 10, "the bot on the surface over the rock")
    assert [block_at(body, x + 1, y, z), block_at(body, x - 1, y + 1, z)] == ["stone", "stone"]  # walls left


def _command(bridge, body, text: str) -> str:
    """An op command's reply (node/plugins/commands.js: each begins "mcbot: "), read from the
    server's messages as the bridge keeps them (node/lib/chat_guard.js)."""
    since = bridge.call_json("chatFacts", body.bot_id, 0)["seq"]
    body.chat(text)

    def replied() -> str | None:
        system = bridge.call_json("chatFacts", body.bot_id, since)["system"]
        return next((m["text"] for m in system if "mcbot:" in m["text"]), None)

    return str(wait_until(replied, 15, f"the reply to {text}"))


@pytest.mark.one_version(
    reason="the creeper's swell is the embedded world's (node/plugins/mob_kinds.js), the choice the daemon's; "
    "placing and digging the cover's blocks run at every version in the tests above"
)
def test_under_ground_a_creeper_the_bot_cannot_get_away_from_is_walled_off_and_never_swells(bridge, coverer, tmp_path):
    body = coverer
    spawn = body.snapshot().position
    x, y, z = math.floor(spawn.x) - 60, math.floor(spawn.y), math.floor(spawn.z) + 60  # away from the others
    # Bedrock all round and six blocks of it over the head (under ground); east of the bot's
    # cell a tunnel 1 wide, 2 high and 8 long, a dead end at both ends: nowhere to get away to.
    fill(body, (x - 2, y - 2, z - 2), (x + 10, y + 7, z + 2), "bedrock")
    fill(body, (x, y, z), (x + 8, y + 1, z), "air")
    body.chat("/time set 1000")
    teleport(body, NAME, x, y, z)
    give(body, NAME, {"cobblestone": 16, "stone_sword": 1})
    body.chat(f"/mcbot food {NAME} 20 5")
    body.chat(f"/mcbot health {NAME} 20")
    wait_until(lambda: body.snapshot().health == 20, 10, "the bot at full health")
    body.chat(f"/mcbot summon creeper {x + 6} {y} {z}")
    wait_until(lambda: any(e.name == "creeper" for e in body.snapshot().entities), 15, "the creeper in sight")
    # the game's ticks are the test's from here: the creeper comes on only when they are stepped
    _command(bridge, body, "/mcbot tick freeze")
    try:
        front = [(x + 1, y, z), (x + 1, y + 1, z)]  # the cell's two open faces, toward the creeper
        _into_cover(body, tmp_path, "evade", front)
        # 200 game ticks (10 s): in sight it would walk to within 3 blocks and blow up within 2 s
        _command(bridge, body, "/mcbot tick step 200")
        seen = body.snapshot()
        assert any(e.name == "creeper" for e in seen.entities), seen.entities  # never blew up
        assert seen.health == 20 and not [e for e in body.events() if e.type is EventType.death]
        assert [block_at(body, *c) for c in front] == ["cobblestone", "cobblestone"]
    finally:
        body.chat("/mcbot tick unfreeze")
        body.chat("/mcbot killall creeper")
