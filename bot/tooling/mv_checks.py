"""The stream's manual checks on a throwaway daemon (`make checks`): docs/contracts.md
STREAM-5..7, printed under their earlier names MV-E1..3.

Run against a live daemon, the third (STREAM-7) would acknowledge whatever is actionable at that moment
and so eat a real goal. Here the daemon is a fresh one of its own: its own database in a
temporary folder, its own embedded world and API port, drive ticks off, and the planning
and keep-alive jobs off, so the only actionable thought is the one the check injects
(POST /thoughts with convertEligible, honoured because this daemon runs with
MCBOT_ENV=development) and nothing converts it before the check acknowledges it.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback

CONFIG = """
[server]
hostiles = false

[drive_tick]
enabled = false

[jobs]
disabled = ["planning", "keepalive"]
"""
READY_S = 120.0
PERCEPTS_S = 30.0  # perception publishes its first awareness thoughts within a few ticks


def wait_for(read: Callable[[], list[Any]], timeout_s: float) -> list[Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        got = read()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.5)


def start_daemon(workdir: Path, version: str | None) -> tuple[subprocess.Popen[str], str]:
    cfg = workdir / "checks.toml"
    cfg.write_text(CONFIG)
    api_port = free_port()
    env = {
        **os.environ,
        "MCBOT_ENV": "development",
        "MCBOT_STORAGE__DB_PATH": str(workdir / "checks.db"),
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_VIEWER__PORT": str(free_port()),  # daemons side by side: a 3D view each
        "MCBOT_SERVER__PORT": str(free_port()),
        "MCBOT_SERVER__EMBEDDED": "true",  # whatever mcbot.toml says: a world of its own
        "MCBOT_SERVER__WORLD_FOLDER": "",  # in memory
        "MCBOT_LOGGING__FILE": "",
    }
    if version:
        env["MCBOT_SERVER__EMBEDDED_VERSION"] = version
    log = (workdir / "daemon.log").open("w")
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "--config", str(cfg), "run"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return p, f"http://127.0.0.1:{api_port}"


def wait_ready(p: subprocess.Popen[str], base: str, timeout_s: float = READY_S) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"the check daemon exited with {p.returncode} before it was ready")
        try:
            if loopback().get(f"{base}/healthz", timeout=2).json().get("ok"):
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the check daemon was not ready within {timeout_s:.0f} s")


def run_checks(base: str, say: Callable[[str], None]) -> bool:
    """STREAM-5..7 against the daemon at `base`; says one line per check, True when all pass."""
    http = httpx.Client(base_url=base, timeout=30)

    def actionable() -> dict[str, Any]:
        return http.get("/api/cognitive-stream/actionable", params={"limit": 10}).json()

    results: list[bool] = []

    def check(name: str, ok: bool, detail: str) -> None:
        results.append(ok)
        say(f"{name}: {'PASS' if ok else 'FAIL'}  {detail}")

    def percepts() -> list[dict[str, Any]]:
        return http.get("/api/cognitive-stream/recent", params={"limit": 50}).json()["thoughts"]

    seen = wait_for(percepts, PERCEPTS_S)  # the world is percept-only, not silent: thoughts flow
    count = actionable()["count"]
    check(
        "MV-E1",
        bool(seen) and count == 0,
        f"{len(seen)} percept thoughts in the stream, actionable count = {count} (want > 0 and 0)",
    )

    injected = http.post("/thoughts", json={"content": "[GOAL: explore nearby]", "convertEligible": True}).json()
    listed = [t["id"] for t in actionable()["thoughts"]]
    recent = {
        t["id"]: t["processed"]
        for t in http.get("/api/cognitive-stream/recent", params={"limit": 20}).json()["thoughts"]
    }
    check(
        "MV-E2",
        listed == [injected["id"]] and recent.get(injected["id"]) is False,
        f"an explicit goal is actionable ({len(listed)}) and processed={recent.get(injected['id'])} until acked",
    )

    acked = http.post("/api/cognitive-stream/ack", json={"thoughtIds": listed}).json()
    after = actionable()["count"]
    again = http.post("/api/cognitive-stream/ack", json={"thoughtIds": listed}).json()
    check(
        "MV-E3",
        acked["acked"] == 1 and after == 0 and again["alreadyProcessed"] == listed,
        f"acked {acked['acked']}, actionable afterwards = {after}, acking again says alreadyProcessed",
    )
    return all(results)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mv-checks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", help="embedded Minecraft version (default: server.embedded_version)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mcbot-checks-") as tmp:
        p, base = start_daemon(Path(tmp), args.version)
        print(f"check daemon on {base} (its own world and database in {tmp}; drive ticks, planning, keep-alive off)")
        try:
            wait_ready(p, base)
            ok = run_checks(base, print)
        except RuntimeError as e:
            tail = (Path(tmp) / "daemon.log").read_text(errors="replace").splitlines()[-15:]
            print(f"mv-checks: {e}; the end of its log:", *tail, sep="\n  ", file=sys.stderr)
            ok = False
        finally:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
    print("all checks PASS" if ok else "some checks FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
