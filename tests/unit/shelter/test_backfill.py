"""Closing behind a staircase (agency.shelter.backfill): a block dug out first, planks when
nothing was dug out and planks may fill (a hut's floor: a staircase under a hut left the floor
open all night), and the cells left open said when nothing is held."""

from __future__ import annotations

import asyncio

from agency.shelter.backfill import fill_open
from agency.tools.base import ToolContext
from agency.tools.testing import FakeBody, FakeTime

HOLES = [(0, 63, 0), (1, 63, 0)]  # under the feet level: dirt unless opened


def _fill(inventory: dict[str, int], *, planks: bool = True, wood: bool = False) -> tuple[FakeBody, list[list[int]]]:
    ftime = FakeTime()
    body = FakeBody(ftime.clock, inventory=inventory)
    for cell in HOLES:
        body.blocks[cell] = "air"
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    return body, asyncio.run(fill_open(ctx, HOLES, planks=planks, wood=wood))


def test_a_block_dug_out_fills_first():
    body, still = _fill({"dirt": 1, "cobblestone": 1, "oak_planks": 5})
    assert still == [] and sorted(body.blocks[c] for c in HOLES) == ["cobblestone", "dirt"]
    assert body.inventory["oak_planks"] == 5


def test_planks_fill_when_nothing_was_dug_out():
    body, still = _fill({"acacia_planks": 18, "acacia_log": 5})
    assert still == [] and [body.blocks[c] for c in HOLES] == ["acacia_planks", "acacia_planks"]
    assert body.inventory["acacia_log"] == 5  # logs are the night's work, never a fill


def test_with_nothing_to_fill_the_cells_left_open_are_said():
    _, still = _fill({"acacia_log": 5})
    assert sorted(still) == sorted([list(c) for c in HOLES])


def test_planks_fill_only_where_allowed():
    _, still = _fill({"acacia_planks": 18}, planks=False)
    assert sorted(still) == sorted([list(c) for c in HOLES])


def test_a_burrow_closes_itself_in_with_any_ground_then_logs_never_what_falls_nor_planks():
    """A 26.1 bench bot on a mountain ran out of what its staircase dug out with two cells
    beside it open, and a zombie came in: its way out in the morning digs ground and logs
    (agency.shelter.burrow.dig_out), never planks (a hut's)."""
    body, still = _fill({"sand": 5, "gravel": 2, "snow_block": 1, "oak_log": 3, "oak_planks": 9}, wood=True)
    assert still == [] and sorted(body.blocks[c] for c in HOLES) == ["oak_log", "snow_block"]
    assert body.inventory["sand"] == 5 and body.inventory["gravel"] == 2 and body.inventory["oak_planks"] == 9
    _, still = _fill({"birch_planks": 4}, wood=True)
    assert sorted(still) == sorted([list(c) for c in HOLES])
