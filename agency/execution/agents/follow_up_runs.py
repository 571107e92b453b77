"""What the runtime needs of a drive tick's follow-ups (agency.cognition.follow_ups chooses
them; AgentRuntime.run_task does them after the task's own goal): each is a total to hold,
read back from a task's parameters, and how much of it the bot holds now."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agency.game.furnace import output_of
from agency.game.recipes import available

FollowUpSpec = tuple[str, str, int]  # action, target, total to hold once it is done
FOLLOW_UP_RUN_ACTIONS = frozenset({"craft", "smelt", "collect"})


def held_of(action: str, target: str, inventory: Mapping[str, int]) -> int:
    """How much of a goal's item the inventory holds: a smelt's output; any log for `log`."""
    item = (output_of(target) or target) if action == "smelt" else target
    return available(inventory, item)


def parse_then(raw: Any) -> tuple[FollowUpSpec, ...]:
    """A task's `then` parameter as follow-ups; an entry that is not one is left out (a task
    stored by hand or by an older daemon must still run its own goal)."""
    out: list[FollowUpSpec] = []
    for f in raw if isinstance(raw, list) else []:
        if not isinstance(f, Mapping):
            continue
        action, target, total = f.get("action"), f.get("target"), f.get("total")
        if (
            action in FOLLOW_UP_RUN_ACTIONS
            and isinstance(target, str)
            and target
            and isinstance(total, int)
            and total > 0
        ):
            out.append((action, target, total))
    return tuple(out)
