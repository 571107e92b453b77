"""What agency makes of a block name: air, liquid, replaceable, passable, solid, a door, a
log, leaves (None = unloaded). The one block vocabulary of agency/: the shelter verifier,
the site search and earthwork, and the tools' spatial helpers all ask here.

Every set is written with canonical (newest) names and every matcher canonicalizes what it
is given through agency.names, so a region read at 1.18.2 (`grass`) and one read at 1.21.4
(`short_grass`) mean the same thing. Names a version does not have simply never occur.

Existence checks only need three answers: can a mob/bot occupy this cell (passable), does
it close a wall or roof (solid), or do we not know (None = unloaded). Anything not listed
as passable is solid, so an unfamiliar modded block errs on "wall", and leaves count as
solid (a leaf roof keeps rain and most spawns out, and mobs cannot walk through it).
Doors are passable for the entrance (open or closed, a player opens them) but close the
enclosure (mobs that matter here do not open doors).
"""

from __future__ import annotations

from agency.names import canonical

AIRS = frozenset({"air", "cave_air", "void_air"})
LIQUIDS = frozenset({"water", "lava", "bubble_column"})

# What a placement may go into besides air (vanilla's `replaceable` tag without liquids and
# fire): the JS place action replaces these (node/lib/names.json "replaceable", which a unit
# test holds equal), so a tuft of grass is a free cell, not an obstacle.
REPLACEABLE_PLANTS = frozenset(
    {
        "short_grass",
        "tall_grass",
        "fern",
        "large_fern",
        "dead_bush",
        "short_dry_grass",
        "tall_dry_grass",
        "bush",
        "seagrass",
        "tall_seagrass",
        "vine",
        "glow_lichen",
        "hanging_roots",
        "crimson_roots",
        "warped_roots",
        "nether_sprouts",
        "leaf_litter",
        "snow",
        "light",
        "structure_void",
    }
)
REPLACEABLE = AIRS | REPLACEABLE_PLANTS

# Non-colliding blocks a mob can stand in: plants, torches, rails, signs, carpets, snow
# layers, liquids (water/lava are openings, not walls).
# The small flowers of the overworld's surface (a dye's source).
FLOWERS = (
    "dandelion",
    "poppy",
    "blue_orchid",
    "allium",
    "azure_bluet",
    "red_tulip",
    "orange_tulip",
    "white_tulip",
    "pink_tulip",
    "oxeye_daisy",
    "cornflower",
    "lily_of_the_valley",
)
_PASSABLE_EXACT = (
    REPLACEABLE_PLANTS
    | LIQUIDS
    | frozenset(
        {
            "torch",
            "wall_torch",
            "soul_torch",
            "soul_wall_torch",
            "redstone_torch",
            "redstone_wall_torch",
            *FLOWERS,
            "wither_rose",
            "torchflower",
            "closed_eyeblossom",
            "open_eyeblossom",
            "pink_petals",
            "wildflowers",
            "firefly_bush",
            "sunflower",
            "lilac",
            "rose_bush",
            "peony",
            "pitcher_plant",
            "brown_mushroom",
            "red_mushroom",
            "sugar_cane",
            "mangrove_propagule",
            "pale_hanging_moss",
            "cave_vines",
            "cave_vines_plant",
            "weeping_vines",
            "weeping_vines_plant",
            "twisting_vines",
            "twisting_vines_plant",
            "kelp",
            "kelp_plant",
            "rail",
            "powered_rail",
            "detector_rail",
            "activator_rail",
            "redstone_wire",
            "lever",
            "tripwire",
            "cobweb",
            "ladder",
        }
    )
)
_PASSABLE_SUFFIXES = ("_sapling", "_carpet", "_sign", "_button", "_pressure_plate", "_banner")
DOOR_SUFFIX = "_door"  # iron_door included: existence check, not a redstone check
# Every wood a tree can be, across versions (mangrove 1.19, cherry 1.20, pale oak 1.21.4):
# a version without one just never shows it.
WOODS = ("oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove", "cherry", "pale_oak")
LEAVES_EXTRA = ("azalea_leaves", "flowering_azalea_leaves")


def is_unknown(name: str | None) -> bool:
    return name is None


def is_air(name: str | None) -> bool:
    return name is not None and canonical(name) in AIRS


def is_liquid(name: str | None) -> bool:
    return name is not None and canonical(name) in LIQUIDS


def is_replaceable(name: str | None) -> bool:
    """A cell a placement goes into as it is: air or a replaceable plant (not a liquid)."""
    return name is not None and canonical(name) in REPLACEABLE


def is_door(name: str | None) -> bool:
    return name is not None and name.endswith(DOOR_SUFFIX)


def is_leaves(name: str | None) -> bool:
    return name is not None and name.endswith("_leaves")


def is_log(name: str | None) -> bool:
    """A tree trunk block (any wood, not stripped): what 'log' means to a gatherer."""
    return name is not None and name.endswith("_log") and not name.startswith("stripped_")


def is_passable(name: str | None) -> bool:
    """A cell a bot/mob can occupy. Doors count (the entrance rule). None is not passable:
    callers check is_unknown first and report 'unloaded'."""
    if name is None:
        return False
    name = canonical(name)
    return name in AIRS or name in _PASSABLE_EXACT or name.endswith(_PASSABLE_SUFFIXES) or is_door(name)


def is_walkable(name: str | None) -> bool:
    """A cell a bot walks through on its feet or head: passable, not a liquid, not a door."""
    return is_passable(name) and not is_liquid(name) and not is_door(name)


def is_open_for_enclosure(name: str | None) -> bool:
    """A cell the enclosure BFS may flood through: passable and not a door."""
    return is_passable(name) and not is_door(name)


def is_solid(name: str | None) -> bool:
    """Closes a wall or a roof: known and not passable (leaves, glass, slabs included)."""
    return name is not None and not is_passable(name)


def tree_blocks() -> tuple[str, ...]:
    """Logs and leaves of every wood (what a path may be dug through)."""
    return tuple(f"{wood}_{part}" for wood in WOODS for part in ("leaves", "log")) + LEAVES_EXTRA


SOIL = frozenset(
    {
        "dirt",
        "grass_block",
        "coarse_dirt",
        "podzol",
        "rooted_dirt",
        "mycelium",
        "moss_block",
        "sand",
        "red_sand",
        "gravel",
        "clay",
        "snow_block",
    }
)
ROCK = frozenset({"stone", "andesite", "diorite", "granite", "tuff", "coal_ore", "iron_ore", "copper_ore"})


DEEP_ROCK = frozenset(
    {"deepslate", "sandstone", "red_sandstone", "deepslate_coal_ore", "deepslate_iron_ore", "deepslate_copper_ore"}
)


def natural_ground() -> tuple[str, ...]:
    """Soil, rock and trees, the kinds the world is made of (a walk out of a pit may dig through
    these). Never planks, cobblestone, doors or tables; a shelter's dirt or stone fill is of
    these kinds, which is why a shelter's own paths never dig so."""
    return tuple(sorted(SOIL | ROCK | DEEP_ROCK)) + tree_blocks()
