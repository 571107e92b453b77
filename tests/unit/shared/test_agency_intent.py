"""docs/contracts.md INTENT-1..4: INTENT extraction."""

from __future__ import annotations

import pytest

from agency.intent import VALID_INTENTS, extract_intent


def test_valid_intent_labels_are_exactly_the_contract_list():
    assert {"none", "explore", "gather", "craft", "shelter", "food", "mine", "navigate"} == VALID_INTENTS


@pytest.mark.parametrize("label", sorted(VALID_INTENTS))
def test_final_line_intent_is_compliant_and_stripped(label):
    r = extract_intent(f"I see trees.\nINTENT: {label}")
    assert (r.text, r.intent, r.intent_parse) == ("I see trees.", label, "final_line")


def test_final_line_is_last_non_empty_line():
    r = extract_intent("Trees ahead.\nINTENT: gather\n\n  \n")
    assert (r.text, r.intent, r.intent_parse) == ("Trees ahead.", "gather", "final_line")


def test_inline_intent_is_stripped_and_marked_noncompliant():
    r = extract_intent("I want wood INTENT: gather so I go.\nNext line")
    assert r.intent == "gather"
    assert r.intent_parse == "inline_noncompliant"
    assert "INTENT" not in r.text


def test_stripInlineIntent_preserves_newlines_contract_B():
    text = "line one\nI think INTENT: gather\n\nline three\n"
    r = extract_intent(text)
    assert r.text.count("\n") == text.count("\n")
    assert r.text == "line one\nI think\n\nline three\n"


def test_unknown_intent_label_is_stripped_and_yields_null_intent():
    for text in ["Hmm.\nINTENT: conquer_world", "Hmm INTENT: conquer_world now"]:
        r = extract_intent(text)
        assert r.intent is None
        assert "conquer_world" not in r.text and "INTENT" not in r.text


def test_intent_parser_never_promotes_unknown_label_fail_closed():
    for label in ["Gather!!", "gatherx", "GATHER_ALL", "<script>", "none;drop"]:
        r = extract_intent(f"x\nINTENT: {label}")
        assert r.intent in (None, "gather", "none")
        assert r.intent is None or r.intent in VALID_INTENTS
    assert extract_intent("x\nINTENT: gatherx").intent is None


def test_no_intent_token_gives_null_parse_and_unchanged_text():
    text = "I am exploring.\nNothing more."
    r = extract_intent(text)
    assert (r.text, r.intent, r.intent_parse) == (text, None, None)


def test_final_line_pass_runs_before_inline_pass():
    r = extract_intent("I mine INTENT: mine stuff\nINTENT: explore")
    assert (r.intent, r.intent_parse) == ("explore", "final_line")
    assert "INTENT" not in r.text
