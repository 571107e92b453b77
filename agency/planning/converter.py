"""Thought-to-task converter (docs/contracts.md TASK-3, DRIVE-2, THOUGHT-3).

Only convertEligible thoughts with an extracted goal become tasks, and never while a task
for the same goalKey is in flight (among the tasks open to the thought's bot, when it names
one: its task is bound to that bot). Every evaluated thought gets an outcome (converted,
skipped with a reason, or error) so planning can ack each one; a bad thought is an
`error` outcome, never an exception.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from loguru import logger

from agency.goal_tag import canonical_goal_key
from agency.planning.follow_up_params import after_parameters
from agency.planning.tasks.idempotency import STUCK_PENDING_TIMEOUT_MS, find_blocking_task, held_twin, stale_twins
from agency.planning.tasks.models import (
    IllegalTransitionError,
    NewTask,
    Task,
    TaskNotFoundError,
    TaskOrigin,
    TaskStatus,
)
from agency.planning.tasks.store import TaskStore
from agency.thoughts import Thought

# The start of the reason a task superseded by its goal's retry failed with.
SUPERSEDED = "superseded by"

SkipReason = Literal[
    "already_processed",
    "not_convert_eligible",
    "no_extracted_goal",
    "no_goal_key",
    "duplicate_goal",
    "already_satisfied",
    "held_task_given_back",
]


@dataclass(frozen=True)
class ConversionOutcome:
    thought_id: str | None
    status: Literal["converted", "skipped", "error"]
    reason: SkipReason | None = None
    task_id: str | None = None  # the new task, or the one that made this a duplicate
    error: str | None = None


@dataclass(frozen=True)
class ConversionBatch:
    outcomes: list[ConversionOutcome]

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    def ack_ids(self) -> list[str]:
        """Every evaluated thought is acked, whatever happened to it (STREAM-2)."""
        return [o.thought_id for o in self.outcomes if o.thought_id]

    def log_line(self) -> str:
        n = len(self.outcomes)
        return (
            f"[Thought-to-task] ack batch size={n} fetched={n} converted={self.count('converted')} "
            f"skipped={self.count('skipped')} errors={self.count('error')}"
        )


class GoalRouter(Protocol):
    """Goal-bound intents (e.g. `build basic_shelter`) go through the goal resolver instead
    of add_task (GOAL-2); the router returns None for goals it does not own."""

    def __call__(self, thought: Thought, goal_key: str, *, priority: float = 0.5) -> ConversionOutcome | None: ...


def _goal_key(thought: Thought) -> str | None:
    goal = thought.metadata.extractedGoal
    # '' is absent at both layers (TASK-3): the thought path, then the callsite.
    from_thought = thought.metadata.goalKey or None
    return from_thought or (canonical_goal_key(goal.action, goal.target) if goal else None) or None


def asked_by(tags: list[str]) -> str | None:
    """Who asked for a user's goal, from its thought's `by:` tag (agency.goals.user_goals.BY_TAG)."""
    return next((t[3:] for t in tags if t.startswith("by:")), None)


DRIVE_TICK = "drive-tick"  # the source of a drive tick's goals, and the origin of their tasks


def origin_kind(source: str | None) -> str:
    """The task origin of a goal's source: a drive tick's, a user's (POST /api/goals), else
    a thought's (an LLM's tag)."""
    return source if source in (DRIVE_TICK, "user") else "thought"


def task_title(action: str, target: str, amount: int) -> str:
    label = f"{action.capitalize()} {target.replace('_', ' ')}"
    return f"{label} x{amount}" if amount > 1 else label


def convert_thought(
    raw: Thought | Mapping[str, Any],
    store: TaskStore,
    now_ms: int,
    *,
    stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
    router: GoalRouter | None = None,
    priority: float = 0.5,
) -> ConversionOutcome:
    """priority: the new task's (a user's goal may set it); blocking and routing ignore it."""
    thought_id = raw.get("id") if isinstance(raw, Mapping) else getattr(raw, "id", None)
    thought_id = thought_id if isinstance(thought_id, str) else None
    try:
        thought = raw if isinstance(raw, Thought) else Thought.model_validate(raw)
        if thought.processed:
            return ConversionOutcome(thought.id, "skipped", "already_processed")
        if thought.convertEligible is not True:
            return ConversionOutcome(thought.id, "skipped", "not_convert_eligible")
        goal = thought.metadata.extractedGoal
        if goal is None:
            return ConversionOutcome(thought.id, "skipped", "no_extracted_goal")
        goal_key = _goal_key(thought)
        if goal_key is None:
            return ConversionOutcome(thought.id, "skipped", "no_goal_key")
        routed = router(thought, goal_key, priority=priority) if router is not None else None
        if routed is not None:
            return routed
        bot = thought.metadata.bot
        blocking = find_blocking_task(store, goal_key, now_ms, stuck_timeout_ms, bot=bot)
        if blocking is not None:
            return ConversionOutcome(thought.id, "skipped", "duplicate_goal", task_id=blocking.id)
        source = thought.metadata.extractedGoalSource or "llm"
        # only a drive tick's: a user's or a model's goal is a task of its own, as ever
        held = held_twin(store, goal_key, bot=bot) if source == DRIVE_TICK else None
        if held is not None:
            return _give_back_held(store, held, thought.id)
        stale = stale_twins(store, goal_key, now_ms, stuck_timeout_ms, bot=bot)
        kind = origin_kind(source)
        task = store.add_task(
            NewTask(
                title=task_title(goal.action, goal.target, goal.amount),
                type=goal.action,
                description=thought.content,
                priority=priority,
                source=kind,
                parameters=_parameters(thought),
                metadata={
                    "goalKey": goal_key,
                    # A user's request is not a stored thought: its id is the origin's sourceId only.
                    "sourceThoughtId": None if kind == "user" else thought.id,
                    "extractedGoal": goal.model_dump(),
                    "extractedGoalSource": source,
                    "convertEligible": True,
                    "tags": list(thought.tags),
                    "bot": bot,
                },
            ),
            origin=TaskOrigin(kind=kind, sourceId=thought.id, by=asked_by(thought.tags)),
        )
        logger.info("[Thought-to-task] converted thought={} task={} goalKey={}", thought.id, task.id, goal_key)
        for old in stale:
            _supersede(store, old, task.id, now_ms)
        return ConversionOutcome(thought.id, "converted", task_id=task.id)
    except Exception as exc:  # noqa: BLE001 - a bad thought must not stop the batch
        logger.warning("[Thought-to-task] error thought={} {}: {}", thought_id, type(exc).__name__, exc)
        return ConversionOutcome(thought_id, "error", error=f"{type(exc).__name__}: {exc}")


def _parameters(thought: Thought) -> dict[str, Any]:
    """The goal's target and amount; a drive tick's follow-ups ride along as `then` (the
    runtime does them after the goal: agency.execution.agents.runtime) and `after` (queued as
    a task once it completes: agency.planning.follow_up_params)."""
    goal = thought.metadata.extractedGoal
    assert goal is not None
    out: dict[str, Any] = {"target": goal.target, "amount": goal.amount}
    if thought.metadata.extractedGoalSource == DRIVE_TICK:
        if thought.metadata.followUps:
            out["then"] = [dict(f) for f in thought.metadata.followUps]
        out |= after_parameters(thought.metadata.followUpsAfter, thought.metadata.bot)
    return out


def _give_back_held(store: TaskStore, held: Task, thought_id: str) -> ConversionOutcome:
    """The task held for the night goes back to the queue for its goal (idempotency.held_twin)."""
    try:
        store.set_status(
            held.id, TaskStatus.pending, metadata_patch={"blockedReason": None}, only_from=TaskStatus.paused
        )
    except (IllegalTransitionError, TaskNotFoundError):
        pass  # given back or ended in between: its goal is in hand either way
    else:
        logger.info(
            "[Thought-to-task] drive tick thought={} asks for goalKey={}: its task={} held for the night is given "
            "back instead of a twin",
            thought_id,
            held.metadata.goalKey,
            held.id,
        )
    return ConversionOutcome(thought_id, "skipped", "held_task_given_back", task_id=held.id)


def _supersede(store: TaskStore, old: Task, new_id: str, now_ms: int) -> None:
    """Close a task the stuck timeout gave up on, now that `new_id` retries its goal."""
    waited_s = (now_ms - old.metadata.createdAt) // 1000
    try:
        store.set_status(
            old.id,
            TaskStatus.failed,
            metadata_patch={"blockedReason": f"{SUPERSEDED} {new_id}: pending {waited_s} s with no progress"},
            only_from=TaskStatus.pending,
        )
    except (IllegalTransitionError, TaskNotFoundError):
        return  # claimed or ended in between: it runs (or ran) as it is
    logger.info(
        "[Thought-to-task] superseded task={} by task={} (pending {} s with no progress)", old.id, new_id, waited_s
    )


def convert_thoughts(
    thoughts: Iterable[Thought | Mapping[str, Any]],
    store: TaskStore,
    now_ms: int,
    *,
    stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
    router: GoalRouter | None = None,
) -> ConversionBatch:
    """Convert a polled batch in order; duplicates within the batch see earlier conversions
    because each conversion is committed before the next lookup."""
    return ConversionBatch(
        [convert_thought(t, store, now_ms, stuck_timeout_ms=stuck_timeout_ms, router=router) for t in thoughts]
    )
