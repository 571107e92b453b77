"""The air reflex: under water with the air running out, the bot swims up and onto dry
ground before anything else (plugins/hazards.js drowns it at the end of its air). In the
caves bench a bot that walked back to its items on a lake's floor stood there and drowned
three times in a row."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agency.execution.reflexes import Death, ReflexConfig, Reflexes
from agency.execution.reflexes.drowned_ways import SURFACINGS
from agency.planning.tasks.models import TaskOrigin, TaskStatus
from agency.tools.results import tool_success
from agency.tools.testing import Mob
from agency.world import WorldSnapshot
from tests.unit.execution.world import add_task


class RecordingTools:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def execute(self, name: str, args: dict[str, Any], ctx: Any) -> Any:
        self.calls.append((name, args))
        return tool_success(name, {"surfaced": True, "land": {"x": 3, "y": 63, "z": 0}, "onLand": True})


def _snap(env, oxygen: int | None, *, mobs: tuple[Mob, ...] = (), food: int = 20) -> WorldSnapshot:
    body = env["body"]
    body.mobs = list(mobs)
    return body.snapshot().model_copy(update={"oxygen": oxygen, "food": food})


ZOMBIE = Mob("zombie", hostile=True, x=2.5, z=0.5)


@pytest.mark.parametrize(
    "oxygen, expected",
    [
        (None, None),  # not read (an older recording, another server): nothing assumed
        (20, None),
        (13, None),  # a river crossed: air enough
        (12, "surface"),
        (0, "surface"),
    ],
)
def test_the_air_left_decides(env, oxygen, expected):
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    assert reflexes.choose(_snap(env, oxygen)) == expected


def test_air_comes_before_a_zombie_and_before_food(env):
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig())
    assert reflexes.choose(_snap(env, 20, mobs=(ZOMBIE,), food=4)) not in (None, "surface")
    assert reflexes.choose(_snap(env, 5, mobs=(ZOMBIE,), food=4)) == "surface"


def test_the_threshold_is_configurable(env):
    reflexes = Reflexes(env["tools"], env["ctx"], env["ex"], ReflexConfig(surface_below_air=4))
    assert reflexes.choose(_snap(env, 5)) is None
    assert reflexes.choose(_snap(env, 4)) == "surface"


def test_the_reflex_calls_the_surface_tool_and_counts_it(env):
    tools = RecordingTools()
    reflexes = Reflexes(tools, env["ctx"], env["ex"], ReflexConfig())
    assert asyncio.run(reflexes.tick(_snap(env, 6))) == "surface"
    assert tools.calls == [("surface", {})] and reflexes.stats.surfaced == 1


def test_a_drowned_bots_items_are_not_walked_back_to(env):
    """Its items lie where its air ran out: the bench's bot went back for them and drowned again."""
    reflexes = Reflexes(RecordingTools(), env["ctx"], env["ex"], ReflexConfig())
    snap = _snap(env, None)
    reflexes.death = Death(cause="drowning", position=snap.position, at_ms=reflexes.clock())
    assert reflexes._recovery_out_of_reach(snap) == "it drowned there (the items lie under water)"
    reflexes.death = Death(cause="fall", position=snap.position, at_ms=reflexes.clock())
    assert reflexes._recovery_out_of_reach(snap) is None


def test_a_dead_bot_does_not_swim(env):
    reflexes = Reflexes(RecordingTools(), env["ctx"], env["ex"], ReflexConfig())
    assert reflexes.choose(_snap(env, 3).model_copy(update={"health": 0})) != "surface"


class SurfacingTools(RecordingTools):
    """The surface action taken from `spots`, one a call (its output's `from`)."""

    def __init__(self, spots: list[tuple[float, float, float]]) -> None:
        super().__init__()
        self.spots = iter(spots)

    async def execute(self, name: str, args: dict[str, Any], ctx: Any) -> Any:
        self.calls.append((name, args))
        x, y, z = next(self.spots)
        return tool_success(name, {"surfaced": True, "from": {"x": x, "y": y, "z": z}, "onLand": True})


def _surfacings(
    env, spots: list[tuple[float, float, float]], every_s: float = 20, kind: str = "drive-tick"
) -> tuple[str, list[TaskStatus]]:
    """A slow task (of `kind`) taken up for air from each spot in turn, one every `every_s`; its
    status after each."""
    ex, tasks, ftime = env["ex"], env["tasks"], env["ftime"]
    env["body"].polls_to_finish = 400
    tid = add_task(tasks, "craft", "wooden_pickaxe")
    tasks.finalize_new_task(tid, TaskOrigin(kind=kind))
    reflexes = Reflexes(SurfacingTools(spots), env["ctx"], ex, ReflexConfig(), clock=ftime.clock)

    async def go() -> list[TaskStatus]:
        after = []
        for _ in spots:
            assert await ex.tick() == "claimed"
            await ftime.sleep(every_s)
            assert await reflexes.tick(_snap(env, 6)) == "surface"
            after.append(tasks.get_task(tid).status)
        return after

    return tid, asyncio.run(go())


def test_a_task_whose_way_leads_under_the_same_water_a_third_time_is_given_up(env):
    """A 1.18.2 bench bot's craft torch walked back under the same pond 23 times, taken up
    for air each time, nothing else done for six minutes."""
    pond = [(29.3, 61.0, 5.5), (30.4, 61.0, 3.5), (28.7, 61.0, 5.4)]
    tid, after = _surfacings(env, pond)
    assert after == [TaskStatus.pending, TaskStatus.pending, TaskStatus.failed]
    reason = env["tasks"].get_task(tid).metadata.solver["failureReason"]
    assert reason == f"its way led under water at 28 61 5 {SURFACINGS} times; the bot was taken up for air each time"


def test_dives_far_apart_are_a_long_swim_not_one_drowned_way(env):
    lake = [(0.0, 60.0, 0.0), (20.0, 60.0, 0.0), (40.0, 60.0, 0.0), (60.0, 60.0, 0.0)]
    _, after = _surfacings(env, lake)
    assert after == [TaskStatus.pending] * 4


def test_dives_minutes_apart_are_work_going_on_not_one_drowned_way(env):
    pond = [(29.3, 61.0, 5.5), (30.4, 61.0, 3.5), (28.7, 61.0, 5.4)]
    _, after = _surfacings(env, pond, every_s=100)  # the first is out of the window by the third
    assert after == [TaskStatus.pending] * 3


def test_a_users_task_under_the_same_water_is_not_given_up(env):
    pond = [(29.3, 61.0, 5.5), (30.4, 61.0, 3.5), (28.7, 61.0, 5.4)]
    _, after = _surfacings(env, pond, kind="user")
    assert after == [TaskStatus.pending] * 3
