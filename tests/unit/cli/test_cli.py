import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import EXIT_INVALID, build_parser, main
from bot.runtime.server import free_port

REPO = Path(__file__).resolve().parents[3]


def test_unknown_command_exits_4(capsys):
    try:
        main(["fly"])
    except SystemExit as e:
        assert e.code == EXIT_INVALID
    else:
        raise AssertionError("expected exit 4")
    assert "invalid choice" in capsys.readouterr().err


def test_record_requires_minutes_and_out():
    try:
        build_parser().parse_args(["record"])
    except SystemExit as e:
        assert e.code == EXIT_INVALID
    else:
        raise AssertionError("expected exit 4")


def test_python_dash_m_bot_shows_help():
    out = subprocess.run([sys.executable, "-m", "bot", "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    for cmd in ("run", "server", "snapshot", "record", "config", "bench"):
        assert cmd in out.stdout


def _exit_code(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err.strip().splitlines()


# (argv, the flag the error must name, a fragment of the accepted values)
BAD_VALUES = [
    (["--log-level", "LOUD", "config", "show"], "--log-level", "TRACE, DEBUG, INFO"),
    (["run", "--port", "http"], "--port", "1..65535"),
    (["run", "--port", "0"], "--port", "1..65535"),
    (["server", "--port", "70000"], "--port", "1..65535"),
    (["server", "--version", "1.99"], "--version", "26.1, 1.21.11, 1.21.4, 1.18.2"),
    (["snapshot", "--port", "-1"], "--port", "1..65535"),
    (["snapshot", "--version", "latest"], "--version", "auto or a version"),
    (["record", "--minutes", "0", "--out", "x.jsonl"], "--minutes", "a number > 0"),
    (["record", "--minutes", "nan", "--out", "x.jsonl"], "--minutes", "a number > 0"),
    (["record", "--minutes", "soon", "--out", "x.jsonl"], "--minutes", "a number > 0"),
    (["record", "--minutes", "1", "--out", "x.jsonl", "--port", "x"], "--port", "1..65535"),
    (["doctor", "--port", "99999"], "--port", "1..65535"),
    (["doctor", "--version", "new"], "--version", "auto or a version"),
    (["bench", "bridge", "--rounds", "0"], "--rounds", "an integer >= 1"),
    (["bench", "bridge", "--versions", "1.21.4,1.7"], "--versions", "26.1, 1.21.11, 1.21.4, 1.18.2"),
    (["bench", "verifier", "--rounds", "many"], "--rounds", "an integer >= 1"),
    (["agent", "run", "--prompt", "x", "--port", "0"], "--port", "1..65535"),
    (["agent", "run", "--prompt", "x", "--format", "yaml"], "--format", "'json', 'markdown', 'text'"),
    (["eval", "--suite", "s.jsonl", "--profile", "loud"], "--profile", "'minimal', 'balanced', 'rich'"),
    (["eval", "--suite", "s.jsonl", "--mode", "fast"], "--mode", "'thought_only', 'end_to_end'"),
    (["eval", "--suite", "s.jsonl", "--seed", "1.5"], "--seed", "an integer"),
    (["eval", "--suite", "s.jsonl", "--concurrency", "0"], "--concurrency", "an integer >= 1"),
    (["eval", "--suite", "s.jsonl", "--run-id", "../escape"], "--run-id", "without '/'"),
    (["goal", "collect", "oak_log", "--priority", "2"], "--priority", "a number 0..1"),
    (["goal", "collect", "oak_log", "--api", "localhost:3003"], "--api", "http://HOST:PORT"),
    (["tasks", "--limit", "0"], "--limit", "an integer >= 1"),
    (["task", "stop", "task-1"], "{pause,resume,cancel,follow}", "'pause', 'resume', 'cancel', 'follow'"),
]


@pytest.mark.parametrize("argv,flag,accepted", BAD_VALUES, ids=[" ".join(a) for a, _, _ in BAD_VALUES])
def test_bad_flag_value_exits_4_with_one_line(argv, flag, accepted, capsys):
    code, err = _exit_code(argv, capsys)
    assert code == EXIT_INVALID
    assert len(err) == 1, err  # one line, no usage block, no traceback
    assert f"argument {flag}" in err[0] and accepted in err[0], err[0]


def test_log_level_is_case_insensitive():
    assert build_parser().parse_args(["--log-level", "debug", "config", "show"]).log_level == "DEBUG"


def _run_cli(argv, cwd):
    """The real entry point in a child: main() past parsing sets up logging and signals."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_unwritable_record_out_exits_4_before_connecting(tmp_path):
    # --host points at nothing: reaching the connection would exit 3, not 4
    out = _run_cli(["record", "--minutes", "1", "--out", str(tmp_path), "--host", "127.0.0.1", "--port", "1"], tmp_path)
    assert out.returncode == EXIT_INVALID
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and "argument --out" in err[0], err


def test_missing_config_file_exits_4(tmp_path):
    out = _run_cli(["--config", "/nonexistent/mcbot.toml", "config", "show"], tmp_path)
    assert out.returncode == EXIT_INVALID
    assert out.stderr.strip().splitlines() == ["mcbot: --config /nonexistent/mcbot.toml: file not found"]


@pytest.mark.parametrize("argv", [["goal", "collect", "oak_log", "8"], ["tasks"], ["task", "cancel", "task-1"]])
def test_a_client_command_with_no_daemon_answering_exits_3_naming_the_address(argv, tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    out = _run_cli([*argv, "--api", url], tmp_path)
    assert out.returncode == 3, out.stderr
    assert f"no daemon answers at {url}" in out.stderr and "mcbot run" in out.stderr
