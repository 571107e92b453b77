"""Competence: does the bot survive WELL, not only run? Judged from the samples a run took of
the daemon's HTTP API (the soak's, and later `mcbot bench survival`'s), by pure functions:
no clock is read, a sample's `t` (seconds since the run began) and the world clock it saw
(`timeOfDay`) are the only time there is.

- The tech tree's MILESTONES, stamped in game seconds since the run began
  (bot/tooling/competence_milestones.py, which says how game time is counted).
- The idle share: of the daylight run time (the daemon up), the share in which the bot had no
  task active and no reflex acting (`idle_share`): what the drive tick's interval costs when
  its goals are short.
- Four criteria, each PASS, FAIL or NOT JUDGED (a run too short, or data never read, is
  never passed on trust):
  K1 task success rate: completed / (completed + failed) at least `min_task_success`
     (judged from `min_finished_tasks` finished tasks on);
  K2 milestone progress: never `milestone_game_days` game days without a new milestone
     (judged once the run lasted that long, or when a gap that long is seen);
  K3 deaths explained: every death the daemon recorded has a cause (not 'unknown'), and
     the bot was never seen dead (health 0) more often than deaths were recorded;
  K4 never wedged: no stretch of `wedge_s` in which the bot had an active task and nothing
     moved (position, inventory, tasks), nor one in which the daemon was down.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from agency.planning.converter import SUPERSEDED

# The milestones and game time have a module of their own; callers import them from here too,
# beside the criteria that read them.
from bot.tooling.competence_milestones import (
    GAME_S_PER_DAY as GAME_S_PER_DAY,
    MILESTONES as MILESTONES,
    TICKS_PER_DAY as TICKS_PER_DAY,
    TICKS_PER_S as TICKS_PER_S,
    daytime as daytime,
    game_seconds as game_seconds,
    milestones as milestones,
    tick_rate as tick_rate,
)

PASS, FAIL, NOT_JUDGED = "pass", "fail", "not_judged"
VERDICT_WORDS = {PASS: "PASS", FAIL: "FAIL", NOT_JUDGED: "NOT JUDGED"}
NO_CAUSE = ("", "unknown", "none", "null")


@dataclass(frozen=True)
class CompetenceLimits:
    """The thresholds; ValueError names the bad one."""

    min_task_success: float = 0.8  # 0..1
    milestone_game_days: float = 2.0  # > 0
    wedge_s: float = 600.0  # run seconds; the soak uses twice the stuck timeout
    min_finished_tasks: int = 5  # fewer finished tasks: the rate is not judged

    def __post_init__(self) -> None:
        if not (isinstance(self.min_task_success, (int, float)) and 0.0 <= self.min_task_success <= 1.0):
            raise ValueError(
                f"min_task_success must be a fraction from 0 to 1 (0.8 = 80 %), got {self.min_task_success!r}"
            )
        if not (
            isinstance(self.milestone_game_days, (int, float))
            and math.isfinite(self.milestone_game_days)
            and self.milestone_game_days > 0
        ):
            raise ValueError(
                f"milestone_game_days must be a number of game days above 0, got {self.milestone_game_days!r}"
            )
        if not self.wedge_s > 0:
            raise ValueError(f"wedge_s must be above 0, got {self.wedge_s!r}")
        if not (isinstance(self.min_finished_tasks, int) and self.min_finished_tasks >= 1):
            raise ValueError(f"min_finished_tasks must be at least 1, got {self.min_finished_tasks!r}")


# -- the daemon's death records -------------------------------------------------------------

# a fleet's line names its bot in a column after the level (bot/runtime/logs.py)
DEATH_LINE = re.compile(r"(?:\| [A-Z]+ *\| (\w+) \| )?\[Reflex\] death recorded \(total \d+\) cause=(\S*)")


def deaths_in(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The deaths the daemon recorded, from its log lines (agency.execution.reflexes logs
    `[Reflex] death recorded (total N) cause=zombie at {...}` for each one); `bot` when the
    line names one (a fleet's)."""
    return [{"cause": m[2], **({"bot": m[1]} if m[1] else {})} for line in lines if (m := DEATH_LINE.search(line))]


