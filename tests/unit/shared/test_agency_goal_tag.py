"""docs/contracts.md TAG-1, TAG-2, TAG-4: goal tag extraction, canonical goal keys,
build_goal_tag_v1."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from agency import goal_tag
from agency.goal_tag import (
    ACTION_NORMALIZE_MAP,
    CANONICAL_ACTIONS,
    MAX_GOAL_INNER,
    NORMALIZE_MAP_VERSION,
    ExtractedGoal,
    build_goal_tag_v1,
    canonical_goal_key,
    extract_goal_tag,
)

REQUIRED_ACTIONS = {
    "collect",
    "mine",
    "craft",
    "build",
    "explore",
    "navigate",
    "gather",
    "smelt",
    "place",
    "eat",
    "sleep",
    "flee",
    "attack",
    "find",
    "pause",
    "continue",
}


def test_canonical_actions_allowlist_contains_every_required_action():
    assert REQUIRED_ACTIONS <= CANONICAL_ACTIONS


def test_normalize_map_only_maps_into_canonical_actions_and_is_versioned():
    assert isinstance(NORMALIZE_MAP_VERSION, int) and NORMALIZE_MAP_VERSION >= 1
    assert set(ACTION_NORMALIZE_MAP.values()) <= CANONICAL_ACTIONS
    assert all(ACTION_NORMALIZE_MAP[a] == a for a in CANONICAL_ACTIONS)


@pytest.mark.parametrize(
    ("synonym", "canonical"),
    [
        ("get", "collect"),
        ("obtain", "collect"),
        ("chop", "collect"),
        ("make", "craft"),
        ("go", "navigate"),
        ("walk", "navigate"),
        ("dig", "mine"),
        ("construct", "build"),
    ],
)
def test_synonyms_normalize_to_canonical_action(synonym, canonical):
    assert extract_goal_tag(f"[GOAL: {synonym} oak_log 2]").goal == ExtractedGoal(
        action=canonical, target="oak_log", amount=2
    )


def test_goal_tag_amount_is_optional_and_defaults_to_one():
    assert extract_goal_tag("[GOAL: craft crafting_table]").goal == ExtractedGoal(
        action="craft", target="crafting_table", amount=1
    )


def test_goal_tag_is_case_insensitive_and_multiword_target_is_joined():
    assert extract_goal_tag("[goal: Collect Oak Log 3]").goal == ExtractedGoal(
        action="collect", target="oak_log", amount=3
    )


def test_unknown_action_fails_closed_with_reason():
    r = extract_goal_tag("I will [GOAL: dance oak_log 3]")
    assert (r.goal, r.fail_reason) == (None, "unknown_action")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("just thinking about trees", "no_tag"),
        ("[GOAL: collect " + "x" * (MAX_GOAL_INNER + 5) + "]", "tag_too_long"),
        ("[GOAL: collect oak_log 8", "tag_too_long"),
        ("[GOAL: collect oak_log -3]", "malformed"),
        ("[GOAL: collect oak_log 0]", "malformed"),
        ("[GOAL: collect oak.log 2]", "malformed"),
        ("[GOAL: collect [oak_log 2]", "malformed"),
        ("[GOAL: collect]", "no_target"),
        ("[GOAL: collect 5]", "no_target"),
        ("[GOAL:   ]", "empty_inner"),
    ],
)
def test_goal_tag_fail_reasons_are_fail_closed(text, reason):
    r = extract_goal_tag(text)
    assert r.goal is None
    assert r.fail_reason == reason


def test_closing_bracket_must_be_within_100_chars_of_inner_start():
    inner_ok = " collect " + "a" * (MAX_GOAL_INNER - len(" collect "))
    assert len(inner_ok) == MAX_GOAL_INNER
    assert extract_goal_tag(f"[GOAL:{inner_ok}]").goal is not None
    assert extract_goal_tag(f"[GOAL:{inner_ok}a]").fail_reason == "tag_too_long"


def test_first_goal_tag_wins():
    r = extract_goal_tag("[GOAL: craft crafting_table 1] then [GOAL: collect oak_log 8]")
    assert r.goal == ExtractedGoal(action="craft", target="crafting_table", amount=1)


def test_broken_first_tag_is_not_replaced_by_a_later_valid_one():
    r = extract_goal_tag("[GOAL: dance floor] then [GOAL: collect oak_log 8]")
    assert (r.goal, r.fail_reason) == (None, "unknown_action")


def test_extractGoalTag_never_mutates_text_except_to_strip_the_matched_tag():
    text = '  Weird   spacing,\n\n"quotes"  [GOAL: get oak_log 8] and\ttabs INTENT: x  '
    r = extract_goal_tag(text)
    assert r.raw == "[GOAL: get oak_log 8]"
    assert r.text == text.replace(r.raw, "", 1)


def test_text_without_closed_tag_is_returned_unchanged():
    for text in ["no tag here", "[GOAL: collect oak_log 8", "[GOAL: " + "y" * 200 + "]"]:
        assert extract_goal_tag(text).text == text


def test_only_the_matched_tag_is_stripped_later_tags_stay_in_the_text():
    text = "Table first [GOAL: craft crafting_table 1] then wood [GOAL: collect oak_log 8] ok"
    r = extract_goal_tag(text)
    assert r.goal == ExtractedGoal(action="craft", target="crafting_table", amount=1)
    assert r.text == "Table first  then wood [GOAL: collect oak_log 8] ok"


def test_a_broken_first_tag_is_the_matched_one_and_later_tags_stay():
    r = extract_goal_tag("[GOAL: dance floor] then [GOAL: collect oak_log 8]")
    assert (r.goal, r.raw) == (None, "[GOAL: dance floor]")
    assert r.text == " then [GOAL: collect oak_log 8]"


def test_an_over_long_first_tag_matches_nothing_so_no_tag_is_stripped():
    text = "[GOAL: " + "y" * 200 + "] then [GOAL: collect oak_log 8]"
    r = extract_goal_tag(text)
    assert (r.goal, r.fail_reason, r.text) == (None, "tag_too_long", text)


def test_nested_tags_strip_only_the_inner_matched_tag():
    r = extract_goal_tag("a [GO[GOAL: collect oak_log 1]AL: craft planks 4] b")
    assert r.goal == ExtractedGoal(action="collect", target="oak_log", amount=1)
    assert r.text == "a [GOAL: craft planks 4] b"


@pytest.mark.parametrize(
    "target", ["minecraft:oak_log", "MINECRAFT:Oak_Log", "minecraft:oak log", "minecraft: oak_log"]
)
def test_a_namespaced_target_is_normalised_to_its_plain_id(target):
    r = extract_goal_tag(f"[GOAL: collect {target} 8]")
    assert r.goal == ExtractedGoal(action="collect", target="oak_log", amount=8)
    assert canonical_goal_key(r.goal.action, r.goal.target) == "collect:oak_log"


@pytest.mark.parametrize("target", ["othermod:oak_log", "a:b:c", "oak_log:", ":oak_log", "minecraft:"])
def test_a_target_with_any_other_colon_fails_closed(target):
    r = extract_goal_tag(f"[GOAL: collect {target} 8]")
    assert r.goal is None and r.fail_reason in ("malformed", "no_target")


def test_canonical_goal_key_drops_the_minecraft_namespace():
    assert canonical_goal_key("collect", "minecraft:oak_log") == "collect:oak_log"
    assert canonical_goal_key("Craft", "Minecraft:Crafting Table") == "craft:crafting_table"


@pytest.mark.parametrize(
    ("action", "target"), [("collect", "othermod:oak_log"), ("collect", "a:b"), ("col:lect", "oak_log")]
)
def test_canonical_goal_key_is_never_more_than_action_colon_target(action, target):
    assert canonical_goal_key(action, target) is None


def test_goal_scan_is_linear_by_design_no_regex_on_model_output():
    # The scanner must not hand model output to a backtracking regex engine.
    assert "import re" not in Path(goal_tag.__file__).read_text()


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "adversarial",
    [
        "[GOAL:" * 17_000,
        "[" * 100_000,
        "]" * 100_000,
        "[GOAL: a" + "]" * 100_000,
        "[GOAL: x]" * 11_000,
        ("[GOAL: " + " " * 99 + "]") * 900,
    ],
)
def test_goal_extraction_completes_on_100kb_adversarial_input(adversarial):
    r = extract_goal_tag(adversarial)
    assert r.goal is None


def test_canonical_goal_key_is_lowercase_action_colon_target_with_underscores():
    assert canonical_goal_key("Collect", "Oak Log") == "collect:oak_log"
    assert canonical_goal_key("build", "basic-shelter") == "build:basic_shelter"


@pytest.mark.parametrize(
    ("action", "target"), [("", "oak_log"), ("collect", ""), ("  ", " "), (None, "x"), ("x", None)]
)
def test_canonical_goal_key_returns_none_never_empty_string(action, target):
    assert canonical_goal_key(action, target) is None


def test_build_goal_tag_v1_parses_back_through_extractor():
    tag = build_goal_tag_v1("collect", "oak_log", 8)
    assert tag == "[GOAL: collect oak_log 8]"
    assert extract_goal_tag(tag).goal == ExtractedGoal(action="collect", target="oak_log", amount=8)


@pytest.mark.parametrize(
    ("action", "target", "amount"), [("dance", "x", 1), ("get", "oak_log", 1), ("collect", "", 1), ("collect", "x", 0)]
)
def test_build_goal_tag_v1_rejects_non_canonical_goals(action, target, amount):
    with pytest.raises(ValueError):
        build_goal_tag_v1(action, target, amount)


@settings(deadline=None, max_examples=300, database=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_:- MINECRAFT", min_size=1, max_size=40))
def test_every_extracted_goal_has_a_key_of_exactly_action_colon_target(target):
    r = extract_goal_tag(f"[GOAL: collect {target}]")
    if r.goal is not None:
        key = canonical_goal_key(r.goal.action, r.goal.target)
        assert key is not None and key.count(":") == 1 and key == f"collect:{r.goal.target}"
