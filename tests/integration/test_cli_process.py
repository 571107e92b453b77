"""`mcbot` as a user runs it: exit codes, stdout, and no orphan node processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from bot.runtime.server import free_port
from tests.conftest import ROOT, wait_until

MCBOT = [sys.executable, "-m", "bot"]


def _env():
    env = dict(os.environ)
    env["MCBOT_LOGGING__FILE"] = ""
    return env


def _children_node_pids(proc_pid: int) -> set[int]:
    try:
        return {c.pid for c in psutil.Process(proc_pid).children(recursive=True) if "node" in c.name()}
    except psutil.Error:
        return set()


def test_snapshot_prints_json_and_leaves_no_node_process(embedded_server):
    p = subprocess.Popen(
        [*MCBOT, "snapshot", "--port", str(embedded_server.port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=_env(),
    )
    spawned: set[int] = set()
    while p.poll() is None:  # note every node process it starts while it runs
        spawned |= _children_node_pids(p.pid)
        time.sleep(0.05)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    snap = json.loads(out)
    assert snap["gameMode"] == "survival" and snap["health"] > 0
    assert spawned, "expected mcbot snapshot to start a node process"
    wait_until(
        lambda: (
            not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in spawned)
        ),
        5,
        "node processes started by mcbot snapshot to exit",
    )


@pytest.mark.one_version(reason="a process property of the command line, with no world")
def test_snapshot_against_a_dead_port_exits_3_with_one_line_reason():
    port = free_port()
    r = subprocess.run(
        [*MCBOT, "snapshot", "--port", str(port)], capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=60
    )
    assert r.returncode == 3
    lines = [line for line in r.stderr.splitlines() if line.startswith("mcbot:")]
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "refused" in lines[0].lower()
    assert r.stdout == ""


HOLD_BRIDGE = """
import signal, sys, time
import pytest
from bot.runtime.bridge import Bridge
# A shell that starts a job in the background ignores SIGINT for it, and Python then keeps it
# ignored: give this holder Python's own SIGINT handling whatever started the tests.
signal.signal(signal.SIGINT, signal.default_int_handler)
b = Bridge(); b.start()
print(b.node_pid, flush=True)
try:
    while True: time.sleep(0.1)
finally:
    b.shutdown()
"""


def _bridge_holder():
    p = subprocess.Popen([sys.executable, "-c", HOLD_BRIDGE], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    node_pid = int(p.stdout.readline())
    assert psutil.pid_exists(node_pid)
    return p, node_pid


def _gone(pid):
    if not psutil.pid_exists(pid):
        return True
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.one_version(reason="a process property of the command line, with no world")
def test_node_exits_when_python_is_sigkilled():
    p, node_pid = _bridge_holder()
    p.kill()
    p.wait()
    wait_until(lambda: _gone(node_pid), 10, "node to exit after its Python parent was SIGKILLed")


@pytest.mark.one_version(reason="a process property of the command line, with no world")
def test_node_exits_on_sigterm_and_sigint_of_python():
    for sig in (signal.SIGTERM, signal.SIGINT):
        p, node_pid = _bridge_holder()
        p.send_signal(sig)
        p.wait(timeout=20)
        wait_until(lambda node_pid=node_pid: _gone(node_pid), 10, f"node to exit after {sig.name}")


def test_snapshot_with_a_version_mineflayer_does_not_support_exits_4(embedded_server):
    r = subprocess.run(
        [*MCBOT, "snapshot", "--port", str(embedded_server.port), "--version", "1.5.2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_env(),
        timeout=60,
    )
    assert r.returncode == 4, r.stderr
    assert "1.5.2" in r.stderr and "supported" in r.stderr and r.stdout == ""


@pytest.mark.one_version(reason="a process property of the command line, with no world")
def test_invalid_config_from_env_exits_4_naming_the_field():
    r = subprocess.run(
        [*MCBOT, "snapshot"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**_env(), "MCBOT_SERVER__PORT": "99999"},
        timeout=60,
    )
    assert r.returncode == 4
    assert "server.port" in r.stderr
