"""The air reflex: under water with the air running out, the bot swims up and onto dry
ground before anything else (plugins/hazards.js drowns it at the end of its air). In the
caves bench a bot that walked back to its items on a lake's floor stood there and drowned
three times in a row."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agency.execution.reflexes import Death, ReflexConfig, Reflexes
from agency.tools.results import tool_success
from agency.tools.testing import Mob
from agency.world import WorldSnapshot


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
