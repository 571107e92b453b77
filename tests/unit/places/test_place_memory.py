"""The place memory (agency.places): a real SQLite file, a frozen clock, block regions
built by hand or read from the fake block world. What is stored, per world; what a real
block read confirms, forgets and skips."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from loguru import logger

from agency.clock import FrozenClock
from agency.places.memory import MAX_CHECKS, PlaceMemory
from agency.places.settings import PlacesConfig
from agency.places.store import MAX_PER_KIND, PlaceStore, place_kind
from agency.tools.testing import GROUND_Y, FakeBody
from agency.world import BlockRegion

WORLD_A, WORLD_B = "server:mc.example.net:25565", "embedded:1337:/srv/world"


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(1_700_000_000_000)


@pytest.fixture
def store(tmp_path: Path, clock: FrozenClock):
    s = PlaceStore(tmp_path / "agency.db", clock=clock)
    yield s
    s.close()


@pytest.fixture
def logs():
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="DEBUG")
    yield lines
    logger.remove(sink)


def _region(origin, size, blocks: dict, default: str | None = "air") -> BlockRegion:
    """A region of `default` with `blocks` ({(x, y, z): name}) set in it."""
    palette: list[str | None] = []
    data = []
    ox, oy, oz = origin
    for y in range(size[1]):
        for z in range(size[2]):
            for x in range(size[0]):
                name = blocks.get((ox + x, oy + y, oz + z), default)
                if name not in palette:
                    palette.append(name)
                data.append(palette.index(name))
    return BlockRegion(origin=origin, size=size, palette=palette, data=data)


# ---- kinds ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, kind",
    [
        ("crafting_table", "crafting_table"),
        ("furnace", "furnace"),
        ("lit_furnace", "furnace"),
        ("red_bed", "bed"),
        ("white_bed", "bed"),
        ("bed", "bed"),
        ("oak_planks", None),
        ("bedrock", None),
        ("air", None),
        (None, None),
    ],
)
def test_a_block_name_is_a_kind_of_place_or_none(name, kind):
    assert place_kind(name) == kind


# ---- the store -----------------------------------------------------------------------------


def _standing(mem: PlaceMemory, body: Any, kind: str, near: tuple[float, float, float]) -> Any:
    async def read(pos: tuple[int, int, int]) -> str | None:
        return body.region(pos, (1, 1, 1)).block_at(*pos)

    return asyncio.run(mem.standing_read(read, kind, near))


def test_remembered_places_come_back_nearest_first_within_the_distance(store, clock):
    assert store.remember(WORLD_A, "crafting_table", (10, 64, 0), "crafting_table", "placed") is True
    clock.advance(1000)
    assert store.remember(WORLD_A, "crafting_table", (30, 64, 0), "crafting_table", "seen") is True
    store.remember(WORLD_A, "crafting_table", (-70, 64, 0), "crafting_table", "seen")
    store.remember(WORLD_A, "furnace", (5, 64, 0), "furnace", "seen")
    near = store.near(WORLD_A, "crafting_table", (0.5, 64, 0.5), 48)
    assert [p.pos for p in near] == [(10, 64, 0), (30, 64, 0)]  # nearest first, the one 70 away left out
    assert near[0].source == "placed" and near[0].first_at == near[0].seen_at == 1_700_000_000_000
    assert near[1].seen_at == 1_700_000_001_000
    assert [p.pos for p in store.near(WORLD_A, "furnace", (0.5, 64, 0.5), 48)] == [(5, 64, 0)]


def test_a_placed_table_seen_again_stays_placed_and_its_sighting_moves_on(store, clock):
    store.remember(WORLD_A, "crafting_table", (1, 64, 1), "crafting_table", "placed")
    clock.advance(60_000)
    assert store.remember(WORLD_A, "crafting_table", (1, 64, 1), "crafting_table", "seen") is False  # not new
    [p] = store.list(WORLD_A)
    assert p.source == "placed" and p.first_at == 1_700_000_000_000 and p.seen_at == 1_700_000_060_000


def test_places_are_scoped_to_their_world(store):
    store.remember(WORLD_A, "crafting_table", (10, 64, 0), "crafting_table", "placed")
    assert store.list(WORLD_B) == [] and store.near(WORLD_B, "crafting_table", (10, 64, 0), 48) == []
    assert store.forget(WORLD_B, (10, 64, 0)) is None  # another world's row is not touched
    assert [p.pos for p in store.list(WORLD_A)] == [(10, 64, 0)]
    # the same position in world B is a place of its own
    store.remember(WORLD_B, "bed", (10, 64, 0), "red_bed", "seen")
    assert [p.kind for p in store.list(WORLD_A)] == ["crafting_table"] and [p.kind for p in store.list(WORLD_B)] == [
        "bed"
    ]


def test_places_survive_a_restart_of_the_store_on_the_same_file(tmp_path, clock):
    first = PlaceStore(tmp_path / "agency.db", clock=clock)
    first.remember(WORLD_A, "furnace", (3, 60, -4), "furnace", "placed")
    first.close()
    second = PlaceStore(tmp_path / "agency.db", clock=clock)
    try:
        assert [(p.kind, p.pos, p.source) for p in second.list(WORLD_A)] == [("furnace", (3, 60, -4), "placed")]
    finally:
        second.close()


def test_each_kind_keeps_only_its_most_recently_confirmed_places(store, clock):
    for i in range(MAX_PER_KIND + 3):
        store.remember(WORLD_A, "bed", (i * 3, 64, 0), "white_bed", "seen")
        clock.advance(1)
    store.remember(WORLD_A, "crafting_table", (0, 70, 0), "crafting_table", "seen")  # other kinds untouched
    beds = store.list(WORLD_A, "bed")
    assert len(beds) == MAX_PER_KIND and min(p.x for p in beds) == 9  # the three oldest went
    assert len(store.list(WORLD_A, "crafting_table")) == 1


def test_an_unknown_kind_is_refused(store):
    with pytest.raises(ValueError, match="not a kind of place"):
        store.remember(WORLD_A, "chest", (0, 0, 0), "chest", "seen")


# ---- the memory: world, observation, verification ---------------------------------------------


def test_the_memory_follows_the_world_the_daemon_is_in(store):
    world = {"id": WORLD_A}
    mem = PlaceMemory(store, lambda: world["id"])
    mem.placed("crafting_table", 10, 64, 0)
    assert [p.pos for p in store.list(WORLD_A)] == [(10, 64, 0)]
    world["id"] = WORLD_B  # e.g. an in-memory world restarted by the supervisor: a new world
    mem.placed("furnace", 1, 64, 1)
    assert mem.view()["places"] == [store.list(WORLD_B)[0].as_dict()] and len(store.list(WORLD_A)) == 1
    world["id"] = None  # before attach_body: nothing is known, nothing is stored
    mem.placed("crafting_table", 2, 64, 2)
    assert mem.view() == {"world": None, "enabled": True, "reuseDistance": 48.0, "places": [], "shelters": []}


def test_only_places_are_remembered_and_each_once(store, logs):
    mem = PlaceMemory(store, lambda: WORLD_A)
    mem.placed("oak_planks", 0, 64, 0)
    mem.placed("crafting_table", 4, 64, 4)
    mem.saw("crafting_table", 4, 64, 4)
    assert [p.pos for p in store.list(WORLD_A)] == [(4, 64, 4)]
    assert [line for line in logs if line.startswith("[Places]")] == [
        "[Places] crafting_table at 4 64 4 remembered (placed crafting_table)"
    ]


def test_a_disabled_memory_remembers_nothing(store):
    mem = PlaceMemory(store, lambda: WORLD_A, config=PlacesConfig(enabled=False))
    mem.placed("crafting_table", 4, 64, 4)
    assert store.list(WORLD_A) == []


def test_observing_a_region_remembers_what_is_in_sight_a_bed_once(store, logs):
    mem = PlaceMemory(store, lambda: WORLD_A)
    blocks = {
        (2, 64, 2): "crafting_table",
        (5, 64, -3): "furnace",
        (-4, 64, 1): "red_bed",
        (-3, 64, 1): "red_bed",
        (6, 64, 6): "white_bed",
        (6, 64, 7): "white_bed",
    }  # two beds of two halves each
    got = mem.observe(_region((-8, 63, -8), (17, 4, 17), blocks))
    assert got == {"remembered": 4, "forgotten": 0}
    kinds = sorted((p.kind, p.pos) for p in store.list(WORLD_A))
    assert kinds == [
        ("bed", (-4, 64, 1)),
        ("bed", (6, 64, 6)),
        ("crafting_table", (2, 64, 2)),
        ("furnace", (5, 64, -3)),
    ]
    assert all(p.source == "seen" for p in store.list(WORLD_A))
    # seen again: nothing new, no new log line, and a bed remembered by one half is not added by the other
    again = mem.observe(_region((-8, 63, -8), (17, 4, 17), blocks))
    assert again == {"remembered": 0, "forgotten": 0} and len(store.list(WORLD_A)) == 4
    assert sum("remembered (seen" in line for line in logs) == 4


def test_a_bed_placed_by_its_foot_is_not_remembered_again_by_its_head(store):
    mem = PlaceMemory(store, lambda: WORLD_A)
    mem.placed("red_bed", 0, 64, 0)
    mem.observe(_region((-2, 64, -2), (5, 1, 5), {(0, 64, 0): "red_bed", (0, 64, -1): "red_bed"}))
    assert [p.pos for p in store.list(WORLD_A, "bed")] == [(0, 64, 0)]


def test_observing_forgets_a_place_whose_block_is_gone_but_not_one_it_cannot_see(store, logs):
    mem = PlaceMemory(store, lambda: WORLD_A)
    mem.placed("crafting_table", 2, 64, 2)
    mem.placed("furnace", 20, 64, 20)
    gone = _region((0, 64, 0), (4, 1, 4), {})  # air where the table was
    assert mem.observe(gone) == {"remembered": 0, "forgotten": 1}
    assert "[Places] crafting_table at 2 64 2 forgotten: block gone (now air)" in logs
    unloaded = _region((18, 64, 18), (4, 1, 4), {}, default=None)  # the furnace's chunk is not loaded
    assert mem.observe(unloaded) == {"remembered": 0, "forgotten": 0}
    assert [p.kind for p in store.list(WORLD_A)] == ["furnace"]


def test_a_table_replaced_by_a_furnace_is_remembered_as_what_stands_there(store):
    mem = PlaceMemory(store, lambda: WORLD_A)
    mem.placed("crafting_table", 1, 64, 1)
    mem.observe(_region((0, 64, 0), (3, 1, 3), {(1, 64, 1): "furnace"}))
    assert [(p.kind, p.pos) for p in store.list(WORLD_A)] == [("furnace", (1, 64, 1))]


def test_standing_reads_the_real_block_and_forgets_a_gone_table_on_the_way(store, clock, logs):
    body = FakeBody(clock)
    mem = PlaceMemory(store, lambda: WORLD_A)
    mem.placed("crafting_table", 10, GROUND_Y, 0)  # nearer, but gone since
    mem.placed("crafting_table", 20, GROUND_Y, 0)
    body.blocks[(20, GROUND_Y, 0)] = "crafting_table"
    clock.advance(5000)
    hit = _standing(mem, body, "crafting_table", (0.5, GROUND_Y, 0.5))
    assert hit is not None and hit.pos == (20, GROUND_Y, 0)
    assert [p.pos for p in store.list(WORLD_A)] == [(20, GROUND_Y, 0)]
    assert store.get(WORLD_A, (20, GROUND_Y, 0)).seen_at == clock()  # confirmed now
    assert f"[Places] crafting_table at 10 {GROUND_Y} 0 forgotten: block gone (now air)" in logs


def test_standing_honours_the_reuse_distance(store, clock):
    body = FakeBody(clock)
    body.blocks[(60, GROUND_Y, 0)] = "crafting_table"
    PlaceMemory(store, lambda: WORLD_A).placed("crafting_table", 60, GROUND_Y, 0)
    assert _standing(PlaceMemory(store, lambda: WORLD_A), body, "crafting_table", (0.5, GROUND_Y, 0.5)) is None
    far = PlaceMemory(store, lambda: WORLD_A, config=PlacesConfig(reuse_distance=64))
    assert _standing(far, body, "crafting_table", (0.5, GROUND_Y, 0.5)).pos == (60, GROUND_Y, 0)


def test_standing_skips_a_place_in_an_unloaded_chunk_without_forgetting_it(store, clock):
    body = FakeBody(clock)
    body.region = lambda origin, size: _region(origin, size, {}, default=None)  # nothing loaded
    mem = PlaceMemory(store, lambda: WORLD_A)
    mem.placed("crafting_table", 10, GROUND_Y, 0)
    assert _standing(mem, body, "crafting_table", (0.5, GROUND_Y, 0.5)) is None
    assert len(store.list(WORLD_A)) == 1


def test_standing_reads_at_most_a_few_candidates(store, clock):
    body = FakeBody(clock)
    reads = []
    region = body.region
    body.region = lambda origin, size: reads.append(origin) or region(origin, size)
    mem = PlaceMemory(store, lambda: WORLD_A)
    for i in range(MAX_CHECKS + 3):  # all gone
        mem.placed("crafting_table", 2 + i, GROUND_Y, 0)
    assert _standing(mem, body, "crafting_table", (0.5, GROUND_Y, 0.5)) is None
    assert len(reads) == MAX_CHECKS and len(store.list(WORLD_A)) == 3


def test_the_view_lists_the_shelters_from_their_own_memory(store):
    shelter = {"kind": "shelter", "x": 5, "y": 64, "z": 5, "facing": "south", "taskId": "t1", "verified": True}
    mem = PlaceMemory(store, lambda: WORLD_A, shelters=lambda: [shelter])
    mem.placed("crafting_table", 1, 64, 1)
    view = mem.view()
    assert view["world"] == WORLD_A and view["shelters"] == [shelter]
    assert [p["kind"] for p in view["places"]] == ["crafting_table"]
