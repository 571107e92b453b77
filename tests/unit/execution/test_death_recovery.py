"""Death recovery on the real executor, task store, tools and reflexes over the fake block
world: a death holds the running build ('died') with its cause recorded; once respawned the
bot walks back and picks up what it dropped, and the build carries on. Items that cannot be
recovered (despawned) make the resumed build re-plan and gather again instead of failing on
an empty inventory."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from loguru import logger

from agency.execution.agents.build_plan import DOOR, FILL_PLANKS, LIGHT, _full_need
from agency.execution.reflexes import DIED, ReflexConfig, Reflexes
from agency.execution.reflexes.recover import RECOVER_BUDGET_S
from agency.planning.tasks.models import TaskStatus
from agency.tools.testing import GROUND_Y, FakeBody, FakeTime, Mob
from agency.world import BodyEvent, EntityInfo, EventType, Vec3
from tests.unit.execution.world import add_task, executor_env

SPAWN = Vec3(x=-20.5, y=GROUND_Y, z=0.5)  # where the bot respawns: 20 blocks from the site
PICKUP_RANGE = 1.5


class MortalBody(FakeBody):
    """The fake world where the bot can die: its inventory drops as item entities where it
    died and it respawns at SPAWN; walking within PICKUP_RANGE of an item picks it up."""

    def __init__(self, clock: Any, **kw: Any) -> None:
        super().__init__(clock, **kw)
        self.ground: list[tuple[str, int, Vec3]] = []

    def die(self) -> dict[str, float]:
        at = self.position
        for i, (name, count) in enumerate(sorted(self.inventory.items())):
            if count:  # scattered a little, as a death drop is
                self.ground.append((name, count, Vec3(x=at.x + (i % 3) - 1, y=at.y, z=at.z + (i % 2))))
        self.inventory.clear()
        self.position = SPAWN
        return {"x": at.x, "y": at.y, "z": at.z}

    def snapshot(self):
        snap = super().snapshot()
        items = [
            EntityInfo(
                name="item",
                type="object",
                hostile=False,
                position=p,
                distance=math.dist((p.x, p.y, p.z), (self.position.x, self.position.y, self.position.z)),
            )
            for _, _, p in self.ground
        ]
        return snap.model_copy(update={"entities": [*snap.entities, *items]})

    def _do_move_to(self, a: dict[str, Any]) -> dict[str, Any]:
        out = super()._do_move_to(a)
        here = (self.position.x, self.position.y, self.position.z)
        for entry in list(self.ground):
            name, count, p = entry
            if math.dist(here, (p.x, p.y, p.z)) <= PICKUP_RANGE:
                self.ground.remove(entry)
                self.inventory[name] += count
        return out


def _hut_materials() -> dict[str, int]:
    need = _full_need("oak_planks")
    return {"oak_planks": need["oak_planks"] + FILL_PLANKS, DOOR: 1, LIGHT: 1}


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = MortalBody(ftime.clock, inventory=_hut_materials(), polls_to_finish=2)
    e = executor_env(tmp_path, ftime, body)
    e["reflexes"] = Reflexes(e["tools"], e["ctx"], e["ex"], ReflexConfig(shelter_at_night=False), clock=ftime.clock)
    yield e
    e["tasks"].close()


def _death(position: dict[str, float], cause: str) -> BodyEvent:
    return BodyEvent(type=EventType.death, ts=0, data={"position": position, "cause": cause, "dimension": "overworld"})


async def _until_a_module_is_built(env: dict[str, Any], task_id: str) -> None:
    ex, ftime = env["ex"], env["ftime"]
    history = ex.runtime.checkpoints.history
    for _ in range(5000):
        if any(c.completedStepId.startswith("module-") for c in history(task_id)):
            return
        await ex.tick()
        await ftime.sleep(0.1)
    raise AssertionError("no module built")


async def _run_to_the_end(env: dict[str, Any], task_id: str) -> list[str]:
    ex, tasks, ftime, reflexes = env["ex"], env["tasks"], env["ftime"], env["reflexes"]
    outcomes = []
    for _ in range(20000):
        if tasks.get_task(task_id).status in (TaskStatus.completed, TaskStatus.failed):
            return outcomes
        outcomes.append(await ex.tick(held=reflexes.holding_tasks))
        await ftime.sleep(0.1)
    raise AssertionError(f"task still {tasks.get_task(task_id).status}")


def test_a_death_holds_the_build_the_bot_walks_back_for_its_items_and_the_build_carries_on(env):
    body, tasks, ex, reflexes = env["body"], env["tasks"], env["ex"], env["reflexes"]
    task_id = add_task(tasks, "build", "basic_shelter")

    async def die_and_recover():
        await _until_a_module_is_built(env, task_id)
        held = sum(body.inventory.values())
        where = body.die()
        await reflexes.on_events([_death(where, "zombie")])
        task = tasks.get_task(task_id)
        assert task.status is TaskStatus.paused and task.metadata.blockedReason == DIED
        assert ex.current is None and reflexes.holding_tasks
        assert await ex.tick(held=reflexes.holding_tasks) == "held"  # nothing claimed meanwhile
        assert await reflexes.tick(body.snapshot()) == "recover"
        return held

    held = asyncio.run(die_and_recover())
    assert reflexes.stats.deaths == 1 and reflexes.stats.death_causes == {"zombie": 1}
    assert body.ground == [] and sum(body.inventory.values()) == held  # every stack picked up
    assert reflexes.stats.items_recovered == held and not reflexes.holding_tasks
    assert tasks.get_task(task_id).status is TaskStatus.pending  # given back
    outcomes = asyncio.run(_run_to_the_end(env, task_id))
    assert tasks.get_task(task_id).status is TaskStatus.completed
    assert "replanned" not in outcomes  # the materials were back: no need to gather
    assert not [k for k, _ in body.started if k == "collect"]


def test_armour_among_the_items_picked_up_is_put_back_on(env):
    body, reflexes = env["body"], env["reflexes"]

    async def die_and_recover(armour: dict[str, int]) -> list[str]:
        body.inventory.update(armour)
        where = body.die()
        await reflexes.on_events([_death(where, "zombie")])
        assert await reflexes.tick(body.snapshot()) == "recover"
        return [k for k, _ in body.started]

    assert "wear" not in asyncio.run(die_and_recover({"cobblestone": 5}))
    assert [k for k in asyncio.run(die_and_recover({"iron_chestplate": 1})) if k == "wear"] == ["wear"]
    assert body.inventory["iron_chestplate"] == 1 and body.ground == []


def test_items_lost_for_good_make_the_resumed_build_gather_again_instead_of_failing(env):
    body, tasks, reflexes, ftime = env["body"], env["tasks"], env["reflexes"], env["ftime"]
    task_id = add_task(tasks, "build", "basic_shelter")
    for i in range(6):  # trees near the respawn point for the second round of logs
        body.add_tree(-26 + 2 * i, 8, height=6)

    async def die_and_wait_too_long():
        await _until_a_module_is_built(env, task_id)
        await reflexes.on_events([_death(body.die(), "fall")])
        ftime.clock.advance(ReflexConfig().item_despawn_ms + 1000)  # respawned too late: the items are gone
        body.ground.clear()
        assert await reflexes.tick(body.snapshot()) is None

    asyncio.run(die_and_wait_too_long())
    assert reflexes.stats.death_causes == {"fall": 1} and reflexes.death is None
    assert tasks.get_task(task_id).status is TaskStatus.pending
    outcomes = asyncio.run(_run_to_the_end(env, task_id))
    task = tasks.get_task(task_id)
    assert task.status is TaskStatus.completed, (task.metadata.solver, outcomes)
    assert "replanned" in outcomes  # the next module found no planks: planned again from the inventory
    assert [k for k, _ in body.started].count("collect") >= 1  # and gathered logs again


def test_the_module_step_reports_missing_materials_as_a_precondition(env):
    """Without it, the build failed with EXECUTION_ERROR 'place failed: no oak_planks in
    inventory', which no re-plan follows."""
    body, tools, ctx = env["body"], env["tools"], env["ctx"]
    body.inventory.clear()
    body.inventory["oak_planks"] = 3
    args = {"origin": [4, GROUND_Y, 4], "facing": "south", "module": "walls_layer_1"}
    res = asyncio.run(tools.execute("build_shelter_module", args, ctx))
    assert not res.success and res.error.code == "PRECONDITION_FAILED"
    assert "materials missing" in res.error.message and "oak_planks" in res.error.message
    assert not [k for k, _ in body.started if k == "place"]  # nothing placed half-way


