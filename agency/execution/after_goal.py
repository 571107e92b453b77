"""A drive tick's follow-ups queued as a task of their own once the tick's task completes.

A tick's task carries the goals the next ticks would choose after it: the first
`drive_tick.follow_ups` run in the task itself (`then`: agency.execution.agents.follow_up_runs),
the next `drive_tick.queued_follow_ups` ride along as parameters `after` (and `afterBot`, whose
tick it was: agency.planning.follow_up_params). Once the task completes, the first of those
not yet held becomes a task bound to that bot, the rest riding along as its `then`, and the
bot goes on at once instead of waiting up to 180 s for the next tick; a task stays short
enough that the 3-minute soaks of `make test` see one complete (with six follow-ups in the
task they saw none: docs/goals.md). The night's hut runs none in its task: a goal-bound build
completes only when the verifier passes, and is repaired as the goal it is, so all of its
follow-ups are queued once it is verified (a bench bot stood idle 49-150 s after each first
hut, the goals before it done). The new task is the first one's child (childTaskIds; its
origin names it). The follow-ups are handled once (the tag HANDLED), queued or not: never
again when a hut is repaired and verified anew (its follow-ups are old by then).

None is queued at dusk or at night (the night's ticks choose its work), while the bot is hurt
or hungry with nothing that feeds held (as no follow-up starts then), by another bot than the
one whose tick it was (a fleet's hut is any bot's to build), or when an open task already has
the first goal (DRIVE-2). With other work waiting in the queue the task is queued paused
behind it (agency.execution.follow_up_watch, GAVE_WAY): dropped, they were lost, the next
tick's chain having stopped at them (DRIVE-2) while the task that carried them was open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import dropwhile

from agency.execution.agents.follow_up_runs import held_of, parse_then, short_of, unfit_to_go_on
from agency.execution.agents.task_spec import FollowUpSpec
from agency.goal_tag import canonical_goal_key
from agency.planning.converter import DRIVE_TICK, task_title
from agency.planning.follow_up_params import AFTER, AFTER_BOT
from agency.planning.tasks.models import NewTask, Task, TaskOrigin
from agency.world import WorldSnapshot, night_approaching

HANDLED = "follow-ups-handled"  # a tag: the task's follow-ups were queued, or not, once for all
FOLLOW_UP_TAG = "follow-up"  # a tag: the task is follow-ups queued (follow_up_task)


def carries_after(task: Task, bot: str | None) -> bool:
    """Does the task carry follow-ups of `bot`'s tick not queued yet?"""
    params = task.parameters or {}
    return bool(params.get(AFTER)) and params.get(AFTER_BOT) == bot and HANDLED not in task.metadata.tags


def why_not_now(snap: WorldSnapshot) -> str | None:
    """Why no follow-up task is queued now (module docstring), or None."""
    if night_approaching(snap):
        return "night is coming: the night's ticks choose its work"
    return unfit_to_go_on(snap)


def follow_up_task(parent: Task, held: Mapping[str, int], *, may_hunt: bool = True) -> NewTask | None:
    """The task the parent's follow-ups become, from what is held now (chain_task)."""
    params = parent.parameters or {}
    return chain_task(
        parse_then(params.get(AFTER), lead=True),
        held,
        after=parent.title.lower(),
        may_hunt=may_hunt,
        priority=parent.priority,
        thought=parent.metadata.sourceThoughtId,
        bot=params.get(AFTER_BOT),
    )


def chain_task(
    goals: Sequence[FollowUpSpec],
    held: Mapping[str, int],
    *,
    after: str,
    may_hunt: bool = True,
    priority: float = 0.5,
    thought: str | None = None,
    bot: str | None = None,
) -> NewTask | None:
    """The task a chain of a later tick's goals becomes: the first one short of its total as its
    goal (short_of), the rest its `then`; None when every one is held. Not `may_hunt`
    (underground, at dusk: follow_up_runs.no_hunt_here), one the chain marked as a hunt is
    passed over as the goal: as a task's goal its plan would hunt wherever the bot is."""

    def short(f: FollowUpSpec) -> int:
        return short_of(f.total, f.amount, held_of(f.action, f.target, held))

    def passed_over(f: FollowUpSpec) -> bool:
        return not short(f) or (f.hunts and not may_hunt)

    left = list(dropwhile(passed_over, goals))
    if not left:
        return None
    first, rest = left[0], left[1:]
    action, target = first.action, first.target
    amount = short(left[0])
    return NewTask(
        title=task_title(action, target, amount),
        type=action,
        description=f"After {after}: a later tick's goal, done now.",
        priority=priority,
        source=DRIVE_TICK,
        parameters={
            "target": target,
            "amount": amount,
            "then": [f.as_dict() for f in rest],
        },
        metadata={
            "goalKey": canonical_goal_key(action, target),
            "sourceThoughtId": thought,
            "extractedGoal": {"action": action, "target": target, "amount": amount},
            "extractedGoalSource": DRIVE_TICK,
            "convertEligible": True,
            "tags": [DRIVE_TICK, "autonomous", FOLLOW_UP_TAG],
            "bot": bot,
        },
    )


def origin_of(parent: Task) -> TaskOrigin:
    return TaskOrigin(kind=DRIVE_TICK, sourceId=parent.metadata.sourceThoughtId, parentTaskId=parent.id)
