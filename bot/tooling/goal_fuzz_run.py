"""The goal fuzz, its running half: one real daemon and embedded world per round (see
bot/tooling/goal_fuzz.py for the rounds and the judgement), goals given over the HTTP API,
the daemon sampled every second (health, the tasks, the RSS and CPU of its processes), then
stopped with SIGTERM and timed.

    mcbot bench goals [--seed S] [--rounds N] [--sample] [--version V] [--goal-s S] [--out DIR] [--json]

Writes DIR/goals-<stamp>/report.json and a daemon log per round; prints progress, then a
table of outcomes. Exit code: 0 no finding, 1 a finding, 3 no daemon started at all.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil

from bot.runtime.server import free_port
from bot.tooling.daemon_run import ROOT, die_with_parent, healthy, role_of, stop_daemon, wait_up
from bot.tooling.goal_fuzz import (
    FIRST_REPORTED,
    GoalResult,
    Limits,
    Progress,
    Round,
    RoundResult,
    Unhealthy,
    goal_outcome,
    plan_rounds,
    table,
)
from bot.tooling.loopback_http import loopback

EXIT_PASS, EXIT_FAIL, EXIT_START = 0, 1, 3
SAMPLE_S = 1.0
START_TIMEOUT_S = 120.0
SAMPLE_SEED = 35  # make test's sample: fixed, so CI replays the same rounds; `make bench` draws a new seed
SAMPLE_ROUNDS = 1  # the first reported goal alone: a drawn round made the sample make test's long pole
SHORT_DAY_SCALE = 0.05  # days twenty times shorter: a night within a minute
SETTLE_S = 15.0  # sampled on after the goals end: a search left running in node shows up here


@dataclass(frozen=True)
class FuzzSettings:
    seed: int
    rounds: int
    version: str
    limits: Limits
    out: Path
    include: tuple[str, ...] = ()


class ProcessSampler:
    """Peak RSS and CPU of the daemon and its node children by role; children are found
    anew at every sample (a rebuilt bridge is a new process)."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.procs: dict[int, tuple[str, psutil.Process]] = {pid: ("daemon", self.root)}
        self.root.cpu_percent(None)
        self.peak_mb: dict[str, float] = {}
        self.peak_cpu: dict[str, float] = {}

    def sample(self) -> None:
        try:
            children = self.root.children(recursive=True)
        except psutil.Error:
            children = []
        for child in children:
            if child.pid in self.procs:
                continue
            try:
                role = role_of(child.cmdline())
            except psutil.Error:
                continue
            if role:
                child.cpu_percent(None)  # the first reading is a baseline
                self.procs[child.pid] = (role, child)
        for pid, (role, proc) in list(self.procs.items()):
            try:
                mb = proc.memory_info().rss / 2**20
                cpu = proc.cpu_percent(None)
            except psutil.Error:
                del self.procs[pid]
                continue
            self.peak_mb[role] = max(self.peak_mb.get(role, 0.0), mb)
            self.peak_cpu[role] = max(self.peak_cpu.get(role, 0.0), cpu)


