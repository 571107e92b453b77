"""Drive ticks (contract 3): one explicit, labelled source of autonomy.

Every DRIVE_TICK_INTERVAL_MS, if the bot is safe (health and food >= 16, no hostiles, not
creative/spectator), pick one goal from the inventory and time of day, skip it if a task
for the same goalKey is already in flight (3.2), and emit a high-novelty, convertible
thought whose goal came from build_goal_tag_v1 and was parsed back by the sanitizer, so
drive ticks and LLM replies share one goal vocabulary.

Night approaching (rule 2) means timeOfDay in the dusk window [11000, 13000) or the
snapshot already reports night (not isDay): a bot without shelter at night still needs
one, and mineflayer's isDay is false for 13000..22999.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable

from agency.blocks import is_log
from agency.counters import AgencyCounters
from agency.goal_tag import ExtractedGoal, build_goal_tag_v1, canonical_goal_key
from agency.sanitizer import sanitize
from agency.tasks.idempotency import STUCK_PENDING_TIMEOUT_MS, TaskLookup, find_blocking_task
from agency.tasks.models import Task
from agency.thoughts import Thought, ThoughtMetadata
from agency.world import WorldSnapshot

DRIVE_TICK_INTERVAL_MS = 180_000  # fixed, no jitter in v1
SAFE_HEALTH = 16
SAFE_FOOD = 16
DUSK_START = 11_000
NIGHT_START = 13_000
LOW_LOG_STOCK = 16

_CATEGORY = {"collect": "gathering", "build": "building", "craft": "crafting", "explore": "exploration"}


@dataclass(frozen=True)
class DriveTickConfig:
    enabled: bool = True
    interval_ms: int = DRIVE_TICK_INTERVAL_MS
    stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS


@dataclass
class DriveTickState:
    """The one piece of drive-tick memory: when it last fired (None = never)."""

    last_fired_ms: int | None = None

    def due(self, now_ms: int, interval_ms: int) -> bool:
        return self.last_fired_ms is None or now_ms - self.last_fired_ms >= interval_ms


class DriveSkipReason(str, Enum):
    disabled = "disabled"
    unsafe_game_mode = "unsafe_game_mode"
    low_health = "low_health"
    low_food = "low_food"
    hostiles_present = "hostiles_present"
    interval_not_elapsed = "interval_not_elapsed"
    duplicate_goal = "duplicate_goal"
    sheltering = "sheltering"  # the bot spends the night in its shelter: no new work outside


@dataclass(frozen=True)
class DriveSelection:
    action: str
    target: str
    amount: int
    rule: str  # which 3.3 rule chose it
    reason: str  # first-person sentence used as the thought text


@dataclass(frozen=True)
class DriveTickFired:
    thought: Thought
    selection: DriveSelection


@dataclass(frozen=True)
class DriveTickSkipped:
    reason: DriveSkipReason
    detail: str = ""
    blocking_task_id: str | None = None


DriveTickResult = DriveTickFired | DriveTickSkipped


def night_approaching(snapshot: WorldSnapshot) -> bool:
    return DUSK_START <= snapshot.timeOfDay < NIGHT_START or not snapshot.isDay


def select_drive(snapshot: WorldSnapshot, shelter_nearby: bool | None, table_nearby: bool | None = None) -> DriveSelection:
    """Contract 3.3, first match wins. shelter_nearby None means unknown = no shelter.
    A crafting table placed within reach counts as had (table_nearby): crafts place the
    table they need, and judging by the inventory alone crafted a new one after each."""
    logs = sum(i.count for i in snapshot.inventory if is_log(i.name))  # what the crafter can make planks of
    has_table = snapshot.count_of("crafting_table") > 0 or table_nearby is True
    has_pickaxe = snapshot.count_matching("_pickaxe") > 0
    if not snapshot.inventory or logs == 0:
        return DriveSelection("collect", "oak_log", 8, "no_logs", "I have no logs; I should gather some wood.")
    if night_approaching(snapshot) and shelter_nearby is not True:
        return DriveSelection(
            "build", "basic_shelter", 1, "night_no_shelter", "Night is coming and I have no shelter nearby."
        )
    if not has_table:
        return DriveSelection("craft", "crafting_table", 1, "no_crafting_table", "I have logs but no crafting table.")
    if not has_pickaxe:
        return DriveSelection("craft", "wooden_pickaxe", 1, "no_pickaxe", "I have a crafting table but no pickaxe.")
    if logs < LOW_LOG_STOCK:
        return DriveSelection("collect", "oak_log", 8, "low_logs", "My log stock is low; I should gather more wood.")
    return DriveSelection("explore", "nearby", 1, "default", "Things are calm; I will explore nearby.")


def _safety_gate(snapshot: WorldSnapshot) -> DriveTickSkipped | None:
    if snapshot.gameMode in ("creative", "spectator"):
        return DriveTickSkipped(DriveSkipReason.unsafe_game_mode, snapshot.gameMode)
    if snapshot.health < SAFE_HEALTH:
        return DriveTickSkipped(DriveSkipReason.low_health, f"health={snapshot.health}")
    if snapshot.food < SAFE_FOOD:
        return DriveTickSkipped(DriveSkipReason.low_food, f"food={snapshot.food}")
    if snapshot.hostiles != 0:
        return DriveTickSkipped(DriveSkipReason.hostiles_present, f"hostiles={snapshot.hostiles}")
    return None


def _build_thought(sel: DriveSelection, now_ms: int) -> Thought:
    # Round-trip through the sanitizer: the goal on the thought is exactly what an LLM
    # reply carrying the same tag would yield.
    parsed = sanitize(f"{sel.reason}\n{build_goal_tag_v1(sel.action, sel.target, sel.amount)}")
    expected = ExtractedGoal(action=sel.action, target=sel.target, amount=sel.amount)
    if parsed.goal != expected:
        raise AssertionError(f"drive goal did not round-trip: {expected} -> {parsed.goal}")
    return Thought(
        type="drive",
        content=parsed.text,
        timestamp=now_ms,
        novelty="high",
        convertEligible=True,
        cognitiveSystem="drive-tick",
        tags=["drive-tick", "autonomous", _CATEGORY.get(sel.action, sel.action)],
        metadata=ThoughtMetadata(
            extractedGoal=parsed.goal,
            extractedGoalSource="drive-tick",
            goalKey=canonical_goal_key(sel.action, sel.target),
            # The goal was chosen from this snapshot, so it is grounded by construction;
            # the stream requires the record of every convertEligible thought (KA-A8).
            grounding={"pass": True, "reason": "derived_from_snapshot", "detail": sel.rule, "source": "drive-tick"},
        ),
    )


def evaluate_drive_tick(
    snapshot: WorldSnapshot,
    now_ms: int,
    state: DriveTickState,
    existing_tasks: TaskLookup | Iterable[Task],
    *,
    shelter_nearby: bool | None = None,
    table_nearby: bool | None = None,
    sheltering: bool = False,
    config: DriveTickConfig = DriveTickConfig(),
    counters: AgencyCounters | None = None,
) -> DriveTickResult:
    """Run the gates, pick a drive, check idempotency. Firing updates state and counts
    driveTicks; a skip changes nothing, so the next safe moment can fire."""
    if not config.enabled:
        return DriveTickSkipped(DriveSkipReason.disabled)
    unsafe = _safety_gate(snapshot)
    if unsafe is not None:
        return unsafe
    if sheltering:
        return DriveTickSkipped(DriveSkipReason.sheltering, "in the shelter until morning")
    if not state.due(now_ms, config.interval_ms):
        assert state.last_fired_ms is not None
        return DriveTickSkipped(
            DriveSkipReason.interval_not_elapsed, f"{now_ms - state.last_fired_ms}ms < {config.interval_ms}ms"
        )
    sel = select_drive(snapshot, shelter_nearby, table_nearby)
    goal_key = canonical_goal_key(sel.action, sel.target)
    blocking = find_blocking_task(existing_tasks, goal_key, now_ms, config.stuck_timeout_ms)
    if blocking is not None:
        return DriveTickSkipped(
            DriveSkipReason.duplicate_goal,
            f"{goal_key} already {blocking.status.value}",
            blocking_task_id=blocking.id,
        )
    thought = _build_thought(sel, now_ms)
    state.last_fired_ms = now_ms
    if counters is not None:
        counters.increment("driveTicks")
        # Its goal came out of a [GOAL: ...] tag through the sanitizer, like an LLM's.
        counters.increment("goalTags")
    return DriveTickFired(thought=thought, selection=sel)
