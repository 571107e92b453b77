"""`mcbot agents list|select` through a parser built like bot/cli/main.py's."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bot.cli.agents import add_agents_commands, cmd_agents


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="mcbot")
    add_agents_commands(p.add_subparsers(dest="command", required=True))
    return p.parse_args(argv)


def test_agents_select_json_in_contract_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert cmd_agents(parse(["agents", "select", "craft wooden_pickaxe 1", "--json"])) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0] == {"agentId": "crafter", "confidence": 0.9}
    assert [(-r["confidence"], r["agentId"]) for r in out] == sorted((-r["confidence"], r["agentId"]) for r in out)
    assert cmd_agents(parse(["agents", "select", "juggle", "--json"])) == 0
    assert json.loads(capsys.readouterr().out) == [{"agentId": "standard", "confidence": 0.5}]


def test_agents_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert cmd_agents(parse(["agents", "list", "--json"])) == 0
    ids = [r["agentId"] for r in json.loads(capsys.readouterr().out)]
    assert ids == sorted(ids) and {"standard", "crafter", "gatherer", "builder"} <= set(ids)
    assert cmd_agents(parse(["agents", "list"])) == 0
    assert "crafter" in capsys.readouterr().out


def test_invalid_profiles_exit_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "abilities").mkdir()
    (tmp_path / "agents" / "bad.toml").write_text('id = "Bad Id"\n')
    assert cmd_agents(parse(["agents", "--config-dir", str(tmp_path), "list"])) == 4
    assert "bad.toml" in capsys.readouterr().err
