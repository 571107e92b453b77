"""Where each ore (and lava) lies: the level the bot digs down to when none is in sight.

Since 1.18 (the oldest version we run is 1.18.2) ores are placed by height: iron is most
common around y 16, gold around y -16, diamonds and redstone at the bottom of the deepslate,
coal and copper higher up. The embedded world places them the same way (node/plugins/
underground.js ORE_FEATURES: per ore, how many veins a chunk gets between which heights; a
unit test holds each level below inside one of its ore's ranges there). A level is where a
staircase ends; the sight box (8 blocks up and down: agency.tools.queries) then covers the
band around it.

Emeralds are left out: they grow only under mountains, which digging down does not find.
Lava fills the caves below y -54 (node/plugins/underground.js LAVA_LEVEL): a bucket of it is
dug down for to the floor, whose sight box reaches it.
"""

from __future__ import annotations

from agency.names import canonical

# The ore -> the level to dig to, at most as deep as agency.tools.mining.SAFE_FLOOR_Y.
ORE_LEVELS = {
    "coal_ore": 48,  # the lower half of coal's band (0..192): below the surface, above the deepslate
    "copper_ore": 48,  # copper's peak (-16..112)
    "iron_ore": 16,  # iron's deep peak (-24..56)
    "lapis_ore": 0,  # lapis's peak (-32..32)
    "gold_ore": -16,  # gold's peak (-64..32)
    "redstone_ore": -48,  # redstone and diamonds peak at the bottom (-64), where the lava lies:
    "diamond_ore": -48,  # as deep as is safe
}


# The lowest level the world places an ore at, where that is above the deep (the others lie down
# to the bottom): coal and copper are not found in the deepslate. A bot deeper than this rises
# into the band (agency.tools.climb_out.rise_into_band): a 26.1 bench bot at y -31 tunnelled for
# a torch's coal three times in five minutes and found none.
ORE_FLOORS = {"coal_ore": 0, "copper_ore": -16}

FLUID_LEVELS = {"lava": -48}
# The rock of the deep: deepslate below y 0 (stone above y 8, mixed between), tuff in blobs there.
ROCK_LEVELS = {"deepslate": -8, "tuff": -8}


def ore_level(block: str) -> int | None:
    """The level to dig down to for `block` (an ore or its deepslate kind), None when it is
    not an ore found by digging down."""
    name = canonical(block)
    name = name if name in ROCK_LEVELS else name.removeprefix("deepslate_")
    return ORE_LEVELS.get(name, FLUID_LEVELS.get(name, ROCK_LEVELS.get(name)))


def ore_floor(block: str) -> int | None:
    """The lowest level the world places `block` (an ore or its deepslate kind) at, None when
    it lies down to the bottom of the world (or is no ore)."""
    return ORE_FLOORS.get(canonical(block).removeprefix("deepslate_"))