def test_recovery_waits_for_safety_and_gives_up_on_a_far_or_old_death(env):
    body, reflexes, ftime = env["body"], env["reflexes"], env["ftime"]
    reflexes.record_events([_death({"x": 0.5, "y": GROUND_Y, "z": 0.5}, "zombie")])
    body.position = SPAWN
    body.mobs.append(Mob("zombie", True, SPAWN.x + 6, SPAWN.z))  # within the fight radius, beyond reach
    assert reflexes.choose(body.snapshot()) is None  # not safe yet
    body.mobs.clear()
    assert reflexes.choose(body.snapshot()) == "recover"
    body.position = Vec3(x=200.5, y=GROUND_Y, z=0.5)  # respawned far away
    asyncio.run(reflexes.tick(body.snapshot()))
    assert reflexes.death is None and not reflexes.holding_tasks
    reflexes.record_events([_death({"x": 0.5, "y": GROUND_Y, "z": 0.5}, "unknown")])
    ftime.clock.advance(ReflexConfig().item_despawn_ms + 1)
    body.position = SPAWN
    asyncio.run(reflexes.tick(body.snapshot()))
    assert reflexes.death is None
    assert reflexes.stats.deaths == 2 and reflexes.stats.death_causes == {"zombie": 1, "unknown": 1}


