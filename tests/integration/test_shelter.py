"""Goal binding against the real world: at dusk a drive tick asks for a shelter, the goal
resolver creates the goal-bound task, the builder builds it block by block through the
bridge, and the executor completes it only after verify_shelter_v0 passed twice on real
region reads. Then an op command knocks a wall block out: the review re-read sees the
drift, the goal re-opens as a repair, and the repaired shelter verifies again.

The daemon's Agency runs in-process on the session's server and bridge; its jobs are
called directly so the test decides the order (drive tick, planning, executor ticks).
"""

from __future__ import annotations

import asyncio

import pytest

from agency.cognition.drive_rules import select_drive
from agency.goals import read_binding
from agency.goals.sync import GoalStatus
from agency.planning.tasks.models import TaskStatus
from agency.shelter.bed import shelter_bed_spot
from agency.shelter.door import doorway_cells, in_hut
from agency.shelter.earthwork import PATH_DIGGABLE
from agency.shelter.site_check import read_site, verify_region
from agency.world import underground
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import (
    agency_on,
    block_at,
    give,
    restore_vitals,
    run_executor_until,
    stone_pad,
    teleport,
)

NAME = "shelter_bot"
X, Y, Z = -420, 70, 640  # far from spawn and from the other tests' pads
GIVE = {"oak_planks": 80, "oak_door": 1, "torch": 1, "oak_log": 1, "white_bed": 1}  # a log: drive rule 1 wants some


@pytest.fixture(scope="module")
def world(bridge, embedded_server, tmp_path_factory):
    body = make_body(bridge, embedded_server.port, NAME)
    agency = agency_on(body, tmp_path_factory.mktemp("shelter") / "agency.db")
    try:
        stone_pad(body, NAME, X, Y, Z, headroom=5)
        give(body, NAME, GIVE)
        restore_vitals(body, NAME)
        yield agency, body
    finally:
        body.chat("/time set 1000")
        agency.close()
        body.close()


def _status(agency, task_id):
    return agency.tasks.get_task(task_id).status


def test_at_dusk_the_bot_builds_a_shelter_that_verifies_twice_then_the_task_completes(world):
    agency, body = world
    body.chat("/time set 11500")
    wait_until(lambda: 11_000 <= body.snapshot().timeOfDay < 13_000, 10, "dusk")

    async def go():
        await agency.job_perception()
        assert agency.goals.shelter_nearby(agency.last_snapshot) is False
        await agency.job_drive_tick()
        poll = agency.planning.poll_once()
        assert poll.converted == 1, poll.batch.outcomes
        task_id = poll.batch.outcomes[0].task_id
        task = agency.tasks.get_task(task_id)
        assert task.type == "build" and task.metadata.goalKey == "build:basic_shelter"
        assert read_binding(task).goalKey.startswith("build_shelter:A:")  # provisional until a site is chosen
        await run_executor_until(
            agency, lambda: _status(agency, task_id) is TaskStatus.completed, 120, "the shelter task"
        )
        return task_id

    task_id = asyncio.run(go())
    task = agency.tasks.get_task(task_id)
    binding = read_binding(task)
    assert binding.completion.consecutivePasses >= 2 and binding.completion.lastResult.done
    assert binding.goalKey.startswith("build_shelter:B:") and binding.goalKeyAliases[-1].startswith("build_shelter:A:")
    assert task.metadata.build["moduleCursor"] == task.metadata.build["totalModules"] == 6
    assert task.progress == 1.0
    # the real blocks, read again now: still a shelter; the goal row agrees with the task
    site = binding.anchors.siteSignature
    verdict = verify_region(read_site(body, site), site, task.metadata.build)
    assert verdict.done and verdict.lit is True, verdict.evidence  # the torch held went inside and lights it all
    spot = shelter_bed_spot(site.refCorner, site.facing)  # the bed held went in last, placed from outside
    floor = body.region(site.refCorner, (5, 1, 5))
    assert floor.count("torch") + floor.count("wall_torch") == 1, floor.palette
    assert floor.block_at(*spot.foot) == floor.block_at(*spot.head) == "white_bed" and "soft:bed" in verdict.evidence
    assert agency.goals.sync.get(binding.goalId).status is GoalStatus.COMPLETED
    passes = [e for e in agency.goals.events if e["event"] == "goal_completed" and e["taskId"] == task_id]
    assert len(passes) == 1
    # a verified shelter within reach: the next dusk drive tick does not ask for another
    asyncio.run(agency.job_perception())
    assert agency.goals.shelter_nearby(agency.last_snapshot) is True


