"""Digging down against the real world: with a stone pickaxe, a furnace and coal held and
no iron in sight, the drive tick asks for the iron pickaxe, and its plan digs a staircase
down for iron, mines it, smelts it and crafts the pickaxe through the real bridge, the bot
unharmed. A descent to y 40 digs a staircase, and an explore's climb from its foot walks
back up it.

The daemon's Agency runs in-process on the session's server and bridge; its jobs are called
directly so the test decides the order (drive tick, planning, executor ticks).
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from agency.execution.agents.runtime import TaskSpec
from agency.planning.tasks.models import TaskStatus
from agency.tools.climb_out import climb_out
from agency.world import SHELTER_BUILD_START
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import agency_on, block_at, fill, give, restore_vitals, run_executor_until, teleport

NAME = "deep_bot"
X, Y, Z = -900, 52, -900  # far from spawn and from the other tests' pads; underground, 12 above y 40
SIGHT = 32  # the drive tick's sight box: 32 around, 8 up and down
GIVE = {
    "oak_log": 20,
    "crafting_table": 1,
    "wooden_pickaxe": 1,
    "stone_pickaxe": 1,
    "stone_sword": 1,
    "furnace": 1,
    "coal": 3,
    "cooked_beef": 4,
    "white_bed": 1,
}  # every step before iron ore done; fed and with a bed: no survival step
VEIN = [(X, 36, Z), (X + 1, 36, Z), (X, 36, Z + 1)]  # below the start's sight, in sight from y 40


def _prepare(body) -> None:
    # The start's sight (y 44..60) all stone, so no natural vein is in sight; a small chamber to
    # stand in; the natural stone below (the staircase's way), with a vein planted in it.
    for y0, y1 in ((Y - 8, Y - 3), (Y - 2, Y + 3), (Y + 4, Y + 8)):
        body.chat(f"/mcbot fill {X - SIGHT} {y0} {Z - SIGHT} {X + SIGHT} {y1} {Z + SIGHT} stone")
    body.chat(f"/mcbot fill {X - 2} {Y} {Z - 2} {X + 2} {Y + 2} {Z + 2} air")
    for x, y, z in VEIN:
        body.chat(f"/mcbot setblock {x} {y} {z} iron_ore")
    teleport(body, NAME, X, Y, Z)
    wait_until(lambda: block_at(body, X, 36, Z) == "iron_ore", 15, "vein planted")
    wait_until(lambda: block_at(body, X + SIGHT, Y + 8, Z + SIGHT) == "stone", 15, "sight filled with stone")


@pytest.mark.one_version(
    reason="the staircase, the collect, the smelt and the craft it chains are each tested at every version; "
    "this is the drive tick's step around them"
)
def test_no_iron_in_sight_the_iron_pickaxe_step_digs_down_for_it(bridge, embedded_server, tmp_path):
    body = make_body(bridge, embedded_server.port, NAME)
    agency = agency_on(
        body, tmp_path / "agency.db", drive_tick={"interval_ms": 1000, "follow_ups": 0}
    )  # the step alone
    try:
        body.chat("/time set 1000")
        _prepare(body)
        give(body, NAME, GIVE)
        restore_vitals(body, NAME)
        wait_until(lambda: body.snapshot().health == 20 and body.snapshot().position.y == Y, 10, "standing, healthy")

        async def tick(goal_key: str):
            # in the morning: from time SHELTER_BUILD_START a shelter comes first
            body.chat("/time set 1000")
            wait_until(lambda: body.snapshot().timeOfDay < SHELTER_BUILD_START, 10, "the morning")
            await asyncio.sleep(1.1)  # the drive interval
            await agency.job_perception()
            await agency.job_drive_tick()
            poll = agency.planning.poll_once()
            assert poll.converted == 1, poll.batch.outcomes
            task = agency.tasks.get_task(poll.batch.outcomes[0].task_id)
            assert task.metadata.goalKey == goal_key
            return task

        async def go():
            task = await tick("craft:iron_pickaxe")
            await run_executor_until(
                agency,
                lambda: agency.tasks.get_task(task.id).status in (TaskStatus.completed, TaskStatus.failed),
                300,
                "the iron pickaxe",
            )
            assert agency.tasks.get_task(task.id).status is TaskStatus.completed, agency.tasks.get_task(task.id)
            snap = body.snapshot()
            assert snap.count_of("iron_pickaxe") == 1, snap.inventory
            assert snap.position.y <= Y - 4, snap.position  # it went down for the iron
            assert snap.health == 20, "unharmed"

        asyncio.run(go())
    finally:
        agency.close()
        body.close()


def test_a_descent_digs_a_staircase_and_the_climb_walks_back_up_it(bridge, embedded_server, tmp_path):
    body = make_body(bridge, embedded_server.port, "stair_bot")
    agency = agency_on(body, tmp_path / "agency.db")
    x, z = STAIR_X, STAIR_Z
    try:
        body.chat("/time set 1000")
        for y0, y1 in ((Y - 8, Y - 3), (Y - 2, Y + 3), (Y + 4, Y + 8)):
            body.chat(f"/mcbot fill {x - 16} {y0} {z - 16} {x + 16} {y1} {z + 16} stone")
        body.chat(f"/mcbot fill {x - 2} {Y} {z - 2} {x + 2} {Y + 2} {z + 2} air")
        teleport(body, "stair_bot", x, Y, z)
        wait_until(lambda: block_at(body, x + 16, Y + 8, z + 16) == "stone", 15, "stone around")
        give(body, "stair_bot", {"stone_pickaxe": 1, "cooked_beef": 4})
        restore_vitals(body, "stair_bot")
        wait_until(lambda: body.snapshot().health == 20 and body.snapshot().position.y == Y, 10, "standing, healthy")
        assert agency.tool_ctx is not None and agency.executor is not None
        res = asyncio.run(agency.executor.runtime.run_task(TaskSpec(action="descend", target="y40", id="task-stairs")))
        assert res.ok, res.errors
        snap = body.snapshot()
        assert math.floor(snap.position.y) == 40, snap.position
        assert snap.health == 20, "unharmed"
        assert math.dist((snap.position.x, snap.position.z), (x + 0.5, z + 0.5)) <= 13  # a staircase, one step a block
        # Back up: from the foot of the staircase (stone over the head) an explore's climb walks
        # up the staircase the descent dug, to where it started. The chamber is opened to the
        # sky first, so the climb ends there (under a roof it would go on digging straight up).
        fill(body, (x - 2, Y + 3, z - 2), (x + 2, Y + 20, z + 2), "air")
        climb = asyncio.run(climb_out(agency.tool_ctx))
        assert climb is not None and climb["from"][1] == 40, climb
        assert climb["how"] == "staircase" and climb["failed"] is None, climb
        assert math.floor(climb["to"][1]) == Y, climb  # back up to where the descent started
    finally:
        agency.close()
        body.close()


LAKE_X, LAKE_Z = -1020, -900  # a fourth pad, out of the others' sight
LAKE_FEET = Y + 4  # 3 blocks of stone over the head (MIN_ROOF: underground), the lake on them


def _under_a_lake(body: Any, name: str, at: tuple[int, int], *, east: int, lake_east: int) -> None:
    """A chamber at LAKE_FEET under stone to Y + 8, a lake on it at Y + 9 from 8 blocks west,
    north and south of the bot to `lake_east` blocks east, its rim of stone out to 10 blocks
    (`east` blocks east), open sky over it all; the bot in the chamber, healthy, with a stone
    pickaxe and blocks to pillar with."""
    x, z = at
    body.chat("/time set 1000")
    body.chat(f"/mcbot fill {x - 10} {Y - 2} {z - 10} {x + east} {Y + 8} {z + 10} stone")
    body.chat(f"/mcbot fill {x} {LAKE_FEET} {z} {x} {LAKE_FEET + 1} {z} air")
    teleport(body, name, x, LAKE_FEET, z)
    wait_until(lambda: block_at(body, x + east, Y + 8, z + 10) == "stone", 15, "stone around")
    wait_until(lambda: block_at(body, x, LAKE_FEET + 1, z) == "air", 15, "the chamber")
    fill(body, (x - 10, Y + 9, z - 10), (x + east, Y + 9, z + 10), "stone")  # the lake's rim
    fill(body, (x - 8, Y + 9, z - 8), (x + lake_east, Y + 9, z + 8), "water")
    fill(body, (x - 10, Y + 10, z - 10), (x + east, Y + 20, z + 10), "air")
    give(body, name, {"stone_pickaxe": 1, "cobblestone": 16, "cooked_beef": 4})
    restore_vitals(body, name)
    wait_until(
        lambda: body.snapshot().health == 20 and body.snapshot().position.y == LAKE_FEET, 10, "standing, healthy"
    )


def test_a_climb_from_under_a_lake_digs_up_beside_it(bridge, embedded_server, tmp_path):
    """Under a lake's floor the pathfinder digs nothing (no block next to water): an explore's
    climb from a chamber under it digs up a dry column beside the lake instead (before
    agency.tools.climbing, the climb aimed at the top of its own column, under the water: it
    came up into the lake here, and found no path at all under a wider one in the bench)."""
    body = make_body(bridge, embedded_server.port, "lake_bot")
    agency = agency_on(body, tmp_path / "agency.db")
    x, z = LAKE_X, LAKE_Z
    try:
        _under_a_lake(body, "lake_bot", (x, z), east=10, lake_east=2)  # 2 blocks east of the bot
        assert agency.tool_ctx is not None
        climb = asyncio.run(climb_out(agency.tool_ctx))
        assert climb is not None and climb["how"] == "dug" and climb["failed"] is None, climb
        snap = body.snapshot()
        # up by the rim, not under the lake: on it, or (a pillar's last jump cut short as the walk's
        # goal is met) with its head out at its level, nothing over it (the climb's check)
        assert snap.position.y >= Y + 8, snap.position
        assert math.floor(snap.position.x) > x + 2, snap.position  # east of the lake: a dry column
        assert block_at(body, x + 2, Y + 9, z) == "water", "the lake is where it was (nothing dug under it)"
    finally:
        agency.close()
        body.close()


WIDE_X, WIDE_Z = -1020, -1020  # a fifth pad, out of the others' sight


@pytest.mark.one_version(
    reason="the tunnel and the pillar it chains are each tested at every version (node/test/); this is the climb "
    "that picks where they go"
)
def test_under_a_lake_wider_than_the_columns_near_the_climb_tunnels_out_from_under_it(
    bridge, embedded_server, tmp_path
):
    """Water over every column within CLIMB_RADIUS (as under a lake's or a sea's bed): the
    climb tunnels at its level to the nearest column with no water over or beside it (9 blocks
    east, the lake's shore) and digs up there; the lake is left whole (before, it pillared up
    the columns near until the lake's bed stopped each one, and tried again, for two game days
    in a 1.18.2 bench run)."""
    body = make_body(bridge, embedded_server.port, "sea_bot")
    agency = agency_on(body, tmp_path / "agency.db")
    x, z = WIDE_X, WIDE_Z
    try:
        _under_a_lake(body, "sea_bot", (x, z), east=14, lake_east=7)  # over every column within 6
        assert agency.tool_ctx is not None
        climb = asyncio.run(climb_out(agency.tool_ctx))
        assert climb is not None and climb["how"] == "dug" and climb["failed"] is None, climb
        snap = body.snapshot()
        assert snap.position.y >= Y + 8, snap.position  # up by the shore (as the test above: on it or its head out)
        assert math.floor(snap.position.x) >= x + 9, snap.position  # past the shore: tunnelled east, not up
        assert block_at(body, x + 7, LAKE_FEET + 1, z) == "air", "the tunnel at the bot's level"
        assert block_at(body, x + 7, Y + 9, z) == "water", "the lake is where it was (nothing dug under it)"
        assert snap.health == 20, "no water came down on the bot"
    finally:
        agency.close()
        body.close()


STAIR_X, STAIR_Z = -780, -900  # a third pad, out of the others' sight
COPPER_X, COPPER_Z = -900, -780  # a second pad, out of the first one's sight
COPPER_Y = 60  # 12 above copper's level (y 48: agency.game.ores)
COPPER_VEIN = [(COPPER_X, 44, COPPER_Z), (COPPER_X + 1, 44, COPPER_Z)]  # below the start's sight, in sight from y 52


@pytest.mark.one_version(
    reason="the staircase and the collect it chains are each tested at every version (node/test/staircase.test.js, "
    "the test above); this is the plan around them"
)
def test_a_collect_of_an_ore_out_of_sight_digs_down_to_its_level_and_digs_it(bridge, embedded_server, tmp_path):
    """`collect copper_ore 1` (no copper in the embedded plains: only the planted vein): the
    gatherer's plan is seek_ore, collect, check; the seek's staircase goes down toward y 48
    through the real bridge, and the collect digs the vein it brought into sight."""
    body = make_body(bridge, embedded_server.port, "copper_bot")
    agency = agency_on(body, tmp_path / "agency.db")
    x, y, z = COPPER_X, COPPER_Y, COPPER_Z
    try:
        body.chat("/time set 1000")
        for y0, y1 in ((y - 8, y - 3), (y - 2, y + 3), (y + 4, y + 8)):  # the start's sight: all stone
            body.chat(f"/mcbot fill {x - SIGHT} {y0} {z - SIGHT} {x + SIGHT} {y1} {z + SIGHT} stone")
        body.chat(f"/mcbot fill {x - 2} {y} {z - 2} {x + 2} {y + 2} {z + 2} air")
        for vx, vy, vz in COPPER_VEIN:
            body.chat(f"/mcbot setblock {vx} {vy} {vz} copper_ore")
        teleport(body, "copper_bot", x, y, z)
        wait_until(lambda: block_at(body, x, 44, z) == "copper_ore", 15, "vein planted")
        wait_until(lambda: block_at(body, x + SIGHT, y + 8, z + SIGHT) == "stone", 15, "sight filled with stone")
        give(body, "copper_bot", {"stone_pickaxe": 1, "cooked_beef": 4})
        restore_vitals(body, "copper_bot")
        wait_until(lambda: body.snapshot().position.y == y, 10, "standing in the chamber")
        assert agency.tool_ctx is not None and agency.executor is not None
        task = TaskSpec(action="collect", target="copper_ore", amount=1, id="task-copper")
        res = asyncio.run(agency.executor.runtime.run_task(task))
        assert res.ok, res.errors
        assert [s.stepId for s in res.steps] == ["seek-copper-ore", "collect", "check"]
        seek = res.steps[0].output
        assert seek["inSight"] and seek["descents"] and seek["y"] <= y - 4, seek  # it went down for it
        snap = body.snapshot()
        assert snap.count_of("raw_copper") >= 1, snap.inventory
        assert snap.health == 20, "unharmed"
    finally:
        agency.close()
        body.close()
