"""The daemon's drive-tick job reads the big block region in sight only for a tick that
will ground a collect or craft goal: a gated, switched-off or blocked tick reads nothing
(the job runs every few seconds), and a fallback that is blocked logs no grounding fail."""

from __future__ import annotations

import asyncio

import pytest
from loguru import logger

from agency.cognition.drive_tick import sight_box
from agency.planning.tasks.models import TaskOrigin
from agency.tools.testing import FakeBody, FakeTime
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency


def _daemon(tmp_path, **drive_tick):
    body = FakeBody(FakeTime().clock)
    body.connected = True
    cfg = {"storage": {"db_path": str(tmp_path / "a.db")}, "drive_tick": drive_tick}
    agency = Agency(McbotConfig.model_validate(cfg), clock=body.clock)
    agency.attach_body(body)
    return agency, body


def _run_job(agency, body, times=3):
    reads, lines = [], []
    region = body.region
    body.region = lambda origin, size: reads.append((origin, size)) or region(origin, size)
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    try:
        for _ in range(times):
            agency.last_snapshot = body.snapshot()
            asyncio.run(agency.job_drive_tick())
    finally:
        logger.remove(sink)
    return [r for r in reads if r == sight_box(body.snapshot())], lines


@pytest.fixture
def cleanup():
    made = []
    yield made
    for a in made:
        a.close()


def test_a_switched_off_drive_tick_reads_nothing(tmp_path, cleanup):
    agency, body = _daemon(tmp_path, enabled=False)
    cleanup.append(agency)
    sight_reads, _ = _run_job(agency, body)
    assert sight_reads == [] and agency.stream.recent(5) == []


def test_an_unsafe_tick_reads_nothing(tmp_path, cleanup):
    agency, body = _daemon(tmp_path)
    cleanup.append(agency)
    body.food = 4  # below the safety gate
    sight_reads, _ = _run_job(agency, body)
    assert sight_reads == []


def _in_flight(agency, key):
    action = key.split(":")[0]
    t = agency.tasks.add_task(
        {"title": key, "type": action, "metadata": {"goalKey": key}}, origin=TaskOrigin(kind="drive-tick")
    )
    agency.tasks.set_status(t.id, "active")


def test_a_tick_whose_goal_is_in_flight_reads_nothing(tmp_path, cleanup):
    agency, body = _daemon(tmp_path)
    cleanup.append(agency)
    _in_flight(agency, "collect:log")
    sight_reads, _ = _run_job(agency, body)
    assert sight_reads == [], "collect:log is in flight: nothing to ground, nothing to read"


def test_an_ungrounded_goal_whose_fallback_is_in_flight_logs_no_grounding_fail(tmp_path, cleanup):
    agency, body = _daemon(tmp_path)
    cleanup.append(agency)
    _in_flight(agency, "explore:nearby")  # no logs in sight: collect would explore first, which is under way
    _, lines = _run_job(agency, body)
    assert agency.stream.recent(5) == []
    assert not [m for m in lines if m.startswith("[Grounding] fail")], "no thought was published to carry it"


def test_a_tick_that_fires_reads_the_sight_box_once(tmp_path, cleanup):
    agency, body = _daemon(tmp_path)
    cleanup.append(agency)
    body.add_tree(6, -4)
    sight_reads, _ = _run_job(agency, body, times=3)  # fires once; then the interval holds it
    assert len(sight_reads) == 1


def _failing_reads(body, connected_after: bool):
    def region(origin, size):
        body.connected = connected_after  # a world dying mid-read drops the bot with the error
        raise RuntimeError("snapshot: bot 1 has disconnected (socketClosed)\n    at Object.get (bots.js:26:36)")

    body.region = region


@pytest.mark.parametrize("connected_after, warned", [(True, True), (False, False)])
def test_a_failed_sight_read_is_one_line_and_quiet_when_the_bot_went_away(tmp_path, cleanup, connected_after, warned):
    agency, body = _daemon(tmp_path)
    cleanup.append(agency)
    body.add_tree(4, 4)
    _failing_reads(body, connected_after)
    lines = []
    sink = logger.add(lambda m: lines.append((m.record["level"].name, m.record["message"])), level="INFO")
    try:
        agency.last_snapshot = body.snapshot()
        asyncio.run(agency.job_drive_tick())
    finally:
        logger.remove(sink)
    failed = [(lvl, msg) for lvl, msg in lines if "failed" in msg and "[DriveTick]" in msg]
    if warned:
        assert failed and all(
            lvl == "WARNING" and "\n" not in msg and msg.endswith("(socketClosed)") for lvl, msg in failed
        )
    else:
        assert failed == []
