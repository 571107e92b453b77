"""A bot's first join (Daemon._join): a bridge that goes down meanwhile (killed as wedged while
node loaded the version's game data on a loaded machine) is rebuilt and the join tried again,
JOIN_TRIES in all; any other failure, and the last try's, is the daemon's start failing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.runtime.bridge_errors import BridgeDead
from bot.runtime.daemon import JOIN_TRIES, Daemon
from bot.runtime.ping import ServerUnreachable


class _Bridge:
    def __init__(self) -> None:
        self.rebuilt = 0

    def rebuild_if_dead(self) -> None:
        self.rebuilt += 1


class _Body:
    def __init__(self, *failures: Exception) -> None:
        self.failures = list(failures)
        self.tries = 0

    def connect(self) -> None:
        self.tries += 1
        if self.failures:
            raise self.failures.pop(0)


def _join(body: _Body) -> _Bridge:
    bridge = _Bridge()
    Daemon._join(SimpleNamespace(bridge=bridge), body, "alpha")  # type: ignore[arg-type]
    return bridge


def test_a_bridge_that_goes_down_while_the_bot_joins_is_rebuilt_and_the_join_tried_again():
    body = _Body(BridgeDead("wedged: event loop lag over 2000 ms for 3 heartbeats in a row"))
    assert _join(body).rebuilt == 1 and body.tries == 2


def test_the_last_try_fails_the_start_and_other_failures_are_not_retried():
    down = [BridgeDead("wedged") for _ in range(JOIN_TRIES)]
    with pytest.raises(BridgeDead):
        _join(_Body(*down))
    body = _Body(ServerUnreachable("nothing answers on 127.0.0.1:25565"))
    with pytest.raises(ServerUnreachable):
        _join(body)
    assert body.tries == 1
