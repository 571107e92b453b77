"""The spine on the real embedded server through the real bridge."""

from __future__ import annotations

import math
import os
import signal

import pytest

from agency.world import ActionState, EventType
from bot.runtime.server import EmbeddedServer, free_port
from tests.conftest import make_body, wait_until, world_settings


def _ground_below(body):
    p = body.snapshot().position
    return math.floor(p.x), math.floor(p.y), math.floor(p.z)


@pytest.mark.one_version(reason="the bridge's round trips do not depend on the protocol")
def test_a_helper_is_read_from_node_once_then_every_call_is_one_round_trip(bridge):
    """JSPyBridge reads `mod.fn` with a round trip of its own: the bridge keeps the helper."""
    from javascript import config  # noqa: PLC0415 - importing it starts node: the bridge fixture's job first

    exe, reads = config.executor, []
    original = exe.getProp
    exe.getProp = lambda ffid, attr: (reads.append(attr), original(ffid, attr))[1]
    try:
        for _ in range(3):
            assert bridge.call("ping") == "pong"
            assert "heapUsed" in bridge.call("memory")
    finally:
        del exe.getProp  # the class's method again
    assert reads.count("ping") <= 1 and reads.count("memory") <= 1, reads


def test_connect_reads_a_sane_snapshot(live_body):
    s = live_body.snapshot()
    assert s.health == 20 and s.food == 20
    assert s.gameMode == "survival"
    assert s.dimension == "overworld"
    assert all(math.isfinite(v) for v in (s.position.x, s.position.y, s.position.z))
    assert 0 <= s.timeOfDay < 24000 and s.ts > 0


def test_dig_a_block_and_see_it_gone_in_a_region_read(live_body):
    x, y, z = _ground_below(live_body)
    target = (x + 1, y - 1, z)  # the ground block beside the bot's feet
    before = live_body.region(target, (1, 1, 1)).block_at(*target)
    assert before not in (None, "air")
    st = live_body.start_action("dig", {"x": target[0], "y": target[1], "z": target[2]})
    done = live_body.wait_action(st.id, max_s=40)
    assert done.state is ActionState.done, done.error
    wait_until(lambda: live_body.region(target, (1, 1, 1)).block_at(*target) == "air", 10, f"{target} to read as air")


def test_place_a_block_and_see_it(live_body):
    x, y, z = _ground_below(live_body)
    target = (x - 2, y, z)  # on top of the ground, two blocks west
    live_body.chat("/give mcbot_test dirt 4")
    wait_until(lambda: live_body.snapshot().count_of("dirt") >= 1, 10, "dirt in the inventory")
    st = live_body.start_action("place", {"x": target[0], "y": target[1], "z": target[2], "block": "dirt"})
    done = live_body.wait_action(st.id, max_s=20)
    assert done.state is ActionState.done, done.error
    wait_until(lambda: live_body.region(target, (1, 1, 1)).block_at(*target) == "dirt", 10, f"dirt at {target}")


def test_time_set_night_reads_isDay_false(live_body):
    live_body.chat("/time set 18000")
    wait_until(lambda: not live_body.snapshot().isDay, 10, "isDay to turn false")
    assert 17000 <= live_body.snapshot().timeOfDay <= 19000
    live_body.chat("/time set 1000")
    wait_until(lambda: live_body.snapshot().isDay, 10, "isDay to turn true again")


def test_op_damage_arrives_as_a_health_event(live_body):
    live_body.events()
    live_body.chat("/mcbot damage mcbot_test 4")
    seen = []

    def hurt():
        seen.extend(live_body.events())
        return [e for e in seen if e.type is EventType.health and e.data["health"] <= 16]

    wait_until(hurt, 10, "a health event at or below 16")
    live_body.chat("/mcbot health mcbot_test 20")
    wait_until(lambda: live_body.snapshot().health == 20, 10, "health restored")


def test_bot_reconnects_by_itself_after_server_restart(bridge, mc_version):
    server = EmbeddedServer(world_settings(port=free_port(), version=mc_version, hostiles=False))
    server.start()
    try:
        body = make_body(bridge, server.port, "mcbot_restart", reconnect_min_s=1.0, reconnect_max_s=2.0)
        server.stop()
        wait_until(lambda: any(e.type is EventType.end for e in body.events()), 20, "the bot's end event")
        assert body.maintain() is False
        server.start()
        wait_until(body.maintain, 30, "the bot to reconnect")
        assert body.snapshot().health > 0
        assert body.reconnects >= 1
        body.close()
    finally:
        server.stop()


@pytest.mark.one_version(reason="rebuilding a killed bridge is the daemon's, not the protocol")
def test_killed_node_is_detected_and_rebuilt_with_a_fresh_bot(bridge, live_body):
    old_pid, old_bot, old_gen = bridge.node_pid, live_body.bot_id, bridge.generation
    os.kill(old_pid, signal.SIGKILL)
    wait_until(lambda: not bridge.alive, 5, "the bridge to be declared dead (<= 5 s)")
    assert bridge.dead_reason == "node process killed from outside (SIGKILL)"
    wait_until(live_body.maintain, 60, "bridge rebuild and reconnect")
    assert bridge.generation == old_gen + 1
    assert bridge.node_pid != old_pid
    assert live_body.bot_id is not None and live_body.snapshot().health > 0
    assert (live_body.bot_id, bridge.node_pid) != (old_bot, old_pid)
