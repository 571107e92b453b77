"""GET /api/tasks/{id}/events over a real SQLite task store: the live part (events written
after the client connected, keep-alive comments on the injected clock, a client that went
away), where it ends (the task row's word after the log is drained), and its bad input."""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient

from agency.planning.tasks.models import NewTask, TaskOrigin, TaskStatus
from agency.planning.tasks.store import SqliteTaskStore
from bot.runtime.api import ApiContext, create_app
from bot.runtime.api.task_events import task_event_stream

S = TaskStatus


@pytest.fixture
def store(tmp_path):
    s = SqliteTaskStore(tmp_path / "t.db", dev_mode=False)
    yield s
    s.close()


def _task(store) -> str:
    return store.add_task(NewTask(title="Collect oak log", type="collect"), origin=TaskOrigin(kind="user")).id


def _client(store, token=None) -> TestClient:
    ctx = ApiContext(
        stream=None,
        tasks=store,
        counters=None,
        snapshot=None,
        poke_keepalive=None,
        health=dict,
        metrics=str,
        inject_thought=None,
    )
    return TestClient(create_app(ctx, token=token))


def _kinds(text: str) -> list[str]:
    return [line[len("event: ") :] for line in text.splitlines() if line.startswith("event: ")]


def test_events_written_after_connecting_arrive_live_with_keepalives_between(store):
    task_id = _task(store)
    now = [0.0]

    async def go() -> list[str]:
        async def connected() -> bool:
            return False

        gen = task_event_stream(
            store,
            task_id,
            0,
            stopping=lambda: False,
            disconnected=connected,
            poll_s=0,
            keepalive_s=15,
            clock=lambda: now[0],
        )
        got = [await anext(gen)]
        store.claim_next()
        got.append(await anext(gen))
        now[0] = 16.0  # quiet for longer than keepalive_s
        got.append(await anext(gen))
        store.set_status(task_id, S.completed)
        got += [chunk async for chunk in gen]
        return got

    chunks = asyncio.run(go())
    assert [c.split("\n")[1] if c.startswith("id:") else c.split("\n")[0] for c in chunks] == [
        "event: created",
        "event: claimed",
        ": keep-alive",
        "event: completed",
        "event: end",
    ]


def test_a_client_that_went_away_ends_the_stream_without_an_end(store):
    task_id = _task(store)

    async def go() -> list[str]:
        async def gone() -> bool:
            return True

        return [
            c async for c in task_event_stream(store, task_id, 0, stopping=lambda: False, disconnected=gone, poll_s=0)
        ]

    assert _kinds("".join(asyncio.run(go()))) == ["created"]


def test_a_history_longer_than_a_page_still_ends_with_its_failure_and_reason(store):
    task_id = _task(store)
    store.claim_next()
    for i in range(1, 601):
        store.set_progress(task_id, i / 1000)
    store.set_status(task_id, S.failed, metadata_patch={"solver": {"failureReason": "boom"}})
    r = _client(store).get(f"/api/tasks/{task_id}/events")
    kinds = _kinds(r.text)
    assert len(kinds) == 604 and kinds[-2:] == ["failed", "end"]
    assert '"reason":"boom"' in r.text.split("event: failed")[1]


def test_a_completed_task_the_verifier_reopened_is_followed_past_its_old_completion(store):
    task_id = _task(store)
    store.claim_next()
    store.set_status(task_id, S.completed)
    store.set_status(task_id, S.active)  # reopened: the stream must not end at the old `completed`

    async def go() -> list[str]:
        async def connected() -> bool:
            return False

        gen = task_event_stream(store, task_id, 0, stopping=lambda: False, disconnected=connected, poll_s=0)
        got = [await anext(gen) for _ in range(4)]
        store.set_status(task_id, S.failed)
        return got + [c async for c in gen]

    assert _kinds("".join(asyncio.run(go()))) == ["created", "claimed", "completed", "reopened", "failed", "end"]


def test_resuming_an_ended_task_with_nothing_left_is_a_204(store):
    task_id = _task(store)
    store.set_status(task_id, S.failed)
    c = _client(store)
    last = store.events(task_id)[-1].seq
    assert c.get(f"/api/tasks/{task_id}/events", headers={"last-event-id": str(last)}).status_code == 204
    assert c.get(f"/api/tasks/{task_id}/events", params={"after": last - 1}).status_code == 200


@pytest.mark.parametrize(
    "header, params",
    [("\u00b2".encode("latin-1"), {}), ("12a", {}), ("9" * 30, {}), (None, {"after": 2**70}), (None, {"after": -1})],
)
def test_a_bad_resume_position_is_a_400(store, header, params):
    task_id = _task(store)
    headers = {"last-event-id": header} if header is not None else {}
    r = _client(store).get(f"/api/tasks/{task_id}/events", headers=headers, params=params)
    assert r.status_code == 400, r.text


def test_the_event_stream_needs_the_token_like_every_route(store):
    task_id = _task(store)
    store.set_status(task_id, S.failed)
    c = _client(store, token="s3cret")
    assert c.get(f"/api/tasks/{task_id}/events").status_code == 401
    r = c.get(f"/api/tasks/{task_id}/events", headers={"authorization": "Bearer s3cret"})
    assert r.status_code == 200 and _kinds(r.text) == ["created", "failed", "end"]
