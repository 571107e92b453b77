"""A drive tick's food stock planned where its animal is gone from sight is cooked from the best
meat in sight (agency.execution.agents.stock_meat), through AgentRuntime.run_task over the fake
world with animals: never a user's smelt, never while its own meat or animal is to be had."""

from __future__ import annotations

from typing import Any

import pytest

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.tools import ToolContext
from agency.tools.testing import FakeTime, Mob
from tests.unit.conftest import run
from tests.unit.tools.test_hunting import HuntBody
from tests.unit.tools.test_smelting import SmeltBody

HELD = {"furnace": 1, "coal": 4}


class StockBody(HuntBody, SmeltBody):
    """Animals with their loot, and furnaces."""


def _world(ftime: FakeTime, *animals: tuple[str, int], held: dict[str, int] | None = None) -> StockBody:
    body = StockBody(ftime.clock, HELD | (held or {}))
    for i, (name, n) in enumerate(animals):
        body.mobs += [Mob(name, hostile=False, x=4.5 + j, z=0.5 + 3 * i) for j in range(n)]
    return body


def _run(ftime: FakeTime, store: SqliteCheckpointStore, body: StockBody, amount: int = 3, **spec: Any) -> Any:
    """`smelt cooked_porkchop 3` (the fake world's animals drop one meat each)."""
    ctx = ToolContext(body=body, clock=ftime.clock, sleep=ftime.sleep, poll_interval_s=0.1)
    runtime = AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)
    return run(runtime.run_task(TaskSpec(action="smelt", target="cooked_porkchop", amount=amount, **spec)))


def test_a_food_stock_whose_pig_is_gone_is_cooked_from_the_sheep_in_sight(
    ftime: FakeTime, store: SqliteCheckpointStore, logs: list[tuple[str, str]]
) -> None:
    body = _world(ftime, ("sheep", 3))
    res = _run(ftime, store, body, id="s1", drive=True)
    assert res.ok, res.errors
    assert body.inventory["cooked_mutton"] == 3 and not body.inventory.get("cooked_porkchop")
    said = "smelt cooked_porkchop 3: no pig within 32 blocks and none of its porkchop held; sheep in sight: a stock"
    assert any(said in m for _, m in logs)


@pytest.mark.parametrize(
    ("animals", "held", "drive"),
    [
        ((("sheep", 3),), {}, False),  # a user's smelt is what the user asked for
        ((("sheep", 3), ("pig", 1)), {}, True),  # its own animal in sight: the stock the tick chose
        ((("sheep", 3),), {"porkchop": 1}, True),  # its meat held: cooked, and hunted for the rest
    ],
    ids=["a user's", "its pig in sight", "its meat held"],
)
def test_a_stock_is_kept_to_its_meat(
    ftime: FakeTime, store: SqliteCheckpointStore, animals: Any, held: dict[str, int], drive: bool
) -> None:
    body = _world(ftime, *animals, held=held)
    res = _run(ftime, store, body, id="s2", drive=drive)
    assert not body.inventory.get("cooked_mutton")
    assert len([m for m in body.mobs if m.name == "sheep"]) == 3  # no sheep hunted
    if not drive or held:
        assert not res.ok and "no pig within 32 blocks to hunt" in str(res.errors)
    else:
        assert not [m for m in body.mobs if m.name == "pig"]  # the pig hunted


def test_a_stock_that_settles_cooks_the_meat_an_earlier_run_hunted(
    ftime: FakeTime, store: SqliteCheckpointStore, logs: list[tuple[str, str]]
) -> None:
    """Retargeted to mutton, it hunted two and found no more: planned again from the task (pork,
    settling), it cooks the mutton held rather than hunting the cows in sight."""
    body = _world(ftime, ("cow", 2), held={"mutton": 2})
    res = _run(ftime, store, body, id="s3", drive=True, settle=True)
    assert res.ok, res.errors
    assert body.inventory["cooked_mutton"] == 2 and len([m for m in body.mobs if m.name == "cow"]) == 2
    assert any("2 mutton held: a stock of cooked_mutton instead" in m for _, m in logs)


def test_with_no_game_in_sight_the_meat_held_is_the_stock(
    ftime: FakeTime, store: SqliteCheckpointStore, logs: list[tuple[str, str]]
) -> None:
    body = _world(ftime, held={"beef": 1})
    _run(ftime, store, body, id="s4", drive=True)
    assert any("1 beef held: a stock of cooked_beef instead" in m for _, m in logs)


def test_a_drive_ticks_smelt_of_more_than_a_stock_is_kept_to_its_meat(
    ftime: FakeTime, store: SqliteCheckpointStore
) -> None:
    """The raw_meat rule's smelt of what was held (10 porkchop, eaten since) is no stock."""
    body = _world(ftime, ("sheep", 3))
    res = _run(ftime, store, body, amount=10, id="s5", drive=True)
    assert not res.ok and "no pig within 32 blocks to hunt" in str(res.errors)
    assert len([m for m in body.mobs if m.name == "sheep"]) == 3
