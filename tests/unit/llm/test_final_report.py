"""docs/contracts.md LLM-6: final report parsing, structure and format enforcement."""

from __future__ import annotations

import base64
import json

from agency.llm.final_report import final_report_schema
from agency.llm.testing import ScriptedLLM, call, final, text
from tests.unit.llm.conftest import make_settings, run, spec, tool_entries

SCHEMA = {
    "type": "object",
    "properties": {"logs": {"type": "integer"}, "where": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    "required": ["logs", "where"],
}


def test_tool_provided_report_is_success_with_system_fields(llm: ScriptedLLM, clock) -> None:
    llm.add(final("# Answer\n3 logs", metadata={"note": "x"}))
    r = run("x", make_settings(llm), clock=clock)
    assert r.success and r.error is None
    fr = r.finalReport
    assert fr["status"] == "success" and fr["format"] == "markdown" and fr["content"] == "# Answer\n3 logs"
    assert fr["ts"] == clock.now_ms


def test_model_cannot_set_status(llm: ScriptedLLM) -> None:
    llm.add(call("agent__final_report", {"format": "markdown", "report_content": "hi", "status": "failure"}))
    assert run("x", make_settings(llm)).finalReport["status"] == "success"


def test_format_is_forced_by_const_and_normalized(llm: ScriptedLLM) -> None:
    def check(req):
        props = req.body["tools"][0]["function"]["parameters"]["properties"]
        assert props["format"] == {"type": "string", "const": "text"}

    llm.add(call("agent__final_report", {"format": "markdown", "report_content": "plain"}, expect=check))
    r = run("x", make_settings(llm), expected_format="text")
    assert r.success and r.finalReport["format"] == "text"


def test_base64_encoding_is_decoded(llm: ScriptedLLM) -> None:
    payload = base64.b64encode("ünïcode <b>".encode()).decode()
    llm.add(call("agent__final_report", {"format": "markdown", "encoding": "base64", "report_content": payload}))
    assert run("x", make_settings(llm)).finalReport["content"] == "ünïcode <b>"


def test_content_json_validated_against_schema(llm: ScriptedLLM) -> None:
    llm.add(final({"logs": 3, "where": {"x": 1}}, fmt="json"))
    r = run("x", make_settings(llm), expected_format="json", output_schema=SCHEMA)
    assert r.success and r.finalReport["content_json"] == {"logs": 3, "where": {"x": 1}}


def test_content_json_repair_loop_parses_stringified_nested_json(llm: ScriptedLLM) -> None:
    llm.add(final(json.dumps({"logs": 3, "where": json.dumps({"x": 1})}), fmt="json"))
    r = run("x", make_settings(llm), expected_format="json", output_schema=SCHEMA)
    assert r.success and r.finalReport["content_json"] == {"logs": 3, "where": {"x": 1}}


def test_schema_failure_collapses_remaining_turns(llm: ScriptedLLM) -> None:
    llm.add(final({"logs": "many"}, fmt="json"))
    r = run("x", make_settings(llm, max_turns=5), expected_format="json", output_schema=SCHEMA)
    assert len(llm.requests) == 1  # no further turns
    assert not r.success and r.finalReport["status"] == "failure"
    assert r.finalReport["metadata"]["reason"] == "final_report_schema_invalid"
    assert "schema" in r.error
    assert tool_entries(r)[-1]["status"] == "failed" and tool_entries(r)[-1]["command"] == "agent__final_report"


def test_bad_base64_collapses_remaining_turns(llm: ScriptedLLM) -> None:
    llm.add(call("agent__final_report", {"format": "markdown", "encoding": "base64", "report_content": "@@@"}))
    r = run("x", make_settings(llm, max_turns=5))
    assert len(llm.requests) == 1
    assert not r.success and r.finalReport["metadata"]["reason"] == "final_report_invalid"


def test_text_on_final_turn_is_the_report(llm: ScriptedLLM) -> None:
    llm.add(call("bot__look"), text("The answer is 42."))
    r = run("x", make_settings(llm, max_turns=2), tools=[spec("look")])
    assert r.success
    assert r.finalReport["status"] == "success" and r.finalReport["content"] == "The answer is 42."
    assert r.conversation[-1] == {"role": "assistant", "content": "The answer is 42."}


def test_text_fallback_json_format_parses_json(llm: ScriptedLLM) -> None:
    llm.add(text('{"logs": 2, "where": {"x": 0}}'))
    r = run("x", make_settings(llm, max_turns=1), expected_format="json", output_schema=SCHEMA)
    assert r.success and r.finalReport["content_json"]["logs"] == 2


def test_final_report_schema_shape() -> None:
    md = final_report_schema("markdown", None).parameters
    assert md["required"] == ["format", "report_content"]
    js = final_report_schema("json", SCHEMA).parameters
    assert js["properties"]["content_json"] == SCHEMA and js["properties"]["encoding"]["enum"] == ["raw", "base64"]
