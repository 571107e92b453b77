"""The embedded world's output in the daemon's log: its faults (node/server.js and its tick keep
the world up and say so on one line) are warnings, at most FAULT_WARNINGS_PER_MINUTE of a burst;
everything else is debug."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
from loguru import logger

from bot.runtime.server import FAULT_WARNINGS_PER_MINUTE, EmbeddedServer, EmbeddedServerSettings

FAULT = "[server] tick listener broken failed (kept alive, 1 time): TypeError: x is null | at tick (mobs.js:1)"


@pytest.fixture
def records():
    seen: list[tuple[str, str]] = []
    sink = logger.add(lambda m: seen.append((m.record["level"].name, m.record["message"])), level="DEBUG")
    yield seen
    logger.remove(sink)


def _read(lines: list[str], clock=lambda: 0.0) -> EmbeddedServer:
    server = EmbeddedServer(EmbeddedServerSettings(), clock=clock)
    server.proc = SimpleNamespace(stdout=iter(f"{line}\n" for line in lines))  # type: ignore[assignment]
    ready = threading.Event()
    server._read(ready)
    assert ready.is_set()
    return server


def test_a_fault_of_the_world_is_a_warning_and_its_other_lines_are_debug(records):
    _read(["[mcbot] loaded", FAULT, "MCBOT_SERVER_READY 1234"])
    assert ("WARNING", f"server: {FAULT}") in records
    assert ("DEBUG", "server: [mcbot] loaded") in records


def test_a_burst_of_faults_warns_a_few_times_a_minute_and_keeps_the_rest_at_debug(records):
    # one fault a second for 100 s: the first 10 warned, then from second 60 on one a second again
    # as the first ones leave the minute, 10 in each minute
    seconds = iter(range(1000))
    _read([*[FAULT] * 100, "MCBOT_SERVER_READY 1234"], clock=lambda: float(next(seconds)))
    levels = [level for level, message in records if message == f"server: {FAULT}"]
    warned = [i for i, level in enumerate(levels) if level == "WARNING"]
    assert warned[:FAULT_WARNINGS_PER_MINUTE] == list(range(FAULT_WARNINGS_PER_MINUTE))
    assert warned[FAULT_WARNINGS_PER_MINUTE:] == list(range(60, 70))
    assert len(levels) == 100
