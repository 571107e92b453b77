"""A bridge that stops answering is a dead bridge: a real node, stopped with SIGSTOP (a loop
that never yields looks the same from outside: no beats, no answers), is declared wedged,
killed and rebuilt with the bot back; a daemon says `wedged` on /healthz meanwhile, comes
back healthy, and stops within its budget when told to during a wedge.

Times are the watchdog's own figures, from node's heartbeat timestamps (when the first beat
did not come) to when it saw the wedge and when the new node answered."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil
import pytest

from agency.world import BodyLost
from bot.runtime.server import free_port
from bot.tooling.daemon_run import bridge_node
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, wait_until

pytestmark = pytest.mark.one_version(reason="the bridge's watchdog and the daemon's stop do not depend on the protocol")

REBUILT_WITHIN_S = 15.0  # from the first missed heartbeat to the new node answering
STOP_BUDGET_S = 10.0


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_only_the_bridges_node_runs_with_the_heap_limit_and_the_heartbeat(bridge, embedded_server):
    node = psutil.Process(bridge.node_pid)
    assert f"--max-old-space-size={bridge.heap_mb}" in node.cmdline()
    assert node.environ().get("MCBOT_BRIDGE_HEARTBEAT_FILE") == str(bridge.node_watch.heartbeat.path)
    wait_until(lambda: bridge.node_watch.last_beat is not None, 5, "a heartbeat")
    assert bridge.heap_mb <= bridge.node_watch.last_beat.heap_limit_mb < bridge.heap_mb + 256  # old space + young
    server = psutil.Process(embedded_server.proc.pid)  # a child of ours too: nothing leaked to it
    assert not any(a.startswith("--max-old-space-size") for a in server.cmdline())
    assert not {"MCBOT_BRIDGE_HEARTBEAT_FILE", "NODE_OPTIONS"} & set(server.environ())
    assert "MCBOT_BRIDGE_HEARTBEAT_FILE" not in os.environ


def test_a_stopped_node_is_declared_wedged_killed_and_rebuilt_with_the_bot_back(bridge, live_body):
    old_pid, old_gen, old_bot = bridge.node_pid, bridge.generation, live_body.bot_id
    bridge.node_watch.action_sources.append(live_body.actions_running)
    try:
        p = live_body.snapshot().position
        walk = live_body.start_action("move_to", {"x": p.x + 200, "y": p.y, "z": p.z, "range": 1}, timeout_ms=120_000)
        wait_until(lambda: bridge.node_watch.last_beat is not None, 5, "a heartbeat")
        os.kill(old_pid, signal.SIGSTOP)
        lost: list[BaseException] = []

        def read() -> None:  # a call in flight when node stopped: it must not wait out its timeout
            try:
                live_body.snapshot()
            except BaseException as e:  # noqa: BLE001 - handed to the test
                lost.append(e)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        wait_until(lambda: not bridge.alive, 30, "the bridge to be declared wedged")
        assert bridge.state == "wedged" and bridge.dead_reason.startswith("wedged: no heartbeat for")
        reader.join(timeout=5)
        assert not reader.is_alive() and lost and isinstance(lost[0], BodyLost), lost
        wait_until(lambda: not _alive(old_pid), 5, "the wedged node to be gone (SIGKILL)")
        assert bridge.state == "wedged"  # until the rebuilt one is up

        wait_until(live_body.maintain, 60, "bridge rebuild and the bot back")
        assert bridge.state == "up" and bridge.dead_reason is None
        assert bridge.generation == old_gen + 1 and bridge.node_pid != old_pid
        assert live_body.bot_id is not None and (live_body.bot_id, bridge.node_pid) != (old_bot, old_pid)
        assert live_body.snapshot().health > 0

        w = bridge.node_watch.wedges[-1]
        assert (w.kind, w.node_pid, w.generation, w.new_pid, w.new_generation) == (
            "silent",
            old_pid,
            old_gen,
            bridge.node_pid,
            old_gen + 1,
        )
        assert w.in_flight is not None and w.in_flight.startswith("snapshot for "), w.in_flight
        assert any(a.startswith(f"move_to #{walk.id} of ") for a in w.actions), w.actions
        # In order: the last beat, the first one missed, the wedge seen, node killed, the new one up.
        assert w.last_beat_ts < w.onset_ts <= w.detected_ts <= w.killed_ts <= w.rebuilt_ts
        missed_s = bridge.node_watch.limits.missed_heartbeat_s
        assert missed_s - 0.6 <= w.detect_s <= missed_s + 2.0, w  # silent for missed_s, seen on a watchdog tick
        assert w.rebuild_s <= REBUILT_WITHIN_S, w
        events = [what for _, what, _ in bridge.node_watch.history]
        assert events[-5:] == ["up", "wedged", "killed", "rebuild", "up"], events
        print(
            f"\nwedge figures: detected {w.detect_s:.2f} s and rebuilt {w.rebuild_s:.2f} s "
            f"after the first missed heartbeat ({w.reason})"
        )
    finally:
        bridge.node_watch.action_sources.remove(live_body.actions_running)
        if _alive(old_pid):
            os.kill(old_pid, signal.SIGCONT)


# ---- the daemon ----------------------------------------------------------------------------
def _daemon(tmp_path: Path, api_port: int, mc_version: str) -> tuple[subprocess.Popen, Path]:
    env = {
        **os.environ,
        "MCBOT_SERVER__EMBEDDED_VERSION": mc_version,
        "MCBOT_SERVER__PORT": str(free_port()),
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_VIEWER__PORT": str(free_port()),
        "MCBOT_STORAGE__DB_PATH": str(tmp_path / "daemon.db"),
        "MCBOT_LOGGING__FILE": "",
        "MCBOT_DRIVE_TICK__ENABLED": "false",
        "MCBOT_SERVER__HOSTILES": "false",
        "MCBOT_SERVER__WORLD_FOLDER": "",  # in memory, unless a test keeps one
        "MCBOT_BOT__RECONNECT_MIN_S": "1",
        "MCBOT_BOT__RECONNECT_MAX_S": "2",
    }
    log = tmp_path / "daemon.log"
    with log.open("w") as out:  # the child keeps its copy
        p = subprocess.Popen(
            [sys.executable, "-m", "bot", "run"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    return p, log


def _health(base: str) -> tuple[int, dict] | None:
    try:
        r = loopback().get(f"{base}/healthz", timeout=2)
        return r.status_code, r.json()
    except (httpx.HTTPError, ValueError):
        return None


def _bridge_pid(daemon_pid: int) -> int | None:
    node = bridge_node(daemon_pid)
    return node.pid if node is not None else None


def test_a_daemon_whose_bridge_is_stopped_says_wedged_comes_back_and_stops_in_budget(tmp_path, mc_version):
    api = free_port()
    base = f"http://127.0.0.1:{api}"
    p, log = _daemon(tmp_path, api, mc_version)
    stopped: list[int] = []
    try:

        def healthy() -> bool:
            assert p.poll() is None, log.read_text()
            h = _health(base)
            return bool(h and h[0] == 200 and h[1]["ok"])

        wait_until(healthy, 120, "the daemon's /healthz to report ok")
        h = _health(base)[1]
        assert h["bridge"] == "up" and h["bridgeAlive"] is True and h["bridgeGeneration"] == 1
        first = _bridge_pid(p.pid)
        assert first is not None
        os.kill(first, signal.SIGSTOP)
        stopped.append(first)

        seen: list[dict] = []

        def wedged() -> bool:
            h = _health(base)
            if h and h[1].get("bridge") == "wedged":
                assert h[0] == 503 and h[1]["bridgeAlive"] is False and not h[1]["ok"], h
                assert "bridge" in h[1]["down"] and h[1]["bridgeReason"].startswith("wedged: no heartbeat"), h
                seen.append(h[1])
            return bool(seen)

        wait_until(wedged, 30, "/healthz to say the bridge is wedged", poll_s=0.2)
        wait_until(healthy, 60, "the daemon healthy again on a rebuilt bridge")
        h = _health(base)[1]
        assert h["bridge"] == "up" and h["bridgeGeneration"] == 2 and h["bridgeReason"] is None
        second = _bridge_pid(p.pid)
        assert second is not None and second != first and not _alive(first)
        text = log.read_text()
        assert "bridge wedged: no heartbeat for" in text and "in flight on the bridge thread" in text
        assert f"killing node pid {first}" in text

        # A stop during a wedge (the beats stopped a moment ago, not yet judged) is in budget.
        os.kill(second, signal.SIGSTOP)
        stopped.append(second)
        time.sleep(0.5)
        asked = time.monotonic()
        p.send_signal(signal.SIGTERM)
        code = p.wait(timeout=30)
        took = time.monotonic() - asked
        print(f"\nSIGTERM during a wedge: the daemon exited {code} after {took:.1f} s")
        text = log.read_text()
        assert "forcing" not in text, text[-3000:]
        assert code == 0 and took <= STOP_BUDGET_S, (code, took)
        wait_until(lambda: not _alive(second), 5, "the stopped bridge node to be gone")
    finally:
        for pid in stopped:
            if _alive(pid):
                os.kill(pid, signal.SIGCONT)
        if p.poll() is None:
            p.kill()
            p.wait()
