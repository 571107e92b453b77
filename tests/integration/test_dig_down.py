"""Digging down for iron against the real world: with a stone pickaxe, a furnace and
coal held and no iron in sight, the drive tick asks to descend (a staircase down to y 40), the
gatherer's task digs it through the real bridge, the bot ends lower and unharmed, and the next
drive tick, with a vein now in sight, asks to collect the iron. Then an explore's climb from the foot of the
staircase walks back up it.

The daemon's Agency runs in-process on the session's server and bridge; its jobs are called
directly so the test decides the order (drive tick, planning, executor ticks).
"""

from __future__ import annotations

import asyncio
import math

from agency.planning.tasks.models import TaskStatus
from agency.tools.movement import climb_out
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


def test_no_iron_in_sight_digs_down_to_it_and_then_collects(bridge, embedded_server, tmp_path):
    body = make_body(bridge, embedded_server.port, NAME)
    agency = agency_on(body, tmp_path / "agency.db")
    try:
        body.chat("/time set 1000")
        _prepare(body)
        give(body, NAME, GIVE)
        restore_vitals(body, NAME)
        wait_until(lambda: body.snapshot().health == 20 and body.snapshot().position.y == Y, 10, "standing, healthy")

        async def tick(goal_key: str):
            await asyncio.sleep(1.1)  # the drive interval
            await agency.job_perception()
            await agency.job_drive_tick()
            poll = agency.planning.poll_once()
            assert poll.converted == 1, poll.batch.outcomes
            task = agency.tasks.get_task(poll.batch.outcomes[0].task_id)
            assert task.metadata.goalKey == goal_key
            return task

        async def go():
            task = await tick("descend:y40")
            await run_executor_until(
                agency,
                lambda: agency.tasks.get_task(task.id).status in (TaskStatus.completed, TaskStatus.failed),
                120,
                "the descent",
            )
            assert agency.tasks.get_task(task.id).status is TaskStatus.completed
            snap = body.snapshot()
            assert math.floor(snap.position.y) == 40, snap.position
            assert snap.health == 20, "unharmed"
            # a staircase, one step a block
            assert math.dist((snap.position.x, snap.position.z), (X + 0.5, Z + 0.5)) <= 13
            await tick("collect:iron_ore")

        asyncio.run(go())
        # Back up: from the foot of the staircase (stone over the head) an explore's climb walks
        # up the staircase the descent dug, to where it started. The chamber is opened to the
        # sky first, so the climb ends there (under a roof it would go on digging straight up).
        fill(body, (X - 2, Y + 3, Z - 2), (X + 2, Y + 20, Z + 2), "air")
        res = asyncio.run(climb_out(agency.tool_ctx))
        assert res is not None and res["from"][1] == 40, res
        assert res["how"] == "staircase" and res["failed"] is None, res
        assert math.floor(res["to"][1]) == Y, res  # back up to where the descent started
    finally:
        agency.close()
        body.close()
