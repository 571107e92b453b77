"""Hunger reflexes (agency.execution.hunger): eat to heal, and forage with nothing to eat.

The drive tick waits under 16 health or food and vanilla heals only from 18 food, so a bot
hurt with food at 17 and nothing to eat idled for good in the survival bench. These tests
pin the choice on snapshots and what a forage calls, on a recording tool registry."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from loguru import logger

from agency.execution.hunger import COOK_AT_ONCE, URGENT_FOOD, URGENT_HEALTH, cooked_by
from agency.execution.reflexes import Death, ReflexConfig, Reflexes
from agency.execution.reflexes.cook import COOK_RETRY_MS
from agency.tools.hunting import HUNT_LOOK
from agency.tools.results import tool_failure, tool_success
from agency.tools.testing import Mob
from agency.world import DUSK_START, UNDERGROUND_COVER, WorldSnapshot


class RecordingTools:
    """Answers every call with a scripted result and remembers the calls."""

    def __init__(self, results: dict[str, Any]) -> None:
        self.results = results
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def execute(self, name: str, args: dict[str, Any], ctx: Any, **kw: Any) -> Any:
        self.calls.append((name, args))
        return self.results[name]


class LongTools(RecordingTools):
    """Every call goes on for a minute of the fake clock unless its context's stop is set."""

    def __init__(self, ftime: Any) -> None:
        super().__init__({})
        self.ftime = ftime

    async def execute(self, name: str, args: dict[str, Any], ctx: Any, **kw: Any) -> Any:
        self.calls.append((name, args))
        for _ in range(60):
            if ctx.stop.is_set():
                return tool_failure(name, "CANCELLED", f"'{name}' cancelled: {ctx.stop.reason}")
            await self.ftime.sleep(1)
        return tool_failure(name, "TIMEOUT", f"'{name}' timed out")


def _snap(
    env,
    *,
    health: float = 20,
    food: int = 20,
    inventory: dict[str, int] | None = None,
    mobs: tuple[Mob, ...] = (),
    time: int = 1000,
) -> WorldSnapshot:
    body = env["body"]
    body.inventory.clear()
    body.inventory.update(inventory or {})
    body.mobs = list(mobs)
    return body.snapshot().model_copy(update={"health": health, "food": food, "timeOfDay": time, "isDay": time < 12542})


COW = Mob("cow", hostile=False, x=10.5, z=0.5)


@pytest.mark.parametrize(
    "health, food, held, expected",
    [
        (9.7, 17, {"beef": 2}, "cook"),  # hurt, no regeneration under 18: the beef cooked, then eaten
        (9.7, 18, {"beef": 2}, None),  # 18 food heals by itself
        (20, 17, {"beef": 2}, None),  # whole and fed enough to work
        (20, 15, {"beef": 2}, "eat"),  # under the drive tick's food gate
        (9.7, 17, {}, "forage"),  # nothing to eat: find some
        (20, 15, {}, "forage"),
        (20, 16, {}, None),
        (15.9, 18, {}, None),
        (9.7, 17, {"rotten_flesh": 3}, "forage"),  # to heal, nothing that drains food: better food is found
        (20, 15, {"rotten_flesh": 3}, "eat"),  # hungry: anything
        (9.7, 17, {"chicken": 1, "bread": 1}, "eat"),
    ],
)
def test_eat_or_forage_by_the_vitals(env, health, food, held, expected):
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    assert reflexes.choose(_snap(env, health=health, food=food, inventory=held, mobs=(COW,))) == expected


@pytest.mark.parametrize(
    "held, expected",
    [
        ({"chicken": 1}, "cook"),  # cooked first (a furnace near, held or remembered): no Hunger then
        ({"rotten_flesh": 2}, "eat"),
        ({"spider_eye": 2}, "forage"),  # poison hurts: never eaten to heal
        ({"pufferfish": 1}, "forage"),
    ],
)
def test_with_no_animal_in_sight_a_hungering_food_is_eaten_to_heal(env, held, expected):
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    assert reflexes.choose(_snap(env, health=4, food=17, inventory=held)) == expected


