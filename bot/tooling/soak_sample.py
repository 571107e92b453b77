"""What the soaks read of the daemon they run. `sample` is the one-bot soak's reading of its
HTTP API (counters, tasks, stalls, every thought once, the bot's position and inventory, and the
deaths its log recorded since the last reading); the survival bench takes it too. The fleet
soak (bot/tooling/soak_fleet.py) takes a reading of its own but through the same GET
(`get_json`), and both soaks add the deaths logged after their last sample alike
(`add_late_deaths`).
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from bot.tooling.competence import deaths_in
from bot.tooling.daemon_run import LogTail
from bot.tooling.loopback_http import loopback

PROCESSED_PAGE = 500  # the API's page limit for /api/cognitive-stream/recent


def get_json(base: str, path: str, timeout: float, **params: Any) -> Any:
    """The JSON answer to GET base + path, or None when the daemon did not answer (down, or its
    event loop stalled) or answered no JSON: a sample records what it could not read as None."""
    try:
        return loopback().get(base + path, params=params or None, timeout=timeout).json()
    except (httpx.HTTPError, ValueError):
        return None


def add_late_deaths(samples: list[dict[str, Any]], daemon_log: LogTail) -> None:
    """What the daemon logged after the last sample (a death in its last second) goes into that
    sample's deaths."""
    if samples:
        samples[-1]["deaths"] = samples[-1].get("deaths", []) + deaths_in(daemon_log.read() or [])


def sample(
    base: str, t0: float, seen_thoughts: set[str], chaos: bool = False, daemon_log: LogTail | None = None
) -> dict[str, Any]:
    """One reading of the daemon's API. Thoughts are recorded once each (compact), in the
    first sample that sees them: criterion 7 reads the source thought of every task. A chaos
    run also records the newest processed thoughts (id, timestamp), to find acked ones lost,
    and whether the API answered at all (an unreachable daemon lost nothing by not answering).
    For competence: the bot's position and inventory (name -> count), why the reflexes hold
    its body and whether one acts, and the deaths the daemon logged since the last sample (read from
    its log: the API has no death record)."""

    def get(path: str) -> Any:
        return get_json(base, path, timeout=5)

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
        **_reflexes(get("/api/bots")),
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


def _reflexes(bots: Any) -> dict[str, Any]:
    """The one bot's reflexes in GET /api/bots: why they hold its body (`reflexHold`: a fight,
    a forage, cover, the night's shelter; None when they do not or it was not read) and
    whether one acts this moment (`reflexActing`: a bot fleeing a creeper with its task paused
    is at work, one sitting in its shelter is not; competence.idle_share)."""
    items = bots.get("bots") if isinstance(bots, dict) else None
    first = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
    hold = first.get("reflexHold")
    return {"reflexHold": hold if isinstance(hold, str) else None, "reflexActing": first.get("reflexActing") is True}


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
