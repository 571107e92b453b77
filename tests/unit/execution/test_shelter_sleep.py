"""Sleeping in the shelter, on the real reflexes, executor and tools over the fake block world
(injected clock): in the hut with the door closed, once vanilla's sleep window opens and no
monster is near, the bot lies down in the bed inside (putting a held one there first); it
gets out of bed for anything else, fights a hostile inside the hut, and is not put back to
bed while under attack or before the retry delay after a refusal."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.shelter.bed import SLEEP_FROM, bed_in_hut, bed_spot, shelter_bed_spot
from agency.shelter.blueprint import SIZE, basic_shelter
from agency.shelter.door import doorway_cells, hut_origin, in_hut
from agency.tools.testing import GROUND_Y, FakeTime
from agency.world import BodyError, BodyEvent, EntityInfo, EventType, Vec3
from tests.unit.execution.test_night_shelter import SITE, NightBody
from tests.unit.execution.world import executor_env

ORIGIN = SITE.refCorner
SPOT = shelter_bed_spot(ORIGIN, SITE.facing)
INSIDE_HUT = Vec3(x=11.5, y=GROUND_Y, z=11.5)


class SleepyBody(NightBody):
    """NightBody plus beds as the embedded server has them: a bed's head goes one block
    further the way the placer looks; sleeping only in the night's window, with no monster
    within 8 blocks; `wake_up` is the server waking the bot."""

    def __init__(self, clock: Any, **kw: Any) -> None:
        super().__init__(clock, **kw)
        self.sleeping = False
        self.zombie_pos = Vec3(x=12, y=64, z=18)

    def snapshot(self):
        snap = super().snapshot()
        update: dict[str, Any] = {"isSleeping": self.sleeping}
        if self.zombie_at is not None:
            update["entities"] = [
                EntityInfo(
                    name="zombie", type="hostile", hostile=True, distance=self.zombie_at, position=self.zombie_pos
                )
            ]
        return snap.model_copy(update=update)

    def _do_place(self, a: dict[str, Any]) -> dict[str, Any]:
        out = super()._do_place(a)
        if a["block"].endswith("_bed"):
            fx, fz = a["x"] + 0.5 - self.position.x, a["z"] + 0.5 - self.position.z
            step = (1 if fx > 0 else -1, 0) if abs(fx) > abs(fz) else (0, 1 if fz > 0 else -1)
            self.blocks[(a["x"] + step[0], a["y"], a["z"] + step[1])] = a["block"]
        return out

    def _do_sleep(self, a: dict[str, Any]) -> dict[str, Any]:
        if a.get("wake"):
            woke, self.sleeping = self.sleeping, False
            return {"sleeping": False, "woke": woke}
        if not self.block(a["x"], a["y"], a["z"]).endswith("_bed"):
            raise BodyError(f"no bed at {a['x']},{a['y']},{a['z']}")
        if not SLEEP_FROM <= self.time_of_day <= 23_459:
            raise BodyError("cannot sleep: it's not night and it's not a thunderstorm")
        if self.zombie_at is not None and self.zombie_at <= 8:
            raise BodyError("cannot sleep: there are monsters nearby")
        self.sleeping = True
        return {"sleeping": True, "bed": {"x": a["x"], "y": a["y"], "z": a["z"]}}


@pytest.fixture
def env(tmp_path):
    ftime = FakeTime()
    body = SleepyBody(ftime.clock, polls_to_finish=2)
    body.position = Vec3(x=12.5, y=GROUND_Y, z=20.5)  # 6 blocks in front of the door
    e = executor_env(tmp_path, ftime, body)
    e["reflexes"] = Reflexes(
        e["tools"], e["ctx"], e["ex"], ReflexConfig(), shelter_lookup=lambda snap: SITE, clock=ftime.clock
    )
    yield e
    e["tasks"].close()


def _bed(body: SleepyBody) -> None:
    body.blocks[SPOT.foot] = body.blocks[SPOT.head] = "white_bed"


def _night_in_the_hut(reflexes: Reflexes, body: SleepyBody, time_of_day: int = 14_000) -> None:
    body.time_of_day = time_of_day
    assert asyncio.run(reflexes.tick(body.snapshot())) == "shelter"
    assert in_hut(SITE, body.position) and body.door_open is False


def test_in_the_shelter_at_night_the_bot_lies_down_in_its_bed_and_stays_there(env):
    body, reflexes = env["body"], env["reflexes"]
    _bed(body)
    _night_in_the_hut(reflexes, body)
    assert asyncio.run(reflexes.tick(body.snapshot())) == "sleep"
    assert body.sleeping and reflexes.stats.sleeps == 1
    asked = [(a["x"], a["y"], a["z"]) for k, a in body.started if k == "sleep"]
    assert len(asked) == 1 and asked[0] in (SPOT.foot, SPOT.head)  # either half: the game finds the head
    assert reflexes.holding_tasks
    assert reflexes.choose(body.snapshot()) is None  # asleep: nothing to do until morning


def test_no_sleep_before_the_window_opens_and_none_when_switched_off(env, tmp_path):
    body, reflexes = env["body"], env["reflexes"]
    _bed(body)
    _night_in_the_hut(reflexes, body, time_of_day=12_000)  # dusk: in the hut, too early for bed
    assert reflexes.choose(body.snapshot()) is None
    body.time_of_day = SLEEP_FROM
    assert reflexes.choose(body.snapshot()) == "sleep"
    reflexes.config = ReflexConfig(sleep_in_shelter=False)
    assert reflexes.choose(body.snapshot()) is None


def test_in_the_morning_the_server_wakes_the_bot_and_it_leaves_the_shelter(env):
    body, reflexes = env["body"], env["reflexes"]
    _bed(body)
    _night_in_the_hut(reflexes, body)
    asyncio.run(reflexes.tick(body.snapshot()))
    assert body.sleeping
    body.sleeping, body.time_of_day = False, 0  # the night skipped: the server woke everyone
    assert asyncio.run(reflexes.tick(body.snapshot())) == "leave_shelter"
    assert not [a for k, a in body.started if k == "sleep" and a.get("wake")]  # already up
    outside, _ = doorway_cells(SITE.entrance, SITE.facing)
    assert (int(body.position.x), int(body.position.z)) == outside[0::2] and not reflexes.holding_tasks


def test_still_in_bed_in_the_morning_the_bot_gets_up_before_walking_out(env):
    body, reflexes = env["body"], env["reflexes"]
    _bed(body)
    _night_in_the_hut(reflexes, body)
    asyncio.run(reflexes.tick(body.snapshot()))
    body.time_of_day = 23_800  # past the window, the server has not woken it yet
    assert asyncio.run(reflexes.tick(body.snapshot())) == "leave_shelter"
    kinds = [k if k != "sleep" else ("wake" if a.get("wake") else "sleep") for k, a in body.started]
    assert kinds.index("wake") < len(kinds) - 1 - kinds[::-1].index("step")  # up first, then out through the door
    assert not body.sleeping and not in_hut(SITE, body.position)


def test_a_monster_at_the_wall_keeps_the_bot_up_but_is_not_fought_from_inside(env):
    body, reflexes = env["body"], env["reflexes"]
    _bed(body)
    _night_in_the_hut(reflexes, body)
    body.zombie_at = 4.0  # outside, at the door wall
    assert reflexes.choose(body.snapshot()) is None  # vanilla: no sleep with a monster within 8
    body.zombie_at = 20.0
    assert reflexes.choose(body.snapshot()) == "sleep"


def test_a_hostile_inside_the_hut_is_fought_out_of_bed(env):
    body, reflexes = env["body"], env["reflexes"]
    _bed(body)
    _night_in_the_hut(reflexes, body)
    asyncio.run(reflexes.tick(body.snapshot()))
    assert body.sleeping
    body.zombie_at, body.zombie_pos = 2.0, INSIDE_HUT
    body.mobs = []  # the attack finds nothing to hit in the fake world: what matters is the order
    assert asyncio.run(reflexes.tick(body.snapshot())) == "fight"
    kinds = [("wake" if a.get("wake") else k) for k, a in body.started]
    assert kinds[-2:] == ["wake", "attack"] and not body.sleeping


def test_hurt_in_bed_the_bot_is_not_put_back_to_bed_while_under_attack(env):
    body, reflexes, ftime = env["body"], env["reflexes"], env["ftime"]
    _bed(body)
    _night_in_the_hut(reflexes, body)
    asyncio.run(reflexes.tick(body.snapshot()))
    body.sleeping = False  # the server wakes a sleeper that is hurt
    hurt = BodyEvent(type=EventType.entity_hurt, ts=0, data={"self": True})
    assert asyncio.run(reflexes.tick(body.snapshot(), [hurt])) is None
    ftime.clock.advance(ReflexConfig().under_attack_ms)
    assert reflexes.choose(body.snapshot()) == "sleep"


def test_no_bed_and_none_held_is_not_asked_again_tonight_unless_a_bed_comes_to_hand(env):
    body, reflexes, ftime = env["body"], env["reflexes"], env["ftime"]
    _night_in_the_hut(reflexes, body)
    assert asyncio.run(reflexes.tick(body.snapshot())) == "sleep"
    assert not body.sleeping and reflexes.stats.sleeps == 0
    ftime.clock.advance(10 * ReflexConfig().sleep_retry_ms)
    assert reflexes.choose(body.snapshot()) is None  # one line in the log a night, not one a minute
    body.inventory["white_bed"] = 1
    assert reflexes.choose(body.snapshot()) == "sleep"
    # the next night asks again: the bed may have been put there by day
    body.inventory["white_bed"] = 0
    body.time_of_day = 1000
    assert asyncio.run(reflexes.tick(body.snapshot())) == "leave_shelter"
    _night_in_the_hut(reflexes, body)
    assert reflexes.choose(body.snapshot()) == "sleep"


def test_a_refused_sleep_waits_the_retry_delay(env):
    body, reflexes, ftime = env["body"], env["reflexes"], env["ftime"]
    _bed(body)
    _night_in_the_hut(reflexes, body)
    body.zombie_at = 9.0  # out of the reflex's 8 blocks, but the game says no
    body.fail["sleep"] = "cannot sleep in the bed: there are monsters nearby"
    assert asyncio.run(reflexes.tick(body.snapshot())) == "sleep"
    assert not body.sleeping and reflexes.choose(body.snapshot()) is None
    del body.fail["sleep"]
    ftime.clock.advance(ReflexConfig().sleep_retry_ms)
    assert reflexes.choose(body.snapshot()) == "sleep"


def test_a_held_bed_is_put_in_the_shelter_first_whole_and_clear_of_the_way_in(env):
    body, reflexes = env["body"], env["reflexes"]
    body.inventory["white_bed"] = 1
    _night_in_the_hut(reflexes, body)
    assert asyncio.run(reflexes.tick(body.snapshot())) == "sleep"
    assert body.blocks[SPOT.foot] == body.blocks[SPOT.head] == "white_bed" and body.inventory["white_bed"] == 0
    assert body.sleeping
    region = body.region((ORIGIN[0], GROUND_Y, ORIGIN[2]), (SIZE, 1, SIZE))
    assert bed_in_hut(region, SITE.entrance, SITE.facing) in (SPOT.foot, SPOT.head)


@pytest.mark.parametrize("facing", ["north", "south", "east", "west"])
def test_the_bed_spot_is_inside_clear_of_door_torch_and_probes_and_placed_in_line(facing):
    origin = (0, 64, 0)
    bp = basic_shelter(origin, facing)
    spot = shelter_bed_spot(origin, facing)
    site = bp.site
    assert hut_origin(site.entrance, facing) == origin
    _outside, behind_door = doorway_cells(site.entrance, facing)
    torch = bp.module("light").placements[0][:3]
    for cell in (spot.foot, spot.head):
        assert in_hut(site, Vec3(x=cell[0] + 0.5, y=64, z=cell[2] + 0.5))
        assert cell not in (behind_door, torch, *site.interiorProbes)
    step = (spot.head[0] - spot.foot[0], spot.head[2] - spot.foot[2])
    assert abs(step[0]) + abs(step[1]) == 1
    for stand in (spot.inside, spot.outside):  # on the line through head and foot, behind the foot
        back = (spot.foot[0] - stand[0], spot.foot[2] - stand[2])
        assert back[0] * step[1] == back[1] * step[0] and back[0] * step[0] + back[1] * step[1] > 0
    assert in_hut(site, Vec3(x=spot.inside[0] + 0.5, y=64, z=spot.inside[2] + 0.5)) and spot.inside != torch
    assert not bp.site.footprintBounds.contains((spot.outside[0], 64, spot.outside[2]))


def test_no_room_for_a_bed_is_a_clear_error():
    origin = (0, 64, 0)
    everything = [(x, 64, z) for x in range(1, 4) for z in range(1, 4)]
    with pytest.raises(ValueError, match="no room for a bed"):
        bed_spot(origin, "south", everything)
