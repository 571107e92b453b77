"""Choosing a shelter site from one region read, and the builder's generated workflow."""

from __future__ import annotations

from agency.execution.agents.build_plan import build_plan
from agency.goals.models import Bounds
from agency.shelter.earthwork import MAX_COST, MAX_FILLS, site_work
from agency.shelter.site_check import stands
from agency.shelter.site_finder import choose_site, scan_box
from agency.shelter.testing import region_from_blocks

FEET = (0, 64, 0)


def _region(blocks=None):
    origin, size = scan_box(FEET)
    hi = tuple(o + s - 1 for o, s in zip(origin, size, strict=True))
    return region_from_blocks(Bounds(min=origin, max=hi), blocks or {}, ground_y=63, ground="stone")


def test_on_flat_ground_the_site_is_next_to_the_bot_never_over_it_with_the_door_towards_it():
    choice = choose_site(_region(), FEET)
    x0, y0, z0 = choice.origin
    assert y0 == 64 and not (x0 <= 0 < x0 + 5 and z0 <= 0 < z0 + 5)
    assert choice.distance < 5
    door_side = {"east": x0 + 4 < 0, "west": x0 > 0, "south": z0 + 4 < 0, "north": z0 > 0}
    assert door_side[choice.facing]


def _apply(blocks, work, filler="dirt"):
    """The world after the earthwork: digs become air, fills become filler."""
    out = dict(blocks)
    out.update(dict.fromkeys(work.digs, "air"))
    out.update(dict.fromkeys(work.fills, filler))
    return out


def test_on_flat_ground_the_chosen_site_needs_no_earthwork():
    assert choose_site(_region(), FEET).work.empty


def test_a_players_blocks_push_the_site_elsewhere_and_none_anywhere_means_no_site():
    planks = {(x, 64, z): "oak_planks" for x in range(-16, 17) for z in range(-16, 17) if (x + z) % 4 == 0}
    assert choose_site(_region(planks), FEET) is None  # somebody's floor everywhere: never torn down
    clear_east = {p: n for p, n in planks.items() if p[0] < 2}
    choice = choose_site(_region(clear_east), FEET)
    assert choice is not None and choice.origin[0] >= 3 and choice.work.empty  # footprint + ring in the clear part


def test_in_a_wood_the_site_is_cleared_by_digging_trunks_and_leaves_only():
    # a trunk every 3 blocks with a leaf layer over everything at head height + 1: no clear spot at all
    wood = {(x, y, z): "oak_log" for x in range(-16, 17, 3) for z in range(-16, 17, 3) for y in (64, 65, 66)}
    wood.update({(x, 67, z): "oak_leaves" for x in range(-16, 17) for z in range(-16, 17)})
    region = _region(wood)
    choice = choose_site(region, FEET)
    assert choice is not None and choice.work.digs and not choice.work.fills
    assert choice.work.cost <= MAX_COST
    assert {region.block_at(*p) for p in choice.work.digs} <= {"oak_log", "oak_leaves"}
    # after the digs the same spot is ready: nothing left in the way
    assert site_work(_region(_apply(wood, choice.work)), choice.origin).empty


def test_a_trunk_where_a_wall_goes_is_dug_not_kept_as_wall_stone_and_leaves_stay():
    """The bot's own collects take the nearest logs: a wall of a trunk was holed by the first
    `collect log` after the hut (agency.shelter.earthwork._shell)."""
    origin = (2, 64, 2)  # footprint x 2..6, z 2..6: (2, y, 4) is on its west wall
    trunk = {(2, y, 4): "spruce_log" for y in (64, 65, 66)}
    assert site_work(_region(trunk), origin).digs == ((2, 66, 4), (2, 65, 4), (2, 64, 4))
    assert site_work(_region({(2, y, 4): "stone" for y in (64, 65, 66)}), origin).empty
    assert site_work(_region({(4, 67, 4): "oak_leaves"}), origin).empty  # in the roof layer
    # nor is it taken for a wall already built when the site is prepared or a module placed
    assert not stands("walls_layer_1", "oak_planks", "spruce_log")
    assert stands("walls_layer_1", "oak_planks", "stone") and stands("roof", "oak_planks", "oak_leaves")


