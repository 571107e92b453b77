"""The living loop survives faults mid-task: SIGKILL of the daemon, a server restart."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import psutil
import pytest

from agency.execution.workflows import SqliteCheckpointStore
from agency.planning.tasks.store import SqliteTaskStore
from bot.runtime.server import EmbeddedServer, free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, wait_until, world_settings


def _daemon(tmp_path: Path, api_port: int, mc_version: str, **env_over: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "MCBOT_SERVER__EMBEDDED_VERSION": mc_version,
        "MCBOT_ENV": "development",  # lets the test POST a convertible goal thought
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_STORAGE__DB_PATH": str(tmp_path / "daemon.db"),
        "MCBOT_LOGGING__FILE": "",
        "MCBOT_DRIVE_TICK__ENABLED": "false",
        "MCBOT_SERVER__HOSTILES": "false",
        "MCBOT_SERVER__WORLD_FOLDER": "",  # in memory, unless a test keeps one
        "MCBOT_BOT__RECONNECT_MIN_S": "1",
        "MCBOT_BOT__RECONNECT_MAX_S": "2",
        **env_over,
    }
    # the child keeps its copy
    with open(tmp_path / f"daemon-{api_port}-{len(list(tmp_path.glob('daemon-*')))}.log", "w") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "bot", "run"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )


def _api(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def _get(url: str):
    try:
        r = loopback().get(url, timeout=3)
        return r.json() if r.status_code == 200 else None
    except httpx.HTTPError:
        return None


def _wait_healthy(p: subprocess.Popen, port: int, timeout_s: float = 60) -> None:
    def ok():
        assert p.poll() is None, "daemon exited"
        h = _get(f"{_api(port)}/healthz")
        return h and h["ok"]

    wait_until(ok, timeout_s, "daemon healthy")


def _post_goal(port: int, goal: str) -> None:
    r = loopback().post(
        f"{_api(port)}/thoughts", json={"content": f"I will do this. [GOAL: {goal}]", "convertEligible": True}
    )
    assert r.status_code == 201 and r.json()["convertEligible"] is True, r.text


def _task(port: int, goal_key: str):
    tasks = (_get(f"{_api(port)}/api/tasks") or {}).get("tasks", [])
    found = [t for t in tasks if t["metadata"].get("goalKey") == goal_key]
    return found[0] if found else None


def _task_status_in_db(tmp_path: Path, task_id: str) -> str:
    store = SqliteTaskStore(tmp_path / "daemon.db")
    try:
        return store.get_task(task_id).status.value
    finally:
        store.close()


def _children(pid: int) -> list[int]:
    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _all_gone(pids: list[int]) -> bool:
    return not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids)


@pytest.mark.one_version(reason="a task's checkpoint and its resume are the daemon's store, the same at every protocol")
def test_daemon_sigkilled_mid_task_resumes_the_task_from_its_checkpoint_on_restart(tmp_path, mc_version):
    api = free_port()
    world = {"MCBOT_SERVER__PORT": str(free_port()), "MCBOT_SERVER__WORLD_FOLDER": str(tmp_path / "world")}
    p = _daemon(tmp_path, api, mc_version, **world)
    try:
        _wait_healthy(p, api)
        _post_goal(api, "craft wooden_pickaxe 1")
        wait_until(lambda: _task(api, "craft:wooden_pickaxe"), 30, "the pickaxe task")
        before = _task(api, "craft:wooden_pickaxe")
        checkpoints = SqliteCheckpointStore(tmp_path / "daemon.db")

        def first_checkpoint():
            rec = checkpoints.latest_run_for_task(before["id"])
            return rec is not None and len(checkpoints.history(rec.runId)) >= 1

        wait_until(first_checkpoint, 150, "the workflow's first checkpoint", poll_s=0.05)
        kids = _children(p.pid)
        p.send_signal(signal.SIGKILL)  # mid-task: the gathering step is done, the crafts are not
        p.wait(timeout=10)
        assert _task_status_in_db(tmp_path, before["id"]) == "active"
        wait_until(lambda: _all_gone(kids), 10, "node and server to exit after SIGKILL")
    finally:
        if p.poll() is None:
            p.kill()
    p2 = _daemon(tmp_path, api, mc_version, **world)
    try:
        _wait_healthy(p2, api)
        after_restart = _task(api, "craft:wooden_pickaxe")
        assert after_restart["id"] == before["id"]  # nothing acknowledged was lost
        wait_until(lambda: _task(api, "craft:wooden_pickaxe")["status"] == "completed", 150, "the task to complete")
        done = _task(api, "craft:wooden_pickaxe")
        assert done["progress"] == 1.0
        log = sorted(tmp_path.glob("daemon-*.log"))[-1].read_text()
        assert f"[Executor] resumed task={before['id']}" in log
        snap = _get(f"{_api(api)}/api/bot/snapshot")
        assert any(i["name"] == "wooden_pickaxe" for i in snap["inventory"])
    finally:
        p2.send_signal(signal.SIGTERM)
        p2.wait(timeout=20)


def test_server_restart_mid_task_pauses_the_task_then_resumes_it(tmp_path, mc_version):
    server = EmbeddedServer(
        world_settings(port=free_port(), version=mc_version, hostiles=False, world_folder=str(tmp_path / "w"))
    )
    server.start()
    api = free_port()
    p = _daemon(tmp_path, api, mc_version, MCBOT_SERVER__HOST="127.0.0.1", MCBOT_SERVER__PORT=str(server.port))
    try:
        _wait_healthy(p, api)
        _post_goal(api, "craft wooden_pickaxe 1")
        wait_until(
            lambda: (t := _task(api, "craft:wooden_pickaxe")) and t["status"] == "active", 60, "pickaxe task active"
        )
        server.stop()
        wait_until(lambda: (t := _task(api, "craft:wooden_pickaxe")) and t["status"] == "paused", 30, "task paused")
        assert _task(api, "craft:wooden_pickaxe")["metadata"]["blockedReason"] == "disconnected"
        stalled = _get(f"{_api(api)}/api/tasks?stalled=true")
        assert any(s["stallClass"] == "blocked_reason" for s in stalled["tasks"])
        server.start()
        wait_until(
            lambda: _task(api, "craft:wooden_pickaxe")["status"] in ("active", "completed"),
            60,
            "task resumed after reconnect",
        )
        assert not _task(api, "craft:wooden_pickaxe")["metadata"].get("blockedReason")
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=20)
        server.stop()
