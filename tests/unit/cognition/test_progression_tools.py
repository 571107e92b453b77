"""The drive tick's goals that dig (the 3.3 rules, the tech-tree progression, the survival
steps) only ever ask to dig a block with the tool it needs in hand (agency.game.harvest): stone
after a pickaxe, coal and iron ore after a stone one. The gatherer's plan for each then asks
the crafter for nothing."""

from __future__ import annotations

import itertools

from agency.cognition.drive_tick import select_drive
from agency.execution.agents.gather_plan import gather_plan
from agency.game.harvest import can_harvest
from agency.game.ores import ore_level

DIGS = ("collect", "gather", "mine")
PICKS = ({}, {"wooden_pickaxe": 1}, {"golden_pickaxe": 1}, {"stone_pickaxe": 1}, {"iron_pickaxe": 1})
GRID = list(itertools.product(PICKS, (0, 3, 13), (0, 1), (0, 1), (0, 3), (0, 3), (0, 3), (0, 1)))


def test_no_drive_goal_digs_a_block_without_its_tool(make_snapshot):
    dug = set()
    for pick, cobble, table, furnace, coal, raw, ingots, sword in GRID:
        inv = {
            "oak_log": 20,
            **pick,
            "cobblestone": cobble,
            "crafting_table": table,
            "furnace": furnace,
            "coal": coal,
            "raw_iron": raw,
            "iron_ingot": ingots,
            "stone_sword": sword,
        }
        inv = {k: v for k, v in inv.items() if v}
        for furnace_near in (None, True):
            sel = select_drive(make_snapshot(inv), True, None, furnace_near)
            if sel.action not in DIGS:
                continue
            dug.add(sel.target)
            assert can_harvest(inv, sel.target), f"{sel.rule}: {sel.action} {sel.target} holding {inv}"
            plan = gather_plan("gatherer", {"action": sel.action, "target": sel.target, "amount": sel.amount}, inv)
            seek = [f"seek-{sel.target.replace('_', '-')}"] if ore_level(sel.target) is not None else []
            assert [s.id for s in plan.steps] == [*seek, "collect", "check"]  # no tool to make first
    assert {"stone", "coal_ore", "iron_ore"} <= dug  # the grid reaches every digging step
