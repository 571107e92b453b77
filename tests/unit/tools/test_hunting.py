"""Hunting: the `hunt` tool on a fake world whose JS `hunt` action is simulated the way
node/lib/actions/hunt.js behaves (the nearest living animal of the kinds asked dies where it
stands and drops its loot as item entities), the drops picked up by walking over them, and
the `hunt <kind> [count]` workflow of the survivor."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from agency.execution.agents import load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.game.animals import ANIMAL_DROPS, ANIMALS
from agency.tools.base import ToolContext
from agency.tools.hunting import HUNT_LOOK, KILL_TIMEOUT_S, MAX_MISSES, animal_kind
from agency.tools.results import CANCELLED, EXECUTION_ERROR, PRECONDITION_FAILED, VALIDATION_ERROR, WAITS_FOR_MORNING
from agency.tools.testing import GROUND_Y, FakeBody, FakeTime, Mob
from agency.world import BodyError
from tests.unit.conftest import run


class HuntBody(FakeBody):
    """FakeBody plus loot: a hunted animal leaves its drops as 'item' entities where it died;
    walking within a block of one picks it up (the server picks up within 1.75 blocks)."""

    def __init__(self, clock, inventory=None):
        super().__init__(clock, inventory)
        self.loot: list[tuple[Mob, str]] = []
        self.lose: int = 0  # this many hunts end with the animal still alive (it wandered off)
        self.late: list[tuple[Mob, str]] = []  # loot not yet seen by the client
        self.late_loot = False  # the next kill's loot reaches the client only once the next hunt starts

    def snapshot(self):
        self.mobs = [m for m in self.mobs if m.name != "item"] + [m for m, _ in self.loot]
        return super().snapshot()

    def _do_hunt(self, a: dict[str, Any]) -> dict[str, Any]:
        self.loot += self.late
        self.late = []
        game = [
            m
            for m in self.mobs
            if m.name in a["kinds"] and not m.hostile and self.distance_to(m) <= a["radius"] and id(m) not in a["skip"]
        ]
        if not game:
            raise BodyError(f"no {' or '.join(a['kinds'])} within {a['radius']} blocks to hunt")
        target = min(game, key=self.distance_to)
        if self.lose:
            self.lose -= 1
            return {
                "target": target.name,
                "targetId": id(target),
                "killed": False,
                "hits": 2,
                "weapon": None,
                "at": {"x": target.x, "y": target.y, "z": target.z},
            }
        self.mobs.remove(target)
        for i, item in enumerate(ANIMAL_DROPS[target.name]):
            (self.late if self.late_loot else self.loot).append(
                (Mob("item", hostile=False, x=target.x + 0.5 * i, z=target.z), item)
            )
        self.late_loot = False
        return {
            "target": target.name,
            "killed": True,
            "hits": 5,
            "weapon": "stone_sword" if self.inventory["stone_sword"] else None,
            "at": {"x": target.x, "y": target.y, "z": target.z},
        }

    def _do_move_to(self, a: dict[str, Any]) -> dict[str, Any]:
        out = super()._do_move_to(a)
        for mob, item in list(self.loot):
            if self.distance_to(mob) <= 1.75:
                self.loot.remove((mob, item))
                self.inventory[item] += 1
        return out


@pytest.fixture
def hbody(ftime: FakeTime) -> HuntBody:
    return HuntBody(ftime.clock)


@pytest.fixture
def hctx(hbody: HuntBody, ftime: FakeTime) -> ToolContext:
    return ToolContext(body=hbody, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)


def hunt(ctx, **args):
    return run(default_tool_registry().execute("hunt", args, ctx))


@pytest.mark.parametrize(
    "word,kind",
    [
        ("cow", "cow"),
        ("cows", "cow"),
        ("Sheep", "sheep"),
        ("chickens", "chicken"),
        ("minecraft:pig", "pig"),
        ("animal", "animal"),
        ("animals", "animal"),
        ("food", "animal"),
        ("zombie", None),
        ("villager", None),
        ("", None),
    ],
)
def test_which_words_name_game(word, kind):
    assert animal_kind(word) == kind


def test_a_cow_hunted_gives_its_meat_and_leather_picked_up(hctx, hbody):
    hbody.inventory["stone_sword"] = 1
    hbody.mobs += [Mob("cow", hostile=False, x=6.5, z=0.5), Mob("pig", hostile=False, x=3.5, z=0.5)]
    res = hunt(hctx, target="cow")
    assert res.success, res.error
    assert hbody.started[0] == ("hunt", {"kinds": ["cow"], "radius": 32.0, "skip": [], "giveUpMs": 25000})
    assert res.output["kills"] == 1 and res.output["killed"] == ("cow",) and res.output["short"] == 0
    assert dict(res.output["gained"]) == {"beef": 1, "leather": 1} and res.output["weapon"] == "stone_sword"
    assert [(d["gained"], d["itemsLeft"]) for d in res.output["drops"]] == [(2, 0)]  # per kill: walked over its loot
    assert [m.name for m in hbody.mobs] == ["pig"]  # the pig was nearer, and left alone


def test_any_animal_means_the_nearest_food_animal_and_count_kills_that_many(hctx, hbody):
    hbody.mobs += [
        Mob("sheep", hostile=False, x=4.5, z=0.5),
        Mob("chicken", hostile=False, x=-8.5, z=0.5),
        Mob("zombie", hostile=True, x=2.5, z=2.5),
    ]
    res = hunt(hctx, target="animal", count=2)
    assert res.success, res.error
    assert hbody.started[0][1]["kinds"] == list(ANIMALS)
    assert res.output["killed"] == ("sheep", "chicken")
    assert dict(res.output["gained"]) == {"chicken": 1, "feather": 1, "mutton": 1, "white_wool": 1}
    assert [m.name for m in hbody.snapshot().entities] == ["zombie"]  # never a hostile, no drop left lying


def test_loot_seen_late_is_picked_up_before_the_hunt_ends(hctx, hbody):
    hbody.mobs += [Mob("cow", hostile=False, x=6.5, z=0.5), Mob("cow", hostile=False, x=-12.5, z=0.5)]
    hbody.late_loot = True  # the first cow's beef and leather arrive during the second kill
    res = hunt(hctx, target="cow", count=2)
    assert res.success, res.error
    assert dict(res.output["gained"]) == {"beef": 2, "leather": 2}
    assert [(d["gained"], d["itemsLeft"]) for d in res.output["drops"]] == [(2, 0), (2, 0)]
    assert not [m for m in hbody.snapshot().entities if m.name == "item"]


def test_no_animal_in_range_is_a_clear_error_and_nothing_moves(hctx, hbody):
    hbody.mobs += [Mob("cow", hostile=False, x=40.5, z=0.5), Mob("zombie", hostile=True, x=3.5, z=0.5)]
    res = hunt(hctx, target="cows")
    assert not res.success and res.error.code == PRECONDITION_FAILED
    assert res.error.message == "no cow within 32 blocks to hunt"
    assert hunt(hctx, target="cow", radius=45).success  # in range when asked to look that far
    assert hbody.started[0][0] == "hunt" and len(hbody.started) > 1


def test_a_target_that_is_no_game_is_a_validation_error(hctx, hbody):
    for bad in (
        {"target": "zombie"},
        {"target": "cow", "count": 0},
        {"target": "cow", "count": 11},
        {"target": "cow", "radius": 64},
        {"target": "cow", "weapon": "sword"},
    ):
        res = hunt(hctx, **bad)
        assert not res.success and res.error.code == VALIDATION_ERROR, bad
    assert (
        "'zombie' is not an animal the bot hunts (animals: cow, mooshroom" in hunt(hctx, target="zombie").error.message
    )
    assert hbody.started == []


def test_fewer_animals_than_asked_reports_how_many_fell_short(hctx, hbody):
    hbody.mobs.append(Mob("sheep", hostile=False, x=5.5, z=0.5))
    res = hunt(hctx, target="sheep", count=3)
    assert res.success and res.output["kills"] == 1 and res.output["short"] == 2
    assert hbody.inventory["white_wool"] == 1


def test_an_animal_out_of_reach_is_left_for_the_next_then_the_hunt_gives_up(hctx, hbody):
    near, far = Mob("pig", hostile=False, x=5.5, z=0.5), Mob("pig", hostile=False, x=9.5, z=0.5)
    hbody.mobs += [near, far]
    hbody.lose = 1  # the nearer pig cannot be reached
    res = hunt(hctx, target="pig")
    assert res.success and res.output["kills"] == 1 and hbody.inventory["porkchop"] == 1
    assert hbody.started[1][1]["skip"] == [id(near)] and hbody.mobs == [near]  # the farther one was killed
    hbody.mobs += [Mob("pig", hostile=False, x=-5.5, z=0.5), Mob("pig", hostile=False, x=0.5, z=7.5)]
    hbody.lose = MAX_MISSES + 1
    res = hunt(hctx, target="pig")
    assert not res.success and res.error.code == EXECUTION_ERROR and res.error.message.startswith("lost 3 pig")
    assert len(hbody.started[-1][1]["skip"]) == 2


def test_when_only_animals_out_of_reach_are_left_the_hunt_ends(hctx, hbody):
    hbody.mobs += [Mob("cow", hostile=False, x=5.5, z=0.5), Mob("cow", hostile=False, x=8.5, z=0.5)]
    hbody.lose = 1  # the nearer cow cannot be reached; the other is killed; nothing else is left
    res = hunt(hctx, target="cow", count=3)
    assert res.success and res.output["kills"] == 1 and res.output["short"] == 2
    hbody.lose = 1
    res = hunt(hctx, target="cow")
    assert not res.success and res.error.code == PRECONDITION_FAILED
    assert res.error.message == "no cow within reach to hunt (1 out of reach given up on)"


def test_with_explores_left_a_hunt_looks_elsewhere_when_only_animals_out_of_reach_are_left(hctx, hbody):
    hbody.mobs += [Mob("cow", hostile=False, x=5.5, z=0.5)]
    hbody.lose = 1  # that cow cannot be reached (across water, up a cliff)
    walk = hbody._do_move_to

    def explore_finds_a_cow(a):  # a walk of the explore brings another cow in sight
        out = walk(a)
        if not any(m.name == "cow" and m.x > 20 for m in hbody.mobs):
            hbody.mobs.append(Mob("cow", hostile=False, x=hbody.position.x + 4, z=hbody.position.z))
        return out

    hbody._do_move_to = explore_finds_a_cow
    res = hunt(hctx, target="cow", explore_attempts=2)
    assert res.success and res.output["kills"] == 1 and hbody.inventory["beef"] >= 1, res
    assert any(k == "move_to" for k, _ in hbody.started)  # the explore's legs


def test_a_kill_that_takes_too_long_is_cancelled_and_counts_as_a_miss(hctx, hbody, ftime):
    hbody.mobs.append(Mob("cow", hostile=False, x=5.5, z=0.5))
    hbody.hang.add("hunt")
    start = ftime.clock()
    res = hunt(hctx, target="cow")
    assert not res.success and res.error.code == EXECUTION_ERROR and "lost 3 cow" in res.error.message
    assert len(hbody.cancelled) == MAX_MISSES + 1  # each stuck kill's JS action was cancelled
    assert ftime.clock() - start >= (MAX_MISSES + 1) * KILL_TIMEOUT_S * 1000


def test_a_stop_cancels_the_hunt_action_at_once(hctx, hbody):
    hbody.mobs.append(Mob("cow", hostile=False, x=5.5, z=0.5))
    hbody.hang.add("hunt")

    async def go():
        reg = default_tool_registry()
        task = asyncio.ensure_future(reg.execute("hunt", {"target": "cow"}, hctx))
        for _ in range(5):
            await asyncio.sleep(0)
        hctx.stop.set("reflex: eat")
        return await task

    res = run(go())
    assert not res.success and res.error.code == CANCELLED
    assert hbody.cancelled == ["a1"] and [m.name for m in hbody.mobs] == ["cow"]


def test_the_survivor_carries_out_hunt_goals():
    agents = load_default_registry()
    assert "hunt" in agents.routable_actions()
    survivor = agents.require("survivor")
    wf = survivor.workflows["hunt"].static("survivor-hunt")
    assert [(s.tool, dict(s.args)) for s in wf.steps] == [
        ("hunt", {"target": "${task.target}", "count": "${task.amount}", "explore_attempts": 4})
    ]


def test_a_plans_hunt_kills_until_the_drop_is_held_and_explores_for_more(hctx, hbody):
    """until_item: the kills stop once 2 leather are held (each cow drops one here), not at
    `count`; with none in sight the hunt explores, and the first explore finds the next cow."""
    hbody.mobs += [Mob("cow", hostile=False, x=4.5, z=0.5)]
    far_cow = Mob("cow", hostile=False, x=200.5, z=0.5)
    walk = hbody._do_move_to

    def explore_finds_a_cow(a):  # a walk of the explore brings the cow in sight
        out = walk(a)
        if far_cow not in hbody.mobs and abs(a["x"]) > 5:
            far_cow.x, far_cow.z = hbody.position.x + 3, hbody.position.z
            hbody.mobs.append(far_cow)
        return out

    hbody._do_move_to = explore_finds_a_cow
    res = hunt(hctx, target="cow", count=10, until_item="leather", until_count=2, explore_attempts=2)
    assert res.success, res.error
    assert res.output["kills"] == 2 and hbody.inventory["leather"] == 2
    assert any(k == "move_to" and abs(a["x"]) > 5 for k, a in hbody.started)  # the explore's legs


def test_a_plans_hunt_short_of_its_drop_fails_saying_how_short(hctx, hbody):
    hbody.mobs += [Mob("cow", hostile=False, x=4.5, z=0.5)]
    res = hunt(hctx, target="cow", count=10, until_item="leather", until_count=3)
    assert not res.success and res.error.code == "PRECONDITION_FAILED"
    assert res.error.message == "1 cow hunted (explored 0 times): 1 of 3 leather; picked up 1 beef, 1 leather"


def test_underground_the_bot_climbs_out_before_it_hunts(hctx, hbody):
    """A bot in the rock (after a night dug in, or digging for ore) sees the animals over it but
    cannot walk to them without digging: it climbs out first."""
    hbody.position = hbody.position.model_copy(update={"y": 50.0})
    for y in range(52, 64):  # twelve blocks of ground over its head
        hbody.blocks[(0, y, 0)] = "stone"
    hbody.mobs += [Mob("cow", hostile=False, x=6.5, y=64, z=0.5)]
    res = hunt(hctx, target="cow")
    assert res.success, res.error
    assert hbody.started[0][0] == "pillar" and hbody.started[0][1]["targetY"] == 64  # up through it first
    assert res.output["climbedOut"]["how"] == "dug" and res.output["kills"] == 1


def test_two_blocks_of_ground_over_the_bot_are_climbed_through_for_the_animals(hctx, hbody):
    hbody.position = hbody.position.model_copy(update={"y": GROUND_Y - 3.0})  # a staircase's end
    hbody.blocks[(0, GROUND_Y - 3, 0)] = hbody.blocks[(0, GROUND_Y - 2, 0)] = "air"  # feet and head
    hbody.blocks[(0, GROUND_Y - 1, 0)] = "dirt"  # one block of ground over it
    hbody.mobs += [Mob("cow", hostile=False, x=6.5, y=GROUND_Y, z=0.5)]
    res = hunt(hctx, target="cow")
    assert res.success, res.error
    assert res.output["climbedOut"]["how"] == "dug" and hbody.started[0][0] == "pillar"


def test_a_climb_that_leaves_the_bot_under_ground_says_so(hctx, hbody):
    hbody.position = hbody.position.model_copy(update={"y": GROUND_Y - 3.0})
    hbody.blocks[(0, GROUND_Y - 3, 0)] = hbody.blocks[(0, GROUND_Y - 2, 0)] = "air"
    hbody.blocks[(0, GROUND_Y - 1, 0)] = "dirt"
    hbody._do_pillar = lambda a: {"steps": 2, "y": a["targetY"], "reason": "reached"}  # "there", not moved
    hbody.mobs += [Mob("cow", hostile=False, x=6.5, y=GROUND_Y, z=0.5)]
    res = hunt(hctx, target="cow")
    climbed = (res.output if res.success else res.error.details)["climbedOut"]
    assert climbed["failed"] == f"still under ground at 0 {GROUND_Y - 3} 0 (up to y {GROUND_Y - 1})", climbed


def test_on_the_surface_the_hunt_goes_straight_for_the_animal(hctx, hbody):
    hbody.mobs += [Mob("cow", hostile=False, x=6.5, z=0.5)]
    res = hunt(hctx, target="cow")
    assert res.success and hbody.started[0][0] == "hunt" and "climbedOut" not in res.output


def test_underground_at_night_a_hunt_does_not_go_up_into_the_dark(hctx, hbody, monkeypatch):
    snap = hbody.snapshot
    monkeypatch.setattr(
        hbody, "snapshot", lambda: snap().model_copy(update={"timeOfDay": 15_000, "isDay": False, "cover": 6})
    )
    hbody.mobs += [Mob("cow", hostile=False, x=6.5, y=64, z=0.5)]
    res = hunt(hctx, target="cow")
    assert res.success is False and res.error.code == WAITS_FOR_MORNING and "at night" in res.error.message
    assert hbody.started == []  # not a step up


def test_with_no_animal_anywhere_a_hunt_looks_four_times_two_legs_of_32_blocks_then_fails(hctx, hbody):
    start = (hbody.position.x, hbody.position.z)
    res = hunt(hctx, target="cow", explore_attempts=4)
    assert not res.success and res.error.code == PRECONDITION_FAILED
    assert res.error.message == "no cow within 32 blocks to hunt"
    legs = [a for k, a in hbody.started if k == "move_to"]
    assert len(legs) == 4 * HUNT_LOOK.legs == 8
    first = math.dist(start, (legs[0]["x"] - 0.5, legs[0]["z"] - 0.5))
    assert first == pytest.approx(32, abs=1.5), first  # the herds near a base get eaten: look further
