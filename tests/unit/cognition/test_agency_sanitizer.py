"""docs/contracts.md SANITIZE-1 pipeline order and the sanitizer's properties over arbitrary
input."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from agency.cognition import sanitizer
from agency.cognition.sanitizer import SanitizeResult, sanitize
from agency.goal_tag import ExtractedGoal, extract_goal_tag

CONTRACT_ORDER = [
    "strip_code_fences",
    "strip_wrapping_quotes",
    "strip_system_prompt_leaks",
    "extract_goal_tag",
    "extract_intent",
    "truncate_degeneration",
    "strip_trailing_garbage",
    "normalize_whitespace",
]

# Fragments that stress the parsers more than uniform random text would.
_FRAGMENTS = st.sampled_from(
    [
        "[GOAL:",
        "[goal:",
        "]",
        "[",
        " ",
        "\n",
        "\t",
        "collect",
        "oak_log",
        "get",
        "8",
        "0",
        "INTENT:",
        "intent:",
        "gather",
        "none",
        "```",
        '"',
        "Assistant:",
        "</s>",
        "...",
        "!!!!",
        "wood wood ",
        "I need wood. ",
    ]
)
ADVERSARIAL = st.lists(st.one_of(_FRAGMENTS, st.text(max_size=6)), max_size=40).map("".join)
ANY_TEXT = st.one_of(st.text(), ADVERSARIAL)


def test_done_check_example():
    r = sanitize("Getting wood.\n[GOAL: get oak_log 8]\nINTENT: gather")
    assert r == SanitizeResult(
        text="Getting wood.",
        goal=ExtractedGoal(action="collect", target="oak_log", amount=8),
        goal_fail_reason=None,
        intent="gather",
        intent_parse="final_line",
    )


def test_only_the_matched_goal_tag_leaves_the_text_a_later_one_stays_as_written():
    # It never becomes a second goal: the stored text is not extracted again
    # (test_goal_tag_replay.py stores and replays such thoughts and counts the tasks).
    r = sanitize("Table first. [GOAL: craft crafting_table 1] Then wood [GOAL: collect oak_log 8]\nINTENT: craft")
    assert r.goal == ExtractedGoal(action="craft", target="crafting_table", amount=1)
    assert r.text == "Table first. Then wood [GOAL: collect oak_log 8]"
    assert (r.intent, r.goal_fail_reason) == ("craft", None)


def test_a_namespaced_goal_comes_out_with_the_plain_id():
    r = sanitize("Wood. [GOAL: collect minecraft:oak_log 8]")
    assert (r.goal, r.text) == (ExtractedGoal(action="collect", target="oak_log", amount=8), "Wood.")


def test_pipeline_runs_stages_in_contract_order(monkeypatch):
    calls: list[str] = []
    for name in CONTRACT_ORDER:
        real = getattr(sanitizer, name)

        def wrapper(text, _real=real, _name=name):
            calls.append(_name)
            return _real(text)

        monkeypatch.setattr(sanitizer, name, wrapper)
    sanitize("hello [GOAL: get oak_log 1]\nINTENT: gather")
    assert calls == CONTRACT_ORDER


def test_goal_tag_is_extracted_before_degeneration_truncation():
    r = sanitize("I need wood. " * 6 + "[GOAL: collect oak_log 8]\nINTENT: gather")
    assert r.goal == ExtractedGoal(action="collect", target="oak_log", amount=8)
    assert r.intent == "gather"
    assert r.text == "I need wood."


def test_normalize_whitespace_keeps_line_structure_contract_B():
    r = sanitize("First   thought.\n\tSecond  thought.\n\n\n\nThird.")
    assert r.text == "First thought.\nSecond thought.\n\nThird."


def test_code_fences_wrapping_quotes_and_prompt_leaks_are_stripped():
    r = sanitize('```\n"Assistant: You are a Minecraft bot.\nI see a cave."\n```')
    assert r.text == "I see a cave."


def test_trailing_garbage_and_special_tokens_are_stripped():
    assert sanitize("I will rest now. <|im_end|>").text == "I will rest now."
    assert sanitize("Heading out [GOAL: collect oa").text == "Heading out"


@settings(deadline=None, max_examples=300, database=None)
@given(ANY_TEXT)
def test_sanitize_never_raises_on_any_unicode_input(text):
    assert isinstance(sanitize(text), SanitizeResult)


@settings(deadline=None, max_examples=300, database=None)
@given(ANY_TEXT, st.sampled_from(["collect", "get", "craft", "mine"]), st.sampled_from(["oak_log", "stone"]), ANY_TEXT)
def test_the_goal_stage_strips_only_the_matched_tag_and_no_later_stage_adds_or_rewrites_one(
    prefix, action, target, suffix
):
    text = f"{prefix}[GOAL: {action} {target} 3]{suffix}"
    before = sanitizer.strip_system_prompt_leaks(sanitizer.strip_wrapping_quotes(sanitizer.strip_code_fences(text)))
    extracted = extract_goal_tag(before)
    r = sanitize(text)
    assert (r.goal, r.goal_fail_reason) == (extracted.goal, extracted.fail_reason)
    if extracted.raw is not None:
        assert extracted.text == before.replace(extracted.raw, "", 1)
    else:
        assert extracted.text == before
    # The stages after extraction only cut, collapse whitespace or drop INTENT tokens: a
    # tag left in the text is one the extraction left there, never a new or a rewritten one.
    assert _openers(r.text) <= _openers(extracted.text)


def _openers(text: str) -> int:
    return text.upper().count("[GOAL:")


@settings(deadline=None, max_examples=300, database=None)
@given(ANY_TEXT)
def test_output_never_contains_intent_token(text):
    out = sanitize(text).text
    assert "INTENT:" not in out
    assert re.search("INTENT:", out, re.IGNORECASE) is None


@settings(deadline=None, max_examples=300, database=None)
@given(ANY_TEXT)
def test_newline_count_never_grows(text):
    assert sanitize(text).text.count("\n") <= text.count("\n")


@settings(deadline=None, max_examples=200, database=None)
@given(ANY_TEXT)
def test_intent_is_null_or_an_allowlisted_label(text):
    r = sanitize(text)
    assert r.intent is None or r.intent in sanitizer.VALID_INTENTS
    assert r.intent_parse in (None, "final_line", "inline_noncompliant")


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "adversarial",
    [
        "[GOAL:" * 17_000,
        "INTENT:" * 15_000,
        "a" * 100_000,
        "wood " * 20_000,
        "\n" * 100_000,
        "[GOAL: a" + "]" * 100_000,
        "I need wood. " * 8_000,
        "```\n" * 25_000,
        "</s>" * 25_000,
    ],
)
def test_sanitize_completes_on_100kb_adversarial_input(adversarial):
    assert isinstance(sanitize(adversarial), SanitizeResult)
