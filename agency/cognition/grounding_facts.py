"""What grounding (agency.cognition.grounding) judges against and what it returns: FrameFacts,
the state a goal or claim may refer to (the snapshot and the blocks in sight), and
GroundingResult, the metadata.grounding record."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from agency.blocks import is_air
from agency.names import with_aliases
from agency.world import BlockRegion, WorldSnapshot

GroundingReason = Literal["missing_entity", "missing_item", "missing_location"]


@dataclass(frozen=True)
class GroundingResult:
    passed: bool
    reason: GroundingReason | None = None
    detail: str = ""

    def as_record(self) -> dict[str, Any]:
        """The metadata.grounding record; the stream's gate reads its 'pass' key (KEEPALIVE-8)."""
        return {"pass": self.passed, "reason": self.reason, "detail": self.detail}


@dataclass(frozen=True)
class FrameFacts:
    """What the frame shows: the only state a goal or claim may refer to. Names are kept
    with their other versions' names (agency.names), so 'grass' and 'short_grass' ground
    each other whichever version the world runs."""

    inventory: frozenset[str] = frozenset()
    entities: frozenset[str] = frozenset()
    blocks: frozenset[str] = frozenset()  # visible or known nearby
    locations: frozenset[str] = frozenset()
    hostiles: int = 0

    def __post_init__(self) -> None:
        for name in ("inventory", "entities", "blocks"):
            object.__setattr__(self, name, with_aliases(getattr(self, name)))

    @classmethod
    def from_snapshot(
        cls,
        snapshot: WorldSnapshot,
        *,
        region: BlockRegion | None = None,
        blocks: Iterable[str] = (),
        locations: Iterable[str] = (),
    ) -> FrameFacts:
        seen = set(blocks)
        if region is not None:
            seen.update(n for n in region.palette if n and not is_air(n))
        return cls(
            inventory=frozenset(i.name for i in snapshot.inventory if i.count > 0),
            entities=frozenset(e.name for e in snapshot.entities),
            blocks=frozenset(seen),
            locations=frozenset(locations),
            hostiles=snapshot.hostiles,
        )
