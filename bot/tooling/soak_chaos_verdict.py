"""The chaos verdict of a soak run with --chaos: what the faults bot/tooling/soak_chaos.py
injected cost (recovery times, tasks and acked thoughts lost, duplicate goal keys, orphan
processes)."""

from __future__ import annotations

from typing import Any

from agency.planning.converter import SUPERSEDED
from agency.stats import percentile
from bot.tooling.soak_criteria import crit, duplicates

FAULT_KINDS = ("bridge", "world", "daemon")
RECOVERY_MAX_S = {"bridge": 10.0, "world": 30.0, "daemon": 30.0}  # healthz ok again within
FAULT_WINDOW_S = 30.0  # a task that failed this soon after a fault is counted as the fault's
FAULT_WORDS = ("bridgedead", "disconnect", "died", "kicked", "socket closed", "end of stream")


def _recoveries(faults: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per kind: faults injected, recovered (healthz ok again), p50/max seconds to recover."""
    out = {}
    for kind in FAULT_KINDS:
        mine = [f for f in faults if f["kind"] == kind]
        times = [f["recoveryS"] for f in mine if f.get("recoveryS") is not None]
        out[kind] = {
            "injected": len(mine),
            "recovered": len(times),
            "p50S": percentile(times, 0.5),
            "maxS": max(times) if times else None,
            "boundS": RECOVERY_MAX_S[kind],
        }
    return out


def _lost_tasks(samples: list[dict[str, Any]], faults: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A task that ended failed because of a fault (its reason names the bridge or a
    disconnect, or it failed within FAULT_WINDOW_S of a fault), or one that vanished: seen
    in one reachable sample and absent from a later one. A task its goal's retry superseded
    (agency/planning/converter.py) is not lost when the retry is seen: the goal lives on there."""
    every_id = {t["id"] for s in samples if s.get("reachable", True) for t in s["tasks"]}
    lost: dict[str, dict[str, Any]] = {}
    seen: dict[str, float] = {}
    prev_t = None
    for s in samples:
        if not s.get("reachable", True):
            continue
        ids = {t["id"] for t in s["tasks"]}
        for tid, t_seen in seen.items():
            if tid not in ids and tid not in lost:
                lost[tid] = {"id": tid, "how": "vanished", "detail": f"seen at t={t_seen:g}s, gone at t={s['t']:g}s"}
        for t in s["tasks"]:
            seen[t["id"]] = s["t"]
            if t["status"] != "failed" or t["id"] in lost or _successor(t) in every_id:
                continue
            reason = t.get("failureReason") or ""
            named = any(w in reason.lower() for w in FAULT_WORDS)
            near = [f for f in faults if f["t"] <= s["t"] and (prev_t is None or prev_t <= f["t"] + FAULT_WINDOW_S)]
            if named or (near and t["id"] not in _failed_before(samples, s, t["id"])):
                lost[t["id"]] = {
                    "id": t["id"],
                    "how": "failed",
                    "goalKey": t.get("goalKey"),
                    "detail": reason or "no reason",
                    "fault": near[-1]["kind"] if near else None,
                }
        prev_t = s["t"]
    return list(lost.values())


def _successor(task: dict[str, Any]) -> str | None:
    """The task that took over a superseded one ("superseded by task-X: ..."), else None."""
    reason = str(task.get("blockedReason") or "")
    if not reason.startswith(SUPERSEDED):
        return None
    return reason[len(SUPERSEDED) :].strip().split(":", 1)[0] or None


def _failed_before(samples: list[dict[str, Any]], upto: dict[str, Any], tid: str) -> set[str]:
    """{tid} when the task was already failed in a reachable sample before `upto`."""
    for s in samples:
        if s is upto:
            return set()
        if s.get("reachable", True) and any(t["id"] == tid and t["status"] == "failed" for t in s["tasks"]):
            return {tid}
    return set()


def _lost_thoughts(samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Thoughts seen processed (acked) that a later reachable sample no longer shows as
    processed. Each sample holds the newest processed thoughts as [id, timestamp]; a full
    page covers only timestamps from its oldest entry on, so older ones are not judged."""
    acked: dict[str, tuple[int, float]] = {}  # id -> (timestamp, first seen acked at)
    lost: dict[str, dict[str, Any]] = {}
    for s in samples:
        if not s.get("reachable", True) or s.get("processed") is None:
            continue
        page = dict(s["processed"])
        covers = min(page.values()) if s.get("processedFull") and page else None
        for tid, (ts, at) in acked.items():
            if tid not in page and tid not in lost and (covers is None or ts >= covers):
                lost[tid] = {"id": tid, "detail": f"acked by t={at:g}s, not processed at t={s['t']:g}s"}
        for tid, ts in page.items():
            acked.setdefault(tid, (ts, s["t"]))
    return list(lost.values())


def evaluate_chaos(
    samples: list[dict[str, Any]], faults: list[dict[str, Any]], orphans: list[str], judge_times: bool = True
) -> dict[str, Any]:
    """The chaos verdict: FAIL on any task or acked thought lost, any duplicate live goal
    key, any orphan process, or a fault not recovered (within its bound, unless judge_times
    is off: then the times are figures, as on a machine shared with other worlds)."""
    rec = _recoveries(faults)
    tasks = _lost_tasks(samples, faults)
    thoughts = _lost_thoughts(samples)
    dups = sorted({k for s in samples if s.get("reachable", True) for k in duplicates(s)})
    slow = [f for f in faults if f.get("recoveryS") is None or f["recoveryS"] > RECOVERY_MAX_S[f["kind"]]]
    unrecovered = [f for f in faults if f.get("recoveryS") is None]
    recovered = "; ".join(
        f"{k}: {v['recovered']}/{v['injected']} p50={v['p50S']} max={v['maxS']} s (bound {v['boundS']:g} s)"
        for k, v in rec.items()
    )
    if slow:
        recovered += f"; slow or unrecovered: {[(f['kind'], f['t'], f.get('recoveryS')) for f in slow]}"
    if not judge_times:
        recovered += "; times are figures here (--recovery-times figures), not judged"
    crits = [
        crit(
            "C1",
            "faults recovered in time" if judge_times else "faults recovered",
            not (slow if judge_times else unrecovered),
            recovered,
        ),
        crit("C2", "no task lost", not tasks, f"{len(tasks)} lost: {tasks[:5]}" if tasks else "0 lost"),
        crit(
            "C3",
            "no acked thought lost",
            not thoughts,
            f"{len(thoughts)} lost: {thoughts[:5]}" if thoughts else "0 lost",
        ),
        crit("C4", "no duplicate live goal key", not dups, f"duplicates: {dups}" if dups else "none"),
        crit("C5", "no orphan process", not orphans, f"orphans: {orphans}" if orphans else "none"),
    ]
    return {
        "pass": all(c["pass"] for c in crits),
        "criteria": crits,
        "faults": faults,
        "faultsByKind": {k: v["injected"] for k, v in rec.items()},
        "recovery": rec,
        "tasksLost": tasks,
        "thoughtsLost": thoughts,
        "duplicateGoalKeys": dups,
        "orphans": orphans,
    }
