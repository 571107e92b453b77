"""Thought-to-task converter (docs/contracts.md): eligibility (THOUGHT-2, THOUGHT-3), goalKey
layers (TASK-3), idempotency (DRIVE-2), per-thought outcomes."""

from __future__ import annotations

from loguru import logger

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import evaluate_drive_tick
from agency.cognition.sanitizer import build_llm_thought
from agency.cognition.thought_recorder import ThoughtRecorder
from agency.goal_tag import ExtractedGoal
from agency.planning.converter import convert_thought, convert_thoughts
from agency.planning.tasks.idempotency import SHELTERING
from agency.planning.tasks.models import TaskStatus
from agency.thoughts import Thought, ThoughtMetadata

GOAL = ExtractedGoal(action="collect", target="oak_log", amount=8)


def _eligible(now, goal=GOAL, source="llm", **meta):
    return Thought(
        content="I need wood.",
        timestamp=now,
        novelty="high",
        convertEligible=True,
        metadata=ThoughtMetadata(extractedGoal=goal, extractedGoalSource=source, **meta),
    )


def test_converts_eligible_thought_with_goal_into_task(store, clock):
    th = _eligible(clock())
    out = convert_thought(th, store, clock())
    assert out.status == "converted"
    task = store.get_task(out.task_id)
    assert (task.type, task.status, task.source) == ("collect", TaskStatus.pending, "thought")
    assert task.metadata.goalKey == "collect:oak_log"
    assert task.metadata.sourceThoughtId == th.id
    assert task.metadata.convertEligible is True
    assert task.metadata.origin.kind == "thought" and task.metadata.origin.sourceId == th.id
    assert task.parameters == {"target": "oak_log", "amount": 8}


def test_convertEligible_false_thoughts_are_never_converted(store, clock):
    for flag in (False, None):
        th = _eligible(clock()).model_copy(update={"convertEligible": flag})
        out = convert_thought(th, store, clock())
        assert (out.status, out.reason) == ("skipped", "not_convert_eligible")
    assert store.list_by_status() == []


def test_low_novelty_content_dedup_thought_is_never_converted(store, clock, counters):
    rec = ThoughtRecorder(counters, clock)
    rec.record(build_llm_thought("Need wood [GOAL: get oak_log 8]", now_ms=clock()))
    dup = rec.record(build_llm_thought("Need wood [GOAL: get oak_log 8]", now_ms=clock()))
    assert dup.broadcast is not None and dup.broadcast.novelty == "low"  # task-worthy: still broadcast
    assert convert_thought(dup.broadcast, store, clock()).reason == "not_convert_eligible"
    assert store.list_by_status() == []


def test_thought_without_extracted_goal_is_skipped(store, clock):
    th = build_llm_thought("I will explore.\nINTENT: explore", now_ms=clock())
    assert th.convertEligible is True  # intent alone is eligible (THOUGHT-2) ...
    out = convert_thought(th, store, clock())
    assert (out.status, out.reason) == ("skipped", "no_extracted_goal")  # ... but makes no task


def test_converter_callsite_empty_canonical_goal_key_is_absent_not_empty(store, clock):
    th = _eligible(clock(), goal=ExtractedGoal(action="collect", target="", amount=1))
    out = convert_thought(th, store, clock())
    assert (out.status, out.reason) == ("skipped", "no_goal_key")
    assert store.list_by_status() == []


def test_converter_thought_path_empty_goalKey_falls_back_to_canonical(store, clock):
    raw = _eligible(clock()).model_dump()
    raw["metadata"]["goalKey"] = ""
    out = convert_thought(raw, store, clock())
    assert out.status == "converted"
    assert store.get_task(out.task_id).metadata.goalKey == "collect:oak_log"


def test_converter_skips_duplicate_goal_per_idempotency(store, clock):
    first = convert_thought(_eligible(clock()), store, clock())
    clock.advance(60_000)
    second = convert_thought(_eligible(clock()), store, clock())
    assert (second.status, second.reason, second.task_id) == ("skipped", "duplicate_goal", first.task_id)


def test_converter_stuck_timeout_allows_new_task_which_supersedes_the_stuck_one(store, clock):
    stuck = convert_thought(_eligible(clock()), store, clock())
    clock.advance(300_000)
    retry = convert_thought(_eligible(clock()), store, clock())
    assert retry.status == "converted"
    assert len(store.find_by_goal_key("collect:oak_log")) == 2
    # left pending, the stuck one could be claimed after its retry and the goal run twice
    old = store.get_task(stuck.task_id)
    assert old.status is TaskStatus.failed
    assert old.metadata.blockedReason == f"superseded by {retry.task_id}: pending 300 s with no progress"
    assert [t.id for t in store.find_by_goal_key("collect:oak_log", [TaskStatus.pending])] == [retry.task_id]


