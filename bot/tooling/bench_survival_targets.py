"""`mcbot bench survival`'s targets (TARGET_NAMES), judged over all runs' results
(bot/tooling/bench_survival_report.run_result): PASS, FAIL or NOT JUDGED (a run too short to
show it is never passed)."""

from __future__ import annotations

import math
from typing import Any

from bot.tooling.bench_idle import IDLE_GAME_S
from bot.tooling.competence import FAIL, GAME_S_PER_DAY, NO_CAUSE, NOT_JUDGED, PASS, VERDICT_WORDS

IRON_DAYS = 3.0  # target: an iron pickaxe within this many game days...
IRON_SHARE = 2 / 3  # ...on at least this share of the seeds (2 of 3)
MIN_TASK_SUCCESS = 0.9
MAX_IDLE = 0.2  # target: no task active and no reflex acting under this share of the daylight, each run
IDLE_MIN_DAYLIGHT_S = 600.0  # less daylight seen than this: the idle share is not judged
NIGHTS_DAYS = 5.0  # target: every night of this many game days survived, or the bot back at work
TARGET_NAMES = {
    "iron_pickaxe": f"iron pickaxe within {IRON_DAYS:g} game days on at least 2 of 3 seeds, at each version",
    "tasks": f"at least {MIN_TASK_SUCCESS:.0%} of tasks completed, each run",
    "deaths": "every death explained (a recorded cause, none unrecorded)",
    "wedges": "0 wedges",
    "idle": f"idle (no task active, no reflex acting) under {MAX_IDLE:.0%} of the daylight, each run",
    "nights": f"every night of {NIGHTS_DAYS:g} game days survived, or its death explained and the bot back at work"
    " (a task completed after it), each run",
}


def percent(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f} %"


def as_day(g: float | None) -> str:
    """Game seconds as game days, e.g. `day 1.25`; `-` when not reached."""
    return "-" if g is None else f"day {g / GAME_S_PER_DAY:.2f}"


def _target(tid: str, verdict: str, detail: str) -> dict[str, Any]:
    return {"id": tid, "name": TARGET_NAMES[tid], "verdict": verdict, "detail": detail}


def _label(r: dict[str, Any]) -> str:
    return f"{r['version']} seed {r['seed']}"


def _iron(runs: list[dict[str, Any]]) -> dict[str, Any]:
    window = IRON_DAYS * GAME_S_PER_DAY
    verdicts, parts = [], []
    for v in dict.fromkeys(r["version"] for r in runs):
        mine = [r for r in runs if r["version"] == v]
        need = math.ceil(IRON_SHARE * len(mine) - 1e-9)
        hit = sum((r["milestones"].get("iron_pickaxe") or math.inf) <= window for r in mine)
        open_ = sum(
            (r["milestones"].get("iron_pickaxe") is None) and (r["game_days"] or 0) < IRON_DAYS for r in mine
        )  # stopped before the window closed, no pickaxe yet
        if hit >= need:
            verdicts.append(PASS)
        elif hit + open_ >= need:
            verdicts.append(NOT_JUDGED)
        else:
            verdicts.append(FAIL)
        parts.append(f"{v}: {hit}/{len(mine)} seeds (need {need})" + (f", {open_} ended early" if open_ else ""))
    verdict = FAIL if FAIL in verdicts else NOT_JUDGED if NOT_JUDGED in verdicts else PASS
    return _target("iron_pickaxe", verdict, "; ".join(parts))


def _tasks(runs: list[dict[str, Any]]) -> dict[str, Any]:
    rated = [r for r in runs if r["task_success_rate"] is not None]
    low = [r for r in rated if r["task_success_rate"] < MIN_TASK_SUCCESS]
    detail = ", ".join(f"{_label(r)} {percent(r['task_success_rate'])}" for r in runs)
    if low:
        return _target("tasks", FAIL, detail)
    return _target(
        "tasks",
        PASS if rated and len(rated) == len(runs) else NOT_JUDGED,
        detail + ("" if len(rated) == len(runs) else " (a run without a finished task)"),
    )


def _deaths(runs: list[dict[str, Any]]) -> dict[str, Any]:
    deaths = [(r, d) for r in runs for d in r["deaths"]]
    bad = [(r, d) for r, d in deaths if d["cause"].lower() in NO_CAUSE]
    failed = [r for r in runs if r["deaths_explained"] == FAIL]
    unread = [r for r in runs if r["deaths_explained"] == NOT_JUDGED]
    causes = ", ".join(f"{_label(r)}: {d['cause'] or '?'} at {as_day(d['game_s'])}" for r, d in deaths[:8])
    detail = f"{len(deaths)} deaths" + (f" ({causes})" if deaths else "")
    if bad or failed:
        return _target("deaths", FAIL, detail + "; " + "; ".join(f"{_label(r)}: {r['deaths_detail']}" for r in failed))
    if unread:
        return _target(
            "deaths", NOT_JUDGED, detail + "; death records never read in " + ", ".join(_label(r) for r in unread)
        )
    return _target("deaths", PASS, detail)


