"""Autonomy budgets: calls per hour, tokens per day, circuit breaker; stats for /metrics."""

from __future__ import annotations

import pytest

from agency.llm.budgets import AutonomyBudget
from agency.llm.errors import BudgetExceeded
from agency.llm.settings import BudgetConfig
from agency.llm.testing import ScriptedLLM, fail, final
from tests.unit.llm.conftest import make_settings, run


def test_calls_per_hour_cap_stops_the_session(llm: ScriptedLLM, clock) -> None:
    budget = AutonomyBudget(BudgetConfig(calls_per_hour=2), clock)
    llm.add(final("one"), final("two"))
    assert run("x", make_settings(llm), budget=budget, clock=clock).success
    assert run("x", make_settings(llm), budget=budget, clock=clock).success
    r = run("x", make_settings(llm), budget=budget, clock=clock)
    assert len(llm.requests) == 2  # the capped call was never sent
    assert not r.success and r.finalReport["metadata"]["reason"] == "budget_exceeded"
    assert "calls_per_hour" in r.error
    assert budget.stats()["cap_hits_calls_per_hour"] == 1
    clock.advance(3_600_000)  # the window slides
    llm.add(final("three"))
    assert run("x", make_settings(llm), budget=budget, clock=clock).success


def test_tokens_per_day_cap(llm: ScriptedLLM, clock) -> None:
    budget = AutonomyBudget(BudgetConfig(tokens_per_day=1000), clock)
    llm.add(final("big", usage=(900, 200)))
    assert run("x", make_settings(llm), budget=budget, clock=clock).success
    r = run("x", make_settings(llm), budget=budget, clock=clock)
    assert not r.success and "tokens_per_day" in r.error
    assert budget.stats()["tokens_last_day"] == 1100


def test_circuit_breaker_opens_after_consecutive_failures(llm: ScriptedLLM, clock) -> None:
    budget = AutonomyBudget(BudgetConfig(breaker_failures=3, breaker_cooldown_s=60), clock)
    llm.add(fail(500, times=3))
    r = run("x", make_settings(llm, max_retries=5), budget=budget, clock=clock)
    assert len(llm.requests) == 3 and not r.success
    assert r.finalReport["metadata"]["reason"] == "budget_exceeded" and "circuit_breaker" in r.error
    assert budget.stats()["breaker_open"] == 1
    clock.advance(61_000)
    llm.add(final("back"))
    assert run("x", make_settings(llm), budget=budget, clock=clock).success
    assert budget.stats()["consecutive_failures"] == 0


def test_check_raises_typed_error_with_limit_and_measure(clock) -> None:
    budget = AutonomyBudget(BudgetConfig(calls_per_hour=1), clock)
    budget.check_before_request()
    with pytest.raises(BudgetExceeded) as err:
        budget.check_before_request()
    assert (err.value.limit_name, err.value.limit, err.value.measured) == ("calls_per_hour", 1, 1)


def test_zero_means_no_cap(clock) -> None:
    budget = AutonomyBudget(BudgetConfig(calls_per_hour=0, tokens_per_day=0, breaker_failures=0), clock)
    for _ in range(500):
        budget.check_before_request()
        budget.record(False, 10_000)
    assert set(budget.stats()) >= {"calls_last_hour", "tokens_last_day", "breaker_open", "cap_hits_tokens_per_day"}
