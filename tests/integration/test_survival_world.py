"""The embedded survival world, seen by a real bot through the real bridge."""

from __future__ import annotations

import pytest

from agency.world import ActionState, EventType
from bot.runtime.server import EmbeddedServer, free_port
from tests.conftest import make_body, wait_until, world_settings
from tests.integration.world_setup import feet, fill, stone_pad


@pytest.fixture(scope="module")
def arena_bots(bridge, embedded_server):
    open_bot = make_body(bridge, embedded_server.port, "open_bot")
    hut_bot = make_body(bridge, embedded_server.port, "hut_bot")
    yield open_bot, hut_bot
    open_bot.chat("/mcbot killall zombie")
    open_bot.chat("/time set 1000")
    open_bot.close()
    hut_bot.close()


def test_at_night_a_zombie_hurts_a_bot_in_the_open_but_not_one_in_a_closed_hut(arena_bots):
    open_bot, hut_bot = arena_bots
    y = 70
    ox, oz, hx, hz = 300, 300, 400, 300  # far from spawn and from each other
    stone_pad(open_bot, "open_bot", ox, y, oz)
    stone_pad(hut_bot, "hut_bot", hx, y, hz)
    # a closed 3x3 hut: planks walls and roof, an oak door shut on the north side
    fill(hut_bot, (hx - 2, y, hz - 2), (hx + 2, y + 3, hz + 2), "oak_planks")
    fill(hut_bot, (hx - 1, y, hz - 1), (hx + 1, y + 2, hz + 1), "air")
    hut_bot.chat(f"/mcbot setblock {hx} {y} {hz - 2} oak_door[facing=south,half=lower,open=false]")
    hut_bot.chat(f"/mcbot setblock {hx} {y + 1} {hz - 2} oak_door[facing=south,half=upper,open=false]")
    wait_until(lambda: hut_bot.region((hx, y + 3, hz), (1, 1, 1)).block_at(hx, y + 3, hz) == "oak_planks", 10, "roof")
    hut_bot.chat("/mcbot health hut_bot 20")
    open_bot.chat("/mcbot health open_bot 20")
    wait_until(lambda: hut_bot.snapshot().health == 20 and open_bot.snapshot().health == 20, 10, "full health")
    open_bot.chat("/time set 14000")
    wait_until(lambda: not open_bot.snapshot().isDay, 10, "night")
    open_bot.events(), hut_bot.events()
    open_bot.chat("/mcbot spawn zombie 1 open_bot 8")
    hut_bot.chat("/mcbot spawn zombie 1 hut_bot 6")
    wait_until(lambda: open_bot.snapshot().hostiles >= 1, 10, "the zombie near the open bot")
    # the hut's zombie is there, outside (it may stroll off later: it cannot see the bot)
    wait_until(lambda: hut_bot.snapshot().hostiles >= 1, 10, "the zombie near the hut")
    try:
        wait_until(lambda: open_bot.snapshot().health < 20, 45, "the zombie to hit the bot in the open")
    except AssertionError:
        open_bot.chat("/mcbot info")  # server-side view of mobs and players, for the report
        info = wait_until(lambda: [e.data for e in open_bot.events() if e.type is EventType.chat], 5, "info")
        raise AssertionError(f"no hit; bot {open_bot.snapshot().model_dump_json()}; server {info}") from None
    hut_events = hut_bot.events()
    assert not [e for e in hut_events if e.type is EventType.health and e.data["health"] < 20]
    assert hut_bot.snapshot().health == 20


def test_a_10_block_drop_deals_7_damage(bridge, embedded_server):
    faller = make_body(bridge, embedded_server.port, "faller")
    try:
        x, y, z = 500, 70, 300
        stone_pad(faller, "faller", x, y, z, r=2)
        faller.chat("/mcbot health faller 20")
        wait_until(lambda: faller.snapshot().health == 20, 5, "full health")
        faller.events()
        faller.chat(f"/mcbot tp faller {x} {y + 10} {z}")
        seen = []

        def landed_hurt():
            seen.extend(e for e in faller.events() if e.type is EventType.health)
            return [e for e in seen if e.data["health"] < 20]

        hurt = wait_until(landed_hurt, 15, "fall damage")
        assert hurt[0].data["health"] == 13  # vanilla: 10 blocks - 3 = 7
    finally:
        faller.close()


