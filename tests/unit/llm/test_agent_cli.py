"""`mcbot agent run` (docs/contracts.md EXIT-1): JSON result with the AgentResult's field names,
0 / 1 / 3 / 4 / 5, never 0 when success is false."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agency.llm.testing import ScriptedLLM, demo_step, fail, final
from bot.cli.agent import add_agent_commands, cmd_agent
from bot.config.loader import McbotConfig
from tests.unit.llm.test_tool_sources import MCP_SERVER


def _cli(llm: ScriptedLLM | None, argv: list[str], **llm_cfg: Any) -> int:
    p = argparse.ArgumentParser()
    add_agent_commands(p.add_subparsers(dest="command"))
    args = p.parse_args(["agent", "run", *argv])
    if llm is not None:
        llm_cfg.setdefault("targets", [{"provider": "openai", "model": "m", "base_url": llm.url()}])
    cfg = McbotConfig.model_validate({"llm": llm_cfg})
    return cmd_agent(args, cfg, None)


def test_no_bot_run_prints_result_json_and_exits_zero(llm: ScriptedLLM, capsys) -> None:
    llm.default = demo_step
    code = _cli(llm, ["--prompt", "how many logs do you have?", "--no-bot"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(out) == {"success", "finalReport", "conversation", "accounting", "error"}
    assert out["success"] is True and out["finalReport"]["status"] == "success"
    assert "no tools" in out["finalReport"]["content"]


def test_ollama_target_works_through_config_only(llm: ScriptedLLM, capsys) -> None:
    llm.default = demo_step
    code = _cli(
        llm,
        ["--prompt", "hi", "--no-bot"],
        targets=[{"provider": "ollama", "model": "qwen3:8b", "base_url": llm.url("ollama")}],
    )
    assert code == 0 and llm.requests[0].api == "ollama"
    assert json.loads(capsys.readouterr().out)["accounting"][0]["provider"] == "ollama"


def test_failed_session_exits_one(llm: ScriptedLLM, capsys) -> None:
    llm.add(fail(401))
    assert _cli(llm, ["--prompt", "x", "--no-bot"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["success"] is False and out["error"]


def test_unconfigured_llm_exits_four() -> None:
    assert _cli(None, ["--prompt", "x", "--no-bot"]) == 4


def test_bad_queue_binding_exits_four(llm: ScriptedLLM) -> None:
    assert _cli(llm, ["--prompt", "x", "--no-bot"], bot_queue="missing") == 4


def test_unreadable_schema_exits_four(llm: ScriptedLLM, tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text("{nope")
    assert _cli(llm, ["--prompt", "x", "--no-bot", "--schema", str(tmp_path / "s.json")]) == 4


def test_invalid_json_schema_exits_five(llm: ScriptedLLM, tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text('{"type": "banana"}')
    assert _cli(llm, ["--prompt", "x", "--no-bot", "--schema", str(tmp_path / "s.json")]) == 5


def test_report_failing_schema_exits_five(llm: ScriptedLLM, tmp_path: Path, capsys) -> None:
    (tmp_path / "s.json").write_text('{"type": "object", "required": ["logs"]}')
    llm.add(final({"wood": 1}, fmt="json"))
    assert _cli(llm, ["--prompt", "x", "--no-bot", "--schema", str(tmp_path / "s.json")]) == 5
    assert json.loads(capsys.readouterr().out)["finalReport"]["status"] == "failure"


def test_json_format_with_schema_succeeds(llm: ScriptedLLM, tmp_path: Path, capsys) -> None:
    (tmp_path / "s.json").write_text('{"type": "object", "required": ["logs"]}')
    llm.add(final({"logs": 5}, fmt="json"))
    assert _cli(llm, ["--prompt", "x", "--no-bot", "--schema", str(tmp_path / "s.json")]) == 0
    assert json.loads(capsys.readouterr().out)["finalReport"]["content_json"] == {"logs": 5}


def test_mcp_server_failing_to_start_exits_three(llm: ScriptedLLM) -> None:
    servers = {"bad": {"command": "/nonexistent/mcp"}}
    assert _cli(llm, ["--prompt", "x", "--no-bot"], mcp_servers=servers) == 3
    assert llm.requests == []


@pytest.mark.timeout(60)
def test_mcp_server_tools_reach_the_model_from_config(llm: ScriptedLLM, tmp_path: Path, capsys) -> None:
    (tmp_path / "srv.py").write_text(MCP_SERVER)
    llm.add(final("ok", expect=lambda q: None))
    servers = {"calc": {"command": sys.executable, "args": [str(tmp_path / "srv.py")]}}
    assert _cli(llm, ["--prompt", "x", "--no-bot"], mcp_servers=servers) == 0
    assert llm.requests[0].tool_names == ["calc__add", "agent__final_report"]