def test_on_uneven_ground_bumps_are_dug_and_one_deep_holes_filled_then_the_site_is_level():
    ground = {}
    for x in range(-16, 17):
        for z in range(-16, 17):
            if (x * 7 + z * 3) % 5 == 0:
                ground[(x, 64, z)] = "dirt"  # a bump at feet level
            elif (x * 3 + z * 7) % 11 == 0:
                ground[(x, 63, z)] = "air"  # a 1-deep hole
    region = _region(ground)
    choice = choose_site(region, FEET)
    assert choice is not None and choice.work.digs and choice.work.fills
    assert len(choice.work.fills) <= MAX_FILLS
    assert all(p[1] == choice.origin[1] - 1 for p in choice.work.fills)
    assert site_work(_region(_apply(ground, choice.work)), choice.origin).empty


def test_earthwork_refuses_deep_holes_water_and_built_blocks_with_a_reason():
    origin = (2, 64, 2)
    assert "deeper than 1" in site_work(_region({(4, 63, 4): "air", (4, 62, 4): "air"}), origin)
    assert "water" in site_work(_region({(4, 64, 4): "water"}), origin)
    assert "crafting_table" in site_work(_region({(1, 64, 1): "crafting_table"}), origin)  # on the ring
    # a flower in the ring is fine to stand in; in the footprint it is tapped away
    assert site_work(_region({(1, 64, 1): "poppy"}), origin).empty
    assert site_work(_region({(3, 64, 3): "poppy"}), origin).digs == ((3, 64, 3),)
    # a resumed build: the shelter's own walls are kept, not dug as obstacles
    assert site_work(_region({(2, 64, 2): "oak_planks"}), origin, keep={(2, 64, 2)}).empty


def test_a_crater_beside_a_hut_being_repaired_is_stood_around_and_a_shaft_in_its_floor_filled():
    origin, wall = (2, 64, 2), {(2, 64, 2): "oak_planks"}
    crater = {(1, 63, 4): "air", (1, 62, 4): "air"}  # on the ring, west of the footprint: a creeper's
    assert "deeper than 1" in site_work(_region(crater), origin)  # a new site: look for flatter ground
    assert site_work(_region({**wall, **crater}), origin, keep=set(wall)).empty
    # a staircase dug from inside the hut holed its floor (a bench hut failed its repair on one
    # for good): the floor cell is filled against the floor beside it
    shaft = {(4, 63, 4): "air", (4, 62, 4): "air", (4, 61, 4): "air"}
    assert "deeper than 1" in site_work(_region(shaft), origin)  # not for a new site
    assert site_work(_region({**wall, **shaft}), origin, keep=set(wall)).fills == ((4, 63, 4),)
    under_wall = {(2, 63, 4): "air", (2, 62, 4): "air"}
    assert site_work(_region({**wall, **under_wall}), origin, keep=set(wall)).fills == ((2, 63, 4),)
    # the bot's own tunnel under the hut, two high: a wall's ground cell with no floor beside it
    # is filled from the tunnel's floor up (a 26.1 bench hut's repair failed on one)
    tunnel = {(x, y, z): "air" for x in range(1, 5) for z in range(3, 6) for y in (62, 63)}
    assert "deeper than 1" in site_work(_region(tunnel), origin)  # not for a new site
    work = site_work(_region({**wall, **tunnel}), origin, keep=set(wall))
    assert work.fills.index((2, 62, 4)) + 1 == work.fills.index((2, 63, 4))  # bottom first
    assert site_work(_region(_apply({**wall, **tunnel}, work)), origin, keep=set(wall)).empty
    deep = {(x, y, z): "air" for x in range(1, 4) for z in range(3, 6) for y in range(59, 64)}
    assert "deeper than 3 with nothing beside it" in site_work(_region({**wall, **deep}), origin, keep=set(wall))
    pit = {(x, y, z): "air" for x in range(1, 8) for z in range(1, 8) for y in (62, 63)}  # no floor left at all
    assert "more than a repair fills (16)" in site_work(_region({**wall, **pit}), origin, keep=set(wall))
    # a block not to dig on the ring (the bot's own cobblestone): a new site looks elsewhere, a
    # repair stands round it (a 1.18.2 bench hut's repair failed for good on one)
    cobble = {(1, 65, 4): "cobblestone"}
    assert site_work(_region(cobble), origin) == "1,65,4 is cobblestone"
    assert site_work(_region({**wall, **cobble}), origin, keep=set(wall)).empty


