"""The command line as a newcomer meets it: the global options (--config, --log-level) work
before and after the command's name with the same checks, and a client command prints its
answer with no library log lines (httpx logs every request at INFO)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli.main import EXIT_INVALID, build_parser
from tests.unit.mcp.fake_daemon import FakeDaemon, Served

REPO = Path(__file__).resolve().parents[3]


def _mcbot(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _parsers(
    p: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, (*path, name))


def test_every_command_takes_the_global_options():
    found = list(_parsers(build_parser()))
    assert len(found) > 20 and ("bench", "reflexes") in dict(found) and ("agents", "list") in dict(found)
    for path, parser in found:
        assert {"--config", "--log-level"} <= set(parser._option_string_actions), path


# (argv, the config path and log level parsed)
PLACES = [
    (["--config", "a.toml", "--log-level", "debug", "run"], "a.toml", "DEBUG"),
    (["run", "--config", "b.toml", "--log-level", "warning"], "b.toml", "WARNING"),
    (["--config", "a.toml", "run", "--log-level", "error"], "a.toml", "ERROR"),  # one before, one after
    (["--config", "a.toml", "run", "--config", "b.toml"], "b.toml", None),  # the later one wins
    (["config", "show", "--log-level", "trace"], None, "TRACE"),
    (["bench", "reflexes", "--config", "c.toml", "--rounds", "2"], "c.toml", None),
    (["agents", "--config-dir", "d", "list", "--config", "c.toml"], "c.toml", None),
    (["run"], None, None),
]


@pytest.mark.parametrize("argv,config,level", PLACES, ids=[" ".join(a) for a, _, _ in PLACES])
def test_a_global_option_is_read_before_and_after_the_command(argv, config, level):
    args = build_parser().parse_args(argv)
    assert (args.config, args.log_level) == (config, level)


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--log-level", "LOUD"],
        ["--log-level", "LOUD", "run"],
        ["bench", "reflexes", "--log-level", "LOUD"],
        ["task", "pause", "t-1", "--log-level", "LOUD"],
    ],
)
def test_an_invalid_log_level_after_the_command_is_an_argument_error(argv, tmp_path):
    out = _mcbot(argv, tmp_path)
    assert out.returncode == EXIT_INVALID
    assert out.stderr.strip().splitlines() == [
        "mcbot: error: argument --log-level: 'LOUD' is not a log level; accepted: TRACE, DEBUG, INFO, SUCCESS, "
        "WARNING, ERROR, CRITICAL"
    ]


def test_a_config_given_after_the_command_is_loaded(tmp_path):
    (tmp_path / "mine.toml").write_text("[api]\nport = 3999\n")
    out = _mcbot(["config", "show", "--config", "mine.toml"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert any(
        line.startswith("api.port = 3999") and str(tmp_path / "mine.toml") in line for line in out.stdout.splitlines()
    ), out.stdout
    missing = _mcbot(["run", "--config", "/nonexistent/mcbot.toml"], tmp_path)
    assert missing.returncode == EXIT_INVALID
    assert missing.stderr.strip().splitlines() == ["mcbot: --config /nonexistent/mcbot.toml: file not found"]


@pytest.fixture(scope="module")
def daemon() -> Iterator[str]:
    with Served(FakeDaemon()) as s:
        yield s.base


def test_client_commands_print_their_answer_and_no_library_log_lines(daemon, tmp_path):
    goal = _mcbot(["goal", "collect", "oak_log", "8", "--api", daemon], tmp_path)
    assert (goal.returncode, goal.stdout, goal.stderr) == (
        0,
        "created task-1: collect oak_log 8 (collect:oak_log), pending\n",
        "",
    )
    tasks = _mcbot(["tasks", "--api", daemon], tmp_path)
    assert tasks.returncode == 0 and tasks.stderr == "" and "task-1  pending" in tasks.stdout
    pause = _mcbot(["task", "pause", "task-1", "--api", daemon], tmp_path)
    assert (pause.returncode, pause.stdout, pause.stderr) == (0, "task-1: pause -> paused\n", "")
    # Refused: the reason, on stderr, alone.
    refused = _mcbot(["goal", "collect", "oak_log", "8", "--api", daemon], tmp_path)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("mcbot: refused: duplicate: a live task has goal collect:oak_log")
    assert len(refused.stderr.splitlines()) == 1, refused.stderr


def test_debug_brings_the_library_lines_back(daemon, tmp_path):
    out = _mcbot(["tasks", "--api", daemon, "--log-level", "DEBUG"], tmp_path)
    assert out.returncode == 0
    assert f'httpx: HTTP Request: GET {daemon}/api/tasks?limit=30&order=desc "HTTP/1.1 200 OK"' in out.stderr
