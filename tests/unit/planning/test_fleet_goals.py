"""Goals of several bots on one task store: a drive tick's goal is its own bot's (its thought
names the bot, and only tasks open to that bot make it a duplicate or hold it back), the
converter binds the task to the thought's bot, and a user's goal may name a bot."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import (
    DriveSkipReason,
    DriveTickFired,
    DriveTickSkipped,
    evaluate_drive_tick,
)
from agency.cognition.grounding import FrameFacts
from agency.cognition.progression import PROGRESSION
from agency.goal_tag import ExtractedGoal
from agency.goals.user_goals import GoalRequest, submit_user_goal
from agency.planning.converter import convert_thought
from agency.planning.tasks.idempotency import find_blocking_task
from agency.planning.tasks.models import TaskOrigin, TaskStatus
from agency.planning.tasks.retry_backoff import held_back
from agency.thoughts import Thought, ThoughtMetadata

READY = {"oak_log": 20, "crafting_table": 1, **{s.item: s.amount for s in PROGRESSION}}  # the default drive: explore
KEY = "explore:nearby"
LOGS = ExtractedGoal(action="collect", target="oak_log", amount=3)


def _tick(make_snapshot, now, tasks, bot):
    return evaluate_drive_tick(make_snapshot(READY), now, DriveTickState(), tasks, bot=bot)


def _explore_task(store, bot=None, status=None):
    meta = {"goalKey": KEY, **({"bot": bot} if bot else {})}
    t = store.add_task({"title": "Explore", "type": "explore", "metadata": meta}, origin=TaskOrigin(kind="drive-tick"))
    return store.set_status(t.id, status) if status else t


def _thought(bot, goal=LOGS, thought_id="thought-1"):
    return Thought(
        id=thought_id,
        type="drive",
        content="I need logs.",
        timestamp=0,
        convertEligible=True,
        metadata=ThoughtMetadata(
            extractedGoal=goal, extractedGoalSource="drive-tick", goalKey=f"{goal.action}:{goal.target}", bot=bot
        ),
    )


# -- drive ticks ---------------------------------------------------------------------------------


def test_a_drive_tick_thought_names_its_bot(make_snapshot, clock, store):
    fired = _tick(make_snapshot, clock(), store, "A")
    assert isinstance(fired, DriveTickFired) and fired.thought.metadata.bot == "A"
    assert _tick(make_snapshot, clock(), store, None).thought.metadata.bot is None


def test_another_bots_task_does_not_make_this_bots_goal_a_duplicate(make_snapshot, clock, store):
    theirs = _explore_task(store, bot="B")
    assert isinstance(_tick(make_snapshot, clock(), store, "A"), DriveTickFired)
    for bot in ("B", None):  # B's own goal is in flight; with no bot, every task counts as today
        skipped = _tick(make_snapshot, clock(), store, bot)
        assert isinstance(skipped, DriveTickSkipped) and skipped.reason is DriveSkipReason.duplicate_goal
        assert skipped.blocking_task_id == theirs.id


def test_an_open_task_makes_the_goal_a_duplicate_for_every_bot(make_snapshot, clock, store):
    open_one = _explore_task(store, status=TaskStatus.active)
    for bot in ("A", "B", None):
        assert _tick(make_snapshot, clock(), store, bot).blocking_task_id == open_one.id


@pytest.mark.parametrize("lookup", ["store", "list"])
def test_only_failures_open_to_the_bot_hold_its_goal_back(clock, store, lookup):
    _explore_task(store, bot="B", status=TaskStatus.failed)
    tasks = store if lookup == "store" else store.list_by_status()
    assert held_back(tasks, KEY, clock(), bot="A") is None
    assert held_back(tasks, KEY, clock(), bot="B").failures == 1
    assert held_back(tasks, KEY, clock()).failures == 1  # no bot: every task counts


def test_find_blocking_task_on_a_list_filters_by_bot_too(clock, store):
    theirs = _explore_task(store, bot="B")
    tasks = store.list_by_status()
    assert find_blocking_task(tasks, KEY, clock(), bot="A") is None
    assert find_blocking_task(tasks, KEY, clock(), bot="B").id == theirs.id


def test_a_drive_tick_of_one_bot_converted_blocks_that_bot_alone(make_snapshot, clock, store):
    fired = _tick(make_snapshot, clock(), store, "A")
    out = convert_thought(fired.thought, store, clock())
    assert out.status == "converted" and store.get_task(out.task_id).metadata.bot == "A"
    assert _tick(make_snapshot, clock(), store, "A").reason is DriveSkipReason.duplicate_goal
    assert isinstance(_tick(make_snapshot, clock(), store, "B"), DriveTickFired)


# -- the converter ---------------------------------------------------------------------------------


def test_the_converter_binds_the_task_to_the_thoughts_bot_and_checks_duplicates_per_bot(clock, store):
    for_a = convert_thought(_thought("A", thought_id="t-a"), store, clock())
    assert store.get_task(for_a.task_id).metadata.bot == "A"
    for_b = convert_thought(_thought("B", thought_id="t-b"), store, clock())
    assert for_b.status == "converted" and store.get_task(for_b.task_id).metadata.bot == "B"
    again = convert_thought(_thought("A", thought_id="t-a2"), store, clock())
    assert (again.reason, again.task_id) == ("duplicate_goal", for_a.task_id)
    no_bot = convert_thought(_thought(None, thought_id="t-none"), store, clock())
    assert (no_bot.status, no_bot.reason) == ("skipped", "duplicate_goal")  # a thought of no bot: every task counts


def test_a_thought_with_no_bot_makes_an_open_task(clock, store):
    out = convert_thought(_thought(None), store, clock())
    assert out.status == "converted" and store.get_task(out.task_id).metadata.bot is None


# -- user goals ---------------------------------------------------------------------------------


def _submit(store, clock, bot):
    return submit_user_goal(
        LOGS,
        store=store,
        now_ms=clock(),
        facts=FrameFacts(blocks=frozenset({"oak_log"})),
        is_routable=lambda _goal: True,
        bot=bot,
    )


def test_a_user_goal_naming_a_bot_makes_a_task_bound_to_it(clock, store):
    decided = _submit(store, clock, "A")
    task = store.get_task(decided.task_id)
    assert decided.created and (task.metadata.bot, task.source) == ("A", "user")
    assert _submit(store, clock, "B").created  # the same goal for another bot is no duplicate
    assert _submit(store, clock, "A").verdict == "duplicate"


def test_a_user_goal_naming_no_bot_is_open_to_any(clock, store):
    assert store.get_task(_submit(store, clock, None).task_id).metadata.bot is None


def test_the_goal_request_carries_an_optional_bot():
    assert GoalRequest(text="collect oak_log 3", bot="A").bot == "A"
    assert GoalRequest(action="collect", target="oak_log").bot is None
    with pytest.raises(ValidationError):
        GoalRequest(text="collect oak_log 3", bot="")
