"""Bulk reads: one bridge call (bridge.js `many`) answers every key asked for lately; an
answer serves a key while it is younger than max_age; a key whose helper failed gets its
own error and the others their answers; keys not asked for lately are left out."""

from __future__ import annotations

import json
import threading
import time

import pytest

from bot.runtime.bridge import BridgeError
from bot.runtime.bulk_reads import BulkDrain, BulkRead


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class ManyBridge:
    """`many` over a table of per-key answers; a missing key fails like a bot that left."""

    def __init__(self, table: dict[str, object]) -> None:
        self.table = table
        self.asked: list[dict[str, list]] = []

    def call_json(self, fn: str, helper: str, args_json: str) -> dict:
        assert fn == "many"
        args = json.loads(args_json)
        self.asked.append(args)
        return {
            k: ({"value": self.table[k]} if k in self.table else {"error": f"bot {k} has disconnected"}) for k in args
        }


def test_keys_asking_within_max_age_share_one_call_and_a_stale_answer_is_fetched_again_for_all():
    clock = Clock()
    bridge = ManyBridge({"b1": {"hp": 20}, "b2": {"hp": 18}})
    snaps = BulkRead(bridge, "snapshot", max_age_s=0.25, monotonic=clock)  # type: ignore[arg-type]  # a fake bridge
    assert snaps.read("b1", "b1", 16) == {"hp": 20}
    assert snaps.read("b2", "b2", 16) == {"hp": 18}  # new to the read: fetched, with b1 along
    assert bridge.asked == [{"b1": ["b1", 16]}, {"b1": ["b1", 16], "b2": ["b2", 16]}]
    clock.now += 0.1
    bridge.table["b1"] = {"hp": 5}
    assert snaps.read("b1", "b1", 16) == {"hp": 20} and len(bridge.asked) == 2  # young enough: no call
    clock.now += 0.2
    assert snaps.read("b2", "b2", 16) == {"hp": 18} and len(bridge.asked) == 3  # stale: one call for both
    assert snaps.read("b1", "b1", 16) == {"hp": 5} and len(bridge.asked) == 3
    assert snaps.read("b1", "b1", 24) == {"hp": 5} and len(bridge.asked) == 4  # other args: never a cached answer


def test_with_same_args_off_an_answer_serves_a_key_asking_with_new_args():
    clock = Clock()
    bridge = ManyBridge({"b1": {"seq": 3, "threats": []}})
    threats = BulkRead(bridge, "threatsSince", max_age_s=0.015, same_args=False, monotonic=clock)
    threats.read("b1", "b1", 0)
    threats.read("b1", "b1", 3)
    assert len(bridge.asked) == 1
    clock.now += 0.02
    threats.read("b1", "b1", 3)
    assert bridge.asked[-1] == {"b1": ["b1", 3]}


def test_a_failed_key_gets_its_error_the_others_their_answers_and_quiet_keys_are_left_out():
    clock = Clock()
    bridge = ManyBridge({"a1": {"state": "running"}, "a2": {"state": "done"}})
    polls = BulkRead(bridge, "pollAction", max_age_s=0.15, forget_s=5, monotonic=clock)  # type: ignore[arg-type]  # a fake bridge
    polls.read("a1", "a1")
    polls.read("a2", "a2")
    with pytest.raises(BridgeError, match="has disconnected"):
        polls.read("gone", "gone")
    clock.now += 1
    polls.read("a1", "a1")
    assert "gone" not in bridge.asked[-1] and set(bridge.asked[-1]) == {"a1", "a2"}
    polls.forget("a2")  # an ended action
    clock.now += 1
    polls.read("a1", "a1")
    assert set(bridge.asked[-1]) == {"a1"}
    clock.now += 6
    bridge.table["b9"] = {"state": "running"}
    polls.read("b9", "b9")  # a1 not asked for 6 s: left out
    assert set(bridge.asked[-1]) == {"b9"}


