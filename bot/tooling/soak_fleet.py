"""The fleet soak: a daemon of N bots (fleet01..) on the embedded world, drive ticks on (each
bot pursues its own survival goals), hostiles as the world's default, run for MINUTES and
sampled every SAMPLE_S over the HTTP API (/api/bots and the live tasks). Judged:

  no-duplicate  no two live tasks with the same goal for the same binding (goalKey and bound
                bot; a task open to any bot is a binding of its own), and no two live
                goal-bound tasks with the same goalBinding.goalKey, in any sample; a task
                pending with no progress for the stuck timeout is left out (its twin is the
                stuck-timeout recovery, as in the one-bot soak)
  alive         every bot connected with health above 0 in the last sample, and connected in
                at least ALIVE_SHARE of the samples the API answered (a stalled daemon's
                unanswered samples are counted apart; more than half unanswered fails)
  worked        every bot held (metadata.heldBy) at least one task that completed, or ends
                holding items (each starts with nothing in a fresh world): a bot whose first
                gather a loaded machine stretched past the run's minutes still worked

Also reported per bot: tasks completed and failed, deaths seen (health 0 in a sample),
deaths the daemon's log recorded for it (a fleet's lines name their bot) and the final
position.

    python -m bot.tooling.soak_fleet MINUTES [--bots 3] [--version 26.1] [--fast] [--out soak-results]

--fast applies the one-bot soak's scaled intervals (bot/tooling/soak.py FAST). Writes
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
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import httpx

from bot.config.loader import EMBEDDED_VERSIONS
from bot.runtime.server import free_port
from bot.tooling.competence import deaths_in
from bot.tooling.daemon_run import ROOT, LogTail, server_version, spawn_daemon, stop_daemon, wait_up
from bot.tooling.loopback_http import loopback
from bot.tooling.soak import FAST, daemon_env, stuck_timeout_ms

EXIT_PASS, EXIT_FAIL, EXIT_START = 0, 1, 3
SAMPLE_S = 5.0
ALIVE_SHARE = 0.9
LIVE = ("pending", "pending_planning", "active", "paused")  # judged for duplicates
SAMPLED = (*LIVE, "unplannable")  # unplannable: sampled and shown, not judged (it suppresses no new task)


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
        try:
            return loopback().get(base + path, params=params, timeout=10).json()
        except (httpx.HTTPError, ValueError):
            return None

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


# -- judging (pure) ---------------------------------------------------------------------------


def stuck(task: dict[str, Any], at_ms: int | None, stuck_ms: int | None) -> bool:
    """Pending with no progress for the stuck timeout: a twin of it is the stuck-timeout
    recovery (agency/planning/tasks/idempotency.py), not a duplicate."""
    return (
        stuck_ms is not None
        and at_ms is not None
        and task["status"] in ("pending", "pending_planning")
        and not task.get("progress")
        and isinstance(task.get("createdAt"), int)
        and at_ms - task["createdAt"] >= stuck_ms
    )


def duplicates(
    sample: dict[str, Any], statuses: Iterable[str] = LIVE, stuck_ms: int | None = None
) -> list[dict[str, Any]]:
    """The duplicate goals of one sample: tasks in `statuses` sharing (goalKey, bound bot) (an
    open task's binding is None, its own), or sharing a goalBinding.goalKey; a stuck task
    (stuck_ms given) is left out."""
    wanted = set(statuses)
    live = [t for t in sample.get("tasks") or [] if t["status"] in wanted and not stuck(t, sample.get("at"), stuck_ms)]
    groups: dict[tuple[str, Any, Any], list[dict[str, Any]]] = {}
    for t in live:
        if t.get("goalKey"):
            groups.setdefault(("goalKey", t["goalKey"], t.get("bot")), []).append(t)
        if t.get("bindingKey"):
            groups.setdefault(("goalBinding", t["bindingKey"], None), []).append(t)
    return [
        {
            "t": sample.get("t"),
            "kind": kind,
            "key": key,
            "bot": bot,
            "tasks": [{"id": x["id"], "status": x["status"], "heldBy": x.get("heldBy")} for x in ts],
        }
        for (kind, key, bot), ts in groups.items()
        if len(ts) > 1
    ]


def _criterion(cid: str, name: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"id": cid, "name": name, "pass": ok, "detail": detail}


def judge_duplicates(samples: list[dict[str, Any]], stuck_ms: int | None = None) -> dict[str, Any]:
    found = [d for s in samples for d in duplicates(s, stuck_ms=stuck_ms)]
    read = [s for s in samples if s.get("tasks") is not None]
    most = max((sum(t["status"] in LIVE for t in s["tasks"]) for s in read), default=0)
    if not read:
        return _criterion("no-duplicate", "no duplicate live goal", False, "no sample read the tasks")
    keys = sorted(
        {f"{d['key']}@{d['bot'] or 'open'}" if d["kind"] == "goalKey" else f"binding {d['key']}" for d in found}
    )
    detail = (
        f"{len(found)} duplicates in {len(read)} samples: {', '.join(keys)}"
        if found
        else f"none in {len(read)} samples (at most {most} live tasks at once)"
    )
    return _criterion("no-duplicate", "no duplicate live goal", not found, detail)


def bot_series(samples: list[dict[str, Any]], name: str) -> list[dict[str, Any] | None]:
    """The bot's entry in each sample (None: not listed, or the API did not answer)."""
    return [
        next((b for b in s["bots"] or [] if b["name"] == name), None) if s.get("bots") is not None else None
        for s in samples
    ]


def judge_alive(samples: list[dict[str, Any]], names: list[str], share: float = ALIVE_SHARE) -> dict[str, Any]:
    """Connected with health above 0 in the last sample, and connected in `share` of the samples
    the API answered (a sample it did not answer, a stalled daemon, says nothing about a bot's
    connection; it is counted apart, and more than half of them unanswered fails)."""
    answered = [s for s in samples if s.get("bots") is not None]
    if not answered or len(answered) * 2 < len(samples):
        return _criterion(
            "alive", "every bot alive", False, f"the API answered {len(answered)} of {len(samples)} samples"
        )
    bad, parts = [], []
    for name in names:
        series = bot_series(answered, name)
        up = sum(bool(b and b["connected"]) for b in series) / len(series)
        last = bot_series(samples[-1:], name)[0]
        alive_at_end = bool(last and last["connected"] and (last.get("health") or 0) > 0)
        parts.append(f"{name} connected {up:.0%}, end health {last.get('health') if last else None}")
        if not alive_at_end or up < share:
            bad.append(name)
    unanswered = len(samples) - len(answered)
    detail = "; ".join(parts) + (f" (API unanswered in {unanswered} of {len(samples)} samples)" if unanswered else "")
    if bad:
        detail += f" (need connected and health > 0 at the end, connected in >= {share:.0%}); FAILED: {', '.join(bad)}"
    return _criterion("alive", "every bot alive", not bad, detail)


def judge_worked(
    completed: dict[str, list[dict[str, Any]]], items_held: dict[str, int | None] | None = None
) -> dict[str, Any]:
    """completed: bot -> the completed tasks /api/tasks?bot= listed for it; counts those it held.
    items_held: bot -> the items in its inventory at the end (None: not read)."""
    held = {name: sum(t.get("heldBy") == name for t in tasks) for name, tasks in completed.items()}
    items = items_held or {}
    idle = [n for n, k in held.items() if k == 0 and not items.get(n)]
    detail = ", ".join(f"{n} {k}" for n, k in held.items()) + " completed tasks held"
    gathered = [f"{n} {items[n]}" for n, k in held.items() if k == 0 and items.get(n)]
    if gathered:
        detail += f"; no task finished but items gathered: {', '.join(gathered)}"
    return _criterion(
        "worked",
        "every bot completed a task it held or gathered something",
        bool(held) and not idle,
        detail + (f"; none by {', '.join(idle)}" if idle else ""),
    )


def per_bot(
    samples: list[dict[str, Any]],
    names: list[str],
    finished: dict[str, list[dict[str, Any]]],
    log_deaths: Sequence[dict[str, Any]] = (),
) -> dict[str, dict[str, Any]]:
    """Per bot: completed and failed tasks it held, health-0 readings (deaths seen), the
    deaths the log recorded for it, where it ended."""
    out = {}
    for name in names:
        series = bot_series(samples, name)
        seen = [b for b in series if b]
        tasks = [t for t in finished.get(name, []) if t.get("heldBy") == name]
        out[name] = {
            "completed": sum(t["status"] == "completed" for t in tasks),
            "failed": sum(t["status"] == "failed" for t in tasks),
            "deathsSeen": sum(
                1
                for a, b in zip([None, *seen], seen, strict=False)
                if b.get("health") == 0 and (a is None or a.get("health") != 0)
            ),
            "deathsLogged": sum(d.get("bot") == name for d in log_deaths),
            "finalPosition": next((b["position"] for b in reversed(seen) if b.get("position")), None),
            "finalHealth": seen[-1].get("health") if seen else None,
            "connectedShare": _connected_share(samples, name),
        }
    return out


def _connected_share(samples: list[dict[str, Any]], name: str) -> float:
    """Of the samples the API answered."""
    series = bot_series([s for s in samples if s.get("bots") is not None], name)
    return round(sum(bool(b and b["connected"]) for b in series) / len(series), 3) if series else 0.0


def evaluate(
    samples: list[dict[str, Any]],
    names: list[str],
    finished: dict[str, list[dict[str, Any]]],
    stuck_ms: int | None = None,
    items_held: dict[str, int | None] | None = None,
) -> dict[str, Any]:
    """finished: bot -> its completed and failed tasks at the end (from /api/tasks?bot=);
    stuck_ms: the daemon's stuck timeout; items_held: bot -> the items it holds at the end."""
    completed = {n: [t for t in finished.get(n, []) if t["status"] == "completed"] for n in names}
    criteria = [judge_duplicates(samples, stuck_ms), judge_alive(samples, names), judge_worked(completed, items_held)]
    # shown, not judged: an unplannable task suppresses no new one (agency/planning/tasks/idempotency.py)
    with_unplannable = sorted(
        {
            d["key"]
            for s in samples
            for d in duplicates(s, SAMPLED)
            if any(x["status"] == "unplannable" for x in d["tasks"])
        }
    )
    log_deaths = [d for s in samples for d in s.get("deaths") or []]
    return {
        "pass": all(c["pass"] for c in criteria),
        "criteria": criteria,
        "bots": {
            name: {**b, "items": (items_held or {}).get(name)}
            for name, b in per_bot(samples, names, finished, log_deaths).items()
        },
        "sameGoalAsUnplannable": with_unplannable,
        "logDeaths": log_deaths,
    }


def verdict_lines(report: dict[str, Any]) -> list[str]:
    lines = [f"{'PASS' if c['pass'] else 'FAIL'} {c['id']}: {c['detail']}" for c in report["criteria"]]
    lines.append(
        f"{'bot':<10}{'completed':>10}{'failed':>8}{'deaths':>8}{'logged':>8}{'health':>8}{'connected':>11}"
        f"{'items':>7}  final position"
    )
    for name, b in report["bots"].items():
        p = b["finalPosition"]
        where = f"{p['x']:.0f} {p['y']:.0f} {p['z']:.0f}" if p else "-"
        lines.append(
            f"{name:<10}{b['completed']:>10}{b['failed']:>8}{b['deathsSeen']:>8}{b['deathsLogged']:>8}"
            f"{b['finalHealth']!s:>8}"
            f"{b['connectedShare']:>11.0%}{b.get('items')!s:>7}  {where}"
        )
    if report["sameGoalAsUnplannable"]:
        lines.append(
            f"(not judged) live again beside an unplannable task: {', '.join(report['sameGoalAsUnplannable'])}"
        )
    causes = ", ".join(f"{d.get('bot', '?')} {d['cause']}" for d in report["logDeaths"]) or "none"
    lines.append(f"deaths in the daemon's log: {len(report['logDeaths'])} ({causes})")
    lines.append(f"{'PASS' if report['pass'] else 'FAIL'} overall")
    return lines


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
        if samples:
            samples[-1]["deaths"] = samples[-1].get("deaths", []) + deaths_in(deaths.read() or [])
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
