"""`mcbot bench survival`, the judging half: pure functions over the samples one run took
of the daemon's HTTP API (bot/tooling/soak_sample.sample, plus the places view), no clock read.

Game time is bot/tooling/competence_milestones.py's (ticks the world clock moved, day wraps and nights
slept through included, over 20). On top of competence's milestones (first seen in the
inventory; the verified shelter from its goal), a crafting table, furnace or bed the bot
PLACED counts too (the places view: one placed between two samples never shows in the
inventory), and a verified shelter in the places view counts like its task.

A run's result: milestones in game seconds (None: not reached), the same in run seconds,
task success rate, nights seen through to morning and those survived, deaths with their
cause and game time, wedges (as the soak judges them). The targets over all runs are
bot/tooling/bench_survival_targets.py.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from typing import Any

from agency.planning.converter import SUPERSEDED
from bot.tooling.bench_idle import idle_wedges
from bot.tooling.bench_survival_targets import as_day, percent
from bot.tooling.competence import (
    GAME_S_PER_DAY,
    MILESTONES,
    NO_CAUSE,
    TICKS_PER_DAY,
    TICKS_PER_S,
    CompetenceLimits,
    deaths_explained,
    game_seconds,
    idle_share,
    milestones,
    task_success,
    wedges,
)
from bot.tooling.competence_milestones import NIGHT_END, NIGHT_START

PLACED_KINDS = ("crafting_table", "furnace", "bed")  # milestones a placed block also reaches
NUMBER = re.compile(r"-?\d+(\.\d+)?")


# -- one run ------------------------------------------------------------------------------------


def places_reached(samples: list[dict[str, Any]], at: list[float | None]) -> dict[str, float | None]:
    """`placed_<kind>` and `verified_shelter` from each sample's `places` ({"placed": [kind],
    "verifiedShelters": n}): the `at` value of the first sample showing it."""
    out: dict[str, float | None] = {f"placed_{k}": None for k in PLACED_KINDS}
    out["verified_shelter"] = None
    for s, a in zip(samples, at, strict=True):
        seen = s.get("places") or {}
        when = a if a is not None else 0.0
        for kind in seen.get("placed") or []:
            if out.get(f"placed_{kind}", 0) is None:
                out[f"placed_{kind}"] = when
        if out["verified_shelter"] is None and (seen.get("verifiedShelters") or 0) > 0:
            out["verified_shelter"] = when
    return out


# What each milestone is made from (direct inputs only; each comes earlier in MILESTONES): an
# item held only between two samples (planks crafted into a table at once) is dated by the
# first milestone that needed it, the latest time it can have been reached.
NEEDS: dict[str, tuple[str, ...]] = {
    "planks": ("log",),
    "crafting_table": ("planks",),
    "wooden_pickaxe": ("crafting_table",),
    "cobblestone": ("wooden_pickaxe",),
    "stone_pickaxe": ("cobblestone",),
    "furnace": ("cobblestone",),
    "coal": ("wooden_pickaxe",),
    "iron_ore": ("stone_pickaxe",),
    "iron_ingot": ("iron_ore", "furnace"),
    "iron_pickaxe": ("iron_ingot",),
    "bed": ("planks",),
    "diamond": ("iron_pickaxe",),
    "diamond_pickaxe": ("diamond",),
}


def implied(reached: dict[str, float | None]) -> dict[str, float | None]:
    """Each milestone no later than the first that needed it (transitively)."""
    out = dict(reached)
    for ms in reversed(MILESTONES):
        for need in NEEDS.get(ms, ()):
            at, need_at = out[ms], out[need]
            if at is not None and (need_at is None or need_at > at):
                out[need] = at
    return out


def _earliest(*xs: float | None) -> float | None:
    got = [x for x in xs if x is not None]
    return min(got) if got else None


def all_milestones(samples: list[dict[str, Any]], at: list[float | None]) -> dict[str, float | None]:
    """The tree's milestones (competence.MILESTONES, in order) at the first sample that shows
    each (or the first that shows what needed it), by `at` (game seconds or run seconds),
    then the placed_* ones."""
    held = milestones(samples, at)
    placed = places_reached(samples, at)
    out = {ms: _earliest(held[ms], placed.get(f"placed_{ms}")) for ms in MILESTONES}
    out["verified_shelter"] = _earliest(held["verified_shelter"], placed["verified_shelter"])
    return implied(out) | {k: v for k, v in placed.items() if k.startswith("placed_")}


def absolute_ticks(samples: list[dict[str, Any]], game_s: list[float | None]) -> float | None:
    """The world's time of day at the run's first clock reading (the start of game time)."""
    for s, g in zip(samples, game_s, strict=True):
        if g is not None and isinstance(s.get("timeOfDay"), (int, float)):
            return int(s["timeOfDay"]) - g * TICKS_PER_S
    return None


def nights(samples: list[dict[str, Any]], game_s: list[float | None], deaths: list[dict[str, Any]]) -> dict[str, int]:
    """Nights (13000..23000 of a day) whose morning came during the run, and of those the ones
    without a death between their dusk (or the run's start) and their morning."""
    start = absolute_ticks(samples, game_s)
    clocked = [g for g in game_s if g is not None]
    if start is None or not clocked:
        return {"nights": 0, "nights_survived": 0}
    seen = survived = 0
    for k in _nights_of(start, start + clocked[-1] * TICKS_PER_S):
        dusk, morning = max(start, k * TICKS_PER_DAY + NIGHT_START), k * TICKS_PER_DAY + NIGHT_END
        died = any(d["game_s"] is not None and dusk <= start + d["game_s"] * TICKS_PER_S <= morning for d in deaths)
        seen += 1
        survived += not died
    return {"nights": seen, "nights_survived": survived}


def completions(samples: list[dict[str, Any]], game_s: list[float | None]) -> list[float]:
    """The game seconds at which each task was first seen completed (every sample lists the old
    tasks too)."""
    seen: set[str] = set()
    out: list[float] = []
    for s, g in zip(samples, game_s, strict=True):
        for t in s.get("tasks", []):
            if t.get("status") == "completed" and t["id"] not in seen:
                seen.add(t["id"])
                if g is not None:
                    out.append(g)
    return out


def night_deaths(
    samples: list[dict[str, Any]], game_s: list[float | None], deaths: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each night (counted as `nights` counts them) with a death in it: the last death's game
    second, that night's morning (`morning_s`: the bot keeps to a shelter until then), whether
    every death in it had a cause, and the first task completed after it (`back_s`, None: not
    back at work before the run ended)."""
    start = absolute_ticks(samples, game_s)
    clocked = [g for g in game_s if g is not None]
    if start is None or not clocked:
        return []
    done = completions(samples, game_s)
    out = []
    for k in _nights_of(start, start + clocked[-1] * TICKS_PER_S):
        dusk, morning = max(start, k * TICKS_PER_DAY + NIGHT_START), k * TICKS_PER_DAY + NIGHT_END
        died = [d for d in deaths if d["game_s"] is not None and dusk <= start + d["game_s"] * TICKS_PER_S <= morning]
        if not died:
            continue
        last = max(d["game_s"] for d in died)
        out.append(
            {
                "death_s": last,
                "morning_s": round((morning - start) / TICKS_PER_S, 1),
                "causes": [d["cause"] for d in died],
                "explained": all(d["cause"].lower() not in NO_CAUSE for d in died),
                "back_s": next((g for g in done if g > last), None),
            }
        )
    return out


def _nights_of(start: float, end: float) -> list[int]:
    """The day numbers k of the nights whose morning (k days + NIGHT_END) is after `start` and
    no later than `end`, in world ticks."""
    k = math.floor((start - NIGHT_END) / TICKS_PER_DAY) + 1
    out = []
    while (morning := k * TICKS_PER_DAY + NIGHT_END) <= end:
        if morning > start:
            out.append(k)
        k += 1
    return out


def deaths_at(samples: list[dict[str, Any]], game_s: list[float | None]) -> list[dict[str, Any]]:
    """Each death the daemon recorded, with its cause and the game seconds of the sample
    that read it."""
    return [
        {"cause": d.get("cause") or "", "game_s": g, "t": s["t"]}
        for s, g in zip(samples, game_s, strict=True)
        for d in s.get("deaths") or []
    ]


def failure_reasons(samples: list[dict[str, Any]], top: int = 5) -> list[dict[str, Any]]:
    """The commonest reasons tasks failed ({goalKey, reason, n}), so a low success rate says why;
    reasons that differ only in their numbers (a position, a distance) count as one, shown by
    the first."""
    last = {t["id"]: t for s in samples for t in s.get("tasks", [])}
    counts: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], str] = {}
    for t in last.values():
        if t["status"] == "failed":
            reason = (t.get("failureReason") or "no reason given")[:160]
            key = (t.get("goalKey") or "?", NUMBER.sub("#", reason))
            counts[key] += 1
            first.setdefault(key, reason)
    return [{"goalKey": k[0], "reason": first[k], "n": n} for k, n in counts.most_common(top)]


def work_tasks(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The tasks but explores, completed and failed, and their rate (None: none finished). An
    explore near home completes in seconds, and a bot with nothing else to do makes many: a
    1.18.2 bench bot at a8c0d4b completed 38 of its 65 tasks so, its 95 % of tasks 89 % without
    them. The target reads every task (the soak's K1); this is printed beside it."""
    last = {t["id"]: t for s in samples for t in s.get("tasks", [])}
    work = [t for t in last.values() if not str(t.get("goalKey") or "").startswith("explore:")]
    done = sum(t["status"] == "completed" for t in work)
    # as K1 reads them: a failure its goal's retry superseded did not fail at anything
    failed = sum(t["status"] == "failed" and not str(t.get("blockedReason") or "").startswith(SUPERSEDED) for t in work)
    rate = done / (done + failed) if done + failed else None
    return {"completed": done, "failed": failed, "rate": None if rate is None else round(rate, 4)}


def _no_task(idle: dict[str, Any]) -> str:
    """The daylight share with no task active, a reflex acting or not (the idle share of the
    benches up to s52, which counted a fight or a forage with the task paused as idle)."""
    if not idle.get("daylight_s"):
        return "-"
    return percent((idle["idle_s"] + idle.get("reflex_s", 0.0)) / idle["daylight_s"])


def run_result(samples: list[dict[str, Any]], wedge_s: float) -> dict[str, Any]:
    """One run's figures, JSON-ready."""
    game_s = game_seconds(samples)
    _k1, rate = task_success(samples, CompetenceLimits(wedge_s=wedge_s))
    tasks = {t["id"]: t["status"] for s in samples for t in s.get("tasks", [])}
    k3, _ = deaths_explained(samples)
    deaths = deaths_at(samples, game_s)
    clocked = [g for g in game_s if g is not None]
    reached = all_milestones(samples, game_s)
    return {
        "milestones": reached,
        "failures": failure_reasons(samples),
        "milestones_run_s": all_milestones(samples, [s["t"] for s in samples]),
        "task_success_rate": None if rate is None else round(rate, 4),
        "tasks": {st: sum(v == st for v in tasks.values()) for st in ("completed", "failed", "unplannable")}
        | {"total": len(tasks)},
        "work_tasks": work_tasks(samples),
        **nights(samples, game_s, deaths),
        "night_deaths": night_deaths(samples, game_s, deaths),
        "deaths": deaths,
        "deaths_explained": k3["verdict"],
        "deaths_detail": k3["detail"],
        "wedges": wedges(samples, wedge_s) + idle_wedges(samples, game_s, reached),
        "idle": idle_share(samples),
        "game_days": round(clocked[-1] / GAME_S_PER_DAY, 3) if clocked else None,
        "run_s": samples[-1]["t"] if samples else 0.0,
        "samples": len(samples),
    }


def reached_in_order(result: dict[str, Any], names: list[str]) -> bool:
    """Every one of `names` reached, at non-decreasing game time in that order."""
    at = [result["milestones"].get(n) for n in names]
    reached = [a for a in at if a is not None]
    return len(reached) == len(at) and all(a <= b for a, b in itertools.pairwise(reached))


# -- printing -----------------------------------------------------------------------------------


def table_lines(runs: list[dict[str, Any]]) -> list[str]:
    """Seed x version, side by side: a row per figure, a column per run."""
    cols = [f"{r['version']} s{r['seed']}" for r in runs]
    rows = [
        ("iron pickaxe at", [as_day(r["milestones"].get("iron_pickaxe")) for r in runs]),
        ("stone pickaxe at", [as_day(r["milestones"].get("stone_pickaxe")) for r in runs]),
        ("diamond pickaxe at", [as_day(r["milestones"].get("diamond_pickaxe")) for r in runs]),
        (
            "milestones reached",
            [f"{sum(r['milestones'][m] is not None for m in MILESTONES)}/{len(MILESTONES)}" for r in runs],
        ),
        (
            "tasks completed",
            [f"{percent(r['task_success_rate'])} of {r['tasks']['completed'] + r['tasks']['failed']}" for r in runs],
        ),
        ("  but explores", [_work(r.get("work_tasks")) for r in runs]),
        ("nights survived", [f"{r['nights_survived']}/{r['nights']}" for r in runs]),
        ("deaths", [str(len(r["deaths"])) for r in runs]),
        ("wedges", [str(len(r["wedges"])) for r in runs]),
        ("idle in daylight", [percent((r.get("idle") or {}).get("share")) for r in runs]),
        ("  no task active", [_no_task(r.get("idle") or {}) for r in runs]),
        ("game days run", ["-" if r["game_days"] is None else f"{r['game_days']:.2f}" for r in runs]),
        ("ended by", [r.get("ended", "-") for r in runs]),
    ]
    width = max(14, *(len(c) + 2 for c in cols))
    out = [f"{'':20}" + "".join(f"{c:>{width}}" for c in cols)]
    out += [f"{label:20}" + "".join(f"{v:>{width}}" for v in vals) for label, vals in rows]
    return out


def _work(work: dict[str, Any] | None) -> str:
    """`89 % of 27`, the tasks but explores (work_tasks); `-` for a run stored without them."""
    return "-" if work is None else f"{percent(work['rate'])} of {work['completed'] + work['failed']}"


def milestone_detail(run: dict[str, Any]) -> str:
    """`log=day 0.01 planks=...; not reached: ...` for one run."""
    got = [f"{m}={as_day(g)}" for m, g in run["milestones"].items() if g is not None]
    missing = [m for m in MILESTONES if run["milestones"][m] is None]
    return (" ".join(got) or "none reached") + (f"; not reached: {', '.join(missing)}" if missing else "")


def failure_lines(run: dict[str, Any]) -> list[str]:
    """`3x craft:stone_pickaxe: move_to failed: ...` for one run's commonest task failures."""
    return [f"{f['n']}x {f['goalKey']}: {f['reason']}" for f in run.get("failures") or []]
