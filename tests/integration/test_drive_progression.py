"""The drive tick's tech-tree progression against the real world (issue 19): with logs, a
table and a wooden pickaxe held and stone in sight, successive drive ticks ask for
cobblestone, a stone pickaxe and a furnace, then (ingots given) an iron pickaxe, and each
task the planner makes of them completes through the real bridge.

The daemon's Agency runs in-process on the session's server and bridge; its jobs are
called directly so the test decides the order (drive tick, planning, executor ticks).
"""

from __future__ import annotations

import asyncio
import time

from agency.planning.tasks.models import TaskStatus
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency
from tests.conftest import make_body, wait_until

NAME = "tree_bot"
X, Y, Z = 520, 70, -480  # far from spawn and from the other tests' pads
# The spec's five rules all pass; fed and with a bed, so no survival step (a hunt when an animal
# strays into sight) comes before the progression.
GIVE = {"oak_log": 20, "crafting_table": 1, "wooden_pickaxe": 1, "cooked_beef": 4, "white_bed": 1}


def _pad(body, x, y, z, r=6):
    body.chat(f"/mcbot fill {x - r} {y - 1} {z - r} {x + r} {y - 1} {z + r} stone")
    body.chat(f"/mcbot fill {x - r} {y} {z - r} {x + r} {y + 5} {z + r} air")
    body.chat(f"/mcbot tp {NAME} {x} {y} {z}")
    wait_until(lambda: abs(body.snapshot().position.x - (x + 0.5)) < 1.5, 10, "teleported onto the pad")
    wait_until(lambda: body.region((x, y - 1, z), (1, 1, 1)).block_at(x, y - 1, z) == "stone", 15, "pad loaded")


async def _run_until(agency, pred, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        await agency.job_executor()
        await asyncio.sleep(0.2)


def test_drive_ticks_climb_from_a_wooden_pickaxe_to_an_iron_pickaxe(bridge, embedded_server, tmp_path):
    body = make_body(bridge, embedded_server.port, NAME)
    cfg = McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "agency.db")},
                                      "drive_tick": {"interval_ms": 1000}})
    agency = Agency(cfg)
    agency.attach_body(body)
    try:
        body.chat("/time set 1000")
        _pad(body, X, Y, Z)
        for item, n in GIVE.items():
            body.chat(f"/give {NAME} {item} {n}")
        wait_until(lambda: all(body.snapshot().count_of(i) >= n for i, n in GIVE.items()), 15, "materials given")
        body.chat(f"/mcbot health {NAME} 20")
        body.chat(f"/mcbot food {NAME} 20")

        async def step(goal_key: str, timeout_s: float) -> None:
            await asyncio.sleep(1.1)  # the drive interval
            await agency.job_perception()
            await agency.job_drive_tick()
            poll = agency.planning.poll_once()
            assert poll.converted == 1, poll.batch.outcomes
            task = agency.tasks.get_task(poll.batch.outcomes[0].task_id)
            assert task.metadata.goalKey == goal_key
            await _run_until(agency, lambda: agency.tasks.get_task(task.id).status
                             in (TaskStatus.completed, TaskStatus.failed), timeout_s, goal_key)
            assert agency.tasks.get_task(task.id).status is TaskStatus.completed, goal_key

        async def go():
            await step("collect:stone", 180)
            assert body.snapshot().count_of("cobblestone") >= 11
            await step("craft:stone_pickaxe", 90)
            assert body.snapshot().count_of("stone_pickaxe") == 1
            await step("craft:furnace", 90)
            assert body.snapshot().count_of("furnace") == 1
            # iron smelted (the smelt tool's own test): the next step is the iron pickaxe
            body.chat(f"/give {NAME} iron_ingot 3")
            wait_until(lambda: body.snapshot().count_of("iron_ingot") == 3, 15, "ingots given")
            await step("craft:iron_pickaxe", 90)
            assert body.snapshot().count_of("iron_pickaxe") == 1 and body.snapshot().count_of("iron_ingot") == 0

        asyncio.run(go())
    finally:
        agency.close()
        body.close()
