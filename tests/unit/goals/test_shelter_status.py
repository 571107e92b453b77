"""The shelter status the dashboard shows: each shelter goal of this world with its site and
the verifier's last word; a goal still being built comes first, with no verdict yet."""

from __future__ import annotations

import pytest

from agency.goals.resolver import resolve_or_create_build_goal
from bot.config.loader import McbotConfig
from bot.runtime.wiring import GoalWiring
from tests.unit.goals.conftest import ORIGIN, completed_shelter, shelter_intent


@pytest.fixture
def wiring(db_path, clock, store):
    w = GoalWiring(
        McbotConfig.model_validate({"storage": {"db_path": str(db_path)}}), store, clock, last_snapshot=lambda: None
    )
    yield w
    w.close()


def test_a_verified_shelter_and_one_being_built_are_listed_live_first(wiring, store, index, lifecycle, world):
    assert wiring.shelter_status() == []
    done = completed_shelter(store, index, lifecycle, world)
    far = (ORIGIN[0] + 300, ORIGIN[1], ORIGIN[2])
    building = resolve_or_create_build_goal(
        store, index, shelter_intent(far, goal_id="g2"), verify=world.verify, lifecycle=lifecycle
    ).task
    got = wiring.shelter_status()
    assert [s["taskId"] for s in got] == [building.id, done.id]
    live, verified = got
    assert live["verified"] is False and live["site"] is None and live["blockers"] == []
    assert verified["verified"] is True and verified["status"] == "completed" and verified["blockers"] == []
    assert verified["site"]["facing"] == "south" and verified["consecutivePasses"] >= 2
