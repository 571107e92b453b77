"""Only a flight sprints (node/lib/walking.js): every other walk asks move_to to walk, as a
metre sprinted costs food and one walked does not."""

from __future__ import annotations

from agency.execution.builtin_tools import default_tool_registry
from agency.tools.base import ToolContext
from agency.tools.testing import FakeBody, Mob
from tests.unit.conftest import run


def _moves(body: FakeBody) -> list[dict]:
    return [args for kind, args in body.started if kind == "move_to"]


def test_a_flight_sprints_and_an_errand_walks(ftime):
    body = FakeBody(ftime.clock)
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    tools = default_tool_registry()
    walked = run(tools.execute("move_to", {"x": 20.5, "y": body.position.y, "z": 0.5}, ctx))
    assert walked.success, walked.error
    assert [m.get("sprint") for m in _moves(body)] == [None]
    body.mobs.append(Mob("zombie", hostile=True, x=22.5, z=0.5))
    fled = run(tools.execute("flee", {"threat": "zombie", "radius": 16, "distance": 12, "legs": 1}, ctx))
    assert fled.success, fled.error
    assert [m.get("sprint") for m in _moves(body)][1:] == [True]
