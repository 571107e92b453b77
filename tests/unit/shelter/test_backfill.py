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
    """Three bench burrows failed for want of fill ("the way in is still open"): its way out in
    the morning digs ground and logs (agency.shelter.burrow.dig_out), never planks (a hut's)."""
    body, still = _fill({"sand": 5, "gravel": 2, "snow_block": 1, "oak_log": 3, "oak_planks": 9}, wood=True)
    assert still == [] and sorted(body.blocks[c] for c in HOLES) == ["oak_log", "snow_block"]
    assert body.inventory["sand"] == 5 and body.inventory["gravel"] == 2 and body.inventory["oak_planks"] == 9
    _, still = _fill({"birch_planks": 4}, wood=True)
    assert sorted(still) == sorted([list(c) for c in HOLES])


def test_cells_opening_onto_a_cave_are_filled_over_a_block_placed_under_them():
    """Nothing solid beside them to place against (a 26.1 bench burrow's two cells beside the
    bot, onto a cave: a zombie came in by them): a block goes in the open cell under the lower
    one first, where it touches the ground, then each goes against the one under it."""
    ftime = FakeTime()
    body = FakeBody(ftime.clock, inventory={"dirt": 3})
    body.blocks[(5, 63, 0)] = "air"  # the cave's floor is lower: nothing beside the cells at 64 and 65
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    still = asyncio.run(fill_open(ctx, [(5, 65, 0), (5, 64, 0)], wood=True))
    assert still == []
    placed = [(a["x"], a["y"], a["z"]) for k, a in body.started if k == "place"]
    assert placed == [(5, 63, 0), (5, 64, 0), (5, 65, 0)]
    assert body.inventory["dirt"] == 0
