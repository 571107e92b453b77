import subprocess
import sys

from bot.cli import EXIT_INVALID, build_parser, main


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