def test_with_only_chickens_in_sight_a_raw_chicken_held_is_eaten_to_heal(env):
    """Hunting them brings only more raw chicken: a 26.1 bench bot hunted chicken after
    chicken, sparing each to heal, and never healed. A cow in sight is worth the hunt."""
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    chickens = (Mob("chicken", hostile=False, x=8.5, z=0.5), Mob("chicken", hostile=False, x=9.5, z=2.5))
    assert reflexes.choose(_snap(env, health=9.7, food=17, inventory={"chicken": 1}, mobs=chickens)) == "cook"
    assert reflexes.choose(_snap(env, health=9.7, food=17, inventory={"chicken": 1}, mobs=(*chickens, COW))) == (
        "forage"
    )


def test_no_forage_by_night_near_a_hostile_or_when_turned_off(env):
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    hungry = {"health": 9.7, "food": 17, "mobs": (COW,)}
    assert reflexes.choose(_snap(env, **hungry, time=13000)) is None  # the night is the shelter's
    zombie = Mob("zombie", hostile=True, x=6.5, z=0.5)  # beyond fight_within, within fight_radius
    assert reflexes.choose(_snap(env, health=9.7, food=17, mobs=(COW, zombie))) is None
    off = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig(forage=False))
    assert off.choose(_snap(env, **hungry)) is None


def test_a_hostile_the_reflexes_leave_be_does_not_hold_up_a_forage(env):
    """A 1.18.2 bench bot at health 12 with no food stood underground for 30 minutes by a
    skeleton in the rock that it could not get at: the drive tick waits for health 16, and only
    a forage feeds it back."""
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    zombie = Mob("zombie", hostile=True, x=6.5, z=0.5)  # beyond fight_within, within fight_radius
    hungry = _snap(env, health=12, food=16, mobs=(COW, zombie))
    assert reflexes.choose(hungry) is None  # near and maybe in reach: no walk away for food
    reflexes._out_of_reach["zombie"] = env["ftime"].clock()  # an attack could not get at it
    assert reflexes.leaves_be(hungry) and reflexes.choose(hungry) == "forage"
    reflexes._hurt_at = env["ftime"].clock()  # it hurts the bot after all: not left be
    assert reflexes.choose(hungry) != "forage"


def test_in_the_last_100_s_before_dusk_a_bot_with_nothing_to_eat_forages_for_the_night(env):
    # the night's work waits on the drive tick, which waits for food 16: something to eat is held by then
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    fed = {"health": 20, "food": 18, "mobs": (COW,)}
    assert reflexes.choose(_snap(env, **fed, time=9500)) == "forage"
    assert reflexes.choose(_snap(env, **fed, time=8500)) is None  # not yet
    assert reflexes.choose(_snap(env, **fed, time=9500, inventory={"bread": 1})) is None  # something held
    assert reflexes.choose(_snap(env, **fed, time=9500, inventory={"rotten_flesh": 4})) == "forage"  # not that
    # raw chicken is: cooked, or eaten in need, it feeds the night (a 26.1 bench bot hunted eight
    # chickens in a minute before dusk, each eaten raw at food 15, none counted as held)
    assert reflexes.choose(_snap(env, **fed, time=9500, inventory={"chicken": 1})) is None
    assert reflexes.choose(_snap(env, **{**fed, "food": 20}, time=9500)) is None  # full


