"""Block, item and entity names across Minecraft versions: the one alias table of agency/.

Snapshots and block regions report names as the RUNNING version names them (minecraft-data
for that version, on the bot side), so the same plant is `grass` at 1.18.2 and `short_grass`
at 1.21.4. Agency code that matches a name from the world (is this a plant, a log, the
block I placed?) goes through here, never through a literal of one version:

- `canonical(name)`: the newest name of the thing (`grass` -> `short_grass`); names that never
  changed come back as they are. Block vocabularies (agency.blocks) and matchers are
  written with canonical names and canonicalize what they are given.
- `same(a, b)`: one thing under two versions' names.
- `aliases(name)`: every name the thing has had, newest first (for sets a raw name is
  looked up in, and for the bot side's lookup).

Names agency sends to the bot (blocks to collect or place, items to craft) may be canonical:
node/lib/names.js resolves them to the running version's name with the same table
(node/lib/names.json, which a unit test holds equal to RENAMES).

Only names since the flattening (1.13) are covered: before it, blocks were numbers plus
metadata and the names differ wholesale (pre-1.13 `grass` is the grass BLOCK).
"""

from __future__ import annotations

from collections.abc import Iterable

# newest name -> the older names it had, newest first; the version of the rename in a comment.
# Found by diffing minecraft-data's blocks, items and entities for every release since 1.13
# (a name that disappears while its thing stays); only the things mcbot can meet in the world
# or name in a plan are listed.
RENAMES: dict[str, tuple[str, ...]] = {
    "short_grass": ("grass",),  # block + item, 1.20.3
    "dirt_path": ("grass_path",),  # block + item, 1.17
    "oak_sign": ("sign",),  # block + item, 1.14
    "oak_wall_sign": ("wall_sign",),  # block, 1.14
    "red_dye": ("rose_red",),  # item, 1.14
    "green_dye": ("cactus_green",),  # item, 1.14
    "yellow_dye": ("dandelion_yellow",),  # item, 1.14
    "zombified_piglin": ("zombie_pigman",),  # entity, 1.16
    "turtle_scute": ("scute",),  # item, 1.20.5
    "oak_boat": ("boat",),  # entity, 1.21.2 (one entity per wood since; the item was always oak_boat)
    "oak_chest_boat": ("chest_boat",),  # entity, 1.21.2
    "iron_chain": ("chain",),  # block + item, 1.21.9
}

_NEWEST: dict[str, str] = {old: new for new, olds in RENAMES.items() for old in olds}


def canonical(name: str) -> str:
    """The newest name of what `name` names (itself when it never changed)."""
    return _NEWEST.get(name, name)


def aliases(name: str) -> tuple[str, ...]:
    """Every name the thing called `name` has had, the newest first."""
    new = canonical(name)
    return (new, *RENAMES.get(new, ()))


def same(a: str | None, b: str | None) -> bool:
    """One thing, whichever version named each side (None matches nothing)."""
    return a is not None and b is not None and canonical(a) == canonical(b)


def with_aliases(names: Iterable[str]) -> frozenset[str]:
    """The names and all their other versions' names: a set a raw name can be looked up in."""
    return frozenset(n for name in names for n in aliases(name))


# Words that stand for "whatever hostile is near" in a goal (flee hostiles, attack mob).
GENERIC_THREATS = frozenset({"danger", "hostile", "hostiles", "mob", "mobs", "threat", "enemies", "monsters"})
