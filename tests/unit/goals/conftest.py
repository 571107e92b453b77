"""Shared fixtures for goal-binding tests: frozen clock, a store with the FIELDS-2 invariant
hook on (dev mode; docs/contracts.md), the goal-key index, goal sync, a lifecycle that records
its events, and a tiny mutable world around a blueprint shelter."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agency.clock import FrozenClock
from agency.goals import (
    BUILD_SHELTER,
    BuildIntent,
    GoalKeyIndex,
    GoalLifecycle,
    GoalSync,
    VerificationResult,
    anchor_goal,
    assert_task_state,
    basic_shelter,
    resolve_or_create_build_goal,
    verify_shelter_v0,
)
from agency.goals.models import Bounds, GoalBinding, Pos, SiteSignature
from agency.planning.tasks.models import Task
from agency.planning.tasks.store import SqliteTaskStore
from agency.shelter.blueprint import ShelterBlueprint
from agency.shelter.testing import region_from_blocks
from agency.world import BlockRegion

GROUND_Y = 63
ORIGIN: Pos = (0, 64, 0)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(1_700_000_000_000)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "agency.db"


@pytest.fixture
def store(db_path: Path, clock: FrozenClock) -> Iterator[SqliteTaskStore]:
    s = SqliteTaskStore(db_path, clock=clock, dev_mode=True, strict_finalize=False, invariant_check=assert_task_state)
    yield s
    s.close()


@pytest.fixture
def index(db_path: Path, store: SqliteTaskStore) -> Iterator[GoalKeyIndex]:
    i = GoalKeyIndex(db_path)
    yield i
    i.close()


@pytest.fixture
def goals(db_path: Path, clock: FrozenClock, store: SqliteTaskStore) -> Iterator[GoalSync]:
    g = GoalSync(db_path, clock=clock)
    yield g
    g.close()


@pytest.fixture
def events() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def lifecycle(store: SqliteTaskStore, clock: FrozenClock, goals: GoalSync, events: list) -> GoalLifecycle:
    return GoalLifecycle(store, clock=clock, goals=goals, emit=events.append)


@dataclass
class World:
    """Blocks by position on flat ground; region() reads footprint + 8 like the bridge will."""

    blocks: dict[Pos, str | None] = field(default_factory=dict)
    verifier_calls: list[str] = field(default_factory=list)

    def build(self, blueprint: ShelterBlueprint) -> None:
        self.blocks.update(blueprint.expected_blocks())

    def region(self, site: SiteSignature, margin: int = 8) -> BlockRegion:
        return region_from_blocks(site.footprintBounds.expanded(margin), self.blocks, ground_y=GROUND_Y)

    def verify(self, task: Task, binding: GoalBinding) -> VerificationResult:
        self.verifier_calls.append(task.id)
        site = binding.anchors.siteSignature
        assert site is not None, "only anchored goals are verified"
        return verify_shelter_v0(self.region(site), site)


@pytest.fixture
def world() -> World:
    return World()


def shelter_intent(pos: tuple[float, float, float], **kw: Any) -> BuildIntent:
    return BuildIntent(
        goal_type=BUILD_SHELTER,
        params={"template": "basic_shelter", "count": 1},
        bot_position=pos,
        title="build basic_shelter 1",
        goal_id=kw.pop("goal_id", "goal-shelter"),
        **kw,
    )


def completed_shelter(
    store: SqliteTaskStore, index: GoalKeyIndex, lifecycle: GoalLifecycle, world: World, origin: Pos = ORIGIN
) -> Task:
    """A shelter goal taken the whole way: resolve, anchor, build, verify twice."""
    bp = basic_shelter(origin, "south")
    bot = (origin[0] + 2.5, origin[1], origin[2] + 7.5)
    res = resolve_or_create_build_goal(store, index, shelter_intent(bot), verify=world.verify, lifecycle=lifecycle)
    task = anchor_goal(store, res.task.id, bp.site)
    store.set_status(task.id, "active")
    world.build(bp)
    for _ in range(2):
        verdict = world.verify(task, GoalBinding.model_validate(task.metadata.goalBinding))
        task = lifecycle.record_verification(task.id, verdict)
    assert task.status.value == "completed"
    world.verifier_calls.clear()
    return task


def footprint(origin: Pos = ORIGIN) -> Bounds:
    return basic_shelter(origin, "south").site.footprintBounds
