"""docs/contracts.md COUNTER-1, COUNTER-2: agency counters and the periodic log line."""

from __future__ import annotations

import pytest

from agency.cognition.counters import COUNTER_NAMES, AgencyCounters


def test_every_contract_counter_exists_and_starts_at_zero(counters, clock):
    assert set(COUNTER_NAMES) == {
        "llmCalls",
        "goalTags",
        "driveTicks",
        "signatureSuppressions",
        "contentSuppressions",
        "intentExtractions",
        "lowNoveltyRecorded",
        "lowNoveltyBroadcast",
    }
    snap = counters.snapshot()
    assert snap == {**dict.fromkeys(COUNTER_NAMES, 0), "startedAtMs": clock()}


def test_counters_are_monotonically_increasing_within_a_session(counters):
    seen = dict.fromkeys(COUNTER_NAMES, 0)
    for i in range(30):
        name = COUNTER_NAMES[i % len(COUNTER_NAMES)]
        counters.increment(name, by=1 + i % 3)
        for n in COUNTER_NAMES:
            assert counters.get(n) >= seen[n]
            seen[n] = counters.get(n)
    assert counters.llmCalls == seen["llmCalls"] > 0


@pytest.mark.parametrize("by", [0, -1, 1.5, True])
def test_counters_cannot_be_decremented(counters, by):
    counters.increment("llmCalls")
    with pytest.raises(ValueError):
        counters.increment("llmCalls", by=by)
    assert counters.llmCalls == 1


def test_counters_have_no_public_setter(counters):
    counters.increment("goalTags")
    with pytest.raises(AttributeError):
        counters.goalTags = 0
    with pytest.raises(AttributeError):
        counters.startedAtMs = 0
    assert counters.goalTags == 1


def test_unknown_counter_name_is_rejected(counters):
    with pytest.raises(KeyError):
        counters.increment("bogus")


def test_resetAgencyCounters_is_the_only_reset_and_restarts_uptime(counters, clock):
    counters.increment("driveTicks", by=4)
    clock.advance(600_000)
    counters.reset_agency_counters()
    assert counters.driveTicks == 0
    assert counters.startedAtMs == clock()


def test_agency_log_line_exact_format(counters, clock):
    for name, n in [
        ("llmCalls", 7),
        ("goalTags", 3),
        ("driveTicks", 2),
        ("signatureSuppressions", 5),
        ("contentSuppressions", 4),
        ("intentExtractions", 1),
        ("lowNoveltyRecorded", 9),
    ]:
        counters.increment(name, by=n)
    line = counters.format_agency_log_line(clock() + 12 * 60_000 + 59_999)
    assert line == "[Agency 12m] llm=7 goals=3 drives=2 sigDedup=5 contentDedup=4 intents=1"


def test_agency_log_line_uptime_uses_injected_clock(clock):
    c = AgencyCounters(clock)
    assert c.format_agency_log_line().startswith("[Agency 0m] ")
    clock.advance(3 * 60_000)
    assert c.format_agency_log_line().startswith("[Agency 3m] ")