def test_build_plan_delegates_only_missing_materials_and_a_repair_brings_only_what_is_gone():
    def ids(wf):
        return [s.id for s in wf.steps]

    task = {"action": "build", "target": "basic_shelter", "amount": 1, "id": "t"}
    full = build_plan("builder", task, {"oak_planks": 80, "oak_door": 1, "torch": 1})
    assert ids(full) == [
        "site",
        "prepare",
        "module-walls-layer-1",
        "module-walls-layer-2",
        "module-walls-layer-3",
        "module-roof",
        "module-door",
        "module-light",
    ]
    empty = build_plan("builder", task, {})
    # materials first: the site is chosen where the bot stands with everything in hand
    # no coal
    # (and the night kit: a wooden pickaxe and logs for the night's work, below)
    assert ids(empty)[:6] == ["get-door", "get-pickaxe", "get-walls", "keep-logs", "site", "prepare"]
    assert "module-light" not in ids(empty)
    walls = next(s for s in empty.steps if s.id == "get-walls")
    # + spare planks to fill holes; the door's, table's and pickaxe's made before it: a total
    # held, what the site takes
    assert walls.agent == "crafter"
    assert walls.task == {"action": "craft", "target": "oak_planks", "amount": 71 + 4, "ensure": True}
    coal = build_plan("builder", task, {"coal": 1})
    assert "get-torch" in ids(coal) and "module-light" in ids(coal)
    repair = build_plan("builder", {**task, "facts": {"needed": {"oak_planks": 1}, "wallBlock": "oak_planks"}}, {})
    assert next(s for s in repair.steps if s.id == "get-walls").task["amount"] == 1
    assert "get-door" not in ids(repair)
    assert ids(build_plan("builder", {"action": "build", "target": "dirt", "amount": 1}, {})) == [
        "where",
        "base",
        "stack",
    ]


def test_a_first_hut_of_the_trees_around_leaves_a_wooden_pickaxe_and_logs_for_the_night():
    task = {"action": "build", "target": "basic_shelter", "amount": 1, "id": "t"}
    first = build_plan("builder", task, {"oak_log": 7, "crafting_table": 1})
    pickaxe = next(s for s in first.steps if s.id == "get-pickaxe")
    assert pickaxe.agent == "crafter" and pickaxe.task == {"action": "craft", "target": "wooden_pickaxe", "amount": 1}
    logs = next(s for s in first.steps if s.id == "keep-logs")
    assert logs.tool == "collect_block" and logs.args == {"block": "log", "count": 4, "ensure": True}
    ids = [s.id for s in first.steps]
    assert ids.index("get-walls") < ids.index("keep-logs") < ids.index("site")  # the walls' planks do not take them

    def kit(inventory, **facts):
        steps = {s.id for s in build_plan("builder", {**task, "facts": facts} if facts else task, inventory).steps}
        return {"get-pickaxe", "keep-logs"} & steps

    # a door held: the pickaxe and its table come first, the walls' step holds what the site takes
    plan = build_plan("builder", task, {"oak_door": 1, "oak_log": 3})
    ids = [s.id for s in plan.steps]
    assert ids.index("get-pickaxe") < ids.index("get-walls")
    assert next(s for s in plan.steps if s.id == "get-walls").task["amount"] == 71 + 4
    assert kit({"oak_log": 7, "stone_pickaxe": 1}) == set()  # a pickaxe held
    assert kit({"oak_planks": 80, "oak_door": 1}) == set()  # a hut of the planks held: no trees felled for it
    assert kit({"cobblestone": 80}) == set()  # not of wood
    assert kit({}, needed={"oak_planks": 3}, wallBlock="oak_planks") == set()  # a repair
    assert kit({}, helpers=["g1"]) == set()  # a fleet's build: the walls are brought