def test_a_wall_block_removed_by_an_op_command_reopens_the_goal_as_a_repair_and_it_verifies_again(world):
    agency, body = world
    done = [t for t in agency.tasks.list_by_status(TaskStatus.completed) if t.metadata.goalBinding]
    assert done, "the build test runs first"
    task_id = done[0].id
    binding = read_binding(done[0])
    x0, y0, z0 = binding.anchors.siteSignature.refCorner
    hole = (x0, y0 + 1, z0 + 1)  # a wall block on the west side, head height
    asyncio.run(agency.goals.job_review())  # first read after completion: nothing changed
    assert _status(agency, task_id) is TaskStatus.completed
    body.chat(f"/mcbot setblock {hole[0]} {hole[1]} {hole[2]} air")
    wait_until(lambda: body.region(hole, (1, 1, 1)).block_at(*hole) == "air", 10, "the wall block gone")

    async def go():
        drifted = await agency.goals.job_review()
        assert drifted == [task_id]
        reopened = agency.tasks.get_task(task_id)
        assert reopened.status is TaskStatus.active
        b = read_binding(reopened)
        assert b.reopened.reason == "regression_detected" and "not_enclosed" in b.reopened.blockers
        assert b.completion.consecutivePasses == 0
        await run_executor_until(agency, lambda: _status(agency, task_id) is TaskStatus.completed, 60, "the repair")

    asyncio.run(go())
    assert body.region(hole, (1, 1, 1)).block_at(*hole) == "oak_planks"
    task = agency.tasks.get_task(task_id)
    b = read_binding(task)
    assert b.completion.consecutivePasses >= 2 and b.completion.lastResult.done and b.reopened is None
    runs = agency.checkpoints.conn.execute("SELECT run_id FROM workflow_runs WHERE task_id = ?", (task_id,)).fetchall()
    assert len(runs) == 2  # the repair was a fresh run that placed only what was missing
    events = [e["event"] for e in agency.goals.events if e["taskId"] == task_id]
    assert events.count("goal_reopened") == 1 and events.count("goal_completed") == 2


def test_a_blocked_path_to_the_site_is_dug_through_leaves_but_never_through_planks(world):
    _agency, body = world
    x, z = X + 40, Z  # a fresh pad, away from the shelter
    stone_pad(body, NAME, x, Y, z, headroom=5)

    def boxed_in(block):
        # one fill after the other: the server runs commands side by side, so an air fill sent
        # at once could finish first and the box's fill then fill the middle too
        body.chat(f"/mcbot fill {x - 1} {Y} {z - 1} {x + 1} {Y + 1} {z + 1} {block}")
        wait_until(lambda: body.region((x - 1, Y, z - 1), (3, 2, 3)).count(block) == 18, 10, f"a {block} block")
        body.chat(f"/mcbot fill {x} {Y} {z} {x} {Y + 1} {z} air")
        wait_until(lambda: body.region((x - 1, Y, z - 1), (3, 2, 3)).count(block) == 16, 10, f"a {block} box")

    walk = {"x": x + 5.5, "y": Y, "z": z + 0.5, "range": 0.5, "digOnly": list(PATH_DIGGABLE)}
    boxed_in("oak_leaves")
    st = body.wait_action(body.start_action("move_to", walk).id, max_s=40)
    assert st.state.value == "done", st.error
    assert abs(body.snapshot().position.x - (x + 5.5)) < 1.0
    boxed_in("oak_planks")
    body.chat(f"/mcbot tp {NAME} {x} {Y} {z}")
    wait_until(lambda: abs(body.snapshot().position.x - (x + 0.5)) < 0.6, 10, "back in the box")
    st = body.wait_action(body.start_action("move_to", walk).id, max_s=40)
    assert st.state.value == "failed" and "no progress" in (st.error or "")
    box = body.region((x - 1, Y, z - 1), (3, 2, 3))
    assert box.count("oak_planks") == 16  # not one plank dug


def test_a_crafting_table_placed_in_reach_counts_for_the_drive_tick(world):
    """Crafts place the table they need; the drive tick must see it there, or it crafts a
    new table after every such craft (rule 3 judged by the inventory alone)."""
    agency, body = world
    x, z = X - 40, Z  # a fresh pad, away from the shelter and the other pad
    stone_pad(body, NAME, x, Y, z, headroom=5)
    snap = body.snapshot()
    assert snap.count_of("crafting_table") == 0 and snap.count_matching("_log") > 0  # the fixture's inventory
    agency.drive_state.last_fired_ms = None  # a drive tick is due
    nearby = asyncio.run(agency.drive.reads.table_nearby(snap, agency.clock()))
    assert nearby is False
    assert select_drive(snap, True, nearby).rule == "no_crafting_table"
    body.chat(f"/mcbot setblock {x + 3} {Y} {z} crafting_table")
    wait_until(
        lambda: body.region((x + 3, Y, z), (1, 1, 1)).block_at(x + 3, Y, z) == "crafting_table", 10, "table placed"
    )
    nearby = asyncio.run(agency.drive.reads.table_nearby(snap, agency.clock()))
    assert nearby is True
    assert select_drive(snap, True, nearby).rule != "no_crafting_table"


