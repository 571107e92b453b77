"""`mcbot doctor` as a user runs it: against the real embedded world at each version (the bot
can live there: exit 0), a refused command, a dead port, and servers whose version mineflayer
does not speak (a real list ping answered by tests/status_server.py: exit 3 naming the fix).
Real parts only: the CLI process, node, Mineflayer and flying-squid."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bot.runtime.server import free_port
from tests.conftest import ROOT
from tests.status_server import PAPER_NEWER, PAPER_OLDER, status_server

MCBOT = [sys.executable, "-m", "bot"]
CHECKS = ("server", "version", "movement", "login", "blocks", "chat", "commands")


def _doctor(*args: str, username: str = "doctor_bot") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MCBOT_LOGGING__FILE": "", "MCBOT_BOT__USERNAME": username}
    return subprocess.run([*MCBOT, "doctor", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def _rows(stdout: str) -> dict[str, list[tuple[str, str]]]:
    """check -> [(result, rest of the line)] from the one table."""
    rows: dict[str, list[tuple[str, str]]] = {}
    for line in stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0] in CHECKS:
            rows.setdefault(parts[0], []).append((parts[1], parts[2] if len(parts) > 2 else ""))
    return rows


def test_doctor_on_the_embedded_world_finds_a_livable_server(embedded_server, mc_version):
    r = _doctor(
        "--port", str(embedded_server.port), "--command", "/mcbot info", username=f"doc_{mc_version.replace('.', '')}"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    rows = _rows(r.stdout)
    assert set(rows) == set(CHECKS), r.stdout  # one table, every check in it
    assert r.stdout.count("CHECK") == 1
    results = {check: {res for res, _ in found} for check, found in rows.items()}
    assert results == {c: {"ok"} for c in CHECKS}, r.stdout  # 1.21.9+: a row per movement issue the bot works around
    if mc_version == "1.21.11":
        assert {line.split(": ")[1].split(" ")[0] for _, line in rows["movement"]} == {
            "step-up",
            "swimming",
            "knockback",
        }
    assert f"speaks {mc_version}" in rows["version"][0][1]
    assert "spawned" in rows["login"][0][1]
    assert "729 loaded" in rows["blocks"][0][1]
    assert "saw it come back" in rows["chat"][0][1]
    assert 'answered "mcbot:' in rows["commands"][0][1]
    assert "verdict: the bot can live here" in r.stdout


def test_doctor_fails_a_command_the_bot_may_not_run(embedded_server, mc_version):
    r = _doctor(
        "--port",
        str(embedded_server.port),
        "--command",
        "/no_such_command",
        username=f"docx_{mc_version.replace('.', '')}",
    )
    assert r.returncode == 3, r.stdout + r.stderr
    rows = _rows(r.stdout)
    assert rows["commands"][0][0] == "FAIL"
    assert "Command not found" in rows["commands"][0][1] and "/op docx_" in rows["commands"][0][1]
    assert rows["login"][0][0] == "ok" and rows["chat"][0][0] == "ok"  # the rest of the bot is fine


@pytest.mark.one_version(reason="a dead port has no protocol")
def test_doctor_on_a_dead_port_is_a_clear_exit_3():
    port = free_port()
    r = _doctor("--port", str(port))
    assert r.returncode == 3, r.stdout + r.stderr
    rows = _rows(r.stdout)
    assert rows["server"][0][0] == "FAIL"
    assert f"127.0.0.1:{port}" in rows["server"][0][1] and "start the server" in rows["server"][0][1]
    assert all(res == "skip" for check, found in rows.items() if check != "server" for res, _ in found)
    assert "cannot live here" in r.stdout


def test_doctor_on_a_newer_server_than_mineflayer_names_the_range_and_viaversion():
    with status_server(PAPER_NEWER) as port:
        r = _doctor("--port", str(port))
    assert r.returncode == 3, r.stdout + r.stderr
    rows = _rows(r.stdout)
    assert rows["server"][0][0] == "ok"
    result, text = rows["version"][0]
    assert result == "FAIL"
    for part in (
        "Paper 26.9",
        "protocol 9999",
        "newer than mineflayer",
        "1.8.8 - 26.1",
        "ViaVersion",
        "ViaBackwards",
        'server.version = "26.1"',
    ):
        assert part in text, (part, text)
    assert rows["login"][0][0] == "skip"


def test_doctor_on_an_older_server_than_mineflayer_fails_the_version():
    with status_server(PAPER_OLDER) as port:
        r = _doctor("--port", str(port))
    assert r.returncode == 3
    result, text = _rows(r.stdout)["version"][0]
    assert result == "FAIL" and "older than" in text and "1.8.8" in text


def test_snapshot_on_a_newer_server_exits_3_with_the_complete_message():
    # The same verdict on the daemon's path (MineflayerBody.resolve_version), before any login.
    with status_server(PAPER_NEWER) as port:
        r = subprocess.run(
            [*MCBOT, "snapshot", "--port", str(port)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "MCBOT_LOGGING__FILE": ""},
            timeout=60,
        )
    assert r.returncode == 3, r.stderr
    assert r.stdout == ""
    for part in ("Paper 26.9", "1.8.8 - 26.1", "ViaVersion and ViaBackwards", "Fix:"):
        assert part in r.stderr, (part, r.stderr)
