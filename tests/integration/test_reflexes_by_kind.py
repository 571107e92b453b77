"""Reflexes by mob kind through the real bridge in the embedded world (the short version of
`mcbot bench reflexes`): one of each kind summoned just inside its threat radius, and the
reflex's first action on the bot is the one its kind calls for: an attack on a zombie, a
spider and a skeleton (closing in), a walk out of a creeper's blast."""

from __future__ import annotations

import math

import pytest

from bot.tooling.bench_reflexes import measure
from bot.tooling.progress import Progress
from tests.conftest import make_body

NAME = "reflexer"


@pytest.fixture
def reflexer(bridge, embedded_server):
    body = make_body(bridge, embedded_server.port, NAME)
    yield body
    body.close()


def test_each_kind_gets_its_own_reflex_within_a_poll_of_entering_its_radius(reflexer):
    p = reflexer.snapshot().position
    at = (math.floor(p.x) + 40, math.floor(p.y), math.floor(p.z) + 40)  # away from the spawn the other tests use
    said: list[str] = []
    result = measure(reflexer, rounds=1, modes=("watch",), at=at, progress=Progress("bench reflexes", said.append))
    kinds = result["kinds"]
    firsts = {kind: kinds[kind]["watch"]["first_actions"] for kind in kinds}
    assert firsts == {
        "zombie": {"attack": 1},
        "spider": {"attack": 1},
        "skeleton": {"attack": 1},
        "creeper": {"move_to": 1},
    }, kinds
    # A line per round as it ends (a default bench is 64 rounds, minutes long), after the set-up's.
    assert said[0].startswith("bench reflexes: building the arena (0:0"), said
    assert said[1].startswith(
        "bench reflexes: 4 rounds: 1 per mob kind (zombie, spider, skeleton, creeper) and mode (watch)"
    ), said
    assert [line.split(":")[1].strip() for line in said[2:]] == [
        "1/4 round 1/1 zombie (watch)",
        "2/4 round 1/1 spider (watch)",
        "3/4 round 1/1 skeleton (watch)",
        "4/4 round 1/1 creeper (watch)",
    ], said
    assert "left)" in said[2] and said[-1].endswith("elapsed)"), said
    print("reaction ms by kind:", {kind: kinds[kind]["watch"]["p50_ms"] for kind in kinds})
