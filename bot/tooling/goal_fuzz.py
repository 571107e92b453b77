"""The goal fuzz, its pure half: which goals to give, in what order and world, and how to
judge what the daemon did with them. bot/tooling/goal_fuzz_run.py drives real daemons.

A round is a fresh daemon on a fresh embedded world (a seed of its own) from empty hands,
hostiles on or off, days of normal length or twenty times shorter (a night comes within a
minute), given one goal or a pair at once. Everything is drawn from one seeded generator, so
a failure replays with `--seed`.

Each goal ends one way:
  refused      the API said no (4xx with a reason): a clear answer, fine
  completed    the task completed
  failed       the task failed with a reason (a reason is required)
  unplannable  the task was parked as unplannable
  progressing  still running at the bound, but its progress moved within the stall window
  stuck        still running at the bound with no progress for the stall window: a finding
A round also fails on: the bridge's node over the memory limit, the daemon out of health
for longer than the health limit, a task left active with no run once the goals ended, a
stop slower than the stop limit.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from typing import Any

# Every canonical action (agency/goal_tag.py CANONICAL_ACTIONS) with representative targets:
# what a user might type on day one, not what our plans were written for.
GOALS: dict[str, tuple[str, ...]] = {
    "collect": (
        "collect oak_log 3",
        "collect stone 3",
        "collect cobblestone 3",
        "collect iron_ore 1",
        "collect coal 2",
        "collect dirt 4",
    ),
    "gather": ("gather oak_log 2",),
    "mine": ("mine stone 2", "mine coal_ore 1", "mine iron_ore 1"),
    "craft": (
        "craft crafting_table 1",
        "craft stick 4",
        "craft wooden_pickaxe 1",
        "craft stone_pickaxe 1",
        "craft stone_sword 1",
        "craft furnace 1",
        "craft torch 4",
        "craft iron_pickaxe 1",
        "craft chest 1",
        "craft oak_door 1",
        "craft white_bed 1",
    ),
    "smelt": ("smelt iron_ingot 1", "smelt stone 1", "smelt charcoal 1", "smelt cooked_beef 1"),
    "build": ("build shelter",),
    "explore": ("explore area",),
    "navigate": ("navigate home",),
    "place": ("place crafting_table",),
    "eat": ("eat bread",),
    "sleep": ("sleep bed",),
    "flee": ("flee zombie",),
    "attack": ("attack zombie",),
    "find": ("find iron_ore",),
    "hunt": ("hunt cow 1",),
    "descend": ("descend y40",),
    "pause": ("pause task",),
    "continue": ("continue task",),
}
ALL_GOALS: tuple[str, ...] = tuple(g for goals in GOALS.values() for g in goals)
# The goal that wedged the bridge: every sample round set gives it from empty hands.
FIRST_REPORTED = "craft stone_pickaxe 1"

ENDED = ("refused", "completed", "failed", "unplannable")
OK_OUTCOMES = (*ENDED, "progressing")


@dataclass(frozen=True)
class Limits:
    goal_s: float = 240.0  # how long a round waits for its goals to end
    stall_s: float = 120.0  # no progress for this long at the bound: stuck
    bridge_mb: float = 1024.0  # the bridge's node, peak RSS
    unhealthy_s: float = 15.0  # longest stretch of /healthz not ok
    stop_s: float = 10.0  # SIGTERM to exit


@dataclass(frozen=True)
class Round:
    index: int
    world_seed: int
    hostiles: bool
    short_days: bool
    goals: tuple[str, ...]


def plan_rounds(seed: int, rounds: int, *, pair_share: float = 0.5, include: tuple[str, ...] = ()) -> list[Round]:
    """`rounds` rounds drawn from `seed`: every goal once in a shuffled order before any
    repeats (then again), a share of rounds given two goals at once. `include` goals come
    first, one round each, in worlds drawn like the rest."""
    rng = random.Random(seed)
    deck: list[str] = []

    def draw() -> str:
        if not deck:
            deck.extend(rng.sample(ALL_GOALS, len(ALL_GOALS)))
        return deck.pop()

    out = []
    for i in range(rounds):
        if i < len(include):
            goals: tuple[str, ...] = (include[i],)
        else:
            first = draw()
            goals = (first, draw()) if rng.random() < pair_share else (first,)
        out.append(Round(i + 1, rng.randrange(1, 1_000_000), rng.random() < 0.5, rng.random() < 0.5, goals))
    return out


@dataclass
class GoalResult:
    goal: str
    outcome: str = "stuck"
    status_code: int | None = None
    task_id: str | None = None
    reason: str = ""
    seconds: float = 0.0


@dataclass
class RoundResult:
    round: Round
    goals: list[GoalResult] = field(default_factory=list)
    peak_mb: dict[str, float] = field(default_factory=dict)  # process role -> peak RSS
    peak_cpu: dict[str, float] = field(default_factory=dict)  # process role -> peak CPU % (100 = a core)
    longest_unhealthy_s: float = 0.0
    active_without_run: list[str] = field(default_factory=list)  # active, run by no bot, in two readings
    stop_s: float | None = None
    error: str = ""  # the round could not run (the daemon did not start)

    def findings(self, limits: Limits) -> list[str]:
        """What went wrong in this round; empty when it passed."""
        out = [
            f"{g.goal}: {g.outcome} ({g.reason or 'no progress'})" for g in self.goals if g.outcome not in OK_OUTCOMES
        ]
        out += [f"{g.goal}: failed without a reason" for g in self.goals if g.outcome == "failed" and not g.reason]
        if self.error:
            out.append(self.error)
        bridge = self.peak_mb.get("bridge", 0.0)
        if bridge > limits.bridge_mb:
            out.append(f"bridge node peaked at {bridge:.0f} MB (limit {limits.bridge_mb:.0f})")
        if self.longest_unhealthy_s > limits.unhealthy_s:
            out.append(f"out of health for {self.longest_unhealthy_s:.1f} s (limit {limits.unhealthy_s:.0f})")
        if self.active_without_run:
            out.append(f"active with no run: {', '.join(self.active_without_run)}")
        if self.stop_s is None or self.stop_s > limits.stop_s:
            out.append(
                f"stop took {'too long' if self.stop_s is None else f'{self.stop_s:.1f} s'} (limit {limits.stop_s:.0f})"
            )
        return out

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def goal_outcome(task: dict[str, Any] | None) -> tuple[str, str] | None:
    """(outcome, reason) once a task has ended; None while it runs."""
    if task is None:
        return None
    status = task.get("status")
    meta = task.get("metadata") or {}
    reason = str(
        (meta.get("solver") or {}).get("failureReason")
        or meta.get("failureReason")
        or meta.get("unplannableReason")
        or meta.get("blockedReason")
        or ""
    )
    if status == "completed":
        return "completed", ""
    if status == "failed":
        return "failed", reason
    if status == "unplannable":
        return "unplannable", reason or "unplannable"
    return None


class Unhealthy:
    """The longest stretch of consecutive samples that were not healthy, in seconds of the
    sampler's clock (a sample time is passed in: no clock of its own)."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.longest = 0.0

    def sample(self, t: float, healthy: bool) -> None:
        if healthy:
            self.since = None
            return
        if self.since is None:
            self.since = t
        self.longest = max(self.longest, t - self.since)


