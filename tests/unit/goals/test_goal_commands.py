"""The manual-pause wall through the real HTTP handler (POST /api/tasks/{id}/pause|resume|
cancel on an Agency with SQLite stores and the docs/contracts.md FIELDS-2 check on), and the
activation reactor fed by the daemon's event edges (dusk from the world clock, threat resolved,
materials acquired)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import evaluate_drive_tick
from agency.goals import read_binding
from agency.planning.converter import convert_thought
from agency.planning.tasks.models import NewTask, TaskStatus
from agency.world import WorldSnapshot
from bot.config.loader import McbotConfig
from bot.runtime.api import create_app
from bot.runtime.wiring import Agency
from tests.unit.runtime.api.test_http_api import _DaemonView as _NoBot


class _DaemonView(_NoBot):
    def health(self):
        return {"ok": False}


def _snap(time_of_day=6000, hostiles=0):
    return WorldSnapshot(
        health=20,
        food=20,
        gameMode="survival",
        dimension="overworld",
        timeOfDay=time_of_day,
        isDay=time_of_day < 13000,
        position={"x": 10, "y": 64, "z": 10},
        hostiles=hostiles,
        ts=1,
        inventory=[{"name": "oak_log", "count": 1}],
    )


@pytest.fixture
def agency(tmp_path, monkeypatch):
    monkeypatch.setenv("MCBOT_ENV", "development")  # the FIELDS-2 invariant check is on
    a = Agency(McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "a.db")}}))
    a.last_snapshot = _snap()
    yield a
    a.close()


def _shelter_task(agency):
    fired = evaluate_drive_tick(_snap(11500), agency.clock(), DriveTickState(), [], shelter_nearby=False)
    out = convert_thought(fired.thought, agency.tasks, agency.clock(), router=agency.goals.router)
    assert out.status == "converted"
    return out.task_id


def test_manual_pause_through_the_api_holds_through_dusk_and_review_and_only_resume_lifts_it(agency):
    c = TestClient(create_app(agency.api_context(_DaemonView())))
    task_id = _shelter_task(agency)
    r = c.post(f"/api/tasks/{task_id}/pause")
    assert r.status_code == 200 and r.json()["status"] == "paused"
    task = agency.tasks.get_task(task_id)
    hold = read_binding(task).hold
    assert hold.reason == "manual_pause" and task.metadata.blockedReason == "manual_pause"
    # every automatic path: a dusk edge, a threat clearing, materials, periodic reviews, the executor
    agency.goals.observe(_snap(10_900))
    agency.goals.observe(_snap(11_100, hostiles=1))
    agency.goals.observe(_snap(11_200, hostiles=0))
    agency.goals.reactor.materials_acquired()
    for _ in range(200):
        agency.goals.reactor.tick()
    assert agency.tasks.get_task(task_id).status is TaskStatus.paused
    assert c.post(f"/api/tasks/{task_id}/pause").status_code == 200  # pausing again keeps the wall
    r = c.post(f"/api/tasks/{task_id}/resume")
    assert r.status_code == 200 and r.json()["status"] == "pending"
    after = agency.tasks.get_task(task_id)
    assert read_binding(after).hold is None and after.metadata.blockedReason is None
    assert c.post(f"/api/tasks/{task_id}/resume").status_code == 409  # not paused any more
    pause_events = [e["event"] for e in agency.goals.events if e["taskId"] == task_id]
    assert "goal_resumed" in pause_events and "goal_reactivated" not in pause_events


def test_cancel_of_a_held_goal_bound_task_clears_the_hold_with_the_status(agency):
    c = TestClient(create_app(agency.api_context(_DaemonView())))
    task_id = _shelter_task(agency)
    c.post(f"/api/tasks/{task_id}/pause")
    r = c.post(f"/api/tasks/{task_id}/cancel")
    assert r.status_code == 200 and r.json()["status"] == "failed"
    task = agency.tasks.get_task(task_id)
    assert read_binding(task).hold is None and task.metadata.blockedReason is None
    assert agency.goals.sync.get(read_binding(task).goalId).status.value == "FAILED"


def test_dusk_edge_from_the_world_clock_wakes_held_shelter_goals_and_threat_edges_wake_unsafe_ones(agency):
    task_id = _shelter_task(agency)
    agency.goals.lifecycle.hold(task_id, "unsafe")
    lifecycle_clock = agency.goals.lifecycle
    agency.goals.observe(_snap(10_000))
    agency.goals.observe(_snap(10_500))
    assert agency.goals.reactor._woken == {}  # no edge yet
    agency.goals.observe(_snap(11_050, hostiles=2))  # dusk crossed: shelter goals woken
    assert task_id in agency.goals.reactor._woken
    spikes = [e for e in agency.goals.events if e["event"] == "goal_urgency_spike"]
    assert spikes and spikes[0]["taskId"] == task_id  # no verified shelter nearby
    # hysteresis: not before nextReviewAt, then reactivated (hostiles 0 = feasible)
    assert agency.goals.reactor.tick().reactivated == []
    hold = read_binding(agency.tasks.get_task(task_id)).hold
    lifecycle_clock.clock = lambda: hold.nextReviewAt
    agency.goals.observe(_snap(11_100, hostiles=0))  # threat resolved edge
    assert agency.goals.reactor.tick().reactivated == [task_id]
    assert agency.tasks.get_task(task_id).status is TaskStatus.pending


def test_a_finished_collect_task_is_materials_acquired_for_goals_held_for_materials(agency):
    task_id = _shelter_task(agency)
    agency.goals.lifecycle.hold(task_id, "materials_missing")
    logs = agency.tasks.add_task(NewTask(title="collect", type="collect", parameters={"target": "oak_log"}))
    agency.goals.on_task_event("completed", logs)
    assert agency.goals.reactor._woken.get(task_id) == "materials_acquired"