def round_env(rd: Round, settings: FuzzSettings, db: Path, api_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCBOT_")}
    env.update(
        {
            "MCBOT_SERVER__EMBEDDED_VERSION": settings.version,
            "MCBOT_SERVER__HOST": "",
            "MCBOT_SERVER__PORT": str(free_port()),
            "MCBOT_SERVER__SEED": str(rd.world_seed),
            "MCBOT_SERVER__HOSTILES": "true" if rd.hostiles else "false",
            "MCBOT_SERVER__DAY_LENGTH_SCALE": str(SHORT_DAY_SCALE if rd.short_days else 1.0),
            "MCBOT_API__PORT": str(api_port),
            "MCBOT_VIEWER__ENABLED": "false",
            "MCBOT_STORAGE__DB_PATH": str(db),
            "MCBOT_SERVER__WORLD_FOLDER": "",  # a new world each round
            "MCBOT_LOGGING__FILE": "",
            "MCBOT_LOGGING__LEVEL": "INFO",
            "MCBOT_DRIVE_TICK__ENABLED": "false",  # the user's goals only
        }
    )
    return env


def _reason(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return r.text[:200]
    detail = body.get("detail", body) if isinstance(body, dict) else body
    return str(body.get("error", "") + ": " if isinstance(body, dict) and body.get("error") else "") + str(detail)[:200]


def submit(base: str, goal: str) -> GoalResult:
    res = GoalResult(goal)
    try:
        r = loopback().post(f"{base}/api/goals", json={"text": goal}, timeout=30)
    except httpx.HTTPError as e:
        res.outcome, res.reason = "stuck", f"the API did not answer the goal: {e}"
        return res
    res.status_code = r.status_code
    if r.status_code == 201:
        res.task_id = r.json()["id"]
    else:
        res.outcome, res.reason = "refused", f"{r.status_code} {_reason(r)}"
    return res


def _get(base: str, path: str) -> Any:
    try:
        r = loopback().get(base + path, timeout=2)
        return r.json() if r.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def world_key(base: str) -> Any:
    """What the bot holds and the block it stands in: a change is progress."""
    snap = _get(base, "/api/bot/snapshot") or {}
    pos = snap.get("position") or {}
    inv = sorted((i.get("name"), i.get("count")) for i in snap.get("inventory") or [] if isinstance(i, dict))
    return (tuple(int(pos.get(k, 0) // 1) for k in "xyz"), tuple(inv))


def active_without_run(base: str) -> list[str]:
    """Tasks active yet run by no bot, in two readings a few seconds apart (a claim and the
    start of its run are not one step)."""

    def once() -> set[str]:
        active = {t["id"] for t in (_get(base, "/api/tasks?status=active&limit=100") or {}).get("tasks", [])}
        running = {b.get("runningTaskId") for b in (_get(base, "/api/bots") or {}).get("bots", [])}
        return active - running

    first = once()
    if not first:
        return []
    time.sleep(3 * SAMPLE_S)
    return sorted(first & once())


def run_round(rd: Round, settings: FuzzSettings, say: Callable[[str], None]) -> RoundResult:
    result = RoundResult(rd)
    folder = settings.out / f"round-{rd.index:02d}"
    folder.mkdir(parents=True, exist_ok=True)
    api_port = free_port()
    base = f"http://127.0.0.1:{api_port}"
    log = (folder / "daemon.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=round_env(rd, settings, folder / "daemon.db", api_port),
        preexec_fn=die_with_parent,
    )
    try:
        if not wait_up(proc, base, START_TIMEOUT_S):
            result.error = f"the daemon did not start (see {folder / 'daemon.log'})"
            return result
        sampler = ProcessSampler(proc.pid)
        t0 = time.monotonic()
        result.goals = [submit(base, g) for g in rd.goals]
        for g in result.goals:
            say(f"  {g.goal}: " + (f"task {g.task_id}" if g.task_id else g.reason))
        _watch(base, result, sampler, settings.limits, t0, say)
        result.peak_mb, result.peak_cpu = sampler.peak_mb, sampler.peak_cpu
        result.active_without_run = active_without_run(base)
    finally:
        if proc.poll() is None:
            result.stop_s = stop_daemon(proc, timeout_s=30)
        log.close()
    return result


def _watch(
    base: str, result: RoundResult, sampler: ProcessSampler, limits: Limits, t0: float, say: Callable[[str], None]
) -> None:
    health, progress = Unhealthy(), Progress()
    running = [g for g in result.goals if g.task_id]
    last_said = t0
    while running:
        now = time.monotonic() - t0
        sampler.sample()
        health.sample(now, healthy(base))
        world = world_key(base)
        for g in list(running):
            task = _get(base, f"/api/tasks/{g.task_id}")
            if task is not None:
                progress.sample(now, task, world)
            ended = goal_outcome(task)
            if ended is not None:
                g.outcome, g.reason = ended
                g.seconds = now
                running.remove(g)
                say(f"  {g.goal}: {g.outcome} after {now:.0f} s" + (f" ({g.reason[:120]})" if g.reason else ""))
        if running and now >= limits.goal_s:
            for g in running:
                idle = progress.idle_s(g.task_id or "", now)
                g.outcome = "progressing" if idle < limits.stall_s else "stuck"
                g.reason = f"still running at {limits.goal_s:.0f} s, last progress {idle:.0f} s ago"
                g.seconds = now
                say(f"  {g.goal}: {g.outcome} ({g.reason})")
            break
        if time.monotonic() - last_said >= 30:
            last_said = time.monotonic()
            bridge = sampler.peak_mb.get("bridge", 0.0)
            say(f"  ... {now:.0f} s, {len(running)} running, bridge peak {bridge:.0f} MB")
        time.sleep(SAMPLE_S)
    settle_until = time.monotonic() + SETTLE_S
    while time.monotonic() < settle_until:
        sampler.sample()
        health.sample(time.monotonic() - t0, healthy(base))
        time.sleep(SAMPLE_S)
    result.longest_unhealthy_s = health.longest


def goal_fuzz(settings: FuzzSettings, *, as_json: bool = False) -> int:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    # its own folder: two runs started in the same second (a version each) must not share databases
    out = settings.out / f"goals-{stamp}-{settings.version}-seed{settings.seed}"
    out.mkdir(parents=True, exist_ok=False)
    settings = FuzzSettings(settings.seed, settings.rounds, settings.version, settings.limits, out, settings.include)
    stream = sys.stderr if as_json else sys.stdout
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request would bury the progress

    def say(line: str) -> None:
        print(line, file=stream, flush=True)

    rounds = plan_rounds(settings.seed, settings.rounds, include=settings.include)
    say(
        f"goal fuzz: seed {settings.seed}, {len(rounds)} rounds at {settings.version} (replay: mcbot bench goals "
        f"--seed {settings.seed} --rounds {settings.rounds} --version {settings.version}); output {out}"
    )
    results: list[RoundResult] = []
    for rd in rounds:
        say(
            f"round {rd.index}/{len(rounds)}: world seed {rd.world_seed}, hostiles {'on' if rd.hostiles else 'off'}, "
            f"{'short days' if rd.short_days else 'normal days'}: {' + '.join(rd.goals)}"
        )
        res = run_round(rd, settings, say)
        results.append(res)
        found = res.findings(settings.limits)
        say(f"round {rd.index}: {'PASS' if not found else 'FAIL: ' + '; '.join(found)}")
    report = {
        "seed": settings.seed,
        "version": settings.version,
        "limits": settings.limits.__dict__,
        "rounds": [r.to_json() for r in results],
    }
    (out / "report.json").write_text(json.dumps(report, indent=2))
    say("")
    say(table(results, settings.limits))
    if as_json:
        print(json.dumps(report))
    if results and all(r.error.startswith("the daemon did not start") for r in results):
        return EXIT_START
    return EXIT_FAIL if any(r.findings(settings.limits) for r in results) else EXIT_PASS


def sample_settings(version: str, out: Path) -> FuzzSettings:
    """make test's short sample: the first reported goal from empty hands, one round."""
    return FuzzSettings(
        SAMPLE_SEED, SAMPLE_ROUNDS, version, Limits(goal_s=150.0, stall_s=75.0), out, include=(FIRST_REPORTED,)
    )
