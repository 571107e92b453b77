"""Running the daemon as a child process, for the tools that drive one over its HTTP API
(the soak, bot/tooling/soak.py, and the survival bench, bot/tooling/bench_survival.py): tie
its life to the tool's, wait until it answers, ask which server it plays on, follow its log,
and stop it. One concern, shared, so neither tool reaches into the other's privates.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

from bot.runtime.ping import ServerUnreachable, ping
from bot.tooling.loopback_http import loopback

ROOT = Path(__file__).resolve().parents[2]  # the checkout: the daemon runs from here (`python -m bot run`)


def die_with_parent() -> None:
    """A Popen preexec_fn: the daemon must not outlive the tool, even if the tool is
    SIGKILLed (Linux prctl)."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def spawn_daemon(config: Path, env: dict[str, str], log_path: Path) -> subprocess.Popen:
    """`python -m bot --config CONFIG run` from the checkout, its output into log_path, dying
    with the tool."""
    with log_path.open("w") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "bot", "--config", str(config), "run"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )


def wait_up(proc: subprocess.Popen, base: str, timeout_s: float) -> bool:
    """True once the daemon's /healthz answers 200; False if it exits or the timeout passes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            if loopback().get(base + "/healthz", timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return False


def server_version(env: dict[str, str]) -> str:
    """The version the daemon's server announces (list ping), e.g. "1.21.4 (protocol 769)"."""
    host = env.get("MCBOT_SERVER__HOST") or "127.0.0.1"
    try:
        info = ping(host, int(env["MCBOT_SERVER__PORT"]))
    except ServerUnreachable as e:
        return f"unknown ({e})"
    return f"{info.version_name} (protocol {info.protocol})"


def role_of(cmdline: list[str]) -> str | None:
    """Which of a daemon's node children a command line is: 'bridge' (JSPyBridge's node,
    which requires node/bridge.js), 'world' (the embedded server.js) or neither."""
    text = " ".join(cmdline)
    if "bridge.js" in text:
        return "bridge"
    if "server.js" in text:
        return "world"
    return None


def bridge_node(daemon_pid: int) -> psutil.Process | None:
    """The daemon's bridge node process, if it has one now (a rebuild makes a new one)."""
    try:
        children = psutil.Process(daemon_pid).children(recursive=True)
    except psutil.Error:
        return None
    for child in children:
        try:
            if role_of(child.cmdline()) == "bridge":
                return child
        except psutil.Error:
            continue
    return None


def healthy(base: str) -> bool:
    """Does the daemon at `base` say ok on /healthz (within 2 s)?"""
    try:
        r = loopback().get(base + "/healthz", timeout=2)
        return r.status_code == 200 and bool(r.json().get("ok"))
    except (httpx.HTTPError, ValueError):
        return False


def stop_daemon(proc: subprocess.Popen, timeout_s: float = 20.0) -> float | None:
    """SIGTERM, so the daemon shuts down cleanly (and stops its embedded world); SIGKILL if it
    has not exited within timeout_s. The seconds it took to exit, None when it had to be
    killed (or had exited already)."""
    if proc.poll() is not None:
        return None
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    return time.monotonic() - started


class LogTail:
    """The lines a file gained since the last read (None when it cannot be read): the daemon's
    log, read between samples for the deaths it records (the API has no death record)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.partial = b""

    def read(self) -> list[str] | None:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return None
        self.offset += len(data)
        *lines, self.partial = (self.partial + data).split(b"\n")
        return [line.decode("utf-8", "replace") for line in lines]
