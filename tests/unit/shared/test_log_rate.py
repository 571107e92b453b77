"""The log-rate aggregator on a frozen clock: the first line of a window at INFO, repeats at
DEBUG, one summary with the count when the window is over; unchanged lines at DEBUG."""

from __future__ import annotations

import pytest

from agency import log_rate
from agency.log_rate import LogOnChange, LogRate


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def info(logs):
    return [m for lvl, m in logs if lvl == "INFO"]


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture(autouse=True)
def _earlier_aggregators_closed():
    """flush_all speaks for every live aggregator, those of earlier tests in this process too
    (a daemon's, not yet collected): close them before this test's log is captured."""
    log_rate.flush_all()


def test_the_first_line_of_a_window_is_info_the_repeats_debug(logs, clock):
    rate = LogRate("[Saliency] awareness_suppressed", suffix="(dedup)", clock=clock)
    for i in range(28):
        rate.log("[Saliency] awareness_suppressed reason=dedup content_hash={}", i)
        clock.now += 2
    assert info(logs) == ["[Saliency] awareness_suppressed reason=dedup content_hash=0"]
    # every occurrence is still in the log (DEBUG), so nothing is lost to a DEBUG file
    assert sum(m.startswith("[Saliency] awareness_suppressed reason=dedup") for _, m in logs) == 28


def test_a_summary_with_the_count_closes_the_window(logs, clock):
    rate = LogRate("[Saliency] awareness_suppressed", suffix="(dedup)", clock=clock)
    for _ in range(28):
        rate.log("[Saliency] awareness_suppressed reason=dedup")
        clock.now += 2
    rate.flush()  # t = 56 s after the first: the window is not over yet
    assert len(info(logs)) == 1
    clock.now = 1060.0
    rate.flush()
    assert info(logs)[-1] == "[Saliency] awareness_suppressed x28 in the last 60 s (dedup)"
    rate.flush()  # closed once only
    assert len(info(logs)) == 2
    rate.log("[Saliency] awareness_suppressed reason=dedup")  # a new window opens at INFO
    assert info(logs)[-1] == "[Saliency] awareness_suppressed reason=dedup"


def test_a_line_that_comes_back_after_the_window_summarises_then_starts_afresh(logs, clock):
    rate = LogRate("[KeepAlive] skip reason=cooldown", clock=clock)
    rate.log("[KeepAlive] skip reason=cooldown remaining_ms={}", 100)
    rate.log("[KeepAlive] skip reason=cooldown remaining_ms={}", 90)
    clock.now += 75
    rate.log("[KeepAlive] skip reason=cooldown remaining_ms={}", 10)
    assert info(logs) == [
        "[KeepAlive] skip reason=cooldown remaining_ms=100",
        "[KeepAlive] skip reason=cooldown x2 in the last 75 s",
        "[KeepAlive] skip reason=cooldown remaining_ms=10",
    ]


def test_a_single_line_in_a_window_has_no_summary(logs, clock):
    rate = LogRate("[Cognition] thought_published processed=false", clock=clock)
    rate.log("[Cognition] thought_published processed=false")
    clock.now += 600
    log_rate.flush_all()
    assert info(logs) == ["[Cognition] thought_published processed=false"]


def test_flush_all_closes_every_live_aggregator(logs, clock):
    a, b = LogRate("[A] x", clock=clock), LogRate("[B] y", clock=clock)
    for _ in range(3):
        a.log("[A] x")
        b.log("[B] y")
    clock.now += 60
    log_rate.flush_all()
    assert "[A] x x3 in the last 60 s" in info(logs) and "[B] y x3 in the last 60 s" in info(logs)


def test_log_on_change_is_info_only_when_the_line_changes(logs):
    line = LogOnChange()
    for n in (0, 0, 0, 2, 2, 0):
        line.log("[CognitiveStream] /actionable: returned={} opt_in_only=true", n)
    assert info(logs) == [
        "[CognitiveStream] /actionable: returned=0 opt_in_only=true",
        "[CognitiveStream] /actionable: returned=2 opt_in_only=true",
        "[CognitiveStream] /actionable: returned=0 opt_in_only=true",
    ]
    assert len(logs) == 6


def test_log_on_change_with_a_key_ignores_figures_that_drift(logs):
    line = LogOnChange()
    for returned, queue in ((0, 3), (0, 4), (0, 5), (1, 5), (1, 6)):
        line.log("[CognitiveStream] /actionable: returned={} queue_size={}", returned, queue, key=returned)
    assert info(logs) == [
        "[CognitiveStream] /actionable: returned=0 queue_size=3",
        "[CognitiveStream] /actionable: returned=1 queue_size=5",
    ]
    assert len(logs) == 5
