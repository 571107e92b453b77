"""The soak: run the daemon for MINUTES, sample its HTTP API (counters, tasks, stalls, and
every thought once, so a task's source thought can be judged), judge the eight criteria of
docs/contracts.md SOAK-1, report each SOAK-2 stall and its recovery, and count shelters
built and verified at night (informational). Used by scripts/soak.sh. In --fast mode
intervals are scaled, and the drive-tick cadence criterion 1 expects is scaled by the same
factor. --chaos kills the bridge, the embedded world and the daemon at seeded random
intervals (bot/tooling/soak_chaos.py) and judges what the faults cost
(bot/tooling/soak_chaos_verdict.py): the run FAILS on any loss or a slow recovery, or
if the bot wedged; the SOAK-1 criteria, whose cadence and closure the faults disturb on
purpose, are shown but do not decide a chaos run. Beside the SOAK-1 criteria it judges
competence (bot/tooling/competence.py: task success rate, a new tech-tree milestone every N
game days, deaths with recorded causes, never wedged), which FAILS the run except under
chaos, where it is informational like the SOAK-1 criteria.

    scripts/soak.sh MINUTES [--server embedded|HOST:PORT] [--version 26.1|1.21.11|1.21.4|1.18.2] [--creative] [--fast]
                            [--chaos [--seed N]] [--min-task-success 0.8] [--milestone-game-days 2]

Writes soak-results/soak-<ts>.log (samples and verdicts), soak-results/soak-<ts>-report.json
and soak-results/soak-<ts>.png (<ts>: the start time and the soak's pid, so soaks run side by
side keep apart), and copies the last two to soak-results/report.json and
chart.png. The log and the report name the server's version (asked by a list ping). Only the
newest KEEP_RUNS runs are kept in the output folder; older ones are removed (and said so).
Exits 0 on PASS, 1 on FAIL, 3 when the daemon cannot start.

Here: the run, the output folder's pruning and a chaos run's counters carried across restarts.
The flags and the daemon's environment are in bot/tooling/soak_settings.py, one sample of the
API in bot/tooling/soak_sample.py, the judging in bot/tooling/soak_report.py.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bot.runtime.server import free_port
from bot.tooling.competence import CompetenceLimits
from bot.tooling.daemon_run import ROOT, LogTail, die_with_parent, server_version, stop_daemon, wait_up
from bot.tooling.soak_chaos import Chaos
from bot.tooling.soak_report import add_competence, competence_lines, evaluate, evaluate_chaos, write_chart
from bot.tooling.soak_sample import add_late_deaths, sample
from bot.tooling.soak_settings import FAST, cadence_ms, daemon_env, parse, wedge_s

KEEP_RUNS = 20  # soak runs kept in the output folder
RUN_FILE = re.compile(r"^soak-(\d{8}-\d{6}(?:-p\d+)?)")  # a run's stamp: its start, and its process


def prune_results(out: Path, keep: int = KEEP_RUNS) -> list[str]:
    """Remove every file (and world folder) of the runs older than the newest `keep`; returns
    the stamps removed."""
    runs: dict[str, list[Path]] = {}
    for f in out.iterdir():
        m = RUN_FILE.match(f.name)
        if m:
            runs.setdefault(m[1], []).append(f)
    old = sorted(runs)[:-keep] if keep > 0 else sorted(runs)
    for stamp in old:
        for f in runs[stamp]:
            if f.is_dir():
                shutil.rmtree(f, ignore_errors=True)
            else:
                f.unlink(missing_ok=True)
    return old


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    out = ROOT / args.out if not Path(args.out).is_absolute() else Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # Two soaks started in the same second (make test runs two side by side) must not share files.
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-p{os.getpid()}"
    log_path = out / f"soak-{stamp}.log"
    api_port = free_port()
    base = f"http://127.0.0.1:{api_port}"
    env = daemon_env(args, out / f"soak-{stamp}.db", api_port)
    if args.chaos and args.server == "embedded":
        # a restarted daemon finds the same world again, as a supervised install would
        env["MCBOT_SERVER__WORLD_FOLDER"] = str(out / f"soak-{stamp}-world")
    interval = 5.0 if args.fast else 30.0
    with log_path.open("w", encoding="utf-8") as log:

        def say(line: str) -> None:
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()

        say(
            f"[Soak] start minutes={args.minutes} server={args.server} creative={args.creative} "
            f"scale={'fast' if args.fast else 'real'} api={base}"
        )
        daemon_log = (out / f"soak-{stamp}-daemon.log").open("a")
        deaths_log = LogTail(out / f"soak-{stamp}-daemon.log")

        def start_daemon() -> subprocess.Popen:
            daemon_log.write(f"---- soak: daemon started at {time.strftime('%H:%M:%S')} ----\n")
            daemon_log.flush()
            return subprocess.Popen(
                [sys.executable, "-m", "bot", "run"],
                cwd=ROOT,
                env=env,
                stdout=daemon_log,
                stderr=subprocess.STDOUT,
                preexec_fn=die_with_parent,
            )

        proc = start_daemon()
        chaos = None
        if args.chaos:
            seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
            chaos = Chaos(
                seed=seed, fast=args.fast, embedded=args.server == "embedded", base=base, restart=start_daemon, say=say
            )
            lo, hi = chaos.interval
            say(
                f"[Soak] chaos seed={seed} kinds={','.join(chaos.kinds)} every {lo:g}-{hi:g} s "
                f"(replay with --chaos --seed {seed})"
            )
        samples: list[dict[str, Any]] = []
        seen_thoughts: set[str] = set()
        carry = CounterCarry()
        t0 = time.monotonic()

        def take() -> dict[str, Any]:
            s = sample(base, t0, seen_thoughts, chaos=chaos is not None, daemon_log=deaths_log)
            if chaos is not None:
                s["counters"] = carry(s["counters"])
                chaos.track(proc)
            samples.append(s)
            return s

        try:
            if not wait_up(proc, base, 90):
                say("[Soak] FAIL daemon did not become healthy within 90 s")
                return 3
            served = server_version(env)
            say(f"[Soak] server {args.server} speaks {served}")
            deadline = t0 + args.minutes * 60
            if chaos is not None:
                chaos.schedule(time.monotonic(), deadline)
            while time.monotonic() < deadline and proc.poll() is None:
                if chaos is not None and chaos.next_at is not None and time.monotonic() >= chaos.next_at:
                    proc = chaos.inject(proc, round(time.monotonic() - t0, 1))
                    chaos.schedule(time.monotonic(), deadline)
                s = take()
                c = s["counters"]
                say(
                    f"[Soak] t={s['t']}s ok={s['ok']} drives={c.get('driveTicks')} goals={c.get('goalTags')} "
                    f"tasks={_by_status(s['tasks'])} stalled={len(s['stalled'])}"
                )
                time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
            take()
        finally:
            stop_daemon(proc)
            daemon_log.close()
        add_late_deaths(samples, deaths_log)
        report = evaluate(
            samples,
            creative=args.creative,
            daemon_alive_until_end=proc.returncode in (0, None),
            drive_interval_ms=cadence_ms(args.fast),
        )
        report.update(
            {
                "minutes": args.minutes,
                "server": args.server,
                "serverVersion": served,
                "creative": args.creative,
                "scale": {"mode": "fast", **FAST} if args.fast else {"mode": "real"},
                "samples": samples,
            }
        )
        # under chaos, cadence and closure are what the faults disturb on purpose: the SOAK-1
        # criteria are shown, and the verdict is what the faults cost (plus never wedged)
        shown = "(informational under chaos) " if chaos is not None else ""
        for c in report["criteria"]:
            say(
                f"[Soak] {'PASS' if c['pass'] else 'FAIL'} {c['id']} {c['name']}: {shown if c['id'] != 'alive' else ''}"
                f"{c['detail']}"
            )
        sh = report["shelters"]
        say(
            f"[Soak] shelters built={sh['built']} verified={sh['verified']} at_night={sh['atNight']} "
            f"failed={sh['failed']}"
        )
        if sh["failed"]:
            say(f"[Soak] shelter failures: {'; '.join(sh['failureReasons'])}")
        say(f"[Soak] stall classes: {json.dumps(report['stallClasses'])}")
        for st in report["stalls"]:
            say(
                f"[Soak] stall {st['id']} {st['goalKey']} {st['stallClass']} at t={st['stalledAt']}s "
                + (f"recovered at t={st['recoveredAt']}s by {st['by']}" if st["recovered"] else "not recovered")
            )
        limits = CompetenceLimits(
            min_task_success=args.min_task_success,
            milestone_game_days=args.milestone_game_days,
            wedge_s=wedge_s(args.fast),
        )
        for line in competence_lines(
            add_competence(report, samples, limits, chaos=chaos is not None, creative=args.creative)
        ):
            say(line)
        if chaos is not None:
            verdict = evaluate_chaos(
                samples, chaos.faults, chaos.leftovers(), judge_times=args.recovery_times == "bounds"
            )
            report["chaos"] = {"seed": chaos.seed, **verdict}
            alive = next(c for c in report["criteria"] if c["id"] == "alive")
            report["pass"] = alive["pass"] and verdict["pass"]  # competence: informational, like SOAK-1
            _say_chaos(say, verdict)
        say(f"[Soak] {'PASS' if report['pass'] else 'FAIL'} overall")
    report_path = out / f"soak-{stamp}-report.json"
    report_path.write_text(json.dumps(report, indent=2))
    chart = out / f"soak-{stamp}.png"
    write_chart(samples, chart)
    shutil.copyfile(report_path, out / "report.json")
    shutil.copyfile(chart, out / "chart.png")
    removed = prune_results(out)
    if removed:
        print(
            f"[Soak] removed {len(removed)} old runs from {out} (keeping the newest {KEEP_RUNS}): {', '.join(removed)}",
            flush=True,
        )
    return 0 if report["pass"] else 1


class CounterCarry:
    """A restarted daemon counts from 0 again: carry what the killed one had counted, so a
    chaos run's counters stay cumulative (criteria 1 and 6 read them across restarts)."""

    def __init__(self) -> None:
        self.raw: dict[str, float] = {}
        self.offset: dict[str, float] = {}

    def __call__(self, counters: dict[str, Any]) -> dict[str, Any]:
        for k, v in counters.items():
            if isinstance(v, (int, float)):
                if v < self.raw.get(k, 0):
                    self.offset[k] = self.offset.get(k, 0) + self.raw[k]
                self.raw[k] = v
        return {k: v + self.offset.get(k, 0) if isinstance(v, (int, float)) else v for k, v in counters.items()}


def _say_chaos(say: Any, verdict: dict[str, Any]) -> None:
    by_kind = " ".join(f"{k}={n}" for k, n in verdict["faultsByKind"].items())
    say(f"[Soak] chaos faults injected: {by_kind}")
    for kind, r in verdict["recovery"].items():
        if r["injected"]:
            say(
                f"[Soak] chaos recovery {kind}: {r['recovered']}/{r['injected']} recovered, "
                f"p50={r['p50S']} s max={r['maxS']} s (bound {r['boundS']:g} s)"
            )
    say(
        f"[Soak] chaos lost: tasks={len(verdict['tasksLost'])} ackedThoughts={len(verdict['thoughtsLost'])} "
        f"duplicateGoalKeys={len(verdict['duplicateGoalKeys'])} orphans={len(verdict['orphans'])}"
    )
    for c in verdict["criteria"]:
        say(f"[Soak] chaos {'PASS' if c['pass'] else 'FAIL'} {c['id']} {c['name']}: {c['detail']}")


def _by_status(tasks: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in tasks:
        out[t["status"]] = out.get(t["status"], 0) + 1
    return out


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # finally-blocks stop the daemon
    sys.exit(main())
