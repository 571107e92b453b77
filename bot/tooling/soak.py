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
"""

from __future__ import annotations

import argparse
import json
import math
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

import httpx

from agency.cognition.drive_tick import DRIVE_TICK_INTERVAL_MS
from agency.cognition.settings import DriveTickConfig
from bot.config.loader import EMBEDDED_VERSIONS
from bot.runtime.server import free_port
from bot.tooling.competence import CompetenceLimits, deaths_in
from bot.tooling.daemon_run import ROOT, LogTail, die_with_parent, server_version, stop_daemon, wait_up
from bot.tooling.loopback_http import loopback
from bot.tooling.soak_chaos import Chaos
from bot.tooling.soak_report import add_competence, competence_lines, evaluate, evaluate_chaos, write_chart

FAST = {  # --fast: CI-sized intervals; the report states the scale
    "MCBOT_DRIVE_TICK__INTERVAL_MS": "20000",
    "MCBOT_DRIVE_TICK__STUCK_TIMEOUT_MS": "60000",
    "MCBOT_JOBS__DRIVE_TICK_S": "2",
    "MCBOT_JOBS__COUNTERS_LOG_S": "15",
    "MCBOT_SERVER__DAY_LENGTH_SCALE": "0.1",
}


KEEP_RUNS = 20  # soak runs kept in the output folder
RUN_FILE = re.compile(r"^soak-(\d{8}-\d{6}(?:-p\d+)?)")  # a run's stamp: its start, and its process
PROCESSED_PAGE = 500  # the API's page limit for /api/cognitive-stream/recent


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


def cadence_ms(fast: bool) -> int:
    """The drive-tick cadence criterion 1 expects: DRIVE-1's 180 s, scaled in a fast soak
    by the factor FAST scales the daemon's drive-tick interval."""
    scale = int(FAST["MCBOT_DRIVE_TICK__INTERVAL_MS"]) / DRIVE_TICK_INTERVAL_MS if fast else 1.0
    return round(DRIVE_TICK_INTERVAL_MS * scale)


def stuck_timeout_ms(fast: bool) -> int:
    """The stuck timeout the soaked daemon runs with (fast: 60 s, real: the default 300 s)."""
    return int(FAST["MCBOT_DRIVE_TICK__STUCK_TIMEOUT_MS"]) if fast else DriveTickConfig().stuck_timeout_ms


def wedge_s(fast: bool) -> float:
    """The competence wedge window: twice the stuck timeout the daemon runs with (fast: 60 s,
    real: the default 300 s), so a task the stuck-timeout recovery could have replaced has
    had its chance."""
    return 2 * stuck_timeout_ms(fast) / 1000


def _fraction(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number: give a fraction from 0 to 1 (0.8 = 80 %)"
        ) from None
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a fraction from 0 to 1 (0.8 = 80 %)")
    return x


def _game_days(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of game days") from None
    if not (math.isfinite(x) and x > 0):
        raise argparse.ArgumentTypeError(f"{text} game days: the window must be above 0")
    return x


def parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="soak.sh")
    ap.add_argument("minutes", type=float)
    ap.add_argument("--server", default="embedded", help="embedded (default) or HOST:PORT")
    ap.add_argument(
        "--version",
        choices=EMBEDDED_VERSIONS,
        help="Minecraft version of the embedded world (default: server.embedded_version)",
    )
    ap.add_argument("--creative", action="store_true", help="play in creative mode (checks criterion 8)")
    ap.add_argument("--fast", action="store_true", help="scaled intervals for CI")
    ap.add_argument("--out", default="soak-results")
    ap.add_argument(
        "--chaos", action="store_true", help="kill the bridge, the embedded world and the daemon at random intervals"
    )
    ap.add_argument("--seed", type=int, help="the chaos schedule's seed (default: random, printed)")
    ap.add_argument(
        "--recovery-times",
        choices=("bounds", "figures"),
        default="bounds",
        help="judge each fault's recovery against its bound (default), or only print the times "
        "(make test: its soaks share the machine with other worlds)",
    )
    limits = CompetenceLimits()
    ap.add_argument(
        "--min-task-success",
        type=_fraction,
        default=limits.min_task_success,
        metavar="FRACTION",
        help="competence K1: FAIL when completed / finished tasks is below this "
        f"(default {limits.min_task_success:g}; judged from "
        f"{limits.min_finished_tasks} finished tasks)",
    )
    ap.add_argument(
        "--milestone-game-days",
        type=_game_days,
        default=limits.milestone_game_days,
        metavar="DAYS",
        help="competence K2: FAIL after this many game days without a new tech-tree milestone "
        f"(default {limits.milestone_game_days:g})",
    )
    args = ap.parse_args(argv)
    if args.version and args.server != "embedded":
        ap.error("--version chooses the embedded world's version; your server speaks its own")
    if args.seed is not None and not args.chaos:
        ap.error("--seed seeds the --chaos schedule")
    return args


def daemon_env(args: argparse.Namespace, db: Path, api_port: int) -> dict[str, str]:
    env = {
        **os.environ,
        "MCBOT_STORAGE__DB_PATH": str(db),
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_VIEWER__PORT": str(free_port()),  # daemons side by side: a 3D view each
        "MCBOT_LOGGING__FILE": "",
        "MCBOT_SERVER__WORLD_FOLDER": "",  # a new world each soak (--chaos keeps one, below)
    }
    if env.get("MCBOT_LOGGING__LEVEL", "").upper() not in ("TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING"):
        env["MCBOT_LOGGING__LEVEL"] = "INFO"  # competence K3 reads the deaths the daemon logs (WARNING)
    if args.server == "embedded":
        env["MCBOT_SERVER__PORT"] = str(free_port())
        env["MCBOT_SERVER__HOST"] = ""
        if args.version:
            env["MCBOT_SERVER__EMBEDDED_VERSION"] = args.version
    else:
        host, _, port = args.server.rpartition(":")
        env["MCBOT_SERVER__HOST"], env["MCBOT_SERVER__PORT"] = host, port
    if args.creative:
        env["MCBOT_SERVER__GAME_MODE"] = "creative"
    if args.fast:
        env.update(FAST)
    return env