def test_no_walk_back_to_items_a_hostile_is_seen_beside(env):
    """A 26.1 bench bot walked back to its items four times in 90 s of an afternoon, into the
    creepers and the skeleton that had killed it there."""
    body, reflexes = env["body"], env["reflexes"]
    died_at = {"x": 0.5, "y": GROUND_Y, "z": 0.5}
    reflexes.record_events([_death(died_at, "creeper")])
    body.position = SPAWN
    body.mobs.append(Mob("creeper", True, 4.5, 0.5))  # 4 blocks from the items, far from the bot
    assert body.position.distance_to(Vec3(x=4.5, y=GROUND_Y, z=0.5)) > 16
    assert reflexes.choose(body.snapshot()) is None  # it may still be there: wait
    body.mobs[0] = Mob("creeper", True, 4.5, 0.5, y=GROUND_Y - 8)  # in a cave under them: no guard
    assert reflexes.choose(body.snapshot()) == "recover"
    body.mobs[0] = Mob("creeper", True, 14.5, 0.5)  # wandered off (14 blocks from the items)
    assert reflexes.choose(body.snapshot()) == "recover"


def test_items_guarded_for_90_s_are_given_up_and_the_tasks_go_on(env):
    body, reflexes, ftime = env["body"], env["reflexes"], env["ftime"]
    reflexes.record_events([_death({"x": 0.5, "y": GROUND_Y, "z": 0.5}, "skeleton")])
    body.position = SPAWN
    body.mobs.append(Mob("skeleton", True, 4.5, 0.5))
    assert asyncio.run(reflexes.tick(body.snapshot())) is None and reflexes.death is not None  # waits
    ftime.clock.advance(60_000)
    asyncio.run(reflexes.tick(body.snapshot()))
    assert reflexes.death is not None  # still waiting
    ftime.clock.advance(31_000)
    asyncio.run(reflexes.tick(body.snapshot()))
    assert reflexes.death is None  # given up: "hostiles by the items for 90 s"


def test_items_deep_under_the_respawn_are_walked_to_never_dug_down_to(env):
    """Bare hands dug a shaft through dirt and gravel to the stone, and the bot was trapped."""
    body, reflexes, tools = env["body"], env["reflexes"], env["tools"]
    calls = []
    execute = tools.execute

    async def recording(name, args, ctx, **kw):
        calls.append((name, dict(args)))
        return await execute(name, args, ctx, **kw)

    tools.execute = recording
    for depth, dig in ((25, False), (3, True)):  # a step or two down: a walk that may dig its way
        calls.clear()
        reflexes.record_events([_death({"x": SPAWN.x + 3, "y": GROUND_Y - depth, "z": SPAWN.z}, "skeleton")])
        body.position = SPAWN
        assert reflexes._recovery_out_of_reach(body.snapshot()) is None
        asyncio.run(reflexes._recover())
        pick = next(a for n, a in calls if n == "pick_up_items")
        assert pick.get("dig", True) is dig, pick


