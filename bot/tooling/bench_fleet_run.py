"""`mcbot bench fleet`, one fleet size (bot/tooling/bench_fleet.py runs each in turn): a
daemon of n bots on its own fresh embedded world and database (its config and environment
here), every bot kept idle-walking, GET /api/bots/{name}/snapshot timed at random moments, and
the CPU and RSS of the daemon's process tree (the embedded world's node process apart) read
over the window, into a RunResult (bot/tooling/bench_fleet_report.py).
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import httpx
import psutil

from bot.runtime.server import free_port
from bot.tooling.bench_fleet_report import RunResult, fmt
from bot.tooling.daemon_run import spawn_daemon, stop_daemon, wait_up
from bot.tooling.progress import Progress

WALK_GOAL = "explore nearby 3"  # the standard agent's explore workflow: 3 legs of 16 blocks
LIVE = "pending,pending_planning,active,paused"  # a bot with a task in one of these is still walking
WALK_CHECK_S = 2.0  # how often bots whose walk finished get the next one
SNAPSHOT_EVERY_S = 0.5  # one snapshot request this often on average, round-robin over the bots
SNAPSHOT_SEED = 21
RSS_EVERY_S = 2.0
PROGRESS_S = 30.0  # a line at least this often while measuring
WARMUP_MAX_S = 30.0  # after start, until every bot runs its first walk (at most this long)
MOVED_BLOCKS = 1.0  # a bot moved: its horizontal position changed by more than this over the window


def start_timeout_s(n: int) -> float:
    """How long a daemon of n bots gets to say ok on /healthz (world start, then every bot in)."""
    return 30.0 + 3.0 * n


def bot_names(n: int) -> list[str]:
    return [f"fleet{i:02d}" for i in range(1, n + 1)]


def config_text(names: Iterable[str]) -> str:
    """The daemon's config file: the fleet, no drive ticks, no hostiles, no hunger, no 3D view."""
    head = (
        "[server]\nhostiles = false\nhunger_rate = 0.0\n\n[drive_tick]\nenabled = false\n\n[viewer]\nenabled = false\n"
    )
    return head + "".join(f'\n[[bots]]\nusername = "{name}"\n' for name in names)


def daemon_env(db: Path, version: str, api_port: int) -> dict[str, str]:
    """Environment overrides beat the config files: pin what the bench depends on."""
    return {
        **os.environ,
        "MCBOT_SERVER__HOST": "",  # the embedded world
        "MCBOT_SERVER__PORT": str(free_port()),
        "MCBOT_SERVER__EMBEDDED_VERSION": version,
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_VIEWER__ENABLED": "false",
        "MCBOT_STORAGE__DB_PATH": str(db),
        "MCBOT_STORAGE__URL": "",
        "MCBOT_SERVER__WORLD_FOLDER": "",  # a new world each run
        "MCBOT_LOGGING__FILE": "",
        "MCBOT_LLM__TARGETS": "[]",
    }  # no model, whatever the user's config says


# -- pure helpers -----------------------------------------------------------------------------

CpuReading = dict[tuple[int, float], float]  # (pid, create time) -> user + system CPU seconds so far


def cpu_seconds(before: CpuReading, after: CpuReading) -> float:
    """CPU spent between two readings by the processes alive at the second; one started in
    between counts from 0. (A process gone by the second reading is lost: its share is not
    readable any more.)"""
    return sum(max(0.0, cpu - before.get(key, 0.0)) for key, cpu in after.items())


def needs_walk(names: Iterable[str], live_tasks: Iterable[dict[str, Any]]) -> list[str]:
    """The bots with no live task bound to them or held by them: their walk is over."""
    busy: set[str] = set()
    for t in live_tasks:
        meta = t.get("metadata") or {}
        busy.update(b for b in (meta.get("bot"), meta.get("heldBy")) if b)
    return [n for n in names if n not in busy]


def positions(bots_view: dict[str, Any]) -> dict[str, dict[str, float] | None]:
    """name -> position from a GET /api/bots answer."""
    return {b["name"]: b.get("position") for b in bots_view.get("bots", [])}


