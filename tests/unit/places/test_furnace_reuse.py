"""The remembered furnace: a smelt walks to one still standing within the reuse distance
instead of placing the furnace it holds, and the drive tick counts it as had (no second furnace
crafted); a furnace found gone is forgotten. Fake block world, frozen clock, a real SQLite file."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from loguru import logger

from agency.execution.builtin_tools import default_tool_registry
from agency.places.home import HOOK as HOME_HOOK
from agency.places.memory import HOOK, PlaceMemory
from agency.places.store import PlaceStore
from agency.tools import ToolContext
from agency.tools.testing import GROUND_Y, FakeTime
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency
from tests.unit.tools.test_smelting import SmeltBody

WORLD = "server:127.0.0.1:25565"
FURNACE = (30, GROUND_Y, 3)  # beyond the smelter's 16-block search, within 48


@pytest.fixture
def ftime() -> FakeTime:
    return FakeTime()


@pytest.fixture
def body(ftime):
    b = SmeltBody(ftime.clock, inventory={"raw_iron": 2, "coal": 1, "furnace": 1})
    b.blocks[FURNACE] = "furnace"
    return b


@pytest.fixture
def memory(tmp_path, ftime):
    store = PlaceStore(tmp_path / "agency.db", clock=ftime.clock)
    yield PlaceMemory(store, lambda: WORLD)
    store.close()


@pytest.fixture
def logs():
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    yield lines
    logger.remove(sink)


def _smelt(body, ftime, memory=None):
    ctx = ToolContext(
        body=body,
        clock=ftime.clock,
        sleep=ftime.sleep,
        poll_interval_s=0.1,
        hooks={HOOK: memory} if memory is not None else {},
    )
    return asyncio.run(default_tool_registry().execute("smelt", {"item": "iron_ingot", "count": 2}, ctx))


def test_a_smelt_walks_to_a_remembered_furnace_instead_of_placing_the_one_it_holds(body, ftime, memory, logs):
    memory.placed("furnace", *FURNACE)
    res = _smelt(body, ftime, memory)
    assert res.success, res.error
    assert res.output["furnace"] == dict(zip("xyz", FURNACE, strict=True)) and res.output["furnaceFrom"] == "remembered"
    assert [k for k, _ in body.started if k == "place"] == [] and body.inventory["furnace"] == 1
    walked = [a for k, a in body.started if k == "move_to"]
    assert walked and (walked[-1]["x"], walked[-1]["z"]) == (FURNACE[0] + 0.5, FURNACE[2] + 0.5)
    assert body.inventory["iron_ingot"] == 2
    assert any(line.startswith(f"[Places] reusing furnace at {FURNACE[0]} {FURNACE[1]} {FURNACE[2]}") for line in logs)


def test_without_the_memory_the_held_furnace_is_placed(body, ftime):
    res = _smelt(body, ftime)
    assert res.success, res.error
    assert [a["block"] for k, a in body.started if k == "place"] == ["furnace"] and res.output[
        "furnaceFrom"
    ] == "placed"
    assert list(body.blocks.values()).count("furnace") == 2


def test_a_remembered_furnace_found_gone_is_forgotten_and_the_held_one_placed(body, ftime, memory, logs):
    memory.placed("furnace", *FURNACE)
    del body.blocks[FURNACE]
    res = _smelt(body, ftime, memory)
    assert res.success, res.error
    assert res.output["furnaceFrom"] == "placed"
    assert f"[Places] furnace at {FURNACE[0]} {FURNACE[1]} {FURNACE[2]} forgotten: block gone (now air)" in logs


def _agency(tmp_path, ftime, body):
    body.connected = True
    body.settings = SimpleNamespace(host="127.0.0.1", port=25565)  # a server's address: its world id
    agency = Agency(
        McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "daemon.db")}}), clock=ftime.clock
    )
    agency.attach_body(body, embedded=False)
    return agency


def test_the_drive_tick_counts_a_remembered_furnace_and_asks_for_no_second_one(tmp_path, ftime, body):
    body.inventory.clear()
    body.inventory.update(
        {
            "oak_log": 20,
            "crafting_table": 1,
            "stone_pickaxe": 1,
            "stone_sword": 1,
            "cobblestone": 8,
            "cooked_beef": 4,
            "white_bed": 1,
        }
    )
    agency = _agency(tmp_path, ftime, body)
    try:
        snap = body.snapshot()
        assert asyncio.run(agency.drive.reads.furnace_nearby(snap, ftime.clock())) is False  # none remembered yet
        agency.places.placed("furnace", *FURNACE)
        assert asyncio.run(agency.drive.reads.furnace_nearby(snap, ftime.clock())) is True
        agency.last_snapshot = snap
        asyncio.run(agency.job_drive_tick())
        [thought] = agency.stream.recent(5)
        assert thought.metadata.goalKey == "craft:iron_pickaxe"  # the step after the furnace: not craft:furnace
        # the tick just fired: a tick's reads wait for its interval, DriveJob.goals_now's (now_ms None) do not
        unread = {"table_nearby": None, "furnace_nearby": None, "bed_known": None}  # table and bed held: never read
        assert asyncio.run(agency.drive.reads.places_nearby(snap, ftime.clock())) == unread
        assert asyncio.run(agency.drive.reads.places_nearby(snap, None)) == {**unread, "furnace_nearby": True}
        del body.blocks[FURNACE]  # broken: memory does not outlive the block
        ftime.clock.advance(agency.drive_config.interval_ms)
        assert asyncio.run(agency.drive.reads.furnace_nearby(body.snapshot(), ftime.clock())) is False
        assert agency.places.store.list(WORLD) == []
    finally:
        agency.close()


def test_the_drive_tick_counts_a_remembered_bed_and_crafts_no_second_one(tmp_path, ftime, body):
    # beyond the places' reuse distance (48 m), as far as the hut is walked back to (96 m)
    bed = ((80, GROUND_Y, 5), (81, GROUND_Y, 5))
    far = ((110, GROUND_Y, 5), (111, GROUND_Y, 5))  # beyond it: another bed is made where the bot is
    village = ((20, GROUND_Y, 5), (21, GROUND_Y, 5))  # seen, not placed: not the bed of the bot's hut
    body.inventory.clear()
    body.inventory.update(
        {"oak_log": 20, "crafting_table": 1, "iron_pickaxe": 1, "stone_sword": 1, "cooked_beef": 4, "white_wool": 3}
    )
    agency = _agency(tmp_path, ftime, body)
    try:
        assert agency.tool_ctx.hooks[HOME_HOOK] == agency.goals.home  # the explore's home: the goals' hut
        snap = body.snapshot()
        assert asyncio.run(agency.drive.reads.bed_known(snap, ftime.clock())) is False  # none remembered yet
        agency.last_snapshot = snap
        asyncio.run(agency.job_drive_tick())
        assert agency.stream.recent(5)[0].metadata.goalKey == "craft:white_bed"  # 3 wool, no bed known
        for cell in far + village:
            body.blocks[cell] = "white_bed"
        agency.places.placed("white_bed", *far[0])
        agency.places.saw("white_bed", *village[0])
        ftime.clock.advance(agency.drive_config.interval_ms)
        assert asyncio.run(agency.drive.reads.bed_known(body.snapshot(), ftime.clock())) is False
        for cell in bed:
            body.blocks[cell] = "white_bed"
        agency.places.placed("white_bed", *bed[0])
        ftime.clock.advance(agency.drive_config.interval_ms)
        assert asyncio.run(agency.drive.reads.bed_known(body.snapshot(), ftime.clock())) is True
        asyncio.run(agency.job_drive_tick())
        keys = [t.metadata.goalKey for t in agency.stream.recent(5)]
        assert len(keys) == 2 and keys.count("craft:white_bed") == 1, keys  # the placed bed counts: no second one
    finally:
        agency.close()
