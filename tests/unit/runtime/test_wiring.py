"""The composition root (bot.runtime.wiring.Agency.attach_body) on test doubles: what it
builds from the body's capabilities (a remote body's calls off the loop, a threat watch only
for a body that has one) and how it hands the body's holders to each other."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agency.execution.body_holder import EXECUTOR, REFLEX
from agency.tools.testing import FakeBody, FakeTime
from agency.world import WorldSnapshot
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency


class RemoteBody(FakeBody):
    remote = True


class WatchingBody(FakeBody):
    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.watched: list[dict[str, float]] = []

    def watch_threats(self, radii: dict[str, float]) -> None:
        self.watched.append(radii)

    def new_threats(self) -> list[dict[str, Any]]:
        return []

    def recent_snapshot(self) -> WorldSnapshot:
        return self.snapshot()


@pytest.fixture
def attach(tmp_path):
    made = []

    def attach(body_type=FakeBody) -> tuple[Agency, FakeBody]:
        body = body_type(FakeTime().clock)
        body.connected = True
        agency = Agency(McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "a.db")}}), clock=body.clock)
        made.append(agency)
        agency.attach_body(body)
        return agency, body

    yield attach
    for agency in made:
        agency.close()


def test_an_in_process_body_is_called_on_the_loop_and_a_remote_one_on_a_worker_thread(attach):
    assert attach(FakeBody)[0].tool_ctx.offload is False
    assert attach(RemoteBody)[0].tool_ctx.offload is True


def test_only_a_body_with_a_threat_watch_gets_one_set_to_the_reflexes_radii(attach):
    assert attach(FakeBody)[0].reflex_watch is None
    agency, body = attach(WatchingBody)
    assert agency.reflex_watch is not None and len(body.watched) == 1 and body.watched[0]


def test_the_reflexes_and_direct_actions_know_each_other_and_the_holder_asks_both(attach):
    agency, _ = attach()
    assert agency.reflexes.direct is agency.direct
    assert agency.direct.reflex_holding() is None and agency.holder.holder == EXECUTOR
    agency.reflexes.sheltered = object()  # the night in a shelter
    assert agency.direct.reflex_holding() == "the bot is sheltering for the night (until morning)"
    assert agency.holder.holder == REFLEX and agency.holder.taken


def test_before_a_body_is_attached_nobody_else_holds_it_and_nothing_reads_the_world(tmp_path):
    agency = Agency(McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "a.db")}}))
    try:
        assert agency.holder.holder == EXECUTOR and agency.drive is None
        asyncio.run(agency.job_drive_tick())
        assert asyncio.run(agency.goals.job_review()) == [] and agency.stream.recent(5) == []
    finally:
        agency.close()