def test_a_hut_short_of_its_woods_logs_makes_the_other_logs_held_into_planks_and_gathers_none():
    # 15 acacia logs make 60 planks, the door and table take 10: 25 of the 75 the site takes
    # come from the oak logs held, which stand in for acacia planks (agency.shelter.stand_ins)
    task = {"action": "build", "target": "basic_shelter", "amount": 1, "id": "t"}
    plan = build_plan("builder", task, {"acacia_log": 15, "oak_log": 8, "wooden_pickaxe": 1})
    crafts = [(s.id, s.task) for s in plan.steps if s.task]
    assert crafts == [
        ("get-door", {"action": "craft", "target": "acacia_door", "amount": 1}),
        ("get-oak-planks", {"action": "craft", "target": "oak_planks", "amount": 25}),
        ("get-walls", {"action": "craft", "target": "acacia_planks", "amount": 50, "ensure": True}),
    ]
    # the table and the pickaxe take other woods' planks first: those left stand in
    oak = build_plan("builder", task, {"oak_planks": 30, "acacia_log": 20})
    walls = next(s for s in oak.steps if s.id == "get-walls")
    assert walls.task == {"action": "craft", "target": "acacia_planks", "amount": 75 - (30 - 4 - 5), "ensure": True}
    # other planks held stand in as they are; enough of them, and the walls' step goes
    held = build_plan("builder", task, {"acacia_planks": 50, "birch_planks": 40, "acacia_door": 1, "stone_pickaxe": 1})
    assert not any(s.id.startswith("get-") for s in held.steps)
    # only the walls' own wood is gathered, for what nothing held covers
    short = build_plan("builder", task, {"acacia_log": 2, "oak_log": 1, "wooden_pickaxe": 1, "acacia_door": 1})
    walls = next(s for s in short.steps if s.id == "get-walls")
    assert walls.task == {"action": "craft", "target": "acacia_planks", "amount": 75 - 4, "ensure": True}


def test_a_hut_of_stone_takes_the_wooden_door_held_or_one_of_the_wood_held():
    """A 26.1 bench bot with 102 cobblestone, 22 spruce logs and 2 spruce doors failed its
    second hut on "no oak_log within 32 blocks", gathering logs for an oak door."""
    task = {"action": "build", "target": "basic_shelter", "amount": 1, "id": "t"}
    held = build_plan("builder", task, {"cobblestone": 102, "spruce_log": 22, "spruce_door": 2, "torch": 4})
    assert not any(s.id.startswith("get-") for s in held.steps)
    site = next(s for s in held.steps if s.id == "site")
    assert site.args["wallBlock"] == "cobblestone" and site.args["doorBlock"] == "spruce_door"
    made = build_plan("builder", task, {"cobblestone": 102, "spruce_log": 22, "torch": 4})
    crafts = [(s.id, s.task) for s in made.steps if s.task]
    assert crafts == [("get-door", {"action": "craft", "target": "spruce_door", "amount": 1})]
    assert next(s for s in made.steps if s.id == "site").args["doorBlock"] == "spruce_door"
    # no wood held: oak's, as ever
    bare = build_plan("builder", task, {"cobblestone": 102, "torch": 4})
    assert [s.task for s in bare.steps if s.task] == [{"action": "craft", "target": "oak_door", "amount": 1}]
