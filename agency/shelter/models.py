"""Shelter geometry: positions, facings, boxes, the site signature a build goal anchors
to, and a verifier's verdict. Field names are camelCase: they are stored inside the goal
binding (agency.goals.models) as JSON unchanged.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Pos = tuple[int, int, int]
Facing = Literal["north", "south", "east", "west"]

# Protocol F/C: the verifier reads, and anchored "already satisfied" scopes, footprint + 8.
SITE_MARGIN = 8

FACING_VECTORS: dict[str, tuple[int, int]] = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}
FACINGS: tuple[Facing, ...] = ("north", "south", "east", "west")


class Bounds(BaseModel):
    """Inclusive integer box in world coordinates."""

    model_config = ConfigDict(frozen=True)

    min: Pos
    max: Pos

    def expanded(self, margin: int) -> Bounds:
        lo, hi = (tuple(c - margin for c in self.min), tuple(c + margin for c in self.max))
        return Bounds(min=lo, max=hi)

    def contains(self, p: tuple[float, float, float]) -> bool:
        return all(lo <= c <= hi for lo, c, hi in zip(self.min, p, self.max, strict=True))

    def intersects(self, other: Bounds) -> bool:
        pairs = zip(self.min, self.max, other.min, other.max, strict=True)
        return all(a_lo <= b_hi and b_lo <= a_hi for a_lo, a_hi, b_lo, b_hi in pairs)

    @property
    def center(self) -> tuple[float, float, float]:
        (x0, y0, z0), (x1, y1, z1) = self.min, self.max
        return (x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2

    @property
    def diagonal(self) -> float:
        return math.sqrt(sum((hi - lo + 1) ** 2 for lo, hi in zip(self.min, self.max, strict=True)))

    def distance_to(self, p: tuple[float, float, float]) -> float:
        """Euclidean distance from p to the nearest point of the box (0 inside)."""
        return math.sqrt(sum(max(lo - c, 0, c - hi) ** 2 for lo, c, hi in zip(self.min, p, self.max, strict=True)))


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


class VerificationResult(BaseModel):
    """A verifier's verdict: {done, score, blockers, evidence}."""

    done: bool
    score: float | None = None
    blockers: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    lit: bool | None = None  # every floor cell inside at block light >= 8 (None: nothing enclosed to judge)
