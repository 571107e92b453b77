"""The fleet soak: a daemon of N bots (fleet01..) on the embedded world, drive ticks on (each
bot pursues its own survival goals), hostiles as the world's default, run for MINUTES and
sampled every SAMPLE_S over the HTTP API (/api/bots and the live tasks). Judged by
bot/tooling/soak_fleet_verdict.py: no duplicate live goal, every bot alive, every bot worked;
with figures per bot (tasks, deaths, the final position).

    python -m bot.tooling.soak_fleet MINUTES [--bots 3] [--version 26.1] [--fast] [--out soak-results]

--fast applies the one-bot soak's scaled intervals (bot/tooling/soak_settings.py FAST). Writes
OUT/fleet-soak-<stamp>.json (samples and verdicts), OUT/fleet-soak-<stamp>.log (what was
printed), OUT/fleet-soak-<stamp>-daemon.log, and the daemon's config (.toml) and database
(.db). Exits 0 on PASS, 1 on FAIL, 3 when the daemon cannot start.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import httpx

from bot.config.loader import EMBEDDED_VERSIONS
from bot.runtime.server import free_port
from bot.tooling.competence import deaths_in
from bot.tooling.daemon_run import ROOT, LogTail, server_version, spawn_daemon, stop_daemon, wait_up
from bot.tooling.loopback_http import loopback
from bot.tooling.soak_fleet_verdict import SAMPLED, duplicates, evaluate, verdict_lines
from bot.tooling.soak_sample import add_late_deaths, get_json
from bot.tooling.soak_settings import FAST, daemon_env, stuck_timeout_ms

EXIT_PASS, EXIT_FAIL, EXIT_START = 0, 1, 3
SAMPLE_S = 5.0


def start_timeout_s(n: int) -> float:
    return 90.0 + 5.0 * n


def bot_names(n: int) -> list[str]:
    return [f"fleet{i:02d}" for i in range(1, n + 1)]


def config_text(names: Iterable[str]) -> str:
    return "".join(f'[[bots]]\nusername = "{name}"\n\n' for name in names)


# -- a sample ---------------------------------------------------------------------------------


def compact_task(t: dict[str, Any]) -> dict[str, Any]:
    meta = t.get("metadata") or {}
    binding = meta.get("goalBinding") or {}
    return {
        "id": t["id"],
        "status": t["status"],
        "progress": t.get("progress", 0),
        "goalKey": meta.get("goalKey"),
        "bot": meta.get("bot"),
        "heldBy": meta.get("heldBy"),
        "bindingKey": binding.get("goalKey"),
        "createdAt": meta.get("createdAt"),
    }


def compact_bot(b: dict[str, Any]) -> dict[str, Any]:
    p = b.get("position")
    pos = {k: round(p[k], 1) for k in "xyz"} if isinstance(p, dict) and all(k in p for k in "xyz") else None
    return {
        "name": b["name"],
        "connected": bool(b.get("connected")),
        "health": _one_place(b.get("health")),
        "food": _one_place(b.get("food")),
        "position": pos,
        "runningTaskId": b.get("runningTaskId"),
    }


def _one_place(x: Any) -> Any:
    return round(x, 1) if isinstance(x, (int, float)) and not isinstance(x, bool) else x


def take_sample(base: str, t: float, deaths: LogTail | None = None) -> dict[str, Any]:
    """One reading: the bots and the live (and unplannable) tasks; None where the API did not answer."""

    def get(path: str, **params: Any) -> Any:
        return get_json(base, path, timeout=10, **params)

    bots = get("/api/bots")
    tasks = get("/api/tasks", status=",".join(SAMPLED), limit=1000)
    out: dict[str, Any] = {
        "t": round(t, 1),
        "at": int(time.time() * 1000),  # the daemon's clock: tasks' createdAt
        "bots": [compact_bot(b) for b in bots["bots"]] if bots else None,
        "tasks": [compact_task(x) for x in tasks["tasks"]] if tasks else None,
    }
    if deaths is not None:
        out["deaths"] = deaths_in(deaths.read() or [])
    return out


# -- the run ----------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bot.tooling.soak_fleet")
    ap.add_argument("minutes", type=float)
    ap.add_argument("--bots", type=int, default=3, help="fleet size (default 3)")
    ap.add_argument(
        "--version",
        choices=EMBEDDED_VERSIONS,
        help="Minecraft version of the embedded world (default: server.embedded_version)",
    )
    ap.add_argument("--fast", action="store_true", help="the one-bot soak's scaled intervals (soak.FAST)")
    ap.add_argument("--out", default="soak-results")
    args = ap.parse_args(argv)
    if not 1 <= args.bots <= 99:
        ap.error("--bots: 1 to 99")
    if not (math.isfinite(args.minutes) and args.minutes > 0):
        ap.error("MINUTES must be above 0")
    return args


def finished_tasks(base: str, names: list[str]) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for name in names:
        try:
            page = (
                loopback()
                .get(f"{base}/api/tasks", params={"status": "completed,failed", "bot": name, "limit": 1000}, timeout=10)
                .json()
            )
        except (httpx.HTTPError, ValueError):
            page = {}
        out[name] = [compact_task(t) for t in page.get("tasks", [])]
    return out


def items_held(base: str, names: list[str]) -> dict[str, int | None]:
    """Each bot's item count from its snapshot (None when it could not be read)."""
    out: dict[str, int | None] = {}
    for name in names:
        try:
            snap = loopback().get(f"{base}/api/bots/{name}/snapshot", timeout=10).json()
            inventory = snap.get("inventory")
            out[name] = sum(int(i.get("count") or 0) for i in inventory) if isinstance(inventory, list) else None
        except (httpx.HTTPError, ValueError, AttributeError, TypeError):
            out[name] = None
    return out