def _door_closed(body, door) -> bool:
    """Ask the door to be closed; `used` False means it already was."""
    st = body.wait_action(
        body.start_action("activate", {"x": door[0], "y": door[1], "z": door[2], "ensure": {"open": False}}).id,
        max_s=10,
    )
    assert st.state.value == "done", st.error
    return st.result["used"] is False and st.result["properties"]["open"] in (False, "false")


def test_at_night_the_bot_spends_the_night_in_its_shelter_and_comes_out_in_the_morning(world):
    agency, body = world
    site = agency.goals.nearest_verified_shelter(
        body.snapshot().model_copy(
            update={"position": body.snapshot().position.model_copy(update={"x": X + 2, "z": Z + 2})}
        )
    )
    assert site is not None and site.entrance is not None  # built and verified by the tests above
    outside, _inside = doorway_cells(site.entrance, site.facing)
    dx, dz = outside[0] - site.entrance[0], outside[2] - site.entrance[2]
    start = (outside[0] + 4 * dx, outside[1], outside[2] + 4 * dz)  # 5 blocks in front of the door
    body.chat(f"/mcbot tp {NAME} {start[0]} {start[1]} {start[2]}")
    wait_until(
        lambda: (
            abs(body.snapshot().position.x - (start[0] + 0.5)) < 1.5
            and abs(body.snapshot().position.z - (start[2] + 0.5)) < 1.5
        ),
        10,
        "in front of the shelter",
    )
    body.chat("/time set 12500")
    wait_until(lambda: body.snapshot().timeOfDay >= 12500, 10, "dusk")

    async def night():
        assert await agency.reflexes.tick(body.snapshot()) == "shelter"
        assert agency.reflexes.holding_tasks
        assert await agency.executor.tick(held=agency.holder.reflexes_hold) == "held"

    asyncio.run(night())
    assert in_hut(site, body.snapshot().position), body.snapshot().position
    assert _door_closed(body, site.entrance)
    # the hut still verifies with the bot inside and the door shut
    assert verify_region(read_site(body, site), site, None).done

    body.chat("/time set 1000")
    wait_until(lambda: body.snapshot().timeOfDay < 2000, 10, "morning")
    assert asyncio.run(agency.reflexes.tick(body.snapshot())) == "leave_shelter"
    assert not agency.reflexes.holding_tasks
    pos = body.snapshot().position
    assert not in_hut(site, pos) and (int(pos.x // 1), int(pos.z // 1)) == (outside[0], outside[2])
    assert _door_closed(body, site.entrance)


def test_at_dusk_the_bot_walks_back_to_its_shelter_from_50_blocks_away_instead_of_building_another(world):
    agency, body = world
    site = agency.goals.nearest_verified_shelter(body.snapshot())
    assert site is not None and site.entrance is not None  # built and verified by the tests above
    outside, _inside = doorway_cells(site.entrance, site.facing)
    dx, dz = outside[0] - site.entrance[0], outside[2] - site.entrance[2]
    far = (outside[0] + 50 * dx, outside[1], outside[2] + 50 * dz)
    # a clear stone strip from the door out there: the walk back is the test, not the terrain
    (x0, x1), (z0, z1) = sorted((outside[0] - dz, far[0] + dz)), sorted((outside[2] - dx, far[2] + dx))
    body.chat(f"/mcbot fill {x0} {far[1] - 1} {z0} {x1} {far[1] - 1} {z1} stone")
    body.chat(f"/mcbot fill {x0} {far[1]} {z0} {x1} {far[1] + 3} {z1} air")
    teleport(body, NAME, *far)
    body.chat("/time set 6500")
    wait_until(lambda: 6500 <= body.snapshot().timeOfDay < 11_000, 10, "afternoon")
    snap = body.snapshot()
    assert agency.goals.nearest_verified_shelter(snap) == site  # 50 blocks off: walked back to
    assert select_drive(snap, agency.goals.shelter_nearby(snap)).rule != "night_no_shelter"  # none built
    body.chat("/time set 12500")
    wait_until(lambda: body.snapshot().timeOfDay >= 12500, 10, "dusk")

    async def night():
        assert await agency.reflexes.tick(body.snapshot()) == "shelter"
        assert agency.reflexes.holding_tasks

    asyncio.run(night())
    assert in_hut(site, body.snapshot().position), body.snapshot().position
    assert _door_closed(body, site.entrance)
    body.chat("/time set 1000")
    wait_until(lambda: body.snapshot().timeOfDay < 2000, 10, "morning")
    assert asyncio.run(agency.reflexes.tick(body.snapshot())) == "leave_shelter"


def test_a_creeper_blast_at_the_back_wall_is_found_by_the_verifier_and_repaired(world):
    agency, body = world
    done = [t for t in agency.tasks.list_by_status(TaskStatus.completed) if t.metadata.goalBinding]
    assert done, "the build test runs first"
    task_id = done[0].id
    site = read_binding(done[0]).anchors.siteSignature
    assert site.entrance is not None
    (x0, _y0, z0), (x1, _y1, z1) = site.footprintBounds.min, site.footprintBounds.max
    feet = site.refCorner[1]  # the footprint starts at the floor below
    cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
    ex, ez = site.entrance[0], site.entrance[2]
    # outside the wall opposite the door, at its middle; the bot waits 12 blocks off on the door side
    if abs(ex - cx) >= abs(ez - cz):
        back = (x1 + 1.5 if ex < cx else x0 - 0.5, cz + 0.5)
        away = (ex - 12 if ex < cx else ex + 12, ez)
    else:
        back = (cx + 0.5, z1 + 1.5 if ez < cz else z0 - 0.5)
        away = (ex, ez - 12 if ez < cz else ez + 12)
    body.chat(f"/mcbot tp {NAME} {away[0]} {feet} {away[1]}")
    body.chat(f"/give {NAME} oak_planks 40")
    body.chat(f"/give {NAME} oak_door 1")
    body.chat(f"/mcbot health {NAME} 20")
    wait_until(lambda: abs(body.snapshot().position.x - (away[0] + 0.5)) < 1.5, 10, "the bot away from the wall")
    asyncio.run(agency.goals.job_review())
    assert _status(agency, task_id) is TaskStatus.completed
    body.chat(f"/mcbot summon creeper {back[0]} {feet} {back[1]} ignited")
    broken = wait_until(
        lambda: (v := verify_region(read_site(body, site), site, None)).done is False and v,
        15,
        "the blast's hole in the wall",
    )
    print("the blast left:", broken.blockers)
    assert body.snapshot().health == 20  # 12 blocks off: out of the blast

    async def go():
        assert await agency.goals.job_review() == [task_id]
        b = read_binding(agency.tasks.get_task(task_id))
        assert b.reopened.reason == "regression_detected" and b.reopened.blockers, b.reopened
        await run_executor_until(agency, lambda: _status(agency, task_id) is TaskStatus.completed, 180, "the repair")

    asyncio.run(go())
    assert verify_region(read_site(body, site), site, None).done
    b = read_binding(agency.tasks.get_task(task_id))
    assert b.completion.consecutivePasses >= 2 and b.reopened is None


def test_at_night_with_work_underground_the_bot_digs_in_under_the_hut_which_still_verifies(world):
    agency, body = world
    site = agency.goals.nearest_verified_shelter(body.snapshot())
    assert site is not None and site.entrance is not None  # built, verified and repaired by the tests above
    (x0, _, z0), (x1, _, z1) = site.footprintBounds.min, site.footprintBounds.max
    floor_y = site.entrance[1]
    # solid ground under the hut and around it (the pad is one block thick, the blast left a crater)
    body.chat(f"/mcbot fill {x0 - 3} {floor_y - 8} {z0 - 3} {x1 + 3} {floor_y - 1} {z1 + 3} stone")
    outside, _inside = doorway_cells(site.entrance, site.facing)
    teleport(body, NAME, *outside)
    give(body, NAME, {"wooden_pickaxe": 1, "oak_log": 20, "crafting_table": 1})  # a progression step is next
    reflexes = agency.reflexes
    sleeps = reflexes.config
    reflexes.config = sleeps.model_copy(update={"sleep_in_shelter": False})  # the module gave it a bed
    body.chat("/time set 12500")
    wait_until(lambda: body.snapshot().timeOfDay >= 12500, 10, "dusk")
    try:

        async def night():
            assert await reflexes.tick(body.snapshot()) == "shelter"
            assert await reflexes.tick(body.snapshot()) == "dig_in"
            assert await reflexes.tick(body.snapshot()) is None  # underground: not called back up

        asyncio.run(night())
        snap = body.snapshot()
        assert reflexes.stats.nights_dug_in == 1 and not reflexes.holding_tasks, reflexes.stats.log[-1]
        assert snap.position.y <= floor_y - 3 and underground(snap), (snap.position, snap.cover)
        assert not in_hut(site, snap.position)
        # the floor closed behind: the hut verifies with its staircase under it, and the ground
        # under its back wall (the third step's head room) is whole, as a repair's site check wants
        check = verify_region(read_site(body, site), site, None)
        assert check.done, check.blockers
        ax, az = outside[0] - site.entrance[0], outside[2] - site.entrance[2]  # the way out; in is -a
        inside = _inside
        assert block_at(body, inside[0] - 3 * ax, floor_y - 1, inside[2] - 3 * az) != "air"
        body.chat("/time set 1000")
        wait_until(lambda: body.snapshot().timeOfDay < 2000, 10, "morning")

        async def morning():
            assert await reflexes.tick(body.snapshot()) == "come_up", reflexes.stats.log[-1]
            snap = body.snapshot()
            assert in_hut(site, snap.position) and reflexes.sheltered == site, (snap.position, reflexes.stats.log)
            # the staircase's fills dug on the way up, the floor closed again from above
            check = verify_region(read_site(body, site), site, None)
            assert check.done, check.blockers
            assert await reflexes.tick(body.snapshot()) == "leave_shelter"

        asyncio.run(morning())
        snap = body.snapshot()
        assert not reflexes._dug_in and not reflexes.holding_tasks and not in_hut(site, snap.position)
        assert snap.cover == 0, snap.cover  # out under the sky, where the animals are
    finally:
        reflexes.config = sleeps


def test_at_night_with_no_shelter_in_reach_the_bot_burrows_in_and_digs_out_in_the_morning(world):
    agency, body = world
    bx, by, bz = X + 120, Y, Z  # 120 blocks from the hut: no shelter to go to
    body.chat(f"/mcbot fill {bx - 6} {by - 8} {bz - 6} {bx + 6} {by - 4} {bz + 6} stone")
    body.chat(f"/mcbot fill {bx - 6} {by - 3} {bz - 6} {bx + 6} {by - 1} {bz + 6} dirt")
    body.chat(f"/mcbot fill {bx - 6} {by} {bz - 6} {bx + 6} {by + 4} {bz + 6} air")
    teleport(body, NAME, bx, by, bz)
    wait_until(lambda: block_at(body, bx, by - 1, bz) == "dirt", 10, "the dirt patch")
    wait_until(lambda: abs(body.snapshot().position.y - by) < 0.01, 10, "standing on the dirt")
    reflexes = agency.reflexes
    body.chat("/time set 14000")
    wait_until(lambda: body.snapshot().timeOfDay >= 14000, 10, "night")
    assert agency.goals.nearest_verified_shelter(body.snapshot()) is None

    async def night():
        assert await reflexes.tick(body.snapshot()) == "burrow"
        assert reflexes.holding_tasks, reflexes.stats.log[-1]

    asyncio.run(night())
    pos = body.snapshot().position
    assert pos.y <= by - 3, pos
    # the ground the bot stood on is whole again: the pocket is closed
    ground = body.region((bx - 4, by - 1, bz - 4), (9, 1, 9))
    assert all(ground.block_at(x, by - 1, z) != "air" for x in range(bx - 4, bx + 5) for z in range(bz - 4, bz + 5))
    body.chat("/time set 1000")
    wait_until(lambda: body.snapshot().timeOfDay < 2000, 10, "morning")
    assert asyncio.run(reflexes.tick(body.snapshot())) == "come_up"
    assert not reflexes.holding_tasks and reflexes.stats.log[-1]["ok"], reflexes.stats.log[-1]
    pos = body.snapshot().position
    assert pos.y >= by - 0.5 and abs(pos.x - bx) <= 2 and abs(pos.z - bz) <= 2, pos  # dug up through the fill
    # and the way in closed again behind it: no hole left in the ground it walks on by day
    ground = body.region((bx - 4, by - 1, bz - 4), (9, 1, 9))
    cells = [(x, z) for x in range(bx - 4, bx + 5) for z in range(bz - 4, bz + 5)]
    holes = [(x, z) for x, z in cells if ground.block_at(x, by - 1, z) == "air"]
    assert holes == [], (holes, reflexes.stats.log[-1])