def test_a_stuck_task_claimed_before_its_retry_supersedes_it_keeps_running(store, clock):
    stuck = convert_thought(_eligible(clock()), store, clock())
    clock.advance(300_000)
    # the retry's lookup saw it pending; the executor claims it before it is superseded
    store.set_status(stuck.task_id, TaskStatus.active)
    assert convert_thought(_eligible(clock()), store, clock()).status == "skipped"
    assert store.get_task(stuck.task_id).status is TaskStatus.active


def test_already_processed_thought_is_skipped(store, clock):
    th = _eligible(clock()).model_copy(update={"processed": True})
    assert convert_thought(th, store, clock()).reason == "already_processed"


def test_converter_returns_an_outcome_for_every_thought_and_never_raises(store, clock):
    class BrokenStore:
        def find_by_goal_key(self, *a, **k):
            raise RuntimeError("db gone")

    batch = [_eligible(clock()), {"id": "bad-1", "content": None}, 42, _eligible(clock())]
    result = convert_thoughts(batch, store, clock())
    assert [o.status for o in result.outcomes] == ["converted", "error", "error", "skipped"]
    assert result.outcomes[1].thought_id == "bad-1"
    assert result.log_line() == "[Thought-to-task] ack batch size=4 fetched=4 converted=1 skipped=1 errors=2"
    broken = convert_thought(_eligible(clock()), BrokenStore(), clock())  # type: ignore[arg-type]  # a store that fails
    assert broken.status == "error" and "db gone" in broken.error


def test_drive_tick_thought_converts_into_drive_tick_task(store, clock, make_snapshot):
    fired = evaluate_drive_tick(make_snapshot({"oak_log": 2}), clock(), DriveTickState(), store)
    out = convert_thought(fired.thought, store, clock())
    task = store.get_task(out.task_id)
    assert (task.source, task.metadata.origin.kind, task.metadata.extractedGoalSource) == (
        "drive-tick",
        "drive-tick",
        "drive-tick",
    )
    assert task.metadata.goalKey == "craft:crafting_table"


def test_no_task_in_store_has_convertEligible_false(store, clock):
    thoughts = [_eligible(clock(), goal=ExtractedGoal(action="craft", target=f"item_{i}")) for i in range(3)]
    thoughts += [_eligible(clock()).model_copy(update={"convertEligible": False, "novelty": "low"})]
    convert_thoughts(thoughts, store, clock())
    tasks = store.list_by_status()
    assert len(tasks) == 3
    assert all(t.metadata.convertEligible is True for t in tasks)


def _held_for_the_night(store, clock, bot=None, goal=GOAL):
    task = store.get_task(convert_thought(_eligible(clock(), goal=goal, bot=bot), store, clock()).task_id)
    claimed = store.claim_next(bot=bot)
    assert claimed is not None and claimed.id == task.id and claimed.metadata.heldBy == bot
    return store.set_status(task.id, TaskStatus.paused, metadata_patch={"blockedReason": SHELTERING})


def test_a_drive_ticks_goal_at_night_gives_back_its_task_held_for_the_night_instead_of_a_twin(store, clock):
    """At night a tick fires only once the bot is dug in under its hut to work. A twin made
    instead ran after it in the morning, the item held by then: a bench bot went down the mine
    for a second iron pickaxe and died there."""
    held = _held_for_the_night(store, clock)
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        again = _eligible(clock(), source="drive-tick")
        out = convert_thought(again, store, clock())
    finally:
        logger.remove(sink)
    assert (out.status, out.reason, out.task_id) == ("skipped", "held_task_given_back", held.id)
    back = store.get_task(held.id)
    assert back.status is TaskStatus.pending and back.metadata.blockedReason is None
    assert [t.id for t in store.list_by_status()] == [held.id]  # no twin
    assert (
        f"[Thought-to-task] drive tick thought={again.id} asks for goalKey=collect:oak_log: its task={held.id} "
        "held for the night is given back instead of a twin"
    ) in lines


def test_a_users_or_a_models_goal_or_another_bots_tick_gives_back_no_task_held_for_the_night(store, clock):
    held = _held_for_the_night(store, clock, bot="b2")
    for source, bot in (("user", "b2"), ("llm", "b2"), ("drive-tick", "b1")):
        out = convert_thought(_eligible(clock(), source=source, bot=bot), store, clock())
        assert out.reason != "held_task_given_back", (source, bot, out)  # its own task, as ever (or its duplicate)
        assert store.get_task(held.id).status is TaskStatus.paused
    stick = ExtractedGoal(action="craft", target="stick", amount=4)
    preempted = store.get_task(convert_thought(_eligible(clock(), goal=stick), store, clock()).task_id)
    store.set_status(preempted.id, TaskStatus.active)
    store.set_status(preempted.id, TaskStatus.paused, metadata_patch={"blockedReason": "preempted"})
    again = convert_thought(_eligible(clock(), goal=stick, source="drive-tick"), store, clock())
    assert again.reason != "held_task_given_back" and store.get_task(preempted.id).status is TaskStatus.paused
