"""The soak's acceptance criteria, judged from its API samples: the eight of docs/contracts.md
SOAK-1, the stall classes of SOAK-2 with each stall's recovery, and an informational count of
shelters built and verified at night.

Every criterion reads something the run could get wrong, never a field that is always set:
cadence from the tasks' tick times, criterion 7 from the source thoughts themselves (the
converter stamps convertEligible=true on every task it makes), criterion 6 and 8 only from
counters actually read."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from agency.cognition.drive_tick import DRIVE_TICK_INTERVAL_MS
from agency.world import is_dusk_or_night

TERMINAL = ("completed", "failed")
STARTED = ("active", "completed", "failed", "paused")
THOUGHT_SOURCES = ("drive-tick", "thought")  # task sources that come out of a thought
# Criterion 1: drive ticks create tasks "at ~3 min intervals". Never faster than this share
# of the interval (a tick fires once the interval has elapsed; a task's creation trails its
# tick by a planning poll), and at least one gap within CADENCE_MAX intervals (a tick fires
# at the first job run after it is due, unless its goal is already in flight).
CADENCE_MIN = 0.9
CADENCE_MAX = 1.5
MAX_FAILURE_REASONS = 5


def _last(samples: list[dict[str, Any]]) -> dict[str, Any]:
    return samples[-1] if samples else {"counters": {}, "tasks": [], "stalled": [], "ok": False}


def crit(cid: str, name: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"id": cid, "name": name, "pass": bool(ok), "detail": detail}


def duplicates(sample: dict[str, Any]) -> list[str]:
    """goalKeys with more than one live task that is moving (active, or with progress):
    a stuck pending duplicate is the stuck-timeout recovery, not a violation."""
    live: dict[str, list[dict[str, Any]]] = {}
    for t in sample["tasks"]:
        if t["status"] not in TERMINAL and t["status"] != "unplannable" and t["goalKey"]:
            live.setdefault(t["goalKey"], []).append(t)
    return [k for k, ts in live.items() if len([t for t in ts if t["status"] == "active" or t["progress"] > 0]) > 1]


def _is_night_or_dusk(sample: dict[str, Any]) -> bool:
    """Night per the snapshot (isDay False) or dusk (11000 <= timeOfDay < 13000, the drive
    tick's "night approaching"): drive ticks ask for a shelter from dusk on, so a shelter
    finished then is the one meant for the night. Samples without a clock count as day."""
    return is_dusk_or_night(sample.get("timeOfDay"), sample.get("isDay"))


def _is_shelter(task: dict[str, Any]) -> bool:
    goal = task.get("goal")
    return goal is not None and (
        (task.get("goalKey") or "").startswith("build:") or (goal.get("goalType") or "").startswith("build_shelter")
    )


def shelters(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Goal-bound shelter tasks: built (completed), verified (completed, >= 2 consecutive
    verifier passes and done at the last view), at night (verified and first seen completed
    in a night or dusk sample), failed with reasons. Informational, not a SOAK-1 criterion."""
    tasks = {t["id"]: t for s in samples for t in s["tasks"]}  # latest view of each task
    first_done: dict[str, dict[str, Any]] = {}  # id -> sample in which it was first seen completed
    for s in samples:
        for t in s["tasks"]:
            if t["status"] == "completed":
                first_done.setdefault(t["id"], s)
    items, reasons = [], []
    for t in filter(_is_shelter, tasks.values()):
        goal, done_at = t["goal"], first_done.get(t["id"])
        verified = t["status"] == "completed" and (goal.get("consecutivePasses") or 0) >= 2 and goal.get("done") is True
        items.append(
            {
                "id": t["id"],
                "status": t["status"],
                "passes": goal.get("consecutivePasses") or 0,
                "verified": verified,
                "atNight": verified and done_at is not None and _is_night_or_dusk(done_at),
                "firstCompletedAt": done_at["t"] if done_at else None,
                "timeOfDay": done_at.get("timeOfDay") if done_at else None,
            }
        )
        if t["status"] == "failed":
            reason = t.get("failureReason") or (t.get("solver") or {}).get("failureReason") or "unknown"
            if reason not in reasons:
                reasons.append(reason)
    return {
        "built": sum(i["status"] == "completed" for i in items),
        "verified": sum(i["verified"] for i in items),
        "atNight": sum(i["atNight"] for i in items),
        "failed": sum(i["status"] == "failed" for i in items),
        "failureReasons": reasons[:MAX_FAILURE_REASONS],
        "nightSamples": sum(_is_night_or_dusk(s) for s in samples),
        "items": items,
    }


def _tick_times(drive_tasks: list[dict[str, Any]], thoughts: dict[str, dict[str, Any]]) -> list[int]:
    """When each drive tick that made tasks fired: its source thought's timestamp (exact), else
    the task's creation (up to one planning poll later). One time per tick: the follow-ups a
    night's hut queues once verified are a second task of its tick's thought
    (agency/execution/after_goal.py), not a second tick."""
    times = []
    seen: set[str] = set()
    for t in drive_tasks:
        source = t.get("sourceThoughtId") or ""
        if source in seen:
            continue
        if source:
            seen.add(source)
        thought = thoughts.get(source)
        at = thought["timestamp"] if thought and thought.get("timestamp") is not None else t.get("createdAt")
        if at is not None:
            times.append(at)
    return sorted(times)


def _cadence(drives: int, goals: int, times: list[int], interval_ms: int, span_ms: float) -> dict[str, Any]:
    """1: counters > 0, and ticks produce tasks about one interval apart: never faster, and
    (in a run long enough to see two intervals) at least two tasks, one gap near it."""
    gaps = [b - a for a, b in itertools.pairwise(times)]
    fast = [g for g in gaps if g < CADENCE_MIN * interval_ms]
    measurable = span_ms >= 2 * interval_ms
    reached = any(g <= CADENCE_MAX * interval_ms for g in gaps)
    ok = drives > 0 and goals > 0 and not fast and (not measurable or reached)
    shown = ", ".join(f"{g / 1000:.1f}" for g in gaps[:12]) + (", ..." if len(gaps) > 12 else "")
    detail = (
        f"driveTicks={drives} goalTags={goals}; {len(times)} drive-tick tasks, gaps [{shown}] s "
        f"(expected about {interval_ms / 1000:.1f} s)"
    )
    if fast:
        detail += f"; {len(fast)} gaps shorter than {CADENCE_MIN * interval_ms / 1000:.1f} s"
    if measurable and not reached:
        detail += f"; no gap within {CADENCE_MAX * interval_ms / 1000:.1f} s in a {span_ms / 1000:.0f} s run"
    elif not measurable:
        detail += f"; run too short ({span_ms / 1000:.0f} s) to see two intervals"
    return crit("1", "task creation cadence", ok, detail)


def stall_episodes(
    samples: list[dict[str, Any]], tasks: dict[str, dict[str, Any]], grace_ms: float
) -> list[dict[str, Any]]:
    """Every stalled task (SOAK-2 class), when it was first seen stalled, and whether and when
    it recovered: a fresh task for its goalKey appeared, or it left the stall and moved."""
    out: list[dict[str, Any]] = []
    first: dict[str, tuple[dict[str, Any], str]] = {}
    for s in samples:
        for st in s["stalled"]:
            first.setdefault(st["id"], (s, st["stallClass"]))
    end = samples[-1]["t"] if samples else 0
    for tid, (at, cls) in first.items():
        task = tasks.get(tid, {})
        key, created = task.get("goalKey"), task.get("createdAt") or 0
        recovered_at, by = None, None
        for s in (x for x in samples if x["t"] > at["t"]):
            fresh = [
                t
                for t in s["tasks"]
                if key and t["goalKey"] == key and t["id"] != tid and (t.get("createdAt") or 0) > created
            ]
            me = next((t for t in s["tasks"] if t["id"] == tid), None)
            moved = (
                me is not None
                and tid not in {x["id"] for x in s["stalled"]}
                and (me["status"] in STARTED or me["progress"] > 0)
            )
            if fresh or moved:
                recovered_at, by = s["t"], fresh[0]["id"] if fresh else tid
                break
        out.append(
            {
                "id": tid,
                "goalKey": key,
                "stallClass": cls,
                "stalledAt": at["t"],
                "recovered": recovered_at is not None,
                "recoveredAt": recovered_at,
                "by": by,
                "due": (end - at["t"]) * 1000 >= grace_ms,
            }
        )
    return out


def _recovery(stalls: list[dict[str, Any]]) -> dict[str, Any]:
    """5: every stuck task (0 progress past the stuck timeout) recovered, unless it stalled
    too close to the end for the next drive tick to come."""
    stuck = [x for x in stalls if x["stallClass"] == "stuck_pending"]
    if not stuck:
        return crit("5", "stuck-timeout recovery", True, "no task stalled (recovery not exercised)")
    parts = []
    for x in stuck:
        head = f"{x['id']} {x['goalKey']} {x['stallClass']} at {x['stalledAt']:g} s: "
        parts.append(
            head
            + (
                f"recovered at {x['recoveredAt']:g} s by {x['by']}"
                if x["recovered"]
                else "not recovered"
                if x["due"]
                else "not recovered, not yet due (stalled near the end)"
            )
        )
    ok = all(x["recovered"] or not x["due"] for x in stuck)
    return crit("5", "stuck-timeout recovery", ok, "; ".join(parts))


def _compliance(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """6: the INTENT signal must be observable (both counters read), consistent (an intent
    comes from a model reply: intentExtractions <= llmCalls) and monotonic (COUNTER-1)."""
    c = _last(samples)["counters"]
    if "intentExtractions" not in c or "llmCalls" not in c:
        return crit("6", "compliance signal", False, "intentExtractions/llmCalls never read: no signal observed")
    intents, llm = c["intentExtractions"], c["llmCalls"]
    backwards = sorted(
        {
            k
            for a, b in itertools.pairwise(samples)
            for k in ("intentExtractions", "llmCalls")
            if k in a["counters"] and k in b["counters"] and b["counters"][k] < a["counters"][k]
        }
    )
    if backwards:
        return crit("6", "compliance signal", False, f"counters went backwards: {backwards}")
    if intents > llm:
        return crit("6", "compliance signal", False, f"intentExtractions={intents} > llmCalls={llm}")
    return crit(
        "6",
        "compliance signal",
        True,
        f"intentExtractions={intents}"
        if intents
        else (
            "no LLM configured (llmCalls=0): INTENT not emitted"
            if not llm
            else f"model emitted no INTENT in {llm} calls"
        ),
    )


def _from_thoughts(tasks: dict[str, dict[str, Any]], thoughts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """7: no task came from a convertEligible=false thought, read on the source thought
    itself (the converter stamps convertEligible=true on every task it makes)."""
    made = [t for t in tasks.values() if t.get("source") in THOUGHT_SOURCES or t.get("sourceThoughtId")]
    no_id = [t["id"] for t in made if not t.get("sourceThoughtId")]
    unseen = [t["id"] for t in made if t.get("sourceThoughtId") and t["sourceThoughtId"] not in thoughts]
    low = [
        t["id"]
        for t in made
        if t.get("sourceThoughtId") in thoughts and thoughts[t["sourceThoughtId"]].get("convertEligible") is not True
    ]
    low += [t["id"] for t in tasks.values() if t.get("convertEligible") is False and t["id"] not in low]
    ok = not (no_id or unseen or low)
    detail = (
        f"{len(made)} tasks from thoughts: {len(low)} from convertEligible=false thoughts {low[:5]}, "
        f"{len(unseen)} whose source thought was never seen {unseen[:5]}, {len(no_id)} without sourceThoughtId"
    )
    return crit("7", "no low-novelty task creation", ok, detail)


def _creative_safety(
    samples: list[dict[str, Any]], drive_tasks: list[dict[str, Any]], creative: bool
) -> dict[str, Any]:
    """8: no drive tick in creative/spectator. A creative run must show the counter was read,
    the bot was in creative, and nothing fired; any run fails if the counter rose between
    two samples that both found the bot in creative or spectator."""
    c = _last(samples)["counters"]
    unsafe = ("creative", "spectator")
    fired_unsafe = [
        b["t"]
        for a, b in itertools.pairwise(samples)
        if a.get("gameMode") in unsafe
        and b.get("gameMode") in unsafe
        and (b["counters"].get("driveTicks") or 0) > (a["counters"].get("driveTicks") or 0)
    ]
    if fired_unsafe:
        return crit(
            "8", "creative/spectator safety", False, f"drive ticks fired in creative/spectator by t={fired_unsafe} s"
        )
    if not creative:
        return crit("8", "creative/spectator safety", True, "survival run: no drive tick seen in creative/spectator")
    in_creative = sum(s.get("gameMode") in unsafe for s in samples)
    if "driveTicks" not in c or not in_creative:
        return crit(
            "8",
            "creative/spectator safety",
            False,
            "driveTicks never read" if "driveTicks" not in c else "the bot was never seen in creative mode",
        )
    ok = c["driveTicks"] == 0 and not drive_tasks
    return crit(
        "8",
        "creative/spectator safety",
        ok,
        f"driveTicks={c['driveTicks']}, {len(drive_tasks)} drive-tick "
        f"tasks, in creative in {in_creative}/{len(samples)} samples",
    )


def evaluate(
    samples: list[dict[str, Any]],
    *,
    creative: bool,
    daemon_alive_until_end: bool,
    drive_interval_ms: int = DRIVE_TICK_INTERVAL_MS,
) -> dict[str, Any]:
    """Judge a soak. drive_interval_ms is the cadence expected of drive ticks:
    DRIVE-1's 180 s, scaled by the factor the fast soak scales the drive-tick interval."""
    last = _last(samples)
    c = last["counters"]
    tasks = {t["id"]: t for s in samples for t in s["tasks"]}  # latest view of each task
    thoughts = {th["id"]: th for s in samples for th in s.get("thoughts", [])}
    drive_tasks = [t for t in tasks.values() if t["source"] == "drive-tick"]
    span_ms = (samples[-1]["t"] - samples[0]["t"]) * 1000 if samples else 0
    crits = []
    drives, goals = c.get("driveTicks", 0), c.get("goalTags", 0)
    if creative:
        crits.append(crit("1", "task creation cadence", True, "n/a in creative mode (drive ticks must not fire)"))
    else:
        crits.append(_cadence(drives, goals, _tick_times(drive_tasks, thoughts), drive_interval_ms, span_ms))
    claimed = [t for t in drive_tasks if t["status"] in STARTED]
    crits.append(
        crit(
            "2",
            "executor claims",
            creative or bool(claimed),
            "n/a in creative mode" if creative else f"{len(claimed)} drive-tick tasks claimed (pending -> active)",
        )
    )
    closed = [t for t in tasks.values() if t["status"] in TERMINAL]
    crits.append(
        crit(
            "3",
            "progress closure",
            creative or bool(closed),
            "n/a in creative mode"
            if creative
            else f"{sum(t['status'] == 'completed' for t in closed)} completed, "
            f"{sum(t['status'] == 'failed' for t in closed)} failed",
        )
    )
    dups = sorted({k for s in samples for k in duplicates(s)})
    crits.append(
        crit(
            "4",
            "idempotency under repetition",
            not dups,
            f"duplicate live goalKeys: {dups}" if dups else "no duplicate live goalKey at any sample",
        )
    )
    stalls = stall_episodes(samples, tasks, CADENCE_MAX * drive_interval_ms)
    crits.append(_recovery(stalls))
    crits.append(_compliance(samples))
    crits.append(_from_thoughts(tasks, thoughts))
    crits.append(_creative_safety(samples, drive_tasks, creative))
    healthy = sum(1 for s in samples if s["ok"])
    alive = bool(samples) and last["ok"] and daemon_alive_until_end and healthy >= 0.8 * len(samples)
    crits.append(
        crit(
            "alive",
            "bot alive or respawned, never wedged",
            alive,
            f"healthy in {healthy}/{len(samples)} samples, last health {last.get('health')}",
        )
    )
    stall_classes = Counter(st["stallClass"] for st in last["stalled"])
    return {
        "pass": all(x["pass"] for x in crits),
        "criteria": crits,
        "cadenceMs": drive_interval_ms,
        "stallClasses": dict(stall_classes),
        "stalls": [{k: v for k, v in x.items() if k != "due"} for x in stalls],
        "nonTerminal": [
            {"id": t["id"], "status": t["status"], "goalKey": t["goalKey"]}
            for t in last["tasks"]
            if t["status"] not in TERMINAL
        ],
        "final": {"counters": c, "tasks": Counter(t["status"] for t in tasks.values())},
        "shelters": shelters(samples),  # informational: does not change "pass"
    }
