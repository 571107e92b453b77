"""Why a task waits (agency.planning.waiting), as every place that shows a task says it: the
night's shelter, another task, a bot not in the world, a pause's own reason."""

from __future__ import annotations

from agency.planning.tasks.models import TaskOrigin, TaskStatus
from agency.planning.waiting import waiting_reason


def _task(store, key: str):
    return store.add_task(
        {"title": key, "type": "collect", "metadata": {"goalKey": key}}, origin=TaskOrigin(kind="user")
    )


def test_a_pending_task_says_what_it_waits_for(store):
    queued, running = _task(store, "collect:oak_log"), _task(store, "build:basic_shelter")
    night = "the bot is sheltering for the night (until morning)"
    assert waiting_reason(queued, held=night, running=None, connected=True) == f"waiting: {night}"
    assert waiting_reason(queued, held=None, running=running, connected=True) == (
        f"waiting for build:basic_shelter (task {running.id[-8:]}) to end"
    )
    assert waiting_reason(queued, held=night, running=None, connected=False) == "waiting for the bot to join the world"
    assert waiting_reason(queued, held=None, running=None, connected=True).startswith("next:")


def test_a_paused_task_gives_its_own_reason_and_a_finished_one_none(store):
    t = _task(store, "collect:oak_log")
    paused = t.model_copy(
        update={"status": TaskStatus.paused, "metadata": t.metadata.model_copy(update={"blockedReason": "sheltering"})}
    )
    assert waiting_reason(paused, held=None, running=None, connected=True) == "sheltering"
    done = t.model_copy(update={"status": TaskStatus.completed})
    assert waiting_reason(done, held="x", running=None, connected=True) is None
