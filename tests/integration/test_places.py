"""Memory of places through the real bridge and the embedded world: a crafting table the bot
placed is remembered, and after the agency restarts (same database, same world) a wooden
pickaxe crafted 12 blocks away from it walks to it and uses it - no second table is crafted
or placed. The daemon's Agency runs in-process on the shared world and bot; attach_body is
the call the daemon makes at start, and `embedded=False` names the world by the server's
address, which both starts share (an in-memory world started by the daemon would be a new
world at every start, by design)."""

from __future__ import annotations

import asyncio
import math

import pytest
from loguru import logger

from agency.execution.agents import TaskSpec
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency
from tests.conftest import make_body, wait_until

BOT = "places_bot"
PAD = (560, 70, -420)  # far from spawn and from the other tests' pads
TABLE = (PAD[0] + 12, PAD[1], PAD[2])  # beyond the crafter's 8-block table search, within 48


def _standing_at(body, x, y, z) -> bool:
    p = body.snapshot().position
    return abs(p.x - (x + 0.5)) < 1 and abs(p.z - (z + 0.5)) < 1 and abs(p.y - y) < 0.5


def _to_pad_centre(body):
    x, y, z = PAD
    body.chat(f"/mcbot tp {BOT} {x} {y} {z}")  # after the fills before it (docs/world.md)
    wait_until(lambda: _standing_at(body, x, y, z), 30, f"{BOT} at the pad's centre")


def _pad(body, r=16):
    """A flat stone floor with 5 blocks of air above, r blocks around PAD, read back whole
    before the bot stands on it."""
    x, y, z = PAD
    body.chat(f"/mcbot tp {BOT} {x} {y} {z}")
    wait_until(lambda: body.region((x, y - 1, z), (1, 1, 1)).block_at(x, y - 1, z) is not None, 15, "chunks there")
    body.chat(f"/mcbot fill {x - r} {y - 1} {z - r} {x + r} {y - 1} {z + r} stone")
    body.chat(f"/mcbot fill {x - r} {y} {z - r} {x + r} {y + 4} {z + r} air")
    side = 2 * r + 1
    wait_until(
        lambda: (
            body.region((x - r, y - 1, z - r), (side, 1, side)).palette == ["stone"]
            and body.region((x - r, y, z - r), (side, 5, side)).palette == ["air"]
        ),
        60,
        "the pad built",
        poll_s=0.5,
    )
    _to_pad_centre(body)


def _tables_on_pad(body, r=16) -> list[tuple[int, int, int]]:
    x, y, z = PAD
    region = body.region((x - r, y, z - r), (2 * r + 1, 3, 2 * r + 1))
    return [
        (i, j, k)
        for i in range(x - r, x + r + 1)
        for j in range(y, y + 3)
        for k in range(z - r, z + r + 1)
        if region.block_at(i, j, k) == "crafting_table"
    ]


@pytest.fixture
def places_bot(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, BOT)
    try:
        _pad(body)
        yield body
    finally:
        body.close()


@pytest.fixture
def log_lines():
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    yield lines
    logger.remove(sink)


def test_after_a_restart_a_pickaxe_is_crafted_at_the_remembered_table_not_a_second_one(
    places_bot, log_lines, tmp_path, mc_version
):
    body = places_bot
    cfg = McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "agency.db")}})

    # start 1: the bot places a crafting table with the place tool; it is remembered
    first = Agency(cfg)
    first.attach_body(body, embedded=False)
    try:
        body.chat(f"/give {BOT} crafting_table 1")
        wait_until(lambda: body.snapshot().count_of("crafting_table") == 1, 10, "a crafting table held")
        placed = asyncio.run(
            first.tools.execute(
                "place_block", {"block": "crafting_table", "x": TABLE[0], "y": TABLE[1], "z": TABLE[2]}, first.tool_ctx
            )
        )
        assert placed.success, placed.error
        assert _tables_on_pad(body) == [TABLE]
        at = f"{TABLE[0]} {TABLE[1]} {TABLE[2]}"
        assert f"[Places] crafting_table at {at} remembered (placed crafting_table)" in log_lines
        world = first.world.world
    finally:
        first.close()

    # start 2: a new Agency on the same database in the same world; the bot back at the
    # pad's centre, 12 blocks from the table, holding enough planks for a table AND a pickaxe
    second = Agency(cfg)
    second.attach_body(body, embedded=False)
    try:
        assert second.world.world == world and not second.world.changed
        _to_pad_centre(body)
        body.chat(f"/give {BOT} oak_planks 8")
        body.chat(f"/give {BOT} stick 2")
        wait_until(
            lambda: (s := body.snapshot()).count_of("oak_planks") == 8 and s.count_of("stick") == 2,
            10,
            "8 planks and 2 sticks held",
        )
        snap = body.snapshot()
        assert snap.count_of("crafting_table") == 0
        here = (snap.position.x, snap.position.y, snap.position.z)
        assert math.dist(here, (TABLE[0] + 0.5, TABLE[1] + 0.5, TABLE[2] + 0.5)) > 10

        # the drive tick counts the remembered, still standing table as had
        assert asyncio.run(second.drive.reads.table_nearby(snap, second.clock())) is True

        # the crafter's task, as the executor runs it
        res = asyncio.run(
            second.executor.runtime.run_task(
                TaskSpec(action="craft", target="wooden_pickaxe", amount=1, id="task-places-pickaxe")
            )
        )
        assert res.status == "completed", res.errors
        assert [s.stepId for s in res.steps] == ["craft-wooden-pickaxe"]  # no table crafted, none placed
        after = body.snapshot()
        assert after.count_of("wooden_pickaxe") == 1
        assert after.count_of("oak_planks") == 5 and after.count_of("crafting_table") == 0  # 3 planks used, not 7
        assert _tables_on_pad(body) == [TABLE]
        assert second.tools.call_counts["place_block"] == 0
        assert any(
            line.startswith(f"[Places] reusing crafting_table at {TABLE[0]} {TABLE[1]} {TABLE[2]} ")
            for line in log_lines
        ), [line for line in log_lines if "[Places]" in line]

        # the table broken: found gone at the next look, forgotten, no longer counted
        body.chat(f"/mcbot setblock {TABLE[0]} {TABLE[1]} {TABLE[2]} air")
        wait_until(lambda: _tables_on_pad(body) == [], 10, "the table gone")
        assert asyncio.run(second.drive.reads.table_nearby(body.snapshot(), second.clock())) is False
        assert second.places.store.list(world) == []
        at = f"{TABLE[0]} {TABLE[1]} {TABLE[2]}"
        assert f"[Places] crafting_table at {at} forgotten: block gone (now air)" in log_lines
    finally:
        second.close()
