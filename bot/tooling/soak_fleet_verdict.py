"""The fleet soak's verdict (bot/tooling/soak_fleet.py runs it and prints these lines): pure
functions over its samples and the tasks each bot finished. Judged:

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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

ALIVE_SHARE = 0.9
LIVE = ("pending", "pending_planning", "active", "paused")  # judged for duplicates
SAMPLED = (*LIVE, "unplannable")  # unplannable: sampled and shown, not judged (it suppresses no new task)


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
