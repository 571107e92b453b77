"""Food through the real bridge in the embedded world: two cows summoned beside the bot are
hunted by a `hunt cow 2` task (the survivor's workflow: each killed with the sword held, its
drops picked up, the first body never taken for the second cow), raw beef is cooked by a
`smelt cooked_beef` task (a furnace placed from the inventory, coal as fuel), and the eat
reflex then eats the cooked beef, not the raw. A sheep hunted gives its wool, and three wool
make a bed through the crafter. The drive tick's food stock, with a furnace at hand, is a
smelt goal whose plan hunts the pig in sight first. Hurt and unable to heal with only raw meat,
the bot forages, cooks it when it can (a furnace held or near) and eats it. With every slot
taken, a hunt makes room for the loot before the kill."""

from __future__ import annotations

import asyncio

import pytest

from agency.cognition.survival_steps import next_survival_step
from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.executor import Executor
from agency.execution.hunger import FOOD_STOCK
from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools import ToolContext
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import block_at, give, stone_pad

NAME = "hunter_bot"


@pytest.fixture(scope="module")
def hunter(bridge, embedded_server):  # one login for the module: quick relogs get refused
    body = make_body(bridge, embedded_server.port, NAME)
    yield body
    body.close()


def _reflexes_on(body, tasks: SqliteTaskStore) -> Reflexes:
    """The reflexes with their executor on the real bridge, no night's shelter."""
    tools = default_tool_registry()
    ctx = ToolContext(body=body, poll_interval_s=0.1)
    executor = Executor(tasks, AgentRuntime(load_default_registry(), tools, ctx), ctx.clock)
    return Reflexes(tools, ctx, executor, ReflexConfig(shelter_at_night=False))


def test_cows_are_hunted_their_beef_cooked_and_the_cooked_beef_eaten_first(hunter, tmp_path):
    body = hunter
    x, y, z = 820, 70, 700
    stone_pad(body, NAME, x, y, z, r=8, headroom=3)  # wide: knockback must not push a cow or its loot off the edge
    body.chat("/mcbot time 1000")
    give(body, NAME, {"stone_sword": 1})
    body.chat(f"/mcbot summon cow {x + 3} {y} {z}")
    body.chat(f"/mcbot summon cow {x - 3} {y} {z + 2}")
    wait_until(
        lambda: sum(e.name == "cow" and e.distance < 8 for e in body.snapshot().entities) == 2, 10, "two cows in sight"
    )

    tools = default_tool_registry()
    rt = AgentRuntime(load_default_registry(), tools, ToolContext(body=body, poll_interval_s=0.1))
    task = TaskSpec(action="hunt", target="cow", amount=2, id="task-hunt-1")
    assert rt.choose_agent(task).id == "survivor"
    res = asyncio.run(rt.run_task(task))
    assert res.status == "completed", res.errors
    out = next(o.output for o in res.steps if o.stepId == "hunt")
    assert out["kills"] == 2 and list(out["killed"]) == ["cow", "cow"] and out["weapon"] == "stone_sword"
    beef = body.snapshot().count_of("beef")
    assert beef >= 2 and out["gained"]["beef"] == beef, repr(dict(out))  # vanilla loot: 1-3 beef a cow, all picked up
    # a killed mob's body stays a second before the server removes it
    wait_until(
        lambda: not any(e.name == "cow" and e.distance < 8 for e in body.snapshot().entities), 5, "both cows gone"
    )

    # Cooking: the crafter's smelt workflow, a furnace from the inventory and one coal (one
    # beef: a furnace takes 10 s an item).
    give(body, NAME, {"furnace": 1, "coal": 1})
    cook = TaskSpec(action="smelt", target="cooked_beef", amount=1, id="task-cook-1")
    assert rt.choose_agent(cook).id == "crafter"
    res = asyncio.run(rt.run_task(cook))
    assert res.status == "completed", res.errors
    snap = body.snapshot()
    assert snap.count_of("cooked_beef") == 1 and snap.count_of("beef") == beef - 1

    # Eating: raw beef held beside the cooked, food low; the reflex eats the cooked beef.
    body.chat(f"/mcbot food {NAME} 10 0")
    wait_until(lambda: body.snapshot().food == 10, 10, "food 10")
    tasks = SqliteTaskStore(tmp_path / "t.db", dev_mode=False, strict_finalize=False)
    try:
        reflexes = _reflexes_on(body, tasks)
        assert asyncio.run(reflexes.tick(body.snapshot())) == "eat"
    finally:
        tasks.close()
    wait_until(lambda: body.snapshot().food > 10, 10, "food restored")
    snap = body.snapshot()
    assert reflexes.stats.ate == 1
    assert snap.count_of("cooked_beef") == 0 and snap.count_of("beef") == beef - 1


