"""A task's parameters for the drive tick's follow-ups queued after it (agency.execution.after_goal):
`after`, the goals in the drive tick's follow-up form (action, target, total, amount), and
`afterBot`, whose tick they are (None: the one bot's daemon). Written by the converter and the
goal router, read by the executor once the task completes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

AFTER = "after"
AFTER_BOT = "afterBot"


def after_parameters(follow_ups: Iterable[Mapping[str, Any]] | None, bot: str | None) -> dict[str, Any]:
    """The parameters for a tick's follow-ups queued after its task (none: nothing to add)."""
    goals = [dict(f) for f in follow_ups or ()]
    return {AFTER: goals, AFTER_BOT: bot} if goals else {}
