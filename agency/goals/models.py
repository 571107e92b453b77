"""The goal binding on a task (goal-binding protocol A) and the site signature it anchors to.

Stored as camelCase JSON under `task.metadata.goalBinding` (TaskMetadata keeps it as a
plain dict so agency.tasks never imports agency.goals); `read_binding` / `dump_binding`
convert. Fields marked "additive" are not in the spec's interface but are needed to carry
its rules durably (backoff counters, hold history, the witness of the last hold after a
resume, the reason a completed goal was re-opened).
"""

from __future__ import annotations

import math
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agency.tasks.models import Task

Pos = tuple[int, int, int]
Facing = Literal["north", "south", "east", "west"]

BUILD_SHELTER = "build_shelter"
BUILD_STRUCTURE = "build_structure"

# GoalHoldReason: an open set; these are the ones the protocol names.
HOLD_PREEMPTED = "preempted"
HOLD_UNSAFE = "unsafe"
HOLD_MATERIALS_MISSING = "materials_missing"
HOLD_MANUAL_PAUSE = "manual_pause"  # hard wall: only an explicit resume lifts it
HOLD_WORLD_CHANGED = "world_changed"  # archived: the goal's world is gone; nothing lifts it
REGRESSION_DETECTED = "regression_detected"

# Protocol F/C: the verifier reads, and anchored "already satisfied" scopes, footprint + 8.
SITE_MARGIN = 8

FACING_VECTORS: dict[str, tuple[int, int]] = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}


class Bounds(BaseModel):
    """Inclusive integer box in world coordinates."""

    model_config = ConfigDict(frozen=True)

    min: Pos
    max: Pos

    def expanded(self, margin: int) -> "Bounds":
        lo, hi = (tuple(c - margin for c in self.min), tuple(c + margin for c in self.max))
        return Bounds(min=lo, max=hi)  # type: ignore[arg-type]

    def contains(self, p: tuple[float, float, float]) -> bool:
        return all(lo <= c <= hi for lo, c, hi in zip(self.min, p, self.max))

    def intersects(self, other: "Bounds") -> bool:
        pairs = zip(self.min, self.max, other.min, other.max)
        return all(a_lo <= b_hi and b_lo <= a_hi for a_lo, a_hi, b_lo, b_hi in pairs)

    @property
    def center(self) -> tuple[float, float, float]:
        return tuple((lo + hi) / 2 for lo, hi in zip(self.min, self.max))  # type: ignore[return-value]

    @property
    def diagonal(self) -> float:
        return math.sqrt(sum((hi - lo + 1) ** 2 for lo, hi in zip(self.min, self.max)))

    def distance_to(self, p: tuple[float, float, float]) -> float:
        """Euclidean distance from p to the nearest point of the box (0 inside)."""
        return math.sqrt(sum(max(lo - c, 0, c - hi) ** 2 for lo, c, hi in zip(self.min, p, self.max)))


class SiteSignature(BaseModel):
    """What locks a build goal's identity once its site is committed (phase B)."""

    model_config = ConfigDict(frozen=True)

    refCorner: Pos
    facing: Facing
    footprintBounds: Bounds
    entrance: Pos | None = None  # lower block of the 2-high doorway
    interiorProbes: list[Pos] = Field(default_factory=list)

    @property
    def position(self) -> tuple[float, float, float]:
        return self.footprintBounds.center


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


class VerificationResult(BaseModel):
    """A verifier's verdict: {done, score, blockers, evidence}."""

    done: bool
    score: float | None = None
    blockers: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)


class Completion(BaseModel):
    verifier: str
    definitionVersion: int = 0
    lastVerifiedAt: int | None = None
    consecutivePasses: int = 0
    lastResult: VerificationResult | None = None


class Reopened(BaseModel):
    """Additive: why a completed goal went back to active (it has no hold: §G forbids an
    active task with a hold, so the spec's 'regression_detected' reason is kept here)."""

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
    # another world (agency/world_identity.py). Archived goals are kept, never reused.
    archivedWorld: str | None = None

    @property
    def archived(self) -> bool:
        return self.archivedWorld is not None


class NotGoalBoundError(ValueError):
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
