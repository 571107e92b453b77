"""The drive tick's goals that dig (the 3.3 rules, the progression's plans, the survival steps)
only ever dig a block with the tool it needs in hand (agency.game.harvest): a goal that digs
itself holds its tool; a progression step's plan makes each tool before the first block that
needs it (stone after a pickaxe, iron ore after a stone one, diamond after an iron one)."""

from __future__ import annotations

import itertools

from agency.cognition.drive_rules import select_drive
from agency.execution.agents.gather_plan import gather_plan
from agency.execution.agents.planning import craft_plan
from agency.game.harvest import can_harvest

DIGS = ("collect", "gather", "mine")
PICKS = ({}, {"wooden_pickaxe": 1}, {"golden_pickaxe": 1}, {"stone_pickaxe": 1}, {"iron_pickaxe": 1})
GRID = list(
    itertools.product(PICKS, (0, 3, 13), (0, 1), (0, 1), (0, 3), (0, 3), (0, 1), ({}, {"iron_sword": 1, "torch": 16}))
)


def _digs_with_its_tool(plan_steps, inv: dict[str, int]) -> set[str]:
    """Walk the plan: each craft adds its item, each collect_block needs its tool by then."""
    held, dug = dict(inv), set()
    for step in plan_steps:
        if step.tool == "craft":
            held[step.args["item"]] = held.get(step.args["item"], 0) + step.args.get("count", 1)
        elif step.tool == "collect_block":
            block = step.args["block"]
            assert can_harvest(held, block), f"{block} dug holding {held}"
            dug.add(block)
    return dug


def test_no_drive_goal_digs_a_block_without_its_tool(make_snapshot):
    dug = set()
    for pick, cobble, table, furnace, raw, ingots, sword, later in GRID:
        inv = {
            "oak_log": 20,
            **pick,
            "cobblestone": cobble,
            "crafting_table": table,
            "furnace": furnace,
            "raw_iron": raw,
            "iron_ingot": ingots,
            "stone_sword": sword,
            **later,
        }
        inv = {k: v for k, v in inv.items() if v}
        for furnace_near in (None, True):
            sel = select_drive(make_snapshot(inv), True, None, furnace_near)
            task = {"action": sel.action, "target": sel.target, "amount": sel.amount}
            if sel.action in DIGS:
                assert can_harvest(inv, sel.target), f"{sel.rule}: {sel.action} {sel.target} holding {inv}"
                dug.add(sel.target)
                assert [s.id for s in gather_plan("gatherer", task, inv).steps][-2:] == ["collect", "check"]
            elif sel.planned:
                dug |= _digs_with_its_tool(craft_plan("crafter", task, inv).steps, inv)
    assert {"stone", "iron_ore"} <= dug  # the grid reaches the plans that dig stone and iron


def test_the_diamond_pickaxe_plan_makes_an_iron_pickaxe_before_it_digs_diamonds():
    inv = {"oak_log": 20, "stone_pickaxe": 1}
    assert "diamond_ore" in _digs_with_its_tool(craft_plan("crafter", {"target": "diamond_pickaxe"}, inv).steps, inv)