def sample(
    base: str, t0: float, seen_thoughts: set[str], chaos: bool = False, daemon_log: LogTail | None = None
) -> dict[str, Any]:
    """One reading of the daemon's API. Thoughts are recorded once each (compact), in the
    first sample that sees them: criterion 7 reads the source thought of every task. A chaos
    run also records the newest processed thoughts (id, timestamp), to find acked ones lost,
    and whether the API answered at all (an unreachable daemon lost nothing by not answering).
    For competence: the bot's position and inventory (name -> count), and the deaths the
    daemon logged since the last sample (read from its log: the API has no death record)."""

    def get(path: str) -> Any:
        try:
            r = loopback().get(base + path, timeout=5)
            return r.json()
        except (httpx.HTTPError, ValueError):
            return None

    health = get("/healthz") or {}
    snap = get("/api/bot/snapshot") or {}
    task_page = get("/api/tasks?limit=1000")
    tasks = (task_page or {}).get("tasks", [])
    stalled = (get("/api/tasks?stalled=true&limit=1000") or {}).get("tasks", [])
    recent = (get("/api/cognitive-stream/recent?limit=500") or {}).get("thoughts", [])
    thoughts = [_thought(th) for th in recent if th["id"] not in seen_thoughts]
    seen_thoughts.update(th["id"] for th in thoughts)
    out: dict[str, Any] = {
        "t": round(time.monotonic() - t0, 1),
        "ok": bool(health.get("ok")),
        "counters": get("/api/agency/counters") or {},
        "health": snap.get("health"),
        "gameMode": snap.get("gameMode"),
        # the world clock, so the report can tell shelters finished at night (absent when disconnected)
        "timeOfDay": snap.get("timeOfDay"),
        "isDay": snap.get("isDay"),
        "tasks": [_task(t) for t in tasks],
        "stalled": [{"id": s["id"], "stallClass": s["stallClass"]} for s in stalled],
        "thoughts": thoughts,
        "position": _position(snap.get("position")),
        "inventory": _inventory(snap.get("inventory")),
    }
    if daemon_log is not None:
        read = daemon_log.read()
        out["deathsRead"] = read is not None
        out["deaths"] = deaths_in(read or [])
    if chaos:
        page = get(f"/api/cognitive-stream/recent?processed=true&limit={PROCESSED_PAGE}")
        done = (page or {}).get("thoughts")
        out["reachable"] = task_page is not None and done is not None
        out["processed"] = [[th["id"], th.get("timestamp")] for th in done or []]
        out["processedFull"] = len(done or []) >= PROCESSED_PAGE
    return out


def _position(p: Any) -> dict[str, float] | None:
    if not isinstance(p, dict) or not all(isinstance(p.get(k), (int, float)) for k in "xyz"):
        return None
    return {k: round(p[k], 1) for k in "xyz"}


def _inventory(items: Any) -> dict[str, int] | None:
    if not isinstance(items, list):
        return None  # not read (the snapshot was unavailable)
    out: dict[str, int] = {}
    for i in items:
        if isinstance(i, dict) and i.get("name"):
            out[i["name"]] = out.get(i["name"], 0) + int(i.get("count") or 0)
    return out


def _thought(th: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": th["id"],
        "convertEligible": th.get("convertEligible"),
        "timestamp": th.get("timestamp"),
        "cognitiveSystem": th.get("cognitiveSystem"),
    }


def _task(t: dict[str, Any]) -> dict[str, Any]:
    meta = t.get("metadata") or {}
    solver = meta.get("solver") or {}
    origin = meta.get("origin") or {}
    out = {
        "id": t["id"],
        "status": t["status"],
        "progress": t.get("progress", 0),
        "source": t.get("source"),
        "goalKey": meta.get("goalKey"),
        "createdAt": meta.get("createdAt"),
        "convertEligible": meta.get("convertEligible"),
        "solver": meta.get("solver"),
        "failureReason": solver.get("failureReason"),
        "blockedReason": meta.get("blockedReason"),
        # the thought it came from (a goal-bound task is stamped with it after creation)
        "sourceThoughtId": meta.get("sourceThoughtId") or origin.get("sourceId"),
    }
    if meta.get("goalBinding"):
        out["goal"] = _goal(meta["goalBinding"])
    return out


def _goal(b: dict[str, Any]) -> dict[str, Any]:
    """A compact view of a goalBinding (agency.goals.models): the API dumps with
    exclude_none, so any field may be missing."""
    completion = b.get("completion") or {}
    last = completion.get("lastResult") or {}
    return {
        "goalType": b.get("goalType"),
        "consecutivePasses": completion.get("consecutivePasses") or 0,
        "lastVerifiedAt": completion.get("lastVerifiedAt"),
        "done": last.get("done"),
        "blockers": last.get("blockers") or [],
        "anchored": bool((b.get("anchors") or {}).get("siteSignature")),
    }


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
        if samples:  # what the daemon logged after the last sample (a death in its last second)
            late = deaths_log.read()
            samples[-1]["deaths"] = samples[-1].get("deaths", []) + deaths_in(late or [])
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