def main(argv: list[str] | None = None, clock: Callable[[], float] = time.monotonic) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    out = Path(args.out) if Path(args.out).is_absolute() else ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-p{os.getpid()}"
    names = bot_names(args.bots)
    cfg = out / f"fleet-soak-{stamp}.toml"
    cfg.write_text(config_text(names))
    api_port = free_port()
    base = f"http://127.0.0.1:{api_port}"
    ns = argparse.Namespace(server="embedded", version=args.version, creative=False, fast=args.fast)
    env = daemon_env(ns, out / f"fleet-soak-{stamp}.db", api_port)
    daemon_log_path = out / f"fleet-soak-{stamp}-daemon.log"
    samples: list[dict[str, Any]] = []
    stuck_ms = stuck_timeout_ms(args.fast)
    with (out / f"fleet-soak-{stamp}.log").open("w", encoding="utf-8") as log:

        def say(line: str) -> None:
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()

        say(
            f"[Fleet soak] start minutes={args.minutes:g} bots={','.join(names)} "
            f"scale={'fast' if args.fast else 'real'} api={base} daemon log {daemon_log_path}"
        )
        proc = spawn_daemon(cfg, env, daemon_log_path)
        deaths = LogTail(daemon_log_path)
        try:
            if not wait_up(proc, base, start_timeout_s(args.bots)):
                say(
                    "[Fleet soak] FAIL the daemon did not say ok on /healthz within "
                    f"{start_timeout_s(args.bots):.0f} s "
                    f"(exit {proc.poll()}); its log ends:"
                )
                for line in daemon_log_path.read_text(errors="replace").splitlines()[-40:]:
                    say(f"    {line}")
                return EXIT_START
            say(f"[Fleet soak] server speaks {server_version(env)}")
            t0 = clock()
            deadline = t0 + args.minutes * 60
            while True:
                s = take_sample(base, clock() - t0, deaths)
                samples.append(s)
                say(_progress(s, stuck_ms))
                if clock() >= deadline or proc.poll() is not None:
                    break
                time.sleep(min(SAMPLE_S, max(0.0, deadline - clock())))
            finished = finished_tasks(base, names)
            holding = items_held(base, names)
        finally:
            stop_daemon(proc)
        add_late_deaths(samples, deaths)
        report = evaluate(samples, names, finished, stuck_ms, holding)
        if proc.returncode not in (0, None):
            say(f"[Fleet soak] the daemon exited {proc.returncode}")
        for line in verdict_lines(report):
            say(f"[Fleet soak] {line}")
    report.update(
        {
            "minutes": args.minutes,
            "bots": names,
            "version": args.version,
            "scale": {"mode": "fast", **FAST} if args.fast else {"mode": "real"},
            "daemonExit": proc.returncode,
            "daemonLog": str(daemon_log_path),
            "samples": samples,
        }
    )
    (out / f"fleet-soak-{stamp}.json").write_text(json.dumps(report, indent=2))
    return EXIT_PASS if report["pass"] else EXIT_FAIL


def _progress(s: dict[str, Any], stuck_ms: int | None) -> str:
    bots = (
        " ".join(
            f"{b['name']}={'up' if b['connected'] else 'DOWN'}/hp{b['health']}/{(b['runningTaskId'] or '-')[-8:]}"
            for b in s["bots"] or []
        )
        or "the API did not answer /api/bots"
    )
    by: dict[str, int] = {}
    for t in s["tasks"] or []:
        by[t["status"]] = by.get(t["status"], 0) + 1
    dups = duplicates(s, stuck_ms=stuck_ms)
    return f"[Fleet soak] t={s['t']}s {bots} tasks {' '.join(f'{k}={v}' for k, v in sorted(by.items())) or 'none'}" + (
        f" DUPLICATES {[d['key'] for d in dups]}" if dups else ""
    )


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the finally-block stops the daemon
    sys.exit(main())
