"""Goal-bound intents in the thought -> task pipeline (docs/contracts.md GOAL-2).

A thought whose goal is `build basic_shelter` (DRIVE-3's second rule or an LLM's tag) does
not become a plain add_task: it goes through resolve_or_create_build_goal, which continues
the shelter goal already under way nearby, reports one already standing (verified) here,
re-opens a regressed one, or creates the goal-bound task. The created task also carries the
thought's provenance and the drive-tick goalKey `build:basic_shelter`, so drive-tick
idempotency sees it like any other task.
"""

from __future__ import annotations

from collections.abc import Callable

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.goals.key_index import GoalKeyIndex
from agency.goals.lifecycle import GoalLifecycle
from agency.goals.models import BUILD_SHELTER
from agency.goals.resolver import BuildIntent, Outcome, Verifier, resolve_or_create_build_goal
from agency.goals.run_hooks import SHELTER_TARGETS
from agency.planning.converter import DRIVE_TICK, ConversionOutcome, asked_by, origin_kind
from agency.planning.tasks.models import TaskOrigin
from agency.thoughts import Thought

Position = Callable[[], "tuple[float, float, float] | None"]


class ShelterGoalRouter:
    def __init__(
        self,
        index: GoalKeyIndex,
        lifecycle: GoalLifecycle,
        *,
        position: Position,
        verify: Verifier,
        clock: Clock = system_clock_ms,
    ) -> None:
        self.index = index
        self.lifecycle = lifecycle
        self.store = lifecycle.store
        self.position = position
        self.verify = verify
        self.clock = clock

    def __call__(self, thought: Thought, goal_key: str, *, priority: float = 0.5) -> ConversionOutcome | None:
        goal = thought.metadata.extractedGoal
        if goal is None or goal.action.lower() != "build" or goal.target not in SHELTER_TARGETS:
            return None  # not goal-bound: the plain converter path
        pos = self.position()
        if pos is None:
            return ConversionOutcome(thought.id, "error", error="bot position unknown: a build goal needs one")
        source = thought.metadata.extractedGoalSource or "llm"
        kind = origin_kind(source)
        intent = BuildIntent(
            goal_type=BUILD_SHELTER,
            params={"target": "basic_shelter", "amount": 1},
            bot_position=pos,
            title="Build basic shelter",
            source=kind,
            goal_id=f"goal-{thought.id}",  # the Goal row the sync reducer keeps in step with the task
            priority=priority,
            # the drive tick's follow-ups, queued as a task once the hut is verified (after_goal)
            after=tuple(thought.metadata.followUpsAfter or ()) if source == DRIVE_TICK else (),
            after_bot=thought.metadata.bot,
        )
        res = resolve_or_create_build_goal(
            self.store,
            self.index,
            intent,
            verify=self.verify,
            lifecycle=self.lifecycle,
            clock=self.clock,
            origin=TaskOrigin(kind=kind, sourceId=thought.id, by=asked_by(thought.tags)),
        )
        logger.info(
            "[Goals] resolve build_shelter thought={} -> {} task={} score={}",
            thought.id,
            res.outcome.value,
            res.task.id,
            res.score,
        )
        if res.outcome is Outcome.created:
            self.store.update_task_metadata(
                res.task.id,
                {
                    "goalKey": goal_key,
                    "sourceThoughtId": None if kind == "user" else thought.id,
                    "extractedGoal": goal.model_dump(),
                    "extractedGoalSource": source,
                    "convertEligible": True,
                    "tags": list(thought.tags),
                },
            )
            return ConversionOutcome(thought.id, "converted", task_id=res.task.id)
        if res.outcome is Outcome.reactivated:  # a regressed shelter in scope: repair it
            return ConversionOutcome(thought.id, "converted", task_id=res.task.id)
        if res.outcome is Outcome.already_satisfied:
            return ConversionOutcome(thought.id, "skipped", "already_satisfied", task_id=res.task.id)
        return ConversionOutcome(thought.id, "skipped", "duplicate_goal", task_id=res.task.id)