def moved(before: dict[str, Any], after: dict[str, Any], min_blocks: float = MOVED_BLOCKS) -> dict[str, bool]:
    """Per bot of `before`: did it move more than min_blocks horizontally (unknown position: no)."""
    out = {}
    for name, a in before.items():
        b = after.get(name)
        out[name] = bool(a and b and math.hypot(b["x"] - a["x"], b["z"] - a["z"]) > min_blocks)
    return out


# -- the daemon's process tree ----------------------------------------------------------------


def _is_world(p: psutil.Process) -> bool:
    try:
        return "node" in p.name() and any(a.endswith("server.js") for a in p.cmdline())
    except psutil.Error:
        return False


def process_sides(pid: int) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """The daemon's side (the daemon, its bridge, anything else it started) and the embedded
    world's side (its node process and what that started)."""
    root = psutil.Process(pid)
    kids = root.children(recursive=True)
    world: list[psutil.Process] = []
    for k in kids:
        if _is_world(k):
            world.append(k)
            world.extend(k.children(recursive=True))
    world_pids = {p.pid for p in world}
    return [root, *(k for k in kids if k.pid not in world_pids)], world


def cpu_reading(procs: Iterable[psutil.Process]) -> CpuReading:
    out: CpuReading = {}
    for p in procs:
        try:
            t = p.cpu_times()
            out[(p.pid, p.create_time())] = t.user + t.system
        except psutil.Error:
            pass
    return out


def rss_mb(procs: Iterable[psutil.Process]) -> float:
    total = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total / 2**20


# -- one fleet size ---------------------------------------------------------------------------


def snapshot_gap(rng: random.Random) -> float:
    """Seconds to the next snapshot request: uniform over [0, 2 x SNAPSHOT_EVERY_S). A fixed
    half-second period can lock onto the daemon's own half-second jobs (the reflex tick's and
    perception's bulk reads) and measure one phase of them, whichever the run started in;
    random moments read what a user asking at any moment waits."""
    return rng.uniform(0.0, 2 * SNAPSHOT_EVERY_S)


