"""Planning with the place memory: a craft that needs a table walks to a remembered one
still standing instead of crafting a second; a gone one is forgotten and a new table
placed (and remembered); the crafter's workflow plans no table when one is known; the
daemon's drive tick counts a remembered table as had, after a restart in the same world
and not in another one. Fake block world, frozen clock, a real SQLite file."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient
from loguru import logger

from agency.execution.agents.generators import WORLD_FACTS
from agency.execution.agents.planning import craft_plan
from agency.execution.builtin_tools import default_tool_registry
from agency.places.memory import HOOK, PlaceMemory
from agency.places.settings import PlacesConfig
from agency.places.store import PlaceStore
from agency.tools import ToolContext
from agency.tools.testing import GROUND_Y, FakeBody, FakeTime
from bot.config.loader import McbotConfig
from bot.runtime.api import create_app
from bot.runtime.wiring import Agency
from tests.unit.runtime.api.test_http_api import _DaemonView

WORLD = "server:127.0.0.1:25565"
TABLE = (14, GROUND_Y, 3)  # beyond the crafter's 8-block table search, within 48


@pytest.fixture
def ftime() -> FakeTime:
    return FakeTime()


@pytest.fixture
def body(ftime):
    b = FakeBody(ftime.clock, inventory={"oak_planks": 8, "stick": 2})
    b.blocks[TABLE] = "crafting_table"
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


def _ctx(body, ftime, memory=None) -> ToolContext:
    return ToolContext(
        body=body,
        clock=ftime.clock,
        sleep=ftime.sleep,
        poll_interval_s=0.1,
        hooks={HOOK: memory} if memory is not None else {},
    )


def _craft(ctx, item="wooden_pickaxe", **args):
    return asyncio.run(default_tool_registry().execute("craft", {"item": item, **args}, ctx))


def _placed(body):
    return [a for kind, a in body.started if kind == "place"]


def test_a_craft_walks_to_a_remembered_table_instead_of_placing_a_second(body, ftime, memory, logs):
    memory.placed("crafting_table", *TABLE)
    res = _craft(_ctx(body, ftime, memory))
    assert res.success, res.error
    assert _placed(body) == [] and res.output["placedTable"] is None
    assert body.inventory["wooden_pickaxe"] == 1 and body.inventory["oak_planks"] == 5  # no 4 planks for a table
    assert body.inventory["crafting_table"] == 0 and list(body.blocks.values()).count("crafting_table") == 1
    walked = [a for kind, a in body.started if kind == "move_to"]
    assert walked and (walked[-1]["x"], walked[-1]["z"]) == (TABLE[0] + 0.5, TABLE[2] + 0.5)
    craft_args = [a for kind, a in body.started if kind == "craft"]
    assert craft_args[-1]["table"] == {"x": TABLE[0], "y": TABLE[1], "z": TABLE[2]}
    assert any(line.startswith(f"[Places] reusing crafting_table at {TABLE[0]} {TABLE[1]} {TABLE[2]}") for line in logs)


class CoveredNight(FakeBody):
    """Dug in under the hut at night: a block over the head."""

    def snapshot(self):
        return super().snapshot().model_copy(update={"timeOfDay": 15_000, "isDay": False, "cover": 4})


def test_under_cover_at_night_a_table_is_placed_where_the_bot_is_not_walked_to(ftime, memory):
    """A bench bot dug in under its hut walked to a table remembered 30 m off on the surface:
    out of its pocket into the dark, and back to the hut for the night."""
    body = CoveredNight(ftime.clock, inventory={"oak_planks": 8, "stick": 2})
    body.blocks[TABLE] = "crafting_table"
    memory.placed("crafting_table", *TABLE)
    res = _craft(_ctx(body, ftime, memory))
    assert res.success, res.error
    assert [a["block"] for a in _placed(body)] == ["crafting_table"]
    assert not [a for kind, a in body.started if kind == "move_to"]  # no walk to the remembered one


@pytest.mark.parametrize(("table", "walked_to"), [((1, GROUND_Y + 4, 5), False), ((1, GROUND_Y, 6), True)])
def test_under_cover_at_night_a_table_in_sight_over_the_head_is_not_walked_to(ftime, memory, logs, table, walked_to):
    """A 26.1 bench bot dug in under its hut walked from its pocket toward a table 4 blocks up,
    digging, and spent the rest of the night in its hut: one over the head and out of reach is
    not used; one at the bot's level (its mine) still is."""
    body = CoveredNight(ftime.clock, inventory={"oak_planks": 8, "stick": 2})
    body.blocks[table] = "crafting_table"
    res = _craft(_ctx(body, ftime, memory))
    assert res.success, res.error
    walks = [(a["x"], a["z"]) for kind, a in body.started if kind == "move_to"]
    if walked_to:
        assert _placed(body) == [] and walks == [(table[0] + 0.5, table[2] + 0.5)]
    else:
        assert [a["block"] for a in _placed(body)] == ["crafting_table"] and walks == []
        assert any("out of the night's cover; not walking to it" in line for line in logs)


