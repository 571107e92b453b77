"""What a drive tick chose: the goal, and the rule that chose it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DriveSelection:
    action: str
    target: str
    amount: int
    rule: str  # which rule chose it (docs/contracts.md DRIVE-3, the survival steps or the tech-tree progression)
    reason: str  # first-person sentence used as the thought text
    planned: bool = (
        False  # its plan gets its materials itself (a progression step): what is in sight does not decide it
    )