def test_a_reader_that_waited_behind_a_slow_call_takes_its_answer_instead_of_calling_again():
    clock = Clock()
    entered, release = threading.Event(), threading.Event()

    class SlowBridge(ManyBridge):
        slow = False

        def call_json(self, fn, helper, args_json):
            if self.slow:
                entered.set()
                release.wait(5)
                clock.now += 0.05  # the call outlives max_age
            return super().call_json(fn, helper, args_json)

    arrived = threading.Event()

    def monotonic() -> float:  # says when the second reader has taken its arrival time
        if threading.current_thread().name == "second":
            arrived.set()
        return clock()

    bridge = SlowBridge({"b1": {"seq": 0, "threats": []}, "b2": {"seq": 0, "threats": []}})
    threats = BulkRead(bridge, "threatsSince", max_age_s=0.015, same_args=False, monotonic=monotonic)
    threats.read("b1", "b1", 0)
    threats.read("b2", "b2", 0)
    clock.now += 1
    bridge.slow = True
    first = threading.Thread(target=threats.read, args=("b1", "b1", 0))
    first.start()
    assert entered.wait(5)
    second = threading.Thread(target=threats.read, args=("b2", "b2", 0), name="second")
    second.start()  # arrives while the call is in flight, then waits for the lock
    assert arrived.wait(5)
    release.set()
    first.join(5)
    second.join(5)
    assert len(bridge.asked) == 3  # the slow call answered both


class QueueBridge:
    """`many` over per-key queues that a drain empties, like bridge.js drainEvents."""

    def __init__(self, queues: dict[str, list[str]]) -> None:
        self.queues = queues
        self.asked: list[list[str]] = []

    def call_json(self, fn: str, helper: str, args_json: str) -> dict:
        keys = list(json.loads(args_json))
        self.asked.append(keys)
        out: dict[str, dict] = {}
        for k in keys:
            if k == "broken":
                out[k] = {"error": "no bot with id broken"}
            else:
                out[k], self.queues[k] = {"value": self.queues.get(k, [])}, []
        return out


def test_a_lone_reader_drains_at_every_call():
    clock = Clock()
    bridge = QueueBridge({"b1": ["spawn"]})
    events = BulkDrain(bridge, "drainEvents", max_age_s=0.5, monotonic=clock)  # type: ignore[arg-type]  # a fake bridge
    assert events.take("b1", "b1", 500) == ["spawn"]
    bridge.queues["b1"] = ["chat"]
    assert events.take("b1", "b1", 500) == ["chat"]
    assert events.take("b1", "b1", 500) == []
    assert len(bridge.asked) == 3


def test_bots_take_what_another_bots_drain_brought_them_until_it_is_old():
    clock = Clock()
    bridge = QueueBridge({"b1": [], "b2": []})
    events = BulkDrain(bridge, "drainEvents", max_age_s=0.5, monotonic=clock)  # type: ignore[arg-type]  # a fake bridge
    events.take("b1", "b1", 500)
    events.take("b2", "b2", 500)  # new: drains at once, for b1 too
    assert bridge.asked == [["b1"], ["b1", "b2"]]
    bridge.queues.update({"b1": ["health"], "b2": ["chat"]})
    clock.now += 0.1
    assert events.take("b1", "b1", 500) == [], "b2's drain is young and brought b1 nothing: no call"
    assert len(bridge.asked) == 2
    assert events.take("b2", "b2", 500) == ["chat"], "b2 took its last drain: it drains, for both"
    assert events.take("b1", "b1", 500) == ["health"], "held from b2's drain, no call"
    assert len(bridge.asked) == 3
    bridge.queues.update({"b1": ["end"], "b2": ["late"]})
    assert events.take("b1", "b1", 500) == ["end"]  # b1 took b2's drain: it drains, b2's late is held
    bridge.queues["b2"] = ["later"]
    clock.now += 0.6
    assert events.take("b2", "b2", 500) == ["late", "later"], "b1's drain is old: b2 drains, in order"
    assert len(bridge.asked) == 5


