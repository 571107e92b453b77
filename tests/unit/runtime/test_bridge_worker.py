"""The bridge's one worker thread: calls in order, a user's (urgent) calls before queued ones."""

from __future__ import annotations

import threading

from bot.runtime.bridge_worker import BridgeWorker as _Worker


def test_an_urgent_call_goes_before_queued_calls_and_each_lane_keeps_its_order() -> None:
    worker = _Worker("test-bridge")
    ran: list[str] = []
    entered, release = threading.Event(), threading.Event()
    busy = worker.submit(lambda: (entered.set(), release.wait(5.0)))  # the call under way
    assert entered.wait(5.0)
    queued = [worker.submit(lambda n=n: ran.append(n)) for n in ("poll1", "poll2")]
    urgent = [worker.submit(lambda n=n: ran.append(n), urgent=True) for n in ("user1", "user2")]
    release.set()
    for f in [busy, *queued, *urgent]:
        f.result(timeout=5.0)
    assert ran == ["user1", "user2", "poll1", "poll2"]
    worker.shutdown()
    worker.thread.join(timeout=5.0)
    assert not worker.thread.is_alive()


def test_shutdown_runs_the_calls_already_queued_first_and_errors_reach_the_caller() -> None:
    worker = _Worker("test-bridge")
    entered, release = threading.Event(), threading.Event()
    worker.submit(lambda: (entered.set(), release.wait(5.0)))
    assert entered.wait(5.0)
    last = worker.submit(lambda: "done")
    failing = worker.submit(lambda: 1 / 0)
    worker.shutdown()
    release.set()
    assert last.result(timeout=5.0) == "done"
    try:
        failing.result(timeout=5.0)
        raise AssertionError("the error was lost")
    except ZeroDivisionError:
        pass
    worker.thread.join(timeout=5.0)
    assert not worker.thread.is_alive()