def test_under_cover_at_night_a_farther_table_at_the_bots_level_is_used_not_the_one_over_the_head(ftime, memory, logs):
    """Only the nearest was judged: over the head, it was passed over and a new table placed
    with one in the bot's own mine a few blocks farther."""
    body = CoveredNight(ftime.clock, inventory={"oak_planks": 8, "stick": 2})
    body.blocks[(1, GROUND_Y + 4, 4)] = "crafting_table"
    body.blocks[(1, GROUND_Y, 7)] = "crafting_table"
    res = _craft(_ctx(body, ftime, memory))
    assert res.success, res.error
    assert _placed(body) == []
    assert [(a["x"], a["z"]) for kind, a in body.started if kind == "move_to"] == [(1.5, 7.5)]
    assert any("out of the night's cover; not walking to it" in line for line in logs)


def test_without_the_memory_the_same_craft_places_a_second_table(body, ftime):
    res = _craft(_ctx(body, ftime))  # what a restart cost before places were remembered
    assert res.success, res.error
    assert [a["block"] for a in _placed(body)] == ["crafting_table"]
    assert list(body.blocks.values()).count("crafting_table") == 2 and body.inventory["oak_planks"] == 1


def test_a_remembered_table_found_gone_is_forgotten_and_the_new_one_remembered(body, ftime, memory, logs):
    memory.placed("crafting_table", *TABLE)
    del body.blocks[TABLE]  # broken since
    res = _craft(_ctx(body, ftime, memory))
    assert res.success, res.error
    [new] = _placed(body)
    assert f"[Places] crafting_table at {TABLE[0]} {TABLE[1]} {TABLE[2]} forgotten: block gone (now air)" in logs
    assert [p.pos for p in memory.store.list(WORLD)] == [(new["x"], new["y"], new["z"])]
    assert memory.store.list(WORLD)[0].source == "placed"


def test_a_remembered_table_beyond_the_reuse_distance_is_not_walked_to(body, ftime, tmp_path):
    far = (60, GROUND_Y, 0)
    body.blocks[far] = "crafting_table"
    del body.blocks[TABLE]
    store = PlaceStore(tmp_path / "far.db", clock=ftime.clock)
    try:
        PlaceMemory(store, lambda: WORLD).placed("crafting_table", *far)
        res = _craft(_ctx(body, ftime, PlaceMemory(store, lambda: WORLD)))
        assert res.success and len(_placed(body)) == 1  # 60 > 48: a new table here
        body.inventory.update({"oak_planks": 3, "stick": 2})
        body.position = body.position.model_copy(update={"x": 40.5})  # the far table 20 away, the new one 40
        wide = PlaceMemory(store, lambda: WORLD, config=PlacesConfig(reuse_distance=64))
        res = _craft(_ctx(body, ftime, wide))
        assert res.success and len(_placed(body)) == 1
        assert [a for kind, a in body.started if kind == "craft"][-1]["table"] == {"x": 60, "y": GROUND_Y, "z": 0}
    finally:
        store.close()


def test_a_craft_needing_no_table_reads_no_table(body, ftime, memory):
    memory.placed("crafting_table", *TABLE)
    reads = []
    region = body.region
    body.region = lambda origin, size: reads.append(size) or region(origin, size)
    res = _craft(_ctx(body, ftime, memory), item="stick")
    assert res.success and reads == []


def test_placing_a_furnace_or_a_bed_with_the_place_tool_remembers_it(body, ftime, memory):
    body.inventory.update({"furnace": 1, "red_bed": 1})
    reg = default_tool_registry()
    ctx = _ctx(body, ftime, memory)
    assert asyncio.run(reg.execute("place_block", {"block": "furnace", "x": 2, "y": GROUND_Y, "z": 0}, ctx)).success
    assert asyncio.run(reg.execute("place_block", {"block": "red_bed", "x": 0, "y": GROUND_Y, "z": 2}, ctx)).success
    assert sorted((p.kind, p.pos, p.source) for p in memory.store.list(WORLD)) == [
        ("bed", (0, GROUND_Y, 2), "placed"),
        ("furnace", (2, GROUND_Y, 0), "placed"),
    ]


# ---- the crafter's workflow ------------------------------------------------------------------


