"""The alias table (agency.names), the block vocabulary built on it (agency.blocks), the
bot side's copy of both (node/lib/names.json), and minecraft-data as the judge of which
names changed. minecraft-data is read as JSON from node/node_modules (no node needed)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from agency import blocks
from agency.names import RENAMES, aliases, canonical, same, with_aliases

ROOT = Path(__file__).resolve().parents[3]
NAMES_JSON = ROOT / "node" / "lib" / "names.json"
MCDATA = ROOT / "node" / "node_modules" / "minecraft-data" / "minecraft-data" / "data"
TESTED = ("1.18.2", "26.1")  # the oldest and the newest version the embedded world serves
# Names that became several things, not one (no rename to alias): the thrown potion entity is
# splash_potion and lingering_potion since 1.21.5.
SPLIT = {"entities": {"potion"}}


@cache
def _paths() -> dict[str, dict[str, str]]:
    if not (MCDATA / "dataPaths.json").exists():
        pytest.skip("node/node_modules is not installed (make install): minecraft-data is read from it")
    return json.loads((MCDATA / "dataPaths.json").read_text())["pc"]


@cache
def mc_names(version: str, kind: str) -> frozenset[str]:
    """Names of `kind` (blocks, items, entities) in minecraft-data for `version`."""
    path = _paths()[version][kind]
    return frozenset(e["name"] for e in json.loads((MCDATA / path / f"{kind}.json").read_text()))


def releases() -> list[str]:
    """Every release since the flattening that minecraft-data describes, oldest first."""

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in v.split("."))

    out = [
        v
        for v in _paths()
        if all(p.isdigit() for p in v.split("."))
        and key(v) >= (1, 13)
        and all(k in _paths()[v] for k in ("blocks", "items", "entities"))
    ]
    return sorted(out, key=key)


def anywhere(name: str) -> bool:
    return any(name in mc_names(v, k) for v in releases() for k in ("blocks", "items", "entities"))


# -- the table ----------------------------------------------------------------------------


def test_canonical_is_the_newest_name_and_leaves_unchanged_names_alone() -> None:
    assert canonical("grass") == "short_grass"
    assert canonical("short_grass") == "short_grass"
    assert canonical("grass_path") == "dirt_path"
    assert canonical("sign") == "oak_sign"
    assert canonical("chain") == "iron_chain"
    assert canonical("grass_block") == "grass_block"  # not the plant: never renamed since 1.13
    assert canonical("oak_log") == "oak_log"


def test_aliases_list_every_name_newest_first_from_either_end() -> None:
    assert aliases("grass") == aliases("short_grass") == ("short_grass", "grass")
    assert aliases("oak_planks") == ("oak_planks",)


def test_same_matches_one_thing_under_two_versions_names_and_nothing_else() -> None:
    assert same("grass", "short_grass") and same("short_grass", "grass") and same("grass", "grass")
    assert not same("grass", "grass_block") and not same("short_grass", "tall_grass")
    assert not same(None, "air") and not same("air", None) and not same(None, None)


def test_with_aliases_makes_a_set_a_raw_name_of_any_version_is_found_in() -> None:
    s = with_aliases(["short_grass", "oak_log"])
    assert s == {"short_grass", "grass", "oak_log"}
    assert with_aliases([]) == frozenset()


def test_the_table_has_no_chains_or_clashes() -> None:
    olds = [o for os_ in RENAMES.values() for o in os_]
    assert len(olds) == len(set(olds)), "an old name renamed twice"
    assert not set(olds) & set(RENAMES), "an old name is also a newest name (a chain)"


# -- the table against minecraft-data --------------------------------------------------------


@pytest.mark.parametrize("kind", ["blocks", "items", "entities"])
def test_every_name_gone_between_the_tested_versions_is_in_the_table(kind: str) -> None:
    old, new = (mc_names(v, kind) for v in TESTED)
    gone = old - new - SPLIT.get(kind, set())
    assert gone, f"minecraft-data says no {kind} name changed between {TESTED}: is the data there?"
    for name in gone:
        assert canonical(name) != name, f"{kind}: '{name}' of {TESTED[0]} is gone at {TESTED[1]} and not in RENAMES"
        assert canonical(name) in new, f"{kind}: {name} -> {canonical(name)}, which {TESTED[1]} does not have"


def test_every_rename_in_the_table_is_one_in_minecraft_data() -> None:
    """The old name exists in an older release and the new one replaces it in a later one."""
    rel = releases()
    for new, olds in RENAMES.items():
        for old in olds:
            for kind in ("blocks", "items", "entities"):
                had_old = [i for i, v in enumerate(rel) if old in mc_names(v, kind) and new not in mc_names(v, kind)]
                has_new = [i for i, v in enumerate(rel) if new in mc_names(v, kind) and old not in mc_names(v, kind)]
                if had_old and has_new and max(had_old) < min(has_new):
                    break
            else:
                pytest.fail(f"minecraft-data shows no rename {old} -> {new}")


def test_every_name_in_the_block_vocabulary_exists_in_some_version() -> None:
    vocabulary = (
        blocks.AIRS
        | blocks.LIQUIDS
        | blocks.REPLACEABLE
        | blocks._PASSABLE_EXACT
        | set(blocks.tree_blocks())
        | {f"{w}_planks" for w in blocks.WOODS}
    )
    typos = sorted(n for n in vocabulary if not anywhere(n))
    assert typos == []
    assert all(canonical(n) == n for n in vocabulary), "vocabularies are written with canonical names"


# -- the bot side's copy -------------------------------------------------------------------


def test_node_names_json_is_the_same_table_and_vocabulary() -> None:
    data = json.loads(NAMES_JSON.read_text())
    assert {k: tuple(v) for k, v in data["renames"].items()} == RENAMES
    assert set(data["airs"]) == blocks.AIRS
    assert set(data["liquids"]) == blocks.LIQUIDS
    assert set(data["replaceable"]) == blocks.REPLACEABLE


# -- the block vocabulary: one answer whatever the version calls the block ---------------------


@pytest.mark.parametrize(
    "old, new",
    [
        ("grass", "short_grass"),
        ("sign", "oak_sign"),
        ("wall_sign", "oak_wall_sign"),
        ("grass_path", "dirt_path"),
        ("chain", "iron_chain"),
    ],
)
def test_matchers_answer_the_same_for_both_names(old: str, new: str) -> None:
    for matcher in (
        blocks.is_air,
        blocks.is_liquid,
        blocks.is_replaceable,
        blocks.is_passable,
        blocks.is_walkable,
        blocks.is_solid,
        blocks.is_open_for_enclosure,
        blocks.is_door,
        blocks.is_leaves,
        blocks.is_log,
    ):
        assert matcher(old) == matcher(new), f"{matcher.__name__}({old}) != {matcher.__name__}({new})"


def test_block_categories() -> None:
    for plant in ("grass", "short_grass", "tall_grass", "fern", "dead_bush", "snow"):
        assert blocks.is_replaceable(plant) and blocks.is_passable(plant) and not blocks.is_solid(plant), plant
    for flower in ("dandelion", "poppy", "torchflower", "oak_sapling", "cherry_sapling"):
        # a placement does not replace it
        assert blocks.is_passable(flower) and not blocks.is_replaceable(flower), flower
    assert blocks.is_passable("sign") and blocks.is_passable("oak_hanging_sign")
    assert blocks.is_solid("grass_block") and blocks.is_solid("oak_leaves") and blocks.is_solid("crafting_table")
    assert not blocks.is_replaceable("water") and blocks.is_passable("water") and not blocks.is_walkable("water")
    assert blocks.is_passable("oak_door") and not blocks.is_walkable("oak_door")
    assert not blocks.is_open_for_enclosure("oak_door")
    assert blocks.is_log("cherry_log") and blocks.is_log("pale_oak_log") and not blocks.is_log("stripped_oak_log")
    assert blocks.is_leaves("azalea_leaves") and not blocks.is_leaves("oak_log")
    for unknown in (blocks.is_air, blocks.is_replaceable, blocks.is_passable, blocks.is_solid, blocks.is_log):
        assert unknown(None) is False
    assert {"cherry_log", "pale_oak_leaves", "mangrove_log", "oak_log"} <= set(blocks.tree_blocks())
