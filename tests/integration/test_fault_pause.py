"""Bridge death pauses, never fails: `kill -9` of the bridge's node process while a task
runs holds the task as `disconnected`; the daemon rebuilds the bridge, the bot rejoins, and
the task resumes and completes (a kill from outside is not the task's doing: no down is
recorded on it). Unless its runs wedge the bridge twice (a node that stops answering is
killed by the watchdog) while it has actions running there: then it is a poison task, failed
with the reason and not resumed.
The real daemon, the real bridge, the embedded world."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from bot.runtime.server import free_port
from bot.tooling.daemon_run import bridge_node
from bot.tooling.loopback_http import loopback
from tests.conftest import wait_until
from tests.integration.test_faults import _api, _daemon, _get, _post_goal, _task, _wait_healthy

pytestmark = pytest.mark.one_version(
    reason="a killed or wedged bridge and the task's hold are the daemon's, not the protocol"
)


def _log(tmp_path: Path) -> str:
    return sorted(tmp_path.glob("daemon-*.log"))[-1].read_text()


def test_bridge_node_killed_mid_task_holds_the_task_then_it_resumes_and_completes(
    tmp_path, mc_version, embedded_server
):
    api = free_port()
    p = _daemon(tmp_path, api, mc_version, MCBOT_SERVER__HOST="127.0.0.1", MCBOT_SERVER__PORT=str(embedded_server.port))
    seen: list[str] = []

    def status() -> str | None:
        t = _task(api, "craft:wooden_pickaxe")
        if t is not None:
            seen.append(t["status"])
        return t and t["status"]

    try:
        _wait_healthy(p, api)
        _post_goal(api, "craft wooden_pickaxe 1")
        wait_until(lambda: status() == "active", 60, "the pickaxe task active")
        task_id = _task(api, "craft:wooden_pickaxe")["id"]
        node = bridge_node(p.pid)
        assert node is not None, "no bridge node process among the daemon's children"
        node.send_signal(signal.SIGKILL)  # mid-task: the crafter is gathering logs
        wait_until(
            lambda: f"paused task={task_id} reason=disconnected" in _log(tmp_path), 30, "the task held as disconnected"
        )
        wait_until(lambda: (b := bridge_node(p.pid)) is not None and b.pid != node.pid, 60, "a fresh bridge")
        _wait_healthy(p, api)
        wait_until(lambda: status() in ("active", "completed"), 60, "the task resumed after the bridge came back")
        wait_until(lambda: status() in ("completed", "failed", "cancelled"), 240, "the task to end")
        assert "failed" not in seen, f"the task failed: {_task(api, 'craft:wooden_pickaxe')}"
        log = _log(tmp_path)
        assert f"[Executor] resumed task={task_id} after disconnected" in log
        assert f"failed task={task_id}" not in log
        assert not _task(api, "craft:wooden_pickaxe")["metadata"].get("bridgeDowns"), "an outside kill was counted"
        snap = _get(f"{_api(api)}/api/bot/snapshot")
        assert any(i["name"] == "wooden_pickaxe" for i in snap["inventory"])
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=20)


def _actions_started(api: int) -> int:
    """startAction calls so far (/metrics): one has just returned when the count grows."""
    try:
        text = loopback().get(f"{_api(api)}/metrics", timeout=3).text
    except httpx.HTTPError:
        return 0
    return next(
        (
            int(float(line.split()[-1]))
            for line in text.splitlines()
            if line.startswith('mcbot_bridge_helper_calls_total{fn="startAction"}')
        ),
        0,
    )


def test_a_task_whose_runs_wedge_the_bridge_twice_is_failed_as_poison(tmp_path, mc_version, embedded_server):
    """A wedge counts only when the bot had an action running on node (the watchdog's log line
    names them): node is stopped just after an action starts, until two such wedges."""
    api = free_port()
    p = _daemon(tmp_path, api, mc_version, MCBOT_SERVER__HOST="127.0.0.1", MCBOT_SERVER__PORT=str(embedded_server.port))

    def status() -> str | None:
        t = _task(api, "craft:wooden_pickaxe")
        return t and t["status"]

    def wedges() -> list[str]:
        return [line for line in _log(tmp_path).splitlines() if "bridge wedged:" in line]

    try:
        _wait_healthy(p, api)
        _post_goal(api, "craft wooden_pickaxe 1")
        wait_until(lambda: status() == "active", 60, "the pickaxe task active")
        task_id = _task(api, "craft:wooden_pickaxe")["id"]
        counted = 0
        for n in range(1, 6):  # a wedge that caught the bot between actions is held, not counted: again
            started = _actions_started(api)
            wait_until(
                lambda started=started: _actions_started(api) > started,
                60,
                "an action of the task started",
                poll_s=0.05,
            )
            node = bridge_node(p.pid)
            assert node is not None, "no bridge node process among the daemon's children"
            node.send_signal(signal.SIGSTOP)  # it stops answering: the watchdog kills it as wedged
            wait_until(lambda n=n: len(wedges()) == n, 30, "the watchdog killing node")
            counted += "actions running: none" not in wedges()[-1]
            if counted == 2:
                break
            wait_until(
                lambda n=n: _log(tmp_path).count(f"paused task={task_id} reason=disconnected") == n,
                30,
                "the task held as disconnected",
            )
            wait_until(
                lambda node=node: (b := bridge_node(p.pid)) is not None and b.pid != node.pid, 60, "a fresh bridge"
            )
            _wait_healthy(p, api)
            wait_until(lambda: status() == "active", 60, "the task resumed after the bridge came back")
        assert counted == 2, wedges()
        wait_until(lambda: status() == "failed", 30, "the task failed as poison")
        task = _task(api, "craft:wooden_pickaxe")
        reason = task["metadata"]["solver"]["failureReason"]
        assert reason.startswith("poison: its run brought the bridge down twice (last: wedged: "), reason
        assert len(task["metadata"]["bridgeDowns"]) == 2
        assert f"failed task={task_id} goalKey=craft:wooden_pickaxe reason=poison" in _log(tmp_path)
        _wait_healthy(p, api)  # the bot is back, and the failed task stays failed
        assert status() == "failed"
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=20)
