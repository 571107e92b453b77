"""PriorityScorer (docs/contracts.md GOAL-8, GOAL-7 and FIELDS-1): Task.urgency,
0..1, computed once per evaluation cycle from the bot's vitals, the time of day and each
task's goal state, and written through the store's set_urgencies, its only write path.
The executor claims the most urgent pending task, the oldest among equals
(SqliteTaskStore.claim_next), so what the scorer says is what the bot does next.

Task.priority (strategic, 0.5 by default) sets the base: a default task scores 0.5, the
urgency a task is born with, so plain work keeps its first-come order. On top of it:
- night: a shelter goal from dusk to morning while no verified shelter is within a walk back (96 m);
- spike: a held shelter goal that dusk_approaching spiked (no verified shelter), for that
  night (the spike time is kept on the goal binding, so it survives a restart);
- hunger (food below 16): a task that brings food (eat, or a food as its target);
- injury (health below 16): a shelter goal, walls between a hurt bot and what hurt it;
- repair: a goal its verifier re-opened (the shelter was damaged).
"""

from __future__ import annotations

from collections.abc import Iterable

from loguru import logger

from agency.clock import Clock
from agency.goals.models import BUILD_SHELTER, GoalBinding, read_binding
from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.store import TaskStore
from agency.world import SAFE_FOOD, SAFE_HEALTH, WorldSnapshot, night_approaching

BASE = 0.25  # + PRIORITY_WEIGHT * priority: 0.5 for the default priority
PRIORITY_WEIGHT = 0.5
NIGHT_BOOST = 0.25
SPIKE_BOOST = 0.15
HUNGER_BOOST = 0.4  # x hunger, 0 (fed) .. 1 (starving)
INJURY_BOOST = 0.2  # x injury, 0 (healthy) .. 1 (dying)
REPAIR_BOOST = 0.1
NIGHT_MS = 650_000  # dusk to morning: 13000 game ticks at 20 per second
FOOD_ACTIONS = frozenset({"eat"})
LIVE = (TaskStatus.pending, TaskStatus.pending_planning, TaskStatus.active, TaskStatus.paused, TaskStatus.unplannable)


def _shortfall(value: float, safe: float) -> float:
    return max(0.0, min(1.0, (safe - value) / safe))


class PriorityScorer:
    def __init__(self, store: TaskStore, clock: Clock, *, foods: Iterable[str] = ()) -> None:
        self.store = store
        self.clock = clock
        self.foods = frozenset(foods)  # items that answer hunger (the eat reflex's list)

    def parts(self, task: Task, snap: WorldSnapshot | None, shelter_nearby: bool | None) -> dict[str, float]:
        """Each contribution to the task's urgency, by name (for logs and tests)."""
        binding = read_binding(task)
        out = {"priority": BASE + PRIORITY_WEIGHT * task.priority}
        is_shelter = binding is not None and binding.goalType == BUILD_SHELTER
        night = snap is not None and night_approaching(snap)
        if is_shelter and night and shelter_nearby is not True:
            out["night"] = NIGHT_BOOST
        if is_shelter and binding is not None and self._spiked(binding, snap):
            out["spike"] = SPIKE_BOOST
        if snap is not None and self._brings_food(task):
            out["hunger"] = HUNGER_BOOST * _shortfall(snap.food, SAFE_FOOD)
        if snap is not None and is_shelter:
            out["injury"] = INJURY_BOOST * _shortfall(snap.health, SAFE_HEALTH)
        if binding is not None and binding.reopened is not None:
            out["repair"] = REPAIR_BOOST
        return out

    def score(self, task: Task, snap: WorldSnapshot | None, shelter_nearby: bool | None) -> float:
        return max(0.0, min(1.0, sum(self.parts(task, snap, shelter_nearby).values())))

    def evaluate(self, snap: WorldSnapshot | None, *, shelter_nearby: bool | None) -> dict[str, float]:
        """One evaluation cycle: score every live task, write the ones that changed.
        Returns {task id: new urgency} for those written."""
        live = self.store.list_by_status(*LIVE)
        scores = {t.id: self.score(t, snap, shelter_nearby) for t in live}
        # Runs every executor tick: no write transaction when no score moved.
        changed = {t.id: scores[t.id] for t in live if round(scores[t.id], 4) != t.urgency}
        written = self.store.set_urgencies(changed) if changed else []
        if written:
            logger.debug("[Goals] urgency {}", {tid: round(scores[tid], 3) for tid in written})
        return {tid: scores[tid] for tid in written}

    def _spiked(self, binding: GoalBinding, snap: WorldSnapshot | None) -> bool:
        at = binding.urgencySpikeAt
        tonight = at is not None and self.clock() - at < NIGHT_MS
        return tonight and (snap is None or night_approaching(snap))

    def _brings_food(self, task: Task) -> bool:
        target = str((task.parameters or {}).get("target", ""))
        return task.type.lower() in FOOD_ACTIONS or target in self.foods
