"""`mcbot bench survival`: how well does the bot survive, in game time? For each version and
seed, the daemon runs with no LLM on a fresh embedded world at that seed, with the daemon's
defaults as a user gets them (the 180 s drive tick included; fast days allowed: a day-length
scale), sampled over its HTTP API (bot/tooling/soak_sample.sample, plus the places view) until N
game days pass, or a milestone (`--until`) is reached, or the wall-clock limit. Judged by
bot/tooling/bench_survival_report.py (each run) and bench_survival_targets.py (the targets over
all runs); the timeline is drawn by bench_survival_chart.py.

Writes DIR/survival-<stamp>-p<pid>/report.json (settings, one entry per run, the targets),
timeline.png, and per run its daemon log and its samples (JSON lines). Prints a line per
milestone reached, a status line every STATUS_S, the side-by-side table and the targets.
Exit codes: 0 every target met or not judged, 1 a target FAILED, 3 a daemon did not start,
130 interrupted (the runs so far are still written).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from agency.cognition.settings import DriveTickConfig
from bot.runtime.server import free_port
from bot.tooling.bench_survival_chart import write_timeline
from bot.tooling.bench_survival_report import failure_lines, milestone_detail, places_reached, run_result, table_lines
from bot.tooling.bench_survival_targets import failed, judge, target_lines
from bot.tooling.competence import GAME_S_PER_DAY, MILESTONES, game_seconds, milestones
from bot.tooling.daemon_run import ROOT, LogTail, die_with_parent, server_version, stop_daemon, wait_up
from bot.tooling.loopback_http import loopback
from bot.tooling.soak_sample import sample
from bot.tooling.soak_settings import FAST, daemon_env, wedge_s

STATUS_S = 30.0  # a status line this often (wall seconds)
START_TIMEOUT_S = 90.0
START_STAGGER_S = 10.0  # between the starts of runs side by side (--jobs)
EXIT_OK, EXIT_FAILED, EXIT_START, EXIT_INTERRUPTED = 0, 1, 3, 130


@dataclass(frozen=True)
class SurvivalSettings:
    """What a bench run is asked to do; every figure lands in the report."""

    seeds: tuple[int, ...] = (1, 2, 3)
    versions: tuple[str, ...] = ("26.1",)
    game_days: float = 3.0
    until: str | None = None  # a milestone that ends a run early
    day_length_scale: float = 1.0  # vanilla: a game day lasts 20 wall minutes (0.5: 10, the bot then has half the time)
    drive_tick_ms: int = DriveTickConfig().interval_ms  # the daemon's default (180 s); shorter only when asked
    sample_s: float = 3.0
    max_minutes: float | None = None  # None: 1.5 x the wall time the game days take, + 5 min
    out: str = "bench-results"
    jobs: int = 1  # runs at once (each its own daemon and world)
    terrain: str = "caves"  # the embedded world's ground (server.terrain): competence is claimed on the vanilla one
    extra_env: dict[str, str] = field(default_factory=dict)
    config_path: str | None = None  # the user's config file (--config), the daemon's too; the pins above beat it

    @property
    def wall_limit_s(self) -> float:
        if self.max_minutes is not None:
            return self.max_minutes * 60
        return 1.5 * self.game_days * GAME_S_PER_DAY * self.day_length_scale + 300

    def env(self) -> dict[str, str]:
        """The daemon's settings beyond its defaults: this bench's day scale, the drive-tick
        interval when one was asked for, the ground, no LLM, a store of its own. The jobs' cadences, the stuck
        timeout and the drive tick are the daemon's own: the bench measures what users get."""
        return {
            "MCBOT_SERVER__DAY_LENGTH_SCALE": f"{self.day_length_scale:g}",
            "MCBOT_DRIVE_TICK__INTERVAL_MS": str(self.drive_tick_ms),
            "MCBOT_JOBS__COUNTERS_LOG_S": FAST["MCBOT_JOBS__COUNTERS_LOG_S"],  # the log's counter lines, more often
            "MCBOT_LLM__TARGETS": "[]",  # no model, whatever the user's config says
            "MCBOT_SERVER__TERRAIN": self.terrain,
            "MCBOT_STORAGE__URL": "",  # each run its own SQLite file, whatever a --config says
            **self.extra_env,
        }


def places_seen(base: str) -> dict[str, Any] | None:
    """The places view, compact: the kinds of place the bot PLACED, and how many verified
    shelters it remembers (None: the view did not answer)."""
    try:
        view = loopback().get(base + "/api/places", timeout=5).json()
    except (httpx.HTTPError, ValueError):
        return None
    if not isinstance(view, dict):
        return None
    return {
        "placed": sorted({p.get("kind") for p in view.get("places") or [] if p.get("source") == "placed"}),
        "verifiedShelters": sum(bool(s.get("verified")) for s in view.get("shelters") or []),
    }