def test_a_walk_back_that_gets_nowhere_gives_up_within_the_recovery_budget(env):
    """A walk that never arrives ends at RECOVER_BUDGET_S with the items given up and the
    tasks let go, not at the reflex job's 120 s."""
    body, reflexes, ftime = env["body"], env["reflexes"], env["ftime"]
    reflexes.record_events([_death({"x": SPAWN.x + 30, "y": GROUND_Y, "z": SPAWN.z}, "zombie")])
    body.position = SPAWN
    body.hang.add("move_to")
    started = ftime.clock()
    asyncio.run(reflexes._recover())
    took_s = (ftime.clock() - started) / 1000
    assert RECOVER_BUDGET_S <= took_s < RECOVER_BUDGET_S + 5, took_s
    assert reflexes.death is None and not reflexes.holding_tasks


def test_a_hostile_coming_up_on_the_walk_back_stops_it_and_the_items_wait(env):
    """A respawned 26.1 bench bot at 855429f, bare-handed, was killed by a zombie 23 s into its
    walk back to its items, nothing answering it: the arbiter waits on the walk."""
    body, reflexes, ftime = env["body"], env["reflexes"], env["ftime"]
    reflexes.record_events([_death({"x": SPAWN.x + 30, "y": GROUND_Y, "z": SPAWN.z}, "creeper")])
    body.position = SPAWN
    body.hang.add("move_to")  # a long walk

    async def go():
        async def zombie_comes():
            await ftime.sleep(5)
            body.mobs.append(Mob("zombie", hostile=True, x=body.position.x + 2, z=body.position.z))

        started = ftime.clock()
        await asyncio.gather(reflexes._recover(), zombie_comes())
        return (ftime.clock() - started) / 1000

    took_s = asyncio.run(go())
    assert took_s < RECOVER_BUDGET_S / 2, took_s  # stopped, not run out
    assert reflexes.death is not None  # the items wait: tried again once it is safe
    assert reflexes.choose(body.snapshot()) not in (None, "recover")  # the zombie is answered first


def test_a_walk_back_stopped_by_threats_for_90_s_is_given_up_and_the_tasks_go_on(env):
    """A 1.18.2 bench bot's walk back was stopped 31 times in 5 minutes by a skeleton on the
    way, its tasks held until the items despawned."""
    body, reflexes, ftime = env["body"], env["reflexes"], env["ftime"]
    reflexes.record_events([_death({"x": SPAWN.x + 30, "y": GROUND_Y, "z": SPAWN.z}, "skeleton")])
    body.position = SPAWN
    body.hang.add("move_to")  # a long walk
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")

    async def stopped_walk_back():
        async def zombie_comes():
            await ftime.sleep(5)
            body.mobs.append(Mob("zombie", hostile=True, x=body.position.x + 2, z=body.position.z))

        await asyncio.gather(reflexes._recover(), zombie_comes())
        body.mobs.clear()  # gone again: the next walk back is safe to start

    try:
        asyncio.run(stopped_walk_back())
        ftime.clock.advance(95_000)  # one stop, then long unsafe (a fight, the night): tried again
        assert reflexes._recovery_out_of_reach(body.snapshot()) is None
        asyncio.run(stopped_walk_back())
        assert reflexes._recovery_out_of_reach(body.snapshot()) is None  # twice: tried again
        asyncio.run(stopped_walk_back())
        asyncio.run(reflexes.tick(body.snapshot()))
    finally:
        logger.remove(sink)
    assert reflexes.death is None and not reflexes.holding_tasks
    assert any("the walk back stopped by threats on the way 3 times in 1" in line for line in lines), lines
    # the next death's walk back starts its own count
    reflexes.record_events([_death({"x": SPAWN.x + 30, "y": GROUND_Y, "z": SPAWN.z}, "skeleton")])
    assert reflexes._recovery_out_of_reach(body.snapshot()) is None


def _pickaxe_from_nothing(env: dict[str, Any]) -> str:
    """A wooden pickaxe to craft with nothing held: a tree here, three by the respawn point."""
    body = env["body"]
    body.inventory.clear()
    body.add_tree(4, 2, height=5)
    for i in range(3):
        body.add_tree(-24 + 2 * i, 6, height=5)
    return add_task(env["tasks"], "craft", "wooden_pickaxe")