def _hunt_a_sheep(body, at: tuple[int, int, int], task_id: str) -> AgentRuntime:
    """A sheep summoned at `at` and a `hunt sheep 1` task run to completion; the runtime."""
    body.chat(f"/mcbot summon sheep {at[0]} {at[1]} {at[2]}")
    wait_until(
        lambda: any(e.name == "sheep" and e.distance < 8 for e in body.snapshot().entities), 10, "a sheep in sight"
    )
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), ToolContext(body=body, poll_interval_s=0.1))
    res = asyncio.run(rt.run_task(TaskSpec(action="hunt", target="sheep", amount=1, id=task_id)))
    assert res.status == "completed", res.errors
    return rt


def test_a_sheep_hunted_gives_the_wool_that_with_two_more_makes_a_bed(hunter):
    body = hunter
    x, y, z = 860, 70, 700
    stone_pad(body, NAME, x, y, z, r=8, headroom=3)
    rt = _hunt_a_sheep(body, (x + 3, y, z), "task-hunt-sheep")
    assert body.snapshot().count_of("white_wool") == 1  # vanilla: one wool a sheep
    give(body, NAME, {"white_wool": 2, "oak_log": 2, "crafting_table": 1})
    bed = TaskSpec(action="craft", target="white_bed", amount=1, id="task-bed")
    assert rt.choose_agent(bed).id == "crafter"
    res = asyncio.run(rt.run_task(bed))
    assert res.status == "completed", res.errors
    snap = body.snapshot()
    assert snap.count_of("white_bed") == 1 and snap.count_of("white_wool") == 0


def test_the_food_stock_goal_with_a_furnace_at_hand_hunts_the_pig_in_sight_and_cooks_its_meat(bridge, embedded_server):
    """The drive tick's food stock where a furnace can be had is one goal (agency.cognition.
    survival_steps): `smelt cooked_porkchop`, asked with no porkchop held, whose plan hunts the
    pig in sight and then cooks what it brought."""
    name = "stocker_bot"  # a fresh login: only what is given below in its inventory
    body = make_body(bridge, embedded_server.port, name)
    try:
        x, y, z = 940, 70, 700
        stone_pad(body, name, x, y, z, r=8, headroom=3)
        body.chat("/mcbot time 1000")
        give(body, name, {"stone_sword": 1, "furnace": 1, "coal": 1, "bread": FOOD_STOCK - 1})
        body.chat(f"/mcbot summon pig {x + 3} {y} {z}")
        wait_until(
            lambda: any(e.name == "pig" and e.distance < 8 for e in body.snapshot().entities), 10, "a pig in sight"
        )
        sel = next_survival_step(body.snapshot())
        assert sel is not None and (sel.rule, sel.action, sel.target, sel.amount) == (
            "low_food_stock",
            "smelt",
            "cooked_porkchop",
            1,
        )
        rt = AgentRuntime(load_default_registry(), default_tool_registry(), ToolContext(body=body, poll_interval_s=0.1))
        task = TaskSpec(action=sel.action, target=sel.target, amount=sel.amount, id="task-stock")
        res = asyncio.run(rt.run_task(task))
        assert res.status == "completed", res.errors
        hunt = next(o.output for o in res.steps if o.stepId.startswith("hunt"))
        assert "pig" in hunt["killed"], repr(dict(hunt))
        assert body.snapshot().count_of("cooked_porkchop") >= 1
    finally:
        body.close()


