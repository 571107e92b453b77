"""docs/contracts.md LLM-15: XML transport modes, nonce, slots across turns, NONCE-FINAL, substring
detection, unclosed final tag by stopReason, System Notice messages, source: xml."""

from __future__ import annotations

import pytest

from agency.llm.testing import Received, ScriptedLLM, call, text
from agency.llm.xml_transport import XmlTransport
from tests.unit.llm.conftest import llm_entries, make_settings, run, spec, tool_entries


def tag(slot: str, tool: str, payload: str = "{}", close: bool = True) -> str:
    end = f"</ai-agent-{{NONCE}}-{slot}>" if close else ""
    return f'<ai-agent-{{NONCE}}-{slot} tool="{tool}">{payload}{end}'


def final_tag(body: str, fmt: str = "markdown", close: bool = True) -> str:
    end = "</ai-agent-{NONCE}-FINAL>" if close else ""
    return f'Sure.\n<ai-agent-{{NONCE}}-FINAL tool="agent__final_report" format="{fmt}">{body}{end}'


def test_xml_mode_full_session(llm: ScriptedLLM) -> None:
    look = spec("look", output="3 oak logs")
    llm.add(
        text("Checking. " + tag("0001", "bot__look", '{"r": 1}')),
        text(tag("0002", "bot__look")),
        text(final_tag("You have 3 oak logs.")),
    )
    r = run("logs?", make_settings(llm, tool_transport="xml"), tools=[look], nonce="abcd1234")
    assert r.success and r.finalReport["content"] == "You have 3 oak logs."
    assert look.seen == [{"r": 1}, {}]
    first, second, third = llm.requests
    assert "tools" not in first.body  # xml mode withholds native tool definitions
    assert first.body["messages"][-1]["role"] == "user" and "Session nonce: abcd1234" in first.text
    assert all(q.nonce == "abcd1234" for q in llm.requests)  # fixed across turns
    notices = [m["content"] for m in second.messages if m["content"].startswith("System Notice")]
    assert notices[0].startswith("System Notice: tool response for abcd1234-0001 (bot__look)")
    assert "3 oak logs" in notices[0]
    assert "from abcd1234-0002 upward" in second.messages[-1]["content"]  # slots continue across turns
    assert "from abcd1234-0003 upward" in third.messages[-1]["content"]
    assert [(e["command"], e["source"]) for e in tool_entries(r)] == [
        ("bot__look", "xml"),
        ("bot__look", "xml"),
        ("agent__final_report_xml", "xml"),
    ]
    # XML-NEXT is ephemeral: never stored in the conversation
    assert not any("Session nonce" in m["content"] for m in r.conversation)


def test_system_prompt_has_no_tool_text_in_xml_modes(llm: ScriptedLLM) -> None:
    llm.add(text(final_tag("ok")))
    r = run("x", make_settings(llm, tool_transport="xml"), tools=[spec("look")], system_prompt="SYS")
    assert r.conversation[0]["content"] == "SYS"


def test_used_slot_and_foreign_nonce_are_ignored(llm: ScriptedLLM) -> None:
    look = spec("look")
    llm.add(
        text(tag("0001", "bot__look")),
        text(tag("0001", "bot__look") + '<ai-agent-ffffffff-0002 tool="bot__look">{}</ai-agent-ffffffff-0002>'),
        text(final_tag("ok")),
    )
    r = run("x", make_settings(llm, tool_transport="xml"), tools=[look])
    assert len(look.seen) == 1  # reused slot and mismatched nonce never ran
    assert r.success and len(llm_entries(r)) == 3


def test_xml_final_keeps_native_tools_but_final_report_is_xml(llm: ScriptedLLM) -> None:
    def check(req: Received) -> None:
        assert req.tool_names == ["bot__look"]
        assert req.body["tool_choice"] == "auto"

    llm.add(call("bot__look", expect=check), text(final_tag("done")))
    r = run("x", make_settings(llm, tool_transport="xml-final"), tools=[spec("look")])
    assert r.success and r.finalReport["content"] == "done"
    assert [e["source"] for e in tool_entries(r)] == ["native", "xml"]
    assert "FINAL" in llm.requests[0].messages[-1]["content"]  # XML-NEXT advertises the final slot


@pytest.mark.parametrize(
    "stop,accepted",
    [("stop", True), ("end_turn", True), ("eos", True), ("length", False), ("max_tokens", False), ("mystery", True)],
)
def test_unclosed_final_tag_by_stop_reason(llm: ScriptedLLM, stop: str, accepted: bool) -> None:
    llm.add(text(final_tag("partial answer", close=False), stop_reason=stop), text(final_tag("full answer")))
    r = run("x", make_settings(llm, tool_transport="xml"))
    assert r.success
    assert r.finalReport["content"] == ("partial answer" if accepted else "full answer")
    assert len(llm.requests) == (1 if accepted else 2)


def test_unclosed_tool_tag_is_never_executed(llm: ScriptedLLM) -> None:
    look = spec("look")
    llm.add(text(tag("0001", "bot__look", close=False)), text(final_tag("ok")))
    run("x", make_settings(llm, tool_transport="xml"), tools=[look])
    assert look.seen == []


def test_forced_final_turn_advertises_only_final_slot(llm: ScriptedLLM) -> None:
    llm.add(text(final_tag("ok")))
    run("x", make_settings(llm, tool_transport="xml", max_turns=1), tools=[spec("look")])
    next_msg = next(m["content"] for m in llm.requests[0].messages if "Session nonce" in m["content"])
    assert "bot__look" not in next_msg and "FINAL" in next_msg


