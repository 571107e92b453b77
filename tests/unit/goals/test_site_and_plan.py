"""Choosing a shelter site from one region read, and the builder's generated workflow."""

from __future__ import annotations

from agency.agents.build_plan import build_plan
from agency.goals.models import Bounds
from agency.goals.site_finder import choose_site, scan_box
from agency.goals.testing import region_from_blocks

FEET = (0, 64, 0)


def _region(blocks=None):
    origin, size = scan_box(FEET)
    hi = tuple(o + s - 1 for o, s in zip(origin, size))
    return region_from_blocks(Bounds(min=origin, max=hi), blocks or {}, ground_y=63, ground="stone")


def test_on_flat_ground_the_site_is_next_to_the_bot_never_over_it_with_the_door_towards_it():
    choice = choose_site(_region(), FEET)
    x0, y0, z0 = choice.origin
    assert y0 == 64 and not (x0 <= 0 < x0 + 5 and z0 <= 0 < z0 + 5)
    assert choice.distance < 5
    door_side = {"east": x0 + 4 < 0, "west": x0 > 0, "south": z0 + 4 < 0, "north": z0 > 0}
    assert door_side[choice.facing]


def test_a_tree_or_a_hole_pushes_the_site_elsewhere_and_no_flat_ground_means_no_site():
    clutter = {(x, 64, z): "oak_log" for x in range(-10, 11) for z in range(-10, 11) if (x + z) % 4 == 0}
    assert choose_site(_region(clutter), FEET) is None
    clear_east = {p: n for p, n in clutter.items() if p[0] < 2}
    choice = choose_site(_region(clear_east), FEET)
    assert choice is not None and choice.origin[0] >= 3  # footprint + ring fit only in the clear part


def test_build_plan_delegates_only_missing_materials_and_a_repair_brings_only_what_is_gone():
    ids = lambda wf: [s.id for s in wf.steps]  # noqa: E731
    task = {"action": "build", "target": "basic_shelter", "amount": 1, "id": "t"}
    full = build_plan("builder", task, {"oak_planks": 80, "oak_door": 1, "torch": 1})
    assert ids(full) == ["site", "module-walls-layer-1", "module-walls-layer-2", "module-walls-layer-3",
                         "module-roof", "module-door", "module-light"]
    empty = build_plan("builder", task, {})
    assert ids(empty)[:3] == ["site", "get-door", "get-walls"] and "module-light" not in ids(empty)  # no coal
    walls = next(s for s in empty.steps if s.id == "get-walls")
    assert walls.agent == "crafter" and walls.task == {"action": "craft", "target": "oak_planks", "amount": 71 + 10}
    coal = build_plan("builder", task, {"coal": 1})
    assert "get-torch" in ids(coal) and "module-light" in ids(coal)
    repair = build_plan("builder", {**task, "facts": {"needed": {"oak_planks": 1}, "wallBlock": "oak_planks"}}, {})
    assert next(s for s in repair.steps if s.id == "get-walls").task["amount"] == 1
    assert "get-door" not in ids(repair)
    assert ids(build_plan("builder", {"action": "build", "target": "dirt", "amount": 1}, {})) == ["where", "base", "stack"]
