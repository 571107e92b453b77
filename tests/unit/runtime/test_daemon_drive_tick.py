"""The daemon's drive-tick job (bot.runtime.wiring.Agency.job_drive_tick) grounds its goal on the
blocks really around the bot: it reads the sight box from the body and hands it to
evaluate_drive_tick, so logs in sight mean collecting, none means exploring first."""

from __future__ import annotations

import asyncio

import pytest

from agency.cognition.drive_tick import SIGHT_RADIUS, sight_box
from agency.tools.testing import FakeBody, FakeTime
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency


@pytest.fixture
def daemon(tmp_path):
    body = FakeBody(FakeTime().clock)
    body.connected = True  # what the job asks a MineflayerBody before reading
    agency = Agency(McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "a.db")}}), clock=body.clock)
    agency.attach_body(body)
    yield agency, body
    agency.close()


def _fire(agency, body):
    reads = []
    region = body.region
    body.region = lambda origin, size: reads.append((origin, size)) or region(origin, size)
    agency.last_snapshot = body.snapshot()
    asyncio.run(agency.job_drive_tick())
    [thought] = agency.stream.recent(5)
    return thought, reads


def test_logs_in_sight_make_the_drive_tick_collect_them(daemon):
    agency, body = daemon
    body.add_tree(6, -4)
    thought, reads = _fire(agency, body)
    assert sight_box(body.snapshot()) in reads
    assert thought.metadata.goalKey == "collect:log" and thought.convertEligible is True
    assert thought.metadata.grounding == {"pass": True, "reason": None, "detail": "log in sight"}


@pytest.mark.parametrize("tree_at", [None, SIGHT_RADIUS + 4])
def test_no_logs_in_sight_make_the_drive_tick_explore_first(daemon, tree_at):
    agency, body = daemon
    if tree_at is not None:
        body.add_tree(tree_at, 0)  # out of sight: the collector would not find it either
    thought, _ = _fire(agency, body)
    assert thought.metadata.goalKey == "explore:farther" and thought.convertEligible is True
    assert thought.metadata.grounding["pass"] is True and "collect log" in thought.content