def test_the_crafters_plan_has_no_table_steps_when_a_table_is_known():
    inv = {"oak_log": 3}
    unknown = [s.id for s in craft_plan("crafter", {"target": "wooden_pickaxe", "amount": 1}, inv).steps]
    known = [
        s.id
        for s in craft_plan(
            "crafter",
            {"target": "wooden_pickaxe", "amount": 1, "facts": {"craftingTable": {"x": 14, "y": 64, "z": 3}}},
            inv,
        ).steps
    ]
    assert "craft-crafting-table" in unknown and "place-crafting-table" in unknown
    assert "craft-crafting-table" not in known and "place-crafting-table" not in known
    assert known[-1] == "craft-wooden-pickaxe"


# ---- the daemon: drive tick, plan facts, restart, API --------------------------------------------


def _agency(tmp_path, ftime, body, port=25565):
    body.connected = True
    body.settings = SimpleNamespace(host="127.0.0.1", port=port)  # a server's address: its world id
    agency = Agency(
        McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "daemon.db")}}), clock=ftime.clock
    )
    agency.attach_body(body, embedded=False)
    return agency


def test_after_a_restart_in_the_same_world_the_drive_tick_counts_the_remembered_table(tmp_path, ftime, body):
    body.inventory.clear()
    body.inventory["oak_log"] = 4
    first = _agency(tmp_path, ftime, body)
    first.places.placed("crafting_table", *TABLE)
    first.close()

    second = _agency(tmp_path, ftime, body)  # same database, same world
    try:
        snap = body.snapshot()
        assert asyncio.run(second.drive.reads.table_nearby(snap, ftime.clock())) is True
        del body.blocks[TABLE]  # the table is broken: memory does not outlive the block
        assert asyncio.run(second.drive.reads.table_nearby(snap, ftime.clock())) is False
        assert second.places.store.list(WORLD) == []
        body.blocks[TABLE] = "crafting_table"  # and one standing there again is seen again
        second.places.saw("crafting_table", *TABLE)
        assert asyncio.run(WORLD_FACTS["craft_plan"](second.tool_ctx)) == {  # what a craft plan is told
            "craftingTable": {"x": TABLE[0], "y": TABLE[1], "z": TABLE[2]}
        }
        second.last_snapshot = snap
        asyncio.run(second.job_drive_tick())
        [thought] = second.stream.recent(5)
        assert thought.metadata.goalKey == "craft:wooden_pickaxe"  # not a second crafting_table
    finally:
        second.close()


def test_the_drive_tick_counts_a_table_remembered_beyond_the_reuse_distance_up_to_128_blocks(tmp_path, ftime, body):
    agency = _agency(tmp_path, ftime, body)
    agency.places.placed("crafting_table", *TABLE)
    try:
        for x, had in ((TABLE[0] + 80, True), (TABLE[0] + 127, True), (TABLE[0] + 140, False)):
            body.position = body.position.model_copy(update={"x": x + 0.5, "z": TABLE[2] + 0.5})
            assert asyncio.run(agency.drive.reads.table_nearby(body.snapshot(), ftime.clock())) is had, x
    finally:
        agency.close()


def test_a_table_remembered_in_another_world_is_not_counted(tmp_path, ftime, body):
    first = _agency(tmp_path, ftime, body, port=25565)
    first.places.placed("crafting_table", *TABLE)
    first.close()
    other = _agency(tmp_path, ftime, body, port=25570)  # another server: another world
    try:
        assert asyncio.run(other.drive.reads.table_nearby(body.snapshot(), ftime.clock())) is False
        assert asyncio.run(WORLD_FACTS["craft_plan"](other.tool_ctx)) == {}
    finally:
        other.close()


def test_the_drive_ticks_sight_read_remembers_what_it_sees(tmp_path, ftime, body):
    body.inventory.clear()
    body.add_tree(6, -4)  # logs in sight: a collect goal, which reads the blocks in sight
    body.blocks[(-5, GROUND_Y, 9)] = "furnace"
    agency = _agency(tmp_path, ftime, body)
    try:
        agency.last_snapshot = body.snapshot()
        asyncio.run(agency.job_drive_tick())
        assert sorted((p.kind, p.pos) for p in agency.places.store.list(WORLD)) == [
            ("crafting_table", TABLE),
            ("furnace", (-5, GROUND_Y, 9)),
        ]
    finally:
        agency.close()


def test_the_api_lists_the_places_of_this_world(tmp_path, ftime, body, monkeypatch):
    agency = _agency(tmp_path, ftime, body)
    try:
        agency.places.placed("crafting_table", *TABLE)
        client = TestClient(create_app(agency.api_context(_DaemonView())))
        got = client.get("/api/places").json()
        assert got["world"] == WORLD and got["reuseDistance"] == 48.0 and got["shelters"] == []
        assert [(p["kind"], p["x"], p["y"], p["z"], p["source"]) for p in got["places"]] == [
            ("crafting_table", *TABLE, "placed")
        ]
    finally:
        agency.close()