def test_a_forage_hunts_the_animal_in_sight(env):
    tools = RecordingTools({"hunt": tool_success("hunt", {"kills": 1, "gained": {"beef": 2, "leather": 1}})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    snap = _snap(env, health=9.7, food=17, mobs=(COW,))
    assert asyncio.run(reflexes.tick(snap)) == "forage"
    # healing needs more than one: the animals within 16 blocks of it would count too
    assert tools.calls == [("hunt", {"target": "animal", "count": 1, "radius": 26.0})]
    assert reflexes.stats.forages == 1
    assert reflexes.choose(snap) == "forage"  # fed: no wait (with the beef held, the eat reflex takes it from here)


def test_a_forage_hunts_the_herd_in_sight_up_to_two_but_not_one_far_off(env):
    tools = RecordingTools({"hunt": tool_success("hunt", {"kills": 3, "gained": {"beef": 6}})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    herd = [Mob("cow", hostile=False, x=10.5 + k, z=0.5) for k in range(4)] + [Mob("pig", hostile=False, x=30.5, z=0.5)]
    assert asyncio.run(reflexes.tick(_snap(env, health=20, food=15, mobs=tuple(herd)))) == "forage"  # hungry
    assert tools.calls == [("hunt", {"target": "animal", "count": 2, "radius": 18.0})]
    tools.calls.clear()
    reflexes._forage_retry_at = 0
    pair = (COW, Mob("pig", hostile=False, x=-9.5, z=0.5))  # as near the bot, 20 blocks from the cow
    assert asyncio.run(reflexes.tick(_snap(env, health=20, food=15, mobs=pair))) == "forage"
    assert tools.calls == [("hunt", {"target": "animal", "count": 1, "radius": 18.0})]


def test_a_forage_to_heal_hunts_as_many_as_the_heal_needs_up_to_four(env):
    """A 1.18.2 bench bot at health 3 foraged one sheep, ate it, foraged a chicken, ate it, and
    went on so every few seconds, its task held each time."""
    tools = RecordingTools({"hunt": tool_success("hunt", {"kills": 4, "gained": {"beef": 8}})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    herd = [Mob("cow", hostile=False, x=10.5 + k, z=0.5) for k in range(5)]
    assert asyncio.run(reflexes.tick(_snap(env, health=3.3, food=16, mobs=tuple(herd)))) == "forage"
    assert tools.calls == [("hunt", {"target": "animal", "count": 4, "radius": 18.0})]
    tools.calls.clear()
    reflexes._forage_retry_at = 0
    spread = (COW, Mob("sheep", hostile=False, x=22.5, z=0.5), Mob("pig", hostile=False, x=40.5, z=0.5))
    assert asyncio.run(reflexes.tick(_snap(env, health=3.3, food=16, mobs=spread))) == "forage"
    # the sheep 12 blocks from the cow counts for a heal; the pig 30 from it does not
    assert tools.calls == [("hunt", {"target": "animal", "count": 2, "radius": 26.0})]
    tools.calls.clear()
    reflexes._forage_retry_at = 0
    assert asyncio.run(reflexes.tick(_snap(env, health=15, food=17, mobs=tuple(herd)))) == "forage"
    assert tools.calls == [("hunt", {"target": "animal", "count": 3, "radius": 18.0})]  # (1 + 7.5) / 3.2


def test_game_with_a_hostile_near_it_is_not_hunted_and_the_forage_waits(env):
    tools = RecordingTools({"hunt": tool_success("hunt", {"kills": 1, "gained": {"beef": 2}})})
    ftime = env["ftime"]
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=ftime.clock)
    zombie = Mob("zombie", hostile=True, x=COW.x + 4, z=COW.z)  # 14 blocks from the bot, 4 from the cow
    snap = _snap(env, health=9.7, food=17, mobs=(COW, zombie))
    assert asyncio.run(reflexes.tick(snap)) == "forage"
    assert tools.calls == []  # not hunted among the hostiles
    assert reflexes.choose(snap) is None  # and not asked again at once
    ftime.clock.advance(ReflexConfig().forage_retry_ms)
    assert asyncio.run(reflexes.tick(_snap(env, health=9.7, food=17, mobs=(COW,)))) == "forage"  # gone: hunted
    assert tools.calls == [("hunt", {"target": "animal", "count": 1, "radius": 26.0})]
    tools.calls.clear()
    reflexes._forage_retry_at = 0
    starving = _snap(env, health=20, food=6, mobs=(COW, zombie))
    assert asyncio.run(reflexes.tick(starving)) == "forage"  # starving: hunted all the same
    assert tools.calls == [("hunt", {"target": "animal", "count": 1, "radius": 18.0})]


def test_a_kind_with_none_guarded_is_hunted_instead_of_the_guarded_one(env):
    """A 1.18.2 bench bot at health 2.3 and food 17 refused a pig a skeleton stood by, a sheep in
    sight, and waited; a cow guarded beside another cow is no other kind: the forage waits."""
    tools = RecordingTools({"hunt": tool_success("hunt", {"kills": 1, "gained": {"mutton": 2}})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    zombie = Mob("zombie", hostile=True, x=COW.x + 4, z=COW.z)  # 14 blocks from the bot, 4 from the cow
    sheep = Mob("sheep", hostile=False, x=-20.5, z=0.5)
    assert asyncio.run(reflexes.tick(_snap(env, health=9.7, food=17, mobs=(COW, zombie, sheep)))) == "forage"
    assert tools.calls == [("hunt", {"target": "sheep", "count": 1, "radius": 37.0})]
    tools.calls.clear()
    reflexes._forage_retry_at = 0
    cows = (COW, zombie, Mob("cow", hostile=False, x=-20.5, z=0.5))
    assert asyncio.run(reflexes.tick(_snap(env, health=9.7, food=17, mobs=cows))) == "forage"
    assert tools.calls == []  # the hunt takes any cow: the guarded one may be the one it goes for
    reflexes._forage_retry_at = 0
    near_cow = Mob("cow", hostile=False, x=5.5, z=0.5)  # the nearest, unguarded: hunted as ever
    assert asyncio.run(reflexes.tick(_snap(env, health=9.7, food=17, mobs=(near_cow, *cows)))) == "forage"
    assert tools.calls[0][1]["target"] == "animal"


def test_a_kill_that_dropped_no_food_is_a_fruitless_forage(env):
    tools = RecordingTools({"hunt": tool_success("hunt", {"kills": 1, "gained": {"leather": 1}})})  # a calf
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    snap = _snap(env, health=9.7, food=17, mobs=(COW,))
    assert asyncio.run(reflexes.tick(snap)) == "forage"
    assert reflexes.choose(snap) is None


class _Busy:
    """An executor with a task running: each forage holds it."""

    current = object()
    waiting_for_morning = False

    def running_goal(self):
        return None

    def goal_in_hand(self):
        return None

    def work_waiting(self):
        return False

    async def preempt(self, reason):
        return "task-running"

    def resume_paused(self, reason):
        return ["task-running"]


def test_with_no_animal_in_sight_it_explores_then_waits_longer_after_each_fruitless_forage(env):
    ftime = env["ftime"]
    tools = RecordingTools({"explore": tool_success("explore", {"legs": 2})})
    cfg = ReflexConfig(forage_retry_ms=30_000)
    reflexes = Reflexes(tools, env["ctx"], _Busy(), cfg, clock=ftime.clock)
    snap = _snap(env, health=20, food=12)
    for wait_s in (30, 60, 120, 240, 240):  # doubling up to 8 x forage_retry_ms
        assert asyncio.run(reflexes.tick(snap)) == "forage"
        assert tools.calls[-1] == ("explore", {"legs": 2, "leg_distance": 12})
        assert reflexes.choose(snap) is None  # not again at once
        ftime.clock.advance(wait_s * 1000 - 1)
        assert reflexes.choose(snap) is None
        ftime.clock.advance(1)
        assert reflexes.choose(snap) == "forage"
    assert reflexes.stats.forages == 5


def test_with_no_task_to_hold_a_fruitless_forage_walks_further_without_waiting_longer(env):
    ftime = env["ftime"]
    tools = RecordingTools({"explore": tool_success("explore", {"legs": 2})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(forage_retry_ms=30_000), clock=ftime.clock)
    snap = _snap(env, health=20, food=12)  # hungry, healing not the point
    for legs in (2, 3, 4, 5, 5):
        assert asyncio.run(reflexes.tick(snap)) == "forage"
        assert tools.calls[-1] == ("explore", {"legs": legs, "leg_distance": 12})
        ftime.clock.advance(30_000 - 1)
        assert reflexes.choose(snap) is None
        ftime.clock.advance(1)
        assert reflexes.choose(snap) == "forage"  # the same 30 s each time


def test_with_no_task_and_unable_to_heal_a_fruitless_forage_walks_on_at_once(env):
    """A 1.18.2 bench bot at f5a0757, at health 8.2 and food 17 with nothing to eat, stood 30 s
    after each fruitless walk and spent a whole daylight getting back to health 16."""
    tools = RecordingTools({"explore": tool_success("explore", {"legs": 2})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(forage_retry_ms=30_000), clock=env["ftime"].clock)
    snap = _snap(env, health=10, food=17)  # too hurt for the drive tick, nothing to eat
    for legs in (2, 3, 4, 5, 5):
        assert asyncio.run(reflexes.tick(snap)) == "forage"
        assert tools.calls[-1] == ("explore", {"legs": legs, "leg_distance": 12})
        assert reflexes.choose(snap) == "forage"  # nothing else to do: no wait
    failed = tool_failure("explore", "PRECONDITION_FAILED", "explore: no leg could be walked")
    stuck = Reflexes(
        RecordingTools({"explore": failed}), env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock
    )
    assert asyncio.run(stuck.tick(snap)) == "forage"
    assert stuck.choose(snap) is None  # a walk that could not go waits as ever


def test_a_starving_bot_forages_as_far_as_a_hunt_looks(env):
    tools = RecordingTools({"explore": tool_success("explore", {"legs": 2})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    assert asyncio.run(reflexes.tick(_snap(env, health=11, food=URGENT_FOOD))) == "forage"
    assert tools.calls[-1] == ("explore", {"legs": 2, "leg_distance": HUNT_LOOK.leg_distance})
    fed = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    assert asyncio.run(fed.tick(_snap(env, health=11, food=URGENT_FOOD + 1))) == "forage"
    assert tools.calls[-1] == ("explore", {"legs": 2, "leg_distance": 12})


def test_badly_hurt_with_no_task_a_forage_looks_as_far_as_a_hunt_and_goes_on_at_once(env):
    tools = RecordingTools({"explore": tool_success("explore", {"legs": 2})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(forage_retry_ms=30_000), clock=env["ftime"].clock)
    hurt = _snap(env, health=URGENT_HEALTH, food=16)  # no regeneration under food 18, nothing to eat
    for _ in range(3):  # two legs a walk: the threats and the night get a look between walks
        assert asyncio.run(reflexes.tick(hurt)) == "forage"
        assert tools.calls[-1] == ("explore", {"legs": 2, "leg_distance": HUNT_LOOK.leg_distance})
        assert reflexes.choose(hurt) == "forage"  # no wait: finding food is all there is to do
    less_hurt = _snap(env, health=URGENT_HEALTH + 1, food=16)
    assert asyncio.run(reflexes.tick(less_hurt)) == "forage"
    assert tools.calls[-1] == ("explore", {"legs": 5, "leg_distance": 12})  # legs of 12, growing


def test_badly_hurt_a_forage_that_could_not_walk_waits_as_ever(env):
    failed = tool_failure("explore", "PRECONDITION_FAILED", "explore: no leg could be walked")
    tools = RecordingTools({"explore": failed})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(forage_retry_ms=30_000), clock=env["ftime"].clock)
    hurt = _snap(env, health=URGENT_HEALTH, food=16)
    assert asyncio.run(reflexes.tick(hurt)) == "forage"
    assert reflexes.choose(hurt) is None  # not every second from a shaft it cannot leave
    env["ftime"].clock.advance(30_000)
    assert reflexes.choose(hurt) == "forage"


def test_no_forage_in_the_shelter_or_while_the_items_of_a_death_wait(env):
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    snap = _snap(env, health=9.7, food=17, mobs=(COW,))
    reflexes.sheltered = object()  # the night's shelter (a morning with hostiles still near)
    assert not reflexes._forage_due(snap)
    reflexes.sheltered = None
    reflexes.death = Death(cause="zombie", position=None, at_ms=0)
    assert not reflexes._forage_due(snap)
    reflexes.death = None
    assert reflexes._forage_due(snap)


def test_underground_at_work_a_forage_to_heal_or_stock_up_waits_unless_hungry_or_badly_hurt(env):
    """The animals graze on the surface: a 1.18.2 bench bot at health 14 and food 17 was taken
    off its iron pickaxe 19 blocks down to climb out for a cow (118 s of its task held)."""
    busy = Reflexes(env["tools"], env["ctx"], _Busy(), ReflexConfig())
    lines, sink = [], logger.add(lambda m: lines.append(str(m)), level="INFO")

    def down(cover=UNDERGROUND_COVER, **vitals):
        return _snap(env, mobs=(COW,), **vitals).model_copy(update={"cover": cover})

    try:
        assert busy.choose(down(health=14.3, food=17)) is None  # to heal: after the task
        assert busy.choose(down(health=18, food=17, time=DUSK_START - 50)) is None  # to stock up: likewise
    finally:
        logger.remove(sink)
    assert sum("underground at work: it waits for the task" in line for line in lines) == 1  # said once
    assert busy.choose(down(health=14.3, food=15)) == "forage"  # hungry
    assert busy.choose(down(health=URGENT_HEALTH, food=17)) == "forage"  # badly hurt
    assert busy.choose(down(cover=0, health=14.3, food=17)) == "forage"  # on the surface
    assert busy.choose(down(cover=0, health=18, food=17, time=DUSK_START - 50)) == "forage"
    idle = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())  # no task: nothing to wait for
    assert idle.choose(down(health=14.3, food=17)) == "forage"


def test_a_failed_hunt_waits_too(env):
    tools = RecordingTools({"hunt": tool_failure("hunt", "PRECONDITION_FAILED", "no animal within 32 blocks")})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig())
    snap = _snap(env, health=9.7, food=17, mobs=(COW,))
    assert asyncio.run(reflexes.tick(snap)) == "forage"
    assert reflexes.choose(snap) is None


class _Cooking:
    """An executor running a smelt of cooked beef; a preempt pauses it, and it stays the goal in
    hand while it waits to resume (agency.execution.executor.Executor.goal_in_hand)."""

    waiting_for_morning = False

    def __init__(self) -> None:
        self.goal: tuple[str, str] | None = ("smelt", "cooked_beef")
        self.paused: tuple[str, str] | None = None

    def running_goal(self):
        return self.goal

    def goal_in_hand(self):
        return self.goal or self.paused

    def work_waiting(self):
        return False

    async def preempt(self, reason):
        self.goal, self.paused = None, self.goal
        return "task-cooking"

    def resume_paused(self, reason):
        return ["task-cooking"]


def test_the_meat_of_a_smelt_a_reflex_paused_is_spared_too(env):
    ex = _Cooking()
    reflexes = Reflexes(env["tools"], env["ctx"], ex, ReflexConfig())
    asyncio.run(ex.preempt("preempted"))  # a retreat held the smelt
    assert ex.running_goal() is None
    assert reflexes.choose(_snap(env, health=9.6, food=15, inventory={"beef": 3}, mobs=(COW,))) is None
    ex.paused = None  # nothing in hand any more: the beef is the bot's to cook and eat
    assert reflexes.choose(_snap(env, health=9.6, food=15, inventory={"beef": 3}, mobs=(COW,))) == "cook"


def test_the_stock_up_before_dusk_does_not_hold_up_a_hut_being_built_but_hunger_does(env):
    building = _Cooking()
    building.goal = ("build", "basic_shelter")
    reflexes = Reflexes(env["tools"], env["ctx"], building, ReflexConfig())
    assert reflexes.choose(_snap(env, health=20, food=17, mobs=(COW,), time=9500)) is None  # the hut first
    assert reflexes.choose(_snap(env, health=20, food=15, mobs=(COW,), time=9500)) == "forage"  # hungry
    building.goal = ("craft", "stone_sword")
    assert reflexes.choose(_snap(env, health=20, food=17, mobs=(COW,), time=9500)) == "forage"


@pytest.mark.parametrize(("cow_x", "expected"), [(10.5, "forage"), (16.4, "forage"), (31.5, None)])
def test_food_for_the_night_is_hunted_near_not_walked_off_for_at_dusk(env, cow_x, expected):
    """A 1.18.2 bench bot at health 18 and food 19 went for a cow 31 blocks off before dusk and
    died in the dusk on the way; hungry, a cow that far is still hunted."""
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    cow = Mob("cow", hostile=False, x=cow_x, z=0.5)
    assert reflexes.choose(_snap(env, health=18, food=19, mobs=(cow,), time=9_500)) == expected
    assert reflexes.choose(_snap(env, health=20, food=5, mobs=(cow,), time=9_500)) == "forage"


def test_what_a_task_cooks():
    assert cooked_by("smelt", "cooked_beef") == {"beef"}
    assert cooked_by("smelt", "mutton") == {"mutton"}  # named by the raw food
    assert cooked_by("smelt", "iron_ingot") == frozenset()
    assert cooked_by("craft", "cooked_beef") == frozenset()


@pytest.mark.parametrize(
    "health, food, held, expected",
    [
        (20, 15, {"beef": 3}, None),  # the beef is on its way cooked: neither eaten raw nor foraged for
        (20, 6, {"beef": 3}, "eat"),  # too hungry to wait for it
        (8, 17, {"beef": 3}, "eat"),  # too hurt to wait for it
        (20, 15, {"beef": 3, "mutton": 1}, "eat"),  # other food is eaten meanwhile
        (20, 12, {"beef": 3, "golden_apple": 1}, None),  # but not a golden apple
        (20, 12, {"beef": 3, "rotten_flesh": 2}, None),  # nor anything harmful
        # no beef yet (the smelt's hunt is after it): no forage hunting beside it, unless urgent
        # (a 1.18.2 bench bot's smelt was held 12 times in 10 minutes by forages)
        (20, 15, {}, None),
        (9.7, 17, {}, None),
        (20, 6, {}, "forage"),
        (8, 17, {}, "forage"),
    ],
)
def test_the_meat_being_cooked_is_spared_unless_in_need(env, health, food, held, expected):
    reflexes = Reflexes(env["tools"], env["ctx"], _Cooking(), ReflexConfig())
    assert reflexes.choose(_snap(env, health=health, food=food, inventory=held, mobs=(COW,))) == expected


def test_the_food_chosen_while_the_task_ran_is_the_one_eaten(env):
    """The eat holds the task before it eats: what the task cooks is judged before that."""
    tools = RecordingTools({"eat": tool_success("eat", {"ate": ["mutton"]})})
    reflexes = Reflexes(tools, env["ctx"], _Cooking(), ReflexConfig())
    assert asyncio.run(reflexes.tick(_snap(env, food=15, inventory={"beef": 3, "mutton": 1}))) == "eat"
    assert tools.calls == [("eat", {"item": "mutton"})]


def test_hurt_with_only_raw_food_the_bot_cooks_it_and_a_failed_cook_waits_while_the_raw_food_is_eaten(env):
    """The drive tick waits for health 16: healing 12 takes 18 food and saturation, raw beef
    gives 4.8, cooked 20.8 (a 26.1 bench bot at health 4 ate each forage's animal raw and stood
    8 minutes under the gate)."""
    tools = RecordingTools({"smelt": tool_success("smelt", {"item": "cooked_beef", "smelted": 3})})
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    hurt = _snap(env, health=4, food=14, inventory={"beef": 5, "coal": 2, "furnace": 1})
    assert asyncio.run(reflexes.tick(hurt)) == "cook"
    assert tools.calls == [("smelt", {"item": "cooked_beef", "count": COOK_AT_ONCE})]
    cooked = _snap(env, health=4, food=14, inventory={"beef": 2, "cooked_beef": 3, "coal": 1})
    assert reflexes.choose(cooked) == "eat" and reflexes._food_chosen == "cooked_beef"
    assert reflexes.choose(_snap(env, health=4, food=URGENT_FOOD, inventory={"beef": 5})) == "eat"  # starving: now
    assert reflexes.choose(_snap(env, health=20, food=14, inventory={"beef": 5})) == "eat"  # whole: raw will do
    dusk = _snap(env, health=4, food=14, inventory={"beef": 5, "coal": 2, "furnace": 1}, time=12000)
    assert reflexes.choose(dusk) == "eat"  # no cooking at dusk: the night's shelter comes first

    failing = RecordingTools({"smelt": tool_failure("smelt", "PRECONDITION_FAILED", "no furnace within 16 blocks")})
    reflexes = Reflexes(failing, env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    assert asyncio.run(reflexes.tick(hurt)) == "cook"
    assert reflexes.choose(hurt) == "eat"  # meanwhile the raw beef
    env["ftime"].clock.advance(COOK_RETRY_MS)
    assert reflexes.choose(hurt) == "cook"


def test_no_cook_with_a_task_in_hand(env):
    running = _Cooking()
    running.goal = ("craft", "stone_sword")
    reflexes = Reflexes(env["tools"], env["ctx"], running, ReflexConfig())
    assert reflexes.choose(_snap(env, health=9.7, food=17, inventory={"beef": 2})) == "eat"


def test_no_cook_without_a_furnace_in_sight_or_held(env):
    """A remembered one farther off is not walked to: the threats go unanswered meanwhile."""
    tools = RecordingTools({"find_blocks": tool_success("find_blocks", {"blocks": []})})
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig(), clock=env["ftime"].clock)
    hurt = _snap(env, health=4, food=14, inventory={"beef": 5, "coal": 2})
    assert asyncio.run(reflexes.tick(hurt)) == "cook"
    assert reflexes.choose(hurt) == "eat"  # looked, none: the raw beef meanwhile
    assert tools.calls == []


def test_a_forage_stops_when_a_hostile_the_reflexes_answer_comes_up(env):
    """The arbiter waits on a forage's hunt or walk: a hostile coming up meanwhile stops it, and
    the next tick answers the hostile (ReflexBase._watched; a respawned 26.1 bench bot at
    855429f was killed 23 s into such a walk, nothing answering it)."""
    ftime, body = env["ftime"], env["body"]

    tools = LongTools(ftime)
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=ftime.clock)
    snap = _snap(env, health=20, food=15, mobs=(COW,))

    async def go():
        async def zombie_comes():
            await ftime.sleep(3)
            body.mobs.append(Mob("zombie", hostile=True, x=2.5, z=0.5))

        lines: list[str] = []
        sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
        try:
            reflex, _ = await asyncio.gather(reflexes.tick(snap), zombie_comes())
        finally:
            logger.remove(sink)
        return reflex, lines

    reflex, lines = asyncio.run(go())
    assert reflex == "forage" and [c[0] for c in tools.calls] == ["hunt"]
    stopped = "[Reflex] forage stopped: a threat came up on the way (zombie at 2.0"
    assert any(x.startswith(stopped) for x in lines), lines
    assert reflexes._forage_retry_at <= ftime.clock()  # no wait added: it forages again once safe
    assert reflexes.choose(body.snapshot()) not in (None, "forage")  # the zombie first


def test_a_cook_stops_when_a_hostile_the_reflexes_answer_comes_up(env):
    ftime, body = env["ftime"], env["body"]

    tools = LongTools(ftime)
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig(), clock=ftime.clock)
    hurt = _snap(env, health=4, food=14, inventory={"beef": 5, "coal": 2, "furnace": 1})

    async def go():
        async def zombie_comes():
            await ftime.sleep(3)
            body.mobs.append(Mob("zombie", hostile=True, x=2.5, z=0.5))

        reflex, _ = await asyncio.gather(reflexes.tick(hurt), zombie_comes())
        return reflex

    assert asyncio.run(go()) == "cook" and [c[0] for c in tools.calls] == ["smelt"]
    assert reflexes._cook_retry_at <= ftime.clock()  # no wait added: cooked again once safe
