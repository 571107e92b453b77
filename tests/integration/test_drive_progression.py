"""The drive tick's progression against the real world: with logs, a table and a wooden
pickaxe held and stone in sight, successive drive ticks ask for a stone sword (its plan
mines the stone), then (ingots given) an iron pickaxe, then a furnace, and each task the
planner makes of them completes through the real bridge. With follow-ups (the default) one
tick's task does the stone sword, then the iron pickaxe and the furnace, and a tick while it waits
does not ask for them again.

The daemon's Agency runs in-process on the session's server and bridge; its jobs are
called directly so the test decides the order (drive tick, planning, executor ticks).
"""

from __future__ import annotations

import asyncio
from typing import Any

from agency.cognition.drive_tick import DriveSkipReason, DriveTickSkipped
from agency.planning.tasks.models import TaskStatus
from agency.world import SHELTER_BUILD_START
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import agency_on, give, restore_vitals, run_executor_until, stone_pad

NAME = "tree_bot"
X, Y, Z = 520, 70, -480  # far from spawn and from the other tests' pads
# The first five rules of docs/contracts.md DRIVE-3 all pass; fed and with a bed, so no
# survival step (a hunt when an animal strays into sight) comes before the progression.
GIVE = {"oak_log": 20, "crafting_table": 1, "wooden_pickaxe": 1, "cooked_beef": 4, "white_bed": 1}


def test_drive_ticks_climb_from_a_wooden_pickaxe_to_an_iron_pickaxe(bridge, embedded_server, tmp_path):
    body = make_body(bridge, embedded_server.port, NAME)
    agency = agency_on(body, tmp_path / "agency.db", drive_tick={"interval_ms": 1000, "follow_ups": 0})
    try:
        stone_pad(body, NAME, X, Y, Z, r=6, headroom=5)
        give(body, NAME, GIVE)
        restore_vitals(body, NAME)

        async def step(goal_key: str, timeout_s: float) -> None:
            # each tick in the morning: from time SHELTER_BUILD_START a shelter comes first
            body.chat("/time set 1000")
            wait_until(lambda: body.snapshot().timeOfDay < SHELTER_BUILD_START, 10, "the morning")
            await asyncio.sleep(1.1)  # the drive interval
            await agency.job_perception()
            await agency.job_drive_tick()
            poll = agency.planning.poll_once()
            assert poll.converted == 1, poll.batch.outcomes
            task = agency.tasks.get_task(poll.batch.outcomes[0].task_id)
            assert task.metadata.goalKey == goal_key
            await run_executor_until(
                agency,
                lambda: agency.tasks.get_task(task.id).status in (TaskStatus.completed, TaskStatus.failed),
                timeout_s,
                goal_key,
            )
            assert agency.tasks.get_task(task.id).status is TaskStatus.completed, goal_key

        async def go():
            await step("craft:stone_sword", 180)
            assert body.snapshot().count_of("stone_sword") == 1
            # iron smelted (the smelt tool's own test), so the iron pickaxe's plan only crafts
            give(body, NAME, {"iron_ingot": 3})
            await step("craft:iron_pickaxe", 90)
            assert body.snapshot().count_of("iron_pickaxe") == 1 and body.snapshot().count_of("iron_ingot") == 0
            await step("craft:furnace", 180)  # the plan mines its 8 stone
            assert body.snapshot().count_of("furnace") == 1

        asyncio.run(go())
    finally:
        agency.close()
        body.close()


FOLLOW_X = X + 40  # a pad of its own
DONE = (TaskStatus.completed, TaskStatus.failed)


def test_one_ticks_task_does_the_goals_the_next_ticks_would_choose(bridge, embedded_server, tmp_path):
    body = make_body(bridge, embedded_server.port, NAME)
    agency = agency_on(body, tmp_path / "agency.db", drive_tick={"interval_ms": 1000, "follow_ups": 2})
    try:
        stone_pad(body, NAME, FOLLOW_X, Y, Z, r=6, headroom=5)
        # the sword's and the furnace's stone held, the iron pickaxe's ingots: every plan only crafts
        give(body, NAME, {**GIVE, "iron_ingot": 3, "cobblestone": 10})
        restore_vitals(body, NAME)
        body.chat("/time set 1000")
        wait_until(lambda: body.snapshot().timeOfDay < SHELTER_BUILD_START, 10, "the morning")

        async def tick() -> tuple[Any, int]:
            await asyncio.sleep(1.1)  # the drive interval
            await agency.job_perception()
            result = await agency.drive.run()
            return result, agency.planning.poll_once().converted

        def held(item: str) -> int:
            return body.snapshot().count_of(item)

        async def go():
            assert (await tick())[1] == 1
            (task,) = agency.tasks.list_by_status(TaskStatus.pending)
            assert task.metadata.goalKey == "craft:stone_sword"
            assert [f["target"] for f in task.parameters["then"]] == ["iron_pickaxe", "furnace"]
            assert [f["total"] for f in task.parameters["then"]] == [1, 1]
            # a sword in hand before the task runs: the next tick would choose the iron pickaxe,
            # which that task means to do after its own goal
            give(body, NAME, {"stone_sword": 1})
            wait_until(lambda: held("stone_sword") == 1, 10, "the sword given")
            skipped, converted = await tick()
            assert converted == 0 and isinstance(skipped, DriveTickSkipped), skipped
            assert skipped.reason is DriveSkipReason.duplicate_goal and "follow-up" in skipped.detail, skipped
            await run_executor_until(agency, lambda: agency.tasks.get_task(task.id).status in DONE, 120, "the task")
            assert agency.tasks.get_task(task.id).status is TaskStatus.completed
            assert held("stone_sword") == 2 and held("iron_pickaxe") == 1 and held("furnace") == 1
            assert held("iron_ingot") == 0

        asyncio.run(go())
    finally:
        agency.close()
        body.close()
