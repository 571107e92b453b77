"""A thought with two goal tags becomes exactly one task, however often its stored text is
read back. Only the matched tag leaves the text; the later one is stored as written, and it
never becomes a second goal because the goal is read once, into the thought's metadata,
when the model's reply or the posted body is sanitized: planning converts that metadata and
nothing extracts a stored text again.

Through the daemon's own Agency on one SQLite file: keep-alive with a scripted model and
the POST /thoughts body (development injection) ingest the thoughts, the daemon restarts
before planning has seen them, its planning job converts them, and it restarts again."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from agency.clock import FrozenClock
from agency.cognition.dev_injection import apply_dev_injection
from agency.cognition.grounding import FrameFacts, check_goal
from agency.cognition.keepalive import memory_slice
from agency.cognition.sanitizer import sanitize
from agency.llm.testing import ScriptedLLM, text
from agency.planning.tasks.models import TaskStatus
from agency.tools.testing import FakeBody
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency

# Every goal below is distinct, so a later tag extracted on any read would show as a task
# of its own, never as a duplicate folded into an existing one.
REPLY = "Planks in hand. [GOAL: craft crafting_table 1] Then sticks [GOAL: craft stick 4]\nINTENT: craft"
POSTED = "Logs in hand. [GOAL: craft oak_planks 4] and after that [GOAL: craft wooden_pickaxe 1]"
BROKEN_FIRST = "Hm. [GOAL: dance wildly] Then [GOAL: craft wooden_shovel 1]"
DEV = {"MCBOT_ENV": "development"}


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    server = ScriptedLLM(default=text(REPLY)).start()
    yield server
    server.stop()


def _open(db: Path, clock: FrozenClock, llm: ScriptedLLM) -> Agency:
    cfg = McbotConfig.model_validate(
        {
            "storage": {"db_path": str(db)},
            "keepalive": {"heartbeat_ms": 600_000},
            "llm": {"targets": [{"provider": "openai", "model": "m", "base_url": llm.url()}]},
        }
    )
    return Agency(cfg, clock=clock)


def _post(agency: Agency, content: str, facts: FrameFacts):
    """What POST /api/thoughts does with a body: inject, ground against the world, publish."""
    thought = apply_dev_injection(
        {"content": content, "convertEligible": True},
        DEV,
        now_ms=agency.clock(),
        ground=lambda goal, tid: check_goal(goal, facts, scenario_id=tid),
    )
    return agency.stream.publish(thought)


def _plan_until_drained(agency: Agency) -> int:
    """The daemon's planning job, run until the actionable feed is empty; the thoughts fetched."""
    fetched = 0

    async def job() -> None:
        await agency.job_planning()

    for _ in range(5):
        before = agency.stream.actionable(100).count
        asyncio.run(job())
        fetched += before - agency.stream.actionable(100).count
        if before == 0:
            break
    return fetched


def _tasks(agency: Agency) -> list[tuple[str | None, str]]:
    return sorted((t.metadata.goalKey, t.description) for t in agency.tasks.list_by_status(*TaskStatus))


def test_a_thought_with_two_goal_tags_stored_and_replayed_across_restarts_makes_exactly_one_task(
    tmp_path, llm, make_snapshot
):
    db, clock = tmp_path / "agency.db", FrozenClock(1_700_000_000_000)
    snapshot = make_snapshot({"oak_log": 4, "oak_planks": 8})
    facts = FrameFacts.from_snapshot(snapshot)

    daemon = _open(db, clock, llm)
    try:
        replied = daemon.keepalive.poke(snapshot).thought  # the model's reply, sanitized and grounded
        clock.advance(1_000)
        posted = _post(daemon, POSTED, facts)
        clock.advance(1_000)
        broken = _post(daemon, BROKEN_FIRST, facts)
    finally:
        daemon.close()  # a restart before planning has seen any of them
    assert len(llm.requests) == 1
    assert (replied.convertEligible, replied.metadata.goalKey) == (True, "craft:crafting_table")
    assert (posted.convertEligible, posted.metadata.goalKey) == (True, "craft:oak_planks")
    # A broken first tag is the matched one: no goal, and the later valid tag is no fallback.
    assert (broken.convertEligible, broken.metadata.extractedGoal) == (False, None)
    assert sanitize(BROKEN_FIRST).goal_fail_reason == "unknown_action"

    expected = [
        ("craft:crafting_table", "Planks in hand. Then sticks [GOAL: craft stick 4]"),
        ("craft:oak_planks", "Logs in hand. and after that [GOAL: craft wooden_pickaxe 1]"),
    ]
    for restart in range(2):
        daemon = _open(db, clock, llm)
        try:
            body = FakeBody(clock)
            body.connected = True  # the planning job's gate is open
            daemon.attach_body(body)
            stored = {t.id: t for t in daemon.stream.recent(50)}
            assert [stored[t.id].content for t in (replied, posted, broken)] == [
                "Planks in hand. Then sticks [GOAL: craft stick 4]",
                "Logs in hand. and after that [GOAL: craft wooden_pickaxe 1]",
                "Hm. Then [GOAL: craft wooden_shovel 1]",
            ]  # only the matched tag left each text
            # Each stored text still holds a valid tag that a new extraction would find; the
            # task count below shows nothing does.
            assert [sanitize(stored[t.id].content).goal is not None for t in (replied, posted, broken)] == [
                True,
                True,
                True,
            ]
            assert _plan_until_drained(daemon) == (2 if restart == 0 else 0)
            assert _tasks(daemon) == expected  # one task per thought, of its first tag, on every start
            assert all(
                stored_again.processed
                for stored_again in daemon.stream.recent(50)
                if stored_again.id in (replied.id, posted.id)
            )
            # Keep-alive's memory of recent thoughts never replays a stored tag to the model.
            assert memory_slice(daemon.stream.recent(50), 8) == []
        finally:
            daemon.close()
        clock.advance(60_000)
    del daemon
    gc.collect()  # the closed daemons' rate-limited log lines die with them, not in a later test's flush_all
