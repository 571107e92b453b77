"""The per-client token bucket, on an injected clock: a minute's budget at once, refilled
continuously, one bucket per client (the stdio peer, an HTTP session, a stateless peer)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.mcp.limits import IDLE_SWEEP_AT, LOCAL_CLIENT, RateLimiter, client_key


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_client_may_spend_its_minute_at_once_then_waits_for_the_refill():
    clock = Clock()
    limiter = RateLimiter(3, clock)
    assert [limiter.check("a") for _ in range(3)] == [None, None, None]
    assert limiter.check("a") == "rate limited: 3 calls per minute; retry in 20.0 s"
    clock.now += 5.0
    assert limiter.check("a") == "rate limited: 3 calls per minute; retry in 15.0 s"  # a refusal costs nothing
    clock.now += 15.0
    assert limiter.check("a") is None
    assert limiter.check("a") is not None


def test_the_wait_is_rounded_up_to_a_tenth():
    clock = Clock()
    limiter = RateLimiter(120, clock)  # one call per 0.5 s
    for _ in range(120):
        assert limiter.check("a") is None
    clock.now += 0.44
    assert limiter.check("a") == "rate limited: 120 calls per minute; retry in 0.1 s"


def test_the_budget_never_grows_past_a_minute_however_long_a_client_was_idle():
    clock = Clock()
    limiter = RateLimiter(2, clock)
    clock.now += 3600
    assert [limiter.check("a") is None for _ in range(3)] == [True, True, False]


def test_each_client_has_its_own_bucket():
    limiter = RateLimiter(1, Clock())
    assert limiter.check("session:1") is None and limiter.check("session:2") is None
    assert limiter.check("session:1") is not None and limiter.check("session:2") is not None


def test_idle_clients_are_forgotten_once_many_came_and_went():
    clock = Clock()
    limiter = RateLimiter(60, clock)
    for i in range(IDLE_SWEEP_AT):
        limiter.check(f"peer:{i}")
    clock.now += 2.0  # one token back each: full again
    limiter.check("newcomer")
    assert list(limiter._buckets) == ["newcomer"]


def test_a_budget_below_one_call_is_refused():
    with pytest.raises(ValueError):
        RateLimiter(0)


@pytest.mark.parametrize(
    "request_obj, key",
    [
        (None, LOCAL_CLIENT),  # stdio and in-process: the one client
        # a session id header is the client's own word: a fresh one must not buy a fresh budget
        (SimpleNamespace(headers={"mcp-session-id": "abc"}, client=SimpleNamespace(host="10.0.0.2")), "peer:10.0.0.2"),
        (SimpleNamespace(headers={}, client=SimpleNamespace(host="10.0.0.2")), "peer:10.0.0.2"),  # stateless HTTP
        (SimpleNamespace(headers={}, client=None), "peer:unknown"),
    ],
)
def test_who_the_client_is(request_obj, key):
    assert client_key(SimpleNamespace(request=request_obj)) == key