# -- the idle share ---------------------------------------------------------------------------


def idle_share(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Of the daylight between samples (each gap counted by the sample that opens it, when
    the daemon answered and the world said day), the seconds with no task active and no reflex
    acting (`reflexActing`: a fight or a flight, an eat, a forage, the walk to the night's
    shelter): a bot fleeing a creeper with its task paused is not idle (benches up to s52
    counted it so); one that only stays in its shelter, burrow or cover is. reflex_s: the
    daylight with no task active but a reflex acting, said beside it. share is None with no
    daylight seen."""
    daylight = idle = reflex = 0.0
    for a, b in itertools.pairwise(samples):
        if not a.get("ok") or not daytime(a):
            continue
        dt = max(0.0, b["t"] - a["t"])
        daylight += dt
        if not any(t.get("status") == "active" for t in a.get("tasks", [])):
            if a.get("reflexActing"):
                reflex += dt
            else:
                idle += dt
    return {
        "daylight_s": round(daylight, 1),
        "idle_s": round(idle, 1),
        "reflex_s": round(reflex, 1),
        "share": round(idle / daylight, 4) if daylight else None,
    }


def idle_line(idle: dict[str, Any]) -> str:
    """`idle 23 % of 412 s of daylight (no task active, no reflex acting; 40 s more a reflex
    acting)` for the reports."""
    if idle["share"] is None:
        return "idle share: no daylight seen"
    return (
        f"idle {100 * idle['share']:.0f} % of {idle['daylight_s']:g} s of daylight (no task active, no reflex acting;"
        f" {idle.get('reflex_s', 0.0):g} s more a reflex acting)"
    )


# -- the criteria -----------------------------------------------------------------------------


def _crit(cid: str, name: str, verdict: str, detail: str) -> dict[str, Any]:
    return {
        "id": cid,
        "name": name,
        "verdict": verdict,
        "pass": {PASS: True, FAIL: False}.get(verdict),
        "detail": detail,
    }


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def task_success(samples: list[dict[str, Any]], limits: CompetenceLimits) -> tuple[dict[str, Any], float | None]:
    """K1 on each task's latest view; a task its goal's retry superseded did not fail at anything."""
    tasks = {t["id"]: t for s in samples for t in s.get("tasks", [])}
    superseded = sum(str(t.get("blockedReason") or "").startswith(SUPERSEDED) for t in tasks.values())
    done = sum(t["status"] == "completed" for t in tasks.values())
    failed = sum(t["status"] == "failed" for t in tasks.values()) - superseded
    unplannable = sum(t["status"] == "unplannable" for t in tasks.values())
    finished = done + failed
    rate = done / finished if finished else None
    name = f"task success rate at least {_pct(limits.min_task_success)}"
    detail = f"{done} completed, {failed} failed" + (f" ({_pct(rate)})" if rate is not None else "")
    if unplannable:
        detail += f"; {unplannable} unplannable not counted"
    if superseded:
        detail += f"; {superseded} superseded by a retry not counted"
    if rate is None or finished < limits.min_finished_tasks:
        return _crit("K1", name, NOT_JUDGED, f"{detail}: fewer than {limits.min_finished_tasks} finished tasks"), rate
    return _crit("K1", name, PASS if rate >= limits.min_task_success else FAIL, detail), rate


def milestone_progress(
    samples: list[dict[str, Any]],
    reached: dict[str, float | None],
    game_s: list[float | None],
    limits: CompetenceLimits,
) -> dict[str, Any]:
    """K2: the longest stretch of game time without a new milestone, from the run's start to
    the first, between two, and from the last to the run's end (while any is missing)."""
    window = limits.milestone_game_days * GAME_S_PER_DAY
    name = f"a new milestone every {limits.milestone_game_days:g} game days"
    clocked = [g for g in game_s if g is not None]
    if not clocked:
        return _crit("K2", name, NOT_JUDGED, "the world clock was never read")
    end = clocked[-1]
    got = sorted((g, ms) for ms, g in reached.items() if g is not None)
    missing = [ms for ms, g in reached.items() if g is None]
    marks = [(0.0, "the start"), *got] + ([(end, "the end")] if missing else [])
    gaps = [(b[0] - a[0], a, b) for a, b in itertools.pairwise(marks)]
    longest = max(gaps, default=(0.0, marks[0], marks[0]), key=lambda x: x[0])
    days = end / GAME_S_PER_DAY
    head = f"{len(got)}/{len(reached)} reached in {days:.2f} game days" + (
        f" (last: {got[-1][1]} at day {got[-1][0] / GAME_S_PER_DAY:.2f})" if got else ""
    )
    if longest[0] >= window:
        (gap, (a_at, a), (b_at, b)) = longest
        after = f"after {a}" if a != "the start" else "from the start"
        return _crit(
            "K2",
            name,
            FAIL,
            f"{head}; none new for {gap / GAME_S_PER_DAY:.2f} game days {after} "
            f"(day {a_at / GAME_S_PER_DAY:.2f} to {b_at / GAME_S_PER_DAY:.2f}"
            + (f", next: {b}" if b != "the end" else "")
            + ")",
        )
    if not missing:
        return _crit("K2", name, PASS, f"{head}: the whole tree")
    if end < window:
        return _crit(
            "K2",
            name,
            NOT_JUDGED,
            f"{head}; the run lasted {days:.2f} game days, shorter than the {limits.milestone_game_days:g}-day window",
        )
    return _crit("K2", name, PASS, f"{head}; longest stretch without one {longest[0] / GAME_S_PER_DAY:.2f} game days")


def deaths_explained(samples: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """K3: deaths come from the daemon's records (a sample's `deaths`, read only when its
    `deathsRead` is true); a sample with health 0 is a death the soak saw for itself."""
    name = "every death has a recorded cause"
    read = [s for s in samples if s.get("deathsRead")]
    deaths = [{"t": s["t"], "cause": d.get("cause") or ""} for s in samples for d in s.get("deaths") or []]
    if not read:
        return _crit("K3", name, NOT_JUDGED, "the daemon's death records were never read"), deaths
    seen_dead = sum(
        1
        for a, b in zip([None, *samples], samples, strict=False)
        if b.get("health") == 0 and (a is None or a.get("health") != 0)
    )
    no_cause = [d for d in deaths if d["cause"].lower() in NO_CAUSE]
    unrecorded = max(0, seen_dead - len(deaths))
    causes = ", ".join(f"{d['cause'] or '?'} at t={d['t']:g}s" for d in deaths[:8]) + (
        ", ..." if len(deaths) > 8 else ""
    )
    detail = f"{len(deaths)} deaths recorded" + (f" ({causes})" if deaths else "")
    if seen_dead:
        detail += f"; seen dead (health 0) {seen_dead} times"
    if no_cause or unrecorded:
        parts = ([f"{len(no_cause)} without a cause"] if no_cause else []) + (
            [f"{unrecorded} seen but never recorded"] if unrecorded else []
        )
        return _crit("K3", name, FAIL, f"{detail}: {', '.join(parts)}"), deaths
    return _crit("K3", name, PASS, detail if deaths else "no death"), deaths


def _still(s: dict[str, Any]) -> tuple[Any, ...] | None:
    """What must not change while the bot works: its block, its inventory and every task's
    status and progress; None when the sample cannot tell (no position) or nothing is active."""
    pos = s.get("position")
    if not s.get("ok") or not pos or not any(t["status"] == "active" for t in s.get("tasks", [])):
        return None
    block = tuple(math.floor(pos[k]) for k in ("x", "y", "z"))
    inv = tuple(sorted((s.get("inventory") or {}).items()))
    tasks = tuple(sorted((t["id"], t["status"], t.get("progress")) for t in s.get("tasks", [])))
    return block, inv, tasks


def wedges(samples: list[dict[str, Any]], wedge_s: float) -> list[dict[str, Any]]:
    """Stretches of at least wedge_s in which the bot had an active task and nothing moved
    ('frozen'), or in which the daemon was down ('down'), each with its first and last sample."""
    out: list[dict[str, Any]] = []

    def close(kind: str, run: list[dict[str, Any]], until: float) -> None:
        if run and until - run[0]["t"] >= wedge_s:
            out.append({"kind": kind, "from": run[0]["t"], "to": until, "s": round(until - run[0]["t"], 1)})

    frozen: list[dict[str, Any]] = []
    down: list[dict[str, Any]] = []
    for s in samples:
        key = _still(s)
        if frozen and key == _still(frozen[0]):
            frozen.append(s)
        else:
            close("frozen", frozen, frozen[-1]["t"] if frozen else 0)
            frozen = [s] if key is not None else []
        if not s.get("ok"):
            down.append(s)
        else:
            close("down", down, s["t"])  # down until this sample found it up
            down = []
    close("frozen", frozen, frozen[-1]["t"] if frozen else 0)
    close("down", down, down[-1]["t"] if down else 0)
    return sorted(out, key=lambda w: w["from"])


def never_wedged(
    samples: list[dict[str, Any]], limits: CompetenceLimits
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """K4."""
    name = f"never wedged ({limits.wedge_s:g} s without movement or down)"
    found = wedges(samples, limits.wedge_s)
    if found:
        return _crit(
            "K4",
            name,
            FAIL,
            "; ".join(f"{w['kind']} from t={w['from']:g}s to t={w['to']:g}s ({w['s']:g} s)" for w in found),
        ), found
    span = samples[-1]["t"] - samples[0]["t"] if samples else 0
    if not any(s.get("position") for s in samples):
        return _crit("K4", name, NOT_JUDGED, "the bot's position was never read"), found
    if span < limits.wedge_s:
        return _crit("K4", name, NOT_JUDGED, f"the run lasted {span:g} s, shorter than the window"), found
    active = sum(_still(s) is not None for s in samples)
    return _crit(
        "K4",
        name,
        PASS,
        f"no stretch of {limits.wedge_s:g} s frozen or down in {span:g} s "
        f"({active}/{len(samples)} samples with an active task)",
    ), found


def evaluate_competence(
    samples: list[dict[str, Any]],
    limits: CompetenceLimits = CompetenceLimits(),
    *,
    decides: bool = True,
    creative: bool = False,
) -> dict[str, Any]:
    """The competence block of a run's report. `pass` is False when a criterion FAILS and it
    `decides` (a chaos soak's faults disturb what these read: there it is informational).
    In creative mode the bot does not play (no drive ticks): K1 and K2 are not judged."""
    game_s = game_seconds(samples)
    reached = milestones(samples, game_s)
    k1, rate = task_success(samples, limits)
    k2 = milestone_progress(samples, reached, game_s, limits)
    if creative:
        k1, k2 = (
            {
                **k,
                "verdict": NOT_JUDGED,
                "pass": None,
                "detail": f"creative mode, the bot does not play ({k['detail']})",
            }
            for k in (k1, k2)
        )
    k3, deaths = deaths_explained(samples)
    k4, stuck = never_wedged(samples, limits)
    crits = [k1, k2, k3, k4]
    failed = any(c["verdict"] == FAIL for c in crits)
    clocked = [g for g in game_s if g is not None]
    return {
        "pass": not (decides and failed),
        "decides": decides,
        "limits": asdict(limits),
        "criteria": crits,
        "milestones": reached,  # game seconds since the run began, None = not reached
        "task_success_rate": None if rate is None else round(rate, 4),
        "gameDays": round(clocked[-1] / GAME_S_PER_DAY, 3) if clocked else None,
        "deaths": deaths,
        "wedges": stuck,
        "idle": idle_share(samples),
    }


def milestone_line(block: dict[str, Any]) -> str:
    """`log=40 planks=60 ... (game s); not reached: coal, ...` for the report."""
    got = [f"{ms}={g:g}" for ms, g in block["milestones"].items() if g is not None]
    missing = [ms for ms, g in block["milestones"].items() if g is None]
    return (" ".join(got) + " (game s)" if got else "none reached") + (
        f"; not reached: {', '.join(missing)}" if missing else ""
    )