def test_json_final_report_via_xml_validates_payload(llm: ScriptedLLM) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    llm.add(text(final_tag('{"n": 4}', fmt="json")))
    r = run("x", make_settings(llm, tool_transport="xml"), expected_format="json", output_schema=schema)
    assert r.finalReport["content_json"] == {"n": 4} and r.finalReport["status"] == "success"


def test_last_final_tag_wins_and_parser_is_substring_based() -> None:
    x = XmlTransport("xml", nonce="00aa11bb")
    content = (
        'noise <ai-agent-00aa11bb-FINAL tool="agent__final_report" format="text">one</ai-agent-00aa11bb-FINAL>'
        ' <ai-agent-00aa11bb-FINAL tool="agent__final_report" format="text">two</ai-agent-00aa11bb-FINAL>'
    )
    assert x.parse(content, "stop", allow_tools=True).final_payload == "two"
    x.commit([])
    assert x.slot(x.next_slot) == "00aa11bb-0001"


def progress_tag(body: str) -> str:
    return f'<ai-agent-{{NONCE}}-PROGRESS tool="agent__progress_report">{body}</ai-agent-{{NONCE}}-PROGRESS>'


def _next_message(req: Received) -> str:
    return next(m["content"] for m in req.messages if "Session nonce" in m["content"])


def test_xml_next_advertises_progress_slot_only_in_xml_mode_with_tools(llm: ScriptedLLM) -> None:
    llm.add(text(final_tag("ok"), times=3))
    run("x", make_settings(llm, tool_transport="xml"), tools=[spec("look")], nonce="abcd1234")
    run("x", make_settings(llm, tool_transport="xml-final"), tools=[spec("look")], nonce="abcd1234")
    run("x", make_settings(llm, tool_transport="xml"), nonce="abcd1234")  # no tools: nothing to report on
    xml, xml_final, no_tools = (_next_message(q) for q in llm.requests)
    assert '<ai-agent-abcd1234-PROGRESS tool="agent__progress_report">' in xml
    assert "PROGRESS" not in xml_final  # xml-final: progress follows the native tools transport
    assert "PROGRESS" not in no_tools


def test_progress_tag_is_reported_without_using_a_slot(llm: ScriptedLLM) -> None:
    look = spec("look")
    seen: list[str] = []
    llm.add(text(progress_tag("Looking around first.") + tag("0001", "bot__look")), text(final_tag("done")))
    r = run("x", make_settings(llm, tool_transport="xml"), tools=[look], nonce="abcd1234", on_progress=seen.append)
    assert r.success and look.seen == [{}]
    assert seen == ["Looking around first."]
    assert [(e["command"], e["source"], e["status"]) for e in tool_entries(r)] == [
        ("agent__progress_report", "xml", "ok"),
        ("bot__look", "xml", "ok"),
        ("agent__final_report_xml", "xml", "ok"),
    ]
    assert "from abcd1234-0002 upward" in _next_message(llm.requests[1])  # PROGRESS took no numbered slot
    # The progress report gets no tool-response message (only the numbered slot does).
    notices = [m["content"] for m in r.conversation if m["content"].startswith("System Notice")]
    assert len(notices) == 1 and "(bot__look)" in notices[0]


def test_progress_alone_is_not_a_step_and_is_retried(llm: ScriptedLLM) -> None:
    seen: list[str] = []
    llm.add(text(progress_tag("Thinking.")), text(tag("0001", "bot__look")), text(final_tag("ok")))
    r = run("x", make_settings(llm, tool_transport="xml"), tools=[spec("look")], on_progress=seen.append)
    assert r.success and seen == []  # a standalone progress report is not used
    assert "progress report alone" in llm.requests[1].messages[-1]["content"]  # the retry notice
    assert len(llm_entries(r)) == 3


def test_progress_tag_is_ignored_in_xml_final_and_on_forced_final_turns(llm: ScriptedLLM) -> None:
    seen: list[str] = []
    llm.add(text(progress_tag("Wrapping up.") + final_tag("ok")))
    r = run("x", make_settings(llm, tool_transport="xml", max_turns=1), tools=[spec("look")], on_progress=seen.append)
    assert r.success and seen == []  # final turn: no new tools, progress included
    assert "PROGRESS" not in _next_message(llm.requests[0])
    llm.add(call("bot__look"), text(progress_tag("Done looking.") + final_tag("ok")))
    r = run("x", make_settings(llm, tool_transport="xml-final"), tools=[spec("look")], on_progress=seen.append)
    assert r.success and seen == []
    assert "agent__progress_report" not in [e["command"] for e in tool_entries(r)]


def test_progress_parse_is_substring_based_and_last_wins() -> None:
    x = XmlTransport("xml", nonce="00aa11bb")
    content = (
        '<ai-agent-00aa11bb-PROGRESS tool="agent__progress_report">one</ai-agent-00aa11bb-PROGRESS>'
        '<ai-agent-00aa11bb-PROGRESS tool="agent__progress_report"> two </ai-agent-00aa11bb-PROGRESS>'
        '<ai-agent-ffffffff-PROGRESS tool="agent__progress_report">foreign</ai-agent-ffffffff-PROGRESS>'
    )
    parsed = x.parse(content, "stop", allow_tools=True)
    assert parsed.progress == "two" and parsed.calls == [] and not parsed.has_final
    assert x.parse(content, "stop", allow_tools=False).progress is None
    assert XmlTransport("xml-final", nonce="00aa11bb").parse(content, "stop", allow_tools=True).progress is None
