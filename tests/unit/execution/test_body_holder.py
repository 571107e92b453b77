"""Who has the body (agency.execution.body_holder): the reflexes before a direct action,
a direct action before the executor's tasks, and the executor's when nothing else is there."""

from __future__ import annotations

from types import SimpleNamespace

from agency.execution.body_holder import DIRECT, EXECUTOR, REFLEX, BodyHolder


def _reflexes(holding: bool) -> SimpleNamespace:
    return SimpleNamespace(holding_tasks=holding)


def _direct(busy: bool) -> SimpleNamespace:
    return SimpleNamespace(body_busy=object() if busy else None)


def test_with_no_reflexes_or_direct_actions_yet_the_executor_has_the_body():
    holder = BodyHolder()
    assert (holder.holder, holder.taken, holder.reflexes_hold, holder.direct_holds) == (EXECUTOR, False, False, False)


def test_the_executor_has_the_body_while_neither_reflexes_nor_a_direct_action_hold_it():
    holder = BodyHolder(_reflexes(False), _direct(False))
    assert (holder.holder, holder.taken) == (EXECUTOR, False)


def test_a_direct_action_moving_the_body_takes_it_from_the_executor():
    holder = BodyHolder(_reflexes(False), _direct(True))
    assert (holder.holder, holder.taken, holder.direct_holds, holder.reflexes_hold) == (DIRECT, True, True, False)


def test_the_reflexes_win_over_a_direct_action():
    holder = BodyHolder(_reflexes(True), _direct(True))
    assert (holder.holder, holder.taken, holder.reflexes_hold) == (REFLEX, True, True)


def test_the_answer_follows_the_holders_as_they_change():
    reflexes, direct = _reflexes(True), _direct(False)
    holder = BodyHolder(reflexes, direct)
    assert holder.holder == REFLEX
    reflexes.holding_tasks = False  # morning: out of the shelter
    assert holder.holder == EXECUTOR
    direct.body_busy = object()
    assert holder.holder == DIRECT
