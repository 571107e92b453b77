"""Which block names the shelter verifier treats as passable, solid or unknown.

Existence checks only need three answers: can a mob/bot occupy this cell (passable), does
it close a wall or roof (solid), or do we not know (None = unloaded). Anything not listed
as passable is solid, so an unfamiliar modded block errs on "wall", and leaves count as
solid (a leaf roof keeps rain and most spawns out, and mobs cannot walk through it).
Doors are passable for the entrance (open or closed, a player opens them) but close the
enclosure (mobs that matter here do not open doors).
"""

from __future__ import annotations

AIRS = frozenset({"air", "cave_air", "void_air"})

# Non-colliding blocks a mob can stand in: plants, torches, rails, signs, carpets, snow
# layers, liquids (water/lava are openings, not walls).
_PASSABLE_EXACT = frozenset(
    {
        "torch", "wall_torch", "soul_torch", "soul_wall_torch", "redstone_torch", "redstone_wall_torch",
        "grass", "short_grass", "tall_grass", "fern", "large_fern", "dead_bush", "seagrass", "tall_seagrass",
        "dandelion", "poppy", "blue_orchid", "allium", "azure_bluet", "red_tulip", "orange_tulip", "white_tulip",
        "pink_tulip", "oxeye_daisy", "cornflower", "lily_of_the_valley", "sunflower", "lilac", "rose_bush", "peony",
        "brown_mushroom", "red_mushroom", "sugar_cane", "vine", "snow", "water", "lava", "bubble_column",
        "rail", "powered_rail", "detector_rail", "activator_rail", "redstone_wire", "lever", "tripwire",
        "cobweb", "ladder", "light", "structure_void",
    }
)
_PASSABLE_SUFFIXES = ("_sapling", "_carpet", "_sign", "_button", "_pressure_plate", "_banner")
DOOR_SUFFIX = "_door"  # iron_door included: existence check, not a redstone check


def is_unknown(name: str | None) -> bool:
    return name is None


def is_door(name: str | None) -> bool:
    return name is not None and name.endswith(DOOR_SUFFIX)


def is_passable(name: str | None) -> bool:
    """A cell a bot/mob can occupy. Doors count (the entrance rule). None is not passable:
    callers check is_unknown first and report 'unloaded'."""
    if name is None:
        return False
    return (
        name in AIRS
        or name in _PASSABLE_EXACT
        or name.endswith(_PASSABLE_SUFFIXES)
        or is_door(name)
    )


def is_open_for_enclosure(name: str | None) -> bool:
    """A cell the enclosure BFS may flood through: passable and not a door."""
    return is_passable(name) and not is_door(name)


def is_solid(name: str | None) -> bool:
    """Closes a wall or a roof: known and not passable (leaves, glass, slabs included)."""
    return name is not None and not is_passable(name)
