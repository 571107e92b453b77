"""What the executor knows of a drive tick's follow-ups (agency.execution.agents.follow_up_runs):
which goal a run is on, whether a task carries follow-ups, and whether work waits in the
queue that they must give way to.

Follow-ups fill the gap before the next tick, so they give way to work queued meanwhile: none
starts while the bot has other work queued, and one in flight stops when a task is queued (a
follow-up collect of logs that took its 300 s kept two first huts of a bench waiting 2.7
minutes). Either way the task is paused (GAVE_WAY) and back in the queue once nothing else
waits, where it goes on with the follow-ups left: dropped, they would wait for ticks 180 s
apart, and a chain long enough to reach past the next tick (the night's hut, asked for at
3000) would leave the bot idle after that tick's work.
"""

from __future__ import annotations

from loguru import logger

from agency.clock import Clock
from agency.execution.agents.runtime import AgentRuntime
from agency.execution.runs import Running, task_spec
from agency.planning.tasks.idempotency import GAVE_WAY, open_to
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.store import TaskStore

__all__ = ["GAVE_WAY", "QUEUE_CHECK_MS", "FollowUpWatch"]

QUEUE_CHECK_MS = 1_000  # a follow-up in flight looks at the queue at most this often (a store read)


class FollowUpWatch:
    def __init__(
        self,
        tasks: TaskStore,
        runtime: AgentRuntime,
        clock: Clock,
        *,
        bot: str | None = None,
        actions: frozenset[str] | None = None,
    ) -> None:
        self.tasks = tasks
        self.runtime = runtime
        self.clock = clock
        self.bot = bot
        self.actions = actions
        self._checked_ms: int | None = None  # when a follow-up in flight last looked at the queue

    def goal_of(self, run: Running) -> tuple[str, str]:
        """The action and target the run is on: its running follow-up's, else its task's."""
        return self.runtime.follow_up_goals.get(run.task_id, run.goal)

    def carries(self, task_id: str) -> bool:
        """Does the task carry follow-ups? Paused in them, it goes on with them when resumed,
        its goal not made again."""
        task = self.tasks.get_task(task_id)
        return task is not None and bool(task_spec(task).then)

    def work_waiting(self) -> bool:
        """Is a task pending that this executor would claim next (claim_next's filter)?"""
        actions = {a.lower() for a in self.actions} if self.bot and self.actions else None
        return any(
            open_to(t, self.bot) and (actions is None or t.type.lower() in actions)
            for t in self.tasks.list_by_status(TaskStatus.pending)
        )

    def must_give_way(self, run: Running) -> bool:
        """Does the run's follow-up in flight give way to work waiting in the queue? (checked
        once a QUEUE_CHECK_MS at most: the executor ticks far more often). The caller pauses it."""
        if run.task_id not in self.runtime.follow_up_goals or run.handle.stop_flag.is_set():
            return False
        now = self.clock()
        if self._checked_ms is not None and now - self._checked_ms < QUEUE_CHECK_MS:
            return False
        self._checked_ms = now
        if not self.work_waiting():
            return False
        logger.info("[Executor] task={} follow-up stopped: other work waits in the queue", run.task_id)
        return True

    def hold_of(self, run: Running) -> str | None:
        """Why the run ended with follow-ups left (GAVE_WAY: work waits in the queue;
        WAITING_FOR_MORNING: one met surface work at night), if so."""
        return self.runtime.follow_up_holds.pop(run.task_id, None)

    def forget(self, task_id: str) -> None:
        """The run was let go of another way (stopped, shut down): no hold of it is left over."""
        self.runtime.follow_up_holds.pop(task_id, None)
