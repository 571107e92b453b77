"""resolve_or_create_build_goal (docs/contracts.md GOAL-4..6): continue, already satisfied,
re-open or create.

The resolution's lock is a compare-and-swap in the database (GOAL-4): the insert of a
new goal-bound task fails (unique partial index on goal_keys) when a non-terminal task
already holds the key or has it as an alias, whichever thread or process inserted it, and
the resolver then runs again and finds that task. No Python mutex is involved.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from agency.clock import Clock, system_clock_ms
from agency.db import integrity_errors
from agency.goals.identity import PROVISIONAL_SCOPE_M, anchored_goal_key, new_binding, provisional_goal_key
from agency.goals.key_index import GoalKeyConflictError, GoalKeyIndex, is_goal_key_conflict
from agency.goals.lifecycle import GoalLifecycle
from agency.goals.models import (
    SITE_MARGIN,
    GoalBinding,
    SiteSignature,
    VerificationResult,
    dump_binding,
    read_binding,
    task_position,
)
from agency.planning.follow_up_params import after_parameters
from agency.planning.tasks.models import NewTask, Task, TaskOrigin, TaskStatus
from agency.planning.tasks.store import TaskStore

CONTINUE_THRESHOLD = 0.6
PROXIMITY_ZERO_M = 128.0
PROGRESS_WEIGHT = 0.2
RECENCY_WINDOW_MS = 30 * 60_000
RECENCY_BONUS = 0.1
MAX_ATTEMPTS = 3
FUZZY_STATUSES = frozenset({TaskStatus.pending, TaskStatus.active, TaskStatus.paused, TaskStatus.pending_planning})

Verifier = Callable[[Task, GoalBinding], VerificationResult]


class Outcome(str, Enum):
    continued = "continued"
    created = "created"
    already_satisfied = "already_satisfied"
    reactivated = "reactivated"  # a completed goal in scope regressed and was re-opened


@dataclass(frozen=True)
class BuildIntent:
    goal_type: str
    params: Mapping[str, Any]
    bot_position: tuple[float, float, float]
    title: str
    verifier: str = "verify_shelter_v0"
    definition_version: int = 0
    goal_id: str | None = None
    site: SiteSignature | None = None  # an intent may arrive already anchored
    template_digest: str | None = None
    priority: float = 0.5  # strategic input; urgency is the priority scorer's, not the intent's
    source: str = "goal"
    # a drive tick's follow-ups and its bot: the task's (agency.execution.after_goal), not the goal's identity
    after: tuple[Mapping[str, Any], ...] = ()
    after_bot: str | None = None


@dataclass
class Resolution:
    outcome: Outcome
    task: Task
    score: float | None = None
    verification: VerificationResult | None = None
    scores: dict[str, float] = field(default_factory=dict)  # candidate task id -> score


def _distance(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))


def _intent_position(intent: BuildIntent) -> tuple[float, float, float]:
    return intent.site.position if intent.site is not None else intent.bot_position


def score_candidate(task: Task, binding: GoalBinding, intent: BuildIntent, now_ms: int) -> float:
    """1.0 on an exact site match; else proximity (1 at 0 m, 0 at 128 m) + 0.2 x progress
    + 0.1 if worked on within 30 min, capped at 1. A candidate at >= 128 m scores 0 whatever
    its progress: distance alone must never be outweighed (false continuation)."""
    site = binding.anchors.siteSignature
    if (
        intent.site is not None
        and site is not None
        and (site.refCorner, site.facing)
        == (
            intent.site.refCorner,
            intent.site.facing,
        )
    ):
        return 1.0
    pos = task_position(task, binding)
    if pos is None:
        return 0.0
    proximity = max(0.0, 1.0 - _distance(pos, _intent_position(intent)) / PROXIMITY_ZERO_M)
    if proximity == 0.0:
        return 0.0
    build = task.metadata.build or {}
    cursor, total = build.get("moduleCursor"), build.get("totalModules")
    progress = 0.0
    if isinstance(cursor, (int, float)) and isinstance(total, (int, float)) and total > 0:
        progress = cursor / total
    last_worked = build.get("lastWorkedAt", task.metadata.updatedAt)
    recent = isinstance(last_worked, (int, float)) and now_ms - last_worked <= RECENCY_WINDOW_MS
    recency = RECENCY_BONUS if recent else 0.0
    return min(1.0, proximity + PROGRESS_WEIGHT * min(max(progress, 0.0), 1.0) + recency)


def in_satisfaction_scope(binding: GoalBinding, intent: BuildIntent) -> bool:
    """Provisional intent: the completed goal lies within 32 m of the bot. Anchored
    intent: its footprint intersects the intent's footprint + 8. Checked BEFORE running any
    verifier, so a shelter 80 m away never satisfies a request here."""
    site = binding.anchors.siteSignature
    if intent.site is not None:
        scope = intent.site.footprintBounds.expanded(SITE_MARGIN)
        if site is not None:
            return scope.intersects(site.footprintBounds)
        hint = binding.anchors.regionHint
        return hint is not None and scope.contains((hint.x, hint.y, hint.z))
    if site is not None:
        return site.footprintBounds.distance_to(intent.bot_position) <= PROVISIONAL_SCOPE_M
    hint = binding.anchors.regionHint
    return hint is not None and _distance((hint.x, hint.y, hint.z), intent.bot_position) <= PROVISIONAL_SCOPE_M


def _bound_tasks(
    store: TaskStore, index: GoalKeyIndex, goal_type: str, *, terminal: bool
) -> list[tuple[Task, GoalBinding]]:
    out = []
    for task_id in index.task_ids(goal_type, terminal=terminal):
        task = store.get_task(task_id)
        binding = read_binding(task) if task is not None else None
        if task is not None and binding is not None and not binding.archived:  # another world's
            out.append((task, binding))
    return out


def resolve_or_create_build_goal(
    store: TaskStore,
    index: GoalKeyIndex,
    intent: BuildIntent,
    *,
    verify: Verifier,
    lifecycle: GoalLifecycle | None = None,
    clock: Clock = system_clock_ms,
    origin: TaskOrigin | None = None,
    on_before_create: Callable[[int], None] | None = None,
) -> Resolution:
    """on_before_create(attempt) runs between lookup and insert: a seam for observing (and,
    in tests, forcing) the race the database guard resolves."""
    lifecycle = lifecycle or GoalLifecycle(store, clock=clock)
    for attempt in range(MAX_ATTEMPTS):
        found = _resolve_existing(store, index, intent, verify, lifecycle, clock())
        if found is not None:
            return found
        if on_before_create is not None:
            on_before_create(attempt)
        try:
            return Resolution(Outcome.created, lifecycle.created(_create(store, intent, origin)))
        except integrity_errors() as exc:
            if not is_goal_key_conflict(exc):
                raise
            # Another writer won the CAS between our lookup and insert: look again.
    key = provisional_goal_key(intent.goal_type, intent.params, intent.bot_position)
    raise GoalKeyConflictError(intent.goal_type, key)


def _resolve_existing(
    store: TaskStore, index: GoalKeyIndex, intent: BuildIntent, verify: Verifier, lifecycle: GoalLifecycle, now: int
) -> Resolution | None:
    # 1. exact: the provisional key (or the anchored one) as a live goalKey or alias
    keys = [provisional_goal_key(intent.goal_type, intent.params, intent.bot_position)]
    if intent.site is not None:
        keys.append(anchored_goal_key(intent.goal_type, intent.site, intent.template_digest))
    for key in keys:
        task_id = index.live_task_id(intent.goal_type, key)
        task = store.get_task(task_id) if task_id else None
        if task is not None:
            return Resolution(Outcome.continued, task, score=1.0)
    # 2. fuzzy: same goal type, workable status, scored
    scored = [
        (score_candidate(t, b, intent, now), t)
        for t, b in _bound_tasks(store, index, intent.goal_type, terminal=False)
        if t.status in FUZZY_STATUSES
    ]
    scores = {t.id: s for s, t in scored}
    if scored:
        best_score, best = max(scored, key=lambda st: (st[0], -st[1].metadata.createdAt))
        if best_score > CONTINUE_THRESHOLD:
            return Resolution(Outcome.continued, best, score=best_score, scores=scores)
    # 3. completed goals within the spatial scope: verify; done -> satisfied, else re-open
    completed = [
        (t, b)
        for t, b in _bound_tasks(store, index, intent.goal_type, terminal=True)
        if t.status is TaskStatus.completed and in_satisfaction_scope(b, intent)
    ]
    completed.sort(key=lambda tb: _distance(task_position(*tb) or (1e9, 1e9, 1e9), _intent_position(intent)))
    failures: list[tuple[Task, VerificationResult]] = []
    for task, binding in completed:
        result = verify(task, binding)
        if result.done:
            return Resolution(Outcome.already_satisfied, task, verification=result, scores=scores)
        failures.append((task, result))
    for task, result in failures:  # nearest first
        try:
            reopened = lifecycle.reopen(task.id, result)
        except GoalKeyConflictError:
            continue  # a live task took its key meanwhile; fall through to create
        return Resolution(Outcome.reactivated, reopened, verification=result, scores=scores)
    return None


def _create(store: TaskStore, intent: BuildIntent, origin: TaskOrigin | None) -> Task:
    binding = new_binding(
        intent.goal_type,
        intent.params,
        intent.bot_position,
        verifier=intent.verifier,
        definition_version=intent.definition_version,
        goal_id=intent.goal_id,
        site=intent.site,
        template_digest=intent.template_digest,
    )
    draft = NewTask(
        title=intent.title,
        type="build",
        priority=intent.priority,
        source=intent.source,
        parameters={**intent.params, **after_parameters(list(intent.after), intent.after_bot)},
        metadata={"goalBinding": dump_binding(binding)},
    )
    return store.add_task(draft, origin=origin or TaskOrigin(kind="goal"))
