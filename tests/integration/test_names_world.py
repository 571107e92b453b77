"""Names by version in the real world, at every version of the matrix: the world reports
its own version's names (`grass` at 1.18.2, `short_grass` at 1.21.4), agency matches them
through its alias table, the bot side resolves the names agency sends, and the crafter's
'place a crafting table next to the bot' works in a field of grass (it used to say 'no free
spot next to the bot' at 1.21.4)."""

from __future__ import annotations

import asyncio
import math

import pytest

from agency.blocks import is_passable, is_replaceable
from agency.execution.builtin_tools import default_tool_registry
from agency.names import same
from agency.tools import ToolContext
from agency.world import ActionState, EventType
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import teleport

NAME = "names_bot"
X, Y, Z = 520, 72, -380  # far from spawn and from the other tests' pads
# The plant as each version names it (minecraft-data: renamed in 1.20.3).
GRASS = {"26.1": "short_grass", "1.21.11": "short_grass", "1.21.4": "short_grass", "1.18.2": "grass"}


def _feet(body):
    p = body.snapshot().position
    return math.floor(p.x), math.floor(p.y), math.floor(p.z)


def _field(body, x, z, plant, r=4):
    """A flat grass_block pad at Y-1 with the plant on every cell of its top, the bot in the
    middle of it (standing in the plant, as a bot in a meadow does). The plants are filled
    once the bot stands on the bare pad (the teleport runs after the fills before it)."""
    box = ((x - r, Y - 1, z - r), (2 * r + 1, 2, 2 * r + 1))
    body.chat(f"/mcbot fill {x - r - 2} {Y - 1} {z - r - 2} {x + r + 2} {Y - 1} {z + r + 2} grass_block")
    body.chat(f"/mcbot fill {x - r - 2} {Y} {z - r - 2} {x + r + 2} {Y + 4} {z + r + 2} air")
    teleport(body, NAME, x, Y, z)  # after the fills: it lands on the bare pad
    wait_until(lambda: set(body.region(*box).palette) == {"grass_block", "air"}, 15, "the bare pad")
    wait_until(lambda: abs(body.snapshot().position.y - Y) < 0.5, 10, "standing on the pad")
    body.chat(f"/mcbot fill {x - r} {Y} {z - r} {x + r} {Y} {z + r} {plant}")
    wait_until(
        lambda: set(body.region(*box).palette) == {"grass_block", plant}, 15, f"a field of {plant} around the bot"
    )


@pytest.fixture(scope="module")
def names_body(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, NAME)
    yield body
    body.close()


@pytest.fixture
def field_body(names_body):
    wait_until(names_body.maintain, 40, f"{NAME} connected")
    names_body.events()
    names_body.chat(f"/mcbot health {NAME} 20")
    return names_body


def test_the_world_reports_grass_by_its_own_versions_name_and_agency_matches_it(field_body, mc_version):
    plant = GRASS[mc_version]
    _field(field_body, X, Z, plant)
    x, y, z = _feet(field_body)
    here = field_body.region((x + 1, y, z), (1, 1, 1)).block_at(x + 1, y, z)
    assert here == plant  # the running version's name, never renamed on the way
    assert same(here, "short_grass") and same(here, "grass")
    assert is_passable(here) and is_replaceable(here)
    field_body.chat(f"/give {NAME} {plant} 3")
    wait_until(
        lambda: field_body.snapshot().count_of("short_grass") >= 3, 10, "the plant item, counted by its canonical name"
    )
    assert [i.name for i in field_body.snapshot().inventory if same(i.name, "short_grass")] == [plant]


def test_the_bot_side_resolves_a_canonical_name_agency_sends(field_body, mc_version):
    plant = GRASS[mc_version]
    _field(field_body, X + 30, Z, plant, r=2)
    x, y, z = _feet(field_body)
    target = (x + 4, y, z)  # outside the field: bare grass_block under air
    field_body.chat(f"/give {NAME} {plant} 2")
    wait_until(lambda: field_body.snapshot().count_of(plant) >= 1, 10, "the plant item")
    st = field_body.start_action("place", {"block": "short_grass", "x": target[0], "y": target[1], "z": target[2]})
    done = field_body.wait_action(st.id, max_s=20)
    assert done.state is ActionState.done, done.error
    wait_until(lambda: field_body.region(target, (1, 1, 1)).block_at(*target) == plant, 10, f"{plant} at {target}")


def test_a_crafting_table_is_placed_next_to_a_bot_standing_in_a_field_of_grass(field_body, mc_version):
    plant = GRASS[mc_version]
    _field(field_body, X + 60, Z, plant)
    field_body.chat(f"/give {NAME} crafting_table 1")
    wait_until(lambda: field_body.snapshot().count_of("crafting_table") >= 1, 10, "a crafting table to place")
    ctx = ToolContext(body=field_body, poll_interval_s=0.1)
    res = asyncio.run(default_tool_registry().execute("place_block", {"block": "crafting_table"}, ctx))
    assert res.success, res.error
    spot = (res.output["x"], res.output["y"], res.output["z"])
    feet = _feet(field_body)
    assert spot[1] == Y and max(abs(spot[0] - feet[0]), abs(spot[2] - feet[2])) >= 1  # on the ground, not floating
    wait_until(lambda: field_body.region(spot, (1, 1, 1)).block_at(*spot) == "crafting_table", 10, "the table standing")


def test_a_killed_bot_comes_back_alive_in_a_loaded_world(field_body):
    """Whether the server respawns it or not: a bot still dead after a while reconnects
    (a server that fails to respawn it left it dead with no chunks, and every block read
    said 'unloaded')."""
    field_body.chat(f"/mcbot damage {NAME} 100")
    seen = []

    def died():
        seen.extend(field_body.events())
        return any(e.type is EventType.death for e in seen)

    wait_until(died, 10, "the bot to die")

    def alive_in_a_loaded_world():
        seen.extend(field_body.events())
        if not field_body.maintain():
            return False
        s = field_body.snapshot()
        if s.health <= 0:
            return False
        x, y, z = _feet(field_body)
        return field_body.region((x, y - 1, z), (1, 1, 1)).block_at(x, y - 1, z) is not None

    wait_until(alive_in_a_loaded_world, 60, "the bot alive again with its chunks loaded")
