"""A user's way in, against `mcbot run` on the embedded world (drive ticks off, so every task
is the user's): `mcbot goal ... --follow` watches a goal to completion, POST /api/goals makes
a task that completes, the same goal twice is a 409, an ungrounded one a 422, a build goal
goes through the goal resolver, and `mcbot task pause|resume|cancel|follow` and `mcbot
tasks` work on it."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import pytest

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, USER_TASKS_ONLY, daemon_env, wait_healthy, wait_until

pytestmark = pytest.mark.one_version(
    reason="goal intake over HTTP and the command line is the daemon's; the actions it runs are tested per version"
)

CONFIG = USER_TASKS_ONLY


def _mcbot(*args: str, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def _first_lines(lines: list[str], *patterns: str) -> list[int]:
    """The index of the first line matching each pattern (each must match one)."""
    found = []
    for pattern in patterns:
        hits = [i for i, line in enumerate(lines) if re.search(pattern, line)]
        assert hits, f"no line matches {pattern!r} in:\n" + "\n".join(lines)
        found.append(hits[0])
    return found


def test_user_goals_from_http_and_the_command_line_run_to_the_end(tmp_path, mc_version):
    cfg = tmp_path / "user.toml"
    cfg.write_text(CONFIG)
    api_port = free_port()
    env = daemon_env(tmp_path, mc_version, api_port)
    base = f"http://127.0.0.1:{api_port}"
    client_env = {**env, "MCBOT_API__PORT": str(api_port)}
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "--config", str(cfg), "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_healthy(p, base, 90)

        # mcbot goal --follow: created, claimed, each step, completed, with the progress bar at 100 %
        followed = _mcbot("goal", "collect", "oak_log", "2", "--follow", env=client_env)
        out = followed.stdout
        assert followed.returncode == 0, out + followed.stderr
        task_id = re.search(r"created (task-\S+):", out).group(1)
        lines = out.splitlines()
        order = _first_lines(
            lines,
            r":\d\d created ",
            r":\d\d claimed ",
            r" step 1/\d+ started ",
            r" step \d+/\d+ finished ",
            r" completed ",
        )
        assert order == sorted(order), out
        assert lines[-1].split()[1] == "completed" and lines[-1].endswith("100%"), out
        done = loopback().get(f"{base}/api/tasks/{task_id}").json()
        assert done["status"] == "completed" and done["metadata"]["origin"]["kind"] == "user"

        # POST /api/goals: created, the same goal again is a 409 naming it, and it completes
        r = loopback().post(f"{base}/api/goals", json={"text": "craft oak_planks 4"}, timeout=30)
        assert r.status_code == 201, r.text
        planks = r.json()["id"]
        again = loopback().post(
            f"{base}/api/goals", json={"action": "craft", "target": "oak_planks", "amount": 4}, timeout=30
        )
        assert again.status_code == 409 and again.json()["task"]["id"] == planks, again.text
        wait_until(
            lambda: loopback().get(f"{base}/api/tasks/{planks}").json()["status"] in ("completed", "failed"),
            90,
            "the planks task to end",
        )
        assert loopback().get(f"{base}/api/tasks/{planks}").json()["status"] == "completed"

        # ungrounded: 422 with the reason, nothing stored; the command line says it and exits 1
        r = loopback().post(f"{base}/api/goals", json={"text": "collect diamond_ore 2"}, timeout=30)
        assert r.status_code == 422 and r.json()["error"] == "not_grounded", r.text
        ungrounded = _mcbot("goal", "collect", "diamond_ore", "2", env=client_env)
        assert ungrounded.returncode == 1 and "none in sight" in ungrounded.stderr

        # a build goal goes through the goal resolver; pause, resume, cancel; follow replays it all
        r = loopback().post(f"{base}/api/goals", json={"text": "build basic_shelter"}, timeout=30)
        assert r.status_code == 201, r.text
        build = r.json()
        assert build["metadata"]["goalBinding"]["goalType"] == "build_shelter"
        assert _mcbot("task", "pause", build["id"], env=client_env).stdout.strip().endswith("-> paused")
        refused = _mcbot("goal", "build", "basic_shelter", env=client_env)  # the resolver continues the paused one
        assert refused.returncode == 1 and build["id"] in refused.stderr, refused.stderr
        assert _mcbot("task", "resume", build["id"], env=client_env).stdout.strip().endswith("-> pending")
        table = _mcbot("tasks", env=client_env).stdout
        assert re.search(rf"{build['id']}\s+(pending|active)\s+\d+%\s+user\s+build:basic_shelter", table), table
        cancelled = _mcbot("task", "cancel", build["id"], env=client_env)
        ended = loopback().get(f"{base}/api/tasks/{build['id']}").json()
        why = (ended["metadata"].get("solver") or {}).get("failureReason")  # a task that ended by itself says why
        assert cancelled.returncode == 0 and cancelled.stdout.strip().endswith("-> failed"), (cancelled.stderr, why)
        history = _mcbot("task", "follow", build["id"], env=client_env)
        assert history.returncode == 1  # the task failed (cancelled)
        order = _first_lines(
            history.stdout.splitlines(),
            r":\d\d created ",
            r" held \(manual_pause\)",
            r" resumed ",
            r" failed \(cancelled by the user\)",
        )
        assert order == sorted(order), history.stdout

        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=20)
        assert p.returncode == 0, out[-2000:]
        assert f"[UserGoal] created task={task_id}" in out
        assert "[UserGoal] refused goalKey=collect:diamond_ore verdict=not_grounded" in out
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(10)
