"""Harvest data (agency.game.harvest): the committed agency/game/harvest.json is what
scripts/harvest_data.js makes from the installed minecraft-data, for the versions the
Makefile claims; and what agency makes of it (the tool a block needs, the cheapest one,
what it drops, how long a tool lasts)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from agency.execution.agents.sources import SOURCE_BLOCK
from agency.game import harvest
from agency.tools.gathering import drop_of

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "harvest_data.js"


def _node() -> str:
    from bot.runtime.node_runtime import NodeRuntimeError, resolve_node_bin  # noqa: PLC0415 - the test's tool only

    try:
        return resolve_node_bin()
    except NodeRuntimeError as e:
        print(f"skipping: no node to run {SCRIPT.name} with ({e})")
        pytest.skip(f"no node to run {SCRIPT.name}: {e}")


def test_the_committed_file_is_what_the_script_makes_from_the_installed_minecraft_data() -> None:
    node = _node()
    if not (ROOT / "node" / "node_modules" / "minecraft-data").is_dir():
        print("skipping: node/node_modules is not installed (make install)")
        pytest.skip("node/node_modules is not installed (make install)")
    made = subprocess.run([node, str(SCRIPT)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert made.stdout == harvest.DATA_FILE.read_text(encoding="utf-8"), (
        "agency/game/harvest.json is stale: run `node scripts/harvest_data.js --write`"
    )


def test_the_file_covers_every_version_the_makefile_claims() -> None:
    claimed = re.search(r"^ALL_MC_VERSIONS\s*:=\s*(.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert claimed is not None
    assert harvest.versions() == tuple(claimed.group(1).split())
    data = json.loads(harvest.DATA_FILE.read_text())
    for version, groups in data["versions"].items():
        assert len({b for g in groups for b in g["blocks"]}) > 300, version  # all of minecraft-data, not a sample


@pytest.mark.parametrize(
    "block, tool",
    [
        ("stone", "wooden_pickaxe"),
        ("cobblestone", "wooden_pickaxe"),
        ("coal_ore", "wooden_pickaxe"),
        ("deepslate", "wooden_pickaxe"),
        ("iron_ore", "stone_pickaxe"),
        ("deepslate_iron_ore", "stone_pickaxe"),
        ("diamond_ore", "iron_pickaxe"),
        ("obsidian", "diamond_pickaxe"),
        ("cobweb", "wooden_sword"),
        ("snow_block", "wooden_shovel"),
    ],
)
def test_the_cheapest_tool_comes_first(block: str, tool: str) -> None:
    assert harvest.needs_tool(block)
    ranked = harvest.ranked_tools(block)
    assert ranked[0] == tool and set(ranked) == harvest.harvest_tools(block)
    assert [harvest.tier(t) for t in ranked] == sorted(harvest.tier(t) for t in ranked)
    assert harvest.unless_dug_with(block).startswith(
        f"{block} drops nothing unless dug with a {tool} or better ({tool}, "
    )


def test_the_ranking_golden_after_iron_and_a_block_nothing_harvests() -> None:
    assert harvest.ranked_tools("stone") == (
        "wooden_pickaxe",
        "stone_pickaxe",
        "iron_pickaxe",
        "golden_pickaxe",
        "diamond_pickaxe",
        "netherite_pickaxe",
    )
    assert harvest.ranked_tools("command_block") == ()
    assert harvest.unless_dug_with("command_block") == (
        "command_block drops nothing unless dug with a tool no one can hold"
    )


@pytest.mark.parametrize(
    "block",
    [
        "oak_log",
        "log",
        "dirt",
        "grass_block",
        "sand",
        "gravel",
        "oak_planks",
        "crafting_table",
        "short_grass",
        "grass",
        "oak_leaves",
    ],
)
def test_blocks_that_drop_to_bare_hands_need_nothing(block: str) -> None:
    assert not harvest.needs_tool(block) and harvest.ranked_tools(block) == ()
    assert harvest.can_harvest({}, block)


def test_what_an_inventory_can_harvest() -> None:
    assert not harvest.can_harvest({}, "stone")
    assert not harvest.can_harvest({"wooden_pickaxe": 0}, "stone")
    assert harvest.can_harvest({"wooden_pickaxe": 1}, "stone") and not harvest.can_harvest(
        {"wooden_pickaxe": 1}, "iron_ore"
    )
    assert harvest.can_harvest({"golden_pickaxe": 1}, "coal_ore") and not harvest.can_harvest(
        {"golden_pickaxe": 1}, "iron_ore"
    )
    assert harvest.tool_held({"iron_pickaxe": 1, "stone_pickaxe": 1, "oak_log": 3}, "iron_ore") == "stone_pickaxe"
    assert harvest.tool_held({"wooden_axe": 1}, "stone") is None
    assert not harvest.can_harvest({"diamond_pickaxe": 1}, "command_block")  # nothing harvests it


def test_every_claimed_version_must_agree_unless_one_is_named() -> None:
    # an iron door needs a pickaxe at 1.18.2 and none at 1.21.4: planning takes the stricter answer
    assert harvest.needs_tool("iron_door", "1.18.2") and not harvest.needs_tool("iron_door", "1.21.4")
    assert harvest.needs_tool("iron_door")
    assert harvest.drops("iron_ore", "1.18.2") == harvest.drops("iron_ore", "1.21.4") == ("raw_iron",)


@pytest.mark.parametrize(
    "block, item",
    [
        ("stone", "cobblestone"),
        ("deepslate", "cobbled_deepslate"),
        ("coal_ore", "coal"),
        ("deepslate_coal_ore", "coal"),
        ("iron_ore", "raw_iron"),
        ("deepslate_iron_ore", "raw_iron"),
        ("diamond_ore", "diamond"),
        ("cobblestone", "cobblestone"),
        ("grass_block", "dirt"),
        ("oak_log", "oak_log"),
        ("log", "log"),
        ("dirt", "dirt"),
        ("grass", "grass"),
        ("gilded_blackstone", "gilded_blackstone"),  # two drops: the block itself is what is counted
    ],
)
def test_what_collecting_a_block_counts(block: str, item: str) -> None:
    assert drop_of(block) == item


def test_the_planners_sources_drop_what_it_gathers_from_them() -> None:
    for raw, block in SOURCE_BLOCK.items():  # the planner gathers raw from block
        assert not harvest.needs_tool(block) or raw in harvest.drops(block), f"{block} does not drop {raw}"


def test_durability_per_tool_and_the_order_tools_wear_out() -> None:
    assert {
        t: harvest.durability(t)
        for t in ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe", "golden_pickaxe", "diamond_pickaxe", "shears")
    } == {
        "wooden_pickaxe": 59,
        "stone_pickaxe": 131,
        "iron_pickaxe": 250,
        "golden_pickaxe": 32,
        "diamond_pickaxe": 1561,
        "shears": 238,
    }
    data = json.loads(harvest.DATA_FILE.read_text())
    assert set(data["durability"]) == set(harvest.versions())
    for version, groups in data["versions"].items():  # every tool that harvests anything has its uses
        assert {t for g in groups for t in g["tools"]} <= set(data["durability"][version]), version
    # the bot digs with the fastest tool that harvests the block: golden before the others
    assert harvest.wear_order("stone")[0] == "golden_pickaxe" and harvest.wear_order("stone")[-1] == "wooden_pickaxe"
    assert harvest.wear_order("iron_ore") == ("netherite_pickaxe", "diamond_pickaxe", "iron_pickaxe", "stone_pickaxe")
