"""The goal binding on a task (docs/contracts.md GOAL-1) and the site signature it anchors to.

Stored as camelCase JSON under `task.metadata.goalBinding` (TaskMetadata keeps it as a
plain dict so agency.planning.tasks never imports agency.goals); `read_binding` / `dump_binding`
convert. Fields marked "additive" go beyond the binding GOAL-1 describes but are needed to
carry its rules durably (backoff counters, hold history, the witness of the last hold after a
resume, the reason a completed goal was re-opened).
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel, Field

from agency.errors import AgencyError
from agency.planning.tasks.models import Task
from agency.shelter.models import (  # re-exported: a binding anchors to a shelter site
    FACING_VECTORS as FACING_VECTORS,
    SITE_MARGIN as SITE_MARGIN,
    Bounds as Bounds,
    Facing as Facing,
    Pos as Pos,
    SiteSignature as SiteSignature,
    VerificationResult as VerificationResult,
)

BUILD_SHELTER = "build_shelter"
BUILD_STRUCTURE = "build_structure"

# GoalHoldReason: an open set; these are the ones the protocol names.
HOLD_PREEMPTED = "preempted"
HOLD_UNSAFE = "unsafe"
HOLD_MATERIALS_MISSING = "materials_missing"
HOLD_MANUAL_PAUSE = "manual_pause"  # hard wall: only an explicit resume lifts it
HOLD_WORLD_CHANGED = "world_changed"  # archived: the goal's world is gone; nothing lifts it
REGRESSION_DETECTED = "regression_detected"


class RegionHint(BaseModel):
    x: float
    y: float
    z: float
    r: float


class Anchors(BaseModel):
    siteSignature: SiteSignature | None = None
    regionHint: RegionHint | None = None
    templateDigest: str | None = None  # additive: lets the anchored key be recomputed/checked


class HoldWitness(BaseModel):
    lastStepId: str | None = None
    moduleCursor: int | None = None
    verified: bool  # False: safe stop timed out, resume must rescan conservatively


class Hold(BaseModel):
    reason: str
    heldAt: int
    resumeHints: list[str] = Field(default_factory=list)
    nextReviewAt: int  # hysteresis: no activation review before this
    holdWitness: HoldWitness | None = None
    reviewAttempts: int = 0  # additive: periodic-review backoff step (5 -> 15 -> 30 min)
    holdCount: int = 1  # additive: holds for this reason within the last hour, this one included


class HoldRecord(BaseModel):
    reason: str
    at: int


class Completion(BaseModel):
    verifier: str
    definitionVersion: int = 0
    lastVerifiedAt: int | None = None
    consecutivePasses: int = 0
    lastResult: VerificationResult | None = None


class Reopened(BaseModel):
    """Additive: why a completed goal went back to active (it has no hold: FIELDS-2 forbids an
    active task with a hold, so VERIFY-2's 'regression_detected' reason is kept here)."""

    reason: str
    at: int
    blockers: list[str] = Field(default_factory=list)


class GoalBinding(BaseModel):
    goalInstanceId: str = Field(default_factory=lambda: str(uuid.uuid4()))
    goalKey: str = Field(min_length=1)
    goalKeyAliases: list[str] = Field(default_factory=list)
    goalType: str = Field(min_length=1)
    goalId: str | None = None
    anchors: Anchors = Field(default_factory=Anchors)
    hold: Hold | None = None
    completion: Completion
    supersedesInstanceId: str | None = None
    holdHistory: list[HoldRecord] = Field(default_factory=list)  # additive, pruned to the last hour
    holdsByReason: dict[str, int] = Field(default_factory=dict)  # additive: the repeated-reason ladder's step
    lastHoldWitness: HoldWitness | None = None  # additive: survives resume for the rescan decision
    reopened: Reopened | None = None  # additive
    urgencySpikeAt: int | None = None  # additive: when dusk_approaching spiked this goal (the scorer's input)
    # additive: the id of the world this goal belonged to, set when the store entered
    # another world (agency/goals/world_identity.py). Archived goals are kept, never reused.
    archivedWorld: str | None = None

    @property
    def archived(self) -> bool:
        return self.archivedWorld is not None


class NotGoalBoundError(AgencyError, ValueError):
    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id} has no goalBinding")
        self.task_id = task_id


def read_binding(task: Task) -> GoalBinding | None:
    raw = task.metadata.goalBinding
    return None if raw is None else GoalBinding.model_validate(raw)


def require_binding(task: Task) -> GoalBinding:
    binding = read_binding(task)
    if binding is None:
        raise NotGoalBoundError(task.id)
    return binding


def dump_binding(binding: GoalBinding) -> dict[str, Any]:
    return binding.model_dump(mode="json", exclude_none=True)


def task_position(task: Task, binding: GoalBinding) -> tuple[float, float, float] | None:
    """Where a goal lives: its site once anchored, else the bot position it was asked at."""
    site = binding.anchors.siteSignature
    if site is not None:
        return site.position
    hint = binding.anchors.regionHint
    return None if hint is None else (hint.x, hint.y, hint.z)