class FleetRun:
    """One daemon of n bots on its own world, walked and measured over a window."""

    def __init__(self, n: int, seconds: float, version: str, log_copy: Path, say: Callable[[str], None]) -> None:
        self.n, self.seconds, self.version, self.log_copy, self.say = n, seconds, version, log_copy, say
        self.names = bot_names(n)
        self.progress = Progress(f"[Bench fleet] N={n}", say)  # nothing else is said for minutes
        self.result = RunResult(bots=n, cpu_count=psutil.cpu_count() or 1, daemon_log=str(log_copy))

    def run(self) -> bool:
        """Measure; False (with the log's tail said) when the daemon did not start."""
        with tempfile.TemporaryDirectory(prefix=f"mcbot-bench-fleet-{self.n}-") as tmp:
            cfg = Path(tmp) / "fleet.toml"
            cfg.write_text(config_text(self.names))
            api_port = free_port()
            base = f"http://127.0.0.1:{api_port}"
            log_path = Path(tmp) / "daemon.log"
            env = daemon_env(Path(tmp) / "fleet.db", self.version, api_port)
            proc = spawn_daemon(cfg, env, log_path)
            try:
                t0 = time.monotonic()
                self.progress.note(
                    f"starting a daemon of {self.n} bots and its world {self.version}, "
                    f"up to {start_timeout_s(self.n):.0f} s"
                )
                if not wait_up(proc, base, start_timeout_s(self.n)):
                    self.say(
                        f"[Bench fleet] N={self.n}: the daemon did not say ok on /healthz within "
                        f"{start_timeout_s(self.n):.0f} s (exit {proc.poll()}); its log ends:"
                    )
                    for line in log_path.read_text(errors="replace").splitlines()[-40:]:
                        self.say(f"    {line}")
                    return False
                self.say(f"[Bench fleet] N={self.n}: up in {time.monotonic() - t0:.0f} s (pid {proc.pid}, {base})")
                with httpx.Client(base_url=base, timeout=15) as api:
                    self._measure(api, proc.pid)
            finally:
                stop_daemon(proc)
                shutil.copyfile(log_path, self.log_copy)
        return True

    def _keep_walking(self, api: httpx.Client) -> None:
        live = _get(api, "/api/tasks", status=LIVE, limit=1000)
        if live is None:
            self._count("unanswered")
            return
        for name in needs_walk(self.names, live.get("tasks", [])):
            try:
                self._count(str(api.post("/api/goals", json={"text": WALK_GOAL, "bot": name}).status_code))
            except httpx.HTTPError:
                self._count("unanswered")

    def _count(self, key: str) -> None:
        self.result.walks[key] = self.result.walks.get(key, 0) + 1

    def _warm_up(self, api: httpx.Client) -> None:
        """Walks posted until every bot runs one (or WARMUP_MAX_S passed)."""
        deadline = time.monotonic() + WARMUP_MAX_S
        self.progress.note(f"sending every bot on a walk, up to {WARMUP_MAX_S:.0f} s")
        while time.monotonic() < deadline:
            self._keep_walking(api)
            bots = (_get(api, "/api/bots") or {}).get("bots", [])
            if bots and all(b.get("runningTaskId") for b in bots):
                return
            time.sleep(WALK_CHECK_S)
        self.say(f"[Bench fleet] N={self.n}: not every bot runs a walk after {WARMUP_MAX_S:.0f} s; measuring anyway")

    def _measure(self, api: httpx.Client, pid: int) -> None:
        r = self.result
        self._warm_up(api)
        daemon, world = process_sides(pid)
        me = psutil.Process()
        start_pos = positions(_get(api, "/api/bots") or {})
        psutil.cpu_percent(None)
        d0, w0, b0 = cpu_reading(daemon), cpu_reading(world), cpu_reading([me])
        t0 = time.monotonic()
        end = t0 + self.seconds
        self.progress.note(f"measuring for {self.seconds:g} s")
        next_snap = next_walk = next_rss = t0
        rng = random.Random(SNAPSHOT_SEED + self.n)
        rss: list[float] = []
        world_rss: list[float] = []
        i = 0
        while (now := time.monotonic()) < end:
            if now >= next_snap:
                name = self.names[i % self.n]
                i += 1
                started = time.perf_counter()
                try:
                    ok = api.get(f"/api/bots/{name}/snapshot").status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    r.snapshot_ms.append((time.perf_counter() - started) * 1000)
                else:
                    r.snapshot_errors += 1
                next_snap += snapshot_gap(rng)
            if now >= next_walk:
                self._keep_walking(api)
                next_walk += WALK_CHECK_S
            if now >= next_rss:
                daemon, world = process_sides(pid)  # a restarted bridge or world is a new process
                rss.append(rss_mb(daemon))
                world_rss.append(rss_mb(world))
                next_rss += RSS_EVERY_S
            if self.progress.due(PROGRESS_S):
                self.progress.note(
                    f"measuring, {now - t0:.0f}/{self.seconds:g} s, {len(r.snapshot_ms)} snapshots "
                    f"read, {r.snapshot_errors} unanswered"
                )
            time.sleep(max(0.0, min(next_snap, next_walk, next_rss, end) - time.monotonic()))
        daemon, world = process_sides(pid)
        d1 = cpu_reading(daemon)
        r.daemon_cpu_s = cpu_seconds(d0, d1)
        root = {k: v for k, v in d1.items() if k[0] == pid}
        r.python_cpu_s = cpu_seconds(d0, root)
        r.world_cpu_s = cpu_seconds(w0, cpu_reading(world))
        r.bench_cpu_s = cpu_seconds(b0, cpu_reading([me]))
        r.machine_cpu_pct = psutil.cpu_percent(None)
        r.seconds = time.monotonic() - t0
        r.moved = moved({n: start_pos.get(n) for n in self.names}, positions(_get(api, "/api/bots") or {}))
        r.rss_mb, r.rss_mb_max = sum(rss) / len(rss), max(rss)
        r.world_rss_mb = sum(world_rss) / len(world_rss)
        for t in (_get(api, "/api/tasks", status="completed,failed", limit=1000) or {}).get("tasks", []):
            self._count(t["status"])
        self.say(
            f"[Bench fleet] N={self.n}: {r.cpu_pct:.1f} % CPU of {r.cpu_count} cores, {r.rss_mb:.0f} MB, "
            f"snapshot p50 {fmt(r.p50)} ms, {sum(r.moved.values())}/{self.n} moved"
        )


def _get(api: httpx.Client, path: str, **params: Any) -> Any:
    """The JSON answer, or None when the daemon did not answer (a stalled event loop)."""
    try:
        return api.get(path, params=params).json()
    except (httpx.HTTPError, ValueError):
        return None