def test_a_drain_failing_for_a_key_raises_for_it_alone_and_forgotten_keys_lose_their_items():
    clock = Clock()
    bridge = QueueBridge({"b1": ["spawn"]})
    events = BulkDrain(bridge, "drainEvents", max_age_s=0.5, forget_s=5.0, monotonic=clock)  # type: ignore[arg-type]  # a fake bridge
    with pytest.raises(BridgeError, match="no bot with id broken"):
        events.take("broken", "broken", 500)
    assert events.take("b1", "b1", 500) == ["spawn"]
    bridge.queues["b1"] = ["chat"]
    clock.now += 6.0  # broken was not asked for since: left out, b1 asks again
    assert events.take("b1", "b1", 500) == ["chat"]
    assert bridge.asked[-1] == ["b1"]


class Waited:
    """A monotonic clock whose second reading comes `wait_s` after the first: the caller
    waited that long for the lock (another bulk call held the bridge at shutdown)."""

    def __init__(self, wait_s: float) -> None:
        self.readings = [100.0, 100.0 + wait_s]

    def __call__(self) -> float:
        return self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]


def test_a_reader_that_waited_longer_than_forget_for_the_lock_still_gets_its_answer():
    bridge = ManyBridge({"b1": {"hp": 20}})
    snaps = BulkRead(bridge, "snapshot", max_age_s=0.5, forget_s=5.0, monotonic=Waited(6.0))  # type: ignore[arg-type]  # a fake bridge
    assert snaps.read("b1", 8) == {"hp": 20} and bridge.asked == [{"b1": [8]}]
    events = BulkDrain(ManyBridge({"b1": ["spawn"]}), "drainEvents", max_age_s=0.5, forget_s=5.0, monotonic=Waited(6.0))
    assert events.take("b1", 50) == ["spawn"]


class StuckBridge(QueueBridge):
    """A drain that answers, then hangs until released (a stalled bridge), once."""

    def __init__(self, queues: dict[str, list[str]]) -> None:
        super().__init__(queues)
        self.stuck = False
        self.entered, self.release = threading.Event(), threading.Event()

    def call_json(self, fn: str, helper: str, args_json: str) -> dict:
        out = super().call_json(fn, helper, args_json)
        if self.stuck:
            self.stuck = False
            self.entered.set()
            assert self.release.wait(10), "the test never released the stuck drain"
        return out


def test_readers_queued_behind_a_drain_stuck_past_the_forget_time_keep_their_items():
    """b2's drain brings b1's and b3's events, then hangs; b1 and b3 queue behind it 5.5 s
    before it comes back. The first of them to get the lock must not forget the other (its
    last take is 7 s old, but it was asking all along), nor drop the events held for it."""
    clock = Clock()
    bridge = StuckBridge({"b1": [], "b3": []})
    events = BulkDrain(bridge, "drainEvents", max_age_s=0.5, forget_s=5.0, monotonic=clock)  # type: ignore[arg-type]  # a fake bridge
    assert events.take("b1", "b1", 500) == [] and events.take("b3", "b3", 500) == []
    bridge.queues.update({"b1": ["hurt"], "b3": ["death"]})
    clock.now = 101.0
    bridge.stuck = True
    got: dict[str, list[str]] = {}
    stuck = threading.Thread(target=lambda: got.update(b2=events.take("b2", "b2", 500)))
    stuck.start()
    assert bridge.entered.wait(10)
    clock.now = 101.5
    readers = [threading.Thread(target=lambda k=k: got.update({k: events.take(k, k, 500)})) for k in ("b1", "b3")]
    for r in readers:
        r.start()
    deadline = time.monotonic() + 10  # both readers wait for the lock (threads: a bounded wait)
    while not {"b1", "b3"} <= set(events._asks._callers):  # the private queue this test sets up
        assert time.monotonic() < deadline, "the readers never queued"
        time.sleep(0.001)
    clock.now = 107.0  # the drain comes back 6 s after it started
    bridge.release.set()
    for t in (stuck, *readers):
        t.join(10)
    assert got == {"b2": [], "b1": ["hurt"], "b3": ["death"]}