def test_a_hurt_bot_with_nothing_to_eat_forages_eats_the_meat_raw_and_heals(bridge, embedded_server, tmp_path):
    """Health 10 and food 17 shut the drive tick (under 16) and vanilla regeneration (under
    18): the forage reflex hunts the cow in sight, the eat reflex eats its raw beef, and the
    bot heals again (agency.execution.hunger)."""
    name = "forager_bot"  # a fresh login: nothing edible in its inventory
    body = make_body(bridge, embedded_server.port, name)
    tasks = SqliteTaskStore(tmp_path / "t.db", dev_mode=False, strict_finalize=False)
    try:
        # high over the ground: the herds the world spawns on grass below are out of sight (the
        # forage hunted them too, walled off, for a minute of the test's time)
        x, y, z = 900, 150, 700
        stone_pad(body, name, x, y, z, r=8, headroom=3)
        # a wall round the pad: ten hits knocked a cow off its edge once, and its beef fell
        # where no one picked it up (CI at 5ca518a, 1.18.2)
        for x0, z0, x1, z1 in ((-8, -8, 8, -8), (-8, 8, 8, 8), (-8, -8, -8, 8), (8, -8, 8, 8)):
            body.chat(f"/mcbot fill {x + x0} {y} {z + z0} {x + x1} {y + 1} {z + z1} stone")
        wait_until(lambda: block_at(body, x + 8, y + 1, z + 8) == "stone", 10, "the wall round the pad")
        body.chat("/mcbot time 1000")
        body.chat(f"/mcbot health {name} 10")
        body.chat(f"/mcbot food {name} 17 0")
        wait_until(lambda: body.snapshot().health == 10 and body.snapshot().food == 17, 10, "hurt and peckish")
        body.chat(f"/mcbot summon cow {x + 4} {y} {z}")
        wait_until(
            lambda: any(e.name == "cow" and e.distance < 8 for e in body.snapshot().entities), 10, "a cow in sight"
        )
        reflexes = _reflexes_on(body, tasks)
        assert asyncio.run(reflexes.tick(body.snapshot())) == "forage"
        assert reflexes.stats.forages == 1
        wait_until(lambda: body.snapshot().count_of("beef") >= 1, 5, "the cow's beef picked up")
        # no furnace near or held: the cook fails, and the raw beef is eaten meanwhile
        assert asyncio.run(reflexes.tick(body.snapshot())) == "cook"
        assert body.snapshot().count_of("beef") >= 1
        assert asyncio.run(reflexes.tick(body.snapshot())) == "eat"
        wait_until(lambda: body.snapshot().food >= 18, 10, "fed to 18")
        wait_until(lambda: body.snapshot().health > 10, 15, "healing again")  # vanilla: 1 hp every 80 ticks
    finally:
        tasks.close()
        body.close()


def test_a_hurt_bot_holding_raw_beef_and_a_furnace_cooks_the_beef_eats_it_and_heals_past_the_gate(
    bridge, embedded_server, tmp_path
):
    """Health 8 and food 14, a raw beef, a furnace and coal held, no task: the cook reflex places
    the furnace and cooks the beef, the eat reflex eats it cooked (8 food, 12.8 saturation), and
    vanilla's quick regeneration at full food heals the bot past the drive tick's gate of 16; raw,
    the same beef gives 3 food and 1.8 saturation (agency.execution.hunger.food_to_cook)."""
    name = "cook_bot"
    body = make_body(bridge, embedded_server.port, name)
    tasks = SqliteTaskStore(tmp_path / "t.db", dev_mode=False, strict_finalize=False)
    try:
        x, y, z = 940, 70, 700
        stone_pad(body, name, x, y, z, r=5, headroom=3)
        body.chat("/mcbot time 1000")
        give(body, name, {"beef": 1, "furnace": 1, "coal": 1})  # one: a furnace's 10 s an item
        body.chat(f"/mcbot health {name} 8")
        body.chat(f"/mcbot food {name} 14 0")
        wait_until(lambda: body.snapshot().health == 8 and body.snapshot().food == 14, 10, "hurt and hungry")
        reflexes = _reflexes_on(body, tasks)
        assert asyncio.run(reflexes.tick(body.snapshot())) == "cook"
        snap = body.snapshot()
        assert snap.count_of("cooked_beef") == 1 and snap.count_of("beef") == 0, snap.inventory
        assert asyncio.run(reflexes.tick(body.snapshot())) == "eat"
        wait_until(lambda: body.snapshot().count_of("cooked_beef") == 0, 10, "the cooked beef eaten")
        wait_until(lambda: body.snapshot().health >= 16, 30, "healed past the drive tick's gate")
    finally:
        tasks.close()
        body.close()


@pytest.mark.one_version(reason="the inventory's room, not the protocol: the hunts at every version are above")
def test_with_every_slot_taken_a_hunt_tosses_filler_first_and_picks_up_the_mutton(bridge, embedded_server):
    """A 26.1 bench bot with every slot taken picked up the wool it had a stack of and left the
    mutton lying, four food stocks in a row: two stacks of cobblestone now go before the kill
    (out of the way, node/lib/room.js), so the mutton and the wool each have a slot."""
    name = "full_hunter"
    body = make_body(bridge, embedded_server.port, name)
    try:
        x, y, z = 900, 70, 700
        stone_pad(body, name, x, y, z, r=8, headroom=3)
        give(body, name, {"stone_sword": 1, "cobblestone": 35 * 64})  # all 36 slots
        _hunt_a_sheep(body, (x + 3, y, z), "task-hunt-full")
        snap = body.snapshot()
        assert snap.count_of("mutton") >= 1 and snap.count_of("white_wool") == 1, snap.inventory
        assert snap.count_of("cobblestone") == 33 * 64  # two stacks tossed, the rest kept
    finally:
        body.close()
