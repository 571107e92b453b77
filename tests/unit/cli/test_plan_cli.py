"""`mcbot plan ITEM [N]`: the plan an obtain goal becomes, printed without a daemon, and its
refusals (exit 1 with the reason, exit 4 for a bad --have)."""

from __future__ import annotations

import pytest

from agency.game import mcdata
from bot.cli.main import main


@pytest.fixture(autouse=True)
def _version():
    before = mcdata.current_version()
    yield
    mcdata.use_version(before)


def test_a_bucket_from_empty_hands_is_a_plan_that_smelts_its_iron(capsys):
    assert main(["plan", "bucket"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "obtain bucket 1 at Minecraft 26.1, from empty hands: craft bucket"
    ids = [line.split()[1] for line in out[1:]]
    assert ids[0] == "gather-log" and ids[-1] == "craft-bucket"
    assert ids.index("craft-stone-pickaxe") < ids.index("seek-iron-ore") < ids.index("gather-raw_iron-input")
    assert ids.index("gather-raw_iron-input") < ids.index("smelt-iron-ingot")


def test_what_is_held_shortens_the_plan_and_the_version_is_named(capsys):
    assert main(["plan", "redstone", "4", "--have", "iron_pickaxe=1", "--version", "1.18.2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "obtain redstone 4 at Minecraft 1.18.2, from 1 iron_pickaxe: collect redstone_ore"
    assert [line.split()[1] for line in out[1:]] == ["seek-redstone-ore", "collect", "check"]


@pytest.mark.parametrize(
    "argv, code, says",
    [
        (["plan", "blaze_powder"], 1, "blaze_powder needs blaze_rod, which is found only in the nether"),
        (["plan", "compas"], 1, "did you mean compass?"),
        (["plan", "stick", "--have", "oak=x"], 4, "give ITEM=N"),
    ],
)
def test_refusals_say_why(capsys, argv, code, says):
    assert main(argv) == code
    assert says in capsys.readouterr().err


def test_every_have_counts_and_what_is_held_needs_no_source(capsys):
    """A cake's egg has no source the bot knows: refused from empty hands, planned when held."""
    assert main(["plan", "cake"]) == 1
    assert "cake needs blue_egg or brown_egg or egg" in capsys.readouterr().err
    argv = ["plan", "cake", "--have", "milk_bucket=3", "--have", "sugar=2", "egg=1", "--have", "wheat=3"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("from 1 egg, 3 milk_bucket, 2 sugar, 3 wheat: craft cake")
    assert out[-1].split()[1] == "craft-cake"


def test_the_tree_puts_each_step_under_what_it_is_for(capsys):
    assert main(["plan", "bucket", "--tree"]) == 0
    out = capsys.readouterr().out.splitlines()
    heads = [line.strip() for line in out[1:] if not line.strip()[:1].isdigit()]
    assert heads[:4] == ["craft bucket", "smelt iron_ingot", "a tool for iron_ore", "craft stone_pickaxe"]
    depth = {line.strip().split()[1]: len(line) - len(line.lstrip()) for line in out[1:] if line.strip()[:1].isdigit()}
    assert depth["gather-log"] > depth["gather-raw_iron-input"] > depth["craft-bucket"]  # deeper: further from the goal