def test_a_craft_that_lost_its_logs_on_a_death_gathers_them_again(env):
    body, tasks, ex, reflexes, ftime = env["body"], env["tasks"], env["ex"], env["reflexes"], env["ftime"]
    task_id = _pickaxe_from_nothing(env)
    history = ex.runtime.checkpoints.history

    async def gather_then_die():
        for _ in range(5000):
            if [c.completedStepId for c in history(task_id)][-1:] == ["craft-planks"]:
                break
            await ex.tick()
            await ftime.sleep(0.1)
        await reflexes.on_events([_death(body.die(), "skeleton")])
        assert tasks.get_task(task_id).metadata.blockedReason == DIED
        ftime.clock.advance(ReflexConfig().item_despawn_ms + 1000)
        body.ground.clear()
        await reflexes.tick(body.snapshot())
        return await _run_to_the_end(env, task_id)

    outcomes = asyncio.run(gather_then_die())
    assert tasks.get_task(task_id).status is TaskStatus.completed
    assert "replanned" in outcomes and body.inventory["wooden_pickaxe"] == 1
    assert reflexes.stats.death_causes == {"skeleton": 1}


def test_a_second_death_in_the_same_task_replans_again(env):
    body, tasks, ex, reflexes, ftime = env["body"], env["tasks"], env["ex"], env["reflexes"], env["ftime"]
    task_id = _pickaxe_from_nothing(env)
    store = ex.runtime.checkpoints

    def planks_crafted() -> bool:
        rec = store.latest_run_for_task(task_id)
        return rec is not None and [c.completedStepId for c in store.history(rec.runId)][-1:] == ["craft-planks"]

    async def die_after_planks(cause: str) -> None:
        for _ in range(5000):
            if planks_crafted():
                break
            await ex.tick()
            await ftime.sleep(0.1)
        await reflexes.on_events([_death(body.die(), cause)])
        ftime.clock.advance(ReflexConfig().item_despawn_ms + 1000)
        body.ground.clear()  # the items are gone for good
        await reflexes.tick(body.snapshot())

    async def twice() -> list[str]:
        await die_after_planks("skeleton")
        outcomes = []
        for _ in range(50):  # until the replanned run is under way
            outcomes.append(await ex.tick())
            await ftime.sleep(0.1)
            if "replanned" in outcomes:
                break
        await die_after_planks("zombie")
        return outcomes + await _run_to_the_end(env, task_id)

    outcomes = asyncio.run(twice())
    assert outcomes.count("replanned") == 2, outcomes
    assert tasks.get_task(task_id).status is TaskStatus.completed and body.inventory["wooden_pickaxe"] == 1


def test_by_night_only_items_lying_near_are_walked_back_to_and_none_from_the_burrow(env):
    """A bench bot walked back across the dark to where a spider had killed it, and out of its
    burrow for what the next death dropped: 12 deaths in one night."""
    body, reflexes = env["body"], env["reflexes"]
    night = {"isDay": False, "timeOfDay": 15_000}
    reflexes.record_events([_death({"x": 0.5, "y": GROUND_Y, "z": 0.5}, "spider")])
    body.position = SPAWN  # 21 blocks off
    assert reflexes.choose(body.snapshot().model_copy(update=night)) != "recover"
    assert reflexes.choose(body.snapshot()) == "recover"  # by day it goes back for them
    body.position = Vec3(x=-10.5, y=GROUND_Y, z=0.5)  # 11 blocks off: near enough by night too
    assert reflexes.choose(body.snapshot().model_copy(update=night)) == "recover"
    reflexes._burrowed = True  # but not out of the burrow
    assert reflexes.choose(body.snapshot().model_copy(update=night)) != "recover"


def test_a_death_lets_a_burrow_be_dug_at_once_where_the_bot_respawned(env):
    reflexes = env["reflexes"]
    reflexes._burrow_retry_at = reflexes.clock() + 120_000  # one failed where it died
    asyncio.run(reflexes.on_events([_death({"x": 0.5, "y": GROUND_Y, "z": 0.5}, "zombie")]))
    assert reflexes._burrow_retry_at == 0