class Progress:
    """When a task last moved: its status, progress or step changed, or, while it is active,
    the world did (the bot's block position or inventory: a long gather inside one step of
    a delegated workflow moves no field of the task itself)."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[Any, float]] = {}

    def sample(self, t: float, task: dict[str, Any], world: Any = None) -> None:
        meta = task.get("metadata") or {}
        key = (
            task.get("status"),
            task.get("progress"),
            meta.get("currentStep"),
            meta.get("stepIndex"),
            task.get("updatedAt"),
            meta.get("updatedAt"),
            world if task.get("status") == "active" else None,
        )
        prev = self.last.get(task["id"])
        if prev is None or prev[0] != key:
            self.last[task["id"]] = (key, t)

    def idle_s(self, task_id: str, now: float) -> float:
        prev = self.last.get(task_id)
        return now - prev[1] if prev else now


def table(results: list[RoundResult], limits: Limits) -> str:
    """One line a goal, then one a round: outcome, seconds, peaks, verdict."""
    lines = [f"{'round':>5}  {'world':>7} {'host':>4} {'days':>5}  {'goal':<26} {'outcome':<12} {'s':>5}  reason"]
    for r in results:
        rd = r.round
        for g in r.goals:
            lines.append(
                f"{rd.index:>5}  {rd.world_seed:>7} {'on' if rd.hostiles else 'off':>4} "
                f"{'short' if rd.short_days else 'day':>5}  {g.goal:<26} {g.outcome:<12} {g.seconds:>5.0f}  "
                f"{g.reason[:90]}"
            )
        peaks = "  ".join(
            f"{role} {r.peak_mb.get(role, 0):.0f} MB / {r.peak_cpu.get(role, 0):.0f}% cpu"
            for role in ("daemon", "bridge", "world")
        )
        found = r.findings(limits)
        stop = "-" if r.stop_s is None else f"{r.stop_s:.1f} s"
        lines.append(
            f"{'':>5}  peaks: {peaks}  unhealthy {r.longest_unhealthy_s:.1f} s  stop {stop}  "
            f"{'PASS' if not found else 'FAIL: ' + '; '.join(found)}"
        )
    return "\n".join(lines)