def test_a_placed_door_has_both_halves_and_toggles_open(live_body):
    x, y, z = feet(live_body)
    dx, dz = x + 3, z + 3
    fill(live_body, (dx - 1, y - 1, dz - 1), (dx + 1, y - 1, dz + 1), "stone")
    fill(live_body, (dx - 1, y, dz - 1), (dx + 1, y + 2, dz + 1), "air")
    live_body.chat("/give mcbot_test oak_door 1")
    wait_until(lambda: live_body.snapshot().count_of("oak_door") >= 1, 10, "a door in the inventory")
    st = live_body.wait_action(
        live_body.start_action("place", {"x": dx, "y": y, "z": dz, "block": "oak_door"}).id, max_s=20
    )
    assert st.state is ActionState.done, st.error
    region = live_body.region((dx, y, dz), (1, 2, 1))
    assert region.block_at(dx, y, dz) == "oak_door" and region.block_at(dx, y + 1, dz) == "oak_door"
    first = live_body.wait_action(live_body.start_action("activate", {"x": dx, "y": y, "z": dz}).id, max_s=10)
    assert first.state is ActionState.done, first.error
    second = live_body.wait_action(live_body.start_action("activate", {"x": dx, "y": y, "z": dz}).id, max_s=10)
    opened = [first.result["properties"]["open"], second.result["properties"]["open"]]
    assert opened in ([True, False], ["true", "false"])


def _act(body, kind, timeout_s=120, **args):
    st = body.wait_action(body.start_action(kind, args).id, max_s=timeout_s)
    assert st.state is ActionState.done, f"{kind} {args}: {st.state.value} {st.error}"
    return st.result


def test_wood_to_table_to_pickaxe_to_stone_through_the_bridge(bridge, embedded_server):
    bot = make_body(bridge, embedded_server.port, "lumberjack")
    try:
        got = _act(bot, "collect", block="oak_log", count=3, maxDistance=32)
        assert got["gained"] >= 3 and bot.snapshot().count_of("oak_log") >= 3
        _act(bot, "craft", item="oak_planks", times=3)  # 2x2 grid
        _act(bot, "craft", item="stick", times=1)
        _act(bot, "craft", item="crafting_table", times=1)
        snap = bot.snapshot()
        assert snap.count_of("oak_planks") >= 5 and snap.count_of("stick") >= 4 and snap.count_of("crafting_table") == 1
        x, y, z = feet(bot)
        bot.chat(f"/mcbot fill {x + 1} {y} {z - 1} {x + 2} {y + 1} {z + 1} air")
        bot.chat(f"/mcbot setblock {x + 2} {y - 1} {z} stone")
        wait_until(
            lambda: bot.region((x + 2, y, z), (1, 1, 1)).block_at(x + 2, y, z) == "air", 10, "room for the table"
        )
        _act(bot, "place", x=x + 2, y=y, z=z, block="crafting_table")
        assert bot.region((x + 2, y, z), (1, 1, 1)).block_at(x + 2, y, z) == "crafting_table"
        _act(bot, "craft", item="wooden_pickaxe", times=1, table={"x": x + 2, "y": y, "z": z})
        assert bot.snapshot().count_of("wooden_pickaxe") == 1
        # stone under the bot's feet: digging it drops the bot onto the cobblestone it yields
        bot.chat(f"/mcbot setblock {x} {y - 1} {z} stone")
        wait_until(lambda: bot.region((x, y - 1, z), (1, 1, 1)).block_at(x, y - 1, z) == "stone", 10, "stone below")
        _act(bot, "dig", x=x, y=y - 1, z=z)
        wait_until(lambda: bot.snapshot().count_of("cobblestone") >= 1, 10, "cobblestone picked up")
    finally:
        bot.close()


def test_food_drops_with_activity_and_bread_restores_breads_value(bridge, mc_version):
    server = EmbeddedServer(world_settings(port=free_port(), version=mc_version, hostiles=False, hunger_rate=40.0))
    server.start()
    try:
        bot = make_body(bridge, server.port, "eater")
        x, y, z = feet(bot)
        stone_pad(bot, "eater", x, y + 20, z, r=8)
        start = bot.snapshot().food
        for i in range(6):  # sprint back and forth across the pad (a metre walked costs no food: node/lib/walking.js)
            _act(bot, "move_to", timeout_s=30, x=x + (5 if i % 2 == 0 else -5), y=y + 20, z=z, range=1, sprint=True)
            if bot.snapshot().food < start:
                break
        assert bot.snapshot().food < start
        bot.chat("/mcbot food eater 10 0")
        bot.chat("/give eater bread 1")
        wait_until(lambda: bot.snapshot().count_of("bread") == 1 and bot.snapshot().food == 10, 10, "bread, food 10")
        ate = _act(bot, "consume", timeout_s=15, item="bread")
        assert ate["ate"] == "bread"
        wait_until(lambda: bot.snapshot().food == 15, 5, "food 10 + bread's 5")
        bot.close()
    finally:
        server.stop()
