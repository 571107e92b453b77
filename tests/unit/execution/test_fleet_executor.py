"""Executors of several bots on one task store: each claims its bot's and open tasks, and
resumes or re-queues only the work its bot holds; an executor with no bot (one bot's daemon)
keeps today's behaviour. Real store and runtime over the fake world; no clock moves here."""

from __future__ import annotations

import asyncio

from agency.execution.executor import DISCONNECTED, Executor
from agency.planning.tasks.models import TaskStatus
from tests.unit.execution.world import add_task

S = TaskStatus


def _executor(env, bot):
    return Executor(env["tasks"], env["ex"].runtime, env["ftime"].clock, bot=bot)


def _bind(tasks, task_id, bot):
    """Stands for a task created bound to `bot` (user goal, drive tick): only the binding differs."""
    return tasks.update_task_metadata(task_id, {"bot": bot})


def test_an_executor_claims_its_bots_and_open_tasks_never_another_bots(env):
    tasks = env["tasks"]
    for_b = add_task(tasks, "craft", "crafting_table")
    _bind(tasks, for_b, "B")
    open_one = add_task(tasks, "craft", "wooden_pickaxe")
    tasks.set_urgencies({for_b: 0.9, open_one: 0.5})
    ex_a, ex_b = _executor(env, "A"), _executor(env, "B")

    async def go():
        assert await ex_a.tick() == "claimed"
        assert ex_a.current.task_id == open_one  # B's task is more urgent, but not A's to take
        assert await ex_b.tick() == "claimed"
        assert ex_b.current.task_id == for_b

    asyncio.run(go())
    assert tasks.get_task(open_one).metadata.heldBy == "A"
    assert (tasks.get_task(for_b).metadata.heldBy, tasks.get_task(for_b).metadata.bot) == ("B", "B")


def test_a_restarted_executor_resumes_only_the_interrupted_task_its_bot_holds(env):
    tasks = env["tasks"]
    tid = add_task(tasks, "craft", "crafting_table")
    assert tasks.claim_next(bot="A").id == tid  # A's executor claimed it, then the daemon died

    async def restart(bot):
        ex = _executor(env, bot)
        return await ex.tick(), ex.current

    assert asyncio.run(restart("B")) == ("idle", None)  # not B's, though nothing else is there
    assert tasks.get_task(tid).status is S.active
    out, run = asyncio.run(restart("A"))
    assert out == "resumed" and run.task_id == tid


def test_an_executor_with_no_bot_resumes_any_interrupted_task_as_today(env):
    tasks = env["tasks"]
    tid = add_task(tasks, "craft", "crafting_table")
    assert tasks.claim_next().metadata.heldBy is None  # a row from a one-bot daemon

    async def restart(bot):
        ex = _executor(env, bot)
        return await ex.tick(), ex.current

    out, run = asyncio.run(restart(None))  # (a fleet's executor requeues it instead: the test below)
    assert out == "resumed" and run.task_id == tid


def test_resume_paused_puts_back_only_the_tasks_this_bot_holds(env):
    tasks = env["tasks"]
    mine, theirs = add_task(tasks, "craft", "crafting_table"), add_task(tasks, "craft", "wooden_pickaxe")
    for bot in ("A", "B"):
        task = tasks.claim_next(bot=bot)
        tasks.set_status(task.id, S.paused, metadata_patch={"blockedReason": DISCONNECTED})
    assert _executor(env, "A").resume_paused(DISCONNECTED) == [mine]
    assert tasks.get_task(mine).status is S.pending and tasks.get_task(mine).metadata.heldBy is None
    assert tasks.get_task(theirs).status is S.paused  # B's body is still away
    assert _executor(env, None).resume_paused(DISCONNECTED) == [theirs]  # one bot's daemon: every task is its own


def test_a_fleets_executor_requeues_an_active_task_no_bot_holds_and_a_bot_then_claims_it(env):
    """Left active by a daemon of one bot (claimed with no bot): the fleet's first tick gives it back."""
    tasks = env["tasks"]
    tid = add_task(tasks, "craft", "crafting_table")
    assert tasks.claim_next().metadata.heldBy is None  # the one-bot daemon's claim
    ex = _executor(env, "A")

    async def go():
        return await ex.tick(), ex.current

    out, run = asyncio.run(go())
    assert out == "claimed" and run.task_id == tid  # back to pending, then claimed by A at once
    assert tasks.get_task(tid).metadata.heldBy == "A"