def _wedge(w: dict[str, Any]) -> str:
    if w["kind"] == "idle":
        return (
            f"idle from {as_day(w['from'])} to {as_day(w['to'])}: {w['daylight_s']:g} game s of daylight"
            " with no task completed or advanced and no milestone"
        )
    return f"{w['kind']} {w['s']:g} s from t={w['from']:g}s"


def _wedges(runs: list[dict[str, Any]]) -> dict[str, Any]:
    stuck = [(r, w) for r in runs for w in r["wedges"]]
    if stuck:
        return _target("wedges", FAIL, "; ".join(f"{_label(r)}: {_wedge(w)}" for r, w in stuck))
    return _target("wedges", PASS, f"none in {len(runs)} runs")


def _idle(runs: list[dict[str, Any]]) -> dict[str, Any]:
    shares = [(r, r.get("idle") or {}) for r in runs]
    detail = ", ".join(f"{_label(r)} {percent(i.get('share'))}" for r, i in shares)
    if any(i.get("share") is not None and i["share"] >= MAX_IDLE for _r, i in shares):
        return _target("idle", FAIL, detail)
    short = [r for r, i in shares if (i.get("daylight_s") or 0) < IDLE_MIN_DAYLIGHT_S]
    if short:
        return _target(
            "idle", NOT_JUDGED, detail + f" (under {IDLE_MIN_DAYLIGHT_S:g} s of daylight in {len(short)} runs)"
        )
    return _target("idle", PASS, detail)


def _back_from(n: dict[str, Any]) -> float:
    """When a night's dead bot may be expected back at work: its morning, or the death if later."""
    return max(n["death_s"], n.get("morning_s") or 0.0)


def _nights(runs: list[dict[str, Any]]) -> dict[str, Any]:
    detail = ", ".join(f"{_label(r)} {r['nights_survived']}/{r['nights']}" for r in runs)
    lost = [(r, n) for r in runs for n in r.get("night_deaths") or []]
    unexplained = [(r, n) for r, n in lost if not n["explained"]]
    away = [(r, n) for r, n in lost if n["back_s"] is None]
    # a death too near the run's end to show the bot back at work is not judged either way:
    # the daylight after it counts, not the rest of the night (a 1.18.2 bench bot died at day
    # 4.62, waited for the morning at day 4.96 as it should, and was judged not back at work)
    pending = [(r, n) for r, n in away if (r["game_days"] or 0) * GAME_S_PER_DAY - _back_from(n) < IDLE_GAME_S]
    if unexplained or len(away) > len(pending):
        why = [f"{_label(r)}: a death at {as_day(n['death_s'])} without a cause" for r, n in unexplained] + [
            f"{_label(r)}: no task completed after the death at {as_day(n['death_s'])}"
            for r, n in away
            if (r, n) not in pending
        ]
        return _target("nights", FAIL, detail + "; " + "; ".join(why))
    back = [
        f"{_label(r)}: back at work by {as_day(n['back_s'])} after a death at {as_day(n['death_s'])}"
        for r, n in lost
        if n["back_s"] is not None
    ]
    detail += "".join("; " + b for b in back)
    short = [r for r in runs if (r["game_days"] or 0) < NIGHTS_DAYS]
    if short or pending:
        unjudged = f" (judged over {NIGHTS_DAYS:g} game days: {len(short)} runs shorter)" if short else ""
        unjudged += f" ({len(pending)} deaths too near the end to judge)" if pending else ""
        return _target("nights", NOT_JUDGED, detail + unjudged)
    return _target("nights", PASS, detail)


def judge(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The issue's targets over every run (each run carries `version` and `seed`)."""
    return [_iron(runs), _tasks(runs), _deaths(runs), _wedges(runs), _idle(runs), _nights(runs)]


def failed(targets: list[dict[str, Any]]) -> bool:
    return any(t["verdict"] == FAIL for t in targets)


def target_lines(targets: list[dict[str, Any]]) -> list[str]:
    return [f"{VERDICT_WORDS[t['verdict']]} {t['name']}: {t['detail']}" for t in targets]