class Run:
    """One daemon on one fresh world (version, seed), sampled until it is done."""

    def __init__(
        self,
        version: str,
        seed: int,
        settings: SurvivalSettings,
        folder: Path,
        say: Callable[[str], None],
        stop: threading.Event | None = None,
    ) -> None:
        self.version, self.seed, self.settings, self.say = version, seed, settings, say
        self.stop = stop or threading.Event()  # set on Ctrl-C: the run ends at its next sample
        self.name = f"{version}-seed{seed}"
        self.log_path = folder / f"{self.name}-daemon.log"
        self.samples_path = folder / f"{self.name}-samples.jsonl"
        self.db = folder / f"{self.name}.db"
        self.samples: list[dict[str, Any]] = []
        self.ended = "not started"
        self.server_version = "unknown"
        self.reached: set[str] = set()

    def tag(self) -> str:
        return f"[Bench survival] {self.version} seed {self.seed}:"

    def run(self) -> bool:
        """Sample until done (or until `stop` is set: Ctrl-C), then stop the daemon and its
        world; False when the daemon did not start."""
        api_port = free_port()
        base = f"http://127.0.0.1:{api_port}"
        ns = argparse.Namespace(server="embedded", version=self.version, creative=False, fast=False)
        env = {**daemon_env(ns, self.db, api_port), **self.settings.env(), "MCBOT_SERVER__SEED": str(self.seed)}
        with self.log_path.open("a") as log, self.samples_path.open("w") as out:
            config = ["--config", self.settings.config_path] if self.settings.config_path else []
            proc = subprocess.Popen(
                [sys.executable, "-m", "bot", *config, "run"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=die_with_parent,
            )
            self.say(f"{self.tag()} daemon pid {proc.pid} api {base}, log {self.log_path}")
            try:
                t0 = time.monotonic()
                if not wait_up(proc, base, START_TIMEOUT_S):
                    self.ended = "daemon did not start"
                    self.say(
                        f"{self.tag()} FAIL the daemon did not become healthy within {START_TIMEOUT_S:.0f} s "
                        f"(exit {proc.poll()}); see {self.log_path}"
                    )
                    return False
                self.server_version = server_version(env)
                self.ended = "interrupted"
                self.ended = self._sample_until_done(proc, base, t0, LogTail(self.log_path), out)
            finally:
                stop_daemon(proc)
        self.say(f"{self.tag()} ended ({self.ended}) after {self._last('t', 0):.0f} s; daemon exit {proc.returncode}")
        return True

    def _last(self, key: str, default: Any) -> Any:
        return self.samples[-1].get(key, default) if self.samples else default

    def _sample_until_done(self, proc: subprocess.Popen, base: str, t0: float, deaths: LogTail, out: Any) -> str:
        seen: set[str] = set()
        next_status = 0.0
        s = self.settings
        while True:
            one = sample(base, t0, seen, daemon_log=deaths)
            one["thoughts"] = []  # the bench judges none; keeps the samples small
            one["places"] = places_seen(base)
            self.samples.append(one)
            out.write(json.dumps(one) + "\n")
            game_s = game_seconds(self.samples)
            g = next((x for x in reversed(game_s) if x is not None), None)
            self._announce(one, g)
            if one["t"] >= next_status:
                self._status(g)
                next_status = one["t"] + STATUS_S
            if s.until is not None and s.until in self.reached:
                return f"until {s.until}"
            if g is not None and g >= s.game_days * GAME_S_PER_DAY:
                return f"{s.game_days:g} game days"
            if one["t"] >= s.wall_limit_s:
                return f"wall limit {s.wall_limit_s / 60:.1f} min"
            if proc.poll() is not None:
                return f"daemon exited {proc.returncode}"
            if self.stop.wait(max(0.0, t0 + one["t"] + s.sample_s - time.monotonic())):
                return "interrupted"

    def _announce(self, one: dict[str, Any], g: float | None) -> None:
        """A line per milestone first shown by this sample (inventory or places)."""
        shown = [*milestones([one], [g]).items(), *places_reached([one], [g]).items()]
        for ms in dict.fromkeys(m for m, at in shown if at is not None and m not in self.reached):
            self.reached.add(ms)
            if ms.startswith("placed_") and ms.removeprefix("placed_") in MILESTONES:
                self.reached.add(ms.removeprefix("placed_"))  # a placed table is a table reached
            day = "" if g is None else f"game day {g / GAME_S_PER_DAY:.2f} ({g:.0f} game s), "
            self.say(f"{self.tag()} milestone {ms} at {day}t={one['t']:.0f}s")

    def _status(self, g: float | None) -> None:
        days, total = (g or 0) / GAME_S_PER_DAY, self.settings.game_days
        filled = min(20, int(20 * days / total))
        last = self.samples[-1]
        by: dict[str, int] = {}
        for t in last.get("tasks", []):
            by[t["status"]] = by.get(t["status"], 0) + 1
        deaths = sum(len(x.get("deaths") or []) for x in self.samples)
        tree = sum(ms in self.reached for ms in MILESTONES)
        self.say(
            f"{self.tag()} [{'#' * filled}{'-' * (20 - filled)}] day {days:.2f}/{total:g} t={last['t']:.0f}s "
            f"ok={last['ok']} health={last.get('health')} milestones {tree}/{len(MILESTONES)} "
            f"tasks {' '.join(f'{k}={v}' for k, v in sorted(by.items())) or 'none'} deaths {deaths}"
        )

    def result(self) -> dict[str, Any]:
        r = run_result(self.samples, wedge_s(False))
        return {
            "version": self.version,
            "seed": self.seed,
            "serverVersion": self.server_version,
            "ended": self.ended,
            **r,
            "daemon_log": str(self.log_path),
            "samples_file": str(self.samples_path),
        }


def bench_survival(settings: SurvivalSettings, as_json: bool = False) -> int:
    """Every (version, seed) run, settings.jobs at once; the report, the timeline, the table, the targets."""
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-p{os.getpid()}"  # two benches side by side keep apart
    out = Path(settings.out) if Path(settings.out).is_absolute() else Path.cwd() / settings.out
    folder = out / f"survival-{stamp}"
    folder.mkdir(parents=True, exist_ok=True)

    def say(line: str) -> None:
        print(line, file=sys.stderr if as_json else sys.stdout, flush=True)

    logging.getLogger("httpx").setLevel(logging.WARNING)  # a request line per API read would bury the progress
    total = len(settings.versions) * len(settings.seeds)
    say(
        f"[Bench survival] {total} runs (versions {','.join(settings.versions)} x seeds "
        f"{','.join(map(str, settings.seeds))}, {settings.terrain} terrain): {settings.game_days:g} game days each"
        + (f" or until {settings.until}" if settings.until else "")
        + f", day length x{settings.day_length_scale:g} ({GAME_S_PER_DAY * settings.day_length_scale / 60:g} wall "
        f"min per game day), drive tick every {settings.drive_tick_ms / 1000:g} s, at most "
        f"{settings.wall_limit_s / 60:.1f} min each, {min(settings.jobs, total)} at once; output {folder}"
    )
    stop = threading.Event()
    runs = [Run(version, seed, settings, folder, say, stop) for version in settings.versions for seed in settings.seeds]

    def one(i: int, run: Run) -> bool:
        # the first runs at once start a little apart (each daemon generates its world at start)
        if stop.wait(START_STAGGER_S * (i - 1) if i <= settings.jobs else 0):
            return True  # interrupted before its turn: not started
        say(f"[Bench survival] run {i}/{total}: {run.version} seed {run.seed}")
        return run.run()

    code = EXIT_OK
    pool = ThreadPoolExecutor(max_workers=max(1, settings.jobs), thread_name_prefix="bench-run")
    futures = [pool.submit(one, i, run) for i, run in enumerate(runs, 1)]
    try:
        started = [f.result() for f in futures]  # every one: a run that did not start stops no other
        if not all(started):
            code = EXIT_START
    except KeyboardInterrupt:
        stop.set()  # every run stops its daemon and world at its next sample
        say("[Bench survival] interrupted: the daemons and their worlds are stopped; writing the runs so far")
        code = EXIT_INTERRUPTED
    finally:
        stop.set()  # also on a SIGTERM's SystemExit: no run outlives the bench
        pool.shutdown(wait=True, cancel_futures=True)
    results = [r.result() for r in runs if r.samples]
    targets = judge(results) if results else []
    report = {
        "settings": {
            **asdict(settings),
            "wall_limit_s": settings.wall_limit_s,
            "wedge_s": wedge_s(False),
            "daemon_env": settings.env(),
            "stamp": stamp,
        },
        "runs": results,
        "targets": targets,
        "pass": bool(results) and not failed(targets),
        "interrupted": code == EXIT_INTERRUPTED,
    }
    report_path, chart = folder / "report.json", folder / "timeline.png"
    report_path.write_text(json.dumps(report, indent=2))
    if results:
        write_timeline(
            results,
            chart,
            f"mcbot bench survival: game days to each milestone (day length x{settings.day_length_scale:g})",
        )
    for r in results:
        say(f"[Bench survival] {r['version']} seed {r['seed']} milestones: {milestone_detail(r)}")
        for line in failure_lines(r):
            say(f"[Bench survival] {r['version']} seed {r['seed']} failed tasks: {line}")
    for line in [*table_lines(results), "", *target_lines(targets)]:
        say(line)
    say(f"[Bench survival] report {report_path}" + (f", timeline {chart}" if results else ""))
    if as_json:
        print(json.dumps(report))
    if code == EXIT_OK and failed(targets):
        code = EXIT_FAILED
    return code
