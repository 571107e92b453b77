"""Judging a soak from its API samples: the eight acceptance criteria of contract 7.2, the
stall classes of 7.3, an informational count of shelters built and verified at night, and a
chart of counters and task states over time."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

TERMINAL = ("completed", "failed")
STARTED = ("active", "completed", "failed", "paused")
DUSK = (11000, 13000)  # agency.drive_tick's "night approaching" window
MAX_FAILURE_REASONS = 5


def _last(samples: list[dict[str, Any]]) -> dict[str, Any]:
    return samples[-1] if samples else {"counters": {}, "tasks": [], "stalled": [], "ok": False}


def _crit(cid: str, name: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"id": cid, "name": name, "pass": bool(ok), "detail": detail}


def _duplicates(sample: dict[str, Any]) -> list[str]:
    """goalKeys with more than one live task that is moving (active, or with progress):
    a stuck pending duplicate is the stuck-timeout recovery, not a violation."""
    live: dict[str, list[dict[str, Any]]] = {}
    for t in sample["tasks"]:
        if t["status"] not in TERMINAL and t["status"] != "unplannable" and t["goalKey"]:
            live.setdefault(t["goalKey"], []).append(t)
    return [k for k, ts in live.items()
            if len([t for t in ts if t["status"] == "active" or t["progress"] > 0]) > 1]


def _is_night_or_dusk(sample: dict[str, Any]) -> bool:
    """Night per the snapshot (isDay False) or dusk (11000 <= timeOfDay < 13000, the drive
    tick's "night approaching"): drive ticks ask for a shelter from dusk on, so a shelter
    finished then is the one meant for the night. Samples without a clock count as day."""
    tod = sample.get("timeOfDay")
    return sample.get("isDay") is False or (tod is not None and DUSK[0] <= tod < DUSK[1])


def _is_shelter(task: dict[str, Any]) -> bool:
    goal = task.get("goal")
    return goal is not None and ((task.get("goalKey") or "").startswith("build:")
                                 or (goal.get("goalType") or "").startswith("build_shelter"))


def shelters(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Goal-bound shelter tasks: built (completed), verified (completed, >= 2 consecutive
    verifier passes and done at the last view), at night (verified and first seen completed
    in a night or dusk sample), failed with reasons. Informational, not a 7.2 criterion."""
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
        items.append({"id": t["id"], "status": t["status"], "passes": goal.get("consecutivePasses") or 0,
                      "verified": verified, "atNight": verified and done_at is not None and _is_night_or_dusk(done_at),
                      "firstCompletedAt": done_at["t"] if done_at else None,
                      "timeOfDay": done_at.get("timeOfDay") if done_at else None})
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


def evaluate(samples: list[dict[str, Any]], *, creative: bool, daemon_alive_until_end: bool) -> dict[str, Any]:
    last = _last(samples)
    c = last["counters"]
    tasks = {t["id"]: t for s in samples for t in s["tasks"]}  # latest view of each task
    drive_tasks = [t for t in tasks.values() if t["source"] == "drive-tick"]
    crits = []
    drives, goals = c.get("driveTicks", 0), c.get("goalTags", 0)
    if creative:
        crits.append(_crit("1", "task creation cadence", True, "n/a in creative mode (drive ticks must not fire)"))
    else:
        crits.append(_crit("1", "task creation cadence", drives > 0 and goals > 0, f"driveTicks={drives} goalTags={goals}"))
    claimed = [t for t in drive_tasks if t["status"] in STARTED]
    crits.append(_crit("2", "executor claims", creative or bool(claimed),
                       "n/a in creative mode" if creative else f"{len(claimed)} drive-tick tasks claimed (pending -> active)"))
    closed = [t for t in tasks.values() if t["status"] in TERMINAL]
    crits.append(_crit("3", "progress closure", creative or bool(closed),
                       "n/a in creative mode" if creative else
                       f"{sum(t['status'] == 'completed' for t in closed)} completed, "
                       f"{sum(t['status'] == 'failed' for t in closed)} failed"))
    dups = sorted({k for s in samples for k in _duplicates(s)})
    crits.append(_crit("4", "idempotency under repetition", not dups,
                       f"duplicate live goalKeys: {dups}" if dups else "no duplicate live goalKey at any sample"))
    stuck_ids = {st["id"] for s in samples for st in s["stalled"] if st["stallClass"] == "stuck_pending"}
    recovered = [i for i in stuck_ids if any(
        t["goalKey"] == tasks[i]["goalKey"] and t["id"] != i and (t["createdAt"] or 0) > (tasks[i]["createdAt"] or 0)
        for t in tasks.values())]
    crits.append(_crit("5", "stuck-timeout recovery", len(recovered) == len(stuck_ids),
                       f"{len(recovered)}/{len(stuck_ids)} stalled tasks got a fresh task"
                       if stuck_ids else "no task stalled (recovery not exercised)"))
    intents, llm = c.get("intentExtractions", 0), c.get("llmCalls", 0)
    crits.append(_crit("6", "compliance signal", True,
                       f"intentExtractions={intents}" if intents else
                       ("no LLM configured (llmCalls=0): INTENT not emitted" if not llm else
                        f"model emitted no INTENT in {llm} calls")))
    low = [t["id"] for t in tasks.values() if t["convertEligible"] is False]
    crits.append(_crit("7", "no low-novelty task creation", not low, f"{len(low)} tasks from convertEligible=false thoughts"))
    crits.append(_crit("8", "creative/spectator safety", (drives == 0) if creative else True,
                       f"driveTicks={drives} in creative mode" if creative else "n/a (survival run)"))
    healthy = sum(1 for s in samples if s["ok"])
    alive = bool(samples) and last["ok"] and daemon_alive_until_end and healthy >= 0.8 * len(samples)
    crits.append(_crit("alive", "bot alive or respawned, never wedged", alive,
                       f"healthy in {healthy}/{len(samples)} samples, last health {last.get('health')}"))
    stall_classes = Counter(st["stallClass"] for st in last["stalled"])
    return {
        "pass": all(x["pass"] for x in crits),
        "criteria": crits,
        "stallClasses": dict(stall_classes),
        "nonTerminal": [{"id": t["id"], "status": t["status"], "goalKey": t["goalKey"]}
                        for t in last["tasks"] if t["status"] not in TERMINAL],
        "final": {"counters": c, "tasks": Counter(t["status"] for t in tasks.values())},
        "shelters": shelters(samples),  # informational: does not change "pass"
    }


def write_chart(samples: list[dict[str, Any]], path: Path) -> None:
    import matplotlib  # noqa: PLC0415 - only the soak draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    ts = [s["t"] / 60 for s in samples]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for name in ("driveTicks", "goalTags", "llmCalls", "intentExtractions"):
        top.plot(ts, [s["counters"].get(name, 0) for s in samples], label=name)
    top.set_ylabel("counter")
    top.legend(loc="upper left", fontsize=8)
    for status in ("pending", "active", "completed", "failed", "paused", "unplannable"):
        bottom.plot(ts, [sum(t["status"] == status for t in s["tasks"]) for s in samples], label=status)
    # night shading (isDay False) over each run of consecutive night samples, up to the next sample
    i = 0
    while i < len(samples):
        if samples[i].get("isDay") is False:
            j = i
            while j + 1 < len(samples) and samples[j + 1].get("isDay") is False:
                j += 1
            end = ts[min(j + 1, len(ts) - 1)]
            for ax in (top, bottom):
                ax.axvspan(ts[i], end, color="grey", alpha=0.15, lw=0)
            i = j + 1
        else:
            i += 1
    marks = [item["firstCompletedAt"] / 60 for item in shelters(samples)["items"]
             if item["verified"] and item["firstCompletedAt"] is not None]
    for n, x in enumerate(marks):
        bottom.axvline(x, ls="--", color="green", lw=1, label="shelter verified" if n == 0 else None)
    bottom.set_ylabel("tasks")
    bottom.set_xlabel("minutes")
    bottom.legend(loc="upper left", fontsize=8)
    fig.suptitle("mcbot soak: agency counters and task states")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
